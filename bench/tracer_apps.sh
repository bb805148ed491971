#!/usr/bin/env bash
# The tracer on real programs: zlib (minigzip compressing a file) and Lua (the
# interpreter running a script), built from their public sources with -pg -mfentry,
# recorded by `traza record` and by `uftrace record --no-libcall` (traza records the
# program's own functions, not its calls into shared libraries) on the same binary,
# with uftrace's "(pre-empted)" pseudo-function left out of its count. Prints, per
# program: the calls recorded by each (they must be equal), CPU time per call above
# the uninstrumented build, bytes per call of the recording, the store bytes per
# event after `traza import`, and the all-NOP patched binary against the
# uninstrumented one.
#
# The sources are not part of traza: give their trees (or bare git directories).
#   ZLIB_SRC=~/src/zlib LUA_SRC=~/src/lua bash bench/tracer_apps.sh [BUILD]
# e.g. git clone https://github.com/madler/zlib; git clone https://github.com/lua/lua
# Environment: INPUT (file to compress, default: 16 MB of the system's own binaries),
# FIB (the Lua script's fib argument, default 27), UFTRACE (default uftrace).
set -eu
B=${1:-build}
[ -f "$B" ] && B=$(dirname "$B")
B=$(realpath "$B")
TRAZA=$B/traza
UFTRACE=${UFTRACE:-uftrace}
FIB=${FIB:-27}
: "${ZLIB_SRC:?set ZLIB_SRC to a zlib source tree (https://github.com/madler/zlib)}"
: "${LUA_SRC:?set LUA_SRC to a Lua source tree (https://github.com/lua/lua)}"
command -v "$UFTRACE" >/dev/null || { echo "bench/tracer_apps.sh: $UFTRACE is not installed" >&2; exit 1; }
W=$(mktemp -d /tmp/traza-apps-XXXXXX)
trap 'rm -rf "$W"' EXIT
tree() { # a source tree from a tree or a bare git directory
  if [ -d "$1/.git" ] || [ -f "$1/Makefile" ] || [ -f "$1/makefile" ]; then cp -r "$1" "$2"
  else mkdir -p "$2" && git --git-dir="$1" archive HEAD | tar -x -C "$2"; fi
}
tree "$ZLIB_SRC" "$W/zlib"
tree "$LUA_SRC" "$W/lua"
ZC="adler32.c crc32.c deflate.c infback.c inffast.c inflate.c inftrees.c trees.c zutil.c compress.c uncompr.c gzclose.c gzlib.c gzread.c gzwrite.c test/minigzip.c"
LC=$(cd "$W/lua" && ls l*.c | grep -v -e '^luac\.c$' -e '^ltests\.c$')
for v in plain pg; do
  f="-O2 -g"; [ $v = pg ] && f="$f -pg -mfentry"
  (cd "$W/zlib" && gcc $f -D_LARGEFILE64_SOURCE=1 -I. $ZC -o "$W/minigzip.$v")
  # a fixed hash seed: Lua seeds its string hashes from the clock and addresses, so
  # the calls a run makes (collisions, table resizes) would differ run to run
  (cd "$W/lua" && gcc $f -DLUA_USE_LINUX '-Dluai_makeseed(...)=0u' -I. $LC -o "$W/lua.$v" -lm -ldl)
done
if [ -n "${INPUT:-}" ]; then cp "$INPUT" "$W/in"; else cat /usr/bin/* 2>/dev/null | head -c 16000000 >"$W/in"; fi
cat >"$W/bench.lua" <<LUA
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 100000 do t[#t + 1] = string.format("%d:%s", i, string.rep("x", i % 17)) end
table.sort(t)
print(fib($FIB), #table.concat(t, ","))
LUA
cpu() { # CPU seconds (user + sys, with children) of a command, output discarded
  python3 -c 'import os,sys,subprocess
p=subprocess.Popen(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
_,st,r=os.wait4(p.pid,0)
sys.exit("command failed: "+" ".join(sys.argv[1:])) if st else print("%.6f"%(r.ru_utime+r.ru_stime))' "$@"
}
best() { local b=999999 v; for i in 1 2 3; do v=$(cpu $NORAND "$@"); b=$(awk -v a="$b" -v c="$v" 'BEGIN{print (c<a)?c:a}'); done; echo "$b"; }
# Address-space randomisation off: Lua hashes tables and userdata by address, so the
# calls it makes (hash collisions) change with the layout of each run.
NORAND="setarch $(uname -m) -R"
run() { # name, then the program's arguments after its binary
  local name=$1 bin=$W/$1; shift
  local base nop tz uf tzb ufb tzc ufc sb ev imp v rss
  base=$(best "$bin.plain" "$@")
  "$TRAZA" patch "$bin.pg" -o "$bin.nop" --disable-all -q
  nop=$(best "$bin.nop" "$@")
  tz=$(best "$TRAZA" record --mode stream -q -o "$W/$name.tzr" -- "$bin.pg" "$@")
  tzb=$(stat -c %s "$W/$name.tzr")
  uf=$(best "$UFTRACE" record --no-libcall -d "$W/$name.uft" "$bin.pg" "$@")
  ufb=$(du -sb "$W/$name.uft" | cut -f1)
  export TRAZA_WORKSPACE=$W/ws-$name
  # The import's wall time, best of 5 into a fresh workspace, each after a sync: the
  # recordings just written (uftrace's is 32 B a call) would otherwise be flushed to
  # disk while the import runs, and charged to it (a virtual machine's disk may
  # go on flushing for seconds after a sync). Also the import's peak memory.
  imp=999999
  for i in 1 2 3 4 5; do
    rm -rf "$TRAZA_WORKSPACE"
    sync
    read -r v rss < <(python3 -c 'import resource,subprocess,sys,time
t=time.monotonic(); subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL)
print("%.3f %d"%(time.monotonic()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))' "$TRAZA" import "$W/$name.tzr" --name "$name" -q)
    imp=$(awk -v a="$imp" -v c="$v" 'BEGIN{print (c<a)?c:a}')
  done
  tzc=$("$TRAZA" callstack "$name" --json | python3 -c 'import json,sys; print(sum(f["calls"] for f in json.load(sys.stdin)["profile"]))')
  ev=$("$TRAZA" info "$name" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
  sb=$(du -bc "$TRAZA_WORKSPACE"/traces/*.db | tail -1 | cut -f1)
  ufc=$("$UFTRACE" report -d "$W/$name.uft" -f call --no-pager 2>/dev/null | awk 'NR>2 && $NF !~ /^\(/ {s+=$1} END {print s}')
  awk -v n="$name" -v base="$base" -v nop="$nop" -v tz="$tz" -v uf="$uf" -v tzb="$tzb" -v ufb="$ufb" -v tzc="$tzc" -v ufc="$ufc" -v sb="$sb" -v ev="$ev" -v imp="$imp" -v rss="$rss" 'BEGIN{
    printf "%s: %d calls recorded by traza, %d by uftrace (%s)\n", n, tzc, ufc, tzc == ufc ? "equal" : "DIFFERENT";
    printf "  uninstrumented %.3f s; traza %.1f ns/call, %.2f B/call; uftrace %.1f ns/call, %.2f B/call\n", base, (tz-base)*1e9/tzc, tzb/tzc, (uf-base)*1e9/ufc, ufb/ufc;
    printf "  traza/uftrace: cost %.2fx, bytes %.2fx; store after import: %.1f B/event (%d events), import %.2f s (%.2f M events/s, peak %.0f MB)\n", (tz-base)/(uf-base), tzb/ufb, sb/ev, ev, imp, ev/imp/1e6, rss/1024;
    printf "  every hook NOP-patched (traza patch --disable-all): %.3f s, %.3fx the uninstrumented build\n", nop, nop/base;
  }'
}
run minigzip -c "$W/in"
run lua "$W/bench.lua"
