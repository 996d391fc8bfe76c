//! The YAML that BOLT profiles use, read without building a document tree: block
//! mappings and sequences by indentation, flow sequences and mappings (on one line
//! as LLVM writes them, or across lines as people write them), plain, single- and
//! double-quoted scalars, comments. That is LLVM's YAML writer's subset plus what
//! hand-written profiles in LLVM's tests use; anchors, aliases, tags, block
//! scalars (`|`, `>`), multi-line plain scalars and complex keys are clean errors.
//!
//! The decoder drives it by the schema: [`Reader::next_key`] walks one block
//! mapping, [`Reader::next_item`] one block sequence, [`Flow`] one flow
//! collection. Nesting is bounded by the schema the caller follows; values under
//! unknown keys are skipped with a counter, never by recursion.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::error::{Error, Result};

/// Where a token starts: 1-based line and column (bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u64,
    pub column: u64,
}

impl Pos {
    pub fn error(self, what: &'static str) -> Error {
        Error::at_line(self.line, self.column, what)
    }
}

/// A key of a block mapping, with where it is.
#[derive(Clone, Debug)]
pub struct Key<'a> {
    pub name: Cow<'a, [u8]>,
    pub pos: Pos,
}

/// A scalar and where it starts.
#[derive(Clone, Debug)]
pub struct Scalar<'a> {
    pub text: Cow<'a, [u8]>,
    pub pos: Pos,
}

/// The state of one block mapping being walked.
#[derive(Clone, Copy, Debug)]
pub struct Mapping {
    indent: usize,
    /// The first key sits on the line already started (after `- `).
    first_inline: bool,
}

impl Mapping {
    /// A mapping at column `indent` whose keys go on from the next line with
    /// content (its earlier keys were read before).
    pub fn continued(indent: usize) -> Mapping {
        Mapping { indent, first_inline: false }
    }

    /// The column its keys start at (0-based).
    pub fn indent(&self) -> usize {
        self.indent
    }
}

/// The state of one block sequence being walked.
#[derive(Clone, Copy, Debug)]
pub struct Sequence {
    indent: usize,
    /// Positioned at the first item's `-` already.
    at_first: bool,
}

impl Sequence {
    /// A sequence at column `indent` whose items go on from the next line with
    /// content (its earlier items were read before).
    pub fn items_at(indent: usize) -> Sequence {
        Sequence { indent, at_first: false }
    }
}

/// A cursor over the document.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    line: u64,
    line_start: usize,
    /// A flow collection went on over a line break.
    pub flow_wrapped: bool,
}

/// What each byte is to the scans below, as bits: one table load per byte where a
/// chain of compares (or a jump table) was, the reader's innermost loops.
const BLANK: u8 = 1;
/// Part of a plain scalar wherever it stands: not a blank, a line end, `#`, `:` or
/// a flow indicator, each of which depends on its context.
const ORDINARY: u8 = 2;
/// Part of a block mapping's plain key wherever it stands: not a line end, `:` or `#`.
const KEY: u8 = 4;
/// Skipped between a flow collection's tokens without a look: blanks and `\r`.
const FLOW_SPACE: u8 = 8;
/// Part of a key as LLVM names them: lowercase letters, digits, `-` and `_`.
const WORD: u8 = 16;

static CLASS: [u8; 256] = classes();

// Evaluated while building: an index out of range would fail the build, not a run.
#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation, clippy::arithmetic_side_effects)]
const fn classes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        let mut class = 0;
        let byte = b as u8;
        if matches!(byte, b' ' | b'\t') {
            class |= BLANK | FLOW_SPACE;
        }
        if byte == b'\r' {
            class |= FLOW_SPACE;
        }
        if !matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b'#' | b':' | b',' | b'[' | b']' | b'{' | b'}') {
            class |= ORDINARY;
        }
        if !matches!(byte, b'\n' | b'\r' | b':' | b'#') {
            class |= KEY;
        }
        if matches!(byte, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_') {
            class |= WORD;
        }
        table[b] = class;
        b += 1;
    }
    table
}

fn class(b: u8) -> u8 {
    CLASS.get(usize::from(b)).copied().unwrap_or(0)
}

/// How many bytes at the start of `bytes` are of `class`.
fn run(bytes: &[u8], of: u8) -> usize {
    bytes.iter().position(|&b| class(b) & of == 0).unwrap_or(bytes.len())
}

/// How many spaces `bytes` starts with, eight at a time: LLVM pads every key's
/// value to one column and indents by two, so most runs are long.
fn spaces(bytes: &[u8]) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let mut n = 0usize;
    while let Some(word) = bytes.get(n..n.saturating_add(8)).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
        // The first byte that is not a space is the lowest non-zero byte of the XOR.
        let x = u64::from_le_bytes(word) ^ SPACES;
        if x != 0 {
            return n.saturating_add((x.trailing_zeros() / 8) as usize);
        }
        n = n.saturating_add(8);
    }
    let tail = bytes.get(n..).unwrap_or_default();
    n.saturating_add(tail.iter().take_while(|&&b| b == b' ').count())
}

/// Whether a run of ordinary bytes is a plain scalar: it starts with none of the
/// bytes that open a quoted scalar, an anchor, alias, tag or block scalar, or are
/// reserved.
fn plain_start(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|&b| !matches!(b, b'\'' | b'"' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`'))
}

/// The length of the key LLVM would write at the start of `bytes`: a lowercase word
/// (letters, digits, `-` and `_`) followed by `: `.
fn llvm_word(bytes: &[u8]) -> Option<usize> {
    let len = run(bytes, WORD);
    (bytes.first().is_some_and(u8::is_ascii_lowercase)
        && bytes.get(len..len.saturating_add(2)) == Some(b": ".as_slice()))
    .then_some(len)
}

fn is_blank(b: u8) -> bool {
    class(b) & BLANK != 0
}

/// What may follow a `:` that ends a key: a blank or the line's end.
fn is_separator(b: u8) -> bool {
    is_blank(b) || b == b'\n' || b == b'\r'
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader::at_line(data, 1)
    }

    /// A cursor over the lines of a document from its line `line` on.
    pub fn at_line(data: &'a [u8], line: u64) -> Self {
        Reader { data, pos: 0, line, line_start: 0, flow_wrapped: false }
    }

    pub fn here(&self) -> Pos {
        Pos { line: self.line, column: (self.pos.saturating_sub(self.line_start) as u64).saturating_add(1) }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.data.get(self.pos.saturating_add(ahead)).copied()
    }

    fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.pos = self.pos.saturating_add(1);
            if b == b'\n' {
                self.line = self.line.saturating_add(1);
                self.line_start = self.pos;
            }
        }
    }

    /// Moves over `n` bytes that hold no line end (the scans below count them
    /// first, rather than stepping a byte at a time past a line-end check).
    fn advance(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n).min(self.data.len());
    }

    fn skip_blanks(&mut self) {
        let rest = self.rest();
        let mut n = spaces(rest);
        // A tab among them: the rest byte by byte.
        if rest.get(n) == Some(&b'\t') {
            n = n.saturating_add(run(rest.get(n..).unwrap_or_default(), BLANK));
        }
        self.advance(n);
    }

    fn skip_to_line_end(&mut self) {
        let rest = self.rest();
        self.advance(memchr::memchr(b'\n', rest).unwrap_or(rest.len()));
    }

    /// After a value: blanks, an optional comment, then the end of the line.
    pub fn end_line(&mut self) -> Result<()> {
        self.skip_blanks();
        match self.peek() {
            None => Ok(()),
            Some(b'\n') => {
                self.bump();
                Ok(())
            }
            Some(b'\r') if self.peek_at(1) == Some(b'\n') => {
                self.bump();
                self.bump();
                Ok(())
            }
            Some(b'#') => {
                self.skip_to_line_end();
                self.bump();
                Ok(())
            }
            Some(_) => Err(self.here().error("end of line after the value")),
        }
    }

    /// Moves to the first byte of the next line with content; returns its
    /// indentation, or None at the end of the document (`...`, `---` or the input's end).
    fn next_content(&mut self) -> Result<Option<usize>> {
        loop {
            if self.pos != self.line_start {
                return Err(self.here().error("a new line"));
            }
            let indent = spaces(self.rest());
            self.advance(indent);
            match self.peek() {
                None => return Ok(None),
                Some(b'\t') => {
                    // Tabs are blanks after the indentation, but not indentation.
                    let tab = self.here();
                    self.skip_blanks();
                    match self.peek() {
                        None => return Ok(None),
                        Some(b'\n' | b'\r' | b'#') => {}
                        Some(_) => return Err(tab.error("spaces for indentation, not tabs")),
                    }
                    self.end_line()?;
                }
                Some(b'\n' | b'\r' | b'#') => self.end_line()?,
                Some(_) if indent == 0 && (self.rest().starts_with(b"...") || self.rest().starts_with(b"---")) => {
                    let marker_end = self.rest().get(3).copied();
                    if marker_end.is_none_or(|b| b == b'\n' || b == b'\r' || is_blank(b)) {
                        return Ok(None);
                    }
                    return Ok(Some(indent));
                }
                Some(_) => return Ok(Some(indent)),
            }
        }
    }

    /// The document start: optional comments, an optional `%YAML` directive and `---`.
    pub fn start_document(&mut self) -> Result<()> {
        loop {
            match self.next_content()? {
                Some(0) if self.rest().starts_with(b"%") => {
                    self.skip_to_line_end();
                    self.bump();
                }
                Some(_) => return Ok(()),
                None if self.rest().starts_with(b"---") => {
                    self.pos = self.pos.saturating_add(3);
                    self.skip_blanks();
                    if self.peek().is_some_and(|b| b != b'\n' && b != b'\r' && b != b'#') {
                        return Err(self.here().error("a block mapping after '---' (on the next line)"));
                    }
                    self.end_line()?;
                    return Ok(());
                }
                None => return Ok(()),
            }
        }
    }

    /// Everything after the top-level mapping must be the end marker or nothing.
    pub fn end_document(&mut self) -> Result<()> {
        match self.next_content()? {
            None if self.rest().starts_with(b"...") => {
                self.pos = self.pos.saturating_add(3);
                self.end_line()?;
                match self.next_content()? {
                    None if self.rest().is_empty() => Ok(()),
                    _ => Err(self.here().error("one document (found content after '...')")),
                }
            }
            None if self.rest().is_empty() => Ok(()),
            _ => Err(self.here().error("one document (found a second one)")),
        }
    }

    /// Starts the top-level block mapping.
    pub fn top_mapping(&mut self) -> Result<Mapping> {
        match self.next_content()? {
            Some(0) => Ok(Mapping { indent: 0, first_inline: true }),
            Some(_) => Err(self.here().error("a top-level mapping at column 1")),
            None => Err(self.here().error("a mapping with 'header' and 'functions' (the document is empty)")),
        }
    }

    /// The block mapping that is the value of a key just read (its line ended).
    pub fn nested_mapping(&mut self, parent: usize, key: Pos) -> Result<Mapping> {
        match self.next_content()? {
            Some(indent) if indent > parent => {
                if self.peek() == Some(b'-') && self.peek_at(1).is_none_or(|b| is_blank(b) || b == b'\n') {
                    return Err(self.here().error("a mapping, found a sequence"));
                }
                Ok(Mapping { indent, first_inline: true })
            }
            _ => Err(key.error("a block mapping indented under this key")),
        }
    }

    /// The block sequence that is the value of a key just read (its line ended);
    /// `- ` may sit at the key's own indentation.
    pub fn nested_sequence(&mut self, parent: usize, key: Pos) -> Result<Sequence> {
        match self.next_content()? {
            Some(indent) if indent >= parent && self.at_dash() => Ok(Sequence { indent, at_first: true }),
            _ => Err(key.error("a block sequence ('- ' items) under this key")),
        }
    }

    /// Where the cursor is, to come back to after looking ahead.
    fn mark(&self) -> (usize, u64, usize) {
        (self.pos, self.line, self.line_start)
    }

    fn back_to(&mut self, (pos, line, line_start): (usize, u64, usize)) {
        (self.pos, self.line, self.line_start) = (pos, line, line_start);
    }

    /// Moves to the next line with content if it is indented `indent` and `starts`
    /// holds there (true). At a shallower line, one that does not start so, or the
    /// document's end, the cursor stays put (false): the line belongs to an outer
    /// collection. Deeper indentation is the error `deeper`.
    fn next_line_at(&mut self, indent: usize, starts: impl Fn(&Self) -> bool, deeper: &'static str) -> Result<bool> {
        if self.pos != self.line_start {
            return Err(self.here().error("a new line"));
        }
        let mark = self.mark();
        match self.next_content()? {
            Some(i) if i == indent && starts(self) => Ok(true),
            Some(i) if i > indent => Err(self.here().error(deeper)),
            _ => {
                self.back_to(mark);
                Ok(false)
            }
        }
    }

    fn at_dash(&self) -> bool {
        self.peek() == Some(b'-') && self.peek_at(1).is_none_or(|b| is_blank(b) || b == b'\n' || b == b'\r')
    }

    /// The next item of a block sequence: a mapping starting after its `- `.
    pub fn next_item(&mut self, seq: &mut Sequence) -> Result<Option<Mapping>> {
        if seq.at_first {
            seq.at_first = false;
        } else if !self.next_line_at(seq.indent, Reader::at_dash, "'- ' at the sequence's indentation")? {
            return Ok(None);
        }
        self.bump();
        self.skip_blanks();
        let column = self.pos.saturating_sub(self.line_start);
        if matches!(self.peek(), Some(b'\n' | b'\r' | b'#') | None) {
            return Err(self.here().error("a mapping on the line of its '- '"));
        }
        Ok(Some(Mapping { indent: column, first_inline: true }))
    }

    /// The next key of a block mapping, positioned at its value (blanks skipped).
    pub fn next_key(&mut self, map: &mut Mapping) -> Result<Option<Key<'a>>> {
        if map.first_inline {
            map.first_inline = false;
        } else if let Some(key) = self.llvm_key(map.indent) {
            return Ok(Some(key));
        } else if !self.next_line_at(map.indent, |_| true, "a key at the mapping's indentation")? {
            return Ok(None);
        }
        let pos = self.here();
        if self.at_dash() {
            return Err(pos.error("a key, found a sequence item"));
        }
        let name = match self.peek() {
            Some(b'\'' | b'"') => self.quoted()?,
            Some(b'[' | b'{' | b'?' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`') => {
                return Err(pos.error("a plain or quoted key"));
            }
            _ => {
                let rest = self.rest();
                let mut i = 0usize;
                loop {
                    i = i.saturating_add(run(rest.get(i..).unwrap_or_default(), KEY));
                    match rest.get(i) {
                        None | Some(b'\n' | b'\r') => return Err(pos.error("':' after the key")),
                        Some(b':') if rest.get(i.saturating_add(1)).is_none_or(|&b| is_separator(b)) => break,
                        Some(b'#') if i > 0 && rest.get(i.wrapping_sub(1)).is_some_and(|&b| is_blank(b)) => {
                            return Err(pos.error("':' after the key"));
                        }
                        Some(_) => i = i.saturating_add(1),
                    }
                }
                self.advance(i);
                Cow::Borrowed(rest.get(..i).unwrap_or_default().trim_ascii_end())
            }
        };
        self.skip_blanks();
        if self.peek() != Some(b':') {
            return Err(self.here().error("':' after the key"));
        }
        self.bump();
        self.skip_blanks();
        Ok(Some(Key { name, pos }))
    }

    /// A key as LLVM writes them, taken at once: at the start of a line, the
    /// mapping's indentation in spaces, then a lowercase word (letters, digits,
    /// `-` and `_`), `:` and a space. What the general path makes of such a line
    /// (the key, where it is, the cursor on its value); None, and the cursor
    /// unmoved, for any other line.
    fn llvm_key(&mut self, indent: usize) -> Option<Key<'a>> {
        if self.pos != self.line_start {
            return None;
        }
        let line = self.rest();
        let word = line.get(indent..)?;
        let len = llvm_word(word)?;
        if spaces(line) != indent {
            return None;
        }
        let pos = Pos { line: self.line, column: (indent as u64).saturating_add(1) };
        let name = Cow::Borrowed(word.get(..len).unwrap_or_default());
        self.advance(indent.saturating_add(len).saturating_add(1));
        self.skip_blanks();
        Some(Key { name, pos })
    }

    /// True when the key's value is on following lines (nothing but a comment after the ':').
    pub fn value_is_nested(&mut self) -> Result<bool> {
        if matches!(self.peek(), None | Some(b'\n' | b'\r' | b'#')) {
            self.end_line()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// A scalar value on the key's line; the line is consumed.
    pub fn scalar(&mut self) -> Result<Scalar<'a>> {
        // As LLVM writes most values: a plain scalar of ordinary bytes up to the
        // line's end, taken at once (what the general path below makes of it).
        let rest = self.rest();
        let len = run(rest, ORDINARY);
        if len > 0 && plain_start(rest) && rest.get(len) == Some(&b'\n') {
            let scalar = Scalar { text: Cow::Borrowed(rest.get(..len).unwrap_or_default()), pos: self.here() };
            self.advance(len);
            self.bump();
            return Ok(scalar);
        }
        let scalar = self.scalar_in(false, false)?;
        self.end_line()?;
        Ok(scalar)
    }

    fn scalar_in(&mut self, flow: bool, key: bool) -> Result<Scalar<'a>> {
        let pos = self.here();
        match self.peek() {
            Some(b'\'' | b'"') => Ok(Scalar { text: self.quoted()?, pos }),
            None | Some(b'\n' | b'\r' | b'#') => Err(pos.error("a value")),
            Some(b'[' | b'{') => Err(pos.error("a scalar, found a flow collection")),
            Some(b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`') => {
                Err(pos.error("a plain scalar (anchors, aliases, tags and block scalars are not used by BOLT)"))
            }
            Some(_) => {
                let rest = self.rest();
                // `i` scans, `end` follows the last byte that is not a blank.
                let (mut i, mut end) = (0usize, 0usize);
                loop {
                    // Most bytes of a scalar are ordinary: taken in one run.
                    let ordinary = run(rest.get(i..).unwrap_or_default(), ORDINARY);
                    if ordinary > 0 {
                        i = i.saturating_add(ordinary);
                        end = i;
                    }
                    match rest.get(i) {
                        None | Some(b'\n' | b'\r') => break,
                        Some(b'#') if i > 0 && rest.get(i.wrapping_sub(1)).is_some_and(|&b| is_blank(b)) => break,
                        Some(b':')
                            if rest
                                .get(i.saturating_add(1))
                                .is_none_or(|&b| is_separator(b) || (flow && b",[]{}".contains(&b))) =>
                        {
                            if key {
                                break;
                            }
                            self.advance(i);
                            return Err(self.here().error("a scalar (': ' inside a plain scalar)"));
                        }
                        Some(b',' | b']' | b'}' | b'[' | b'{') if flow => break,
                        Some(&b) => {
                            i = i.saturating_add(1);
                            if !is_blank(b) {
                                end = i;
                            }
                        }
                    }
                }
                self.advance(i);
                Ok(Scalar { text: Cow::Borrowed(rest.get(..end).unwrap_or_default()), pos })
            }
        }
    }

    /// A single- or double-quoted scalar (on one line: multi-line quoted scalars are
    /// folded by YAML, and BOLT never writes them).
    fn quoted(&mut self) -> Result<Cow<'a, [u8]>> {
        let pos = self.here();
        let Some(quote) = self.peek() else { return Err(pos.error("a quoted scalar")) };
        self.bump();
        let start = self.pos;
        let mut owned: Option<Vec<u8>> = None;
        loop {
            // The run of bytes that stand for themselves, taken at once.
            let rest = self.rest();
            let run = rest.iter().take_while(|&&b| b != quote && b != b'\\' && b != b'\n' && b != b'\r').count();
            if let Some(buf) = owned.as_mut() {
                buf.extend_from_slice(rest.get(..run).unwrap_or_default());
            }
            self.advance(run);
            let at = self.pos;
            match self.peek() {
                None | Some(b'\n' | b'\r') => return Err(pos.error("the closing quote on the same line")),
                Some(b'\'') if quote == b'\'' => {
                    if self.peek_at(1) == Some(b'\'') {
                        let buf = owned.get_or_insert_with(|| self.data.get(start..at).unwrap_or_default().to_vec());
                        buf.push(b'\'');
                        self.bump();
                        self.bump();
                        continue;
                    }
                    self.bump();
                    return Ok(match owned {
                        Some(buf) => Cow::Owned(buf),
                        None => Cow::Borrowed(self.data.get(start..at).unwrap_or_default()),
                    });
                }
                Some(b'"') if quote == b'"' => {
                    self.bump();
                    return Ok(match owned {
                        Some(buf) => Cow::Owned(buf),
                        None => Cow::Borrowed(self.data.get(start..at).unwrap_or_default()),
                    });
                }
                Some(b'\\') if quote == b'"' => {
                    let buf = owned.get_or_insert_with(|| self.data.get(start..at).unwrap_or_default().to_vec());
                    let escape = self.here();
                    self.bump();
                    let Some(c) = self.peek() else { return Err(escape.error("an escape after '\\'")) };
                    self.bump();
                    let simple = match c {
                        b'0' => Some(0u8),
                        b'a' => Some(7),
                        b'b' => Some(8),
                        b't' | b'\t' => Some(9),
                        b'n' => Some(10),
                        b'v' => Some(11),
                        b'f' => Some(12),
                        b'r' => Some(13),
                        b'e' => Some(27),
                        b' ' => Some(b' '),
                        b'"' => Some(b'"'),
                        b'/' => Some(b'/'),
                        b'\\' => Some(b'\\'),
                        _ => None,
                    };
                    if let Some(b) = simple {
                        buf.push(b);
                        continue;
                    }
                    let (digits, fixed): (usize, Option<&[u8]>) = match c {
                        b'x' => (2, None),
                        b'u' => (4, None),
                        b'U' => (8, None),
                        b'N' => (0, Some("\u{85}".as_bytes())),
                        b'_' => (0, Some("\u{a0}".as_bytes())),
                        b'L' => (0, Some("\u{2028}".as_bytes())),
                        b'P' => (0, Some("\u{2029}".as_bytes())),
                        _ => {
                            return Err(escape.error(
                                "a known escape (\\0 \\a \\b \\t \\n \\v \\f \\r \\e \\\" \\\\ \\x \\u \\U ...)",
                            ))
                        }
                    };
                    if let Some(bytes) = fixed {
                        buf.extend_from_slice(bytes);
                        continue;
                    }
                    let mut value = 0u32;
                    for _ in 0..digits {
                        let digit = self.peek().and_then(|b| char::from(b).to_digit(16));
                        let Some(d) = digit else { return Err(escape.error("hex digits in the escape")) };
                        value = value.wrapping_mul(16).wrapping_add(d);
                        self.bump();
                    }
                    if c == b'x' {
                        // `\xNN` is the code point U+00NN, written as UTF-8.
                        let ch = char::from_u32(value).unwrap_or('\u{fffd}');
                        buf.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                    } else {
                        let Some(ch) = char::from_u32(value) else {
                            return Err(escape.error("a Unicode scalar value"));
                        };
                        buf.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                }
                Some(b) => {
                    if let Some(buf) = owned.as_mut() {
                        buf.push(b);
                    }
                    self.bump();
                }
            }
        }
    }

    /// Skips the value of a key whose value is not wanted: a scalar or flow
    /// collection on its line, or the more-indented lines under it.
    pub fn skip_value(&mut self, parent: usize) -> Result<()> {
        if self.value_is_nested()? {
            loop {
                let mark = self.mark();
                match self.next_content()? {
                    Some(indent) if indent > parent || (indent == parent && self.at_dash()) => {
                        let mut depth = 0usize;
                        self.skip_line_value(&mut depth)?;
                    }
                    _ => {
                        self.back_to(mark);
                        return Ok(());
                    }
                }
            }
        }
        let mut depth = 0usize;
        self.skip_line_value(&mut depth)
    }

    /// Skips to the end of a line, and past the end of any flow collection opened on it.
    fn skip_line_value(&mut self, depth: &mut usize) -> Result<()> {
        let start = self.here();
        loop {
            match self.peek() {
                None if *depth > 0 => return Err(start.error("the end of the flow collection")),
                None => return Ok(()),
                Some(b'\n') if *depth == 0 => {
                    self.bump();
                    return Ok(());
                }
                Some(b'[' | b'{') => {
                    *depth = depth.saturating_add(1);
                    self.bump();
                }
                Some(b']' | b'}') => {
                    *depth = depth.saturating_sub(1);
                    self.bump();
                }
                Some(b'\'' | b'"') => {
                    self.quoted()?;
                }
                Some(b'#')
                    if self.pos == self.line_start
                        || self.data.get(self.pos.wrapping_sub(1)).is_some_and(|&b| is_blank(b)) =>
                {
                    self.skip_to_line_end();
                }
                Some(_) => self.bump(),
            }
        }
    }

    /// Starts a flow collection (`[` or `{`) at the cursor.
    pub fn flow(&mut self, open: u8) -> Result<Flow> {
        let pos = self.here();
        if self.peek() != Some(open) {
            return Err(pos.error(if open == b'[' { "a flow sequence '[ ... ]'" } else { "a flow mapping '{ ... }'" }));
        }
        self.bump();
        Ok(Flow { close: if open == b'[' { b']' } else { b'}' }, pos, first: true })
    }

    /// Blanks, newlines and comments inside a flow collection.
    fn skip_flow_space(&mut self) -> Result<()> {
        loop {
            match self.peek() {
                Some(b'\n') => {
                    self.flow_wrapped = true;
                    self.bump();
                }
                Some(b'#') => self.skip_to_line_end(),
                Some(b) if class(b) & FLOW_SPACE != 0 => self.advance(run(self.rest(), FLOW_SPACE)),
                _ => return Ok(()),
            }
        }
    }

    /// The next entry of a flow collection: true if there is one (positioned at it),
    /// false after its closing bracket.
    pub fn next_entry(&mut self, flow: &mut Flow) -> Result<bool> {
        // As LLVM writes them: `, ` then the entry, taken at once (what the general
        // path below makes of it).
        if !flow.first && self.peek() == Some(b',') && self.peek_at(1) == Some(b' ') {
            if let Some(c) = self.peek_at(2) {
                if c != flow.close && !matches!(c, b',' | b'#' | b'\n') && class(c) & FLOW_SPACE == 0 {
                    self.advance(2);
                    return Ok(true);
                }
            }
        }
        self.skip_flow_space()?;
        match self.peek() {
            None => Err(flow.pos.error("the end of the flow collection (the input ended inside it)")),
            Some(c) if c == flow.close => {
                self.bump();
                Ok(false)
            }
            Some(b',') if !flow.first => {
                self.bump();
                self.skip_flow_space()?;
                match self.peek() {
                    None => Err(flow.pos.error("the end of the flow collection (the input ended inside it)")),
                    Some(c) if c == flow.close => {
                        self.bump();
                        Ok(false)
                    }
                    Some(b',') => Err(self.here().error("an entry between the commas")),
                    _ => Ok(true),
                }
            }
            Some(_) if flow.first => {
                flow.first = false;
                Ok(true)
            }
            Some(_) => Err(self.here().error(if flow.close == b']' { "',' or ']'" } else { "',' or '}'" })),
        }
    }

    /// A key inside a flow mapping, positioned at its value.
    pub fn flow_key(&mut self) -> Result<Key<'a>> {
        // As LLVM writes them (`bid: `): a lowercase word, `:` and a space, taken
        // at once (what the general path below makes of it).
        let rest = self.rest();
        if let Some(len) = llvm_word(rest) {
            let key = Key { name: Cow::Borrowed(rest.get(..len).unwrap_or_default()), pos: self.here() };
            self.advance(len.saturating_add(1));
            self.skip_flow_space()?;
            return Ok(key);
        }
        let scalar = self.scalar_in(true, true)?;
        self.skip_flow_space()?;
        if self.peek() != Some(b':') {
            return Err(self.here().error("':' after the key"));
        }
        self.bump();
        self.skip_flow_space()?;
        Ok(Key { name: scalar.text, pos: scalar.pos })
    }

    /// A scalar inside a flow collection.
    pub fn flow_scalar(&mut self) -> Result<Scalar<'a>> {
        // As LLVM writes them (`5, ` or `5 }`): ordinary bytes up to the entry's
        // end, taken at once (what the general path below makes of them).
        let rest = self.rest();
        let len = run(rest, ORDINARY);
        let ends = |at: usize| matches!(rest.get(at), Some(b',' | b'}' | b']'));
        if len > 0 && plain_start(rest) && (ends(len) || (rest.get(len) == Some(&b' ') && ends(len.saturating_add(1))))
        {
            let scalar = Scalar { text: Cow::Borrowed(rest.get(..len).unwrap_or_default()), pos: self.here() };
            self.advance(len);
            self.skip_flow_space()?;
            return Ok(scalar);
        }
        let scalar = self.scalar_in(true, false)?;
        self.skip_flow_space()?;
        Ok(scalar)
    }

    /// Skips one flow value (a scalar or a nested collection) by counting brackets.
    pub fn skip_flow_value(&mut self) -> Result<()> {
        let start = self.here();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return Err(start.error("the end of the flow collection (the input ended inside it)")),
                Some(b'[' | b'{') => {
                    depth = depth.saturating_add(1);
                    self.bump();
                }
                Some(b']' | b'}') if depth > 0 => {
                    depth = depth.saturating_sub(1);
                    self.bump();
                    if depth == 0 {
                        self.skip_flow_space()?;
                        return Ok(());
                    }
                }
                Some(b',' | b']' | b'}') => return Ok(()),
                Some(b'\'' | b'"') => {
                    self.quoted()?;
                }
                Some(b'#') => self.skip_to_line_end(),
                Some(_) => self.bump(),
            }
        }
    }

    /// After a flow collection that is a key's whole value: the rest of its line.
    pub fn end_flow_value(&mut self) -> Result<()> {
        self.end_line()
    }
}

/// One flow collection being read.
#[derive(Clone, Copy, Debug)]
pub struct Flow {
    close: u8,
    pos: Pos,
    first: bool,
}
