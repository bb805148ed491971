#!/usr/bin/env bash
# The library speaks in its own terms: no string literal of src/ outside the front end
# src/cli/ names a --option (the CLI adds that advice, src/cli/cli_words.c). Allowed:
# src/tools/registry.c, which builds the argv of a tool subprocess (the options are the
# interface of that program). Also checks the scan catches a planted message.
. tests/lib.sh
lib_options() { # SRC_DIR -> prints the literals that name an option
  python3 - "$1" <<'PY'
import glob, os, re, sys
src = sys.argv[1]
allow = {"tools/registry.c"}  # builds the argv of a tool subprocess: the options are its interface
opt = re.compile(r'(?:^|[^A-Za-z0-9_-])--[a-z]')
def literals(text):
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2); j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i); j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
            if c == '"':
                yield line, text[i:j]
        else:
            j = i + 1
        line += text.count("\n", i, j)
        i = j
for f in sorted(glob.glob(os.path.join(src, "**", "*.[ch]"), recursive=True)):
    rel = os.path.relpath(f, src)
    if rel.startswith("cli" + os.sep) or rel in allow:
        continue
    for line, s in literals(open(f, errors="replace").read()):
        if opt.search(s[1:-1]):
            print(f"src/{rel}:{line}: {s}")
PY
}
out=$(lib_options "$TRAZA_SRC/src")
check_eq "no message of the library names a --option" "" "$out"
mkdir -p "$TMP/src/import" "$TMP/src/cli" "$TMP/src/tools"
printf '%s\n' '/* --map in a comment */' 'x = "give --map ts=0";' >"$TMP/src/import/bad.c"
printf '%s\n' 'x = "give --map ts=0";' >"$TMP/src/cli/ok.c"
printf '%s\n' 'argv[0] = "--json";' >"$TMP/src/tools/registry.c"
out=$(lib_options "$TMP/src")
check_eq "a planted message is caught (not a comment, not src/cli/, not the argv of a tool)" 'src/import/bad.c:2: "give --map ts=0"' "$out"

# The CLI gives the advice the library leaves out: the option to use.
printf 'a,b,c\n1,x,p\n' >"$TMP/m.csv"
check_rc "a bad column map" 2 "$TRAZA" -w "$TMP/ws" import "$TMP/m.csv" --format csv --map ts=0,foo=1
check_contains "its message: the library's words, the CLI's option" "$OUT" \
  "column map: unknown key 'foo' (expected ts, end, type, producer, end_producer, cpu, value, level, category, param:NAME[:TYPE], sep, header, tsunit) (--map)"
check_rc "a csv without a map" 2 "$TRAZA" -w "$TMP/ws" import "$TMP/m.csv" --format csv
check_contains "its message" "$OUT" "no column map given and the header does not name the columns ts, type and producer: give the column map, e.g. ts=0,type=1,producer=2 (--map)"
printf 'zz\n' >"$TMP/x.unknown"
check_rc "an unknown format" 1 "$TRAZA" -w "$TMP/ws" import "$TMP/x.unknown"
check_contains "its message" "$OUT" ") (give it with --format)"
printf '100\n104\n' >"$TMP/p.txt"
check_rc "a pc map of another base" 2 "$TRAZA" -w "$TMP/ws" import "$TMP/p.txt" --format pc --map base=oct
check_contains "its message" "$OUT" "pc: the map accepts only base=hex or base=dec, got 'base=oct' (--map)"
check_rc "a tool option out of range" 2 "$TRAZA" -w "$TMP/ws" run aggregate x --slices 0
check_contains "its message names the option as the CLI spells it" "$OUT" "--slices must be between 1 and 100000"
