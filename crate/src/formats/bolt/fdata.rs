//! BOLT fdata: `[boltedcollection]`, `[no_lbr EVENTS]`, then lines of
//! `KIND NAME OFFSET` locations with counts (branch, sample or memory lines).

use crate::format::{Detection, Format};
use crate::read::{fields, head_lines, is_decimal, is_hex};

fn is_count(field: &[u8]) -> bool {
    is_decimal(field.strip_prefix(b"-").unwrap_or(field))
}

fn is_kind(field: &[u8], kinds: core::ops::RangeInclusive<u8>) -> bool {
    matches!(field, [k] if kinds.contains(k))
}

/// `0|1|2 NAME HEX 0|1|2 NAME HEX MISPREDS COUNT` (branch), `3|4|5 … 3|4|5 … COUNT`
/// (memory), or `0|1|2 NAME HEX COUNT` (sample, after `no_lbr`).
pub fn is_data_line(line: &[u8], no_lbr: bool) -> bool {
    let f: alloc::vec::Vec<&[u8]> = fields(line).collect();
    match f.as_slice() {
        [k1, _, o1, k2, _, o2, m, c] => {
            is_kind(k1, b'0'..=b'2')
                && is_kind(k2, b'0'..=b'2')
                && is_hex(o1)
                && is_hex(o2)
                && is_count(m)
                && is_count(c)
        }
        [k1, _, o1, k2, _, o2, c] => {
            is_kind(k1, b'3'..=b'5') && is_kind(k2, b'3'..=b'5') && is_hex(o1) && is_hex(o2) && is_count(c)
        }
        [k, _, o, c] => no_lbr && is_kind(k, b'0'..=b'2') && is_hex(o) && is_count(c),
        _ => false,
    }
}

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let mut detection = Detection::new(Format::BoltFdata);
    let mut no_lbr = false;
    for line in head_lines(data).filter(|l| !l.is_empty()).take(3) {
        if line == b"boltedcollection" {
            detection = detection.flag("boltedcollection");
        } else if line.starts_with(b"no_lbr") {
            no_lbr = true;
            detection = detection.flag("no_lbr");
        } else {
            return is_data_line(line, no_lbr).then_some(detection);
        }
    }
    // Only header lines: still an fdata file, if an empty one.
    (!detection.flags.is_empty()).then_some(detection)
}
