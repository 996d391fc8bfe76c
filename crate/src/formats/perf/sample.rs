//! `PERF_RECORD_SAMPLE` bodies and the `sample_id` trailer of other records.
//!
//! Which fields a sample holds, and in which order, is decided by its event's
//! `sample_type`; the order is the kernel's (`perf_output_sample`), not the order
//! of the bits.

use alloc::vec::Vec;

use super::attr::{read_format, sample_type as st, Attr, BRANCH_HW_INDEX};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// `PERF_CONTEXT_*` markers in call chains: values from `-4095` up are not
/// addresses but say whose frames follow.
pub const CONTEXT_MAX: u64 = (-4095i64) as u64;
pub const CONTEXT_HV: u64 = (-32i64) as u64;
pub const CONTEXT_KERNEL: u64 = (-128i64) as u64;
pub const CONTEXT_USER: u64 = (-512i64) as u64;
pub const CONTEXT_GUEST: u64 = (-2048i64) as u64;
pub const CONTEXT_GUEST_KERNEL: u64 = (-2176i64) as u64;
pub const CONTEXT_GUEST_USER: u64 = (-2560i64) as u64;

/// An array of u64 in the file's byte order, read on demand.
#[derive(Clone, Copy, Debug)]
pub struct U64s<'a> {
    pub bytes: &'a [u8],
    pub endian: Endian,
}

impl<'a> U64s<'a> {
    pub fn len(&self) -> usize {
        self.bytes.len() / 8
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.len() < 8
    }

    pub fn get(&self, index: usize) -> Option<u64> {
        let start = index.checked_mul(8)?;
        let word: [u8; 8] = self.bytes.get(start..start.checked_add(8)?)?.try_into().ok()?;
        Some(word_from(word, self.endian))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = u64> + ExactSizeIterator + 'a {
        let endian = self.endian;
        self.bytes.chunks_exact(8).map(move |c| {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            word_from(word, endian)
        })
    }
}

fn word_from(word: [u8; 8], endian: Endian) -> u64 {
    match endian {
        Endian::Little => u64::from_le_bytes(word),
        Endian::Big => u64::from_be_bytes(word),
    }
}

/// One `perf_branch_entry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BranchEntry {
    pub from: u64,
    pub to: u64,
    pub flags: BranchFlags,
}

/// The `perf_branch_entry` flag bitfield, decoded from either byte order (C
/// bitfields start at the other end of the word on big-endian producers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BranchFlags {
    /// The word as little-endian bit positions: bit 0 mispred, 1 predicted,
    /// 2 in_tx, 3 abort, 4–19 cycles, 20–23 type, 24–25 spec, 26–29 new_type, 30–32 priv.
    pub bits: u64,
}

impl BranchFlags {
    fn from_word(word: u64, endian: Endian) -> Self {
        BranchFlags { bits: if endian == Endian::Big { word.reverse_bits() } else { word } }
    }
    pub fn mispredicted(self) -> bool {
        self.bits & 1 != 0
    }
    pub fn predicted(self) -> bool {
        self.bits & 2 != 0
    }
    pub fn in_tx(self) -> bool {
        self.bits & 4 != 0
    }
    pub fn abort(self) -> bool {
        self.bits & 8 != 0
    }
    pub fn cycles(self) -> u16 {
        (self.bits >> 4 & 0xffff) as u16
    }
    /// `PERF_BR_*`: 0 unknown, 1 COND, 2 UNCOND, 3 IND, 4 CALL, 5 IND_CALL, 6 RET,
    /// 7 SYSCALL, 8 SYSRET, 9 COND_CALL, 10 COND_RET, 11 ERET, 12 IRQ, 13 SERROR,
    /// 14 NO_TX, 15 EXTEND_ABI.
    pub fn branch_type(self) -> u8 {
        (self.bits >> 20 & 0xf) as u8
    }
    pub fn spec(self) -> u8 {
        (self.bits >> 24 & 0x3) as u8
    }
    pub fn new_type(self) -> u8 {
        (self.bits >> 26 & 0xf) as u8
    }
    pub fn privilege(self) -> u8 {
        (self.bits >> 30 & 0x7) as u8
    }
}

#[derive(Clone, Copy, Debug)]
pub struct BranchStack<'a> {
    pub hw_idx: Option<u64>,
    /// `nr` entries of three u64 each.
    pub entries: U64s<'a>,
}

impl<'a> BranchStack<'a> {
    pub fn len(&self) -> usize {
        self.entries.len() / 3
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries as recorded: the most recent branch first.
    pub fn iter(&self) -> impl Iterator<Item = BranchEntry> + 'a {
        let entries = self.entries;
        (0..self.len()).filter_map(move |i| {
            let base = i.checked_mul(3)?;
            Some(BranchEntry {
                from: entries.get(base)?,
                to: entries.get(base.checked_add(1)?)?,
                flags: BranchFlags::from_word(entries.get(base.checked_add(2)?)?, entries.endian),
            })
        })
    }
}

/// Register values: `abi`, then one u64 per bit set in the attr's register mask.
#[derive(Clone, Copy, Debug)]
pub struct Regs<'a> {
    pub abi: u64,
    pub mask: u64,
    pub values: U64s<'a>,
}

#[derive(Clone, Copy, Debug)]
pub struct StackUser<'a> {
    pub data: &'a [u8],
    /// How much of `data` the kernel really filled.
    pub dyn_size: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadValue {
    pub value: u64,
    pub id: Option<u64>,
    pub lost: Option<u64>,
}

/// The counter values of a `read_format` block (READ records, PERF_SAMPLE_READ).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadValues {
    pub time_enabled: Option<u64>,
    pub time_running: Option<u64>,
    pub values: Vec<ReadValue>,
}

impl ReadValues {
    pub fn parse(r: &mut Reader<'_>, format: u64) -> Result<ReadValues> {
        let has = |bit: u64| format & bit != 0;
        let mut out = ReadValues::default();
        let opt = |r: &mut Reader<'_>, bit: u64, what: &'static str| -> Result<Option<u64>> {
            if has(bit) {
                r.u64(what).map(Some)
            } else {
                Ok(None)
            }
        };
        if has(read_format::GROUP) {
            let at = r.offset();
            let nr = r.u64("read_format nr")?;
            out.time_enabled = opt(r, read_format::TOTAL_TIME_ENABLED, "time_enabled")?;
            out.time_running = opt(r, read_format::TOTAL_TIME_RUNNING, "time_running")?;
            let per = [true, has(read_format::ID), has(read_format::LOST)].iter().filter(|&&b| b).map(|_| 8u64).sum();
            if nr.checked_mul(per).is_none_or(|n| n > r.remaining() as u64) {
                return Err(Error::invalid(at, "read_format group count that fits the record", nr));
            }
            for _ in 0..nr {
                let value = r.u64("read_format value")?;
                let id = opt(r, read_format::ID, "read_format id")?;
                let lost = opt(r, read_format::LOST, "read_format lost")?;
                out.values.push(ReadValue { value, id, lost });
            }
        } else {
            let value = r.u64("read_format value")?;
            out.time_enabled = opt(r, read_format::TOTAL_TIME_ENABLED, "time_enabled")?;
            out.time_running = opt(r, read_format::TOTAL_TIME_RUNNING, "time_running")?;
            let id = opt(r, read_format::ID, "read_format id")?;
            let lost = opt(r, read_format::LOST, "read_format lost")?;
            out.values.push(ReadValue { value, id, lost });
        }
        Ok(out)
    }
}

/// A decoded SAMPLE. Fields the event does not sample are `None`.
#[derive(Clone, Debug, Default)]
pub struct Sample<'a> {
    /// Index of the event in [`super::PerfData::events`].
    pub event: usize,
    pub misc: u16,
    pub identifier: Option<u64>,
    pub ip: Option<u64>,
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub time: Option<u64>,
    pub addr: Option<u64>,
    pub id: Option<u64>,
    pub stream_id: Option<u64>,
    pub cpu: Option<u32>,
    pub period: Option<u64>,
    pub read: Option<ReadValues>,
    pub callchain: Option<U64s<'a>>,
    pub raw: Option<&'a [u8]>,
    pub branch_stack: Option<BranchStack<'a>>,
    pub regs_user: Option<Regs<'a>>,
    pub stack_user: Option<StackUser<'a>>,
    pub weight: Option<u64>,
    /// `PERF_SAMPLE_WEIGHT_STRUCT`: `var1_dw`, `var2_w`, `var3_w`.
    pub weight_struct: Option<(u32, u16, u16)>,
    pub data_src: Option<u64>,
    pub transaction: Option<u64>,
    pub regs_intr: Option<Regs<'a>>,
    pub phys_addr: Option<u64>,
    pub cgroup: Option<u64>,
    pub data_page_size: Option<u64>,
    pub code_page_size: Option<u64>,
    pub aux: Option<&'a [u8]>,
}

impl<'a> Sample<'a> {
    /// `misc & 7`: 1 kernel, 2 user, 3 hypervisor, 4 guest kernel, 5 guest user.
    pub fn cpumode(&self) -> u16 {
        self.misc & 7
    }

    /// Decodes a SAMPLE body (the record without its 8-byte header).
    pub fn parse(body: &mut Reader<'a>, attr: &Attr, event: usize, misc: u16) -> Result<Sample<'a>> {
        let mut s = Sample { event, misc, ..Sample::default() };
        s.read_fields(body, attr)?;
        Ok(s)
    }

    /// Reads the fields `attr` samples into a sample that has none yet, where it
    /// lies (a sample is half a kilobyte: moved out of a parse and into its record,
    /// its copies were a twentieth of a recording's decode).
    pub(super) fn read_fields(&mut self, body: &mut Reader<'a>, attr: &Attr) -> Result<()> {
        let r = body;
        let endian = r.endian();
        let s = self;
        let has = |bit: u64| attr.has(bit);
        if has(st::IDENTIFIER) {
            s.identifier = Some(r.u64("sample identifier")?);
        }
        if has(st::IP) {
            s.ip = Some(r.u64("sample ip")?);
        }
        if has(st::TID) {
            s.pid = Some(r.u32("sample pid")?);
            s.tid = Some(r.u32("sample tid")?);
        }
        if has(st::TIME) {
            s.time = Some(r.u64("sample time")?);
        }
        if has(st::ADDR) {
            s.addr = Some(r.u64("sample addr")?);
        }
        if has(st::ID) {
            s.id = Some(r.u64("sample id")?);
        }
        if has(st::STREAM_ID) {
            s.stream_id = Some(r.u64("sample stream_id")?);
        }
        if has(st::CPU) {
            s.cpu = Some(r.u32("sample cpu")?);
            r.u32("sample cpu reserved")?;
        }
        if has(st::PERIOD) {
            s.period = Some(r.u64("sample period")?);
        }
        if has(st::READ) {
            s.read = Some(ReadValues::parse(r, attr.read_format)?);
        }
        if has(st::CALLCHAIN) {
            let at = r.offset();
            let nr = r.u64("callchain nr")?;
            let bytes = counted(r, at, nr, 8, "callchain that fits the record")?;
            s.callchain = Some(U64s { bytes, endian });
        }
        if has(st::RAW) {
            let size = r.u32("raw size")?;
            s.raw = Some(r.bytes(u64::from(size), "raw data")?);
        }
        if has(st::BRANCH_STACK) {
            let at = r.offset();
            let nr = r.u64("branch stack nr")?;
            let hw_idx = if attr.branch_sample_type & BRANCH_HW_INDEX != 0 { Some(r.u64("hw_idx")?) } else { None };
            let bytes = counted(r, at, nr, 24, "branch stack that fits the record")?;
            s.branch_stack = Some(BranchStack { hw_idx, entries: U64s { bytes, endian } });
        }
        if has(st::REGS_USER) {
            s.regs_user = Some(regs(r, attr.sample_regs_user, "user regs")?);
        }
        if has(st::STACK_USER) {
            let size = r.u64("user stack size")?;
            let data = r.bytes(size, "user stack")?;
            let dyn_size = if size == 0 { 0 } else { r.u64("user stack dyn_size")? };
            s.stack_user = Some(StackUser { data, dyn_size });
        }
        if has(st::WEIGHT_STRUCT) {
            let word = r.u64("weight struct")?;
            // The three fields are laid out low to high in the producer's order.
            #[allow(clippy::cast_possible_truncation)] // each field is cut out of the word on purpose
            let (a, b, c) = match endian {
                Endian::Little => (word as u32, (word >> 32) as u16, (word >> 48) as u16),
                Endian::Big => ((word >> 32) as u32, (word >> 16) as u16, word as u16),
            };
            s.weight_struct = Some((a, b, c));
            s.weight = Some(u64::from(a));
        } else if has(st::WEIGHT) {
            s.weight = Some(r.u64("sample weight")?);
        }
        if has(st::DATA_SRC) {
            s.data_src = Some(r.u64("sample data_src")?);
        }
        if has(st::TRANSACTION) {
            s.transaction = Some(r.u64("sample transaction")?);
        }
        if has(st::REGS_INTR) {
            s.regs_intr = Some(regs(r, attr.sample_regs_intr, "intr regs")?);
        }
        if has(st::PHYS_ADDR) {
            s.phys_addr = Some(r.u64("sample phys_addr")?);
        }
        if has(st::CGROUP) {
            s.cgroup = Some(r.u64("sample cgroup")?);
        }
        if has(st::DATA_PAGE_SIZE) {
            s.data_page_size = Some(r.u64("sample data_page_size")?);
        }
        if has(st::CODE_PAGE_SIZE) {
            s.code_page_size = Some(r.u64("sample code_page_size")?);
        }
        if has(st::AUX) {
            let size = r.u64("aux size")?;
            s.aux = Some(r.bytes(size, "aux data")?);
        }
        Ok(())
    }
}

/// `nr` items of `item` bytes each, checked against what is left before reading.
pub(crate) fn counted<'a>(r: &mut Reader<'a>, at: u64, nr: u64, item: u64, expected: &'static str) -> Result<&'a [u8]> {
    match nr.checked_mul(item) {
        Some(len) if len <= r.remaining() as u64 => r.bytes(len, expected),
        _ => Err(Error::invalid(at, expected, nr)),
    }
}

fn regs<'a>(r: &mut Reader<'a>, mask: u64, what: &'static str) -> Result<Regs<'a>> {
    let at = r.offset();
    let abi = r.u64(what)?;
    let values = if abi == 0 { &[][..] } else { counted(r, at, u64::from(mask.count_ones()), 8, what)? };
    Ok(Regs { abi, mask, values: U64s { bytes: values, endian: r.endian() } })
}

/// The `sample_id` trailer of non-sample records (with `sample_id_all`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleId {
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub time: Option<u64>,
    pub id: Option<u64>,
    pub stream_id: Option<u64>,
    pub cpu: Option<u32>,
    pub identifier: Option<u64>,
}

impl SampleId {
    /// Reads the trailer from the last `attr.sample_id_size()` bytes of `body`.
    pub fn parse(r: &mut Reader<'_>, attr: &Attr) -> Result<SampleId> {
        let mut s = SampleId::default();
        let has = |bit: u64| attr.has(bit);
        if has(st::TID) {
            s.pid = Some(r.u32("sample_id pid")?);
            s.tid = Some(r.u32("sample_id tid")?);
        }
        if has(st::TIME) {
            s.time = Some(r.u64("sample_id time")?);
        }
        if has(st::ID) {
            s.id = Some(r.u64("sample_id id")?);
        }
        if has(st::STREAM_ID) {
            s.stream_id = Some(r.u64("sample_id stream_id")?);
        }
        if has(st::CPU) {
            s.cpu = Some(r.u32("sample_id cpu")?);
            r.u32("sample_id cpu reserved")?;
        }
        if has(st::IDENTIFIER) {
            s.identifier = Some(r.u64("sample_id identifier")?);
        }
        Ok(s)
    }
}
