//! Pre-aggregated profiles for `perf2bolt --pa`: one entry per line, a type letter
//! (`E S T R B F f r`) then locations (`[BUILDID:]HEXOFFSET`) and decimal counters.

use crate::format::{Detection, Format};
use crate::read::{fields, head_lines, is_decimal, is_hex};

fn is_location(field: &[u8]) -> bool {
    match field.iter().position(|&b| b == b':') {
        Some(colon) => field.get(colon.saturating_add(1)..).is_some_and(is_hex),
        None => is_hex(field),
    }
}

/// How many locations and counters follow each entry type.
pub fn arity(kind: &[u8]) -> Option<(usize, usize)> {
    Some(match kind {
        b"S" => (1, 1),
        b"T" | b"R" => (3, 1),
        b"B" => (2, 2),
        b"F" | b"f" | b"r" => (2, 1),
        _ => return None,
    })
}

pub fn is_entry(line: &[u8]) -> bool {
    let f: alloc::vec::Vec<&[u8]> = fields(line).collect();
    let Some((kind, rest)) = f.split_first() else { return false };
    if *kind == b"E" {
        return rest.len() == 1;
    }
    let Some((locations, counters)) = arity(kind) else { return false };
    rest.len() == locations.saturating_add(counters)
        && rest.iter().take(locations).all(|l| is_location(l))
        && rest.iter().skip(locations).all(|c| is_decimal(c))
}

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let first = head_lines(data).find(|l| !l.is_empty())?;
    is_entry(first).then(|| Detection::new(Format::BoltPreagg))
}
