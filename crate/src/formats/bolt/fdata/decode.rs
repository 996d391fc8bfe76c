//! llvm-bolt 22's fdata reader (`DataReader::parse`), record for record.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::{Branch, Fdata, Location, MemoryAccess, Sample, SymbolKind};
use crate::error::Result;
use crate::formats::bolt::text::{plain_number, FieldReader, FIELD_SEPARATOR};

/// Reads an fdata profile. Accepts what llvm-bolt accepts, with one deliberate
/// difference: the two header lines may come in either order (perf2bolt writes
/// `boltedcollection` first, llvm-bolt 22 only reads `no_lbr` first). Errors carry
/// llvm-bolt's line and BOLT's column plus one (1-based).
pub fn decode(data: &[u8]) -> Result<Fdata<'_>> {
    let mut fdata = Fdata::default();
    let mut header = None;
    let (branches, samples, memory) = (&mut fdata.branches, &mut fdata.samples, &mut fdata.memory);
    let ignored = read(
        data,
        |h| header = Some(h),
        |record| match record {
            Record::Branch(b) => branches.push(b),
            Record::Sample(s) => samples.push(s),
            Record::Memory(m) => memory.push(m),
        },
    )?;
    if let Some(h) = header {
        fdata.bolted_collection = h.bolted_collection;
        fdata.no_lbr = h.no_lbr;
    }
    fdata.ignored_from_line = ignored;
    Ok(fdata)
}

/// The header lines of an fdata profile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header<'a> {
    pub bolted_collection: bool,
    pub no_lbr: Option<Vec<Cow<'a, [u8]>>>,
}

/// One record of an fdata profile, as `read` hands it over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record<'a> {
    Branch(Branch<'a>),
    Sample(Sample<'a>),
    Memory(MemoryAccess<'a>),
}

/// `decode` without collecting: `header` gets the header lines (before any record),
/// `record` every record in file order. Returns the line from which text was
/// ignored, if any.
pub fn read<'a>(
    data: &'a [u8],
    header: impl FnOnce(Header<'a>),
    record: impl FnMut(Record<'a>),
) -> Result<Option<u64>> {
    read_into(data, &mut Closures { header: Some(header), record })
}

/// Where `read_into` puts what it reads.
pub(super) trait Sink<'a> {
    /// The header lines, before any record.
    fn header(&mut self, header: Header<'a>);
    /// The branch lines `rest` starts with that this sink takes whole, without
    /// them being read: their length with their newlines, and how many. Such lines
    /// must be ones the field reader would read as branch records.
    fn known_lines(&mut self, _rest: &'a [u8]) -> (usize, u64) {
        (0, 0)
    }
    /// A branch line in the plain spelling, and its text up to its counts (the
    /// space after the target's offset included).
    fn plain_branch(&mut self, branch: Branch<'a>, _text: &'a [u8]) {
        self.record(Record::Branch(branch));
    }
    fn record(&mut self, record: Record<'a>);
}

struct Closures<H, R> {
    header: Option<H>,
    record: R,
}

impl<'a, H: FnOnce(Header<'a>), R: FnMut(Record<'a>)> Sink<'a> for Closures<H, R> {
    fn header(&mut self, header: Header<'a>) {
        if let Some(h) = self.header.take() {
            h(header);
        }
    }
    fn record(&mut self, record: Record<'a>) {
        (self.record)(record);
    }
}

/// `read`, into a `Sink`.
pub(super) fn read_into<'a>(data: &'a [u8], sink: &mut impl Sink<'a>) -> Result<Option<u64>> {
    let mut r = FieldReader::new(data);
    let head = header(&mut r)?;
    let no_lbr = head.no_lbr.is_some();
    sink.header(head);
    let starts = |r: &FieldReader<'_>, kinds: &[u8]| r.first().is_some_and(|b| kinds.contains(&b));
    // Records are only handed over after the whole line is read: a count read from
    // the file never sizes an allocation.
    while starts(&r, b"012") {
        let line = r.line();
        if !no_lbr {
            let (len, lines) = sink.known_lines(r.rest());
            if lines > 0 {
                r.skip_lines(len, lines);
                continue;
            }
            // Most lines are spelled as perf2bolt writes them: read those directly.
            if let Some((branch, text, len)) = plain_branch(r.rest(), line) {
                r.skip_lines(len, 1);
                sink.plain_branch(branch, text);
                continue;
            }
        }
        let from = location(&mut r, false)?;
        r.skip_separators();
        if no_lbr {
            let count = r.decimal(FIELD_SEPARATOR, true)?;
            end_of_line(&mut r)?;
            sink.record(Record::Sample(Sample { at: from, count, line }));
            continue;
        }
        let to = location(&mut r, false)?;
        r.skip_separators();
        let mispredicted = r.decimal(FIELD_SEPARATOR, false)?;
        r.skip_separators();
        let count = r.decimal(FIELD_SEPARATOR, true)?;
        end_of_line(&mut r)?;
        sink.record(Record::Branch(Branch { from, to, mispredicted, count, line }));
    }
    while starts(&r, b"345") {
        let line = r.line();
        let pc = location(&mut r, true)?;
        r.skip_separators();
        let address = location(&mut r, true)?;
        r.skip_separators();
        let count = r.decimal(FIELD_SEPARATOR, true)?;
        end_of_line(&mut r)?;
        sink.record(Record::Memory(MemoryAccess { pc, address, count, line }));
    }
    Ok(if r.is_empty() { None } else { Some(r.line()) })
}

/// The header lines of an fdata profile, and that a record follows them (`read`'s
/// first error if not), without reading the records.
pub fn read_header(data: &[u8]) -> Result<Header<'_>> {
    header(&mut FieldReader::new(data))
}

fn header<'a>(r: &mut FieldReader<'a>) -> Result<Header<'a>> {
    let mut head = Header::default();
    for _ in 0..2 {
        if head.no_lbr.is_none() && r.rest().starts_with(b"no_lbr") {
            head.no_lbr = Some(no_lbr_events(r)?);
        } else if !head.bolted_collection && r.eat(b"boltedcollection") {
            if !r.eat_newline() {
                return Err(r.error("malformed boltedcollection line"));
            }
            head.bolted_collection = true;
        }
    }
    if !r.first().is_some_and(|b| b"012345".contains(&b)) {
        return Err(r.error("a branch, sample or memory line (no valid profile data found)"));
    }
    Ok(head)
}

/// A branch line in its plain spelling (`K NAME HEX K NAME HEX DEC DEC\n`: single
/// spaces, names without backslashes, numbers that fit, counts not negative) and
/// its length with the newline; `None` for anything else, which the field reader
/// then reads (and accepts or rejects) as BOLT does. For a plain line both read
/// the same fields. With it, the text up to the counts.
fn plain_branch(rest: &[u8], line: u64) -> Option<(Branch<'_>, &[u8], usize)> {
    let mut at = 0usize;
    let from = plain_location(rest, &mut at)?;
    let to = plain_location(rest, &mut at)?;
    let (text, tail) = rest.split_at_checked(at)?;
    let ([mispredicted, count], len) = plain_counts(tail)?;
    Some((Branch { from, to, mispredicted, count, line }, text, at.checked_add(len)?))
}

/// A plain branch line's `MISPREDICTED COUNT\n` at the start of `tail`, and its
/// length with the newline.
#[inline(always)]
pub(super) fn plain_counts(tail: &[u8]) -> Option<([i64; 2], usize)> {
    // Most branches were never mispredicted, and most counts are short.
    zero_and_count(tail).or_else(|| decimal_counts(tail))
}

/// `plain_counts` a digit at a time: any spelling it takes.
pub(super) fn decimal_counts(tail: &[u8]) -> Option<([i64; 2], usize)> {
    let (mispredicted, at) = plain_decimal(tail, 0, b' ')?;
    let (count, len) = plain_decimal(tail, at, b'\n')?;
    Some(([mispredicted, count], len))
}

/// `0 COUNT\n` at the start of `tail` with a count of one to seven digits (the
/// commonest counts, never mispredicted), with the eight bytes after the `0 ` at
/// hand: `[0, COUNT]` and the length with the newline; `None` for anything else.
#[inline(always)]
fn zero_and_count(tail: &[u8]) -> Option<([i64; 2], usize)> {
    let (count, len) = zero_and_count_in(tail.first_chunk::<10>()?)?;
    Some(([0, count], len))
}

/// `zero_and_count` of the ten bytes it reads: the count and the length.
/// The digits are found and summed in one 64-bit word, without a branch on each:
/// their number varies from line to line, and a loop's exit was mispredicted.
#[inline(always)]
pub(super) fn zero_and_count_in(tail: &[u8; 10]) -> Option<(i64, usize)> {
    let [b'0', b' ', word @ ..] = *tail else { return None };
    let word = u64::from_le_bytes(word);
    // Each byte less '0' (a digit is 0 to 9); a byte's high bit in `others` marks one
    // that is not a digit (adding 0x76 carries into bit 7 from 10 up). A carry
    // out of a byte only reaches bytes after it, so the lowest mark is exact.
    let values = word ^ 0x3030_3030_3030_3030;
    let others = (values.wrapping_add(0x7676_7676_7676_7676) | values) & 0x8080_8080_8080_8080;
    let digits = others.trailing_zeros() / 8;
    // One to seven digits, then the newline (eight would leave no room for it: the
    // shift past the word gives no newline).
    let after = word.checked_shr(digits.wrapping_mul(8)).unwrap_or(0) & 0xFF;
    if digits == 0 || after != u64::from(b'\n') {
        return None;
    }
    // The digits moved up to the top bytes (zeros before them), then summed in
    // pairs, fours and eights (each digit's byte holds its value alone: nothing to
    // mask before the first sum).
    let n = values.wrapping_shl(64u32.wrapping_sub(digits.wrapping_mul(8)));
    let n = n.wrapping_mul(2561) >> 8;
    let n = (n & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    let n = (n & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32;
    Some((n as i64, (digits as usize).wrapping_add(3)))
}

/// One to 18 digits (no overflow) from `start`, then `end`: their value, and where
/// the byte after `end` is.
#[inline(always)]
fn plain_decimal(tail: &[u8], start: usize, end: u8) -> Option<(i64, usize)> {
    let (n, len) = plain_number(tail.get(start..)?, 10, 18, end)?;
    Some((i64::try_from(n).ok()?, start.wrapping_add(len)))
}

fn plain_location<'a>(rest: &'a [u8], at: &mut usize) -> Option<Location<'a>> {
    let kind = match rest.get(*at..at.checked_add(2)?)? {
        [b'0', b' '] => SymbolKind::NotSymbol,
        [b'1', b' '] => SymbolKind::Symbol,
        [b'2', b' '] => SymbolKind::LocalSymbol,
        _ => return None,
    };
    let start = at.checked_add(2)?;
    let tail = rest.get(start..)?;
    let len = name_end(tail)?;
    if len == 0 || tail.get(len) != Some(&b' ') {
        return None;
    }
    let name = tail.get(..len)?;
    let digits = len.checked_add(1)?;
    let (offset, used) = plain_number(tail.get(digits..)?, 16, 16, b' ')?;
    *at = start.checked_add(digits)?.checked_add(used)?;
    Some(Location { kind, name: Cow::Borrowed(name), offset })
}

/// Where the first space, backslash or newline of `bytes` is, eight bytes at a time.
fn name_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    let mut at = 0usize;
    while let Some(chunk) = bytes.get(at..at.wrapping_add(8)) {
        let w = u64::from_le_bytes(chunk.try_into().ok()?);
        // The lowest flagged byte is exact (borrows only run upwards).
        let hits = zero_bytes(w ^ (ONES * u64::from(b' ')))
            | zero_bytes(w ^ (ONES * u64::from(b'\\')))
            | zero_bytes(w ^ (ONES * u64::from(b'\n')));
        if hits != 0 {
            return Some(at.wrapping_add((hits.trailing_zeros() / 8) as usize));
        }
        at = at.wrapping_add(8);
    }
    let tail = bytes.get(at..)?;
    tail.iter().position(|&b| b == b' ' || b == b'\\' || b == b'\n').map(|i| i.wrapping_add(at))
}

/// `no_lbr`, then (after at most one space) event names up to the end of the line.
fn no_lbr_events<'a>(r: &mut FieldReader<'a>) -> Result<Vec<Cow<'a, [u8]>>> {
    r.eat(b"no_lbr");
    r.eat_separator();
    let mut events = Vec::new();
    while r.first().is_some_and(|b| b != b'\n') {
        events.push(Cow::Borrowed(r.field(FIELD_SEPARATOR, true)?));
    }
    if !r.eat_newline() {
        return Err(r.error("malformed no_lbr line"));
    }
    Ok(events)
}

/// `parseLocation`: a kind digit, separators, a name, separators, a hex offset
/// (which ends at a separator: the counts follow).
fn location<'a>(r: &mut FieldReader<'a>, memory: bool) -> Result<Location<'a>> {
    let digits: &[u8] = if memory { b"345" } else { b"012" };
    let kind = r.first().filter(|b| digits.contains(b)).and_then(SymbolKind::from_digit);
    let Some(kind) = kind else {
        return Err(r.error(if memory { "expected 3, 4 or 5" } else { "expected 0, 1 or 2" }));
    };
    r.eat(&[r.first().unwrap_or_default()]);
    r.expect_separator()?;
    r.skip_separators();
    let name = r.field(FIELD_SEPARATOR, false)?;
    r.skip_separators();
    let offset = r.hex(FIELD_SEPARATOR, false)?;
    Ok(Location { kind, name: Cow::Borrowed(name), offset })
}

fn end_of_line(r: &mut FieldReader<'_>) -> Result<()> {
    r.skip_separators();
    r.expect_newline()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn zero_and_count_reads_what_decimal_counts_reads() {
        let mut tails: Vec<Vec<u8>> = Vec::new();
        for digits in 0..=9 {
            for value in ["1234567890", "0000000001", "9999999999", "1000000000"] {
                for end in [&b"\n1 f 0 1 f 4 0 1\n"[..], b"\n", b" \n", b"x\n", b"\xff\n", b":", b"/"] {
                    for head in [&b"0 "[..], b"1 ", b"00 ", b"0  ", b"12 "] {
                        tails.push([head, &value.as_bytes()[..digits], end].concat());
                    }
                }
            }
        }
        // Every byte after a leading digit, and each of the eight positions of a
        // byte that is no digit.
        for b in 0..=255u8 {
            tails.push([&b"0 7"[..], &[b], b"\n\n\n\n\n\n\n\n"].concat());
            for at in 0..8 {
                let mut tail = b"0 12345678\n".to_vec();
                tail[2 + at] = b;
                tails.push(tail);
            }
        }
        let mut fast = 0;
        for tail in &tails {
            let decimal = decimal_counts(tail);
            match zero_and_count(tail) {
                Some(read) => {
                    assert_eq!(Some(read), decimal, "{:?}", tail.escape_ascii().to_string());
                    fast += 1;
                }
                // The slow path is for the rest: a misprediction (or a zero spelled
                // otherwise), a count of eight digits or more, or fewer than eight
                // bytes after the `0 `.
                None => assert!(
                    decimal
                        .is_none_or(|([m, _], len)| m != 0 || !tail.starts_with(b"0 ") || len > 10 || tail.len() < 10),
                    "{:?} left to the slow path",
                    tail.escape_ascii().to_string()
                ),
            }
        }
        assert!(fast >= 40, "{fast} read by the fast path");
        assert_eq!(zero_and_count(b"0 9876543\n"), Some(([0, 9_876_543], 10)));
        assert_eq!(zero_and_count(b"0 1\n1 f 0 "), Some(([0, 1], 4)));
        assert_eq!(zero_and_count(b"0 1\n"), None);
    }
}
