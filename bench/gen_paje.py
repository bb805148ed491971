#!/usr/bin/env python3
"""Writes a synthetic Pajé trace with about N event lines (deterministic):
PajePushState/PajePopState pairs (nested two deep), PajeSetVariable and
PajeStartLink/PajeEndLink pairs over T thread containers in P process containers.
Usage: gen_paje.py N [THREADS] > file.paje"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 64
out = sys.stdout
out.write("""%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineVariableType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineLinkType 3
% Alias string
% Type string
% StartContainerType string
% EndContainerType string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 4
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajePushState 5
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePopState 6
% Time date
% Type string
% Container string
%EndEventDef
%EventDef PajeSetVariable 7
% Time date
% Type string
% Container string
% Value double
%EndEventDef
%EventDef PajeStartLink 8
% Time date
% Type string
% Container string
% Value string
% StartContainer string
% Key string
%EndEventDef
%EventDef PajeEndLink 9
% Time date
% Type string
% Container string
% Value string
% EndContainer string
% Key string
%EndEventDef
0 P 0 Process
0 T P Thread
1 S T "Thread State"
2 V T Load
3 L P T T Message
""")
procs = max(1, threads // 8)
for p in range(procs):
    out.write('4 0 p%d P 0 "process %d"\n' % (p, p))
for t in range(threads):
    out.write('4 0 t%d T p%d "thread %d"\n' % (t, t % procs, t))
states = ["Running", "Blocked", "Waiting", "Computing", "Sending"]
lines = []
written = procs + threads
step = 0
key = 0
tick = 0
# each round: per thread push, push, pop, pop, set variable (5 lines), and one link
# pair per 8 threads
while written < n:
    for t in range(threads):
        base = tick * 1000 + t
        a = states[(step + t) % 5]
        b = states[(step + t + 2) % 5]
        lines.append("5 %d.%06d S t%d %s\n" % (base // 1000000, base % 1000000, t, a))
        lines.append("5 %d.%06d S t%d %s\n" % ((base + 100) // 1000000, (base + 100) % 1000000, t, b))
        lines.append("6 %d.%06d S t%d\n" % ((base + 300) // 1000000, (base + 300) % 1000000, t))
        lines.append("6 %d.%06d S t%d\n" % ((base + 600) // 1000000, (base + 600) % 1000000, t))
        lines.append("7 %d.%06d V t%d %d.5\n" % ((base + 700) // 1000000, (base + 700) % 1000000, t, (step * 7 + t) % 1000))
        written += 5
        if t % 8 == 0:
            p = t % procs
            dst = (t + 8) % threads
            if dst % procs != p:
                dst = t
            lines.append("8 %d.%06d L p%d m t%d k%d\n" % ((base + 50) // 1000000, (base + 50) % 1000000, p, t, key))
            lines.append("9 %d.%06d L p%d m t%d k%d\n" % ((base + 800) // 1000000, (base + 800) % 1000000, p, dst, key))
            key += 1
            written += 2
    step += 1
    tick += 1
    if len(lines) > 100000:
        out.write("".join(lines))
        lines = []
out.write("".join(lines))
