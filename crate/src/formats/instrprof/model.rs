//! The decoded instrumentation profile, whatever file it came from: raw, indexed,
//! or raw plus the instrumented binary (correlation).
//!
//! Records are kept the way `llvm-profdata merge` keeps them: one per (name,
//! function hash), sorted by name bytes then hash; a second record with the same
//! key is merged into the first (counters added, bitmaps or-ed, value data summed
//! per value), and every value site is ordered by descending count, ties in the
//! order the values arrived (`InstrProfWriter::addRecord`, `sortValueData`).

use alloc::collections::BTreeMap;
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
            for site in kind.iter_mut() {
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
    index: BTreeMap<(Vec<u8>, u64), usize>,
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

    /// Adds a record, merging it into an earlier one with the same name and hash.
    pub fn add(&mut self, mut function: Function) {
        let key = (function.name.clone(), function.hash);
        match self.index.get(&key).and_then(|&i| self.functions.get_mut(i)) {
            Some(existing) => {
                if existing.merge(function) {
                    existing.sort_value_data();
                } else {
                    self.dropped = self.dropped.saturating_add(1);
                }
            }
            None => {
                function.sort_value_data();
                self.index.insert(key, self.functions.len());
                self.functions.push(function);
            }
        }
    }

    /// Sorts the records by (name, hash); decoders call it once at the end.
    pub fn finish(&mut self) {
        self.functions.sort_by(|a, b| (&a.name, a.hash).cmp(&(&b.name, b.hash)));
        self.index = self.functions.iter().enumerate().map(|(i, f)| ((f.name.clone(), f.hash), i)).collect();
    }

    /// The record with this name and hash.
    pub fn function(&self, name: &[u8], hash: u64) -> Option<&Function> {
        self.index.get(&(name.to_vec(), hash)).and_then(|&i| self.functions.get(i))
    }

    /// A table from MD5 name hash to name, over every function name (and its
    /// canonical form) and, with `vtables`, every vtable name.
    pub fn symtab(&self, vtables: bool) -> Symtab<'_> {
        let mut map = BTreeMap::new();
        for f in &self.functions {
            map.entry(name_ref(&f.name)).or_insert(f.name.as_slice());
            let canonical = canonical_name(&f.name);
            if canonical.len() != f.name.len() {
                map.entry(name_ref(canonical)).or_insert(f.name.as_slice());
            }
        }
        if vtables {
            for v in &self.vtable_names {
                map.entry(name_ref(v)).or_insert(v.as_slice());
            }
        }
        Symtab { map }
    }
}

/// MD5 name hash → name.
pub struct Symtab<'a> {
    map: BTreeMap<u64, &'a [u8]>,
}

impl<'a> Symtab<'a> {
    pub fn get(&self, hash: u64) -> Option<&'a [u8]> {
        self.map.get(&hash).copied()
    }
}

/// `InstrProfSymtab::getCanonicalName`: the name cut at the first `.` after any
/// `.__uniq.` part (so `.llvm.123` and `.cold` suffixes go, `.__uniq.N` stays).
pub fn canonical_name(name: &[u8]) -> &[u8] {
    const UNIQ: &[u8] = b".__uniq.";
    let from = name.windows(UNIQ.len()).position(|w| w == UNIQ).map_or(0, |p| p.saturating_add(UNIQ.len()));
    let dot = name.get(from..).and_then(|rest| rest.iter().position(|&b| b == b'.')).map(|p| p.saturating_add(from));
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
    }
}
