//! perf's machine state, replayed record by record: threads and their names,
//! and the address maps of each process and of the kernel.
//!
//! This follows perf 6.1's `util/machine.c`, `util/thread.c`, `util/map.c` and
//! `util/maps.c`, so that an address resolves to the same map, and the same
//! DSO-relative address, as `perf script` and `perf report` compute:
//!
//! - Threads are found by tid. A thread first seen in a sample or record is
//!   named `:<tid>`; COMM renames it; FORK gives the child its parent's name
//!   (when the parent was named by a COMM) and, for a new process, a copy of
//!   the parent's maps. Threads of one process share the leader's maps. EXIT
//!   only marks a thread: later records still find it. tid 0 is `swapper`.
//! - MMAP and MMAP2 in kernel cpumode (perf's `[kernel.kallsyms]_text` and
//!   modules) go to the kernel maps; the others to their process. A new map
//!   cuts the parts of older maps it overlaps (`maps__fixup_overlappings`).
//! - `map_ip` (the DSO-relative address): `addr - start + pgoff` for file maps,
//!   `addr - start` for `[vdso]` (perf sets its pgoff to 0), `addr` itself for
//!   anonymous memory (`//anon`, `/dev/zero`, `/anon_hugepage`, `MAP_HUGETLB`)
//!   and for `[stack…`, `[heap]` and `/SYSV…`, and `addr` for kernel maps
//!   (perf prints kernel addresses absolute). Executable anonymous maps are
//!   named `/tmp/perf-<pid>.map`, where JITs write their symbols.
//!
//! Apply records in [`PerfData::time_order`], as perf does.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::cell::Cell;
use core::ops::Range;

use super::record::{misc, Mmap, MmapFile, Record, RecordAt, Task};
use super::PerfData;

/// `PROT_EXEC` of an MMAP2's `prot`.
const PROT_EXEC: u32 = 4;
/// `PERF_RECORD_MISC_FORK_EXEC`: a FORK perf synthesized for a running task.
const FORK_EXEC: u16 = 1 << 13;
/// `MAP_HUGETLB` of an MMAP2's `flags`: perf treats such maps as anonymous.
const MAP_HUGETLB: u32 = 0x40000;

/// How perf turns an address in a map into a DSO-relative one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    /// A mapped file: `addr - start + pgoff`.
    File,
    /// `[vdso]`: `addr - start`.
    Vdso,
    /// Anonymous memory, stack, heap, SysV shared memory: `addr`.
    Anon,
    /// The kernel and its modules: `addr`.
    Kernel,
}

/// One mapping, `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Map {
    pub start: u64,
    pub end: u64,
    pub pgoff: u64,
    pub kind: MapKind,
    /// Index into the machine's DSO table.
    pub dso: usize,
}

impl Map {
    /// perf's `map->map_ip`: the address inside the DSO.
    pub fn map_ip(&self, addr: u64) -> u64 {
        match self.kind {
            MapKind::File | MapKind::Vdso => addr.wrapping_sub(self.start).wrapping_add(self.pgoff),
            MapKind::Anon | MapKind::Kernel => addr,
        }
    }

    fn contains(&self, addr: u64) -> bool {
        self.start <= addr && addr < self.end
    }
}

/// A mapped object, named as perf names it, with its build id when the file
/// (MMAP2 with a build id, or the BUILD_ID feature) gave one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dso {
    pub name: Vec<u8>,
    pub build_id: Option<Vec<u8>>,
}

/// A thread as perf knows it.
#[derive(Clone, Debug)]
pub struct Thread {
    /// -1 until a record says which process the thread belongs to.
    pub pid: i32,
    pub tid: i32,
    /// The current name (`:<tid>` until a COMM or FORK names it).
    pub comm: Vec<u8>,
    /// Whether a COMM (or an inherited name) set `comm`.
    pub comm_set: bool,
    pub exited: bool,
    /// Index of the thread's address space in [`Machine::maps_of`].
    pub maps: usize,
}

/// What an address resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved<'m> {
    pub map: Map,
    /// The DSO's file name (or `[vdso]`, `[kernel.kallsyms]_text`, `//anon`, ...).
    pub filename: &'m [u8],
    pub build_id: Option<&'m [u8]>,
    /// perf's `map_ip`: the address inside the DSO (see [`Map::map_ip`]).
    pub dso_relative: u64,
}

/// The address maps of one process, sorted by start, never overlapping.
#[derive(Clone, Debug, Default)]
pub struct Maps {
    maps: Vec<Map>,
    /// How many maps were inserted ([`Machine::generation`]).
    generation: u64,
}

impl Maps {
    pub fn iter(&self) -> impl Iterator<Item = &Map> + '_ {
        self.maps.iter()
    }

    /// perf's `maps__find`: the map holding `addr`.
    pub fn find(&self, addr: u64) -> Option<&Map> {
        let after = self.maps.partition_point(|m| m.start <= addr);
        after.checked_sub(1).and_then(|i| self.maps.get(i)).filter(|m| m.contains(addr))
    }

    /// Inserts `map`, first cutting what it overlaps out of the maps already there
    /// (perf's `maps__fixup_overlappings`: the parts before and after survive, the
    /// part after with its file offset moved along).
    fn insert(&mut self, map: Map) {
        self.generation = self.generation.wrapping_add(1);
        // Maps are disjoint and sorted, so their ends are sorted too.
        let first = self.maps.partition_point(|m| m.end <= map.start);
        let last = self.maps.partition_point(|m| m.start < map.end).max(first);
        let mut pieces: Vec<Map> = Vec::new();
        for old in self.maps.get(first..last).unwrap_or(&[]) {
            if old.start < map.start {
                pieces.push(Map { end: map.start, ..*old });
            }
            pieces.push(map);
            if map.end < old.end {
                let moved = map.end.wrapping_sub(old.start);
                pieces.push(Map { start: map.end, pgoff: old.pgoff.wrapping_add(moved), ..*old });
            }
        }
        if first == last {
            pieces.push(map);
        }
        pieces.dedup();
        // An empty map (len 0) can never hold an address: leave it out, as a
        // lookup could never find it.
        pieces.retain(|m| m.start < m.end);
        self.maps.splice(first..last, pieces);
    }
}

/// Threads by tid. Samples come in runs from one thread, and `perf script` asks
/// for the sample's thread twice (to create it, then to print it): the last
/// thread found is remembered (perf keeps a `last_match` for the same reason).
#[derive(Clone, Debug, Default)]
struct Threads {
    all: Vec<Thread>,
    by_tid: BTreeMap<i32, usize>,
    /// (tid, index in `all`) of the last lookup that found a thread.
    last: Cell<Option<(i32, usize)>>,
}

impl Threads {
    fn index(&self, tid: i32) -> Option<usize> {
        if let Some((last_tid, i)) = self.last.get() {
            if last_tid == tid {
                return Some(i);
            }
        }
        let i = *self.by_tid.get(&tid)?;
        self.last.set(Some((tid, i)));
        Some(i)
    }

    fn get(&self, tid: &i32) -> Option<&Thread> {
        self.index(*tid).and_then(|i| self.all.get(i))
    }

    fn get_mut(&mut self, tid: &i32) -> Option<&mut Thread> {
        self.index(*tid).and_then(|i| self.all.get_mut(i))
    }

    fn insert(&mut self, tid: i32, thread: Thread) {
        self.all.push(thread);
        let i = self.all.len().saturating_sub(1);
        self.by_tid.insert(tid, i);
        self.last.set(Some((tid, i)));
    }

    /// Forgets the thread; its slot stays (as perf keeps removed threads alive
    /// while anything refers to them), unreachable.
    fn remove(&mut self, tid: &i32) {
        self.by_tid.remove(tid);
        if self.last.get().is_some_and(|(t, _)| t == *tid) {
            self.last.set(None);
        }
    }

    fn values(&self) -> impl Iterator<Item = &Thread> + '_ {
        self.by_tid.values().filter_map(|&i| self.all.get(i))
    }
}

/// Threads, maps and DSOs, as perf has them after the records applied so far.
#[derive(Clone, Debug)]
pub struct Machine {
    threads: Threads,
    maps: Vec<Maps>,
    kernel: Vec<Map>,
    /// How many kernel maps were added ([`Machine::generation`]).
    kernel_generation: u64,
    dsos: Vec<Dso>,
    dso_index: BTreeMap<Vec<u8>, usize>,
    /// Records applied that may change a map ([`Machine::changes`]).
    changes: u64,
}

impl Machine {
    /// An empty machine that knows the build ids of `perf`'s BUILD_ID feature
    /// (matched to maps by file name, as perf does).
    pub fn new(perf: &PerfData<'_>) -> Machine {
        let mut machine = Machine {
            threads: Threads::default(),
            maps: Vec::new(),
            kernel: Vec::new(),
            kernel_generation: 0,
            dsos: Vec::new(),
            dso_index: BTreeMap::new(),
            changes: 0,
        };
        for entry in &perf.features.build_ids {
            let dso = machine.dso(super::record::c_string(&entry.filename));
            if let Some(d) = machine.dsos.get_mut(dso) {
                d.build_id = Some(entry.build_id.clone());
            }
        }
        // perf registers the idle task before it reads any record.
        let idle = machine.findnew(0, 0);
        if let Some(t) = machine.threads.get_mut(&idle) {
            t.comm = b"swapper".to_vec();
            t.comm_set = true;
        }
        machine
    }

    /// Applies one record: COMM, FORK, EXIT, MMAP, MMAP2 change the state; a
    /// sample makes its thread known (perf creates threads on first sight).
    pub fn apply(&mut self, record: &RecordAt<'_>) {
        if !matches!(record.record, Record::Sample(_)) {
            self.changes = self.changes.wrapping_add(1);
        }
        match &record.record {
            Record::Comm { pid, tid, comm } => {
                let tid = self.findnew(*pid as i32, *tid as i32);
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.comm.clear();
                    t.comm.extend_from_slice(super::record::c_string(comm));
                    t.comm_set = true;
                }
            }
            Record::Fork(task) => self.fork(task, record.header.misc),
            Record::Exit(task) => {
                if let Some(t) = self.threads.get_mut(&(task.tid as i32)) {
                    t.exited = true;
                }
            }
            Record::Mmap(mmap) => self.mmap(mmap, record.header.misc),
            Record::Sample(s) => {
                let pid = s.pid.map_or(-1, |p| p as i32);
                let tid = s.tid.map_or(-1, |t| t as i32);
                self.findnew(pid, tid);
            }
            _ => {}
        }
    }

    /// The thread with this tid, if any record named it.
    pub fn thread(&self, tid: i32) -> Option<&Thread> {
        self.threads.get(&tid)
    }

    pub fn threads(&self) -> impl Iterator<Item = &Thread> + '_ {
        self.threads.values()
    }

    /// An address space, by [`Thread::maps`].
    pub fn maps_of(&self, index: usize) -> Option<&Maps> {
        self.maps.get(index)
    }

    pub fn dsos(&self) -> &[Dso] {
        &self.dsos
    }

    /// The index in [`Machine::dsos`] of the DSO of this path.
    pub fn dso_named(&self, name: &[u8]) -> Option<usize> {
        self.dso_index.get(name).copied()
    }

    /// Where `addr` lies, for a sample or frame of process `pid` in `cpumode`
    /// (`misc::USER`, `misc::KERNEL`, ...): kernel cpumode looks in the kernel
    /// maps, user cpumode in the process's maps; others (hypervisor, guests,
    /// whose machines perf keeps apart) resolve to nothing.
    pub fn resolve(&self, pid: i32, cpumode: u16, addr: u64) -> Option<Resolved<'_>> {
        let maps = self.threads.get(&pid).map(|t| t.maps);
        self.resolve_in(maps, cpumode, addr)
    }

    /// [`Machine::resolve`] in a known address space ([`Thread::maps`]).
    pub fn resolve_in(&self, maps: Option<usize>, cpumode: u16, addr: u64) -> Option<Resolved<'_>> {
        let map = self.map_in(maps, cpumode, addr)?;
        let dso = self.dsos.get(map.dso)?;
        Some(Resolved {
            map: *map,
            filename: &dso.name,
            build_id: dso.build_id.as_deref(),
            dso_relative: map.map_ip(addr),
        })
    }

    /// The index in [`Machine::dsos`] of the DSO holding `addr`, as
    /// [`Machine::resolve_in`] finds it, and the addresses around `addr` whose
    /// answer is the same for as long as [`Machine::changes`] stays: a sample's DSO
    /// is then found again without a search.
    pub fn dso_of(&self, maps: Option<usize>, cpumode: u16, addr: u64) -> Option<(usize, Range<u64>)> {
        let map = self.map_in(maps, cpumode, addr)?;
        self.dsos.get(map.dso)?;
        if cpumode != misc::KERNEL {
            return Some((map.dso, map.start..map.end));
        }
        // Kernel maps nest (modules inside the kernel's range): the smallest holding
        // `addr` holds every address up to the nearest edge of another.
        let start = self.kernel.iter().map(|m| m.end).filter(|&end| end <= addr).fold(map.start, u64::max);
        let end = self.kernel.iter().map(|m| m.start).filter(|&start| start > addr).fold(map.end, u64::min);
        Some((map.dso, start..end))
    }

    /// The map holding `addr` in `cpumode`: the kernel's maps in kernel mode, the
    /// address space `maps` in user mode, none in other modes.
    fn map_in(&self, maps: Option<usize>, cpumode: u16, addr: u64) -> Option<&Map> {
        match cpumode {
            misc::KERNEL => self.kernel_map(addr),
            misc::USER => self.maps.get(maps?)?.find(addr),
            _ => None,
        }
    }

    /// A count that moves whenever a record may have changed a map: an answer of
    /// [`Machine::dso_of`] holds while it stays.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// How many maps were added to the address space `maps` (`None`: the kernel's):
    /// an address resolves there as it did while this stays. Unlike
    /// [`Machine::changes`], one process's maps do not move another's.
    pub fn generation(&self, maps: Option<usize>) -> u64 {
        match maps {
            Some(i) => self.maps.get(i).map_or(0, |m| m.generation),
            None => self.kernel_generation,
        }
    }

    /// perf's `map_ip` for `addr` in the user maps of the address space `maps`,
    /// or `None` when no user map holds it. The one lookup `perf script` makes
    /// per call-chain frame, kept cheap.
    pub fn user_map_ip(&self, maps: usize, addr: u64) -> Option<u64> {
        self.maps.get(maps)?.find(addr).map(|m| m.map_ip(addr))
    }

    /// The smallest kernel map holding `addr` (modules lie inside the range the
    /// kernel's own map claims).
    fn kernel_map(&self, addr: u64) -> Option<&Map> {
        self.kernel.iter().filter(|m| m.contains(addr)).min_by_key(|m| m.end.wrapping_sub(m.start))
    }

    /// perf's `machine__findnew_thread`: the thread `tid`, created when new (with
    /// its process leader, whose maps it shares); a thread known without a pid
    /// joins its process now.
    fn findnew(&mut self, pid: i32, tid: i32) -> i32 {
        if let Some(t) = self.threads.get(&tid) {
            if t.pid == -1 && pid != -1 && pid != tid {
                let leader_maps = self.leader_maps(pid);
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.pid = pid;
                    t.maps = leader_maps;
                }
            } else if t.pid == -1 && pid != -1 {
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.pid = pid;
                }
            }
            return tid;
        }
        let maps = if pid == tid || pid == -1 { self.new_maps(Maps::default()) } else { self.leader_maps(pid) };
        let mut comm = Vec::new();
        comm.push(b':');
        push_decimal(&mut comm, tid);
        self.threads.insert(tid, Thread { pid, tid, comm, comm_set: false, exited: false, maps });
        tid
    }

    fn leader_maps(&mut self, pid: i32) -> usize {
        let leader = self.findnew(pid, pid);
        self.threads.get(&leader).map_or(0, |t| t.maps)
    }

    fn new_maps(&mut self, maps: Maps) -> usize {
        self.maps.push(maps);
        self.maps.len().saturating_sub(1)
    }

    /// perf's `machine__process_fork_event`.
    fn fork(&mut self, task: &Task, header_misc: u16) {
        let (pid, tid, ppid, ptid) = (task.pid as i32, task.tid as i32, task.ppid as i32, task.ptid as i32);
        let parent = self.findnew(ppid, ptid);
        // A thread under the parent's tid that belongs to another process is
        // stale (its EXIT or FORK was lost): perf drops it.
        if self.threads.get(&parent).is_some_and(|p| p.pid != ppid) {
            self.threads.remove(&parent);
            self.findnew(ppid, ptid);
        }
        self.threads.remove(&tid);
        let child = self.findnew(pid, tid);
        let Some(parent) = self.threads.get(&ptid).cloned() else { return };
        if parent.comm_set {
            if let Some(c) = self.threads.get_mut(&child) {
                c.comm.clone_from(&parent.comm);
                c.comm_set = true;
            }
        }
        // A new process gets a copy of its parent's maps, except for the FORKs
        // perf synthesizes for tasks already running (FORK_EXEC misc bit), whose
        // maps follow as MMAP2 records.
        let child_pid = self.threads.get(&child).map_or(pid, |c| c.pid);
        if child_pid != parent.pid && header_misc & FORK_EXEC == 0 {
            let copy = self.maps.get(parent.maps).cloned().unwrap_or_default();
            if let Some(target) = self.threads.get(&child).map(|c| c.maps) {
                if target != parent.maps {
                    if let Some(m) = self.maps.get_mut(target) {
                        for map in copy.maps {
                            m.insert(map);
                        }
                    }
                }
            }
        }
    }

    /// perf's `machine__process_mmap2_event` (and the MMAP one).
    fn mmap(&mut self, mmap: &Mmap<'_>, header_misc: u16) {
        let cpumode = header_misc & misc::CPUMODE_MASK;
        let name = super::record::c_string(mmap.filename);
        let end = mmap.addr.saturating_add(mmap.len);
        if matches!(cpumode, misc::GUEST_KERNEL | misc::GUEST_USER) {
            return;
        }
        if cpumode == misc::KERNEL {
            let dso = self.dso(name);
            self.set_build_id(dso, &mmap.file);
            self.kernel_generation = self.kernel_generation.wrapping_add(1);
            self.kernel.push(Map { start: mmap.addr, end, pgoff: mmap.pgoff, kind: MapKind::Kernel, dso });
            return;
        }
        let tid = self.findnew(mmap.pid as i32, mmap.tid as i32);
        let Some(thread) = self.threads.get(&tid) else { return };
        let (pid, maps) = (thread.pid, thread.maps);
        // Plain MMAP has no prot: perf takes it as executable unless the record
        // says it maps data.
        let prot = mmap.prot.unwrap_or(if header_misc & misc::MMAP_DATA != 0 { 0 } else { PROT_EXEC });
        let flags = mmap.flags.unwrap_or(0);
        let anon = name == b"//anon"
            || name.starts_with(b"/dev/zero")
            || name.starts_with(b"/anon_hugepage")
            || flags & MAP_HUGETLB != 0;
        let no_dso = name.starts_with(b"[stack") || name.starts_with(b"/SYSV") || name == b"[heap]";
        let (kind, pgoff, dso) = if anon || no_dso {
            let dso = if prot & PROT_EXEC != 0 {
                let mut jit = b"/tmp/perf-".to_vec();
                push_decimal(&mut jit, pid);
                jit.extend_from_slice(b".map");
                self.dso(&jit)
            } else {
                self.dso(name)
            };
            (MapKind::Anon, mmap.pgoff, dso)
        } else if name == b"[vdso]" {
            (MapKind::Vdso, 0, self.dso(name))
        } else {
            (MapKind::File, mmap.pgoff, self.dso(name))
        };
        self.set_build_id(dso, &mmap.file);
        if let Some(m) = self.maps.get_mut(maps) {
            m.insert(Map { start: mmap.addr, end, pgoff, kind, dso });
        }
    }

    fn dso(&mut self, name: &[u8]) -> usize {
        if let Some(&i) = self.dso_index.get(name) {
            return i;
        }
        self.dsos.push(Dso { name: name.to_vec(), build_id: None });
        let i = self.dsos.len().saturating_sub(1);
        self.dso_index.insert(name.to_vec(), i);
        i
    }

    fn set_build_id(&mut self, dso: usize, file: &MmapFile<'_>) {
        if let (MmapFile::BuildId(id), Some(d)) = (file, self.dsos.get_mut(dso)) {
            d.build_id = Some(id.to_vec());
        }
    }
}

/// Appends `n` in decimal (new threads and JIT maps only: not a hot path).
fn push_decimal(out: &mut Vec<u8>, n: i32) {
    out.extend_from_slice(alloc::format!("{n}").as_bytes());
}

/// The DSOs a recording names, with their build ids (an MMAP2's, else the
/// BUILD_ID feature's): the files a symbolizer has to find for it, as perf's
/// `--symfs` looks them up. Only MMAP and MMAP2 records are decoded.
pub fn recorded_dsos(perf: &PerfData<'_>) -> crate::error::Result<Vec<Dso>> {
    // perf_event_type: PERF_RECORD_MMAP, PERF_RECORD_MMAP2.
    const MMAP: u32 = 1;
    const MMAP2: u32 = 10;
    let mut machine = Machine::new(perf);
    perf.for_each_in_time_order(|position| {
        let (kind, _) = perf.kind_and_time(position)?;
        if kind == MMAP || kind == MMAP2 {
            machine.apply(&perf.record_at(position)?);
        }
        Ok(())
    })?;
    Ok(machine.dsos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::perf::record::RecordHeader;
    use crate::formats::perf::sample::{Sample, SampleId};

    /// A pipe-mode perf.data with no records: magic, then header size 16.
    const EMPTY_PIPE: &[u8] = b"PERFILE2\x10\0\0\0\0\0\0\0";

    fn at(kind: u32, misc: u16, record: Record<'static>) -> RecordAt<'static> {
        RecordAt { offset: 0, header: RecordHeader { kind, misc, size: 0 }, sample_id: SampleId::default(), record }
    }

    fn mmap(pid: u32, addr: u64, len: u64, pgoff: u64, filename: &'static [u8], prot: u32) -> RecordAt<'static> {
        let mmap =
            Mmap { pid, tid: pid, addr, len, pgoff, file: MmapFile::None, prot: Some(prot), flags: Some(2), filename };
        at(10, misc::USER, Record::Mmap(mmap))
    }

    fn comm(pid: u32, tid: u32, name: &'static [u8]) -> RecordAt<'static> {
        at(3, 0, Record::Comm { pid, tid, comm: name })
    }

    fn fork(pid: u32, tid: u32, ppid: u32, ptid: u32, misc: u16) -> RecordAt<'static> {
        at(7, misc, Record::Fork(Task { pid, ppid, tid, ptid, time: 0 }))
    }

    fn machine() -> Machine {
        let Ok(perf) = PerfData::parse(EMPTY_PIPE) else { unreachable!("an empty pipe capture parses") };
        Machine::new(&perf)
    }

    fn dso_relative(m: &Machine, pid: i32, addr: u64) -> Option<(Vec<u8>, u64)> {
        m.resolve(pid, misc::USER, addr).map(|r| (r.filename.to_vec(), r.dso_relative))
    }

    #[test]
    fn a_new_map_cuts_the_maps_it_overlaps() {
        let mut m = machine();
        // a.so at [0x1000, 0x5000) from file offset 0x10000; b.so over its middle.
        m.apply(&mmap(7, 0x1000, 0x4000, 0x10000, b"/a.so\0\0\0", PROT_EXEC));
        m.apply(&mmap(7, 0x2000, 0x1000, 0, b"/b.so", PROT_EXEC));
        assert_eq!(dso_relative(&m, 7, 0x1800), Some((b"/a.so".to_vec(), 0x10800)));
        assert_eq!(dso_relative(&m, 7, 0x2800), Some((b"/b.so".to_vec(), 0x800)));
        // The part after b.so keeps its file offsets: 0x4000 is still 0x13000 in a.so.
        assert_eq!(dso_relative(&m, 7, 0x4000), Some((b"/a.so".to_vec(), 0x13000)));
        assert_eq!(dso_relative(&m, 7, 0x5000), None);
        assert_eq!(dso_relative(&m, 7, 0xfff), None);
        let maps = m.thread(7).and_then(|t| m.maps_of(t.maps)).map(|s| s.iter().count());
        assert_eq!(maps, Some(3));
    }

    #[test]
    fn vdso_anon_heap_and_jit_maps_map_as_perf_does() {
        let mut m = machine();
        m.apply(&mmap(7, 0x7000, 0x1000, 0x5000, b"[vdso]", PROT_EXEC));
        m.apply(&mmap(7, 0x9000, 0x1000, 0x5000, b"//anon", 3));
        m.apply(&mmap(7, 0xa000, 0x1000, 0, b"//anon", PROT_EXEC | 3));
        m.apply(&mmap(7, 0xb000, 0x1000, 0, b"[heap]", 3));
        // [vdso]: perf ignores its pgoff.
        assert_eq!(dso_relative(&m, 7, 0x7010), Some((b"[vdso]".to_vec(), 0x10)));
        // Anonymous memory and the heap: the address itself.
        assert_eq!(dso_relative(&m, 7, 0x9010), Some((b"//anon".to_vec(), 0x9010)));
        assert_eq!(dso_relative(&m, 7, 0xb010), Some((b"[heap]".to_vec(), 0xb010)));
        // Executable anonymous memory is a JIT's, named for its perf map file.
        assert_eq!(dso_relative(&m, 7, 0xa010), Some((b"/tmp/perf-7.map".to_vec(), 0xa010)));
    }

    #[test]
    fn kernel_maps_resolve_in_kernel_mode_only() {
        let mut m = machine();
        let text = Mmap {
            pid: u32::MAX,
            tid: 0,
            addr: 0xffff_ffff_8100_0000,
            len: 0x100_0000,
            pgoff: 0xffff_ffff_8100_0000,
            file: MmapFile::None,
            prot: None,
            flags: None,
            filename: b"[kernel.kallsyms]_text",
        };
        m.apply(&at(1, misc::KERNEL, Record::Mmap(text)));
        let r = m.resolve(0, misc::KERNEL, 0xffff_ffff_8100_1234);
        assert_eq!(r.map(|r| (r.map.kind, r.dso_relative)), Some((MapKind::Kernel, 0xffff_ffff_8100_1234)));
        assert_eq!(r.map(|r| r.filename), Some(&b"[kernel.kallsyms]_text"[..]));
        assert!(m.resolve(0, misc::USER, 0xffff_ffff_8100_1234).is_none());
        assert!(m.resolve(0, misc::HYPERVISOR, 0xffff_ffff_8100_1234).is_none());
    }

    fn kernel_mmap(addr: u64, len: u64, filename: &'static [u8]) -> RecordAt<'static> {
        let mmap = Mmap {
            pid: u32::MAX,
            tid: 0,
            addr,
            len,
            pgoff: 0,
            file: MmapFile::None,
            prot: None,
            flags: None,
            filename,
        };
        at(1, misc::KERNEL, Record::Mmap(mmap))
    }

    #[test]
    fn a_dso_found_holds_over_the_addresses_given_with_it_and_modules_inside_the_kernel() {
        let mut m = machine();
        m.apply(&kernel_mmap(0x10_0000, 0x10_0000, b"[kernel.kallsyms]_text"));
        // Two modules inside the kernel's range, one after it.
        m.apply(&kernel_mmap(0x14_0000, 0x1000, b"[ext4]"));
        m.apply(&kernel_mmap(0x18_0000, 0x2000, b"[xfs]"));
        m.apply(&kernel_mmap(0x30_0000, 0x1000, b"[nvme]"));
        m.apply(&mmap(7, 0x1000, 0x4000, 0, b"/a.so", PROT_EXEC));
        m.apply(&mmap(7, 0x6000, 0x1000, 0, b"/b.so", PROT_EXEC));
        let maps = m.thread(7).map(|t| t.maps);
        let dso = |cpumode, a| m.resolve(7, cpumode, a).map(|r| r.map.dso);
        let kernel = (0x0f_f000..0x31_0000).step_by(0x1000).map(|a| (misc::KERNEL, a));
        let user = (0..0x8000).step_by(0x100).map(|a| (misc::USER, a));
        let mut found = 0;
        for (cpumode, a) in kernel.chain(user) {
            let Some((d, range)) = m.dso_of(maps, cpumode, a) else {
                assert_eq!(dso(cpumode, a), None, "{a:#x}");
                continue;
            };
            found += 1;
            assert!(range.contains(&a), "{a:#x} {range:x?}");
            for b in range.clone().step_by(0x400).chain([range.end - 1]) {
                assert_eq!(dso(cpumode, b), Some(d), "{b:#x} in {range:x?} for {a:#x}");
            }
        }
        // The kernel's 256 pages (its modules among them), nvme's one, a.so's and b.so's steps.
        assert_eq!(found, 256 + 1 + 0x40 + 0x10);
        // The kernel's own map between its modules holds up to their edges.
        assert_eq!(m.dso_of(None, misc::KERNEL, 0x15_0000).map(|(_, r)| r), Some(0x14_1000..0x18_0000));
        assert_eq!(m.dso_of(None, misc::KERNEL, 0x14_0800).map(|(_, r)| r), Some(0x14_0000..0x14_1000));
        assert_eq!(m.dso_of(maps, misc::HYPERVISOR, 0x1000), None);
    }

    #[test]
    fn a_sample_counts_in_the_dso_mapped_when_it_was_taken() {
        let Ok(perf) = PerfData::parse(EMPTY_PIPE) else { unreachable!("an empty pipe capture parses") };
        let mut m = Machine::new(&perf);
        let mut count = crate::formats::perf::dsos::DsoCount::default();
        let sample = |ip| Sample { pid: Some(7), tid: Some(7), ip: Some(ip), misc: misc::USER, ..Sample::default() };
        let kernel = |ip| Sample { ip: Some(ip), misc: misc::KERNEL, ..sample(ip) };
        m.apply(&kernel_mmap(0x10_0000, 0x10_0000, b"[kernel.kallsyms]_text"));
        m.apply(&kernel_mmap(0x14_0000, 0x1000, b"[ext4]"));
        m.apply(&mmap(7, 0x1000, 0x4000, 0, b"/a.so", PROT_EXEC));
        let maps = m.thread(7).map(|t| t.maps);
        // User and kernel samples in turn, the kernel's about its module.
        for s in [sample(0x1800), kernel(0x13_f000), sample(0x2800), kernel(0x14_0800), kernel(0x14_1000)] {
            count.sample(&m, maps, &s);
        }
        // b.so over a.so's middle: the same address now lies in b.so.
        m.apply(&mmap(7, 0x2000, 0x1000, 0, b"/b.so", PROT_EXEC));
        count.sample(&m, maps, &sample(0x2800));
        count.sample(&m, maps, &sample(0x1800));
        // A user address in kernel mode, a kernel one in user mode, and a user one
        // in hypervisor mode right after a user sample there: no map.
        count.sample(&m, maps, &kernel(0x1800));
        count.sample(&m, maps, &sample(0x14_0800));
        count.sample(&m, maps, &sample(0x1800));
        count.sample(&m, maps, &Sample { misc: misc::HYPERVISOR, ..sample(0x1800) });
        let uses: Vec<(Vec<u8>, u64, bool)> =
            count.uses(&m, &perf).into_iter().map(|d| (d.name, d.samples, d.kernel)).collect();
        assert_eq!(
            uses,
            [
                (b"[kernel.kallsyms]".to_vec(), 2, true),
                (b"[ext4]".to_vec(), 1, true),
                (b"/a.so".to_vec(), 4, false),
                (b"/b.so".to_vec(), 1, false)
            ]
        );
    }

    #[test]
    fn threads_are_named_by_comm_and_fork() {
        let mut m = machine();
        assert_eq!(m.thread(0).map(|t| t.comm.clone()), Some(b"swapper".to_vec()));
        // First seen in a sample: named after its tid; its process leader too.
        let sample = Sample { pid: Some(10), tid: Some(11), ..Sample::default() };
        m.apply(&at(9, misc::USER, Record::Sample(sample)));
        assert_eq!(m.thread(11).map(|t| t.comm.clone()), Some(b":11".to_vec()));
        assert_eq!(m.thread(10).map(|t| t.comm.clone()), Some(b":10".to_vec()));
        // Threads of a process share its maps.
        assert_eq!(m.thread(11).map(|t| t.maps), m.thread(10).map(|t| t.maps));

        m.apply(&comm(10, 10, b"server\0\0"));
        m.apply(&mmap(10, 0x1000, 0x1000, 0, b"/bin/server", PROT_EXEC));
        // A child process: the parent's name and a copy of its maps.
        m.apply(&fork(20, 20, 10, 10, 0));
        assert_eq!(m.thread(20).map(|t| t.comm.clone()), Some(b"server".to_vec()));
        assert_eq!(dso_relative(&m, 20, 0x1010), Some((b"/bin/server".to_vec(), 0x10)));
        assert_ne!(m.thread(20).map(|t| t.maps), m.thread(10).map(|t| t.maps));
        // An exec renames it; its maps change apart from the parent's.
        m.apply(&comm(20, 20, b"worker"));
        m.apply(&mmap(20, 0x1000, 0x1000, 0x2000, b"/bin/worker", PROT_EXEC));
        assert_eq!(dso_relative(&m, 20, 0x1010), Some((b"/bin/worker".to_vec(), 0x2010)));
        assert_eq!(dso_relative(&m, 10, 0x1010), Some((b"/bin/server".to_vec(), 0x10)));
        // A thread of the child shares the child's maps; a parent never named by
        // a COMM passes on no name.
        m.apply(&fork(20, 21, 20, 20, 0));
        assert_eq!(m.thread(21).map(|t| t.comm.clone()), Some(b"worker".to_vec()));
        assert_eq!(m.thread(21).map(|t| t.maps), m.thread(20).map(|t| t.maps));
        m.apply(&fork(30, 30, 11, 11, 0));
        assert_eq!(m.thread(30).map(|t| t.comm.clone()), Some(b":30".to_vec()));
        // perf's synthesized FORKs of running tasks (FORK_EXEC) copy no maps.
        m.apply(&fork(40, 40, 10, 10, FORK_EXEC));
        assert_eq!(dso_relative(&m, 40, 0x1010), None);
        // EXIT marks the thread; it stays known.
        m.apply(&at(4, 0, Record::Exit(Task { pid: 20, ppid: 10, tid: 21, ptid: 20, time: 0 })));
        assert_eq!(m.thread(21).map(|t| t.exited), Some(true));
    }
}
