#!/usr/bin/env bash
# One naming and overwrite rule for every tool that saves a result (doc/analysis.md,
# "Names and replacing a result"): the same run again succeeds and writes the result
# anew; other options under a taken name fail (exit 1), leave the saved result as it
# was, and the CLI names the options that choose another name or replace it;
# --replace replaces it.
. "$(dirname "$0")/../lib.sh"
BUILD=${TRAZA_BUILD:-$(dirname "$TRAZA")}
MK=$BUILD/helpers/analysis/helper_mkgen
if [ ! -x "$MK" ]; then
  fail "replace" "missing $MK: run make tests"
  exit 0
fi
"$MK" "$TRAZA_WORKSPACE" paper paper || { fail "generate paper trace"; exit 0; }

# made_by RESULT: the "made by" line of results show
made_by() { "$TRAZA" results paper show "$1" | sed -n 2p | sed 's/, [0-9-]* [0-9:]*$//'; }

# rule TOOL NAME NAME_OPT "FIRST ARGS" "OTHER ARGS"
rule() {
  local tool=$1 name=$2 opt=$3 first=$4 other=$5
  check_rc "$tool: a first run" 0 "$TRAZA" $tool paper $first
  local before; before=$(made_by "$name")
  check_rc "$tool: the same run again succeeds" 0 "$TRAZA" $tool paper $first
  check_eq "$tool: and its result is the same run's" "$before" "$(made_by "$name")"
  check_rc "$tool: other options under the same name fail" 1 "$TRAZA" $tool paper $other
  check_contains "$tool: saying what made the saved one" "$OUT" "traza: a result named '$name' already exists, made by "
  check_contains "$tool: the CLI names the options" "$OUT" "; $opt NAME saves under another name, --replace replaces it"
  check_eq "$tool: the saved result is left as it was" "$before" "$(made_by "$name")"
  check_rc "$tool: --replace replaces it" 0 "$TRAZA" $tool paper $other --replace
  if [ "$(made_by "$name")" != "$before" ]; then pass "$tool: with the new options"; else fail "$tool: with the new options" "$before"; fi
}

rule anomaly "anomalies:a:duration" --save "--type a --rule mad" "--type a --rule sigma"
rule correlate "correlation:a~b" --save "--series a --with b --slices 4" "--series a --with b --slices 5"
rule correlate "rank:a" --save "--series a --rank --slices 4" "--series a --rank --slices 5"
rule aggregate "aggregate:occurrences:4" --save "--slices 4 --p 0.5" "--slices 4 --p 0.5 --normalize"
rule seqsearch "seq:a,b" --save "--pattern a,b" "--pattern a,b --max-gap 5"
check_contains "seqsearch: the exceptions are replaced with the instances" "$(made_by "seq:a,b:exceptions")" "max-gap=5"
rule filter "fs" --name "--type a --name fs" "--type b --name fs"

# a name holds the inputs that shape the result: another series, producer set or
# pattern is another name, never a refusal
check_rc "a producer set" 0 "$TRAZA" filter paper --producers --type a --name ps
check_rc "aggregate over it" 0 "$TRAZA" aggregate paper --slices 4 --p 0.5 --producers ps
check_contains "under its own name" "$("$TRAZA" results paper)" "aggregate:occurrences:4:ps"
check_rc "anomalies of another series" 0 "$TRAZA" anomaly paper --type b --rule sigma
check_contains "under its own name" "$("$TRAZA" results paper)" "anomalies:b:duration"

# the tools run by name (traza run) follow the same rule
check_rc "run filter: a taken name" 1 "$TRAZA" run filter paper --type c --name fs
check_contains "run: the CLI names --name" "$OUT" "; --name NAME saves under another name, --replace replaces it"
check_rc "run anomaly: a taken name" 1 "$TRAZA" run anomaly paper --type a --rule mad
check_contains "run: the CLI names --save" "$OUT" "; --save NAME saves under another name, --replace replaces it"
for c in anomaly correlate aggregate seqsearch; do
  check_rc "$c --help" 0 "$TRAZA" $c --help
  check_contains "$c --help states the rule" "$OUT" "the same run
              again writes its result anew (exit 0)"
done
