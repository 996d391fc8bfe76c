//! Typed records: the kernel's `PERF_RECORD_*` and perf's own (type 64 and up).

use alloc::string::String;
use alloc::vec::Vec;

use super::attr::Attr;
use super::sample::{counted, ReadValues, Sample, SampleId, U64s};
use crate::error::{Error, Result};
use crate::read::Reader;

/// `perf_event_header`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    pub kind: u32,
    pub misc: u16,
    pub size: u16,
}

/// `misc` bits whose meaning depends on the record type.
pub mod misc {
    pub const CPUMODE_MASK: u16 = 7;
    pub const KERNEL: u16 = 1;
    pub const USER: u16 = 2;
    pub const HYPERVISOR: u16 = 3;
    pub const GUEST_KERNEL: u16 = 4;
    pub const GUEST_USER: u16 = 5;
    /// MMAP: a data mapping; COMM: an exec; SWITCH: switch out.
    pub const MMAP_DATA: u16 = 1 << 13;
    pub const COMM_EXEC: u16 = 1 << 13;
    pub const SWITCH_OUT: u16 = 1 << 13;
    /// SAMPLE: exact ip; MMAP2: build id instead of device and inode.
    pub const EXACT_IP: u16 = 1 << 14;
    pub const MMAP_BUILD_ID: u16 = 1 << 14;
    pub const SWITCH_OUT_PREEMPT: u16 = 1 << 14;
    pub const BUILD_ID_SIZE: u16 = 1 << 15;
}

/// MMAP and MMAP2: a mapping of a file (or anonymous memory) into a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mmap<'a> {
    pub pid: u32,
    pub tid: u32,
    pub addr: u64,
    pub len: u64,
    /// File offset of `addr`.
    pub pgoff: u64,
    pub file: MmapFile<'a>,
    pub prot: Option<u32>,
    pub flags: Option<u32>,
    pub filename: &'a [u8],
}

/// What an MMAP2 says of the mapped file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmapFile<'a> {
    /// Plain MMAP: nothing.
    None,
    Inode {
        maj: u32,
        min: u32,
        ino: u64,
        ino_generation: u64,
    },
    BuildId(&'a [u8]),
}

/// FORK and EXIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Task {
    pub pid: u32,
    pub ppid: u32,
    pub tid: u32,
    pub ptid: u32,
    pub time: u64,
}

// Records are decoded one at a time and mostly are samples: boxing the large
// variant would cost an allocation per sample for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Record<'a> {
    Mmap(Mmap<'a>),
    Lost {
        id: u64,
        lost: u64,
    },
    Comm {
        pid: u32,
        tid: u32,
        comm: &'a [u8],
    },
    Exit(Task),
    Throttle {
        time: u64,
        id: u64,
        stream_id: u64,
    },
    Unthrottle {
        time: u64,
        id: u64,
        stream_id: u64,
    },
    Fork(Task),
    Read {
        pid: u32,
        tid: u32,
        values: ReadValues,
    },
    Sample(Sample<'a>),
    Aux {
        aux_offset: u64,
        aux_size: u64,
        flags: u64,
    },
    ItraceStart {
        pid: u32,
        tid: u32,
    },
    LostSamples {
        lost: u64,
    },
    /// SWITCH (no next/prev task) and SWITCH_CPU_WIDE.
    Switch {
        next_prev: Option<(u32, u32)>,
    },
    Namespaces {
        pid: u32,
        tid: u32,
        dev_inode_pairs: U64s<'a>,
    },
    Ksymbol {
        addr: u64,
        len: u32,
        ksym_type: u16,
        flags: u16,
        name: &'a [u8],
    },
    BpfEvent {
        kind: u16,
        flags: u16,
        id: u32,
        tag: [u8; 8],
    },
    Cgroup {
        id: u64,
        path: &'a [u8],
    },
    TextPoke {
        addr: u64,
        old: &'a [u8],
        new: &'a [u8],
    },
    AuxOutputHwId {
        hw_id: u64,
    },
    /// HEADER_ATTR (pipe mode): an event and its sample ids.
    HeaderAttr {
        attr: Attr,
        ids: U64s<'a>,
    },
    /// HEADER_FEATURE (pipe mode): a feature section's bytes.
    HeaderFeature {
        feature: u64,
        body: Reader<'a>,
    },
    HeaderBuildId(BuildIdEntry),
    /// HEADER_EVENT_TYPE (deprecated): an event id and its name.
    HeaderEventType {
        id: u64,
        name: &'a [u8],
    },
    /// HEADER_TRACING_DATA: `size` bytes of tracing data follow the record.
    TracingData {
        size: u32,
    },
    /// ID_INDEX: `{id, idx, cpu, tid}` per sample id.
    IdIndex {
        entries: U64s<'a>,
    },
    /// AUXTRACE_INFO: the AUX area's type and its private words.
    AuxtraceInfo {
        kind: u32,
        private: U64s<'a>,
    },
    /// AUXTRACE: `size` bytes of trace data follow the record.
    Auxtrace {
        size: u64,
        offset: u64,
        reference: u64,
        idx: u32,
        tid: u32,
        cpu: u32,
    },
    AuxtraceError {
        kind: u32,
        code: u32,
        cpu: u32,
        pid: u32,
        tid: u32,
        ip: u64,
        message: &'a [u8],
    },
    /// THREAD_MAP: `{pid u64, comm[16]}` entries.
    ThreadMap {
        entries: &'a [u8],
    },
    /// CPU_MAP: the map's encoding (`type`) and its data.
    CpuMap {
        kind: u16,
        data: &'a [u8],
    },
    /// STAT_CONFIG: `{tag, value}` pairs.
    StatConfig {
        pairs: U64s<'a>,
    },
    Stat {
        id: u64,
        cpu: u32,
        thread: u32,
        value: u64,
        enabled: u64,
        running: u64,
    },
    StatRound {
        kind: u64,
        time: u64,
    },
    /// EVENT_UPDATE: 0 unit, 1 scale, 2 name, 3 cpus.
    EventUpdate {
        kind: u64,
        id: u64,
        data: &'a [u8],
    },
    /// TIME_CONV: TSC to perf time conversion.
    TimeConv {
        shift: u64,
        mult: u64,
        zero: u64,
    },
    FinishedRound,
    FinishedInit,
    /// COMPRESSED and COMPRESSED2: zstd data holding more records.
    Compressed {
        zstd: &'a [u8],
    },
    /// Every other type, kept with its body.
    Other {
        body: &'a [u8],
    },
}

/// A record and its place: `offset` is in the file, or for records that came out
/// of compressed data, the offset of the compressed record that completed them.
#[derive(Clone, Debug)]
pub struct RecordAt<'a> {
    pub offset: u64,
    pub header: RecordHeader,
    pub sample_id: SampleId,
    pub record: Record<'a>,
}

impl RecordAt<'_> {
    /// The record's time: the sample's, or the `sample_id` trailer's.
    pub fn time(&self) -> Option<u64> {
        match &self.record {
            Record::Sample(s) => s.time,
            _ => self.sample_id.time,
        }
    }
}

pub(crate) const PERF_RECORD_SAMPLE: u32 = 9;
pub(crate) const HEADER_ATTR: u32 = 64;
pub(crate) const HEADER_TRACING_DATA: u32 = 66;
pub(crate) const HEADER_BUILD_ID: u32 = 67;
pub(crate) const FINISHED_ROUND: u32 = 68;
pub(crate) const ID_INDEX: u32 = 69;
pub(crate) const AUXTRACE_INFO: u32 = 70;
pub(crate) const AUXTRACE: u32 = 71;
pub(crate) const AUXTRACE_ERROR: u32 = 72;
pub(crate) const THREAD_MAP: u32 = 73;
pub(crate) const CPU_MAP: u32 = 74;
pub(crate) const STAT_CONFIG: u32 = 75;
pub(crate) const STAT: u32 = 76;
pub(crate) const STAT_ROUND: u32 = 77;
pub(crate) const EVENT_UPDATE: u32 = 78;
pub(crate) const TIME_CONV: u32 = 79;
pub(crate) const HEADER_FEATURE: u32 = 80;
pub(crate) const COMPRESSED: u32 = 81;
pub(crate) const FINISHED_INIT: u32 = 82;
pub(crate) const COMPRESSED2: u32 = 83;

/// Reads a record header and its body, and skips any payload that follows
/// outside `size` (tracing data, AUXTRACE data).
pub(crate) fn next_record<'a>(r: &mut Reader<'a>) -> Result<(RecordHeader, Reader<'a>)> {
    let start = r.offset();
    let kind = r.u32("perf_event_header.type")?;
    let misc = r.u16("perf_event_header.misc")?;
    let size = r.u16("perf_event_header.size")?;
    if size < 8 {
        return Err(Error::invalid(start.saturating_add(6), "record size of at least 8", u64::from(size)));
    }
    let body = r.sub(u64::from(size).saturating_sub(8), "record body")?;
    let trailing = match kind {
        HEADER_TRACING_DATA => {
            let len = u64::from(body.clone().u32("tracing data size")?);
            len.saturating_add(7) & !7
        }
        AUXTRACE => body.clone().u64("auxtrace size")?,
        _ => 0,
    };
    r.skip(trailing, "data following the record")?;
    Ok((RecordHeader { kind, misc, size }, body))
}

/// Kernel records other than SAMPLE carry a `sample_id` trailer (perf's own
/// records do not).
pub(crate) fn has_sample_id(kind: u32) -> bool {
    kind != PERF_RECORD_SAMPLE && kind < HEADER_ATTR
}

/// Decodes the body of a record whose sample-id trailer (if any) was already cut off.
pub(crate) fn parse_body<'a>(header: RecordHeader, r: &mut Reader<'a>) -> Result<Record<'a>> {
    let at = r.offset();
    Ok(match header.kind {
        1 | 10 => {
            let pid = r.u32("mmap pid")?;
            let tid = r.u32("mmap tid")?;
            let addr = r.u64("mmap addr")?;
            let len = r.u64("mmap len")?;
            let pgoff = r.u64("mmap pgoff")?;
            let (file, prot, flags) = if header.kind == 10 {
                let file = if header.misc & misc::MMAP_BUILD_ID != 0 {
                    let size = r.u8("build_id_size")?;
                    r.skip(3, "reserved")?;
                    let id = r.bytes(20, "build_id")?;
                    let used = id.get(..usize::from(size).min(20)).unwrap_or(id);
                    MmapFile::BuildId(used)
                } else {
                    MmapFile::Inode {
                        maj: r.u32("maj")?,
                        min: r.u32("min")?,
                        ino: r.u64("ino")?,
                        ino_generation: r.u64("ino_generation")?,
                    }
                };
                (file, Some(r.u32("prot")?), Some(r.u32("flags")?))
            } else {
                (MmapFile::None, None, None)
            };
            Record::Mmap(Mmap { pid, tid, addr, len, pgoff, file, prot, flags, filename: c_string(r.rest()) })
        }
        2 => Record::Lost { id: r.u64("lost id")?, lost: r.u64("lost count")? },
        3 => Record::Comm { pid: r.u32("comm pid")?, tid: r.u32("comm tid")?, comm: c_string(r.rest()) },
        4 | 7 => {
            let task = Task {
                pid: r.u32("pid")?,
                ppid: r.u32("ppid")?,
                tid: r.u32("tid")?,
                ptid: r.u32("ptid")?,
                time: r.u64("time")?,
            };
            if header.kind == 4 {
                Record::Exit(task)
            } else {
                Record::Fork(task)
            }
        }
        5 | 6 => {
            let (time, id, stream_id) = (r.u64("time")?, r.u64("id")?, r.u64("stream_id")?);
            if header.kind == 5 {
                Record::Throttle { time, id, stream_id }
            } else {
                Record::Unthrottle { time, id, stream_id }
            }
        }
        11 => Record::Aux { aux_offset: r.u64("aux_offset")?, aux_size: r.u64("aux_size")?, flags: r.u64("flags")? },
        12 => Record::ItraceStart { pid: r.u32("pid")?, tid: r.u32("tid")? },
        13 => Record::LostSamples { lost: r.u64("lost")? },
        14 => Record::Switch { next_prev: None },
        15 => Record::Switch { next_prev: Some((r.u32("next_prev_pid")?, r.u32("next_prev_tid")?)) },
        16 => {
            let pid = r.u32("pid")?;
            let tid = r.u32("tid")?;
            let nr = r.u64("namespaces nr")?;
            let bytes = counted(r, at.saturating_add(8), nr, 16, "namespace count that fits the record")?;
            Record::Namespaces { pid, tid, dev_inode_pairs: U64s { bytes, endian: r.endian() } }
        }
        17 => Record::Ksymbol {
            addr: r.u64("ksymbol addr")?,
            len: r.u32("ksymbol len")?,
            ksym_type: r.u16("ksym_type")?,
            flags: r.u16("ksymbol flags")?,
            name: c_string(r.rest()),
        },
        18 => Record::BpfEvent {
            kind: r.u16("bpf event type")?,
            flags: r.u16("bpf event flags")?,
            id: r.u32("bpf id")?,
            tag: r.array::<8>("bpf tag")?,
        },
        19 => Record::Cgroup { id: r.u64("cgroup id")?, path: c_string(r.rest()) },
        20 => {
            let addr = r.u64("text_poke addr")?;
            let old_len = r.u16("old_len")?;
            let new_len = r.u16("new_len")?;
            let old = r.bytes(u64::from(old_len), "old bytes")?;
            let new = r.bytes(u64::from(new_len), "new bytes")?;
            Record::TextPoke { addr, old, new }
        }
        21 => Record::AuxOutputHwId { hw_id: r.u64("hw_id")? },
        HEADER_ATTR => {
            let available = r.remaining() as u64;
            let attr = Attr::parse(r, available)?;
            Record::HeaderAttr { attr, ids: U64s { bytes: whole_words(r.rest()), endian: r.endian() } }
        }
        HEADER_BUILD_ID => Record::HeaderBuildId(BuildIdEntry::parse_body(header, r)?),
        65 => Record::HeaderEventType { id: r.u64("event type id")?, name: c_string(r.rest()) },
        HEADER_TRACING_DATA => Record::TracingData { size: r.u32("tracing data size")? },
        ID_INDEX => {
            let nr = r.u64("id index nr")?;
            let bytes = counted(r, at, nr, 32, "id index count that fits the record")?;
            Record::IdIndex { entries: U64s { bytes, endian: r.endian() } }
        }
        AUXTRACE_INFO => {
            let kind = r.u32("auxtrace_info type")?;
            r.u32("reserved")?;
            Record::AuxtraceInfo { kind, private: U64s { bytes: whole_words(r.rest()), endian: r.endian() } }
        }
        AUXTRACE => Record::Auxtrace {
            size: r.u64("auxtrace size")?,
            offset: r.u64("auxtrace offset")?,
            reference: r.u64("auxtrace reference")?,
            idx: r.u32("auxtrace idx")?,
            tid: r.u32("auxtrace tid")?,
            cpu: r.u32("auxtrace cpu")?,
        },
        AUXTRACE_ERROR => {
            let kind = r.u32("error type")?;
            let code = r.u32("error code")?;
            let cpu = r.u32("error cpu")?;
            let pid = r.u32("error pid")?;
            let tid = r.u32("error tid")?;
            r.u32("error fmt")?;
            let ip = r.u64("error ip")?;
            let message = c_string(r.bytes(64.min(r.remaining() as u64), "error message")?);
            Record::AuxtraceError { kind, code, cpu, pid, tid, ip, message }
        }
        THREAD_MAP => {
            let nr = r.u64("thread map nr")?;
            let bytes = counted(r, at, nr, 24, "thread count that fits the record")?;
            Record::ThreadMap { entries: bytes }
        }
        CPU_MAP => Record::CpuMap { kind: r.u16("cpu map type")?, data: r.rest() },
        STAT_CONFIG => {
            let nr = r.u64("stat config nr")?;
            let bytes = counted(r, at, nr, 16, "stat config count that fits the record")?;
            Record::StatConfig { pairs: U64s { bytes, endian: r.endian() } }
        }
        STAT => Record::Stat {
            id: r.u64("stat id")?,
            cpu: r.u32("stat cpu")?,
            thread: r.u32("stat thread")?,
            value: r.u64("stat value")?,
            enabled: r.u64("stat enabled")?,
            running: r.u64("stat running")?,
        },
        STAT_ROUND => Record::StatRound { kind: r.u64("stat round type")?, time: r.u64("stat round time")? },
        EVENT_UPDATE => {
            Record::EventUpdate { kind: r.u64("event_update type")?, id: r.u64("event_update id")?, data: r.rest() }
        }
        TIME_CONV => {
            Record::TimeConv { shift: r.u64("time_shift")?, mult: r.u64("time_mult")?, zero: r.u64("time_zero")? }
        }
        FINISHED_ROUND => Record::FinishedRound,
        FINISHED_INIT => Record::FinishedInit,
        HEADER_FEATURE => {
            let feature = r.u64("feature id")?;
            Record::HeaderFeature { feature, body: *r }
        }
        COMPRESSED => Record::Compressed { zstd: r.rest() },
        COMPRESSED2 => {
            let size = r.u64("compressed data_size")?;
            Record::Compressed { zstd: r.bytes(size, "compressed data")? }
        }
        _ => Record::Other { body: r.rest() },
    })
}

fn whole_words(bytes: &[u8]) -> &[u8] {
    bytes.get(..bytes.len() & !7).unwrap_or(&[])
}

/// A NUL-padded string field: the bytes up to the first NUL.
pub fn c_string(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes.get(..end).unwrap_or(bytes)
}

/// One `build_id_event`: a DSO and its build id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildIdEntry {
    pub misc: u16,
    pub pid: i32,
    pub build_id: Vec<u8>,
    pub filename: Vec<u8>,
}

impl BuildIdEntry {
    /// The body after the record header: pid, 24 id bytes, the file name.
    pub fn parse_body(header: RecordHeader, r: &mut Reader<'_>) -> Result<BuildIdEntry> {
        let pid = r.i32("build_id pid")?;
        let raw = r.bytes(24, "build_id")?;
        let len = if header.misc & misc::BUILD_ID_SIZE != 0 {
            usize::from(raw.get(20).copied().unwrap_or(20)).min(20)
        } else {
            // Without the size, trailing zero 4-byte groups are padding.
            let groups = raw.get(..20).unwrap_or(&[]).chunks(4);
            let zero_groups = groups.rev().take_while(|g| g.iter().all(|&b| b == 0)).count();
            20usize.saturating_sub(zero_groups.saturating_mul(4))
        };
        let build_id = raw.get(..len).unwrap_or(&[]).to_vec();
        Ok(BuildIdEntry { misc: header.misc, pid, build_id, filename: c_string(r.rest()).to_vec() })
    }

    pub fn build_id_hex(&self) -> String {
        crate::read::hex_string(&self.build_id)
    }
}
