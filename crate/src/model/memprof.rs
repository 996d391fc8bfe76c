//! The MemProf view: one row per allocation site with its call stack and the
//! runtime's metrics, from the MemProf section of an indexed profile or from a raw
//! MemProf file ([`memprof_model`](crate::formats::instrprof::memprof_model)).
//!
//! Indexed sites are listed as `llvm-profdata show --memory` lists them: per
//! function record, its allocation sites (a context whose leaf is inlined appears
//! under every function of the inline chain). Their frames are symbolized (GUIDs,
//! named where the profile's function records carry the name). Raw sites are the
//! MemInfoBlocks of every profile in the file; their frames are return addresses,
//! placed in the mapped segment (and so the build id) holding them, not symbolized.
//!
//! Sorting works on an index array, as the function table does.

use alloc::vec::Vec;

use super::instrprof::Names;
use crate::formats::instrprof::memprof_model::{IndexedMemProf, MemInfoBlock, Meta, RawProfile, Segment};
use crate::formats::instrprof::model::Profile;

/// A sortable column: a metric, an average of two, or the stack depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    AllocCount,
    TotalSize,
    /// TotalSize / AllocCount.
    AvgSize,
    MinSize,
    MaxSize,
    TotalLifetime,
    /// TotalLifetime / AllocCount.
    AvgLifetime,
    MinLifetime,
    MaxLifetime,
    TotalAccessCount,
    TotalAccessDensity,
    TotalLifetimeAccessDensity,
    /// Frames in the call stack.
    Depth,
}

impl Column {
    pub const ALL: [Column; 13] = [
        Column::AllocCount,
        Column::TotalSize,
        Column::AvgSize,
        Column::MinSize,
        Column::MaxSize,
        Column::TotalLifetime,
        Column::AvgLifetime,
        Column::MinLifetime,
        Column::MaxLifetime,
        Column::TotalAccessCount,
        Column::TotalAccessDensity,
        Column::TotalLifetimeAccessDensity,
        Column::Depth,
    ];

    /// The id the page uses: the MemProf field name, or `AvgSize`, `AvgLifetime`, `Depth`.
    pub fn id(self) -> &'static str {
        match self {
            Column::AllocCount => "AllocCount",
            Column::TotalSize => "TotalSize",
            Column::AvgSize => "AvgSize",
            Column::MinSize => "MinSize",
            Column::MaxSize => "MaxSize",
            Column::TotalLifetime => "TotalLifetime",
            Column::AvgLifetime => "AvgLifetime",
            Column::MinLifetime => "MinLifetime",
            Column::MaxLifetime => "MaxLifetime",
            Column::TotalAccessCount => "TotalAccessCount",
            Column::TotalAccessDensity => "TotalAccessDensity",
            Column::TotalLifetimeAccessDensity => "TotalLifetimeAccessDensity",
            Column::Depth => "Depth",
        }
    }

    pub fn from_id(id: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.id() == id)
    }

    /// The MemProf field this column reads, for the stored ones.
    fn meta(self) -> Option<Meta> {
        let index = match self {
            Column::AllocCount => 1,
            Column::TotalAccessCount => 2,
            Column::TotalSize => 5,
            Column::MinSize => 6,
            Column::MaxSize => 7,
            Column::TotalLifetime => 10,
            Column::MinLifetime => 11,
            Column::MaxLifetime => 12,
            Column::TotalAccessDensity => 20,
            Column::TotalLifetimeAccessDensity => 23,
            Column::AvgSize | Column::AvgLifetime | Column::Depth => return None,
        };
        Some(Meta(index))
    }
}

/// One frame of a call stack, leaf first: symbolized (indexed) or an address (raw).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The function's GUID (indexed profiles).
    pub function: Option<u64>,
    /// The return address (raw profiles).
    pub address: Option<u64>,
    /// The mapped segment holding `address`: an index into [`Sites::segments`].
    pub segment: Option<u32>,
    pub line_offset: u32,
    pub column: u32,
    pub is_inline: bool,
}

/// One allocation site.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// The GUID of the function record listing it (indexed profiles).
    pub function: Option<u64>,
    /// The raw profile it came from, for files holding several.
    pub profile: u32,
    pub frames: Vec<Frame>,
    pub info: MemInfoBlock,
}

impl Site {
    /// The value of `column`; `None` where the profile's schema lacks the field
    /// (or the average's count is zero).
    pub fn metric(&self, column: Column) -> Option<u64> {
        let count = || self.info.get(Meta::ALLOC_COUNT).filter(|&c| c != 0);
        match column {
            Column::AvgSize => self.info.get(Meta::TOTAL_SIZE)?.checked_div(count()?),
            Column::AvgLifetime => self.info.get(Meta::TOTAL_LIFETIME)?.checked_div(count()?),
            Column::Depth => Some(self.frames.len() as u64),
            stored => self.info.get(stored.meta()?),
        }
    }
}

/// Every allocation site of a profile, and what their frames refer to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sites {
    pub sites: Vec<Site>,
    /// Raw profiles' mapped segments, of every profile in the file in order.
    pub segments: Vec<Segment>,
    /// GUID → name, sorted by GUID, for the GUIDs the profile's function records name.
    names: Vec<(u64, Vec<u8>)>,
    /// Whether the sites come from a raw profile (frames are addresses).
    pub raw: bool,
}

impl Sites {
    /// The sites of an indexed profile's MemProf section, named through its
    /// function records; `None` when it has no MemProf section.
    pub fn indexed(profile: &Profile) -> Option<Sites> {
        let memprof: &IndexedMemProf = profile.memprof.as_ref()?;
        let mut sites = Vec::new();
        let mut guids = Vec::new();
        for record in &memprof.records {
            guids.push(record.guid);
            for alloc in &record.alloc_sites {
                let frames = alloc
                    .call_stack
                    .iter()
                    .map(|f| {
                        guids.push(f.function);
                        Frame {
                            function: Some(f.function),
                            line_offset: f.line_offset,
                            column: f.column,
                            is_inline: f.is_inline,
                            ..Frame::default()
                        }
                    })
                    .collect();
                sites.push(Site { function: Some(record.guid), profile: 0, frames, info: alloc.info.clone() });
            }
        }
        guids.sort_unstable();
        guids.dedup();
        let lookup = Names::new(profile);
        let names = guids.into_iter().filter_map(|g| Some((g, lookup.get(profile, g)?.to_vec()))).collect();
        Some(Sites { sites, segments: Vec::new(), names, raw: false })
    }

    /// The sites of a raw MemProf file: every MemInfoBlock of every profile, its
    /// stack's addresses placed in the profile's segments.
    pub fn raw(profiles: &[RawProfile]) -> Sites {
        let mut out = Sites { raw: true, ..Sites::default() };
        for (p, profile) in profiles.iter().enumerate() {
            let first_segment = out.segments.len();
            out.segments.extend(profile.segments.iter().cloned());
            for mib in &profile.mibs {
                let pcs = profile.stack(mib.stack_id).map(|s| s.pcs.as_slice()).unwrap_or_default();
                let frames = pcs
                    .iter()
                    .map(|&pc| {
                        let segment = profile
                            .segments
                            .iter()
                            .position(|s| s.start <= pc && pc < s.end)
                            .and_then(|i| u32::try_from(first_segment.saturating_add(i)).ok());
                        Frame { address: Some(pc), segment, ..Frame::default() }
                    })
                    .collect();
                out.sites.push(Site {
                    function: None,
                    profile: u32::try_from(p).unwrap_or(u32::MAX),
                    frames,
                    info: mib.info.clone(),
                });
            }
        }
        out
    }

    pub fn len(&self) -> usize {
        self.sites.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    pub fn site(&self, id: u32) -> Option<&Site> {
        self.sites.get(usize::try_from(id).ok()?)
    }

    /// The name of a GUID, when the profile's function records have it.
    pub fn name(&self, guid: u64) -> Option<&[u8]> {
        let at = self.names.binary_search_by_key(&guid, |(g, _)| *g).ok()?;
        self.names.get(at).map(|(_, n)| n.as_slice())
    }

    /// The fields present in any site, in schema order: the columns worth showing.
    pub fn columns(&self) -> Vec<Column> {
        Column::ALL.into_iter().filter(|&c| self.sites.iter().any(|s| s.metric(c).is_some())).collect()
    }

    /// Every site id, ordered by `column` (ties by id, ascending either way);
    /// sites without the value sort below every value.
    pub fn sorted(&self, column: Column, descending: bool) -> Vec<u32> {
        let ids = 0..u32::try_from(self.sites.len()).unwrap_or(u32::MAX);
        let mut keyed: Vec<(u64, u32)> = self
            .sites
            .iter()
            .zip(ids)
            .map(|(site, id)| {
                let key = site.metric(column).map_or(0, |k| k.saturating_add(1));
                (if descending { !key } else { key }, id)
            })
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, id)| id).collect()
    }
}

/// A segment's build id in lower-case hex.
pub fn build_id_hex(segment: &Segment) -> alloc::string::String {
    crate::read::hex_string(&segment.build_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::instrprof::memprof_model::{RawMib, RawStack};
    use alloc::vec;

    fn mib(fields: &[(u64, u64)]) -> MemInfoBlock {
        MemInfoBlock { fields: fields.iter().map(|&(m, v)| (Meta(m), v)).collect(), histogram: Vec::new() }
    }

    #[test]
    fn raw_sites_place_addresses_in_segments_and_sort_by_any_metric() {
        let profile = RawProfile {
            version: 4,
            segments: vec![Segment { start: 0x1000, end: 0x2000, offset: 0x800, build_id: vec![0xab, 0x01] }],
            mibs: vec![
                RawMib { stack_id: 7, info: mib(&[(1, 4), (5, 64), (10, 8)]) },
                RawMib { stack_id: 9, info: mib(&[(1, 0), (5, 128)]) },
            ],
            stacks: vec![RawStack { id: 7, pcs: vec![0x1010, 0x3000] }],
        };
        let sites = Sites::raw(&[profile]);
        assert_eq!(sites.len(), 2);
        let s = sites.site(0).unwrap();
        assert_eq!(s.frames[0], Frame { address: Some(0x1010), segment: Some(0), ..Frame::default() });
        assert_eq!(s.frames[1].segment, None);
        assert_eq!(s.metric(Column::AvgSize), Some(16));
        assert_eq!(s.metric(Column::AvgLifetime), Some(2));
        assert_eq!(sites.site(1).unwrap().metric(Column::AvgSize), None, "no allocations: no average");
        assert_eq!(sites.site(1).unwrap().frames, [], "a stack id with no stack");
        assert_eq!(sites.sorted(Column::TotalSize, true), [1, 0]);
        assert_eq!(sites.sorted(Column::TotalLifetime, true), [0, 1]);
        assert_eq!(sites.sorted(Column::TotalLifetime, false), [1, 0]);
        assert_eq!(
            sites.columns(),
            [
                Column::AllocCount,
                Column::TotalSize,
                Column::AvgSize,
                Column::TotalLifetime,
                Column::AvgLifetime,
                Column::Depth
            ]
        );
        assert_eq!(build_id_hex(&sites.segments[0]), "ab01");
        assert_eq!(Column::from_id("TotalSize"), Some(Column::TotalSize));
    }

    #[test]
    #[allow(clippy::panic)] // a missing corpus file fails the test, naming it
    fn indexed_corpus_sites_match_llvm_profdata_show_memory() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/llvm/memprof-progA");
        let data = std::fs::read(root.join("memprof-progA.profdata")).unwrap_or_else(|e| panic!("{root:?}: {e}"));
        let yaml = std::fs::read_to_string(root.join("memprof-progA.profdata.memory.yaml"))
            .unwrap_or_else(|e| panic!("{root:?}: {e}"));
        let profile = crate::formats::instrprof::decode(&data, None).unwrap();
        let sites = Sites::indexed(&profile).unwrap();
        assert_eq!(sites.len(), yaml.matches("- Callstack:").count());
        let sizes: Vec<u64> = yaml
            .lines()
            .filter_map(|l| l.trim().strip_prefix("TotalSize:"))
            .map(|v| v.trim().parse().unwrap())
            .collect();
        let ours: Vec<u64> = sites.sites.iter().map(|s| s.metric(Column::TotalSize).unwrap()).collect();
        assert_eq!(ours, sizes);
        let largest = sites.sorted(Column::TotalSize, true)[0];
        assert_eq!(sites.site(largest).unwrap().metric(Column::TotalSize), sizes.iter().copied().max());
    }
}
