//! The canonical text form of an instrumentation profile, byte for byte what
//! `llvm-profdata merge --text` (LLVM 22) writes.
//!
//! ```text
//! header    "# CSIR level Instrumentation Flag\n:csir\n" (CS) or
//!           "# IR level Instrumentation Flag\n:ir\n" (IR); nothing for front-end
//!           then, when set: entry_first, instrument_loop_entries, single_byte_coverage
//! traces    (temporal) ":temporal_prof_traces", count, stream size, per trace
//!           "# Weight:", weight, the names each followed by ',', then one blank line
//! records   sorted by (name bytes, hash): name, "# Func Hash:", hash (decimal),
//!           "# Num Counters:", n, "# Counter Values:", one per line;
//!           bitmap: "# Num Bitmap Bytes:", "$n", "# Bitmap Byte Values:",
//!           "0x.." (lowercase, unpadded) per byte, then a blank line;
//!           value data: "# Num Value Kinds:", then per kind with sites
//!           "# ValueKind = IPVK_...:", kind, "# NumValueSites:", n, per site its
//!           value count and "value:count" lines; a blank line ends the record
//! ```
//!
//! Indirect-call and vtable targets print as names, looked up among the
//! profile's function names (and their canonical forms); a hash with no name
//! prints as `** External Symbol **`. LLVM 22's text writer never learns the
//! vtable names, so vtable targets always print that way; trace entries with
//! no name print as empty strings.

use alloc::string::String;
use core::fmt::{self, Write};

use super::model::{Profile, IPVK_INDIRECT_CALL_TARGET, IPVK_VTABLE_TARGET};
use crate::dump::Text;

/// What LLVM prints for a target hash that names no function in the profile.
pub const EXTERNAL_SYMBOL: &str = "** External Symbol **";

const KIND_NAMES: [&str; 3] = ["IPVK_IndirectCallTarget", "IPVK_MemOPSize", "IPVK_VTableTarget"];

/// Writes names as raw bytes (lossy only where they are not UTF-8).
struct Name<'a>(&'a [u8]);

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            for b in chunk.invalid() {
                write!(f, "{}", Text(core::slice::from_ref(b)))?;
            }
        }
        Ok(())
    }
}

pub fn write(profile: &Profile, out: &mut impl Write) -> fmt::Result {
    if profile.is_context_sensitive() {
        out.write_str("# CSIR level Instrumentation Flag\n:csir\n")?;
    } else if profile.is_ir() {
        out.write_str("# IR level Instrumentation Flag\n:ir\n")?;
    }
    if profile.is_entry_first() {
        out.write_str("# Always instrument the function entry block\n:entry_first\n")?;
    }
    if profile.is_loop_entries() {
        out.write_str("# Always instrument the loop entry blocks\n:instrument_loop_entries\n")?;
    }
    if profile.is_byte_coverage() {
        out.write_str("# Instrument block coverage\n:single_byte_coverage\n")?;
    }
    let symtab = profile.symtab(false);
    if profile.is_temporal() {
        out.write_str(":temporal_prof_traces\n")?;
        write!(out, "# Num Temporal Profile Traces:\n{}\n", profile.traces.len())?;
        write!(out, "# Temporal Profile Trace Stream Size:\n{}\n", profile.trace_stream_size)?;
        for trace in &profile.traces {
            write!(out, "# Weight:\n{}\n", trace.weight)?;
            for &f in &trace.functions {
                write!(out, "{},", Name(symtab.get(f).unwrap_or(b"")))?;
            }
            out.write_str("\n")?;
        }
        out.write_str("\n")?;
    }
    for f in &profile.functions {
        write!(out, "{}\n# Func Hash:\n{}\n", Name(&f.name), f.hash)?;
        write!(out, "# Num Counters:\n{}\n# Counter Values:\n", f.counters.len())?;
        for c in &f.counters {
            writeln!(out, "{c}")?;
        }
        if !f.bitmap.is_empty() {
            write!(out, "# Num Bitmap Bytes:\n${}\n# Bitmap Byte Values:\n", f.bitmap.len())?;
            for b in &f.bitmap {
                writeln!(out, "{b:#x}")?;
            }
            out.write_str("\n")?;
        }
        if f.num_value_kinds() == 0 {
            out.write_str("\n")?;
            continue;
        }
        write!(out, "# Num Value Kinds:\n{}\n", f.num_value_kinds())?;
        for (kind, (sites, kind_name)) in f.sites.iter().zip(KIND_NAMES).enumerate() {
            if sites.is_empty() {
                continue;
            }
            write!(out, "# ValueKind = {kind_name}:\n{kind}\n# NumValueSites:\n{}\n", sites.len())?;
            for site in sites {
                writeln!(out, "{}", site.len())?;
                for v in site {
                    match kind {
                        IPVK_INDIRECT_CALL_TARGET | IPVK_VTABLE_TARGET => match symtab.get(v.value) {
                            Some(name) => writeln!(out, "{}:{}", Name(name), v.count)?,
                            None => writeln!(out, "{EXTERNAL_SYMBOL}:{}", v.count)?,
                        },
                        _ => writeln!(out, "{}:{}", v.value, v.count)?,
                    }
                }
            }
        }
        out.write_str("\n")?;
    }
    Ok(())
}

/// The text form as a `String`.
pub fn to_string(profile: &Profile) -> String {
    let mut s = String::new();
    // Writing into a String cannot fail.
    let _ = write(profile, &mut s);
    s
}
