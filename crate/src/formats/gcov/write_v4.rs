//! The sample-profile [`Profile`] model as AutoFDO GCOV v4: binary (normal or
//! compact) and text, with the readings of `docs/gcov-v4.md`.
//!
//! What the writer chooses, so that its output is deterministic:
//! - one TU per source file of the profile (in [`Profile::files`] order, empty names
//!   left out), then the unknown-file TU, whose file-name entry is the empty string;
//!   names without a file (every LLVM profile's) are in that last TU;
//! - a TU's symbols sorted by name bytes; symbol ids dense from 0 in TU order, and a
//!   symbol's string-table id is its rank in its TU;
//! - sections in this order: summary, file names, then per TU its string table and
//!   symbol names, then one symbol-info section per top-level function, by symbol id;
//! - a function's location records in location order, at one location the count
//!   record, then the call-target record, then the inlined callees by name; call
//!   targets by count (descending), then symbol id. The count record is left out
//!   when it is 0 and call targets are there (reading the targets makes the location).
//!
//! What v4 cannot carry is dropped, never an error (the entry point has no error
//! value); [`losses`] says what a profile would lose, for callers that want to warn
//! or refuse:
//! - CS contexts: each context's samples are merged into its leaf function (the
//!   context-less base profile), as `Profile::add` merges;
//! - probe checksums, context attributes, vtable counts, the profile symbol list and
//!   the profile flags: not written;
//! - locations whose line offset exceeds 24 bits or discriminator 16 bits: dropped
//!   with their call targets and inlined callees;
//! - MD5 names: written as their decimal digits (what LLVM's text shows);
//! - totals: not stored; readers recompute them;
//! - inlining deeper than [`MAX_DEPTH`]: dropped.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt::Write as _;

use crate::formats::gcov::v4_layout::{
    int_len, put_int, LocationType, SectionType, COMPACT, DISCRIMINATOR_WIDTH, HAS_DISCRIMINATOR, LINE_WIDTH, MAGIC,
    MAX_DISCRIMINATOR, MAX_LINE, NO_SYMBOL_INFO, NUM_SECTIONS_WIDTH, VERSION,
};
use crate::formats::gcov::v4_trie;
use crate::formats::gcov::v4text::put_quoted;
use crate::formats::sample::model::{FunctionSamples, LineLocation, Name, NameEntry, NameId, Profile, MAX_DEPTH};
use crate::summary::Summary;

/// How to encode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Binary,
    Compact,
    Text,
}

/// Appends the profile in `encoding` to `out`. `summary` is the profile's summary
/// as `llvm-profdata show --detailed-summary` computes it.
pub fn write(profile: &Profile, summary: &Summary, encoding: Encoding, out: &mut Vec<u8>) {
    let (profile, symbols) = match Symbols::new(profile) {
        Some(symbols) => (Cow::Borrowed(profile), symbols),
        None => {
            let flat = normalize(profile);
            let symbols = Symbols::new(&flat).unwrap_or_default();
            (Cow::Owned(flat), symbols)
        }
    };
    let w = Writer { profile: &profile, symbols: &symbols, compact: encoding == Encoding::Compact };
    match encoding {
        Encoding::Binary | Encoding::Compact => w.binary(summary, out),
        Encoding::Text => w.text(summary, out),
    }
}

/// What writing `profile` as v4 would lose (see the module docs for what the writer
/// does with each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Losses {
    /// Top-level functions keyed by a CS context.
    pub contexts: u64,
    /// Functions with a probe checksum.
    pub checksums: u64,
    /// Functions with context attributes.
    pub attributes: u64,
    /// Locations with vtable counts.
    pub vtables: u64,
    /// Locations (body samples and inlined callsites) whose line offset exceeds 24
    /// bits or discriminator 16 bits.
    pub wide_locations: u64,
    /// Inlined callees deeper than [`MAX_DEPTH`].
    pub deep_callees: u64,
    /// Functions whose total is not their body samples plus their inlined callees'
    /// totals.
    pub totals: u64,
    /// Names known only by their MD5.
    pub md5_names: u64,
    /// The profile symbol list.
    pub symbol_list: bool,
    /// Probe-based ("lines" are probe ids, which v4 would present as lines).
    pub probe_based: bool,
}

impl Losses {
    pub fn is_empty(&self) -> bool {
        *self == Losses::default()
    }
}

/// What writing `profile` as v4 would lose.
pub fn losses(profile: &Profile) -> Losses {
    let mut l = Losses {
        md5_names: profile.names.iter().filter(|(_, e)| matches!(e.name, Name::Md5(_))).count() as u64,
        symbol_list: profile.symbol_list.is_some(),
        probe_based: profile.kind.probe_based,
        ..Losses::default()
    };
    for f in &profile.functions {
        if !f.context.is_empty() {
            l.contexts = l.contexts.saturating_add(1);
        }
        count_losses(f, 0, &mut l);
    }
    l
}

fn count_losses(f: &FunctionSamples, depth: usize, l: &mut Losses) {
    let one = |n: &mut u64| *n = n.saturating_add(1);
    if f.checksum.is_some() {
        one(&mut l.checksums);
    }
    if f.attributes != 0 {
        one(&mut l.attributes);
    }
    l.vtables = l.vtables.saturating_add(f.types.len() as u64);
    l.wide_locations = l.wide_locations.saturating_add(f.body.iter().filter(|b| !fits(b.location)).count() as u64);
    let inlined = f.callsites.iter().fold(0u64, |sum, c| sum.saturating_add(c.callee.total));
    if f.total != f.body_samples().saturating_add(inlined) {
        one(&mut l.totals);
    }
    for c in &f.callsites {
        if !fits(c.location) {
            one(&mut l.wide_locations);
        } else if depth >= MAX_DEPTH {
            one(&mut l.deep_callees);
        } else {
            count_losses(&c.callee, depth.saturating_add(1), l);
        }
    }
}

/// Whether a location fits the 3-byte line offset and 2-byte discriminator.
pub fn fits(loc: LineLocation) -> bool {
    loc.line <= MAX_LINE && loc.discriminator <= MAX_DISCRIMINATOR
}

/// One symbol of the output.
#[derive(Clone, Debug, Default)]
struct Symbol {
    tu: usize,
    name: Vec<u8>,
    /// Index in `Profile::functions` of its top-level body.
    top: Option<usize>,
    /// Inlined somewhere (so the text names it in an inlined header).
    inlined: bool,
}

/// One TU of the output.
#[derive(Clone, Debug, Default)]
struct Tu {
    file: Vec<u8>,
    first: u32,
    end: u32,
}

/// The output's symbol table.
#[derive(Clone, Debug, Default)]
struct Symbols {
    /// By symbol id: sorted by TU, then name.
    list: Vec<Symbol>,
    /// Symbol id of each [`NameId`], `u32::MAX` if not written.
    by_name: Vec<u32>,
    tus: Vec<Tu>,
}

const USED_CALLED: u8 = 1;
const USED_INLINED: u8 = 2;

impl Symbols {
    /// The symbol table of `profile`, or `None` if the profile must first be
    /// normalized: CS contexts, two names that v4 would write alike, or a name with
    /// two top-level bodies.
    fn new(profile: &Profile) -> Option<Symbols> {
        if profile.functions.iter().any(|f| !f.context.is_empty()) {
            return None;
        }
        let mut tus: Vec<Tu> = Vec::new();
        let mut tu_of_file = Vec::with_capacity(profile.files.len());
        for file in &profile.files {
            if file.is_empty() {
                tu_of_file.push(None);
            } else {
                tu_of_file.push(Some(tus.len()));
                tus.push(Tu { file: file.clone(), first: 0, end: 0 });
            }
        }
        let unknown = tus.len();
        tus.push(Tu::default());

        let mut used = alloc::vec![0u8; profile.names.len()];
        for f in &profile.functions {
            mark(f, 0, &mut used);
        }
        let mut list: Vec<(usize, Cow<'_, [u8]>, NameId)> = Vec::new();
        for (id, entry) in profile.names.iter() {
            let is_top = profile.function(id).is_some();
            if !is_top && used.get(id.0 as usize).is_none_or(|&u| u == 0) {
                continue;
            }
            let tu = entry.file.and_then(|f| tu_of_file.get(f as usize).copied().flatten()).unwrap_or(unknown);
            list.push((tu, entry.name.bytes(), id));
        }
        list.sort_unstable_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        if list.windows(2).any(|w| matches!(w, [a, b] if a.0 == b.0 && a.1 == b.1)) {
            return None;
        }

        let mut by_name = alloc::vec![u32::MAX; profile.names.len()];
        let mut symbols = Vec::with_capacity(list.len());
        for (i, (tu, name, id)) in list.into_iter().enumerate() {
            let sid = u32::try_from(i).unwrap_or(u32::MAX);
            if let Some(slot) = by_name.get_mut(id.0 as usize) {
                *slot = sid;
            }
            if let Some(t) = tus.get_mut(tu) {
                if t.first == t.end {
                    t.first = sid;
                }
                t.end = sid.saturating_add(1);
            }
            let inlined = used.get(id.0 as usize).is_some_and(|u| u & USED_INLINED != 0);
            symbols.push(Symbol { tu, name: name.into_owned(), top: None, inlined });
        }
        // Empty TUs get an empty range where they stand in id order.
        let mut next = 0u32;
        for t in &mut tus {
            if t.first == t.end {
                t.first = next;
                t.end = next;
            }
            next = t.end;
        }
        for (i, f) in profile.functions.iter().enumerate() {
            let sid = by_name.get(f.name.0 as usize).copied().unwrap_or(u32::MAX);
            match symbols.get_mut(sid as usize) {
                Some(s) if s.top.is_none() => s.top = Some(i),
                _ => return None,
            }
        }
        Some(Symbols { list: symbols, by_name, tus })
    }

    fn id(&self, name: NameId) -> Option<u32> {
        self.by_name.get(name.0 as usize).copied().filter(|&s| s != u32::MAX)
    }
}

/// Marks the names `f` uses as call targets and inlined callees.
fn mark(f: &FunctionSamples, depth: usize, used: &mut [u8]) {
    for b in f.body.iter().filter(|b| fits(b.location)) {
        for c in &b.calls {
            if let Some(u) = used.get_mut(c.name.0 as usize) {
                *u |= USED_CALLED;
            }
        }
    }
    if depth >= MAX_DEPTH {
        return;
    }
    for c in f.callsites.iter().filter(|c| fits(c.location)) {
        if let Some(u) = used.get_mut(c.callee.name.0 as usize) {
            *u |= USED_INLINED;
        }
        mark(&c.callee, depth.saturating_add(1), used);
    }
}

/// The profile with contexts folded into leaf functions and names re-interned as v4
/// writes them (bytes, file only if non-empty), so that each symbol is one name.
fn normalize(profile: &Profile) -> Profile {
    let mut out = Profile::new();
    out.files = profile.files.clone();
    let mut map = Vec::with_capacity(profile.names.len());
    for (_, entry) in profile.names.iter() {
        let file = entry.file.filter(|&f| profile.files.get(f as usize).is_some_and(|n| !n.is_empty()));
        let renamed = NameEntry { name: Name::Bytes(entry.name.bytes().into_owned()), file };
        map.push(out.names.intern(renamed).unwrap_or_default());
    }
    let mut functions = Vec::with_capacity(profile.functions.len());
    for f in &profile.functions {
        functions.push(rename(f, &map, &out, 0));
    }
    for f in functions {
        out.add(f);
    }
    out
}

/// A copy of `f` with names mapped, context gone, and what v4 drops left out.
fn rename(f: &FunctionSamples, map: &[NameId], out: &Profile, depth: usize) -> FunctionSamples {
    let to = |n: NameId| map.get(n.0 as usize).copied().unwrap_or_default();
    let mut g =
        FunctionSamples { name: to(f.name), head: f.head, timestamp: f.timestamp, ..FunctionSamples::default() };
    for b in f.body.iter().filter(|b| fits(b.location)) {
        let calls =
            b.calls.iter().map(|c| crate::formats::sample::model::CallTarget { name: to(c.name), count: c.count });
        g.add_body(b.location, b.samples, calls.collect());
    }
    if depth < MAX_DEPTH {
        for c in f.callsites.iter().filter(|c| fits(c.location)) {
            let callee = rename(&c.callee, map, out, depth.saturating_add(1));
            g.add_callsite(c.location, callee, &out.names);
        }
    }
    g.total = f.total;
    g
}

/// One location record to write.
enum Record<'a> {
    Count(LineLocation, u64),
    Calls(LineLocation, Vec<(u32, u64)>),
    Inlined(LineLocation, u32, &'a FunctionSamples),
}

struct Writer<'a> {
    profile: &'a Profile,
    symbols: &'a Symbols,
    compact: bool,
}

impl<'a> Writer<'a> {
    /// A function's records in writing order (see the module docs).
    fn records(&self, f: &'a FunctionSamples, depth: usize) -> Vec<Record<'a>> {
        let mut out = Vec::new();
        let mut callsites = f.callsites.iter().filter(|c| fits(c.location) && depth < MAX_DEPTH).peekable();
        for b in f.body.iter().filter(|b| fits(b.location)) {
            while let Some(c) = callsites.next_if(|c| c.location < b.location) {
                self.inlined(&mut out, c.location, &c.callee);
            }
            let mut calls: Vec<(u32, u64)> =
                b.calls.iter().filter_map(|c| Some((self.symbols.id(c.name)?, c.count))).collect();
            calls.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            if b.samples != 0 || calls.is_empty() {
                out.push(Record::Count(b.location, b.samples));
            }
            if !calls.is_empty() {
                out.push(Record::Calls(b.location, calls));
            }
        }
        for c in callsites {
            self.inlined(&mut out, c.location, &c.callee);
        }
        out
    }

    fn inlined(&self, out: &mut Vec<Record<'a>>, loc: LineLocation, callee: &'a FunctionSamples) {
        if let Some(id) = self.symbols.id(callee.name) {
            out.push(Record::Inlined(loc, id, callee));
        }
    }

    fn int(&self, out: &mut Vec<u8>, width: u8, value: u64) {
        put_int(out, width, self.compact, value);
    }

    fn binary(&self, summary: &Summary, out: &mut Vec<u8>) {
        let compact = self.compact;
        let mask = |kind: SectionType| if compact { kind.0 | COMPACT } else { kind.0 };
        let mut body = Vec::new();
        let mut spans: Vec<(u64, u64)> = Vec::new();
        let mut section = |body: &mut Vec<u8>, kind: SectionType, fill: &mut dyn FnMut(&mut Vec<u8>)| {
            let start = body.len();
            body.push(mask(kind));
            fill(body);
            spans.push((start as u64, body.len().saturating_sub(start) as u64));
        };

        section(&mut body, SectionType::SUMMARY_INFO, &mut |b| self.summary(summary, b));
        let tus = self.symbols.tus.len() as u64;
        let first_info = 2u64.saturating_add(tus.saturating_mul(2));
        section(&mut body, SectionType::FILE_NAMES, &mut |b| {
            self.int(b, 4, tus);
            for (t, tu) in self.symbols.tus.iter().enumerate() {
                let t = t as u64;
                self.int(b, 4, (tu.file.len() as u64).saturating_add(1));
                b.extend_from_slice(&tu.file);
                b.push(0);
                self.int(b, 4, t.saturating_mul(2).saturating_add(2));
                self.int(b, 4, t.saturating_mul(2).saturating_add(3));
                self.int(b, 4, u64::from(tu.first));
                self.int(b, 4, u64::from(tu.end));
            }
        });
        let mut info_index = first_info;
        for tu in &self.symbols.tus {
            let range = (tu.first as usize)..(tu.end as usize);
            let syms = self.symbols.list.get(range.clone()).unwrap_or_default();
            section(&mut body, SectionType::STRING_TABLE, &mut |b| {
                let names: Vec<&[u8]> = syms.iter().map(|s| s.name.as_slice()).collect();
                v4_trie::write(b, compact, &names);
            });
            section(&mut body, SectionType::SYMBOL_NAMES, &mut |b| {
                self.int(b, 4, syms.len() as u64);
                for (rank, (s, id)) in syms.iter().zip(range.clone()).enumerate() {
                    self.int(b, 4, rank as u64);
                    self.int(b, 4, id as u64);
                    if s.top.is_some() {
                        self.int(b, 4, info_index);
                        info_index = info_index.saturating_add(1);
                    } else {
                        self.int(b, 4, u64::from(NO_SYMBOL_INFO));
                    }
                }
            });
        }
        for s in &self.symbols.list {
            let Some(f) = s.top.and_then(|i| self.profile.functions.get(i)) else { continue };
            section(&mut body, SectionType::SYMBOL_INFO, &mut |b| {
                self.int(b, 8, f.head);
                self.int(b, 8, f.timestamp);
                self.body(b, f, 0);
            });
        }

        // Offsets count from the start of the file, after the header; a compact
        // header's length depends on them, so grow it until it holds still.
        let count = (spans.len() as u64).saturating_sub(2);
        let mut header_len = 0u64;
        loop {
            let len = self.header_len(count, &spans, header_len);
            if len == header_len {
                break;
            }
            header_len = len;
        }
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_be_bytes());
        out.push(if compact { COMPACT } else { 0 });
        self.int(out, NUM_SECTIONS_WIDTH, count);
        for &(start, size) in &spans {
            self.int(out, 8, start.saturating_add(header_len));
            self.int(out, 8, size);
        }
        out.extend_from_slice(&body);
    }

    /// The header's length if the sections start `base` bytes into the file.
    fn header_len(&self, count: u64, spans: &[(u64, u64)], base: u64) -> u64 {
        let c = self.compact;
        let fields = spans.iter().fold(0u64, |sum, &(start, size)| {
            sum.saturating_add(int_len(8, c, start.saturating_add(base))).saturating_add(int_len(8, c, size))
        });
        9u64.saturating_add(int_len(NUM_SECTIONS_WIDTH, c, count)).saturating_add(fields)
    }

    fn summary(&self, s: &Summary, b: &mut Vec<u8>) {
        self.int(b, 8, u64::try_from(s.total_count).unwrap_or(u64::MAX));
        self.int(b, 8, s.max_count);
        self.int(b, 8, s.max_function_count);
        self.int(b, 8, s.num_counts);
        self.int(b, 8, s.num_functions);
        self.int(b, 8, s.detailed.len() as u64);
        for e in &s.detailed {
            self.int(b, 4, u64::from(e.cutoff));
            self.int(b, 8, e.min_count);
            self.int(b, 8, e.num_counts);
        }
    }

    /// `SYMBOL_NUM_LOCATIONS` and the records of `f` at inline `depth`.
    fn body(&self, b: &mut Vec<u8>, f: &FunctionSamples, depth: usize) {
        let records = self.records(f, depth);
        self.int(b, 4, records.len() as u64);
        for r in records {
            match r {
                Record::Count(loc, 0) => self.location(b, LocationType::ZERO, loc),
                Record::Count(loc, n) if n <= u64::from(u32::MAX) => {
                    self.location(b, LocationType::NORMAL, loc);
                    self.int(b, 4, n);
                }
                Record::Count(loc, n) => {
                    self.location(b, LocationType::WIDE, loc);
                    self.int(b, 8, n);
                }
                Record::Calls(loc, calls) => {
                    if let [(id, count)] = calls.as_slice() {
                        self.location(b, LocationType::CALLED_FN, loc);
                        self.int(b, 4, u64::from(*id));
                        self.int(b, 8, *count);
                    } else {
                        self.location(b, LocationType::CALLED_FNS, loc);
                        self.int(b, 4, calls.len() as u64);
                        for (id, count) in calls {
                            self.int(b, 4, u64::from(id));
                            self.int(b, 8, count);
                        }
                    }
                }
                Record::Inlined(loc, id, callee) => {
                    self.location(b, LocationType::INLINED_FN, loc);
                    self.int(b, 4, u64::from(id));
                    self.body(b, callee, depth.saturating_add(1));
                }
            }
        }
    }

    /// A location's common header.
    fn location(&self, b: &mut Vec<u8>, kind: LocationType, loc: LineLocation) {
        let disc = loc.discriminator != 0;
        b.push(if disc { kind.0 | HAS_DISCRIMINATOR } else { kind.0 });
        self.int(b, LINE_WIDTH, u64::from(loc.line));
        if disc {
            self.int(b, DISCRIMINATOR_WIDTH, u64::from(loc.discriminator));
        }
    }

    fn text(&self, summary: &Summary, out: &mut Vec<u8>) {
        out.extend_from_slice(b"filenames = {");
        let files: Vec<&Tu> = self.symbols.tus.iter().filter(|t| !t.file.is_empty()).collect();
        for (i, tu) in files.iter().enumerate() {
            out.extend_from_slice(if i == 0 { b"\n  " } else { b",\n  " });
            put_quoted(out, &tu.file);
        }
        out.extend_from_slice(if files.is_empty() { b"}\n\n" } else { b"\n}\n\n" });

        let _ = write!(
            Out(out),
            "summary = {{\n  total_count = {},\n  max_count = {},\n  max_fn_count = {},\n  num_counts = {},\n  \
             num_functions = {},\n  num_detailed_entries = {},\n  detailed_entries = {{",
            u64::try_from(summary.total_count).unwrap_or(u64::MAX),
            summary.max_count,
            summary.max_function_count,
            summary.num_counts,
            summary.num_functions,
            summary.detailed.len()
        );
        for (i, e) in summary.detailed.iter().enumerate() {
            out.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
            let _ = write!(
                Out(out),
                "{{cutoff = {}, min_count = {}, num_counts = {}}}",
                e.cutoff,
                e.min_count,
                e.num_counts
            );
        }
        out.extend_from_slice(if summary.detailed.is_empty() { b"}\n}\n" } else { b"\n  }\n}\n" });

        let bare: Vec<(usize, &Symbol)> =
            self.symbols.list.iter().enumerate().filter(|(_, s)| s.top.is_none() && !s.inlined).collect();
        if !bare.is_empty() {
            out.extend_from_slice(b"\nsymbol_names = {");
            for (i, (id, sym)) in bare.iter().enumerate() {
                out.extend_from_slice(if i == 0 { b"\n  " } else { b",\n  " });
                self.text_name(out, sym, *id);
                out.push(b')');
            }
            out.extend_from_slice(b"\n}\n");
        }

        for (id, sym) in self.symbols.list.iter().enumerate() {
            let Some(f) = sym.top.and_then(|i| self.profile.functions.get(i)) else { continue };
            out.push(b'\n');
            self.text_name(out, sym, id);
            let _ = write!(Out(out), ":{}:{}) = ", f.head, f.timestamp);
            self.text_body(out, f, 0, 0);
            out.push(b'\n');
        }
    }

    /// `"name":FILE(ID` of a symbol.
    fn text_name(&self, out: &mut Vec<u8>, sym: &Symbol, id: usize) {
        put_quoted(out, &sym.name);
        if self.symbols.tus.get(sym.tu).is_some_and(|t| !t.file.is_empty()) {
            let _ = write!(Out(out), ":{}({id}", sym.tu);
        } else {
            let _ = write!(Out(out), ":-1({id}");
        }
    }

    /// `{ sections }` of `f`, its closing brace at `indent`.
    fn text_body(&self, out: &mut Vec<u8>, f: &FunctionSamples, depth: usize, indent: usize) {
        let records = self.records(f, depth);
        if records.is_empty() {
            out.extend_from_slice(b"{}");
            return;
        }
        let inner = indent.saturating_add(2);
        let entry = inner.saturating_add(2);
        let pad = |out: &mut Vec<u8>, n: usize| out.extend(core::iter::repeat_n(b' ', n));
        out.extend_from_slice(b"{");
        let mut opened = false;
        for (keyword, kind) in [("locations", 0), ("callsites", 1), ("inlined", 2)] {
            let of_kind = |r: &&Record<'_>| match r {
                Record::Count(..) => kind == 0,
                Record::Calls(..) => kind == 1,
                Record::Inlined(..) => kind == 2,
            };
            let mut entries = records.iter().filter(of_kind).peekable();
            if entries.peek().is_none() {
                continue;
            }
            out.extend_from_slice(if opened { b",\n" } else { b"\n" });
            opened = true;
            pad(out, inner);
            let _ = write!(Out(out), "{keyword} = {{");
            let mut first = true;
            for r in entries {
                out.extend_from_slice(if first { b"\n" } else { b",\n" });
                first = false;
                pad(out, entry);
                match r {
                    Record::Count(loc, n) => {
                        let _ = write!(Out(out), "{} = {n}", Loc(*loc));
                    }
                    Record::Calls(loc, targets) => {
                        let _ = write!(Out(out), "{} -> {{", Loc(*loc));
                        for (i, (id, count)) in targets.iter().enumerate() {
                            let _ = write!(Out(out), "{}{id} = {count}", if i == 0 { "" } else { ", " });
                        }
                        out.push(b'}');
                    }
                    Record::Inlined(loc, id, callee) => {
                        let _ = write!(Out(out), "{} = ", Loc(*loc));
                        if let Some(sym) = self.symbols.list.get(*id as usize) {
                            self.text_name(out, sym, *id as usize);
                        }
                        out.extend_from_slice(b") = ");
                        self.text_body(out, callee, depth.saturating_add(1), entry);
                    }
                }
            }
            out.push(b'\n');
            pad(out, inner);
            out.push(b'}');
        }
        out.push(b'\n');
        pad(out, indent);
        out.push(b'}');
    }
}

/// `core::fmt::Write` into a byte vector.
struct Out<'a>(&'a mut Vec<u8>);

impl core::fmt::Write for Out<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Displays a location as the text writes it: `LINE` or `LINE.DISCRIMINATOR`.
struct Loc(LineLocation);

impl core::fmt::Display for Loc {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0.line)?;
        if self.0.discriminator != 0 {
            write!(f, ".{}", self.0.discriminator)?;
        }
        Ok(())
    }
}
