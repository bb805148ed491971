#!/usr/bin/env bash
# Perfetto import, complete or loud: packets outside the TrackEvent subset are counted
# per packet kind (the TracePacket field holding their content, named as in Perfetto's
# trace_packet.proto), TrackEvent fields outside the subset per field; fields that only
# describe the packet (trusted_uid...) are no loss; --strict fails with the counts and
# changes nothing.
. "$(dirname "$0")/../lib.sh"

# Trace.packet (0x0a, length) each: a track descriptor (uuid 1); an instant on it; an
# ftrace_events packet (field 1); two process_tree (field 2); one with only trusted_uid
# (field 3); a descriptor (uuid 2) beside process_stats (field 9); field 91 (not named
# here); an instant holding TrackEvent field 21 (log_message).
printf '\x0a\x05\xe2\x03\x02\x08\x01''\x0a\x08\x40\x05\x5a\x04\x48\x03\x58\x01''\x0a\x02\x0a\x00''\x0a\x02\x12\x00''\x0a\x02\x12\x00''\x0a\x02\x18\x05''\x0a\x07\xe2\x03\x02\x08\x02\x4a\x00''\x0a\x03\xda\x05\x00''\x0a\x0b\x40\x06\x5a\x07\x48\x03\x58\x01\xaa\x01\x00' >"$TMP/kinds.pftrace"
check_rc "import with packets outside the subset" 0 "$TRAZA" import "$TMP/kinds.pftrace" --name kinds
check_contains "the two instants" "$OUT" "imported 'kinds' (perfetto): 2 events"
check_contains "ftrace_events counted" "$OUT" "skipped 1 ftrace_events packets (TracePacket field 1)"
check_contains "process_tree counted" "$OUT" "skipped 2 process_tree packets (TracePacket field 2)"
check_contains "process_stats beside a descriptor counted" "$OUT" "skipped 1 process_stats packets (TracePacket field 9)"
check_contains "an unnamed field counted by number" "$OUT" "skipped 1 packets with TracePacket field 91"
check_contains "a TrackEvent field outside the subset counted" "$OUT" "skipped 1 track events with field 21 of TrackEvent (outside the subset)"
check_eq "trusted_uid is no loss" "" "$(grep 'field 3\b' <<<"$OUT")"
J=$("$TRAZA" info kinds --json)
check_eq "info: skipped.packets.process_tree" 2 "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.packets.process_tree"])')"
before=$("$TRAZA" list --json)
check_rc "--strict fails" 1 "$TRAZA" import "$TMP/kinds.pftrace" --name strict --strict
check_contains "--strict: the counts per kind" "$OUT" "skipped 1 ftrace_events packets (TracePacket field 1), 2 process_tree packets (TracePacket field 2), 1 process_stats packets (TracePacket field 9), 1 packets with TracePacket field 91, 1 track events with field 21 of TrackEvent (outside the subset)"
check_eq "a failed strict import changes nothing" "$before" "$("$TRAZA" list --json)"
printf '\x0a\x05\xe2\x03\x02\x08\x01''\x0a\x08\x40\x05\x5a\x04\x48\x03\x58\x01''\x0a\x02\x18\x05' >"$TMP/full.pftrace"
check_rc "--strict takes a trace with only packet header fields beside the subset" 0 "$TRAZA" import "$TMP/full.pftrace" --name full --strict
