//! The lines of an fdata profile as tables: its branch lines (from, to,
//! mispredictions, count), its memory lines (instruction, data, count) and a
//! `no_lbr` profile's sample lines (where, count), in file order, sortable by any
//! column and filtered by name. A row id is the record's index in
//! [`Fdata::branches`], [`Fdata::memory`] or [`Fdata::samples`].

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::formats::bolt::fdata::{Fdata, Location};

/// Which lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    Branches,
    Memory,
    Samples,
}

/// A column of the record tables: for memory lines `From` is the instruction and
/// `To` the data it accessed; they have no `Mispredicted`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordColumn {
    From,
    To,
    Mispredicted,
    Count,
    /// The line in the file.
    Line,
}

impl RecordColumn {
    pub const BRANCHES: [RecordColumn; 5] =
        [RecordColumn::From, RecordColumn::To, RecordColumn::Mispredicted, RecordColumn::Count, RecordColumn::Line];
    pub const MEMORY: [RecordColumn; 4] =
        [RecordColumn::From, RecordColumn::To, RecordColumn::Count, RecordColumn::Line];
    pub const SAMPLES: [RecordColumn; 3] = [RecordColumn::From, RecordColumn::Count, RecordColumn::Line];

    /// The columns of `which` table.
    pub fn of(which: Records) -> &'static [RecordColumn] {
        match which {
            Records::Branches => &Self::BRANCHES,
            Records::Memory => &Self::MEMORY,
            Records::Samples => &Self::SAMPLES,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            RecordColumn::From => "from",
            RecordColumn::To => "to",
            RecordColumn::Mispredicted => "mispredicted",
            RecordColumn::Count => "count",
            RecordColumn::Line => "line",
        }
    }

    pub fn from_id(id: &str) -> Option<RecordColumn> {
        Self::BRANCHES.into_iter().find(|c| c.id() == id)
    }
}

/// `name+0xoffset` for a symbol, `[name] 0xoffset` for a DSO or address (kind 0).
pub fn location_text(l: &Location<'_>) -> String {
    let name = String::from_utf8_lossy(&l.unescaped_name()).into_owned();
    if l.kind.is_symbol() {
        alloc::format!("{name}+{:#x}", l.offset)
    } else {
        alloc::format!("[{name}] {:#x}", l.offset)
    }
}

/// One row's values.
pub struct RecordRow<'p, 'a> {
    pub from: &'p Location<'a>,
    /// None for a sample line.
    pub to: Option<&'p Location<'a>>,
    pub mispredicted: Option<i64>,
    pub count: i64,
    pub line: u64,
}

/// Row `id` of the `which` table.
pub fn row<'p, 'a>(fdata: &'p Fdata<'a>, which: Records, id: u32) -> Option<RecordRow<'p, 'a>> {
    match which {
        Records::Branches => fdata.branches.get(id as usize).map(|b| RecordRow {
            from: &b.from,
            to: Some(&b.to),
            mispredicted: Some(b.mispredicted),
            count: b.count,
            line: b.line,
        }),
        Records::Memory => fdata.memory.get(id as usize).map(|m| RecordRow {
            from: &m.pc,
            to: Some(&m.address),
            mispredicted: None,
            count: m.count,
            line: m.line,
        }),
        Records::Samples => fdata.samples.get(id as usize).map(|s| RecordRow {
            from: &s.at,
            to: None,
            mispredicted: None,
            count: s.count,
            line: s.line,
        }),
    }
}

/// How many rows the `which` table has.
pub fn len(fdata: &Fdata<'_>, which: Records) -> usize {
    match which {
        Records::Branches => fdata.branches.len(),
        Records::Memory => fdata.memory.len(),
        Records::Samples => fdata.samples.len(),
    }
}

/// The counts of the `which` table summed (negative ones as 0): what a row's share
/// is of.
pub fn weight(fdata: &Fdata<'_>, which: Records) -> u64 {
    (0..len(fdata, which))
        .filter_map(|i| row(fdata, which, u32::try_from(i).ok()?))
        .fold(0u64, |w, r| w.saturating_add(u64::try_from(r.count).unwrap_or(0)))
}

/// The row ids ordered by `column` (ties in file order).
pub fn sorted(fdata: &Fdata<'_>, which: Records, column: RecordColumn, descending: bool) -> Vec<u32> {
    let n = u32::try_from(len(fdata, which)).unwrap_or(u32::MAX);
    let mut ids: Vec<u32> = (0..n).collect();
    let compare = |a: u32, b: u32| -> Ordering {
        let (Some(a), Some(b)) = (row(fdata, which, a), row(fdata, which, b)) else { return Ordering::Equal };
        match column {
            RecordColumn::From => (&a.from.name, a.from.offset).cmp(&(&b.from.name, b.from.offset)),
            RecordColumn::To => a.to.map(|l| (&l.name, l.offset)).cmp(&b.to.map(|l| (&l.name, l.offset))),
            RecordColumn::Mispredicted => a.mispredicted.cmp(&b.mispredicted),
            RecordColumn::Count => a.count.cmp(&b.count),
            RecordColumn::Line => a.line.cmp(&b.line),
        }
    };
    ids.sort_by(|&a, &b| {
        let order = compare(a, b);
        if descending { order.reverse() } else { order }.then(a.cmp(&b))
    });
    ids
}

/// The ids of `order` whose from or to name contains `filter` (case ignored).
pub fn filter(fdata: &Fdata<'_>, which: Records, order: &[u32], filter: &str) -> Vec<u32> {
    let needle = filter.trim().to_lowercase();
    if needle.is_empty() {
        return order.to_vec();
    }
    let has = |l: &Location<'_>| String::from_utf8_lossy(&l.unescaped_name()).to_lowercase().contains(&needle);
    order
        .iter()
        .copied()
        .filter(|&id| row(fdata, which, id).is_some_and(|r| has(r.from) || r.to.is_some_and(has)))
        .collect()
}
