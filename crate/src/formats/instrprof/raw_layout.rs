//! The layout of a raw profile (`.profraw`) that both its dump ([`super::raw`]) and
//! its decoder ([`super::decode_raw`]) follow: the magic, the header fields of each
//! raw version, the size of a data record and the padding rules.

use crate::read::Endian;

/// `\xfflprofr\x81` as a u64; `\xfflprofR\x81` for 32-bit producers.
pub const MAGIC_64: u64 = 0xff6c_7072_6f66_7281;
pub const MAGIC_32: u64 = 0xff6c_7072_6f66_5281;

pub(crate) fn magic_of(data: &[u8]) -> Option<(Endian, u8)> {
    let head = data.get(..8)?;
    let mut magic = [0u8; 8];
    magic.copy_from_slice(head);
    let (le, be) = (u64::from_le_bytes(magic), u64::from_be_bytes(magic));
    Some(match (le, be) {
        (MAGIC_64, _) => (Endian::Little, 64),
        (_, MAGIC_64) => (Endian::Big, 64),
        (MAGIC_32, _) => (Endian::Little, 32),
        (_, MAGIC_32) => (Endian::Big, 32),
        _ => return None,
    })
}

/// The header fields after Magic and Version, per raw version (`__llvm_profile_header`).
pub(crate) fn header_fields(version: u64) -> Option<&'static [&'static str]> {
    Some(match version {
        5 => &[
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NamesSize",
            "CountersDelta",
            "NamesDelta",
            "ValueKindLast",
        ],
        7 | 8 => &[
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NamesSize",
            "CountersDelta",
            "NamesDelta",
            "ValueKindLast",
        ],
        9 => &[
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NumBitmapBytes",
            "PaddingBytesAfterBitmapBytes",
            "NamesSize",
            "CountersDelta",
            "BitmapDelta",
            "NamesDelta",
            "ValueKindLast",
        ],
        10 => &[
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NumBitmapBytes",
            "PaddingBytesAfterBitmapBytes",
            "NamesSize",
            "CountersDelta",
            "BitmapDelta",
            "NamesDelta",
            "NumVTables",
            "VNamesSize",
            "ValueKindLast",
        ],
        11 => &[
            "BinaryIdsSize",
            "NumData",
            "PaddingBytesBeforeCounters",
            "NumCounters",
            "PaddingBytesAfterCounters",
            "NumBitmapBytes",
            "PaddingBytesAfterBitmapBytes",
            "NumUniformCounters",
            "PaddingBytesAfterUniformCounters",
            "UniformCountersDelta",
            "NamesSize",
            "CountersDelta",
            "BitmapDelta",
            "NamesDelta",
            "NumVTables",
            "VNamesSize",
            "ValueKindLast",
        ],
        _ => return None,
    })
}

/// The largest `ValueKindLast` we accept; LLVM has 3 kinds (0..=2).
pub(crate) const MAX_VALUE_KIND_LAST: u64 = 15;

/// `7 & (8 - x % 8)`: the zero bytes LLVM puts after names sections.
pub(crate) fn pad8(len: u64) -> u64 {
    7 & 8u64.wrapping_sub(len % 8)
}

/// Field layout of one data record (`__llvm_profile_data`).
pub(crate) struct RecordLayout {
    pub(crate) ptr: u64,
    pub(crate) sites: u64,
    pub(crate) uniform: bool,
    pub(crate) bitmap: bool,
    pub(crate) size: u64,
}

impl RecordLayout {
    pub(crate) fn new(version: u64, bits: u8, value_kind_last: u64) -> Self {
        let ptr: u64 = if bits == 32 { 4 } else { 8 };
        let uniform = version >= 11;
        let bitmap = version >= 9;
        let sites = value_kind_last.saturating_add(1);
        // NameRef, FuncHash, then CounterPtr, [UniformCounterPtr], [BitmapPtr],
        // FunctionPointer, Values; NumCounters u32; NumValueSites u16 × sites;
        // [OffloadDeviceWaveSize u16]; [NumBitmapBytes u32 at a 4-byte boundary];
        // the struct is `alignas(8)`.
        let pointers = 3u64.saturating_add(u64::from(uniform)).saturating_add(u64::from(bitmap));
        let mut size = 16u64.saturating_add(ptr.saturating_mul(pointers)).saturating_add(4);
        size = size.saturating_add(sites.saturating_mul(2)).saturating_add(if uniform { 2 } else { 0 });
        if bitmap {
            size = align_up(size, 4).saturating_add(4);
        }
        RecordLayout { ptr, sites, uniform, bitmap, size: align_up(size, 8) }
    }
}

fn align_up(x: u64, to: u64) -> u64 {
    x.saturating_add(to.saturating_sub(1)).checked_div(to).unwrap_or(0).saturating_mul(to)
}
