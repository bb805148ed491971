# CTF importer against babeltrace2: for every trace directory of the shared data that
# babeltrace2 reads, the imported event count equals the lines babeltrace2 prints.
# A damaged trace fails with babeltrace2's error, never a crash, and imports nothing.
. tests/lib.sh
need_feature ctf "CTF import"
B=$DATA/babeltrace-ctf
if [ ! -d "$B" ]; then skip "ctf imports" "shared data absent"; exit 0; fi
if ! command -v babeltrace2 >/dev/null; then skip "ctf imports" "babeltrace2 not installed"; exit 0; fi
i=0
for d in $(find "$B" -name metadata -printf '%h\n' | sort); do
  i=$((i + 1))
  rel=${d#$B/}
  if ! want=$(babeltrace2 "$d" 2>/dev/null | wc -l); then skip "ctf $rel" "babeltrace2 rejects it"; continue; fi
  got=$("$TRAZA" import "$d" --name "t$i" --json 2>/dev/null | json_get events)
  check_diff "ctf $rel: events = babeltrace2 lines" CTF babeltrace2 "$rel" "$want" "$got"
done
# Detection by content, on the parent of two traces (kernel + ust): both are read.
want=$(babeltrace2 "$B/multi-domains" 2>/dev/null | wc -l)
got=$("$TRAZA" import "$B/multi-domains" --name md --json 2>/dev/null | json_get events)
check_diff "ctf multi-domains (2 traces): events = babeltrace2 lines" CTF babeltrace2 "multi-domains (kernel + ust)" "$want" "$got"
# Damaged: metadata cut short (babeltrace2 2.0.4 itself loops forever on this one).
mkdir -p "$TMP/bad"
cp "$B/wk-heartbeat-u/"* "$TMP/bad/" && chmod u+w "$TMP/bad/"*
head -c 700 "$B/wk-heartbeat-u/metadata" > "$TMP/bad/metadata"
check_rc "ctf damaged metadata fails cleanly" 1 timeout 60 "$TRAZA" import "$TMP/bad" --format ctf --name bad
check_contains "ctf damaged metadata: precise error" "$OUT" "metadata: byte 0: metadata packet of 4096 bytes, but only 700 bytes remain"
check_rc "ctf damaged: nothing imported" 1 "$TRAZA" info bad
# Not a trace at all.
mkdir -p "$TMP/empty"
check_rc "ctf: no trace under the path" 1 "$TRAZA" import "$TMP/empty" --format ctf
check_contains "ctf: no trace error" "$OUT" "no CTF trace"
# Damaged: an event header in a stream file overwritten. The error says what is wrong
# (babeltrace2's innermost cause, without its graph's wrappers) and where: the events
# read and the time of the last one (babeltrace2 tells no file offset).
k=$B/lttng-tracefile-rotation/kernel
mkdir -p "$TMP/bad2" && cp -r "$k/." "$TMP/bad2/" && chmod -R u+w "$TMP/bad2"
python3 -c "
p = '$TMP/bad2/mychan_0_0'; b = bytearray(open(p, 'rb').read())
for i in range(600, 640): b[i] ^= 0xff
open(p, 'wb').write(b)"
check_rc "ctf damaged stream fails cleanly" 1 "$TRAZA" import "$TMP/bad2" --name bad2
check_contains "ctf damaged stream: where" "$OUT" "babeltrace2: reading failed after 30 event(s), the last at 1571261795525031290 ns: "
check_contains "ctf damaged stream: what" "$OUT" "No event class with ID of event class ID to use in stream class"
case "$OUT" in *"consume\" method failed"*) fail "ctf damaged stream: no graph wrappers in the error" "$OUT" ;;
  *) pass "ctf damaged stream: no graph wrappers in the error" ;; esac
check_rc "ctf damaged stream: nothing imported" 1 "$TRAZA" info bad2
