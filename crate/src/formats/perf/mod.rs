//! Linux `perf.data`, file mode and pipe mode, both byte orders.
//!
//! File mode (`perf_file_header`, 104 bytes):
//!
//! ```text
//! 0   magic "PERFILE2" (LE) / "2ELIFREP" (BE)
//! 8   size = 104                       16  attr_size (one attrs entry, ids section included)
//! 24  attrs {offset, size}             40  data {offset, size}
//! 56  event_types {offset, size}       72  feature bitmap, 256 bits
//! ```
//!
//! then, after the data section, one `perf_file_section` per set feature bit. Pipe
//! mode has only magic and `size = 16`, then records to the end of the input.
//!
//! Layout notes: `shared/formats/linux-perf-data.md`.

pub mod attr;
pub mod dsos;
mod dump;
pub mod features;
mod file;
pub mod machine;
pub mod perf2bolt;
pub mod record;
mod records;
pub mod sample;
pub mod script;
mod stream;
mod zstd;

pub use attr::Attr;
pub use file::{Event, Fetch, FileHeader, PerfData, MAX_UNPACK_RATIO};
pub use record::{Record, RecordAt, RecordHeader};
pub use records::record_type_name;
pub use sample::Sample;
pub use stream::PerfStream;

use alloc::vec::Vec;

use crate::dump::{Deferred, Fields, Node, Text};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::read::{Endian, Reader};

pub const MAGIC_LE: &[u8; 8] = b"PERFILE2";
pub const MAGIC_BE: &[u8; 8] = b"2ELIFREP";
pub const FILE_HEADER_SIZE: u64 = 104;
pub const PIPE_HEADER_SIZE: u64 = 16;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let endian = match data.get(..8) {
        Some(m) if m == MAGIC_LE => Endian::Little,
        Some(m) if m == MAGIC_BE => Endian::Big,
        _ => return Ok(None),
    };
    let mut r = Reader::new(data, endian);
    r.skip(8, "magic")?;
    let size = r.u64("perf_file_header size")?;
    let format = match size {
        PIPE_HEADER_SIZE => Format::PerfDataPipe,
        s if s >= FILE_HEADER_SIZE => Format::PerfData,
        s => return Err(Error::invalid(8, "perf header size 16 (pipe) or at least 104 (file)", s)),
    };
    Ok(Some(Detection::new(format).version(2).endian(endian)))
}

/// Feature ids of the header's feature bitmap (`HEADER_*` in perf's `header.h`).
pub fn feature_name(bit: u32) -> Option<&'static str> {
    Some(match bit {
        1 => "TRACING_DATA",
        2 => "BUILD_ID",
        3 => "HOSTNAME",
        4 => "OSRELEASE",
        5 => "VERSION",
        6 => "ARCH",
        7 => "NRCPUS",
        8 => "CPUDESC",
        9 => "CPUID",
        10 => "TOTAL_MEM",
        11 => "CMDLINE",
        12 => "EVENT_DESC",
        13 => "CPU_TOPOLOGY",
        14 => "NUMA_TOPOLOGY",
        15 => "BRANCH_STACK",
        16 => "PMU_MAPPINGS",
        17 => "GROUP_DESC",
        18 => "AUXTRACE",
        19 => "STAT",
        20 => "CACHE",
        21 => "SAMPLE_TIME",
        22 => "MEM_TOPOLOGY",
        23 => "CLOCKID",
        24 => "DIR_FORMAT",
        25 => "BPF_PROG_INFO",
        26 => "BPF_BTF",
        27 => "COMPRESSED",
        28 => "CPU_PMU_CAPS",
        29 => "CLOCK_DATA",
        30 => "HYBRID_TOPOLOGY",
        // HYBRID_CPU_PMU_CAPS until perf 6.0.
        31 => "PMU_CAPS",
        _ => return None,
    })
}

/// `perf_file_section {offset, size}`, and where it was read (for errors).
struct Section {
    at: u64,
    offset: u64,
    size: u64,
}

fn read_section(f: &mut Fields<'_, '_>, offset: &'static str, size: &'static str) -> Result<Section> {
    let at = f.reader.offset();
    Ok(Section { at, offset: f.u64(offset)?, size: f.u64(size)? })
}

fn section_end(s: &Section) -> u64 {
    s.offset.saturating_add(s.size)
}

pub fn dump(data: &[u8], detection: &Detection) -> Result<Node> {
    let endian = detection.endian.unwrap_or(Endian::Little);
    match detection.format {
        Format::PerfDataPipe => dump_pipe(data, endian),
        _ => dump_file(data, endian),
    }
}

/// The root of a recording's dump (`len` bytes), without its children. A pipe
/// recording's says when its first and last samples were taken (`sample_times`,
/// see [`dsos::sample_time_range`]): perf writes its SAMPLE_TIME record before any
/// sample, as 0, 0, so the samples say it, as `perf report --header` shows a file's.
pub fn dump_root(format: Format, len: u64, sample_times: Option<(u64, u64)>) -> Node {
    if format != Format::PerfDataPipe {
        return Node::new("perf.data", 0, len);
    }
    let root = Node::new("perf.data (pipe)", 0, len);
    match sample_times {
        Some((first, last)) => root.with_value(alloc::format!(
            "time of first sample {}, time of last sample {}",
            dsos::seconds(first),
            dsos::seconds(last)
        )),
        None => root,
    }
}

fn dump_pipe(data: &[u8], endian: Endian) -> Result<Node> {
    let mut r = Reader::new(data, endian);
    let mut f = Fields::new(&mut r);
    f.bytes(8, "magic")?;
    f.u64("size")?;
    let header = Node::new("perf_pipe_file_header", 0, PIPE_HEADER_SIZE).with_children(f.into_nodes());
    let times = PerfData::parse_unindexed(data).and_then(|p| dsos::sample_time_range(&p));
    let mut root = dump_root(Format::PerfDataPipe, data.len() as u64, times.ok().flatten());
    root.children.push(header);
    root.children.push(records::dump_stream(data, endian, PIPE_HEADER_SIZE, data.len() as u64, "records")?);
    Ok(root)
}

fn dump_file(data: &[u8], endian: Endian) -> Result<Node> {
    let len = data.len() as u64;
    let mut r = Reader::new(data, endian);
    let mut f = Fields::new(&mut r);
    f.bytes(8, "magic")?;
    let header_size = f.u64("size")?;
    let attr_size = f.u64("attr_size")?;
    let attrs = read_section(&mut f, "attrs.offset", "attrs.size")?;
    let data_section = read_section(&mut f, "data.offset", "data.size")?;
    let event_types = read_section(&mut f, "event_types.offset", "event_types.size")?;
    let start = f.reader.offset();
    let mut bitmap = [0u64; 4];
    for word in &mut bitmap {
        *word = f.reader.u64("feature bitmap")?;
    }
    let features: Vec<u32> =
        (0u32..256).filter(|&bit| bitmap.get((bit / 64) as usize).is_some_and(|w| w >> (bit % 64) & 1 == 1)).collect();
    let names: Vec<&str> = features.iter().map(|&b| feature_name(b).unwrap_or("?")).collect();
    f.node_since("features", start, names.join(","));
    let mut header = Node::new("perf_file_header", 0, FILE_HEADER_SIZE).with_children(f.into_nodes());
    header.tile()?;

    let mut root = dump_root(Format::PerfData, len, None);
    root.children.push(header);
    if header_size > FILE_HEADER_SIZE {
        let end = header_size.min(len);
        root.children.push(Node::new("header extension", FILE_HEADER_SIZE, end));
    }
    if event_types.size > 0 {
        let end = checked_end(&event_types, len, "event_types section inside the file")?;
        root.children.push(Node::new("event_types (deprecated)", event_types.offset, end));
    }

    // The attrs section: perf_event_attr entries, each followed by the
    // {offset, size} of that event's id array.
    if attrs.size > 0 {
        checked_end(&attrs, len, "attrs section inside the file")?;
        if attr_size < 16 + 64 || attrs.size.checked_rem(attr_size) != Some(0) {
            return Err(Error::invalid(16, "attr_size that divides attrs.size and holds an attr", attr_size));
        }
        let mut ar = Reader::new(data, endian).sub_at(attrs.offset, attrs.size, "attrs section")?;
        let mut entries = Vec::new();
        let mut index = 0u64;
        while !ar.is_empty() {
            let entry_start = ar.offset();
            let mut entry = ar.sub(attr_size, "attrs entry")?;
            let attr = dump_attr(&mut entry, attr_size.saturating_sub(16))?;
            let mut ef = Fields::new(&mut entry);
            let ids = read_section(&mut ef, "ids.offset", "ids.size")?;
            let mut children = alloc::vec![attr];
            children.extend(ef.into_nodes());
            let label = alloc::format!("attr {index}");
            let mut node = Node::new(label, entry_start, entry_start.saturating_add(attr_size)).with_children(children);
            node.tile()?;
            entries.push(node);
            if ids.size > 0 {
                let end = checked_end(&ids, len, "attr ids section inside the file")?;
                let count = ids.size / 8;
                root.children.push(Node::leaf(alloc::format!("ids of attr {index}"), ids.offset, end, count));
            }
            index = index.saturating_add(1);
        }
        let mut node = Node::new("attrs", attrs.offset, section_end(&attrs)).with_children(entries).with_value(index);
        node.tile()?;
        root.children.push(node);
    }

    // A recording cut off mid-write has data.size 0: its records run to the end.
    let (data_end, complete) = if data_section.size == 0 && data_section.offset > 0 {
        (len, false)
    } else {
        (checked_end(&data_section, len, "data section inside the file")?, true)
    };
    if data_end > data_section.offset {
        root.children.push(records::dump_stream(data, endian, data_section.offset, data_end, "data")?);
    }

    if complete && !features.is_empty() {
        let table_start = data_end;
        let table_len = (features.len() as u64).saturating_mul(16);
        let mut tr = Reader::new(data, endian).sub_at(table_start, table_len, "feature section table")?;
        let mut entries = Vec::new();
        for &bit in &features {
            let name = feature_name(bit).unwrap_or("unknown feature");
            let mut ef = Fields::new(&mut tr);
            let entry_start = ef.reader.offset();
            let section = read_section(&mut ef, "offset", "size")?;
            entries.push(Node::new(name, entry_start, ef.reader.offset()).with_children(ef.into_nodes()));
            if section.size > 0 {
                let end = checked_end(&section, len, "feature section inside the file")?;
                let mut node = Node::new(alloc::format!("feature {name}"), section.offset, end);
                if let Some(value) = feature_string(data, endian, bit, &section) {
                    node = node.with_value(value);
                }
                // The fields, when they decode; a section that does not stays one span.
                let fields = Reader::new(data, endian)
                    .sub_at(section.offset, section.size, "feature section")
                    .and_then(|r| features::dump_section(bit, r));
                if let Ok(children) = fields.map(|c| Node::new("", section.offset, end).with_children(c)) {
                    let mut with = node.clone().with_children(children.children);
                    if with.tile().is_ok() {
                        node = with;
                    }
                }
                root.children.push(node);
            }
        }
        let table_end = table_start.saturating_add(table_len);
        root.children.push(Node::new("feature sections", table_start, table_end).with_children(entries));
        // perf sizes the table before writing the features and drops those that fail
        // to write, leaving their slots zeroed between the table and the first section.
        let first_section = root.children.iter().map(|c| c.start).filter(|&s| s >= table_end).min().unwrap_or(len);
        let slack = usize::try_from(table_end)
            .ok()
            .zip(usize::try_from(first_section).ok())
            .and_then(|(s, e)| data.get(s..e))
            .unwrap_or(&[]);
        if !slack.is_empty() && slack.len() % 16 == 0 && slack.iter().all(|&b| b == 0) {
            let slots = slack.len() / 16;
            root.children.push(Node::leaf("unused feature slots", table_end, first_section, slots));
        }
    }
    Ok(root)
}

/// The end of `section`, which must lie inside the input; the error points at the
/// header field that says otherwise.
fn checked_end(section: &Section, len: u64, what: &'static str) -> Result<u64> {
    match section.offset.checked_add(section.size) {
        Some(end) if end <= len => Ok(end),
        _ => Err(Error::invalid(section.at, what, section.offset.saturating_add(section.size))),
    }
}

/// The value of one-string features (`perf_header_string`: u32 length, NUL-padded).
fn feature_string(data: &[u8], endian: Endian, bit: u32, section: &Section) -> Option<alloc::string::String> {
    if !matches!(bit, 3 | 4 | 5 | 6 | 8 | 9) {
        return None;
    }
    let mut r = Reader::new(data, endian).sub_at(section.offset, section.size, "feature").ok()?;
    let len = r.u32("string length").ok()?;
    let bytes = r.bytes(u64::from(len), "string").ok()?;
    let text = bytes.split(|&b| b == 0).next().unwrap_or(bytes);
    Some(alloc::format!("{}", Text(text)))
}

/// `perf_event_attr`: the fixed fields every version has, then the rest of its
/// `size` as one node (later versions add fields at the end).
fn dump_attr(r: &mut Reader<'_>, available: u64) -> Result<Node> {
    let start = r.offset();
    let mut f = Fields::new(r);
    f.u32("type")?;
    let size = f.u32("size")?;
    if u64::from(size) < 64 || u64::from(size) > available {
        return Err(Error::invalid(
            start.saturating_add(4),
            "perf_event_attr size of at least 64 that fits its entry",
            u64::from(size),
        ));
    }
    f.u64_hex("config")?;
    f.u64("sample_period")?;
    f.u64_hex("sample_type")?;
    f.u64_hex("read_format")?;
    f.u64_hex("flags")?;
    f.u32("wakeup_events")?;
    f.u32("bp_type")?;
    f.u64_hex("config1")?;
    let end = start.saturating_add(u64::from(size));
    let tail = end.saturating_sub(f.reader.offset());
    if tail > 0 {
        f.bytes(tail, "later fields")?;
    }
    Ok(Node::new("perf_event_attr", start, end).with_children(f.into_nodes()))
}

pub fn expand(data: &[u8], detection: &Detection, deferred: &Deferred) -> Result<Vec<Node>> {
    records::expand(data, detection.endian.unwrap_or(Endian::Little), deferred)
}
