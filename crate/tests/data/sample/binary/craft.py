#!/usr/bin/env python3
"""Writes the hand-made raw binary and extbinary sample profiles of this folder:
layouts LLVM 22's writer never produces but its reader accepts (or rejects), so the
decoder is checked against llvm-profdata-22 on them too. Each file is described by
its comment below; make.sh then asks llvm-profdata-22 for its reference text (or
error). Usage: craft.py OUTDIR"""
import struct
import sys
import zlib

out = sys.argv[1]
RAW = bytes([0xFF, 0xE5, 0xD0, 0xB1, 0xF4, 0xC9, 0x94, 0xA8, 0x53, 103])
EXT = bytes([0x84, 0xE4, 0xD0, 0xB1, 0xF4, 0xC9, 0x94, 0xA8, 0x53, 103])
SUMMARY = bytes([0, 0, 0, 0, 0, 0])  # five counts and no detailed entries

# section types and flags (SampleProf.h)
SUMMARY_T, NAMES_T, SYMBOLS_T, OFFSETS_T, META_T, CSNAMES_T, LBR_T = 1, 2, 3, 4, 5, 6, 32
COMPRESS = 1
MD5, FIXED = 1 << 32, 2 << 32
PROBE, ATTR = 1 << 32, 2 << 32
FULL_CONTEXT, VTABLES = 2 << 32, 32 << 32


def uleb(n):
    b = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            b.append(byte | 0x80)
        else:
            b.append(byte)
            return bytes(b)


def nums(*ns):
    return b"".join(uleb(n) for n in ns)


def strings(*names):
    return uleb(len(names)) + b"".join(n + b"\0" for n in names)


def compressed(payload, trailing=b""):
    z = zlib.compress(payload)
    return uleb(len(payload)) + uleb(len(z)) + z + trailing


def ext(sections):
    """sections: (type, flags, bytes) in table order, laid out in the same order."""
    head = EXT + struct.pack("<Q", len(sections))
    offset = len(head) + 32 * len(sections)
    table, body = b"", b""
    for kind, flags, data in sections:
        table += struct.pack("<QQQQ", kind, flags, offset + len(body), len(data))
        body += data
    return head + table + body


def write(name, data):
    with open(f"{out}/{name}", "wb") as f:
        f.write(data)


# body(total, records, callsites): records = [(line, disc, samples, [(name, count)])],
# callsites = [(line, disc, name, body-bytes)]
def body(total, records=(), callsites=(), vtables=None):
    b = nums(total, len(records))
    for line, disc, samples, calls in records:
        b += nums(line, disc, samples, len(calls))
        for name, count in calls:
            b += nums(name, count)
    b += nums(len(callsites))
    for line, disc, name, nested in callsites:
        b += nums(line, disc, name) + nested
    if vtables is not None:
        b += nums(len(vtables))
        for line, disc, types in vtables:
            b += nums(line, disc, len(types))
            for name, count in types:
                b += nums(name, count)
    return b


# ULEB MD5 name table (MD5 flag without fixed length: older writers): names 0..2
md5s = [0x1234567890ABCDEF, 42, 0xFFFFFFFFFFFFFFF0]
uleb_table = nums(len(md5s), *md5s)
lbr = nums(100, 0) + body(300, [(1, 0, 100, [(1, 60), (2, 40)])], [(2, 1, 1, body(200, [(0, 0, 200, [])]))])
write("uleb-md5.extbinary.prof", ext([(SUMMARY_T, 0, SUMMARY), (NAMES_T, MD5, uleb_table), (LBR_T, 0, lbr)]))

# A string name table, functions, then an MD5 table and functions naming it: names
# from both stay as they were stored
first = nums(5, 0) + body(50, [(1, 0, 50, [(1, 50)])])
second = nums(7, 1) + body(70, [(3, 0, 70, [(0, 70)])])
write(
    "names-then-md5.extbinary.prof",
    ext([
        (SUMMARY_T, 0, SUMMARY),
        (NAMES_T, 0, strings(b"main", b"helper")),
        (LBR_T, 0, first),
        (NAMES_T, MD5 | FIXED, nums(2) + struct.pack("<QQ", 1111, 2222)),
        (LBR_T, 0, second),
    ]),
)

# Sections LLVM 22 does not know (types 7 and 33, one compressed) are skipped by size
write(
    "unknown-sections.extbinary.prof",
    ext([
        (SUMMARY_T, 0, SUMMARY),
        (7, 0, b"\xde\xad\xbe\xef"),
        (NAMES_T, 0, strings(b"f")),
        (33, COMPRESS, compressed(b"anything at all")),
        (LBR_T, 0, nums(1, 0) + body(9, [(1, 0, 9, [])])),
        (0, 0, b"\x00\x00"),
    ]),
)

# A raw binary with a function given twice and a callee inlined twice at one place:
# everything adds up
names = strings(b"main", b"foo", b"bar")
f1 = nums(10, 0) + body(100, [(1, 0, 30, [(1, 20)])], [(2, 0, 1, body(70, [(1, 0, 70, [(2, 5)])]))])
f2 = nums(5, 0) + body(50, [(1, 0, 20, [(1, 5), (2, 15)]), (1, 0, 1, [(1, 1)])],
                       [(2, 0, 1, body(29, [(1, 0, 29, [])])), (2, 0, 2, body(1, []))])
write("repeated.binary.prof", RAW + SUMMARY + names + f1 + f2)

# Callsite line offsets and discriminators wider than 32 bits are cut to their low
# 32 bits; so are body discriminators
f = nums(1, 0) + body(8, [(1, (1 << 32) + 7, 3, [])], [((1 << 32) + 4, (1 << 33) + 2, 1, body(5, [(0, 0, 5, [])]))])
write("wide-locations.extbinary.prof", ext([(SUMMARY_T, 0, SUMMARY), (NAMES_T, 0, strings(b"f", b"g")), (LBR_T, 0, f)]))

# Metadata (checksums and attributes) for a nested callsite the profile lacks, for a
# function the profile lacks, and a record that is only a name (it ends the section)
names = strings(b"main", b"foo", b"gone")
lbr = nums(1, 0) + body(10, [(1, 0, 4, [])], [(2, 0, 1, body(6, [(1, 0, 6, [])]))])
meta = (
    nums(0, 11, 1, 2)  # main: checksum 11, attributes 1, 2 callsites
    + nums(2, 0, 1, 22, 0, 0)  # 2: foo, checksum 22, attributes 0, no callsites
    + nums(3, 0, 2, 33, 2, 0)  # 3: gone (not in the profile), checksum 33, attributes 2
    + nums(2, 44, 0, 0)  # gone: not a top-level function; read and dropped
    + nums(1)  # foo: a record that ends the section before its checksum
)
write(
    "metadata.extbinary.prof",
    ext([(SUMMARY_T, 0, SUMMARY), (NAMES_T, 0, names), (LBR_T, 0, lbr), (META_T, PROBE | ATTR, meta)]),
)

# A compressed section followed by bytes the CompressedSize leaves out (LLVM never
# looks at them), and a vtable repeated at one location (the first count stays)
names = strings(b"f", b"_ZTV1A", b"_ZTV1B")
lbr = nums(1, 0) + body(10, [(1, 0, 10, [])], vtables=[(1, 0, [(1, 5), (2, 3), (1, 9)])])
write(
    "trailing-and-vtables.extbinary.prof",
    ext([(SUMMARY_T, VTABLES, SUMMARY), (NAMES_T, COMPRESS, compressed(names, b"\xff\xff")), (LBR_T, 0, lbr)]),
)

# Rejected by LLVM:
# a body line offset above 0xffff ("Illegal line offset")
write("bad-line-offset.extbinary.prof",
      ext([(SUMMARY_T, 0, SUMMARY), (NAMES_T, 0, strings(b"f")), (LBR_T, 0, nums(1, 0) + body(1, [(0x10000, 0, 1, [])]))]))
# a name table with a byte after its last name ("Malformed sample profile data")
write("name-table-too-long.extbinary.prof", ext([(SUMMARY_T, 0, SUMMARY), (NAMES_T, 0, strings(b"f") + b"x")]))
# a function cut short ("Truncated profile data")
write("truncated-function.binary.prof", RAW + SUMMARY + strings(b"f") + nums(1, 0, 5, 1, 1, 0))
# version 102 ("Unsupported sample profile format version")
write("version-102.binary.prof", RAW[:-1] + bytes([102]) + SUMMARY + strings(b"f"))
# NumRecords above 32 bits ("Malformed sample profile data")
write("wide-count.binary.prof", RAW + SUMMARY + strings(b"f") + nums(1, 0, 5, 1 << 32))
