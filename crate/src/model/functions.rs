//! The function table: one row per function record with its name (raw and
//! demangled) and a few per-function numbers, sortable by any column and
//! filterable by name.
//!
//! Built for a million rows: names live in two arenas (no allocation per row),
//! and views are index arrays (`u32` row ids), sorted by precomputed keys.
//! Names are demangled on demand, as demangling them all took most of the time
//! to a big profile's first rows: a row's name when the row is asked for, every
//! name before the first sort by name or name filter (then kept). Columns
//! a format does not have are `None` (a perf symbol table has no counters; a
//! sample profile no hash); `None` sorts below every value.

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::demangle::demangle;

/// A sortable column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// The demangled name where there is one, else the raw name.
    Name,
    Hash,
    Counters,
    /// The first counter: the function's entry count as `llvm-profdata` takes it.
    Entry,
    Max,
    Total,
    /// The share of counters that are not zero.
    NonZero,
}

impl Column {
    pub const ALL: [Column; 7] =
        [Column::Name, Column::Hash, Column::Counters, Column::Entry, Column::Max, Column::Total, Column::NonZero];

    pub fn id(self) -> &'static str {
        match self {
            Column::Name => "name",
            Column::Hash => "hash",
            Column::Counters => "counters",
            Column::Entry => "entry",
            Column::Max => "max",
            Column::Total => "total",
            Column::NonZero => "nonzero",
        }
    }

    pub fn from_id(id: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// The numbers of one row; `None` where the format has no such thing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub hash: Option<u64>,
    pub counters: Option<u64>,
    pub entry: Option<u64>,
    pub max: Option<u64>,
    pub total: Option<u64>,
    /// How many counters are not zero.
    pub nonzero: Option<u64>,
}

impl Stats {
    /// The numbers of a counter array: entry is the first counter, the total
    /// saturates.
    pub fn of_counters(hash: Option<u64>, counters: &[u64]) -> Stats {
        let mut max = 0u64;
        let mut total = 0u64;
        let mut nonzero = 0u64;
        for &c in counters {
            max = max.max(c);
            total = total.saturating_add(c);
            nonzero = nonzero.saturating_add(u64::from(c != 0));
        }
        Stats {
            hash,
            counters: Some(counters.len() as u64),
            entry: counters.first().copied(),
            max: Some(max),
            total: Some(total),
            nonzero: Some(nonzero),
        }
    }

    /// `nonzero / counters` in 1/2^32 units, so that shares sort as integers.
    fn share_key(&self) -> Option<u64> {
        let (n, d) = (self.nonzero?, self.counters?);
        // n ≤ d < 2^64, so n·2^32 fits in 128 bits and the quotient in 33.
        let scaled = u128::from(n).checked_mul(1 << 32)?;
        Some(scaled.checked_div(u128::from(d)).map_or(0, |q| u64::try_from(q).unwrap_or(u64::MAX)))
    }

    /// The share of non-zero counters, 0 to 1.
    pub fn share(&self) -> Option<f64> {
        let (n, d) = (self.nonzero?, self.counters?);
        Some(if d == 0 { 0.0 } else { n as f64 / d as f64 })
    }

    fn key(&self, column: Column) -> Option<u64> {
        match column {
            Column::Name => None,
            Column::Hash => self.hash,
            Column::Counters => self.counters,
            Column::Entry => self.entry,
            Column::Max => self.max,
            Column::Total => self.total,
            Column::NonZero => self.share_key(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Row {
    raw: (usize, usize),
    /// `None` until the name is demangled; then empty when the demangled name
    /// would read the same as the raw one.
    demangled: Option<(usize, usize)>,
    stats: Stats,
    flags: u8,
}

/// Row flag: a context-sensitive instrumentation record.
pub const FLAG_CONTEXT_SENSITIVE: u8 = 1;

/// One row as callers see it.
#[derive(Clone, Copy, Debug)]
pub struct RowRef<'a> {
    pub id: u32,
    pub raw: &'a [u8],
    pub demangled: Option<&'a str>,
    pub stats: Stats,
    pub flags: u8,
}

#[derive(Clone, Debug, Default)]
pub struct FunctionTable {
    rows: Vec<Row>,
    raw: Vec<u8>,
    demangled: String,
    /// Whether every row's name is demangled.
    all_demangled: bool,
}

impl FunctionTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds a row; its id is the number of rows before it. Tables are limited to
    /// `u32::MAX` rows: further rows are ignored.
    pub fn push(&mut self, name: &[u8], stats: Stats, flags: u8) {
        if u32::try_from(self.rows.len()).is_err() {
            return;
        }
        let raw_start = self.raw.len();
        self.raw.extend_from_slice(name);
        self.rows.push(Row { raw: (raw_start, self.raw.len()), demangled: None, stats, flags });
        self.all_demangled = false;
    }

    /// Demangles row `index`'s name unless it already is.
    fn demangle_row(&mut self, index: usize) {
        let Some(row) = self.rows.get_mut(index) else { return };
        if row.demangled.is_some() {
            return;
        }
        let (rs, re) = row.raw;
        let start = self.demangled.len();
        if let Some(d) = self.raw.get(rs..re).and_then(demangle) {
            self.demangled.push_str(&d);
        }
        row.demangled = Some((start, self.demangled.len()));
    }

    /// Demangles every name not demangled yet.
    pub fn demangle_all(&mut self) {
        if !self.all_demangled {
            for index in 0..self.rows.len() {
                self.demangle_row(index);
            }
            self.all_demangled = true;
        }
    }

    /// Row `id`, its name demangled if it was not yet.
    pub fn row(&mut self, id: u32) -> Option<RowRef<'_>> {
        let index = usize::try_from(id).ok()?;
        self.demangle_row(index);
        let row = self.rows.get(index)?;
        let (rs, re) = row.raw;
        let (ds, de) = row.demangled.unwrap_or_default();
        Some(RowRef {
            id,
            raw: self.raw.get(rs..re).unwrap_or_default(),
            demangled: if ds == de { None } else { self.demangled.get(ds..de) },
            stats: row.stats,
            flags: row.flags,
        })
    }

    fn shown_name(&self, row: &Row) -> &[u8] {
        let (ds, de) = row.demangled.unwrap_or_default();
        if ds != de {
            if let Some(d) = self.demangled.as_bytes().get(ds..de) {
                return d;
            }
        }
        let (rs, re) = row.raw;
        self.raw.get(rs..re).unwrap_or_default()
    }

    /// Every row id, ordered by `column` (ties by row id, ascending either way).
    pub fn sorted(&mut self, column: Column, descending: bool) -> Vec<u32> {
        let ids = 0..u32::try_from(self.rows.len()).unwrap_or(u32::MAX);
        if column == Column::Name {
            self.demangle_all();
            let mut order: Vec<u32> = ids.collect();
            order.sort_unstable_by(|&a, &b| {
                let (ra, rb) = (self.rows.get(a as usize), self.rows.get(b as usize));
                let by_name = match (ra, rb) {
                    (Some(ra), Some(rb)) => self.shown_name(ra).cmp(self.shown_name(rb)),
                    _ => Ordering::Equal,
                };
                let by_name = if descending { by_name.reverse() } else { by_name };
                by_name.then(a.cmp(&b))
            });
            return order;
        }
        ids_by_key(self.rows.iter().zip(ids).map(|(row, id)| (none_lowest(row.stats.key(column)), id)), descending)
    }

    /// The ids in `order` whose raw or demangled name contains `needle`, ignoring
    /// ASCII case. An empty needle keeps everything.
    pub fn filter(&mut self, order: &[u32], needle: &str) -> Vec<u32> {
        let needle: Vec<u8> = needle.bytes().map(|b| b.to_ascii_lowercase()).collect();
        if needle.is_empty() {
            return order.to_vec();
        }
        self.demangle_all();
        order
            .iter()
            .copied()
            .filter(|&id| {
                self.rows.get(id as usize).is_some_and(|row| {
                    let (rs, re) = row.raw;
                    let (ds, de) = row.demangled.unwrap_or_default();
                    let raw = self.raw.get(rs..re).unwrap_or_default();
                    let dem = self.demangled.as_bytes().get(ds..de).unwrap_or_default();
                    contains_ignore_case(raw, &needle) || contains_ignore_case(dem, &needle)
                })
            })
            .collect()
    }
}

/// Row ids ordered by their sort keys, ties by id (ascending either way). Keys
/// first: sorting (key, id) pairs touches no row memory.
pub fn ids_by_key(keys: impl Iterator<Item = (u64, u32)>, descending: bool) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = keys.map(|(key, id)| (if descending { !key } else { key }, id)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, id)| id).collect()
}

/// A value that may be missing as a sort key: `None` below every value (values
/// shifted up by one).
pub fn none_lowest(value: Option<u64>) -> u64 {
    value.map_or(0, |v| v.saturating_add(1))
}

/// Whether `hay` contains `needle` (already lower case), ignoring ASCII case.
fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else { return true };
    let last_start = match hay.len().checked_sub(needle.len()) {
        Some(n) => n,
        None => return false,
    };
    hay.iter().take(last_start.saturating_add(1)).enumerate().any(|(i, &b)| {
        b.to_ascii_lowercase() == first
            && hay
                .get(i.saturating_add(1)..)
                .is_some_and(|tail| tail.iter().zip(rest).all(|(h, n)| h.to_ascii_lowercase() == *n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> FunctionTable {
        let mut t = FunctionTable::new();
        t.push(b"main", Stats::of_counters(Some(3), &[1, 0, 5]), 0);
        t.push(b"_ZNK3geo6Circle4nameEv", Stats::of_counters(Some(1), &[10]), 0);
        t.push(b"progA/main.cpp;_ZL3mixi", Stats::of_counters(Some(2), &[0, 0]), 0);
        t.push(b"sym", Stats::default(), 0);
        t
    }

    #[test]
    fn rows_keep_raw_and_demangled_names() {
        let mut t = table();
        let r = t.row(1).unwrap();
        assert_eq!(r.raw, b"_ZNK3geo6Circle4nameEv");
        assert_eq!(r.demangled, Some("geo::Circle::name() const"));
        assert_eq!(t.row(0).unwrap().demangled, None);
        assert_eq!(t.row(0).unwrap().stats.share(), Some(2.0 / 3.0));
        assert!(t.row(4).is_none());
    }

    #[test]
    fn sorts_by_any_column_with_missing_values_last_when_descending() {
        let mut t = table();
        assert_eq!(t.sorted(Column::Total, true), [1, 0, 2, 3]);
        assert_eq!(t.sorted(Column::Total, false), [3, 2, 0, 1]);
        assert_eq!(t.sorted(Column::Hash, false), [3, 1, 2, 0]);
        assert_eq!(t.sorted(Column::NonZero, true), [1, 0, 2, 3]);
        // By shown name: "geo::…" < "main" < "mix(int) […]" < "sym".
        assert_eq!(t.sorted(Column::Name, false), [1, 0, 2, 3]);
        assert_eq!(t.sorted(Column::Name, true), [3, 2, 0, 1]);
    }

    #[test]
    fn filters_on_raw_or_demangled_names_ignoring_case() {
        let mut t = table();
        let all = t.sorted(Column::Name, false);
        assert_eq!(t.filter(&all, "CIRCLE::"), [1]);
        assert_eq!(t.filter(&all, "_zl3"), [2]);
        assert_eq!(t.filter(&all, "main"), [0, 2]);
        assert_eq!(t.filter(&all, ""), all);
        assert!(t.filter(&all, "nothing-like-this").is_empty());
        assert!(contains_ignore_case(b"abc", b"c"));
        assert!(!contains_ignore_case(b"ab", b"abc"));
    }
}
