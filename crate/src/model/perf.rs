//! perf.data → [`StackProfile`]: each sample's call chain (or its ip), resolved
//! through the process's maps as perf resolves it, and symbolized from the
//! binaries the user dropped.
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

use super::stacks::{FrameId, FrameKind, StackProfile};
use crate::error::Result;
use crate::formats::perf::machine::{Machine, MapKind};
use crate::formats::perf::record::misc;
use crate::formats::perf::sample::{self, Sample};
use crate::formats::perf::{PerfData, Record};
use crate::symbolize::unwind::{self, Unwinder};
use crate::symbolize::{self, Address, Symbolizer};

/// Builds the stack profile; `progress(done, total)` is called every few thousand records.
pub fn stack_profile<'s>(
    perf: &PerfData<'_>,
    symbolizer: &Symbolizer<'s>,
    mut progress: impl FnMut(usize, usize),
) -> Result<StackProfile> {
    let mut profile = StackProfile::new();
    profile.reserve_samples(perf.sample_count());
    let events: Vec<u32> = perf.events.iter().map(|e| profile.add_event(&e.name)).collect();
    let mut machine = Machine::new(perf);
    let mut resolver = Resolver { cache: BTreeMap::new(), arena: Vec::new(), unwinder: Unwinder::new() };
    let mut chains = ChainCache::default();
    let mut key: Vec<u64> = Vec::new();
    let total = perf.record_count();
    let mut done = 0usize;
    let mut stack: Vec<FrameId> = Vec::new();
    perf.for_each_in_time_order(|position| {
        if done % 8192 == 0 {
            progress(done, total);
        }
        done = done.saturating_add(1);
        let record = perf.record_at(position)?;
        machine.apply(&record);
        let Record::Sample(sample) = &record.record else { return Ok(()) };
        let Some(&event) = events.get(sample.event) else { return Ok(()) };
        // Most samples repeat a call chain seen before: find its leaf node by the raw
        // chain (and the address space it is resolved in), and resolve only new ones.
        // The sample's address space, looked up once for the key and the frames.
        let maps = machine.thread(sample.pid.map_or(-1, |p| p as i32)).map(|t| t.maps);
        key.clear();
        key.push(maps.map_or(u64::MAX, |m| m as u64));
        key.push(u64::from(sample.cpumode()));
        match sample.callchain {
            Some(chain) => key.extend(chain.iter()),
            None => key.push(sample.ip.unwrap_or(0)),
        }
        // A copied user stack (`--call-graph dwarf`) is unwound with the binaries'
        // call-frame information; the return addresses found extend the chain.
        let unwound = resolver.unwind_user_stack(&machine, symbolizer, sample, maps);
        if !unwound.is_empty() {
            key.push(UNWOUND);
            key.extend_from_slice(&unwound);
        }
        let leaf = match chains.get(&key) {
            Some(leaf) => leaf,
            None => {
                stack.clear();
                resolver.sample_frames(&mut profile, &machine, symbolizer, sample, maps, &mut stack);
                for &address in &unwound {
                    resolver.address_frames(&mut profile, &machine, symbolizer, maps, misc::USER, address, &mut stack);
                }
                stack.reverse();
                let Some(leaf) = profile.stack(&stack) else { return Ok(()) };
                chains.insert(&key, leaf);
                leaf
            }
        };
        profile.push_sample_at(event, sample.time.unwrap_or(0), 1, leaf);
        Ok(())
    })?;
    progress(total, total);
    Ok(profile)
}

/// Separates a chain from the addresses unwound from its stack copy in a cache key.
const UNWOUND: u64 = u64::MAX;

/// Frames per (address space, cpumode, address), computed once.
struct Resolver<'s> {
    cache: BTreeMap<(usize, u16, u64), (u32, u32)>,
    arena: Vec<FrameId>,
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
        frames.extend(self.unwinder.unwind(values, copied, |pc| {
            let r = machine.resolve_in(maps, misc::USER, pc)?;
            if r.map.kind != MapKind::File {
                return None;
            }
            let filename = String::from_utf8_lossy(r.filename);
            let binary = symbolizer.find(&filename, r.build_id)?;
            Some((binary, binary.vaddr_of_file_offset(r.dso_relative)?))
        }));
        frames
    }

    /// Appends the sample's frames, leaf first.
    fn sample_frames(
        &mut self,
        profile: &mut StackProfile,
        machine: &Machine,
        symbolizer: &Symbolizer<'_>,
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
                    self.address_frames(profile, machine, symbolizer, maps, cpumode, address, out);
                }
            }
            None => {
                if let Some(ip) = sample.ip {
                    self.address_frames(profile, machine, symbolizer, maps, cpumode, ip, out);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn address_frames(
        &mut self,
        profile: &mut StackProfile,
        machine: &Machine,
        symbolizer: &Symbolizer<'_>,
        maps: Option<usize>,
        cpumode: u16,
        address: u64,
        out: &mut Vec<FrameId>,
    ) {
        let kernel = matches!(cpumode, misc::KERNEL | misc::GUEST_KERNEL);
        let key = (if kernel { usize::MAX } else { maps.unwrap_or(usize::MAX - 1) }, cpumode, address);
        if let Some(&(start, len)) = self.cache.get(&key) {
            let range = start as usize..(start as usize).saturating_add(len as usize);
            out.extend_from_slice(self.arena.get(range).unwrap_or(&[]));
            return;
        }
        let start = self.arena.len();
        let resolved = machine.resolve_in(maps, cpumode, address);
        match resolved {
            Some(r) if r.map.kind == MapKind::Kernel || kernel => {
                let dso = "[kernel.kallsyms]";
                let name = match symbolizer.kallsyms().and_then(|k| k.symbol_for(address)) {
                    Some(symbol) => String::from(symbol.name),
                    None => symbolize::dso_offset_label(dso, address),
                };
                let id = profile.frame(&name, Some(dso), FrameKind::Kernel);
                self.arena.push(id);
            }
            Some(r) => {
                let filename = String::from_utf8_lossy(r.filename);
                let dso = symbolize::basename(&filename);
                let frames = match r.map.kind {
                    MapKind::File => symbolizer.resolve(&filename, r.build_id, Address::FileOffset(r.dso_relative)),
                    _ => None,
                };
                match frames {
                    Some(frames) if frames.is_empty() => {
                        let id = profile.frame("[unknown]", Some(dso), FrameKind::Unknown);
                        self.arena.push(id);
                    }
                    Some(frames) => {
                        for frame in &frames {
                            let kind = if frame.inlined { FrameKind::Inlined } else { FrameKind::User };
                            let known = profile.frames().len();
                            let id = profile.frame(&frame.function, Some(dso), kind);
                            // A new function: its raw name and source line, looked up once.
                            if !frame.inlined && profile.frames().len() > known {
                                let at = Address::FileOffset(r.dso_relative);
                                if let Some(o) = symbolizer.origin(&filename, r.build_id, at) {
                                    profile.describe(id, &o.raw, o.file.as_deref(), o.line);
                                }
                            }
                            self.arena.push(id);
                        }
                    }
                    None => {
                        let name = symbolize::dso_offset_label(&filename, r.dso_relative);
                        let id = profile.frame(&name, Some(dso), FrameKind::User);
                        self.arena.push(id);
                    }
                }
            }
            None => {
                let kind = if kernel { FrameKind::Kernel } else { FrameKind::Unknown };
                let id = profile.frame(&format!("{address:#x}"), None, kind);
                self.arena.push(id);
            }
        }
        let len = self.arena.len().saturating_sub(start);
        self.cache.insert(key, (u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(len).unwrap_or(0)));
        out.extend_from_slice(self.arena.get(start..).unwrap_or(&[]));
    }
}

/// Leaf nodes by raw call chain: an open-addressing table over chains kept in one arena.
#[derive(Default)]
struct ChainCache {
    /// (hash, arena start, length, leaf); length 0 marks an empty slot.
    slots: Vec<(u64, u32, u32, u32)>,
    arena: Vec<u64>,
    len: usize,
}

impl ChainCache {
    fn hash(words: &[u64]) -> u64 {
        // FxHash-style mixing: fast, and chains are not chosen by an adversary
        // who gains anything from collisions (they only cost a comparison).
        let mut h = words.len() as u64;
        for &w in words {
            h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        h
    }

    fn find(&self, hash: u64, words: &[u64]) -> core::result::Result<u32, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = slot_of(hash) & mask;
        for _ in 0..self.slots.len() {
            let Some(&(h, start, len, leaf)) = self.slots.get(i) else { break };
            if len == 0 {
                return Err(i);
            }
            if h == hash {
                let stored = self.arena.get(start as usize..(start as usize).saturating_add(len as usize));
                if stored == Some(words) {
                    return Ok(leaf);
                }
            }
            i = i.wrapping_add(1) & mask;
        }
        Err(usize::MAX)
    }

    fn get(&self, words: &[u64]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.find(Self::hash(words), words).ok()
    }

    fn insert(&mut self, words: &[u64], leaf: u32) {
        if self.len.saturating_mul(2) >= self.slots.len() {
            self.grow();
        }
        let (Ok(start), Ok(len)) = (u32::try_from(self.arena.len()), u32::try_from(words.len())) else { return };
        let hash = Self::hash(words);
        if let Err(i) = self.find(hash, words) {
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = (hash, start, len.max(1), leaf);
                self.arena.extend_from_slice(words);
                self.len = self.len.saturating_add(1);
            }
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len().saturating_mul(2).max(1024);
        let old = core::mem::replace(&mut self.slots, alloc::vec![(0, 0, 0, 0); size]);
        let mask = size.wrapping_sub(1);
        for entry in old.into_iter().filter(|e| e.2 != 0) {
            let mut i = slot_of(entry.0) & mask;
            while self.slots.get(i).is_some_and(|s| s.2 != 0) {
                i = i.wrapping_add(1) & mask;
            }
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = entry;
            }
        }
    }
}

/// The low bits of a hash, as a table index (truncation is the point).
#[allow(clippy::cast_possible_truncation)]
fn slot_of(hash: u64) -> usize {
    hash as usize
}
