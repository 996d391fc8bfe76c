//! BOLT profiles as the views take them: one function's control-flow graph with
//! its block and edge counts ([`Cfg`]), and the numbers of a function table row
//! ([`FunctionNumbers`]).
//!
//! A YAML profile holds the graph itself (blocks by index, successors with counts).
//! An fdata profile holds branches between offsets: with the binary, its blocks
//! come from the disassembly (as perf2bolt builds them) and the branches are
//! attached to them as llvm-bolt 22 attaches them (`DataReader::readProfile`,
//! `recordBranch`, `BinaryFunction::postProcessProfile`): entry counts on entry
//! blocks, each block's count the sum of the edges into it, raised to its largest
//! edge and direct call (`-fix-block-counts`). [`Cfg::flow_gaps`] measures how far
//! the counts are from conserving flow, as llvm-bolt's profile quality stats do. Edges the profile has
//! no count for stay without one ([`Edge::count`] is `None`); [`Cfg::infer_fall_throughs`]
//! fills fall-throughs from flow, marked as inferred.

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::OnceCell;

use crate::formats::bolt::fdata::{Fdata, SymbolKind};
use crate::formats::bolt::yaml;
use crate::formats::perf::perf2bolt::binary::Binary;
use crate::formats::perf::perf2bolt::cfg;
use crate::model::functions::{ids_by_key, none_lowest};

/// One basic block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// Offset in the input function, when known (from the binary).
    pub offset: Option<u64>,
    pub instructions: Option<u32>,
    pub exec_count: u64,
    /// The block is entered from outside the function (entry point, landing pad).
    pub entry: bool,
    /// The landing pads its calls throw to (from the binary's LSDAs).
    pub landing_pads: Vec<u32>,
    /// Its last instruction calls its own function (from the binary: a profile
    /// does not say which of a block's instructions is last).
    pub ends_in_own_call: bool,
    pub calls: Vec<Call>,
}

/// A call made from a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// Offset of the call instruction in the function.
    pub offset: u64,
    pub callee: String,
    /// The callee's entry offset (0 but for secondary entries).
    pub callee_offset: u64,
    pub count: u64,
    pub mispredicted: u64,
}

/// An edge between two blocks (indices into [`Cfg::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    /// None: the profile says nothing of this edge.
    pub count: Option<u64>,
    pub mispredicted: u64,
    /// The count was inferred from flow, not read.
    pub inferred: bool,
}

/// A function's graph in its input layout order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cfg {
    pub name: String,
    pub exec_count: u64,
    pub blocks: Vec<Block>,
    /// Sorted by `from`, in successor order (a conditional branch's taken edge first).
    pub edges: Vec<Edge>,
    /// Branches the profile has that fit no edge of the graph (llvm-bolt's
    /// "mismatched" branches), as (from offset, to offset, count).
    pub unmatched: Vec<(u64, u64, i64)>,
}

/// Where the edges leaving `block` are in `edges` (sorted by source).
fn leaving(edges: &[Edge], block: u32) -> core::ops::Range<usize> {
    edges.partition_point(|e| e.from < block)..edges.partition_point(|e| e.from <= block)
}

impl Cfg {
    /// The edges leaving `block`.
    pub fn successors(&self, block: u32) -> &[Edge] {
        self.edges.get(leaving(&self.edges, block)).unwrap_or_default()
    }

    /// Fills the count of each two-way (or one-way) block's fall-through edge that
    /// has none with what flow conservation leaves for it: the block's count less
    /// the counts of its other edges (llvm-bolt's `inferFallThroughCounts`, which
    /// llvm-bolt 22 runs only with `-infer-fall-throughs`). Returns how many edges
    /// it filled.
    pub fn infer_fall_throughs(&mut self) -> usize {
        let mut filled = 0usize;
        for b in 0..self.blocks.len() {
            let Ok(block) = u32::try_from(b) else { break };
            let exec = self.blocks.get(b).map_or(0, |b| b.exec_count);
            let start = self.edges.partition_point(|e| e.from < block);
            let end = self.edges.partition_point(|e| e.from <= block);
            let Some(out) = self.edges.get_mut(start..end) else { continue };
            if out.is_empty() || out.len() > 2 {
                continue;
            }
            let known: u64 = out.iter().filter_map(|e| e.count).fold(0, u64::saturating_add);
            let Some(last) = out.last_mut() else { continue };
            if last.count.is_some() || last.to != block.saturating_add(1) {
                continue;
            }
            last.count = Some(exec.saturating_sub(known));
            last.inferred = true;
            filled = filled.saturating_add(1);
        }
        filled
    }

    /// Per block, the counts flowing in (edges, plus the function's entries for
    /// entry blocks) and out (edges, plus calls that do not return here are not
    /// counted): where they differ, the profile breaks flow conservation.
    pub fn flow(&self) -> Vec<(u64, u64)> {
        let mut flow: Vec<(u64, u64)> = self.blocks.iter().map(|_| (0, 0)).collect();
        for e in &self.edges {
            let count = e.count.unwrap_or(0);
            if let Some(f) = flow.get_mut(e.from as usize) {
                f.1 = f.1.saturating_add(count);
            }
            if let Some(t) = flow.get_mut(e.to as usize) {
                t.0 = t.0.saturating_add(count);
            }
        }
        flow
    }
}

/// How far each block's counts are from conserving flow, as llvm-bolt's profile
/// quality stats measure it (`ProfileQualityStats.cpp`, printed by llvm-bolt as
/// "CFG flow conservation gap ... (weighted) ... (worst)").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowGaps {
    /// Per block, 1 − min / max over its in-flow, out-flow and call counts, or why
    /// the stats leave it out (entries, exits, blocks never run, ...).
    pub blocks: Vec<Result<f64, GapLeftOut>>,
    /// The mean gap weighted by ln(count × instructions).
    pub weighted: f64,
    /// The largest gap of a block counted more than [`WORST_GAP_MIN_COUNT`] times.
    pub worst: f64,
    pub worst_block: Option<u32>,
}

/// Why llvm-bolt's flow conservation stats leave a block out
/// (`ProfileQualityStats.cpp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GapLeftOut {
    /// The function has one block.
    OneBlock,
    /// An entry point or a landing pad.
    Entry,
    /// No successors.
    Exit,
    NeverRun,
    NoInstructions,
    /// Its calls throw to a landing pad that ran.
    ThrowsToPadThatRan,
    /// Its last instruction calls its own function.
    OwnCall,
}

impl GapLeftOut {
    pub fn reason(self) -> &'static str {
        match self {
            GapLeftOut::OneBlock => "the function has one block",
            GapLeftOut::Entry => "an entry or a landing pad",
            GapLeftOut::Exit => "no successors",
            GapLeftOut::NeverRun => "never run",
            GapLeftOut::NoInstructions => "no instructions",
            GapLeftOut::ThrowsToPadThatRan => "throws to a landing pad that ran",
            GapLeftOut::OwnCall => "ends in a call to its own function",
        }
    }
}

/// Blocks counted this many times or fewer do not count for the worst gap
/// (llvm-bolt's `MinBlockCount`: sampling noise).
pub const WORST_GAP_MIN_COUNT: u64 = 500;

impl Cfg {
    /// The flow conservation gaps of the graph's blocks. Where llvm-bolt looks at
    /// instructions this model does not have, it decides from what it has: a call
    /// site with one callee is a direct call (llvm-bolt counts it with the block's
    /// count), with several an indirect one (the sum of its targets' counts); a
    /// block of unknown size weighs as one instruction. Blocks whose calls throw to
    /// a landing pad that ran are left out, as llvm-bolt leaves them (their pads are
    /// known from the binary's LSDAs), and so are blocks ending in a call to their
    /// own function (known from the binary too: without it, such a block counts).
    pub fn flow_gaps(&self) -> FlowGaps {
        let mut out = FlowGaps { blocks: Vec::with_capacity(self.blocks.len()), ..FlowGaps::default() };
        let flow = self.flow();
        let (mut weighted_sum, mut weight_sum) = (0.0f64, 0.0f64);
        for (i, b) in self.blocks.iter().enumerate() {
            let Ok(index) = u32::try_from(i) else { break };
            if let Some(why) = self.gap_left_out(index) {
                out.blocks.push(Err(why));
                continue;
            }
            let instructions = b.instructions.unwrap_or(1);
            let (inflow, outflow) = flow.get(i).copied().unwrap_or_default();
            let (mut max, mut min) = (inflow.max(outflow), inflow.min(outflow));
            let mut sites: Vec<u64> = b.calls.iter().map(|c| c.offset).collect();
            sites.sort_unstable();
            sites.dedup();
            for site in sites {
                let mut targets = b.calls.iter().filter(|c| c.offset == site);
                let total = match (targets.next(), targets.next()) {
                    (Some(_), None) => b.exec_count,
                    _ => b.calls.iter().filter(|c| c.offset == site).fold(0u64, |s, c| s.saturating_add(c.count)),
                };
                max = max.max(total);
                min = min.min(total);
            }
            let gap = if max > 0 { 1.0 - min as f64 / max as f64 } else { 0.0 };
            out.blocks.push(Ok(gap));
            let weight = libm::log(b.exec_count as f64 * f64::from(instructions));
            weighted_sum += gap * weight;
            weight_sum += weight;
            if b.exec_count > WORST_GAP_MIN_COUNT && gap > out.worst {
                out.worst = gap;
                out.worst_block = Some(index);
            }
        }
        out.weighted = if weight_sum > 0.0 { weighted_sum / weight_sum } else { weighted_sum };
        out
    }

    /// Why llvm-bolt's flow conservation stats leave `block` out, in the order
    /// they check; None when they count it (or there is no such block).
    fn gap_left_out(&self, block: u32) -> Option<GapLeftOut> {
        let b = self.blocks.get(block as usize)?;
        let ran = |pad: &u32| self.blocks.get(*pad as usize).is_some_and(|p| p.exec_count > 0);
        Some(if self.blocks.len() <= 1 {
            GapLeftOut::OneBlock
        } else if b.entry {
            GapLeftOut::Entry
        } else if self.successors(block).is_empty() {
            GapLeftOut::Exit
        } else if b.exec_count == 0 {
            GapLeftOut::NeverRun
        } else if b.instructions == Some(0) {
            GapLeftOut::NoInstructions
        } else if b.landing_pads.iter().any(ran) {
            GapLeftOut::ThrowsToPadThatRan
        } else if b.ends_in_own_call {
            GapLeftOut::OwnCall
        } else {
            return None;
        })
    }
}

/// The numbers of one function table row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FunctionNumbers {
    pub exec_count: u64,
    pub blocks: Option<u64>,
    pub edges: u64,
    /// Branch counts inside the function (taken branches and fall-throughs).
    pub branches: u64,
    pub mispredicted: u64,
    /// Counts of calls (and branches) to other functions.
    pub calls_out: u64,
}

/// llvm-bolt's name matching: fdata names are escaped, binary names are not.
pub(crate) fn same_name(fdata_name: &[u8], name: &str) -> bool {
    if fdata_name.contains(&b'\\') {
        *crate::formats::bolt::fdata::unescape(fdata_name) == *name.as_bytes()
    } else {
        fdata_name == name.as_bytes()
    }
}

/// The graph of the binary's function `function` with the branches `fdata` has for
/// it, as llvm-bolt 22 reads them. None when the function does not disassemble.
pub fn cfg_from_fdata(fdata: &Fdata<'_>, binary: &Binary<'_>, function: usize) -> Option<Cfg> {
    let f = binary.functions.get(function)?;
    let graph = cfg::build(binary, f)?;
    let mut out = Cfg { name: f.name.clone(), ..Cfg::default() };
    let block_at = |offset: u64| graph.blocks.binary_search_by_key(&offset, |b| b.start).ok();
    for b in &graph.blocks {
        out.blocks.push(Block {
            offset: Some(b.start),
            instructions: Some(b.instructions),
            exec_count: 0,
            entry: b.start == 0 || b.landing_pad,
            landing_pads: pads_of(b, &block_at),
            ends_in_own_call: b.ends_in_own_call,
            calls: Vec::new(),
        });
    }
    for (i, b) in graph.blocks.iter().enumerate() {
        let mut seen: Vec<u64> = Vec::new();
        for &s in &b.successors {
            if seen.contains(&s) {
                continue;
            }
            seen.push(s);
            if let Some(to) = block_at(s) {
                out.edges.push(Edge {
                    from: u32::try_from(i).ok()?,
                    to: u32::try_from(to).ok()?,
                    count: None,
                    mispredicted: 0,
                    inferred: false,
                });
            }
        }
    }
    let mine = |l: &crate::formats::bolt::fdata::Location<'_>| {
        l.kind.is_symbol() && f.names().any(|name| same_name(&l.name, name))
    };
    for br in &fdata.branches {
        let (from_mine, to_mine) = (mine(&br.from), mine(&br.to));
        // Entry data: branches into the function from elsewhere, or to its start.
        if to_mine && (!from_mine || br.to.offset == 0) {
            if br.to.offset == 0 {
                out.exec_count = out.exec_count.wrapping_add(br.count as u64);
            }
            if let Some(block) = block_at(br.to.offset).and_then(|b| out.blocks.get_mut(b)).filter(|b| b.entry) {
                block.exec_count = block.exec_count.wrapping_add(br.count as u64);
            }
        }
        if !from_mine {
            continue;
        }
        if !to_mine || br.to.offset == 0 {
            // A call (or a tail call, or a return) from the block holding the branch.
            if let Some(b) = graph.block_containing(br.from.offset).and_then(|b| out.blocks.get_mut(b)) {
                let callee = match br.to.kind {
                    SymbolKind::NotSymbol => String::from("[unknown]"),
                    _ => String::from_utf8_lossy(&crate::formats::bolt::fdata::unescape(&br.to.name)).into_owned(),
                };
                b.calls.push(Call {
                    offset: br.from.offset,
                    callee,
                    callee_offset: br.to.offset,
                    count: br.count as u64,
                    mispredicted: br.mispredicted as u64,
                });
            }
            continue;
        }
        if !record_branch(&mut out, &graph, br.from.offset, br.to.offset, br.count, br.mispredicted) {
            out.unmatched.push((br.from.offset, br.to.offset, br.count));
        }
    }
    propagate_block_counts(&mut out);
    Some(out)
}

/// The binary's function named `name` (unescaped, BOLT's `/N` suffix of a local
/// function included), or by BOLT's alternative name of a local function after a
/// `FILE` symbol, `name/file/N`, which perf2bolt writes through BAT.
pub fn binary_function(binary: &Binary<'_>, name: &str) -> Option<usize> {
    binary.functions.iter().position(|f| f.names().any(|n| n == name))
}

/// Puts a YAML graph's blocks on the binary's function `function`, block by block
/// in order, as llvm-bolt's YAML reader matches a profile to a function whose
/// block count agrees with the `nblocks` the profile declares (it also compares
/// the function's hash, which this model does not compute). The profile lists only
/// the blocks it has something for, so the binary gives the rest (no count) and
/// every edge the profile does not list: count 0 in a branch profile, which lists
/// every edge it saw, unknown in a sampled one. On a mismatch, returns the
/// binary's block count (0 when its function has no graph).
pub fn place_on_binary(
    cfg: &mut Cfg,
    binary: &Binary<'_>,
    function: usize,
    declared: usize,
    branch_profile: bool,
) -> Result<(), usize> {
    let Some(graph) = binary.functions.get(function).and_then(|f| cfg::build(binary, f)) else { return Err(0) };
    if graph.blocks.len() != declared || cfg.blocks.len() > declared {
        return Err(graph.blocks.len());
    }
    let block_at = |offset: u64| graph.blocks.binary_search_by_key(&offset, |b| b.start).ok();
    for (i, g) in graph.blocks.iter().enumerate() {
        match cfg.blocks.get_mut(i) {
            // The binary's instruction count, as llvm-bolt's: a profile written
            // through BAT says 0.
            Some(b) => {
                b.offset = Some(g.start);
                b.instructions = Some(g.instructions);
                b.entry |= g.landing_pad;
                b.landing_pads = pads_of(g, &block_at);
                b.ends_in_own_call = g.ends_in_own_call;
            }
            None => cfg.blocks.push(Block {
                offset: Some(g.start),
                instructions: Some(g.instructions),
                entry: g.landing_pad,
                landing_pads: pads_of(g, &block_at),
                ends_in_own_call: g.ends_in_own_call,
                ..Block::default()
            }),
        }
    }
    // Each block's edges in the binary's successor order (a conditional branch's
    // taken edge first), with the profile's count where it lists the edge.
    let listed = core::mem::take(&mut cfg.edges);
    let mut strays: Vec<Edge> = Vec::new();
    for (from, g) in graph.blocks.iter().enumerate() {
        let Ok(from) = u32::try_from(from) else { break };
        let mine = listed.get(leaving(&listed, from)).unwrap_or_default();
        let start = cfg.edges.len();
        for to in g.successors.iter().filter_map(|&s| u32::try_from(block_at(s)?).ok()) {
            // A successor named twice (a branch to the next block) is one edge.
            if cfg.edges.get(start..).is_some_and(|done| done.iter().any(|e| e.to == to)) {
                continue;
            }
            let count = branch_profile.then_some(0);
            let edge = mine.iter().find(|e| e.to == to).copied();
            cfg.edges.push(edge.unwrap_or(Edge { from, to, count, mispredicted: 0, inferred: false }));
        }
        strays.extend(mine.iter().filter(|e| !cfg.edges.get(start..).is_some_and(|d| d.iter().any(|d| d.to == e.to))));
    }
    // An edge the binary does not have (perf2bolt through BAT writes some): as
    // llvm-bolt's YAML reader, counted through the fall-through block of a
    // conditional branch when that block's only edge goes there, else dropped
    // as mismatched, and out of the counts of the block it led to.
    for stray in strays {
        let (count, mispredicted) = (stray.count.unwrap_or(0), stray.mispredicted);
        let fall_through = match cfg.successors(stray.from) {
            [_, ft] => Some(ft.to).filter(|&ft| matches!(cfg.successors(ft), [only] if only.to == stray.to)),
            _ => None,
        };
        let mut add = |from: u32, to: u32| {
            let own = leaving(&cfg.edges, from);
            if let Some(e) = cfg.edges.get_mut(own).unwrap_or_default().iter_mut().find(|e| e.to == to) {
                e.count = Some(e.count.unwrap_or(0).saturating_add(count));
                e.mispredicted = e.mispredicted.saturating_add(mispredicted);
            }
        };
        match fall_through {
            Some(ft) => {
                add(stray.from, ft);
                add(ft, stray.to);
                if let Some(b) = cfg.blocks.get_mut(ft as usize).filter(|_| branch_profile) {
                    b.exec_count = b.exec_count.saturating_add(count);
                }
            }
            None => {
                cfg.unmatched.push((
                    u64::from(stray.from),
                    u64::from(stray.to),
                    i64::try_from(count).unwrap_or(i64::MAX),
                ));
                if let Some(b) = cfg.blocks.get_mut(stray.to as usize).filter(|_| branch_profile) {
                    b.exec_count = b.exec_count.saturating_sub(count);
                }
            }
        }
    }
    Ok(())
}

/// The blocks (indices) a binary block's calls throw to.
fn pads_of(block: &cfg::Block, block_at: &impl Fn(u64) -> Option<usize>) -> Vec<u32> {
    block.landing_pads.iter().filter_map(|&p| u32::try_from(block_at(p)?).ok()).collect()
}

/// llvm-bolt's `recordBranch`: the branch from the block holding `from` to the block
/// starting at `to` (or past the nops there); a branch that lands on a block
/// reached through its fall-through block's only edge counts on both edges.
fn record_branch(out: &mut Cfg, graph: &cfg::Cfg, from: u64, to: u64, count: i64, mispredicted: i64) -> bool {
    let (Some(from_block), Some(to_block)) = (graph.block_containing(from), graph.block_containing(to)) else {
        return false;
    };
    if from == to {
        return true;
    }
    let Some(source) = graph.blocks.get(from_block) else { return false };
    if source.successors.is_empty() {
        // A tail call's return.
        return true;
    }
    if graph.blocks.get(to_block).is_none_or(|b| b.start != to) {
        return false;
    }
    let (Ok(from_block), Ok(to_block)) = (u32::try_from(from_block), u32::try_from(to_block)) else { return false };
    let add = |out: &mut Cfg, from: u32, to: u32| -> bool {
        match out.edges.iter_mut().find(|e| e.from == from && e.to == to) {
            Some(e) => {
                e.count = Some(e.count.unwrap_or(0).wrapping_add(count as u64));
                if count != 0 {
                    e.mispredicted = e.mispredicted.wrapping_add(mispredicted as u64);
                }
                true
            }
            None => false,
        }
    };
    if add(out, from_block, to_block) {
        return true;
    }
    // Recursion from entry to entry: the entry count has it already.
    let entry = |b: u32| out.blocks.get(b as usize).is_some_and(|b| b.entry);
    if entry(from_block) && entry(to_block) {
        return true;
    }
    // Through the fall-through block of a conditional branch, when its only edge
    // goes to `to`.
    let fall_through = {
        let succ = out.successors(from_block);
        (succ.len() == 2).then(|| succ.get(1).map(|e| e.to)).flatten()
    };
    if let Some(ft) = fall_through {
        let only = out.successors(ft);
        if only.len() == 1 && only.first().is_some_and(|e| e.to == to_block) {
            return add(out, ft, to_block) && add(out, from_block, ft);
        }
    }
    false
}

/// `postProcessProfile`: blocks that are not entries count what their incoming
/// edges bring; entry blocks add it to their entry count (the first block excepted).
pub(crate) fn propagate_block_counts(out: &mut Cfg) {
    for b in &mut out.blocks {
        if !b.entry {
            b.exec_count = 0;
        }
    }
    for e in &out.edges {
        if e.to == 0 {
            continue;
        }
        if let (Some(count), Some(b)) = (e.count, out.blocks.get_mut(e.to as usize)) {
            b.exec_count = b.exec_count.wrapping_add(count);
        }
    }
    fix_block_counts(out);
}

/// llvm-bolt's `-fix-block-counts` (on by default), the end of `postProcessProfile`:
/// in layout order, a block counts at least each of its edges in and out, and at
/// least each direct call it makes (a call site with one callee; an indirect one
/// carries its targets' counts, not a count of its own).
fn fix_block_counts(out: &mut Cfg) {
    for i in 0..out.edges.len() {
        let Some(&Edge { from, to, count: Some(count), .. }) = out.edges.get(i) else { continue };
        if count == 0 {
            continue;
        }
        for b in [to, from] {
            if let Some(b) = out.blocks.get_mut(b as usize) {
                b.exec_count = b.exec_count.max(count);
            }
        }
    }
    for b in &mut out.blocks {
        let mut sites: Vec<u64> = b.calls.iter().map(|c| c.offset).collect();
        sites.sort_unstable();
        sites.dedup();
        for site in sites {
            let mut at = b.calls.iter().filter(|c| c.offset == site);
            if let (Some(call), None) = (at.next(), at.next()) {
                b.exec_count = b.exec_count.max(call.count);
            }
        }
    }
}

/// The function table numbers of every function an fdata profile has branches
/// from, by (escaped) name, in first-seen order.
pub fn fdata_functions<'a>(fdata: &'a Fdata<'_>) -> Vec<(&'a [u8], FunctionNumbers)> {
    let mut index: hashbrown::HashMap<&[u8], usize> = hashbrown::HashMap::new();
    let mut rows: Vec<(&'a [u8], FunctionNumbers)> = Vec::new();
    let mut row = |name: &'a [u8], rows: &mut Vec<(&'a [u8], FunctionNumbers)>| -> usize {
        *index.entry(name).or_insert_with(|| {
            rows.push((name, FunctionNumbers::default()));
            rows.len().saturating_sub(1)
        })
    };
    for br in &fdata.branches {
        let count = br.count.max(0) as u64;
        // llvm-bolt's function execution count: branches to its first byte.
        if br.to.kind.is_symbol() && br.to.offset == 0 {
            let r = row(&br.to.name, &mut rows);
            if let Some((_, n)) = rows.get_mut(r) {
                n.exec_count = n.exec_count.saturating_add(count);
            }
        }
        if !br.from.kind.is_symbol() {
            continue;
        }
        let r = row(&br.from.name, &mut rows);
        let Some((_, n)) = rows.get_mut(r) else { continue };
        if br.to.kind.is_symbol() && br.to.name == br.from.name && br.to.offset != 0 {
            n.edges = n.edges.saturating_add(1);
            n.branches = n.branches.saturating_add(count);
            n.mispredicted = n.mispredicted.saturating_add(br.mispredicted.max(0) as u64);
        } else {
            n.calls_out = n.calls_out.saturating_add(count);
        }
    }
    for s in &fdata.samples {
        if !s.at.kind.is_symbol() {
            continue;
        }
        let r = row(&s.at.name, &mut rows);
        if let Some((_, n)) = rows.get_mut(r) {
            n.exec_count = n.exec_count.saturating_add(s.count.max(0) as u64);
        }
    }
    rows
}

/// The function table numbers of each function of a YAML profile, in file order:
/// the function's `exec`, its `nblocks`, its successor edges with their counts
/// and mispredictions, and its call counts.
pub fn yaml_functions(profile: &yaml::Profile<'_>) -> Vec<FunctionNumbers> {
    profile
        .functions
        .iter()
        .map(|f| {
            let mut n =
                FunctionNumbers { exec_count: f.exec, blocks: Some(u64::from(f.block_count)), ..Default::default() };
            for b in profile.blocks_of(f) {
                for s in profile.successors_of(b) {
                    n.edges = n.edges.saturating_add(1);
                    n.branches = n.branches.saturating_add(s.count);
                    n.mispredicted = n.mispredicted.saturating_add(s.mispredicts);
                }
                for c in profile.calls_of(b) {
                    n.calls_out = n.calls_out.saturating_add(c.count);
                }
            }
            n
        })
        .collect()
}

/// Blocks a YAML graph may have beyond those its profile mentions: `nblocks` is
/// only a number in the file, and must not size an allocation by itself.
const MAX_UNMENTIONED_BLOCKS: usize = 1 << 16;

/// A YAML profile's function as a graph, as llvm-bolt's YAML reader attaches it:
/// `nblocks` blocks by `bid`, each with its `exec` count and instruction count,
/// successors with their counts, call sites with their callees by `fid`. Indices
/// at or past `nblocks` point nowhere: llvm-bolt counts them as mismatched and
/// goes on; they land in [`Cfg::unmatched`] as (from bid, to bid, count).
pub fn cfg_from_yaml(profile: &yaml::Profile<'_>, function: usize) -> Option<Cfg> {
    let f = profile.functions.get(function)?;
    let blocks = profile.blocks_of(f);
    let nblocks = f.block_count as usize;
    let mentioned = blocks
        .iter()
        .flat_map(|b| core::iter::once(b.index).chain(profile.successors_of(b).iter().map(|s| s.index)))
        .map(|i| i as usize)
        .filter(|&i| i < nblocks)
        .max()
        .map_or(0, |m| m.saturating_add(1));
    let limit = blocks.len().saturating_mul(4).saturating_add(MAX_UNMENTIONED_BLOCKS);
    let count = nblocks.min(mentioned.max(1)).min(limit).min(nblocks);
    let mut cfg = Cfg {
        name: String::from_utf8_lossy(&f.name).into_owned(),
        exec_count: f.exec,
        blocks: alloc::vec![Block::default(); count],
        ..Cfg::default()
    };
    if let Some(entry) = cfg.blocks.first_mut() {
        entry.entry = true;
    }
    let names: hashbrown::HashMap<u32, &[u8]> = profile.functions.iter().map(|g| (g.id, &*g.name)).collect();
    for b in blocks {
        let Some(block) = cfg.blocks.get_mut(b.index as usize) else {
            for s in profile.successors_of(b) {
                cfg.unmatched.push((
                    u64::from(b.index),
                    u64::from(s.index),
                    i64::try_from(s.count).unwrap_or(i64::MAX),
                ));
            }
            continue;
        };
        block.instructions = Some(b.instructions);
        block.exec_count = b.exec;
        block.entry |= b.exec > 0 && profile.header.flags.has(yaml::ProfileFlags::BRANCH);
        block.calls = profile
            .calls_of(b)
            .iter()
            .map(|c| Call {
                offset: u64::from(c.offset),
                callee: names.get(&c.callee).map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_default(),
                callee_offset: u64::from(c.entry_discriminator),
                count: c.count,
                mispredicted: c.mispredicts,
            })
            .collect();
        for s in profile.successors_of(b) {
            if (s.index as usize) < count {
                cfg.edges.push(Edge {
                    from: b.index,
                    to: s.index,
                    count: Some(s.count),
                    mispredicted: s.mispredicts,
                    inferred: false,
                });
            } else {
                cfg.unmatched.push((
                    u64::from(b.index),
                    u64::from(s.index),
                    i64::try_from(s.count).unwrap_or(i64::MAX),
                ));
            }
        }
    }
    // Sorted by source, each block's successors in the order written.
    cfg.edges.sort_by_key(|e| e.from);
    // Branch profiles carry counts on edges: llvm-bolt's YAML writer keeps a block's
    // own count only where edges cannot give it (entry points, landing pads), and
    // `postProcessProfile` adds the counts of the edges into each block.
    if profile.header.flags.has(yaml::ProfileFlags::BRANCH) {
        for i in 0..cfg.edges.len() {
            let Some(&Edge { to, count, .. }) = cfg.edges.get(i) else { continue };
            if let Some(b) = cfg.blocks.get_mut(to as usize) {
                b.exec_count = b.exec_count.saturating_add(count.unwrap_or(0));
            }
        }
        fix_block_counts(&mut cfg);
    }
    Some(cfg)
}

/// A sortable column of the BOLT function table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    Name,
    /// llvm-bolt's function execution count.
    Exec,
    Blocks,
    Edges,
    /// Counts of branches inside the function (taken and fall-through).
    Branches,
    /// Mispredicted branches per branch.
    Mispredicted,
    /// Counts of calls (and jumps) to other functions.
    Calls,
}

impl Column {
    pub const ALL: [Column; 7] = [
        Column::Name,
        Column::Exec,
        Column::Blocks,
        Column::Edges,
        Column::Branches,
        Column::Mispredicted,
        Column::Calls,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Column::Name => "name",
            Column::Exec => "exec",
            Column::Blocks => "blocks",
            Column::Edges => "edges",
            Column::Branches => "branches",
            Column::Mispredicted => "mispredicted",
            Column::Calls => "calls",
        }
    }

    pub fn from_id(id: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// One row: the name as the profile spells it (unescaped), demangled where it
/// is a mangled name (BOLT's `/N` local suffix kept after it), and its numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionRow {
    pub name: String,
    /// Made when first asked for ([`FunctionRow::demangled`]): a table shows a
    /// page of rows, and demangling every name of a profile of 80,000 functions
    /// took longer than decoding it.
    demangled: OnceCell<Option<String>>,
    pub numbers: FunctionNumbers,
}

impl FunctionRow {
    pub fn new(name: String, numbers: FunctionNumbers) -> FunctionRow {
        FunctionRow { name, demangled: OnceCell::new(), numbers }
    }

    /// The name demangled, where it is a mangled one.
    pub fn demangled(&self) -> Option<&str> {
        self.demangled.get_or_init(|| demangle_local(&self.name)).as_deref()
    }

    /// The name a table shows: demangled, else as the profile spells it.
    pub fn shown(&self) -> &str {
        self.demangled().unwrap_or(&self.name)
    }
}

/// The function table of a BOLT profile, sortable by any [`Column`]. Names are
/// demangled on demand: a row's when it is shown, sorted by name, or matched by a
/// filter its raw name does not match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionRows {
    pub rows: Vec<FunctionRow>,
    /// Branches and calls of every function: what a row's share is of.
    pub weight: u64,
}

impl FunctionRows {
    pub fn from_fdata(fdata: &Fdata<'_>) -> FunctionRows {
        FunctionRows::new(
            fdata_functions(fdata)
                .into_iter()
                .map(|(name, numbers)| (crate::formats::bolt::fdata::unescape(name).into_owned(), numbers)),
        )
    }

    pub fn from_yaml(profile: &yaml::Profile<'_>) -> FunctionRows {
        FunctionRows::new(profile.functions.iter().map(|f| f.name.to_vec()).zip(yaml_functions(profile)))
    }

    /// Rows from (raw name, numbers), with the total weight.
    fn new(functions: impl Iterator<Item = (Vec<u8>, FunctionNumbers)>) -> FunctionRows {
        let rows: Vec<FunctionRow> = functions
            .map(|(name, numbers)| FunctionRow::new(String::from_utf8_lossy(&name).into_owned(), numbers))
            .collect();
        let weight =
            rows.iter().map(|r| r.numbers.branches.saturating_add(r.numbers.calls_out)).fold(0, u64::saturating_add);
        FunctionRows { rows, weight }
    }

    /// A row's value in a numeric column (`Name` has none); mispredictions per
    /// million branches.
    pub fn value(&self, id: u32, column: Column) -> Option<u64> {
        let n = &self.rows.get(id as usize)?.numbers;
        match column {
            Column::Name => None,
            Column::Exec => Some(n.exec_count),
            Column::Blocks => n.blocks,
            Column::Edges => Some(n.edges),
            Column::Branches => Some(n.branches),
            Column::Mispredicted => {
                let ppm = u128::from(n.mispredicted).saturating_mul(1_000_000).checked_div(u128::from(n.branches))?;
                Some(u64::try_from(ppm).unwrap_or(u64::MAX))
            }
            Column::Calls => Some(n.calls_out),
        }
    }

    /// Row ids in `column` order, ties by row id (ascending either way); `None`
    /// values below every value.
    pub fn sorted(&self, column: Column, descending: bool) -> Vec<u32> {
        let ids = (0..self.rows.len()).filter_map(|i| u32::try_from(i).ok());
        if column == Column::Name {
            let mut order: Vec<u32> = ids.collect();
            let name = |id: u32| self.rows.get(id as usize).map(FunctionRow::shown);
            order.sort_by(|&a, &b| {
                let by_name = name(a).cmp(&name(b));
                let by_name = if descending { by_name.reverse() } else { by_name };
                by_name.then(a.cmp(&b))
            });
            return order;
        }
        // By key: no name is compared, so none is demangled.
        ids_by_key(ids.map(|id| (none_lowest(self.value(id, column)), id)), descending)
    }

    /// The ids of `order` whose name (raw or demangled) contains `text`.
    pub fn filter(&self, order: &[u32], text: &str) -> Vec<u32> {
        if text.is_empty() {
            return order.to_vec();
        }
        order
            .iter()
            .copied()
            .filter(|&id| {
                self.rows
                    .get(id as usize)
                    .is_some_and(|r| r.name.contains(text) || r.demangled().is_some_and(|d| d.contains(text)))
            })
            .collect()
    }
}

/// `_ZN3foo3barEv/1` → `foo::bar() /1`: BOLT names a local function `NAME/N`, or
/// `NAME/FILE/N` when the symbol table says which source file it came from
/// (`_ZL4areav/shapes.cpp/1` → `area() /shapes.cpp/1`).
pub fn demangle_local(name: &str) -> Option<String> {
    let numbered = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    let mangled = match name.rsplit_once('/') {
        Some((rest, n)) if numbered(n) => match rest.rsplit_once('/') {
            Some((m, file)) if !file.is_empty() => m,
            _ => rest,
        },
        _ => name,
    };
    let demangled = super::demangle::demangle(mangled.as_bytes())?;
    Some(match name.get(mangled.len()..).filter(|s| !s.is_empty()) {
        Some(suffix) => alloc::format!("{demangled} {suffix}"),
        None => demangled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> FunctionRows {
        let row = |name: &str, exec_count: u64, branches: u64| {
            (name.as_bytes().to_vec(), FunctionNumbers { exec_count, branches, ..FunctionNumbers::default() })
        };
        FunctionRows::new(
            [row("_Z1bv", 5, 10), row("_ZN3foo3barEv/1", 5, 0), row("c", 9, 3), row("_Z1av", 5, 0)].into_iter(),
        )
    }

    #[test]
    fn rows_sort_by_value_with_ties_by_row_and_demangle_only_what_is_asked() {
        let t = rows();
        assert_eq!(t.sorted(Column::Exec, true), [2, 0, 1, 3]);
        assert_eq!(t.sorted(Column::Exec, false), [0, 1, 3, 2]);
        assert_eq!(t.sorted(Column::Mispredicted, true), [0, 2, 1, 3], "no branches: no rate, below every rate");
        assert!(t.rows.iter().all(|r| r.demangled.get().is_none()), "sorting by a number demangles nothing");
        assert_eq!(t.rows.get(1).map(FunctionRow::shown), Some("foo::bar() /1"));
        assert_eq!(t.rows.get(2).map(FunctionRow::shown), Some("c"));
        assert!(t.rows.first().is_some_and(|r| r.demangled.get().is_none()), "only the rows shown");
    }

    #[test]
    fn local_names_keep_their_number_and_file() {
        assert_eq!(demangle_local("_ZN3foo3barEv/1").as_deref(), Some("foo::bar() /1"));
        // cxxprog.bolt.bat.fdata (perf2bolt through BAT): `_ZL10total_areaRKSt6vector...EE/cxxprog.cpp/1`.
        assert_eq!(demangle_local("_ZL4areav/cxxprog.cpp/1").as_deref(), Some("area() /cxxprog.cpp/1"));
        assert_eq!(demangle_local("_ZN3foo3barEv").as_deref(), Some("foo::bar()"));
        assert_eq!(demangle_local("main/1"), None);
        // Not BOLT's suffix: no number at the end, or no file before it.
        assert_eq!(demangle_local("_ZN3foo3barEv/x"), None);
        assert_eq!(demangle_local("_ZN3foo3barEv//1").as_deref(), None);
    }

    #[test]
    fn rows_sort_and_filter_by_demangled_name() {
        let t = rows();
        // a() < b() < c < foo::bar() /1
        assert_eq!(t.sorted(Column::Name, false), [3, 0, 2, 1]);
        assert_eq!(t.sorted(Column::Name, true), [1, 2, 0, 3]);
        let all = t.sorted(Column::Exec, true);
        assert_eq!(t.filter(&all, "foo::"), [1], "the demangled name");
        assert_eq!(t.filter(&all, "_Z1"), [0, 3], "the raw name");
        assert_eq!(t.weight, 13);
    }
}
