//! One profile's samples added after another's: what joins the parts of a
//! recording read by two readers at once (`model::perf`'s `StackReader::join`).

use alloc::vec;
use alloc::vec::Vec;

use super::{FrameId, NodeId, StackProfile, ROOT};

impl StackProfile {
    /// Adds `other`'s samples after this profile's, with their events, frames and
    /// stacks interned here: those already here keep their ids, new ones follow in
    /// `other`'s order (so that a recording's parts, appended in order, give the
    /// ids one reader of the whole would have given). Returns the id each of
    /// `other`'s frames has here.
    pub fn append(&mut self, other: &StackProfile) -> Vec<FrameId> {
        let events: Vec<u32> = other.events.iter().map(|e| self.add_event(e)).collect();
        let frames: Vec<FrameId> = other
            .frames
            .iter()
            .map(|f| {
                let dso = f.dso.and_then(|d| other.dsos.get(d as usize)).map(alloc::string::String::as_str);
                let id = self.frame(&f.name, dso, f.kind);
                if let Some(s) = &f.source {
                    self.describe(id, s.raw.as_deref().unwrap_or(&f.name), s.file.as_deref(), s.line);
                }
                id
            })
            .collect();
        // A node's parent comes before it (nodes are only ever added under known ones).
        let mut nodes: Vec<Option<NodeId>> = vec![None; other.nodes.parent.len()];
        if let Some(root) = nodes.first_mut() {
            *root = Some(ROOT);
        }
        for n in 1..nodes.len() {
            let (Some(&parent), Some(&frame)) = (other.nodes.parent.get(n), other.nodes.frame.get(n)) else { break };
            let parent = nodes.get(..n).and_then(|before| before.get(parent as usize)).copied().flatten();
            let mapped = parent.zip(frames.get(frame as usize)).and_then(|(p, &f)| self.child(p, f));
            if let Some(slot) = nodes.get_mut(n) {
                *slot = mapped;
            }
        }
        self.reserve_samples(other.leaf.len());
        let samples = other.leaf.iter().zip(other.time.iter()).zip(other.weights()).zip(other.sample_events());
        for (((&leaf, time), &weight), &event) in samples {
            let leaf = nodes.get(leaf as usize).copied().flatten();
            if let (Some(leaf), Some(&event)) = (leaf, events.get(usize::from(event))) {
                self.push_sample_at(event, time, weight, leaf);
            }
        }
        frames
    }
}
