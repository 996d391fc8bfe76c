//! BOLT Address Translation: the `.note.bolt_bat` ELF note of a BOLTed binary,
//! and the `.note.bolt_info` note beside it.
//!
//! Implements the tables as BOLT 22 writes and reads them
//! (`bolt/lib/Profile/BoltAddressTranslation.cpp`, `BoltAddressTranslation::writeMaps`
//! and `parseMaps`), and the older layout of `bolt/docs/BAT.md` (early 2024, the
//! seed document). Neither carries a version: [`decode`] keeps the one that reads
//! the whole descriptor consistently, and says which in [`Bat::encoding`].
//!
//! ```text
//! note:  namesz u32 | descsz u32 | type u32 (1) | "BOLT\0" pad4 | descriptor | pad4
//!        (always little-endian, whatever the target)
//!
//! descriptor:
//!   NumFuncs ULEB, then per hot function:
//!     Address ULEB delta (continuous) | FuncHash u64 | NumBlocks ULEB
//!     | NumSecEntryPoints ULEB | NumEntries ULEB | EqualElems ULEB
//!     | BranchEntries ceil(EqualElems/8) bytes
//!     | NumEntries × ( OutputAddress ULEB delta (continuous)
//!                    | InputValue SLEB delta        (entries ≥ EqualElems)
//!                    | BBHash u64 | BBIndex ULEB delta   (block entries) )
//!     | NumSecEntryPoints × offset ULEB delta
//!   NumFuncs ULEB, then per cold fragment:
//!     Address ULEB delta | HotIndex ULEB delta | ColdInputSkew ULEB
//!     | NumEntries | EqualElems | BranchEntries | entries (as above)
//! ```
//!
//! "Continuous": one running address for the whole descriptor, advanced by every
//! function address and every entry's output address, hot table then cold table.
//! An entry's input value is `input offset << 1 | BRANCHENTRY`; BRANCHENTRY marks a
//! branch or call instruction, its absence the start of a basic block. The first
//! `EqualElems` entries of a function have `output offset + ColdInputSkew == input
//! offset`: their input value is not stored, its BRANCHENTRY bit comes from the
//! `BranchEntries` bitmask (bit `j` of byte `j / 8`).
//!
//! The older encoding has no FuncHash, NumBlocks, NumSecEntryPoints,
//! ColdInputSkew, BBHash, BBIndex or secondary entry points, and cold fragments have
//! neither EqualElems nor BranchEntries (every cold entry stores both deltas).
//!
//! Every decoded value keeps its absolute byte span, so [`dump`] shows each field
//! down to each entry. Layout notes: `shared/formats/bolt-profiles.md`.

mod decode;
mod dump;
mod note;

use alloc::vec::Vec;

pub use decode::{decode, decode_at};
pub use dump::{dump_bat, dump_info_note, dump_note};
pub use note::{find_info, find_note, info_from_elf, Info, Note, BAT_SECTION, INFO_SECTION};

use crate::error::Result;

/// `NT_BOLT_BAT`, the note type of `.note.bolt_bat`.
pub const NT_BOLT_BAT: u32 = 1;
/// `NT_GNU_GOLD_VERSION`, the note type BOLT gives `.note.bolt_info` (owner `GNU`).
pub const NT_GNU_GOLD_VERSION: u32 = 4;
/// The low bit of an entry's input value: the entry is a branch or call
/// instruction, not the start of a basic block.
pub const BRANCHENTRY: u64 = 1;

/// Absolute byte range `start..end` of the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
}

impl Span {
    pub fn len(self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// A value as stored, with the bytes it was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub span: Span,
    pub value: T,
}

/// A delta-encoded field: the stored delta and the value it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delta {
    pub span: Span,
    pub delta: u64,
    pub value: u64,
}

/// Which of the two unversioned layouts the descriptor is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// As BOLT 22 writes it: function and block hashes, block indices, block
    /// counts, secondary entry points, ColdInputSkew, EqualElems in both tables.
    Current,
    /// As `bolt/docs/BAT.md` (the seed) and the LLVM source of early 2024
    /// (`01c12317`) have it: EqualElems and BranchEntries in hot functions only,
    /// nothing but the offsets otherwise.
    Older,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Current => "current (BOLT 22: hashes, block indices, secondary entry points)",
            Encoding::Older => "older (BAT.md: offsets only)",
        }
    }
}

/// The decoded descriptor of a `.note.bolt_bat` note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bat {
    pub encoding: Encoding,
    /// The descriptor's bytes.
    pub span: Span,
    /// Functions as laid out in the output binary (their main fragment).
    pub hot: Table,
    /// Split-off fragments of the hot functions.
    pub cold: Table,
}

/// One functions table: `NumFuncs`, then the functions in address order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub span: Span,
    pub count: Spanned<u64>,
    pub functions: Vec<Function>,
}

/// A hot function or a cold fragment with its translation entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub span: Span,
    /// Output address: a delta from the running address (continuous encoding).
    pub address: Delta,
    /// Cold fragments: the index of the hot function in [`Bat::hot`], delta-encoded
    /// from the previous fragment's.
    pub hot_index: Option<Delta>,
    /// Cold fragments, current encoding: the input offset of the fragment's first
    /// entry, added to output offsets of its equal-offset entries.
    pub input_skew: Option<Spanned<u64>>,
    /// Hot functions, current encoding: the input function's hash (`FuncHash`).
    pub hash: Option<Spanned<u64>>,
    /// Hot functions, current encoding: basic blocks of the input function.
    pub num_blocks: Option<Spanned<u64>>,
    /// Hot functions, current encoding: `NumSecEntryPoints`.
    pub num_secondary_entry_points: Option<Spanned<u64>>,
    pub num_entries: Spanned<u64>,
    /// `EqualElems`: absent in cold fragments of the older encoding.
    pub equal_elems: Option<Spanned<u64>>,
    /// The `BranchEntries` bitmask bytes, present when EqualElems is not zero.
    pub branch_entries: Option<Span>,
    pub entries: Vec<Entry>,
    /// Offsets (in the input function) of secondary entry points.
    pub secondary_entry_points: Vec<SecondaryEntryPoint>,
}

impl Function {
    pub fn is_cold(&self) -> bool {
        self.hot_index.is_some()
    }

    /// The entries that start a basic block (no BRANCHENTRY bit).
    pub fn blocks(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| !e.is_branch())
    }
}

/// One translation entry: an output offset and what it maps to in the input.
///
/// Its fields lie back to back from `start`: output delta, input delta (absent for
/// equal-offset entries), block hash and block index delta (current encoding, block
/// entries only). The lengths are kept, not the spans, to keep entries small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Absolute offset of the entry's first byte.
    pub start: u64,
    /// The stored ULEB delta from the running output address.
    pub output_delta: u64,
    pub output_delta_len: u8,
    /// Offset from the function's (fragment's) output address.
    pub output_offset: u64,
    /// The stored SLEB delta from the previous entry's input value; `None` for
    /// the first `EqualElems` entries, whose input value is implied.
    pub input_delta: Option<i64>,
    pub input_delta_len: u8,
    /// `input offset << 1 | BRANCHENTRY`, as BOLT's map keeps it.
    pub input: u64,
    /// Block entries of the current encoding: hash and index in the input function.
    pub block: Option<BlockInfo>,
}

/// `BBHash` and `BBIndex` of a block entry (current encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockInfo {
    pub hash: u64,
    /// The stored ULEB delta from the previous block entry's index (BOLT computes it
    /// in unsigned 64-bit arithmetic, so a smaller index wraps around).
    pub index_delta: u64,
    pub index_delta_len: u8,
    pub index: u64,
}

/// The spans of an entry's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntrySpans {
    pub output: Span,
    pub input: Option<Span>,
    pub hash: Option<Span>,
    pub index: Option<Span>,
}

impl Entry {
    /// Offset in the input function.
    pub fn input_offset(&self) -> u64 {
        self.input >> 1
    }

    pub fn is_branch(&self) -> bool {
        self.input & BRANCHENTRY != 0
    }

    pub fn spans(&self) -> EntrySpans {
        let mut at = self.start;
        let mut next = |len: u8| {
            let span = Span { start: at, end: at.saturating_add(u64::from(len)) };
            at = span.end;
            span
        };
        let output = next(self.output_delta_len);
        let input = self.input_delta.map(|_| next(self.input_delta_len));
        let hash = self.block.map(|_| next(8));
        let index = self.block.map(|b| next(b.index_delta_len));
        EntrySpans { output, input, hash, index }
    }

    pub fn span(&self) -> Span {
        let s = self.spans();
        let end = [Some(s.output), s.input, s.hash, s.index].iter().flatten().map(|s| s.end).max();
        Span { start: self.start, end: end.unwrap_or(self.start) }
    }
}

/// A secondary entry point: its offset in the input function, delta-encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecondaryEntryPoint {
    pub span: Span,
    pub delta: u64,
    /// BOLT keeps these offsets as 32-bit values.
    pub offset: u32,
}

impl Bat {
    /// The hot function a cold fragment belongs to.
    pub fn parent(&self, fragment: &Function) -> Option<&Function> {
        let index = usize::try_from(fragment.hot_index?.value).ok()?;
        self.hot.functions.get(index)
    }

    /// Hot functions and cold fragments, in table order.
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.hot.functions.iter().chain(self.cold.functions.iter())
    }
}

/// The BAT tables of an ELF file, if it has a `.note.bolt_bat` note.
pub fn from_elf(elf: &[u8]) -> Result<Option<Bat>> {
    match find_note(elf)? {
        Some(note) => decode_at(elf, note.desc.span.start, note.desc.span.len()).map(Some),
        None => Ok(None),
    }
}
