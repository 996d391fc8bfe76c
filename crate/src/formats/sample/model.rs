//! The decoded sample profile, whatever file it came from: LLVM text, raw binary or
//! extbinary, GCC AutoFDO v1–v3, or GCOV v4. It follows LLVM's `FunctionSamples`
//! (`llvm/ProfileData/SampleProf.h`), because `llvm-profdata merge --sample --text`
//! is the reference every decoder is checked against:
//!
//! - a function (top level or inlined) has a total, a head count (top level only),
//!   body samples per [`LineLocation`] with the call targets seen there, and inlined
//!   callees per location, each itself a function;
//! - names are interned in one [`Names`] table and referred to by [`NameId`]; a name
//!   is its bytes, or only their MD5 when the file stored MD5s (`--use-md5`);
//! - context-sensitive (CS) profiles key their top-level functions by a calling
//!   context (`[main:1 @ foo:2 @ bar]`), kept as [`Frame`]s;
//! - vectors are kept sorted the way LLVM's maps are (body and callsites by
//!   location, then callee), so writers walk them in order and merging is a merge
//!   of sorted lists.
//!
//! Counts add saturating at `u64::MAX`, as `SaturatingAdd` does in LLVM (it reports
//! the overflow; [`Profile::overflowed`] records that one happened).

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::cmp::Ordering;

use hashbrown::HashMap;

/// Deepest inline nesting a decoder follows. Real profiles nest a few tens of
/// levels; the limit keeps recursive walks (merge, writers, views) bounded.
pub const MAX_DEPTH: usize = 256;

/// An index into [`Profile::names`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NameId(pub u32);

/// A function name as the file stored it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Name {
    /// The (usually mangled) name's bytes; names need not be UTF-8.
    Bytes(Vec<u8>),
    /// Only the MD5 of the name (first 8 bytes of the digest, little-endian), from an
    /// MD5 name table. LLVM prints it in decimal.
    Md5(u64),
}

impl Name {
    /// The bytes text formats write: the name, or its MD5 in decimal (as LLVM prints it).
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Name::Bytes(b) => Cow::Borrowed(b.as_slice()),
            Name::Md5(h) => {
                let mut digits = Vec::new();
                crate::digits::push_unsigned(&mut digits, *h);
                Cow::Owned(digits)
            }
        }
    }

    /// The MD5 LLVM would key this name by (`FunctionId::getHashCode`).
    pub fn md5(&self) -> u64 {
        match self {
            Name::Bytes(b) => crate::formats::instrprof::md5::name_ref(b),
            Name::Md5(h) => *h,
        }
    }
}

/// One name-table entry: the name and, for GCC AutoFDO v3 and GCOV v4, the source
/// file it was defined in (an index into [`Profile::files`]); LLVM formats have none.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NameEntry {
    pub name: Name,
    pub file: Option<u32>,
}

/// The interned names of a profile. An entry is added once and never removed, so a
/// [`NameId`] stays valid for the profile's life.
#[derive(Clone, Debug, Default)]
pub struct Names {
    entries: Vec<NameEntry>,
    index: HashMap<NameEntry, NameId>,
}

impl Names {
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `entry`, adding it if new. `None` past `u32::MAX` entries (a file
    /// cannot hold that many distinct names in less than 4 GiB).
    pub fn intern(&mut self, entry: NameEntry) -> Option<NameId> {
        if let Some(&id) = self.index.get(&entry) {
            return Some(id);
        }
        let id = NameId(u32::try_from(self.entries.len()).ok()?);
        self.entries.push(entry.clone());
        self.index.insert(entry, id);
        Some(id)
    }

    /// Interns a plain name without a file.
    pub fn intern_bytes(&mut self, name: &[u8]) -> Option<NameId> {
        self.intern(NameEntry { name: Name::Bytes(name.to_vec()), file: None })
    }

    pub fn get(&self, id: NameId) -> Option<&NameEntry> {
        self.entries.get(usize::try_from(id.0).ok()?)
    }

    pub fn name(&self, id: NameId) -> Option<&Name> {
        self.get(id).map(|e| &e.name)
    }

    /// The name's bytes as text formats write them: the bytes, or the MD5 in decimal
    /// (empty for an id not in the table).
    pub fn bytes(&self, id: NameId) -> Cow<'_, [u8]> {
        self.name(id).map_or(Cow::Borrowed(&[]), Name::bytes)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (NameId, &NameEntry)> {
        // Ids are dense and below u32::MAX by construction.
        self.entries.iter().enumerate().map(|(i, e)| (NameId(u32::try_from(i).unwrap_or(u32::MAX)), e))
    }

    /// The order of LLVM's maps keyed by `FunctionId` (callees at one callsite):
    /// two names compare by bytes, two MD5s by value.
    // A table mixing both kinds does not occur in one file; bytes sort after MD5s
    // there so the order is still total.
    pub fn cmp(&self, a: NameId, b: NameId) -> Ordering {
        match (self.name(a), self.name(b)) {
            (Some(Name::Bytes(x)), Some(Name::Bytes(y))) => x.cmp(y),
            (Some(Name::Md5(x)), Some(Name::Md5(y))) => x.cmp(y),
            (Some(Name::Md5(_)), Some(Name::Bytes(_))) => Ordering::Less,
            (Some(Name::Bytes(_)), Some(Name::Md5(_))) => Ordering::Greater,
            _ => a.cmp(&b),
        }
    }
}

/// Where in a function a sample was taken: the line offset from the function's first
/// line and the discriminator (`LineLocation`). Ordered by line, then discriminator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct LineLocation {
    pub line: u32,
    pub discriminator: u32,
}

/// A call target seen at a location, with how many calls went to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallTarget {
    pub name: NameId,
    pub count: u64,
}

/// A vtable (type) seen at a location with its count (LLVM 22's `vtables` lines and
/// the extbinary vtable block).
pub type TypeCount = CallTarget;

/// The samples at one location of a function's body (`SampleRecord`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BodySample {
    pub location: LineLocation,
    pub samples: u64,
    /// In the order the file gave them, one entry per name (a repeated name's
    /// counts are added); writers sort them (by count descending, then name).
    pub calls: Vec<CallTarget>,
}

/// The vtables seen at one callsite (`TypeSamples` of one location).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TypeSamples {
    pub location: LineLocation,
    pub types: Vec<TypeCount>,
}

/// A callee inlined at a location of its caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Callsite {
    pub location: LineLocation,
    pub callee: FunctionSamples,
}

/// One frame of a CS context: a function and, for every frame but the last, the
/// location in it of the call to the next frame (`SampleContextFrame`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub name: NameId,
    pub location: LineLocation,
}

/// A function's samples (`FunctionSamples`), top level or inlined.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FunctionSamples {
    /// The function (for a CS profile, the context's last frame).
    pub name: NameId,
    /// A CS profile's calling context, outermost first, ending with `name` (empty
    /// for non-CS profiles and for inlined callees).
    pub context: Vec<Frame>,
    pub total: u64,
    /// Samples at the function's entry; 0 for inlined callees.
    pub head: u64,
    /// `!CFGChecksum` of probe-based profiles.
    pub checksum: Option<u64>,
    /// `!Attributes` of CS profiles (`ContextAttributeMask`); 0 when absent.
    pub attributes: u32,
    /// GCC AutoFDO v3 / GCOV v4 per-function timestamp (first execution); 0 if none.
    pub timestamp: u64,
    /// Sorted by location, one entry per location.
    pub body: Vec<BodySample>,
    /// Sorted by location, then callee name ([`Names::cmp`]); one entry per pair.
    pub callsites: Vec<Callsite>,
    /// Sorted by location, one entry per location.
    pub types: Vec<TypeSamples>,
}

/// What a profile says about itself (extbinary summary and metadata flags, the
/// text's `!CFGChecksum` and CS contexts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ProfileKind {
    /// Top-level functions are CS contexts.
    pub context_sensitive: bool,
    /// Functions carry pseudo-probe checksums; "lines" are probe ids.
    pub probe_based: bool,
    /// Flow-sensitive discriminators (`SecFlagFSDiscriminator`).
    pub fs_discriminator: bool,
    /// Pre-inlined CS profile (`SecFlagIsPreInlined`).
    pub preinlined: bool,
    /// Names are MD5s.
    pub md5: bool,
    /// The extbinary summary said the profile is partial (`SecFlagPartial`).
    pub partial: bool,
    /// Functions carry source file names (GCC AutoFDO v3, GCOV v4), even where none
    /// is known; autofdo's `dump_gcov` prints them then.
    pub file_names: bool,
}

/// A decoded sample profile.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    pub names: Names,
    /// Source file names (GCC AutoFDO v3 / GCOV v4), indexed by [`NameEntry::file`].
    pub files: Vec<Vec<u8>>,
    /// Top-level functions in the order they were first seen; one per name (or per
    /// context), later occurrences merged into the first ([`Profile::add`]).
    pub functions: Vec<FunctionSamples>,
    pub kind: ProfileKind,
    /// The profile symbol list (extbinary `SecProfileSymbolList`), when present.
    pub symbol_list: Option<Vec<NameId>>,
    /// A count overflowed `u64` while adding (LLVM warns "counter overflow").
    pub overflowed: bool,
    /// Where each top-level function is in `functions`, by name or context.
    index: HashMap<FunctionKey, usize>,
}

/// How top-level functions are keyed: by name, or by whole context (CS).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FunctionKey {
    Name(NameId),
    Context(Vec<Frame>),
}

impl Profile {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a top-level function, merging it into one already there with the same
    /// name (or context), as LLVM's readers do for repeated functions.
    pub fn add(&mut self, function: FunctionSamples) {
        let key = if function.context.is_empty() {
            FunctionKey::Name(function.name)
        } else {
            FunctionKey::Context(function.context.clone())
        };
        match self.index.get(&key) {
            Some(&i) => {
                if let Some(existing) = self.functions.get_mut(i) {
                    self.overflowed |= existing.merge(function, &self.names);
                }
            }
            None => {
                self.index.insert(key, self.functions.len());
                self.functions.push(function);
            }
        }
    }

    /// The top-level function with this name (non-CS profiles).
    pub fn function(&self, name: NameId) -> Option<&FunctionSamples> {
        self.functions.get(*self.index.get(&FunctionKey::Name(name))?)
    }
}

fn add(a: &mut u64, b: u64, overflowed: &mut bool) {
    match a.checked_add(b) {
        Some(sum) => *a = sum,
        None => {
            *a = u64::MAX;
            *overflowed = true;
        }
    }
}

/// Adds `calls` into `into`, one entry per name.
fn merge_calls(into: &mut Vec<CallTarget>, calls: Vec<CallTarget>, overflowed: &mut bool) {
    if into.is_empty() && calls.len() <= 1 {
        *into = calls;
        return;
    }
    for call in calls {
        match into.iter_mut().find(|c| c.name == call.name) {
            Some(c) => add(&mut c.count, call.count, overflowed),
            None => into.push(call),
        }
    }
}

impl FunctionSamples {
    /// Adds samples at `location` (and `calls` there), keeping `body` sorted and
    /// one entry per location. Returns whether a count overflowed.
    pub fn add_body(&mut self, location: LineLocation, samples: u64, calls: Vec<CallTarget>) -> bool {
        let mut overflowed = false;
        // Decoders mostly add locations in order: append without searching.
        let found = match self.body.last() {
            Some(last) if last.location < location => Err(self.body.len()),
            _ => self.body.binary_search_by(|b| b.location.cmp(&location)),
        };
        match found {
            Ok(i) => {
                if let Some(b) = self.body.get_mut(i) {
                    add(&mut b.samples, samples, &mut overflowed);
                    merge_calls(&mut b.calls, calls, &mut overflowed);
                }
            }
            Err(i) => {
                let mut b = BodySample { location, samples, calls: Vec::new() };
                merge_calls(&mut b.calls, calls, &mut overflowed);
                self.body.insert(i, b);
            }
        }
        overflowed
    }

    /// Adds vtable counts at `location`, keeping `types` sorted.
    pub fn add_types(&mut self, location: LineLocation, types: Vec<TypeCount>) -> bool {
        let mut overflowed = false;
        match self.types.binary_search_by(|t| t.location.cmp(&location)) {
            Ok(i) => {
                if let Some(t) = self.types.get_mut(i) {
                    merge_calls(&mut t.types, types, &mut overflowed);
                }
            }
            Err(i) => {
                let mut t = TypeSamples { location, types: Vec::new() };
                merge_calls(&mut t.types, types, &mut overflowed);
                self.types.insert(i, t);
            }
        }
        overflowed
    }

    /// Adds an inlined callee at `location`, merging it into the same callee already
    /// there. Returns whether a count overflowed.
    pub fn add_callsite(&mut self, location: LineLocation, callee: FunctionSamples, names: &Names) -> bool {
        let found = self
            .callsites
            .binary_search_by(|c| c.location.cmp(&location).then_with(|| names.cmp(c.callee.name, callee.name)));
        match found {
            Ok(i) => match self.callsites.get_mut(i) {
                Some(c) => c.callee.merge(callee, names),
                None => false,
            },
            Err(i) => {
                self.callsites.insert(i, Callsite { location, callee });
                false
            }
        }
    }

    /// `FunctionSamples::merge`: totals and head added, bodies and callsites merged.
    /// Recursion follows inline nesting, which decoders bound by [`MAX_DEPTH`].
    /// Returns whether a count overflowed.
    pub fn merge(&mut self, other: FunctionSamples, names: &Names) -> bool {
        let mut overflowed = false;
        add(&mut self.total, other.total, &mut overflowed);
        add(&mut self.head, other.head, &mut overflowed);
        if self.checksum.is_none() {
            self.checksum = other.checksum;
        }
        self.attributes |= other.attributes;
        if self.timestamp == 0 || (other.timestamp != 0 && other.timestamp < self.timestamp) {
            self.timestamp = other.timestamp;
        }
        for b in other.body {
            overflowed |= self.add_body(b.location, b.samples, b.calls);
        }
        for t in other.types {
            overflowed |= self.add_types(t.location, t.types);
        }
        for c in other.callsites {
            overflowed |= self.add_callsite(c.location, c.callee, names);
        }
        overflowed
    }

    /// Samples in this function's own body (not its inlined callees').
    pub fn body_samples(&self) -> u64 {
        self.body.iter().fold(0u64, |sum, b| sum.saturating_add(b.samples))
    }
}
