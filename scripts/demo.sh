#!/usr/bin/env bash
# make demo: the whole path of traza on inputs this script makes itself, each step
# printed with the commands it runs, for a new user to read top to bottom.
#   bash scripts/demo.sh [TRAZA [OUT]]     (default build/traza, out/demo)
# OUT (also $TRAZA_DEMO_OUT) is emptied and receives every file and the workspace.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/traza}
out=${2:-${TRAZA_DEMO_OUT:-$here/out/demo}}
[ -x "$bin" ] || { echo "demo: $bin is not an executable (run make first)" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
build=$(dirname "$bin")
ex=$here/examples
# OUT is emptied only when it is a former demo's folder (it holds .traza-demo) or empty.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -e "$out/.traza-demo" ]; then
  echo "demo: $out is not empty and not a demo folder: give another one" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$out"
: >.traza-demo
export TRAZA_WORKSPACE=$out/workspace
# A failing command stops the demo (set -e, also inside the helpers: set -E), naming it.
trap 'echo "demo: FAILED (exit status $?): ${current:-line $LINENO}" >&2' ERR
current=

traza() { "$bin" "$@"; }
# step TITLE: a header line saying what the step shows
step() { printf '\n== %s\n' "$*"; }
# run CMD...: print the command, then run it
run() {
  current="$*"
  printf '$ %s\n' "$current"
  "$@"
  current=
}
# run_to FILE CMD...: the same, its output into FILE
run_to() {
  local f=$1
  shift
  current="$* > $f"
  printf '$ %s\n' "$current"
  "$@" >"$f"
  current=
}
# run_head N CMD...: the same, printing only the first N lines of its output
run_head() {
  local n=$1 text
  shift
  current="$*"
  printf '$ %s\n' "$current"
  text=$("$@")
  current=
  printf '%s\n' "$text" | sed -n "1,${n}p"
  local total
  total=$(printf '%s\n' "$text" | wc -l)
  [ "$total" -le "$n" ] || echo "  ... ($((total - n)) more lines)"
}

traces=(sensor)
echo "traza demo: every input below is made by this script; files in $out"

step "1. Record a C program with the tracer, show its flat profile (examples/demo-program/sensor.c)"
echo "-pg -mfentry puts a hook at the entry of every function; traza record preloads the runtime"
echo "that records each entry and exit, then imports the dump with the names from the DWARF."
run gcc -g -O1 -fno-inline -pg -mfentry -o sensor "$ex/demo-program/sensor.c"
run traza record -o sensor.tzr --import sensor -- ./sensor 200
run traza callstack sensor --top 7

step "2. Record a Cortex-M3 firmware under qemu-system-arm (rt/tests/cm3/firmware.c), show its flat profile"
fw=$build/rt/cm3/firmware.elf
if ! command -v qemu-system-arm >/dev/null; then
  echo "skipped: qemu-system-arm is not installed (Debian package qemu-system-arm)"
elif [ ! -f "$fw" ]; then
  echo "skipped: $fw was not built (arm-none-eabi-gcc is not installed: Debian package gcc-arm-none-eabi)"
else
  cp "$fw" firmware.elf
  run timeout 60 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel firmware.elf
  echo "the firmware wrote its trace buffer to traza-rt.tzr through semihosting ($(wc -c <traza-rt.tzr) bytes)"
  current="TRAZA_RT_EXE=firmware.elf traza import --name firmware traza-rt.tzr"
  echo "\$ $current"
  TRAZA_RT_EXE=firmware.elf traza import --name firmware traza-rt.tzr
  current=
  run traza callstack firmware --top 7
  traces+=(firmware)
fi

step "3. Import the bundled Pajé and KPTrace examples (the format is detected from the content)"
run traza import "$ex/demo.paje" --name board
run traza import "$ex/demo.kptrace" --name kernel
run traza list

step "4. Make the instruction trace of a Cortex-M firmware's main loop (examples/firmware-trace/itf.awk)"
run_to firmware.itf awk -f "$ex/firmware-trace/itf.awk"
echo "firmware.itf: $(wc -l <firmware.itf) instructions, $(wc -c <firmware.itf) bytes; its lines look like:"
sed -n 36,38p firmware.itf

step "5. ITFComp: compress the instruction trace, then extract 6 instructions from its middle"
run_head 2 traza itf compress firmware.itf -o firmware.tzi
run traza itf extract firmware.tzi --from 82000 --count 6 -o middle.itf
cat middle.itf
if cmp -s middle.itf <(sed -n 82001,82006p firmware.itf); then
  echo "the same 6 lines as lines 82001-82006 of firmware.itf, read without decompressing the file"
else
  echo "demo: the extract differs from lines 82001-82006 of firmware.itf" >&2
  exit 1
fi

step "6. Cyclitur: compress the firmware's PC trace into a grammar, its cycles and anomalies"
run_to firmware.pc cut -c3-10 firmware.itf
echo "firmware.pc: one instruction address per line; the firmware's main loop starts at 0x504"
# In the workspace folder, the grammar is listed by `traza serve` as well.
run traza grammar compress firmware.pc -o workspace/firmware.tzg --algo cyclitur --loop-header 504
run traza grammar cycles workspace/firmware.tzg
echo "C1 is the plain loop, C2 the loop with the SysTick interrupt, C3 the iterations whose CRC"
echo "check failed (they call log_error), C4 the start-up code before the loop."
run traza grammar anomalies workspace/firmware.tzg --top 3

step "7. Anomaly detection and cause ranking on a trace with an injected cause (examples/cause-injection/flush.awk)"
run_to flush.csv awk -f "$ex/cause-injection/flush.awk"
run traza import flush.csv --format csv --name flush
run_head 8 traza anomaly flush --type read --producer net --rule mad --svg anomalies.svg
run traza correlate flush --series anomalies:read@net:duration --rank
echo "flush@disk ranks first: the reads that stall are those that start while the disk flushes."

step "8. Write the HTML report (self-contained: inline SVG charts, opens offline)"
run traza report "${traces[@]}" board kernel flush -o report.html

step "9. Open all of it in the web UI"
echo "workspace: $TRAZA_WORKSPACE"
echo "run this, then open http://127.0.0.1:8080/ in a browser (Ctrl-C stops it):"
echo "  $bin serve -w $TRAZA_WORKSPACE"
