//! perf2bolt's LBR aggregation (BOLT 22, `bolt/lib/Profile/DataAggregator.cpp`):
//! perf.data with branch stacks + the profiled binary → the fdata that
//! `perf2bolt BINARY -p perf.data -o OUT.fdata` writes.
//!
//! perf2bolt reads perf.data through `perf script`; here the same facts come from the
//! decoded records:
//!
//! 1. **Mappings** (`--show-mmap-events`): MMAP2 records of a file whose base name is
//!    the binary's (or the name perf.data's BUILD_ID feature gives the binary's build
//!    id). For an `ET_EXEC` binary a mapping counts only if an executable `PT_LOAD`
//!    starts within one alignment above it; otherwise the load base comes from the
//!    executable segment at the mapping's file offset. One mapping per pid (the first);
//!    its size grows to cover later ones. FORK (with a time) copies the parent's
//!    mapping to the child; COMM exec drops a forked child's.
//! 2. **Branch stacks** (`-F pid,brstack`) of samples of a mapped pid: entries with an
//!    address at or above `0xffff800000000000` are dropped; for a PIE the addresses
//!    inside the mapping become binary addresses. Entries are most recent first: entry
//!    `e[i]` gives the trace `(branch = e[i].from, from = e[i].to, to = e[i-1].from)`,
//!    the newest `(.., to = BR_ONLY)`; each trace counts taken and mispredicted.
//! 3. **Per trace**: unless `branch` is a return, the branch `branch → from` is
//!    recorded, inside one function or between two (recursion to offset 0 is a
//!    call); then the fall-through `from → to` is walked block by block in one function
//!    ([`cfg`]), each block-to-next edge recorded from the block's last instruction.
//! 4. **Memory** (`-F pid,event,addr,ip`, only when every event samples ADDR): samples
//!    of events named `*mem-loads*`; the data address (rebased for a PIE, the ip is
//!    not, so a PIE gets no memory records, as with perf2bolt 22) named after what
//!    holds it among BOLT's `BinaryData`: data symbols, functions, jump tables
//!    (`JUMP_TABLE/name.N`); other addresses are dropped.
//!
//! [`aggregate_basic`] is `perf2bolt --ba`: sample ips instead of branch stacks, a
//! `no_lbr EVENT:...` header and `1 FUNC OFF COUNT` lines.
//!
//! **BOLTed binaries** (a `.note.bolt_bat` note, [`bat`]): the fdata starts with
//! `boltedcollection` and is in the input binary's terms. A branch's ends are
//! translated with BAT (a source to its map entry's input offset), a cold fragment's
//! to its hot function; the fall-throughs of a trace in a function BAT covers come
//! from the BAT maps, not from disassembly (block start → next block start, in input
//! offsets; a trace after a return starts one byte earlier, in the call's block);
//! functions BAT does not cover are walked as usual. Local functions are named
//! `name/file/N` where a `FILE` symbol gives one. `--ba` samples count in the hot
//! function at the offset translated in its map (a cold sample's offset taken from
//! the hot function's address, as perf2bolt does). Memory samples are not translated.
//! With BAT, from the first 32-entry branch stack on, the two newest entries of every
//! stack are dropped (perf2bolt's Skylake workaround).
//!
//! YAML from BAT (`perf2bolt -w` on a BOLTed binary): [`bat_yaml`].
//!
//! Not done: BOLT's `SYMBOLat_<hash>` names of anonymous data (loads of them are
//! dropped).
//!
//! Output lines: `1 FUNC OFF 1 FUNC OFF MISPREDS COUNT` (`0 [unknown] 0` for an end
//! outside the binary's functions: those of `.symtab` under BOLT's names, and the PLT
//! entries as `name@PLT`, see [`binary`]) and `4 FUNC OFF 4 OBJECT OFF COUNT`.

pub mod bat;
pub mod bat_yaml;
pub mod binary;
pub mod cfg;

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use self::binary::{Binary, Object};
use self::cfg::Cfg;
use super::attr::sample_type;
use super::record::{misc, Record};
use super::PerfData;
use crate::error::{Error, Result};
use crate::formats::bolt::fdata::{self, Fdata, SymbolKind};

/// perf2bolt's `KernelBaseAddr`: branch entries touching addresses from here on are
/// interrupts into the kernel.
pub const KERNEL_BASE: u64 = 0xffff_8000_0000_0000;
/// `Trace::BR_ONLY`: the newest branch of a stack has no fall-through after it.
const BR_ONLY: u64 = u64::MAX;
/// perf2bolt's markers in a trace's branch: a fall-through alone (`F`, and an
/// address perf2bolt could not rebase), one entered from outside the binary (`f`),
/// one after a return from outside it (`r`, `R` with branch 0).
const FT_ONLY: u64 = u64::MAX;
const FT_EXTERNAL_ORIGIN: u64 = u64::MAX - 1;
const FT_EXTERNAL_RETURN: u64 = u64::MAX - 2;
const PERF_RECORD_MMAP2: u32 = 10;

/// A place in the binary: a function (index into [`Binary::functions`]) and an
/// offset, or unknown (written `0 [unknown] 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub function: Option<usize>,
    pub offset: u64,
}

/// Counts of one branch or fall-through edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub mispredicted: u64,
    pub count: u64,
}

/// What perf2bolt prints while it works, as numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Pids the binary is mapped in.
    pub pids: usize,
    /// Samples of those pids, and their branch-stack entries.
    pub samples: u64,
    pub entries: u64,
    /// Traces (weighted) whose fall-through could not be walked: in two functions, or
    /// against the disassembly ("mismatching"), and outside any function ("out of range").
    pub mismatching: u64,
    pub out_of_range: u64,
}

/// The aggregated profile, ready to be written as fdata.
#[derive(Debug)]
pub struct Profile<'b> {
    pub binary: &'b Binary<'b>,
    /// Branches and fall-through edges.
    pub branches: BTreeMap<(Location, Location), Counts>,
    /// Memory accesses: (function, pc offset, index into `data`, offset in it) → count.
    pub memory: BTreeMap<(usize, u64, usize, u64), u64>,
    /// `--ba` (basic samples, no branch stacks): the event names (as perf script
    /// prints them, colon included) and the samples per (function, offset).
    pub basic: Option<Basic>,
    /// What data addresses are named after (BOLT's `BinaryData`): the data symbols,
    /// the functions and their jump tables (`JUMP_TABLE/name.N`), sorted by address.
    pub data: Vec<Object>,
    pub stats: Stats,
}

/// The samples of `perf2bolt --ba`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Basic {
    pub events: Vec<String>,
    pub samples: BTreeMap<(usize, u64), u64>,
}

/// perf2bolt's `MMapInfo` of one process.
#[derive(Clone, Copy, Debug)]
struct Mapping {
    address: u64,
    size: u64,
    base: u64,
    forked: bool,
}

fn base_name(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

/// The mappings of the binary per pid (perf2bolt's `parseMMapEvents` + `parseTaskEvents`).
fn mappings(perf: &PerfData<'_>, binary: &Binary<'_>, name: &[u8]) -> Result<BTreeMap<u32, Mapping>> {
    // The name perf.data's build-id list gives the binary's build id, if any.
    let mut build_id_name = None;
    if let Some(id) = binary.build_id.filter(|id| !id.is_empty()) {
        let entries = &perf.features.build_ids;
        match entries.iter().find(|e| e.build_id.starts_with(id)) {
            Some(e) => build_id_name = Some(base_name(&e.filename)),
            None if !entries.is_empty() => {
                return Err(Error::malformed(
                    0,
                    "the binary's build id in perf.data's build-id list (perf2bolt: failed to match build-id)",
                ))
            }
            None => {}
        }
    }
    let mut all: Vec<(&[u8], u32, u64, u64, u64)> = Vec::new();
    for record in perf.records() {
        let record = record?;
        let Record::Mmap(m) = &record.record else { continue };
        if record.header.kind != PERF_RECORD_MMAP2 || m.pid == u32::MAX {
            continue;
        }
        // perf script prints the file name last; perf2bolt takes the last word.
        let word = m.filename.rsplit(|&b| b == b' ').next().unwrap_or(m.filename);
        if word.starts_with(b"//") || word.starts_with(b"[") {
            continue;
        }
        all.push((base_name(word), m.pid, m.addr, m.len, m.pgoff));
    }
    let use_name = match build_id_name {
        Some(other) if !all.iter().any(|m| m.0 == name) => other,
        _ => name,
    };
    let mut mapped: BTreeMap<u32, Mapping> = BTreeMap::new();
    for &(_, pid, address, len, pgoff) in all.iter().filter(|m| m.0 == use_name) {
        let mut base = 0;
        if binary.fixed_load_address {
            let matches = binary
                .segments
                .iter()
                .any(|s| s.executable && s.vaddr >= address && s.vaddr.wrapping_sub(address) < s.align);
            if !matches && address != 0 {
                continue;
            }
        } else {
            let segment = binary.segments.iter().find(|s| {
                let align = s.align.max(1);
                s.executable && s.offset.checked_div(align) == pgoff.checked_div(align)
            });
            let Some(s) = segment else { continue };
            base = address.wrapping_sub(s.vaddr.wrapping_sub(s.offset).wrapping_add(pgoff));
        }
        let entry = mapped.entry(pid).or_insert(Mapping { address, size: len, base, forked: false });
        let size = address.wrapping_add(len).wrapping_sub(entry.base);
        entry.size = entry.size.max(size);
    }
    if mapped.is_empty() {
        return Err(Error::malformed(
            0,
            "a mapping of the binary in perf.data (perf2bolt: could not find a profile matching binary)",
        ));
    }
    for record in perf.records() {
        let record = record?;
        match &record.record {
            Record::Comm { pid, .. }
                if record.header.misc & misc::COMM_EXEC != 0 && mapped.get(pid).is_some_and(|m| m.forked) =>
            {
                mapped.remove(pid);
            }
            Record::Fork(task) => {
                if task.pid == task.ppid || record.time().unwrap_or(0) == 0 {
                    continue;
                }
                if let Some(parent) = mapped.get(&task.ppid).copied() {
                    mapped.entry(task.pid).or_insert(Mapping { forked: true, ..parent });
                }
            }
            _ => {}
        }
    }
    Ok(mapped)
}

/// perf2bolt's `adjustAddress`: a PIE's runtime address → binary address.
fn adjust(address: u64, m: &Mapping) -> u64 {
    // As perf2bolt: the size counts from the load base but is added to the mapping start.
    if address >= m.address && address.wrapping_sub(m.address) < m.size {
        address.wrapping_sub(m.base)
    } else if address < m.size {
        u64::MAX
    } else {
        address
    }
}

/// Aggregates the branch stacks and memory samples of `perf` for `binary`, whose file
/// name (base name, as perf.data's mappings spell it) is `name`.
pub fn aggregate<'b>(perf: &PerfData<'_>, binary: &'b Binary<'b>, name: &[u8]) -> Result<Profile<'b>> {
    let mapped = mappings(perf, binary, base_name(name))?;
    let rebase = !binary.fixed_load_address;
    let memory_events = perf.events.iter().all(|e| e.attr.sample_type & sample_type::ADDR != 0);
    let mut stats = Stats { pids: mapped.len(), ..Stats::default() };

    let mut traces = Traces::default();
    let mut memory_samples: Vec<(u64, u64)> = Vec::new();
    let mut stack: Vec<(u64, u64, bool)> = Vec::new();
    // perf2bolt's Skylake workaround, with BAT only: from the first stack of 32
    // entries on, the two newest entries of every stack are dropped.
    let mut skylake_fix = false;
    for record in perf.records() {
        let record = record?;
        let Record::Sample(sample) = &record.record else { continue };
        let Some(m) = sample.pid.and_then(|pid| mapped.get(&pid)) else { continue };
        if let Some(branches) = &sample.branch_stack {
            stats.samples = stats.samples.saturating_add(1);
            stack.clear();
            for e in branches.iter() {
                stats.entries = stats.entries.saturating_add(1);
                if e.from >= KERNEL_BASE || e.to >= KERNEL_BASE {
                    continue;
                }
                let (from, to) = if rebase { (adjust(e.from, m), adjust(e.to, m)) } else { (e.from, e.to) };
                stack.push((from, to, e.flags.mispredicted()));
            }
            if binary.translation.is_some() && stack.len() == 32 {
                skylake_fix = true;
            }
            let skip = if skylake_fix { 2 } else { 0 };
            let mut next_from = BR_ONLY;
            for &(from, to, mispredicted) in stack.iter().skip(skip) {
                let c = traces.entry((from, to, next_from)).or_default();
                c.count = c.count.saturating_add(1);
                c.mispredicted = c.mispredicted.saturating_add(u64::from(mispredicted));
                next_from = from;
            }
        }
        let is_memory = perf.events.get(sample.event).is_some_and(|e| e.name.contains("mem-loads"));
        if memory_events && is_memory {
            let address = sample.addr.unwrap_or(0);
            memory_samples.push((sample.ip.unwrap_or(0), if rebase { adjust(address, m) } else { address }));
        }
    }

    let (mut profile, mut cfgs) = process_traces(binary, traces, &BTreeSet::new(), stats);
    if !memory_samples.is_empty() {
        profile.data = data_objects(binary, &mut cfgs);
    }
    for (pc, address) in memory_samples {
        let Some(f) = binary.function_at(pc) else { continue };
        let Some(function) = binary.functions.get(f) else { continue };
        let Some(o) = binary::object_at(&profile.data, address) else { continue };
        let base = profile.data.get(o).map_or(0, |o| o.address);
        let n =
            profile.memory.entry((f, pc.wrapping_sub(function.address), o, address.wrapping_sub(base))).or_insert(0);
        *n = n.saturating_add(1);
    }
    Ok(profile)
}

/// The traces of a profile summed by (branch, from, to): summed in a hash table
/// (a B-tree took four fifths of `--pa`'s time on a 100 MB input: 4.8M entries,
/// 202k traces), processed in the keys' order.
type Traces = hashbrown::HashMap<(u64, u64, u64), Counts>;

/// perf2bolt's `processBranchEvents`: each trace's branch (unless it is a return or
/// a marker), then its fall-through (unless the trace is a branch alone), in the
/// order of their addresses. `returns` are branch addresses known to be returns
/// whatever their instruction (`R` entries).
fn process_traces<'b>(
    binary: &'b Binary<'b>,
    traces: Traces,
    returns: &BTreeSet<u64>,
    stats: Stats,
) -> (Profile<'b>, BTreeMap<usize, Option<Cfg>>) {
    let mut profile =
        Profile { binary, branches: BTreeMap::new(), memory: BTreeMap::new(), basic: None, data: Vec::new(), stats };
    let mut cfgs: BTreeMap<usize, Option<Cfg>> = BTreeMap::new();
    let mut traces: Vec<((u64, u64, u64), Counts)> = traces.into_iter().collect();
    traces.sort_unstable_by_key(|&(key, _)| key);
    for ((branch, from, to), counts) in traces {
        let returns = branch == FT_EXTERNAL_RETURN
            || returns.contains(&branch)
            || (cfg::is_return(binary, branch) && binary.function_at(branch).is_some());
        if !returns && branch != FT_ONLY && branch != FT_EXTERNAL_ORIGIN {
            profile.branch(branch, from, counts);
        }
        if to != BR_ONLY {
            profile.trace(&mut cfgs, branch, from, to, counts.count, returns);
        }
    }
    (profile, cfgs)
}

/// `perf2bolt --pa`: a pre-aggregated profile (addresses are the binary's) for
/// `binary`. Its traces are processed as perf.data's; `S` entries are ignored, as
/// by perf2bolt. With `basic` (`--pa --ba`) only the `S` entries count, under the
/// events the `E` entries name.
pub fn aggregate_preagg<'b>(data: &[u8], binary: &'b Binary<'b>, basic: bool) -> Result<Profile<'b>> {
    use crate::formats::bolt::preagg::{Entries, EntryKind};
    let mut traces = Traces::default();
    let mut returns = BTreeSet::new();
    let mut samples: BTreeMap<u64, u64> = BTreeMap::new();
    let mut events = BTreeSet::new();
    let mut stats = Stats::default();
    for entry in Entries::new(data) {
        let entry = entry?;
        let [a, b, c] = entry.addresses.map(|a| a.offset);
        // perf2bolt keeps counts as int64 and adds them as uint64.
        let [count, mispredicted] = entry.counters.map(|c| c as u64);
        let trace = match entry.kind {
            EntryKind::Event => {
                events.insert(entry.event);
                continue;
            }
            EntryKind::Sample => {
                let n = samples.entry(a).or_insert(0);
                *n = n.wrapping_add(count);
                stats.samples = stats.samples.wrapping_add(count);
                continue;
            }
            EntryKind::Trace => (a, b, c),
            EntryKind::Return if a == 0 => (FT_EXTERNAL_RETURN, b, c),
            EntryKind::Return => {
                returns.insert(a);
                (a, b, c)
            }
            EntryKind::Branch => (a, b, BR_ONLY),
            EntryKind::FallThrough => (FT_ONLY, a, b),
            EntryKind::ExternalOrigin => (FT_EXTERNAL_ORIGIN, a, b),
            EntryKind::ExternalReturn => (FT_EXTERNAL_RETURN, a, b),
        };
        stats.samples = stats.samples.wrapping_add(count);
        let counts = traces.entry(trace).or_default();
        counts.count = counts.count.wrapping_add(count);
        counts.mispredicted = counts.mispredicted.wrapping_add(mispredicted);
    }
    if !basic {
        return Ok(process_traces(binary, traces, &returns, stats).0);
    }
    let mut basic = Basic {
        events: events.iter().map(|e| String::from_utf8_lossy(e).into_owned()).collect(),
        samples: BTreeMap::new(),
    };
    for (address, count) in samples {
        let Some(at) = basic_location(binary, address) else {
            stats.out_of_range = stats.out_of_range.wrapping_add(count);
            continue;
        };
        let n = basic.samples.entry(at).or_insert(0);
        *n = n.wrapping_add(count);
    }
    Ok(Profile {
        binary,
        branches: BTreeMap::new(),
        memory: BTreeMap::new(),
        basic: Some(basic),
        data: Vec::new(),
        stats,
    })
}

/// perf2bolt `--ba`: the ip of every sample of a mapped pid (rebased for a PIE),
/// counted per function offset; samples outside the binary's functions are counted
/// in [`Stats::out_of_range`]. perf2bolt cannot read recordings with call chains
/// in this mode (`perf script -F pid,event,ip` prints the chains): an error here.
pub fn aggregate_basic<'b>(perf: &PerfData<'_>, binary: &'b Binary<'b>, name: &[u8]) -> Result<Profile<'b>> {
    if perf.events.iter().any(|e| e.attr.sample_type & sample_type::CALLCHAIN != 0) {
        return Err(Error::malformed(0, "a recording without call chains for basic aggregation (perf2bolt --ba)"));
    }
    let mapped = mappings(perf, binary, base_name(name))?;
    let rebase = !binary.fixed_load_address;
    let mut basic = Basic::default();
    let mut stats = Stats { pids: mapped.len(), ..Stats::default() };
    let mut events = BTreeSet::new();
    for record in perf.records() {
        let record = record?;
        let Record::Sample(sample) = &record.record else { continue };
        let Some(m) = sample.pid.and_then(|pid| mapped.get(&pid)) else { continue };
        let ip = sample.ip.unwrap_or(0);
        let ip = if rebase { adjust(ip, m) } else { ip };
        if ip == 0 {
            continue;
        }
        stats.samples = stats.samples.saturating_add(1);
        events.insert(sample.event);
        let Some(at) = basic_location(binary, ip) else {
            stats.out_of_range = stats.out_of_range.saturating_add(1);
            continue;
        };
        let n = basic.samples.entry(at).or_insert(0);
        *n = n.saturating_add(1);
    }
    basic.events = events.iter().filter_map(|&e| perf.events.get(e)).map(|e| alloc::format!("{}:", e.name)).collect();
    basic.events.sort();
    Ok(Profile {
        binary,
        branches: BTreeMap::new(),
        memory: BTreeMap::new(),
        basic: Some(basic),
        data: Vec::new(),
        stats,
    })
}

/// The hot function of a cold fragment (BAT's parent), as an index into
/// [`Binary::functions`] (perf2bolt's `getBATParentFunction`).
fn bat_parent(binary: &Binary<'_>, function: u64) -> Option<usize> {
    binary.translation.as_ref()?.parent(function).and_then(|p| binary.function_at(p))
}

/// perf2bolt's `doBasicSample`: the function (a cold fragment's parent) and offset a
/// sample counts at. With BAT the offset is taken from the parent's address, also for a
/// sample in a cold fragment, and translated in the parent's map (as perf2bolt does).
fn basic_location(binary: &Binary<'_>, address: u64) -> Option<(usize, u64)> {
    let f = binary.function_at(address)?;
    let function = binary.functions.get(f)?;
    let f = bat_parent(binary, function.address).unwrap_or(f);
    let start = binary.functions.get(f)?.address;
    let offset = address.wrapping_sub(start);
    match &binary.translation {
        Some(t) => Some((f, t.translate(start, offset, false))),
        None => Some((f, offset)),
    }
}

/// BOLT's `BinaryData` for naming memory accesses: data symbols, functions, and the
/// jump tables found while disassembling every function (`JUMP_TABLE/name.N`, N
/// counting a function's tables from 0).
fn data_objects(binary: &Binary<'_>, cfgs: &mut BTreeMap<usize, Option<Cfg>>) -> Vec<Object> {
    let mut data = binary.objects.clone();
    for (i, f) in binary.functions.iter().enumerate().filter(|(_, f)| !f.plt) {
        data.push(Object { name: f.name.clone(), address: f.address, size: f.size });
        let cfg = cfgs.entry(i).or_insert_with(|| cfg::build(binary, f));
        for (n, &(address, size)) in cfg.iter().flat_map(|c| c.jump_tables.iter()).enumerate() {
            data.push(Object { name: alloc::format!("JUMP_TABLE/{}.{n}", f.name), address, size });
        }
    }
    data.sort_by_key(|o| o.address);
    data
}

impl Profile<'_> {
    /// `doBranch`'s address handling: the function and offset of a branch's end; with
    /// BAT the offset translated (a branch source to its entry's input offset) and a
    /// cold fragment replaced by its hot function.
    fn location(&self, address: u64, branch_source: bool) -> Location {
        let binary = self.binary;
        let Some((f, function)) = binary.function_at(address).and_then(|f| Some((f, binary.functions.get(f)?))) else {
            return Location { function: None, offset: 0 };
        };
        let mut offset = address.wrapping_sub(function.address);
        if let Some(t) = &binary.translation {
            offset = t.translate(function.address, offset, branch_source);
        }
        let f = bat_parent(binary, function.address).unwrap_or(f);
        Location { function: Some(f), offset }
    }

    fn bump(&mut self, from: Location, to: Location, count: u64, mispredicted: u64) {
        let c = self.branches.entry((from, to)).or_default();
        c.count = c.count.saturating_add(count);
        c.mispredicted = c.mispredicted.saturating_add(mispredicted);
    }

    /// perf2bolt's `doBranch`.
    fn branch(&mut self, from: u64, to: u64, counts: Counts) {
        let from = self.location(from, true);
        let to = self.location(to, false);
        if from.function.is_none() && to.function.is_none() {
            return;
        }
        self.bump(from, to, counts.count, counts.mispredicted);
    }

    /// perf2bolt's `doTrace` + `getFallthroughsInTrace`.
    fn trace(
        &mut self,
        cfgs: &mut BTreeMap<usize, Option<Cfg>>,
        branch: u64,
        from: u64,
        to: u64,
        count: u64,
        returns: bool,
    ) {
        let binary = self.binary;
        let (Some(f), Some(g)) = (binary.function_at(from), binary.function_at(to)) else {
            self.stats.out_of_range = self.stats.out_of_range.saturating_add(count);
            return;
        };
        let Some(function) = binary.functions.get(f).filter(|_| f == g) else {
            self.stats.mismatching = self.stats.mismatching.saturating_add(count);
            return;
        };
        if let Some(t) = binary.translation.as_ref().filter(|t| t.is_bat_function(function.address)) {
            // BAT's fall-throughs (input offsets), counted in the hot function; the
            // start of a trace after a return is looked up one byte before it.
            let parent = bat_parent(binary, function.address).unwrap_or(f);
            match t.fall_throughs(function.address, from.wrapping_sub(u64::from(returns)), to) {
                Some(edges) => {
                    for (a, b) in edges {
                        let at = |offset| Location { function: Some(parent), offset };
                        self.bump(at(a), at(b), count, 0);
                    }
                }
                None => self.stats.mismatching = self.stats.mismatching.saturating_add(count),
            }
            return;
        }
        if function.plt {
            // BOLT's pseudo functions have no CFG and accept any fall-through.
            return;
        }
        let cfg = cfgs.entry(f).or_insert_with(|| cfg::build(binary, function));
        let edges =
            cfg.as_ref().and_then(|cfg| fall_throughs(cfg, function.address, function.size, branch, from, to, returns));
        match edges {
            Some(edges) => {
                for (a, b) in edges {
                    let at = |offset| Location { function: Some(f), offset };
                    self.bump(at(a), at(b), count, 0);
                }
            }
            None => self.stats.mismatching = self.stats.mismatching.saturating_add(count),
        }
    }

    /// The profile as fdata records (the model [`fdata::write`] writes).
    pub fn to_fdata_model(&self) -> Fdata<'static> {
        let mut out = Fdata { bolted_collection: self.binary.translation.is_some(), ..Fdata::default() };
        if let Some(basic) = &self.basic {
            out.no_lbr = Some(basic.events.iter().map(|e| Cow::Owned(e.clone().into_bytes())).collect());
            out.samples = basic
                .samples
                .iter()
                .map(|(&(f, offset), &count)| fdata::Sample {
                    at: self.fdata_location(Location { function: Some(f), offset }),
                    count: count as i64,
                    line: 0,
                })
                .collect();
            return out;
        }
        out.branches = self
            .branches
            .iter()
            .map(|((from, to), counts)| fdata::Branch {
                from: self.fdata_location(*from),
                to: self.fdata_location(*to),
                mispredicted: counts.mispredicted as i64,
                count: counts.count as i64,
                line: 0,
            })
            .collect();
        out.memory = self
            .memory
            .iter()
            .map(|(&(f, pc, o, offset), &count)| {
                let object = self.data.get(o).map_or("", |o| o.name.as_str());
                fdata::MemoryAccess {
                    pc: self.memory_location(f, pc),
                    address: fdata::Location { kind: SymbolKind::Symbol, name: Cow::Owned(escaped(object)), offset },
                    count: count as i64,
                    line: 0,
                }
            })
            .collect();
        out
    }

    /// The whole fdata text.
    pub fn to_fdata(&self) -> String {
        let mut out = Vec::new();
        fdata::write(&self.to_fdata_model(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// `1 FUNC OFF`, or `0 [unknown] 0` outside the binary's functions. With BAT a
    /// local function is named `name/file/N` where it has such a name
    /// (perf2bolt's `getLocationName`).
    fn fdata_location(&self, at: Location) -> fdata::Location<'static> {
        match at.function.and_then(|f| self.binary.functions.get(f)) {
            Some(f) => {
                let name = match (&self.binary.translation, &f.file_name) {
                    (Some(_), Some(file_name)) => file_name,
                    _ => &f.name,
                };
                fdata::Location { kind: SymbolKind::Symbol, name: Cow::Owned(escaped(name)), offset: at.offset }
            }
            None => {
                fdata::Location { kind: SymbolKind::NotSymbol, name: Cow::Borrowed(b"[unknown]"), offset: at.offset }
            }
        }
    }
}

impl Profile<'_> {
    /// A memory access's pc: perf2bolt names it after the function's first name and
    /// does not translate it, with BAT or without.
    fn memory_location(&self, f: usize, offset: u64) -> fdata::Location<'static> {
        let name = self.binary.functions.get(f).map_or("", |f| f.name.as_str());
        fdata::Location { kind: SymbolKind::Symbol, name: Cow::Owned(escaped(name)), offset }
    }
}

fn escaped(name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    fdata::write_name(&mut out, name.as_bytes());
    out
}

/// The block-to-block fall-through edges (function offsets: last instruction of a
/// block → start of the next) of the trace `from → to` in one function, or None when
/// the trace does not fit the disassembly.
fn fall_throughs(
    cfg: &Cfg,
    address: u64,
    size: u64,
    branch: u64,
    from: u64,
    to: u64,
    returns: bool,
) -> Option<Vec<(u64, u64)>> {
    let from = from.checked_sub(address)?;
    let to = to.checked_sub(address)?;
    if from > to {
        return None;
    }
    let mut first = cfg.block_containing(from)?;
    let last = cfg.block_containing(to)?;
    // A trace starting at a block right after a call, reached from outside the
    // function (a return), starts in the call's block.
    let outside = branch != FT_ONLY && branch.wrapping_sub(address) >= size;
    let block_start = cfg.blocks.get(first).is_some_and(|b| b.start == from);
    let entry = first == 0 || cfg.blocks.get(first).is_some_and(|b| b.landing_pad);
    if outside && block_start && (if returns { from != 0 } else { !entry }) {
        if let Some(previous) = first.checked_sub(1).and_then(|p| cfg.blocks.get(p)) {
            if previous.successors.contains(&from) && previous.ends_in_call {
                first = first.wrapping_sub(1);
            }
        }
    }
    let mut edges = Vec::new();
    let mut at = first;
    while at < last {
        let block = cfg.blocks.get(at)?;
        let next = cfg.blocks.get(at.checked_add(1)?)?;
        if !block.successors.contains(&next.start) {
            return None;
        }
        edges.push((block.last, next.start));
        at = at.checked_add(1)?;
    }
    if at != last {
        return None;
    }
    Some(edges)
}
