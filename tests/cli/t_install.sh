#!/usr/bin/env bash
# make install honours PREFIX and DESTDIR: binary, static and shared libraries,
# headers, pkg-config files, man pages, bash and zsh completion, the tracer runtime;
# the installed pieces work together, the binary finds the plugin folder beside it,
# and make uninstall removes every file install wrote and the folders it made.
. tests/lib.sh
dest=$TMP/dest
# a folder that is there before the install stays after the uninstall
mkdir -p "$dest/opt/tz/bin"
if ! make -s install PREFIX=/opt/tz DESTDIR="$dest" >"$TMP/install.log" 2>&1; then
  fail "make install" "$(tail -20 "$TMP/install.log")"
  exit 0
fi
pass "make install"
for f in bin/traza lib/libtraza.a lib/libtraza.so lib/pkgconfig/traza.pc include/traza/traza.h \
  lib/libtraza-rt.a lib/libtraza-rt.so lib/pkgconfig/traza-rt.pc include/traza_rt.h include/traza_rt_format.h \
  share/bash-completion/completions/traza share/zsh/vendor-completions/_traza; do
  [ -e "$dest/opt/tz/$f" ] && pass "installed $f" || fail "installed $f"
done
for page in "${TRAZA_SRC:-.}"/man/*.1; do
  f=share/man/man1/${page##*/}
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
  check_eq "program linked against the installed library" "$("$dest/opt/tz/bin/traza" --version | head -1 | cut -d' ' -f2)" "$("$TMP/use")"
else
  fail "program linked against the installed library" "$(head -20 "$TMP/cc.log")"
fi

# the installed binary reads the plugins of PREFIX/lib/traza/plugins, found from its
# own location (so also inside DESTDIR), not a folder fixed when it was built
# (the plugin of the build make install installs, build/: an ASan one would not load)
plugdir=$dest/opt/tz/lib/traza/plugins
if [ -f build/plugins/category_count.so ]; then
  cp build/plugins/category_count.so "$plugdir/"
  check_rc "installed binary lists the plugin of its plugin folder" 0 env -u TRAZA_PLUGIN_PATH "$dest/opt/tz/bin/traza" tools
  check_contains "installed binary: the plugin from PREFIX/lib/traza/plugins" "$OUT" \
    "category-count         analysis  example plugin: events per category, saved as annotations  [$dest/opt/tz/bin/../lib/traza/plugins/category_count.so"
  check_rc "TRAZA_PLUGIN_PATH replaces the plugin folder" 0 env TRAZA_PLUGIN_PATH="$TMP/none" "$dest/opt/tz/bin/traza" tools
  case "$OUT" in *category-count*) fail "TRAZA_PLUGIN_PATH replaces the plugin folder: no plugin" "$OUT" ;;
  *) pass "TRAZA_PLUGIN_PATH replaces the plugin folder: no plugin" ;; esac
  rm "$plugdir/category_count.so"
else
  skip "installed binary lists the plugin of its plugin folder" "no build/plugins/category_count.so"
fi

# uninstall: no file left, no folder install made; the folder that was there stays
if make -s uninstall PREFIX=/opt/tz DESTDIR="$dest" >"$TMP/uninstall.log" 2>&1; then
  pass "make uninstall"
else
  fail "make uninstall" "$(tail -20 "$TMP/uninstall.log")"
fi
check_eq "uninstall leaves no file" "" "$(cd "$dest" && find . ! -type d | sort)"
check_eq "uninstall removes the folders install made" "./opt/tz/bin" "$(cd "$dest" && find ./opt/tz -mindepth 1 | sort)"
