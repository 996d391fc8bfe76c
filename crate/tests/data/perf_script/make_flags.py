#!/usr/bin/env python3
"""Writes flags.perf.data: the first 60 samples of the corpus's
cprog/cprog.brstack.perf.data with random branch flags (mispredicted, predicted,
in_tx, abort, cycles, every type and extended type), no feature sections.
flags.perf.data.script-brstack.txt is perf 6.1.187's `perf script -F ip,brstack`.

  make_flags.py cprog.brstack.perf.data flags.perf.data 60
"""
import struct, random, sys
src, dst, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', b, 40)
rnd = random.Random(7)
pos = data_off; n = 0
while pos < data_off + data_size and n < keep:
    typ, misc, size = struct.unpack_from('<IHH', b, pos)
    if typ == 9:
        off = pos + 8 + 8 * 5
        nr, = struct.unpack_from('<Q', b, off)
        for i in range(nr):
            v = rnd.getrandbits(34)
            if rnd.random() < 0.3: v &= ~(0xf << 20)
            if rnd.random() < 0.2: v |= (0xf << 20)
            struct.pack_into('<Q', b, off + 8 + 24 * i + 16, v)
        n += 1
    pos += size
struct.pack_into('<Q', b, 48, pos - data_off)   # data.size: the records kept
struct.pack_into('<QQQQ', b, 72, 0, 0, 0, 0)    # no feature sections
open(dst, 'wb').write(bytes(b[:pos]))
