#!/usr/bin/env bash
# One corrupt block costs that block, not the dump: a byte flipped in the middle of a
# real dump (in a block's events, or in a block's length) is skipped and counted
# (skipped.bad_blocks), the next block's stack snapshot keeps the nesting right, and
# --strict refuses the dump.
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/crash.pre" ]; then skip "corrupt dump" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
check_rc "record" 0 "$TRAZA" record --mode stream --buffer 8K -o s.tzr -- "$P/crash.pre" jmp 3000
# the middle block chunk: a byte of its events flipped (bad.tzr), its length (badlen.tzr)
python3 - <<'PY'
import struct
d = bytes(open('s.tzr', 'rb').read())
pos, blocks = 16, []
while pos < len(d):
    t, n = struct.unpack_from('<II', d, pos)
    if t == 2:
        blocks.append((pos, n))
    pos += 16 + n
p, n = blocks[len(blocks) // 2]
b = bytearray(d); b[p + 16 + 24 + n // 3] ^= 0x55; open('bad.tzr', 'wb').write(b)
b = bytearray(d); b[p + 5] ^= 0x40; open('badlen.tzr', 'wb').write(b)
PY
export TRAZA_RT_EXE=$P/crash.pre
check_rc "intact: imported" 0 "$TRAZA" import --name s s.tzr
check_eq "intact: nothing skipped" "" "$("$TRAZA" info s | grep skipped)"
intact=$("$TRAZA" callstack s --tree | grep -v '^crash' | sort | uniq -c)
for f in bad badlen; do
    check_rc "$f: imported" 0 "$TRAZA" import --name $f $f.tzr
    check_contains "$f: says what was skipped" "$OUT" "skipped 1 corrupt blocks of the dump"
    check_contains "$f: counted" "$("$TRAZA" info $f)" "skipped.bad_blocks = 1"
    counts=$("$TRAZA" callstack $f --tree | grep -v '^crash' | sort | uniq -c)
    jumps=$(awk '$2 == "jumper" { print $1 }' <<<"$counts")
    check_eq "$f: one block's calls lost, not more" 1 "$([ "$jumps" -ge 2500 ] && [ "$jumps" -lt 3000 ] && echo 1)"
    # the nesting as in the intact dump; a call cut by the gap counts once more
    shape=$(sed 's/^ *[0-9]* //' <<<"$counts")
    check_eq "$f: the nesting after the gap" "$(sed 's/^ *[0-9]* //' <<<"$intact")" "$shape"
    # every level lost what lay inside the gap: a level's count differs from jumper's
    # only by the calls the gap's two edges cut (counted on both sides, or a level
    # closed at an edge where jumper was open), so by at most 2 either way; where the
    # gap falls depends on the dump's encoded sizes, which vary from run to run
    check_eq "$f: every level's count" "" "$(awk -v j=$jumps '$2 != "work" && $2 != "main" && ($1 < j - 2 || $1 > j + 2)' <<<"$counts")"
    check_rc "$f: --strict refuses it" 1 "$TRAZA" import --name ${f}s $f.tzr --strict
    check_contains "$f: --strict says why" "$OUT" "a strict import takes every event: skipped 1 corrupt blocks"
done
