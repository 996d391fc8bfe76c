#!/usr/bin/env python3
"""Writes an IR-level .proftext of N functions with value profiles, for
bench/instrprof-export.sh: 1-64 counters per function, indirect-call sites whose
targets name other functions in the profile (and a few external ones), and memop
size sites. Deterministic (seeded). Usage: make_proftext.py OUT N"""
import random
import sys

out_path, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261122)
words = ["parse", "emit", "visit", "lower", "fold", "alloc", "hash", "read", "write", "scan",
         "sort", "merge", "split", "walk", "check", "build", "find", "insert", "erase", "update"]
types = ["Node", "Expr", "Decl", "Type", "Block", "Value", "Inst", "Pass", "Map", "Str"]


def name(i):
    w = words[i % len(words)]
    t = types[(i // len(words)) % len(types)]
    if i % 7 == 0:
        # local linkage: file;name
        return f"src/mod{i % 97}/file{i % 1009}.cpp;_ZN{len(t)}{t}{len(w)}{w}{i}Ev"
    return f"_ZN4llvm{len(t)}{t}{len(w)}{w}{i}ERKNS_{len(t)}{t}E"


names = [name(i) for i in range(n)]
memop_sizes = [1, 2, 4, 8, 16, 24, 32, 48, 64, 128, 256, 512, 1024, 4096]
with open(out_path, "w", buffering=1 << 22) as out:
    out.write("# IR level Instrumentation Flag\n:ir\n")
    buf = []
    for i in range(n):
        nc = rng.randint(1, 64)
        entry = rng.choice((0, 1, rng.randint(1, 1000), rng.randint(1000, 10**9)))
        counters = [entry] + [rng.randint(0, entry) if entry else 0 for _ in range(nc - 1)]
        buf.append(f"{names[i]}\n# Func Hash:\n{rng.getrandbits(59)}\n# Num Counters:\n{nc}\n# Counter Values:\n")
        buf.append("\n".join(map(str, counters)))
        buf.append("\n")
        kinds = []
        icall_sites = rng.choice((0, 0, 1, 2, 3))
        memop_sites = rng.choice((0, 1, 1, 2))
        if icall_sites:
            lines = ["# ValueKind = IPVK_IndirectCallTarget:\n0\n# NumValueSites:\n", f"{icall_sites}\n"]
            for _ in range(icall_sites):
                k = rng.randint(0, 4)
                lines.append(f"{k}\n")
                for t in rng.sample(range(n), k):
                    target = names[t] if t % 13 else f"external_{t}"
                    lines.append(f"{target}:{rng.randint(1, 100000)}\n")
            kinds.append("".join(lines))
        if memop_sites:
            lines = ["# ValueKind = IPVK_MemOPSize:\n1\n# NumValueSites:\n", f"{memop_sites}\n"]
            for _ in range(memop_sites):
                k = rng.randint(1, 5)
                lines.append(f"{k}\n")
                for s in rng.sample(memop_sizes, k):
                    lines.append(f"{s}:{rng.randint(1, 50000)}\n")
            kinds.append("".join(lines))
        if kinds:
            buf.append(f"# Num Value Kinds:\n{len(kinds)}\n")
            buf.extend(kinds)
        buf.append("\n")
        if len(buf) > 20000:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))
