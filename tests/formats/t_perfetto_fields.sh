#!/usr/bin/env bash
# Perfetto import, complete or loud inside the messages it reads: fields outside the
# subset in a TrackDescriptor, InternedData (or any message under a packet) are counted
# per message type and field; a counter track's unit and the annotations of a slice end
# have no place in the model and are counted; categories (own and interned) are the
# parameter "cat". --strict fails with the counts and changes nothing.
. "$(dirname "$0")/../lib.sh"

# The trace, written field by field (Perfetto's field numbers): a track descriptor with
# field 13 (description); interned data with a category (iid 1 "gfx") and field 4
# (source_locations); an instant with categories "app" and iid 1; a slice whose end
# carries an annotation; a counter track with unit_name "ms" and one value.
python3 - "$TMP/fields.pftrace" <<'PY'
import sys
def varint(n):
    out = b''
    while True:
        b = n & 0x7f; n >>= 7
        if not n: return out + bytes([b])
        out += bytes([b | 0x80])
def key(f, wt): return varint(f << 3 | wt)
def vi(f, n): return key(f, 0) + varint(n)
def ld(f, b):
    b = b.encode() if isinstance(b, str) else b
    return key(f, 2) + varint(len(b)) + b
def packet(*fields): return ld(1, b''.join(fields))
open(sys.argv[1], 'wb').write(b''.join([
    packet(ld(60, vi(1, 1) + ld(2, 't') + ld(13, 'a description'))),
    packet(vi(10, 1), ld(12, ld(1, vi(1, 1) + ld(2, 'gfx')) + ld(4, b''))),
    packet(vi(8, 5), vi(10, 1), ld(11, vi(9, 3) + vi(11, 1) + ld(23, 'i') + ld(22, 'app') + vi(3, 1))),
    packet(vi(8, 6), vi(10, 1), ld(11, vi(9, 1) + vi(11, 1) + ld(23, 's'))),
    packet(vi(8, 7), vi(10, 1), ld(11, vi(9, 2) + vi(11, 1) + ld(4, ld(10, 'x') + vi(4, 1)))),
    packet(ld(60, vi(1, 2) + vi(5, 1) + ld(2, 'c') + ld(8, ld(6, 'ms')))),
    packet(vi(8, 8), vi(10, 1), ld(11, vi(9, 4) + vi(11, 2) + vi(30, 3))),
]))
PY
check_rc "import" 0 "$TRAZA" import "$TMP/fields.pftrace" --name f
check_contains "a TrackDescriptor field counted" "$OUT" "skipped 1 TrackDescriptor messages with field 13 (outside the subset)"
check_contains "an InternedData field counted" "$OUT" "skipped 1 InternedData messages with field 4 (outside the subset)"
check_contains "a counter unit counted" "$OUT" "skipped 1 counter track units (CounterDescriptor.unit_name)"
check_contains "a slice end's annotation counted" "$OUT" "skipped 1 slice ends with debug annotations or categories (a slice keeps its begin's)"
check_eq "events, the instant's categories as cat" 'ts,end_ts,type,params
5,,i,"cat=app,gfx"
6,7,s,
8,8,c,' "$("$TRAZA" query f --csv --limit 0 | cut -d, -f2-4,11-)"
J=$("$TRAZA" info f --json)
check_eq "info: the counts" '{"skipped.counter_units": "1", "skipped.fields.InternedData.4": "1", "skipped.fields.TrackDescriptor.13": "1", "skipped.slice_end_annotations": "1"}' \
  "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.dumps({k: v for k, v in json.load(sys.stdin)["params"].items() if k.startswith("skipped.")}, sort_keys=True))')"
before=$("$TRAZA" list --json)
check_rc "--strict fails" 1 "$TRAZA" import "$TMP/fields.pftrace" --name strict --strict
check_contains "--strict: the counts" "$OUT" "skipped 1 InternedData messages with field 4 (outside the subset), 1 TrackDescriptor messages with field 13 (outside the subset), 1 counter track units (CounterDescriptor.unit_name), 1 slice ends with debug annotations or categories (a slice keeps its begin's)"
check_eq "a failed strict import changes nothing" "$before" "$("$TRAZA" list --json)"
