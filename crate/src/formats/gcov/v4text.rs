//! AutoFDO GCOV v4 text form (the 2026 proposal, `shared/seeds/004_*.txt` section 5):
//! `filenames = { ... }`, `summary = { ... }`, then one block per top-level symbol
//! (`"name":FILE(ID:HEAD:TIMESTAMP) = { locations = {...}, callsites = {...},
//! inlined = {...} }`).
//!
//! Readings (`docs/gcov-v4.md`): whitespace is free between tokens; lists may be
//! empty (`{}`) and may end with a comma; `-1` is the only signed number (a file id);
//! the `symbol_names = { "name":FILE(ID), ... }` block after `summary` names call
//! targets that have no body anywhere; unknown `keyword = {...}` blocks are skipped
//! by counting braces outside quoted strings, at the top level, in `summary` and in a
//! symbol. Values are checked against the binary widths (3-byte lines, 2-byte
//! discriminators, 4-byte ids), so a text file holds what a binary one can.
//!
//! Quoted strings have no escapes in the proposal, so a name cannot contain `"`. We
//! read and write one rule, the one Windows command lines use: a run of backslashes
//! is literal unless a quote follows it; then 2n backslashes stand for n and end the
//! string at the quote, 2n+1 stand for n and a literal quote. Every string without a
//! `"` and not ending in `\` reads the same under the plain grammar.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use hashbrown::HashMap;

use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::formats::gcov::v4_layout::{Decoded, MAX_DISCRIMINATOR, MAX_LINE};
use crate::formats::sample::model::{
    CallTarget, FunctionSamples, LineLocation, Name, NameEntry, NameId, Profile, MAX_DEPTH,
};
use crate::summary::{Summary, SummaryEntry};

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let head = data.get(..4096).unwrap_or(data).trim_ascii_start();
    let rest = head.strip_prefix(b"filenames")?.trim_ascii_start();
    rest.starts_with(b"=").then(|| Detection::new(Format::GcovV4Text))
}

/// Appends `s` as a quoted string (see the module docs for the backslash rule).
pub fn put_quoted(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    let mut backslashes = 0usize;
    for &b in s {
        match b {
            b'\\' => backslashes = backslashes.saturating_add(1),
            b'"' => {
                out.extend(core::iter::repeat_n(b'\\', backslashes.saturating_mul(2).saturating_add(1)));
                backslashes = 0;
            }
            _ => {
                out.extend(core::iter::repeat_n(b'\\', backslashes));
                backslashes = 0;
            }
        }
        if b != b'\\' {
            out.push(b);
        }
    }
    out.extend(core::iter::repeat_n(b'\\', backslashes.saturating_mul(2)));
    out.push(b'"');
}

/// Where a token starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    line: u64,
    column: u64,
}

impl Pos {
    fn error(self, what: &'static str) -> Error {
        Error::at_line(self.line, self.column, what)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok<'a> {
    Open,
    Close,
    LParen,
    RParen,
    Comma,
    Equals,
    Colon,
    Dot,
    Arrow,
    /// `-1`, the unknown file id.
    MinusOne,
    Number(u64),
    Word(&'a [u8]),
    Str(Cow<'a, [u8]>),
    End,
}

/// Bytes to tokens, tracking line and column.
struct Lexer<'a> {
    data: &'a [u8],
    pos: usize,
    line: u64,
    line_start: usize,
}

impl<'a> Lexer<'a> {
    fn here(&self) -> Pos {
        Pos { line: self.line, column: (self.pos.saturating_sub(self.line_start) as u64).saturating_add(1) }
    }

    fn peek_byte(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Moves past one byte, counting lines.
    fn bump(&mut self) -> Option<u8> {
        let b = self.peek_byte()?;
        self.pos = self.pos.saturating_add(1);
        if b == b'\n' {
            self.line = self.line.saturating_add(1);
            self.line_start = self.pos;
        }
        Some(b)
    }

    fn skip_space(&mut self) {
        while self.peek_byte().is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            self.bump();
        }
    }

    fn next(&mut self) -> Result<(Tok<'a>, Pos)> {
        self.skip_space();
        let at = self.here();
        let Some(b) = self.bump() else { return Ok((Tok::End, at)) };
        let tok = match b {
            b'{' => Tok::Open,
            b'}' => Tok::Close,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b',' => Tok::Comma,
            b'=' => Tok::Equals,
            b':' => Tok::Colon,
            b'.' => Tok::Dot,
            b'-' => match self.bump() {
                Some(b'>') => Tok::Arrow,
                Some(b'1') if !self.peek_byte().is_some_and(|b| b.is_ascii_digit()) => Tok::MinusOne,
                _ => return Err(at.error("expected `->` or the file id -1")),
            },
            b'"' => Tok::Str(self.string(at)?),
            b'0'..=b'9' => {
                let mut v = u64::from(b.wrapping_sub(b'0'));
                while let Some(d) = self.peek_byte().filter(u8::is_ascii_digit) {
                    self.bump();
                    v = v
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(u64::from(d.wrapping_sub(b'0'))))
                        .ok_or(at.error("a number below 2^64"))?;
                }
                Tok::Number(v)
            }
            b'a'..=b'z' => {
                let start = self.pos.saturating_sub(1);
                while self.peek_byte().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
                    self.bump();
                }
                Tok::Word(self.data.get(start..self.pos).unwrap_or_default())
            }
            _ => return Err(at.error("unexpected character")),
        };
        Ok((tok, at))
    }

    /// The rest of a quoted string whose opening quote is at `at`.
    fn string(&mut self, at: Pos) -> Result<Cow<'a, [u8]>> {
        let start = self.pos;
        let mut owned: Option<Vec<u8>> = None;
        loop {
            let Some(b) = self.bump() else { return Err(at.error("unterminated quoted string")) };
            match b {
                b'"' => {
                    let plain = self.data.get(start..self.pos.saturating_sub(1)).unwrap_or_default();
                    return Ok(owned.map_or(Cow::Borrowed(plain), Cow::Owned));
                }
                b'\\' => {
                    let mut n = 1usize;
                    while self.peek_byte() == Some(b'\\') {
                        self.bump();
                        n = n.saturating_add(1);
                    }
                    let done = self.pos;
                    if self.peek_byte() != Some(b'"') {
                        if let Some(o) = owned.as_mut() {
                            o.extend(core::iter::repeat_n(b'\\', n));
                        }
                        continue;
                    }
                    let o = owned.get_or_insert_with(|| {
                        self.data.get(start..done.saturating_sub(n)).unwrap_or_default().to_vec()
                    });
                    o.extend(core::iter::repeat_n(b'\\', n / 2));
                    if n % 2 == 1 {
                        self.bump();
                        o.push(b'"');
                    }
                }
                _ => {
                    if let Some(o) = owned.as_mut() {
                        o.push(b);
                    }
                }
            }
        }
    }

    /// Skips a balanced `{ ... }` whose `{` was just read, strings opaque.
    fn skip_block(&mut self, at: Pos) -> Result<()> {
        let mut depth = 1usize;
        while depth > 0 {
            let here = self.here();
            match self.bump() {
                None => return Err(at.error("unbalanced `{` of a skipped block")),
                Some(b'{') => depth = depth.saturating_add(1),
                Some(b'}') => depth = depth.saturating_sub(1),
                Some(b'"') => {
                    self.string(here)?;
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// The text parser, filling a profile.
struct Parser<'a> {
    lex: Lexer<'a>,
    peeked: Option<(Tok<'a>, Pos)>,
    profile: Profile,
    /// Symbol id to name, with where it was first defined.
    ids: HashMap<u32, NameId>,
    /// Symbol ids used by callsites, with where first used.
    refs: HashMap<u32, Pos>,
}

impl<'a> Parser<'a> {
    fn next(&mut self) -> Result<(Tok<'a>, Pos)> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex.next(),
        }
    }

    fn peek(&mut self) -> Result<&(Tok<'a>, Pos)> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex.next()?);
        }
        self.peeked.as_ref().ok_or(Error::at_line(self.lex.line, 1, "no token"))
    }

    fn expect(&mut self, want: Tok<'static>, what: &'static str) -> Result<Pos> {
        let (tok, at) = self.next()?;
        if tok == want {
            Ok(at)
        } else {
            Err(at.error(what))
        }
    }

    fn number(&mut self, what: &'static str) -> Result<(u64, Pos)> {
        match self.next()? {
            (Tok::Number(v), at) => Ok((v, at)),
            (_, at) => Err(at.error(what)),
        }
    }

    /// A number no wider than `max`.
    fn bounded(&mut self, max: u64, what: &'static str) -> Result<u64> {
        let (v, at) = self.number(what)?;
        if v > max {
            return Err(at.error(what));
        }
        Ok(v)
    }

    fn string(&mut self, what: &'static str) -> Result<(Cow<'a, [u8]>, Pos)> {
        match self.next()? {
            (Tok::Str(s), at) => Ok((s, at)),
            (_, at) => Err(at.error(what)),
        }
    }

    /// `{ item, item, ... }`: maybe empty, maybe with a trailing comma.
    fn list(&mut self, mut item: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.expect(Tok::Open, "expected `{`")?;
        loop {
            if self.peek()?.0 == Tok::Close {
                self.next()?;
                return Ok(());
            }
            item(self)?;
            match self.next()? {
                (Tok::Comma, _) => {}
                (Tok::Close, _) => return Ok(()),
                (_, at) => return Err(at.error("expected `,` or `}`")),
            }
        }
    }

    /// `keyword =` then a value we do not know: a balanced block or one token.
    fn skip_value(&mut self) -> Result<()> {
        match self.next()? {
            (Tok::Open, at) => self.lex.skip_block(at),
            (Tok::End, at) => Err(at.error("expected a value")),
            _ => Ok(()),
        }
    }

    /// `KEYWORD =`.
    fn keyword(&mut self, what: &'static str) -> Result<(&'a [u8], Pos)> {
        let (tok, at) = self.next()?;
        let Tok::Word(w) = tok else { return Err(at.error(what)) };
        self.expect(Tok::Equals, "expected `=` after a keyword")?;
        Ok((w, at))
    }

    /// A file id: an index into `filenames`, or -1.
    fn file_id(&mut self) -> Result<Option<u32>> {
        match self.next()? {
            (Tok::MinusOne, _) => Ok(None),
            (Tok::Number(v), at) => match u32::try_from(v) {
                Ok(i) if (i as usize) < self.profile.files.len() => Ok(Some(i)),
                _ => Err(at.error("a file id below the number of filenames, or -1")),
            },
            (_, at) => Err(at.error("expected a file id")),
        }
    }

    /// `"name":FILE(ID` — a symbol's name, file and id, defining the id.
    fn symbol_head(&mut self) -> Result<NameId> {
        let (name, at) = self.string("expected a quoted symbol name")?;
        self.expect(Tok::Colon, "expected `:` after a symbol name")?;
        let file = self.file_id()?;
        self.expect(Tok::LParen, "expected `(` before a symbol id")?;
        let (id, id_at) = self.number("expected a symbol id")?;
        let id = u32::try_from(id).map_err(|_| id_at.error("a symbol id below 2^32"))?;
        let entry = NameEntry { name: Name::Bytes(name.into_owned()), file };
        let name = self.profile.names.intern(entry).ok_or(at.error("more than 2^32 names"))?;
        match self.ids.insert(id, name) {
            Some(other) if other != name => Err(id_at.error("a symbol id naming one symbol")),
            _ => Ok(name),
        }
    }

    /// `LINE` or `LINE.DISCRIMINATOR`.
    fn location(&mut self) -> Result<LineLocation> {
        let line = self.bounded(u64::from(MAX_LINE), "a line offset below 2^24")?;
        let mut discriminator = 0;
        if self.peek()?.0 == Tok::Dot {
            self.next()?;
            discriminator = self.bounded(u64::from(MAX_DISCRIMINATOR), "a discriminator below 2^16")?;
        }
        // Both are bounded above, far below 2^32.
        let line = u32::try_from(line).unwrap_or(MAX_LINE);
        let discriminator = u32::try_from(discriminator).unwrap_or(MAX_DISCRIMINATOR);
        Ok(LineLocation { line, discriminator })
    }

    /// `{ section, ... }` of a function at inline `depth`; sets its total.
    fn sections(&mut self, f: &mut FunctionSamples, depth: usize) -> Result<()> {
        self.list(|p| {
            let (word, _) = p.keyword("expected a section keyword")?;
            match word {
                b"locations" => p.list(|p| {
                    let loc = p.location()?;
                    p.expect(Tok::Equals, "expected `=` after a location")?;
                    let (count, _) = p.number("expected a sample count")?;
                    p.profile.overflowed |= f.add_body(loc, count, Vec::new());
                    Ok(())
                }),
                b"callsites" => p.list(|p| {
                    let loc = p.location()?;
                    p.expect(Tok::Arrow, "expected `->` after a callsite location")?;
                    let mut calls = Vec::new();
                    p.list(|p| {
                        let (id, at) = p.number("expected a target symbol id")?;
                        let id = u32::try_from(id).map_err(|_| at.error("a symbol id below 2^32"))?;
                        p.expect(Tok::Equals, "expected `=` after a target symbol id")?;
                        let (count, _) = p.number("expected a call count")?;
                        p.refs.entry(id).or_insert(at);
                        // The id stands for the name until every symbol is known.
                        calls.push(CallTarget { name: NameId(id), count });
                        Ok(())
                    })?;
                    p.profile.overflowed |= f.add_body(loc, 0, calls);
                    Ok(())
                }),
                b"inlined" => p.list(|p| {
                    let loc = p.location()?;
                    let at = p.expect(Tok::Equals, "expected `=` after an inlined location")?;
                    let name = p.symbol_head()?;
                    p.expect(Tok::RParen, "expected `)` after an inlined symbol id")?;
                    p.expect(Tok::Equals, "expected `=` before an inlined body")?;
                    if depth >= MAX_DEPTH {
                        return Err(at.error("inlined functions nested deeper than MAX_DEPTH (256)"));
                    }
                    let mut callee = FunctionSamples { name, ..FunctionSamples::default() };
                    p.sections(&mut callee, depth.saturating_add(1))?;
                    p.profile.overflowed |= f.add_callsite(loc, callee, &p.profile.names);
                    Ok(())
                }),
                _ => p.skip_value(),
            }
        })?;
        let inlined = f.callsites.iter().fold(0u64, |sum, c| sum.saturating_add(c.callee.total));
        f.total = f.body_samples().saturating_add(inlined);
        Ok(())
    }

    fn summary(&mut self) -> Result<Summary> {
        let mut s = Summary::default();
        let mut announced = None;
        let mut list_at = None;
        self.list(|p| {
            let (word, at) = p.keyword("expected a summary field")?;
            match word {
                b"total_count" => s.total_count = u128::from(p.number("expected a number")?.0),
                b"max_count" => s.max_count = p.number("expected a number")?.0,
                b"max_fn_count" => s.max_function_count = p.number("expected a number")?.0,
                b"num_counts" => s.num_counts = p.number("expected a number")?.0,
                b"num_functions" => s.num_functions = p.number("expected a number")?.0,
                b"num_detailed_entries" => announced = Some(p.number("expected a number")?),
                b"detailed_entries" => {
                    list_at = Some(at);
                    p.list(|p| {
                        let mut e = SummaryEntry { cutoff: 0, min_count: 0, num_counts: 0 };
                        p.list(|p| {
                            let (word, _) = p.keyword("expected a detailed-entry field")?;
                            match word {
                                b"cutoff" => {
                                    let cutoff = p.bounded(u64::from(u32::MAX), "a cutoff below 2^32")?;
                                    e.cutoff = u32::try_from(cutoff).unwrap_or(u32::MAX);
                                }
                                b"min_count" => e.min_count = p.number("expected a number")?.0,
                                b"num_counts" => e.num_counts = p.number("expected a number")?.0,
                                _ => p.skip_value()?,
                            }
                            Ok(())
                        })?;
                        s.detailed.push(e);
                        Ok(())
                    })?;
                }
                _ => p.skip_value()?,
            }
            Ok(())
        })?;
        if let Some((n, at)) = announced {
            if n != s.detailed.len() as u64 {
                return Err(list_at.unwrap_or(at).error("as many detailed entries as num_detailed_entries"));
            }
        }
        Ok(s)
    }
}

/// Decodes a v4 text file.
pub fn read(data: &[u8]) -> Result<Decoded> {
    let mut p = Parser {
        lex: Lexer { data, pos: 0, line: 1, line_start: 0 },
        peeked: None,
        profile: Profile::new(),
        ids: HashMap::new(),
        refs: HashMap::new(),
    };
    let mut files = false;
    let mut summary = None;
    let mut functions = Vec::new();
    loop {
        let (tok, at) = p.peek()?.clone();
        match tok {
            Tok::End if files && summary.is_some() => break,
            Tok::End => return Err(at.error("expected the filenames and summary blocks")),
            Tok::Word(_) => {
                let (word, at) = p.keyword("expected a block keyword")?;
                match word {
                    b"filenames" if files || !functions.is_empty() => {
                        return Err(at.error("one filenames block, before the symbols"));
                    }
                    b"filenames" => {
                        files = true;
                        p.list(|p| {
                            let (name, _) = p.string("expected a quoted file name")?;
                            p.profile.files.push(name.into_owned());
                            Ok(())
                        })?;
                    }
                    b"summary" if summary.is_some() || !functions.is_empty() => {
                        return Err(at.error("one summary block, before the symbols"));
                    }
                    b"summary" => summary = Some(p.summary()?),
                    b"symbol_names" => p.list(|p| {
                        p.symbol_head()?;
                        p.expect(Tok::RParen, "expected `)` after a symbol id")?;
                        Ok(())
                    })?,
                    _ => p.skip_value()?,
                }
            }
            Tok::Str(_) if files && summary.is_some() => {
                let name = p.symbol_head()?;
                p.expect(Tok::Colon, "expected `:` before the head count")?;
                let (head, _) = p.number("expected a head count")?;
                p.expect(Tok::Colon, "expected `:` before the timestamp")?;
                let (timestamp, _) = p.number("expected a timestamp")?;
                p.expect(Tok::RParen, "expected `)` after the timestamp")?;
                p.expect(Tok::Equals, "expected `=` before a symbol's body")?;
                let mut f = FunctionSamples { name, head, timestamp, ..FunctionSamples::default() };
                p.sections(&mut f, 0)?;
                functions.push(f);
            }
            _ => return Err(at.error("expected a block keyword or a quoted symbol name")),
        }
    }
    for (id, at) in &p.refs {
        if !p.ids.contains_key(id) {
            return Err(at.error("a callsite target id that names a symbol"));
        }
    }
    let mut profile = p.profile;
    profile.kind.file_names = true;
    for mut f in functions {
        resolve(&mut f, &p.ids);
        profile.add(f);
    }
    Ok(Decoded { profile, summary: summary.unwrap_or_default() })
}

/// Replaces the symbol ids standing for call targets by their names. Recursion
/// follows inline nesting, which the parser bounds by [`MAX_DEPTH`].
fn resolve(f: &mut FunctionSamples, ids: &HashMap<u32, NameId>) {
    for b in &mut f.body {
        let calls = core::mem::take(&mut b.calls);
        for mut call in calls {
            call.name = ids.get(&call.name.0).copied().unwrap_or(call.name);
            // Two ids may name one symbol: keep one entry per name.
            match b.calls.iter_mut().find(|c| c.name == call.name) {
                Some(c) => c.count = c.count.saturating_add(call.count),
                None => b.calls.push(call),
            }
        }
    }
    for c in &mut f.callsites {
        resolve(&mut c.callee, ids);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(s: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_quoted(&mut out, s);
        out
    }

    fn unquote(s: &[u8]) -> Vec<u8> {
        let mut lex = Lexer { data: s, pos: 0, line: 1, line_start: 0 };
        match lex.next().unwrap().0 {
            Tok::Str(s) => s.into_owned(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn quoting_round_trips_and_leaves_plain_names_alone() {
        for s in [&b"_Z3fooi"[..], b"C:\\src\\a.c", b"a\"b", b"a\\\"b", b"ends\\", b"\\\\\"", b""] {
            assert_eq!(unquote(&quoted(s)), s, "{:?}", core::str::from_utf8(s));
        }
        assert_eq!(quoted(b"C:\\src\\a.c"), b"\"C:\\src\\a.c\"");
        assert_eq!(quoted(b"a\"b"), b"\"a\\\"b\"");
        assert_eq!(quoted(b"ends\\"), b"\"ends\\\\\"");
    }

    #[test]
    fn errors_say_line_and_column() {
        let text = b"filenames = {}\nsummary = {}\n\"f\":0(0:0:0) = {}\n";
        let err = read(text).err().unwrap();
        assert_eq!(err.location, crate::error::Location::Line { line: 3, column: 5 });
        let err = read(b"filenames = {\n  \"a\",\n  7\n}").err().unwrap();
        assert_eq!(err.location, crate::error::Location::Line { line: 3, column: 3 });
    }

    #[test]
    fn unknown_blocks_are_skipped_and_forward_references_resolve() {
        let text = br#"filenames = {"a.c",}
summary = {total_count = 5, future = {"}" {}}, num_detailed_entries = 0, detailed_entries = {}}
symbol_names = {"bar":-1(1),}
extension = { "{" }
"foo":0(0:7:3) = {
  callsites = {2 -> {1 = 4, 2 = 1,},},
  branches = {1 -> 2},
  locations = {2 = 5},
}
"baz":-1(2:0:0) = {}
"#;
        let d = read(text).unwrap();
        assert_eq!(d.profile.files, [b"a.c".to_vec()]);
        assert_eq!(d.summary.total_count, 5);
        let foo = &d.profile.functions[0];
        assert_eq!((foo.head, foo.timestamp, foo.total), (7, 3, 5));
        assert_eq!(foo.body[0].samples, 5);
        let calls: Vec<_> =
            foo.body[0].calls.iter().map(|c| (d.profile.names.name(c.name).cloned(), c.count)).collect();
        assert_eq!(calls, [(Some(Name::Bytes(b"bar".to_vec())), 4), (Some(Name::Bytes(b"baz".to_vec())), 1)]);
        assert_eq!(d.profile.names.get(foo.name).unwrap().file, Some(0));
    }
}
