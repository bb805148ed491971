#!/usr/bin/env bash
# What an ordinary build does to a user's machine: warnings are errors only in a git
# checkout (developers, CI), never in a release tarball; `make` never installs npm
# packages (only `make web`, which `make test` and `make demo` run).
. tests/lib.sh
case "${TRAZA_BUILD:-}" in
  */asan|*/tsan) skip "build flags" "checked once, in the plain build's pass"; exit 0 ;;
esac
src=${TRAZA_SRC:-.}
warn() { make -s -C "$1" -f "$src/Makefile" --eval 'print-warn: ; @echo $(WARN)' print-warn 2>/dev/null; }
check_contains "a git checkout builds with -Werror" "$(cd "$src" && warn .)" "-Werror"
# a release tarball: the sources without .git
mkdir -p "$TMP/rel/include/traza" && cp "$src/include/traza/version.h" "$TMP/rel/include/traza/"
w=$(warn "$TMP/rel")
check_contains "a tarball still warns" "$w" "-Wall"
check_eq "a tarball does not turn warnings into errors" "" "$(echo "$w" | grep -o -- -Werror)"
check_contains "WERROR=-Werror turns them on there" "$(make -s -C "$TMP/rel" -f "$src/Makefile" WERROR=-Werror --eval 'print-warn: ; @echo $(WARN)' print-warn 2>/dev/null)" "-Werror"
# the recipes make would run, without running them
check_eq "an ordinary make never runs npm install" 0 "$(cd "$src" && make -n -B build/web.stamp 2>/dev/null | grep -c 'npm install')"
check_contains "make web installs the npm packages" "$(cd "$src" && make -n web 2>/dev/null)" "npm install"
# A build without libpq's development files: pkg-config says libpq is missing; the
# objects of this build are reused (hard links), so only what changes is rebuilt.
if [ -d "${TRAZA_BUILD:-build}/obj" ]; then
  cat >"$TMP/pkg-config" <<'SH'
#!/bin/sh
for a in "$@"; do [ "$a" = libpq ] && exit 1; done
exec pkg-config "$@"
SH
  chmod +x "$TMP/pkg-config"
  mkdir -p "$TMP/b" && cp -al "${TRAZA_BUILD:-build}/obj" "${TRAZA_BUILD:-build}/gen" "$TMP/b/"
  if make -C "$src" -j2 BUILD="$TMP/b" PKG_CONFIG="$TMP/pkg-config" "$TMP/b/traza" >"$TMP/make.log" 2>&1; then
    pass "traza builds without libpq's development files"
    check_eq "... without compiling the PostgreSQL store" "" "$(grep -o 'src/store/pg_[a-z]*\.c' "$TMP/make.log" | grep -v pg_missing)"
    out=$("$TMP/b/traza" list --workspace postgresql://localhost/none 2>&1)
    check_contains "... and says so when a PostgreSQL workspace is asked for" "$out" "made without libpq (Debian package libpq-dev)"
    "$TMP/b/traza" gen --workspace "$TMP/ws" --events 100 --name g >/dev/null 2>&1
    check_eq "... while SQLite workspaces work" 100 "$("$TMP/b/traza" query --workspace "$TMP/ws" g --count 2>&1)"
  else
    fail "traza builds without libpq's development files" "$(grep -m3 -E 'error|Error' "$TMP/make.log")"
  fi
else
  skip "a build without libpq" "no build/obj to reuse"
fi
