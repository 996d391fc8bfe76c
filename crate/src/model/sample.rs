//! Views over a decoded sample profile ([`crate::formats::sample::model`]): its
//! summary, function table, and inline trees.

use alloc::vec::Vec;

use hashbrown::HashMap;

use crate::formats::sample::model::{Callsite, FunctionSamples, NameId, Names, Profile, MAX_DEPTH};
use crate::summary::{Summary, SummaryBuilder};

/// `ContextDuplicatedIntoBase`: an inlinee whose samples were also merged into its
/// base profile, so the summary does not count them again.
const CONTEXT_DUPLICATED_INTO_BASE: u32 = 0x4;

/// The profile's summary as `llvm-profdata show --sample --detailed-summary`
/// computes it (`SampleProfileSummaryBuilder::computeSummaryForProfiles`):
///
/// - every top-level function is a function, its head samples its function count;
/// - every body count, inlinees' included, is a block (an inlinee marked
///   `ContextDuplicatedIntoBase` is skipped with its own inlinees);
/// - a context-sensitive profile is first merged by leaf function
///   (`ProfileConverter::flattenProfile`), as LLVM does by default; a context whose
///   checksum differs from the one merged before is left out (when a function's
///   contexts disagree, LLVM keeps whichever its hash map visits first; here, the
///   first in the profile);
/// - the total wraps at 2^64, as LLVM's `uint64_t` does.
pub fn summary(profile: &Profile) -> Summary {
    let mut builder = SummaryBuilder::new();
    if profile.kind.context_sensitive {
        for f in merge_by_leaf(profile) {
            add_function(&mut builder, &f);
        }
    } else {
        for f in &profile.functions {
            add_function(&mut builder, f);
        }
    }
    builder.finish_wrapping()
}

/// `SampleProfileSummaryBuilder::addRecord` over a function and its inlinees.
fn add_function(builder: &mut SummaryBuilder, top: &FunctionSamples) {
    builder.add_function_head(top.head);
    let mut stack = alloc::vec![top];
    while let Some(f) = stack.pop() {
        for b in &f.body {
            builder.add_block_count(b.samples);
        }
        let counted = f.callsites.iter().map(|c| &c.callee);
        stack.extend(counted.filter(|c| c.attributes & CONTEXT_DUPLICATED_INTO_BASE == 0));
    }
}

/// The CS profile's contexts merged into one profile per leaf function, in order of
/// first appearance.
fn merge_by_leaf(profile: &Profile) -> Vec<FunctionSamples> {
    let mut merged: Vec<FunctionSamples> = Vec::new();
    let mut by_name: HashMap<NameId, usize> = HashMap::new();
    for f in &profile.functions {
        let i = *by_name.entry(f.name).or_insert_with(|| {
            merged.push(FunctionSamples { name: f.name, ..FunctionSamples::default() });
            merged.len().saturating_sub(1)
        });
        if let Some(into) = merged.get_mut(i) {
            merge(into, f, &profile.names, 0);
        }
    }
    merged
}

/// LLVM's `FunctionSamples::merge`, as far as the summary reads it: a profile whose
/// checksum differs from a non-zero one already there is dropped (`hash_mismatch`);
/// a new inlinee takes the attributes of the first profile merged into it. Call
/// targets and vtables are left out. Recursion follows inline nesting, which
/// decoders bound by [`MAX_DEPTH`].
fn merge(into: &mut FunctionSamples, other: &FunctionSamples, names: &Names, depth: usize) {
    match into.checksum {
        None => into.checksum = other.checksum,
        Some(hash) if other.checksum != Some(hash) => return,
        Some(_) => {}
    }
    into.total = into.total.saturating_add(other.total);
    into.head = into.head.saturating_add(other.head);
    for b in &other.body {
        into.add_body(b.location, b.samples, Vec::new());
    }
    if depth >= MAX_DEPTH {
        return;
    }
    for c in &other.callsites {
        let found = into
            .callsites
            .binary_search_by(|x| x.location.cmp(&c.location).then_with(|| names.cmp(x.callee.name, c.callee.name)));
        let i = found.unwrap_or_else(|i| {
            let callee =
                FunctionSamples { name: c.callee.name, attributes: c.callee.attributes, ..FunctionSamples::default() };
            into.callsites.insert(i, Callsite { location: c.location, callee });
            i
        });
        if let Some(x) = into.callsites.get_mut(i) {
            merge(&mut x.callee, &c.callee, names, depth.saturating_add(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::sample::decode_text::decode;

    #[test]
    fn inlinee_bodies_are_blocks_and_heads_are_function_counts() {
        let p =
            decode(b"main:100:7\n 1: 10\n 2: foo:90\n  1: 90\n  2: bar:5\n   1: 5\n   !Attributes: 4\nf:3:9\n 1: 3\n")
                .unwrap();
        let s = summary(&p);
        assert_eq!((s.num_functions, s.max_function_count, s.num_counts, s.total_count), (2, 9, 3, 103));
        assert_eq!((s.max_count, s.max_internal_count), (90, 0));
    }

    #[test]
    fn cs_contexts_merge_by_leaf_and_checksums_must_agree() {
        let text = b"[a:1 @ f]:10:6\n 1: 10\n !CFGChecksum: 5\n[b:2 @ f]:20:4\n 1: 20\n !CFGChecksum: 5\n\
[c:3 @ f]:30:1\n 1: 30\n !CFGChecksum: 6\n[g]:1:1\n 1: 1\n !CFGChecksum: 1\n";
        let s = summary(&decode(text).unwrap());
        // f's first two contexts merge (head 10, one block of 30); the third's checksum differs.
        assert_eq!((s.num_functions, s.max_function_count, s.num_counts, s.total_count), (2, 10, 2, 31));
    }
}
