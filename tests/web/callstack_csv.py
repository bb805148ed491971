#!/usr/bin/env python3
"""A call-stack trace as CSV (ts,end,type,producer,level) for the call-stack tests:
EVENTS calls over THREADS threads 'thread-K', each a run of root calls 'main_loop' whose
callees nest down to level 6. Deterministic (seeded). Usage: callstack_csv.py EVENTS THREADS"""
import random
import sys

FUNCS = ['parse_request', 'eval_query', 'hash_lookup', 'alloc_node', 'write_reply', 'compress_block', 'sort_keys']


def callees(r, t, level, budget, out, room):
    """Appends calls nested in [t, t + budget] at `level` to out (callers before their
    callees), at most room of them in all."""
    while budget > 0 and len(out) < room and level < 6 and r.random() < 0.8:
        dur = r.randint(10, max(10, budget // 2))
        gap = r.randint(1, 5)
        if dur + gap > budget:
            break
        start = t + gap
        name = FUNCS[r.randrange(len(FUNCS))] if level > 1 or r.random() < 0.5 else FUNCS[level % 3]
        out.append((start, start + dur, name, level))
        callees(r, start + 1, level + 1, dur - 2, out, room)
        t = start + dur
        budget -= dur + gap


n, threads = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(7)
lines = ['ts,end,type,producer,level']
for k in range(threads):
    want = n // threads + (n % threads if k == threads - 1 else 0)
    out, t = [], 1000 + k * 37
    while len(out) < want:
        dur = r.randint(2000, 20000)
        out.append((t, t + dur, 'main_loop', 0))
        callees(r, t + 1, 1, dur - 2, out, want)
        t += dur + r.randint(10, 500)
    lines.extend(f'{a},{b},{name},thread-{k},{level}' for a, b, name, level in out)
sys.stdout.write('\n'.join(lines) + '\n')
