//! The stack views of a file with call stacks (perf.data call chains; sample-profile
//! inline trees later): the flame graph, its functions table, the sandwich of one
//! function, search and the timeline, all under a filter (an event and an optional
//! time range).
//!
//! Flame graphs cross to the page as typed arrays, not JSON: per rectangle, in the
//! layout's depth-then-x order, four `f64`s `[x0, width, self, frame]` (weights are
//! exact below 2^53), and the rows as `u32` offsets (`rows[d]..rows[d+1]` are depth
//! `d`'s rectangles). Slot [`MAIN`] holds the flame graph (or icicle), [`CALLERS`]
//! and [`CALLEES`] the sandwich of the last function asked for.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use pgolens::layout::flame::Flame;
use pgolens::model::stacks::{CallTree, Filter, FunctionStats, StackProfile, NO_FRAME};

use crate::session::json_string;

pub const MAIN: usize = 0;
pub const CALLERS: usize = 1;
pub const CALLEES: usize = 2;

/// A laid-out tree and the tree (for a rectangle's stack).
struct Laid {
    tree: CallTree,
    flame: Flame,
}

pub struct StacksView {
    pub profile: StackProfile,
    slots: [Option<Laid>; 3],
    /// The functions under the last filter, in the last order asked for.
    functions: Option<(FnKey, Vec<FunctionStats>, u64)>,
}

#[derive(PartialEq)]
struct FnKey {
    filter: Filter,
    column: String,
    descending: bool,
    names: String,
}

/// The filter the page describes: `t0 < t1` (both finite, not negative) keeps the
/// samples in `t0..t1`; anything else keeps all.
pub fn filter(event: u32, t0: f64, t1: f64) -> Filter {
    let time = (t0 >= 0.0 && t0 < t1 && t1.is_finite()).then_some((t0 as u64)..(t1 as u64));
    Filter { event, time }
}

impl StacksView {
    pub fn new(profile: StackProfile) -> StacksView {
        StacksView { profile, slots: [None, None, None], functions: None }
    }

    /// `{"events":[...],"frames","samples","start","end"}`: what the page's summary says of the stacks.
    pub fn info_json(&self, out: &mut String) {
        out.push_str("{\"events\":[");
        for (i, e) in self.profile.events().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(e, out);
        }
        let (start, end) = self.profile.time_range().unwrap_or((0, 0));
        let _ = write!(
            out,
            "],\"frames\":{},\"samples\":{},\"start\":{start},\"end\":{}}}",
            self.profile.frames().len(),
            self.profile.sample_count(),
            end.saturating_add(1)
        );
    }

    /// Lays out the flame graph (or, `inverted`, the icicle) into [`MAIN`]; returns
    /// the number of rectangles.
    pub fn flame(&mut self, filter: &Filter, inverted: bool) -> usize {
        let tree = if inverted { self.profile.inverted(filter) } else { self.profile.call_tree(filter) };
        self.lay(MAIN, tree)
    }

    /// Lays out the callers and callees of `frame` into [`CALLERS`] and [`CALLEES`].
    pub fn sandwich(&mut self, filter: &Filter, frame: u32) -> Result<(), String> {
        if self.profile.frame_info(frame).is_none() {
            return Err(alloc::format!("no frame {frame}"));
        }
        let s = self.profile.sandwich(filter, frame);
        self.lay(CALLERS, s.callers);
        self.lay(CALLEES, s.callees);
        Ok(())
    }

    fn lay(&mut self, slot: usize, tree: CallTree) -> usize {
        let flame = Flame::from_tree(&tree);
        let n = flame.len();
        if let Some(s) = self.slots.get_mut(slot) {
            *s = Some(Laid { tree, flame });
        }
        n
    }

    fn laid(&self, slot: usize) -> Result<&Laid, String> {
        self.slots.get(slot).and_then(Option::as_ref).ok_or_else(|| String::from("no flame graph laid out"))
    }

    /// The rectangles of `slot`: `[x0, width, self, frame]` each (the root's frame is -1).
    pub fn rects(&self, slot: usize) -> Result<Vec<f64>, String> {
        let Laid { tree, flame } = self.laid(slot)?;
        let mut out = Vec::with_capacity(flame.len().saturating_mul(4));
        for ((&x0, &w), &node) in flame.x0.iter().zip(&flame.width).zip(&flame.node) {
            let n = tree.nodes.get(node as usize);
            let frame = n.map_or(NO_FRAME, |n| n.frame);
            out.extend([
                x0 as f64,
                w as f64,
                n.map_or(0.0, |n| n.self_weight as f64),
                if frame == NO_FRAME { -1.0 } else { f64::from(frame) },
            ]);
        }
        Ok(out)
    }

    /// Where each depth's rectangles start in [`StacksView::rects`], and the end.
    pub fn rows(&self, slot: usize) -> Result<Vec<u32>, String> {
        Ok(self.laid(slot)?.flame.depth_start.clone())
    }

    /// One rectangle for a tooltip: `{"frame","name","dso"?,"kind","depth","self","total","stack":[names from the root]}`.
    pub fn node_json(&self, slot: usize, rect: u32) -> Result<String, String> {
        let Laid { tree, flame } = self.laid(slot)?;
        let node = flame.node.get(rect as usize).copied().ok_or_else(|| alloc::format!("no rectangle {rect}"))?;
        let n = tree.nodes.get(node as usize).ok_or_else(|| alloc::format!("no rectangle {rect}"))?;
        let mut out = alloc::format!("{{\"frame\":{},", if n.frame == NO_FRAME { -1 } else { i64::from(n.frame) });
        self.frame_fields(n.frame, &mut out);
        let _ =
            write!(out, ",\"depth\":{},\"self\":\"{}\",\"total\":\"{}\",\"stack\":[", n.depth, n.self_weight, n.total);
        for (i, f) in tree.path(node).into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(self.name(f), &mut out);
        }
        out.push_str("]}");
        Ok(out)
    }

    fn name(&self, frame: u32) -> &str {
        self.profile.frame_info(frame).map_or("all", |f| f.name.as_str())
    }

    /// `"name":…,"dso":…,"kind":…` (no dso when unknown).
    fn frame_fields(&self, frame: u32, out: &mut String) {
        out.push_str("\"name\":");
        json_string(self.name(frame), out);
        if let Some(dso) = self.profile.frame_dso(frame) {
            out.push_str(",\"dso\":");
            json_string(dso, out);
        }
        let kind = self.profile.frame_info(frame).map_or("root", |f| f.kind.id());
        let _ = write!(out, ",\"kind\":\"{kind}\"");
    }

    /// Every frame's name, dso and kind by frame id: `{"names":[...],"dsos":[...],
    /// "dso":[index into dsos or -1],"kinds":["user"|"kernel"|"inlined"|"unknown"]}`.
    pub fn names_json(&self) -> String {
        let mut out = String::from("{\"names\":[");
        let frames = self.profile.frames();
        for (i, f) in frames.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(&f.name, &mut out);
        }
        out.push_str("],\"dsos\":[");
        for (i, d) in self.profile.dsos().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(d, &mut out);
        }
        out.push_str("],\"dso\":[");
        for (i, f) in frames.iter().enumerate() {
            let _ = write!(out, "{}{}", if i > 0 { "," } else { "" }, f.dso.map_or(-1, i64::from));
        }
        out.push_str("],\"kinds\":[");
        for (i, f) in frames.iter().enumerate() {
            let _ = write!(out, "{}\"{}\"", if i > 0 { "," } else { "" }, f.kind.id());
        }
        out.push_str("]}");
        out
    }

    /// A page of the functions table under `filter`: the functions whose names contain
    /// `names` (case ignored), ordered by `column` (`name`, `self` or `total`).
    /// `{"total","matching","weight","start","rows":[{"frame","name","dso"?,"kind","self","total"}]}`,
    /// weights as decimal strings; `weight` is the filter's total weight.
    #[allow(clippy::too_many_arguments)]
    pub fn functions_json(
        &mut self,
        filter: Filter,
        column: &str,
        descending: bool,
        names: &str,
        start: u32,
        count: u32,
    ) -> Result<String, String> {
        if !matches!(column, "name" | "self" | "total") {
            return Err(alloc::format!("no column {column:?}"));
        }
        let key = FnKey { filter, column: String::from(column), descending, names: names.to_ascii_lowercase() };
        if self.functions.as_ref().is_none_or(|(k, _, _)| *k != key) {
            let profile = &self.profile;
            let mut rows = profile.functions(&key.filter);
            // Every sample has one leaf: the self weights add up to the filter's total.
            let weight = rows.iter().fold(0u64, |w, r| w.saturating_add(r.self_weight));
            let name = |f: u32| profile.frame_info(f).map_or("", |f| f.name.as_str());
            if !key.names.is_empty() {
                rows.retain(|r| pgolens::model::stacks::matches(&key.names, name(r.frame)));
            }
            match column {
                "name" => rows.sort_by(|a, b| name(a.frame).cmp(name(b.frame)).then(a.frame.cmp(&b.frame))),
                "self" => rows.sort_by_key(|r| (r.self_weight, r.total, u32::MAX.saturating_sub(r.frame))),
                _ => rows.sort_by_key(|r| (r.total, r.self_weight, u32::MAX.saturating_sub(r.frame))),
            }
            if descending {
                rows.reverse();
            }
            self.functions = Some((key, rows, weight));
        }
        let (rows, all_total) = self.functions.as_ref().map(|(_, r, w)| (r.as_slice(), *w)).unwrap_or_default();
        let with_weight = self.profile.frames().len();
        let from = (start as usize).min(rows.len());
        let mut out = alloc::format!(
            "{{\"total\":{with_weight},\"matching\":{},\"weight\":\"{all_total}\",\"start\":{from},\"rows\":[",
            rows.len()
        );
        for (i, r) in rows.get(from..).unwrap_or_default().iter().take(count as usize).enumerate() {
            let _ = write!(out, "{}{{\"frame\":{},", if i > 0 { "," } else { "" }, r.frame);
            self.frame_fields(r.frame, &mut out);
            let _ = write!(out, ",\"self\":\"{}\",\"total\":\"{}\"}}", r.self_weight, r.total);
        }
        out.push_str("]}");
        Ok(out)
    }

    /// `{"frames":[ids],"weight","total"}` (weights as decimal strings).
    pub fn search_json(&self, filter: &Filter, pattern: &str) -> String {
        let s = self.profile.search(filter, pattern);
        let mut out = String::from("{\"frames\":[");
        for (i, f) in s.frames.iter().enumerate() {
            let _ = write!(out, "{}{f}", if i > 0 { "," } else { "" });
        }
        let _ = write!(out, "],\"weight\":\"{}\",\"total\":\"{}\"}}", s.weight, s.total);
        out
    }

    /// `{"start","end","bins":[weights]}` over all the samples' time.
    pub fn timeline_json(&self, event: u32, bins: u32) -> String {
        let t = self.profile.timeline(&Filter { event, time: None }, bins.min(4096));
        let mut out = alloc::format!("{{\"start\":{},\"end\":{},\"bins\":[", t.start, t.end);
        for (i, b) in t.bins.iter().enumerate() {
            let _ = write!(out, "{}{b}", if i > 0 { "," } else { "" });
        }
        out.push_str("]}");
        out
    }
}
