#!/usr/bin/env bash
# libtraza's boundary: libtraza.so exports the public API (traza_*) and nothing else and
# holds no front end;
# every public header compiles alone (C11 and C++), traza.h includes them all, and the
# version macros agree with traza_version() and the Makefile.
. tests/lib.sh
so=${TRAZA_BUILD:-build}/libtraza.so
[ -f "$so" ] || { fail "libtraza.so is built" "$so"; exit 0; }
# (a sanitizer build also exports the hooks its runtime looks up by name: __lsan_*)
other=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBRVW]/ {print $3}' | grep -v '^traza_' | grep -v '^__lsan_default_' | head -20)
check_eq "libtraza.so exports only traza_*" "" "$other"
# the server and its web UI are a front end (libtraza-server.a), not part of the library
srv=$(nm "$so" | awk '{print $NF}' | grep -E '^(tz_api_|tz_server_|tz_static_handle|tz_web_assets|tz_req_)' | head -5)
check_eq "libtraza.so holds no server code" "" "$srv"
a=${TRAZA_BUILD:-build}/libtraza.a
check_eq "libtraza.a holds no server object" "" "$(ar t "$a" | grep -xE "$(cd "$TRAZA_SRC/src/server" && ls *.c | sed 's/\.c$/.o/' | paste -sd'|')|web_assets\.o")"
san=
case "${TRAZA_BUILD:-}" in */asan) san="-fsanitize=address,undefined" ;; esac
n=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -c '^traza_')
[ "$n" -gt 150 ] && pass "libtraza.so exports the public API ($n functions)" || fail "libtraza.so exports the public API" "$n"
for h in include/traza/*.h; do
  b=$(basename "$h")
  printf '#include "traza/%s"\n#include "traza/%s"\nint main(void) { return 0; }\n' "$b" "$b" >"$TMP/h.c"
  if cc -std=c11 -Wall -Wextra -Werror -Iinclude -c "$TMP/h.c" -o "$TMP/h.o" 2>"$TMP/err"; then pass "$b compiles alone (C11)"
  else fail "$b compiles alone (C11)" "$(head -5 "$TMP/err")"; fi
  grep -q "traza/$b" include/traza/traza.h || [ "$b" = traza.h ] && pass "traza.h includes $b" || fail "traza.h includes $b"
done
if command -v g++ >/dev/null; then
  printf '#include "traza/traza.h"\nint main() { return traza_version() ? 0 : 1; }\n' >"$TMP/cpp.cc"
  g++ $san -Wall -Werror -Iinclude "$TMP/cpp.cc" -o "$TMP/cpp" -L"$(dirname "$so")" -ltraza 2>"$TMP/err" \
    && pass "traza.h from C++" || fail "traza.h from C++" "$(head -5 "$TMP/err")"
fi
cat >"$TMP/v.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "traza/traza.h"
#if TRAZA_VERSION_NUMBER < 100
#error version number
#endif
int main(void) { printf("%s %s\n", TRAZA_VERSION_STRING, traza_version()); return strcmp(TRAZA_VERSION_STRING, traza_version()) != 0; }
C
if cc -std=c11 $san -Iinclude "$TMP/v.c" -o "$TMP/v" -L"$(dirname "$so")" -ltraza 2>"$TMP/err"; then
  mkdir -p "$TMP/lib" && ln -sf "$(realpath "$so")" "$TMP/lib/libtraza.so.0" # its soname
  check_rc "TRAZA_VERSION_STRING equals traza_version() of libtraza.so" 0 env LD_LIBRARY_PATH="$TMP/lib" "$TMP/v"
else
  fail "a program built on the public headers links with libtraza.so" "$(head -5 "$TMP/err")"
fi
check_eq "the Makefile's version is the header's" "$(sed -n 's/^#define TRAZA_VERSION_STRING "\(.*\)"/\1/p' include/traza/version.h)" \
  "$(make -s -C "$TRAZA_SRC" -f Makefile --eval 'print-version: ; @echo $(VERSION)' print-version 2>/dev/null)"
# The experimental API (callprofile, diff, elf, etm, gen, live, patch) is seen only by programs that ask for it.
cat >"$TMP/x.c" <<'C'
#include "traza/traza.h"
int main(void) { traza_gen_opts o; return traza_gen_parse_types(&o, "a", NULL); }
C
cc -std=c11 -Werror=implicit-function-declaration -Iinclude -c "$TMP/x.c" -o "$TMP/x.o" 2>"$TMP/err"
check_eq "an experimental declaration is hidden without TRAZA_EXPERIMENTAL_API" 1 "$([ -s "$TMP/x.o" ] && echo 0 || echo 1)"
check_contains "... and the compiler says which" "$(cat "$TMP/err")" "traza_gen_opts"
rm -f "$TMP/x.o"
cc -std=c11 -Werror -DTRAZA_EXPERIMENTAL_API -Iinclude -c "$TMP/x.c" -o "$TMP/x.o" 2>"$TMP/err"
check_eq "it is seen with TRAZA_EXPERIMENTAL_API" 0 "$([ -s "$TMP/x.o" ] && echo 0 || echo 1)"
# The same for the call profile, the patcher, the aggregation accumulator of
# traza/analysis.h and the event text writer of traza/export.h (the experimental
# parts of stable headers).
cat >"$TMP/y.c" <<'C'
#include "traza/traza.h"
int main(void)
{
    traza_callprofile_free(NULL);
    traza_patch_sites_free(NULL);
    traza_agg_acc_free(NULL);
    return traza_event_text_open(NULL, TRAZA_TEXT_CSV, NULL, NULL) != NULL;
}
C
rm -f "$TMP/y.o"
cc -std=c11 -Werror=implicit-function-declaration -Iinclude -c "$TMP/y.c" -o "$TMP/y.o" 2>"$TMP/err"
check_eq "traza_callprofile_*, traza_patch_*, traza_agg_acc_* and traza_event_text_* are hidden without TRAZA_EXPERIMENTAL_API" 1 \
  "$([ -s "$TMP/y.o" ] && echo 0 || echo 1)"
for f in traza_callprofile_free traza_patch_sites_free traza_agg_acc_free traza_event_text_open; do
  check_contains "... the compiler names $f" "$(cat "$TMP/err")" "$f"
done
cc -std=c11 -Werror -DTRAZA_EXPERIMENTAL_API -Iinclude -c "$TMP/y.c" -o "$TMP/y.o" 2>"$TMP/err"
check_eq "they are seen with TRAZA_EXPERIMENTAL_API" 0 "$([ -s "$TMP/y.o" ] && echo 0 || echo 1)"
