#!/usr/bin/env bash
# The include graph of src/ against the rules of doc/architecture.md: an area includes
# only the headers of the areas its row allows (the public traza/ headers always).
# Also checks the rules themselves catch a planted include.
. tests/lib.sh
check_layers() { # SRC_DIR -> prints the includes that break a rule
  python3 - "$TRAZA_SRC/doc/architecture.md" "$1" <<'PY'
import glob, os, re, sys
doc, src = sys.argv[1], sys.argv[2]
text = open(doc).read()
table = text.split("<!-- layers -->")[1].split("<!-- /layers -->")[0]
allowed = {}
for line in table.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 3 or cells[0] in ("area", "") or set(cells[0]) <= set("-"):
        continue
    allowed[cells[0]] = set() if cells[2] == "—" else {a.strip() for a in cells[2].split(",")}
for f in sorted(glob.glob(os.path.join(src, "*", "*.[ch]"))):
    area = f.split(os.sep)[-2]
    if area not in allowed:
        print(f"{f}: the area '{area}' has no row in doc/architecture.md")
        continue
    for n, line in enumerate(open(f, errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s+"([a-z_]+)/', line)
        if m and m.group(1) not in ("traza", area) and m.group(1) not in allowed[area]:
            print(f"{f}:{n}: {area} includes {m.group(1)}/ ({line.strip()})")
PY
}
out=$(check_layers "$TRAZA_SRC/src")
check_eq "no include breaks a rule of doc/architecture.md" "" "$out"
# a planted include from util up to tools is caught
mkdir -p "$TMP/src/util" "$TMP/src/tools"
printf '#include "tools/registry_internal.h"\n' >"$TMP/src/util/bad.c"
printf '#include "util/util.h"\n' >"$TMP/src/tools/ok.c"
out=$(check_layers "$TMP/src")
check_eq "a planted upward include is caught" "$TMP/src/util/bad.c:1: util includes tools/ (#include \"tools/registry_internal.h\")" "$out"
