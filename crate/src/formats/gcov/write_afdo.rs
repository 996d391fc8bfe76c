//! The [`Profile`] model as google/autofdo's `create_gcov` writes it
//! (`AutoFDOProfileWriter` in `profile_writer.cc`): by default the GCOV v3 layout
//! under the "*704" version word, little-endian (the layout is in [`super::afdo`]).
//!
//! What create_gcov decides and how we follow it:
//! - top-level functions in name order (its `std::map` of symbols), each followed by
//!   its inlined callees depth-first; positions in location order; callsites by
//!   location, then callee name; call targets in name order;
//! - the name table: "" at index 0 and every name the functions use (functions,
//!   inlined callees, call targets), in byte order, with the GCC bug 64346
//!   workaround applied to what is written (`…C4Ev`/`…D4Ev`/`…C4EPKc`/`…C4EPKcRKS2_`
//!   become `…C2…`/`…D2…`);
//! - v3: the file table lists each function's file in first-visit order, and each
//!   name points at the file of the last function of that name visited, or
//!   0xffffffff when it has none (names from LLVM formats have none);
//! - the FILE_NAMES length word counts the name table as if strings were
//!   word-padded (+1), the FUNCTION length word leaves out v3 timestamps (+1), as
//!   create_gcov computes them;
//! - the v3 summary is create_gcov's `ProfileSummaryComputer` (every position count,
//!   head counts as function counts, LLVM's default cutoffs);
//! - MODULE_GROUPING is length 0, no modules; AFDO_WORKING_SET holds 128 entries,
//!   computed as `SymbolMap::ComputeWorkingSets` does with one instruction per
//!   position (what autofdo's own reader records for a read profile).
//!
//! Not representable, hence not written: CS contexts (each context becomes a
//! top-level record of its leaf function), probe checksums, attributes and vtable
//! counts; lines and discriminators keep 16 bits each. create_gcov drops functions
//! under its sample threshold when converting perf data; we write every function.
//!
//! [`Options`] can write the other layouts and what autofdo 0.19 wrote, so that a
//! decoded file can be written back byte for byte ([`Options::reproducing`]).

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use hashbrown::HashMap;

use super::afdo::{
    compressed_offset, FileInfo, Layout, WorkingSet, HIST_TYPE_INDIR_CALL_TOPN, MAGIC, NO_FILE, NUM_WORKING_SETS,
    TAG_FILE_NAMES, TAG_FUNCTION, TAG_MODULE_GROUPING, TAG_SUMMARY, TAG_WORKING_SET, VERSION_704,
};
use crate::formats::sample::model::{FunctionSamples, LineLocation, NameId, Profile};
use crate::read::Endian;
use crate::summary::SummaryBuilder;

/// What to write besides the profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub endian: Endian,
    pub version: u32,
    pub layout: Layout,
    /// The words after the MODULE_GROUPING tag: `[0, 0]` (length 0, no modules) as
    /// create_gcov writes them today; autofdo 0.19 wrote `[1, 0]`.
    pub module_grouping: Vec<u32>,
    /// The working set to write; `None` computes it (see the module doc).
    pub working_set: Option<Vec<WorkingSet>>,
}

impl Default for Options {
    /// create_gcov's defaults: "*704", the v3 layout, little-endian.
    fn default() -> Self {
        Options {
            endian: Endian::Little,
            version: VERSION_704,
            layout: Layout::V3,
            module_grouping: alloc::vec![0, 0],
            working_set: None,
        }
    }
}

impl Options {
    /// The options that write a decoded file back as it was: its byte order, version
    /// word, layout, module grouping and working set.
    pub fn reproducing(file: &FileInfo) -> Options {
        Options {
            endian: file.endian,
            version: file.version,
            layout: file.layout,
            module_grouping: file.module_grouping.clone().unwrap_or_else(|| alloc::vec![0, 0]),
            working_set: file.working_set.clone(),
        }
    }
}

/// Appends the profile to `out` as create_gcov writes it by default.
pub fn write(profile: &Profile, out: &mut Vec<u8>) {
    write_with(profile, &Options::default(), out);
}

/// `WORKING_SET_INSN_PER_BB`: create_gcov counts instructions, GCC basic blocks.
const INSN_PER_BB: u32 = 10;
/// The working sets split the total into this many buckets.
const BUCKETS: u64 = NUM_WORKING_SETS as u64 + 1;

/// Appends the profile to `out` in the layout `options` ask for.
pub fn write_with(profile: &Profile, options: &Options, out: &mut Vec<u8>) {
    let names = &profile.names;
    let v3 = options.layout.v3;
    let mut top: Vec<&FunctionSamples> = profile.functions.iter().collect();
    top.sort_by(|a, b| names.bytes(a.name).cmp(&names.bytes(b.name)));

    // Every name written, and (v3) the files of the functions.
    let mut used = alloc::vec![false; names.len()];
    let mut mark = |id: NameId| {
        if let Some(u) = usize::try_from(id.0).ok().and_then(|i| used.get_mut(i)) {
            *u = true;
        }
    };
    let mut files = FileTable::default();
    for &f in &top {
        traverse(f, |_, s| {
            mark(s.name);
            s.body.iter().flat_map(|b| &b.calls).for_each(|c| mark(c.name));
            if v3 {
                files.add(profile, s.name);
            }
        });
    }
    let mut table: BTreeMap<Cow<'_, [u8]>, u32> = BTreeMap::new();
    table.insert(Cow::Borrowed(&b""[..]), 0);
    for (id, _) in names.iter().filter(|(id, _)| used.get(id.0 as usize).copied().unwrap_or(false)) {
        table.insert(names.bytes(id), 0);
    }
    for (i, index) in table.values_mut().enumerate() {
        *index = u32::try_from(i).unwrap_or(u32::MAX);
    }
    let index_of: Vec<u32> = names.iter().map(|(id, _)| table.get(&names.bytes(id)).copied().unwrap_or(0)).collect();
    let index = |id: NameId| usize::try_from(id.0).ok().and_then(|i| index_of.get(i)).copied().unwrap_or(0);

    let mut w = Writer { out, endian: options.endian, byte_strings: options.layout.byte_strings };
    w.word(MAGIC);
    w.word(options.version);
    w.word(0);

    if v3 {
        let mut builder = SummaryBuilder::new();
        let mut max_function_count = 0u64;
        for &f in &top {
            max_function_count = max_function_count.max(f.head);
            traverse(f, |_, s| s.body.iter().for_each(|b| builder.add_internal_count(b.samples)));
        }
        let summary = builder.finish();
        w.word(TAG_SUMMARY);
        w.counter(u64::try_from(summary.total_count).unwrap_or(u64::MAX));
        w.counter(summary.max_count);
        w.counter(max_function_count);
        w.counter(summary.num_counts);
        w.counter(top.len() as u64);
        w.counter(summary.detailed.len() as u64);
        for entry in &summary.detailed {
            w.word(entry.cutoff);
            w.counter(entry.min_count);
            w.counter(entry.num_counts);
        }
    }

    w.word(TAG_FILE_NAMES);
    let length = table.keys().fold(1u32, |sum, name| {
        let words = u32::try_from(name.len().saturating_add(4) / 4).unwrap_or(u32::MAX);
        sum.wrapping_add(words).wrapping_add(1)
    });
    w.word(length);
    if v3 {
        w.word(len32(files.files.len()));
        for file in &files.files {
            w.string(file);
        }
    }
    w.word(len32(table.len()));
    for name in table.keys() {
        w.string(&gcc_bug_64346(name));
        if v3 {
            w.word(files.by_name.get(name.as_ref()).copied().unwrap_or(NO_FILE));
        }
    }

    w.word(TAG_FUNCTION);
    let mut length = 1u32;
    for &f in &top {
        traverse(f, |_, s| {
            let targets = s.body.iter().map(|b| b.calls.len()).fold(0usize, usize::saturating_add);
            let words = 3usize
                .saturating_add(s.body.len().saturating_mul(4))
                .saturating_add(s.callsites.len())
                .saturating_add(targets.saturating_mul(5));
            length = length.wrapping_add(len32(words));
        });
        length = length.wrapping_add(2);
    }
    w.word(length);
    w.word(len32(top.len()));
    for &f in &top {
        w.counter(f.head);
        if v3 {
            w.counter(f.timestamp);
        }
        traverse(f, |callsite, s| {
            if let Some(location) = callsite {
                w.word(compressed_offset(location));
            }
            w.word(index(s.name));
            w.word(len32(s.body.len()));
            w.word(len32(s.callsites.len()));
            for b in &s.body {
                w.word(compressed_offset(b.location));
                w.word(len32(b.calls.len()));
                w.counter(b.samples);
                let mut calls: Vec<_> = b.calls.iter().map(|c| (names.bytes(c.name), c)).collect();
                calls.sort_by(|a, b| a.0.cmp(&b.0));
                for (_, call) in calls {
                    w.word(HIST_TYPE_INDIR_CALL_TOPN);
                    w.counter(u64::from(index(call.name)));
                    w.counter(call.count);
                }
            }
        });
    }

    w.word(TAG_MODULE_GROUPING);
    options.module_grouping.iter().for_each(|&word| w.word(word));

    let computed;
    let sets = match &options.working_set {
        Some(sets) => sets.as_slice(),
        None => {
            computed = working_sets(&top);
            computed.as_slice()
        }
    };
    w.word(TAG_WORKING_SET);
    w.word(len32(sets.len().saturating_mul(3)));
    for set in sets {
        w.word(set.num_counters);
        w.counter(set.min_counter);
    }
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// create_gcov's `SymbolTraverser`: `visit(None, f)`, then for each callsite in order
/// `visit(Some(location), callee)` and the callee's own callsites, depth-first
/// (an explicit stack: no recursion on the model's nesting).
fn traverse<'p>(f: &'p FunctionSamples, mut visit: impl FnMut(Option<LineLocation>, &'p FunctionSamples)) {
    visit(None, f);
    let mut stack = alloc::vec![f.callsites.iter()];
    while let Some(callsites) = stack.last_mut() {
        match callsites.next() {
            Some(c) => {
                visit(Some(c.location), &c.callee);
                stack.push(c.callee.callsites.iter());
            }
            None => {
                stack.pop();
            }
        }
    }
}

/// create_gcov's `FileIndexMap`: files in first-visit order, and each name's file.
#[derive(Default)]
struct FileTable<'p> {
    files: Vec<&'p [u8]>,
    by_file: HashMap<&'p [u8], u32>,
    by_name: HashMap<Vec<u8>, u32>,
}

impl<'p> FileTable<'p> {
    fn add(&mut self, profile: &'p Profile, name: NameId) {
        let file = profile.names.get(name).and_then(|e| e.file);
        let Some(file) = file.and_then(|f| usize::try_from(f).ok()).and_then(|f| profile.files.get(f)) else {
            return;
        };
        let next = len32(self.files.len());
        let index = *self.by_file.entry(file.as_slice()).or_insert(next);
        if index == next {
            self.files.push(file);
        }
        self.by_name.insert(profile.names.bytes(name).into_owned(), index);
    }
}

/// The GCC bug 64346 workaround: constructors and destructors GCC never emits
/// (`C4`/`D4`) are written as their complete-object variant (`C2`/`D2`).
fn gcc_bug_64346(name: &[u8]) -> Cow<'_, [u8]> {
    // create_gcov works on the C string.
    let name = name.split(|&b| b == 0).next().unwrap_or(name);
    let len = name.len();
    let digit = if len > 5 && (name.ends_with(b"D4Ev") || name.ends_with(b"C4Ev")) {
        len.checked_sub(3)
    } else if len > 7 && name.ends_with(b"C4EPKc") {
        len.checked_sub(5)
    } else if len > 12 && name.ends_with(b"C4EPKcRKS2_") {
        len.checked_sub(10)
    } else {
        None
    };
    match digit {
        Some(at) => {
            let mut renamed = name.to_vec();
            if let Some(d) = renamed.get_mut(at) {
                *d = b'2';
            }
            Cow::Owned(renamed)
        }
        None => Cow::Borrowed(name),
    }
}

/// `SymbolMap::ComputeWorkingSets` over the top-level functions with samples, one
/// instruction per position; the counters written are divided by
/// `WORKING_SET_INSN_PER_BB`. Arithmetic wraps as create_gcov's unsigned does.
fn working_sets(top: &[&FunctionSamples]) -> Vec<WorkingSet> {
    let mut histogram: BTreeMap<u64, u64> = BTreeMap::new();
    let mut total = 0u64;
    for &f in top.iter().filter(|f| f.total != 0) {
        traverse(f, |_, s| {
            for b in &s.body {
                let n = histogram.entry(b.samples).or_insert(0);
                *n = n.wrapping_add(1);
                total = total.wrapping_add(b.samples);
            }
        });
    }
    let mut sets = alloc::vec![(0u64, 0u64); NUM_WORKING_SETS];
    let one_bucket = total / BUCKETS;
    let mut bucket = 0usize;
    let (mut count_sum, mut insts) = (0u64, 0u64);
    for (&count, &n) in histogram.iter().rev() {
        if bucket >= NUM_WORKING_SETS {
            break;
        }
        let mut n = n;
        loop {
            let limit = one_bucket.wrapping_mul(bucket.saturating_add(1) as u64);
            if bucket >= NUM_WORKING_SETS || count.wrapping_mul(n).wrapping_add(count_sum) <= limit {
                break;
            }
            // create_gcov divides by the count here; a zero count would trap there.
            let Some(step) = limit.wrapping_sub(count_sum).checked_div(count) else { break };
            insts = insts.wrapping_add(step);
            count_sum = count_sum.wrapping_add(step.wrapping_mul(count));
            n = n.wrapping_sub(step);
            if let Some(set) = sets.get_mut(bucket) {
                *set = (insts, count);
            }
            bucket = bucket.saturating_add(1);
        }
        insts = insts.wrapping_add(n);
        count_sum = count_sum.wrapping_add(n.wrapping_mul(count));
    }
    sets.into_iter()
        .map(|(insts, min_counter)| {
            // `num_counters` is a 32-bit field.
            let stored = u32::try_from(insts & u64::from(u32::MAX)).unwrap_or(u32::MAX);
            WorkingSet { num_counters: stored / INSN_PER_BB, min_counter }
        })
        .collect()
}

struct Writer<'o> {
    out: &'o mut Vec<u8>,
    endian: Endian,
    byte_strings: bool,
}

impl Writer<'_> {
    fn word(&mut self, v: u32) {
        match self.endian {
            Endian::Little => self.out.extend_from_slice(&v.to_le_bytes()),
            Endian::Big => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }

    /// Two words, low first.
    fn counter(&mut self, v: u64) {
        self.word(u32::try_from(v & u64::from(u32::MAX)).unwrap_or(u32::MAX));
        self.word(u32::try_from(v >> 32).unwrap_or(u32::MAX));
    }

    /// `gcov_write_string`: v1 a word count and NUL-padded words, v2+ a byte count
    /// including the NUL, then the bytes and the NUL.
    fn string(&mut self, s: &[u8]) {
        let s = s.split(|&b| b == 0).next().unwrap_or(s);
        if self.byte_strings {
            self.word(len32(s.len().saturating_add(1)));
            self.out.extend_from_slice(s);
            self.out.push(0);
        } else {
            let words = s.len().saturating_add(4) / 4;
            self.word(len32(words));
            self.out.extend_from_slice(s);
            let padding = words.saturating_mul(4).saturating_sub(s.len());
            self.out.extend(core::iter::repeat_n(0u8, padding));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcc_bug_64346_workaround() {
        assert_eq!(gcc_bug_64346(b"_ZN1AD4Ev").as_ref(), b"_ZN1AD2Ev");
        assert_eq!(gcc_bug_64346(b"_ZN1AC4Ev").as_ref(), b"_ZN1AC2Ev");
        assert_eq!(gcc_bug_64346(b"_ZN1AC4EPKc").as_ref(), b"_ZN1AC2EPKc");
        assert_eq!(gcc_bug_64346(b"_ZN1AC4EPKcRKS2_").as_ref(), b"_ZN1AC2EPKcRKS2_");
        // too short for the rule
        assert_eq!(gcc_bug_64346(b"AD4Ev").as_ref(), b"AD4Ev");
        assert_eq!(gcc_bug_64346(b"main").as_ref(), b"main");
    }

    #[test]
    fn strings_in_both_layouts() {
        let mut out = Vec::new();
        let mut w = Writer { out: &mut out, endian: Endian::Little, byte_strings: false };
        w.string(b"");
        w.string(b"main");
        assert_eq!(out, [1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, b'm', b'a', b'i', b'n', 0, 0, 0, 0]);
        let mut out = Vec::new();
        let mut w = Writer { out: &mut out, endian: Endian::Big, byte_strings: true };
        w.string(b"f");
        w.counter(0x1_0000_0002);
        assert_eq!(out, [0, 0, 0, 2, b'f', 0, 0, 0, 0, 2, 0, 0, 0, 1]);
    }

    #[test]
    fn working_set_buckets() {
        // One function, counts 258 and 129: total 387, 3 per bucket.
        let mut f = FunctionSamples { total: 387, ..FunctionSamples::default() };
        f.add_body(LineLocation { line: 1, discriminator: 0 }, 258, Vec::new());
        f.add_body(LineLocation { line: 2, discriminator: 0 }, 129, Vec::new());
        let sets = working_sets(&[&f]);
        assert_eq!(sets.len(), 128);
        // The 258 fills buckets 0..85 with no instruction taken (258 > 3 × 85), then
        // the 129 the rest, one instruction in (1 / 10 blocks written).
        assert!(sets[..85].iter().all(|s| *s == WorkingSet { num_counters: 0, min_counter: 258 }));
        assert!(sets[85..].iter().all(|s| *s == WorkingSet { num_counters: 0, min_counter: 129 }));
    }
}
