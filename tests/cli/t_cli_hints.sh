#!/usr/bin/env bash
# The CLI's hint table (src/cli/cli_words.c) matches library messages by their text:
# each pattern it matches must still occur in a string of the library (src/ outside
# src/cli/), so that a reworded message cannot silently lose its advice. Also checks
# the scan reports a planted pattern that no message holds.
. tests/lib.sh
src=${TRAZA_SRC:-.}
unmatched() { # WORDS_FILE SRC_DIR -> prints the patterns no library string holds
  python3 - "$1" "$2" <<'PY'
import glob, os, re, sys
words, src = sys.argv[1], sys.argv[2]
table = open(words).read()
body = table[table.index("hints[] = {"):]
body = body[:body.index("};")]
says = re.findall(r'\{\s*"((?:[^"\\]|\\.)*)"\s*,', body)
if not says:
    print("(no pattern read from the table)")
lib = ""
for p in glob.glob(os.path.join(src, "**", "*.[ch]"), recursive=True):
    if os.sep + "cli" + os.sep in os.path.relpath(p, src).join([os.sep, os.sep]):
        continue
    # adjacent literals joined, so a message split over lines still matches
    lib += re.sub(r'"\s*\n\s*"', "", open(p, errors="replace").read())
for s in says:
    if s not in lib:
        print(s)
PY
}
out=$(unmatched "$src/src/cli/cli_words.c" "$src/src")
check_eq "every pattern of the CLI hint table occurs in a library message" "" "$out"
sed 's/{"column map", "--map"},/{"column map", "--map"}, {"a message no library says", "--x"},/' \
  "$src/src/cli/cli_words.c" >"$TMP/cli_words.c"
check_eq "a pattern no library message holds is reported" "a message no library says" \
  "$(unmatched "$TMP/cli_words.c" "$src/src")"
