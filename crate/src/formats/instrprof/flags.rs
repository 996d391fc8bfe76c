//! The variant flags in the high 32 bits of the instrprof `Version` word (raw and
//! indexed share them).

use crate::format::Detection;

/// `(mask, name)`, names as `llvm-profdata` and the layout notes use them.
pub const VARIANT_FLAGS: [(u64, &str); 9] = [
    (1 << 55, "LOOP_ENTRIES"),
    (1 << 56, "IR_PROF"),
    (1 << 57, "CS_IR_PROF"),
    (1 << 58, "ENTRY_FIRST"),
    (1 << 59, "DEBUG_CORRELATE"),
    (1 << 60, "BYTE_COVERAGE"),
    (1 << 61, "FUNCTION_ENTRY_ONLY"),
    (1 << 62, "MEMPROF"),
    (1 << 63, "TEMPORAL_PROF"),
];

pub const LOOP_ENTRIES: u64 = 1 << 55;
pub const IR_PROF: u64 = 1 << 56;
pub const CS_IR_PROF: u64 = 1 << 57;
pub const ENTRY_FIRST: u64 = 1 << 58;
pub const DEBUG_CORRELATE: u64 = 1 << 59;
pub const BYTE_COVERAGE: u64 = 1 << 60;
pub const FUNCTION_ENTRY_ONLY: u64 = 1 << 61;
pub const MEMPROF: u64 = 1 << 62;
pub const TEMPORAL_PROF: u64 = 1 << 63;

/// Records the version (low 32 bits) and every variant flag of a `Version` word.
pub fn describe(mut detection: Detection, version_word: u64) -> Detection {
    detection = detection.version(version_word & 0xffff_ffff);
    for (mask, name) in VARIANT_FLAGS {
        if version_word & mask != 0 {
            detection = detection.flag(name);
        }
    }
    let unknown = version_word & 0xffff_ffff_0000_0000 & !VARIANT_FLAGS.iter().fold(0, |a, (m, _)| a | m);
    if unknown != 0 {
        detection = detection.flag("UNKNOWN_FLAGS");
    }
    detection
}

/// Names the flags set in `version_word`, for dumps.
pub fn names(version_word: u64) -> alloc::string::String {
    let mut out = alloc::string::String::new();
    for (mask, name) in VARIANT_FLAGS {
        if version_word & mask != 0 {
            if !out.is_empty() {
                out.push('|');
            }
            out.push_str(name);
        }
    }
    out
}
