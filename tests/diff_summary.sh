#!/usr/bin/env bash
# Prints the differential suite's table: one row per sample a test compared with its
# format's reference tool (tests/lib.sh: diff_row, check_diff), read from
# BUILD/differential/*.tsv; then per format and tool the samples and how many agree.
build=${1:?usage: tests/diff_summary.sh BUILD_DIR}
rows=$(cat "$build"/differential/*.tsv 2>/dev/null)
if [ -z "$rows" ]; then echo "   (no differential comparison ran)"; exit 0; fi
line='   %-10s %-26s %-56s %15s  %s\n'
printf "$line" format "reference tool" sample "events compared" result
printf '%s\n' "$rows" | awk -F'\t' -v line="$line" '{ printf line, $1, $2, $3, $4, $5 }'
echo "   per format and tool:"
printf '%s\n' "$rows" | awk -F'\t' '{ k = $1 "\t" $2; n[k]++; if ($5 == "agree") ok[k]++ }
  END { for (k in n) { split(k, f, "\t"); printf "   %-10s %-26s %d samples, %d agree\n", f[1], f[2], n[k], ok[k] + 0 } }' | sort
