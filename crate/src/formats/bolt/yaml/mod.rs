//! BOLT YAML profiles (`llvm-bolt -w`, `perf2bolt -w`, `merge-fdata` of YAML), as
//! LLVM 22 maps them (`bolt/Profile/ProfileYAMLMapping.h`): a `header`, the
//! `functions` with their blocks, successors, call sites and pseudo-probes, and
//! the `pseudo_probe_desc` the inline trees index into.
//!
//! The model keeps every value LLVM's YAML I/O keeps, defaults included, so
//! [`write`] gives back what LLVM wrote byte for byte. Blocks, call sites,
//! successors and probes of all functions live in flat arrays (a 100 MB profile is
//! millions of them); a function or block holds [`Span`]s into them.
//!
//! ```text
//! functions[i].blocks ──► blocks[s..s+n] ──► calls / successors / probes[..]
//! ```

mod decode;
mod merge;
mod reader;
mod std_order;
mod stream;
mod write;

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::format::{Detection, Format};
use crate::read::head_lines;

pub use decode::decode;
pub use merge::{merge, MergeError};
pub use stream::{YamlStream, PIECE};
pub use write::{write, WrapColumn, MERGE_FDATA_WRAP};

/// A run of a flat array: `start..start + len`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub fn range(self) -> core::ops::Range<usize> {
        let start = self.start as usize;
        start..start.saturating_add(self.len as usize)
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The span of what was pushed to a vector since it had `start` elements; an
    /// empty one is {0, 0}, as if nothing were given (so that a profile decoded in
    /// pieces, see [`YamlStream`], has the same spans as one decoded whole).
    fn since<T>(start: usize, v: &[T]) -> Span {
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let len = to_u32(v.len().saturating_sub(start));
        Span { start: if len == 0 { 0 } else { to_u32(start) }, len }
    }
}

/// `profile-flags`: what the counts are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProfileFlags(pub u16);

impl ProfileFlags {
    /// `lbr`: branch (LBR or instrumentation) counts.
    pub const BRANCH: u16 = 1;
    /// `sample`: basic samples (no LBR).
    pub const BASIC: u16 = 2;
    /// `memevent`: memory events.
    pub const MEMEVENT: u16 = 4;
    /// The names in the order LLVM writes them.
    pub const NAMES: [(u16, &'static str); 3] =
        [(Self::BRANCH, "lbr"), (Self::BASIC, "sample"), (Self::MEMEVENT, "memevent")];

    pub fn has(self, flag: u16) -> bool {
        self.0 & flag != 0
    }
}

/// `hash-func`: how function and block hashes were computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HashFunction {
    /// `std-hash` (the default when the key is absent).
    #[default]
    StdHash,
    /// `xxh3`.
    Xxh3,
}

impl HashFunction {
    pub fn name(self) -> &'static str {
        match self {
            HashFunction::StdHash => "std-hash",
            HashFunction::Xxh3 => "xxh3",
        }
    }
}

/// `header`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// `profile-version`: BOLT reads only 1.
    pub version: u32,
    /// `binary-name`.
    pub binary_name: Cow<'a, [u8]>,
    /// `binary-build-id` (empty when absent).
    pub build_id: Cow<'a, [u8]>,
    pub flags: ProfileFlags,
    /// `profile-origin`: what wrote it ("perf data aggregator", "branch profile reader", ...).
    pub origin: Cow<'a, [u8]>,
    /// `profile-events`.
    pub events: Cow<'a, [u8]>,
    /// `dfs-order`: block ids number blocks in DFS order, not layout order.
    pub dfs_order: bool,
    pub hash_function: HashFunction,
}

impl Default for Header<'_> {
    fn default() -> Self {
        Header {
            version: 1,
            binary_name: Cow::Borrowed(b""),
            build_id: Cow::Borrowed(b""),
            flags: ProfileFlags::default(),
            origin: Cow::Borrowed(b""),
            events: Cow::Borrowed(b""),
            dfs_order: true,
            hash_function: HashFunction::StdHash,
        }
    }
}

/// One function (`BinaryFunctionProfile`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function<'a> {
    pub name: Cow<'a, [u8]>,
    /// `fid`: the id call sites name their callee by.
    pub id: u32,
    pub hash: u64,
    pub exec: u64,
    /// `extern`: entries from outside the profiled code.
    pub extern_entries: u64,
    /// `nblocks`: blocks of the function, profiled or not.
    pub block_count: u32,
    /// Into [`Profile::blocks`]: the profiled blocks.
    pub blocks: Span,
    /// Into [`Profile::inline_tree`].
    pub inline_tree: Span,
    /// 1-based line of the function's `name`.
    pub line: u64,
}

/// One profiled basic block (`BinaryBasicBlockProfile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// `bid`: the block's index in the function (layout or DFS order, see the header).
    pub index: u32,
    /// `insns`.
    pub instructions: u32,
    pub hash: u64,
    pub exec: u64,
    /// Into [`Profile::calls`].
    pub calls: Span,
    /// Into [`Profile::successors`].
    pub successors: Span,
}

/// What few blocks have: memory events and pseudo-probes. Kept beside the blocks
/// ([`Profile::block_extras`]), not in each, which makes every block 16 bytes
/// smaller (a 100 MB YAML holds 600k blocks, none of them with either key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockExtra {
    /// The block's index in [`Profile::blocks`].
    pub block: u32,
    /// `events`: memory events.
    pub events: u64,
    /// `probes`: into [`Profile::probes`].
    pub probes: Span,
}

impl BlockExtra {
    /// Neither events nor probes: a block that needs no entry.
    pub fn is_empty(&self) -> bool {
        self.events == 0 && self.probes.len == 0
    }
}

/// A call made from a block (`CallSiteInfo`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallSite {
    /// `off`: the call's offset in its block.
    pub offset: u32,
    /// `fid`: the callee's [`Function::id`] (0 and unknown for indirect calls nobody resolved).
    pub callee: u32,
    /// `disc`: which entry point of the callee.
    pub entry_discriminator: u32,
    pub count: u64,
    pub mispredicts: u64,
    /// `pp`: the call's pseudo-probe id.
    pub probe: u32,
    /// `ppn`: the inline tree node of that probe.
    pub inline_node: u32,
    /// `ind`: an indirect call.
    pub indirect: bool,
}

/// An edge to a successor block (`SuccessorInfo`). Packed to 20 bytes, not 24:
/// a profile holds about two a block (964k in a 100 MB YAML).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct Successor {
    /// `bid` of the successor.
    pub index: u32,
    pub count: u64,
    pub mispredicts: u64,
}

/// A block's pseudo-probes (`PseudoProbeInfo`): the probe ids `blk` present in each
/// inline tree node of `ids`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeSet {
    /// Into [`Profile::probe_ids`] (absent in the file: `[1]`).
    pub block_probes: Span,
    /// Into [`Profile::probe_nodes`] (absent in the file: `[0]`).
    pub inline_nodes: Span,
}

/// A node of a function's inline tree, as written (delta-encoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineTreeNode {
    /// `g`: index into [`PseudoProbeDesc::guids`]; `u32::MAX` (absent): as the previous node.
    pub guid_index: u32,
    /// `p`: the parent's index, as a delta from the previous node's parent.
    pub parent_delta: u32,
    /// `cs`: the call-site probe id in the parent.
    pub call_site_probe: u32,
}

impl Default for InlineTreeNode {
    fn default() -> Self {
        InlineTreeNode { guid_index: u32::MAX, parent_delta: 0, call_site_probe: 0 }
    }
}

/// `pseudo_probe_desc`: the GUIDs of the functions inline trees name, and their hashes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PseudoProbeDesc {
    /// `gs`.
    pub guids: Vec<u64>,
    /// `gh`: for each GUID, the index of its hash in `hashes`.
    pub guid_hash_index: Vec<u32>,
    /// `hs`.
    pub hashes: Vec<u64>,
}

impl PseudoProbeDesc {
    pub fn is_empty(&self) -> bool {
        self.guids.is_empty() && self.guid_hash_index.is_empty() && self.hashes.is_empty()
    }
}

/// A key LLVM's reader warns about and skips (`setAllowUnknownKeys`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKey<'a> {
    pub key: Cow<'a, [u8]>,
    pub line: u64,
    pub column: u64,
}

/// A BOLT YAML profile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile<'a> {
    pub header: Header<'a>,
    pub functions: Vec<Function<'a>>,
    pub blocks: Vec<Block>,
    /// The blocks with `events` or `probes`, in the order of `blocks`.
    pub block_extras: Vec<BlockExtra>,
    pub calls: Vec<CallSite>,
    pub successors: Vec<Successor>,
    pub probes: Vec<ProbeSet>,
    pub probe_ids: Vec<u64>,
    pub probe_nodes: Vec<u32>,
    pub inline_tree: Vec<InlineTreeNode>,
    pub probe_desc: PseudoProbeDesc,
    pub unknown_keys: Vec<UnknownKey<'a>>,
    /// Flow collections were continued on new lines, as merge-fdata's writer does
    /// past column 70 (llvm-bolt and perf2bolt never wrap).
    pub flow_wrapped: bool,
}

impl<'a> Profile<'a> {
    /// The profile without borrowing the input (names copied).
    pub fn into_owned(self) -> Profile<'static> {
        let owned = |c: Cow<'a, [u8]>| -> Cow<'static, [u8]> { Cow::Owned(c.into_owned()) };
        let h = self.header;
        Profile {
            header: Header {
                version: h.version,
                binary_name: owned(h.binary_name),
                build_id: owned(h.build_id),
                flags: h.flags,
                origin: owned(h.origin),
                events: owned(h.events),
                dfs_order: h.dfs_order,
                hash_function: h.hash_function,
            },
            functions: self.functions.into_iter().map(|f| Function { name: owned(f.name), ..f }).collect(),
            blocks: self.blocks,
            block_extras: self.block_extras,
            calls: self.calls,
            successors: self.successors,
            probes: self.probes,
            probe_ids: self.probe_ids,
            probe_nodes: self.probe_nodes,
            inline_tree: self.inline_tree,
            probe_desc: self.probe_desc,
            unknown_keys: self
                .unknown_keys
                .into_iter()
                .map(|k| UnknownKey { key: owned(k.key), line: k.line, column: k.column })
                .collect(),
            flow_wrapped: self.flow_wrapped,
        }
    }

    /// The wrapping the profile was written with, as far as it shows.
    pub fn wrap_column(&self) -> WrapColumn {
        if self.flow_wrapped {
            MERGE_FDATA_WRAP
        } else {
            None
        }
    }

    pub fn blocks_of(&self, function: &Function<'_>) -> &[Block] {
        self.blocks.get(function.blocks.range()).unwrap_or_default()
    }

    /// `blocks_of(function)`, each with its index in `blocks` (what
    /// [`Profile::extra_of`] takes).
    pub fn indexed_blocks_of(&self, function: &Function<'_>) -> impl Iterator<Item = (usize, &Block)> {
        let first = function.blocks.start as usize;
        self.blocks_of(function).iter().enumerate().map(move |(i, b)| (first.wrapping_add(i), b))
    }

    pub fn calls_of(&self, block: &Block) -> &[CallSite] {
        self.calls.get(block.calls.range()).unwrap_or_default()
    }

    pub fn successors_of(&self, block: &Block) -> &[Successor] {
        self.successors.get(block.successors.range()).unwrap_or_default()
    }

    /// The events and probes of block `block` (an index into `blocks`).
    pub fn extra_of(&self, block: usize) -> BlockExtra {
        let at = self.block_extras.partition_point(|e| (e.block as usize) < block);
        self.block_extras.get(at).filter(|e| e.block as usize == block).copied().unwrap_or_default()
    }

    /// The probe sets of the block `extra` is of.
    pub fn probes_of(&self, extra: &BlockExtra) -> &[ProbeSet] {
        self.probes.get(extra.probes.range()).unwrap_or_default()
    }

    pub fn inline_tree_of(&self, function: &Function<'_>) -> &[InlineTreeNode] {
        self.inline_tree.get(function.inline_tree.range()).unwrap_or_default()
    }

    pub fn probe_ids_of(&self, probes: &ProbeSet) -> &[u64] {
        self.probe_ids.get(probes.block_probes.range()).unwrap_or_default()
    }

    pub fn probe_nodes_of(&self, probes: &ProbeSet) -> &[u32] {
        self.probe_nodes.get(probes.inline_nodes.range()).unwrap_or_default()
    }
}

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let mut lines = head_lines(data).filter(|l| !l.is_empty() && !l.starts_with(b"#"));
    let mut first = lines.next()?;
    if first == b"---" {
        first = lines.next()?;
    }
    if first != b"header:" {
        return None;
    }
    let mut detection = Detection::new(Format::BoltYaml);
    for line in lines.take_while(|l| l.starts_with(b" ")) {
        let trimmed = line.trim_ascii();
        if let Some(v) = trimmed.strip_prefix(b"profile-version:") {
            if let Some(version) = core::str::from_utf8(v.trim_ascii()).ok().and_then(|s| s.parse().ok()) {
                detection = detection.version(version);
            }
        }
    }
    Some(detection)
}

#[cfg(test)]
mod tests {
    use super::{Block, Successor};

    /// A 100 MB YAML holds about 600k blocks and 1M successors, most of the
    /// worker's memory once it is read: a field more is megabytes in the page.
    #[test]
    fn blocks_and_successors_stay_small() {
        assert_eq!(core::mem::size_of::<Block>(), 40);
        assert_eq!(core::mem::size_of::<Successor>(), 20);
    }
}
