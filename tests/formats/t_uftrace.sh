# uftrace importer against the reference tool: the stored states must equal the
# entry/exit matching of `uftrace dump` (an entry closes open frames at its depth or
# deeper, an exit matches the open frame at its depth; unmatched exits count too).
. tests/lib.sh
D=$DATA/uftrace-redisgraph-aarch64/uftrace.data
if [ ! -d "$D" ]; then skip "uftrace redis import" "shared data absent"; exit 0; fi
OUT=$("$TRAZA" import "$D" --name redis --json 2>"$TMP/err"); rc=$?
check_eq "uftrace import" 0 "$rc"
states=$(printf '%s' "$OUT" | json_get categories.state)
check_contains "uftrace missing main thread noted" "$OUT" '"missing_tasks"'
check_contains "uftrace missing main thread warned" "$(cat "$TMP/err")" "skipped 1 tasks the recording lists without their record file (1072100)"
if ! command -v uftrace >/dev/null; then skip "uftrace dump comparison" "uftrace not installed"; exit 0; fi
want=$(uftrace dump -d "$D" 2>/dev/null | awk '
/\[(entry|exit )\]/ { tid=$2; sub(":","",tid); d=$NF+0; n=sp[tid]+0;
  if ($3=="[entry]") { while (n>0 && st[tid,n]>=d) n--; n++; st[tid,n]=d; c++ }
  else { while (n>0 && st[tid,n]>d) n--; if (n>0 && st[tid,n]==d) n--; else c++ }
  sp[tid]=n }
END { print c+0 }')
check_diff "uftrace states = uftrace dump entry/exit pairs" uftrace "uftrace dump" "${D#"$DATA"/}" "$want" "$states"
tids=$(uftrace dump -d "$D" 2>/dev/null | awk '/\[(entry|exit )\]/ {sub(":","",$2); print $2}' | sort -u | wc -l)
OUT=$("$TRAZA" info redis --json 2>/dev/null)
check_eq "uftrace producers = process + threads of uftrace dump" "$((tids + 1))" "$(printf '%s' "$OUT" | json_get producers)"
