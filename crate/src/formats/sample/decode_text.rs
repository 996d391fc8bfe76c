//! LLVM sample-profile text into the [`Profile`] model, the way LLVM 22's
//! `SampleProfileReaderText` reads it (`SampleProfReader.cpp`: `ParseHead`,
//! `ParseLine`, `parseMetadata`, `parseTypeCountMap`, `readImpl`).
//!
//! ```text
//! header    NAME:TOTAL:HEAD              at column 1; NAME may be a CS context
//!                                        [main:1 @ foo:2.1 @ bar]
//! body      LINE[.DISC]: COUNT [TARGET:COUNT]...
//! callsite  LINE[.DISC]: CALLEE:TOTAL    opens CALLEE's inlined profile
//! vtables   LINE[.DISC]: vtables TYPE:COUNT...
//! metadata  !CFGChecksum: N | !Attributes: N | exactly " !Flat"
//! ```
//!
//! Body, callsite, vtable and metadata lines are indented; the number of leading
//! spaces is their depth. The reader keeps the stack of open profiles (the
//! function, then one entry per open callsite) and, before each indented line,
//! pops it down to that depth: so a line belongs to the innermost profile open at
//! a depth below its own, however deep it is indented.
//!
//! LLVM's parsing is index arithmetic on `StringRef` with `size_t` wrap-around, and
//! some of its results are surprising; they are reproduced, not corrected, because
//! `llvm-profdata merge --sample --text` is the reference:
//!
//! - a header splits at its last colon and at the last colon *at least two bytes*
//!   before it; a line without colon that is all digits (`1`) is a header (name,
//!   total and head all `1`), `5:7` is the function `5:7` with total 5 and head 7;
//! - the samples of a body line start two bytes after the first colon (`1:55` is 5
//!   samples); a line without colon reads as if its rest started at its second byte
//!   (` 12` is 12 samples at line 12);
//! - call targets are found by `:digits` anchors, so names may hold spaces and
//!   colons; a repeated target on one line keeps its last count; trailing spaces
//!   after a target are an error;
//! - a line number without discriminator must fit in 16 bits; with one, only in 32;
//! - metadata must come after the other lines at its depth; each metadata line
//!   replaces the profile's attributes (with 0 unless it is `!Attributes`), and a
//!   non-zero checksum replaces the checksum;
//! - a CS context drops its first and last bytes (the brackets, or whatever is
//!   there), splits at ` @ `, and reads each frame's line as a signed `int` (a
//!   malformed one is 0).
//!
//! Where LLVM's release build is silent but its source asserts, the input is
//! rejected: context-sensitive and plain headers in one file. A repeated function
//! (or callsite) adds into the first, saturating at `u64::MAX`; an overflow is
//! recorded in [`Profile::overflowed`] (LLVM reports it as "Counter overflow").
//! Nesting deeper than [`MAX_DEPTH`] is rejected.

use alloc::vec::Vec;

use hashbrown::HashMap;

use crate::error::{Error, Result};
use crate::formats::sample::model::{
    BodySample, CallTarget, Callsite, Frame, FunctionSamples, LineLocation, NameId, Names, Profile, ProfileKind,
    TypeCount, MAX_DEPTH,
};
use crate::read::Lines;

/// `ContextShouldBeInlined`: an `!Attributes` bit that marks a pre-inlined profile.
const CONTEXT_SHOULD_BE_INLINED: u32 = 0x2;

/// `kVTableProfPrefix`.
const VTABLES: &[u8] = b"vtables ";

const EXPECTED_HEADER: &str = "expected 'mangled_name:NUM:NUM'";
const EXPECTED_LINE: &str = "expected 'NUM[.NUM]: NUM[ mangled_name:NUM]*'";
const EXPECTED_METADATA: &str = "expected '!CFGChecksum: NUM', '!Attributes: NUM' or ' !Flat'";
const EXPECTED_VTABLES: &str = "expected 'vtables [mangled_vtable:NUM]+' with each vtable once";

/// Decodes an LLVM sample-profile text file.
pub fn decode(data: &[u8]) -> Result<Profile> {
    // LLVM reads a NUL-terminated buffer: a NUL byte ends the input.
    let data = data.split(|&b| b == 0).next().unwrap_or(&[]);
    let mut decoder = Decoder::default();
    let mut first = true;
    for line in Lines::new(data) {
        let text = line.text;
        // `line_iterator` skips empty lines and lines starting with '#'.
        let Some(&lead) = text.first() else { continue };
        if lead == b'#' {
            continue;
        }
        if first {
            // `hasFormat`: the first line the iterator yields must be a header, or
            // the file is not recognized as sample-profile text at all.
            first = false;
            if lead == b' ' {
                return Err(Error::at_line(line.number, 1, "sample-profile text must start with a function header"));
            }
        }
        // `readImpl` also skips lines of spaces and comments after spaces.
        match text.iter().find(|&&b| b != b' ') {
            None | Some(b'#') => continue,
            Some(_) => {}
        }
        if lead == b' ' {
            decoder.body_line(text, line.number)?;
        } else {
            decoder.header(text, line.number)?;
        }
    }
    if first {
        return Err(Error::at_line(1, 1, "sample-profile text has no function header"));
    }
    Ok(decoder.finish())
}

/// How a top-level function is keyed: its name, or its whole CS context.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Name(NameId),
    Context(Vec<Frame>),
}

#[derive(Default)]
struct Decoder<'a> {
    names: Names,
    /// Names already interned, by their bytes in the input (no allocation per look-up).
    known: HashMap<&'a [u8], NameId>,
    functions: Vec<FunctionSamples>,
    index: HashMap<Key, usize>,
    /// The open profiles: a top-level function's index in `functions`, then for
    /// each open callsite its index in its caller's `callsites`. Only the last
    /// profile's callsites change while it is open, so the indexes stay valid.
    stack: Vec<usize>,
    /// The depth of the last metadata line of the open profile (0: none yet).
    depth_metadata: usize,
    /// Whether the headers so far were CS contexts (`None` before the first).
    context_sensitive: Option<bool>,
    probe_based: bool,
    preinlined: bool,
    overflowed: bool,
}

/// Names with a count, in the order a line gives them (call targets, vtables).
type Counts<'a> = Vec<(&'a [u8], u64)>;

/// What an indented line says (`LineType` and the values `ParseLine` fills).
enum Parsed<'a> {
    Body {
        location: LineLocation,
        samples: u64,
        calls: Counts<'a>,
    },
    Callsite {
        location: LineLocation,
        callee: &'a [u8],
        total: u64,
    },
    VTables {
        location: LineLocation,
        types: Counts<'a>,
    },
    /// `!CFGChecksum` (the hash, 0 for the others), `!Attributes` (0 for the others).
    Metadata {
        checksum: u64,
        attributes: u32,
    },
}

impl<'a> Decoder<'a> {
    fn intern(&mut self, name: &'a [u8], line: u64) -> Result<NameId> {
        if let Some(&id) = self.known.get(name) {
            return Ok(id);
        }
        let id = self.names.intern_bytes(name).ok_or(Error::at_line(line, 1, "more than 2^32 distinct names"))?;
        self.known.insert(name, id);
        Ok(id)
    }

    fn header(&mut self, text: &'a [u8], line: u64) -> Result<()> {
        let (name, total, head) = parse_head(text).ok_or(Error::at_line(line, 1, EXPECTED_HEADER))?;
        self.depth_metadata = 0;
        // `SampleContext`: a name in brackets is a calling context.
        let context = if name.first() == Some(&b'[') {
            let mut frames = Vec::new();
            for (frame, location) in context_frames(name) {
                frames.push(Frame { name: self.intern(frame, line)?, location });
            }
            Some(frames)
        } else {
            None
        };
        let is_cs = context.is_some();
        match self.context_sensitive {
            Some(before) if before != is_cs => {
                return Err(Error::at_line(line, 1, "context-sensitive and plain function headers in one profile"))
            }
            _ => self.context_sensitive = Some(is_cs),
        }
        let (key, function) = match context {
            Some(frames) => {
                // `[]` leaves no frame, where LLVM would read before its vector.
                let leaf =
                    frames.last().ok_or(Error::at_line(line, 1, "a calling context needs at least one frame"))?;
                let function = FunctionSamples { name: leaf.name, context: frames.clone(), ..Default::default() };
                (Key::Context(frames), function)
            }
            None => {
                let name = self.intern(name, line)?;
                (Key::Name(name), FunctionSamples { name, ..Default::default() })
            }
        };
        let index = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                let i = self.functions.len();
                self.functions.push(function);
                self.index.insert(key, i);
                i
            }
        };
        if let Some(f) = self.functions.get_mut(index) {
            add(&mut f.total, total, &mut self.overflowed);
            add(&mut f.head, head, &mut self.overflowed);
        }
        self.stack.clear();
        self.stack.push(index);
        Ok(())
    }

    fn body_line(&mut self, text: &'a [u8], line: u64) -> Result<()> {
        let (depth, parsed) = parse_line(text).map_err(|(column, what)| Error::at_line(line, column, what))?;
        if !matches!(parsed, Parsed::Metadata { .. }) && depth == self.depth_metadata {
            return Err(Error::at_line(line, 1, "non-metadata line after metadata at the same depth"));
        }
        self.stack.truncate(depth);
        let no_profile = Error::at_line(line, 1, "no open function profile");
        match parsed {
            Parsed::Callsite { location, callee, total } => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(Error::at_line(line, 1, "inline nesting deeper than MAX_DEPTH (256)"));
                }
                let callee = self.intern(callee, line)?;
                let open = open_profile(&mut self.functions, &self.stack).ok_or(no_profile)?;
                let names = &self.names;
                let found = open
                    .callsites
                    .binary_search_by(|c| c.location.cmp(&location).then_with(|| names.cmp(c.callee.name, callee)));
                let i = found.unwrap_or_else(|i| {
                    let callee = FunctionSamples { name: callee, ..Default::default() };
                    open.callsites.insert(i, Callsite { location, callee });
                    i
                });
                if let Some(c) = open.callsites.get_mut(i) {
                    add(&mut c.callee.total, total, &mut self.overflowed);
                }
                self.stack.push(i);
                self.depth_metadata = 0;
            }
            Parsed::Body { location, samples, calls } => {
                let mut targets: Vec<CallTarget> = Vec::with_capacity(calls.len());
                for (name, count) in calls {
                    let name = self.intern(name, line)?;
                    // One line names a target once; a repeat keeps the last count.
                    match targets.iter_mut().find(|t| t.name == name) {
                        Some(t) => t.count = count,
                        None => targets.push(CallTarget { name, count }),
                    }
                }
                let open = open_profile(&mut self.functions, &self.stack).ok_or(no_profile)?;
                match open.body.binary_search_by(|b| b.location.cmp(&location)) {
                    // The usual case, a new location: the targets are kept as they are.
                    Err(i) => open.body.insert(i, BodySample { location, samples, calls: targets }),
                    Ok(_) => self.overflowed |= open.add_body(location, samples, targets),
                }
            }
            Parsed::VTables { location, types } => {
                let mut counts: Vec<TypeCount> = Vec::with_capacity(types.len());
                for (name, count) in types {
                    counts.push(TypeCount { name: self.intern(name, line)?, count });
                }
                let open = open_profile(&mut self.functions, &self.stack).ok_or(no_profile)?;
                // An empty list makes an empty entry in LLVM, which no writer shows.
                if !counts.is_empty() {
                    self.overflowed |= open.add_types(location, counts);
                }
            }
            Parsed::Metadata { checksum, attributes } => {
                let open = open_profile(&mut self.functions, &self.stack).ok_or(no_profile)?;
                if checksum != 0 {
                    open.checksum = Some(checksum);
                    if depth == 1 {
                        self.probe_based = true;
                    }
                }
                open.attributes = attributes;
                self.preinlined |= attributes & CONTEXT_SHOULD_BE_INLINED != 0;
                self.depth_metadata = depth;
            }
        }
        Ok(())
    }

    fn finish(self) -> Profile {
        let mut profile = Profile::new();
        profile.names = self.names;
        profile.kind = ProfileKind {
            context_sensitive: self.context_sensitive.unwrap_or(false),
            probe_based: self.probe_based,
            preinlined: self.preinlined,
            ..ProfileKind::default()
        };
        profile.overflowed = self.overflowed;
        // Keys are unique here, so `add` only indexes.
        for f in self.functions {
            profile.add(f);
        }
        profile
    }
}

/// The innermost open profile of `stack` (see [`Decoder::stack`]).
fn open_profile<'f>(functions: &'f mut [FunctionSamples], stack: &[usize]) -> Option<&'f mut FunctionSamples> {
    let (&first, rest) = stack.split_first()?;
    let mut f = functions.get_mut(first)?;
    for &i in rest {
        f = &mut f.callsites.get_mut(i)?.callee;
    }
    Some(f)
}

fn add(a: &mut u64, b: u64, overflowed: &mut bool) {
    match a.checked_add(b) {
        Some(sum) => *a = sum,
        None => {
            *a = u64::MAX;
            *overflowed = true;
        }
    }
}

// `StringRef` operations with `size_t` semantics: positions are `NPOS` when
// absent, and arithmetic on them wraps as it does in LLVM.

const NPOS: usize = usize::MAX;

/// `StringRef::substr(start, n)`: both clamped to the string.
fn substr(s: &[u8], start: usize, n: usize) -> &[u8] {
    let rest = s.get(start.min(s.len())..).unwrap_or(&[]);
    rest.get(..n.min(rest.len())).unwrap_or(rest)
}

/// `StringRef::find(c, from)`.
fn find(s: &[u8], c: u8, from: usize) -> usize {
    let tail = s.get(from.min(s.len())..).unwrap_or(&[]);
    tail.iter().position(|&b| b == c).map_or(NPOS, |i| i.wrapping_add(from))
}

/// `StringRef::rfind(c, from)`: the last `c` *before* `from`.
fn rfind(s: &[u8], c: u8, from: usize) -> usize {
    let head = s.get(..from.min(s.len())).unwrap_or(&[]);
    head.iter().rposition(|&b| b == c).unwrap_or(NPOS)
}

/// `StringRef::find_first_not_of(' ', from)`.
fn find_not_space(s: &[u8], from: usize) -> usize {
    let tail = s.get(from.min(s.len())..).unwrap_or(&[]);
    tail.iter().position(|&b| b != b' ').map_or(NPOS, |i| i.wrapping_add(from))
}

/// `StringRef::getAsInteger(10, u64)`: decimal digits only, at least one, no overflow.
fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.iter().try_fold(0u64, |n, &b| {
        let digit = b.is_ascii_digit().then(|| u64::from(b.wrapping_sub(b'0')))?;
        n.checked_mul(10)?.checked_add(digit)
    })
}

/// `getAsInteger(10, uint32_t)`.
fn parse_u32(s: &[u8]) -> Option<u32> {
    parse_u64(s).and_then(|n| u32::try_from(n).ok())
}

/// `getAsInteger(10, int)`: an optional `-`, then digits, within `i32`.
fn parse_i32(s: &[u8]) -> Option<i32> {
    let (negative, digits) = match s.strip_prefix(b"-") {
        Some(digits) => (true, digits),
        None => (false, s),
    };
    let n = i64::try_from(parse_u64(digits)?).ok()?;
    i32::try_from(if negative { n.checked_neg()? } else { n }).ok()
}

/// `ParseHead`: name, total and head samples. See the module doc for the split.
fn parse_head(text: &[u8]) -> Option<(&[u8], u64, u64)> {
    let n2 = rfind(text, b':', NPOS);
    let n1 = rfind(text, b':', n2.wrapping_sub(1));
    let name = substr(text, 0, n1);
    let total = parse_u64(substr(text, n1.wrapping_add(1), n2.wrapping_sub(n1).wrapping_sub(1)))?;
    let head = parse_u64(substr(text, n2.wrapping_add(1), NPOS))?;
    Some((name, total, head))
}

/// The frames of a CS context name (`SampleContext::createCtxVectorFromStr`).
fn context_frames(name: &[u8]) -> Vec<(&[u8], LineLocation)> {
    let mut remain = substr(name, 1, name.len().wrapping_sub(2));
    let mut frames = Vec::new();
    while !remain.is_empty() {
        let frame = match remain.windows(3).position(|w| w == b" @ ") {
            Some(i) => {
                let frame = substr(remain, 0, i);
                remain = substr(remain, i.wrapping_add(3), NPOS);
                frame
            }
            None => core::mem::take(&mut remain),
        };
        frames.push(context_frame(frame));
    }
    frames
}

/// `decodeContextString`: `NAME[:LINE[.DISC]]`, a malformed number read as 0.
fn context_frame(frame: &[u8]) -> (&[u8], LineLocation) {
    let Some(colon) = frame.iter().position(|&b| b == b':') else { return (frame, LineLocation::default()) };
    let name = substr(frame, 0, colon);
    let location = substr(frame, colon.wrapping_add(1), NPOS);
    let (line, discriminator) = match location.iter().position(|&b| b == b'.') {
        Some(dot) => (substr(location, 0, dot), substr(location, dot.wrapping_add(1), NPOS)),
        None => (location, &[][..]),
    };
    // The line is an `int` stored into a `uint32_t`: -1 is 4294967295.
    let line = parse_i32(line).map_or(0, |n| n as u32);
    let discriminator = if discriminator.is_empty() { 0 } else { parse_u32(discriminator).unwrap_or(0) };
    (name, LineLocation { line, discriminator })
}

/// `ParseLine` for a line starting with a space: its depth and what it says, or
/// the column and what was expected.
fn parse_line(text: &[u8]) -> core::result::Result<(usize, Parsed<'_>), (u64, &'static str)> {
    let depth = text.iter().take_while(|&&b| b == b' ').count();
    let column = |at: usize| u64::try_from(at.saturating_add(1)).unwrap_or(u64::MAX);
    if text.get(depth) == Some(&b'!') {
        let metadata = if text == b" !Flat" {
            Some(Parsed::Metadata { checksum: 0, attributes: 0 })
        } else {
            parse_metadata(substr(text, depth, NPOS))
        };
        return metadata.map(|m| (depth, m)).ok_or((column(depth), EXPECTED_METADATA));
    }

    let n1 = find(text, b':', 0);
    let loc = substr(text, depth, n1.wrapping_sub(depth));
    let location = match loc.iter().position(|&b| b == b'.') {
        None => {
            let line = parse_u32(loc).filter(|&l| l <= 0xffff).ok_or((column(depth), EXPECTED_LINE))?;
            LineLocation { line, discriminator: 0 }
        }
        Some(n2) => {
            let line = parse_u32(substr(loc, 0, n2)).ok_or((column(depth), EXPECTED_LINE))?;
            let discriminator =
                parse_u32(substr(loc, n2.wrapping_add(1), NPOS)).ok_or((column(depth), EXPECTED_LINE))?;
            LineLocation { line, discriminator }
        }
    };

    // Two bytes past the colon, whatever they are (without colon, from byte 1).
    let rest_at = n1.wrapping_add(2);
    let rest = substr(text, rest_at, NPOS);
    let rest_column = column(rest_at.min(text.len()));
    // An empty rest reads the byte after the line, which is never a digit.
    if rest.first().is_some_and(u8::is_ascii_digit) {
        let (samples, calls) = parse_body(rest).ok_or((rest_column, EXPECTED_LINE))?;
        Ok((depth, Parsed::Body { location, samples, calls }))
    } else if let Some(list) = rest.strip_prefix(VTABLES) {
        let types = parse_types(list).ok_or((rest_column, EXPECTED_VTABLES))?;
        Ok((depth, Parsed::VTables { location, types }))
    } else {
        let n3 = rfind(rest, b':', NPOS);
        let callee = substr(rest, 0, n3);
        let total = parse_u64(substr(rest, n3.wrapping_add(1), NPOS)).ok_or((rest_column, EXPECTED_LINE))?;
        Ok((depth, Parsed::Callsite { location, callee, total }))
    }
}

/// `StringRef::trim()`: the C locale's white space off both ends.
fn trim(s: &[u8]) -> &[u8] {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let start = s.iter().position(|b| !is_space(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !is_space(b)).map_or(start, |i| i.saturating_add(1));
    s.get(start..end).unwrap_or(&[])
}

/// `parseMetadata`: `!CFGChecksum: N` or `!Attributes: N`, spaces around N allowed.
fn parse_metadata(text: &[u8]) -> Option<Parsed<'static>> {
    if let Some(value) = text.strip_prefix(b"!CFGChecksum:") {
        return Some(Parsed::Metadata { checksum: parse_u64(trim(value))?, attributes: 0 });
    }
    if let Some(value) = text.strip_prefix(b"!Attributes:") {
        return Some(Parsed::Metadata { checksum: 0, attributes: parse_u32(trim(value))? });
    }
    None
}

/// A body line's rest, `COUNT[ TARGET:COUNT]...`: the samples and the targets in
/// the order given.
fn parse_body(rest: &[u8]) -> Option<(u64, Counts<'_>)> {
    let mut rest = rest;
    let mut n3 = find(rest, b' ', 0);
    let samples = parse_u64(substr(rest, 0, n3))?;
    let mut calls = Vec::new();
    while n3 != NPOS {
        // Past the spaces; when only spaces follow, LLVM's sum wraps to one byte
        // back, where no colon follows either: an error.
        n3 = n3.wrapping_add(find_not_space(substr(rest, n3, NPOS), 0));
        rest = substr(rest, n3, NPOS);
        n3 = find(rest, b':', 0);
        if n3 == NPOS || n3 == 0 {
            return None;
        }
        // Try each colon in turn until the word after it is a number.
        let (target, count, n4) = loop {
            let after = substr(rest, n3.wrapping_add(1), NPOS);
            let n4 = match find(after, b' ', 0) {
                NPOS => rest.len(),
                space => n3.wrapping_add(space).wrapping_add(1),
            };
            let word = substr(rest, n3.wrapping_add(1), n4.wrapping_sub(n3).wrapping_sub(1));
            if let Some(count) = parse_u64(word) {
                break (substr(rest, 0, n3), count, n4);
            }
            let n5 = find(after, b':', 0);
            if n5 == NPOS {
                return None;
            }
            n3 = n3.wrapping_add(n5).wrapping_add(1);
        };
        calls.push((target, count));
        if n4 == rest.len() {
            break;
        }
        n3 = n4;
    }
    Some((samples, calls))
}

/// `parseTypeCountMap`: space-separated `TYPE:COUNT`, each type once.
fn parse_types(list: &[u8]) -> Option<Counts<'_>> {
    let mut types: Counts<'_> = Vec::new();
    let mut index = find_not_space(list, 0);
    while index != NPOS {
        let colon = find(list, b':', index);
        if colon == NPOS {
            return None;
        }
        let name = substr(list, index, colon.wrapping_sub(index));
        let count_at = colon.wrapping_add(1);
        let next = find(list, b' ', count_at);
        let count = parse_u64(substr(list, count_at, next.wrapping_sub(count_at)))?;
        if types.iter().any(|&(n, _)| n == name) {
            return None;
        }
        types.push((name, count));
        index = if next == NPOS { NPOS } else { find_not_space(list, next) };
    }
    Some(types)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::sample::model::Name;

    fn name(p: &Profile, id: NameId) -> &[u8] {
        match p.names.name(id) {
            Some(Name::Bytes(b)) => b,
            _ => b"?",
        }
    }

    #[test]
    fn header_splits_at_the_last_two_colons() {
        assert_eq!(parse_head(b"foo:10:1"), Some((&b"foo"[..], 10, 1)));
        assert_eq!(parse_head(b"a::b:c:10:1"), Some((&b"a::b:c"[..], 10, 1)));
        // No colon: the whole line is name, total and head.
        assert_eq!(parse_head(b"1"), Some((&b"1"[..], 1, 1)));
        // One colon: the name is the whole line.
        assert_eq!(parse_head(b"5:7"), Some((&b"5:7"[..], 5, 7)));
        // The colon at 0: empty name, the rest twice.
        assert_eq!(parse_head(b":5"), Some((&b""[..], 5, 5)));
        // Adjacent colons are not a split.
        assert_eq!(parse_head(b"foo::5"), None);
        assert_eq!(parse_head(b"empty:100:BAD"), None);
        assert_eq!(parse_head(b"empty"), None);
    }

    #[test]
    fn body_samples_start_two_bytes_after_the_colon() {
        let (depth, parsed) = parse_line(b" 1:55").ok().unwrap();
        assert_eq!(depth, 1);
        assert!(matches!(parsed, Parsed::Body { samples: 5, .. }));
        // Without a colon, the rest starts at byte 1.
        let (_, parsed) = parse_line(b" 12").ok().unwrap();
        assert!(matches!(
            parsed,
            Parsed::Body { location: LineLocation { line: 12, discriminator: 0 }, samples: 12, .. }
        ));
        assert!(parse_line(b" 1:5").is_err());
    }

    #[test]
    fn call_targets_are_found_by_colon_digit_anchors() {
        let (samples, calls) = parse_body(b"1000 _M_construct<char *>:1000 a:b:c:437").unwrap();
        assert_eq!(samples, 1000);
        assert_eq!(calls, [(&b"_M_construct<char *>"[..], 1000), (&b"a:b:c"[..], 437)]);
        assert_eq!(parse_body(b"5  x:1").unwrap().1, [(&b"x"[..], 1)]);
        // Trailing spaces, a missing count, a target without name: errors.
        assert_eq!(parse_body(b"5 "), None);
        assert_eq!(parse_body(b"5 a:1 "), None);
        assert_eq!(parse_body(b"5 a"), None);
        assert_eq!(parse_body(b"5 :3"), None);
    }

    #[test]
    fn line_numbers_are_range_checked() {
        assert!(parse_line(b" 65535: 1").is_ok());
        assert!(parse_line(b" 65536: 1").is_err());
        assert!(parse_line(b" 65536.1: 1").is_ok());
        assert!(parse_line(b" 4294967295.4294967295: 1").is_ok());
        assert!(parse_line(b" 4294967296.1: 1").is_err());
        assert!(parse_line(b" 1.-3: 10").is_err());
        assert!(parse_line(b" 1.: 10").is_err());
        assert!(parse_line(b" 1.3: -10").is_err());
    }

    #[test]
    fn vtables_and_metadata() {
        let (_, parsed) = parse_line(b" 3.1: vtables _ZTV4Base:900  b:2 ").ok().unwrap();
        let Parsed::VTables { location, types } = parsed else { unreachable!() };
        assert_eq!(location, LineLocation { line: 3, discriminator: 1 });
        assert_eq!(types, [(&b"_ZTV4Base"[..], 900), (&b"b"[..], 2)]);
        assert!(parse_line(b" 1: vtables a:1 a:2").is_err());
        assert!(matches!(parse_line(b"  !CFGChecksum:  7 ").ok().unwrap(), (2, Parsed::Metadata { checksum: 7, .. })));
        assert!(matches!(parse_line(b" !Attributes: 2").ok().unwrap(), (1, Parsed::Metadata { attributes: 2, .. })));
        assert!(parse_line(b" !Flat").is_ok());
        assert!(parse_line(b"  !Flat").is_err());
        assert!(parse_line(b" !Attributes: 4294967296").is_err());
    }

    #[test]
    fn context_frames_drop_the_outer_bytes_and_read_signed_lines() {
        let frames = context_frames(b"[main:1.5 @ foo:-1 @ bar:9]");
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0], (&b"main"[..], LineLocation { line: 1, discriminator: 5 }));
        assert_eq!(frames[1], (&b"foo"[..], LineLocation { line: u32::MAX, discriminator: 0 }));
        assert_eq!(frames[2], (&b"bar"[..], LineLocation { line: 9, discriminator: 0 }));
        // No closing bracket: the last byte goes anyway.
        assert_eq!(context_frames(b"[main:1 @ foo").last().unwrap().0, b"fo");
        assert_eq!(context_frames(b"[x:z @ y]")[0].1, LineLocation::default());
        assert!(context_frames(b"[]").is_empty());
        assert_eq!(parse_i32(b"-2147483648"), Some(i32::MIN));
        assert_eq!(parse_i32(b"2147483648"), None);
    }

    #[test]
    fn repeated_functions_add_and_metadata_replaces() {
        let p =
            decode(b"foo:10:1\n 1: 10\n !Attributes: 1\n !CFGChecksum: 7\nfoo:5:0\n 2: 5 a:1 a:3\n !CFGChecksum: 9\n")
                .unwrap();
        assert_eq!(p.functions.len(), 1);
        let f = &p.functions[0];
        assert_eq!((f.total, f.head, f.checksum, f.attributes), (15, 1, Some(9), 0));
        assert_eq!(f.body.len(), 2);
        assert_eq!(f.body[1].calls, [CallTarget { name: f.body[1].calls[0].name, count: 3 }]);
        assert!(p.kind.probe_based);
    }

    #[test]
    fn the_stack_pops_to_the_depth_of_each_line() {
        let text = b"main:100:0\n 1: foo:60\n  2: bar:50\n   1: 50\n  3: 10\n 4: 40\n";
        let p = decode(text).unwrap();
        let main = &p.functions[0];
        assert_eq!(main.body.len(), 1);
        let foo = &main.callsites[0].callee;
        assert_eq!((name(&p, foo.name), foo.total, foo.body.len()), (&b"foo"[..], 60, 1));
        let bar = &foo.callsites[0].callee;
        assert_eq!((name(&p, bar.name), bar.body[0].samples), (&b"bar"[..], 50));
        // Deeper indentation attaches to the innermost open profile.
        let p = decode(b"main:1:0\n 1: foo:1\n      2: 3\n").unwrap();
        assert_eq!(p.functions[0].callsites[0].callee.body[0].samples, 3);
    }

    #[test]
    fn metadata_must_come_last_at_its_depth() {
        let e = decode(b"foo:1:0\n !CFGChecksum: 1\n 1: 1\n").unwrap_err();
        assert_eq!(e.location, crate::error::Location::Line { line: 3, column: 1 });
        // A shallower line after an inlinee's metadata is fine.
        assert!(decode(b"foo:1:0\n 1: bar:1\n  1: 1\n  !CFGChecksum: 1\n 2: 1\n").is_ok());
    }

    #[test]
    fn first_line_must_be_a_header() {
        assert!(decode(b"").is_err());
        assert!(decode(b"# only a comment\n\n").is_err());
        assert!(decode(b"   \nfoo:1:0\n").is_err());
        assert!(decode(b"\n# c\nfoo:1:0\n  # indented comment\n\n 1: 1\n").is_ok());
        // A NUL ends the input.
        assert_eq!(decode(b"foo:1:0\n 1: 1\n\0garbage").unwrap().functions.len(), 1);
    }

    #[test]
    fn cs_and_plain_headers_do_not_mix() {
        assert!(decode(b"[main:1 @ foo]:10:1\n 1: 10\nbar:5:1\n").is_err());
        let p = decode(b"[main:1 @ foo]:10:1\n[main:1 @ foo:3]:5:1\n[main:1 @ foo]:1:0\n").unwrap();
        assert!(p.kind.context_sensitive);
        assert_eq!(p.functions.len(), 2);
        assert_eq!(p.functions[0].total, 11);
        assert!(decode(b"[]:1:1\n").is_err());
    }

    #[test]
    fn counts_saturate() {
        let p = decode(b"foo:18446744073709551615:1\n 1: 18446744073709551615\nfoo:1:0\n 1: 1\n").unwrap();
        assert!(p.overflowed);
        assert_eq!((p.functions[0].total, p.functions[0].body[0].samples), (u64::MAX, u64::MAX));
    }

    #[test]
    fn nesting_is_bounded() {
        let mut text = b"f:1:0\n".to_vec();
        for depth in 1..=MAX_DEPTH {
            text.extend(core::iter::repeat_n(b' ', depth));
            text.extend_from_slice(b"1: g:1\n");
        }
        let e = decode(&text).unwrap_err();
        assert_eq!(e.location, crate::error::Location::Line { line: MAX_DEPTH as u64 + 1, column: 1 });
        text.truncate(text.len() - (MAX_DEPTH + 7));
        assert!(decode(&text).is_ok());
    }
}
