//! The YAML profile perf2bolt writes for a BOLTed binary (`perf2bolt X.bolt -p
//! perf.data -w X.yaml`, BOLT 22 `DataAggregator::writeBATYAML`): not from a CFG
//! (perf2bolt does not disassemble the functions BAT covers) but from the aggregated
//! branches, in the input binary's terms, and the BAT tables.
//!
//! * **Functions**: those with aggregated branches (either end), in the byte order of
//!   their first name (perf2bolt's `NamesToBranches` map), each under its location
//!   name (`name/file/N` for a local). `hash` and `nblocks` are BAT's; `exec` is the
//!   sum of the branches from elsewhere (or recursive calls) to offset 0; `fid` is
//!   BOLT's function number (`function_numbers` below).
//! * **Blocks**: `nblocks` slots; the BAT block entries of the function and its cold
//!   fragments (by input offset, the first of an offset wins), in offset order, give
//!   the slots' `bid` and `hash` one after the other, while counts go to the slot at
//!   the block's index (as perf2bolt does; the two agree when the indices are the
//!   input layout). `insns` is 0.
//! * **Edges**: a function's branches sorted as perf2bolt sorts them (source offset,
//!   then target: unknown first, then by name and offset). A branch to a non-zero
//!   offset of the same function is a successor of the block holding its source (the
//!   last block entry at or below it) to the block holding its target; anything else
//!   is a call site at the source's distance from its block start, `fid` the callee's
//!   number (0 when unknown), `disc` its secondary entry point in BAT. A branch from
//!   elsewhere to a block start counts in that block's `exec`.
//! * Blocks with no count at all are dropped.
//!
//! Not done: functions BAT does not cover that have a profile (perf2bolt writes
//! them from their CFG as llvm-bolt does): [`to_yaml`] fails on them. Pseudo probes.
//! Branches to unknown code are one call site here (the profile keeps no address for
//! them), where perf2bolt has one per target address.

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use object::read::elf::{FileHeader, Sym};
use object::{elf, LittleEndian};

use super::{Location, Profile};
use crate::error::{Error, Result};
use crate::formats::bolt::bat::{self, Bat};
use crate::formats::bolt::yaml::{self, Block, CallSite, HashFunction, ProfileFlags, Successor};

/// `yaml::bolt::BinaryProfile` as `writeBATYAML` fills it, for `file_name` (the
/// binary's path as given to perf2bolt) and `elf` (its bytes, those `profile` was
/// aggregated against).
pub fn to_yaml(profile: &Profile<'_>, elf: &[u8], file_name: &[u8]) -> Result<yaml::Profile<'static>> {
    let bat = bat::from_elf(elf)?.ok_or(Error::malformed(0, "a binary with BAT (a .note.bolt_bat note)"))?;
    if bat.encoding != bat::Encoding::Current {
        return Err(Error::malformed(0, "BAT tables with block hashes (BOLT 22)"));
    }
    let binary = profile.binary;
    let tables = Tables::new(&bat);
    let numbers = function_numbers(profile, elf)?;

    let mut out = yaml::Profile {
        header: yaml::Header {
            version: 1,
            binary_name: Cow::Owned(file_name.to_vec()),
            build_id: Cow::Owned(match binary.build_id {
                Some(id) => hex(id).into_bytes(),
                None => b"<unknown>".to_vec(),
            }),
            flags: ProfileFlags(if profile.basic.is_some() { ProfileFlags::BASIC } else { ProfileFlags::BRANCH }),
            origin: Cow::Borrowed(b"perf data aggregator"),
            events: Cow::Owned(events(profile)),
            dfs_order: false,
            hash_function: HashFunction::Xxh3,
        },
        ..yaml::Profile::default()
    };
    if profile.basic.is_some() {
        return Ok(out);
    }

    // perf2bolt's NamesToBranches: every function at either end of a branch, by first name.
    let mut functions: Vec<usize> = profile
        .branches
        .keys()
        .flat_map(|(from, to)| [from.function, to.function])
        .flatten()
        .collect::<BTreeSet<usize>>()
        .into_iter()
        .collect();
    functions.sort_by(|&a, &b| name_of(profile, a).as_bytes().cmp(name_of(profile, b).as_bytes()));

    for f in functions {
        let Some(function) = binary.functions.get(f) else { continue };
        let Some(table) = tables.hot.get(&function.address) else {
            if binary.translation.as_ref().is_some_and(|t| t.is_bat_function(function.address)) {
                // A cold fragment's branches count in its hot function.
                continue;
            }
            return Err(Error::malformed(
                function.address,
                "a profiled function outside BAT (perf2bolt writes it from its CFG: not supported)",
            ));
        };
        convert(profile, f, table, &tables, &numbers, &mut out)?;
    }
    Ok(out)
}

/// The per-function BAT facts `writeBATYAML` reads.
struct Table {
    hash: u64,
    num_blocks: u64,
    /// `getBBHashMap`: input offset → (block index, block hash).
    blocks: BTreeMap<u32, (u64, u64)>,
    secondary_entry_points: Vec<u32>,
}

struct Tables {
    hot: BTreeMap<u64, Table>,
}

impl Tables {
    fn new(bat: &Bat) -> Tables {
        let mut hot = BTreeMap::new();
        for function in &bat.hot.functions {
            hot.entry(function.address.value).or_insert_with(|| Table {
                hash: function.hash.map_or(0, |h| h.value),
                num_blocks: function.num_blocks.map_or(0, |n| n.value),
                blocks: BTreeMap::new(),
                secondary_entry_points: function.secondary_entry_points.iter().map(|e| e.offset).collect(),
            });
        }
        for function in bat.functions() {
            let address = match bat.parent(function) {
                Some(parent) => parent.address.value,
                None if function.is_cold() => continue,
                None => function.address.value,
            };
            let Some(table) = hot.get_mut(&address) else { continue };
            for e in function.entries.iter().filter(|e| !e.is_branch()) {
                let Some(block) = e.block else { continue };
                let offset = ((e.input & 0xffff_ffff) >> 1) as u32;
                table.blocks.entry(offset).or_insert((block.index, block.hash));
            }
        }
        Tables { hot }
    }
}

impl Table {
    /// The block holding `offset`: its start and index (perf2bolt's `getBlock`).
    fn block(&self, offset: u64) -> Result<(u64, u64)> {
        let key = (offset & 0xffff_ffff) as u32;
        self.blocks
            .range(..=key)
            .next_back()
            .map(|(&start, &(index, _))| (u64::from(start), index))
            .ok_or(Error::malformed(offset, "invalid BAT section (an offset before the first block)"))
    }
}

/// One of a function's aggregated branches, as perf2bolt's `BranchInfo`.
struct Branch {
    from: u64,
    /// The target's location name and offset; None for an unknown target.
    to: Option<(usize, u64)>,
    count: u64,
    mispredicted: u64,
}

fn convert(
    profile: &Profile<'_>,
    f: usize,
    table: &Table,
    tables: &Tables,
    numbers: &Numbers,
    out: &mut yaml::Profile<'static>,
) -> Result<()> {
    let slots = usize::try_from(table.num_blocks).map_err(|_| Error::malformed(0, "a block count"))?;
    let mut blocks: Vec<Slot> = (0..slots).map(|_| Slot::default()).collect();
    for (slot, &(index, hash)) in blocks.iter_mut().zip(table.blocks.values()) {
        slot.index = index;
        slot.hash = hash;
    }

    let mut data: Vec<Branch> = Vec::new();
    let mut exec = 0u64;
    let mut entries: Vec<(u64, u64)> = Vec::new();
    for ((from, to), counts) in &profile.branches {
        if from.function == Some(f) {
            data.push(Branch {
                from: from.offset,
                to: to.function.map(|g| (g, to.offset)),
                count: counts.count,
                mispredicted: counts.mispredicted,
            });
        }
        if to.function == Some(f) && !intra(*from, *to) {
            entries.push((to.offset, counts.count));
            if to.offset == 0 {
                exec = exec.saturating_add(counts.count);
            }
        }
    }
    // `llvm::stable_sort` of BranchInfo: From, then To (unknown first, name, offset).
    data.sort_by(|a, b| {
        a.from.cmp(&b.from).then_with(|| match (a.to, b.to) {
            (None, None) => core::cmp::Ordering::Equal,
            (None, Some(_)) => core::cmp::Ordering::Less,
            (Some(_), None) => core::cmp::Ordering::Greater,
            (Some((g, x)), Some((h, y))) => {
                location_name(profile, g).as_bytes().cmp(location_name(profile, h).as_bytes()).then(x.cmp(&y))
            }
        })
    });

    let own = location_name(profile, f);
    for b in &data {
        let (start, index) = table.block(b.from)?;
        let slot = slot_at(&mut blocks, index)?;
        match b.to {
            Some((g, offset)) if offset != 0 && location_name(profile, g) == own => {
                let (_, target) = table.block(offset)?;
                slot.successors.push(Successor {
                    index: u32::try_from(target).unwrap_or(u32::MAX),
                    count: b.count,
                    mispredicts: b.mispredicted,
                });
            }
            to => {
                let (callee, entry_discriminator) = match to {
                    Some((g, offset)) => destination(profile, g, offset, tables, numbers),
                    None => (0, 0),
                };
                slot.calls.push(CallSite {
                    offset: u32::try_from(b.from.wrapping_sub(start) & 0xffff_ffff).unwrap_or(u32::MAX),
                    callee,
                    entry_discriminator,
                    count: b.count,
                    mispredicts: b.mispredicted,
                    ..CallSite::default()
                });
            }
        }
    }
    for (offset, count) in entries {
        let Ok(key) = u32::try_from(offset) else { continue };
        if let Some(&(index, _)) = table.blocks.get(&key) {
            let slot = slot_at(&mut blocks, index)?;
            slot.exec = slot.exec.saturating_add(count);
        }
    }

    let first_block = out.blocks.len();
    for slot in blocks {
        let counted =
            slot.exec != 0 || slot.successors.iter().any(|s| s.count != 0) || slot.calls.iter().any(|c| c.count != 0);
        if !counted {
            continue;
        }
        let calls = span(out.calls.len(), slot.calls.len());
        out.calls.extend(slot.calls);
        let successors = span(out.successors.len(), slot.successors.len());
        out.successors.extend(slot.successors);
        out.blocks.push(Block {
            index: u32::try_from(slot.index).unwrap_or(u32::MAX),
            hash: slot.hash,
            exec: slot.exec,
            calls,
            successors,
            ..Block::default()
        });
    }
    out.functions.push(yaml::Function {
        name: Cow::Owned(own.as_bytes().to_vec()),
        id: numbers.of(f),
        hash: table.hash,
        exec,
        block_count: u32::try_from(table.num_blocks).unwrap_or(u32::MAX),
        blocks: span(first_block, out.blocks.len().saturating_sub(first_block)),
        ..yaml::Function::default()
    });
    Ok(())
}

#[derive(Default)]
struct Slot {
    index: u64,
    hash: u64,
    exec: u64,
    calls: Vec<CallSite>,
    successors: Vec<Successor>,
}

fn slot_at(blocks: &mut [Slot], index: u64) -> Result<&mut Slot> {
    usize::try_from(index).ok().and_then(|i| blocks.get_mut(i)).ok_or(Error::invalid(
        0,
        "a block index below the function's block count",
        index,
    ))
}

fn span(start: usize, len: usize) -> yaml::Span {
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    yaml::Span { start: to_u32(start), len: to_u32(len) }
}

/// perf2bolt's intra-function branch (`doIntraBranch`): same function, not to its start.
fn intra(from: Location, to: Location) -> bool {
    from.function.is_some() && from.function == to.function && to.offset != 0
}

/// `setCSIDestination`: the callee's number and, in BAT, the secondary entry point
/// at the target offset.
fn destination(profile: &Profile<'_>, g: usize, offset: u64, tables: &Tables, numbers: &Numbers) -> (u32, u32) {
    let binary = profile.binary;
    let Some(callee) = binary.functions.get(g) else { return (0, 0) };
    let mut discriminator = 0;
    if let (Some(t), Some(table)) = (&binary.translation, tables.hot.get(&callee.address)) {
        let input = t.translate(callee.address, 0, false).wrapping_add(offset) & 0xffff_ffff;
        if input != 0 {
            if let Some(at) = table.secondary_entry_points.iter().position(|&e| u64::from(e) == input) {
                discriminator = u32::try_from(at.saturating_add(1)).unwrap_or(u32::MAX);
            }
        }
    }
    (numbers.of(g), discriminator)
}

fn name_of<'p>(profile: &'p Profile<'_>, f: usize) -> &'p str {
    profile.binary.functions.get(f).map_or("", |f| f.name.as_str())
}

/// perf2bolt's `getLocationName` with BAT: the `name/file/N` name of a local.
fn location_name<'p>(profile: &'p Profile<'_>, f: usize) -> &'p str {
    profile.binary.functions.get(f).map_or("", |f| f.file_name.as_deref().unwrap_or(f.name.as_str()))
}

/// The header's `profile-events`: perf2bolt's event names, comma-separated (none
/// are recorded in branch mode).
fn events(profile: &Profile<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, e) in profile.basic.iter().flat_map(|b| b.events.iter()).enumerate() {
        if i != 0 {
            out.push(b',');
        }
        out.extend_from_slice(e.trim_end_matches(':').as_bytes());
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for &b in bytes {
        out.push(char::from(DIGITS.get(usize::from(b >> 4)).copied().unwrap_or(b'0')));
        out.push(char::from(DIGITS.get(usize::from(b & 15)).copied().unwrap_or(b'0')));
    }
    out
}

/// BOLT's function numbers (`BinaryFunction::getFunctionNumber`, counted from 1 in
/// creation order): the symbol functions in address order, then the PLT entries.
/// A BOLTed binary's `__hot_start` / `__hot_end` symbols take a number each before
/// them (observed: with BAT the numbers of perf2bolt 22 run two above the symbol
/// order; these are the two symbols only BOLTed binaries have).
struct Numbers {
    by_function: Vec<u32>,
}

impl Numbers {
    fn of(&self, f: usize) -> u32 {
        self.by_function.get(f).copied().unwrap_or(0)
    }
}

fn function_numbers(profile: &Profile<'_>, elf: &[u8]) -> Result<Numbers> {
    let functions = &profile.binary.functions;
    let extra = hot_markers(elf)?;
    let mut order: Vec<usize> = (0..functions.len()).collect();
    order.sort_by_key(|&i| functions.get(i).map(|f| (f.plt, f.address)));
    let mut by_function = alloc::vec![0u32; functions.len()];
    let mut next = 1u32.saturating_add(extra);
    for i in order {
        if let Some(n) = by_function.get_mut(i) {
            *n = next;
            next = next.saturating_add(1);
        }
    }
    Ok(Numbers { by_function })
}

/// How many `__hot_start` / `__hot_end` symbols `.symtab` has.
fn hot_markers(data: &[u8]) -> Result<u32> {
    let bad = |_| Error::malformed(0, "an ELF64 little-endian symbol table");
    let header = elf::FileHeader64::<LittleEndian>::parse(data).map_err(bad)?;
    let endian = header.endian().map_err(bad)?;
    let sections = header.sections(endian, data).map_err(bad)?;
    let symbols = sections.symbols(endian, data, elf::SHT_SYMTAB).map_err(bad)?;
    let mut n = 0u32;
    for symbol in symbols.iter() {
        let name = symbol.name(endian, symbols.strings()).unwrap_or_default();
        if name == b"__hot_start" || name == b"__hot_end" {
            n = n.saturating_add(1);
        }
    }
    Ok(n)
}
