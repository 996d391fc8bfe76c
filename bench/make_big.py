#!/usr/bin/env python3
"""Writes large synthetic inputs for the dump benchmarks (never committed).

  make_big.py perf OUT SIZE_MB   perf.data, file mode: one cycles attr, SAMPLE records
  make_big.py text OUT SIZE_MB   LLVM sample-profile text: functions with body lines
"""
import struct
import sys


def perf(out, size):
    # perf_event_attr (size 128): type 0 (HARDWARE), config 0 (cycles),
    # sample_type IP|TID|TIME|PERIOD = 0x107, flags: sample_id_all (bit 18).
    attr = struct.pack("<IIQQQQQIIQ", 0, 128, 0, 4000, 0x107, 0, 1 << 18, 0, 0, 0)
    attr = attr.ljust(128, b"\0")
    attrs_off = 104
    attr_entry = attr + struct.pack("<QQ", 0, 0)  # ids section: none
    data_off = attrs_off + len(attr_entry)
    # SAMPLE: header(8) ip(8) pid,tid(8) time(8) period(8) = 40 bytes
    n = (size - data_off) // 40
    header = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, len(attr_entry), attrs_off, len(attr_entry),
                                       data_off, n * 40, 0, 0) + b"\0" * 32
    with open(out, "wb") as f:
        f.write(header)
        f.write(attr_entry)
        chunk = bytearray()
        for i in range(n):
            chunk += struct.pack("<IHHQIIQQ", 9, 2, 40, 0x401000 + (i % 4096) * 4, 1234, 1234, 1000 * i, 4000)
            if len(chunk) >= 1 << 22:
                f.write(chunk)
                chunk.clear()
        f.write(chunk)


def text(out, size):
    with open(out, "w") as f:
        written = 0
        i = 0
        while written < size:
            block = f"_Z8functioni{i}:{1000 + i}:{i % 7}\n" + "".join(
                f" {line}: {i * line % 997}\n" for line in range(1, 40)) + f" 40: _Z6calleei{i}:{i}\n  1: {i}\n"
            f.write(block)
            written += len(block)
            i += 1


if __name__ == "__main__":
    kind, out, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"perf": perf, "text": text}[kind](out, mb * 1024 * 1024)
