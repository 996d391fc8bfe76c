//! The dump of one `ValueProfData` blob, shared by raw and indexed profiles (they
//! differ only in byte order and in what an indirect-call target's value is: a
//! runtime address in raw files, a name's MD5 in indexed ones).
//!
//! ```text
//! TotalSize u32, NumValueKinds u32, then per kind a ValueProfRecord:
//!   Kind u32, NumValueSites u32, one count byte per site, zero padding to 8
//!   (from the record's start), then {Value u64, Count u64} pairs site by site
//! ```

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use super::model::{IPVK_INDIRECT_CALL_TARGET, IPVK_MEMOP_SIZE, IPVK_VTABLE_TARGET, VALUE_KINDS};
use super::raw_layout::pad8;
use crate::dump::{Fields, Node};
use crate::error::{Error, Result};
use crate::read::Reader;

/// Value entries shown one node each, per kind; beyond that only their count.
const SHOWN_VALUES: u64 = 64;

/// Dumps the blob at `r` as a node labelled `label`. `target_name` names an
/// indirect-call target's value when it can.
pub(crate) fn dump(
    r: &mut Reader<'_>,
    label: Cow<'static, str>,
    target_name: &dyn Fn(u64) -> Option<String>,
) -> Result<Node> {
    let start = r.offset();
    let total = r.u32("ValueProfData TotalSize")?;
    if total < 8 || total % 8 != 0 || u64::from(total).saturating_sub(4) > r.remaining() as u64 {
        return Err(Error::invalid(
            start,
            "ValueProfData TotalSize, a multiple of 8 inside the file",
            u64::from(total),
        ));
    }
    let mut blob = r.sub(u64::from(total).saturating_sub(4), "ValueProfData")?;
    let mut f = Fields::new(&mut blob);
    f.nodes.push(Node::leaf("TotalSize", start, start.saturating_add(4), total));
    let kinds_at = f.reader.offset();
    let kinds = f.u32("NumValueKinds")?;
    if kinds as usize > VALUE_KINDS {
        return Err(Error::invalid(kinds_at, "NumValueKinds of at most 3", u64::from(kinds)));
    }
    let mut children = f.into_nodes();
    for _ in 0..kinds {
        children.push(dump_record(&mut blob, target_name)?);
    }
    if !blob.is_empty() {
        let at = blob.offset();
        let rest = blob.remaining() as u64;
        blob.skip(rest, "ValueProfData")?;
        children.push(Node::new("unparsed", at, blob.offset()));
    }
    let value = format_args!("{total} bytes, {kinds} kinds");
    Ok(Node::leaf(label, start, r.offset(), value).with_children(children))
}

/// One `ValueProfRecord`.
fn dump_record(blob: &mut Reader<'_>, target_name: &dyn Fn(u64) -> Option<String>) -> Result<Node> {
    let kind_start = blob.offset();
    let mut f = Fields::new(blob);
    let kind = f.u32("Kind")?;
    let sites_at = f.reader.offset();
    let sites = f.u32("NumValueSites")?;
    if sites == 0 {
        return Err(Error::invalid(sites_at, "NumValueSites of at least 1", 0));
    }
    let counts_at = f.reader.offset();
    let counts = f.reader.bytes(u64::from(sites), "value counts per site")?;
    f.node_since("site counts", counts_at, format_args!("{counts:?}"));
    let pad = pad8(8u64.saturating_add(u64::from(sites)));
    if pad > 0 {
        f.bytes(pad, "padding")?;
    }
    let values: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if values > f.reader.remaining() as u64 / 16 {
        return Err(Error::invalid(sites_at, "value counts whose values fit in the record", values));
    }
    let values_at = f.reader.offset();
    let mut entries = Vec::new();
    for (site, &n) in counts.iter().enumerate() {
        for k in 0..n {
            let at = f.reader.offset();
            let value = f.reader.u64("value")?;
            let count = f.reader.u64("value count")?;
            if values > SHOWN_VALUES {
                continue;
            }
            let shown = match kind as usize {
                IPVK_INDIRECT_CALL_TARGET => match target_name(value) {
                    Some(name) => alloc::format!("{name}: {count}"),
                    None => alloc::format!("{value:#x}: {count}"),
                },
                IPVK_MEMOP_SIZE => alloc::format!("{value}: {count}"),
                _ => alloc::format!("{value:#x}: {count}"),
            };
            entries.push(Node::leaf(alloc::format!("site {site} value {k}"), at, f.reader.offset(), shown));
        }
    }
    let node = Node::leaf("values", values_at, f.reader.offset(), values).with_children(entries);
    f.nodes.push(node);
    let name = match kind as usize {
        IPVK_INDIRECT_CALL_TARGET => "IPVK_IndirectCallTarget",
        IPVK_MEMOP_SIZE => "IPVK_MemOPSize",
        IPVK_VTABLE_TARGET => "IPVK_VTableTarget",
        _ => "unknown kind",
    };
    let node = Node::leaf("value kind", kind_start, f.reader.offset(), format_args!("{name}, {sites} sites"));
    Ok(node.with_children(f.into_nodes()))
}
