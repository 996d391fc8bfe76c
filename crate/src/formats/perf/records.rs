//! The record stream: `perf_event_header {type u32, misc u16, size u16}` then the body.
//!
//! Streams are walked once to find block boundaries; a block's records are built
//! only when the block is expanded, so a 500 MB recording costs a few thousand nodes
//! until someone looks inside.

use alloc::vec::Vec;

use crate::dump::{Deferred, Fields, Node};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// The name of a `perf_event_header.type`: kernel types below 64, perf-tool types from 64.
pub fn record_type_name(t: u32) -> Option<&'static str> {
    Some(match t {
        1 => "MMAP",
        2 => "LOST",
        3 => "COMM",
        4 => "EXIT",
        5 => "THROTTLE",
        6 => "UNTHROTTLE",
        7 => "FORK",
        8 => "READ",
        9 => "SAMPLE",
        10 => "MMAP2",
        11 => "AUX",
        12 => "ITRACE_START",
        13 => "LOST_SAMPLES",
        14 => "SWITCH",
        15 => "SWITCH_CPU_WIDE",
        16 => "NAMESPACES",
        17 => "KSYMBOL",
        18 => "BPF_EVENT",
        19 => "CGROUP",
        20 => "TEXT_POKE",
        21 => "AUX_OUTPUT_HW_ID",
        64 => "HEADER_ATTR",
        65 => "HEADER_EVENT_TYPE",
        66 => "HEADER_TRACING_DATA",
        67 => "HEADER_BUILD_ID",
        68 => "FINISHED_ROUND",
        69 => "ID_INDEX",
        70 => "AUXTRACE_INFO",
        71 => "AUXTRACE",
        72 => "AUXTRACE_ERROR",
        73 => "THREAD_MAP",
        74 => "CPU_MAP",
        75 => "STAT_CONFIG",
        76 => "STAT",
        77 => "STAT_ROUND",
        78 => "EVENT_UPDATE",
        79 => "TIME_CONV",
        80 => "HEADER_FEATURE",
        81 => "COMPRESSED",
        82 => "FINISHED_INIT",
        83 => "COMPRESSED2",
        _ => return None,
    })
}

const TAG_RECORD_BLOCK: u32 = 0x100;
pub const RECORDS_PER_BLOCK: u64 = 4096;

/// One record's extent: where it starts, its header, and where it (with any payload
/// that follows outside `size`) ends.
struct Extent {
    start: u64,
    kind: u32,
    size: u16,
    /// Bytes after the record that belong to it (AUXTRACE data, tracing data).
    trailing: u64,
}

fn next_extent(r: &mut Reader<'_>) -> Result<Extent> {
    let start = r.offset();
    let (header, _) = super::record::next_record(r)?;
    let trailing = r.offset().saturating_sub(start).saturating_sub(u64::from(header.size));
    Ok(Extent { start, kind: header.kind, size: header.size, trailing })
}

/// A node for the records in `start..end`. With `label` "data" (file mode) a
/// truncated last record ends the stream, as perf does for a recording cut off
/// mid-write. In pipe mode it is an error, unless the tail is text: captures made
/// with `perf record -o - > f 2>&1` end with perf's own summary lines.
pub fn dump_stream(data: &[u8], endian: Endian, start: u64, end: u64, label: &'static str) -> Result<Node> {
    let len = end.saturating_sub(start);
    let mut r = Reader::new(data, endian).sub_at(start, len, "record stream")?;
    let mut blocks = Vec::new();
    let mut count = 0u64;
    let mut block_start = start;
    let mut in_block = 0u64;
    let mut truncated_at = None;
    while !r.is_empty() {
        let before = r.offset();
        match next_extent(&mut r) {
            Ok(_) => {}
            Err(e) if label == "data" && matches!(e.kind, crate::ErrorKind::UnexpectedEof { .. }) => {
                truncated_at = Some((before, "truncated record"));
                break;
            }
            Err(_) if is_trailing_text(data, before) => {
                truncated_at = Some((before, "trailing text"));
                break;
            }
            Err(e) => return Err(e),
        }
        count = count.saturating_add(1);
        in_block = in_block.saturating_add(1);
        if in_block == RECORDS_PER_BLOCK {
            blocks.push((block_start, r.offset(), count.saturating_sub(in_block)));
            block_start = r.offset();
            in_block = 0;
        }
    }
    let records_end = truncated_at.map_or(r.offset(), |(at, _)| at);
    if in_block > 0 {
        blocks.push((block_start, records_end, count.saturating_sub(in_block)));
    }
    let mut node = Node::new(label, start, end).with_value(alloc::format!("{count} records"));
    if let [(s, e, first)] = blocks.as_slice() {
        node.children = expand(data, endian, &Deferred { tag: TAG_RECORD_BLOCK, start: *s, end: *e, first: *first })?;
    } else {
        for (s, e, first) in blocks {
            let last = first.saturating_add(RECORDS_PER_BLOCK).min(count).saturating_sub(1);
            let label = alloc::format!("records {first}–{last}");
            node.children.push(Node::new(label, s, e).deferred(TAG_RECORD_BLOCK, first));
        }
    }
    if let Some((at, label)) = truncated_at {
        node.children.push(Node::new(label, at, end));
    }
    Ok(node)
}

pub(crate) fn is_trailing_text(data: &[u8], at: u64) -> bool {
    let tail = usize::try_from(at).ok().and_then(|at| data.get(at..)).unwrap_or(&[]);
    // A record header's type is a small number: its high bytes are zero, not text.
    tail.len() >= 16 && tail.starts_with(b"[ perf ") && crate::read::looks_like_text(tail)
}

/// Builds the record nodes of one block.
pub fn expand(data: &[u8], endian: Endian, deferred: &Deferred) -> Result<Vec<Node>> {
    if deferred.tag != TAG_RECORD_BLOCK {
        return Err(Error::malformed(deferred.start, "unknown deferred node for perf.data"));
    }
    let len = deferred.end.saturating_sub(deferred.start);
    let mut r = Reader::new(data, endian).sub_at(deferred.start, len, "record block")?;
    let layouts = super::dump::Layouts::read(data, endian);
    let mut nodes = Vec::new();
    let mut index = deferred.first;
    while !r.is_empty() {
        let mut fields_reader = r;
        let extent = next_extent(&mut r)?;
        let mut f = Fields::new(&mut fields_reader);
        f.u32("type")?;
        let misc = f.u16("misc")?;
        f.u16("size")?;
        let body_len = u64::from(extent.size).saturating_sub(8);
        if body_len > 0 {
            let body_start = f.reader.offset();
            let body = f.reader.sub(body_len, "record body")?;
            // A body whose fields do not decode is still shown, as bytes.
            let fields = super::dump::body_fields(&layouts, extent.kind, misc, body).ok().filter(|n| !n.is_empty());
            let mut node = Node::new("body", body_start, body_start.saturating_add(body_len));
            if let Some(fields) = fields {
                node = node.with_children(fields);
                node.tile()?;
            }
            f.nodes.push(node);
        }
        if extent.trailing > 0 {
            f.bytes(extent.trailing, "payload")?;
        }
        let name = record_type_name(extent.kind);
        let label = match name {
            Some(name) => alloc::format!("#{index} {name}"),
            None => alloc::format!("#{index} type {}", extent.kind),
        };
        nodes.push(Node::new(label, extent.start, r.offset()).with_children(f.into_nodes()).with_value(extent.size));
        index = index.saturating_add(1);
    }
    Ok(nodes)
}
