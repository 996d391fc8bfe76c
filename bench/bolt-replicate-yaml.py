#!/usr/bin/env python3
"""Makes a large BOLT YAML profile from one LLVM wrote, for the page benchmark
(tests/bench/bolt-yaml-functions.mjs) where llvm-bolt cannot be run to write one
(bench/bolt-gen-big-yaml.sh makes the real one):

    bench/bolt-replicate-yaml.py IN.yaml OUT.yaml [MIN_MB]

The functions of IN are written again and again, in LLVM's own layout, until OUT
holds at least MIN_MB (default 100) MB: copy N renames each function `NAME.copyN`
and moves every function id (`fid`, and the callees' `fid` in calls) past the
ids of the copies before it, so the profile stays one BOLT reads."""
import re
import sys

src, out = sys.argv[1], sys.argv[2]
min_bytes = int(sys.argv[3] if len(sys.argv) > 3 else 100) << 20
text = open(src).read()
head, sep, rest = text.partition('\nfunctions:\n')
assert sep, 'no block sequence of functions'
# The items end where the document's next top-level key (or its end) begins.
m = re.search(r'^(?=\S)', rest, re.M)
items, tail = (rest[: m.start()], rest[m.start():]) if m else (rest, '')
fids = [int(x) for x in re.findall(r'\bfid:\s+(\d+)', items)]
step = max(fids) + 1

def copy(n):
    def name(m):
        value = m.group(2)
        if value[:1] in "'\"":
            return f'{m.group(1)}{value[:-1]}.copy{n}{value[-1]}'
        return f'{m.group(1)}{value}.copy{n}'
    body = re.sub(r'^(  - name:\s+)(.*)$', name, items, flags=re.M)
    return re.sub(r'(\bfid:\s+)(\d+)', lambda m: f'{m.group(1)}{int(m.group(2)) + n * step}', body)

with open(out, 'w') as f:
    f.write(head + sep)
    written, n = len(head) + len(sep), 0
    while written < min_bytes:
        chunk = copy(n)
        f.write(chunk)
        written += len(chunk)
        n += 1
    f.write(tail)
print(f'{out}: {written + len(tail)} bytes, {n} copies of {len(fids)} function ids')
