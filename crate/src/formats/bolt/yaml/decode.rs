//! Reads a BOLT YAML profile as LLVM 22's YAML I/O reads it for BOLT
//! (`YamlInput >> BinaryProfile` with unknown keys allowed, then BOLT's version
//! check): required keys must be there, a known key only once, numbers as
//! `StringRef::getAsUnsignedInteger` with radix 0 reads them (`0x` hex, `0b`
//! binary, `0o` or a leading `0` octal), unknown keys warned about and skipped.
//!
//! Collections are read in the style LLVM writes them: `header`, `functions`,
//! `blocks` and `pseudo_probe_desc` in block style (an empty `[]` is accepted for
//! the sequences), `succ`, `calls`, `probes`, `inline_tree` and the lists in
//! them in flow style. LLVM's reader would also take the other style for each;
//! we report it as an error at its line and column instead.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::ops::{Deref, DerefMut};

use super::reader::{Key, Mapping, Pos, Reader, Scalar, Sequence};
use super::{
    Block, BlockExtra, CallSite, Function, HashFunction, InlineTreeNode, ProbeSet, Profile, ProfileFlags, Span,
    Successor, UnknownKey,
};
use crate::error::Result;

pub fn decode(data: &[u8]) -> Result<Profile<'_>> {
    let (p, version_pos) = decode_unversioned(data)?;
    check_version(&p, version_pos)?;
    Ok(p)
}

/// BOLT reads only `profile-version: 1`; checked once the whole document was read
/// (an error in it comes first).
pub(super) fn check_version(p: &Profile<'_>, version_pos: Pos) -> Result<()> {
    if p.header.version != 1 {
        return Err(version_pos.error("profile-version 1 (the only version BOLT reads)"));
    }
    Ok(())
}

/// [`decode`] without the version check: the profile, and where its version is.
pub(super) fn decode_unversioned(data: &[u8]) -> Result<(Profile<'_>, Pos)> {
    document(data, |text| text)
}

/// [`decode_unversioned`] with the profile's text copied out of `data` (a stream's
/// first piece, whose bytes are dropped once decoded).
pub(super) fn decode_unversioned_owned(data: &[u8]) -> Result<(Profile<'static>, Pos)> {
    document(data, owned)
}

/// Text copied out of the input: what a stream keeps, its bytes being dropped.
fn owned(text: Cow<'_, [u8]>) -> Cow<'static, [u8]> {
    Cow::Owned(text.into_owned())
}

/// The rest of a document whose head a stream decoded before (see
/// [`super::YamlStream`]), appended to `profile`: `data` starts at line `line`, on
/// the first line of an item of `functions` (at column `indent`); the items, then
/// the top mapping's later keys and the document's end, read as the whole text's
/// decode reads them after the same line. The profile's text is copied.
pub(super) fn decode_items(data: &[u8], line: u64, indent: usize, profile: &mut Profile<'static>) -> Result<()> {
    let mut r = Reader::at_line(data, line);
    let mut p = Out { profile: core::mem::take(profile), keep: owned };
    let mut seq = Sequence::items_at(indent);
    while let Some(map) = r.next_item(&mut seq)? {
        function(&mut r, &mut p, map)?;
    }
    // `header` and `functions` came before.
    let mut seen = Seen(0b11);
    top_keys(&mut r, &mut p, Mapping::continued(0), &mut seen)?;
    r.end_document()?;
    *profile = p.profile;
    profile.flow_wrapped |= r.flow_wrapped;
    Ok(())
}

/// How decoded text is kept: borrowed from the input, or copied.
type Keep<'a, 'p> = fn(Cow<'a, [u8]>) -> Cow<'p, [u8]>;

/// The profile being decoded into, and how it keeps the input's text.
struct Out<'a, 'p> {
    profile: Profile<'p>,
    keep: Keep<'a, 'p>,
}

impl<'p> Deref for Out<'_, 'p> {
    type Target = Profile<'p>;
    fn deref(&self) -> &Profile<'p> {
        &self.profile
    }
}

impl DerefMut for Out<'_, '_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.profile
    }
}

fn document<'a, 'p>(data: &'a [u8], keep: Keep<'a, 'p>) -> Result<(Profile<'p>, Pos)> {
    let mut r = Reader::new(data);
    r.start_document()?;
    let top = r.top_mapping()?;
    let top_pos = r.here();
    let mut p = Out { profile: Profile::default(), keep };
    let mut seen = Seen::default();
    let version_pos = top_keys(&mut r, &mut p, top, &mut seen)?.unwrap_or(top_pos);
    seen.require(&[(0, "missing required key 'header'"), (1, "missing required key 'functions'")], top_pos)?;
    r.end_document()?;
    p.flow_wrapped = r.flow_wrapped;
    Ok((p.profile, version_pos))
}

/// The keys of the top mapping from the cursor on; where the version is, if the
/// header was among them.
fn top_keys<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, mut top: Mapping, seen: &mut Seen) -> Result<Option<Pos>> {
    let mut version_pos = None;
    while let Some(key) = r.next_key(&mut top)? {
        match &*key.name {
            b"header" => {
                seen.mark(0, &key)?;
                version_pos = Some(header(r, p, &key)?);
            }
            b"functions" => {
                seen.mark(1, &key)?;
                functions(r, p, &key)?;
            }
            b"pseudo_probe_desc" => {
                seen.mark(2, &key)?;
                probe_desc(r, p, &key)?;
            }
            _ => unknown(r, p, key, 0)?,
        }
    }
    Ok(version_pos)
}

/// The known keys of one mapping seen so far, by bit.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn mark(&mut self, bit: u32, key: &Key<'_>) -> Result<()> {
        let mask = 1u32.checked_shl(bit).unwrap_or(0);
        if self.0 & mask != 0 {
            return Err(key.pos.error("each key once (duplicated mapping key)"));
        }
        self.0 |= mask;
        Ok(())
    }

    fn require(&self, keys: &[(u32, &'static str)], at: Pos) -> Result<()> {
        for &(bit, what) in keys {
            if self.0 & 1u32.checked_shl(bit).unwrap_or(0) == 0 {
                return Err(at.error(what));
            }
        }
        Ok(())
    }
}

fn unknown<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, key: Key<'a>, indent: usize) -> Result<()> {
    remember_unknown(p, key);
    r.skip_value(indent)
}

fn unknown_in_flow<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, key: Key<'a>) -> Result<()> {
    remember_unknown(p, key);
    r.skip_flow_value()
}

/// An unknown key, kept for LLVM's warning about it.
fn remember_unknown<'a>(p: &mut Out<'a, '_>, key: Key<'a>) {
    let text = (p.keep)(key.name);
    p.unknown_keys.push(UnknownKey { key: text, line: key.pos.line, column: key.pos.column });
}

/// `StringRef::getAsUnsignedInteger(S, 0, N)`.
fn llvm_unsigned(text: &[u8]) -> Option<u64> {
    let (radix, digits) = match text {
        [b'0', b'x' | b'X', rest @ ..] => (16, rest),
        [b'0', b'b' | b'B', rest @ ..] => (2, rest),
        [b'0', b'o', rest @ ..] => (8, rest),
        [b'0', rest @ ..] if !rest.is_empty() => (8, rest),
        _ => (10, text),
    };
    if digits.is_empty() {
        return None;
    }
    // Up to this many digits cannot overflow: no checked multiply per digit (a
    // 128-bit one on wasm32, where it was a tenth of the decode).
    let safe = match radix {
        16 => 16,
        10 => 19,
        8 => 21,
        _ => 64,
    };
    let digit = |b: u8| {
        let d = DIGIT.get(usize::from(b)).copied().unwrap_or(NOT_A_DIGIT);
        (u32::from(d) < radix).then_some(u64::from(d))
    };
    let mut value = 0u64;
    if digits.len() <= safe {
        for &b in digits {
            value = value.wrapping_mul(u64::from(radix)).wrapping_add(digit(b)?);
        }
        return Some(value);
    }
    for &b in digits {
        value = value.checked_mul(u64::from(radix))?.checked_add(digit(b)?)?;
    }
    Some(value)
}

const NOT_A_DIGIT: u8 = 0xff;

/// Each byte's value as a digit of radix up to 16 (either case), one load per digit.
static DIGIT: [u8; 256] = digits();

// Evaluated while building: an index out of range would fail the build, not a run.
#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation, clippy::arithmetic_side_effects)]
const fn digits() -> [u8; 256] {
    let mut table = [NOT_A_DIGIT; 256];
    let mut b = 0usize;
    while b < 256 {
        table[b] = match b as u8 {
            d @ b'0'..=b'9' => d - b'0',
            d @ b'a'..=b'f' => d - b'a' + 10,
            d @ b'A'..=b'F' => d - b'A' + 10,
            _ => NOT_A_DIGIT,
        };
        b += 1;
    }
    table
}

fn u64_of(s: &Scalar<'_>) -> Result<u64> {
    llvm_unsigned(&s.text).ok_or_else(|| s.pos.error("an unsigned number (invalid number)"))
}

fn u32_of(s: &Scalar<'_>) -> Result<u32> {
    let n = u64_of(s)?;
    u32::try_from(n).map_err(|_| s.pos.error("a number below 2^32 (out of range number)"))
}

fn hex64_of(s: &Scalar<'_>) -> Result<u64> {
    llvm_unsigned(&s.text).ok_or_else(|| s.pos.error("a number such as 0x1F (invalid hex64 number)"))
}

fn hex32_of(s: &Scalar<'_>) -> Result<u32> {
    let n = llvm_unsigned(&s.text).ok_or_else(|| s.pos.error("a number such as 0x1F (invalid hex32 number)"))?;
    u32::try_from(n).map_err(|_| s.pos.error("a number below 2^32 (out of range hex32 number)"))
}

/// `llvm::yaml::parseBool`: YAML 1.1 booleans.
fn bool_of(s: &Scalar<'_>) -> Result<bool> {
    match &*s.text {
        b"true" | b"True" | b"TRUE" | b"y" | b"Y" | b"yes" | b"Yes" | b"YES" | b"on" | b"On" | b"ON" => Ok(true),
        b"false" | b"False" | b"FALSE" | b"n" | b"N" | b"no" | b"No" | b"NO" | b"off" | b"Off" | b"OFF" => Ok(false),
        _ => Err(s.pos.error("true or false (invalid boolean)")),
    }
}

fn header<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, key: &Key<'a>) -> Result<Pos> {
    if !r.value_is_nested()? {
        return Err(key.pos.error("a block mapping under 'header'"));
    }
    let mut map = r.nested_mapping(0, key.pos)?;
    let indent = map.indent();
    let mut seen = Seen::default();
    let mut version_pos = key.pos;
    let keep = p.keep;
    while let Some(k) = r.next_key(&mut map)? {
        let h = &mut p.header;
        match &*k.name {
            b"profile-version" => {
                seen.mark(0, &k)?;
                let s = r.scalar()?;
                version_pos = s.pos;
                h.version = u32_of(&s)?;
            }
            b"binary-name" => {
                seen.mark(1, &k)?;
                h.binary_name = keep(r.scalar()?.text);
            }
            b"binary-build-id" => {
                seen.mark(2, &k)?;
                h.build_id = keep(r.scalar()?.text);
            }
            b"profile-flags" => {
                seen.mark(3, &k)?;
                h.flags = flags(r)?;
            }
            b"profile-origin" => {
                seen.mark(4, &k)?;
                h.origin = keep(r.scalar()?.text);
            }
            b"profile-events" => {
                seen.mark(5, &k)?;
                h.events = keep(r.scalar()?.text);
            }
            b"dfs-order" => {
                seen.mark(6, &k)?;
                h.dfs_order = bool_of(&r.scalar()?)?;
            }
            b"hash-func" => {
                seen.mark(7, &k)?;
                let s = r.scalar()?;
                h.hash_function = match &*s.text {
                    b"std-hash" => HashFunction::StdHash,
                    b"xxh3" => HashFunction::Xxh3,
                    _ => return Err(s.pos.error("std-hash or xxh3 (unknown enumerated scalar)")),
                };
            }
            _ => unknown(r, p, k, indent)?,
        }
    }
    seen.require(
        &[
            (0, "missing required key 'profile-version'"),
            (1, "missing required key 'binary-name'"),
            (3, "missing required key 'profile-flags'"),
        ],
        key.pos,
    )?;
    Ok(version_pos)
}

/// `profile-flags: [ lbr, sample, memevent ]`.
fn flags(r: &mut Reader<'_>) -> Result<ProfileFlags> {
    let mut flow = r.flow(b'[')?;
    let mut flags = 0u16;
    while r.next_entry(&mut flow)? {
        let s = r.flow_scalar()?;
        let Some(&(bit, _)) = ProfileFlags::NAMES.iter().find(|(_, name)| name.as_bytes() == &*s.text) else {
            return Err(s.pos.error("lbr, sample or memevent (unknown bit value)"));
        };
        flags |= bit;
    }
    r.end_flow_value()?;
    Ok(ProfileFlags(flags))
}

/// A block sequence under a key, or `[]`. Calls `item` for each element's mapping.
fn block_sequence<'a, 'p>(
    r: &mut Reader<'a>,
    p: &mut Out<'a, 'p>,
    key: &Key<'a>,
    parent: usize,
    mut item: impl FnMut(&mut Reader<'a>, &mut Out<'a, 'p>, Mapping) -> Result<()>,
) -> Result<()> {
    if !r.value_is_nested()? {
        let mut flow = r.flow(b'[')?;
        if r.next_entry(&mut flow)? {
            return Err(r.here().error("a block sequence ('- ' items), or [] for none"));
        }
        return r.end_flow_value();
    }
    let mut seq = r.nested_sequence(parent, key.pos)?;
    while let Some(map) = r.next_item(&mut seq)? {
        item(r, p, map)?;
    }
    Ok(())
}

fn functions<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, key: &Key<'a>) -> Result<()> {
    block_sequence(r, p, key, 0, function)
}

fn function<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, mut map: Mapping) -> Result<()> {
    let indent = map.indent();
    let pos = r.here();
    let mut f = Function { line: pos.line, ..Function::default() };
    let mut seen = Seen::default();
    while let Some(k) = r.next_key(&mut map)? {
        match &*k.name {
            b"name" => {
                seen.mark(0, &k)?;
                f.name = (p.keep)(r.scalar()?.text);
            }
            b"fid" => {
                seen.mark(1, &k)?;
                f.id = u32_of(&r.scalar()?)?;
            }
            b"hash" => {
                seen.mark(2, &k)?;
                f.hash = hex64_of(&r.scalar()?)?;
            }
            b"exec" => {
                seen.mark(3, &k)?;
                f.exec = u64_of(&r.scalar()?)?;
            }
            b"extern" => {
                seen.mark(4, &k)?;
                f.extern_entries = u64_of(&r.scalar()?)?;
            }
            b"nblocks" => {
                seen.mark(5, &k)?;
                f.block_count = u32_of(&r.scalar()?)?;
            }
            b"blocks" => {
                seen.mark(6, &k)?;
                let start = p.blocks.len();
                block_sequence(r, p, &k, indent, block)?;
                f.blocks = Span::since(start, &p.blocks);
            }
            b"inline_tree" => {
                seen.mark(7, &k)?;
                f.inline_tree = inline_tree(r, p)?;
            }
            _ => unknown(r, p, k, indent)?,
        }
    }
    seen.require(
        &[
            (0, "missing required key 'name'"),
            (1, "missing required key 'fid'"),
            (2, "missing required key 'hash'"),
            (3, "missing required key 'exec'"),
            (5, "missing required key 'nblocks'"),
        ],
        pos,
    )?;
    p.functions.push(f);
    Ok(())
}

fn block<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, mut map: Mapping) -> Result<()> {
    let indent = map.indent();
    let pos = r.here();
    let mut b = Block::default();
    let mut extra = BlockExtra::default();
    let mut seen = Seen::default();
    while let Some(k) = r.next_key(&mut map)? {
        match &*k.name {
            b"bid" => {
                seen.mark(0, &k)?;
                b.index = u32_of(&r.scalar()?)?;
            }
            b"insns" => {
                seen.mark(1, &k)?;
                b.instructions = u32_of(&r.scalar()?)?;
            }
            b"hash" => {
                seen.mark(2, &k)?;
                b.hash = hex64_of(&r.scalar()?)?;
            }
            b"exec" => {
                seen.mark(3, &k)?;
                b.exec = u64_of(&r.scalar()?)?;
            }
            b"events" => {
                seen.mark(4, &k)?;
                extra.events = u64_of(&r.scalar()?)?;
            }
            b"calls" => {
                seen.mark(5, &k)?;
                b.calls = calls(r, p)?;
            }
            b"succ" => {
                seen.mark(6, &k)?;
                b.successors = successors(r, p)?;
            }
            b"probes" => {
                seen.mark(7, &k)?;
                extra.probes = probes(r, p)?;
            }
            _ => unknown(r, p, k, indent)?,
        }
    }
    seen.require(&[(0, "missing required key 'bid'"), (1, "missing required key 'insns'")], pos)?;
    if !extra.is_empty() {
        extra.block = u32::try_from(p.blocks.len()).map_err(|_| pos.error("fewer than 2^32 blocks"))?;
        p.block_extras.push(extra);
    }
    p.blocks.push(b);
    Ok(())
}

/// A flow sequence of flow mappings, each read by `entry` key by key; `done`
/// checks the required keys and stores the element.
fn flow_maps<'a, 'p, T: Default>(
    r: &mut Reader<'a>,
    p: &mut Out<'a, 'p>,
    mut entry: impl FnMut(&mut Reader<'a>, &mut T, &Key<'a>, &mut Seen) -> Result<bool>,
    mut done: impl FnMut(&mut Out<'a, 'p>, T, &Seen, Pos) -> Result<()>,
) -> Result<()> {
    let mut seq = r.flow(b'[')?;
    while r.next_entry(&mut seq)? {
        let pos = r.here();
        let mut map = r.flow(b'{')?;
        let mut value = T::default();
        let mut seen = Seen::default();
        while r.next_entry(&mut map)? {
            let key = r.flow_key()?;
            if !entry(r, &mut value, &key, &mut seen)? {
                unknown_in_flow(r, p, key)?;
            }
        }
        done(p, value, &seen, pos)?;
    }
    r.end_flow_value()
}

fn calls<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>) -> Result<Span> {
    let start = p.calls.len();
    flow_maps(
        r,
        p,
        |r, c: &mut CallSite, k, seen| {
            match &*k.name {
                b"off" => {
                    seen.mark(0, k)?;
                    c.offset = hex32_of(&r.flow_scalar()?)?;
                }
                b"fid" => {
                    seen.mark(1, k)?;
                    c.callee = u32_of(&r.flow_scalar()?)?;
                }
                b"disc" => {
                    seen.mark(2, k)?;
                    c.entry_discriminator = u32_of(&r.flow_scalar()?)?;
                }
                b"cnt" => {
                    seen.mark(3, k)?;
                    c.count = u64_of(&r.flow_scalar()?)?;
                }
                b"mis" => {
                    seen.mark(4, k)?;
                    c.mispredicts = u64_of(&r.flow_scalar()?)?;
                }
                b"pp" => {
                    seen.mark(5, k)?;
                    c.probe = u32_of(&r.flow_scalar()?)?;
                }
                b"ppn" => {
                    seen.mark(6, k)?;
                    c.inline_node = u32_of(&r.flow_scalar()?)?;
                }
                b"ind" => {
                    seen.mark(7, k)?;
                    c.indirect = bool_of(&r.flow_scalar()?)?;
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
        |p, c, seen, pos| {
            seen.require(
                &[
                    (0, "missing required key 'off'"),
                    (1, "missing required key 'fid'"),
                    (3, "missing required key 'cnt'"),
                ],
                pos,
            )?;
            p.calls.push(c);
            Ok(())
        },
    )?;
    Ok(Span::since(start, &p.calls))
}

fn successors<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>) -> Result<Span> {
    let start = p.successors.len();
    flow_maps(
        r,
        p,
        |r, s: &mut Successor, k, seen| {
            match &*k.name {
                b"bid" => {
                    seen.mark(0, k)?;
                    s.index = u32_of(&r.flow_scalar()?)?;
                }
                b"cnt" => {
                    seen.mark(1, k)?;
                    s.count = u64_of(&r.flow_scalar()?)?;
                }
                b"mis" => {
                    seen.mark(2, k)?;
                    s.mispredicts = u64_of(&r.flow_scalar()?)?;
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
        |p, s, seen, pos| {
            seen.require(&[(0, "missing required key 'bid'"), (1, "missing required key 'cnt'")], pos)?;
            p.successors.push(s);
            Ok(())
        },
    )?;
    Ok(Span::since(start, &p.successors))
}

/// A flow sequence of numbers, appended to `out`.
fn numbers<T>(r: &mut Reader<'_>, out: &mut Vec<T>, read: impl Fn(&Scalar<'_>) -> Result<T>) -> Result<()> {
    let mut flow = r.flow(b'[')?;
    while r.next_entry(&mut flow)? {
        out.push(read(&r.flow_scalar()?)?);
    }
    Ok(())
}

/// What a probe set's keys held while its mapping is read.
#[derive(Default)]
struct ProbeKeys {
    ids: Option<Span>,
    nodes: Option<Span>,
}

fn probes<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>) -> Result<Span> {
    let start = p.probes.len();
    // The lists go straight into the profile's arrays while the mapping is read.
    let mut seq = r.flow(b'[')?;
    while r.next_entry(&mut seq)? {
        let mut map = r.flow(b'{')?;
        let mut keys = ProbeKeys::default();
        let mut seen = Seen::default();
        while r.next_entry(&mut map)? {
            let k = r.flow_key()?;
            match &*k.name {
                b"blk" => {
                    seen.mark(0, &k)?;
                    let at = p.probe_ids.len();
                    numbers(r, &mut p.probe_ids, u64_of)?;
                    keys.ids = Some(Span::since(at, &p.probe_ids));
                }
                b"ids" => {
                    seen.mark(1, &k)?;
                    let at = p.probe_nodes.len();
                    numbers(r, &mut p.probe_nodes, u32_of)?;
                    keys.nodes = Some(Span::since(at, &p.probe_nodes));
                }
                _ => unknown_in_flow(r, p, k)?,
            }
        }
        // Absent lists take LLVM's defaults, `blk: [ 1 ]` and `ids: [ 0 ]`.
        let block_probes = match keys.ids {
            Some(span) => span,
            None => {
                let at = p.probe_ids.len();
                p.probe_ids.push(1);
                Span::since(at, &p.probe_ids)
            }
        };
        let inline_nodes = match keys.nodes {
            Some(span) => span,
            None => {
                let at = p.probe_nodes.len();
                p.probe_nodes.push(0);
                Span::since(at, &p.probe_nodes)
            }
        };
        p.probes.push(ProbeSet { block_probes, inline_nodes });
    }
    r.end_flow_value()?;
    Ok(Span::since(start, &p.probes))
}

fn inline_tree<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>) -> Result<Span> {
    let start = p.inline_tree.len();
    flow_maps(
        r,
        p,
        |r, n: &mut InlineTreeNode, k, seen| {
            match &*k.name {
                b"g" => {
                    seen.mark(0, k)?;
                    n.guid_index = u32_of(&r.flow_scalar()?)?;
                }
                b"p" => {
                    seen.mark(1, k)?;
                    n.parent_delta = u32_of(&r.flow_scalar()?)?;
                }
                b"cs" => {
                    seen.mark(2, k)?;
                    n.call_site_probe = u32_of(&r.flow_scalar()?)?;
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
        |p, n, _, _| {
            p.inline_tree.push(n);
            Ok(())
        },
    )?;
    Ok(Span::since(start, &p.inline_tree))
}

fn probe_desc<'a, 'p>(r: &mut Reader<'a>, p: &mut Out<'a, 'p>, key: &Key<'a>) -> Result<()> {
    if !r.value_is_nested()? {
        return Err(key.pos.error("a block mapping under 'pseudo_probe_desc'"));
    }
    let mut map = r.nested_mapping(0, key.pos)?;
    let indent = map.indent();
    let mut seen = Seen::default();
    while let Some(k) = r.next_key(&mut map)? {
        match &*k.name {
            b"gs" => {
                seen.mark(0, &k)?;
                numbers(r, &mut p.probe_desc.guids, hex64_of)?;
                r.end_flow_value()?;
            }
            b"gh" => {
                seen.mark(1, &k)?;
                numbers(r, &mut p.probe_desc.guid_hash_index, u32_of)?;
                r.end_flow_value()?;
            }
            b"hs" => {
                seen.mark(2, &k)?;
                numbers(r, &mut p.probe_desc.hashes, hex64_of)?;
                r.end_flow_value()?;
            }
            _ => unknown(r, p, k, indent)?,
        }
    }
    seen.require(
        &[(0, "missing required key 'gs'"), (1, "missing required key 'gh'"), (2, "missing required key 'hs'")],
        key.pos,
    )
}

#[cfg(test)]
mod tests {
    use super::llvm_unsigned;

    #[test]
    fn numbers_sense_their_radix_as_llvm_does() {
        assert_eq!(llvm_unsigned(b"0x5C9FDA452E4932B2"), Some(0x5C9F_DA45_2E49_32B2));
        assert_eq!(llvm_unsigned(b"0"), Some(0));
        assert_eq!(llvm_unsigned(b"010"), Some(8));
        assert_eq!(llvm_unsigned(b"0b101"), Some(5));
        assert_eq!(llvm_unsigned(b"08"), None);
        assert_eq!(llvm_unsigned(b"0x"), None);
        assert_eq!(llvm_unsigned(b"-1"), None);
        assert_eq!(llvm_unsigned(b"18446744073709551616"), None);
        assert_eq!(llvm_unsigned(b"18446744073709551615"), Some(u64::MAX));
    }

    #[test]
    fn numbers_overflow_only_past_u64_whatever_their_digits() {
        // The longest strings read without overflow checks, and one digit more.
        assert_eq!(llvm_unsigned(b"9999999999999999999"), Some(9_999_999_999_999_999_999));
        assert_eq!(llvm_unsigned(b"99999999999999999999"), None);
        assert_eq!(llvm_unsigned(b"0xFFFFFFFFFFFFFFFF"), Some(u64::MAX));
        assert_eq!(llvm_unsigned(b"0x1FFFFFFFFFFFFFFFF"), None);
        assert_eq!(llvm_unsigned(b"0x00000000000000001"), Some(1), "leading zeros are not overflow");
        assert_eq!(llvm_unsigned(b"01777777777777777777777"), Some(u64::MAX));
        assert_eq!(llvm_unsigned(b"02000000000000000000000"), None);
        let ones = [b'1'; 64];
        assert_eq!(llvm_unsigned(&[b"0b".as_slice(), &ones].concat()), Some(u64::MAX));
        assert_eq!(llvm_unsigned(&[b"0b1".as_slice(), &ones].concat()), None);
        assert_eq!(llvm_unsigned(b"0x12G4"), None, "a bad digit inside the fast path");
    }
}
