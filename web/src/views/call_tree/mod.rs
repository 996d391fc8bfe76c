//! The call tree of a file with call stacks: top-down (callers above their callees)
//! or bottom-up (inverted: each function that has self weight, above its callers),
//! siblings heaviest first, as `perf report` and the Firefox Profiler show it. It
//! aggregates the same samples as the flame graph ([`crate::views::flame::Stacks`]:
//! event, time range, transforms) and shares its selected function.
//!
//! The tree is shown as a WAI-ARIA tree grid (<https://www.w3.org/WAI/ARIA/apg/patterns/treegrid/>,
//! keys of the tree pattern): only its visible rows are drawn. Which rows are visible
//! follows from the expanded nodes alone: nodes are in pre-order, so a node's
//! subtree is the range `node..end[node]`, and the visible rows are one walk that
//! skips the subtrees of collapsed nodes — O(rows shown), no allocation per row,
//! for trees of millions of nodes. The root (all samples) is not a row: its
//! children are the top level.

use std::rc::Rc;

use pgolens_protocol::{CallTreeNodes, DocId, Reply, Request, SampleFilter};

use crate::app::link::Params;
use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod call_tree_view;

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

/// What is derived once per tree, in O(n): each node's subtree end, depth, place
/// among its siblings and number of children.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Per node: one past the last node of its subtree.
    pub end: Vec<u32>,
    /// Per node: 0 for the root, 1 for the top level.
    pub depth: Vec<u32>,
    /// Per node: its 1-based position among its siblings (heaviest first).
    pub position: Vec<u32>,
    pub children: Vec<u32>,
}

impl Shape {
    pub fn of(tree: &TreeData) -> Shape {
        let n = tree.len();
        let mut shape =
            Shape { end: (1..=n as u32).collect(), depth: vec![0; n], position: vec![0; n], children: vec![0; n] };
        // In pre-order a parent comes before its children; a parent index that does
        // not is a malformed tree, whose node is then left as a leaf of the root.
        for (i, &parent) in tree.parent.iter().enumerate().skip(1) {
            let parent = parent as usize;
            if parent >= i {
                continue;
            }
            shape.depth[i] = shape.depth[parent].saturating_add(1);
            shape.children[parent] = shape.children[parent].saturating_add(1);
            shape.position[i] = shape.children[parent];
        }
        for (i, &parent) in tree.parent.iter().enumerate().skip(1).rev() {
            let parent = parent as usize;
            if parent < i {
                shape.end[parent] = shape.end[parent].max(shape.end[i]);
            }
        }
        shape
    }

    pub fn len(&self) -> usize {
        self.end.len()
    }

    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }

    pub fn has_children(&self, node: u32) -> bool {
        self.children.get(node as usize).is_some_and(|&c| c > 0)
    }
}

/// Which nodes are expanded, and the visible rows that follows (node indices, in
/// pre-order: sorted, so a node's row is a binary search away).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Open {
    pub expanded: Vec<bool>,
    pub rows: Vec<u32>,
}

impl Open {
    /// Nothing expanded but the root.
    fn new(shape: &Shape) -> Open {
        let mut open = Open { expanded: vec![false; shape.len()], rows: Vec::new() };
        if let Some(root) = open.expanded.first_mut() {
            *root = true;
        }
        open.rebuild(shape);
        open
    }

    /// The visible rows from the expanded set: a walk that enters expanded nodes and
    /// jumps over the subtrees of the others (their ancestors are all expanded, as
    /// the walk only ever entered expanded nodes).
    fn rebuild(&mut self, shape: &Shape) {
        self.rows.clear();
        let n = shape.len();
        let mut node = 1;
        while node < n {
            self.rows.push(node as u32);
            node = if self.expanded[node] { node + 1 } else { shape.end[node] as usize };
        }
    }

    /// The visible rows below `node` again, after its subtree's expansion changed:
    /// its old rows are replaced in place, so expanding 100k nodes costs those rows,
    /// not the whole tree's. A hidden node (or the root) rebuilds everything.
    fn rebuild_below(&mut self, shape: &Shape, node: u32) {
        let (Ok(row), Some(&end)) = (self.rows.binary_search(&node), shape.end.get(node as usize)) else {
            self.rebuild(shape);
            return;
        };
        let from = row + 1;
        let to = from + self.rows.get(from..).map_or(0, |rest| rest.partition_point(|&r| r < end));
        let mut fresh = Vec::new();
        if self.is_expanded(node) {
            let mut at = node as usize + 1;
            while at < end as usize {
                fresh.push(at as u32);
                at = if self.expanded[at] { at + 1 } else { shape.end[at] as usize };
            }
        }
        self.rows.splice(from..to, fresh);
    }

    pub fn row_of(&self, node: u32) -> Option<usize> {
        self.rows.binary_search(&node).ok()
    }

    pub fn is_expanded(&self, node: u32) -> bool {
        self.expanded.get(node as usize).copied().unwrap_or(false)
    }
}

/// A key of the tree pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Up,
    Down,
    /// Collapses, or goes to the parent.
    Left,
    /// Expands, or goes to the first child.
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    /// `*`: expands everything below the selected node.
    ExpandAll,
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
    /// The tree's shape and its expanded nodes (behind `Rc`: a document is copied on
    /// every change, these are per node).
    pub shape: Rc<Shape>,
    pub open: Rc<Open>,
    /// The selected node (its frame is the stack views' shared selection).
    pub selected: Option<u32>,
    /// Bumped when the selected row should be scrolled into view.
    pub reveal: u64,
}

/// What the user does in the call tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// Top-down ↔ bottom-up.
    ToggleInverted,
    /// Expand or collapse a node (a double-click, or its triangle).
    Toggle(u32),
    /// Select a node (a click).
    Select(u32),
    /// A key of the tree pattern; `page`: how many rows a page holds.
    Key { key: Key, page: u32 },
    /// Select the heaviest node of this frame, its ancestors expanded: the shared
    /// selection made elsewhere (the flame graph, the Functions table).
    Reveal(u32),
}

/// A new tree opens the chain of heaviest children from the root for as long as
/// the child holds at least half of all the weight: where most of the time goes is
/// in sight at once (the Firefox Profiler opens its heaviest stack the same way),
/// and a flat profile is not unfolded to no purpose.
pub const AUTO_EXPAND_SHARE: f64 = 0.5;

impl CallTreeState {
    /// Applies `msg`; returns whether anything changed (then [`Self::refresh`]).
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::ToggleInverted => {
                self.inverted = !self.inverted;
                true
            }
            Msg::Toggle(node) => {
                if !self.shape.has_children(node) || node == 0 {
                    return false;
                }
                let expand = !self.open.is_expanded(node);
                self.set_expanded(node, expand);
                true
            }
            Msg::Select(node) => self.select(node, false),
            Msg::Key { key, page } => self.key(key, page.max(1) as usize),
            Msg::Reveal(frame) => self.reveal_frame(frame),
        }
    }

    /// The frame of the selected node.
    pub fn selected_frame(&self) -> Option<u32> {
        let tree = self.tree.as_ref()?;
        tree.frame.get(self.selected? as usize).copied().filter(|&f| f != u32::MAX)
    }

    fn select(&mut self, node: u32, scroll: bool) -> bool {
        if node == 0 || node as usize >= self.shape.len() || self.selected == Some(node) && !scroll {
            return false;
        }
        self.selected = Some(node);
        if scroll {
            self.reveal = self.reveal.wrapping_add(1);
        }
        true
    }

    fn set_expanded(&mut self, node: u32, expand: bool) {
        let shape = Rc::clone(&self.shape);
        let open = Rc::make_mut(&mut self.open);
        if let Some(e) = open.expanded.get_mut(node as usize) {
            *e = expand;
        }
        open.rebuild_below(&shape, node);
        // A collapsed node's selected descendant hands the selection to it.
        let end = shape.end.get(node as usize).copied().unwrap_or(0);
        if !expand && self.selected.is_some_and(|s| s > node && s < end) {
            self.selected = Some(node);
        }
    }

    fn key(&mut self, key: Key, page: usize) -> bool {
        let rows = &self.open.rows;
        let Some(&last) = rows.last() else { return false };
        let Some(node) = self.selected else {
            // Nothing selected yet: any key lands on the first row.
            return self.select(rows[0], true);
        };
        let row = self.open.row_of(node);
        let shape = Rc::clone(&self.shape);
        let target = match key {
            Key::Up => row.map_or(rows[0], |r| rows[r.saturating_sub(1)]),
            Key::Down => row.map_or(rows[0], |r| rows[(r + 1).min(rows.len() - 1)]),
            Key::Home => rows[0],
            Key::End => last,
            Key::PageUp => row.map_or(rows[0], |r| rows[r.saturating_sub(page)]),
            Key::PageDown => row.map_or(rows[0], |r| rows[(r + page).min(rows.len() - 1)]),
            Key::Right if shape.has_children(node) => {
                if !self.open.is_expanded(node) {
                    self.set_expanded(node, true);
                    return true;
                }
                node + 1
            }
            Key::Right => return false,
            Key::Left if shape.has_children(node) && self.open.is_expanded(node) => {
                self.set_expanded(node, false);
                return true;
            }
            Key::Left => {
                let parent = self.tree.as_ref().and_then(|t| t.parent.get(node as usize).copied()).unwrap_or(0);
                if parent == 0 {
                    return false;
                }
                parent
            }
            Key::ExpandAll => {
                let end = shape.end[node as usize] as usize;
                let open = Rc::make_mut(&mut self.open);
                open.expanded[node as usize..end].fill(true);
                open.rebuild_below(&shape, node);
                self.reveal = self.reveal.wrapping_add(1);
                return true;
            }
        };
        self.select(target, true)
    }

    /// Selects the heaviest node of `frame` and expands its ancestors; `false` when
    /// it is selected already or not in the tree.
    fn reveal_frame(&mut self, frame: u32) -> bool {
        if self.selected_frame() == Some(frame) {
            return false;
        }
        let Some(tree) = self.tree.clone() else { return false };
        let heaviest = tree
            .frame
            .iter()
            .zip(&tree.total)
            .enumerate()
            .filter(|(_, (&f, _))| f == frame)
            .max_by(|(a, (_, ta)), (b, (_, tb))| ta.cmp(tb).then(b.cmp(a)))
            .map(|(node, _)| node as u32);
        let Some(node) = heaviest else { return false };
        let open = Rc::make_mut(&mut self.open);
        let mut up = tree.parent.get(node as usize).copied().unwrap_or(0);
        while up != 0 {
            let Some(e) = open.expanded.get_mut(up as usize) else { break };
            *e = true;
            match tree.parent.get(up as usize) {
                Some(&p) if p < up => up = p,
                _ => break,
            }
        }
        open.rebuild(&self.shape);
        self.select(node, true)
    }

    /// A new tree: nothing selected, its heaviest chain opened (see [`AUTO_EXPAND_SHARE`]).
    /// Bottom-up, a function's self weight is that of its top-level node (the
    /// samples it was running in, as `perf report --no-children` counts them): the
    /// worker's inverted tree has it at the outermost callers instead.
    fn arrived(&mut self, mut tree: TreeData, inverted: bool) {
        if inverted {
            for ((own, &total), &parent) in tree.self_weight.iter_mut().zip(&tree.total).zip(&tree.parent).skip(1) {
                *own = if parent == 0 { total } else { 0 };
            }
        }
        let shape = Shape::of(&tree);
        let mut open = Open::new(&shape);
        let root_total = tree.total.first().copied().unwrap_or(0) as f64;
        let mut node = 0usize;
        // Children come heaviest first: the first child, `node + 1`, is the heaviest.
        while shape.children.get(node).is_some_and(|&c| c > 0) {
            let child = node + 1;
            if root_total <= 0.0 || (tree.total[child] as f64) < root_total * AUTO_EXPAND_SHARE {
                break;
            }
            open.expanded[child] = true;
            node = child;
        }
        open.rebuild(&shape);
        self.tree = Some(Rc::new(tree));
        self.shape = Rc::new(shape);
        self.open = Rc::new(open);
        self.selected = None;
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
        self.arrived(TreeData::from_nodes(tree), inverted);
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

#[cfg(test)]
mod tests {
    use super::*;

    // main 100 ─┬─ work 80 (self 10) ─┬─ compute 40
    //           │                     └─ memcpy 30
    //           └─ idle 20 ── read 20
    // Frames: main 0, work 1, memcpy 2, idle 3, read 4, compute 5.
    const MAIN: u32 = 0;
    const READ: u32 = 4;
    const COMPUTE: u32 = 5;

    fn tree() -> TreeData {
        TreeData {
            frame: vec![u32::MAX, MAIN, 1, COMPUTE, 2, 3, READ],
            parent: vec![0, 0, 1, 2, 2, 1, 5],
            total: vec![100, 100, 80, 40, 30, 20, 20],
            self_weight: vec![0, 0, 10, 40, 30, 0, 20],
        }
    }

    fn state() -> CallTreeState {
        let mut s = CallTreeState::default();
        s.arrived(tree(), false);
        s
    }

    fn key(s: &mut CallTreeState, key: Key) -> bool {
        s.update(Msg::Key { key, page: 2 })
    }

    #[test]
    fn the_shape_gives_each_subtree_its_range() {
        let shape = Shape::of(&tree());
        assert_eq!(shape.end, vec![7, 7, 5, 4, 5, 7, 7]);
        assert_eq!(shape.depth, vec![0, 1, 2, 3, 3, 2, 3]);
        assert_eq!(shape.position, vec![0, 1, 1, 1, 2, 2, 1]);
        assert_eq!(shape.children, vec![1, 2, 2, 0, 0, 1, 0]);
    }

    #[test]
    fn a_new_tree_opens_its_heaviest_chain_while_it_holds_half_the_weight() {
        let s = state();
        // main (100%) and work (80%) open; compute (40%) is not.
        assert_eq!(s.open.rows, vec![1, 2, 3, 4, 5]);
        assert_eq!(s.selected, None);
    }

    #[test]
    fn bottom_up_self_weight_is_the_top_levels() {
        // compute 40 ── work 40 ── main 40, the worker's self at main.
        let mut s = CallTreeState::default();
        let tree = TreeData {
            frame: vec![u32::MAX, COMPUTE, 1, MAIN],
            parent: vec![0, 0, 1, 2],
            total: vec![40, 40, 40, 40],
            self_weight: vec![0, 0, 0, 40],
        };
        s.arrived(tree, true);
        assert_eq!(s.tree.as_ref().map(|t| t.self_weight.clone()), Some(vec![0, 40, 0, 0]));
    }

    #[test]
    fn the_arrow_keys_walk_expand_and_collapse() {
        let mut s = state();
        assert!(key(&mut s, Key::Down));
        assert_eq!(s.selected, Some(1));
        assert_eq!(s.selected_frame(), Some(MAIN));
        key(&mut s, Key::Down);
        assert_eq!(s.selected, Some(2));
        // Left collapses work, then goes to its parent.
        key(&mut s, Key::Left);
        assert_eq!((s.selected, s.open.rows.clone()), (Some(2), vec![1, 2, 5]));
        key(&mut s, Key::Left);
        assert_eq!(s.selected, Some(1));
        assert!(!key(&mut s, Key::Left) || s.open.rows == vec![1]);
        // main collapsed: Right expands it, Right again goes to its first child.
        assert_eq!(s.open.rows, vec![1]);
        key(&mut s, Key::Right);
        assert_eq!(s.open.rows, vec![1, 2, 5]);
        key(&mut s, Key::Right);
        assert_eq!(s.selected, Some(2));
        key(&mut s, Key::Right);
        assert_eq!(s.open.rows, vec![1, 2, 3, 4, 5]);
        key(&mut s, Key::End);
        assert_eq!(s.selected, Some(5));
        // A leaf has nothing to expand.
        key(&mut s, Key::Right);
        key(&mut s, Key::Right);
        assert_eq!(s.selected, Some(6));
        assert!(!key(&mut s, Key::Right));
        key(&mut s, Key::Home);
        assert_eq!(s.selected, Some(1));
        key(&mut s, Key::PageDown);
        assert_eq!(s.selected, Some(3));
        key(&mut s, Key::PageDown);
        key(&mut s, Key::PageDown);
        assert_eq!(s.selected, Some(6));
        key(&mut s, Key::PageUp);
        assert_eq!(s.selected, Some(4));
        key(&mut s, Key::Up);
        assert_eq!(s.selected, Some(3));
    }

    #[test]
    fn star_expands_everything_below_the_selected_node() {
        let mut s = state();
        key(&mut s, Key::Down);
        key(&mut s, Key::Left);
        assert_eq!(s.open.rows, vec![1]);
        key(&mut s, Key::ExpandAll);
        assert_eq!(s.open.rows, vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn collapsing_an_ancestor_of_the_selected_node_selects_the_ancestor() {
        let mut s = state();
        s.update(Msg::Select(4));
        assert!(s.update(Msg::Toggle(2)));
        assert_eq!((s.selected, s.open.rows.clone()), (Some(2), vec![1, 2, 5]));
        // Leaves and the root do not toggle.
        assert!(!s.update(Msg::Toggle(6)));
        assert!(!s.update(Msg::Toggle(0)));
    }

    #[test]
    fn revealing_a_frame_opens_its_heaviest_node() {
        let mut s = state();
        let reveal = s.reveal;
        assert!(s.update(Msg::Reveal(READ)));
        assert_eq!(s.selected, Some(6));
        assert_eq!(s.open.rows, vec![1, 2, 3, 4, 5, 6]);
        assert_ne!(s.reveal, reveal);
        assert!(!s.update(Msg::Reveal(READ)));
        assert!(!s.update(Msg::Reveal(99)));
        assert!(s.update(Msg::Reveal(COMPUTE)));
        assert_eq!(s.selected, Some(3));
    }

    #[test]
    fn rows_rebuilt_below_a_node_equal_rows_rebuilt_from_scratch() {
        // A tree of 3 levels of 4 children (85 nodes, pre-order by construction).
        let mut tree = TreeData::default();
        tree.frame.push(u32::MAX);
        tree.parent.push(0);
        tree.total.push(1);
        tree.self_weight.push(0);
        fn grow(tree: &mut TreeData, parent: u32, depth: u32) {
            for c in 0..4 {
                let me = tree.frame.len() as u32;
                tree.frame.push(depth * 10 + c);
                tree.parent.push(parent);
                tree.total.push(1);
                tree.self_weight.push(1);
                if depth < 3 {
                    grow(tree, me, depth + 1);
                }
            }
        }
        grow(&mut tree, 0, 1);
        let shape = Shape::of(&tree);
        let mut open = Open::new(&shape);
        // A fixed pseudo-random walk of toggles and expand-alls, each checked.
        let mut x = 0x9e37_79b9u32;
        for _ in 0..400 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let node = 1 + x % (tree.len() as u32 - 1);
            let end = shape.end[node as usize] as usize;
            if x % 5 == 0 {
                open.expanded[node as usize..end].fill(true);
            } else {
                open.expanded[node as usize] = !open.expanded[node as usize];
            }
            open.rebuild_below(&shape, node);
            let mut scratch = open.clone();
            scratch.rebuild(&shape);
            assert_eq!(open.rows, scratch.rows, "after toggling {node}");
        }
    }

    #[test]
    fn a_million_nodes_expand_in_one_walk() {
        // Every path of 6 levels through 10 functions: 1 + 10 + ... + 10^6 nodes.
        let mut parent = vec![0u32];
        let mut level = vec![0u32];
        for _ in 0..6 {
            let mut next = Vec::new();
            for &p in &level {
                for _ in 0..10 {
                    next.push(parent.len() as u32);
                    parent.push(p);
                }
            }
            level = next;
        }
        // Pre-order from the breadth-first parents above: renumber by a walk.
        let n = parent.len();
        let mut children = vec![Vec::new(); n];
        for (i, &p) in parent.iter().enumerate().skip(1) {
            children[p as usize].push(i as u32);
        }
        let mut order = Vec::with_capacity(n);
        let mut stack = vec![(0u32, 0u32)];
        let mut tree = TreeData::default();
        while let Some((node, new_parent)) = stack.pop() {
            let me = order.len() as u32;
            order.push(node);
            tree.frame.push(if node == 0 { u32::MAX } else { node % 10 });
            tree.parent.push(new_parent);
            tree.total.push(1);
            tree.self_weight.push(1);
            stack.extend(children[node as usize].iter().rev().map(|&c| (c, me)));
        }
        let mut s = CallTreeState::default();
        s.arrived(tree, false);
        // Equal weights: the first chain, each child holding all of it, is opened.
        assert_eq!(s.open.rows.len(), 10 + 5 * 10);
        key(&mut s, Key::Down);
        key(&mut s, Key::Left);
        assert_eq!(s.open.rows.len(), 10);
        let top = s.open.rows.clone();
        key(&mut s, Key::ExpandAll);
        assert_eq!(s.open.rows.len(), 111_111 + 9);
        for &node in &top[1..] {
            s.update(Msg::Select(node));
            key(&mut s, Key::ExpandAll);
        }
        assert_eq!(s.open.rows.len(), n - 1);
        assert_eq!(n, 1_111_111);
    }
}
