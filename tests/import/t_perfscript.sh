#!/bin/bash
# perf script text import on the shared FlameGraph samples: samples per event and
# stack frames equal a regex count of the file and the numbers of MANIFEST.md.
. "$(dirname "$0")/../lib.sh"

dir="$DATA/flamegraph-perf-script"
if [ ! -d "$dir" ]; then
  skip "perf script samples" "$dir is absent"; exit 0
fi
declare -A manifest=(
  [example-perf-stacks.txt.gz]="samples=1315 frames=34510 cycles:1315"
  [perf-cycles-instructions-01.txt]="samples=444 frames=705 cycles:111 instructions:333"
)
i=0
for f in "$dir"/*; do
  i=$((i + 1))
  base=${f##*/}
  if ! out=$("$TRAZA" import --name "ps$i" "$f" 2>&1); then
    fail "import $base" "$out"; continue
  fi
  check_contains "import $base: detected as perf-script" "$out" "(perf-script)"
  # the file: sample lines (COMM TID [CPU] TIME: EVENT:) and the frame lines after them
  want=$(python3 - "$f" <<'PY'
import collections, gzip, re, sys
op = gzip.open if sys.argv[1].endswith('.gz') else open
head = re.compile(r'^\S.*?\s+\d+(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(?:\d+\s+)?(\S+):')
frame = re.compile(r'^\s+[0-9a-f]+ ')
n, frames, types, in_sample = 0, 0, collections.Counter(), False
for l in op(sys.argv[1], 'rt'):
    m = head.match(l)
    if m and not l.startswith('#'):
        n += 1; types[m.group(1)] += 1; in_sample = True
    elif in_sample and frame.match(l):
        frames += 1
    elif not l.strip():
        in_sample = False
print('samples=%d frames=%d %s' % (n, frames, ' '.join('%s:%d' % kv for kv in sorted(types.items()))))
PY
)
  got=$("$TRAZA" query "ps$i" --csv --limit 0 | python3 -c '
import collections, csv, sys
n, frames, types = 0, 0, collections.Counter()
for r in csv.DictReader(sys.stdin):
    p = dict(kv.split("=", 1) for kv in r["params"].split(";") if "=" in kv)
    n += 1; frames += int(p["depth"]); types[r["type"]] += 1
print("samples=%d frames=%d %s" % (n, frames, " ".join("%s:%d" % kv for kv in sorted(types.items()))))')
  check_eq "$base: samples, frames and samples per event as a regex count of the file" "$want" "$got"
  [ -n "${manifest[$base]:-}" ] && check_eq "$base: the numbers of MANIFEST.md" "${manifest[$base]}" "$got"
done

# A damaged line: an error naming it, and the workspace unchanged.
printf 'app 13 [000] 1.5: cycles:\n\t401000 main (/usr/bin/app)\n\tzz bad (x)\n' >"$TMP/bad.txt"
before=$("$TRAZA" list 2>&1)
check_rc "bad frame fails" 1 "$TRAZA" import --format perf-script "$TMP/bad.txt"
check_contains "bad frame: the error names the line" "$OUT" "bad.txt:3: expected a stack frame"
check_eq "bad frame: the workspace is unchanged" "$before" "$("$TRAZA" list 2>&1)"
