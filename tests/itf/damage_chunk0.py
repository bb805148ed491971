#!/usr/bin/env python3
"""Damages 8 bytes in the middle of chunk 0 of a .tzi and makes its frame checksum
right again, so that the damage reaches the stream decoders (which must report it).
   damage_chunk0.py IN.tzi OUT.tzi"""
import struct
import sys
import zlib

b = bytearray(open(sys.argv[1], "rb").read())
H = 16  # header size: the first frame is chunk 0 (u32 length, u32 crc32, payload)
n = struct.unpack_from("<I", b, H)[0]
for i in range(H + 8 + n // 2, H + 8 + n // 2 + 8):
    b[i] ^= 0xA5
struct.pack_into("<I", b, H + 4, zlib.crc32(bytes(b[H + 8:H + 8 + n])))
open(sys.argv[2], "wb").write(bytes(b))
