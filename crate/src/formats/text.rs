//! What all text formats share: telling them apart, and the line-by-line dump.
//!
//! The text formats are BOLT fdata, pre-aggregated and YAML profiles, LLVM's
//! `.proftext` (instrprof text), LLVM sample-profile text, the AutoFDO GCOV v4
//! text form and `/proc/kallsyms` (not a profile, but what names a perf profile's
//! kernel frames). Detection looks only at the first meaningful lines.

use alloc::vec::Vec;

use crate::dump::{Deferred, Node, Text};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::formats::{bolt, gcov, instrprof, sample};
use crate::read::{looks_like_text, Lines};
use crate::symbolize::kallsyms;

/// Files with more lines than this are dumped as blocks of this many lines, each
/// expanded on demand.
pub const LINES_PER_BLOCK: u64 = 4096;

const TAG_LINE_BLOCK: u32 = 1;

pub fn sniff(data: &[u8]) -> Option<Detection> {
    if data.is_empty() || !looks_like_text(data) {
        return None;
    }
    type Sniff = fn(&[u8]) -> Option<Detection>;
    let sniffs: [Sniff; 5] =
        [gcov::v4text::sniff, bolt::yaml::sniff, bolt::fdata::sniff, bolt::preagg::sniff, instrprof::text::sniff];
    // kallsyms last: its lines are so loose that it must never take a profile's file.
    sniffs.iter().find_map(|s| s(data)).or_else(|| sample::text::sniff(data)).or_else(|| kallsyms::sniff(data))
}

/// The root of a text file's dump (`len` bytes, `lines` lines), without its children.
pub fn dump_root(format: Format, len: u64, lines: u64) -> Node {
    Node::new(format.id(), 0, len).with_value(alloc::format!("{lines} lines"))
}

/// The line-level dump shared by every text format.
pub fn dump(data: &[u8], detection: &Detection) -> Result<Node> {
    let len = data.len() as u64;
    let mut lines = Lines::new(data);
    let mut blocks = Vec::new();
    let mut count = 0u64;
    // One pass to find block boundaries; lines are only materialized on demand.
    loop {
        let start = lines.offset();
        let first = count.saturating_add(1);
        let mut end = start;
        let mut in_block = 0u64;
        for line in lines.by_ref() {
            end = line.end;
            in_block = in_block.saturating_add(1);
            if in_block == LINES_PER_BLOCK {
                break;
            }
        }
        if in_block == 0 {
            break;
        }
        count = count.saturating_add(in_block);
        let label = alloc::format!("lines {first}–{count}");
        blocks.push(Node::new(label, start, end).deferred(TAG_LINE_BLOCK, first));
    }
    let mut root = dump_root(detection.format, len, count);
    if blocks.len() == 1 {
        let only = blocks.pop().and_then(|b| b.deferred);
        if let Some(deferred) = only {
            root.children = expand(data, &deferred)?;
        }
    } else {
        root.children = blocks;
    }
    Ok(root)
}

/// Builds the line nodes of one block.
pub fn expand(data: &[u8], deferred: &Deferred) -> Result<Vec<Node>> {
    if deferred.tag != TAG_LINE_BLOCK {
        return Err(Error::malformed(deferred.start, "unknown deferred node for a text format"));
    }
    let block = usize::try_from(deferred.start)
        .ok()
        .zip(usize::try_from(deferred.end).ok())
        .and_then(|(s, e)| data.get(s..e))
        .ok_or(Error::malformed(deferred.start, "line block outside the input"))?;
    let first = deferred.first;
    Ok(Lines::new(block)
        .map(|line| {
            let number = first.saturating_add(line.number).saturating_sub(1);
            let start = deferred.start.saturating_add(line.start);
            let end = deferred.start.saturating_add(line.end);
            Node::leaf(alloc::format!("line {number}"), start, end, Text(line.text))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;

    #[test]
    fn big_text_is_blocked_and_expands_to_lines() {
        let mut text = Vec::new();
        for i in 0..10_000u32 {
            text.extend_from_slice(alloc::format!("main:{i}:0\n").as_bytes());
        }
        let det = Detection::new(Format::SampleText);
        let mut root = dump(&text, &det).unwrap();
        assert_eq!(root.children.len(), 3);
        assert_eq!(root.children[1].label, "lines 4097–8192");
        root.tile().unwrap();
        let d = root.children[2].deferred.unwrap();
        let lines = expand(&text, &d).unwrap();
        assert_eq!(lines.len(), 10_000 - 8192);
        assert_eq!(lines[0].label, "line 8193");
        assert_eq!(lines[0].value.as_deref(), Some("main:8192:0"));
        assert_eq!(lines.last().map(|l| l.end), Some(text.len() as u64));
    }
}
