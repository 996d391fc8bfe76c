//! perf2bolt's view of the BAT tables of a BOLTed binary (BOLT 22,
//! `bolt/lib/Profile/BoltAddressTranslation.cpp`): one map per hot function and per
//! cold fragment, keyed by output offset, and the hot function of every fragment.
//!
//! * [`Translation::translate`] (`translate`): the last entry at or below an output
//!   offset gives its input offset; a branch source takes the entry's input offset
//!   as is, any other address keeps its distance from the entry.
//! * [`Translation::fall_throughs`] (`getFallthroughsInTrace`): the block entries
//!   from the block holding a trace's start up to the entry holding its end, each
//!   block → next block in input offsets; branch entries between them are skipped.
//!   perf2bolt does not disassemble the functions BAT covers: these are the only
//!   fall-throughs it records for them.
//!
//! BOLT 22 keeps the maps as `std::multimap<uint32_t, uint32_t>`: offsets are
//! truncated to 32 bits for the look-ups, and entries at one output offset (an
//! empty block and the block after it) are all kept, in file order: a look-up
//! takes the last of them, and a fall-through walk passes through each.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::formats::bolt::bat::{Bat, BRANCHENTRY};

const KEY_MASK: u64 = 0xffff_ffff;

/// The translation entries of one function or fragment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Map {
    /// (output offset, input offset << 1 | BRANCHENTRY), sorted by offset; entries at
    /// one offset in file order.
    entries: Vec<(u64, u64)>,
    /// Cold fragments: the output address of the hot function.
    parent: Option<u64>,
}

impl Map {
    /// The index of the first entry above `offset` (`upper_bound`).
    fn upper_bound(&self, offset: u64) -> usize {
        let key = offset & KEY_MASK;
        self.entries.partition_point(|e| e.0 <= key)
    }

    fn is_branch(&self, at: usize) -> bool {
        self.entries.get(at).is_some_and(|e| e.1 & BRANCHENTRY != 0)
    }

    fn input(&self, at: usize) -> u64 {
        self.entries.get(at).map_or(0, |e| (e.1 & KEY_MASK) >> 1)
    }

    fn output(&self, at: usize) -> u64 {
        self.entries.get(at).map_or(0, |e| e.0)
    }
}

/// The BAT maps by function (fragment) output address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Translation {
    maps: BTreeMap<u64, Map>,
}

impl Translation {
    pub fn new(bat: &Bat) -> Translation {
        let mut maps: BTreeMap<u64, Map> = BTreeMap::new();
        for function in bat.functions() {
            let address = function.address.value;
            if maps.contains_key(&address) {
                continue;
            }
            let parent =
                if function.is_cold() { Some(bat.parent(function).map_or(0, |p| p.address.value)) } else { None };
            let entries = multimap(function.entries.iter().map(|e| (e.output_offset, e.input)));
            maps.insert(address, Map { entries, parent });
        }
        Translation { maps }
    }

    /// How many maps (hot functions and cold fragments): perf2bolt's "Parsed N BAT entries".
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.maps.is_empty()
    }

    /// `isBATFunction`: BAT has a map for the function (fragment) at `address`.
    pub fn is_bat_function(&self, address: u64) -> bool {
        self.maps.contains_key(&address)
    }

    /// `fetchParentAddress`: the hot function's address of the cold fragment at `address`.
    pub fn parent(&self, address: u64) -> Option<u64> {
        self.maps.get(&address).and_then(|m| m.parent).filter(|&p| p != 0)
    }

    /// `translate`: the input offset of `offset` in the function (fragment) at
    /// `function`; `offset` itself when BAT does not cover it.
    pub fn translate(&self, function: u64, offset: u64, branch_source: bool) -> u64 {
        let Some(map) = self.maps.get(&function) else { return offset };
        let Some(at) = map.upper_bound(offset).checked_sub(1) else { return offset };
        let input = map.input(at);
        if branch_source {
            input
        } else {
            offset.wrapping_sub(map.output(at)).wrapping_add(input)
        }
    }

    /// `getFallthroughsInTrace`: the fall-through edges (input offsets, block start →
    /// next block start) of the trace `from → to` (output addresses) in the function
    /// (fragment) at `function`; None when BAT has no map for it.
    pub fn fall_throughs(&self, function: u64, from: u64, to: u64) -> Option<Vec<(u64, u64)>> {
        let mut out = Vec::new();
        if from >= to {
            return Some(out);
        }
        let map = self.maps.get(&function)?;
        let from = from.wrapping_sub(function);
        let to = to.wrapping_sub(function);
        let mut first = map.upper_bound(from);
        loop {
            let Some(previous) = first.checked_sub(1) else { return Some(out) };
            first = previous;
            if !map.is_branch(first) {
                break;
            }
        }
        let Some(last) = map.upper_bound(to).checked_sub(1) else { return Some(out) };
        if map.output(first) >= map.output(last) {
            return Some(out);
        }
        let mut at = first;
        while at < last {
            let source = map.input(at);
            if map.is_branch(at) {
                at = at.saturating_add(1);
                continue;
            }
            at = at.saturating_add(1);
            while map.is_branch(at) && at < last {
                at = at.saturating_add(1);
            }
            if map.is_branch(at) {
                break;
            }
            out.push((source, map.input(at)));
        }
        Some(out)
    }
}

/// `(output offset, input value)` pairs as BOLT's multimap holds them: sorted by
/// the 32-bit offset, entries at one offset in the order given.
fn multimap(pairs: impl Iterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    let mut entries: Vec<(u64, u64)> = Vec::new();
    for (output, input) in pairs {
        let key = output & KEY_MASK;
        // After the entries at the same offset.
        let at = entries.partition_point(|x| x.0 <= key);
        entries.insert(at, (key, input & KEY_MASK));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One function at 0x1000: blocks at output 0 (input 0), 0x10 (input 0x20, with a
    /// branch at 0x18 → input 0x2c), 0x20 (input 0x8); a fragment at 0x2000 of it.
    fn translation() -> Translation {
        let block = |input: u64| input << 1;
        let branch = |input: u64| input << 1 | BRANCHENTRY;
        let mut maps = BTreeMap::new();
        let entries = alloc::vec![(0, block(0)), (0x10, block(0x20)), (0x18, branch(0x2c)), (0x20, block(0x8))];
        maps.insert(0x1000, Map { entries, parent: None });
        maps.insert(0x2000, Map { entries: alloc::vec![(0, block(0x40))], parent: Some(0x1000) });
        Translation { maps }
    }

    #[test]
    fn translate_keeps_the_distance_except_for_branch_sources() {
        let t = translation();
        assert_eq!(t.translate(0x1000, 0x14, false), 0x24);
        assert_eq!(t.translate(0x1000, 0x14, true), 0x20);
        assert_eq!(t.translate(0x1000, 0x1a, true), 0x2c);
        assert_eq!(t.translate(0x1000, 0x25, false), 0xd);
        assert_eq!(t.translate(0x2000, 3, false), 0x43);
        assert_eq!(t.translate(0x3000, 3, false), 3);
        assert_eq!(t.parent(0x2000), Some(0x1000));
        assert_eq!(t.parent(0x1000), None);
    }

    /// An empty block and the block after it at one output offset (seen in SQLite's
    /// `resolveP2Values`, BOLTed: 0x4c → input 0x4c, then 0x4c → input 0x50):
    /// perf2bolt translates to the last of them and walks through both.
    #[test]
    fn entries_at_one_output_offset_are_all_kept() {
        let block = |input: u64| input << 1;
        let entries =
            multimap([(0, block(0)), (0x4c, block(0x4c)), (0x4c, block(0x50)), (0x60, block(0x70))].into_iter());
        assert_eq!(entries.len(), 4);
        let mut maps = BTreeMap::new();
        maps.insert(0x1000, Map { entries, parent: None });
        let t = Translation { maps };
        assert_eq!(t.translate(0x1000, 0x4c, false), 0x50);
        assert_eq!(t.fall_throughs(0x1000, 0x1004, 0x1062), Some(alloc::vec![(0, 0x4c), (0x4c, 0x50), (0x50, 0x70)]));
    }

    #[test]
    fn fall_throughs_go_block_to_block_over_branch_entries() {
        let t = translation();
        assert_eq!(t.fall_throughs(0x1000, 0x1004, 0x1022), Some(alloc::vec![(0, 0x20), (0x20, 0x8)]));
        // Starting on the branch entry: its block is the one before it.
        assert_eq!(t.fall_throughs(0x1000, 0x1019, 0x1022), Some(alloc::vec![(0x20, 0x8)]));
        // Within one block, backwards, or empty: no edges.
        assert_eq!(t.fall_throughs(0x1000, 0x1011, 0x101c), Some(Vec::new()));
        assert_eq!(t.fall_throughs(0x1000, 0x1020, 0x1010), Some(Vec::new()));
        // No map: not a BAT function.
        assert_eq!(t.fall_throughs(0x3000, 0x3000, 0x3010), None);
    }
}
