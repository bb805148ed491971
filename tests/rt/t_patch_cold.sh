#!/usr/bin/env bash
# `traza patch` on gcc -O2 programs whose functions are split into foo and foo.cold
# (the unlikely path, here a call of abort(), moved out of line): foo.cold starts
# with `call abort@plt`, which is never a hook site. Patched to all NOPs and then
# re-enabled, the programs run and record the enabled functions only, whichever way
# they call the imported __fentry__: through its GOT slot (gcc's PIE default), its
# PLT stub (lazy, IBT and non-PIE layouts), or listed in __mcount_loc.
. "$(dirname "$0")/../lib.sh"
CC=${CC:-gcc}
if ! command -v "$CC" >/dev/null; then skip "patch: cold parts" "no C compiler"; exit 0; fi
cd "$TMP"
cat > cold.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) long check_a(const char *s) { long n = (long)strlen(s); if (n > 100) abort(); return n * 3 + 1; }
__attribute__((noinline)) long check_b(const char *s) { long n = atol(s); if (n < 0) abort(); return n / 2 + 7; }
__attribute__((noinline)) long check_c(const char *s) { char buf[16]; snprintf(buf, sizeof buf, "%s", s); if (buf[0] == 'x') abort(); return buf[0]; }
int main(void)
{
    long s = 0;
    char b[8];
    for (long i = 0; i < 10; i++) {
        snprintf(b, sizeof b, "%ld", i);
        s += check_a(b) + check_b(b) + check_c(b);
    }
    printf("%ld\n", s);
    return 0;
}
C
"$CC" -O2 -pg -mfentry -fPIE -S -o got.s cold.c
# the same code calling the hook through the PLT (`call __fentry__@PLT`, 5 bytes)
sed 's/call\t\*__fentry__@GOTPCREL(%rip)/call\t__fentry__@PLT/' got.s > plt.s
"$CC" -pie -o got got.s
if [ "$(nm got | grep -c '\.cold$')" -lt 3 ]; then skip "patch: cold parts" "$CC does not split cold parts"; exit 0; fi
check_eq "cold parts start with a call" "3" "$(objdump -d got | grep -A1 'cold>:' | grep -c 'call.*abort')"
"$CC" -pie -o plt plt.s
"$CC" -pie -Wl,-z,lazy -o plt_lazy plt.s
"$CC" -pie -Wl,-z,ibtplt -o plt_ibt plt.s 2>/dev/null || cp plt plt_ibt
"$CC" -no-pie -o plt_nopie plt.s
"$CC" -O2 -pg -mfentry -mrecord-mcount -fPIE -pie -o mcount_loc cold.c 2>/dev/null
names() { "$TRAZA" callstack "$1" --json | json_get profile | python3 -c 'import json,sys; print(" ".join("%s:%d" % (f["name"], f["calls"]) for f in sorted(json.load(sys.stdin), key=lambda f: f["name"])))'; }
for v in got plt plt_lazy plt_ibt plt_nopie mcount_loc; do
  check_rc "$v: list" 0 "$TRAZA" patch "$v" --list
  check_eq "$v: the 4 functions are the sites, no .cold part" "on check_a
on check_b
on check_c
on main" "$(printf '%s\n' "$OUT" | awk '{print $1, $3}' | sort -k2)"
  check_rc "$v: all NOPs" 0 "$TRAZA" patch "$v" -o "$v.nop" --disable-all
  check_rc "$v: re-enable two" 0 "$TRAZA" patch "$v.nop" -o "$v.back" --enable '^check_(a|b)$'
  check_contains "$v: 2 of 4" "$OUT" "2 of 4 functions traced"
  check_eq "$v: cold parts untouched" "$(objdump -d "$v" | grep -A1 'cold>:')" "$(objdump -d "$v.back" | grep -A1 'cold>:')"
  check_rc "$v: runs" 0 "$TRAZA" record -o "$v.tzr" --import "$v" -- "./$v.back"
  check_contains "$v: exit 0" "$OUT" "exit status 0"
  check_eq "$v: output" "655" "$("./$v.back" 2>/dev/null)"
  check_eq "$v: enabled functions only" "check_a:10 check_b:10" "$(names "$v")"
done
