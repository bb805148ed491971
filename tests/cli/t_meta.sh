#!/usr/bin/env bash
# Trace metadata: set at import, edited and removed with `traza meta` (all keys of
# one call or none), shown by `traza info` and `traza list --json`, and selecting
# traces with `traza list --where`. TRAZA_TEST_WORKSPACE runs it on PostgreSQL
# (tests/cli/t_sql_pg.sh).
. tests/lib.sh

check_rc "gen -o csv" 0 "$TRAZA" gen --events 50 --seed 2 -o "$TMP/a.csv" --format csv
check_rc "import with --meta" 0 "$TRAZA" import "$TMP/a.csv" --name a --meta board=stm32f4 --meta os=FreeRTOS --meta alias=first
check_rc "import b" 0 "$TRAZA" import "$TMP/a.csv" --name b --meta board=nrf52 --meta application=tsrecord
check_rc "import c, no metadata" 0 "$TRAZA" import "$TMP/a.csv" --name c
check_rc "import with a bad key" 2 "$TRAZA" import "$TMP/a.csv" --name d --meta 'bo ard=x'
check_eq "import with a bad key: message" "traza import: metadata key 'bo ard': character 3 (' ') is not a letter, digit, '_', '-' or '.' (see 'traza import --help')" "$OUT"
check_rc "import with a bad key imports nothing" 1 "$TRAZA" info d

check_rc "meta lists" 0 "$TRAZA" meta a
check_eq "meta lists: alias first, then keys in order" "alias=first
board=stm32f4
os=FreeRTOS" "$OUT"
check_rc "meta sets and removes" 0 "$TRAZA" meta a "description=flush, every 5 s" os=Zephyr --unset board
check_rc "meta --json" 0 "$TRAZA" meta a --json
check_eq "meta --json: values" '{"alias":"first","description":"flush, every 5 s","os":"Zephyr"}' "$OUT"
check_rc "unset alias" 0 "$TRAZA" meta a --unset alias
check_rc "meta after unset" 0 "$TRAZA" meta a
check_eq "meta after unset: no alias" "description=flush, every 5 s
os=Zephyr" "$OUT"
check_rc "a bad key changes nothing" 2 "$TRAZA" meta a os=Linux 'x/y=1'
check_eq "a bad key changes nothing: os kept" "os=Zephyr" "$("$TRAZA" meta a | grep ^os=)"
check_rc "no '='" 2 "$TRAZA" meta a board
check_eq "no '=': message" "traza meta: expected KEY=VALUE, got 'board' (see 'traza meta --help')" "$OUT"
check_rc "unknown trace" 1 "$TRAZA" meta nosuch board=x
check_contains "unknown trace: message" "$OUT" "no trace named 'nosuch'"

check_rc "alias again" 0 "$TRAZA" meta b alias=second
check_rc "info shows metadata" 0 "$TRAZA" info b
check_contains "info: alias" "$OUT" "alias:       second"
check_contains "info: a key" "$OUT" "param:       board = nrf52"
check_eq "info --json: alias and params" '{"application": "tsrecord", "board": "nrf52"} second' \
  "$("$TRAZA" info b --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["params"], sort_keys=True), d["alias"])')"

names() { "$TRAZA" list --json "$@" | python3 -c 'import json,sys; print(" ".join(t["name"] for t in json.load(sys.stdin)))'; }
check_eq "--where KEY=VALUE" "b" "$(names --where board=nrf52)"
check_eq "--where KEY!=VALUE (a trace without KEY matches)" "a c" "$(names --where board!=nrf52)"
check_eq "--where KEY~GLOB" "a" "$(names --where 'os~Zeph*')"
check_eq "--where KEY~GLOB with ? and [..]" "b" "$(names --where 'application~ts?[aeiou]cord')"
check_eq "--where KEY!~GLOB (a trace without KEY matches)" "a c" "$(names --where 'alias!~s*')"
check_eq "--where on name and format" "c" "$(names --where name=c --where format=csv)"
check_eq "--where: several must all match" "" "$(names --where board=nrf52 --where os=Zephyr)"
check_rc "--where: none matches" 0 "$TRAZA" list --where board=none
check_contains "--where: none matches: message" "$OUT" "no trace of the 3 in"
check_rc "--where without an operator" 2 "$TRAZA" list --where board
check_eq "--where without an operator: message" "traza list: --where expects KEY=VALUE, KEY!=VALUE, KEY~GLOB or KEY!~GLOB, got 'board' (see 'traza list --help')" "$OUT"
