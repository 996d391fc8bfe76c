//! Decoded MemProf data: allocation sites with their call stacks and metrics.
//!
//! Two shapes, as LLVM has them: the raw profile the runtime writes (segments,
//! MemInfoBlocks keyed by a stack id, stacks of return addresses), and the indexed
//! section of a `.profdata` (per function GUID its allocation sites, whose call
//! stacks are symbolized frames, and its call sites).

use alloc::vec::Vec;

/// A `Meta` tag of the MemProf schema (`MIBEntryDef.inc`); 0 is `Meta::Start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Meta(pub u64);

/// Name and on-disk width of every `Meta` tag from 1, in `MIBEntryDef.inc` order
/// (which is also the raw `MemInfoBlock` field order). `AccessHistogram` is a
/// `uintptr_t`: 8 bytes on the 64-bit targets MemProf supports.
pub const FIELDS: [(&str, u8); 27] = [
    ("AllocCount", 4),
    ("TotalAccessCount", 8),
    ("MinAccessCount", 8),
    ("MaxAccessCount", 8),
    ("TotalSize", 8),
    ("MinSize", 4),
    ("MaxSize", 4),
    ("AllocTimestamp", 4),
    ("DeallocTimestamp", 4),
    ("TotalLifetime", 8),
    ("MinLifetime", 4),
    ("MaxLifetime", 4),
    ("AllocCpuId", 4),
    ("DeallocCpuId", 4),
    ("NumMigratedCpu", 4),
    ("NumLifetimeOverlaps", 4),
    ("NumSameAllocCpu", 4),
    ("NumSameDeallocCpu", 4),
    ("DataTypeId", 8),
    ("TotalAccessDensity", 8),
    ("MinAccessDensity", 4),
    ("MaxAccessDensity", 4),
    ("TotalLifetimeAccessDensity", 8),
    ("MinLifetimeAccessDensity", 4),
    ("MaxLifetimeAccessDensity", 4),
    ("AccessHistogramSize", 4),
    ("AccessHistogram", 8),
];

impl Meta {
    pub const ALLOC_COUNT: Meta = Meta(1);
    pub const TOTAL_SIZE: Meta = Meta(5);
    pub const TOTAL_LIFETIME: Meta = Meta(10);
    pub const ACCESS_HISTOGRAM_SIZE: Meta = Meta(26);
    pub const ACCESS_HISTOGRAM: Meta = Meta(27);

    fn entry(self) -> Option<(&'static str, u8)> {
        let index = usize::try_from(self.0).ok()?.checked_sub(1)?;
        FIELDS.get(index).copied()
    }

    /// The field's name, for a known tag.
    pub fn name(self) -> Option<&'static str> {
        self.entry().map(|(name, _)| name)
    }

    /// The field's width in bytes, for a known tag.
    pub fn width(self) -> Option<u8> {
        self.entry().map(|(_, width)| width)
    }
}

/// A `MemInfoBlock` (raw) or `PortableMemInfoBlock` (indexed): the fields present,
/// in the order the file gave them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemInfoBlock {
    pub fields: Vec<(Meta, u64)>,
    /// The access histogram's counts (raw v4+; decoded from 16 bits in v5).
    pub histogram: Vec<u64>,
}

impl MemInfoBlock {
    pub fn get(&self, meta: Meta) -> Option<u64> {
        self.fields.iter().find(|(m, _)| *m == meta).map(|&(_, v)| v)
    }
}

/// A symbolized frame (`memprof::Frame`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// GUID: MD5 of the function's canonical name.
    pub function: u64,
    /// Line relative to the function's start.
    pub line_offset: u32,
    pub column: u32,
    pub is_inline: bool,
}

/// An allocation context: the call stack from the allocation (leaf first) to the
/// root, and what the runtime measured there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllocSite {
    pub call_stack: Vec<Frame>,
    pub info: MemInfoBlock,
}

/// A call site in the function, with (from version 4) its possible callees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallSite {
    pub frames: Vec<Frame>,
    pub callee_guids: Vec<u64>,
}

/// `IndexedMemProfRecord`, resolved: everything known about one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub guid: u64,
    pub alloc_sites: Vec<AllocSite>,
    pub call_sites: Vec<CallSite>,
}

/// The MemProf section of an indexed profile (versions 2 to 4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexedMemProf {
    pub version: u64,
    pub schema: Vec<Meta>,
    /// Version 4's summary fields: NumContexts, NumColdContexts, NumHotContexts,
    /// MaxColdTotalSize, MaxWarmTotalSize, MaxHotTotalSize (more if a later
    /// writer adds them). Empty before version 4.
    pub summary: Vec<u64>,
    /// In the order of the records' hash table.
    pub records: Vec<Record>,
}

/// A mapped segment of the profiled process (`SegmentEntry`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    pub start: u64,
    pub end: u64,
    pub offset: u64,
    /// The build id (its first `BuildIdSize` bytes; all 32 before version 3).
    pub build_id: Vec<u8>,
}

/// One MemInfoBlock of a raw profile and the stack it was recorded at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawMib {
    pub stack_id: u64,
    pub info: MemInfoBlock,
}

/// A call stack of a raw profile: return addresses, leaf first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawStack {
    pub id: u64,
    pub pcs: Vec<u64>,
}

/// One profile of a raw MemProf file (a file may hold several).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawProfile {
    pub version: u64,
    pub segments: Vec<Segment>,
    pub mibs: Vec<RawMib>,
    pub stacks: Vec<RawStack>,
}

impl RawProfile {
    /// The stack a MemInfoBlock points at.
    pub fn stack(&self, id: u64) -> Option<&RawStack> {
        self.stacks.iter().find(|s| s.id == id)
    }
}
