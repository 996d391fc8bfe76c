//! A BOLT YAML profile decoded as it streams in, a piece of whole functions at a
//! time, without the whole text in memory.
//!
//! LLVM writes a profile as its `header` mapping, then the `functions` sequence
//! (one item per function, each starting on a line of its own at the sequence's
//! indentation), then `pseudo_probe_desc`:
//!
//! ```text
//! ---                                   ┐ the head: decoded with the first
//! header:                               │ piece, as a document
//!   profile-version: 1                  │
//! functions:                            ┘
//!   - name:            main             ┐ a piece: whole items, decoded from
//!     fid:             1                │ its first line (numbered as the
//!     ...                               │ file's) onto the profile so far
//!   - name:            foo              ┘
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

use alloc::vec::Vec;

use super::decode::{check_version, decode_items, decode_unversioned_owned};
use super::reader::Pos;
use super::Profile;
use crate::error::Result;

/// Pieces are cut once this many bytes are waiting: each costs a decode call and
/// a cut search from its end, so they are much larger than a function.
pub const PIECE: usize = 4 << 20;

/// A BOLT YAML profile read block by block.
pub struct YamlStream {
    /// Bytes fed and not yet decoded, from the start of line `pending_line`.
    pending: Vec<u8>,
    pending_line: u64,
    /// The indentation of the `functions` sequence's items, once the head (the
    /// text up to and including the `functions:` line) was found.
    head: Option<usize>,
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
    /// Bytes fed so far, and the text's whole length where the caller knows it
    /// (0: not known), from which the profile's arrays are sized ahead.
    fed: u64,
    expected: u64,
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
            fed: 0,
            expected: 0,
        }
    }

    /// A stream of a text of `len` bytes (a file's size). After each piece the
    /// profile's arrays are given room for what the rest of the text likely holds
    /// at the density of the text so far, in one step, where growing by doubling
    /// would leave up to half of each unused and, while growing, hold the old and
    /// the new array at once (the page's wasm memory never shrinks). The length is
    /// a hint: a wrong one costs memory or copies, never a different profile.
    pub fn with_len(piece: usize, len: u64) -> YamlStream {
        YamlStream { expected: len, ..YamlStream::new(piece) }
    }

    /// Feeds the next bytes of the text.
    pub fn feed(&mut self, block: &[u8]) -> Result<()> {
        if let Some(&last) = block.last() {
            self.last_byte = Some(last);
        }
        self.fed = self.fed.saturating_add(block.len() as u64);
        self.pending.extend_from_slice(block);
        if self.whole {
            return Ok(());
        }
        if self.head.is_none() {
            match self.head_scan.lines(&self.pending) {
                Head::Found(len, indent) => {
                    self.head = Some(indent);
                    let lines = newlines(self.pending.get(..len).unwrap_or_default());
                    self.scan = Scan { at: len, lines, ..Scan::default() };
                }
                Head::NotYet => return Ok(()),
                Head::None => {
                    self.whole = true;
                    return Ok(());
                }
            }
        }
        let Some(indent) = self.head else { return Ok(()) };
        self.scan.lines(&self.pending, indent);
        if self.pending.len() >= self.piece && self.scan.items >= 2 {
            if let Some(cut) = self.scan.last {
                self.decode_piece(cut, self.scan.last_lines)?;
                self.scan = self.scan.cut(cut);
            }
        }
        Ok(())
    }

    /// The profile, once every byte was fed.
    pub fn finish(mut self) -> Result<Profile<'static>> {
        if self.whole || self.head.is_none() {
            // Decoded with its text copied, as the pieces are (not borrowed, then copied).
            let (profile, version_pos) = decode_unversioned_owned(&self.pending)?;
            check_version(&profile, version_pos)?;
            return Ok(profile);
        }
        self.decode_piece(self.pending.len(), newlines(&self.pending))?;
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

    /// Decodes `pending[..cut]` (whole items, or the rest of the text) as a piece:
    /// the first with the head, as a document; a later one from its first item on,
    /// onto the profile so far. It holds `lines` line ends.
    fn decode_piece(&mut self, cut: usize, lines: u64) -> Result<()> {
        let Some(indent) = self.head else { return Ok(()) };
        let body = self.pending.get(..cut).unwrap_or_default();
        match &mut self.profile {
            None => self.profile = Some(decode_unversioned_owned(body)?),
            Some((profile, _)) => decode_items(body, self.pending_line, indent, profile)?,
        }
        self.pieces = self.pieces.saturating_add(1);
        self.pending_line = self.pending_line.saturating_add(lines);
        self.pending.drain(..cut.min(self.pending.len()));
        self.size_ahead();
        Ok(())
    }

    /// Gives each of the profile's arrays room for the rest of the text at the
    /// density of the text decoded so far (see [`YamlStream::with_len`]), once that
    /// is a sixteenth of the text: the first functions are not a fair sample.
    fn size_ahead(&mut self) {
        let decoded = self.fed.saturating_sub(self.pending.len() as u64);
        let Some((p, _)) = &mut self.profile else { return };
        if self.expected <= decoded || decoded < self.expected / 16 || decoded == 0 {
            return;
        }
        let (expected, decoded) = (u128::from(self.expected), u128::from(decoded));
        let projected = |len: usize| {
            let total = (len as u128).saturating_mul(expected).checked_div(decoded).unwrap_or(0);
            usize::try_from(total).unwrap_or(usize::MAX)
        };
        ahead(&mut p.functions, projected);
        ahead(&mut p.blocks, projected);
        ahead(&mut p.calls, projected);
        ahead(&mut p.successors, projected);
        ahead(&mut p.probes, projected);
        ahead(&mut p.probe_ids, projected);
        ahead(&mut p.probe_nodes, projected);
        ahead(&mut p.inline_tree, projected);
    }
}

/// When `v` has no room for the `projected` total its length gives, grows it to
/// that total plus 1/16 (the density varies a little along a profile), or by an
/// eighth at least, so that a projection creeping up copies it a bounded number of
/// times. Memory refused leaves it as it is: it then grows as it fills.
fn ahead<T>(v: &mut Vec<T>, projected: impl Fn(usize) -> usize) {
    let total = projected(v.len());
    if total > v.capacity() {
        let total = total.saturating_add(total / 16).max(v.capacity().saturating_add(v.capacity() / 8));
        let _ = v.try_reserve_exact(total.saturating_sub(v.len()));
    }
}

enum Head {
    /// The head's length, and the items' indentation.
    Found(usize, usize),
    NotYet,
    /// Not a document this reader cuts into pieces.
    None,
}

/// The search for the head in `pending`: optional `---`, a `header:` mapping, then
/// the line `functions:` followed by a block sequence's first item. The lines
/// before `at` were looked at.
#[derive(Clone, Copy, Debug, Default)]
struct HeadScan {
    at: usize,
    /// Bytes past `at` known to hold no line end (see [`whole_line`]).
    searched: usize,
    /// Where the head ends (after its `functions:` line).
    end: Option<usize>,
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
                    if !blank && line.first() != Some(&b' ') {
                        match line {
                            b"---" | b"header:" => {}
                            b"functions:" => self.end = Some(self.at),
                            _ => return Head::None,
                        }
                    }
                }
                Some(end) if !blank => {
                    return match item_indent(line) {
                        Some(indent) => Head::Found(end, indent),
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
    /// The bytes before this were searched for the last line end.
    searched: usize,
    /// Line ends before `at`.
    lines: u64,
    /// Items of the sequence begun so far, where the last one begins, and the
    /// line ends before it.
    items: usize,
    last: Option<usize>,
    last_lines: u64,
    /// A line at the document's top level (what follows the functions) was met:
    /// no item begins after it.
    ended: bool,
}

/// What a whole line is to the search for items.
#[derive(PartialEq, Eq)]
enum LineKind {
    /// `- ...` at the sequence's indentation.
    Item,
    /// Content at column 1 that is not an item: the functions are over.
    TopLevel,
    Other,
}

impl Scan {
    /// Looks at the whole lines of `text` past `at`, for items at `indent`. The line
    /// ends are found eight bytes at a time and only the first bytes of each line
    /// are looked at: this runs over every byte of the file.
    fn lines(&mut self, text: &[u8], indent: usize) {
        if self.ended {
            return;
        }
        let from = self.at.max(self.searched);
        self.searched = text.len();
        let Some(last_end) = text.get(from..).and_then(|rest| memchr::memrchr(b'\n', rest)) else { return };
        let Some(whole) = text.get(self.at..=from.saturating_add(last_end)) else { return };
        let mut ends = line_ends(whole);
        let (mut start, mut lines) = (0usize, self.lines);
        loop {
            match line_kind(whole.get(start..).unwrap_or_default(), indent) {
                LineKind::Item => {
                    self.items = self.items.saturating_add(1);
                    self.last = Some(self.at.saturating_add(start));
                    self.last_lines = lines;
                }
                LineKind::TopLevel => {
                    self.ended = true;
                    return;
                }
                LineKind::Other => {}
            }
            // The line's end, and the next line's start.
            let Some(end) = ends.next() else { break };
            lines = lines.saturating_add(1);
            start = end.saturating_add(1);
            if start >= whole.len() {
                break;
            }
        }
        self.lines = lines;
        self.at = self.at.saturating_add(whole.len());
    }

    /// The scan of the text left once `pending[..cut]` (up to the last item) was
    /// decoded: it starts with that item.
    fn cut(self, cut: usize) -> Scan {
        Scan {
            at: self.at.saturating_sub(cut),
            searched: self.searched.saturating_sub(cut),
            lines: self.lines.saturating_sub(self.last_lines),
            items: 1,
            last: Some(0),
            last_lines: 0,
            ended: self.ended,
        }
    }
}

/// What the whole line at the start of `line` is (the bytes after it are not
/// looked at: every check stops at a byte that cannot be a line end).
fn line_kind(line: &[u8], indent: usize) -> LineKind {
    let at = |i: usize| line.get(i).copied();
    if at(indent) == Some(b'-') && line.get(..indent).is_some_and(|lead| lead.iter().all(|&b| b == b' ')) {
        let after = indent.saturating_add(1);
        match at(after) {
            Some(b' ' | b'\n') => return LineKind::Item,
            Some(b'\r') if at(after.saturating_add(1)) == Some(b'\n') => return LineKind::Item,
            _ => {}
        }
    }
    match at(0) {
        None | Some(b' ' | b'#' | b'\n') => LineKind::Other,
        // An empty line ended by `\r\n`.
        Some(b'\r') if at(1) == Some(b'\n') => LineKind::Other,
        Some(_) => LineKind::TopLevel,
    }
}

/// The positions of the `\n` bytes of `bytes`, in order, found a word at a time.
fn line_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let words = bytes.chunks_exact(8);
    // The last few bytes as a word of their own, padded with zeros (not `\n`).
    let mut tail = [0u8; 8];
    for (t, &b) in tail.iter_mut().zip(words.remainder()) {
        *t = b;
    }
    let words = words.map(|word| <[u8; 8]>::try_from(word).unwrap_or_default()).chain(core::iter::once(tail));
    words.enumerate().flat_map(|(word, bytes)| {
        let mut mask = line_end_mask(u64::from_le_bytes(bytes));
        let base = word.saturating_mul(8);
        core::iter::from_fn(move || {
            if mask == 0 {
                return None;
            }
            let byte = (mask.trailing_zeros() / 8) as usize;
            mask &= mask.wrapping_sub(1);
            Some(base.saturating_add(byte))
        })
    })
}

/// The high bit of each byte of `word` that is `\n` (exact: a byte is `\n` where
/// its XOR with `\n` is zero, and the test carries nothing between bytes).
fn line_end_mask(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const LINE_ENDS: u64 = u64::from_le_bytes([b'\n'; 8]);
    let x = word ^ LINE_ENDS;
    // Each byte's high bit: set where the byte is not zero.
    let nonzero = (x & LOW7).wrapping_add(LOW7) | x;
    !nonzero & !LOW7
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

/// The `\n` bytes of `bytes`, eight at a time.
fn newlines(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0u64;
    for word in &mut words {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or_default());
        n = n.saturating_add(u64::from(line_end_mask(word).count_ones()));
    }
    n.saturating_add(words.remainder().iter().filter(|&&b| b == b'\n').count() as u64)
}

#[cfg(test)]
mod tests {
    use super::{line_ends, line_kind, newlines, LineKind};

    #[test]
    fn line_ends_are_found_in_every_position() {
        for len in 0..20 {
            for at in 0..len {
                for also in [None, Some(0), Some(len - 1), Some(at / 2)] {
                    let mut bytes = alloc::vec![b'x'; len];
                    bytes[at] = b'\n';
                    if let Some(other) = also {
                        bytes[other] = b'\n';
                    }
                    let expected: alloc::vec::Vec<usize> = (0..len).filter(|&i| bytes[i] == b'\n').collect();
                    assert_eq!(line_ends(&bytes).collect::<alloc::vec::Vec<_>>(), expected, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn lines_are_told_apart_by_their_first_bytes() {
        let kind = |line: &[u8], indent| line_kind(line, indent);
        assert!(kind(b"  - name: x\n", 2) == LineKind::Item);
        assert!(kind(b"  -\n", 2) == LineKind::Item);
        assert!(kind(b"  -\r\n", 2) == LineKind::Item);
        assert!(kind(b"- name: x\n", 0) == LineKind::Item);
        assert!(kind(b"  -x\n", 2) == LineKind::Other, "a plain scalar, not an item");
        assert!(kind(b"  -\rx\n", 2) == LineKind::Other);
        assert!(kind(b"    - bid: 0\n", 2) == LineKind::Other, "a deeper sequence's item");
        assert!(kind(b" - x\n", 2) == LineKind::Other);
        assert!(kind(b"  \n- x\n", 1) == LineKind::Other, "a check never reads past the line's end");
        assert!(kind(b"pseudo_probe_desc:\n", 2) == LineKind::TopLevel);
        assert!(kind(b"- x\n", 2) == LineKind::TopLevel);
        assert!(kind(b"...\n", 2) == LineKind::TopLevel);
        assert!(kind(b"\r\n", 2) == LineKind::Other, "an empty line");
        assert!(kind(b"\r\rx\n", 2) == LineKind::TopLevel);
        assert!(kind(b"\n", 2) == LineKind::Other);
        assert!(kind(b"# a comment\n", 2) == LineKind::Other);
        assert!(kind(b"    fid: 1\n", 2) == LineKind::Other);
    }

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
