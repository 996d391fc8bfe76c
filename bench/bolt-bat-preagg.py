#!/usr/bin/env python3
"""Pre-aggregated trace profile (perf2bolt --pa input) from an LBR perf.data, for
bench/bolt-bat.sh: the same branch stacks perf2bolt reads from the perf.data,
aggregated the way a pre-aggregating collector would write them.

    bench/bolt-bat-preagg.py BINARY PERF.DATA > OUT.preagg

Runs `perf script --show-mmap-events -F pid,event,ip,brstack`, maps every
runtime address inside BINARY's mappings back to its ELF virtual address
(runtime - mmap start + pgoff -> file offset -> vaddr; addresses outside the
binary are written X:<runtime address>) and, per sample (branch records most
recent first), writes for each record but the most recent one a trace

    T FROM TO FT_END COUNT   (R instead of T when the branch is a return)

FROM -> TO the branch, TO .. FT_END the straight-line code up to the next
record's source; the most recent record has no known fall-through end and is
written as `B FROM TO COUNT MISPREDS`. Entries are summed over the file and
written sorted, under `E <event>` per event.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '../tests/corpus/bolt-perf/tools'))
from elfmini import Elf  # noqa: E402

MMAP = re.compile(r'PERF_RECORD_MMAP2? (\d+)/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)[ \]].*?\s(\S+)$')


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: bolt-bat-preagg.py BINARY PERF.DATA > OUT.preagg')
    binary, data = sys.argv[1], sys.argv[2]
    elf = Elf(binary)
    name = os.path.basename(os.path.realpath(binary))
    maps = {}                                   # pid -> [(start, end, pgoff)]
    cache = {}
    events = {}                                 # event -> {key: [count, mispreds]}

    def loc(pid, a):
        k = (pid, a)
        v = cache.get(k)
        if v is None:
            v = 'X:%x' % a
            for s, e, off in maps.get(pid, ()):
                if s <= a < e:
                    va = elf.offset_to_vaddr(a - s + off)
                    if va is not None:
                        v = '%x' % va
                    break
            cache[k] = v
        return v

    p = subprocess.Popen(['perf', 'script', '-f', '-i', data, '--show-mmap-events',
                          '-F', 'pid,event,ip,brstack'], stdout=subprocess.PIPE,
                         text=True, bufsize=1 << 20)
    for line in p.stdout:
        if 'PERF_RECORD_MMAP' in line:
            m = MMAP.search(line.rstrip('\n'))
            if m and os.path.basename(m.group(5)) == name:
                s, ln, off = int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)
                maps.setdefault(int(m.group(1)), []).append((s, s + ln, off))
            continue
        f = line.split()
        if len(f) < 4 or not f[1].endswith(':'):
            continue
        pid, ev = int(f[0]), f[1][:-1]
        agg = events.setdefault(ev, defaultdict(lambda: [0, 0]))
        recs = []
        for r in f[3:]:
            parts = r.split('/')
            if len(parts) < 3 or not parts[0].startswith('0x'):
                continue
            recs.append((int(parts[0], 16), int(parts[1], 16), parts[2] == 'M',
                         parts[-1] == 'RET'))
        if not recs:
            continue
        frm, to, mis, _ = recs[0]
        k = ('B', loc(pid, frm), loc(pid, to))
        agg[k][0] += 1
        agg[k][1] += mis
        for i in range(1, len(recs)):
            frm, to, mis, ret = recs[i]
            k = ('R' if ret else 'T', loc(pid, frm), loc(pid, to), loc(pid, recs[i - 1][0]))
            agg[k][0] += 1
    if p.wait() != 0:
        sys.exit('perf script failed')
    w = sys.stdout.write
    for ev, agg in events.items():
        w('E %s\n' % ev)
        for k in sorted(agg):
            cnt, mis = agg[k]
            if k[0] == 'B':
                w('B %s %s %d %d\n' % (k[1], k[2], cnt, mis))
            else:
                w('%s %s %s %s %d\n' % (k[0], k[1], k[2], k[3], cnt))


if __name__ == '__main__':
    main()
