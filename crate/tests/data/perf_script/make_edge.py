#!/usr/bin/env python3
"""Writes edge.perf.data: a file-mode perf.data of two unnamed events (cpu-clock
with call chains, cycles without), a 24-character COMM, an MMAP2, a thread first
seen in a sample, pid -1, a 130-frame chain (perf keeps 127), a chain with a
guest context marker (perf drops it), EXIT, times past 99999 s and a sample that
sorts first. edge.perf.data.script-ip.txt is perf 6.1.187's
`perf script -F comm,pid,tid,time,period,event,ip` of it.

  make_edge.py edge.perf.data
"""
import struct, sys
IP, TID, TIME, CALLCHAIN, PERIOD, IDENT = 1, 2, 4, 32, 256, 1 << 16
SID_ALL = 1 << 18
def attr(typ, config, st, flags):
    return struct.pack("<IIQQQQQIIQ", typ, 128, config, 4000, st, 0, flags, 0, 0, 0).ljust(128, b"\0")
st0 = IDENT | IP | TID | TIME | PERIOD | CALLCHAIN
st1 = IDENT | IP | TID | TIME | PERIOD
attrs = [(attr(1, 0, st0, SID_ALL | (1 << 20)), [1]), (attr(0, 0, st1, SID_ALL | (1 << 5) | (1 << 6) | (1 << 20)), [2])]
def rec(typ, misc, body):
    body = body + b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body
def trailer(pid, tid, time, ident):
    return struct.pack("<IIQQ", pid & 0xffffffff, tid & 0xffffffff, time, ident)
def cstr(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)
def sample(ident, ip, pid, tid, time, period, chain=None, misc=2):
    body = struct.pack("<QQIIQQ", ident, ip, pid & 0xffffffff, tid & 0xffffffff, time, period)
    if chain is not None:
        body += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
    return rec(9, misc, body)
USER, KERNEL = (-512) & (2**64 - 1), (-128) & (2**64 - 1)
t0 = 123456_789012345
data = b""
data += rec(3, 0, struct.pack("<II", 100, 100) + cstr("a-very-long-command-name") + trailer(100, 100, t0, 1))
data += rec(10, 2, struct.pack("<IIQQQIIQQII", 100, 100, 0x400000, 0x10000, 0x1000, 8, 1, 42, 0, 5, 2) + cstr("/usr/bin/foo") + trailer(100, 100, t0 + 1, 1))
data += sample(1, 0x401234, 100, 100, t0 + 10, 250000, [KERNEL, 0xffffffff81000010, USER, 0x401234, 0x402000, 0x7fff0000])
data += sample(2, 0x401000, 100, 101, t0 + 20, 7)
data += sample(2, 0x401000, -1, -1, t0 + 30, 12345678901)
data += sample(1, 0x401234, 100, 101, t0 + 40, 1, [USER, 0x403333, (-2048) & (2**64 - 1), 0x404444])
data += sample(1, 0x401234, 100, 100, 5_000_000_000, 1, [USER] + [0x400100 + i for i in range(130)])
data += rec(4, 0, struct.pack("<IIIIQ", 100, 100, 1, 1, t0 + 50) + trailer(100, 100, t0 + 50, 1))
data += sample(2, 0x401000, 100, 100, t0 + 60, 1)
data += rec(68, 0, b"")
attrs_off = 104
ids_off = attrs_off + len(attrs) * 144
ids_blob = b""
entries = b""
for a, ids in attrs:
    entries += a + struct.pack("<QQ", ids_off + len(ids_blob), 8 * len(ids))
    ids_blob += b"".join(struct.pack("<Q", i) for i in ids)
data_off = ids_off + len(ids_blob)
hdr = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, 144, attrs_off, len(entries), data_off, len(data), 0, 0) + b"\0" * 32
open(sys.argv[1], "wb").write(hdr + entries + ids_blob + data)
