#!/usr/bin/env bash
# traza itf under ThreadSanitizer: the threads of compression (a worker models the
# previous chunk, a Tarmac text tokenized on a thread ahead of the model, streams
# packed on two threads) and of decompression (chunks on
# several threads; a Tarmac chunk unpacked and rendered on a second thread while the
# first decodes it), on the paths where they meet: one chunk, many chunks, a damaged
# stream, a failed write. `make test` builds build/tsan/traza (make tsan); without it
# the checks skip, visibly.
source "$(dirname "$0")/../lib.sh"
TS=$TRAZA_SRC/build/tsan/traza
if [ ! -x "$TS" ]; then skip "ThreadSanitizer runs" "build/tsan/traza absent: make tsan"; exit 0; fi
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"

# tsan_ok NAME CMD...: the command exits 0 and ThreadSanitizer says nothing
tsan_ok() {
  local name=$1; shift
  OUT=$("$@" 2>&1); local rc=$?
  if [ $rc -eq 0 ]; then pass "$name"; else fail "$name" "exit $rc: $*" "$(printf '%s' "$OUT" | head -c 1500)"; fi
}
# tsan_fails NAME CMD...: the command fails with traza's own error (1), not a report (66)
tsan_fails() {
  local name=$1; shift
  OUT=$("$@" 2>&1); local rc=$?
  if [ $rc -eq 1 ]; then pass "$name"; else fail "$name" "exit $rc, expected 1: $*" "$(printf '%s' "$OUT" | head -c 1500)"; fi
}

# a Tarmac trace of 4,400 lines: the version 3 sample ten times over
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$(dirname "$0")/data/v3_loop.tarmac"; done >"$TMP/t.tarmac"
tsan_ok "compress a Tarmac trace, 2 threads" "$TS" itf compress "$TMP/t.tarmac" -o "$TMP/t1.tzi" -q --threads 2
tsan_ok "compress it in chunks of 1000 records, 2 threads" "$TS" itf compress "$TMP/t.tarmac" -o "$TMP/t5.tzi" -q --chunk 1000 --threads 2
for z in t1 t5; do
  for t in 2 3; do
    tsan_ok "decompress $z, $t threads" "$TS" itf decompress "$TMP/$z.tzi" -o "$TMP/t.out" --threads $t --render-min-lines 2048
    check_rc "decompress $z, $t threads: byte-exact" 0 cmp -s "$TMP/t.out" "$TMP/t.tarmac"
  done
done
python3 "$(dirname "$0")/damage_chunk0.py" "$TMP/t1.tzi" "$TMP/bad.tzi"
tsan_fails "a damaged stream while the second thread unpacks" "$TS" itf decompress "$TMP/bad.tzi" -o /dev/null --threads 2 --render-min-lines 2048
check_contains "a damaged stream: traza's message" "$OUT" "corrupt"
tsan_fails "a failed write while the second thread renders" "$TS" itf decompress "$TMP/t1.tzi" -o /dev/full --threads 2 --render-min-lines 2048
# compression stopped half way (the first chunk's write fails) while the tokenizer
# thread is ahead of the model
tsan_fails "a failed write while the tokenizer thread runs" "$TS" itf compress "$TMP/t.tarmac" -o /dev/full --chunk 300 --threads 2 -q

# block model, early modelling: the worker builds the block instances of the chunk
# being parsed from its published lines (every 32,768), with interrupts, over three
# chunks; and a failed write while it does
python3 - "$TMP/e.itf" <<'PY'
import sys
out = []
for it in range(40000):
    out.append("0x00004000 ldr r3, [r4] mem=0x%08x" % (0x20001000 + 4 * (it % 8)))
    out.append("0x00004004 adds r0, #1")
    if it % 997 == 5:
        out.append("0x000003c4 push {r3, lr} mem=0x407fff00 mem=0x407fff04")
        out.append("0x000003c6 pop {r3, pc} mem=0x407fff00 mem=0x407fff04")
    out.append("0x00004008 b #0x4000")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
tsan_ok "gen, early modelling: compress in 3 chunks, 2 threads" "$TS" itf compress "$TMP/e.itf" -o "$TMP/e.tzi" -q --chunk 50000 --threads 2
"$TRAZA" itf decompress "$TMP/e.tzi" -o "$TMP/e.out"
check_rc "gen, early modelling: byte-exact" 0 cmp -s "$TMP/e.out" "$TMP/e.itf"
tsan_fails "gen, early modelling: a failed write" "$TS" itf compress "$TMP/e.itf" -o /dev/full --chunk 50000 --threads 2 -q

# block model: the generated sample traces, compressed in chunks on two threads and
# decompressed on three
S=$DATA/gen/samples
if [ -d "$S" ]; then
  f=$(ls "$S"/*.txt | head -1)
  tsan_ok "gen sample: compress in chunks, 2 threads" "$TS" itf compress "$f" -o "$TMP/g.tzi" -q --chunk 2000 --threads 2
  tsan_ok "gen sample: decompress, 3 threads" "$TS" itf decompress "$TMP/g.tzi" -o "$TMP/g.out" --threads 3
  check_rc "gen sample: byte-exact" 0 cmp -s "$TMP/g.out" "$f"
else skip "gen sample under ThreadSanitizer" "../shared/data absent"; fi
if [ -d "$DATA/tarmac" ]; then
  for f in "$DATA"/tarmac/*.tarmac; do
    "$TRAZA" itf compress "$f" -o "$TMP/r.tzi" -q
    tsan_ok "tarmac $(basename "$f"): decompress on two threads" "$TS" itf decompress "$TMP/r.tzi" -o "$TMP/r.out"
    check_rc "tarmac $(basename "$f"): byte-exact" 0 cmp -s "$TMP/r.out" "$f"
  done
else skip "Tarmac samples under ThreadSanitizer" "../shared/data absent"; fi
