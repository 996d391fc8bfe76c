//! The field reader BOLT's text profiles share (llvm-bolt's `DataReader`, which
//! perf2bolt's pre-aggregated reader extends): fields end at one given character
//! (a space, mostly), a backslash escapes the character after it, and line and
//! column are counted as BOLT counts them, so errors point where BOLT's do.
//!
//! Two BOLT habits are kept on purpose, since they decide what BOLT accepts:
//! a field that may not end at a newline is searched for past it (a name can run
//! into the next line), and the column only goes back to 0 when a newline is
//! consumed as such.

use crate::error::{Error, Result};

pub const FIELD_SEPARATOR: u8 = b' ';

/// A number in the plain spelling BOLT's tools write, read without the field
/// reader: 1 to `most` digits in `radix` (10, or 16 in either case), then `end`.
/// Its value and its length with `end`; `None` for anything else, which the field
/// reader then reads (and accepts or rejects) as BOLT does. With `most` at 16 hex
/// or 18 decimal digits the value cannot overflow.
#[inline(always)]
pub fn plain_number(text: &[u8], radix: u64, most: usize, end: u8) -> Option<(u64, usize)> {
    let mut n = 0u64;
    for (i, &b) in text.iter().enumerate() {
        let digit = if radix == 16 {
            match b {
                b'0'..=b'9' => b.wrapping_sub(b'0'),
                b'a'..=b'f' => b.wrapping_sub(b'a').wrapping_add(10),
                b'A'..=b'F' => b.wrapping_sub(b'A').wrapping_add(10),
                _ => u8::MAX,
            }
        } else {
            b.wrapping_sub(b'0')
        };
        if u64::from(digit) >= radix {
            return (b == end && (1..=most).contains(&i)).then_some((n, i.wrapping_add(1)));
        }
        // Past `most` digits the value wraps, and is not returned.
        n = n.wrapping_mul(radix).wrapping_add(u64::from(digit));
    }
    None
}

/// A cursor over BOLT text with BOLT's line and column.
#[derive(Clone, Debug)]
pub struct FieldReader<'a> {
    rest: &'a [u8],
    /// 1-based line, and the bytes consumed on it (BOLT's `Col`).
    line: u64,
    column: u64,
}

impl<'a> FieldReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        FieldReader { rest: data, line: 1, column: 0 }
    }

    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    pub fn line(&self) -> u64 {
        self.line
    }

    pub fn first(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// An error here. The column is 1-based: BOLT prints the bytes consumed on the
    /// line, which is one less than the column of the byte it stopped at.
    pub fn error(&self, what: &'static str) -> Error {
        Error::at_line(self.line, self.column.saturating_add(1), what)
    }

    fn advance(&mut self, n: usize) {
        let n = n.min(self.rest.len());
        self.rest = self.rest.get(n..).unwrap_or_default();
        self.column = self.column.saturating_add(n as u64);
    }

    /// Consumes `prefix` if the input starts with it.
    pub fn eat(&mut self, prefix: &[u8]) -> bool {
        if self.rest.starts_with(prefix) {
            self.advance(prefix.len());
            true
        } else {
            false
        }
    }

    /// BOLT's `checkAndConsumeFS`: one separator, if there is one.
    pub fn eat_separator(&mut self) -> bool {
        self.eat(&[FIELD_SEPARATOR])
    }

    /// `expectAndConsumeFS`.
    pub fn expect_separator(&mut self) -> Result<()> {
        if self.eat_separator() {
            Ok(())
        } else {
            Err(self.error("expected field separator"))
        }
    }

    /// `consumeAllRemainingFS`.
    pub fn skip_separators(&mut self) {
        while self.eat_separator() {}
    }

    /// `checkAndConsumeNewLine`.
    pub fn eat_newline(&mut self) -> bool {
        if self.rest.first() == Some(&b'\n') {
            self.rest = self.rest.get(1..).unwrap_or_default();
            self.line = self.line.saturating_add(1);
            self.column = 0;
            true
        } else {
            false
        }
    }

    /// Consumes `lines` whole lines of `len` bytes in all, a newline the last of them.
    pub fn skip_lines(&mut self, len: usize, lines: u64) {
        self.rest = self.rest.get(len..).unwrap_or_default();
        self.line = self.line.saturating_add(lines);
        self.column = 0;
    }

    pub fn expect_newline(&mut self) -> Result<()> {
        if self.eat_newline() {
            Ok(())
        } else {
            Err(self.error("expected end of line"))
        }
    }

    /// BOLT's `parseString`: the bytes up to `end` (or a newline, with `end_at_newline`),
    /// backslash pairs included as written. `end` is consumed, a newline is not. An
    /// empty field, or one that never ends, is "malformed field".
    pub fn field(&mut self, end: u8, end_at_newline: bool) -> Result<&'a [u8]> {
        let stops = |b: &u8| *b == end || *b == b'\\' || (end_at_newline && *b == b'\n');
        let mut at = 0usize;
        loop {
            let found = self.rest.get(at..).and_then(|r| r.iter().position(stops)).map(|i| i.saturating_add(at));
            let Some(i) = found else { return Err(self.error("malformed field")) };
            let byte = self.rest.get(i).copied();
            if i == 0 && byte != Some(b'\\') {
                return Err(self.error("malformed field"));
            }
            if byte == Some(b'\\') {
                at = i.saturating_add(2);
                continue;
            }
            let text = self.rest.get(..i).unwrap_or_default();
            let stopped_at_newline = byte == Some(b'\n') && end != b'\n';
            self.advance(if stopped_at_newline { i } else { i.saturating_add(1) });
            return Ok(text);
        }
    }

    /// A signed decimal field (`getAsInteger(10, int64_t)`: an optional `-`, digits,
    /// nothing else, within range).
    pub fn decimal(&mut self, end: u8, end_at_newline: bool) -> Result<i64> {
        let text = self.field(end, end_at_newline)?;
        // BOLT reports the error after the field.
        parse_signed(text).ok_or_else(|| self.error("expected decimal number"))
    }

    /// An unsigned hexadecimal field (`getAsInteger(16, uint64_t)`: no `0x`).
    pub fn hex(&mut self, end: u8, end_at_newline: bool) -> Result<u64> {
        let text = self.field(end, end_at_newline)?;
        parse_hex(text).ok_or_else(|| self.error("expected hexadecimal number"))
    }
}

pub fn parse_unsigned(text: &[u8], radix: u32) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.iter().try_fold(0u64, |n, &b| {
        let digit = char::from(b).to_digit(radix)?;
        n.checked_mul(u64::from(radix))?.checked_add(u64::from(digit))
    })
}

pub fn parse_hex(text: &[u8]) -> Option<u64> {
    parse_unsigned(text, 16)
}

/// LLVM's `getAsSignedInteger` with radix 10.
pub fn parse_signed(text: &[u8]) -> Option<i64> {
    match text.strip_prefix(b"-") {
        Some(digits) => {
            let n = parse_unsigned(digits, 10)?;
            if n == 1u64 << 63 {
                Some(i64::MIN)
            } else {
                i64::try_from(n).ok().map(i64::wrapping_neg)
            }
        }
        None => i64::try_from(parse_unsigned(text, 10)?).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_llvm_reads_them() {
        assert_eq!(parse_signed(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_signed(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_signed(b"9223372036854775808"), None);
        assert_eq!(parse_signed(b"+1"), None);
        assert_eq!(parse_signed(b""), None);
        assert_eq!(parse_signed(b"-"), None);
        assert_eq!(parse_hex(b"ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_hex(b"10000000000000000"), None);
        assert_eq!(parse_hex(b"0x10"), None);
        assert_eq!(parse_hex(b"aB"), Some(0xab));
    }

    #[test]
    fn fields_keep_escapes_and_may_run_past_a_newline() {
        let mut r = FieldReader::new(b"a\\ b c\nd e");
        assert_eq!(r.field(b' ', false).ok(), Some(&b"a\\ b"[..]));
        assert_eq!(r.field(b' ', false).ok(), Some(&b"c\nd"[..]));
        let mut r = FieldReader::new(b"c\nd");
        assert_eq!(r.field(b' ', true).ok(), Some(&b"c"[..]));
        assert!(r.eat_newline());
        assert_eq!(
            r.field(b' ', false).map_err(|e| e.location),
            Err(crate::error::Location::Line { line: 2, column: 1 })
        );
    }
}
