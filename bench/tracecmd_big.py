#!/usr/bin/env python3
"""Writes a large trace-cmd .dat (format version 6) from a small real one: the
header (formats, kallsyms, cmdlines, options) is copied as is, and each CPU's
ring-buffer pages are repeated N times, every copy shifted later in time by the
source's span plus one second. The timestamps inside a page are deltas from the
page header's timestamp, so shifting the page header shifts the whole page; the
events stay the kernel's own records, decoded by libtraceevent as in the source.

usage: tracecmd_big.py SRC.dat OUT.dat MIN_BYTES
"""
import struct, sys

def parse(b):
    if b[:3] != b"\x17\x08\x44" or b[3:10] != b"tracing":
        sys.exit(f"{sys.argv[1]}: not a trace-cmd .dat file")
    v = b.index(b"\0", 10)
    if b[10:v] != b"6":
        sys.exit(f"{sys.argv[1]}: format version {b[10:v].decode()}: only version 6 is handled")
    p = v + 1
    if b[p] != 0:
        sys.exit(f"{sys.argv[1]}: big-endian files are not handled")
    long_size = b[p + 1]
    page = struct.unpack_from("<I", b, p + 2)[0]
    p += 6
    for tag in (b"header_page\0", b"header_event\0"):
        assert b[p:p + len(tag)] == tag, tag
        p += len(tag)
        n = struct.unpack_from("<Q", b, p)[0]
        p += 8 + n
    (n,) = struct.unpack_from("<I", b, p); p += 4            # ftrace formats
    for _ in range(n):
        (s,) = struct.unpack_from("<Q", b, p); p += 8 + s
    (systems,) = struct.unpack_from("<I", b, p); p += 4      # event formats
    for _ in range(systems):
        p = b.index(b"\0", p) + 1
        (n,) = struct.unpack_from("<I", b, p); p += 4
        for _ in range(n):
            (s,) = struct.unpack_from("<Q", b, p); p += 8 + s
    for fmt in ("<I", "<I", "<Q"):                           # kallsyms, printk, cmdlines
        (s,) = struct.unpack_from(fmt, b, p); p += struct.calcsize(fmt) + s
    (cpus,) = struct.unpack_from("<I", b, p); p += 4
    tag = b[p:p + 10]; p += 10
    if tag == b"options  \0":
        while True:
            (oid,) = struct.unpack_from("<H", b, p); p += 2
            if oid == 0:
                break
            (s,) = struct.unpack_from("<I", b, p); p += 4 + s
        tag = b[p:p + 10]; p += 10
    if tag != b"flyrecord\0":
        sys.exit(f"{sys.argv[1]}: section {tag!r}: only flyrecord data is handled")
    table = [struct.unpack_from("<QQ", b, p + 16 * c) for c in range(cpus)]
    return long_size, page, p, table

def main():
    src, out, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
    b = open(src, "rb").read()
    long_size, page, head_end, table = parse(b)
    stamps = [struct.unpack_from("<Q", b, off + k)[0]
              for off, size in table for k in range(0, size, page)]
    shift = (max(stamps) - min(stamps) + 1_000_000_000) if stamps else 0
    data = sum(size for _, size in table)
    copies = max(1, -(-want // max(data, 1)))
    start = head_end + 16 * len(table)
    start += -start % page
    offs, pos = [], start
    for _, size in table:
        offs.append(pos)
        pos += size * copies
    with open(out, "wb") as f:
        f.write(b[:head_end])
        for (_, size), o in zip(table, offs):
            f.write(struct.pack("<QQ", o, size * copies))
        f.write(b"\0" * (start - f.tell()))
        for off, size in table:
            pages = [bytearray(b[off + k:off + k + page]) for k in range(0, size, page)]
            for c in range(copies):
                for pg in pages:
                    ts = struct.unpack_from("<Q", pg, 0)[0]
                    f.write(struct.pack("<Q", ts + c * shift) + pg[8:])
    print(f"{out}: {copies} copies of {src} ({len(table)} CPUs, page {page} B), {pos} bytes")

main()
