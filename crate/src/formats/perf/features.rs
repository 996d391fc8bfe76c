//! Feature sections: what perf wrote about the machine and the recording, after
//! the data (file mode) or as HEADER_FEATURE records (pipe mode).

use alloc::string::String;
use alloc::vec::Vec;

use super::attr::Attr;
use super::record::{c_string, BuildIdEntry, RecordHeader};
use crate::dump::{Fields, Node, Text};
use crate::error::{Error, Result};
use crate::read::Reader;

pub const TRACING_DATA: u32 = 1;
pub const BUILD_ID: u32 = 2;
pub const HOSTNAME: u32 = 3;
pub const OSRELEASE: u32 = 4;
pub const VERSION: u32 = 5;
pub const ARCH: u32 = 6;
pub const NRCPUS: u32 = 7;
pub const CPUDESC: u32 = 8;
pub const CPUID: u32 = 9;
pub const TOTAL_MEM: u32 = 10;
pub const CMDLINE: u32 = 11;
pub const EVENT_DESC: u32 = 12;
pub const CPU_TOPOLOGY: u32 = 13;
pub const NUMA_TOPOLOGY: u32 = 14;
pub const BRANCH_STACK: u32 = 15;
pub const PMU_MAPPINGS: u32 = 16;
pub const GROUP_DESC: u32 = 17;
pub const SAMPLE_TIME: u32 = 21;
pub const CLOCKID: u32 = 23;
pub const COMPRESSED: u32 = 27;
pub const CLOCK_DATA: u32 = 29;

/// An EVENT_DESC entry: an event's attr, name and sample ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDesc {
    pub attr: Attr,
    pub name: String,
    pub ids: Vec<u64>,
}

/// Typed values of the features pgolens uses; every section's span is kept in
/// [`Features::sections`].
#[derive(Clone, Debug, Default)]
pub struct Features {
    /// (feature id, offset, size) of every section, in file order.
    pub sections: Vec<(u32, u64, u64)>,
    pub hostname: Option<String>,
    pub os_release: Option<String>,
    pub version: Option<String>,
    pub arch: Option<String>,
    /// (online, available), as perf prints them.
    pub nr_cpus: Option<(u32, u32)>,
    pub cpu_desc: Option<String>,
    pub cpu_id: Option<String>,
    /// In kB.
    pub total_mem: Option<u64>,
    pub cmdline: Vec<String>,
    pub event_desc: Vec<EventDesc>,
    pub build_ids: Vec<BuildIdEntry>,
    pub sample_time: Option<(u64, u64)>,
    pub clockid: Option<u64>,
    pub branch_stack: bool,
    /// `version, type (1 = zstd), level, ratio, mmap_len`.
    pub compressed: Option<[u32; 5]>,
    pub pmu_mappings: Vec<(u32, String)>,
}

/// `perf_header_string`: u32 length, then that many bytes, NUL-padded.
pub fn header_string(r: &mut Reader<'_>) -> Result<String> {
    let len = r.u32("perf_header_string length")?;
    let bytes = r.bytes(u64::from(len), "perf_header_string")?;
    Ok(String::from_utf8_lossy(c_string(bytes)).into_owned())
}

/// A u32 count, checked against the bytes left (each item at least `min_item`
/// bytes) so a lying count cannot make us allocate or loop for long.
pub fn count(r: &mut Reader<'_>, min_item: u64, what: &'static str) -> Result<u32> {
    let at = r.offset();
    let nr = r.u32(what)?;
    if u64::from(nr).saturating_mul(min_item) > r.remaining() as u64 {
        return Err(Error::invalid(at, what, u64::from(nr)));
    }
    Ok(nr)
}

fn string_list(r: &mut Reader<'_>) -> Result<Vec<String>> {
    let nr = count(r, 4, "string list count that fits the section")?;
    (0..nr).map(|_| header_string(r)).collect()
}

impl Features {
    /// The build id the BUILD_ID feature gives the file whose name `named` accepts:
    /// its last entry of that name, as later entries override earlier ones in perf.
    pub fn build_id_named(&self, mut named: impl FnMut(&[u8]) -> bool) -> Option<&[u8]> {
        self.build_ids.iter().rev().find(|e| named(c_string(&e.filename))).map(|e| e.build_id.as_slice())
    }

    /// Decodes one feature section; sections pgolens does not model are only recorded.
    pub fn add(&mut self, feature: u32, r: &mut Reader<'_>) -> Result<()> {
        self.sections.push((feature, r.offset(), r.remaining() as u64));
        match feature {
            HOSTNAME => self.hostname = Some(header_string(r)?),
            OSRELEASE => self.os_release = Some(header_string(r)?),
            VERSION => self.version = Some(header_string(r)?),
            ARCH => self.arch = Some(header_string(r)?),
            CPUDESC => self.cpu_desc = Some(header_string(r)?),
            CPUID => self.cpu_id = Some(header_string(r)?),
            NRCPUS => {
                // perf writes nr_cpus_avail first, then nr_cpus_online.
                let available = r.u32("nr_cpus_available")?;
                let online = r.u32("nr_cpus_online")?;
                self.nr_cpus = Some((online, available));
            }
            TOTAL_MEM => self.total_mem = Some(r.u64("total_mem")?),
            CMDLINE => self.cmdline = string_list(r)?,
            EVENT_DESC => self.event_desc = event_desc(r)?,
            BUILD_ID => {
                while !r.is_empty() {
                    let at = r.offset();
                    let kind = r.u32("build_id_event type")?;
                    let misc = r.u16("build_id_event misc")?;
                    let size = r.u16("build_id_event size")?;
                    if size < 8 + 4 + 24 {
                        return Err(Error::invalid(
                            at.saturating_add(6),
                            "build_id_event size of at least 36",
                            u64::from(size),
                        ));
                    }
                    let mut body = r.sub(u64::from(size).saturating_sub(8), "build_id_event")?;
                    let header = RecordHeader { kind, misc, size };
                    self.build_ids.push(BuildIdEntry::parse_body(header, &mut body)?);
                }
            }
            SAMPLE_TIME => self.sample_time = Some((r.u64("first sample time")?, r.u64("last sample time")?)),
            CLOCKID => self.clockid = Some(r.u64("clockid")?),
            BRANCH_STACK => self.branch_stack = true,
            COMPRESSED => {
                let mut v = [0u32; 5];
                for (slot, what) in v.iter_mut().zip(["version", "type", "level", "ratio", "mmap_len"]) {
                    *slot = r.u32(what)?;
                }
                self.compressed = Some(v);
            }
            PMU_MAPPINGS => {
                let nr = count(r, 8, "pmu mapping count that fits the section")?;
                for _ in 0..nr {
                    let kind = r.u32("pmu type")?;
                    self.pmu_mappings.push((kind, header_string(r)?));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

fn event_desc(r: &mut Reader<'_>) -> Result<Vec<EventDesc>> {
    let nr = count(r, 72, "event count that fits the section")?;
    let attr_size = r.u32("attr_size")?;
    let mut out = Vec::new();
    for _ in 0..nr {
        let mut ar = r.sub(u64::from(attr_size), "event attr")?;
        let attr = Attr::parse(&mut ar, u64::from(attr_size))?;
        let nr_ids = count(r, 8, "id count that fits the section")?;
        let name = header_string(r)?;
        let ids = (0..nr_ids).map(|_| r.u64("event id")).collect::<Result<Vec<_>>>()?;
        out.push(EventDesc { attr, name, ids });
    }
    Ok(out)
}

pub const CACHE: u32 = 20;
pub const MEM_TOPOLOGY: u32 = 22;
pub const DIR_FORMAT: u32 = 24;
pub const CPU_PMU_CAPS: u32 = 28;
pub const HYBRID_TOPOLOGY: u32 = 30;
pub const PMU_CAPS: u32 = 31;
pub const AUXTRACE: u32 = 18;

/// The fields of one feature section, for the dump. Sections whose layout pgolens
/// does not know (tracing data, BPF info, ...) give no fields: their span stays one node.
pub fn dump_section(feature: u32, mut r: Reader<'_>) -> Result<Vec<Node>> {
    let mut f = Fields::new(&mut r);
    match feature {
        HOSTNAME | OSRELEASE | VERSION | ARCH | CPUDESC | CPUID => {
            string(&mut f, "string")?;
        }
        NRCPUS => {
            f.u32("nr_cpus_available")?;
            f.u32("nr_cpus_online")?;
        }
        TOTAL_MEM => {
            f.u64("total memory (kB)")?;
        }
        CMDLINE => strings(&mut f, "argument")?,
        EVENT_DESC => {
            let nr = list_count(&mut f, 72, "nr events")?;
            let attr_size = f.u32("attr_size")?;
            for _ in 0..nr {
                let start = f.reader.offset();
                let mut ar = f.reader.sub(u64::from(attr_size), "event attr")?;
                let attr = Attr::parse(&mut ar, u64::from(attr_size))?;
                f.node_since("perf_event_attr", start, alloc::format!("type {} config {:#x}", attr.kind, attr.config));
                let ids = list_count(&mut f, 8, "nr_ids")?;
                let name = string(&mut f, "name")?;
                let start = f.reader.offset();
                f.reader.skip(u64::from(ids).saturating_mul(8), "event ids")?;
                f.node_since(alloc::format!("ids of {name}"), start, ids);
            }
        }
        BUILD_ID => {
            while !f.reader.is_empty() {
                let start = f.reader.offset();
                f.reader.u32("build_id_event type")?;
                let misc = f.reader.u16("build_id_event misc")?;
                let size = f.reader.u16("build_id_event size")?;
                let mut body = f.reader.sub(u64::from(size).saturating_sub(8), "build_id_event")?;
                let entry = BuildIdEntry::parse_body(RecordHeader { kind: 0, misc, size }, &mut body)?;
                let value = alloc::format!("{} {}", entry.build_id_hex(), Text(&entry.filename));
                f.node_since("build_id_event", start, value);
            }
        }
        CPU_TOPOLOGY => {
            strings(&mut f, "core siblings")?;
            strings(&mut f, "thread siblings")?;
            // perf 4.x and later: then core and socket id of each cpu, dies after 5.x.
            let rest = f.reader.remaining() as u64;
            if rest > 0 {
                let start = f.reader.offset();
                f.reader.skip(rest, "cpu ids")?;
                f.node_since("core/socket ids and dies", start, alloc::format!("{rest} bytes"));
            }
        }
        NUMA_TOPOLOGY => {
            let nr = list_count(&mut f, 24, "nr nodes")?;
            for _ in 0..nr {
                f.u32("node")?;
                f.u64("mem_total (kB)")?;
                f.u64("mem_free (kB)")?;
                string(&mut f, "cpus")?;
            }
        }
        PMU_MAPPINGS => {
            let nr = list_count(&mut f, 8, "nr pmus")?;
            for _ in 0..nr {
                f.u32("type")?;
                string(&mut f, "name")?;
            }
        }
        GROUP_DESC => {
            let nr = list_count(&mut f, 12, "nr groups")?;
            for _ in 0..nr {
                string(&mut f, "group name")?;
                f.u32("leader index")?;
                f.u32("nr members")?;
            }
        }
        AUXTRACE => {
            let start = f.reader.offset();
            let nr = f.reader.u64("auxtrace index nr")?;
            f.node_since("nr", start, nr);
            let rest = f.reader.remaining() as u64;
            f.bytes(rest, "index entries {offset, size}")?;
        }
        CACHE => {
            f.u32("version")?;
            let nr = list_count(&mut f, 28, "nr caches")?;
            for _ in 0..nr {
                f.u32("level")?;
                f.u32("line_size")?;
                f.u32("sets")?;
                f.u32("ways")?;
                string(&mut f, "type")?;
                string(&mut f, "size")?;
                string(&mut f, "shared cpu map")?;
            }
        }
        SAMPLE_TIME => {
            f.u64("first sample time")?;
            f.u64("last sample time")?;
        }
        MEM_TOPOLOGY => {
            f.u64("version")?;
            f.u64("block_size")?;
            let start = f.reader.offset();
            let nr = f.reader.u64("nr nodes")?;
            f.node_since("nr nodes", start, nr);
            let rest = f.reader.remaining() as u64;
            f.bytes(rest, "nodes {node, size, bitmap}")?;
        }
        CLOCKID => {
            f.u64("clockid resolution (ns)")?;
        }
        DIR_FORMAT => {
            f.u64("version")?;
        }
        COMPRESSED => {
            f.u32("version")?;
            f.u32("type (1 = zstd)")?;
            f.u32("level")?;
            f.u32("ratio")?;
            f.u32("mmap_len")?;
        }
        CPU_PMU_CAPS => caps(&mut f)?,
        CLOCK_DATA => {
            f.u32("version")?;
            f.u32("clockid")?;
            f.u64("wall_clock_ns")?;
            f.u64("clockid_time_ns")?;
        }
        HYBRID_TOPOLOGY => {
            let nr = list_count(&mut f, 8, "nr pmus")?;
            for _ in 0..nr {
                string(&mut f, "pmu name")?;
                string(&mut f, "cpus")?;
            }
        }
        PMU_CAPS => {
            let nr = list_count(&mut f, 8, "nr pmus")?;
            for _ in 0..nr {
                let caps_nr = list_count(&mut f, 8, "nr caps")?;
                string(&mut f, "pmu name")?;
                for _ in 0..caps_nr {
                    string(&mut f, "capability")?;
                    string(&mut f, "value")?;
                }
            }
        }
        _ => {}
    }
    Ok(f.into_nodes())
}

/// A `perf_header_string` as one node whose value is the text.
fn string(f: &mut Fields<'_, '_>, label: &'static str) -> Result<String> {
    let start = f.reader.offset();
    let text = header_string(f.reader)?;
    f.node_since(label, start, &text);
    Ok(text)
}

fn list_count(f: &mut Fields<'_, '_>, min_item: u64, label: &'static str) -> Result<u32> {
    let start = f.reader.offset();
    let nr = count(f.reader, min_item, label)?;
    f.node_since(label, start, nr);
    Ok(nr)
}

fn strings(f: &mut Fields<'_, '_>, label: &'static str) -> Result<()> {
    let nr = list_count(f, 4, "nr strings")?;
    for _ in 0..nr {
        string(f, label)?;
    }
    Ok(())
}

fn caps(f: &mut Fields<'_, '_>) -> Result<()> {
    let nr = list_count(f, 8, "nr caps")?;
    for _ in 0..nr {
        string(f, "capability")?;
        string(f, "value")?;
    }
    Ok(())
}
