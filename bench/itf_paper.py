#!/usr/bin/env python3
"""Writes the ITFComp paper's text ITF from a generated ITF (stdin -> stdout), for the
paper-dialect benchmark and tests: one line per instruction,
  0xPC MNEMONIC [-noexec] [-res REG] [-par REG:0xVALUE]... [-target 0xADDR]
- MNEMONIC: the instruction's first word; -noexec when the line is CCFAIL;
- -res: the first operand when it is a register the instruction writes (not stores,
  compares or branches);
- -par: one per data address of the line, named by the base register of its memory
  operand (sp for push/pop);
- -target: the target of a direct branch (its '#0x...' operand)."""
import re
import sys

REG = re.compile(r'^(r\d+|sb|sl|fp|ip|sp|lr|pc)$')
NOWRITE = ('str', 'stm', 'push', 'cmp', 'cmn', 'tst', 'teq', 'b', 'bl', 'bx', 'blx', 'cbz', 'cbnz', 'it', 'nop')

for line in sys.stdin:
    line = line.rstrip('\n')
    if not line.startswith('0x') or len(line) < 12:
        print(line)
        continue
    pc, rest = line[:10], line[11:]
    ccfail = rest.endswith(' CCFAIL')
    if ccfail:
        rest = rest[:-7]
    mems = re.findall(r' mem=0x([0-9a-f]{8})', rest)
    rest = re.sub(r' mem=0x[0-9a-f]{8}', '', rest)
    words = rest.split(None, 1)
    mn = words[0] if words else '?'
    ops = words[1] if len(words) > 1 else ''
    out = [pc, mn]
    if ccfail:
        out.append('-noexec')
    first = ops.split(',')[0].strip().strip('{}')
    base = mn.split('.')[0]
    if REG.match(first) and not base.startswith(NOWRITE):
        out += ['-res', first]
    m = re.search(r'\[(\w+)', ops)
    reg = m.group(1) if m else 'sp'
    for a in mems:
        out.append('-par %s:0x%s' % (reg, a))
    t = re.search(r'#0x([0-9a-f]+)$', ops)
    if t and base.startswith(('b', 'cb')):
        out.append('-target 0x%08x' % int(t.group(1), 16))
    print(' '.join(out))
