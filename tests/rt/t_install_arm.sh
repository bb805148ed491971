#!/usr/bin/env bash
# make install installs the 32-bit ARM Linux runtime for cross builds, with its
# pkg-config file (traza-rt-armhf) whose trace_cflags are the ARM -pg recipe: a
# program built from the installed pieces alone with arm-linux-gnueabihf-gcc runs
# under qemu-arm, is recorded, and its calls import; make uninstall removes them.
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "${TRAZA_SRC:-.}" && pwd)
BUILD=$(cd "${TRAZA_BUILD:-build}" && pwd)
if [ ! -f "$BUILD/rt/arm/libtraza-rt.a" ] || ! command -v qemu-arm >/dev/null; then
  skip "ARM Linux runtime install" "gcc-arm-linux-gnueabihf or qemu-user missing (scripts/packages.txt)"; exit 0
fi
dest=$TMP/dest
if ! make -s -C "$SRC" BUILD="$BUILD" install PREFIX=/opt/tz DESTDIR="$dest" >"$TMP/install.log" 2>&1; then
  fail "make install" "$(tail -20 "$TMP/install.log")"
  exit 0
fi
root=$dest/opt/tz
for f in lib/arm-linux-gnueabihf/libtraza-rt.a lib/pkgconfig/traza-rt-armhf.pc include/traza_rt.h; do
  [ -e "$root/$f" ] && pass "installed $f" || fail "installed $f"
done
pc() { PKG_CONFIG_PATH=$root/lib/pkgconfig pkg-config --define-variable=prefix="$root" "$@" | sed 's/ *$//'; }
check_eq "pkg-config: the runtime" "$root/lib/arm-linux-gnueabihf/libtraza-rt.a -pthread" "$(pc --libs traza-rt-armhf)"
check_eq "pkg-config: the headers" "-I$root/include" "$(pc --cflags traza-rt-armhf)"
check_eq "pkg-config: the ARM -pg recipe" "-marm -pg -fno-omit-frame-pointer" "$(pc --variable=trace_cflags traza-rt-armhf)"
cat >"$TMP/p.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) static int leaf(int x) { return x * 3; }
__attribute__((noinline)) static int mid(int x) { return leaf(x) + leaf(x + 1); }
int main(void) { int s = 0; for (int i = 0; i < 5; i++) s += mid(i); printf("%d\n", s); return 0; }
C
check_rc "a program builds from the installed runtime and flags" 0 arm-linux-gnueabihf-gcc -O1 -g -static \
  $(pc --variable=trace_cflags traza-rt-armhf) $(pc --cflags traza-rt-armhf) -o "$TMP/p" "$TMP/p.c" $(pc --libs traza-rt-armhf)
cd "$TMP"  # a -pg program writes gmon.out where it runs
check_rc "it is recorded under qemu-arm" 0 "$TRAZA" record -o "$TMP/p.tzr" --import p -- qemu-arm "$TMP/p"
check_eq "its calls" "leaf=10 main=1 mid=5" "$("$TRAZA" callstack p --json | python3 -c 'import json,sys; print(" ".join("%s=%d" % (f["name"], f["calls"]) for f in sorted(json.load(sys.stdin)["profile"], key=lambda f: f["name"])))')"
check_rc "make uninstall" 0 make -s -C "$SRC" BUILD="$BUILD" uninstall PREFIX=/opt/tz DESTDIR="$dest"
check_eq "uninstall removes them" "" "$(cd "$dest" && find . -name 'traza-rt-armhf.pc' -o -path '*arm-linux-gnueabihf*')"
