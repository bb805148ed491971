#!/usr/bin/env python3
"""Writes a small trace-cmd .dat (file version 6, little-endian, 64-bit longs, two
CPUs) whose records exercise every mapping of the trace-cmd importer: sched_switch,
irq/softirq entry and exit, raw syscalls, function-graph entries and exits, function,
and generic events with char-array, __data_loc string and numeric-array fields.
Usage: mkdat.py OUT.dat. The records are listed in RECORDS; t_tracecmd.sh states the
events traza makes of them."""
import struct
import sys

BASE = 1_000_000_000
COMMON = """\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;
"""

# name: (id, [(decl, offset, size, signed)], print fmt, struct layout of the fields)
EVENTS = {
    'ftrace': {
        'function': (1, [('unsigned long ip', 8, 8, 0), ('unsigned long parent_ip', 16, 8, 0)],
                     '" %ps <-- %ps", (void *)REC->ip, (void *)REC->parent_ip'),
        'funcgraph_entry': (11, [('unsigned long func', 8, 8, 0), ('int depth', 16, 4, 1)],
                            '"--> %ps (%d)", (void *)REC->func, REC->depth'),
        'funcgraph_exit': (10, [('unsigned long func', 8, 8, 0), ('int depth', 16, 4, 1), ('unsigned int overrun', 20, 4, 0),
                                ('unsigned long long calltime', 24, 8, 0), ('unsigned long long rettime', 32, 8, 0)],
                           '"<-- %ps (%d) (start: %llx  end: %llx) over: %d", (void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth'),
    },
    'sched': {
        'sched_switch': (300, [('char prev_comm[16]', 8, 16, 0), ('pid_t prev_pid', 24, 4, 1), ('int prev_prio', 28, 4, 1),
                               ('long prev_state', 32, 8, 1), ('char next_comm[16]', 40, 16, 0), ('pid_t next_pid', 56, 4, 1),
                               ('int next_prio', 60, 4, 1)],
                         '"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%ld ==> next_comm=%s next_pid=%d next_prio=%d", '
                         'REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state, REC->next_comm, REC->next_pid, REC->next_prio'),
        'sched_wakeup': (301, [('char comm[16]', 8, 16, 0), ('pid_t pid', 24, 4, 1), ('int prio', 28, 4, 1), ('int target_cpu', 32, 4, 1)],
                         '"comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu'),
    },
    'irq': {
        'irq_handler_entry': (400, [('int irq', 8, 4, 1), ('__data_loc char[] name', 12, 4, 1)],
                              '"irq=%d name=%s", REC->irq, __get_str(name)'),
        'irq_handler_exit': (401, [('int irq', 8, 4, 1), ('int ret', 12, 4, 1)], '"irq=%d ret=%s", REC->irq, REC->ret ? "handled" : "unhandled"'),
        'softirq_entry': (402, [('unsigned int vec', 8, 4, 0)], '"vec=%u", REC->vec'),
        'softirq_exit': (403, [('unsigned int vec', 8, 4, 0)], '"vec=%u", REC->vec'),
    },
    'raw_syscalls': {
        'sys_enter': (500, [('long id', 8, 8, 1), ('unsigned long args[6]', 16, 48, 0)],
                      '"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)", REC->id, REC->args[0], REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]'),
        'sys_exit': (501, [('long id', 8, 8, 1), ('long ret', 16, 8, 1)], '"NR %ld = %ld", REC->id, REC->ret'),
    },
    'sample': {
        'sample_array': (600, [('unsigned int vals[3]', 8, 12, 0), ('__data_loc char[] msg', 20, 4, 1)],
                         '"vals=%s msg=%s", __print_array(REC->vals, 3, 4), __get_str(msg)'),
    },
}
ID = {n: v[0] for s in EVENTS.values() for n, v in s.items()}
SYMS = {'func_a': 0xffffffff81000100, 'func_b': 0xffffffff81000200, 'func_c': 0xffffffff81000300}


def fmt(name, ev):
    i, fields, pf = ev
    body = ''.join('\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n' % f for f in fields)
    return ('name: %s\nID: %d\nformat:\n%s\n%s\nprint fmt: %s\n' % (name, i, COMMON, body, pf)).encode()


def comm(s):
    return s.encode().ljust(16, b'\0')


def dloc(payload_len, data):
    """A __data_loc word for data placed at payload_len, and the padded data."""
    return struct.pack('<I', (len(data) << 16) | payload_len), data


def rec(name, pid, *fields):
    head = struct.pack('<HBBi', ID[name], 0, 0, pid)
    return head + b''.join(fields)


def irq_entry(pid, irq, name):
    s = name.encode() + b'\0'
    loc, d = dloc(16, s)
    return rec('irq_handler_entry', pid, struct.pack('<i', irq), loc, d)


def sample_array(pid, vals, msg):
    s = msg.encode() + b'\0'
    loc, d = dloc(24, s)
    return rec('sample_array', pid, struct.pack('<3I', *vals), loc, d)


def switch(prev, ppid, nxt, npid, state=1):
    return rec('sched_switch', ppid, comm(prev), struct.pack('<iiq', ppid, 120, state), comm(nxt), struct.pack('<ii', npid, 120))


# (cpu, ns after BASE, record bytes)
RECORDS = [
    (0, 0, switch('swapper/0', 0, 'bash', 200, 0)),
    (0, 100, rec('sys_enter', 200, struct.pack('<q6Q', 1, 3, 0, 0, 0, 0, 0))),
    (0, 200, irq_entry(200, 5, 'eth0')),
    (0, 300, rec('irq_handler_exit', 200, struct.pack('<ii', 5, 1))),
    (0, 350, rec('softirq_entry', 200, struct.pack('<I', 3))),
    (0, 400, rec('softirq_exit', 200, struct.pack('<I', 3))),
    (0, 500, rec('sys_exit', 200, struct.pack('<qq', 1, 0))),
    (0, 600, rec('funcgraph_entry', 200, struct.pack('<Qi', SYMS['func_a'], 0))),
    (0, 650, rec('funcgraph_entry', 200, struct.pack('<Qi', SYMS['func_b'], 1))),
    (0, 700, rec('funcgraph_exit', 200, struct.pack('<QiIQQ', SYMS['func_b'], 1, 0, BASE + 650, BASE + 700))),
    (0, 800, rec('funcgraph_exit', 200, struct.pack('<QiIQQ', SYMS['func_a'], 0, 0, BASE + 600, BASE + 800))),
    (0, 900, rec('function', 200, struct.pack('<QQ', SYMS['func_b'], SYMS['func_a']))),
    (0, 950, sample_array(200, (1, 2, 0xabc), 'hello')),
    (0, 1000, switch('bash', 200, 'worker', 100)),
    (0, 1100, rec('sys_exit', 100, struct.pack('<qq', 3, 0))),
    (0, 1200, irq_entry(100, 9, 'timer')),
    (1, 50, rec('sched_wakeup', 0, comm('worker'), struct.pack('<iii', 100, 120, 0))),
    (1, 1500, rec('function', 0, struct.pack('<QQ', SYMS['func_c'], SYMS['func_a']))),
]


def page(records):
    out = b''
    prev = BASE
    for _, t, data in records:
        data = data + b'\0' * (-len(data) % 4)
        assert 4 <= len(data) <= 112
        delta = BASE + t - prev
        assert delta < (1 << 27)
        prev = BASE + t
        out += struct.pack('<I', (len(data) // 4) | (delta << 5)) + data
    assert len(out) <= 4096 - 16
    return (struct.pack('<QQ', BASE, len(out)) + out).ljust(4096, b'\0')


def main(path, unknown=False):
    u32, u64 = (lambda v: struct.pack('<I', v)), (lambda v: struct.pack('<Q', v))
    hp = (b'\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n'
          b'\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n')
    he = (b'# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n'
          b'\tpadding     : type == 29\n\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n')
    out = b'\x17\x08\x44tracing6\0' + bytes([0, 8]) + u32(4096)
    out += b'header_page\0' + u64(len(hp)) + hp + b'header_event\0' + u64(len(he)) + he
    ft = [fmt(n, e) for n, e in EVENTS['ftrace'].items()]
    out += u32(len(ft)) + b''.join(u64(len(f)) + f for f in ft)
    systems = [s for s in EVENTS if s != 'ftrace']
    out += u32(len(systems))
    for s in systems:
        fs = [fmt(n, e) for n, e in EVENTS[s].items()]
        out += s.encode() + b'\0' + u32(len(fs)) + b''.join(u64(len(f)) + f for f in fs)
    ks = ''.join('%x T %s\n' % (a, n) for n, a in SYMS.items()).encode()
    out += u32(len(ks)) + ks + u32(0)
    cl = b'100 worker\n200 bash\n'
    out += u64(len(cl)) + cl + u32(2) + b'flyrecord\0'
    data_at = (len(out) + 32 + 4095) // 4096 * 4096
    out += u64(data_at) + u64(4096) + u64(data_at + 4096) + u64(4096)
    out = out.ljust(data_at, b'\0')
    records = RECORDS + ([(1, 1600, struct.pack('<HBBi', 999, 0, 0, 0))] if unknown else [])
    for cpu in (0, 1):
        out += page([r for r in records if r[0] == cpu])
    open(path, 'wb').write(out)


if __name__ == '__main__':
    # 'unknown': one more record of an event id that the file does not describe.
    main(sys.argv[1], sys.argv[2:] == ['unknown'])
