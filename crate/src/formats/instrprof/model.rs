//! The decoded instrumentation profile, whatever file it came from: raw, indexed,
//! or raw plus the instrumented binary (correlation).
//!
//! Records are kept the way `llvm-profdata merge` keeps them: one per (name,
//! function hash), sorted by name bytes then hash; a second record with the same
//! key is merged into the first (counters added, bitmaps or-ed, value data summed
//! per value), and every value site is ordered by descending count, ties in the
//! order the values arrived (`InstrProfWriter::addRecord`, `sortValueData`).

use alloc::vec::Vec;

use super::flags;
use super::md5::name_ref;

/// Value-profile kinds (`IPVK_*`).
pub const IPVK_INDIRECT_CALL_TARGET: usize = 0;
pub const IPVK_MEMOP_SIZE: usize = 1;
pub const IPVK_VTABLE_TARGET: usize = 2;
/// Number of value kinds LLVM knows (`IPVK_Last + 1`).
pub const VALUE_KINDS: usize = 3;

/// One (value, count) pair of a value site. For indirect-call and vtable targets
/// `value` is the target's MD5 name hash (0 when the runtime address was unknown);
/// for memop sizes it is the size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueData {
    pub value: u64,
    pub count: u64,
}

/// A function's profile record (`NamedInstrProfRecord`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// The PGO name: mangled name, `file;name` (`file:name` in older profiles)
    /// for local linkage. Bytes, as names need not be UTF-8.
    pub name: Vec<u8>,
    /// The name's MD5 hash (`MD5Hash`, what value profiles and traces refer to).
    /// Decoders that have it set it (indexed files store it with each key, as
    /// `IndexedInstrProf::ComputeHash`); [`Profile::add`] computes it when it is 0.
    pub name_ref: u64,
    /// The MD5 hash of [`canonical_name`] when that is shorter than the name,
    /// else 0; set by [`Profile::add`], while the name is still in the cache.
    pub canonical_ref: u64,
    /// The structural hash; bit 60 marks a context-sensitive record.
    pub hash: u64,
    pub counters: Vec<u64>,
    /// MC/DC bitmap bytes.
    pub bitmap: Vec<u8>,
    /// Per value kind, per site, the values seen there.
    pub sites: [Vec<Vec<ValueData>>; VALUE_KINDS],
}

/// `CS_FLAG_IN_FUNC_HASH`: context-sensitive records carry bit 60 in their hash.
pub const CS_FLAG_IN_FUNC_HASH: u64 = 1 << 60;

impl Function {
    pub fn is_context_sensitive(&self) -> bool {
        self.hash & CS_FLAG_IN_FUNC_HASH != 0
    }

    /// How many value kinds have at least one site (`getNumValueKinds`).
    pub fn num_value_kinds(&self) -> usize {
        self.sites.iter().filter(|s| !s.is_empty()).count()
    }

    /// Sorts every site by descending count, keeping the order of equal counts.
    fn sort_value_data(&mut self) {
        for kind in &mut self.sites {
            // Indexed files store sites already sorted; checking is cheaper than sorting.
            for site in kind.iter_mut().filter(|site| !site.is_sorted_by(|a, b| a.count >= b.count)) {
                site.sort_by_key(|v| core::cmp::Reverse(v.count));
            }
        }
    }

    /// `InstrProfRecord::merge` with weight 1. A record whose counter count (or
    /// bitmap size) differs is not merged: LLVM warns and keeps the first.
    fn merge(&mut self, other: Function) -> bool {
        if self.counters.len() != other.counters.len() || self.bitmap.len() != other.bitmap.len() {
            return false;
        }
        for (a, b) in self.counters.iter_mut().zip(&other.counters) {
            *a = a.saturating_add(*b);
        }
        for (a, b) in self.bitmap.iter_mut().zip(&other.bitmap) {
            *a |= *b;
        }
        for (mine, theirs) in self.sites.iter_mut().zip(other.sites) {
            if mine.len() != theirs.len() {
                // LLVM merges site by site only when the site counts agree.
                continue;
            }
            for (a, b) in mine.iter_mut().zip(theirs) {
                merge_site(a, b);
            }
        }
        true
    }
}

/// `InstrProfValueSiteRecord::merge`: both sorted by value, equal values summed.
fn merge_site(into: &mut Vec<ValueData>, from: Vec<ValueData>) {
    into.sort_by_key(|v| v.value);
    let mut from = from;
    from.sort_by_key(|v| v.value);
    let mut merged = Vec::with_capacity(into.len().saturating_add(from.len()));
    let mut a = core::mem::take(into).into_iter().peekable();
    let mut b = from.into_iter().peekable();
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.value == y.value => {
                let count = x.count.saturating_add(y.count);
                let value = x.value;
                a.next();
                b.next();
                ValueData { value, count }
            }
            (Some(x), Some(y)) if x.value < y.value => {
                let v = *x;
                a.next();
                v
            }
            (_, Some(y)) => {
                let v = *y;
                b.next();
                v
            }
            (Some(x), None) => {
                let v = *x;
                a.next();
                v
            }
            (None, None) => break,
        };
        merged.push(next);
    }
    *into = merged;
}

/// A temporal profile trace: functions in first-execution order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub weight: u64,
    /// MD5 name hashes.
    pub functions: Vec<u64>,
}

/// A decoded instrumentation profile.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// The variant flags (high 32 bits of the `Version` word; see [`flags`]).
    pub flags: u64,
    /// The format version the file carried (raw or indexed numbering).
    pub version: u64,
    /// Records sorted by (name, hash).
    pub functions: Vec<Function>,
    pub binary_ids: Vec<Vec<u8>>,
    pub traces: Vec<Trace>,
    /// How many traces the stream that was sampled into `traces` had.
    pub trace_stream_size: u64,
    pub vtable_names: Vec<Vec<u8>>,
    /// Records dropped because they disagreed with an earlier record of the same
    /// name and hash (counter or bitmap count mismatch).
    pub dropped: u64,
    /// The MemProf section of an indexed profile (version 8+ with the MemProf flag).
    pub memprof: Option<super::memprof_model::IndexedMemProf>,
}

impl Profile {
    pub fn new(flags: u64, version: u64) -> Self {
        Profile { flags: flags & 0xffff_ffff_0000_0000, version, ..Profile::default() }
    }

    pub fn has(&self, mask: u64) -> bool {
        self.flags & mask != 0
    }

    pub fn is_ir(&self) -> bool {
        self.has(flags::IR_PROF)
    }

    pub fn is_context_sensitive(&self) -> bool {
        self.has(flags::CS_IR_PROF)
    }

    pub fn is_entry_first(&self) -> bool {
        self.has(flags::ENTRY_FIRST)
    }

    pub fn is_byte_coverage(&self) -> bool {
        self.has(flags::BYTE_COVERAGE)
    }

    pub fn is_function_entry_only(&self) -> bool {
        self.has(flags::FUNCTION_ENTRY_ONLY)
    }

    pub fn is_loop_entries(&self) -> bool {
        self.has(flags::LOOP_ENTRIES)
    }

    pub fn is_temporal(&self) -> bool {
        self.has(flags::TEMPORAL_PROF)
    }

    pub fn is_memprof(&self) -> bool {
        self.has(flags::MEMPROF)
    }

    /// Adds a record. Records with the same name and hash are merged by [`finish`],
    /// in the order they were added.
    ///
    /// The name hashes are computed and the value sites sorted here, while the
    /// decoder has just written the record: after the sort in [`finish`] the
    /// records are visited in an order unrelated to their place in memory, and
    /// each visit would be a cache miss.
    ///
    /// [`finish`]: Profile::finish
    pub fn add(&mut self, mut function: Function) {
        if function.name_ref == 0 {
            function.name_ref = name_ref(&function.name);
        }
        let canonical = canonical_name(&function.name);
        function.canonical_ref = if canonical.len() != function.name.len() { name_ref(canonical) } else { 0 };
        function.sort_value_data();
        self.functions.push(function);
    }

    /// Sorts the records by (name, hash) and merges each later record with the
    /// same key into the first; decoders call it once at the end.
    pub fn finish(&mut self) {
        // Sorting indices by (key, arrival) keeps the merge order of
        // `InstrProfWriter::addRecord` without a map lookup per record, and
        // moves each record once (the permutation is applied in place).
        //
        // The keys sit in one array with each name's first 32 bytes inline, so
        // most comparisons neither call `memcmp` nor touch the scattered names
        // (a third of an indexed export went to that). Zero padding keeps the
        // prefix order consistent with byte order; equal prefixes compare in full.
        let mut keys: Vec<SortKey<'_>> = self
            .functions
            .iter()
            .enumerate()
            .map(|(index, f)| SortKey { prefix: prefix(&f.name), name: &f.name, hash: f.hash, index })
            .collect();
        keys.sort_unstable_by(|a, b| {
            a.prefix.cmp(&b.prefix).then_with(|| (a.name, a.hash, a.index).cmp(&(b.name, b.hash, b.index)))
        });
        let mut order: Vec<usize> = keys.into_iter().map(|k| k.index).collect();
        // Position `j` receives the record at `order[j]`; each cycle of the
        // permutation is rotated with swaps, and done positions point at themselves.
        for start in 0..order.len() {
            let mut j = start;
            while let Some(slot) = order.get_mut(j) {
                let k = core::mem::replace(slot, j);
                if k == start || k == j {
                    break;
                }
                if j < self.functions.len() && k < self.functions.len() {
                    self.functions.swap(j, k);
                }
                j = k;
            }
        }
        let mut dropped = 0u64;
        // `dedup_by` hands (later, earlier kept) pairs: merge the later into the kept one.
        self.functions.dedup_by(|later, first| {
            if later.name != first.name || later.hash != first.hash {
                return false;
            }
            if first.merge(core::mem::take(later)) {
                first.sort_value_data();
            } else {
                dropped = dropped.saturating_add(1);
            }
            true
        });
        self.dropped = self.dropped.saturating_add(dropped);
    }

    /// The record with this name and hash (after [`finish`](Profile::finish)).
    pub fn function(&self, name: &[u8], hash: u64) -> Option<&Function> {
        let i = self.functions.binary_search_by(|f| (f.name.as_slice(), f.hash).cmp(&(name, hash))).ok()?;
        self.functions.get(i)
    }

    /// A table from MD5 name hash to name, over every function name (and its
    /// canonical form) and, with `vtables`, every vtable name.
    pub fn symtab(&self, vtables: bool) -> Symtab<'_> {
        // Counted first, so the table is allocated once (a growth would hold old
        // and new tables at once): local names (`file.c;name`) have canonical forms.
        let canonical = self.functions.iter().filter(|f| f.canonical_ref != 0).count();
        let names = self.functions.len().saturating_add(canonical);
        let mut symtab = Symtab::with_capacity(names.saturating_add(if vtables { self.vtable_names.len() } else { 0 }));
        for f in &self.functions {
            symtab.insert(f.name_ref, &f.name);
            if f.canonical_ref != 0 {
                symtab.insert(f.canonical_ref, &f.name);
            }
        }
        if vtables {
            for v in &self.vtable_names {
                symtab.insert(name_ref(v), v);
            }
        }
        symtab
    }
}

/// A record's place in the (name, hash, arrival) order, its name's prefix inline.
struct SortKey<'a> {
    prefix: (u128, u128),
    name: &'a [u8],
    hash: u64,
    index: usize,
}

/// A name's first 32 bytes, zero-padded, as two big-endian integers: ordered as
/// the bytes are.
fn prefix(name: &[u8]) -> (u128, u128) {
    let mut bytes = [0u8; 32];
    for (dst, &src) in bytes.iter_mut().zip(name) {
        *dst = src;
    }
    let (high, low) = bytes.split_at(16);
    (u128::from_be_bytes(high.try_into().unwrap_or_default()), u128::from_be_bytes(low.try_into().unwrap_or_default()))
}

/// The slot a hash starts probing at.
#[allow(clippy::cast_possible_truncation)] // only the low bits pick the slot
fn slot(hash: u64, mask: usize) -> usize {
    hash as usize & mask
}

/// MD5 name hash → name: an open-addressing table, as the hashes are already
/// uniformly spread and a lookup per value-profile target must cost one cache
/// miss, not the twenty of a binary search or a B-tree walk. The slot holds the
/// name itself, so a hit touches nothing but the slot and the name's bytes.
pub struct Symtab<'a> {
    /// Power-of-two many slots of (hash, name); `None` marks a free slot.
    slots: Vec<(u64, Option<&'a [u8]>)>,
    len: usize,
}

impl<'a> Symtab<'a> {
    fn with_capacity(n: usize) -> Self {
        // At most half full, so probes stay short.
        let len = n.saturating_mul(2).max(16).checked_next_power_of_two().unwrap_or(usize::MAX / 2 + 1);
        Symtab { slots: alloc::vec![(0, None); len], len: 0 }
    }

    fn mask(&self) -> usize {
        self.slots.len().saturating_sub(1)
    }

    /// Adds `name` under `hash` unless the hash already has a name: the first wins.
    fn insert(&mut self, hash: u64, name: &'a [u8]) {
        if self.len.saturating_mul(2) >= self.slots.len() {
            self.grow();
        }
        let mask = self.mask();
        let mut i = slot(hash, mask);
        while let Some(slot) = self.slots.get_mut(i) {
            match slot.1 {
                None => {
                    *slot = (hash, Some(name));
                    self.len = self.len.saturating_add(1);
                    return;
                }
                Some(_) if slot.0 == hash => return,
                Some(_) => i = i.wrapping_add(1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let len = self.slots.len().saturating_mul(2).max(16);
        let old = core::mem::replace(&mut self.slots, alloc::vec![(0, None); len]);
        let mask = self.mask();
        for (hash, name) in old.into_iter().filter(|s| s.1.is_some()) {
            let mut i = slot(hash, mask);
            while let Some(slot) = self.slots.get_mut(i) {
                if slot.1.is_none() {
                    *slot = (hash, name);
                    break;
                }
                i = i.wrapping_add(1) & mask;
            }
        }
    }

    pub fn get(&self, hash: u64) -> Option<&'a [u8]> {
        let mask = self.mask();
        let mut i = slot(hash, mask);
        loop {
            let &(h, name) = self.slots.get(i)?;
            if h == hash || name.is_none() {
                return name;
            }
            i = i.wrapping_add(1) & mask;
        }
    }
}

/// `InstrProfSymtab::getCanonicalName`: the name cut at the first `.` after any
/// `.__uniq.` part (so `.llvm.123` and `.cold` suffixes go, `.__uniq.N` stays).
pub fn canonical_name(name: &[u8]) -> &[u8] {
    const UNIQ: &[u8] = b".__uniq.";
    // Every candidate starts at a dot, and most names have none: look only there
    // (comparing every 8-byte window cost a `memcmp` call per byte of every name).
    let mut dots = name.iter().enumerate().filter(|&(_, &b)| b == b'.').map(|(p, _)| p);
    let Some(first) = dots.next() else { return name };
    let uniq = core::iter::once(first).chain(dots).find(|&p| name.get(p..).is_some_and(|rest| rest.starts_with(UNIQ)));
    let dot = match uniq {
        None => Some(first),
        Some(p) => {
            let from = p.saturating_add(UNIQ.len());
            name.get(from..).and_then(|rest| rest.iter().position(|&b| b == b'.')).map(|q| q.saturating_add(from))
        }
    };
    match dot {
        Some(p) if p != 0 => name.get(..p).unwrap_or(name),
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, hash: u64, counters: &[u64]) -> Function {
        Function { name: name.into(), hash, counters: counters.to_vec(), ..Function::default() }
    }

    #[test]
    fn merge_and_order() {
        let mut p = Profile::new(0, 10);
        let mut a = f("b", 2, &[1, 2]);
        a.sites[0] = alloc::vec![alloc::vec![ValueData { value: 9, count: 1 }, ValueData { value: 3, count: 1 }]];
        p.add(a.clone());
        p.add(f("a", 7, &[5]));
        p.add(a);
        p.add(f("b", 2, &[1]));
        p.finish();
        let names: Vec<_> = p.functions.iter().map(|f| (f.name.as_slice(), f.hash)).collect();
        assert_eq!(names, [(&b"a"[..], 7), (&b"b"[..], 2)]);
        let b = &p.functions[1];
        assert_eq!(b.counters, [2, 4]);
        // merged sites are value-ordered before the stable count sort
        assert_eq!(b.sites[0][0], [ValueData { value: 3, count: 2 }, ValueData { value: 9, count: 2 }]);
        assert_eq!(p.dropped, 1);
    }

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_name(b"foo.llvm.123"), b"foo");
        assert_eq!(canonical_name(b"foo.__uniq.456.llvm.1"), b"foo.__uniq.456");
        assert_eq!(canonical_name(b".foo"), b".foo");
        assert_eq!(canonical_name(b"main"), b"main");
        assert_eq!(canonical_name(b"foo.__uniq.456"), b"foo.__uniq.456");
        assert_eq!(canonical_name(b"a.b.__uniq.1.c"), b"a.b.__uniq.1");
        assert_eq!(canonical_name(b"x.__uniq."), b"x.__uniq.");
    }
}
