#!/bin/bash
# trace-cmd .dat import against the reference tool: every record of `trace-cmd report
# -t` (ns timestamps) is one traza event of the same type, CPU and timestamp
# (sched_switch: a "running" state starting at the switch, of the task switched to;
# ftrace function: its function's name). Samples: $DATA/trace-cmd/*/*.dat.
. "$(dirname "$0")/../lib.sh"
need_feature trace-cmd "trace-cmd import"

# A .dat written by mkdat.py with every mapping: the exact events traza makes.
python3 "$(dirname "$0")/mkdat.py" "$TMP/syn.dat"
if out=$("$TRAZA" import --name syn "$TMP/syn.dat" 2>&1); then
  got=$("$TRAZA" query syn --csv --limit 0 | cut -d, -f2-4,6,8,10-)
  check_eq "mkdat.py .dat: states, levels, producers and parameters" "ts,end_ts,type,producer,level,cpu,params
1000000000,1000001000,running,CPU 0,0,0,comm=bash;pid=200;prio=120;prev_comm=swapper/0;prev_pid=0;prev_state=0
1000000000,1000001100,syscall,worker (100),0,0,id=3
1000000050,,sched_wakeup,<idle> (0),,1,comm=worker;pid=100;prio=120;target_cpu=0
1000000100,1000000500,syscall,bash (200),0,0,id=1
1000000200,1000000300,irq,CPU 0,0,0,irq=5;name=eth0
1000000350,1000000400,softirq,CPU 0,0,0,vec=3;name=NET_RX
1000000600,1000000800,func_a,bash (200),0,0,addr=0xffffffff81000100
1000000650,1000000700,func_b,bash (200),1,0,addr=0xffffffff81000200
1000000900,,function,bash (200),,0,ip=0xffffffff81000200;parent_ip=0xffffffff81000100;func=func_b;parent=func_a
1000000950,,sample_array,bash (200),,0,vals=0x1 0x2 0xabc;msg=hello
1000001000,1000001500,running,CPU 0,0,0,comm=worker;pid=100;prio=120;prev_comm=bash;prev_pid=200;prev_state=1
1000001200,1000001500,irq,CPU 0,0,0,irq=9;name=timer
1000001500,,function,<idle> (0),,1,ip=0xffffffff81000300;parent_ip=0xffffffff81000100;func=func_c;parent=func_a" "$got"
else
  fail "import mkdat.py .dat" "$out"
fi

if ! command -v trace-cmd >/dev/null; then
  skip "trace-cmd report comparison" "trace-cmd is not installed (apt-get install trace-cmd)"; exit 0
fi
shopt -s nullglob
files=("$DATA"/trace-cmd/*/*.dat)
if [ ${#files[@]} -eq 0 ]; then
  skip "trace-cmd report comparison" "no .dat file under $DATA/trace-cmd"; exit 0
fi

i=0
for f in "${files[@]}"; do
  i=$((i + 1))
  name="tc$i"
  base=${f#"$DATA"/}
  if ! out=$("$TRAZA" import --name "$name" "$f" 2>&1); then
    fail "import $base" "$out"; continue
  fi
  check_contains "import $base: detected as trace-cmd" "$out" "(trace-cmd)"
  trace-cmd report -t -i "$f" >"$TMP/report.txt" 2>/dev/null
  "$TRAZA" query "$name" --csv --limit 0 >"$TMP/traza.csv"
  res=$(python3 - "$TMP/report.txt" "$TMP/traza.csv" <<'PY'
import collections, csv, re, sys
line = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s*(.*)$')
# the report's events, as traza models them: (type, ts, cpu, detail)
ref, paired = [], collections.Counter()
for l in open(sys.argv[1]):
    m = line.match(l)
    if not m:
        continue
    ts = int(m.group(4)) * 10**9 + int(m.group(5))
    ev, rest = m.group(6), m.group(7)
    if ev == 'sched_switch':
        n = re.search(r'==> (.*):(\d+) \[', rest)
        ref.append(('running', ts, int(m.group(3)), '%s:%s' % (n.group(1), n.group(2))))
    elif re.match(r'(irq_handler|softirq|sys|funcgraph)_(entry|exit|enter)', ev):
        paired[ev] += 1
    elif ev == 'function':
        ref.append((ev, ts, int(m.group(3)), rest.split()[0]))
    else:
        ref.append((ev, ts, int(m.group(3)), ''))
got = []
for r in csv.DictReader(open(sys.argv[2])):
    p = dict(kv.split('=', 1) for kv in r['params'].split(';') if '=' in kv)
    d = '%s:%s' % (p.get('comm'), p.get('pid')) if r['type'] == 'running' else p.get('func', '') if r['type'] == 'function' else ''
    got.append((r['type'], int(r['ts']), int(r['cpu']), d))
cr = collections.Counter(e[0] for e in ref)
cg = collections.Counter(e[0] for e in got)
print('counts', len(ref), len(got))
print('types', ' '.join('%s:%d' % kv for kv in sorted(cr.items())), '|', ' '.join('%s:%d' % kv for kv in sorted(cg.items())))
print('same', sorted(ref) == sorted(got))
print('paired', ' '.join('%s:%d' % kv for kv in sorted(paired.items())))
PY
)
  counts=$(sed -n 's/^counts //p' <<<"$res"); set -- $counts
  if [ "${1:-0}" -gt 0 ] && [ "$1" == "${2:-}" ]; then pass "$base: $1 events, as trace-cmd report"; else fail "$base: event count" "report vs traza: $counts"; fi
  types=$(sed -n 's/^types //p' <<<"$res")
  check_eq "$base: events per type" "${types%% |*}" "${types##*| }"
  same=$(sed -n 's/^same //p' <<<"$res")
  check_eq "$base: every event's type, timestamp (ns), CPU and task/function" "True" "$same"
  if [ "${1:-0}" -gt 0 ] && [ "$1" == "${2:-}" ] && [ "$same" == True ]; then
    diff_row trace-cmd "trace-cmd report -t" "$base" "$1" agree
  else
    diff_row trace-cmd "trace-cmd report -t" "$base" "${1:-0} vs ${2:-0}" differ
  fi
  paired=$(sed -n 's/^paired //p' <<<"$res")
  [ -n "$paired" ] && skip "$base: entry/exit pairs ($paired)" "states made of pairs are not compared with the report"
done

# The CPU data cut short: an error naming the byte, and the workspace unchanged.
head -c 1000000 "${files[0]}" >"$TMP/cut.dat"
before=$("$TRAZA" list 2>&1)
check_rc "cut .dat fails" 1 "$TRAZA" import --format trace-cmd "$TMP/cut.dat"
check_contains "cut .dat: the error names the byte" "$OUT" "cut.dat: byte "
check_eq "cut .dat: the workspace is unchanged" "$before" "$("$TRAZA" list 2>&1)"
