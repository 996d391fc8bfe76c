//! One open file in the worker: its bytes, its detection and the part of its dump
//! tree built so far.
//!
//! The tree is built lazily. `finish` builds what `pgolens::dump` builds (the root and
//! the structures it decodes eagerly); a deferred node is expanded the first time the
//! page asks for its children, or when `path_to` walks through it, and then stays
//! cached here. The page only ever holds the levels it has shown.
//!
//! Everything the page receives is JSON text (parsed by the worker's JS glue). A node
//! is sent without its children: `{"label","start","end","value"?,"deferred"?,"kids"}`
//! where `kids` counts its built children (a deferred node has `"deferred":true` and
//! `kids` 0 until it is expanded).

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

use pgolens::dump::write_json;
use pgolens::{Detection, Node};

/// The most bytes one `bytes` call returns: the hex pane asks for a few KiB around
/// what it shows, so this only guards against a runaway request.
pub const MAX_WINDOW: u64 = 1 << 20;

pub struct Session {
    name: String,
    /// The file as read so far; moved into `decoded` by `finish`.
    raw: Vec<u8>,
    decoded: Option<Decoded>,
}

struct Decoded {
    /// The content the decoders see (gunzipped when the file was gzip).
    data: Vec<u8>,
    file_size: u64,
    detection: Detection,
    root: Node,
}

impl Session {
    /// A session that will receive about `expected` bytes; reserves them up front so
    /// appending chunks never copies what was already read.
    pub fn new(name: String, expected: u64) -> Result<Session, String> {
        let mut raw = Vec::new();
        let expected = usize::try_from(expected).map_err(|_| too_large(expected))?;
        raw.try_reserve_exact(expected).map_err(|_| too_large(expected as u64))?;
        Ok(Session { name, raw, decoded: None })
    }

    /// Grows the file by `len` bytes and returns them for the caller to fill.
    pub fn slot(&mut self, len: usize) -> Result<&mut [u8], String> {
        if self.decoded.is_some() {
            return Err(String::from("the file was already decoded"));
        }
        let old = self.raw.len();
        let new = old.checked_add(len).ok_or_else(|| too_large(u64::MAX))?;
        self.raw.try_reserve(len).map_err(|_| too_large(new as u64))?;
        self.raw.resize(new, 0);
        self.raw.get_mut(old..).ok_or_else(|| String::from("slot outside the file"))
    }

    /// Decodes the bytes read: detection and the first levels of the dump. Returns
    /// the summary, the root and the root's children as JSON.
    pub fn finish(&mut self) -> Result<String, String> {
        if self.decoded.is_some() {
            return Err(String::from("the file was already decoded"));
        }
        let raw = core::mem::take(&mut self.raw);
        let file_size = raw.len() as u64;
        let (data, detection) = {
            let input = pgolens::open(&raw).map_err(|e| e.to_string())?;
            let detection = input.detect().map_err(|e| e.to_string())?;
            match input.data {
                Cow::Owned(inflated) => (Some(inflated), detection),
                Cow::Borrowed(_) => (None, detection),
            }
        };
        // The compressed bytes are dropped here when the file was gzip.
        let data = data.unwrap_or(raw);
        let mut root = pgolens::dump(&data, &detection).map_err(|e| e.to_string())?;
        expand(&data, &detection, &mut root)?;

        let mut out = String::from("{\"name\":");
        json_string(&self.name, &mut out);
        out.push_str(",\"format\":");
        json_string(detection.format.id(), &mut out);
        out.push_str(",\"detection\":");
        json_string(&detection.to_string(), &mut out);
        match detection.version {
            Some(v) => {
                let _ = write!(out, ",\"version\":{v}");
            }
            None => out.push_str(",\"version\":null"),
        }
        let _ = write!(out, ",\"size\":{},\"fileSize\":{file_size},\"gzip\":{}", data.len(), detection.gzip);
        // The views this format offers; later layers add flame graphs, functions, CFGs.
        out.push_str(",\"views\":[\"dump\"],\"root\":");
        node_json(&root, &mut out);
        out.push_str(",\"children\":");
        children_json(&root, &mut out);
        out.push('}');
        self.decoded = Some(Decoded { data, file_size, detection, root });
        Ok(out)
    }

    /// The children of the node at `path` (child indices from the root), expanding
    /// it when it is deferred. A JSON array of nodes.
    pub fn children(&mut self, path: &[u32]) -> Result<String, String> {
        let Decoded { data, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut node = root;
        for &i in path {
            node = node.children.get_mut(i as usize).ok_or_else(|| String::from("no such node in the dump"))?;
        }
        expand(data, detection, node)?;
        let mut out = String::new();
        children_json(node, &mut out);
        Ok(out)
    }

    /// The path to the innermost node containing `offset`, expanding deferred nodes on
    /// the way, with the children of every node it passes through:
    /// `{"path":[i,...],"levels":[[nodes of the root],[nodes of root.i],...]}`.
    pub fn path_to(&mut self, offset: u64) -> Result<String, String> {
        let Decoded { data, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut path = String::new();
        let mut levels = String::new();
        let mut node = root;
        loop {
            expand(data, detection, node)?;
            // Children are sorted and disjoint; empty ones contain no offset.
            let i = node.children.partition_point(|c| c.end <= offset);
            let inside = node.children.get(i).is_some_and(|c| c.start <= offset && offset < c.end);
            if !inside {
                break;
            }
            if !path.is_empty() {
                path.push(',');
                levels.push(',');
            }
            let _ = write!(path, "{i}");
            children_json(node, &mut levels);
            match node.children.get_mut(i) {
                Some(child) => node = child,
                None => break,
            }
        }
        Ok(alloc::format!("{{\"path\":[{path}],\"levels\":[{levels}]}}"))
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

    /// The size of the file as read (before any gunzip).
    pub fn file_size(&self) -> u64 {
        self.decoded.as_ref().map_or(self.raw.len() as u64, |d| d.file_size)
    }
}

/// Builds the children of a deferred node, tiled like every other level.
fn expand(data: &[u8], detection: &Detection, node: &mut Node) -> Result<(), String> {
    if let Some(deferred) = node.deferred {
        let children = pgolens::expand(data, detection, &deferred).map_err(|e| e.to_string())?;
        node.children = children;
        node.tile().map_err(|e| e.to_string())?;
        node.deferred = None;
    }
    Ok(())
}

/// One node without its children, plus `kids`: how many it has built.
fn node_json(node: &Node, out: &mut String) {
    let mut head = Node::new(node.label.clone(), node.start, node.end);
    head.value.clone_from(&node.value);
    head.deferred = node.deferred;
    write_json(&head, out);
    out.pop(); // the closing brace
    let _ = write!(out, ",\"kids\":{}}}", node.children.len());
}

fn children_json(node: &Node, out: &mut String) {
    out.push('[');
    for (i, child) in node.children.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        node_json(child, out);
    }
    out.push(']');
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn too_large(size: u64) -> String {
    alloc::format!("the file ({size} bytes) does not fit in the browser's memory for WebAssembly")
}

fn not_decoded() -> String {
    String::from("the file is not decoded yet")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn session(name: &str, bytes: &[u8]) -> Session {
        let mut s = Session::new(name.into(), bytes.len() as u64).unwrap();
        // Two chunks, as a stream would deliver them.
        let (a, b) = bytes.split_at(bytes.len() / 2);
        s.slot(a.len()).unwrap().copy_from_slice(a);
        s.slot(b.len()).unwrap().copy_from_slice(b);
        s
    }

    fn corpus(path: &str) -> Option<Vec<u8>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
        std::fs::read(root.join(path)).ok()
    }

    #[test]
    fn text_file_expands_blocks_lazily_and_finds_offsets() {
        let mut text = String::new();
        for i in 0..10_000 {
            let _ = writeln!(text, "1 main {i:x} 1 main {:x} 0 {i}", i + 1);
        }
        let mut s = session("big.fdata", text.as_bytes());
        let opened = s.finish().unwrap();
        assert!(opened.contains("\"format\":\"bolt-fdata\""), "{opened}");
        assert!(opened.contains("\"deferred\":true"), "{opened}");

        let second_line = text.find('\n').unwrap() as u64 + 1;
        let found = s.path_to(second_line).unwrap();
        assert!(found.starts_with("{\"path\":[0,1"), "{found}");
        let kids = s.children(&[0]).unwrap();
        assert!(kids.starts_with("[{\"label\":"), "{kids}");
        assert_eq!(s.bytes(0, 4), b"1 ma");
        assert_eq!(s.bytes(u64::MAX - 1, u64::MAX), b"");
    }

    #[test]
    fn errors_are_messages_with_offsets() {
        let random: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let mut s = session("random.bin", &random);
        let err = s.finish().unwrap_err();
        assert!(err.contains("offset"), "{err}");
        assert!(s.children(&[]).is_err());
        assert!(s.path_to(0).is_err());
    }

    #[test]
    fn corpus_files_open() {
        for (path, id) in [
            ("llvm/irpgo-progA/irpgo-progA.profraw", "instrprof-raw"),
            ("bolt-perf/cprog/cprog.pipe.perf.data", "perf.data-pipe"),
            ("llvm/sample-basic/sample-basic.text.prof", "sample-text"),
        ] {
            let Some(bytes) = corpus(path) else { continue };
            let mut s = session(path, &bytes);
            let opened = s.finish().unwrap();
            assert!(opened.contains(&alloc::format!("\"format\":\"{id}\"")), "{opened}");
            let last = bytes.len() as u64 - 1;
            let found = s.path_to(last).unwrap();
            assert!(!found.starts_with("{\"path\":[]"), "{path}: {found}");
            assert_eq!(s.file_size(), bytes.len() as u64);
        }
    }
}
