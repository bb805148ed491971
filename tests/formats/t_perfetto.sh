#!/usr/bin/env bash
# Perfetto protobuf export (.pftrace): protoc decodes it with traza's schema subset,
# and traza's importer reads it back to the same producers, events, values and links.
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

# Round trips.
check_rc "import the demo Paje trace" 0 "$TRAZA" import examples/demo.paje --name demo
roundtrip "demo.paje" demo
check_eq "demo.paje: the nesting levels too" "$(CUT=2- events demo | md5sum)" "$(CUT=2- events demo_rt | md5sum)"
check_rc "gen a trace with every category and parameter type" 0 "$TRAZA" gen --events 20000 --params 4 --name g
# gen's states carry no nesting level (they overlap freely); the import gives each
# its depth on its track: every column but the level is compared.
CUT=2-7,9- roundtrip "gen" g
if command -v protoc >/dev/null; then
  check_rc "gen: protoc decodes the export" 0 decode "$TMP/g.pftrace"
  check_contains "gen: a link's start carries its flow" "$OUT" "    flow_ids: "
  check_contains "gen: a link's end terminates it" "$OUT" "    terminating_flow_ids: "
  check_contains "gen: overlapping states go to a lane track" "$OUT" "    uuid: 46116860"
  check_contains "gen: a variable's duration" "$OUT" $'      name: "traza.dur"'
fi
check_eq "gen: the same count of each category" \
  "$("$TRAZA" info g --json | json_get categories)" "$("$TRAZA" info g_rt --json | json_get categories)"

# A trace in microseconds comes back in nanoseconds, exactly x1000.
check_rc "gen a trace in us" 0 "$TRAZA" gen --events 2000 --time-unit -6 --name gus
check_rc "export the us trace" 0 "$TRAZA" export gus --format perfetto -o "$TMP/gus.pftrace"
check_rc "import the us trace" 0 "$TRAZA" import "$TMP/gus.pftrace" --name gus_rt
check_eq "us trace: ns timestamps, exactly x1000" \
  "$("$TRAZA" query gus --limit 0 --csv | tail -n +2 | awk -F, '{printf "%s %s\n", $2*1000, ($3=="" ? "" : $3*1000)}' | LC_ALL=C sort | md5sum)" \
  "$("$TRAZA" query gus_rt --limit 0 --csv | tail -n +2 | awk -F, '{print $2, $3}' | LC_ALL=C sort | md5sum)"
check_eq "us trace: time unit ns" "-9" "$("$TRAZA" info gus_rt --json | json_get time_unit)"

# A unit finer than ns: whole nanoseconds pass, others are refused by name.
check_rc "gen a trace in ps" 0 "$TRAZA" gen --events 50 --time-unit -12 --name gps
check_rc "ps trace: refused" 1 "$TRAZA" export gps --format perfetto -o "$TMP/gps.pftrace"
check_contains "ps trace: the error names the timestamp" "$OUT" "perfetto export: timestamp 80 (10^-12 s) is not a whole number of nanoseconds, the finest time Perfetto keeps"
check_rc "ps trace: no file left" 1 test -e "$TMP/gps.pftrace"

# The LTTng kernel trace of the shared data and its processed trace.
K=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$K" ] && has_feature ctf; then
  check_rc "lttng: import" 0 "$TRAZA" import "$K" --name rot
  roundtrip "lttng kernel" rot
  roundtrip "lttng processed" rot.processed
else
  skip "lttng kernel round trip" "shared data or this traza's ctf feature absent"
fi

# Bad input: a precise error, and the workspace unchanged.
before=$("$TRAZA" list)
# refused NAME FILE MESSAGE: the import fails with that message
refused() {
  check_rc "$1: refused" 1 "$TRAZA" import "$2" --name refused
  check_contains "$1: the error" "$OUT" "$3"
}
head -c 100 "$TMP/small.pftrace" > "$TMP/cut.pftrace"
refused "truncated" "$TMP/cut.pftrace" "cut.pftrace: offset 96: the file ends inside a packet of 13 bytes (expected 11 more)"
printf '\x12\x00' > "$TMP/tag.pftrace"
refused "wrong field" "$TMP/tag.pftrace" "tag.pftrace: offset 0: expected a Trace.packet (field 1, length-delimited: tag 0x0a), found field 2 wire type 2"
printf '\x0a\x02\x5a\x05' > "$TMP/inner.pftrace"
refused "undecodable packet" "$TMP/inner.pftrace" "inner.pftrace: offset 0: packet of 2 bytes: expected a TracePacket, found bytes that do not decode as one"
printf '\x0a\x06\x40\x05\x5a\x02\x58\x07' > "$TMP/notrack.pftrace"
refused "event on an undeclared track" "$TMP/notrack.pftrace" "notrack.pftrace: offset 0: track_uuid 7: expected a TrackDescriptor of that uuid before the event, found none"
printf '\x0a\x04\x5a\x02\x58\x07' > "$TMP/nots.pftrace"
refused "event without a timestamp" "$TMP/nots.pftrace" "nots.pftrace: offset 0: TrackEvent packet without a timestamp (expected TracePacket.timestamp, field 8)"
# a slice end with no open slice: the second packet, at offset 7
printf '\x0a\x05\xe2\x03\x02\x08\x01\x0a\x08\x40\x05\x5a\x04\x48\x02\x58\x01' > "$TMP/end.pftrace"
refused "slice end without a begin" "$TMP/end.pftrace" "end.pftrace: offset 7: TYPE_SLICE_END on track 1: expected an open slice, found none"
check_eq "bad input leaves the workspace unchanged" "$before" "$("$TRAZA" list)"

# Detection by content (no extension).
cp "$TMP/small.pftrace" "$TMP/small.bin"
check_rc "detected by content" 0 "$TRAZA" import "$TMP/small.bin" --name detected
check_contains "detected as perfetto" "$OUT" "(perfetto)"
