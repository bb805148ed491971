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
# Builds without the optional libraries' development files. A fake pkg-config says the
# packages named in $HIDE are missing; OpenCSD, which has no pkg-config file, is hidden
# by a header of that name that fails to compile, found before the real one.
cat >"$TMP/pkg-config" <<'SH'
#!/bin/sh
for a in "$@"; do case " $HIDE " in *" $a "*) exit 1 ;; esac; done
exec pkg-config "$@"
SH
chmod +x "$TMP/pkg-config"
mkdir -p "$TMP/hide/opencsd/c_api" && echo '#error OpenCSD is hidden' >"$TMP/hide/opencsd/c_api/opencsd_c_api.h"
mk() { make -C "$src" PKG_CONFIG="$TMP/pkg-config" "$@"; }
print() { local v=$1; shift; mk -s "$@" --eval "print: ; @echo \$($v)" print 2>/dev/null; }
# what each missing package leaves out, asked of make without building
all_pkgs=$(HIDE= print OPTIONAL_PKGS)
check_eq "with every package, every feature is built" "" "$(HIDE= print MISSING_FEATURES)"
for p in $all_pkgs; do
  case $p in libpq) want=pg ;; babeltrace2) want=ctf ;; libtracecmd | libtraceevent | libtracefs) want=tracecmd ;; libmicrohttpd) want=serve ;; *) want="?" ;; esac
  check_eq "without $p, only $want is left out" "$want" "$(HIDE=$p print MISSING_FEATURES)"
done
check_eq "without OpenCSD's header, only etm is left out" "etm" "$(HIDE= print MISSING_FEATURES CFLAGS=-I"$TMP/hide")"

# One build of the program with all of them missing. The objects of this build are
# reused (hard links), so only what changes is compiled.
if [ ! -d "${TRAZA_BUILD:-build}/obj" ]; then
  skip "a build without the optional libraries" "no build/obj to reuse"; exit 0
fi
export HIDE="$all_pkgs"
hidden_cflags=-I$TMP/hide
mkdir -p "$TMP/b" && cp -al "${TRAZA_BUILD:-build}/obj" "${TRAZA_BUILD:-build}/gen" "$TMP/b/"
if ! mk -j2 BUILD="$TMP/b" CFLAGS="$hidden_cflags" "$TMP/b/traza" >"$TMP/make.log" 2>&1; then
  fail "traza builds without the optional libraries' development files" "$(grep -m3 -E 'error|Error' "$TMP/make.log")"; exit 0
fi
pass "traza builds without the optional libraries' development files"
check_contains "... with -Werror" "$(grep -m1 'pg_missing\.c' "$TMP/make.log")" "-Werror"
check_contains "... and make says what it leaves out" "$(cat "$TMP/make.log")" "left out pg ctf etm tracecmd serve"
T=$TMP/b/traza
check_eq "... and says so in --version" "features: -postgresql -ctf -etm -trace-cmd -serve" "$("$T" --version | sed -n 2p)"
# none of the program's sources includes a hidden library's header (each object's
# dependency file lists the headers it was compiled with)
used=$(mk -s BUILD="$TMP/b" CFLAGS="$hidden_cflags" --eval 'print: ; @echo $(LIB_SRC) $(SERVER_SRC) $(CLI_SRC)' print 2>/dev/null)
deps=$(for f in $used; do cat "$TMP/b/obj/${f%.c}.d"; done | grep -o -E '(babeltrace2|opencsd|trace-cmd|traceevent|tracefs|postgresql)/[a-z_/-]*\.h|microhttpd\.h' | sort -u)
check_eq "... no source of the program includes their headers" "" "$deps"
check_eq "... nor compiles a feature's own sources" "" "$(grep -o -E 'src/[a-z_/]*\.c' "$TMP/make.log" | grep -v _missing)"
check_eq "... nor links them" 0 "$(nm "$T" | grep -c -E 'tz_(babel|ocsd|tcmd|mhd|pq)_api_get|tz_pg_store')"
# the tests build too: the PostgreSQL runs (libpq creates their databases) are skipped
pgtest=$TMP/b/tests/store/test_store_pg
if mk -j2 BUILD="$TMP/b" CFLAGS="$hidden_cflags" "$pgtest" "$TMP/b/tests/util/test_features" >"$TMP/make-tests.log" 2>&1; then
  pass "the tests build without the optional libraries' development files"
  out=$(TRAZA_PG_URI=postgresql://localhost/none "$pgtest" 2>&1)
  check_contains "... and a PostgreSQL run says it was built without libpq" "$out" "the tests were built without libpq"
  check_contains "... and skips" "$out" "SKIPPED"
else
  fail "the tests build without the optional libraries' development files" "$(grep -m3 -E 'error|Error' "$TMP/make-tests.log")"
fi

# Each format is still detected, then its import fails naming the library; the
# workspace is left as it was.
export TRAZA_WORKSPACE=$TMP/ws
"$T" import "$src/examples/demo.paje" --name demo -q >/dev/null 2>&1
before=$("$T" list --json 2>&1; ls "$TMP/ws/traces")
mkdir -p "$TMP/ctf" "$TMP/etm"
printf '/* CTF 1.8 */\n' >"$TMP/ctf/metadata"
: >"$TMP/etm/snapshot.ini"
printf '\027\010\104tracing6\0' >"$TMP/x.dat"
missing() { # NAME PATH FORMAT WHAT LIBRARY PACKAGE
  check_rc "$1: import fails" 1 "$T" import "$2"
  local want="traza: $2: $4: this build of traza was made without $5 (Debian $6)"
  check_eq "$1: ... saying which library this build lacks" "$want" "$OUT"
  check_rc "$1: import --format $3 fails" 1 "$T" import --format "$3" "$2"
  check_eq "$1: ... the same way" "$want" "$OUT"
  check_eq "$1: ... and leaves the workspace as it was" "$before" "$("$T" list --json 2>&1; ls "$TMP/ws/traces")"
}
missing "CTF" "$TMP/ctf" ctf "CTF traces" libbabeltrace2 "package libbabeltrace2-dev"
missing "ETM" "$TMP/etm" etm "CoreSight ETM traces" OpenCSD "package libopencsd-dev"
missing "trace-cmd" "$TMP/x.dat" trace-cmd "trace-cmd .dat files" "libtracecmd and libtraceevent" \
  "packages libtracecmd-dev libtraceevent-dev libtracefs-dev"
check_rc "ETM: grammar compress --from-etm fails" 1 "$T" grammar compress -q --from-etm "$TMP/etm" --producer cpu_0 -o "$TMP/etm.tzg"
check_eq "ETM: ... saying so, and writes nothing" \
  "traza: $TMP/etm: CoreSight ETM traces: this build of traza was made without OpenCSD (Debian package libopencsd-dev) no file" \
  "$OUT $(test -e "$TMP/etm.tzg" && echo file || echo no file)"
out=$("$T" list --workspace postgresql://localhost/none 2>&1)
check_contains "PostgreSQL: a PostgreSQL workspace says so" "$out" "PostgreSQL workspaces: this build of traza was made without libpq (Debian package libpq-dev)"
check_rc "serve fails" 1 "$T" serve --listen 127.0.0.1:0
check_contains "serve: ... saying which library this build lacks" "$OUT" \
  "traza serve (the HTTP server and web UI): this build of traza was made without libmicrohttpd (Debian package libmicrohttpd-dev)"
# the rest works
events() { "$1" info demo --json 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])' 2>&1; }
TRAZA_WORKSPACE=$TMP/ws-full "$TRAZA" import "$src/examples/demo.paje" --name demo -q >/dev/null 2>&1
check_eq "the other formats import as in a full build" "$(TRAZA_WORKSPACE=$TMP/ws-full events "$TRAZA")" "$(events "$T")"
"$T" gen --events 100 --name g >/dev/null 2>&1
check_eq "SQLite workspaces work" 100 "$("$T" query g --count 2>&1)"
