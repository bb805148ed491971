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
