//! `perf_event_attr`: what one event counts and which fields its samples carry.
//!
//! The struct grows at its end over kernel versions; `size` says how much of it a
//! file holds (64 bytes for the first version, 136 in 2025). Fields past `size` read
//! as zero, bytes past the fields we know are skipped.

use crate::error::{Error, Result};
use crate::read::Reader;

/// Bits of `perf_event_attr.sample_type` (`PERF_SAMPLE_*`).
pub mod sample_type {
    pub const IP: u64 = 1 << 0;
    pub const TID: u64 = 1 << 1;
    pub const TIME: u64 = 1 << 2;
    pub const ADDR: u64 = 1 << 3;
    pub const READ: u64 = 1 << 4;
    pub const CALLCHAIN: u64 = 1 << 5;
    pub const ID: u64 = 1 << 6;
    pub const CPU: u64 = 1 << 7;
    pub const PERIOD: u64 = 1 << 8;
    pub const STREAM_ID: u64 = 1 << 9;
    pub const RAW: u64 = 1 << 10;
    pub const BRANCH_STACK: u64 = 1 << 11;
    pub const REGS_USER: u64 = 1 << 12;
    pub const STACK_USER: u64 = 1 << 13;
    pub const WEIGHT: u64 = 1 << 14;
    pub const DATA_SRC: u64 = 1 << 15;
    pub const IDENTIFIER: u64 = 1 << 16;
    pub const TRANSACTION: u64 = 1 << 17;
    pub const REGS_INTR: u64 = 1 << 18;
    pub const PHYS_ADDR: u64 = 1 << 19;
    pub const AUX: u64 = 1 << 20;
    pub const CGROUP: u64 = 1 << 21;
    pub const DATA_PAGE_SIZE: u64 = 1 << 22;
    pub const CODE_PAGE_SIZE: u64 = 1 << 23;
    pub const WEIGHT_STRUCT: u64 = 1 << 24;
}

/// Bits of `perf_event_attr.read_format` (`PERF_FORMAT_*`).
pub mod read_format {
    pub const TOTAL_TIME_ENABLED: u64 = 1 << 0;
    pub const TOTAL_TIME_RUNNING: u64 = 1 << 1;
    pub const ID: u64 = 1 << 2;
    pub const GROUP: u64 = 1 << 3;
    pub const LOST: u64 = 1 << 4;
}

/// Bits of the attr's flag word that change how records are laid out.
pub mod flags {
    pub const FREQ: u64 = 1 << 10;
    pub const SAMPLE_ID_ALL: u64 = 1 << 18;
    pub const MMAP2: u64 = 1 << 23;
    pub const USE_CLOCKID: u64 = 1 << 25;
    pub const BUILD_ID: u64 = 1 << 34;
}

/// `branch_sample_type` bit that adds `hw_idx` before the branch entries.
pub const BRANCH_HW_INDEX: u64 = 1 << 17;

/// `perf_event_attr.type` values.
pub mod attr_type {
    pub const HARDWARE: u32 = 0;
    pub const SOFTWARE: u32 = 1;
    pub const TRACEPOINT: u32 = 2;
    pub const HW_CACHE: u32 = 3;
    pub const RAW: u32 = 4;
    pub const BREAKPOINT: u32 = 5;
}

pub const ATTR_SIZE_VER0: u32 = 64;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attr {
    /// `type`: hardware, software, tracepoint, or a dynamic PMU's type.
    pub kind: u32,
    pub size: u32,
    pub config: u64,
    /// `sample_period`, or `sample_freq` when `flags & FREQ`.
    pub sample_period: u64,
    pub sample_type: u64,
    pub read_format: u64,
    pub flags: u64,
    pub wakeup_events: u32,
    pub bp_type: u32,
    pub config1: u64,
    pub config2: u64,
    pub branch_sample_type: u64,
    pub sample_regs_user: u64,
    pub sample_stack_user: u32,
    pub clockid: i32,
    pub sample_regs_intr: u64,
    pub aux_watermark: u32,
    pub sample_max_stack: u16,
    pub aux_sample_size: u32,
    pub sig_data: u64,
    pub config3: u64,
}

impl Attr {
    /// Reads one attr of its own `size`, which must lie within `available` bytes.
    pub fn parse(r: &mut Reader<'_>, available: u64) -> Result<Attr> {
        let start = r.offset();
        let kind = r.u32("perf_event_attr.type")?;
        let size = r.u32("perf_event_attr.size")?;
        // size 0 means the first version in very old files.
        let size = if size == 0 { ATTR_SIZE_VER0 } else { size };
        if size < ATTR_SIZE_VER0 || u64::from(size) > available {
            return Err(Error::invalid(
                start.saturating_add(4),
                "perf_event_attr.size of at least 64 that fits its record",
                u64::from(size),
            ));
        }
        let mut body = r.sub(u64::from(size).saturating_sub(8), "perf_event_attr")?;
        let mut attr = Attr { kind, size, ..Attr::default() };
        attr.config = body.u64("config")?;
        attr.sample_period = body.u64("sample_period")?;
        attr.sample_type = body.u64("sample_type")?;
        attr.read_format = body.u64("read_format")?;
        attr.flags = body.u64("flags")?;
        attr.wakeup_events = body.u32("wakeup_events")?;
        attr.bp_type = body.u32("bp_type")?;
        attr.config1 = body.u64("config1")?;
        // Later versions: read what this size holds.
        if body.remaining() >= 8 {
            attr.config2 = body.u64("config2")?;
        }
        if body.remaining() >= 8 {
            attr.branch_sample_type = body.u64("branch_sample_type")?;
        }
        if body.remaining() >= 16 {
            attr.sample_regs_user = body.u64("sample_regs_user")?;
            attr.sample_stack_user = body.u32("sample_stack_user")?;
            attr.clockid = body.i32("clockid")?;
        }
        if body.remaining() >= 8 {
            attr.sample_regs_intr = body.u64("sample_regs_intr")?;
        }
        if body.remaining() >= 8 {
            attr.aux_watermark = body.u32("aux_watermark")?;
            attr.sample_max_stack = body.u16("sample_max_stack")?;
            body.u16("reserved")?;
        }
        if body.remaining() >= 8 {
            attr.aux_sample_size = body.u32("aux_sample_size")?;
            body.u32("reserved")?;
        }
        if body.remaining() >= 8 {
            attr.sig_data = body.u64("sig_data")?;
        }
        if body.remaining() >= 8 {
            attr.config3 = body.u64("config3")?;
        }
        Ok(attr)
    }

    pub fn has(&self, sample_type_bits: u64) -> bool {
        self.sample_type & sample_type_bits != 0
    }

    pub fn sample_id_all(&self) -> bool {
        self.flags & flags::SAMPLE_ID_ALL != 0
    }

    pub fn freq(&self) -> bool {
        self.flags & flags::FREQ != 0
    }

    /// Bytes of the `sample_id` trailer non-sample records carry (0 without
    /// `sample_id_all`).
    pub fn sample_id_size(&self) -> u64 {
        if !self.sample_id_all() {
            return 0;
        }
        use sample_type::*;
        [TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER].iter().filter(|&&b| self.has(b)).map(|_| 8u64).sum()
    }

    /// The position of the sample id in a SAMPLE record, in u64 words from its
    /// start, when the id is there at all.
    pub fn sample_id_position(&self) -> Option<usize> {
        use sample_type::*;
        if self.has(IDENTIFIER) {
            return Some(0);
        }
        if !self.has(ID) {
            return None;
        }
        Some([IP, TID, TIME, ADDR].iter().filter(|&&b| self.has(b)).count())
    }

    /// The position of the id in a `sample_id` trailer, in u64 words back from
    /// its end (1 = the last word).
    pub fn trailer_id_position(&self) -> Option<usize> {
        use sample_type::*;
        if !self.sample_id_all() {
            return None;
        }
        if self.has(IDENTIFIER) {
            return Some(1);
        }
        if !self.has(ID) {
            return None;
        }
        Some([STREAM_ID, CPU].iter().filter(|&&b| self.has(b)).count().saturating_add(1))
    }

    /// The id of a SAMPLE record whose body `body` starts, where this attr's
    /// sample type puts it (`None` when it has no id).
    pub fn sample_id_in(&self, body: &Reader<'_>) -> Result<Option<u64>> {
        let Some(word) = self.sample_id_position() else { return Ok(None) };
        let at = body.offset().saturating_add((word as u64).saturating_mul(8));
        Ok(Some(body.seek_clone(at, "sample id")?.u64("sample id")?))
    }

    /// The id of a `sample_id` trailer that ends at `end`, inside `record`.
    pub fn trailer_id_in(&self, record: &Reader<'_>, end: u64) -> Option<u64> {
        let back = (self.trailer_id_position()? as u64).checked_mul(8)?;
        record.seek_clone(end.checked_sub(back)?, "trailer id").ok()?.u64("trailer id").ok()
    }

    /// perf's name for events it knows by type and config, used when the file
    /// has no EVENT_DESC (`cycles:u`, `cpu-clock`, ...), modifiers included.
    pub fn default_name(&self) -> alloc::string::String {
        let known = match (self.kind, self.config) {
            (attr_type::HARDWARE, c) => usize::try_from(c).ok().and_then(|c| HARDWARE_NAMES.get(c)).copied(),
            (attr_type::SOFTWARE, c) => usize::try_from(c).ok().and_then(|c| SOFTWARE_NAMES.get(c)).copied(),
            _ => None,
        };
        match known {
            Some(name) => {
                let mut name = alloc::string::String::from(name);
                self.push_modifiers(&mut name);
                name
            }
            None => alloc::format!("type {} config {:#x}", self.kind, self.config),
        }
    }

    /// perf's `evsel__add_modifiers`: `:` and the privilege levels counted when
    /// some are excluded (`k`, `u`, `h`), the precise-ip level (`p`, `pp`, `ppp`),
    /// and `H`/`G` (host, guest) unless excluding the guest is the default for
    /// the other modifiers (`cycles:u`, `cycles:ppp`; `cycles:HG` with none).
    fn push_modifiers(&self, name: &mut alloc::string::String) {
        let flag = |bit: u32| self.flags >> bit & 1 == 1;
        let (exclude_user, exclude_kernel, exclude_hv) = (flag(4), flag(5), flag(6));
        let (exclude_host, exclude_guest) = (flag(19), flag(20));
        let precise_ip = (self.flags >> 15 & 3) as usize;
        let mut modifiers = alloc::string::String::new();
        let mut exclude_guest_default = false;
        if exclude_kernel || exclude_user || exclude_hv {
            for (excluded, letter) in [(exclude_kernel, 'k'), (exclude_user, 'u'), (exclude_hv, 'h')] {
                if !excluded {
                    modifiers.push(letter);
                }
            }
            exclude_guest_default = true;
        }
        if precise_ip > 0 {
            modifiers.push_str("ppp".get(..precise_ip).unwrap_or("ppp"));
            exclude_guest_default = true;
        }
        if exclude_host || exclude_guest == exclude_guest_default {
            for (excluded, letter) in [(exclude_host, 'H'), (exclude_guest, 'G')] {
                if !excluded {
                    modifiers.push(letter);
                }
            }
        }
        if !modifiers.is_empty() {
            name.push(':');
            name.push_str(&modifiers);
        }
    }
}

const HARDWARE_NAMES: [&str; 10] = [
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
];

const SOFTWARE_NAMES: [&str; 12] = [
    "cpu-clock",
    "task-clock",
    "page-faults",
    "context-switches",
    "cpu-migrations",
    "minor-faults",
    "major-faults",
    "alignment-faults",
    "emulation-faults",
    "dummy",
    "bpf-output",
    "cgroup-switches",
];
