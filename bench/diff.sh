#!/usr/bin/env bash
# traza diff on two real recordings of about 10 M calls each, against
# `uftrace report --diff` on the same pair: Lua (built from its public sources with
# -pg -mfentry, as bench/tracer_apps.sh does) running a script whose one function
# gets slower in the second run (a busy loop added to it), recorded by uftrace; traza
# imports both uftrace data directories and compares them per function. Prints both
# tools' times, traza's peak memory, and the rows each ranks first.
#   LUA_SRC=~/src/lua bash bench/diff.sh [BUILD]     (https://github.com/lua/lua)
# Environment: N (strings sorted per run, default 40000: about 10 M calls).
set -eu
B=${1:-build}
[ -f "$B" ] && B=$(dirname "$B")
TRAZA=$(realpath "$B")/traza
N=${N:-40000}
: "${LUA_SRC:?set LUA_SRC to a Lua source tree (https://github.com/lua/lua)}"
command -v uftrace >/dev/null || { echo "bench/diff.sh: uftrace is not installed" >&2; exit 1; }
W=$(mktemp -d /tmp/traza-diff-XXXXXX)
[ -n "${KEEP:-}" ] && echo "keeping $W" >&2 || trap 'rm -rf "$W"' EXIT
if [ -f "$LUA_SRC/lua.c" ]; then cp -r "$LUA_SRC" "$W/lua"; else mkdir -p "$W/lua" && git --git-dir="$LUA_SRC" archive HEAD | tar -x -C "$W/lua"; fi
LC=$(cd "$W/lua" && ls l*.c | grep -v -e '^luac\.c$' -e '^ltests\.c$')
(cd "$W/lua" && gcc -O2 -g -pg -mfentry -DLUA_USE_LINUX '-Dluai_makeseed(...)=0u' -I. $LC -o "$W/lua.pg" -lm -ldl)
for v in a b; do # b: str_format does extra work on every call
  cat >"$W/$v.lua" <<LUA
local t = {}
for i = 1, $N do t[#t + 1] = string.format("%d:%s", i, string.rep("x", i % 17)) end
table.sort(t)
print(#table.concat(t, ","))
LUA
done
cp "$W/lua.pg" "$W/lua.b"
# the slower build of B: str_format burns tens of microseconds more per call
(cd "$W/lua" && sed -i 's/^static int str_format (lua_State \*L) {/static int str_format (lua_State *L) { for (volatile int burn = 0; burn < 20000; burn++) {}/' lstrlib.c &&
  grep -q 'volatile int burn' lstrlib.c && gcc -O2 -g -pg -mfentry -DLUA_USE_LINUX '-Dluai_makeseed(...)=0u' -I. $LC -o "$W/lua.b" -lm -ldl)
NORAND="setarch $(uname -m) -R"
$NORAND uftrace record --no-libcall -d "$W/A.uft" "$W/lua.pg" "$W/a.lua" >/dev/null
$NORAND uftrace record --no-libcall -d "$W/B.uft" "$W/lua.b" "$W/b.lua" >/dev/null
secs() { local s e; s=$(date +%s%N); "$@" >"$W/out" 2>&1; e=$(date +%s%N); echo "scale=3; ($e - $s) / 1000000000" | bc; }
ut=$(secs uftrace report -d "$W/A.uft" --diff "$W/B.uft" --no-pager -s total)
uf_first=$(grep -v -e '^ *$' -e '^#' -e '=====' -e 'Function' "$W/out" | head -1 | sed 's/  */ /g')
export TRAZA_WORKSPACE=$W/ws
it=$(secs "$TRAZA" import "$W/A.uft" --name A)
it2=$(secs "$TRAZA" import "$W/B.uft" --name B)
ev=$("$TRAZA" info A --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
ev2=$("$TRAZA" info B --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
# peak memory: the resident total (which counts the pages of the two databases read
# through mmap) and the anonymous part alone (what traza allocates), sampled
/usr/bin/time -f '%e %M' -o "$W/time" "$TRAZA" diff A B --by function --json >"$W/diff.json" &
anon=0
while kill -0 $! 2>/dev/null; do
  pid=$(pgrep -n -f "$TRAZA diff A B" || true)
  a=$([ -n "$pid" ] && awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
  sleep 0.05
done
wait $!
read -r dt rss <"$W/time"
tz_first=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print(r.get("key") or r.get("name"), "shift", r.get("shift"), "p", r.get("p_holm", r.get("p")))' "$W/diff.json")
echo "traces: A $ev events, B $ev2 events (imports $it s, $it2 s)"
echo "traza diff --by function: $dt s, peak memory $((rss / 1024)) MB resident, $((anon / 1024)) MB anonymous; first row: $tz_first"
echo "uftrace report --diff:    $ut s; first row: $uf_first"
echo "ratio traza/uftrace: $(echo "scale=2; $dt / $ut" | bc)"
