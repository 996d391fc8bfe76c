//! The dump tree: every structure of a file as a labelled node with its absolute
//! byte span, so a viewer can link each field to its bytes.
//!
//! A finished dump *tiles* its input: the root spans every byte, a node's children are
//! sorted, disjoint and inside it, and bytes no decoder claimed are covered by explicit
//! `unparsed` nodes ([`Node::tile`]). Large regions (the lines of a big text file, the
//! records of a big stream) may be left [`Deferred`]: their children are built on
//! demand by [`crate::expand`], from the same decoder, so a viewer never holds a
//! million-node tree it will not show.

mod fields;
mod json;

pub use fields::{Fields, Hex, Text};
pub use json::{write_json, write_text};

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Display;

use crate::error::{Error, Result};

/// Children that are not built yet: `expand` builds them from the input.
///
/// `tag` is private to the format that made it; `start..end` is the node's span
/// and `first` a format-defined index (e.g. the line number of the first line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deferred {
    pub tag: u32,
    pub start: u64,
    pub end: u64,
    pub first: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub label: Cow<'static, str>,
    pub value: Option<String>,
    /// Absolute offset of the first byte.
    pub start: u64,
    /// Absolute offset one past the last byte.
    pub end: u64,
    pub children: Vec<Node>,
    pub deferred: Option<Deferred>,
}

/// The label of nodes covering bytes that no decoder claimed.
pub const UNPARSED: &str = "unparsed";

impl Node {
    pub fn new(label: impl Into<Cow<'static, str>>, start: u64, end: u64) -> Self {
        Node { label: label.into(), value: None, start, end, children: Vec::new(), deferred: None }
    }

    pub fn leaf(label: impl Into<Cow<'static, str>>, start: u64, end: u64, value: impl Display) -> Self {
        Node::new(label, start, end).with_value(value)
    }

    pub fn with_value(mut self, value: impl Display) -> Self {
        self.value = Some(alloc::format!("{value}"));
        self
    }

    pub fn with_children(mut self, children: Vec<Node>) -> Self {
        self.children = children;
        self
    }

    pub fn deferred(mut self, tag: u32, first: u64) -> Self {
        self.deferred = Some(Deferred { tag, start: self.start, end: self.end, first });
        self
    }

    pub fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sorts the children, checks they are disjoint and inside this node, and covers
    /// every gap (between them, and before the first or after the last) with an
    /// `unparsed` node. Applies to this level only; [`crate::dump`] tiles the whole tree.
    pub fn tile(&mut self) -> Result<()> {
        if self.children.is_empty() {
            return Ok(());
        }
        // Empty nodes (a zero-length section) carry meaning but no bytes; keep them in order.
        self.children.sort_by_key(|c| (c.start, c.end));
        let mut tiled = Vec::with_capacity(self.children.len().saturating_add(2));
        let mut cursor = self.start;
        for child in core::mem::take(&mut self.children) {
            if child.start < cursor || child.end < child.start || child.end > self.end {
                return Err(Error::malformed(child.start, "structure overlaps another or leaves its parent"));
            }
            if child.start > cursor {
                tiled.push(Node::new(UNPARSED, cursor, child.start));
            }
            cursor = child.end;
            tiled.push(child);
        }
        if cursor < self.end {
            tiled.push(Node::new(UNPARSED, cursor, self.end));
        }
        self.children = tiled;
        Ok(())
    }

    /// [`Node::tile`] on this node and every built node below it.
    pub fn tile_deep(&mut self) -> Result<()> {
        self.tile()?;
        self.children.iter_mut().try_for_each(Node::tile_deep)
    }

    /// Checks the tiling invariant on the whole (built) tree; the error names the
    /// first node that breaks it. Used by tests.
    pub fn check_tiling(&self) -> core::result::Result<(), String> {
        let mut cursor = self.start;
        for child in &self.children {
            if child.start != cursor || child.end < child.start {
                return Err(alloc::format!(
                    "{} [{:#x}..{:#x}) does not continue {} at {:#x}",
                    child.label,
                    child.start,
                    child.end,
                    self.label,
                    cursor
                ));
            }
            child.check_tiling()?;
            cursor = child.end;
        }
        if !self.children.is_empty() && cursor != self.end {
            return Err(alloc::format!("children of {} end at {:#x}, not {:#x}", self.label, cursor, self.end));
        }
        Ok(())
    }

    /// The path of child indices to the innermost built node containing `offset`.
    pub fn path_to(&self, offset: u64) -> Vec<usize> {
        let mut path = Vec::new();
        let mut node = self;
        while let Some(i) = node.children.iter().position(|c| c.start <= offset && offset < c.end) {
            path.push(i);
            match node.children.get(i) {
                Some(child) => node = child,
                None => break,
            }
        }
        path
    }

    /// Counts built nodes.
    pub fn count(&self) -> usize {
        self.children.iter().map(Node::count).fold(1usize, usize::saturating_add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_fills_gaps_and_rejects_overlap() {
        let mut root =
            Node::new("file", 0, 10).with_children(alloc::vec![Node::leaf("b", 6, 8, 1), Node::leaf("a", 2, 4, 2)]);
        assert!(root.tile().is_ok());
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(spans, [("unparsed", 0, 2), ("a", 2, 4), ("unparsed", 4, 6), ("b", 6, 8), ("unparsed", 8, 10)]);
        assert_eq!(root.check_tiling(), Ok(()));
        assert_eq!(root.path_to(7), [3]);

        let mut bad = Node::new("file", 0, 10).with_children(alloc::vec![Node::new("a", 0, 6), Node::new("b", 5, 8)]);
        assert_eq!(bad.tile().err().and_then(|e| e.offset()), Some(5));
        let mut outside = Node::new("file", 0, 10).with_children(alloc::vec![Node::new("a", 8, 12)]);
        assert!(outside.tile().is_err());
    }
}
