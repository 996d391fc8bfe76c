//! Pre-aggregated profiles for `perf2bolt --pa`: one entry per line, a type letter
//! (`E S T R B F f r`) then locations (`[BUILDID:]HEXOFFSET`) and decimal counters.
//!
//! [`Entries`] reads them as perf2bolt 22 does (`parseAggregatedLBREntry`): the same
//! lines accepted, the same errors at the same line and column (1-based here: BOLT's
//! column plus one). The build id before a `:` is read and, as by perf2bolt, not used;
//! `X:` (an "external" address) is just a build id named `X`.

use alloc::vec::Vec;

use super::text::{plain_number, FieldReader, FIELD_SEPARATOR};
use crate::error::Result;
use crate::format::{Detection, Format};
use crate::read::{fields, head_lines, is_decimal, is_hex};

/// The entry types and what each says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// `E NAME`: an event the profile was collected with.
    Event,
    /// `S AT COUNT`: a basic sample (only used with `--ba`).
    Sample,
    /// `T BRANCH FROM TO COUNT`: a taken branch and the fall-through after it.
    Trace,
    /// `R BRANCH FROM TO COUNT`: a trace whose branch is a return (0: from outside).
    Return,
    /// `B FROM TO COUNT MISPREDS`: a taken branch alone.
    Branch,
    /// `F FROM TO COUNT`: a fall-through alone.
    FallThrough,
    /// `f FROM TO COUNT`: a fall-through entered from outside the binary.
    ExternalOrigin,
    /// `r FROM TO COUNT`: a fall-through after a return from outside the binary.
    ExternalReturn,
}

impl EntryKind {
    fn from_letter(letter: &[u8]) -> Option<Self> {
        Some(match letter {
            b"E" => EntryKind::Event,
            b"S" => EntryKind::Sample,
            b"T" => EntryKind::Trace,
            b"R" => EntryKind::Return,
            b"B" => EntryKind::Branch,
            b"F" => EntryKind::FallThrough,
            b"f" => EntryKind::ExternalOrigin,
            b"r" => EntryKind::ExternalReturn,
            _ => return None,
        })
    }

    /// How many locations and counters follow the letter.
    pub fn arity(self) -> (usize, usize) {
        match self {
            EntryKind::Event => (0, 0),
            EntryKind::Sample => (1, 1),
            EntryKind::Trace | EntryKind::Return => (3, 1),
            EntryKind::Branch => (2, 2),
            EntryKind::FallThrough | EntryKind::ExternalOrigin | EntryKind::ExternalReturn => (2, 1),
        }
    }
}

/// `[BUILDID:]OFFSET`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Address<'a> {
    pub build_id: Option<&'a [u8]>,
    pub offset: u64,
}

/// One line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub kind: EntryKind,
    /// The event name of an `E` entry.
    pub event: &'a [u8],
    /// The first `kind.arity().0` are set.
    pub addresses: [Address<'a>; 3],
    /// Count, then mispredictions (`B` only).
    pub counters: [i64; 2],
    pub line: u64,
}

/// The entries of a pre-aggregated profile, one `Result` each; after an error the
/// iterator ends (perf2bolt stops there too).
pub struct Entries<'a> {
    reader: FieldReader<'a>,
    failed: bool,
}

impl<'a> Entries<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Entries { reader: FieldReader::new(data), failed: false }
    }

    fn entry(&mut self) -> Result<Entry<'a>> {
        let line = self.reader.line();
        // Most lines are spelled as perf2bolt's and BOLT's scripts write them:
        // read those directly (a fifth of the time of reading them by fields).
        if let Some((entry, len)) = plain_entry(self.reader.rest(), line) {
            self.reader.skip_lines(len, 1);
            return Ok(entry);
        }
        entry_by_fields(&mut self.reader, line)
    }
}

/// An entry read field by field, as perf2bolt reads it: any spelling it takes,
/// and its errors.
fn entry_by_fields<'a>(r: &mut FieldReader<'a>, line: u64) -> Result<Entry<'a>> {
    r.skip_separators();
    let letter = r.field(FIELD_SEPARATOR, false)?;
    let kind = EntryKind::from_letter(letter).ok_or_else(|| r.error("expected T, R, S, E, B, F, f or r"))?;
    let mut entry = Entry { kind, event: &[], addresses: [Address::default(); 3], counters: [0; 2], line };
    if kind == EntryKind::Event {
        r.skip_separators();
        entry.event = r.field(FIELD_SEPARATOR, true)?;
    }
    let (locations, counters) = kind.arity();
    for address in entry.addresses.iter_mut().take(locations) {
        r.skip_separators();
        *address = location(r)?;
    }
    for (i, counter) in entry.counters.iter_mut().take(counters).enumerate() {
        r.skip_separators();
        *counter = r.decimal(FIELD_SEPARATOR, i.saturating_add(1) == counters)?;
    }
    r.expect_newline()?;
    Ok(entry)
}

/// An entry other than `E` in its plain spelling (`K HEX... DEC...\n`: single
/// spaces, offsets of 1 to 16 hex digits without a build id, counters of 1 to 18
/// digits without a sign) at the start of `rest`, and its length with the newline;
/// `None` for anything else, which `entry_by_fields` reads (and accepts or
/// rejects) as perf2bolt does. For a plain line both read the same entry.
fn plain_entry(rest: &[u8], line: u64) -> Option<(Entry<'_>, usize)> {
    let (&[letter, b' '], _) = rest.split_first_chunk::<2>()? else { return None };
    let kind = EntryKind::from_letter(&[letter]).filter(|&k| k != EntryKind::Event)?;
    let mut entry = Entry { kind, event: &[], addresses: [Address::default(); 3], counters: [0; 2], line };
    let (locations, counters) = kind.arity();
    let mut at = 2usize;
    for address in entry.addresses.iter_mut().take(locations) {
        let (offset, len) = plain_number(rest.get(at..)?, 16, 16, b' ')?;
        address.offset = offset;
        at = at.checked_add(len)?;
    }
    for (i, counter) in entry.counters.iter_mut().take(counters).enumerate() {
        let end = if i.saturating_add(1) == counters { b'\n' } else { b' ' };
        let (count, len) = plain_number(rest.get(at..)?, 10, 18, end)?;
        *counter = i64::try_from(count).ok()?;
        at = at.checked_add(len)?;
    }
    Some((entry, at))
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<Entry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.reader.is_empty() {
            return None;
        }
        let entry = self.entry();
        self.failed = entry.is_err();
        Some(entry)
    }
}

/// `parseLocationOrOffset`: a `:` before the next space or newline means a build id.
fn location<'a>(r: &mut FieldReader<'a>) -> Result<Address<'a>> {
    let rest = r.rest();
    let token = rest.iter().position(|&b| b == b' ' || b == b'\n').and_then(|end| rest.get(..end));
    let build_id = match token {
        Some(t) if t.contains(&b':') => Some(r.field(b':', false)?),
        _ => None,
    };
    let offset = r.hex(FIELD_SEPARATOR, false)?;
    Ok(Address { build_id, offset })
}

/// Every entry, or the first error.
pub fn decode(data: &[u8]) -> Result<Vec<Entry<'_>>> {
    Entries::new(data).collect()
}

/// `decode` with every line read by its fields, as perf2bolt reads them: what
/// `decode` gives too, its plain lines read directly (checked by fuzzing).
pub fn decode_by_fields(data: &[u8]) -> Result<Vec<Entry<'_>>> {
    let mut r = FieldReader::new(data);
    let mut entries = Vec::new();
    while !r.is_empty() {
        let line = r.line();
        entries.push(entry_by_fields(&mut r, line)?);
    }
    Ok(entries)
}

fn is_location(field: &[u8]) -> bool {
    match field.iter().position(|&b| b == b':') {
        Some(colon) => field.get(colon.saturating_add(1)..).is_some_and(is_hex),
        None => is_hex(field),
    }
}

/// A line that looks like an entry (detection only: [`Entries`] decides).
pub fn is_entry(line: &[u8]) -> bool {
    let f: Vec<&[u8]> = fields(line).collect();
    let Some((letter, rest)) = f.split_first() else { return false };
    let Some(kind) = EntryKind::from_letter(letter) else { return false };
    if kind == EntryKind::Event {
        return rest.len() == 1;
    }
    let (locations, counters) = kind.arity();
    rest.len() == locations.saturating_add(counters)
        && rest.iter().take(locations).all(|l| is_location(l))
        && rest.iter().skip(locations).all(|c| is_decimal(c.strip_prefix(b"-").unwrap_or(c)))
}

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let first = head_lines(data).find(|l| !l.is_empty())?;
    is_entry(first).then(|| Detection::new(Format::BoltPreagg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    #[test]
    fn a_plain_line_is_read_as_by_its_fields() {
        let plain: [&[u8]; 12] = [
            b"T a00e a012 a016 1\n",
            b"R 0 a b 1\n",
            b"B 1 2 3 4\n",
            b"F 1 2 3\n",
            b"f 0 ff 7\n",
            b"r 10 20 30\n",
            b"S 400000 18\n",
            b"T A00E A012 a016 1\n",
            b"T 0a 00 000 007\n",
            b"T ffffffffffffffff 0 1 1\n",
            b"F 1 2 999999999999999999\n",
            b"B 1 2 0 0\n",
        ];
        for line in plain {
            let fields = entry_by_fields(&mut FieldReader::new(line), 1).unwrap();
            assert_eq!(plain_entry(line, 1), Some((fields, line.len())), "{}", String::from_utf8_lossy(line));
        }
        // Read by their fields (accepted or refused there); the first three are
        // accepted.
        let other: [&[u8]; 15] = [
            b"T  a b c 1\n",
            b" T a b c 1\n",
            b"T a b c 1 \n",
            b"F 1  3\n",
            b"B 1 2  4\n",
            b"T x:a b c 1\n",
            b"T a b c -1\n",
            b"T 1ffffffffffffffff 0 1 1\n",
            b"F 1 2 9999999999999999999\n",
            b"E cycles\n",
            b"T a b c 1",
            b"T a b c\n",
            b"T a b c 1 2\n",
            b"T a b c 1\r\n",
            b"B 1 2 3\n",
        ];
        for line in other {
            assert_eq!(plain_entry(line, 1), None, "{}", String::from_utf8_lossy(line));
        }
        // Whole texts of both kinds of line: the same entries, or the same error
        // at the same line and column.
        let mut text = Vec::new();
        for (i, line) in plain.iter().chain(&other[..3]).enumerate() {
            text.extend_from_slice(line);
            let read: Result<Vec<Entry<'_>>> = Entries::new(&text).collect();
            assert_eq!(read, decode_by_fields(&text), "{i}");
        }
        for bad in &other[3..] {
            let text = [&text[..], bad, plain[0]].concat();
            let read: Result<Vec<Entry<'_>>> = Entries::new(&text).collect();
            assert_eq!(read, decode_by_fields(&text), "{}", String::from_utf8_lossy(bad));
        }
    }
}
