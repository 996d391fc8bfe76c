//! The dump tree as the page walks it: a level's children, the path to an offset,
//! a node revealed by its path, and bytes for the hex pane. Deferred nodes are
//! expanded on the way and stay expanded.

use alloc::string::ToString;
use alloc::vec::Vec;

use pgolens::{Detection, Node};
use pgolens_protocol::NodeInfo;

use super::{fail, located, not_decoded, Decoded, Failure, PathLevels, Session, MAX_WINDOW};

impl Session {
    /// The children of the node at `path` (child indices from the root), expanding
    /// it when it is deferred.
    pub fn children(&mut self, path: &[u32]) -> Result<Vec<NodeInfo>, Failure> {
        let Decoded { data, compression, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut node = root;
        for &i in path {
            node = node.children.get_mut(i as usize).ok_or_else(|| fail("no such node in the dump"))?;
        }
        expand(data, detection, *compression, node)?;
        Ok(children(node))
    }

    /// The path to the innermost node containing `offset`, expanding deferred nodes on
    /// the way, with the children of every node it passes through (the root's first).
    pub fn path_to(&mut self, offset: u64) -> Result<PathLevels, Failure> {
        let Decoded { data, compression, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut path = Vec::new();
        let mut levels = Vec::new();
        let mut node = root;
        loop {
            expand(data, detection, *compression, node)?;
            // Children are sorted and disjoint; empty ones contain no offset.
            let i = node.children.partition_point(|c| c.end <= offset);
            let inside = node.children.get(i).is_some_and(|c| c.start <= offset && offset < c.end);
            if !inside {
                break;
            }
            path.push(u32::try_from(i).unwrap_or(u32::MAX));
            levels.push(children(node));
            match node.children.get_mut(i) {
                Some(child) => node = child,
                None => break,
            }
        }
        Ok((path, levels))
    }

    /// The start of the dump node at `path`, the part of `path` the file has, and
    /// the children of each node on the way (as [`Session::path_to`] answers).
    pub fn reveal(&mut self, path: &[u32]) -> Result<(u64, PathLevels), Failure> {
        let Decoded { data, compression, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut found = Vec::new();
        let mut levels = Vec::new();
        let mut node = root;
        for &i in path {
            expand(data, detection, *compression, node)?;
            let kids = children(node);
            match node.children.get_mut(i as usize) {
                Some(child) => {
                    found.push(i);
                    levels.push(kids);
                    node = child;
                }
                None => break,
            }
        }
        Ok((node.start, (found, levels)))
    }

    /// The decoded bytes in `start..end`, clipped to the content and to [`MAX_WINDOW`].
    pub fn bytes(&self, start: u64, end: u64) -> Vec<u8> {
        let Some(decoded) = &self.decoded else { return Vec::new() };
        let len = decoded.data.len() as u64;
        let start = start.min(len);
        let end = end.clamp(start, len).min(start.saturating_add(MAX_WINDOW));
        match (usize::try_from(start), usize::try_from(end)) {
            (Ok(s), Ok(e)) => decoded.data.get(s..e).map(<[u8]>::to_vec).unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

/// Builds the children of a deferred node, tiled like every other level.
pub(super) fn expand(
    data: &[u8],
    detection: &Detection,
    compression: Option<&'static str>,
    node: &mut Node,
) -> Result<(), Failure> {
    if let Some(deferred) = node.deferred {
        let children = pgolens::expand(data, detection, &deferred).map_err(|e| located(compression, e))?;
        node.children = children;
        node.tile().map_err(|e| located(compression, e))?;
        node.deferred = None;
    }
    Ok(())
}

/// One node without its children.
pub(super) fn node_info(node: &Node) -> NodeInfo {
    NodeInfo {
        label: node.label.to_string(),
        value: node.value.as_ref().map(ToString::to_string),
        start: node.start,
        end: node.end,
        has_children: !node.children.is_empty() || node.deferred.is_some(),
    }
}

pub(super) fn children(node: &Node) -> Vec<NodeInfo> {
    node.children.iter().map(node_info).collect()
}
