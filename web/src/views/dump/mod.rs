//! The dump view: the structural tree of a file (every field with its byte span,
//! loaded level by level from the worker) beside a hex pane of the bytes around the
//! selection. Selecting a node selects its bytes; clicking a byte reveals the node
//! holding it.

use std::rc::Rc;

use pgolens_protocol::{DocId, NodeInfo, Reply, ReqId, Request};

use crate::app::link::Params;
use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod dump_view;
#[cfg(target_arch = "wasm32")]
mod hex_pane;
#[cfg(target_arch = "wasm32")]
mod tree_view;

/// Index of a node in a document's [`Tree`].
pub type NodeId = usize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Children {
    /// A leaf.
    None,
    /// Has children the page has not asked for yet.
    Unloaded,
    /// Asked for; `req` is the request that will bring them.
    Loading {
        req: u64,
    },
    Loaded(Vec<NodeId>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    pub info: NodeInfo,
    pub parent: Option<NodeId>,
    /// Index among its parent's children: the worker addresses nodes by these.
    pub index: u32,
    pub depth: u32,
    pub children: Children,
    pub expanded: bool,
}

/// The part of the dump the page has loaded, and the rows it shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// `nodes[0]` is the root, when there is one.
    pub nodes: Vec<TreeNode>,
    /// The visible rows, in order: the root and every loaded child of an expanded node.
    pub rows: Vec<NodeId>,
}

impl Tree {
    pub fn with_root(root: NodeInfo, children: Vec<NodeInfo>) -> Tree {
        let mut tree = Tree { nodes: Vec::new(), rows: Vec::new() };
        tree.nodes.push(TreeNode {
            children: if root.has_children { Children::Unloaded } else { Children::None },
            info: root,
            parent: None,
            index: 0,
            depth: 0,
            expanded: false,
        });
        if !children.is_empty() {
            tree.set_children(0, children);
            if let Some(root) = tree.nodes.get_mut(0) {
                root.expanded = true;
            }
        }
        tree.flatten();
        tree
    }

    pub fn node(&self, id: NodeId) -> Option<&TreeNode> {
        self.nodes.get(id)
    }

    /// Child indices from the root to `id`.
    pub fn path(&self, mut id: NodeId) -> Vec<u32> {
        let mut path = Vec::new();
        while let Some(node) = self.nodes.get(id) {
            match node.parent {
                Some(parent) => {
                    path.push(node.index);
                    id = parent;
                }
                None => break,
            }
        }
        path.reverse();
        path
    }

    /// The loaded node at `path`, if every step is loaded.
    pub fn find(&self, path: &[u32]) -> Option<NodeId> {
        let mut id = 0;
        self.nodes.first()?;
        for &i in path {
            match &self.nodes.get(id)?.children {
                Children::Loaded(kids) => id = *kids.get(i as usize)?,
                _ => return None,
            }
        }
        Some(id)
    }

    /// Stores the children of `parent` (unless already loaded).
    fn set_children(&mut self, parent: NodeId, children: Vec<NodeInfo>) {
        let Some(depth) = self.nodes.get(parent).map(|p| p.depth.saturating_add(1)) else { return };
        if matches!(self.nodes.get(parent).map(|p| &p.children), Some(Children::Loaded(_))) {
            return;
        }
        let first = self.nodes.len();
        let ids: Vec<NodeId> = (first..first.saturating_add(children.len())).collect();
        for (index, info) in children.into_iter().enumerate() {
            self.nodes.push(TreeNode {
                children: if info.has_children { Children::Unloaded } else { Children::None },
                info,
                parent: Some(parent),
                index: u32::try_from(index).unwrap_or(u32::MAX),
                depth,
                expanded: false,
            });
        }
        if let Some(p) = self.nodes.get_mut(parent) {
            p.children = if ids.is_empty() { Children::None } else { Children::Loaded(ids) };
        }
    }

    /// Recomputes [`Tree::rows`] from the expanded flags.
    fn flatten(&mut self) {
        let mut rows = Vec::new();
        let mut stack = Vec::new();
        if !self.nodes.is_empty() {
            stack.push(0);
        }
        while let Some(id) = stack.pop() {
            rows.push(id);
            if let Some(TreeNode { expanded: true, children: Children::Loaded(kids), .. }) = self.nodes.get(id) {
                stack.extend(kids.iter().rev());
            }
        }
        self.rows = rows;
    }

    pub fn row_of(&self, id: NodeId) -> Option<usize> {
        self.rows.iter().position(|&r| r == id)
    }
}

/// The bytes the hex pane has, and the window it asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HexCache {
    pub start: u64,
    pub data: Rc<Vec<u8>>,
    pub pending: Option<(u64, u64)>,
}

impl HexCache {
    pub fn end(&self) -> u64 {
        self.start.saturating_add(self.data.len() as u64)
    }

    pub fn covers(&self, start: u64, end: u64) -> bool {
        self.start <= start && end <= self.end()
    }

    pub fn byte(&self, offset: u64) -> Option<u8> {
        let i = usize::try_from(offset.checked_sub(self.start)?).ok()?;
        self.data.get(i).copied()
    }
}

/// The hex pane asks for this much more than it shows, on each side, so scrolling a
/// little does not ask again.
pub const HEX_MARGIN: u64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
}

/// What the user does in the dump view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Expand or collapse a node.
    Toggle(NodeId),
    Select(NodeId),
    Key(Key),
    /// A byte was clicked: reveal the node holding it.
    Reveal(u64),
    /// The hex pane shows `start..end`.
    NeedBytes {
        start: u64,
        end: u64,
    },
}

/// The dump of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dump {
    pub tree: Rc<Tree>,
    pub selected: Option<NodeId>,
    pub hex: HexCache,
    /// Bumped when the hex pane should scroll to the selection (picked in the tree).
    pub hex_focus: u64,
    /// Bumped when the tree should scroll to the selection (revealed from the hex pane).
    pub tree_focus: u64,
    /// Size of the decoded content (what the hex pane shows).
    pub size: u64,
    /// A link's selected node, asked for and not yet revealed.
    pub linked: Option<Vec<u32>>,
}

impl Dump {
    /// The dump of a file just opened: its root and first level.
    pub fn opened(root: NodeInfo, children: Vec<NodeInfo>, size: u64) -> Dump {
        Dump { tree: Rc::new(Tree::with_root(root, children)), selected: Some(0), size, ..Dump::default() }
    }

    /// The byte span of the selected node.
    pub fn selection(&self) -> Option<(u64, u64)> {
        let node = self.tree.node(self.selected?)?;
        Some((node.info.start, node.info.end))
    }

    /// The dump's part of a link: `node`, the selected node's path (child indices
    /// from the root, dot-separated), when it is not the root.
    pub fn write_link(&self, link: &mut Params) {
        let path = match &self.linked {
            Some(path) => path.clone(),
            None => self.selected.map(|id| self.tree.path(id)).unwrap_or_default(),
        };
        if !path.is_empty() {
            let path: Vec<String> = path.iter().map(u32::to_string).collect();
            link.push("node", path.join("."));
        }
    }

    /// Asks for a link's node (loaded down to it, then selected).
    pub fn read_link(&mut self, link: &Params, doc: DocId, out: &mut Outbox) {
        let path: Option<Vec<u32>> = link.get("node").and_then(|p| p.split('.').map(|i| i.parse().ok()).collect());
        match path.filter(|p| !p.is_empty()) {
            Some(path) => {
                out.send(doc, Request::Reveal { path: path.clone() });
                self.linked = Some(path);
            }
            None => {
                self.linked = None;
                self.selected = Some(0);
            }
        }
    }

    pub fn update(&mut self, msg: Msg, doc: DocId, out: &mut Outbox) -> bool {
        match msg {
            Msg::Toggle(node) => self.toggle(node, doc, out),
            Msg::Select(node) => {
                if self.tree.node(node).is_none() {
                    return false;
                }
                self.selected = Some(node);
                self.hex_focus = self.hex_focus.wrapping_add(1);
                true
            }
            Msg::Key(key) => self.key(key, doc, out),
            Msg::Reveal(offset) => {
                if offset >= self.size {
                    return false;
                }
                out.send(doc, Request::PathTo { offset });
                true
            }
            Msg::NeedBytes { start, end } => {
                // The pane is shown. A root that came without its children (a
                // recording decoded as it streamed in: its dump is read now) opens,
                // as every other file's does.
                let root_unloaded = self.tree.node(0).is_some_and(|n| n.children == Children::Unloaded);
                if root_unloaded && self.linked.is_none() {
                    self.toggle(0, doc, out);
                }
                self.need_bytes(start, end, doc, out) || root_unloaded
            }
        }
    }

    /// Takes the worker's replies about the dump; `false` for the others.
    pub fn on_reply(&mut self, req: Option<ReqId>, reply: &Reply) -> bool {
        match reply {
            Reply::Children { path, nodes } => {
                let Some(id) = self.tree.find(path) else { return false };
                let tree = Rc::make_mut(&mut self.tree);
                let waited =
                    matches!(tree.node(id).map(|n| &n.children), Some(Children::Loading { req: r }) if Some(*r) == req);
                tree.set_children(id, nodes.clone());
                if let (true, Some(node)) = (waited, tree.nodes.get_mut(id)) {
                    node.expanded = true;
                }
                tree.flatten();
                true
            }
            Reply::Path { path, levels, .. } => {
                let tree = Rc::make_mut(&mut self.tree);
                let mut id = 0;
                for (&i, level) in path.iter().zip(levels) {
                    tree.set_children(id, level.clone());
                    if let Some(node) = tree.nodes.get_mut(id) {
                        node.expanded = true;
                    }
                    match &tree.node(id).map(|n| &n.children) {
                        Some(Children::Loaded(kids)) => match kids.get(i as usize) {
                            Some(&kid) => id = kid,
                            None => break,
                        },
                        _ => break,
                    }
                }
                tree.flatten();
                self.selected = Some(id);
                self.linked = None;
                self.tree_focus = self.tree_focus.wrapping_add(1);
                self.hex_focus = self.hex_focus.wrapping_add(1);
                true
            }
            Reply::Bytes { start, bytes } => {
                if self.hex.pending.is_some_and(|(s, _)| s == *start) {
                    self.hex.pending = None;
                }
                self.hex.start = *start;
                self.hex.data = Rc::new(bytes.0.clone());
                true
            }
            _ => false,
        }
    }

    /// A request failed: a node it was loading may be asked for again.
    pub fn failed(&mut self, req: ReqId) {
        if self.tree.nodes.iter().any(|n| n.children == (Children::Loading { req })) {
            let tree = Rc::make_mut(&mut self.tree);
            for node in &mut tree.nodes {
                if node.children == (Children::Loading { req }) {
                    node.children = Children::Unloaded;
                }
            }
        }
        self.hex.pending = None;
    }

    fn toggle(&mut self, node: NodeId, doc: DocId, out: &mut Outbox) -> bool {
        let Some(children) = self.tree.node(node).map(|n| n.children.clone()) else { return false };
        let path = self.tree.path(node);
        match children {
            Children::None | Children::Loading { .. } => return false,
            Children::Unloaded => {
                let req = out.send(doc, Request::Children { path });
                if let Some(n) = Rc::make_mut(&mut self.tree).nodes.get_mut(node) {
                    n.children = Children::Loading { req };
                }
            }
            Children::Loaded(_) => {
                let tree = Rc::make_mut(&mut self.tree);
                if let Some(n) = tree.nodes.get_mut(node) {
                    n.expanded = !n.expanded;
                }
                tree.flatten();
            }
        }
        true
    }

    fn key(&mut self, key: Key, doc: DocId, out: &mut Outbox) -> bool {
        let tree = Rc::clone(&self.tree);
        let Some(selected) = self.selected else {
            return match tree.rows.first() {
                Some(&first) => self.update(Msg::Select(first), doc, out),
                None => false,
            };
        };
        let row = tree.row_of(selected).unwrap_or(0);
        let node = tree.node(selected);
        let target = match key {
            Key::Up => row.checked_sub(1).and_then(|r| tree.rows.get(r)).copied(),
            Key::Down => tree.rows.get(row.saturating_add(1)).copied(),
            Key::Home => tree.rows.first().copied(),
            Key::End => tree.rows.last().copied(),
            Key::Right => match node {
                Some(TreeNode { expanded: true, children: Children::Loaded(kids), .. }) => kids.first().copied(),
                Some(TreeNode { children: Children::Unloaded | Children::Loaded(_), .. }) => {
                    return self.toggle(selected, doc, out);
                }
                _ => None,
            },
            Key::Left => match node {
                Some(TreeNode { expanded: true, .. }) => return self.toggle(selected, doc, out),
                Some(n) => n.parent,
                None => None,
            },
        };
        match target {
            Some(target) => {
                let changed = self.update(Msg::Select(target), doc, out);
                self.tree_focus = self.tree_focus.wrapping_add(1);
                changed
            }
            None => false,
        }
    }

    fn need_bytes(&mut self, start: u64, end: u64, doc: DocId, out: &mut Outbox) -> bool {
        let size = self.size;
        let end = end.min(size);
        if start >= end || self.hex.covers(start, end) {
            return false;
        }
        if self.hex.pending.is_some_and(|(s, e)| s <= start && end <= e) {
            return false;
        }
        // Whole 16-byte rows, with a margin on both sides.
        let from = start.saturating_sub(HEX_MARGIN) & !15;
        let to = end.saturating_add(HEX_MARGIN).min(size);
        out.send(doc, Request::Bytes { start: from, end: to });
        self.hex.pending = Some((from, to));
        true
    }
}
