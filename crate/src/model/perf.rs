//! perf.data → [`StackProfile`]: each sample's call chain (or its ip), resolved
//! through the process's maps as perf resolves it, and symbolized from the
//! binaries the user dropped.
//!
//! The recording is read once, into [`PerfStacks`]: the stacks with one frame per
//! address (what is shown before any binary arrives), and where each address lies
//! (a DSO and a file offset, or a kernel address). Symbolizing
//! ([`Addresses::symbolize`]) then names those frames without reading the
//! recording again; only `--call-graph dwarf` recordings, whose user stacks are
//! unwound with the binaries' call-frame information, need the records again
//! ([`Addresses::unwinds`]).
//!
//! Frames, leaf first, for one address:
//! - a dropped binary matches the map's DSO (build id, else file name): its
//!   function, with inlined callers from DWARF (innermost first); `[unknown]` where
//!   it has no symbol;
//! - no binary: `dso+0xoffset` (the file offset, as perf prints it);
//! - kernel addresses: the kallsyms symbol when one was dropped, else
//!   `[kernel.kallsyms]+0xaddress`;
//! - no map: the address itself.
//!
//! Every sample weighs 1: the flame graph counts samples, as `perf report -n` does.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;

use super::stacks::{FrameId, FrameKind, NodeId, StackProfile, ROOT};
use crate::error::Result;
use crate::formats::perf::dsos::{DsoCount, DsoUse};
use crate::formats::perf::machine::{Machine, MapKind};
use crate::formats::perf::record::misc;
use crate::formats::perf::sample::{self, Sample};
use crate::formats::perf::{PerfData, Record, RecordAt};
use crate::symbolize::unwind::{self, Unwinder};
use crate::symbolize::{self, Address, Symbolizer};

mod part;
pub use part::StacksPart;

/// Builds the stack profile named by `symbolizer`; `progress(done, total)` is called
/// every few thousand records.
pub fn stack_profile(
    perf: &PerfData<'_>,
    symbolizer: &Symbolizer<'_>,
    progress: impl FnMut(usize, usize),
) -> Result<StackProfile> {
    let stacks = PerfStacks::read(perf, symbolizer, progress)?;
    let names = symbolizer.binaries().next().is_some() || symbolizer.kallsyms().is_some();
    Ok(if names { stacks.symbolize(symbolizer) } else { stacks.into_profile() })
}

/// A recording's stacks, one frame per address, and where each address lies.
#[derive(Debug)]
pub struct PerfStacks {
    /// What is shown unsymbolized, and what [`Addresses::symbolize`] names.
    pub profile: StackProfile,
    pub addresses: Addresses,
}

/// Where the frames of a [`PerfStacks`] profile lie.
#[derive(Debug, Default)]
pub struct Addresses {
    /// Per frame of the profile.
    locations: Vec<Location>,
    /// The DSOs locations point into: path and build id (when the recording has it).
    dsos: Vec<(String, Option<Vec<u8>>)>,
    /// Some sample carried a user stack copy (`--call-graph dwarf`).
    stack_copies: bool,
}

/// Where the address of a frame lies.
#[derive(Clone, Copy, Debug)]
enum Location {
    /// In a file-backed map: `dso` indexes [`Addresses::dsos`].
    File {
        dso: u32,
        offset: u64,
    },
    Kernel {
        address: u64,
    },
    /// Anonymous or special maps and unmapped addresses: the frame stays as it is.
    Fixed,
}

impl PerfStacks {
    /// Reads the recording's samples in perf's time order. `unwinding` is only used
    /// for the call-frame information of `--call-graph dwarf` stack copies.
    pub fn read(
        perf: &PerfData<'_>,
        unwinding: &Symbolizer<'_>,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<PerfStacks> {
        let mut reader = StackReader::new(perf.sample_count());
        let total = perf.record_count();
        let mut done = 0usize;
        perf.for_each_in_time_order(|position| {
            if done % 8192 == 0 {
                progress(done, total);
            }
            done = done.saturating_add(1);
            match perf.record_at(position) {
                Ok(ref record) => reader.record(perf, record, unwinding),
                Err(e) => return Err(e),
            }
            Ok(())
        })?;
        progress(total, total);
        Ok(reader.finish(perf))
    }

    /// The stacks named by `symbolizer` (see [`Addresses::symbolize`]).
    pub fn symbolize(&self, symbolizer: &Symbolizer<'_>) -> StackProfile {
        self.addresses.symbolize(&self.profile, symbolizer)
    }

    pub fn into_profile(self) -> StackProfile {
        self.profile
    }

    /// Interns the frame of an address, recording where it lies.
    fn frame(&mut self, name: &str, dso: Option<&str>, kind: FrameKind, location: Location) -> FrameId {
        let id = self.profile.frame(name, dso, kind);
        if id as usize == self.addresses.locations.len() {
            self.addresses.locations.push(location);
        }
        id
    }
}

/// Builds a [`PerfStacks`] from a recording's records, given in perf's time order
/// (from a parsed recording, or as a recording streams in).
pub struct StackReader<'s> {
    stacks: PerfStacks,
    /// The profile's event per event of the recording (registered on the first
    /// sample: a pipe recording announces its events in the stream).
    events: Option<Vec<u32>>,
    machine: Option<Machine>,
    resolver: Resolver<'s>,
    chains: ChainCache,
    key: Vec<u64>,
    stack: Vec<FrameId>,
    /// The last stack found outside the chain cache, root first, with its nodes: the
    /// next one found there most often shares its callers (a new leaf address under
    /// them), whose nodes are then not looked up again.
    last: Vec<(FrameId, NodeId)>,
    /// The samples of each DSO, when asked for ([`StackReader::count_dsos`]).
    dso_count: Option<DsoCount>,
    /// Records move only the machine ([`StackReader::replay`]).
    replaying: bool,
}

impl<'s> StackReader<'s> {
    /// `samples`: how many samples to make room for (a hint).
    pub fn new(samples: usize) -> Self {
        let mut stacks = PerfStacks { profile: StackProfile::new(), addresses: Addresses::default() };
        stacks.profile.reserve_samples(samples);
        StackReader {
            stacks,
            events: None,
            machine: None,
            resolver: Resolver { cache: HashMap::default(), dso_index: BTreeMap::new(), unwinder: Unwinder::new() },
            chains: ChainCache::default(),
            key: Vec::new(),
            stack: Vec::new(),
            last: Vec::new(),
            dso_count: None,
            replaying: false,
        }
    }

    /// While `on`, the records given only move the machine (threads, maps): their
    /// samples are not read. Two readers read a recording at once this way: one
    /// reads its records up to a cut and stops ([`StackReader::into_part`]), the
    /// other replays them, reads the rest, and puts the first one's part before
    /// its own ([`StackReader::join`]). The cut lies between two records: both
    /// readers are given, in time order, the records the stream releases while the
    /// bytes up to it are fed (see `PerfStream::feed`).
    pub fn replay(&mut self, on: bool) {
        self.replaying = on;
    }

    /// Whether the records given are replayed ([`StackReader::replay`]).
    pub fn replaying(&self) -> bool {
        self.replaying
    }

    /// What this reader read, for another to join ([`StackReader::join`]).
    pub fn into_part(self) -> StacksPart {
        StacksPart { stacks: self.stacks, dsos: self.dso_count }
    }

    /// Puts `first`, what another reader read of the records this one replayed,
    /// before what this one read: the stacks and DSO counts are then those of one
    /// reader given every record.
    pub fn join(&mut self, first: StacksPart) {
        let StacksPart { mut stacks, dsos } = first;
        let frames = stacks.profile.append(&self.stacks.profile);
        stacks.addresses.append(&self.stacks.addresses, &frames);
        self.stacks = stacks;
        if let (Some(count), Some(first)) = (&mut self.dso_count, &dsos) {
            count.add(first);
        }
        // What was found for this reader's frames and nodes is theirs no more.
        self.resolver.cache.clear();
        self.resolver.dso_index = (0u32..).zip(&self.stacks.addresses.dsos).map(|(i, d)| (d.clone(), i)).collect();
        self.chains = ChainCache::default();
        self.last.clear();
    }

    /// Also counts the samples of each DSO, as [`crate::formats::perf::dsos::dsos`] does (for a recording
    /// that is not kept to be read again).
    pub fn count_dsos(&mut self) {
        self.dso_count.get_or_insert_with(DsoCount::default);
    }

    /// Makes room for `additional` more samples (a hint, once their count is guessed).
    pub fn reserve_samples(&mut self, additional: usize) {
        self.stacks.profile.reserve_samples(additional);
    }

    /// Applies the next record: `perf` is the recording's metadata as far as read.
    /// `unwinding`: the call-frame information `--call-graph dwarf` stack copies are
    /// unwound with; the same for every record.
    pub fn record(&mut self, perf: &PerfData<'_>, record: &RecordAt<'_>, unwinding: &Symbolizer<'s>) {
        let machine = self.machine.get_or_insert_with(|| Machine::new(perf));
        machine.apply(record);
        let Record::Sample(sample) = &record.record else { return };
        let profile = &mut self.stacks.profile;
        // Registered on the first sample, replayed or not: a pipe recording's later
        // records may name its events otherwise. An event added after it (a
        // HEADER_ATTR among the records) is registered with its first sample, as
        // a recording read whole registers every event.
        let events =
            self.events.get_or_insert_with(|| perf.events.iter().map(|e| profile.add_event(&e.name)).collect());
        if sample.event >= events.len() {
            let added = perf.events.get(events.len()..).unwrap_or_default();
            events.extend(added.iter().map(|e| profile.add_event(&e.name)));
        }
        if self.replaying {
            return;
        }
        // The sample's address space, looked up once for its DSO, the key and the frames.
        let maps = machine.thread(sample.pid.map_or(-1, |p| p as i32)).map(|t| t.maps);
        if let Some(count) = &mut self.dso_count {
            count.sample(machine, maps, sample);
        }
        let Some(&event) = events.get(sample.event) else { return };
        // Most samples repeat a call chain seen before: find its leaf node by the raw
        // chain (and the address space it is resolved in), and resolve only new ones.
        // With the address spaces' generations (a chain seen before a map was
        // added there may lie elsewhere now), folded into the two words the key
        // begins with, so that short chains keep their room.
        let key = &mut self.key;
        key.clear();
        key.push(space_key(maps, false, machine));
        key.push(u64::from(sample.cpumode()) | machine.generation(None) << 16);
        match sample.callchain {
            Some(chain) => key.extend(chain.iter()),
            None => key.push(sample.ip.unwrap_or(0)),
        }
        // A copied user stack (`--call-graph dwarf`) is unwound with the binaries'
        // call-frame information; the return addresses found extend the chain.
        self.stacks.addresses.stack_copies |= sample.stack_user.is_some();
        let unwound = self.resolver.unwind_user_stack(machine, unwinding, sample, maps);
        if !unwound.is_empty() {
            key.push(UNWOUND);
            key.extend_from_slice(&unwound);
        }
        let tag = ChainCache::tag(key);
        let leaf = match self.chains.get(tag, key) {
            Some(leaf) => leaf,
            None => {
                let stack = &mut self.stack;
                stack.clear();
                self.resolver.sample_frames(&mut self.stacks, machine, sample, maps, stack);
                for &address in &unwound {
                    stack.push(self.resolver.address_frame(&mut self.stacks, machine, maps, misc::USER, address));
                }
                stack.reverse();
                let Some(leaf) = leaf_of(&mut self.stacks.profile, stack, &mut self.last) else { return };
                self.chains.insert(tag, key, leaf);
                leaf
            }
        };
        self.stacks.profile.push_sample_at(event, sample.time.unwrap_or(0), 1, leaf);
    }

    /// The recording's DSOs with their samples, when counted ([`StackReader::count_dsos`]).
    /// `perf`: the recording's metadata, complete.
    pub fn dso_uses(&self, perf: &PerfData<'_>) -> Option<Vec<DsoUse>> {
        let count = self.dso_count.as_ref()?;
        Some(match &self.machine {
            Some(machine) => count.uses(machine, perf),
            None => count.uses(&Machine::new(perf), perf),
        })
    }

    /// The stacks read. `perf`: the recording's metadata, complete.
    pub fn finish(mut self, perf: &PerfData<'_>) -> PerfStacks {
        // A pipe recording read as it streamed in names its build ids at its end:
        // its DSOs get them now, by file name as perf matches them.
        for (path, build_id) in self.stacks.addresses.dsos.iter_mut().filter(|(_, id)| id.is_none()) {
            let named = perf.features.build_id_named(|name| String::from_utf8_lossy(name) == path.as_str());
            *build_id = named.map(<[u8]>::to_vec);
        }
        self.stacks.profile.end_stacks();
        // A recording without samples still lists its events.
        if self.events.is_none() {
            for event in &perf.events {
                self.stacks.profile.add_event(&event.name);
            }
        }
        self.stacks
    }
}

impl Addresses {
    /// Adds `other`'s locations of the frames that are new here (`frames`: the id
    /// each of `other`'s frames got, [`StackProfile::append`]).
    fn append(&mut self, other: &Addresses, frames: &[FrameId]) {
        let dsos: Vec<u32> = other
            .dsos
            .iter()
            .map(|d| {
                let at = self.dsos.iter().position(|x| x == d).unwrap_or_else(|| {
                    self.dsos.push(d.clone());
                    self.dsos.len().saturating_sub(1)
                });
                u32::try_from(at).unwrap_or(u32::MAX)
            })
            .collect();
        for (&id, &location) in frames.iter().zip(&other.locations) {
            if id as usize == self.locations.len() {
                self.locations.push(match location {
                    Location::File { dso, offset } => match dsos.get(dso as usize) {
                        Some(&dso) => Location::File { dso, offset },
                        None => Location::Fixed,
                    },
                    other => other,
                });
            }
        }
        self.stack_copies |= other.stack_copies;
    }

    /// Whether new binaries change the stacks themselves, not only their names: user
    /// stack copies are unwound with the binaries' call-frame information, so the
    /// recording must be read again ([`PerfStacks::read`]) with them.
    pub fn unwinds(&self) -> bool {
        self.stack_copies
    }

    /// The DSOs the frames lie in: path, and build id when the recording has one.
    pub fn dsos(&self) -> &[(String, Option<Vec<u8>>)] {
        &self.dsos
    }

    /// `profile` (the [`PerfStacks`] profile these addresses are of) named by
    /// `symbolizer`'s binaries and kallsyms (see the module documentation), without
    /// the recording.
    pub fn symbolize(&self, profile: &StackProfile, symbolizer: &Symbolizer<'_>) -> StackProfile {
        profile.relabel(|out, id, frame, frames| {
            let dso_name = || frame.dso.and_then(|d| profile.dsos().get(d as usize)).map(String::as_str);
            match self.locations.get(id as usize).copied().unwrap_or(Location::Fixed) {
                Location::Kernel { address } => {
                    let named = symbolizer.kallsyms().and_then(|k| k.symbol_for(address));
                    let name = named.map_or(frame.name.as_str(), |s| s.name);
                    frames.push(out.frame(name, dso_name(), FrameKind::Kernel));
                }
                Location::File { dso, offset } => {
                    let Some((path, build_id)) = self.dsos.get(dso as usize) else { return };
                    // Without a build id in the recording (pipe mode), perf reads the
                    // file's own and finds its separate debug file by it.
                    let build_id = build_id.as_deref().or_else(|| symbolizer.own_build_id(path));
                    let at = Address::FileOffset(offset);
                    match symbolizer.resolve(path, build_id, at) {
                        Some(named) if named.is_empty() => {
                            frames.push(out.frame("[unknown]", dso_name(), FrameKind::Unknown));
                        }
                        // Innermost first: the function comes last, and first on the stack.
                        Some(named) => {
                            for f in named.iter().rev() {
                                let kind = if f.inlined { FrameKind::Inlined } else { FrameKind::User };
                                let known = out.frames().len();
                                let new_id = out.frame(&f.function, dso_name(), kind);
                                // A new function: its raw name and source line, looked up once.
                                if !f.inlined && out.frames().len() > known {
                                    if let Some(o) = symbolizer.origin(path, build_id, at) {
                                        out.describe(new_id, &o.raw, o.file.as_deref(), o.line);
                                    }
                                }
                                frames.push(new_id);
                            }
                        }
                        None => frames.push(out.frame(&frame.name, dso_name(), frame.kind)),
                    }
                }
                Location::Fixed => frames.push(out.frame(&frame.name, dso_name(), frame.kind)),
            }
        })
    }
}

/// The leaf node of `stack` (root first) in `profile`, from the nodes of the `last`
/// stack (with its frames) as far as it shares its frames; `last` becomes this one.
fn leaf_of(profile: &mut StackProfile, stack: &[FrameId], last: &mut Vec<(FrameId, NodeId)>) -> Option<NodeId> {
    let shared = stack.iter().zip(last.iter()).take_while(|(f, (g, _))| f == &g).count();
    last.truncate(shared);
    let mut node = last.last().map_or(ROOT, |&(_, n)| n);
    for &frame in stack.get(shared..).unwrap_or_default() {
        node = profile.child(node, frame)?;
        last.push((frame, node));
    }
    Some(node)
}

/// An address space (`maps`, or the kernel's) and its generation in one word, for
/// the caches' keys: answers found before a map was added there are not reused
/// (the generation would wrap only after 2^32 maps added to one address space).
fn space_key(maps: Option<usize>, kernel: bool, machine: &Machine) -> u64 {
    let space = match (kernel, maps) {
        (true, _) => u32::MAX,
        (false, None) => u32::MAX - 1,
        (false, Some(m)) => u32::try_from(m).unwrap_or(u32::MAX - 2),
    };
    u64::from(space) | machine.generation(if kernel { None } else { maps }) << 32
}

/// Separates a chain from the addresses unwound from its stack copy in a cache key.
const UNWOUND: u64 = u64::MAX;

/// The frame per (address space, cpumode, address), computed once. (A hash map:
/// as a B-tree, its lookups were a tenth of the decode of a recording with a
/// million distinct call chains.)
struct Resolver<'s> {
    /// By address space and its generation ([`space_key`]), cpumode and address.
    cache: HashMap<(u64, u16, u64), FrameId>,
    /// [`Addresses::dsos`] by path and build id.
    dso_index: BTreeMap<(String, Option<Vec<u8>>), u32>,
    unwinder: Unwinder<'s>,
}

impl<'s> Resolver<'s> {
    /// The user frames of a sample with a stack copy: the user ip, then the return
    /// addresses unwound from the registers and the copy (as far as the dropped
    /// binaries' call-frame information reaches). Nothing for other samples.
    fn unwind_user_stack(
        &mut self,
        machine: &Machine,
        symbolizer: &Symbolizer<'s>,
        sample: &Sample<'_>,
        maps: Option<usize>,
    ) -> Vec<u64> {
        let (Some(regs), Some(stack)) = (sample.regs_user, sample.stack_user) else { return Vec::new() };
        if regs.abi == 0 {
            return Vec::new();
        }
        let values = unwind::x86_64_regs(regs.mask, regs.values.iter());
        let copied = usize::try_from(stack.dyn_size).map_or(stack.data, |n| stack.data.get(..n).unwrap_or(stack.data));
        let Some(ip) = values[unwind::IP] else { return Vec::new() };
        let mut frames = alloc::vec![ip];
        // Each caller at its return address less one, as perf lists it: the call
        // itself, whose function and inline frames are the caller's (the return
        // address may already be the next line's, or the next function's).
        let callers = self.unwinder.unwind(values, copied, |pc| {
            let r = machine.resolve_in(maps, misc::USER, pc)?;
            if r.map.kind != MapKind::File {
                return None;
            }
            let filename = String::from_utf8_lossy(r.filename);
            let binary = symbolizer.find_call_frames(&filename, r.build_id)?;
            Some((binary, binary.vaddr_of_file_offset(r.dso_relative)?))
        });
        frames.extend(callers.into_iter().filter_map(|ra| ra.checked_sub(1)));
        frames
    }

    /// Appends the sample's frames, leaf first.
    fn sample_frames(
        &mut self,
        stacks: &mut PerfStacks,
        machine: &Machine,
        sample: &Sample<'_>,
        maps: Option<usize>,
        out: &mut Vec<FrameId>,
    ) {
        let mut cpumode = sample.cpumode();
        match sample.callchain {
            Some(chain) => {
                for address in chain.iter() {
                    if address >= sample::CONTEXT_MAX {
                        cpumode = match address {
                            sample::CONTEXT_KERNEL => misc::KERNEL,
                            sample::CONTEXT_USER => misc::USER,
                            sample::CONTEXT_HV => misc::HYPERVISOR,
                            sample::CONTEXT_GUEST_KERNEL => misc::GUEST_KERNEL,
                            sample::CONTEXT_GUEST_USER => misc::GUEST_USER,
                            _ => cpumode,
                        };
                        continue;
                    }
                    out.push(self.address_frame(stacks, machine, maps, cpumode, address));
                }
            }
            None => {
                if let Some(ip) = sample.ip {
                    out.push(self.address_frame(stacks, machine, maps, cpumode, ip));
                }
            }
        }
    }

    /// The frame of one address: named by where it lies, as it is shown unsymbolized.
    fn address_frame(
        &mut self,
        stacks: &mut PerfStacks,
        machine: &Machine,
        maps: Option<usize>,
        cpumode: u16,
        address: u64,
    ) -> FrameId {
        let kernel = matches!(cpumode, misc::KERNEL | misc::GUEST_KERNEL);
        // An address resolves as it did while its address space gained no map: the
        // space and its generation in one word, as in the chain cache's key.
        let space = if kernel { None } else { maps };
        let key = (space_key(space, kernel, machine), cpumode, address);
        if let Some(&id) = self.cache.get(&key) {
            return id;
        }
        let id = match machine.resolve_in(maps, cpumode, address) {
            Some(r) if r.map.kind == MapKind::Kernel || kernel => {
                let dso = "[kernel.kallsyms]";
                let name = symbolize::dso_offset_label(dso, address);
                stacks.frame(&name, Some(dso), FrameKind::Kernel, Location::Kernel { address })
            }
            Some(r) => {
                let filename = String::from_utf8_lossy(r.filename);
                let name = symbolize::dso_offset_label(&filename, r.dso_relative);
                let location = if r.map.kind == MapKind::File {
                    let build_id = r.build_id.map(<[u8]>::to_vec);
                    let next = u32::try_from(stacks.addresses.dsos.len()).unwrap_or(u32::MAX);
                    let dso = *self
                        .dso_index
                        .entry((String::from(filename.as_ref()), build_id.clone()))
                        .or_insert_with(|| {
                            stacks.addresses.dsos.push((String::from(filename.as_ref()), build_id));
                            next
                        });
                    Location::File { dso, offset: r.dso_relative }
                } else {
                    Location::Fixed
                };
                stacks.frame(&name, Some(symbolize::basename(&filename)), FrameKind::User, location)
            }
            None => {
                let kind = if kernel { FrameKind::Kernel } else { FrameKind::Unknown };
                stacks.frame(&format!("{address:#x}"), None, kind, Location::Fixed)
            }
        };
        self.cache.insert(key, id);
        id
    }
}

/// Leaf nodes by raw call chain, two ways by the chain's length.
///
/// A short chain (at most [`RECENT_WORDS`] words, the cache key's two included:
/// an ip and a few callers) is kept in a direct-mapped table of [`RECENT`] slots,
/// the last chain of each slot: 640 KB, mostly in the processor's cache. A
/// recording of short chains has many that occur once (69% of the 1.18 million of
/// a high-frequency recording), and for those a larger table only cost misses:
/// its probe, then its insertion. Without it the high-frequency recording (3.1M
/// samples) read 10% faster natively, and so did a `perf record -g` of clang (4.5M
/// stack nodes) and a flat one; the slots still find 58% of its samples where
/// keeping every chain finds 62.5%.
///
/// A longer chain goes to an open-addressing table over chains kept end to end
/// in an arena, each behind a header word (its length, and the tag its slot was
/// chosen by). A hit costs two cache misses, the slot and the chain; a chain costs
/// 8 bytes besides its words (and a slot of 8, at most half full). It is small,
/// and starts again empty when its table or arena are full: a chain recurs soon
/// or hardly ever. (Emptied every 65,536 chains, it still found 99.3% of the
/// samples of a deep-stack recording, as many as when it kept all.) The arena
/// grows by fixed chunks, not by doubling: wasm memory never shrinks, and a
/// doubled arena's old half would stay in the tab.
#[derive(Default)]
struct ChainCache {
    /// 0 marks an empty slot; else the chain's header position + 1 (low half) and
    /// its leaf node (high half).
    slots: Vec<u64>,
    /// Chunks of [`CHUNK`] words; a chain never straddles two.
    arena: Vec<Vec<u64>>,
    len: usize,
    /// The short chains: per slot, in [`RECENT_STRIDE`] words, the last chain
    /// whose tag chose it: its header, its leaf and its words.
    recent: Vec<u64>,
}

/// Slots of the short chains (640 KB).
const RECENT: usize = 1 << 13;
/// The most words of a short chain.
const RECENT_WORDS: usize = 8;
const RECENT_STRIDE: usize = RECENT_WORDS + 2;

/// Words per arena chunk (512 KB; a record, and so a chain, is at most 64 KB).
const CHUNK: usize = 1 << 16;
/// The arena's limit in chunks (8 MB), and the table's in slots (1 MB; it holds
/// half as many chains).
const MAX_CHUNKS: usize = 16;
const MAX_SLOTS: usize = 1 << 17;

impl ChainCache {
    /// The chain's slot tag: FxHash-style mixing, fast, and chains are not chosen
    /// by an adversary who gains anything from collisions (they only cost a
    /// comparison); then folded so that the low bits, which the table keeps,
    /// depend on every word.
    #[allow(clippy::cast_possible_truncation)] // the low half is the point
    fn tag(words: &[u64]) -> u32 {
        let mut h = words.len() as u64;
        for &w in words {
            h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        slot_of(h) as u32
    }

    fn header(tag: u32, len: usize) -> u64 {
        u64::from(tag) << 32 | (len as u64 & 0xffff_ffff)
    }

    /// `len` words at arena position `at`.
    fn at(&self, at: usize, len: usize) -> Option<&[u64]> {
        let chunk = self.arena.get(at / CHUNK)?;
        let start = at % CHUNK;
        chunk.get(start..start.checked_add(len)?)
    }

    /// The chain's leaf, or the empty slot where it would go.
    fn find(&self, tag: u32, words: &[u64]) -> core::result::Result<u32, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let header = Self::header(tag, words.len());
        let mut i = tag as usize & mask;
        for _ in 0..self.slots.len() {
            let Some(&slot) = self.slots.get(i) else { break };
            if slot == 0 {
                return Err(i);
            }
            #[allow(clippy::cast_possible_truncation)] // the halves of the slot
            let (at, leaf) = ((slot as u32).wrapping_sub(1) as usize, (slot >> 32) as u32);
            if self.at(at, 1) == Some(&[header]) && self.at(at.saturating_add(1), words.len()) == Some(words) {
                return Ok(leaf);
            }
            i = i.wrapping_add(1) & mask;
        }
        Err(usize::MAX)
    }

    /// The leaf of the chain of this [`ChainCache::tag`].
    fn get(&self, tag: u32, words: &[u64]) -> Option<u32> {
        if Self::short(words) {
            return self.recent(tag, words);
        }
        if self.slots.is_empty() {
            return None;
        }
        self.find(tag, words).ok()
    }

    /// Whether a chain is kept in the short chains' slots (an empty one is not:
    /// its header would be an empty slot's).
    fn short(words: &[u64]) -> bool {
        (1..=RECENT_WORDS).contains(&words.len())
    }

    /// The words of a short chain's slot.
    fn recent_slot(tag: u32) -> core::ops::Range<usize> {
        let at = (tag as usize & (RECENT - 1)).saturating_mul(RECENT_STRIDE);
        at..at.saturating_add(RECENT_STRIDE)
    }

    /// The short chain's leaf, if it is the last of its slot.
    fn recent(&self, tag: u32, words: &[u64]) -> Option<u32> {
        let slot = self.recent.get(Self::recent_slot(tag))?;
        let (&[header, leaf], chain) = slot.split_first_chunk::<2>()?;
        #[allow(clippy::cast_possible_truncation)] // the leaf is kept in a word
        (header == Self::header(tag, words.len()) && chain.get(..words.len()) == Some(words)).then_some(leaf as u32)
    }

    /// Keeps a short chain as the last of its slot.
    fn remember(&mut self, tag: u32, words: &[u64], leaf: u32) {
        if self.recent.is_empty() {
            self.recent = alloc::vec![0; RECENT * RECENT_STRIDE];
        }
        if let Some(slot) = self.recent.get_mut(Self::recent_slot(tag)) {
            if let Some(([header, kept], chain)) = slot.split_first_chunk_mut::<2>() {
                *header = Self::header(tag, words.len());
                *kept = u64::from(leaf);
                if let Some(to) = chain.get_mut(..words.len()) {
                    to.copy_from_slice(words);
                }
            }
        }
    }

    /// Keeps `leaf` as the leaf of the chain of this [`ChainCache::tag`].
    fn insert(&mut self, tag: u32, words: &[u64], leaf: u32) {
        if Self::short(words) {
            return self.remember(tag, words, leaf);
        }
        let need = words.len().saturating_add(1);
        if need > CHUNK {
            return;
        }
        if self.len.saturating_mul(2) >= self.slots.len() {
            if self.slots.len() >= MAX_SLOTS {
                self.clear();
            } else {
                self.grow();
            }
        }
        if self.arena.last().is_none_or(|c| c.len().saturating_add(need) > CHUNK) {
            if self.arena.len() >= MAX_CHUNKS {
                self.clear();
            } else {
                self.arena.push(Vec::with_capacity(CHUNK));
            }
        }
        let full = self.arena.len().saturating_sub(1).saturating_mul(CHUNK);
        let at = full.saturating_add(self.arena.last().map_or(0, Vec::len));
        // Past 2^32 - 1 words of chains (a 32 GB recording), chains go uncached.
        let Some(position) = u32::try_from(at).ok().and_then(|at| at.checked_add(1)) else { return };
        if let Err(i) = self.find(tag, words) {
            if let (Some(slot), Some(chunk)) = (self.slots.get_mut(i), self.arena.last_mut()) {
                *slot = u64::from(leaf) << 32 | u64::from(position);
                chunk.push(Self::header(tag, words.len()));
                chunk.extend_from_slice(words);
                self.len = self.len.saturating_add(1);
            }
        }
    }

    /// Forgets every chain, keeping the table's size and the arena's first chunk.
    fn clear(&mut self) {
        self.slots.fill(0);
        self.arena.truncate(1);
        if let Some(chunk) = self.arena.first_mut() {
            chunk.clear();
        }
        self.len = 0;
    }

    /// Doubles the table, placing every chain again by the tag in its header.
    fn grow(&mut self) {
        let size = self.slots.len().saturating_mul(2).max(1024);
        let old = core::mem::take(&mut self.slots);
        self.slots = alloc::vec![0; size];
        let mask = size.wrapping_sub(1);
        for slot in old.into_iter().filter(|&s| s != 0) {
            #[allow(clippy::cast_possible_truncation)] // the halves of the slot and header
            let header = self.at((slot as u32).wrapping_sub(1) as usize, 1).and_then(<[u64]>::first);
            #[allow(clippy::cast_possible_truncation)]
            let tag = header.map_or(0, |h| (h >> 32) as u32);
            let mut i = tag as usize & mask;
            while self.slots.get(i).is_some_and(|&s| s != 0) {
                i = i.wrapping_add(1) & mask;
            }
            if let Some(place) = self.slots.get_mut(i) {
                *place = slot;
            }
        }
    }
}

/// A hash as a table index: its high half folded into the low one, which the
/// table's mask keeps. (A product's low bits depend only on its factors' low bits:
/// taken alone they cluster chains that differ in higher address bits, and the
/// probes ran hundreds of slots long.)
#[allow(clippy::cast_possible_truncation)]
fn slot_of(hash: u64) -> usize {
    let h = (hash ^ (hash >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (h ^ (h >> 32)) as usize
}

#[cfg(test)]
mod tests {
    #![allow(clippy::cast_possible_truncation)]
    use super::*;

    /// Maps one process's `[addr, addr + len)` to `name`.
    fn mmap(addr: u64, len: u64, name: &'static [u8]) -> RecordAt<'static> {
        use crate::formats::perf::record::{Mmap, MmapFile};
        let mmap = Mmap {
            pid: 7,
            tid: 7,
            addr,
            len,
            pgoff: 0,
            file: MmapFile::None,
            prot: Some(5),
            flags: Some(2),
            filename: name,
        };
        let misc = if name.starts_with(b"[kernel") { misc::KERNEL } else { misc::USER };
        record_at(10, misc, Record::Mmap(mmap))
    }

    /// A sample of process 7 at `ip`, with `callers` (innermost first) when given.
    fn sample(ip: u64, chain: Option<&'static [u8]>) -> RecordAt<'static> {
        let callchain = chain.map(|bytes| sample::U64s { bytes, endian: crate::read::Endian::Little });
        let misc = if ip >> 63 == 1 { misc::KERNEL } else { misc::USER };
        let s = Sample { pid: Some(7), tid: Some(7), ip: Some(ip), misc, callchain, ..Sample::default() };
        record_at(9, misc, Record::Sample(s))
    }

    fn record_at(kind: u32, misc: u16, record: Record<'static>) -> RecordAt<'static> {
        use crate::formats::perf::record::RecordHeader;
        use crate::formats::perf::sample::SampleId;
        RecordAt { offset: 0, header: RecordHeader { kind, misc, size: 0 }, sample_id: SampleId::default(), record }
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn an_address_is_named_by_the_map_that_held_it_when_sampled() {
        // A recording only for its event.
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
        let data = std::fs::read(alloc::format!("{root}bolt-perf/cprog/cprog.pipe.perf.data")).unwrap();
        let perf = PerfData::parse(&data).unwrap();
        let symbolizer = Symbolizer::new();
        let mut reader = StackReader::new(0);
        // 0x2800 in a.so, then in b.so mapped over a.so's middle; alone and called
        // from 0x1800 (still a.so's).
        const CHAIN: &[u8] = &[0x00, 0x28, 0, 0, 0, 0, 0, 0, 0x00, 0x18, 0, 0, 0, 0, 0, 0];
        // A kernel address before the kernel's map came, then after.
        const KERNEL: u64 = 0xffff_ffff_8100_0000;
        for record in [
            mmap(0x1000, 0x4000, b"/a.so"),
            sample(0x2800, None),
            sample(0x2800, Some(CHAIN)),
            sample(KERNEL, None),
            mmap(KERNEL, 0x10_0000, b"[kernel.kallsyms]_text"),
            sample(KERNEL, None),
            mmap(0x2000, 0x1000, b"/b.so"),
            sample(0x2800, None),
            sample(0x2800, Some(CHAIN)),
        ] {
            reader.record(&perf, &record, &symbolizer);
        }
        let stacks = reader.finish(&perf);
        let tree = stacks.profile.call_tree(&crate::model::stacks::Filter::default());
        let mut leaves: BTreeMap<&str, u64> = BTreeMap::new();
        for n in tree.nodes.iter().filter(|n| n.self_weight > 0) {
            let name = stacks.profile.frame_info(n.frame).map_or("?", |f| f.name.as_str());
            *leaves.entry(name).or_default() += n.self_weight;
        }
        let leaves: Vec<(&str, u64)> = leaves.into_iter().collect();
        assert_eq!(
            leaves,
            [
                ("0xffffffff81000000", 1),
                ("[kernel.kallsyms]+0xffffffff81000000", 1),
                ("a.so+0x1800", 2),
                ("b.so+0x800", 2)
            ],
            "a.so's before b.so was mapped, b.so's after; the kernel's likewise"
        );
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn an_event_added_after_the_first_sample_keeps_its_samples() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
        let data = std::fs::read(alloc::format!("{root}bolt-perf/cprog/cprog.pipe.perf.data")).unwrap();
        let mut perf = PerfData::parse(&data).unwrap();
        perf.events.truncate(1);
        let symbolizer = Symbolizer::new();
        let mut reader = StackReader::new(0);
        reader.record(&perf, &mmap(0x1000, 0x4000, b"/a.so"), &symbolizer);
        reader.record(&perf, &sample(0x1800, None), &symbolizer);
        // A second event comes (as a HEADER_ATTR adds it), then a sample of it.
        let mut added = perf.events[0].clone();
        added.name = "instructions".into();
        perf.events.push(added);
        let mut of_added = sample(0x2800, None);
        if let Record::Sample(s) = &mut of_added.record {
            s.event = 1;
        }
        reader.record(&perf, &of_added, &symbolizer);
        let stacks = reader.finish(&perf);
        let first = perf.events[0].name.clone();
        assert_eq!(stacks.profile.events(), [first, "instructions".into()]);
        assert_eq!(stacks.profile.sample_count(), 2);
        let filter = crate::model::stacks::Filter { event: 1, ..Default::default() };
        assert_eq!(stacks.profile.call_tree(&filter).total(), 1);
    }

    /// A chain of the table (longer than a short chain).
    fn chain(i: u64) -> [u64; RECENT_WORDS + 1] {
        core::array::from_fn(|w| i.wrapping_mul(0x9e37_79b9).wrapping_add(w as u64))
    }

    #[test]
    fn a_chain_is_found_by_its_words() {
        let mut cache = ChainCache::default();
        let words = chain(7);
        let tag = ChainCache::tag(&words);
        assert_eq!(cache.get(tag, &words), None);
        cache.insert(tag, &words, 41);
        assert_eq!(cache.get(tag, &words), Some(41));
        assert!(cache.recent.is_empty(), "a long chain is kept in the table");
        let other = chain(8);
        assert_eq!(cache.get(ChainCache::tag(&other), &other), None);
        // The same words under another tag (a forged collision's other half) miss.
        assert_eq!(cache.get(tag ^ 1, &words), None);
        assert_eq!(cache.get(tag, &words[..RECENT_WORDS]), None);
    }

    #[test]
    fn a_short_chain_is_the_last_of_its_slot() {
        let mut cache = ChainCache::default();
        let short = [0, 7, 0x40_1000];
        let tag = ChainCache::tag(&short);
        assert_eq!(cache.get(tag, &short), None);
        cache.insert(tag, &short, 41);
        assert_eq!(cache.get(tag, &short), Some(41));
        assert!(cache.slots.is_empty(), "a short chain is kept in its slot, not the table");
        // A prefix, a longer chain and the same words under another tag miss.
        assert_eq!(cache.get(tag, &short[..2]), None);
        assert_eq!(cache.get(tag, &[0, 7, 0x40_1000, 0]), None);
        assert_eq!(cache.get(tag ^ 1, &short), None);
        // Another chain whose tag picks the same slot takes it.
        let same_slot = tag ^ RECENT as u32;
        let other = [0, 7, 0x40_2000];
        cache.insert(same_slot, &other, 42);
        assert_eq!(cache.get(same_slot, &other), Some(42));
        assert_eq!(cache.get(tag, &short), None, "replaced");
        // The longest short chain, and an empty one (never kept: an empty slot's header).
        let longest = [9; RECENT_WORDS];
        cache.insert(ChainCache::tag(&longest), &longest, 43);
        assert_eq!(cache.get(ChainCache::tag(&longest), &longest), Some(43));
        assert_eq!(cache.get(0, &[]), None);
        cache.insert(0, &[], 44);
        assert_eq!(cache.get(0, &[]), Some(44), "in the table");
    }

    #[test]
    fn the_cache_starts_again_at_its_limit_and_stays_right() {
        let mut cache = ChainCache::default();
        let chains = MAX_SLOTS / 2 + 10;
        for i in 0..chains as u64 {
            let words = chain(i);
            let tag = ChainCache::tag(&words);
            cache.insert(tag, &words, i as u32);
        }
        assert_eq!(cache.slots.len(), MAX_SLOTS, "the table grew to its limit, not past it");
        assert!(cache.len < chains, "it was emptied once full");
        assert!(cache.arena.len() <= MAX_CHUNKS);
        // What is kept is right: the last chains, with their own leaves.
        for i in (chains as u64 - 5)..chains as u64 {
            let words = chain(i);
            assert_eq!(cache.get(ChainCache::tag(&words), &words), Some(i as u32));
        }
        let first = chain(0);
        assert_eq!(cache.get(ChainCache::tag(&first), &first), None, "forgotten");
    }

    #[test]
    fn the_arena_starts_again_at_its_limit() {
        let mut cache = ChainCache::default();
        // Chains of 1,000 words: the arena's chunks fill before the table.
        let long = |i: u64| -> Vec<u64> { (0..1000).map(|w| i << 16 | w).collect() };
        let fits = MAX_CHUNKS * (CHUNK / 1001);
        for i in 0..fits as u64 + 3 {
            let words = long(i);
            let tag = ChainCache::tag(&words);
            cache.insert(tag, &words, i as u32);
            assert!(cache.arena.len() <= MAX_CHUNKS);
        }
        assert_eq!(cache.len, 3, "emptied when the last chunk was full");
        let last = long(fits as u64 + 2);
        assert_eq!(cache.get(ChainCache::tag(&last), &last), Some(fits as u32 + 2));
    }
}
