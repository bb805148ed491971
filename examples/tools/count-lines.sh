#!/bin/sh
# Example external tool for traza (see count-lines.tool).
greeting=hello; repeat=1; trace=; ws=
while [ $# -gt 0 ]; do
  case "$1" in
    --workspace) ws=$2; shift ;;
    --trace) trace=$2; shift ;;
    --greeting=*) greeting=${1#--greeting=} ;;
    --repeat=*) repeat=${1#--repeat=} ;;
    --fail) echo "asked to fail" >&2; exit 3 ;;
  esac
  shift
done
i=0
while [ "$i" -lt "$repeat" ]; do echo "$greeting $trace"; i=$((i + 1)); done
[ -d "$ws" ] || { echo "no workspace" >&2; exit 1; }
