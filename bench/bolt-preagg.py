#!/usr/bin/env python3
"""Pre-aggregated branch profile (perf2bolt --pa input) from BOLT instrumentation
profiles of real runs, for bench/bolt-profiles.sh (this VM cannot record LBR).

    bench/bolt-preagg.py BINARY RUN.fdata... > OUT.preagg

Each RUN.fdata is what `llvm-bolt -instrument` wrote for one run of BINARY: exact
counts of every executed CFG edge (taken and not-taken conditional branches, jumps,
jump-table targets, calls). Per run this prints the traces an LBR would have seen,
aggregated the way a pre-aggregating collector writes them:

  T SRC DST END COUNT   a taken branch SRC -> DST (jumps, taken conditional
                        branches, jump-table targets, calls), then the straight-line
                        code from DST to END, the next control transfer (a call,
                        jump or return, or a conditional branch taken there);
  F START END COUNT     the code after a call site, START being the return address.

The split of a fall-through range at a conditional branch follows that branch's
measured taken / not-taken counts (first-order: the range ends at the branch
in proportion to its taken count). Addresses come from the symbol table (BOLT's
`name/N` for the N-th local symbol of a name) and the instruction boundaries from
llvm-objdump. The runs' aggregates are written one after another, as a collector
appending each run's aggregate would; perf2bolt sums repeated entries.
"""
import bisect
import os
import re
import subprocess
import sys
from collections import defaultdict

OBJDUMP = os.environ.get('OBJDUMP', 'llvm-objdump-22')


def main():
    binary, runs = sys.argv[1], sys.argv[2:]
    # Function names as BOLT writes them in fdata.
    syms = {}
    local_seen = defaultdict(int)
    out = subprocess.run(['readelf', '-sW', binary], check=True, capture_output=True, text=True).stdout
    in_symtab = False
    for line in out.splitlines():
        if line.startswith("Symbol table '.symtab'"):
            in_symtab = True
            continue
        if not in_symtab:
            continue
        f = line.split()
        if len(f) < 8 or f[3] != 'FUNC' or f[6] == 'UND':
            continue
        addr, name = int(f[1], 16), f[7]
        if f[4] == 'LOCAL':
            local_seen[name] += 1
            syms['%s/%d' % (name, local_seen[name])] = addr
        else:
            syms.setdefault(name, addr)
    # Instructions: address -> (next address, kind, direct target).
    insn_re = re.compile(r'^\s*([0-9a-f]+):\s+(\S+)(?:\s+(\S+))?')
    plt_re = re.compile(r'^([0-9a-f]+) <(.+)@plt>:')
    addrs, nexts, kinds = [], [], []
    dis = subprocess.Popen([OBJDUMP, '-d', '--no-show-raw-insn', binary],
                           stdout=subprocess.PIPE, text=True)
    prev = None
    for line in dis.stdout:
        m = plt_re.match(line)
        if m:
            syms['%s@PLT' % m.group(2)] = int(m.group(1), 16)
            continue
        m = insn_re.match(line)
        if not m:
            continue
        a, mn = int(m.group(1), 16), m.group(2)
        if prev is not None and nexts[-1] is None:
            nexts[-1] = a
        if mn.startswith('j') or mn.startswith('call') or mn.startswith('ret') or mn in ('ud2', 'hlt'):
            kind = 'c' if (mn.startswith('j') and mn not in ('jmp', 'jmpq')) else 'u'
            addrs.append(a)
            nexts.append(None)
            kinds.append(kind)
            prev = a
        else:
            if addrs and nexts[-1] is None:
                nexts[-1] = a
            prev = None
    dis.wait()
    nxt = dict(zip(addrs, nexts))
    kind = dict(zip(addrs, kinds))
    func_starts = sorted(set(syms.values()))

    def func_end(a):
        i = bisect.bisect_right(func_starts, a)
        return func_starts[i] if i < len(func_starts) else 1 << 62

    print('E cycles:u')
    for run in runs:
        taken, fall = defaultdict(int), defaultdict(int)
        edges = []
        calls = defaultdict(int)
        for line in open(run):
            f = line.split()
            if len(f) != 8 or f[0] != '1' or f[1] not in syms:
                continue
            src = syms[f[1]] + int(f[2], 16)
            cnt = int(f[7])
            if src not in nxt or cnt <= 0:
                continue
            if f[3] == '1' and f[4] in syms:
                dst = syms[f[4]] + int(f[5], 16)
                if dst == nxt[src] and kind[src] == 'c':
                    fall[src] += cnt
                    continue
                taken[src] += cnt
                edges.append((src, dst, cnt))
            if f[5] == '0' and f[4] != f[1]:
                calls[src] += cnt
        agg = defaultdict(float)

        def walk(key, start, amount):
            end = func_end(start)
            pos = start
            while amount >= 0.5:
                i = bisect.bisect_left(addrs, pos)
                if i == len(addrs) or addrs[i] >= end:
                    return
                j = addrs[i]
                if kind[j] == 'c':
                    t, n = taken[j], fall[j]
                    if t + n == 0:
                        agg[key + (j,)] += amount
                        return
                    agg[key + (j,)] += amount * t / (t + n)
                    amount *= n / (t + n)
                    pos = nxt[j]
                else:
                    agg[key + (j,)] += amount
                    return

        for src, dst, cnt in edges:
            walk(('T', src, dst), dst, cnt)
        for site, cnt in calls.items():
            walk(('F', nxt[site]), nxt[site], cnt)
        w = sys.stdout.write
        for k, v in agg.items():
            c = int(v + 0.5)
            if c <= 0:
                continue
            if k[0] == 'T':
                w('T %x %x %x %d\n' % (k[1], k[2], k[3], c))
            else:
                w('F %x %x %d\n' % (k[1], k[2], c))


if __name__ == '__main__':
    main()
