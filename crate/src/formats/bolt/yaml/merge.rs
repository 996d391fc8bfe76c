//! `merge-fdata` (LLVM 22) on YAML profiles: the first header merged with the
//! others' (names, build ids and DFS order kept from the first, flags or-ed,
//! origins joined with `; `, differing events joined with `,`, hash functions
//! required equal), functions matched by name and
//! checked (block count, id, hash), counts summed block by block, successor by
//! successor and call site by call site; what only a later input has appended.
//! The output is sorted by function id and, as merge-fdata's, has no
//! `pseudo_probe_desc`.
//!
//! Call sites a later input adds come out in the order merge-fdata's
//! `std::unordered_map<uint32_t, ...>` iterates them (libstdc++, which Debian's
//! bolt-22 is built with); [`StdUnorderedOrder`] reproduces that order.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;

use hashbrown::HashMap;

use super::std_order::{std_sort_by, string_map_order, StdUnorderedOrder};
use super::{Block, BlockExtra, CallSite, Function, Header, ProbeSet, Profile, ProfileFlags, Span, Successor};

/// Why merge-fdata would stop (it exits with these messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// `Unable to merge data from profile using version N`.
    Version { input: usize, version: u32 },
    /// `cannot merge brstack profile with non-brstack profile`.
    MixedModes { input: usize },
    /// `'merge conflict': cannot merge profiles with different hash functions`.
    HashFunctions { input: usize },
    /// `'NAME': ...` or `'NAME : BB #N': ...` (`what` is merge-fdata's text).
    Mismatch { input: usize, function: Vec<u8>, block: Option<u32>, what: &'static str },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Version { input, version } => {
                write!(
                    f,
                    "input {}: Unable to merge data from profile using version {version}",
                    input.saturating_add(1)
                )
            }
            MergeError::MixedModes { input } => {
                write!(f, "input {}: cannot merge brstack profile with non-brstack profile", input.saturating_add(1))
            }
            MergeError::HashFunctions { input } => write!(
                f,
                "input {}: 'merge conflict': cannot merge profiles with different hash functions",
                input.saturating_add(1)
            ),
            MergeError::Mismatch { input, function, block, what } => {
                let name = alloc::string::String::from_utf8_lossy(function);
                match block {
                    Some(b) => write!(f, "input {}: '{name} : BB #{b}': {what}", input.saturating_add(1)),
                    None => write!(f, "input {}: '{name}': {what}", input.saturating_add(1)),
                }
            }
        }
    }
}

/// A block being merged, with its own lists.
struct MergedBlock {
    block: Block,
    /// `events`.
    events: u64,
    calls: Vec<CallSite>,
    successors: Vec<Successor>,
    /// (block probe ids, inline tree nodes) of each probe set, kept from the first input.
    probes: Vec<(Vec<u64>, Vec<u32>)>,
}

struct MergedFunction<'a> {
    function: Function<'a>,
    blocks: Vec<MergedBlock>,
    inline_tree: Vec<super::InlineTreeNode>,
}

/// Block `b`, `index` in `p`'s blocks, to be merged.
fn merged_block(p: &Profile<'_>, b: &Block, index: usize) -> MergedBlock {
    let extra = p.extra_of(index);
    MergedBlock {
        block: *b,
        events: extra.events,
        calls: p.calls_of(b).to_vec(),
        successors: p.successors_of(b).to_vec(),
        probes: p
            .probes_of(&extra)
            .iter()
            .map(|s| (p.probe_ids_of(s).to_vec(), p.probe_nodes_of(s).to_vec()))
            .collect(),
    }
}

/// Merges profiles as merge-fdata does.
pub fn merge<'a>(inputs: &[Profile<'a>]) -> Result<Profile<'a>, MergeError> {
    let mut header = Header::default();
    let mut merged: Vec<MergedFunction<'a>> = Vec::new();
    let mut by_name: HashMap<Cow<'a, [u8]>, usize> = HashMap::new();
    for (input, p) in inputs.iter().enumerate() {
        if p.header.version != 1 {
            return Err(MergeError::Version { input, version: p.header.version });
        }
        if input == 0 {
            header = p.header.clone();
        } else {
            merge_header(&mut header, &p.header, input)?;
        }
        for f in &p.functions {
            match by_name.get(&f.name) {
                None => {
                    by_name.insert(f.name.clone(), merged.len());
                    merged.push(MergedFunction {
                        function: f.clone(),
                        blocks: p.indexed_blocks_of(f).map(|(i, b)| merged_block(p, b, i)).collect(),
                        inline_tree: p.inline_tree_of(f).to_vec(),
                    });
                }
                Some(&at) => {
                    if let Some(m) = merged.get_mut(at) {
                        merge_function(m, p, f, input)?;
                    }
                }
            }
        }
    }
    // merge-fdata copies its StringMap out and std::sorts it by id: functions
    // known under several names share an id, so both orders show in the output.
    let names: Vec<&[u8]> = merged.iter().map(|m| &*m.function.name).collect();
    let order = string_map_order(&names);
    let mut slots: Vec<Option<MergedFunction<'a>>> = merged.into_iter().map(Some).collect();
    let mut merged: Vec<MergedFunction<'a>> =
        order.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)).collect();
    std_sort_by(&mut merged, &|a: &MergedFunction<'_>, b: &MergedFunction<'_>| a.function.id < b.function.id);
    let mut out = Profile { header, ..Profile::default() };
    for m in merged {
        let mut f = m.function;
        let first_block = out.blocks.len();
        for mb in m.blocks {
            let mut b = mb.block;
            let at = out.calls.len();
            out.calls.extend(mb.calls);
            b.calls = Span::since(at, &out.calls);
            let at = out.successors.len();
            out.successors.extend(mb.successors);
            b.successors = Span::since(at, &out.successors);
            let at = out.probes.len();
            for (ids, nodes) in mb.probes {
                let i = out.probe_ids.len();
                out.probe_ids.extend(ids);
                let n = out.probe_nodes.len();
                out.probe_nodes.extend(nodes);
                out.probes.push(ProbeSet {
                    block_probes: Span::since(i, &out.probe_ids),
                    inline_nodes: Span::since(n, &out.probe_nodes),
                });
            }
            let block = u32::try_from(out.blocks.len()).unwrap_or(u32::MAX);
            let extra = BlockExtra { block, events: mb.events, probes: Span::since(at, &out.probes) };
            if !extra.is_empty() {
                out.block_extras.push(extra);
            }
            out.blocks.push(b);
        }
        f.blocks = Span::since(first_block, &out.blocks);
        let at = out.inline_tree.len();
        out.inline_tree.extend(m.inline_tree);
        f.inline_tree = Span::since(at, &out.inline_tree);
        out.functions.push(f);
    }
    Ok(out)
}

/// `mergeProfileHeaders`: the first input's header merged with a later one's.
fn merge_header<'a>(merged: &mut Header<'a>, h: &Header<'a>, input: usize) -> Result<(), MergeError> {
    if merged.binary_name.is_empty() {
        merged.binary_name = h.binary_name.clone();
    }
    if merged.build_id.is_empty() {
        merged.build_id = h.build_id.clone();
    }
    if merged.flags.0 == 0 {
        merged.flags = h.flags;
    }
    let mask = ProfileFlags::BRANCH | ProfileFlags::BASIC;
    if merged.flags.0 & mask != h.flags.0 & mask {
        return Err(MergeError::MixedModes { input });
    }
    merged.flags.0 |= h.flags.0;
    if !h.origin.is_empty() {
        if merged.origin.is_empty() {
            merged.origin = h.origin.clone();
        } else if merged.origin != h.origin {
            let mut joined = merged.origin.to_vec();
            joined.extend_from_slice(b"; ");
            joined.extend_from_slice(&h.origin);
            merged.origin = Cow::Owned(joined);
        }
    }
    if merged.events.is_empty() {
        merged.events = h.events.clone();
    }
    if merged.events != h.events {
        let mut joined = merged.events.to_vec();
        joined.push(b',');
        joined.extend_from_slice(&h.events);
        merged.events = Cow::Owned(joined);
    }
    if merged.hash_function != h.hash_function {
        return Err(MergeError::HashFunctions { input });
    }
    Ok(())
}

fn mismatch(input: usize, f: &Function<'_>, block: Option<u32>, what: &'static str) -> MergeError {
    MergeError::Mismatch { input, function: f.name.to_vec(), block, what }
}

/// `mergeFunctionProfile`.
fn merge_function(
    m: &mut MergedFunction<'_>,
    p: &Profile<'_>,
    f: &Function<'_>,
    input: usize,
) -> Result<(), MergeError> {
    if f.block_count != m.function.block_count {
        return Err(mismatch(input, f, None, "number of basic blocks mismatch"));
    }
    if f.id != m.function.id {
        return Err(mismatch(input, f, None, "ID mismatch"));
    }
    if f.hash != m.function.hash {
        return Err(mismatch(input, f, None, "hash mismatch"));
    }
    m.function.exec = m.function.exec.wrapping_add(f.exec);
    let count = f.block_count as usize;
    // Indexed by block id: bounded by nblocks, which is checked against the blocks
    // read (each costs input bytes) before the table is made.
    let blocks = p.blocks_of(f);
    if let Some(b) = blocks.iter().find(|b| b.index as usize >= count) {
        return Err(mismatch(input, f, Some(b.index), "bad basic block index"));
    }
    let mut by_index: HashMap<u32, (usize, &Block)> = HashMap::with_capacity(blocks.len());
    for (i, b) in p.indexed_blocks_of(f) {
        by_index.insert(b.index, (i, b));
    }
    for mb in &mut m.blocks {
        let Some((i, b)) = by_index.remove(&mb.block.index) else { continue };
        merge_block(mb, p, b, i, &m.function, input)?;
    }
    let mut rest: Vec<(usize, &Block)> = by_index.into_values().collect();
    rest.sort_by_key(|(_, b)| b.index);
    m.blocks.extend(rest.into_iter().map(|(i, b)| merged_block(p, b, i)));
    Ok(())
}

/// `mergeBasicBlockProfile`: block `b` of `p` (`index` in its blocks) into `mb`.
fn merge_block(
    mb: &mut MergedBlock,
    p: &Profile<'_>,
    b: &Block,
    index: usize,
    f: &Function<'_>,
    input: usize,
) -> Result<(), MergeError> {
    if b.instructions != mb.block.instructions {
        return Err(mismatch(input, f, Some(b.index), "number of instructions in block mismatch"));
    }
    if b.hash != mb.block.hash {
        return Err(mismatch(input, f, Some(b.index), "basic block hash mismatch"));
    }
    mb.block.exec = mb.block.exec.wrapping_add(b.exec);
    mb.events = mb.events.wrapping_add(p.extra_of(index).events);

    // Call sites by offset, the first of an offset kept (`emplace`).
    let calls = p.calls_of(b);
    let mut by_offset = StdUnorderedOrder::default();
    for (i, c) in calls.iter().enumerate() {
        by_offset.emplace(c.offset, i);
    }
    for mc in &mut mb.calls {
        let Some(i) = by_offset.find(mc.offset) else { continue };
        let Some(c) = calls.get(i) else { continue };
        if (c.offset, c.callee, c.entry_discriminator) != (mc.offset, mc.callee, mc.entry_discriminator) {
            continue;
        }
        mc.count = mc.count.wrapping_add(c.count);
        mc.mispredicts = mc.mispredicts.wrapping_add(c.mispredicts);
        by_offset.erase(mc.offset);
    }
    mb.calls.extend(by_offset.iter().filter_map(|i| calls.get(i).copied()));

    // Successors by index, the last of an index kept.
    let count = f.block_count as usize;
    let successors = p.successors_of(b);
    if successors.iter().any(|s| s.index as usize >= count) {
        return Err(mismatch(input, f, None, "bad successor index"));
    }
    let mut by_index: HashMap<u32, &Successor> = HashMap::with_capacity(successors.len());
    for s in successors {
        by_index.insert(s.index, s);
    }
    for ms in &mut mb.successors {
        if let Some(s) = by_index.remove(&ms.index) {
            ms.count = ms.count.wrapping_add(s.count);
            ms.mispredicts = ms.mispredicts.wrapping_add(s.mispredicts);
        }
    }
    let mut rest: Vec<&Successor> = by_index.into_values().collect();
    rest.sort_by_key(|s| s.index);
    mb.successors.extend(rest.into_iter().copied());
    Ok(())
}
