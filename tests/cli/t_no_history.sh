#!/usr/bin/env bash
# Code comments and docs say what is and why; the story of past work ("session 12
# made it 5 % faster", "the sessions 13-15 VM") lives in git. This check fails on any
# line of the source, test, benchmark and documentation files that names a session by
# its number, and prints each one (file:line: text).
. "$(dirname "$0")/../lib.sh"
SRC=${TRAZA_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$SRC" || { fail "no history: the source tree" "cannot enter $SRC"; exit 0; }
paths=()
for p in src include rt tests fuzz bench doc scripts web/src man examples README.md Makefile; do
  [ -e "$p" ] && paths+=("$p")
done
# -I: binary files (fuzz corpora, test fixtures) are not text to read.
hits=$(grep -rInEi 'sessions?[ -]?[0-9]' "${paths[@]}" --exclude=t_no_history.sh 2>/dev/null)
# The same wrapped over two lines of a comment ("session\n# 4)").
wrapped=$(grep -rIlEi 'sessions?$' "${paths[@]}" --exclude=t_no_history.sh 2>/dev/null |
  xargs -r perl -0ne 'while (/sessions?\n[\s#*\/]*[0-9]/gi) { my $l = 1 + (substr($_, 0, $-[0]) =~ tr/\n//); print "$ARGV:$l: (wrapped)\n" }')
hits=$(printf '%s\n%s' "$hits" "$wrapped" | sed '/^$/d')
if [ -z "$hits" ]; then
  pass "no history: no line names a session by its number"
else
  fail "no history: lines that name a session by its number (say what is and why instead)" \
    "$(printf '%s\n' "$hits" | head -40)" "($(printf '%s\n' "$hits" | wc -l) lines)"
fi
# The check itself: a line that tells a story is caught, one that only uses the word is not.
printf '%s\n' '/* session 4 measured 1.8 ms */' 'the Sessions 13-15 VM' 'written by the session-9 binary' \
  'other sessions see nothing before the commit' 'ZSTD_reset_session_and_parameters' >"$TMP/probe.txt"
got=$(grep -cEi 'sessions?[ -]?[0-9]' "$TMP/probe.txt")
check_eq "no history: the pattern catches three story lines of five" 3 "$got"
