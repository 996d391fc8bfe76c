//! `merge-fdata` for fdata inputs (its "legacy" merge): records with the same
//! locations are summed; every input must agree on `boltedcollection` and `no_lbr`.
//!
//! merge-fdata treats a line as an opaque key and its last one or two fields as
//! counts; here the key is the decoded locations, so the same record spelled with
//! two spaces or a leading zero merges too (merge-fdata would keep both, or drop
//! the line with a warning). The output, like merge-fdata's, has a bare `no_lbr`
//! line: merge-fdata does not carry the event names over. Records come out in the
//! order they were first seen (merge-fdata's order is its hash table's).

use alloc::vec::Vec;
use core::fmt;

use hashbrown::HashMap;

use super::{Branch, Fdata, Location, MemoryAccess, Sample};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// Input `input` has `header` (`boltedcollection` or `no_lbr`) and the first did
    /// not, or the other way round.
    MixedModes { input: usize, header: &'static str },
    /// merge-fdata reads counts as unsigned: a negative one at `line` of input `input`.
    NegativeCount { input: usize, line: u64 },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::MixedModes { input, header } => {
                write!(f, "input {}: cannot mix profile with and without {header}", input.saturating_add(1))
            }
            MergeError::NegativeCount { input, line } => {
                write!(f, "input {}, line {line}: malformed / corrupted count (negative)", input.saturating_add(1))
            }
        }
    }
}

/// Sums `inputs` into one profile.
pub fn merge<'a>(inputs: &[Fdata<'a>]) -> Result<Fdata<'a>, MergeError> {
    let Some(first) = inputs.first() else { return Ok(Fdata::default()) };
    let mut merged = Fdata {
        bolted_collection: first.bolted_collection,
        no_lbr: first.no_lbr.as_ref().map(|_| Vec::new()),
        ..Fdata::default()
    };
    let mut branches: HashMap<(&Location<'a>, &Location<'a>), usize> = HashMap::new();
    let mut samples: HashMap<&Location<'a>, usize> = HashMap::new();
    let mut memory: HashMap<(&Location<'a>, &Location<'a>), usize> = HashMap::new();
    for (input, fdata) in inputs.iter().enumerate() {
        if fdata.bolted_collection != first.bolted_collection {
            return Err(MergeError::MixedModes { input, header: "boltedcollection" });
        }
        if fdata.no_lbr.is_some() != first.no_lbr.is_some() {
            return Err(MergeError::MixedModes { input, header: "no_lbr" });
        }
        let negative = |line| MergeError::NegativeCount { input, line };
        for b in &fdata.branches {
            if b.count < 0 || b.mispredicted < 0 {
                return Err(negative(b.line));
            }
            let at = *branches.entry((&b.from, &b.to)).or_insert_with(|| {
                merged.branches.push(Branch { mispredicted: 0, count: 0, line: 0, ..b.clone() });
                merged.branches.len().saturating_sub(1)
            });
            if let Some(m) = merged.branches.get_mut(at) {
                m.count = m.count.saturating_add(b.count);
                m.mispredicted = m.mispredicted.saturating_add(b.mispredicted);
            }
        }
        for s in &fdata.samples {
            if s.count < 0 {
                return Err(negative(s.line));
            }
            let at = *samples.entry(&s.at).or_insert_with(|| {
                merged.samples.push(Sample { count: 0, line: 0, ..s.clone() });
                merged.samples.len().saturating_sub(1)
            });
            if let Some(m) = merged.samples.get_mut(at) {
                m.count = m.count.saturating_add(s.count);
            }
        }
        for a in &fdata.memory {
            if a.count < 0 {
                return Err(negative(a.line));
            }
            let at = *memory.entry((&a.pc, &a.address)).or_insert_with(|| {
                merged.memory.push(MemoryAccess { count: 0, line: 0, ..a.clone() });
                merged.memory.len().saturating_sub(1)
            });
            if let Some(m) = merged.memory.get_mut(at) {
                m.count = m.count.saturating_add(a.count);
            }
        }
    }
    Ok(merged)
}
