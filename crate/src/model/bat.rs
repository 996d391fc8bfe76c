//! BOLT Address Translation as the BAT view takes it: one row per hot function or
//! cold fragment of the BOLTed binary, named from its symbols, sortable by any
//! column; one function's translation entries; and, when a profile of the BOLTed
//! binary was translated to the input binary through BAT, the count of each of the
//! function's input blocks in it ([`profile_cfg`]).

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::formats::bolt::bat::{Bat, Function};
use crate::formats::bolt::fdata::{Fdata, Location};
use crate::model::bolt::{propagate_block_counts, same_name, Block, Call, Cfg, Edge};

/// One row: a hot function or a cold fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatRow {
    /// The symbol at its output address (`name.cold.0` for a fragment), or the address.
    pub name: String,
    pub demangled: Option<String>,
    pub address: u64,
    /// The row of the hot function a cold fragment belongs to.
    pub parent: Option<u32>,
    /// Basic blocks of the input function (current encoding, hot functions).
    pub blocks: Option<u64>,
    pub entries: u64,
    pub secondary_entry_points: u64,
    pub hash: Option<u64>,
}

/// The columns of the BAT functions table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatColumn {
    Name,
    Address,
    Kind,
    Blocks,
    Entries,
    Secondary,
    Hash,
}

impl BatColumn {
    pub const ALL: [BatColumn; 7] = [
        BatColumn::Name,
        BatColumn::Address,
        BatColumn::Kind,
        BatColumn::Blocks,
        BatColumn::Entries,
        BatColumn::Secondary,
        BatColumn::Hash,
    ];

    pub fn id(self) -> &'static str {
        match self {
            BatColumn::Name => "name",
            BatColumn::Address => "address",
            BatColumn::Kind => "kind",
            BatColumn::Blocks => "blocks",
            BatColumn::Entries => "entries",
            BatColumn::Secondary => "secondary",
            BatColumn::Hash => "hash",
        }
    }

    pub fn from_id(id: &str) -> Option<BatColumn> {
        Self::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// The rows of `bat`, hot functions then cold fragments (table order); `name_at`
/// names an output address from the binary's symbols.
pub fn rows(bat: &Bat, name_at: &dyn Fn(u64) -> Option<String>) -> Vec<BatRow> {
    let hot = bat.hot.functions.len();
    let row = |f: &Function| {
        let name = name_at(f.address.value).unwrap_or_else(|| alloc::format!("{:#x}", f.address.value));
        BatRow {
            demangled: crate::model::demangle::demangle(name.as_bytes()),
            name,
            address: f.address.value,
            parent: f
                .hot_index
                .and_then(|h| usize::try_from(h.value).ok())
                .filter(|&h| h < hot)
                .and_then(|h| u32::try_from(h).ok()),
            blocks: f.num_blocks.map(|n| n.value),
            entries: f.entries.len() as u64,
            secondary_entry_points: f.secondary_entry_points.len() as u64,
            hash: f.hash.map(|h| h.value),
        }
    };
    bat.functions().map(row).collect()
}

/// The function of row `id` (hot functions first, then cold fragments).
pub fn function(bat: &Bat, id: u32) -> Option<&Function> {
    bat.functions().nth(id as usize)
}

/// Row ids ordered by `column` (ties in table order).
pub fn sorted(rows: &[BatRow], column: BatColumn, descending: bool) -> Vec<u32> {
    let n = u32::try_from(rows.len()).unwrap_or(u32::MAX);
    let mut ids: Vec<u32> = (0..n).collect();
    let compare = |a: u32, b: u32| -> Ordering {
        let (Some(a), Some(b)) = (rows.get(a as usize), rows.get(b as usize)) else { return Ordering::Equal };
        match column {
            BatColumn::Name => a.demangled.as_ref().unwrap_or(&a.name).cmp(b.demangled.as_ref().unwrap_or(&b.name)),
            BatColumn::Address => a.address.cmp(&b.address),
            BatColumn::Kind => a.parent.is_some().cmp(&b.parent.is_some()),
            BatColumn::Blocks => a.blocks.cmp(&b.blocks),
            BatColumn::Entries => a.entries.cmp(&b.entries),
            BatColumn::Secondary => a.secondary_entry_points.cmp(&b.secondary_entry_points),
            BatColumn::Hash => a.hash.cmp(&b.hash),
        }
    };
    ids.sort_by(|&a, &b| {
        let order = compare(a, b);
        if descending { order.reverse() } else { order }.then(a.cmp(&b))
    });
    ids
}

/// The ids of `order` whose raw or demangled name contains `filter` (case ignored).
pub fn filter(rows: &[BatRow], order: &[u32], filter: &str) -> Vec<u32> {
    let needle = filter.trim().to_lowercase();
    if needle.is_empty() {
        return order.to_vec();
    }
    let has = |r: &BatRow| {
        r.name.to_lowercase().contains(&needle)
            || r.demangled.as_ref().is_some_and(|d| d.to_lowercase().contains(&needle))
    };
    order.iter().copied().filter(|&id| rows.get(id as usize).is_some_and(has)).collect()
}

/// The hot function `hot` (an index into [`Bat::hot`]) and its cold fragments in
/// table order, each with its fragment number (0 for the hot part).
pub fn parts(bat: &Bat, hot: u32) -> impl Iterator<Item = (u32, &Function)> {
    let fragments = bat.cold.functions.iter().filter(move |f| f.hot_index.is_some_and(|h| h.value == u64::from(hot)));
    bat.hot.functions.get(hot as usize).into_iter().chain(fragments).zip(0u32..).map(|(f, i)| (i, f))
}

/// The input binary's profile `fdata` of the function whose hot part is `hot` (an
/// index into [`Bat::hot`]), named `name` in the profile (BOLT's location name:
/// `name/file/N` for a local), as a graph on the input blocks BAT knows of it.
///
/// A profile translated through BAT (`boltedcollection`) has its branches in the
/// input function's offsets, each from inside a block to a block start, the
/// fall-throughs included: perf2bolt does not disassemble the functions BAT covers,
/// so these are all the edges there are. The blocks are the block entries of the
/// hot part and of its cold fragments, by input offset; their counts are attached
/// as llvm-bolt reads the profile for the input binary (see [`crate::model::bolt`]):
/// branches from elsewhere (or a recursive call) to offset 0 or to a secondary entry
/// point count on that entry block, each block adds the edges into it, raised to its
/// largest edge and direct call. Branches between offsets that are not blocks go to
/// [`Cfg::unmatched`]. Blocks are in input offset order, each with its offset.
pub fn profile_cfg(bat: &Bat, hot: u32, fdata: &Fdata<'_>, name: &str) -> Cfg {
    let mut starts: Vec<u64> = parts(bat, hot).flat_map(|(_, f)| f.blocks().map(|e| e.input_offset())).collect();
    starts.sort_unstable();
    starts.dedup();
    let secondary: Vec<u64> = bat
        .hot
        .functions
        .get(hot as usize)
        .map(|f| f.secondary_entry_points.iter().map(|s| u64::from(s.offset)).collect())
        .unwrap_or_default();
    let mut out = Cfg {
        name: String::from(name),
        blocks: starts
            .iter()
            .map(|&offset| Block {
                offset: Some(offset),
                entry: offset == 0 || secondary.contains(&offset),
                ..Block::default()
            })
            .collect(),
        ..Cfg::default()
    };
    let block_at = |offset: u64| starts.binary_search(&offset).ok();
    let containing = |offset: u64| starts.partition_point(|&s| s <= offset).checked_sub(1);
    let mine = |l: &Location<'_>| l.kind.is_symbol() && same_name(&l.name, name);
    for br in &fdata.branches {
        let (from_mine, to_mine) = (mine(&br.from), mine(&br.to));
        let count = u64::try_from(br.count).unwrap_or(0);
        let mispredicted = u64::try_from(br.mispredicted).unwrap_or(0);
        // Entry data: branches into the function from elsewhere, or to its start.
        if to_mine && (!from_mine || br.to.offset == 0) {
            if br.to.offset == 0 {
                out.exec_count = out.exec_count.saturating_add(count);
            }
            if let Some(b) = block_at(br.to.offset).and_then(|b| out.blocks.get_mut(b)).filter(|b| b.entry) {
                b.exec_count = b.exec_count.saturating_add(count);
            }
        }
        if !from_mine {
            continue;
        }
        if !to_mine || br.to.offset == 0 {
            // A call (or a tail call) from the block holding the branch.
            if let Some(b) = containing(br.from.offset).and_then(|b| out.blocks.get_mut(b)) {
                b.calls.push(Call {
                    offset: br.from.offset,
                    callee: String::from_utf8_lossy(&br.to.unescaped_name()).into_owned(),
                    callee_offset: br.to.offset,
                    count,
                    mispredicted,
                });
            }
            continue;
        }
        let edge = containing(br.from.offset)
            .zip(block_at(br.to.offset))
            .and_then(|(from, to)| Some((u32::try_from(from).ok()?, u32::try_from(to).ok()?)));
        let Some((from, to)) = edge else {
            out.unmatched.push((br.from.offset, br.to.offset, br.count));
            continue;
        };
        match out.edges.iter_mut().find(|e| e.from == from && e.to == to) {
            Some(e) => {
                e.count = Some(e.count.unwrap_or(0).saturating_add(count));
                e.mispredicted = e.mispredicted.saturating_add(mispredicted);
            }
            None => out.edges.push(Edge { from, to, count: Some(count), mispredicted, inferred: false }),
        }
    }
    // Sorted by source, each block's edges in profile order.
    out.edges.sort_by_key(|e| e.from);
    propagate_block_counts(&mut out);
    out
}
