//! A BOLT YAML profile decoded as it streams in, a piece of whole functions at a
//! time, without the whole text in memory.
//!
//! LLVM writes a profile as its `header` mapping, then the `functions` sequence
//! (one item per function, each starting on a line of its own at the sequence's
//! indentation), then `pseudo_probe_desc`:
//!
//! ```text
//! ---                                   ┐ the head: decoded again before
//! header:                               │ every later piece
//!   profile-version: 1                  │
//! functions:                            ┘
//!   - name:            main             ┐ a piece: whole items, decoded with
//!     fid:             1                │ the head as one document; its
//!     ...                               │ spans rebased and its lines moved
//!   - name:            foo              ┘ onto the file's
//! pseudo_probe_desc: ...                  the rest, with the last piece
//! ```
//!
//! The profile is the one [`decode`] gives for the whole text, with its names
//! owned. A document with anything else before its functions, or functions not in
//! a block sequence, is held and decoded whole at the end. A piece that fails to
//! decode fails the stream, its error at the file's line. Every check is within one
//! function or the head, and the version, which the whole text's decode checks
//! last, is checked at the end, so the error is mostly the whole text's one. A flow
//! collection that runs across the next function's line (which LLVM never writes)
//! is cut, though: the stream fails inside it, where the whole text fails further on
//! or, the collection being an unknown key's skipped value, decodes. A text whose
//! stream failed is to be decoded whole (the page reads the file whole then): what
//! the stream decodes is always the whole text's profile.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::decode::{check_version, decode_unversioned};
use super::reader::Pos;
use super::{decode, Profile, Span};
use crate::error::{Location, Result};

/// Pieces are cut once this many bytes are waiting: the head is decoded again with
/// each, so they are much larger than it.
pub const PIECE: usize = 4 << 20;

/// A BOLT YAML profile read block by block.
pub struct YamlStream {
    /// Bytes fed and not yet decoded, from the start of line `pending_line`.
    pending: Vec<u8>,
    pending_line: u64,
    /// The text up to and including the `functions:` line, its line count, and the
    /// indentation of the sequence's items, once known.
    head: Option<(Vec<u8>, u64, usize)>,
    /// How far the lines of `pending` were searched for the head, and for items.
    head_scan: HeadScan,
    scan: Scan,
    /// The document is not cut into pieces: it is decoded whole at the end.
    whole: bool,
    /// The functions so far (none before the first piece), and where the version
    /// is (checked at the end, as the whole text's decode checks it).
    profile: Option<(Profile<'static>, Pos)>,
    piece: usize,
    /// Pieces decoded so far.
    pieces: usize,
    /// The text's last byte so far: whether its last line is terminated.
    last_byte: Option<u8>,
}

impl YamlStream {
    /// A stream that decodes a piece once `piece` bytes are waiting (see [`PIECE`]).
    pub fn new(piece: usize) -> YamlStream {
        YamlStream {
            pending: Vec::new(),
            pending_line: 1,
            head: None,
            head_scan: HeadScan::default(),
            scan: Scan::default(),
            whole: false,
            profile: None,
            piece: piece.max(1),
            pieces: 0,
            last_byte: None,
        }
    }

    /// Feeds the next bytes of the text.
    pub fn feed(&mut self, block: &[u8]) -> Result<()> {
        if let Some(&last) = block.last() {
            self.last_byte = Some(last);
        }
        self.pending.extend_from_slice(block);
        if self.whole {
            return Ok(());
        }
        if self.head.is_none() {
            match self.head_scan.lines(&self.pending) {
                Head::Found(len, lines, indent) => {
                    self.head = self.pending.get(..len).map(|h| (h.to_vec(), lines, indent));
                    self.scan = Scan { at: len, ..Scan::default() };
                }
                Head::NotYet => return Ok(()),
                Head::None => {
                    self.whole = true;
                    return Ok(());
                }
            }
        }
        let Some((_, _, indent)) = &self.head else { return Ok(()) };
        self.scan.lines(&self.pending, *indent);
        if self.pending.len() >= self.piece && self.scan.items >= 2 {
            if let Some(cut) = self.scan.last {
                self.decode_piece(cut)?;
                // The text now starts with the item cut at.
                self.scan = Scan { at: self.scan.at.saturating_sub(cut), items: 1, last: Some(0), ..self.scan };
            }
        }
        Ok(())
    }

    /// The profile, once every byte was fed.
    pub fn finish(mut self) -> Result<Profile<'static>> {
        if self.whole || self.head.is_none() {
            return decode(&self.pending).map(Profile::into_owned);
        }
        self.decode_piece(self.pending.len())?;
        let (profile, version_pos) = self.profile.ok_or(crate::error::Error::malformed(0, "a profile"))?;
        check_version(&profile, version_pos)?;
        Ok(profile)
    }

    /// The pieces decoded so far (a document decoded whole is one, at the end).
    pub fn pieces(&self) -> usize {
        self.pieces
    }

    /// Lines of the text, as [`crate::read::Lines`] counts them (call once every
    /// byte was fed).
    pub fn lines(&self) -> u64 {
        let unterminated = self.last_byte.is_some_and(|b| b != b'\n');
        // The lines decoded, then those still pending.
        self.pending_line
            .saturating_sub(1)
            .saturating_add(newlines(&self.pending))
            .saturating_add(u64::from(unterminated))
    }

    /// Decodes `pending[..cut]` (whole items, or the rest of the text) as a piece.
    fn decode_piece(&mut self, cut: usize) -> Result<()> {
        let Some((head, head_lines, _)) = &self.head else { return Ok(()) };
        let body = self.pending.get(..cut).unwrap_or_default();
        let first = self.profile.is_none();
        let text: Cow<'_, [u8]> = if first {
            Cow::Borrowed(body)
        } else {
            let mut text = Vec::with_capacity(head.len().saturating_add(body.len()));
            text.extend_from_slice(head);
            text.extend_from_slice(body);
            Cow::Owned(text)
        };
        // A later piece's line L past the head is line L + moved of the file.
        let moved = if first { 0 } else { self.pending_line.saturating_sub(1).saturating_sub(*head_lines) };
        let head_lines = if first { 0 } else { *head_lines };
        let (piece, version_pos) = match decode_unversioned(&text) {
            Ok((piece, version_pos)) => (piece.into_owned(), version_pos),
            Err(mut e) => {
                if let Location::Line { line, .. } = &mut e.location {
                    if *line > head_lines {
                        *line = line.saturating_add(moved);
                    }
                }
                return Err(e);
            }
        };
        self.pieces = self.pieces.saturating_add(1);
        match &mut self.profile {
            None => self.profile = Some((piece, version_pos)),
            Some((profile, _)) => append(profile, piece, head_lines, moved),
        }
        let lines = newlines(body);
        self.pending_line = self.pending_line.saturating_add(lines);
        self.pending.drain(..cut.min(self.pending.len()));
        Ok(())
    }
}

/// Appends a later piece's functions to `profile`: its spans rebased onto the
/// profile's arrays, its lines (past the head's `head_lines`, whose keys the first
/// piece had) moved by `moved`.
fn append(profile: &mut Profile<'static>, piece: Profile<'static>, head_lines: u64, moved: u64) {
    let rebase = |span: Span, base: usize| -> Span {
        // An empty span is {0, 0} whoever decodes it (see `Span::since`).
        if span.is_empty() {
            return span;
        }
        Span { start: span.start.saturating_add(u32::try_from(base).unwrap_or(u32::MAX)), len: span.len }
    };
    let (blocks, inline_tree) = (profile.blocks.len(), profile.inline_tree.len());
    let (calls, successors, probes) = (profile.calls.len(), profile.successors.len(), profile.probes.len());
    let (probe_ids, probe_nodes) = (profile.probe_ids.len(), profile.probe_nodes.len());
    profile.functions.extend(piece.functions.into_iter().map(|mut f| {
        f.blocks = rebase(f.blocks, blocks);
        f.inline_tree = rebase(f.inline_tree, inline_tree);
        f.line = f.line.saturating_add(moved);
        f
    }));
    profile.blocks.extend(piece.blocks.into_iter().map(|mut b| {
        b.calls = rebase(b.calls, calls);
        b.successors = rebase(b.successors, successors);
        b.probes = rebase(b.probes, probes);
        b.line = b.line.saturating_add(moved);
        b
    }));
    profile.probes.extend(piece.probes.into_iter().map(|mut p| {
        p.block_probes = rebase(p.block_probes, probe_ids);
        p.inline_nodes = rebase(p.inline_nodes, probe_nodes);
        p
    }));
    profile.calls.extend(piece.calls);
    profile.successors.extend(piece.successors);
    profile.probe_ids.extend(piece.probe_ids);
    profile.probe_nodes.extend(piece.probe_nodes);
    profile.inline_tree.extend(piece.inline_tree);
    profile.unknown_keys.extend(piece.unknown_keys.into_iter().filter(|k| k.line > head_lines).map(|mut k| {
        k.line = k.line.saturating_add(moved);
        k
    }));
    // `pseudo_probe_desc` follows the functions: only the last piece has it.
    if !piece.probe_desc.is_empty() {
        profile.probe_desc = piece.probe_desc;
    }
    profile.flow_wrapped |= piece.flow_wrapped;
}

enum Head {
    /// The head's length, its lines, and the items' indentation.
    Found(usize, u64, usize),
    NotYet,
    /// Not a document this reader cuts into pieces.
    None,
}

/// The search for the head in `pending`: optional `---`, a `header:` mapping, then
/// the line `functions:` followed by a block sequence's first item. The lines
/// before `at` were looked at (`lines` of them).
#[derive(Clone, Copy, Debug, Default)]
struct HeadScan {
    at: usize,
    /// Bytes past `at` known to hold no line end (see [`whole_line`]).
    searched: usize,
    lines: u64,
    /// Where the head ends (after its `functions:` line), and its lines.
    end: Option<(usize, u64)>,
}

impl HeadScan {
    /// Looks at the whole lines of `text` past `at`.
    fn lines(&mut self, text: &[u8]) -> Head {
        while let Some(len) = whole_line(text, self.at, &mut self.searched) {
            let line = text.get(self.at..self.at.saturating_add(len)).unwrap_or_default();
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            self.at = self.at.saturating_add(len).saturating_add(1);
            let blank = line.iter().all(|&b| b == b' ') || line.first() == Some(&b'#');
            match self.end {
                None => {
                    self.lines = self.lines.saturating_add(1);
                    if !blank && line.first() != Some(&b' ') {
                        match line {
                            b"---" | b"header:" => {}
                            b"functions:" => self.end = Some((self.at, self.lines)),
                            _ => return Head::None,
                        }
                    }
                }
                Some((end, head_lines)) if !blank => {
                    return match item_indent(line) {
                        Some(indent) => Head::Found(end, head_lines, indent),
                        None => Head::None,
                    };
                }
                Some(_) => {}
            }
        }
        Head::NotYet
    }
}

/// The search for a place to cut `pending`: the lines before `at` were looked at.
#[derive(Clone, Copy, Debug, Default)]
struct Scan {
    at: usize,
    /// Bytes past `at` known to hold no line end (see [`whole_line`]).
    searched: usize,
    /// Items of the sequence begun so far, and where the last one begins.
    items: usize,
    last: Option<usize>,
    /// A line at the document's top level (what follows the functions) was met:
    /// no item begins after it.
    ended: bool,
}

impl Scan {
    /// Looks at the whole lines of `text` past `at`, for items at `indent`.
    fn lines(&mut self, text: &[u8], indent: usize) {
        while let Some(len) = whole_line(text, self.at, &mut self.searched) {
            let line = text.get(self.at..self.at.saturating_add(len)).unwrap_or_default();
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if !self.ended {
                if item_indent(line) == Some(indent) {
                    self.items = self.items.saturating_add(1);
                    self.last = Some(self.at);
                } else if line.first().is_some_and(|&b| b != b' ' && b != b'#') {
                    self.ended = true;
                }
            }
            self.at = self.at.saturating_add(len).saturating_add(1);
        }
    }
}

/// The indentation of a line that begins an item of a block sequence (`- ...`).
fn item_indent(line: &[u8]) -> Option<usize> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    let rest = line.get(indent..).unwrap_or_default();
    (rest == b"-" || rest.starts_with(b"- ")).then_some(indent)
}

/// The length of the whole line at `at` of `text` (without its `\n`), or `None`
/// while it has no end. `searched`: how many bytes past `at` are known to hold no
/// line end, kept between calls so that a long unfinished line is not searched
/// again with every block.
fn whole_line(text: &[u8], at: usize, searched: &mut usize) -> Option<usize> {
    let from = at.saturating_add(*searched);
    match text.get(from..).and_then(|rest| memchr::memchr(b'\n', rest)) {
        Some(i) => {
            *searched = 0;
            Some(from.saturating_sub(at).saturating_add(i))
        }
        None => {
            *searched = text.len().saturating_sub(at);
            None
        }
    }
}

/// The `\n` bytes of `bytes`, eight at a time (exact: a word's byte is `\n` where
/// its XOR with `\n` is zero, and the test below carries nothing between bytes).
fn newlines(bytes: &[u8]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const LINE_ENDS: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut words = bytes.chunks_exact(8);
    let mut n = 0u64;
    for word in &mut words {
        let x = u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or_default()) ^ LINE_ENDS;
        // Each byte's high bit: set where the byte is not zero.
        let nonzero = (x & LOW7).wrapping_add(LOW7) | x;
        n = n.saturating_add(u64::from((!nonzero & !LOW7).count_ones()));
    }
    n.saturating_add(words.remainder().iter().filter(|&&b| b == b'\n').count() as u64)
}

#[cfg(test)]
mod tests {
    use super::newlines;

    #[test]
    fn newlines_are_counted_exactly_in_every_position() {
        // Every byte value beside a line end, in every position of a word and of
        // the tail: only `\n` counts.
        for value in 0..=255u8 {
            for len in 0..20 {
                for at in 0..len {
                    let mut bytes = alloc::vec![value; len];
                    if let Some(b) = bytes.get_mut(at) {
                        *b = b'\n';
                    }
                    let expected = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
                    assert_eq!(newlines(&bytes), expected, "value {value:#x}, length {len}, line end at {at}");
                }
            }
        }
    }
}
