//! The same samples under other frames: how a perf.data's stacks are symbolized
//! after the binaries arrive, from the profile of its addresses, without reading
//! the recording again.
//!
//! Every frame of the source profile is replaced by the frames its caller gives
//! (none, one, or a function with its inlined callees), computed once per frame;
//! the prefix tree is rebuilt node by node, parents first, and the samples keep
//! their times, weights and events, each moved to its leaf's new node. The cost is
//! one pass over the nodes and one over the samples.

use alloc::vec;
use alloc::vec::Vec;

use super::{transform, Frame, FrameId, NodeId, StackProfile, ROOT};

impl StackProfile {
    /// This profile with each frame replaced by what `expand` appends for it
    /// (frames of the new profile, outermost first; nothing merges the frame into
    /// its caller). `expand` interns the frames it appends into the profile it is
    /// given, the new one.
    pub fn relabel(
        &self,
        mut expand: impl FnMut(&mut StackProfile, FrameId, &Frame, &mut Vec<FrameId>),
    ) -> StackProfile {
        let mut out = StackProfile::new();
        out.events.clone_from(&self.events);
        // Per source frame: its expansion's range in `arena`, filled on first use.
        let mut spans: Vec<Option<(usize, usize)>> = vec![None; self.frames.len()];
        let mut arena: Vec<FrameId> = Vec::new();
        let mut map: Vec<NodeId> = Vec::with_capacity(self.nodes.parent.len());
        map.push(ROOT);
        for (&parent, &frame) in self.nodes.parent.iter().zip(&self.nodes.frame).skip(1) {
            let span = match spans.get(frame as usize).copied().flatten() {
                Some(span) => span,
                None => {
                    let start = arena.len();
                    if let Some(info) = self.frames.get(frame as usize) {
                        expand(&mut out, frame, info, &mut arena);
                    }
                    let span = (start, arena.len());
                    if let Some(slot) = spans.get_mut(frame as usize) {
                        *slot = Some(span);
                    }
                    span
                }
            };
            let mut node = map.get(parent as usize).copied().unwrap_or(transform::DROPPED);
            for &f in arena.get(span.0..span.1).unwrap_or(&[]) {
                node = out.nodes.child(node, f);
            }
            map.push(node);
        }
        // A node past the id space (never, short of 2^32 nodes) keeps its samples at the root.
        let moved =
            |leaf: &NodeId| map.get(*leaf as usize).copied().filter(|&n| n != transform::DROPPED).unwrap_or(ROOT);
        out.leaf = self.leaf.iter().map(moved).collect();
        out.time.clone_from(&self.time);
        out.time_span = self.time_span;
        out.weight.clone_from(&self.weight);
        out.event.clone_from(&self.event);
        out
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    use super::super::{Filter, FrameKind, StackProfile};

    /// Addresses become functions: two addresses of one function merge, an address
    /// with an inlined callee becomes two frames, an address with no symbol goes.
    #[test]
    fn frames_expand_merge_and_vanish() {
        let mut raw = StackProfile::new();
        raw.add_event("cycles");
        let [main, a1, a2, b, gone] =
            ["0x10", "0x20", "0x24", "0x30", "0x40"].map(|n| raw.frame(n, Some("p"), FrameKind::User));
        raw.push_sample(0, 5, 1, &[main, a1]).unwrap();
        raw.push_sample(0, 6, 1, &[main, a2]).unwrap();
        raw.push_sample(0, 7, 3, &[main, b]).unwrap();
        raw.push_sample(0, 8, 1, &[main, gone]).unwrap();
        let named = raw.relabel(|out, _, frame, frames| {
            let names: &[&str] = match frame.name.as_str() {
                "0x10" => &["main"],
                "0x20" | "0x24" => &["a"],
                "0x30" => &["b", "b_inlined"],
                _ => &[],
            };
            for name in names {
                let kind = if name.ends_with("inlined") { FrameKind::Inlined } else { FrameKind::User };
                frames.push(out.frame(name, Some("p"), kind));
            }
        });
        let tree = named.call_tree(&Filter::default());
        let rows: Vec<(String, u64, u64)> = tree
            .nodes
            .iter()
            .skip(1)
            .map(|n| (named.frame_info(n.frame).unwrap().name.clone(), n.total, n.self_weight))
            .collect();
        let row = |n: &str, t, s| (String::from(n), t, s);
        assert_eq!(rows, [row("main", 6, 1), row("a", 2, 2), row("b", 3, 0), row("b_inlined", 3, 3)], "{rows:?}");
        assert_eq!(named.sample_count(), 4);
        assert_eq!(named.time_range(), Some((5, 8)));
        // The source is untouched.
        assert_eq!(raw.call_tree(&Filter::default()).nodes.len(), 6);
    }
}
