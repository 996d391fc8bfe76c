//! BOLT fdata: `[boltedcollection]`, `[no_lbr EVENTS]`, then lines of
//! `KIND NAME OFFSET` locations with counts: branch lines (or, after `no_lbr`,
//! sample lines), then memory lines. perf2bolt writes it, llvm-bolt `-data` reads it,
//! `merge-fdata` merges it.
//!
//! [`decode`] reads it as llvm-bolt 22's `DataReader` does (same acceptance, errors at
//! the same line and column) into the faithful [`Fdata`]; [`write`] writes it back as
//! perf2bolt does; [`merge`] is `merge-fdata`.

mod decode;
mod merge;
mod write;

use alloc::borrow::Cow;
use alloc::vec::Vec;

pub use self::decode::{decode, read, read_header, Header, Record};
pub use self::merge::{merge, merge_parts, MergeError, Merger};
pub use self::write::{write, write_location, write_name};
use crate::format::{Detection, Format};
use crate::read::{fields, head_lines, is_decimal, is_hex};

/// The first field of a location: is the name a symbol (`1`, `2` for a local
/// one) or a DSO (`0`)? Memory lines add 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SymbolKind {
    NotSymbol,
    Symbol,
    LocalSymbol,
}

impl SymbolKind {
    fn from_digit(digit: u8) -> Option<Self> {
        match digit {
            b'0' | b'3' => Some(SymbolKind::NotSymbol),
            b'1' | b'4' => Some(SymbolKind::Symbol),
            b'2' | b'5' => Some(SymbolKind::LocalSymbol),
            _ => None,
        }
    }

    /// The digit written for it on a branch or sample line (`memory` adds 3).
    pub fn digit(self, memory: bool) -> u8 {
        let base = match self {
            SymbolKind::NotSymbol => b'0',
            SymbolKind::Symbol => b'1',
            SymbolKind::LocalSymbol => b'2',
        };
        if memory {
            base.wrapping_add(3)
        } else {
            base
        }
    }

    pub fn is_symbol(self) -> bool {
        self != SymbolKind::NotSymbol
    }
}

/// `KIND NAME OFFSET`: a place in a function (or a DSO, or a data object).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location<'a> {
    pub kind: SymbolKind,
    /// The name as written: backslash escapes kept (BOLT keeps them too).
    pub name: Cow<'a, [u8]>,
    pub offset: u64,
}

impl Location<'_> {
    /// The name with its escapes resolved.
    pub fn unescaped_name(&self) -> Cow<'_, [u8]> {
        unescape(&self.name)
    }

    pub fn into_owned(self) -> Location<'static> {
        Location { kind: self.kind, name: Cow::Owned(self.name.into_owned()), offset: self.offset }
    }
}

/// A backslash escapes the byte after it.
pub fn unescape(name: &[u8]) -> Cow<'_, [u8]> {
    if !name.contains(&b'\\') {
        return Cow::Borrowed(name);
    }
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        if b == b'\\' {
            out.extend(bytes.next());
        } else {
            out.push(b);
        }
    }
    Cow::Owned(out)
}

/// A branch line: `FROM TO MISPREDS COUNT` (counts are signed, as BOLT reads them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch<'a> {
    pub from: Location<'a>,
    pub to: Location<'a>,
    pub mispredicted: i64,
    pub count: i64,
    /// 1-based line in the file (0 when the record was not read from one).
    pub line: u64,
}

/// A sample line of a `no_lbr` profile: `AT COUNT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample<'a> {
    pub at: Location<'a>,
    pub count: i64,
    pub line: u64,
}

/// A memory line: the instruction (`pc`) and the data it accessed, `COUNT` times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryAccess<'a> {
    pub pc: Location<'a>,
    pub address: Location<'a>,
    pub count: i64,
    pub line: u64,
}

/// An fdata profile, record by record in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fdata<'a> {
    /// `boltedcollection`: collected on a BOLTed binary, offsets already translated
    /// to the input binary (BAT).
    pub bolted_collection: bool,
    /// `no_lbr [EVENT...]`: basic samples instead of branches, with the events named.
    pub no_lbr: Option<Vec<Cow<'a, [u8]>>>,
    pub branches: Vec<Branch<'a>>,
    pub samples: Vec<Sample<'a>>,
    pub memory: Vec<MemoryAccess<'a>>,
    /// BOLT stops at the first line that starts with no record kind and ignores the
    /// rest: that line, as a warning.
    pub ignored_from_line: Option<u64>,
}

fn is_count(field: &[u8]) -> bool {
    is_decimal(field.strip_prefix(b"-").unwrap_or(field))
}

fn is_kind(field: &[u8], kinds: core::ops::RangeInclusive<u8>) -> bool {
    matches!(field, [k] if kinds.contains(k))
}

/// `0|1|2 NAME HEX 0|1|2 NAME HEX MISPREDS COUNT` (branch), `3|4|5 … 3|4|5 … COUNT`
/// (memory), or `0|1|2 NAME HEX COUNT` (sample, after `no_lbr`).
pub fn is_data_line(line: &[u8], no_lbr: bool) -> bool {
    let f: Vec<&[u8]> = fields(line).collect();
    match f.as_slice() {
        [k1, _, o1, k2, _, o2, m, c] => {
            is_kind(k1, b'0'..=b'2')
                && is_kind(k2, b'0'..=b'2')
                && is_hex(o1)
                && is_hex(o2)
                && is_count(m)
                && is_count(c)
        }
        [k1, _, o1, k2, _, o2, c] => {
            is_kind(k1, b'3'..=b'5') && is_kind(k2, b'3'..=b'5') && is_hex(o1) && is_hex(o2) && is_count(c)
        }
        [k, _, o, c] => no_lbr && is_kind(k, b'0'..=b'2') && is_hex(o) && is_count(c),
        _ => false,
    }
}

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let mut detection = Detection::new(Format::BoltFdata);
    let mut no_lbr = false;
    for line in head_lines(data).filter(|l| !l.is_empty()).take(3) {
        if line == b"boltedcollection" {
            detection = detection.flag("boltedcollection");
        } else if line.starts_with(b"no_lbr") {
            no_lbr = true;
            detection = detection.flag("no_lbr");
        } else {
            return is_data_line(line, no_lbr).then_some(detection);
        }
    }
    // Only header lines: still an fdata file, if an empty one.
    (!detection.flags.is_empty()).then_some(detection)
}
