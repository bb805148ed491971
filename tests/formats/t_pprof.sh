#!/usr/bin/env bash
# pprof export (gzip'd profile.proto): decoded with protoc against the exporter's own
# schema, each sample's stack and value equal the folded export's line and weight.
. tests/lib.sh
if ! command -v protoc >/dev/null; then
  skip "pprof export" "protoc (protobuf-compiler) is not installed"; exit 0
fi
# the profile as folded lines "a;b;c VALUE" (outermost first), sorted
as_folded() {
  gunzip -c "$1" | protoc --decode tzpprof.Profile --proto_path="$TRAZA_SRC/src/export" pprof_profile.proto | python3 -c '
import re, sys
strs, samples, locfn, fnname, block, cur = [], [], {}, {}, None, {}
for line in sys.stdin:
    s = line.strip()
    m = re.match(r"string_table: \"(.*)\"$", s)
    if m:
        strs.append(m.group(1).encode().decode("unicode_escape")); continue
    if line.startswith(("sample {", "location {", "function {")):
        block, cur = s[:-2], {"ids": []}; continue
    if line.startswith("}"):
        if block == "sample": samples.append(cur)
        elif block == "location": locfn[cur["id"]] = cur["function_id"]
        elif block == "function": fnname[cur["id"]] = cur["name"]
        block = None; continue
    m = re.match(r"(\w+): (-?\d+)$", s)
    if m and block:
        k, v = m.group(1), int(m.group(2))
        if k == "location_id": cur["ids"].append(v)
        else: cur[k] = v
out = []
for smp in samples:
    names = [strs[fnname[locfn[i]]] for i in reversed(smp["ids"])]
    out.append("%s %d" % (";".join(names), smp["value"]))
print("\n".join(sorted(out)))
print("sample_type=%s/%s" % tuple(strs[i] for i in (1, 2)))'
}
check_rc "import nested calls" 0 "$TRAZA" import "$TRAZA_SRC/tests/fixtures/callstack/calls.csv" --format csv --name calls --time-unit -6
check_rc "export pprof" 0 "$TRAZA" export calls --format pprof -o "$TMP/calls.pb.gz"
check_eq "pprof: gzip magic" "1f8b" "$(head -c 2 "$TMP/calls.pb.gz" | od -An -tx1 | tr -d ' \n')"
check_eq "pprof: samples = stacks with their self times, in the trace's unit" "main 100
main;a 30
main;a;b 10
main;b 10
sample_type=time/microseconds" "$(as_folded "$TMP/calls.pb.gz")"

U=$DATA/uftrace-redisgraph-aarch64/uftrace.data
if [ ! -d "$U" ]; then
  skip "pprof of the uftrace sample" "$U is absent"; exit 0
fi
check_rc "import the uftrace sample" 0 "$TRAZA" import "$U" --name u
check_rc "uftrace: export pprof" 0 "$TRAZA" export u --format pprof -o "$TMP/u.pb.gz"
check_rc "uftrace: export folded" 0 "$TRAZA" export u --format folded -o "$TMP/u.folded"
as_folded "$TMP/u.pb.gz" >"$TMP/u.pprof.folded"
check_eq "uftrace: the sample type" "sample_type=time/nanoseconds" "$(tail -1 "$TMP/u.pprof.folded")"
check_eq "uftrace: as many samples as folded lines" "$(wc -l <"$TMP/u.folded")" "$(head -n -1 "$TMP/u.pprof.folded" | wc -l)"
check_eq "uftrace: every sample's stack and value = the folded line's" "$(LC_ALL=C sort "$TMP/u.folded" | md5sum)" "$(head -n -1 "$TMP/u.pprof.folded" | LC_ALL=C sort | md5sum)"
