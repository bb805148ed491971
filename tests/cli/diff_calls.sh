# Sourced by the tests of `traza diff` on call-stack traces (t_diff_calls.sh,
# t_diff_flame.sh): a generator of nested calls as CSV states.
# gen_calls FILE SEED BAR_SELF_NS NEW_PATH: 300 iterations on two threads of
# main(level 0) > foo(1) > bar(2) [> baz(2) after bar when NEW_PATH, else main > qux(1)]
gen_calls() {
  python3 - "$@" <<'PY'
import random, sys
path, seed, bar, new = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
r = random.Random(seed)
rows = []
for th in ("t0", "t1"):
    ts = 0
    for i in range(300):
        j = lambda m: int(m * r.uniform(0.9, 1.1))
        m0 = ts
        f0 = m0 + j(100)
        b0 = f0 + j(100)
        b1 = b0 + j(bar)
        f1 = b1
        if new:
            d = j(200)
            rows.append((b1, b1 + d, "baz", th, 2))
            f1 = b1 + d
        f1 += j(100)
        m1 = f1 + j(100)
        if not new:
            d = j(200)
            rows.append((m1, m1 + d, "qux", th, 1))
            m1 += d
        rows += [(m0, m1, "main", th, 0), (f0, f1, "foo", th, 1), (b0, b1, "bar", th, 2)]
        ts = m1 + 50
rows.sort(key=lambda x: (x[0], x[4]))
with open(path, "w") as f:
    f.write("t,e,kind,thread,lvl\n")
    for row in rows:
        f.write("%d,%d,%s,%s,%d\n" % row)
PY
}
# import_calls NAME SEED BAR_SELF_NS NEW_PATH: gen_calls into $TMP/NAME.csv, imported as NAME
import_calls() {
  gen_calls "$TMP/$1.csv" "$2" "$3" "$4"
  check_rc "import $1" 0 "$TRAZA" import "$TMP/$1.csv" --format csv --map ts=t,end=e,type=kind,producer=thread,level=lvl --name "$1"
}
