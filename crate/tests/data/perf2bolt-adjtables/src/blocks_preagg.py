#!/usr/bin/env python3
"""Reads `llvm-bolt --print-cfg` output and prints a pre-aggregated profile with
one fall-through entry `F START LAST COUNT` per basic block (its first and last
instruction addresses), so that perf2bolt records no edge for them unless its
blocks differ from the printed ones."""
import re, sys

addr = None
blocks = []  # (function address, first offset, last offset)
cur = None
for line in open(sys.argv[1]):
    m = re.match(r'\s+Address\s+: 0x([0-9a-f]+)', line)
    if m:
        addr = int(m.group(1), 16)
        continue
    if re.match(r'^\.L\S+ \(\d+ instructions', line):
        cur = [addr, None, None]
        blocks.append(cur)
        continue
    m = re.match(r'^\s+([0-9a-f]{8}): \t(\S+)', line)
    if m and cur is not None and not m.group(2).startswith('!'):
        off = int(m.group(1), 16)
        if cur[1] is None:
            cur[1] = off
        cur[2] = off
print('E cycles:u')
for a, first, last in blocks:
    if first is not None:
        print(f'F {a + first:x} {a + last:x} 1')
