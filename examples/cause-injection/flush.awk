# A trace with an injected cause, for the demo's anomaly detection and cause ranking
# (scripts/demo.sh): 60 s of a host where the network thread reads every 10 ms
# (about 1 ms each), the disk thread flushes every 5 s for 200 ms, and every read that
# starts during a flush stalls for about 30 ms. Timers, GC pauses, interrupts and log
# lines add events that have nothing to do with the stalls, so the ranking has
# something to rank. Deterministic (its own LCG).
#   awk -f flush.awk > flush.csv && traza import flush.csv --name flush
# CSV with a header naming traza's columns (doc/formats/import-csv.md): times in ns.
function rnd(n) { seed = (seed * 69069 + 1) % 4294967296; return int(seed / 4294967296 * n) }
function state(type, prod, ts, end) { printf "%.0f,%.0f,%s,%s\n", ts, end, type, prod }
function point(type, prod, ts) { printf "%.0f,,%s,%s\n", ts, type, prod }
BEGIN {
  seed = 42; ms = 1000000; end = 60000 * ms
  print "ts,end,type,producer"
  for (f = 2500 * ms; f < end; f += 5000 * ms) state("flush", "disk", f, f + 200 * ms)
  for (r = 3 * ms; r < end; r += 10 * ms) {
    off = (r - 2500 * ms) % (5000 * ms)
    stalled = r >= 2500 * ms && off < 200 * ms
    state("read", "net", r, r + (stalled ? 30 * ms : 1 * ms) + rnd(200000))
  }
  for (t = 370 * ms; t < end; t += 1000 * ms) point("timer", "cpu0", t)
  for (t = 1100 * ms; t < end; t += 7300 * ms) state("gc", "vm", t, t + 100 * ms)
  for (t = rnd(50 * ms); t < end; t += 1 + rnd(40 * ms)) point("irq", "cpu1", t)
  for (t = rnd(200 * ms); t < end; t += 1 + rnd(400 * ms)) point("log", "app", t)
}
