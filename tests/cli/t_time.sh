#!/usr/bin/env bash
# Times on the command line: with a unit they count from the trace's start, raw ticks
# and @values are absolute, --absolute makes times with a unit absolute; the same rule
# in the commands' filters and in the tools' --from/--to. On a real LTTng kernel trace
# whose timestamps are epoch nanoseconds.
. tests/lib.sh
need_feature ctf "time on an LTTng trace"
k=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ ! -d "$k" ]; then skip "times from the trace's start" "$k is absent"; exit 0; fi
check_rc "import the LTTng trace" 0 "$TRAZA" import "$k" --name k
start=$("$TRAZA" info k --json | json_get min_ts)
# the events of [start + 1 s, start + 1.001 s], counted from the stored timestamps
want=$("$TRAZA" query k --limit 0 --json | python3 -c "
import json,sys; s=$start
print(sum(1 for e in json.load(sys.stdin) if s+1000000000 <= e['ts'] <= s+1001000000))")
[ "$want" -gt 0 ] && pass "the window holds events" || fail "the window holds events" "$want"
check_rc "relative window" 0 "$TRAZA" query k --from 1s --to 1.001s --count
check_eq "--from 1s --to 1.001s counts from the start" "$want" "$OUT"
check_rc "raw ticks are absolute" 0 "$TRAZA" query k --from $((start + 1000000000)) --to $((start + 1001000000)) --count
check_eq "raw ticks window" "$want" "$OUT"
abs_from=$(python3 -c "print(f'{($start + 1000000000) / 1e9:.9f}s')")
abs_to=$(python3 -c "print(f'{($start + 1001000000) / 1e9:.9f}s')")
check_rc "@ values are absolute" 0 "$TRAZA" query k --from "@$abs_from" --to "@$abs_to" --count
check_eq "@ window" "$want" "$OUT"
check_rc "--absolute" 0 "$TRAZA" query k --from 1s --to 1.001s --absolute --count
check_eq "--absolute 1s is 1 s after the epoch: nothing" 0 "$OUT"
check_rc "filter tool, relative" 0 "$TRAZA" filter k --from 1s --to 1.001s --name win --json
check_rc "the saved set" 0 "$TRAZA" query k --set win --count
check_eq "filter --from 1s saves the same events" "$want" "$OUT"
check_rc "a tool's --from (run producer-activity)" 0 "$TRAZA" run producer-activity k --from 1s --to 1.001s --name busy
check_rc "results of the tool" 0 "$TRAZA" results k --json
check_contains "producer-activity saved its set" "$OUT" '"busy"'
check_rc "a time out of range is a usage error" 2 "$TRAZA" query k --from 9223372036s --count
check_contains "says why" "$OUT" "out of range"
# charts and reports read time from the start, the start itself exactly
check_rc "density --svg" 0 "$TRAZA" density k --slices 40 --svg "$TMP/k.svg"
labels=$(grep -o '<text[^>]*>[^<]*</text>' "$TMP/k.svg" | sed 's/<[^>]*>//g' | tr '\n' '|')
check_contains "the density axis reads time from the start" "$labels" "|time from the start (s)|"
check_contains "and starts at 0" "$labels" "|0|0|"
check_rc "report" 0 "$TRAZA" report k -o "$TMP/k.html"
check_contains "the report gives the start exactly" "$(cat "$TMP/k.html")" \
  "<th>start</th><td>$(python3 -c "print(f'{$start // 10**9}.{$start % 10**9:09d} s')")</td>"
check_contains "the report's density axis reads time from the start" "$(cat "$TMP/k.html")" "time from the start (s)"
check_contains "info gives the start exactly" "$("$TRAZA" info k)" "($(python3 -c "print(f'{$start // 10**9}.{$start % 10**9:09d} s')"))"
