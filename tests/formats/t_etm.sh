# CoreSight snapshots: import by detection, `grammar compress --from-etm`, and the PC
# sequence against the DS-5 instruction listings of the TC2 snapshot (ETMv3 cores).
. tests/lib.sh
need_feature etm "ETM import"
O=$DATA/opencsd
if [ ! -d "$O/snapshots/TC2" ]; then skip "etm" "shared data absent"; exit 0; fi
OUT=$("$TRAZA" import "$O/snapshots/TC2" --json 2>"$TMP/err"); check_eq "etm: import TC2 (detected)" 0 "$?"
check_eq "etm: format" "etm" "$(printf '%s' "$OUT" | json_get format)"
check_eq "etm: TC2 imports every decoded element (no skip warning)" "" "$(cat "$TMP/err")"
check_rc "etm: ranges of cpu_0" 0 "$TRAZA" query TC2 --type instr_range --producer cpu_0 --count
check_eq "etm: cpu_0 range count (trc_pkt_lister ID 0x10)" "7205" "$OUT"
check_rc "etm: packet-only STM snapshot imports, no ranges" 0 "$TRAZA" import "$O/snapshots/stm_only" --json
check_eq "etm: stm_only events" "0" "$(printf '%s' "$OUT" | json_get events)"
for f in etmv3_0x10:cpu_0 etmv3_0x11:cpu_1 etmv3_0x12:cpu_2; do
  n=${f%%:*}; c=${f##*:}
  check_rc "etm: grammar compress --from-etm $c" 0 "$TRAZA" grammar compress -q --from-etm "$O/snapshots/TC2" --producer "$c" -o "$TMP/$c.tzg"
  "$TRAZA" grammar decompress "$TMP/$c.tzg" | sed 's/^0*//' > "$TMP/ours"
  grep '^Instruction' "$O/snapshots/TC2/ds5-dumps/$n.txt" | awk -F'\t' '{print tolower(substr($3,5))}' | sed 's/^0*//' > "$TMP/ds5"
  if cmp -s "$TMP/ours" "$TMP/ds5"; then pass "etm: $c PCs = DS-5 $n.txt ($(wc -l < "$TMP/ds5") instructions)"
  else fail "etm: $c PCs = DS-5 $n.txt" "$(diff "$TMP/ours" "$TMP/ds5" | head -5)"; fi
done
check_rc "etm: --from-etm with an input file is a usage error" 2 "$TRAZA" grammar compress x --from-etm "$O/snapshots/TC2" -o "$TMP/x.tzg"
mkdir -p "$TMP/nosnap"
check_rc "etm: not a snapshot" 1 "$TRAZA" grammar compress --from-etm "$TMP/nosnap" -o "$TMP/x.tzg"
check_contains "etm: not a snapshot error" "$OUT" "snapshot.ini: cannot open"
# A memory image that does not hold the bytes its [dump] section names: the error names
# the image file and the byte where it falls short, and nothing is imported.
mkdir -p "$TMP/short"
cp "$O/snapshots/TC2/"*.ini "$O/snapshots/TC2/"*.bin "$TMP/short/" && chmod u+w "$TMP/short/"*
head -c 1000 "$O/snapshots/TC2/kernel_dump.bin" > "$TMP/short/kernel_dump.bin"
check_rc "etm: memory image cut short fails" 1 "$TRAZA" import "$TMP/short" --format etm --name short
check_contains "etm: cut short image: file and offset" "$OUT" "$TMP/short/kernel_dump.bin: byte 1000: the memory image of [dump] in $TMP/short/cpu_0.ini needs 327680 bytes from byte 0, found 1000 (the file is cut short)"
check_rc "etm: cut short image: nothing imported" 1 "$TRAZA" info short
printf '[device]\nname=cpu_0\nclass=core\ntype=Cortex-A7\n\n[dump]\nfile=kernel_dump.bin\naddress=0xC0008000\noffset=400000\n' > "$TMP/short/cpu_0.ini"
cp "$O/snapshots/TC2/kernel_dump.bin" "$TMP/short/kernel_dump.bin"
check_rc "etm: memory image offset past its end fails" 1 "$TRAZA" import "$TMP/short" --format etm --name short
check_contains "etm: offset past the end: file and offset" "$OUT" "$TMP/short/kernel_dump.bin: byte 400000: the memory image of [dump] in $TMP/short/cpu_0.ini starts past the end of the file (327680 bytes)"
rm "$TMP/short/kernel_dump.bin"
check_rc "etm: missing memory image fails" 1 "$TRAZA" import "$TMP/short" --format etm --name short
check_contains "etm: missing image: the file and its section" "$OUT" "$TMP/short/kernel_dump.bin: cannot open the memory image of [dump] in $TMP/short/cpu_0.ini (No such file or directory)"
# A PTM (its type in the snapshot: PFT1.1) on a Cortex-A15 with Thumb-2 code, the buffer
# unformatted (source_data): every instruction range trc_pkt_lister -decode finds.
if [ -d "$O/snapshots/tc2-ptm-rstk-t32" ]; then
  check_rc "etm: import the PTM snapshot" 0 "$TRAZA" import "$O/snapshots/tc2-ptm-rstk-t32" --name ptm
  check_rc "etm: PTM ranges" 0 "$TRAZA" query ptm --type instr_range --producer Cortex-A15_0 --count
  check_eq "etm: PTM ranges = trc_pkt_lister's 53192" "53192" "$OUT"
  check_contains "etm: PTM protocol" "$("$TRAZA" info ptm)" "Cortex-A15_0.protocol = PTM"
  check_rc "etm: Thumb-2 ranges" 0 "$TRAZA" query ptm --type instr_range --where 'isa=T32' --count
  [ "${OUT:-0}" -gt 0 ] && pass "etm: the PTM ranges include T32 code ($OUT)" || fail "etm: the PTM ranges include T32 code" "$OUT"
fi
# Complete: every element OpenCSD decodes is an event (timestamps, PE contexts and cycle
# counts included), so --strict succeeds on every snapshot, with exact counts per type.
etm_counts() { # TRACE [PRODUCER]: "type=count ..." over every ETM event type
  local t out=""
  for t in instr_range exception exception_return trace_on no_sync end_of_trace addr_nacc timestamp pe_context cycle_count; do
    out="$out $t=$("$TRAZA" query "$1" --type $t ${2:+--producer "$2"} --count)"
  done
  printf '%s' "${out# }"
}
for s in "TC2:instr_range=18177 exception=0 exception_return=13 trace_on=412 no_sync=4 end_of_trace=5 addr_nacc=16 timestamp=106 pe_context=294 cycle_count=9235" \
         "juno-uname-002:instr_range=5815 exception=46 exception_return=38 trace_on=43 no_sync=44 end_of_trace=6 addr_nacc=15974 timestamp=0 pe_context=143 cycle_count=0" \
         "tc2-ptm-rstk-t32:instr_range=53192 exception=2 exception_return=0 trace_on=2 no_sync=1 end_of_trace=1 addr_nacc=0 timestamp=0 pe_context=1 cycle_count=0" \
         "stm_only:instr_range=0 exception=0 exception_return=0 trace_on=0 no_sync=0 end_of_trace=0 addr_nacc=0 timestamp=0 pe_context=0 cycle_count=0"; do
  n=${s%%:*}
  [ -d "$O/snapshots/$n" ] || { skip "etm: --strict $n" "snapshot absent"; continue; }
  check_rc "etm: --strict import of $n succeeds" 0 "$TRAZA" import "$O/snapshots/$n" --name "strict-$n" --strict
  check_eq "etm: $n counts per type" "${s#*:}" "$(etm_counts "strict-$n")"
done
# A second path: the snapshot's own trc_pkt_lister log of trace ID 0x13 (the PTM of
# cpu_3) lists each decoded element; the counts per kind match ours (the log's library
# predates the end-of-trace element, which it does not print).
L="$O/snapshots/TC2/pkt_proc_logs/trc_pkt_lister-dcd-0x13.ppl"
if [ -f "$L" ]; then
  lc() { grep -c "RCTDL_GEN_TRC_ELEM_$1(" "$L"; }
  want="instr_range=$(lc INSTR_RANGE) exception=$(lc EXCEPTION) exception_return=$(lc EXCEPTION_RET) trace_on=$(lc TRACE_ON) no_sync=$(lc NO_SYNC) end_of_trace=1 addr_nacc=$(lc ADDR_NACC) timestamp=$(lc TIMESTAMP) pe_context=$(lc PE_CONTEXT) cycle_count=$(lc CYCLE_COUNT)"
  check_eq "etm: TC2 cpu_3 counts per kind = trc_pkt_lister's log of ID 0x13" "$want" "$(etm_counts strict-TC2 cpu_3)"
  first_ts=$(grep -m1 -o 'RCTDL_GEN_TRC_ELEM_TIMESTAMP( \[ TS=0x[0-9a-f]*' "$L" | sed 's/.*TS=//')
  check_rc "etm: first timestamp of cpu_3" 0 "$TRAZA" query strict-TC2 --type timestamp --producer cpu_3 --limit 1 --json
  check_eq "etm: first timestamp of cpu_3 = the log's TS" "$((first_ts))" "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["params"]["timestamp"])')"
fi
# The axis of an ETM trace is executed instructions, not seconds: the trace says so
# (time.axis) and info, stats and list count instructions.
if [ -d "$O/snapshots/tc2-ptm-rstk-t32" ]; then
  INFO=$("$TRAZA" info ptm)
  check_contains "etm: info names the instruction axis" "$INFO" "time axis:   instructions"
  check_contains "etm: info span in instructions" "$INFO" "(+192073 instr from the start)"
  case "$INFO" in *" s"$'\n'*|*"10^0 s"*) fail "etm: info prints no seconds" "$INFO" ;; *) pass "etm: info prints no seconds" ;; esac
  STATS=$("$TRAZA" stats ptm)
  check_contains "etm: stats durations in instructions" "$STATS" "instr_range                      state            53192  99.99%     192073 instr"
  case "$STATS" in *" s"$'\n'*) fail "etm: stats prints no seconds" "$STATS" ;; *) pass "etm: stats prints no seconds" ;; esac
  check_contains "etm: list span in instructions" "$("$TRAZA" list)" "192073 instr"
fi
# Symbols: juno-uname-002's memory images are stripped ELF files (uname, libc, ld.so,
# vdso); their dynamic symbols name the function of each range's start. The traced
# ranges are in ld.so (loaded at 0x7f8e58f000): each named range lies inside the
# symbol `nm -D` gives for that name.
J=$O/snapshots/juno-uname-002
if [ -d "$J" ]; then
  check_rc "etm: import juno with symbols" 0 "$TRAZA" import "$J" --name juno-syms
  "$TRAZA" query juno-syms --type instr_range --regex 'function~.' --limit 0 --json > "$TMP/named.json"
  check_eq "etm: ranges per function" "__libc_memalign=52 _dl_debug_state=1 calloc=10 malloc=11" \
    "$(python3 -c 'import json,sys,collections; c=collections.Counter(e["params"]["function"] for e in json.load(open(sys.argv[1]))); print(" ".join("%s=%d" % kv for kv in sorted(c.items())))' "$TMP/named.json")"
  if command -v nm >/dev/null; then
    nm -D -S --defined-only "$J/ld-2.21.bin" | sed 's/@.*//' > "$TMP/ld.syms"
    bad=$(python3 - "$TMP/named.json" "$TMP/ld.syms" <<'PY'
import json, sys
syms = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 4:
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
for e in json.load(open(sys.argv[1])):
    off = int(e["params"]["start"], 16) - 0x7f8e58f000
    v, sz = syms.get(e["params"]["function"], (-1, 0))
    if not (v <= off < v + max(sz, 1)):
        print("range %s at ld+0x%x is not in nm's %s" % (e["id"], off, e["params"]["function"]))
PY
)
    check_eq "etm: every named range lies in nm's symbol of that name" "" "$bad"
  fi
  check_rc "etm: count the unnamed ranges" 0 "$TRAZA" query juno-syms --type instr_range --regex 'function!~.' --count
  check_eq "etm: unnamed ranges (ld.so's internal functions have no dynamic symbol)" "5741" "$OUT"
  # --elf: an ELF program at its link addresses, looked up before the images; built
  # here with functions covering ld.so's malloc/calloc/memalign at their load addresses.
  if command -v as >/dev/null && command -v ld >/dev/null; then
    printf '%s\n' '.text' '.globl a_memalign' '.type a_memalign,@function' 'a_memalign: .skip 0x114' '.size a_memalign, 0x114' \
      '.globl a_malloc' '.type a_malloc,@function' 'a_malloc: .skip 0xc' '.size a_malloc, 0xc' \
      '.globl a_calloc' '.type a_calloc,@function' 'a_calloc: .skip 0x34' '.size a_calloc, 0x34' > "$TMP/f.s"
    as "$TMP/f.s" -o "$TMP/f.o" && ld -o "$TMP/f.elf" -Ttext=0x7f8e5a3440 -e a_memalign "$TMP/f.o"
    check_rc "etm: import with --elf" 0 "$TRAZA" import "$J" --name juno-elf --elf "$TMP/f.elf"
    check_eq "etm: --elf names first, the images the rest" "_dl_debug_state=1 a_calloc=10 a_malloc=11 a_memalign=52" \
      "$("$TRAZA" query juno-elf --type instr_range --regex 'function~.' --limit 0 --json | python3 -c 'import json,sys,collections; c=collections.Counter(e["params"]["function"] for e in json.load(sys.stdin)); print(" ".join("%s=%d" % kv for kv in sorted(c.items())))')"
  fi
  check_rc "etm: --elf of a non-ELF file fails" 1 "$TRAZA" import "$J" --name juno-bad --elf "$J/trace.ini"
  check_contains "etm: --elf error" "$OUT" "$J/trace.ini: not an ELF file with function symbols"
fi
# Timestamps as time: TC2's ETMv3/PTM cores emit timestamps, so its axis is their
# counter (time.axis = ticks), and they are cycle-accurate: between two timestamps time
# follows the cycles at the core's rate (doc/formats/etm.md, "Time"). The rule is
# written again in etm_time_check.py, which recomputes every event's time from the
# trace's own timestamps and counts; with instruction interpolation alone 25886 of
# 28262 events would differ. cpu_0 (trace ID 0x10): trc_pkt_lister -decode gives its
# first timestamps TS=0x82f9d0cd3d (562536959293) and TS=0x82f9d0cf5f (562536959839).
# Its no_sync, decoded before any timestamp, holds T0; cpu_4 (no timestamp, no range)
# takes the trace's first one.
if [ -d "$O/snapshots/TC2" ]; then
  INFO=$("$TRAZA" info strict-TC2)
  check_contains "etm: TC2's axis is its timestamp counter" "$INFO" "time axis:   ticks"
  check_contains "etm: TC2 starts at its first timestamp" "$INFO" "start:       562536959293 (562536959293 ticks)"
  check_contains "etm: TC2 span in ticks" "$INFO" "(+52235 ticks from the start)"
  check_eq "etm: every event of TC2 timed by the rule of the documentation" "checked 28262 events on 5 cores, 0 differ" \
    "$("$TRAZA" query strict-TC2 --json --limit 10000000 | python3 "$TRAZA_SRC/tests/formats/etm_time_check.py" 2>&1 | tail -1)"
  check_contains "etm: the cycle rate of cpu_0 (an A7) is in info" "$INFO" "cpu_0.cycles_per_timestamp_tick = 14.7385"
  check_contains "etm: ... and that of cpu_3 (an A15)" "$INFO" "cpu_3.cycles_per_timestamp_tick = 50.129"
  tse() { "$TRAZA" query strict-TC2 "$@" --json | python3 -c 'import json,sys; print(" ".join("%s:%s-%s" % (e["type"], e["ts"], e.get("end_ts", "")) for e in json.load(sys.stdin)))'; }
  check_eq "etm: cpu_0's timestamps sit at their values" "timestamp:562536959293- timestamp:562536959839-" \
    "$(tse --type timestamp --producer cpu_0 --limit 2)"
  # cpu_0's one-instruction range at byte 30773 (a wait for interrupt) spread over the
  # 26114 ticks to the next timestamp by instruction count; its 1 cycle now lasts one
  # tick, and the 379976 cycles the I-sync after the trace-on carries take the time before
  check_eq "etm: a one-cycle range lasts a tick, not the 26114 ticks to the next timestamp" "instr_range:562537011315-562537011316" \
    "$(tse --type instr_range --producer cpu_0 --where index=30773)"
  check_eq "etm: the cycles of I-syncs and trace-ons are kept (pe_context, trace_on)" "272 136" \
    "$("$TRAZA" query strict-TC2 --type pe_context --where 'cycle_count>=0' --count) $("$TRAZA" query strict-TC2 --type trace_on --where 'cycle_count>=0' --count)"
  check_eq "etm: no_sync before the first timestamp holds it" "no_sync:562536959293-" "$(tse --type no_sync --producer cpu_0)"
  check_eq "etm: a core without timestamps takes the trace's first" "end_of_trace:562536959293-" "$(tse --producer cpu_4)"
  # With the counter's frequency, time is in nanoseconds: T * 10^9 / hz, rounded down
  # (562536959293 ticks at 24 MHz = 23439039970541.4 ns; the span 52235 ticks = 2.176458 ms)
  check_rc "etm: --timestamp-hz" 0 "$TRAZA" import "$O/snapshots/TC2" --name TC2-ns --timestamp-hz 24M
  INFO=$("$TRAZA" info TC2-ns)
  check_contains "etm: with a frequency, nanoseconds" "$INFO" "time unit:   10^-9 s"
  check_contains "etm: the first timestamp in nanoseconds" "$INFO" "start:       23439039970541 (23439.039970541 s)"
  check_contains "etm: the span in seconds" "$INFO" "(+2.17646 ms from the start)"
  check_contains "etm: the frequency kept" "$INFO" "etm.timestamp_hz = 24000000"
  check_contains "etm: the core clock the cycles imply (TC2's A15 runs at 1.2 GHz)" "$INFO" "cpu_3.cycle_hz = 1.2031e+09"
  check_eq "etm: in nanoseconds too, every event timed by the rule" "checked 28262 events on 5 cores, 0 differ" \
    "$("$TRAZA" query TC2-ns --json --limit 10000000 | python3 "$TRAZA_SRC/tests/formats/etm_time_check.py" 24000000 2>&1 | tail -1)"
  check_eq "etm: no ticks axis" "" "$(grep 'time axis' <<<"$INFO")"
  check_eq "etm: cpu_0's second timestamp at 562536959839 * 10^9 / 24e6" "timestamp:23439039993291-" \
    "$("$TRAZA" query TC2-ns --type timestamp --producer cpu_0 --limit 1 --offset 1 --json | python3 -c 'import json,sys; print(" ".join("%s:%s-%s" % (e["type"], e["ts"], e.get("end_ts", "")) for e in json.load(sys.stdin)))')"
fi
if [ -d "$O/snapshots/juno-uname-002" ]; then
  check_rc "etm: --timestamp-hz without timestamps fails" 2 "$TRAZA" import "$O/snapshots/juno-uname-002" --name juno-hz --timestamp-hz 1G
  check_contains "etm: why" "$OUT" "a timestamp counter frequency was given, but the trace has no timestamp: its time counts executed instructions"
fi
check_rc "--timestamp-hz on another format fails" 2 "$TRAZA" import "$TRAZA_SRC/examples/demo.paje" --name p-hz --timestamp-hz 1G
check_contains "--timestamp-hz: ETM only" "$OUT" "a timestamp counter frequency applies to ETM traces only, not to format 'paje'"
# DSTREAM-framed buffers (format=dstream_coresight): TC2's buffer rewritten as a DSTREAM
# probe stores a TPIU capture (frame syncs, 512-byte blocks ending in an 8-byte footer)
# imports to the same events as the original; a damaged frame sync is an error at its
# byte, with OpenCSD's message, and nothing is imported.
if [ -d "$O/snapshots/TC2" ]; then
  mkds() { # DIR [DAMAGED_OFFSET]
    rm -rf "$1"; cp -r "$O/snapshots/TC2" "$1" && chmod -R u+w "$1"
    sed -i 's/^format=coresight/format=dstream_coresight/' "$1/trace.ini"
    python3 - "$O/snapshots/TC2/cstrace.bin" "$1/cstrace.bin" ${2:-} <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
tp = bytearray()
for i in range(0, len(d), 16):
    if i % 128 == 0:
        tp += b"\xff\xff\xff\x7f"
    tp += d[i:i + 16]
out = bytearray()
for i in range(0, len(tp), 504):
    out += tp[i:i + 504]
    if len(tp[i:i + 504]) == 504:
        out += b"\xa5" * 8
for x in sys.argv[3:]:
    out[int(x)] = 0
open(sys.argv[2], "wb").write(out)
PY
  }
  mkds "$TMP/ds"
  check_rc "etm: import a DSTREAM-framed snapshot" 0 "$TRAZA" import "$TMP/ds" --name ds --strict
  check_eq "etm: DSTREAM counts per type = the memory-framed original's" "$(etm_counts strict-TC2)" "$(etm_counts ds)"
  if command -v trc_pkt_lister >/dev/null; then
    n=$(cd "$TMP" && trc_pkt_lister -ss_dir "$TMP/ds" -dstream_format -decode -logstdout | grep -c 'OCSD_GEN_TRC_ELEM_INSTR_RANGE(')
    check_eq "etm: DSTREAM ranges = trc_pkt_lister -dstream_format's" "$n" "$("$TRAZA" query ds --type instr_range --count)"
  else
    skip "etm: DSTREAM ranges against trc_pkt_lister" "trc_pkt_lister is not installed"
  fi
  mkds "$TMP/dsbad" 132
  check_rc "etm: a damaged frame sync fails" 1 "$TRAZA" import "$TMP/dsbad" --name dsbad
  check_contains "etm: damaged frame sync: file, byte and OpenCSD's error" "$OUT" \
    "$TMP/dsbad/cstrace.bin: byte 132: the decoder stopped: 0x0012 (OCSD_ERR_DFMTR_BAD_FHSYNC)"
  check_rc "etm: damaged frame sync: nothing imported" 1 "$TRAZA" info dsbad
  # a coresight (memory-framed) buffer holds whole 16-byte frames
  mkdir -p "$TMP/cut" && cp -r "$O/snapshots/TC2/." "$TMP/cut/" && chmod -R u+w "$TMP/cut"
  head -c 32760 "$O/snapshots/TC2/cstrace.bin" > "$TMP/cut/cstrace.bin"
  check_rc "etm: a partial frame fails" 1 "$TRAZA" import "$TMP/cut" --name cut
  check_contains "etm: partial frame: file and byte" "$OUT" \
    "$TMP/cut/cstrace.bin: byte 32752: 8 bytes after the last whole 16-byte formatter frame (a coresight buffer holds whole frames)"
fi
# Counts per type against trc_pkt_lister's decoded elements of the same snapshot, for
# every shared snapshot and the DSTREAM copy of TC2 (OCSD_GEN_TRC_ELEM_<KIND> lines).
lister_counts() { # DIR [LISTER OPTIONS...]: "type=count ..." as etm_counts prints them
  local d=$1 out="" k t n; shift
  (cd "$TMP" && trc_pkt_lister -ss_dir "$d" "$@" -decode -logstdout) > "$TMP/lister.txt"
  for k in INSTR_RANGE:instr_range EXCEPTION:exception EXCEPTION_RET:exception_return TRACE_ON:trace_on NO_SYNC:no_sync \
           EO_TRACE:end_of_trace ADDR_NACC:addr_nacc TIMESTAMP:timestamp PE_CONTEXT:pe_context CYCLE_COUNT:cycle_count; do
    n=$(grep -c "OCSD_GEN_TRC_ELEM_${k%%:*}(" "$TMP/lister.txt")
    out="$out ${k#*:}=$n"
  done
  printf '%s' "${out# }"
}
if command -v trc_pkt_lister >/dev/null; then
  for n in TC2 juno-uname-002 tc2-ptm-rstk-t32; do
    [ -d "$O/snapshots/$n" ] || { skip "etm: $n against trc_pkt_lister" "snapshot absent"; continue; }
    check_eq "etm: $n counts per type = trc_pkt_lister's elements" "$(lister_counts "$O/snapshots/$n")" "$(etm_counts "strict-$n")"
  done
  [ -d "$TMP/ds" ] && check_eq "etm: DSTREAM TC2 counts per type = trc_pkt_lister -dstream_format's" \
    "$(lister_counts "$TMP/ds" -dstream_format)" "$(etm_counts ds)"
  # A snapshot whose device files name memory images it does not ship decodes in both
  # tools once those [dump] sections are dropped: TC2 without kernel_dump.bin (every
  # range then an addr_nacc), and OpenCSD's DSTREAM capture of a Cortex-A55
  # (a55-test-tpiu, whose device1.ini names mem_Cortex-A57_0.bin).
  drop_missing_dumps() { # DIR
    python3 - "$1" <<'PY'
import os, re, sys
d = sys.argv[1]
for f in os.listdir(d):
    if not f.endswith(".ini"):
        continue
    secs = re.split(r"(?m)^(?=\[)", open(os.path.join(d, f)).read())
    keep = [s for s in secs if not (re.match(r"\[dump", s) and
            not os.path.exists(os.path.join(d, re.search(r"(?m)^file=(.*)$", s).group(1).strip())))]
    open(os.path.join(d, f), "w").write("".join(keep))
PY
  }
  if [ -d "$O/snapshots/TC2" ]; then
    rm -rf "$TMP/nomem" && cp -r "$O/snapshots/TC2" "$TMP/nomem" && chmod -R u+w "$TMP/nomem" && rm "$TMP/nomem/kernel_dump.bin"
    drop_missing_dumps "$TMP/nomem"
    check_rc "etm: import TC2 without its memory image" 0 "$TRAZA" import "$TMP/nomem" --name nomem
    check_eq "etm: TC2 without memory: counts per type = trc_pkt_lister's" "$(lister_counts "$TMP/nomem")" "$(etm_counts nomem)"
  fi
  A=$O/snapshots/a55-test-tpiu
  if [ -d "$A" ]; then
    rm -rf "$TMP/a55" && cp -r "$A" "$TMP/a55" && chmod -R u+w "$TMP/a55"
    drop_missing_dumps "$TMP/a55"
    check_rc "etm: import a55-test-tpiu (DSTREAM)" 0 "$TRAZA" import "$TMP/a55" --name a55
    check_eq "etm: a55-test-tpiu counts per type = trc_pkt_lister -dstream_format's" \
      "$(lister_counts "$TMP/a55" -dstream_format)" "$(etm_counts a55)"
  else
    skip "etm: a55-test-tpiu against trc_pkt_lister" "snapshot absent from the shared data"
  fi
else
  skip "etm: counts per type against trc_pkt_lister" "trc_pkt_lister is not installed"
fi
