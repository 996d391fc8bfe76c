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
use alloc::vec::Vec;
use core::fmt::{self, Write};

use super::model::{Function, Profile, IPVK_INDIRECT_CALL_TARGET, IPVK_VTABLE_TARGET};
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

/// The output buffer. Everything pushed is UTF-8 (names go through [`Name`]
/// unless they already are), so the bytes always make a `String`; integers are
/// formatted by hand, as `core::fmt` costs more than the rest of the writer.
/// Receives the text piece by piece.
type Sink<'s> = &'s mut dyn FnMut(&[u8]);

struct Out<'s> {
    buf: Vec<u8>,
    /// Where full buffers go when the text is streamed; `None` keeps everything.
    sink: Option<Sink<'s>>,
    flush_at: usize,
}

impl<'s> Out<'s> {
    fn new(buf: Vec<u8>) -> Self {
        Out { buf, sink: None, flush_at: usize::MAX }
    }

    /// Hands the buffer to the sink, if there is one.
    fn flush(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            sink(&self.buf);
            self.buf.clear();
        }
    }

    /// Called between records: flushes a full buffer.
    fn record_done(&mut self) {
        if self.buf.len() >= self.flush_at {
            self.flush();
        }
    }

    fn str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    fn name(&mut self, name: &[u8]) {
        if name.is_ascii() || core::str::from_utf8(name).is_ok() {
            self.buf.extend_from_slice(name);
        } else {
            let mut s = String::new();
            // Writing into a String cannot fail.
            let _ = write!(s, "{}", Name(name));
            self.str(&s);
        }
    }

    /// `n` in decimal, two digits at a time.
    fn u64(&mut self, mut n: u64) {
        const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
            2021222324252627282930313233343536373839\
            4041424344454647484950515253545556575859\
            6061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899";
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        while n >= 10 {
            // `n % 100` < 100, so the pair index stays inside the table.
            let pair = usize::from(u8::try_from(n % 100).unwrap_or(0)).saturating_mul(2);
            n /= 100;
            at = at.saturating_sub(2);
            if let (Some(d), Some(p)) =
                (digits.get_mut(at..at.saturating_add(2)), PAIRS.get(pair..pair.saturating_add(2)))
            {
                d.copy_from_slice(p);
            }
        }
        if n > 0 || at == digits.len() {
            at = at.saturating_sub(1);
            if let Some(d) = digits.get_mut(at) {
                // `n` < 10 here.
                *d = b'0'.wrapping_add(u8::try_from(n).unwrap_or(0));
            }
        }
        // The top pair was taken from a number of at least 10: no leading zero.
        self.buf.extend_from_slice(digits.get(at..).unwrap_or_default());
    }

    /// `n` in decimal, then a newline.
    fn line(&mut self, n: u64) {
        // Most counters of a large profile are single digits.
        if let Ok(d @ 0..=9) = u8::try_from(n) {
            self.buf.extend_from_slice(&[b'0'.wrapping_add(d), b'\n']);
            return;
        }
        self.u64(n);
        self.buf.push(b'\n');
    }

    /// `{b:#x}`: `0x`, then lowercase hex digits without padding.
    fn hex_byte(&mut self, b: u8) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.str("0x");
        if b >= 16 {
            self.buf.push(HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'));
        }
        self.buf.push(HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0'));
    }
}

/// About how many bytes the text takes, to reserve the output once.
fn estimate(profile: &Profile) -> usize {
    profile.functions.iter().fold(0usize, |n, f| {
        let values: usize = f.sites.iter().flatten().map(Vec::len).sum();
        n.saturating_add(f.name.len())
            .saturating_add(80)
            .saturating_add(f.counters.len().saturating_mul(8))
            .saturating_add(f.bitmap.len().saturating_mul(5))
            .saturating_add(values.saturating_mul(32))
    })
}

fn write_all(profile: &Profile, out: &mut Out) {
    if profile.is_context_sensitive() {
        out.str("# CSIR level Instrumentation Flag\n:csir\n");
    } else if profile.is_ir() {
        out.str("# IR level Instrumentation Flag\n:ir\n");
    }
    if profile.is_entry_first() {
        out.str("# Always instrument the function entry block\n:entry_first\n");
    }
    if profile.is_loop_entries() {
        out.str("# Always instrument the loop entry blocks\n:instrument_loop_entries\n");
    }
    if profile.is_byte_coverage() {
        out.str("# Instrument block coverage\n:single_byte_coverage\n");
    }
    let symtab = profile.symtab(false);
    if profile.is_temporal() {
        out.str(":temporal_prof_traces\n# Num Temporal Profile Traces:\n");
        out.line(profile.traces.len() as u64);
        out.str("# Temporal Profile Trace Stream Size:\n");
        out.line(profile.trace_stream_size);
        for trace in &profile.traces {
            out.str("# Weight:\n");
            out.line(trace.weight);
            for &f in &trace.functions {
                out.name(symtab.get(f).unwrap_or(b""));
                out.str(",");
            }
            out.str("\n");
        }
        out.str("\n");
    }
    // Records are printed in batches. Before printing one, its records' names
    // and value-profile target names are looked up and read in loops whose
    // iterations do not depend on each other, so the processor overlaps the
    // cache misses (names and records sit all over the heap); printing them one
    // by one waited for each miss in turn (a third of an export went to that).
    let mut targets: Vec<Option<(&[u8], bool)>> = Vec::new();
    let mut names: Vec<bool> = Vec::new();
    for batch in profile.functions.chunks(BATCH) {
        targets.clear();
        names.clear();
        for f in batch {
            for (kind, sites) in f.sites.iter().enumerate() {
                if kind == IPVK_INDIRECT_CALL_TARGET || kind == IPVK_VTABLE_TARGET {
                    targets.extend(sites.iter().flatten().map(|v| symtab.get(v.value).map(|n| (n, false))));
                }
            }
        }
        for (name, ascii) in targets.iter_mut().flatten() {
            *ascii = name.is_ascii();
        }
        for f in batch {
            names.push(f.name.is_ascii());
            core::hint::black_box(f.counters.first().copied());
        }
        let mut targets = targets.iter();
        for (f, &ascii) in batch.iter().zip(&names) {
            if ascii {
                out.buf.extend_from_slice(&f.name);
            } else {
                out.name(&f.name);
            }
            write_record(f, &mut targets, out);
            out.record_done();
        }
    }
}

/// How many records are looked up ahead of printing.
const BATCH: usize = 256;

/// A record after its name; `targets` yields its target names in order, each
/// with whether it is ASCII (`None`: no function has that hash).
fn write_record<'t, 'n: 't>(
    f: &Function,
    targets: &mut core::slice::Iter<'t, Option<(&'n [u8], bool)>>,
    out: &mut Out,
) {
    out.str("\n# Func Hash:\n");
    out.line(f.hash);
    out.str("# Num Counters:\n");
    out.line(f.counters.len() as u64);
    out.str("# Counter Values:\n");
    for &c in &f.counters {
        out.line(c);
    }
    if !f.bitmap.is_empty() {
        out.str("# Num Bitmap Bytes:\n$");
        out.line(f.bitmap.len() as u64);
        out.str("# Bitmap Byte Values:\n");
        for &b in &f.bitmap {
            out.hex_byte(b);
            out.str("\n");
        }
        out.str("\n");
    }
    if f.num_value_kinds() == 0 {
        out.str("\n");
        return;
    }
    out.str("# Num Value Kinds:\n");
    out.line(f.num_value_kinds() as u64);
    for (kind, (sites, kind_name)) in f.sites.iter().zip(KIND_NAMES).enumerate() {
        if sites.is_empty() {
            continue;
        }
        out.str("# ValueKind = ");
        out.str(kind_name);
        out.str(":\n");
        out.line(kind as u64);
        out.str("# NumValueSites:\n");
        out.line(sites.len() as u64);
        for site in sites {
            out.line(site.len() as u64);
            for v in site {
                match kind {
                    IPVK_INDIRECT_CALL_TARGET | IPVK_VTABLE_TARGET => match targets.next() {
                        Some(Some((name, true))) => out.buf.extend_from_slice(name),
                        Some(Some((name, false))) => out.name(name),
                        _ => out.str(EXTERNAL_SYMBOL),
                    },
                    _ => out.u64(v.value),
                }
                out.str(":");
                out.line(v.count);
            }
        }
    }
    out.str("\n");
}

pub fn write(profile: &Profile, out: &mut impl fmt::Write) -> fmt::Result {
    out.write_str(&to_string(profile))
}

/// The text form in pieces of about `chunk` bytes, each handed to `sink` as
/// soon as it is written, so the whole text is never held at once.
pub fn write_chunks<E>(profile: &Profile, chunk: usize, sink: &mut dyn FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
    let mut error = None;
    let mut forward = |bytes: &[u8]| {
        if error.is_none() {
            error = sink(bytes).err();
        }
    };
    let buf = Vec::with_capacity(chunk.saturating_add(4096));
    let mut out = Out { buf, sink: Some(&mut forward), flush_at: chunk };
    write_all(profile, &mut out);
    out.flush();
    drop(out);
    error.map_or(Ok(()), Err)
}

/// The text form as bytes (always UTF-8).
pub fn to_bytes(profile: &Profile) -> Vec<u8> {
    let mut out = Out::new(Vec::with_capacity(estimate(profile)));
    write_all(profile, &mut out);
    out.buf
}

/// The text form as a `String`.
pub fn to_string(profile: &Profile) -> String {
    String::from_utf8(to_bytes(profile)).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
