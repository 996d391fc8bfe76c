//! What the page shows of a sample profile ([`crate::formats::sample::model`]),
//! whichever format it came from (LLVM text, binary, extbinary, GCC AutoFDO, GCOV v4):
//!
//! - the **function table** ([`SampleTable`]): one row per top-level function (its
//!   row id is its index in [`Profile::functions`]) with its total and head samples,
//!   its sampled lines (body locations, LLVM's "sampled lines"), its inlined callees
//!   (every function instance inlined into it, at any depth), its call sites (body
//!   locations with call targets: calls that were not inlined) and its share of all
//!   top-level totals; a CS profile's rows also carry their context
//!   (`[main:1 @ _Z3foov]`, as LLVM prints it), an MD5 profile's their hash;
//! - one function's **line heat** ([`line_heat`]): its inline tree flattened in
//!   pre-order, body lines and inlined callsites interleaved by location;
//! - the profile as **call stacks** ([`stack_profile`]), so the flame graph, its
//!   sandwich and search serve sample profiles as they serve perf.data: each function
//!   instance's body samples weigh on its inline path (the top-level function, or a
//!   CS profile's context, then each inlined callee), one event [`EVENT`], no times;
//!   and one function's own inline tree as a [`CallTree`] rooted at the function
//!   ([`inline_tree`]).
//!
//! Frames and table rows are named by the demangled name ([`demangle`]), the raw one
//! kept for hover; an MD5 name reads as LLVM prints it, in decimal.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

use hashbrown::HashMap;

use crate::formats::sample::model::{
    CallTarget, Frame, FunctionSamples, LineLocation, Name, NameId, Names, Profile, MAX_DEPTH,
};
use crate::model::demangle::demangle;
use crate::model::functions::{ids_by_key, Column as NameColumn, FunctionTable, Stats};
use crate::model::stacks::{CallNode, CallTree, FrameId, FrameKind, NodeId, StackProfile, NO_FRAME, ROOT};

/// The one event of a sample profile's stacks.
pub const EVENT: &str = "samples";

/// The name a view shows: demangled where a demangler takes it, else the raw name.
pub fn shown_name(names: &Names, id: NameId) -> String {
    let raw = names.bytes(id);
    demangle(&raw).unwrap_or_else(|| String::from_utf8_lossy(&raw).into_owned())
}

/// A location as LLVM prints it: `3`, or `3.1` with a discriminator.
pub fn location_string(location: LineLocation) -> String {
    let mut s = alloc::format!("{}", location.line);
    if location.discriminator != 0 {
        let _ = write!(s, ".{}", location.discriminator);
    }
    s
}

/// A CS context as LLVM prints it (`SampleContext::toString`): `[main:1 @ _Z3foov:2.1 @ _Z3barv]`,
/// raw names, every frame but the last with its call's location.
pub fn context_string(names: &Names, context: &[Frame]) -> String {
    let mut s = String::from("[");
    for (i, frame) in context.iter().enumerate() {
        if i > 0 {
            s.push_str(" @ ");
        }
        s.push_str(&String::from_utf8_lossy(&names.bytes(frame.name)));
        if i.saturating_add(1) < context.len() {
            s.push(':');
            s.push_str(&location_string(frame.location));
        }
    }
    s.push(']');
    s
}

/// Calls `visit(instance, depth)` for a function and every callee inlined into it, in
/// pre-order (callsites in their sorted order), down to [`MAX_DEPTH`].
fn for_each_instance<'a>(function: &'a FunctionSamples, mut visit: impl FnMut(&'a FunctionSamples, usize)) {
    let mut stack = vec![(function, 0usize)];
    while let Some((f, depth)) = stack.pop() {
        visit(f, depth);
        if depth < MAX_DEPTH {
            stack.extend(f.callsites.iter().rev().map(|c| (&c.callee, depth.saturating_add(1))));
        }
    }
}

/// A function's numbers in the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FunctionStats {
    pub total: u64,
    pub head: u64,
    /// Body locations with samples (`sampled lines` of `llvm-profdata show`).
    pub lines: u64,
    /// Function instances inlined into it, at any depth.
    pub inlined: u64,
    /// Body locations with call targets: calls that were not inlined.
    pub call_sites: u64,
}

impl FunctionStats {
    pub fn of(function: &FunctionSamples) -> FunctionStats {
        let mut inlined = 0u64;
        for_each_instance(function, |_, depth| {
            if depth > 0 {
                inlined = inlined.saturating_add(1);
            }
        });
        FunctionStats {
            total: function.total,
            head: function.head,
            lines: function.body.len() as u64,
            inlined,
            call_sites: function.body.iter().filter(|b| !b.calls.is_empty()).count() as u64,
        }
    }
}

/// A column of the function table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    Name,
    /// A CS profile's context string.
    Context,
    /// An MD5 profile's name hash.
    Md5,
    Total,
    Head,
    Lines,
    Inlined,
    CallSites,
}

impl Column {
    pub const ALL: [Column; 8] = [
        Column::Name,
        Column::Context,
        Column::Md5,
        Column::Total,
        Column::Head,
        Column::Lines,
        Column::Inlined,
        Column::CallSites,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Column::Name => "name",
            Column::Context => "context",
            Column::Md5 => "md5",
            Column::Total => "total",
            Column::Head => "head",
            Column::Lines => "lines",
            Column::Inlined => "inlined",
            Column::CallSites => "calls",
        }
    }

    pub fn from_id(id: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.id() == id)
    }

    fn key(self, stats: &FunctionStats) -> u64 {
        match self {
            Column::Head => stats.head,
            Column::Lines => stats.lines,
            Column::Inlined => stats.inlined,
            Column::CallSites => stats.call_sites,
            _ => stats.total,
        }
    }
}

/// One row as callers see it.
#[derive(Clone, Copy, Debug)]
pub struct SampleRow<'a> {
    pub id: u32,
    /// The function's raw name (an MD5 in decimal).
    pub raw: &'a [u8],
    pub demangled: Option<&'a str>,
    pub context: Option<&'a str>,
    pub md5: Option<u64>,
    pub stats: FunctionStats,
}

/// The function table: names through [`FunctionTable`] (arenas, demangled on demand,
/// sorted and filtered by name), the sample numbers beside them.
#[derive(Clone, Debug, Default)]
pub struct SampleTable {
    names: FunctionTable,
    stats: Vec<FunctionStats>,
    /// CS profiles: each row's context string (empty for the others).
    contexts: Vec<String>,
    /// MD5 profiles: each row's hash (empty for the others).
    md5: Vec<u64>,
    /// The sum of the top-level totals: what shares are shares of.
    weight: u64,
    /// Function instances (top level and inlined) with body samples: the samples
    /// [`stack_profile`] makes.
    weighted_instances: u64,
}

impl SampleTable {
    pub fn new(profile: &Profile) -> SampleTable {
        let names = &profile.names;
        let context_sensitive = profile.functions.iter().any(|f| !f.context.is_empty());
        let md5 = profile.functions.iter().any(|f| matches!(names.name(f.name), Some(Name::Md5(_))));
        let mut table = SampleTable::default();
        for f in &profile.functions {
            table.names.push(&names.bytes(f.name), Stats::default(), 0);
            table.stats.push(FunctionStats::of(f));
            for_each_instance(f, |instance, _| {
                if instance.body.iter().any(|b| b.samples > 0) {
                    table.weighted_instances = table.weighted_instances.saturating_add(1);
                }
            });
            table.weight = table.weight.saturating_add(f.total);
            if context_sensitive {
                table.contexts.push(if f.context.is_empty() {
                    String::new()
                } else {
                    context_string(names, &f.context)
                });
            }
            if md5 {
                table.md5.push(names.name(f.name).map_or(0, Name::md5));
            }
        }
        table
    }

    pub fn len(&self) -> usize {
        self.stats.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stats.is_empty()
    }

    /// The sum of the top-level functions' totals.
    pub fn weight(&self) -> u64 {
        self.weight
    }

    /// Function instances with body samples: the samples of [`stack_profile`].
    pub fn weighted_instances(&self) -> u64 {
        self.weighted_instances
    }

    pub fn context_sensitive(&self) -> bool {
        !self.contexts.is_empty()
    }

    pub fn md5(&self) -> bool {
        !self.md5.is_empty()
    }

    /// The columns this profile has, in table order.
    pub fn columns(&self) -> Vec<Column> {
        Column::ALL
            .into_iter()
            .filter(|&c| (c != Column::Context || self.context_sensitive()) && (c != Column::Md5 || self.md5()))
            .collect()
    }

    /// Row `id`, its name demangled if it was not yet.
    pub fn row(&mut self, id: u32) -> Option<SampleRow<'_>> {
        let index = usize::try_from(id).ok()?;
        let stats = *self.stats.get(index)?;
        let context = self.contexts.get(index).map(String::as_str).filter(|c| !c.is_empty());
        let md5 = self.md5.get(index).copied();
        let name = self.names.row(id)?;
        Some(SampleRow { id, raw: name.raw, demangled: name.demangled, context, md5, stats })
    }

    /// Every row id ordered by `column` (ties by row id, ascending either way).
    pub fn sorted(&mut self, column: Column, descending: bool) -> Vec<u32> {
        if column == Column::Name {
            return self.names.sorted(NameColumn::Name, descending);
        }
        let ids = 0..u32::try_from(self.stats.len()).unwrap_or(u32::MAX);
        if column == Column::Context {
            let mut order: Vec<u32> = ids.collect();
            let contexts = &self.contexts;
            order.sort_by(|&a, &b| {
                let (x, y) = (contexts.get(a as usize), contexts.get(b as usize));
                let by = if descending { y.cmp(&x) } else { x.cmp(&y) };
                by.then(a.cmp(&b))
            });
            return order;
        }
        let keys = self.stats.iter().zip(ids).map(|(s, id)| {
            let key =
                if column == Column::Md5 { self.md5.get(id as usize).copied().unwrap_or(0) } else { column.key(s) };
            (key, id)
        });
        ids_by_key(keys, descending)
    }

    /// The ids in `order` whose raw or demangled name (or context) contains
    /// `needle`, ASCII case ignored.
    pub fn filter(&mut self, order: &[u32], needle: &str) -> Vec<u32> {
        let by_name = self.names.filter(order, needle);
        if self.contexts.is_empty() || needle.is_empty() {
            return by_name;
        }
        let needle = needle.to_ascii_lowercase();
        // Both lists follow `order`: one walk keeps a name match or a context match.
        let mut names = by_name.iter().peekable();
        order
            .iter()
            .copied()
            .filter(|id| {
                if names.peek() == Some(&id) {
                    names.next();
                    return true;
                }
                self.contexts.get(*id as usize).is_some_and(|c| c.to_ascii_lowercase().contains(&needle))
            })
            .collect()
    }
}

/// One row of a function's line heat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeatRow {
    /// 0: the function's own lines and callsites; 1: those of a callee inlined into
    /// it; and so on.
    pub depth: u32,
    /// The location in the function (or inlined callee) this row is in.
    pub location: LineLocation,
    /// A body line's samples, or an inlined callee's total.
    pub samples: u64,
    /// The callee inlined here (an inline row); `None` for a body line.
    pub callee: Option<NameId>,
    /// A body line's call targets, most called first (then by name), as LLVM writes them.
    pub calls: Vec<CallTarget>,
    /// An inline row's rows: how many rows after it are its callee's.
    pub descendants: u32,
}

/// A function's inline tree flattened in pre-order: at each level, body lines and
/// inlined callsites by location (a line before the callees inlined at it), each
/// inline row followed by its callee's rows. Inline nesting deeper than
/// [`MAX_DEPTH`] is left out.
pub fn line_heat(names: &Names, function: &FunctionSamples) -> Vec<HeatRow> {
    let mut rows = Vec::new();
    heat_rows(names, function, 0, &mut rows);
    rows
}

fn heat_rows(names: &Names, f: &FunctionSamples, depth: u32, rows: &mut Vec<HeatRow>) {
    let mut body = f.body.iter().peekable();
    let mut callsites = f.callsites.iter().peekable();
    loop {
        let line_first = match (body.peek(), callsites.peek()) {
            (Some(b), Some(c)) => b.location <= c.location,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if line_first {
            let Some(b) = body.next() else { break };
            let mut calls = b.calls.clone();
            calls.sort_by(|x, y| y.count.cmp(&x.count).then_with(|| names.cmp(x.name, y.name)));
            rows.push(HeatRow { depth, location: b.location, samples: b.samples, callee: None, calls, descendants: 0 });
        } else {
            let Some(c) = callsites.next() else { break };
            let at = rows.len();
            rows.push(HeatRow {
                depth,
                location: c.location,
                samples: c.callee.total,
                callee: Some(c.callee.name),
                calls: Vec::new(),
                descendants: 0,
            });
            if (depth as usize) < MAX_DEPTH {
                heat_rows(names, &c.callee, depth.saturating_add(1), rows);
            }
            let below = u32::try_from(rows.len().saturating_sub(at).saturating_sub(1)).unwrap_or(u32::MAX);
            if let Some(row) = rows.get_mut(at) {
                row.descendants = below;
            }
        }
    }
}

/// Which frame of the stacks each name is, once interned.
#[derive(Clone, Debug, Default)]
pub struct SampleFrames {
    /// By [`NameId`]: its frame, or [`NO_FRAME`] while it has none.
    by_name: Vec<FrameId>,
}

impl SampleFrames {
    pub fn get(&self, name: NameId) -> Option<FrameId> {
        self.by_name.get(usize::try_from(name.0).ok()?).copied().filter(|&f| f != NO_FRAME)
    }

    /// The frame of `name`, interned in `stacks` on first use: its shown name, and
    /// the source file of a GCC profile's name as its dso.
    fn intern(&mut self, stacks: &mut StackProfile, profile: &Profile, name: NameId) -> FrameId {
        if let Some(frame) = self.get(name) {
            return frame;
        }
        let file = profile
            .names
            .get(name)
            .and_then(|e| e.file)
            .and_then(|i| profile.files.get(usize::try_from(i).ok()?))
            .map(|f| String::from_utf8_lossy(f).into_owned());
        let frame = stacks.frame(&shown_name(&profile.names, name), file.as_deref(), FrameKind::User);
        if let Ok(index) = usize::try_from(name.0) {
            if index >= self.by_name.len() {
                self.by_name.resize(index.saturating_add(1), NO_FRAME);
            }
            if let Some(slot) = self.by_name.get_mut(index) {
                *slot = frame;
            }
        }
        frame
    }
}

/// A sample profile as call stacks, and the frame of each name in them.
#[derive(Debug, Default)]
pub struct SampleStacks {
    pub stacks: StackProfile,
    pub frames: SampleFrames,
}

/// The profile as weighted stacks: every function instance with body samples is one
/// sample of event [`EVENT`] at time 0, weighing its body samples, whose stack is its
/// top-level function (or a CS profile's context frames) then the callees it is
/// inlined through.
pub fn stack_profile(profile: &Profile) -> SampleStacks {
    let mut stacks = StackProfile::new();
    let event = stacks.add_event(EVENT);
    let mut frames = SampleFrames::default();
    let mut path: Vec<FrameId> = Vec::new();
    let mut pending: Vec<(&FunctionSamples, NodeId, usize)> = Vec::new();
    for f in &profile.functions {
        path.clear();
        if f.context.is_empty() {
            path.push(frames.intern(&mut stacks, profile, f.name));
        } else {
            for frame in &f.context {
                path.push(frames.intern(&mut stacks, profile, frame.name));
            }
        }
        let Some(node) = stacks.stack(&path) else { continue };
        pending.push((f, node, 0));
        while let Some((instance, node, depth)) = pending.pop() {
            let weight = instance.body_samples();
            if weight > 0 {
                let _ = stacks.push_sample_at(event, 0, weight, node);
            }
            if depth >= MAX_DEPTH {
                continue;
            }
            for c in instance.callsites.iter().rev() {
                let frame = frames.intern(&mut stacks, profile, c.callee.name);
                if let Some(child) = stacks.child(node, frame) {
                    pending.push((&c.callee, child, depth.saturating_add(1)));
                }
            }
        }
    }
    SampleStacks { stacks, frames }
}

/// Top-level function `function`'s inline tree as a call tree rooted at the function
/// itself (the root's frame is the function's, not [`NO_FRAME`]): each node a frame
/// on an inline path, weighing the body samples of the instances there (callees of
/// one frame inlined at several locations merge, as in the call tree); siblings
/// ordered by frame name, nodes without samples left out. `frames` and `stacks` are
/// what [`stack_profile`] built. `None` for an unknown function.
pub fn inline_tree(
    profile: &Profile,
    function: usize,
    frames: &SampleFrames,
    stacks: &StackProfile,
) -> Option<CallTree> {
    let f = profile.functions.get(function)?;
    // The prefix tree of the instances by frame; a node's id is above its parent's.
    let mut parent: Vec<u32> = vec![0];
    let mut frame: Vec<FrameId> = vec![frames.get(f.name)?];
    let mut self_w: Vec<u64> = vec![0];
    let mut index: HashMap<(u32, FrameId), u32> = HashMap::new();
    let mut pending: Vec<(&FunctionSamples, u32, usize)> = vec![(f, 0, 0)];
    while let Some((instance, node, depth)) = pending.pop() {
        if let Some(w) = self_w.get_mut(node as usize) {
            *w = w.saturating_add(instance.body_samples());
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        for c in &instance.callsites {
            let Some(callee) = frames.get(c.callee.name) else { continue };
            let next = u32::try_from(parent.len()).ok()?;
            let child = *index.entry((node, callee)).or_insert_with(|| {
                parent.push(node);
                frame.push(callee);
                self_w.push(0);
                next
            });
            pending.push((&c.callee, child, depth.saturating_add(1)));
        }
    }
    let mut total = self_w.clone();
    for n in (1..parent.len()).rev() {
        let (Some(&p), Some(&t)) = (parent.get(n), total.get(n)) else { continue };
        if let Some(pt) = total.get_mut(p as usize) {
            *pt = pt.saturating_add(t);
        }
    }
    // Children of each node, by the frame order the call tree uses (name, dso, kind).
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); parent.len()];
    for (id, &p) in (0u32..).zip(&parent).skip(1) {
        if let Some(c) = children.get_mut(p as usize) {
            c.push(id);
        }
    }
    let key = |id: &u32| {
        let f = frame.get(*id as usize).and_then(|&f| stacks.frame_info(f));
        (f.map(|f| (f.name.as_str(), f.dso, f.kind)), *id)
    };
    for c in &mut children {
        c.sort_by(|a, b| key(a).cmp(&key(b)));
    }
    let mut tree = CallTree { nodes: Vec::with_capacity(parent.len()) };
    // (prefix node, its parent's index in the tree)
    let mut walk: Vec<(u32, u32)> = vec![(ROOT, 0)];
    while let Some((n, up)) = walk.pop() {
        let weight = total.get(n as usize).copied().unwrap_or(0);
        if weight == 0 && n != ROOT {
            continue;
        }
        let at = u32::try_from(tree.nodes.len()).ok()?;
        tree.nodes.push(CallNode {
            frame: frame.get(n as usize).copied().unwrap_or(NO_FRAME),
            parent: up,
            total: weight,
            self_weight: self_w.get(n as usize).copied().unwrap_or(0),
        });
        if let Some(c) = children.get(n as usize) {
            walk.extend(c.iter().rev().map(|&child| (child, at)));
        }
    }
    Some(tree)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::sample::model::{BodySample, Callsite};

    fn loc(line: u32, discriminator: u32) -> LineLocation {
        LineLocation { line, discriminator }
    }

    /// A body line: line, discriminator, samples, call targets (name, count).
    type Line<'a> = (u32, u32, u64, &'a [(&'a str, u64)]);

    fn body(names: &mut Names, rows: &[Line<'_>]) -> Vec<BodySample> {
        rows.iter()
            .map(|&(line, disc, samples, calls)| BodySample {
                location: loc(line, disc),
                samples,
                calls: calls
                    .iter()
                    .map(|&(n, count)| CallTarget { name: names.intern_bytes(n.as_bytes()).unwrap(), count })
                    .collect(),
            })
            .collect()
    }

    /// `_Z7run_opsi` of tests/corpus/llvm/sample-basic, and `main`, built through the model.
    fn run_ops() -> Profile {
        let mut p = Profile::new();
        let names = &mut p.names;
        let op_add = FunctionSamples {
            name: names.intern_bytes(b"_ZL6op_addll").unwrap(),
            total: 6000,
            body: body(names, &[(0, 0, 6000, &[])]),
            ..FunctionSamples::default()
        };
        let apply = FunctionSamples {
            name: names.intern_bytes(b"_Z5applyPFlllEll").unwrap(),
            total: 60000,
            body: body(
                names,
                &[(
                    0,
                    0,
                    10000,
                    &[("_ZL6op_addll", 6000), ("_ZL6op_subll", 1000), ("_ZL6op_maxll", 1000), ("_ZL6op_mulll", 2000)],
                )],
            ),
            callsites: vec![Callsite { location: loc(0, 0), callee: op_add }],
            ..FunctionSamples::default()
        };
        let run_ops = FunctionSamples {
            name: names.intern_bytes(b"_Z7run_opsi").unwrap(),
            total: 120000,
            head: 1,
            body: body(
                names,
                &[
                    (0, 0, 1, &[]),
                    (1, 0, 10001, &[]),
                    (1, 1, 6000, &[]),
                    (1, 2, 4001, &[]),
                    (2, 0, 10000, &[]),
                    (2, 3, 800, &[]),
                    (2, 4, 1200, &[]),
                    (3, 0, 10000, &[("_ZL6op_modll", 100), ("_ZL6op_addll", 6000), ("_ZL6op_divll", 300)]),
                    (5, 0, 1, &[]),
                ],
            ),
            callsites: vec![Callsite { location: loc(3, 0), callee: apply }],
            ..FunctionSamples::default()
        };
        let main = FunctionSamples {
            name: names.intern_bytes(b"main").unwrap(),
            total: 250000,
            head: 1,
            body: body(names, &[(1, 0, 1, &[]), (4, 0, 1, &[("_Z7run_opsi", 1)])]),
            ..FunctionSamples::default()
        };
        p.add(main);
        p.add(run_ops);
        p
    }

    #[test]
    fn the_table_has_the_functions_numbers() {
        let p = run_ops();
        let mut t = SampleTable::new(&p);
        assert_eq!(t.len(), 2);
        assert_eq!((t.weight(), t.weighted_instances()), (370000, 4));
        assert_eq!(
            t.columns(),
            [Column::Name, Column::Total, Column::Head, Column::Lines, Column::Inlined, Column::CallSites]
        );
        let r = t.row(1).unwrap();
        assert_eq!((r.raw, r.demangled), (&b"_Z7run_opsi"[..], Some("run_ops(int)")));
        assert_eq!(r.stats, FunctionStats { total: 120000, head: 1, lines: 9, inlined: 2, call_sites: 1 });
        assert_eq!(t.sorted(Column::Total, true), [0, 1]);
        assert_eq!(t.sorted(Column::Lines, true), [1, 0]);
        assert_eq!(t.sorted(Column::Name, false), [0, 1], "main < run_ops(int)");
        let all = t.sorted(Column::Total, true);
        assert_eq!(t.filter(&all, "RUN_"), [1]);
        assert_eq!(t.filter(&all, "_Z7"), [1]);
    }

    #[test]
    fn line_heat_interleaves_lines_and_inlined_callees() {
        let p = run_ops();
        let rows = line_heat(&p.names, &p.functions[1]);
        let shown: Vec<(u32, String, u64, Option<String>, u32)> = rows
            .iter()
            .map(|r| {
                let callee = r.callee.map(|c| shown_name(&p.names, c));
                (r.depth, location_string(r.location), r.samples, callee, r.descendants)
            })
            .collect();
        let apply = Some(String::from("apply(long (*)(long, long), long, long)"));
        let op_add = Some(String::from("op_add(long, long)"));
        assert_eq!(shown.len(), 9 + 1 + 1 + 1 + 1);
        assert_eq!(shown[7], (0, "3".into(), 10000, None, 0));
        assert_eq!(shown[8], (0, "3".into(), 60000, apply, 3));
        assert_eq!(shown[9], (1, "0".into(), 10000, None, 0));
        assert_eq!(shown[10], (1, "0".into(), 6000, op_add, 1));
        assert_eq!(shown[11], (2, "0".into(), 6000, None, 0));
        assert_eq!(shown[12], (0, "5".into(), 1, None, 0));
        // Call targets as LLVM writes them: most called first, ties by name.
        let calls: Vec<(String, u64)> = rows[9]
            .calls
            .iter()
            .map(|c| (String::from_utf8_lossy(&p.names.bytes(c.name)).into_owned(), c.count))
            .collect();
        assert_eq!(
            calls,
            [
                ("_ZL6op_addll".into(), 6000),
                ("_ZL6op_mulll".into(), 2000),
                ("_ZL6op_maxll".into(), 1000),
                ("_ZL6op_subll".into(), 1000)
            ]
        );
    }

    #[test]
    fn stacks_weigh_each_instance_on_its_inline_path() {
        let p = run_ops();
        let s = stack_profile(&p);
        assert_eq!(s.stacks.events(), [String::from(EVENT)]);
        let tree = s.stacks.call_tree(&crate::model::stacks::Filter::default());
        let name = |f: FrameId| s.stacks.frame_info(f).map_or("<root>", |f| f.name.as_str());
        let nodes: Vec<(u32, &str, u64, u64)> =
            tree.depths().zip(&tree.nodes).map(|(d, n)| (d, name(n.frame), n.total, n.self_weight)).collect();
        assert_eq!(
            nodes,
            [
                (0, "<root>", 2 + 42004 + 10000 + 6000, 0),
                (1, "main", 2, 2),
                (1, "run_ops(int)", 58004, 42004),
                (2, "apply(long (*)(long, long), long, long)", 16000, 10000),
                (3, "op_add(long, long)", 6000, 6000),
            ]
        );
        let inline = inline_tree(&p, 1, &s.frames, &s.stacks).unwrap();
        let nodes: Vec<(u32, &str, u64, u64)> =
            inline.depths().zip(&inline.nodes).map(|(d, n)| (d, name(n.frame), n.total, n.self_weight)).collect();
        assert_eq!(
            nodes,
            [
                (0, "run_ops(int)", 58004, 42004),
                (1, "apply(long (*)(long, long), long, long)", 16000, 10000),
                (2, "op_add(long, long)", 6000, 6000),
            ]
        );
        assert_eq!(inline.nodes[2].parent, 1);
        assert!(inline_tree(&p, 2, &s.frames, &s.stacks).is_none());
    }

    #[test]
    fn cs_and_md5_names() {
        let mut p = Profile::new();
        let main = p.names.intern_bytes(b"main").unwrap();
        let foo = p.names.intern_bytes(b"_Z3foov").unwrap();
        let hashed =
            p.names.intern(crate::formats::sample::model::NameEntry { name: Name::Md5(1234), file: None }).unwrap();
        let context = vec![Frame { name: main, location: loc(3, 1) }, Frame { name: foo, location: loc(0, 0) }];
        p.add(FunctionSamples {
            name: foo,
            context,
            total: 5,
            body: vec![BodySample { location: loc(1, 0), samples: 5, calls: Vec::new() }],
            ..FunctionSamples::default()
        });
        p.add(FunctionSamples { name: hashed, total: 7, ..FunctionSamples::default() });
        let mut t = SampleTable::new(&p);
        assert_eq!(
            t.columns(),
            [
                Column::Name,
                Column::Context,
                Column::Md5,
                Column::Total,
                Column::Head,
                Column::Lines,
                Column::Inlined,
                Column::CallSites
            ]
        );
        let r = t.row(0).unwrap();
        assert_eq!((r.demangled, r.context), (Some("foo()"), Some("[main:3.1 @ _Z3foov]")));
        let r = t.row(1).unwrap();
        assert_eq!((r.raw, r.md5), (&b"1234"[..], Some(1234)));
        let all = t.sorted(Column::Total, true);
        assert_eq!(t.filter(&all, "MAIN:3"), [0], "the context is searched");
        assert_eq!(t.sorted(Column::Md5, false), [1, 0], "1234 is below the MD5 of _Z3foov");
        let s = stack_profile(&p);
        let tree = s.stacks.call_tree(&crate::model::stacks::Filter::default());
        let names: Vec<&str> =
            tree.nodes.iter().skip(1).map(|n| s.stacks.frame_info(n.frame).unwrap().name.as_str()).collect();
        assert_eq!(names, ["main", "foo()"]);
    }
}
