#!/usr/bin/env bash
# C++ exceptions thrown through traced frames (rt/tests/cxx_throw.cc): the program
# runs to its end with the right output, and the trace nests as the calls did, with
# every call counted (-pg -mfentry preloaded and linked in, -finstrument-functions).
. "$(dirname "$0")/../lib.sh"
B=${TRAZA_BUILD:-build}
SRC=${TRAZA_SRC:-.}
if ! command -v g++ >/dev/null; then skip "C++ exceptions" "no g++"; exit 0; fi
if [ ! -f "$B/rt/libtraza-rt.a" ]; then skip "C++ exceptions" "runtime not built ($B/rt)"; exit 0; fi
cd "$TMP"
CXXFLAGS="-O1 -g -fno-inline -fno-omit-frame-pointer"
g++ $CXXFLAGS -pg -mfentry -o x.pre "$SRC/rt/tests/cxx_throw.cc"
g++ $CXXFLAGS -pg -mfentry -pthread -o x.pg "$SRC/rt/tests/cxx_throw.cc" "$B/rt/libtraza-rt.a"
g++ $CXXFLAGS -finstrument-functions -pthread -o x.cyg "$SRC/rt/tests/cxx_throw.cc" "$B/rt/libtraza-rt.a"
# the first round (a() rethrows), then every line's count
first='  main
    catcher(int)
      a(int)
        b(int)
          c(int)
            leaf(long)
          Guard::~Guard()
            leaf(long)
        leaf(long)
    catcher(int)'
counts='     60             leaf(long)
     30           Guard::~Guard()
     30           c(int)
     30         b(int)
     10         leaf(long)
     30       a(int)
     30     catcher(int)
      1     leaf(long)
      1   main'
for v in pre pg cyg; do
    check_rc "$v: record and import" 0 "$TRAZA" record -o x$v.tzr --import x$v -- ./x.$v 30
    check_contains "$v: the program caught every throw" "$OUT" "caught 30 sum 435"
    tree=$("$TRAZA" callstack x$v --tree | grep -v '^x\.' | c++filt)
    check_eq "$v: nesting" "$first" "$(head -10 <<<"$tree")"
    check_eq "$v: counts" "$counts" "$(LC_ALL=C sort <<<"$tree" | uniq -c)"
done
