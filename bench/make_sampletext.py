#!/usr/bin/env python3
"""Writes an LLVM sample-profile text of N top-level functions for
bench/sample-export.sh: 4-24 body lines each (some with discriminators), call
targets naming other functions of the profile, and inlined callsites nested up to
four deep, as an AutoFDO profile of a large C++ program looks. Totals are
consistent (a function's total is its body samples plus its inlinees' totals).
Deterministic (seeded). Usage: make_sampletext.py OUT N"""
import random
import sys

out_path, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261125)
words = ["parse", "emit", "visit", "lower", "fold", "alloc", "hash", "read", "write", "scan",
         "sort", "merge", "split", "walk", "check", "build", "find", "insert", "erase", "update"]
types = ["Node", "Expr", "Decl", "Type", "Block", "Value", "Inst", "Pass", "Map", "Str"]


def name(i):
    w = words[i % len(words)]
    t = types[(i // len(words)) % len(types)]
    return f"_ZN4llvm{len(t)}{t}{len(w)}{w}{i}ERKNS_{len(t)}{t}E"


names = [name(i) for i in range(n)]


def body(depth):
    """Lines (without indentation) of one function body and its total."""
    lines = []
    total = 0
    for line in sorted(rng.sample(range(0, 60), rng.randint(4, 24))):
        disc = rng.choice([0, 0, 0, 1, 2, 3])
        loc = f"{line}.{disc}" if disc else f"{line}"
        count = int(rng.paretovariate(1.2) * 10)
        total += count
        text = f"{loc}: {count}"
        if rng.random() < 0.2:
            for t in rng.sample(range(n), rng.randint(1, 3)):
                text += f" {names[t]}:{max(1, count // 2)}"
        lines.append((0, text))
    if depth < 4:
        for line in sorted(rng.sample(range(0, 60), rng.randint(0, 3 if depth == 0 else 1))):
            callee = names[rng.randrange(n)]
            inner, inner_total = body(depth + 1)
            total += inner_total
            lines.append((0, f"{line}: {callee}:{inner_total}"))
            lines.extend((d + 1, t) for d, t in inner)
    return lines, total


with open(out_path, "w", buffering=1 << 22) as out:
    for i in range(n):
        lines, total = body(0)
        out.write(f"{names[i]}:{total}:{rng.randint(0, 100)}\n")
        for d, t in lines:
            out.write(" " * (d + 1) + t + "\n")
