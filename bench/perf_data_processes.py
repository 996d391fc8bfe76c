#!/usr/bin/env python3
"""Several processes in one LBR perf.data, for perf2bolt's pid filtering: the samples
of four gen_perf_brstack.py recordings of one binary (pids 4242, 5000, 6000, 7000, as
made with --pid) in the first one's file, with task records added:

  pid 5000  FORK from 4242 (with a time): inherits 4242's mapping, its samples count
  pid 6000  no mapping, no fork: its samples are ignored
  pid 7000  FORK from 4242, then COMM exec of another program: mapping dropped

  bench/perf_data_processes.py OUT A.perf.data B.perf.data C.perf.data D.perf.data

perf2bolt 22 reads 600 samples from four 300-sample inputs (A and B) and
pgolens export --to fdata writes the same lines (bench/perf2bolt.sh).
"""
import struct, sys
def load(path):
    b = open(path, 'rb').read()
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    recs = []
    at = data_off
    while at < data_off + data_size:
        typ, misc, size = struct.unpack_from('<IHH', b, at)
        recs.append((typ, misc, b[at:at + size]))
        at += size
    return b, data_off, data_size, recs
def trailer(pid, time):
    return struct.pack('<IIQII', pid, pid, time, 1, 0)
def rec(typ, misc, body):
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body
A, off, size, ra = load(sys.argv[2])
samples = lambda p: [r[2] for r in load(p)[3] if r[0] == 9]
out = [r[2] for r in ra if r[0] != 68]
T = 1_000_000_500
# pid 5000: forked from 4242 after perf started -> inherits the mapping
out.append(rec(7, 0, struct.pack('<IIIIQ', 5000, 4242, 5000, 4242, T) + trailer(5000, T)))
out += samples(sys.argv[3])
# pid 6000: never mapped -> ignored
out += samples(sys.argv[4])
# pid 7000: forked, then exec'd another program -> mapping dropped
out.append(rec(7, 0, struct.pack('<IIIIQ', 7000, 4242, 7000, 4242, T) + trailer(7000, T)))
comm = b'other\0\0\0'
out.append(rec(3, 0x2000, struct.pack('<II', 7000, 7000) + comm + trailer(7000, T + 1)))
out += samples(sys.argv[5])
out.append(rec(68, 0, b''))
data = b''.join(out)
feat_at = off + size
shift = len(data) - size
head = bytearray(A[:off])
struct.pack_into('<Q', head, 48, len(data))
tail = bytearray(A[feat_at:])
# feature section table: one {offset, size} per feature bit, offsets absolute
bits = struct.unpack_from('<Q', A, 72)[0]
n = bin(bits).count('1')
for i in range(n):
    o, s = struct.unpack_from('<QQ', tail, 16 * i)
    struct.pack_into('<QQ', tail, 16 * i, o + shift, s)
open(sys.argv[1], 'wb').write(bytes(head) + data + bytes(tail))
