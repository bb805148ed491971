"""Recomputes the time of every event of an imported ETM trace from its own events
(timestamps, instruction counts, cycle counts) by the rule of doc/formats/etm.md
("Time"), written again here from the document, and prints the events whose time
differs (at most 5) and a summary line: `checked N events on C cores, M differ`.

usage: traza query T --json --limit 10000000 | python3 etm_time_check.py [HZ]
HZ: the timestamp counter's frequency the trace was imported with (0: ticks)."""
import json
import math
import sys

hz = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
events = json.load(sys.stdin)
cores = {}
for e in events:  # ids follow time, and a core's elements are in decoding order
    cores.setdefault(e["producer"], []).append(e)


def cycles_of(e):
    p = e["params"]
    return int(p.get("cycles" if e["type"] == "cycle_count" else "cycle_count", 0))


def ts_value(raw):
    return raw if hz <= 0 else int(raw * 10**9 // int(hz)) if hz == int(hz) else int(raw * 1e9 / hz)


# first pass: anchors (instr, cycles, ts), and per segment: cycle-accurate, rest_from
anchors = {}
first = None
for core, evs in cores.items():
    a, instr, cyc, nocc, on = [], 0, 0, 0, None
    for ord_, e in enumerate(evs):
        cyc += cycles_of(e)
        if e["type"] == "instr_range":
            instr += int(e["params"]["ninstr"])
            nocc += "cycle_count" not in e["params"]
        elif e["type"] == "trace_on":
            on = ord_
        elif e["type"] == "timestamp":
            ts = ts_value(int(e["params"]["timestamp"]))
            if a:
                ts = max(ts, a[-1]["ts"])
                a[-1]["by_cycles"] = nocc == 0 and cyc > a[-1]["cycles"]
                a[-1]["rest_from"] = on if on is not None else ord_
            a.append({"instr": instr, "cycles": cyc, "ts": ts, "by_cycles": False, "rest_from": 0})
            nocc, on = 0, None
            first = ts if first is None else min(first, ts)
    anchors[core] = a


def rate(a):
    steps = [a[k + 1]["ts"] - a[k]["ts"] for k in range(len(a) - 1)]
    step = min([d for d in steps if d > 0], default=0)
    best = anyr = 0.0
    for k, d in enumerate(steps):
        if not a[k]["by_cycles"] or d <= 0:
            continue
        r = float(a[k + 1]["cycles"] - a[k]["cycles"]) / float(d)
        anyr = max(anyr, r)
        if d >= 16 * step:
            best = max(best, r)
    return best if best > 0 else anyr


def time_at(a, r, seen, instr, cyc, ord_):
    if not a:
        return first
    if seen == 0:
        return a[0]["ts"]
    if seen == len(a):
        return a[-1]["ts"]
    p, q = a[seen - 1], a[seen]
    dt = q["ts"] - p["ts"]
    if p["by_cycles"]:
        dc = q["cycles"] - p["cycles"]
        x = min(max(cyc - p["cycles"], 0), dc)
        busy = float(dc) / r if r > 0 else math.inf
        if busy >= float(dt):
            return p["ts"] + dt * x // dc
        off = float(x) / r + (float(dt) - busy if ord_ >= p["rest_from"] else 0.0)
        return p["ts"] + min(int(math.floor(off)), dt)
    if instr <= p["instr"] or q["instr"] == p["instr"]:
        return p["ts"]
    di = q["instr"] - p["instr"]
    return p["ts"] + dt * min(instr - p["instr"], di) // di


bad = []
for core, evs in cores.items():
    a = anchors[core]
    r = rate(a)
    instr = cyc = seen = 0
    for ord_, e in enumerate(evs):
        if e["type"] == "instr_range":
            ts = time_at(a, r, seen, instr, cyc, ord_)
            instr += int(e["params"]["ninstr"])
            cyc += cycles_of(e)
            end = time_at(a, r, seen, instr, cyc, ord_)
        else:
            cyc += cycles_of(e)
            if e["type"] == "timestamp" and seen < len(a):
                seen += 1
            ts = end = time_at(a, r, seen, instr, cyc, ord_)
        got = (e["ts"], e.get("end_ts", e["ts"]))
        if got != (ts, end):
            bad.append("%s id %d %s: %s, rule: %s" % (core, e["id"], e["type"], got, (ts, end)))
for b in bad[:5]:
    print(b)
print("checked %d events on %d cores, %d differ" % (len(events), len(cores), len(bad)))
