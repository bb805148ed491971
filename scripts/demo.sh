#!/usr/bin/env bash
# make demo: the main job on bundled examples that the project itself makes:
# a generated trace (traza gen) plus the hand-written examples/demo.paje and
# examples/demo.kptrace. Imports them into a fresh demo workspace, writes the HTML
# report with SVG charts, and prints where it is.
set -euo pipefail
traza=${1:-build/traza}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/out/demo
rm -rf "$out"
mkdir -p "$out"
export TRAZA_WORKSPACE=$out/workspace
"$traza" import "$here/examples/demo.paje" --name board-paje
"$traza" import "$here/examples/demo.kptrace" --name kernel-kptrace
"$traza" gen --name generated --events 200000 --producers 24 --seed 42
"$traza" stats board-paje --svg "$out/board-types.svg" >/dev/null
"$traza" density generated --slices 80 --svg "$out/generated-density.svg" >/dev/null
"$traza" filter kernel-kptrace --type irq_entry --name irqs >/dev/null
"$traza" list
report=$("$traza" report board-paje kernel-kptrace generated -o "$out/report.html")
echo
echo "demo workspace: $TRAZA_WORKSPACE"
echo "charts:         $out/*.svg"
echo "report:         $report"
