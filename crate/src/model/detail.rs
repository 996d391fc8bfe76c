//! One function in full: its counters, bitmap bytes, value-profile sites with
//! their targets named where the profile knows the name, and where it sits in
//! each temporal trace.

use alloc::string::String;
use alloc::vec::Vec;

/// A value seen at a site: a call or vtable target (an MD5 name hash, with the
/// name when the profile has it) or a memop size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub value: u64,
    /// The resolved name (targets only); `None` for an unknown hash and for sizes.
    pub name: Option<Vec<u8>>,
    pub count: u64,
}

/// Value-profile kinds as the detail shows them, in `IPVK_*` order.
pub const KIND_NAMES: [&str; 3] = ["indirect call", "memop size", "vtable"];

/// One value site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// An `IPVK_*` index into [`KIND_NAMES`].
    pub kind: usize,
    /// The site's number among the function's sites of that kind.
    pub index: usize,
    pub targets: Vec<Target>,
}

/// Where a function appears in a temporal profile trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracePosition {
    pub trace: usize,
    pub weight: u64,
    /// 0-based position in the trace's first-execution order.
    pub position: usize,
    /// How many functions the trace holds.
    pub length: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionDetail {
    pub name: Vec<u8>,
    pub demangled: Option<String>,
    pub hash: Option<u64>,
    pub counters: Vec<u64>,
    pub bitmap: Vec<u8>,
    pub sites: Vec<Site>,
    pub traces: Vec<TracePosition>,
}
