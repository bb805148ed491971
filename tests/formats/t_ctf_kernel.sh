# The processed trace of an LTTng kernel trace: built by `traza import`, rebuilt by
# `traza run ctf-kernel`, listed by `traza results`.
. tests/lib.sh
need_feature ctf "CTF kernel processing"
K=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ ! -d "$K" ]; then skip "ctf-kernel" "shared data absent"; exit 0; fi
check_rc "ctf-kernel: import builds the processed trace" 0 "$TRAZA" import "$K" --name rot
check_contains "ctf-kernel: import says so" "$OUT" "processed trace 'rot.processed'"
check_rc "ctf-kernel: results" 0 "$TRAZA" results rot
check_contains "ctf-kernel: results lists the processed trace" "$OUT" "-> rot.processed"
check_rc "ctf-kernel: processed trace info" 0 "$TRAZA" info rot.processed --json
check_eq "ctf-kernel: format" "ctf-kernel" "$(printf '%s' "$OUT" | json_get format)"
n1=$(printf '%s' "$OUT" | json_get events)
check_rc "ctf-kernel: run again" 0 "$TRAZA" run ctf-kernel rot
check_contains "ctf-kernel: run output" "$OUT" "processed trace 'rot.processed': $n1 events"
check_rc "ctf-kernel: still two traces" 0 "$TRAZA" list --json
check_eq "ctf-kernel: trace count" "2" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d if isinstance(d, list) else d["traces"]))')"
check_rc "ctf-kernel: another name" 0 "$TRAZA" run ctf-kernel rot --name rot.k2
check_rc "ctf-kernel: --no-process" 0 "$TRAZA" import "$K" --name raw --no-process
check_rc "ctf-kernel: nothing derived" 1 "$TRAZA" info raw.processed
