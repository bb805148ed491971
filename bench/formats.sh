#!/usr/bin/env bash
# Format importers against their anchors, on the same input in one run:
#   CTF:    traza import DIR   vs  babeltrace2 DIR > /dev/null   (same library, same decode)
#   Chrome: traza import FILE  vs  python3 json.load(FILE)       (parse-only anchor)
#   ETM:    traza import SNAPSHOT  vs  trc_pkt_lister -ss_dir SNAPSHOT -decode -logstdout > /dev/null
#           (same OpenCSD decode; traza also stores every element)
#   CTF kernel: traza import (raw + processed trace)  vs  traza import --no-process
# Usage: bench/formats.sh [TRAZA]   (data: $TRAZA_TEST_DATA or ../shared/data)
# Prints best-of-3 wall-clock seconds and the ratio traza/anchor.
set -u
cd "$(dirname "$0")/.."
TRAZA=$(realpath "${1:-build/traza}")
DATA=${TRAZA_TEST_DATA:-../shared/data}
TMP=$(mktemp -d /tmp/traza-bench-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. bench/best.sh
printf '%-42s %12s %12s %9s\n' "input" "traza" "anchor" "ratio"
if command -v babeltrace2 >/dev/null; then
  for d in lttng-tracefile-rotation/kernel multi-domains/ust trace-with-index; do
    p=$DATA/babeltrace-ctf/$d
    [ -d "$p" ] || continue
    t=$(best "$TRAZA" import "$p" --name bench) || exit 1
    a=$(best sh -c "babeltrace2 '$p' > /dev/null") || exit 1
    row "ctf $d" "$t" "$a"
  done
fi
for f in x_event_trace.json flow.json webview.json.gz; do
  p=$DATA/catapult/tracing-test_data/$f
  [ -f "$p" ] || continue
  t=$(best "$TRAZA" import "$p" --name bench) || exit 1
  a=$(best python3 -c "import json,gzip,sys; p=sys.argv[1]; json.load(gzip.open(p) if p.endswith('.gz') else open(p))" "$p") || exit 1
  row "chrome $f" "$t" "$a"
done
if command -v trc_pkt_lister >/dev/null; then
  mkdir -p "$TMP/scratch"   # trc_pkt_lister writes trc_pkt_lister.ppl into its cwd
  for d in snapshots/juno-uname-002 snapshots/TC2 snapshots-ete/ete_mem; do
    p=$(realpath "$DATA/opencsd/$d" 2>/dev/null) || continue
    t=$(best "$TRAZA" import "$p" --name bench) || exit 1
    a=$(best sh -c "cd '$TMP/scratch' && trc_pkt_lister -ss_dir '$p' -decode -logstdout > /dev/null") || exit 1
    row "etm $d" "$t" "$a"
  done
fi
p=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$p" ]; then
  t=$(best "$TRAZA" import "$p" --name bench) || exit 1
  a=$(best "$TRAZA" import "$p" --name bench --no-process) || exit 1
  row "ctf kernel: import+processed vs raw only" "$t" "$a"
fi
