//! Byte-level helpers of the text formats: whether input is text at all, the
//! lines detection looks at, and the fields of a line.

use alloc::vec::Vec;

use super::Lines;

/// How much of the input detection looks at.
const SNIFF_LEN: usize = 64 * 1024;

/// Text must be UTF-8 (a cut multi-byte sequence at the sniff boundary is fine) with no
/// control characters other than tab, CR and LF.
pub fn looks_like_text(data: &[u8]) -> bool {
    let head = data.get(..SNIFF_LEN).unwrap_or(data);
    let valid = match core::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() == SNIFF_LEN,
    };
    valid && !head.iter().any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
}

/// The lines of the sniffed head, with the last one dropped when it was cut short.
pub fn head_lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let cut = data.len() > SNIFF_LEN;
    let head = data.get(..SNIFF_LEN).unwrap_or(data);
    let mut lines: Vec<&[u8]> = Lines::new(head).map(|l| l.text).collect();
    if cut {
        lines.pop();
    }
    lines.into_iter()
}

/// Splits a line into whitespace-separated fields.
pub fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| *b == b' ' || *b == b'\t').filter(|f| !f.is_empty())
}

pub fn is_decimal(field: &[u8]) -> bool {
    !field.is_empty() && field.iter().all(u8::is_ascii_digit)
}

pub fn is_hex(field: &[u8]) -> bool {
    !field.is_empty() && field.iter().all(u8::is_ascii_hexdigit)
}
