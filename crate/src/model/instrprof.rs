//! Views of a decoded instrumentation profile ([`instrprof::model::Profile`]).
//!
//! Row ids of the function table are indices into `Profile::functions`.

use alloc::vec::Vec;

use super::demangle::demangle;
use super::detail::{FunctionDetail, Site, Target, TracePosition};
use super::functions::{FunctionTable, Stats, FLAG_CONTEXT_SENSITIVE};
use crate::formats::instrprof::md5::name_ref;
use crate::formats::instrprof::model::{Profile, IPVK_INDIRECT_CALL_TARGET, IPVK_VTABLE_TARGET};
use crate::summary::{Summary, SummaryBuilder};

/// One row per record, in the profile's (name, hash) order.
pub fn function_table(profile: &Profile) -> FunctionTable {
    let mut table = FunctionTable::new();
    for f in &profile.functions {
        let flags = if f.is_context_sensitive() { FLAG_CONTEXT_SENSITIVE } else { 0 };
        table.push(&f.name, Stats::of_counters(Some(f.hash), &f.counters), flags);
    }
    table
}

/// Records LLVM marks as pseudo counts (`getCountPseudoKind`): the first counter
/// is `-1` (warm) or `-2` (hot) and the rest mean nothing.
fn is_pseudo(counters: &[u64]) -> bool {
    matches!(counters.first(), Some(&c) if c >= u64::MAX - 1)
}

/// The summary `llvm-profdata show --detailed-summary` prints: over the records
/// that are not context-sensitive, or with `context_sensitive` (`--showcs`) over
/// those that are. Front-end profiles have no context-sensitive records.
pub fn summary(profile: &Profile, context_sensitive: bool) -> Summary {
    let mut builder = SummaryBuilder::new();
    for f in &profile.functions {
        if profile.is_ir() && f.is_context_sensitive() != context_sensitive {
            continue;
        }
        if !profile.is_ir() && context_sensitive {
            continue;
        }
        if f.counters.is_empty() || is_pseudo(&f.counters) {
            continue;
        }
        builder.add_counters(&f.counters);
    }
    builder.finish()
}

/// MD5 name hash → name, over the function names (and their canonical forms)
/// and the vtable names; the first name with a hash wins, as in
/// `Profile::symtab`. Built once per profile, looked up by binary search.
pub struct Names {
    /// (hash, name source): `Ok(i)` a function, `Err(i)` a vtable name.
    sorted: Vec<(u64, Result<u32, u32>)>,
}

impl Names {
    pub fn new(profile: &Profile) -> Names {
        let mut sorted = Vec::new();
        for (i, f) in profile.functions.iter().enumerate() {
            let Ok(i) = u32::try_from(i) else { break };
            sorted.push((f.name_ref, Ok(i)));
            if f.canonical_ref != 0 {
                sorted.push((f.canonical_ref, Ok(i)));
            }
        }
        for (i, name) in profile.vtable_names.iter().enumerate() {
            let Ok(i) = u32::try_from(i) else { break };
            sorted.push((name_ref(name), Err(i)));
        }
        // Stable: the first entry of each hash stays first.
        sorted.sort_by_key(|&(h, _)| h);
        sorted.dedup_by_key(|&mut (h, _)| h);
        Names { sorted }
    }

    pub fn get<'p>(&self, profile: &'p Profile, hash: u64) -> Option<&'p [u8]> {
        let at = self.sorted.binary_search_by_key(&hash, |&(h, _)| h).ok()?;
        match self.sorted.get(at)?.1 {
            Ok(f) => profile.functions.get(f as usize).map(|f| f.name.as_slice()),
            Err(v) => profile.vtable_names.get(v as usize).map(Vec::as_slice),
        }
    }
}

/// The detail of record `id` (its row id in [`function_table`]).
pub fn function_detail(profile: &Profile, names: &Names, id: u32) -> Option<FunctionDetail> {
    let f = profile.functions.get(usize::try_from(id).ok()?)?;
    let mut sites = Vec::new();
    for (kind, kind_sites) in f.sites.iter().enumerate() {
        for (index, site) in kind_sites.iter().enumerate() {
            let named = kind == IPVK_INDIRECT_CALL_TARGET || kind == IPVK_VTABLE_TARGET;
            let targets = site
                .iter()
                .map(|v| Target {
                    value: v.value,
                    name: if named { names.get(profile, v.value).map(<[u8]>::to_vec) } else { None },
                    count: v.count,
                })
                .collect();
            sites.push(Site { kind, index, targets });
        }
    }
    let me = f.name_ref;
    let mut traces = Vec::new();
    for (trace, t) in profile.traces.iter().enumerate() {
        for (position, &h) in t.functions.iter().enumerate() {
            if h == me {
                traces.push(TracePosition { trace, weight: t.weight, position, length: t.functions.len() });
            }
        }
    }
    Some(FunctionDetail {
        name: f.name.clone(),
        demangled: demangle(&f.name),
        hash: Some(f.hash),
        counters: f.counters.clone(),
        bitmap: f.bitmap.clone(),
        sites,
        traces,
    })
}
