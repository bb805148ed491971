# CoreSight snapshots: import by detection, `grammar compress --from-etm`, and the PC
# sequence against the DS-5 instruction listings of the TC2 snapshot (ETMv3 cores).
. tests/lib.sh
O=$DATA/opencsd
if [ ! -d "$O/snapshots/TC2" ]; then skip "etm" "shared data absent"; exit 0; fi
OUT=$("$TRAZA" import "$O/snapshots/TC2" --json 2>"$TMP/err"); check_eq "etm: import TC2 (detected)" 0 "$?"
check_eq "etm: format" "etm" "$(printf '%s' "$OUT" | json_get format)"
check_contains "etm: the elements not imported are counted" "$(cat "$TMP/err")" "skipped 9635 decoded elements of other kinds"
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
