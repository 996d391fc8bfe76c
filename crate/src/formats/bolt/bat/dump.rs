//! Dump nodes for the BAT and BOLT info notes: every field with its byte span,
//! down to each translation entry, built from the decoded model.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::note::{Info, Note};
use super::{decode_at, Bat, Delta, Entry, Function, Span, Spanned, Table};
use crate::dump::{Node, Text};
use crate::error::Result;

fn leaf(label: &'static str, span: Span, value: impl core::fmt::Display) -> Node {
    Node::leaf(label, span.start, span.end, value)
}

fn delta(label: &'static str, d: Delta, hex: bool) -> Node {
    if hex {
        leaf(label, d.span, format_args!("+{:#x} → {:#x}", d.delta, d.value))
    } else {
        leaf(label, d.span, format_args!("+{} → {}", d.delta, d.value))
    }
}

fn note_header(note: &Note<'_>) -> Vec<Node> {
    let mut nodes = alloc::vec![
        leaf("namesz", note.namesz.span, note.namesz.value),
        leaf("descsz", note.descsz.span, note.descsz.value),
        leaf("type", note.note_type.span, note.note_type.value),
        leaf("name", note.name.span, Text(note.name.value)),
    ];
    if !note.name_padding.is_empty() {
        nodes.push(Node::new("name padding", note.name_padding.start, note.name_padding.end));
    }
    nodes
}

fn padding(note: &Note<'_>, nodes: &mut Vec<Node>) {
    if !note.desc_padding.is_empty() {
        nodes.push(Node::new("descriptor padding", note.desc_padding.start, note.desc_padding.end));
    }
}

/// The nodes of a `.note.bolt_bat` section at `offset`, `size` bytes long: the
/// note header, and the BAT tables decoded (or, when they do not decode, the
/// descriptor's bytes with the error).
pub fn dump_note(data: &[u8], offset: u64, size: u64) -> Result<Vec<Node>> {
    let note = Note::parse(data, offset, size)?;
    note.check_bat()?;
    let mut nodes = note_header(&note);
    let desc = note.desc.span;
    nodes.push(match decode_at(data, desc.start, desc.len()) {
        Ok(bat) => dump_bat(&bat),
        Err(e) => Node::leaf("BAT tables", desc.start, desc.end, format_args!("not decoded: {e}")),
    });
    padding(&note, &mut nodes);
    Ok(nodes)
}

/// The nodes of a `.note.bolt_info` section: BOLT's revision and command line.
pub fn dump_info_note(data: &[u8], offset: u64, size: u64) -> Result<Vec<Node>> {
    let note = Note::parse(data, offset, size)?;
    let info = Info::from_note(note)?;
    let mut nodes = note_header(&note);
    let desc = note.desc.span;
    let mut text = Node::leaf("description", desc.start, desc.end, Text(info.text));
    if let Some(revision) = info.revision {
        let start = desc.start.saturating_add(15);
        let end = start.saturating_add(revision.len() as u64);
        text.children.push(Node::leaf("BOLT revision", start, end, Text(revision)));
        if let Some(command_line) = info.command_line {
            let start = end.saturating_add(16);
            let end = start.saturating_add(command_line.len() as u64);
            text.children.push(Node::leaf("command line", start, end, Text(command_line)));
        }
    }
    nodes.push(text);
    padding(&note, &mut nodes);
    Ok(nodes)
}

/// The BAT tables as a node: both tables, every function, every entry.
pub fn dump_bat(bat: &Bat) -> Node {
    let value = format!("{} encoding", bat.encoding.name());
    Node::leaf("BAT tables", bat.span.start, bat.span.end, value)
        .with_children(alloc::vec![table("hot functions", &bat.hot, bat), table("cold fragments", &bat.cold, bat),])
}

fn table(label: &'static str, table: &Table, bat: &Bat) -> Node {
    let mut children = Vec::with_capacity(table.functions.len().saturating_add(1));
    children.push(leaf("NumFuncs", table.count.span, table.count.value));
    children.extend(table.functions.iter().map(|f| function(f, bat)));
    let value = format!("{} functions", table.functions.len());
    Node::leaf(label, table.span.start, table.span.end, value).with_children(children)
}

fn spanned(label: &'static str, field: Option<Spanned<u64>>, hex: bool) -> Option<Node> {
    field.map(|f| if hex { leaf(label, f.span, format_args!("{:#x}", f.value)) } else { leaf(label, f.span, f.value) })
}

fn function(f: &Function, bat: &Bat) -> Node {
    let mut children = Vec::new();
    children.push(delta("Address", f.address, true));
    if let Some(index) = f.hot_index {
        let parent = bat.parent(f).map(|p| p.address.value).unwrap_or(0);
        let span = index.span;
        children.push(leaf(
            "HotIndex",
            span,
            format_args!("+{} → {} (hot function {parent:#x})", index.delta, index.value),
        ));
    }
    children.extend(spanned("ColdInputSkew", f.input_skew, true));
    children.extend(spanned("FuncHash", f.hash, true));
    children.extend(spanned("NumBlocks", f.num_blocks, false));
    children.extend(spanned("NumSecEntryPoints", f.num_secondary_entry_points, false));
    children.push(leaf("NumEntries", f.num_entries.span, f.num_entries.value));
    children.extend(spanned("EqualElems", f.equal_elems, false));
    if let Some(span) = f.branch_entries {
        // One character per equal-offset entry, in entry order: 1 = BRANCHENTRY.
        let equal = f.equal_elems.map_or(0, |e| e.value);
        let bits: String = f
            .entries
            .iter()
            .take(usize::try_from(equal.min(64)).unwrap_or(64))
            .map(|e| if e.is_branch() { '1' } else { '0' })
            .collect();
        let more = if equal > 64 { "…" } else { "" };
        children.push(leaf("BranchEntries", span, format_args!("{bits}{more}")));
    }
    children.extend(f.entries.iter().enumerate().map(|(j, e)| entry(j, e)));
    for (k, point) in f.secondary_entry_points.iter().enumerate() {
        let value = format_args!("+{:#x} → {:#x}", point.delta, point.offset);
        children.push(Node::leaf(format!("secondary entry point {k}"), point.span.start, point.span.end, value));
    }
    let label = if f.is_cold() {
        format!("cold fragment {:#x}", f.address.value)
    } else {
        format!("function {:#x}", f.address.value)
    };
    let blocks = f.blocks().count();
    let value = format!("{} entries, {blocks} blocks", f.entries.len());
    Node::leaf(label, f.span.start, f.span.end, value).with_children(children)
}

fn entry(j: usize, e: &Entry) -> Node {
    let spans = e.spans();
    let kind = if e.is_branch() { "branch" } else { "block" };
    let mut value = format!("{:#x} → {:#x} ({kind})", e.output_offset, e.input_offset());
    let mut children = alloc::vec![leaf(
        "OutputAddress",
        spans.output,
        format_args!("+{:#x} → offset {:#x}", e.output_delta, e.output_offset)
    )];
    match (e.input_delta, spans.input) {
        (Some(d), Some(span)) => {
            let branch = if e.is_branch() { " | BRANCHENTRY" } else { "" };
            let text = format_args!("{d:+} → {:#x} << 1{branch}", e.input_offset());
            children.push(leaf("InputOffset", span, text));
        }
        _ => value.push_str(", equal offset"),
    }
    if let (Some(block), Some(hash), Some(index)) = (e.block, spans.hash, spans.index) {
        children.push(leaf("BBHash", hash, format_args!("{:#018x}", block.hash)));
        children.push(leaf("BBIndex", index, format_args!("+{} → {}", block.index_delta, block.index)));
    }
    let span = e.span();
    Node::leaf(format!("entry {j}"), span.start, span.end, value).with_children(children)
}
