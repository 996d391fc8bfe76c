#!/usr/bin/env python3
"""gen_perf_brstack.py with extra branch records injected into the walk, for what the
corpus generator never produces: calls through the PLT, branches into and out of
shared libraries, kernel entries. Every `--every` steps of the walk the records of
`--inject` are replayed (chronological order), then the walk goes on (the trace to
its next branch usually mismatches, as a real interrupt's would).

  bench/gen_perf_brstack_inject.py --inject FROM:TO:KIND,... [--every N] -- BINARY -o OUT ...

KIND: cond, jmp, ijmp, call, icall, ret; a trailing `!` marks a misprediction.
Addresses are ELF virtual addresses (the generator adds the PIE base). The
generator needs OBJDUMP (llvm-objdump 22). Example on cprog (strtol@plt, libc,
the qsort callback cmp_int, a kernel interrupt):

  --inject 0x40136a:0x401060:call,0x401060:0x7ffff7e1a000:ijmp!,0x7ffff7e1a100:0x4016e0:icall,\\
0x4016f4:0x7ffff7e1a105:ret,0x7ffff7e1a200:0xffffffff81000000:jmp,0x7ffff7e1a300:0x40136f:ret!
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '../tests/corpus/bolt-perf/tools'))
import gen_perf_brstack as gen  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--inject', required=True)
ap.add_argument('--every', type=int, default=37)
args, rest = ap.parse_known_args()
records = []
for item in args.inject.split(','):
    frm, to, kind = item.split(':')
    records.append((int(frm, 0), int(to, 0), kind.endswith('!'), kind.rstrip('!')))

Walker = gen.Walker


class InjectingWalker:
    def __init__(self, *a, **k):
        self.walker = Walker(*a, **k)
        self.steps = 0
        self.queue = []

    def step(self):
        self.steps += 1
        if self.steps % args.every == 0:
            self.queue = list(records)
        return self.queue.pop(0) if self.queue else self.walker.step()


gen.Walker = InjectingWalker
sys.argv = [sys.argv[0]] + [a for a in rest if a != '--']
gen.main()
