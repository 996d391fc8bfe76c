//! Field-level dump of records: every field of a record body as a node with its
//! byte span. Sample layouts come from the attrs, which are read cheaply (the file
//! header, or the HEADER_ATTR records at the start of a pipe) so that expanding one
//! block of a 500 MB recording does not walk the whole file.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

use super::attr::{sample_type as st, Attr, BRANCH_HW_INDEX};
use super::record::{self, c_string, misc};
use crate::dump::{Fields, Node, Text};
use crate::error::Result;
use crate::read::{Endian, Reader};

/// The attrs of a recording and which ids pick them.
#[derive(Default)]
pub struct Layouts {
    attrs: Vec<Attr>,
    ids: BTreeMap<u64, usize>,
}

impl Layouts {
    /// Reads the attrs without decoding the records.
    pub fn read(data: &[u8], endian: Endian) -> Layouts {
        let mut out = Layouts::default();
        let r = Reader::new(data, endian);
        let header_size = r.seek_clone(8, "").and_then(|mut r| r.u64("")).unwrap_or(0);
        if header_size == super::PIPE_HEADER_SIZE {
            let Ok(mut r) = r.seek_clone(super::PIPE_HEADER_SIZE, "") else { return out };
            // Attrs come first; the first kernel record ends them.
            while let (Ok(kind), Ok(_), Ok(size)) = (r.u32(""), r.u16(""), r.u16("")) {
                if kind < record::HEADER_ATTR || size < 8 {
                    break;
                }
                let Ok(mut body) = r.sub(u64::from(size).saturating_sub(8), "") else { break };
                if kind == record::HEADER_ATTR {
                    let available = body.remaining() as u64;
                    if let Ok(attr) = Attr::parse(&mut body, available) {
                        let ids = ids_of(body);
                        out.push(attr, ids);
                    }
                }
            }
        } else if let Ok(mut h) = r.seek_clone(16, "") {
            let (Ok(attr_size), Ok(offset), Ok(size)) = (h.u64(""), h.u64(""), h.u64("")) else { return out };
            let Ok(mut section) = r.sub_at(offset, size, "") else { return out };
            while let Ok(mut entry) = section.sub(attr_size, "") {
                let Ok(attr) = Attr::parse(&mut entry, attr_size.saturating_sub(16)) else { break };
                let _ = entry.skip(attr_size.saturating_sub(16).saturating_sub(u64::from(attr.size)), "");
                let ids = match (entry.u64(""), entry.u64("")) {
                    (Ok(o), Ok(s)) => r.sub_at(o, s, "").map(ids_of).unwrap_or_default(),
                    _ => Vec::new(),
                };
                out.push(attr, ids);
            }
        }
        out
    }

    fn push(&mut self, attr: Attr, ids: Vec<u64>) {
        let index = self.attrs.len();
        for id in ids {
            self.ids.insert(id, index);
        }
        self.attrs.push(attr);
    }

    fn for_sample(&self, body: &Reader<'_>) -> Option<&Attr> {
        let first = self.attrs.first()?;
        if self.attrs.len() == 1 {
            return Some(first);
        }
        let id = first.sample_id_in(body).ok()??;
        self.ids.get(&id).and_then(|&i| self.attrs.get(i))
    }

    fn for_trailer(&self, body: &Reader<'_>) -> Option<&Attr> {
        let first = self.attrs.first()?;
        if self.attrs.len() == 1 {
            return Some(first);
        }
        let id = first.trailer_id_in(body, body.end_offset())?;
        Some(self.ids.get(&id).and_then(|&i| self.attrs.get(i)).unwrap_or(first))
    }
}

fn ids_of(mut r: Reader<'_>) -> Vec<u64> {
    let mut ids = Vec::new();
    while let Ok(id) = r.u64("") {
        ids.push(id);
    }
    ids
}

/// The field nodes of one record body (`body` holds exactly the bytes after the
/// 8-byte header). Whatever the fields do not cover is left for the caller's tiling.
pub fn body_fields(layouts: &Layouts, kind: u32, misc_bits: u16, body: Reader<'_>) -> Result<Vec<Node>> {
    let mut body = body;
    let trailer_attr = (record::has_sample_id(kind)).then(|| layouts.for_trailer(&body)).flatten();
    let trailer = trailer_attr.filter(|a| a.sample_id_all()).map(|a| (a.sample_id_size(), a));
    let mut main = body;
    if let Some((size, _)) = trailer {
        let len = (body.remaining() as u64).saturating_sub(size);
        main = body.sub(len, "record body")?;
    }
    let mut f = Fields::new(&mut main);
    match kind {
        1 | 10 => {
            f.u32("pid")?;
            f.u32("tid")?;
            f.u64_hex("addr")?;
            f.u64_hex("len")?;
            f.u64_hex("pgoff")?;
            if kind == 10 {
                if misc_bits & misc::MMAP_BUILD_ID != 0 {
                    f.u8("build_id_size")?;
                    f.bytes(3, "reserved")?;
                    f.bytes(20, "build_id")?;
                } else {
                    f.u32("maj")?;
                    f.u32("min")?;
                    f.u64("ino")?;
                    f.u64("ino_generation")?;
                }
                f.u32_hex("prot")?;
                f.u32_hex("flags")?;
            }
            string_rest(&mut f, "filename")?;
        }
        2 => {
            f.u64("id")?;
            f.u64("lost")?;
        }
        3 => {
            f.u32("pid")?;
            f.u32("tid")?;
            string_rest(&mut f, "comm")?;
        }
        4 | 7 => {
            for label in ["pid", "ppid", "tid", "ptid"] {
                f.u32(label)?;
            }
            f.u64("time")?;
        }
        5 | 6 => {
            f.u64("time")?;
            f.u64("id")?;
            f.u64("stream_id")?;
        }
        8 => {
            f.u32("pid")?;
            f.u32("tid")?;
            let rest = f.reader.remaining() as u64;
            f.bytes(rest, "read_format values")?;
        }
        9 => {
            if let Some(attr) = layouts.for_sample(f.reader) {
                sample_fields(&mut f, attr)?;
            }
        }
        11 => {
            f.u64_hex("aux_offset")?;
            f.u64_hex("aux_size")?;
            f.u64_hex("flags")?;
        }
        12 => {
            f.u32("pid")?;
            f.u32("tid")?;
        }
        13 => {
            f.u64("lost")?;
        }
        15 => {
            f.u32("next_prev_pid")?;
            f.u32("next_prev_tid")?;
        }
        16 => {
            f.u32("pid")?;
            f.u32("tid")?;
            let nr = f.u64("nr_namespaces")?;
            let len = nr.saturating_mul(16).min(f.reader.remaining() as u64);
            f.bytes(len, "namespaces {dev, inode}")?;
        }
        17 => {
            f.u64_hex("addr")?;
            f.u32("len")?;
            f.u16("ksym_type")?;
            f.u16("flags")?;
            string_rest(&mut f, "name")?;
        }
        18 => {
            f.u16("type")?;
            f.u16("flags")?;
            f.u32("id")?;
            f.bytes(8, "tag")?;
        }
        19 => {
            f.u64("id")?;
            string_rest(&mut f, "path")?;
        }
        20 => {
            f.u64_hex("addr")?;
            let old = f.u16("old_len")?;
            let new = f.u16("new_len")?;
            f.bytes(u64::from(old), "old bytes")?;
            f.bytes(u64::from(new), "new bytes")?;
        }
        21 => {
            f.u64("hw_id")?;
        }
        record::HEADER_ATTR => {
            let start = f.reader.offset();
            let available = f.reader.remaining() as u64;
            let attr = Attr::parse(f.reader, available)?;
            f.node_since("perf_event_attr", start, format!("type {} size {}", attr.kind, attr.size));
            let ids = f.reader.remaining() as u64 / 8;
            if ids > 0 {
                let start = f.reader.offset();
                f.reader.skip(ids.saturating_mul(8), "ids")?;
                f.node_since("ids", start, ids);
            }
        }
        record::HEADER_BUILD_ID => {
            f.u32("pid")?;
            f.bytes(24, "build_id")?;
            string_rest(&mut f, "filename")?;
        }
        record::HEADER_TRACING_DATA => {
            f.u32("size")?;
        }
        record::AUXTRACE => {
            f.u64("size")?;
            f.u64_hex("offset")?;
            f.u64("reference")?;
            f.u32("idx")?;
            f.u32("tid")?;
            f.u32("cpu")?;
        }
        record::EVENT_UPDATE => {
            let kind = f.u64("type (0 unit, 1 scale, 2 name, 3 cpus)")?;
            f.u64("id")?;
            match kind {
                0 | 2 => string_rest(&mut f, if kind == 0 { "unit" } else { "name" })?,
                1 => {
                    let start = f.reader.offset();
                    let bits = f.reader.u64("scale")?;
                    f.node_since("scale", start, f64::from_bits(bits));
                }
                _ => {}
            }
        }
        record::ID_INDEX => {
            let nr = f.u64("nr")?;
            for _ in 0..nr.min(f.reader.remaining() as u64 / 32) {
                let start = f.reader.offset();
                let (id, idx, cpu, tid) =
                    (f.reader.u64("id")?, f.reader.u64("idx")?, f.reader.u64("cpu")?, f.reader.u64("tid")?);
                f.node_since("entry", start, format!("id {id} idx {idx} cpu {} tid {}", cpu as i64, tid as i64));
            }
        }
        record::THREAD_MAP => {
            let nr = f.u64("nr")?;
            for _ in 0..nr.min(f.reader.remaining() as u64 / 24) {
                let start = f.reader.offset();
                let pid = f.reader.u64("pid")?;
                let comm = f.reader.bytes(16, "comm")?;
                f.node_since("thread", start, format!("{} {}", pid as i64, Text(c_string(comm))));
            }
        }
        record::CPU_MAP => {
            f.u16("type (0 cpus, 1 mask, 2 range)")?;
        }
        record::STAT_CONFIG => {
            let nr = f.u64("nr")?;
            for _ in 0..nr.min(f.reader.remaining() as u64 / 16) {
                let start = f.reader.offset();
                let (tag, value) = (f.reader.u64("tag")?, f.reader.u64("value")?);
                f.node_since("config", start, format!("tag {tag} = {value}"));
            }
        }
        record::STAT => {
            f.u64("id")?;
            f.u32("cpu")?;
            f.u32("thread")?;
            f.u64("value")?;
            f.u64("enabled")?;
            f.u64("running")?;
        }
        record::STAT_ROUND => {
            f.u64("type")?;
            f.u64("time")?;
        }
        record::AUXTRACE_INFO => {
            f.u32("type")?;
            f.u32("reserved")?;
        }
        65 => {
            f.u64("id")?;
            string_rest(&mut f, "name")?;
        }
        record::HEADER_FEATURE => {
            let id = f.u64("feature")?;
            let rest = f.reader.remaining() as u64;
            let feature = u32::try_from(id).unwrap_or(u32::MAX);
            let name = super::feature_name(feature).unwrap_or("unknown feature");
            let start = f.reader.offset();
            let section = f.reader.sub(rest, "feature data")?;
            let mut node = Node::new(name, start, start.saturating_add(rest)).with_value(format!("{rest} bytes"));
            if let Ok(children) = super::features::dump_section(feature, section) {
                let mut with = node.clone().with_children(children);
                if with.tile().is_ok() {
                    node = with;
                }
            }
            f.nodes.push(node);
        }
        record::COMPRESSED => {
            let rest = f.reader.remaining() as u64;
            f.bytes(rest, "zstd data")?;
        }
        record::COMPRESSED2 => {
            let size = f.u64("data_size")?;
            f.bytes(size, "zstd data")?;
        }
        record::TIME_CONV => {
            f.u64("time_shift")?;
            f.u64("time_mult")?;
            f.u64("time_zero")?;
        }
        _ => {}
    }
    let mut nodes = f.into_nodes();
    if let Some((size, attr)) = trailer {
        let start = body.offset();
        let mut t = body.sub(size, "sample_id")?;
        let mut tf = Fields::new(&mut t);
        sample_id_fields(&mut tf, attr)?;
        nodes.push(Node::new("sample_id", start, start.saturating_add(size)).with_children(tf.into_nodes()));
    }
    Ok(nodes)
}

fn string_rest(f: &mut Fields<'_, '_>, label: &'static str) -> Result<()> {
    let rest = f.reader.remaining() as u64;
    let start = f.reader.offset();
    let bytes = f.reader.bytes(rest, label)?;
    f.node_since(label, start, Text(c_string(bytes)));
    Ok(())
}

fn sample_id_fields(f: &mut Fields<'_, '_>, attr: &Attr) -> Result<()> {
    if attr.has(st::TID) {
        f.u32("pid")?;
        f.u32("tid")?;
    }
    if attr.has(st::TIME) {
        f.u64("time")?;
    }
    if attr.has(st::ID) {
        f.u64("id")?;
    }
    if attr.has(st::STREAM_ID) {
        f.u64("stream_id")?;
    }
    if attr.has(st::CPU) {
        f.u32("cpu")?;
        f.u32("reserved")?;
    }
    if attr.has(st::IDENTIFIER) {
        f.u64("identifier")?;
    }
    Ok(())
}

/// Sample fields in the kernel's order (see `sample.rs`).
fn sample_fields(f: &mut Fields<'_, '_>, attr: &Attr) -> Result<()> {
    let has = |bit: u64| attr.has(bit);
    if has(st::IDENTIFIER) {
        f.u64("identifier")?;
    }
    if has(st::IP) {
        f.u64_hex("ip")?;
    }
    if has(st::TID) {
        f.u32("pid")?;
        f.u32("tid")?;
    }
    if has(st::TIME) {
        f.u64("time")?;
    }
    if has(st::ADDR) {
        f.u64_hex("addr")?;
    }
    if has(st::ID) {
        f.u64("id")?;
    }
    if has(st::STREAM_ID) {
        f.u64("stream_id")?;
    }
    if has(st::CPU) {
        f.u32("cpu")?;
        f.u32("reserved")?;
    }
    if has(st::PERIOD) {
        f.u64("period")?;
    }
    if has(st::READ) {
        let start = f.reader.offset();
        let values = super::sample::ReadValues::parse(f.reader, attr.read_format)?;
        f.node_since("read", start, format!("{} values", values.values.len()));
    }
    if has(st::CALLCHAIN) {
        let start = f.reader.offset();
        let nr = f.reader.u64("callchain nr")?;
        let mut children = alloc::vec![Node::leaf("nr", start, f.reader.offset(), nr)];
        for _ in 0..nr.min(f.reader.remaining() as u64 / 8) {
            let at = f.reader.offset();
            let ip = f.reader.u64("callchain ip")?;
            let label = match ip {
                super::sample::CONTEXT_KERNEL => "PERF_CONTEXT_KERNEL",
                super::sample::CONTEXT_USER => "PERF_CONTEXT_USER",
                super::sample::CONTEXT_HV => "PERF_CONTEXT_HV",
                super::sample::CONTEXT_GUEST => "PERF_CONTEXT_GUEST",
                super::sample::CONTEXT_GUEST_KERNEL => "PERF_CONTEXT_GUEST_KERNEL",
                super::sample::CONTEXT_GUEST_USER => "PERF_CONTEXT_GUEST_USER",
                _ => "ip",
            };
            children.push(Node::leaf(label, at, f.reader.offset(), format_args!("{ip:#x}")));
        }
        let end = f.reader.offset();
        f.nodes.push(Node::new("callchain", start, end).with_value(nr).with_children(children));
    }
    if has(st::RAW) {
        let size = f.u32("raw size")?;
        f.bytes(u64::from(size), "raw data")?;
    }
    if has(st::BRANCH_STACK) {
        let start = f.reader.offset();
        let nr = f.reader.u64("branch stack nr")?;
        let mut children = alloc::vec![Node::leaf("nr", start, f.reader.offset(), nr)];
        if attr.branch_sample_type & BRANCH_HW_INDEX != 0 {
            let at = f.reader.offset();
            let idx = f.reader.u64("hw_idx")?;
            children.push(Node::leaf("hw_idx", at, f.reader.offset(), idx));
        }
        for i in 0..nr.min(f.reader.remaining() as u64 / 24) {
            let at = f.reader.offset();
            let from = f.reader.u64("branch from")?;
            let to = f.reader.u64("branch to")?;
            let flags = f.reader.u64("branch flags")?;
            let label = format!("entry {i}");
            children.push(Node::leaf(
                label,
                at,
                f.reader.offset(),
                format_args!("{from:#x} → {to:#x} flags {flags:#x}"),
            ));
        }
        let end = f.reader.offset();
        f.nodes.push(Node::new("branch_stack", start, end).with_value(nr).with_children(children));
    }
    if has(st::REGS_USER) {
        regs(f, attr.sample_regs_user, "user regs")?;
    }
    if has(st::STACK_USER) {
        let size = f.u64("user stack size")?;
        f.bytes(size, "user stack")?;
        if size > 0 {
            f.u64("dyn_size")?;
        }
    }
    if has(st::WEIGHT_STRUCT) || has(st::WEIGHT) {
        f.u64("weight")?;
    }
    for (bit, label) in [(st::DATA_SRC, "data_src"), (st::TRANSACTION, "transaction")] {
        if has(bit) {
            f.u64_hex(label)?;
        }
    }
    if has(st::REGS_INTR) {
        regs(f, attr.sample_regs_intr, "intr regs")?;
    }
    for (bit, label) in [
        (st::PHYS_ADDR, "phys_addr"),
        (st::CGROUP, "cgroup"),
        (st::DATA_PAGE_SIZE, "data_page_size"),
        (st::CODE_PAGE_SIZE, "code_page_size"),
    ] {
        if has(bit) {
            f.u64_hex(label)?;
        }
    }
    if has(st::AUX) {
        let size = f.u64("aux size")?;
        f.bytes(size, "aux data")?;
    }
    Ok(())
}

fn regs(f: &mut Fields<'_, '_>, mask: u64, label: &'static str) -> Result<()> {
    let start = f.reader.offset();
    let abi = f.reader.u64(label)?;
    let n = if abi == 0 { 0 } else { u64::from(mask.count_ones()) };
    f.reader.skip(n.saturating_mul(8), label)?;
    f.node_since(label, start, format!("abi {abi}, {n} registers"));
    Ok(())
}
