#!/usr/bin/env python3
"""Writes the hand-made GCC AutoFDO test files of this folder, field by field.

Independent of pgolens's writer, so the decoder is checked against bytes we did not
produce with it. Layout: shared/formats/llvm-sample-profiles.md (GCC AutoFDO).
Run from this folder: python3 make.py
"""
import struct

MAGIC = 0x67636461          # "gcda"; little-endian files start "adcg"
V704 = 0x3430372A           # "*704"
SUMMARY, FILE_NAMES, FUNCTION = 0xA8000000, 0xAA000000, 0xAC000000
MODULE_GROUPING, WORKING_SET = 0xAE000000, 0xAF000000
TOPN = 7                    # HIST_TYPE_INDIR_CALL_TOPN
NO_FILE = 0xFFFFFFFF


class File:
    def __init__(self, version, byte_strings, v3):
        self.out = bytearray()
        self.byte_strings, self.v3 = byte_strings, v3
        self.word(MAGIC), self.word(version), self.word(0)

    def word(self, v):
        self.out += struct.pack("<I", v)

    def counter(self, v):
        self.word(v & 0xFFFFFFFF), self.word(v >> 32)

    def string(self, s):
        b = s.encode()
        if self.byte_strings:      # v2+: length in bytes with the NUL, unpadded
            self.word(len(b) + 1)
            self.out += b + b"\0"
        else:                      # v1 / "*704": length in words, NUL-padded
            words = (len(b) + 4) // 4
            self.word(words)
            self.out += b + b"\0" * (words * 4 - len(b))


def offset(line, disc=0):
    return line << 16 | disc


def symbol(f, names, sym, top):
    """sym = (name, head, timestamp, positions, callsites); positions =
    [(offset, count, [(target name, count)])], callsites = [(offset, sym)]."""
    name, head, timestamp, positions, callsites = sym
    if top:
        f.counter(head)
        if f.v3:
            f.counter(timestamp)
    f.word(names.index(name))
    f.word(len(positions)), f.word(len(callsites))
    for off, count, targets in positions:
        f.word(off), f.word(len(targets)), f.counter(count)
        for target, tcount in targets:
            f.word(TOPN), f.counter(names.index(target)), f.counter(tcount)
    for off, callee in callsites:
        f.word(off)
        symbol(f, names, callee, False)


def profile(version, byte_strings, v3, names, functions, files=(), file_of=None, summary=None):
    f = File(version, byte_strings, v3)
    if v3:
        f.word(SUMMARY)
        for v in summary:          # six counters, then (cutoff, min, count) entries
            f.counter(v) if not isinstance(v, tuple) else (f.word(v[0]), f.counter(v[1]), f.counter(v[2]))
    f.word(FILE_NAMES), f.word(0)  # the length word: readers ignore it
    if v3:
        f.word(len(files))
        for name in files:
            f.string(name)
    f.word(len(names))
    for name in names:
        f.string(name)
        if v3:
            f.word(file_of.get(name, NO_FILE))
    f.word(FUNCTION), f.word(0), f.word(len(functions))
    for sym in functions:
        symbol(f, names, sym, True)
    f.word(MODULE_GROUPING), f.word(0), f.word(0)
    f.word(WORKING_SET), f.word(3 * 128)
    for i in range(128):
        f.word(i), f.counter(1000 - i)
    return bytes(f.out)


# targets: call targets (ties, suffixes), discriminators, a repeated position,
# inlining three deep, the same callee twice at one callsite, a callsite without
# samples, and a top-level function without samples.
NAMES = ["", "main", "foo", "bar", "_Z3bazv", "_Z3bazv.llvm.42", "qux.cold"]
BAR = ("bar", 0, 0, [(offset(0, 3), 11, [])], [])
MAIN = ("main", 5, 1000, [
    (offset(1), 10, []),
    (offset(2, 1), 20, [("_Z3bazv", 6), ("_Z3bazv.llvm.42", 6), ("qux.cold", 9)]),
    (offset(1), 5, []),
    (offset(3), 0, [("foo", 4)]),
], [
    (offset(4, 2), ("foo", 0, 0, [(offset(1), 7, [])], [(offset(2), BAR)])),
    (offset(5), ("bar", 0, 0, [], [])),
    (offset(4, 2), ("foo", 0, 0, [(offset(1), 1, [])], [])),
])
FOO = ("foo", 0, 77, [(offset(1), 54, [])], [])
ZERO = ("bar", 0, 0, [(offset(1), 0, [])], [])
TARGETS = [MAIN, FOO, ZERO]
FILES = ["main.c", "foo.h"]
FILE_OF = {"main": 0, "foo": 1, "bar": 1}
# total, max count, max function count, counts, functions, then cutoff entries
SUMMARY_V3 = [108, 54, 5, 9, 3, 1, (990000, 5, 6)]

# alias: LLVM keeps the samples of the first copy of a function with samples and
# adds only the head of later copies (an alias sharing the body); a first copy
# without samples does not count.
ALIAS = [
    ("alias", 3, 0, [(offset(1), 4, [])], []),
    ("alias", 2, 0, [(offset(1), 100, [])], [(offset(2), ("foo", 0, 0, [(offset(1), 50, [])], []))]),
    ("zero", 1, 0, [(offset(1), 0, [])], []),
    ("zero", 1, 0, [(offset(1), 6, [])], []),
]

if __name__ == "__main__":
    outputs = {
        "targets.afdo": profile(V704, False, False, NAMES, TARGETS),
        "targets.v2.afdo": profile(2, True, False, NAMES, TARGETS),
        "targets.v3.afdo": profile(V704, True, True, NAMES, TARGETS, FILES, FILE_OF, SUMMARY_V3),
        "alias.afdo": profile(V704, False, False, ["", "alias", "foo", "zero"], ALIAS),
    }
    for path, data in outputs.items():
        with open(path, "wb") as out:
            out.write(data)
