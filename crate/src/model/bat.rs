//! BOLT Address Translation as the BAT view takes it: one row per hot function or
//! cold fragment of the BOLTed binary, named from its symbols, sortable by any
//! column; and one function's translation entries.

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::formats::bolt::bat::{Bat, Function};

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
