//! The instrprof text form (`.proftext`), as written by `llvm-profdata merge --text`:
//! optional `:ir`/`:fe`/`:csir`/... header lines, then per function its name, hash,
//! counter count and counters, one per line; `#` lines are comments.

use crate::format::{Detection, Format};
use crate::read::{head_lines, is_decimal};

fn is_integer(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    match line.strip_prefix(b"0x").or_else(|| line.strip_prefix(b"0X")) {
        Some(hex) => crate::read::is_hex(hex),
        None => is_decimal(line),
    }
}

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let mut lines = head_lines(data).filter(|l| !l.trim_ascii().is_empty() && !l.starts_with(b"#"));
    let first = lines.next()?;
    if first.starts_with(b":") {
        let directive = first.get(1..).unwrap_or(&[]).to_ascii_lowercase();
        let mut detection = Detection::new(Format::InstrProfText);
        if let Ok(name) = core::str::from_utf8(&directive) {
            detection = detection.flag(name);
        }
        return Some(detection);
    }
    // A function name (never indented), then its hash as a bare integer.
    if first.starts_with(b" ") {
        return None;
    }
    let hash = lines.next()?;
    if is_integer(hash) {
        return Some(Detection::new(Format::InstrProfText));
    }
    // A record whose hash line is damaged still has its counter count and first
    // counter after it (LLVM's own malformed-input tests do this); it is instrprof
    // text that will fail to decode, with the line that is wrong.
    let (count, counter) = (lines.next()?, lines.next()?);
    (is_integer(count) && is_integer(counter)).then(|| Detection::new(Format::InstrProfText))
}
