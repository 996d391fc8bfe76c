//! The stack model's interning: the prefix tree's nodes found by (parent, frame),
//! and frames by (name, dso, kind), in hash tables of ids whose keys the caller
//! keeps.

use alloc::vec;
use alloc::vec::Vec;

use super::{transform, FrameId, FrameKind, NodeId, NO_FRAME, ROOT};

/// A tree whose nodes are interned by (parent, frame); node 0 is the root.
#[derive(Debug, Default)]
pub(super) struct NodeTable {
    pub(super) parent: Vec<NodeId>,
    pub(super) frame: Vec<FrameId>,
    table: IdTable,
}

impl NodeTable {
    pub(super) fn new() -> NodeTable {
        NodeTable { parent: vec![ROOT], frame: vec![NO_FRAME], table: IdTable::default() }
    }

    /// The node for `frame` under `parent`, created if new; under
    /// [`transform::DROPPED`], dropped too.
    pub(super) fn child(&mut self, parent: NodeId, frame: FrameId) -> NodeId {
        if parent == transform::DROPPED {
            return parent;
        }
        let Self { parent: parents, frame: frames, table } = self;
        let Ok(next) = u32::try_from(parents.len()) else { return transform::DROPPED };
        if table.len < parents.len().saturating_sub(1) {
            // Forgotten ([`NodeTable::forget_index`]): every node but the root again.
            *table = IdTable::default();
            for (id, (&p, &f)) in (1..next).zip(parents.iter().zip(frames.iter()).skip(1)) {
                table.find_or_insert(node_hash(p, f), |_| false, id);
            }
        }
        let (id, new) = table.find_or_insert(
            node_hash(parent, frame),
            |id| parents.get(id as usize) == Some(&parent) && frames.get(id as usize) == Some(&frame),
            next,
        );
        if new {
            parents.push(parent);
            frames.push(frame);
        }
        id
    }

    /// Frees the table that finds a node by its parent and frame (about as large
    /// as the tree's own arrays); [`NodeTable::child`] builds it again if called.
    pub(super) fn forget_index(&mut self) {
        self.table = IdTable::default();
    }
}

fn mix(h: u64) -> u64 {
    (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9)
}

fn node_hash(parent: u32, frame: FrameId) -> u64 {
    mix((u64::from(parent) << 32 | u64::from(frame)).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

pub(super) fn frame_hash(name: &str, dso: Option<u32>, kind: FrameKind) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in name.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    mix(h ^ u64::from(dso.unwrap_or(u32::MAX)).wrapping_mul(31) ^ kind as u64)
}

/// A hash folded to the 32 bits an [`IdTable`] slot keeps of it.
#[allow(clippy::cast_possible_truncation)] // bits of a hash: truncating is the point
fn tag_of(hash: u64) -> u32 {
    (hash ^ (hash >> 32)) as u32
}

/// An open-addressing hash set of ids (linear probing, at most three quarters
/// full); the caller keeps the keys and says how to compare them. Each slot keeps
/// its key's hash beside the id, so that a probe reads the caller's keys only for
/// the slot whose hash matches (a key's fields lie in other arrays: each read is a
/// cache miss on a large table), and growing reads no key at all.
#[derive(Debug, Default)]
pub(super) struct IdTable {
    /// The key's [`tag_of`] (high half) and id + 1 (low half), or 0 for an empty
    /// slot; the length is a power of two.
    slots: Vec<u64>,
    len: usize,
}

impl IdTable {
    /// The id whose key equals the one hashed to `hash` (`eq`), or `next`, inserted;
    /// and whether it was inserted.
    pub(super) fn find_or_insert(&mut self, hash: u64, eq: impl Fn(u32) -> bool, next: u32) -> (u32, bool) {
        if self.len.saturating_mul(4) >= self.slots.len().saturating_mul(3) {
            self.grow();
        }
        let tag = tag_of(hash);
        let mask = self.slots.len().saturating_sub(1);
        let mut i = tag as usize & mask;
        loop {
            match self.slots.get(i).copied() {
                Some(0) | None => break,
                #[allow(clippy::cast_possible_truncation)] // the halves of the slot
                Some(s) => {
                    if (s >> 32) as u32 == tag && eq((s as u32).wrapping_sub(1)) {
                        return ((s as u32).wrapping_sub(1), false);
                    }
                }
            }
            i = i.wrapping_add(1) & mask;
        }
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = u64::from(tag) << 32 | u64::from(next.wrapping_add(1));
            self.len = self.len.saturating_add(1);
        }
        (next, true)
    }

    fn grow(&mut self) {
        let size = self.slots.len().saturating_mul(2).max(64);
        let old = core::mem::replace(&mut self.slots, vec![0; size]);
        let mask = size.saturating_sub(1);
        for s in old.into_iter().filter(|&s| s != 0) {
            let mut i = (s >> 32) as usize & mask;
            while self.slots.get(i).is_some_and(|&x| x != 0) {
                i = i.wrapping_add(1) & mask;
            }
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = s;
            }
        }
    }
}
