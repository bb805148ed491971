#!/usr/bin/env bash
# Command-line habits: unknown options named (with the closest valid one), progress
# lines cleared on a terminal and absent elsewhere, info naming types and producers,
# reading commands leaving a missing workspace alone, --json honoured or refused.
. tests/lib.sh

# ---- unknown options ------------------------------------------------------------
# Every command names the option it refuses; `run`, `grammar` and `itf` take a tool
# or verb first.
for cmd in $(sed -n 's/^CMD(\([a-z]*\),.*/\1/p' "${TRAZA_SRC:-.}/src/cli/commands.def"); do
  case $cmd in
    run) args=(run filter --zzzq) ;;
    grammar) args=(grammar compress --zzzq) ;;
    itf) args=(itf compress --zzzq) ;;
    *) args=("$cmd" --zzzq) ;;
  esac
  check_rc "$cmd refuses an unknown option" 2 "$TRAZA" "${args[@]}"
  check_contains "$cmd names the unknown option" "$OUT" "traza $cmd: unknown option '--zzzq'"
done
check_rc "query --fomr" 2 "$TRAZA" query t --fomr 10
check_eq "query --fomr suggests --from" \
  "traza query: unknown option '--fomr'; did you mean '--from'? (see 'traza query --help')" "$OUT"
check_rc "info --jsno" 2 "$TRAZA" info t --jsno
check_contains "info --jsno suggests --json" "$OUT" "did you mean '--json'?"
check_rc "stats --zzzq" 2 "$TRAZA" stats t --zzzq
case "$OUT" in *"did you mean"*) fail "no suggestion when nothing is close" "$OUT" ;; *) pass "no suggestion when nothing is close" ;; esac
check_rc "short option" 2 "$TRAZA" list -x
check_eq "short option named" "traza list: unknown option '-x' (see 'traza list --help')" "$OUT"
check_rc "ambiguous prefix" 2 "$TRAZA" query t --t x
check_contains "ambiguous prefix named" "$OUT" "ambiguous option '--t' (--to, --type)"
check_rc "missing value" 2 "$TRAZA" query t --from
check_contains "missing value named" "$OUT" "option '--from' needs a value"
check_rc "value given to a flag" 2 "$TRAZA" list --json=1
check_contains "flag with a value named" "$OUT" "option '--json' takes no value"
check_rc "analysis option" 2 "$TRAZA" anomaly t --tpye irq
check_contains "analysis option suggested" "$OUT" "traza anomaly: unknown option '--tpye'; did you mean '--type'?"
check_rc "run option" 2 "$TRAZA" run anomaly t --tpye irq
check_contains "run option suggested" "$OUT" "traza run: unknown option '--tpye'; did you mean '--type'?"
check_rc "global option" 2 "$TRAZA" --quite list
check_contains "global option suggested" "$OUT" "traza: unknown option '--quite'; did you mean '--quiet'?"
