#!/usr/bin/env bash
# -fpatchable-function-entry=5 hook mode (x86_64): the program starts with 5 NOPs per
# function (listed in __patchable_function_entries); `traza patch` turns the selected
# ones into `call __fentry__` (exits by return-address replacement) and back to NOPs.
. "$(dirname "$0")/../lib.sh"
P=${TRAZA_BUILD:-build}/rt/tests
if [ ! -x "$P/prog.pfe" ]; then skip "patchable entries" "test programs not built ($P)"; exit 0; fi
cd "$TMP"
names() { "$TRAZA" callstack "$1" --json | json_get profile | python3 -c 'import json,sys; print(" ".join(sorted(f["name"] for f in json.load(sys.stdin))))'; }
check_rc "list sites" 0 "$TRAZA" patch "$P/prog.pfe" --list --json
check_eq "9 sites from __patchable_function_entries" "9" "$(printf '%s' "$OUT" | json_get sites)"
check_eq "all NOPs as built" "0" "$(printf '%s' "$OUT" | json_get enabled)"
check_eq "unpatched: runs, records nothing" "$("$P/prog.plain" 4)" "$(TRAZA_RT_OUT=none.tzr "$P/prog.pfe" 4)"
check_rc "enable all" 0 "$TRAZA" patch "$P/prog.pfe" -o all --enable '.*'
check_rc "run patched" 0 env TRAZA_RT_OUT=all.tzr ./all 4
check_rc "import" 0 "$TRAZA" import --name all all.tzr
body=$("$TRAZA" callstack all --tree | awk '/^all\[/{th=$0} /^  main$/{print th}')
body=$("$TRAZA" callstack all --tree | awk -v th="$body" '$0==th{on=1;next} /^all\[/{on=0} on')
expect='  main
    fact
    catcher
      thrower
        thrower
          thrower
            thrower
      leaf
    tail_caller
    tail_target'
check_eq "exits hooked: nesting, longjmp, tail call" "$expect" "$body"
check_rc "enable a selection" 0 "$TRAZA" patch "$P/prog.pfe" -o sel --only '^(main|leaf)$'
check_rc "run selection" 0 env TRAZA_RT_OUT=sel.tzr ./sel 4
check_rc "import selection" 0 "$TRAZA" import --name sel sel.tzr
check_eq "only the selected functions" "leaf main" "$(names sel)"
check_rc "back to NOPs" 0 "$TRAZA" patch all -o nop --disable-all
check_eq "all-NOP program output" "$("$P/prog.plain" 4)" "$(TRAZA_RT_OUT=nop.tzr ./nop 4)"
check_rc "import all-NOP dump" 0 "$TRAZA" import --name nop nop.tzr
check_eq "all-NOP: user events only, no calls" "" "$(names nop)"
check_rc "NOPs to calls again" 0 "$TRAZA" patch nop -o again --enable '^fact$'
check_rc "run again" 0 env TRAZA_RT_OUT=again.tzr ./again 4
check_rc "import again" 0 "$TRAZA" import --name again again.tzr
check_eq "fact only" "fact" "$(names again)"
