#!/usr/bin/env bash
# Perfetto protobuf export (.pftrace): protoc decodes it with traza's schema subset.
. tests/lib.sh
PROTO=${TRAZA_SRC:-.}/src/export/perfetto_trace.proto
decode() { protoc --decode=perfetto.protos.Trace --proto_path="$(dirname "$PROTO")" "$PROTO" < "$1"; }
# The events of a trace, one CSV line each, sorted (events of one timestamp may come
# back in another order); CUT picks the columns compared.
events() { "$TRAZA" query "$1" --limit 0 --csv | tail -n +2 | cut -d, -f"${CUT:-2-}" | LC_ALL=C sort; }
roundtrip() { # NAME TRACE [CUT]: export, import as TRACE_rt, compare the events
  local name=$1 t=$2
  check_rc "$name: export" 0 "$TRAZA" export "$t" --format perfetto -o "$TMP/$t.pftrace"
  check_rc "$name: import" 0 "$TRAZA" import "$TMP/$t.pftrace" --name "${t}_rt"
  check_rc "$name: the same events (times, types, producers, values, params)" 0 diff <(events "$t") <(events "${t}_rt")
  check_eq "$name: the same producers" "$("$TRAZA" info "$t" --json | json_get producers)" "$("$TRAZA" info "${t}_rt" --json | json_get producers)"
}

# A small generated trace: the packets protoc shows.
check_rc "gen a small trace" 0 "$TRAZA" gen --events 20 --params 4 --name small
check_rc "export perfetto" 0 "$TRAZA" export small --format perfetto -o "$TMP/small.pftrace"
if command -v protoc >/dev/null; then
  check_rc "protoc decodes the export" 0 decode "$TMP/small.pftrace"
  # the first event: punctual3 at 80 ns on g0_3/n24, p0=586050 p1=618.698 p2=india p3=0x1002e824
  first=$(printf '%s\n' "$OUT" | awk '/^packet \{/{b=""} {b=b $0 "\n"} /^}/{ if (b ~ /timestamp: 80\n/) { printf "%s", b; exit } }')
  check_contains "first event: its timestamp" "$first" "  timestamp: 80"
  check_contains "first event: an instant" "$first" "    type: TYPE_INSTANT"
  check_contains "first event: the name interned" "$first" $'    event_names {\n      iid: 4\n      name: "punctual3"'
  check_contains "first event: int parameter as a debug annotation" "$first" $'    debug_annotations {\n      name_iid: 13\n      int_value: 586050\n    }'
  check_contains "first event: hex parameter as a pointer" "$first" "      pointer_value: 268625956"
  check_contains "first event: string parameter" "$first" '      string_value: "india"'
  check_contains "first event: annotation names interned" "$first" $'    debug_annotation_names {\n      iid: 15\n      name: "p2"'
  check_contains "a producer's track" "$OUT" $'    uuid: 29\n    name: "n24"\n    parent_uuid: 4'
  check_contains "a slice begins" "$OUT" "    type: TYPE_SLICE_BEGIN"
  check_contains "a counter value" "$OUT" "    double_counter_value: "
  check_contains "the cpu field as an annotation" "$OUT" $'      iid: 41\n      name: "traza.cpu"'
else
  skip "protoc decodes the export" "protoc is not installed"
fi

# A unit finer than ns: whole nanoseconds pass, others are refused by name.
check_rc "gen a trace in ps" 0 "$TRAZA" gen --events 50 --time-unit -12 --name gps
check_rc "ps trace: refused" 1 "$TRAZA" export gps --format perfetto -o "$TMP/gps.pftrace"
check_contains "ps trace: the error names the timestamp" "$OUT" "perfetto export: timestamp 80 (10^-12 s) is not a whole number of nanoseconds, the finest time Perfetto keeps"
check_rc "ps trace: no file left" 1 test -e "$TMP/gps.pftrace"
