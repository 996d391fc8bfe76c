//! fdata text as perf2bolt writes it (`DataAggregator::writeAggregatedFile`):
//! `boltedcollection`, then `no_lbr EVENTS`, then one line per record, offsets in
//! lowercase hex without `0x`.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::{Branch, Fdata, Location};
use crate::digits::{push_hex, push_signed, LOWER};

/// Appends the text of `fdata` to `out`.
pub fn write(fdata: &Fdata<'_>, out: &mut Vec<u8>) {
    write_header(out, fdata.bolted_collection, fdata.no_lbr.as_deref());
    for b in &fdata.branches {
        write_branch(out, b);
    }
    write_samples_and_memory(out, fdata);
}

/// The `boltedcollection` and `no_lbr EVENTS` lines, for the headers there are.
pub(super) fn write_header(out: &mut Vec<u8>, bolted_collection: bool, no_lbr: Option<&[Cow<'_, [u8]>]>) {
    if bolted_collection {
        out.extend_from_slice(b"boltedcollection\n");
    }
    if let Some(events) = no_lbr {
        out.extend_from_slice(b"no_lbr");
        for event in events {
            out.push(b' ');
            out.extend_from_slice(event);
        }
        out.push(b'\n');
    }
}

pub(super) fn write_branch(out: &mut Vec<u8>, b: &Branch<'_>) {
    write_location(out, &b.from, false);
    write_location(out, &b.to, false);
    push_signed(out, b.mispredicted);
    out.push(b' ');
    push_signed(out, b.count);
    out.push(b'\n');
}

/// The sample and memory lines of `fdata`, which follow its branches.
pub(super) fn write_samples_and_memory(out: &mut Vec<u8>, fdata: &Fdata<'_>) {
    for s in &fdata.samples {
        write_location(out, &s.at, false);
        push_signed(out, s.count);
        out.push(b'\n');
    }
    for m in &fdata.memory {
        write_location(out, &m.pc, true);
        write_location(out, &m.address, true);
        push_signed(out, m.count);
        out.push(b'\n');
    }
}

/// `KIND NAME OFFSET ` (with the space after it).
pub fn write_location(out: &mut Vec<u8>, at: &Location<'_>, memory: bool) {
    out.push(at.kind.digit(memory));
    out.push(b' ');
    out.extend_from_slice(&at.name);
    out.push(b' ');
    push_hex(out, at.offset, LOWER);
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
