#!/usr/bin/env bash
# `make demo` on a fresh machine: the package probes fail until the install step has
# run, and the build started after it must still see every flag (one invocation, -j).
# pkg-config is replaced by a gate that fails until DEPS_CMD (standing in for
# scripts/install-deps.sh) has created a marker; the demo itself is replaced by `true`.
. tests/lib.sh
case "${TRAZA_BUILD:-}" in
  */asan|*/tsan) skip "make demo on a fresh machine" "checked once, in the plain build's pass"; exit 0 ;;
esac
marker=$TMP/installed
cat >"$TMP/pkg-config" <<SH
#!/bin/sh
if [ -e "$marker" ]; then echo ok >>"$TMP/probes"; exec pkg-config "\$@"; fi
echo missing >>"$TMP/probes"; exit 1
SH
chmod +x "$TMP/pkg-config"
if make -C "$TRAZA_SRC" -j2 demo BUILD="$TMP/b" PKG_CONFIG="$TMP/pkg-config" \
     DEPS_CMD="touch $marker" DEMO_RUN=true >"$TMP/make.log" 2>&1; then
  pass "make -j2 demo builds in one invocation"
else
  fail "make -j2 demo builds in one invocation" "$(grep -m3 -E 'error|Error' "$TMP/make.log")"
fi
check_contains "the probes failed before the install step" "$(cat "$TMP/probes")" "missing"
check_contains "the probes succeeded after it" "$(cat "$TMP/probes")" "ok"
# every package's flags reached the compiler: libpq's include folder is the one
# pkg-config alone knows (/usr/include/postgresql)
check_contains "the build after the install has libpq's flags" \
  "$(grep 'pg_api.c' "$TMP/make.log")" "$(pkg-config --cflags libpq)"
[ -x "$TMP/b/traza" ] && pass "the binary was built" || fail "the binary was built"
