#!/usr/bin/env bash
# make install honours PREFIX and DESTDIR: binary, static and shared library,
# headers, pkg-config file, man page; the installed pieces work together.
. tests/lib.sh
dest=$TMP/dest
if ! make -s install PREFIX=/opt/tz DESTDIR="$dest" >"$TMP/install.log" 2>&1; then
  fail "make install" "$(tail -20 "$TMP/install.log")"
  exit 0
fi
pass "make install"
for f in bin/traza lib/libtraza.a lib/libtraza.so lib/pkgconfig/traza.pc include/traza/traza.h share/man/man1/traza.1; do
  [ -e "$dest/opt/tz/$f" ] && pass "installed $f" || fail "installed $f"
done
check_contains "pc file prefix" "$(cat "$dest/opt/tz/lib/pkgconfig/traza.pc")" "prefix=/opt/tz"
check_rc "installed binary runs" 0 "$dest/opt/tz/bin/traza" --version
# a program built against the installed headers and library
cat > "$TMP/use.c" <<'C'
#include <stdio.h>
#include <traza/traza.h>
int main(void) { printf("%s\n", traza_version()); return 0; }
C
# pkg-config of the installed .pc, with prefix redirected into DESTDIR
pc() { PKG_CONFIG_PATH=$dest/opt/tz/lib/pkgconfig pkg-config --define-variable=prefix="$dest/opt/tz" "$@" traza; }
if cc $(pc --cflags) -o "$TMP/use" "$TMP/use.c" "$dest/opt/tz/lib/libtraza.a" $(pc --static --libs | sed 's/-ltraza//; s/-L[^ ]*//g') 2>"$TMP/cc.log"; then
  check_eq "program linked against the installed library" "$("$dest/opt/tz/bin/traza" --version | cut -d' ' -f2)" "$("$TMP/use")"
else
  fail "program linked against the installed library" "$(head -20 "$TMP/cc.log")"
fi
