//! The instrprof text form (`.proftext`) into the [`Profile`] model, the way LLVM's
//! `TextInstrProfReader` reads it (LLVM 22, `InstrProfReader.cpp`).
//!
//! ```text
//! header   lines starting with ':' — ir, fe, csir, entry_first, not_entry_first,
//!          instrument_loop_entries, single_byte_coverage (any case), and
//!          temporal_prof_traces followed by: trace count, stream size, then per
//!          trace a weight line and a line of comma-separated function names
//! record   name
//!          hash                        any radix (0x.., 0b.., 0o.., leading 0 = octal)
//!          counter count               decimal, not zero
//!          counters                    decimal, one per line
//!          [$n                         MC/DC bitmap: n bytes follow, any radix]
//!          [value kinds                decimal 1..=3; absent when the line is no number
//!           per kind: kind, site count, per site: value count, then
//!           "value:count" lines (the value a target name for indirect-call and
//!           vtable kinds, `** External Symbol **` for an unknown one)]
//! ```
//!
//! Like LLVM's `line_iterator`, the reader skips empty lines and lines whose
//! first byte is `#` everywhere, not only between records, and stops at a NUL
//! byte. Every number must fill its whole line (`StringRef::getAsInteger`): no
//! spaces, no sign. Errors say the line and the column of the first byte that is
//! wrong; input that ends inside a record points one line past the last one.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::flags;
use super::md5::name_ref;
use super::model::{Function, Profile, Trace, ValueData, IPVK_INDIRECT_CALL_TARGET, IPVK_VTABLE_TARGET, VALUE_KINDS};
use super::proftext::EXTERNAL_SYMBOL;
use crate::error::{Error, Result};
use crate::read::{Line, Lines};

/// The meaningful lines: blank lines and `#` comments are skipped.
struct Cursor<'a> {
    lines: Lines<'a>,
    current: Option<Line<'a>>,
    /// The number of the last line of the input, for errors at its end.
    last: u64,
}

impl<'a> Cursor<'a> {
    fn new(data: &'a [u8]) -> Self {
        // line_iterator works on a NUL-terminated buffer: a NUL ends the input.
        let data = data.split(|&b| b == 0).next().unwrap_or(&[]);
        let mut cursor = Cursor { lines: Lines::new(data), current: None, last: 0 };
        cursor.advance();
        cursor
    }

    fn advance(&mut self) {
        self.current = None;
        for line in self.lines.by_ref() {
            self.last = line.number;
            if !line.text.is_empty() && !line.text.starts_with(b"#") {
                self.current = Some(line);
                break;
            }
        }
    }

    fn peek(&self) -> Option<Line<'a>> {
        self.current
    }

    /// The current line, or an error naming what was expected instead of the end.
    fn expect(&self, what: &'static str) -> Result<Line<'a>> {
        self.current.ok_or(Error::at_line(self.last.saturating_add(1), 1, what))
    }

    /// The current line, then moves past it.
    fn take(&mut self, what: &'static str) -> Result<Line<'a>> {
        let line = self.expect(what)?;
        self.advance();
        Ok(line)
    }
}

/// Where `getAsInteger` gave up: the byte index in the field.
#[derive(Debug, PartialEq, Eq)]
struct Bad(usize);

/// `StringRef::getAsInteger` for an unsigned type of at most `max`: radix 0
/// senses `0x`/`0X`, `0b`/`0B`, `0o` and a leading `0` before a digit (octal).
/// The digits must fill the field; on failure, the index of the first bad byte.
fn parse(field: &[u8], radix: u32, max: u64) -> core::result::Result<u64, Bad> {
    let (radix, skip) = match radix {
        0 => match field {
            [b'0', b'x' | b'X', ..] => (16, 2),
            [b'0', b'b' | b'B', ..] => (2, 2),
            [b'0', b'o', ..] => (8, 2),
            [b'0', d, ..] if d.is_ascii_digit() => (8, 1),
            _ => (10, 0),
        },
        r => (r, 0),
    };
    let digits = field.get(skip..).unwrap_or(&[]);
    if digits.is_empty() {
        return Err(Bad(skip));
    }
    let mut value = 0u64;
    for (i, &b) in digits.iter().enumerate() {
        let at = Bad(skip.saturating_add(i));
        let digit = match (b as char).to_digit(36) {
            Some(d) if d < radix => d,
            _ => return Err(at),
        };
        value = match value.checked_mul(u64::from(radix)).and_then(|v| v.checked_add(u64::from(digit))) {
            Some(v) if v <= max => v,
            _ => return Err(at),
        };
    }
    Ok(value)
}

/// Parses a whole line (or the part of it from byte `from`) as a number.
fn number(line: &Line<'_>, from: usize, radix: u32, max: u64, what: &'static str) -> Result<u64> {
    let field = line.text.get(from..).unwrap_or(&[]);
    parse(field, radix, max).map_err(|Bad(i)| {
        let column = (from.saturating_add(i) as u64).saturating_add(1);
        Error::at_line(line.number, column, what)
    })
}

fn take_number(c: &mut Cursor<'_>, radix: u32, max: u64, eof: &'static str, bad: &'static str) -> Result<u64> {
    let line = c.take(eof)?;
    number(&line, 0, radix, max, bad)
}

const U32: u64 = u32::MAX as u64;

/// Sets or clears variant flags for one header directive (`readHeader`).
fn directive(c: &mut Cursor<'_>, line: &Line<'_>, profile: &mut Profile) -> Result<()> {
    let name = line.text.get(1..).unwrap_or(&[]).to_ascii_lowercase();
    match name.as_slice() {
        b"ir" => profile.flags |= flags::IR_PROF,
        // Front-end profiles carry no variant bit.
        b"fe" => {}
        b"csir" => profile.flags |= flags::IR_PROF | flags::CS_IR_PROF,
        b"entry_first" => profile.flags |= flags::ENTRY_FIRST,
        b"not_entry_first" => profile.flags &= !flags::ENTRY_FIRST,
        b"instrument_loop_entries" => profile.flags |= flags::LOOP_ENTRIES,
        b"single_byte_coverage" => profile.flags |= flags::BYTE_COVERAGE,
        b"temporal_prof_traces" => {
            profile.flags |= flags::TEMPORAL_PROF;
            read_traces(c, profile)?;
        }
        _ => return Err(Error::at_line(line.number, 2, "unknown header directive")),
    }
    Ok(())
}

/// `readTemporalProfTraceData`: count, stream size, then weight and names per trace.
fn read_traces(c: &mut Cursor<'_>, profile: &mut Profile) -> Result<()> {
    let count = take_number(c, 0, U32, "expected the number of temporal profile traces", "bad trace count")?;
    profile.trace_stream_size =
        take_number(c, 0, u64::MAX, "expected the temporal profile trace stream size", "bad trace stream size")?;
    // Each trace takes two lines, so the count cannot outrun the input.
    for _ in 0..count {
        let weight = take_number(c, 0, u64::MAX, "expected a trace weight", "bad trace weight")?;
        let names = c.take("expected a trace's function names")?;
        let functions =
            names.text.split(|&b| b == b',').filter(|n| !n.is_empty()).map(|n| name_ref(n.trim_ascii())).collect();
        profile.traces.push(Trace { weight, functions });
    }
    Ok(())
}

/// `readValueProfileData`: nothing when the line after the counters is no number.
fn read_value_data(c: &mut Cursor<'_>, f: &mut Function, vtables: &mut BTreeSet<Vec<u8>>) -> Result<()> {
    let Some(line) = c.peek() else { return Ok(()) };
    let Ok(kinds) = parse(line.text, 10, U32) else { return Ok(()) };
    if kinds == 0 || kinds > VALUE_KINDS as u64 {
        return Err(Error::at_line(line.number, 1, "number of value kinds is invalid (1 to 3)"));
    }
    c.advance();
    const EOF: &str = "expected value profile data, found end of input";
    for _ in 0..kinds {
        let kind_line = c.take(EOF)?;
        let kind = usize::try_from(number(&kind_line, 0, 10, U32, "bad value kind")?).unwrap_or(usize::MAX);
        let Some(sites) = f.sites.get_mut(kind) else {
            return Err(Error::at_line(kind_line.number, 1, "value kind is invalid (0, 1 or 2)"));
        };
        let num_sites = take_number(c, 10, U32, EOF, "bad number of value sites")?;
        // Every site takes at least a line: the loop is bounded by the input.
        for _ in 0..num_sites {
            let n = take_number(c, 10, U32, EOF, "bad number of values at a site")?;
            let mut site = Vec::new();
            for _ in 0..n {
                let line = c.take(EOF)?;
                // `rsplit(':')`: a name may hold colons, the count is after the last.
                let colon = line.text.iter().rposition(|&b| b == b':');
                let (value_text, count_from) = match colon {
                    Some(i) => (line.text.get(..i).unwrap_or(&[]), i.saturating_add(1)),
                    None => (line.text, line.text.len()),
                };
                let value = match kind {
                    IPVK_INDIRECT_CALL_TARGET | IPVK_VTABLE_TARGET => {
                        if value_text == EXTERNAL_SYMBOL.as_bytes() {
                            0
                        } else if value_text.is_empty() {
                            return Err(Error::at_line(line.number, 1, "value target name is empty"));
                        } else {
                            if kind == IPVK_VTABLE_TARGET {
                                vtables.insert(value_text.to_vec());
                            }
                            name_ref(value_text)
                        }
                    }
                    _ => parse(value_text, 10, u64::MAX).map_err(|Bad(i)| {
                        Error::at_line(line.number, (i as u64).saturating_add(1), "bad value in value:count")
                    })?,
                };
                let count = number(&line, count_from, 10, u64::MAX, "bad count in value:count")?;
                site.push(ValueData { value, count });
            }
            sites.push(site);
        }
    }
    Ok(())
}

/// `readNextRecord`: one function record, the cursor on its name.
fn read_record(c: &mut Cursor<'_>, vtables: &mut BTreeSet<Vec<u8>>) -> Result<Function> {
    let name = c.take("expected a function name")?;
    let hash = take_number(c, 0, u64::MAX, "expected the function hash, found end of input", "bad function hash")?;
    let count_line = c.take("expected the number of counters, found end of input")?;
    let count = number(&count_line, 0, 10, u64::MAX, "bad number of counters")?;
    if count == 0 {
        return Err(Error::at_line(count_line.number, 1, "number of counters is zero"));
    }
    let mut f = Function { name: name.text.to_vec(), hash, ..Function::default() };
    // One line per counter: the loop ends at the end of the input at the latest.
    for _ in 0..count {
        f.counters.push(take_number(c, 10, u64::MAX, "expected a counter, found end of input", "bad counter")?);
    }
    if let Some(line) = c.peek().filter(|l| l.text.starts_with(b"$")) {
        c.advance();
        let rest = line.text.get(1..).unwrap_or(&[]);
        let lead = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let trimmed = rest.trim_ascii();
        let n = parse(trimmed, 0, u64::MAX).map_err(|Bad(i)| {
            let column = (lead.saturating_add(i) as u64).saturating_add(2);
            Error::at_line(line.number, column, "bad number of bitmap bytes")
        })?;
        for _ in 0..n {
            let byte = take_number(c, 0, 0xff, "expected a bitmap byte, found end of input", "bad bitmap byte")?;
            f.bitmap.push(byte.to_le_bytes()[0]);
        }
    }
    read_value_data(c, &mut f, vtables)?;
    Ok(f)
}

/// Decodes a `.proftext` file. The profile's `version` is 0: text has none.
pub fn decode(data: &[u8]) -> Result<Profile> {
    let mut c = Cursor::new(data);
    let mut profile = Profile::new(0, 0);
    while let Some(line) = c.peek().filter(|l| l.text.starts_with(b":")) {
        c.advance();
        directive(&mut c, &line, &mut profile)?;
    }
    let mut vtables = BTreeSet::new();
    while c.peek().is_some() {
        let f = read_record(&mut c, &mut vtables)?;
        profile.add(f);
    }
    profile.vtable_names = vtables.into_iter().collect();
    profile.finish();
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;
    use crate::formats::instrprof::proftext;

    fn at(text: &str) -> (u64, u64) {
        match decode(text.as_bytes()).unwrap_err().location {
            Location::Line { line, column } => (line, column),
            Location::Offset(_) | Location::Decompressed { .. } => (0, 0),
        }
    }

    #[test]
    fn integers_as_get_as_integer_reads_them() {
        assert_eq!(parse(b"0x1F", 0, u64::MAX), Ok(31));
        assert_eq!(parse(b"0b101", 0, u64::MAX), Ok(5));
        assert_eq!(parse(b"0o17", 0, u64::MAX), Ok(15));
        assert_eq!(parse(b"017", 0, u64::MAX), Ok(15));
        assert_eq!(parse(b"0", 0, u64::MAX), Ok(0));
        assert_eq!(parse(b"018", 0, u64::MAX), Err(Bad(2)));
        assert_eq!(parse(b"0x", 0, u64::MAX), Err(Bad(2)));
        assert_eq!(parse(b"", 10, u64::MAX), Err(Bad(0)));
        assert_eq!(parse(b" 1", 10, u64::MAX), Err(Bad(0)));
        assert_eq!(parse(b"1later", 10, u64::MAX), Err(Bad(1)));
        assert_eq!(parse(b"0x10", 10, u64::MAX), Err(Bad(1)));
        assert_eq!(parse(b"18446744073709551615", 10, u64::MAX), Ok(u64::MAX));
        assert_eq!(parse(b"18446744073709551616", 10, u64::MAX), Err(Bad(19)));
        assert_eq!(parse(b"256", 0, 0xff), Err(Bad(2)));
    }

    #[test]
    fn records_comments_bitmaps_and_value_data() {
        let text = "# c\n:IR\n:entry_first\n:not_entry_first\n\nmain\n0x10\n# n\n2\n7\n\n8\n$ 2\n0x1\n3\n2\n0\n1\n\
                    2\nmain:5\n** External Symbol **:9\n1\n1\n1\n10:4\n";
        let p = decode(text.as_bytes()).unwrap();
        assert!(p.is_ir() && !p.is_entry_first());
        let f = &p.functions[0];
        assert_eq!(
            (f.name.as_slice(), f.hash, f.counters.as_slice(), f.bitmap.as_slice()),
            (&b"main"[..], 16, &[7, 8][..], &[1, 3][..])
        );
        assert_eq!(f.sites[0], [[ValueData { value: 0, count: 9 }, ValueData { value: name_ref(b"main"), count: 5 }]]);
        assert_eq!(f.sites[1], [[ValueData { value: 10, count: 4 }]]);
        let out = proftext::to_string(&p);
        assert!(out.contains("2\n** External Symbol **:9\nmain:5\n"), "{out}");
    }

    #[test]
    fn traces() {
        let text = ":temporal_prof_traces\n2\n5\n1\na, b,\n# w\n2\n\nb\nfoo\n1\n1\n1\n";
        let p = decode(text.as_bytes()).unwrap();
        assert_eq!((p.traces.len(), p.trace_stream_size), (2, 5));
        assert_eq!(p.traces[0].functions, [name_ref(b"a"), name_ref(b"b")]);
        assert_eq!(p.traces[1], Trace { weight: 2, functions: alloc::vec![name_ref(b"b")] });
        assert_eq!(at(":temporal_prof_traces\n3\n5\n1\na\n"), (6, 1));
    }

    #[test]
    fn errors_say_line_and_column() {
        assert_eq!(at(":ir\n:bogus\n"), (2, 2));
        assert_eq!(at("f\nbadhash\n1\n1\n"), (2, 1));
        assert_eq!(at("f\n1\n1\n1later\n"), (4, 2));
        assert_eq!(at("f\n1\n0\n"), (3, 1));
        assert_eq!(at("f\n1\n"), (3, 1));
        assert_eq!(at("f\n1\n2\n1\n"), (5, 1));
        assert_eq!(at("f\n1\n1\n1\n$x\n"), (5, 2));
        assert_eq!(at("f\n1\n1\n1\n$2\n0x1\n"), (7, 1));
        assert_eq!(at("f\n1\n1\n1\n4\n"), (5, 1));
        assert_eq!(at("f\n1\n1\n1\n1\n3\n"), (6, 1));
        assert_eq!(at("f\n1\n1\n1\n1\n0\n1\n1\nfoo+100\n"), (9, 8));
        assert_eq!(at("f\n1\n1\n1\n1\n1\n1\n1\nx:1\n"), (9, 1));
        assert_eq!(at("f\n1\n1\n1\n1\n0\n1\n1\n:1\n"), (9, 1));
    }

    #[test]
    fn empty_and_nul() {
        assert!(decode(b"").unwrap().functions.is_empty());
        let p = decode(b"f\n1\n1\n5\n\0garbage").unwrap();
        assert_eq!(p.functions.len(), 1);
    }
}
