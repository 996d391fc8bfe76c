//! The GCOV v4 string table (`GCOV_STRING_TABLE`, proposal section 4.3): a count,
//! then a path-compressed trie serialized depth first, children inline.
//!
//! ```text
//! GCOV_NUM_STRINGS        4 bytes
//! node:  TRIE_NODE_BITMASK 1 byte   bit 7 terminal, bits 0–6 number of children
//!        TRIE_TERMINAL_ID  4 bytes  (terminal only) the string's index
//!        child × n:  TRIE_EDGE_LABEL_LENGTH 2 bytes, TRIE_EDGE_LABEL, node
//! ```
//!
//! Our readings (`docs/gcov-v4.md`): strings are raw bytes without a NUL; terminal
//! ids are dense, 0 to N−1, each once; no two children of a node start with the same
//! byte. Two things the proposal cannot express get one escape each, both valid
//! tries to a reader that knows them and never produced for ordinary names:
//! - a node with more than 127 children keeps 126 and adds a child with an *empty*
//!   label, a non-terminal continuation node holding the rest (first bytes stay
//!   distinct across a node and its continuations);
//! - a label longer than 65535 bytes is cut, with a non-terminal one-child node
//!   between the pieces (a non-canonical trie, which readers accept).
//!
//! Both the reader and the builder walk with explicit stacks: a trie is as deep as
//! its longest name, which the input controls.

use alloc::vec::Vec;

use crate::dump::Text;
use crate::error::{Error, Result};
use crate::formats::gcov::v4_layout::{
    count_field, field, put_int, Sink, LABEL_LENGTH_WIDTH, MAX_CHILDREN, MAX_LABEL, TERMINAL,
};
use crate::read::Reader;

/// One node of the trie being read: how many children remain, where its string
/// ends in the prefix buffer, and which first bytes its children used.
struct Frame {
    remaining: u8,
    prefix_len: usize,
    seen: [u64; 4],
    /// An empty-label child (continuation) was seen.
    continued: bool,
    /// This node is a continuation of its parent: its first bytes count as the parent's.
    continuation: bool,
}

impl Frame {
    fn new(children: u8, prefix_len: usize) -> Self {
        Frame { remaining: children, prefix_len, seen: [0; 4], continued: false, continuation: false }
    }

    /// Marks `byte` used; false if it already was.
    fn claim(&mut self, byte: u8) -> bool {
        let word = usize::from(byte >> 6);
        let bit = 1u64 << (byte & 63);
        match self.seen.get_mut(word) {
            Some(w) if *w & bit == 0 => {
                *w |= bit;
                true
            }
            _ => false,
        }
    }
}

/// Reads a string-table section's data (after its bitmask): the strings by id.
pub fn read<S: Sink>(r: &mut Reader<'_>, sink: &mut S, compact: bool) -> Result<Vec<Vec<u8>>> {
    // Every string has a terminal node: a bitmask and an id (one byte each at least).
    let expected = "GCOV_NUM_STRINGS that fit in the section";
    let count = count_field(r, sink, (4, compact), "GCOV_NUM_STRINGS", (5, 2), expected)?;
    let mut strings: Vec<Option<Vec<u8>>> = Vec::new();
    strings.resize(usize::try_from(count).unwrap_or(0), None);
    let mut found = 0u64;
    let mut prefix: Vec<u8> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();

    let root = node(r, sink, compact, &prefix, &mut strings, &mut found)?;
    stack.push(Frame::new(root, 0));
    while let Some(top) = stack.last_mut() {
        if top.remaining == 0 {
            let done = stack.pop();
            if let (Some(done), Some(parent)) = (done, stack.last_mut()) {
                if done.continuation {
                    for (p, d) in parent.seen.iter_mut().zip(done.seen) {
                        *p |= d;
                    }
                }
            }
            continue;
        }
        top.remaining = top.remaining.saturating_sub(1);
        let edge_at = r.offset();
        sink.open();
        let len = field(r, sink, LABEL_LENGTH_WIDTH, compact, "TRIE_EDGE_LABEL_LENGTH")?;
        let label_at = r.offset();
        let label = r.bytes(len, "TRIE_EDGE_LABEL")?;
        sink.field("TRIE_EDGE_LABEL", label_at, r.offset(), Text(label));
        sink.close("trie edge", edge_at, r.offset(), Text(label));
        let continuation = match label.first() {
            None if top.continued => {
                return Err(Error::malformed(edge_at, "two empty-label children of one trie node"));
            }
            None => {
                top.continued = true;
                true
            }
            Some(&first) => {
                if !top.claim(first) {
                    return Err(Error::invalid(label_at, "trie children starting with distinct bytes", first.into()));
                }
                false
            }
        };
        prefix.truncate(top.prefix_len);
        prefix.extend_from_slice(label);
        let seen = top.seen;
        let node_at = r.offset();
        let before = found;
        let children = node(r, sink, compact, &prefix, &mut strings, &mut found)?;
        if continuation && found != before {
            return Err(Error::malformed(
                node_at,
                "terminal continuation node (an empty label repeats its parent's string)",
            ));
        }
        let mut frame = Frame::new(children, prefix.len());
        if continuation {
            frame.seen = seen;
            frame.continuation = true;
        }
        stack.push(frame);
    }
    if found != count {
        return Err(Error::invalid(r.offset(), "as many terminal nodes as GCOV_NUM_STRINGS", found));
    }
    if !r.is_empty() {
        return Err(Error::malformed(r.offset(), "bytes after the string-table trie"));
    }
    Ok(strings.into_iter().flatten().collect())
}

/// Reads one node's bitmask and terminal id, recording the string that ends there.
/// Returns how many children follow.
fn node<S: Sink>(
    r: &mut Reader<'_>,
    sink: &mut S,
    compact: bool,
    prefix: &[u8],
    strings: &mut [Option<Vec<u8>>],
    found: &mut u64,
) -> Result<u8> {
    let at = r.offset();
    sink.open();
    let mask = r.u8("TRIE_NODE_BITMASK")?;
    let children = mask & MAX_CHILDREN;
    sink.field("TRIE_NODE_BITMASK", at, r.offset(), format_args!("{mask:#04x}"));
    if mask & TERMINAL != 0 {
        let id_at = r.offset();
        let id = field(r, sink, 4, compact, "TRIE_TERMINAL_ID")?;
        let slot = usize::try_from(id).ok().and_then(|i| strings.get_mut(i));
        match slot {
            Some(slot @ None) => *slot = Some(prefix.to_vec()),
            Some(Some(_)) => return Err(Error::invalid(id_at, "a terminal id not used before", id)),
            None => return Err(Error::invalid(id_at, "a terminal id below GCOV_NUM_STRINGS", id)),
        }
        *found = found.saturating_add(1);
        sink.close("trie node", at, r.offset(), format_args!("string {id} \"{}\", {children} children", Text(prefix)));
    } else {
        sink.close("trie node", at, r.offset(), format_args!("{children} children"));
    }
    Ok(children)
}

/// What the builder does next.
enum Task {
    /// Write a node for `strings[lo..hi]`, which share their first `depth` bytes.
    Node { lo: usize, hi: usize, depth: usize },
    /// Write the edge into the group `strings[lo..hi]` from `depth`, then its node.
    Edge { lo: usize, hi: usize, depth: usize },
    /// Write an empty-label edge and a continuation node with these child groups.
    Continue { groups: Vec<(usize, usize)>, depth: usize },
}

/// Appends the string-table section data (after its bitmask) for `strings`, which
/// must be sorted and distinct; a string's id is its index.
pub fn write(out: &mut Vec<u8>, compact: bool, strings: &[&[u8]]) {
    put_int(out, 4, compact, strings.len() as u64);
    let mut stack = alloc::vec![Task::Node { lo: 0, hi: strings.len(), depth: 0 }];
    while let Some(task) = stack.pop() {
        match task {
            Task::Node { lo, hi, depth } => {
                let terminal = strings.get(lo).is_some_and(|s| s.len() == depth);
                let first = if terminal { lo.saturating_add(1) } else { lo };
                let groups = groups(strings, first, hi, depth);
                branch(out, compact, &mut stack, terminal.then_some(lo), groups, depth);
            }
            Task::Edge { lo, hi, depth } => {
                let a = strings.get(lo).and_then(|s| s.get(depth..)).unwrap_or_default();
                let b = strings.get(hi.saturating_sub(1)).and_then(|s| s.get(depth..)).unwrap_or_default();
                let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                let take = common.min(MAX_LABEL);
                put_int(out, LABEL_LENGTH_WIDTH, compact, take as u64);
                out.extend_from_slice(a.get(..take).unwrap_or_default());
                let next = depth.saturating_add(take);
                if take < common {
                    // The label is too long for its length field: a one-child node
                    // between the pieces.
                    out.push(1);
                    stack.push(Task::Edge { lo, hi, depth: next });
                } else {
                    stack.push(Task::Node { lo, hi, depth: next });
                }
            }
            Task::Continue { groups, depth } => {
                put_int(out, LABEL_LENGTH_WIDTH, compact, 0);
                branch(out, compact, &mut stack, None, groups, depth);
            }
        }
    }
}

/// Writes a node's bitmask and terminal id and schedules its children.
fn branch(
    out: &mut Vec<u8>,
    compact: bool,
    stack: &mut Vec<Task>,
    terminal: Option<usize>,
    mut groups: Vec<(usize, usize)>,
    depth: usize,
) {
    let max = usize::from(MAX_CHILDREN);
    let rest = if groups.len() > max { Some(groups.split_off(max.saturating_sub(1))) } else { None };
    let children = groups.len().saturating_add(usize::from(rest.is_some()));
    let mut mask = u8::try_from(children).unwrap_or(MAX_CHILDREN);
    if terminal.is_some() {
        mask |= TERMINAL;
    }
    out.push(mask);
    if let Some(id) = terminal {
        put_int(out, 4, compact, id as u64);
    }
    if let Some(rest) = rest {
        stack.push(Task::Continue { groups: rest, depth });
    }
    for &(lo, hi) in groups.iter().rev() {
        stack.push(Task::Edge { lo, hi, depth });
    }
}

/// Splits sorted `strings[lo..hi]` (all longer than `depth`) by their byte at `depth`.
fn groups(strings: &[&[u8]], lo: usize, hi: usize, depth: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = lo;
    let byte_at = |i: usize| strings.get(i).and_then(|s| s.get(depth)).copied();
    for i in lo.saturating_add(1)..hi {
        if byte_at(i) != byte_at(start) {
            out.push((start, i));
            start = i;
        }
    }
    if start < hi {
        out.push((start, hi));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::gcov::v4_layout::NoDump;
    use crate::read::Endian;

    fn roundtrip(strings: &[&[u8]], compact: bool) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        write(&mut out, compact, strings);
        let mut r = Reader::new(&out, Endian::Big);
        read(&mut r, &mut NoDump, compact).unwrap()
    }

    #[test]
    fn shared_prefixes_share_edges() {
        // "ab" (id 0), "abc" (1), "abd" (2), "b" (3)
        let strings: [&[u8]; 4] = [b"ab", b"abc", b"abd", b"b"];
        let mut out = Vec::new();
        write(&mut out, false, &strings);
        #[rustfmt::skip]
        let expected = [
            0, 0, 0, 4,                 // GCOV_NUM_STRINGS = 4
            0x02,                       // root: not terminal, 2 children
            0, 2, b'a', b'b',           //   edge "ab"
            0x82, 0, 0, 0, 0,           //   node: terminal id 0, 2 children
            0, 1, b'c',                 //     edge "c"
            0x80, 0, 0, 0, 1,           //     node: terminal id 1, no children
            0, 1, b'd',                 //     edge "d"
            0x80, 0, 0, 0, 2,           //     node: terminal id 2
            0, 1, b'b',                 //   edge "b"
            0x80, 0, 0, 0, 3,           //   node: terminal id 3
        ];
        assert_eq!(out, expected);
        let back = read(&mut Reader::new(&out, Endian::Big), &mut NoDump, false).unwrap();
        assert_eq!(back, [&b"ab"[..], b"abc", b"abd", b"b"]);
        // compact: the same with one-byte varints
        let mut c = Vec::new();
        write(&mut c, true, &strings);
        assert_eq!(c[..6], [4, 0x02, 2, b'a', b'b', 0x82]);
        assert_eq!(roundtrip(&strings, true), back);
    }

    #[test]
    fn empty_string_and_empty_table() {
        assert_eq!(roundtrip(&[b"", b"x"], false), [&b""[..], b"x"]);
        let mut out = Vec::new();
        write(&mut out, false, &[]);
        assert_eq!(out, [0, 0, 0, 0, 0x00]);
        assert!(roundtrip(&[], true).is_empty());
    }

    #[test]
    fn wide_nodes_and_long_labels_round_trip() {
        let names: Vec<Vec<u8>> = (0u8..=255).map(|b| alloc::vec![b, b'x']).collect();
        let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
        assert_eq!(roundtrip(&refs, false), names);
        assert_eq!(roundtrip(&refs, true), names);
        let long = alloc::vec![b'a'; 70_000];
        let mut other = long.clone();
        other.push(b'b');
        let back = roundtrip(&[&long, &other], false);
        assert_eq!(back, [long, other]);
    }

    #[test]
    fn malformed_tries_are_errors() {
        let err = |data: &[u8]| read(&mut Reader::new(data, Endian::Big), &mut NoDump, false).err();
        // two children starting with 'a'
        let dup = [0, 0, 0, 2, 0x02, 0, 1, b'a', 0x80, 0, 0, 0, 0, 0, 2, b'a', b'b', 0x80, 0, 0, 0, 1];
        assert_eq!(err(&dup).and_then(|e| e.offset()), Some(15));
        // terminal id 5 of 1
        let id = [0, 0, 0, 1, 0x80, 0, 0, 0, 5];
        assert_eq!(err(&id).and_then(|e| e.offset()), Some(5));
        // the same id twice
        let twice = [0, 0, 0, 2, 0x81, 0, 0, 0, 0, 0, 1, b'a', 0x80, 0, 0, 0, 0];
        assert_eq!(err(&twice).and_then(|e| e.offset()), Some(13));
        // a label running past the section
        let past = [0, 0, 0, 0, 0x01, 0, 9, b'a'];
        assert_eq!(err(&past).and_then(|e| e.offset()), Some(7));
        // fewer terminals than announced
        let few = [0, 0, 0, 2, 0x80, 0, 0, 0, 0];
        assert!(err(&few).is_some());
        // an absurd string count
        let absurd = [0xff, 0xff, 0xff, 0xff, 0x00];
        assert_eq!(err(&absurd).and_then(|e| e.offset()), Some(0));
        // a terminal continuation node repeats its parent's string
        let cont = [0, 0, 0, 2, 0x81, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 1];
        assert!(err(&cont).is_some());
    }
}
