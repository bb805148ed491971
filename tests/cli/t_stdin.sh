#!/usr/bin/env bash
# Imports from standard input and pipes, with and without --format: every event the
# file holds arrives (detection must not eat the head of a stream), for Pajé, KPTrace
# and Chrome JSON, plain or compressed; "-" is recorded as the source.
. tests/lib.sh
ex=$TRAZA_SRC/examples
count() { "$TRAZA" info "$1" --json | json_get events; }
check_rc "paje from a file" 0 "$TRAZA" import "$ex/demo.paje" --name pf
want=$(count pf)
check_rc "paje from stdin, --format" 0 sh -c "cat '$ex/demo.paje' | '$TRAZA' import - --format paje --name p1"
check_eq "every event, --format paje" "$want" "$(count p1)"
check_rc "paje from stdin, detected" 0 sh -c "cat '$ex/demo.paje' | '$TRAZA' import - --name p2"
check_eq "every event, detected" "$want" "$(count p2)"
check_rc "paje from /dev/stdin" 0 sh -c "cat '$ex/demo.paje' | '$TRAZA' import /dev/stdin --name p3"
check_eq "every event, /dev/stdin" "$want" "$(count p3)"
check_rc "xz-compressed paje from stdin" 0 sh -c "xz -c '$ex/demo.paje' | '$TRAZA' import - --name p4"
check_eq "every event, xz on stdin" "$want" "$(count p4)"
check_rc "default name of stdin" 0 sh -c "cat '$ex/demo.paje' | '$TRAZA' import -"
check_eq "named stdin" "$want" "$(count stdin)"
check_eq "source is -" '["-"]' "$("$TRAZA" info stdin --json | json_get sources)"

check_rc "kptrace from a file" 0 "$TRAZA" import "$ex/demo.kptrace" --name kf
check_rc "kptrace from stdin, detected" 0 sh -c "cat '$ex/demo.kptrace' | '$TRAZA' import - --name k1"
check_eq "every kptrace event" "$(count kf)" "$(count k1)"

check_rc "chrome export" 0 "$TRAZA" export pf --format chrome -o "$TMP/p.json"
check_rc "chrome from a file" 0 "$TRAZA" import "$TMP/p.json" --name cf
check_rc "chrome from stdin, detected" 0 sh -c "cat '$TMP/p.json' | '$TRAZA' import - --name c1"
check_eq "every chrome event" "$(count cf)" "$(count c1)"

check_rc "empty stdin is refused" 1 sh -c "'$TRAZA' import - --name e </dev/null"
check_rc "and leaves no trace" 1 "$TRAZA" info e
ls /tmp/traza-stdin-* >/dev/null 2>&1 && fail "no temporary copy left" "$(ls /tmp/traza-stdin-*)" || pass "no temporary copy left"
