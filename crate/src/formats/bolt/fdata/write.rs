//! fdata text as perf2bolt writes it (`DataAggregator::writeAggregatedFile`):
//! `boltedcollection`, then `no_lbr EVENTS`, then one line per record, offsets in
//! lowercase hex without `0x`.

use alloc::vec::Vec;

use super::{Fdata, Location};

/// Appends the text of `fdata` to `out`.
pub fn write(fdata: &Fdata<'_>, out: &mut Vec<u8>) {
    if fdata.bolted_collection {
        out.extend_from_slice(b"boltedcollection\n");
    }
    if let Some(events) = &fdata.no_lbr {
        out.extend_from_slice(b"no_lbr");
        for event in events {
            out.push(b' ');
            out.extend_from_slice(event);
        }
        out.push(b'\n');
    }
    for b in &fdata.branches {
        write_location(out, &b.from, false);
        write_location(out, &b.to, false);
        push_decimal(out, b.mispredicted);
        out.push(b' ');
        push_decimal(out, b.count);
        out.push(b'\n');
    }
    for s in &fdata.samples {
        write_location(out, &s.at, false);
        push_decimal(out, s.count);
        out.push(b'\n');
    }
    for m in &fdata.memory {
        write_location(out, &m.pc, true);
        write_location(out, &m.address, true);
        push_decimal(out, m.count);
        out.push(b'\n');
    }
}

/// `KIND NAME OFFSET ` (with the space after it).
pub fn write_location(out: &mut Vec<u8>, at: &Location<'_>, memory: bool) {
    out.push(at.kind.digit(memory));
    out.push(b' ');
    out.extend_from_slice(&at.name);
    out.push(b' ');
    push_hex(out, at.offset);
    out.push(b' ');
}

/// A name as fdata spells it (BOLT's `getEscapedName`: spaces and backslashes
/// escaped); an empty name is `[unknown]`.
pub fn write_name(out: &mut Vec<u8>, name: &[u8]) {
    if name.is_empty() {
        out.extend_from_slice(b"[unknown]");
    }
    for &b in name {
        if b == b' ' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
}

fn push_hex(out: &mut Vec<u8>, value: u64) {
    let mut digits = [0u8; 16];
    let mut n = value;
    let mut len = 0usize;
    loop {
        if let Some(d) = digits.get_mut(len) {
            *d = b"0123456789abcdef".get((n & 0xf) as usize).copied().unwrap_or(b'0');
        }
        len = len.saturating_add(1);
        n >>= 4;
        if n == 0 || len >= digits.len() {
            break;
        }
    }
    out.extend(digits.iter().take(len).rev());
}

fn push_decimal(out: &mut Vec<u8>, value: i64) {
    if value < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut n = value.unsigned_abs();
    let mut len = 0usize;
    loop {
        if let Some(d) = digits.get_mut(len) {
            *d = b'0'.wrapping_add((n % 10) as u8);
        }
        len = len.saturating_add(1);
        n /= 10;
        if n == 0 || len >= digits.len() {
            break;
        }
    }
    out.extend(digits.iter().take(len).rev());
}
