//! The call tree of a file with call stacks: top-down (callers above their callees)
//! or bottom-up (inverted: each function that has self weight, above its callers),
//! siblings heaviest first, as `perf report` and the Firefox Profiler show it. It
//! aggregates the same samples as the flame graph ([`crate::views::flame::Stacks`]:
//! event, time range, transforms) and shares its selected function.

use std::rc::Rc;

use pgolens_protocol::{CallTreeNodes, DocId, Reply, Request, SampleFilter};

use crate::app::link::Params;
use crate::app::outbox::Outbox;

/// A call tree as the worker sends it: nodes in pre-order, node 0 the root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeData {
    /// Per node: its frame ([`u32::MAX`] for the root), its parent's index, its
    /// total and self weight.
    pub frame: Vec<u32>,
    pub parent: Vec<u32>,
    pub total: Vec<u64>,
    pub self_weight: Vec<u64>,
}

impl TreeData {
    pub fn from_nodes(nodes: CallTreeNodes) -> TreeData {
        TreeData {
            frame: nodes.frame.0,
            parent: nodes.parent.0,
            total: nodes.total.0.iter().map(|&t| t as u64).collect(),
            self_weight: nodes.self_weight.0.iter().map(|&s| s as u64).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.frame.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frame.is_empty()
    }
}

/// The call tree view's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallTreeState {
    /// Bottom-up rather than top-down.
    pub inverted: bool,
    /// The tree shown, and what it was built for.
    pub tree: Option<Rc<TreeData>>,
    pub tree_of: Option<(SampleFilter, bool)>,
    /// What the last request was for.
    pub asked: Option<(SampleFilter, bool)>,
}

/// What the user does in the call tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// Top-down ↔ bottom-up.
    ToggleInverted,
}

impl CallTreeState {
    /// Applies `msg`; returns whether anything changed (then [`Self::refresh`]).
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::ToggleInverted => {
                self.inverted = !self.inverted;
                true
            }
        }
    }

    /// Asks for the tree under `samples` unless it was asked for. Returns whether it asked.
    pub fn refresh(&mut self, samples: &SampleFilter, doc: DocId, out: &mut Outbox) -> bool {
        let key = (samples.clone(), self.inverted);
        if self.asked.as_ref() == Some(&key) {
            return false;
        }
        out.send(doc, Request::CallTree { samples: samples.clone(), inverted: self.inverted });
        self.asked = Some(key);
        true
    }

    /// Takes the worker's tree; `false` for an older request's or another reply.
    pub fn on_reply(&mut self, reply: Reply) -> bool {
        let Reply::CallTree { samples, inverted, tree } = reply else { return false };
        let key = Some((samples, inverted));
        if self.asked != key {
            return false;
        }
        self.tree = Some(Rc::new(TreeData::from_nodes(tree)));
        self.tree_of = key;
        true
    }

    /// The call tree's part of a link: `bottom-up` when inverted.
    pub fn write_link(&self, link: &mut Params) {
        if self.inverted {
            link.push("bottom-up", "1");
        }
    }

    /// Takes a link's part (see [`Self::write_link`]); the tree is asked for again.
    pub fn read_link(&mut self, link: &Params) {
        *self = CallTreeState { inverted: link.flag("bottom-up"), ..CallTreeState::default() };
    }

    /// The frames were named anew: the tree's frame ids changed.
    pub fn symbolized(&mut self) {
        *self = CallTreeState { inverted: self.inverted, ..CallTreeState::default() };
    }
}
