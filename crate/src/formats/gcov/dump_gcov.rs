//! The [`Profile`] model as autofdo's `dump_gcov` prints it: the profile as
//! `create_gcov` would write it, read back by `AutoFDOProfileReader` into a
//! `SymbolMap`, then `SymbolMap::Dump` (google/autofdo `dump_gcov.cc`,
//! `profile_reader.cc`, `symbol_map.cc`).
//!
//! What the reader keeps decides what is printed:
//! - a function's total is the sum of the position counts under it (its own and its
//!   inlined callees'), whatever total the model holds; only top-level functions
//!   with a total above 0 are printed, by total (largest first), then name;
//! - an inlined callee exists only if some position lies under it;
//! - locations are create_gcov's 32-bit offset words (16-bit line, 16-bit
//!   discriminator), printed `line` or `line.discriminator`, positions in offset
//!   order, callsites by offset then callee name;
//! - call targets are keyed by the name with its suffix elided (a later target with
//!   the same key replaces an earlier one) and printed by count (largest first), then
//!   name (last first).
//!
//! Two versions of the tool print differently ([`Dialect`]).

use alloc::collections::btree_map::{BTreeMap, Entry};
use alloc::vec::Vec;
use core::fmt::Write;

use super::afdo::{compressed_offset, location, Loc};
use crate::formats::sample::model::{FunctionSamples, NameId, Profile, MAX_DEPTH};

/// Which `dump_gcov` to print like: each version of the file was read by the tool
/// of its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// autofdo up to 0.19 (reads the v1 layout): `name total:T head:H`, targets
    /// `name:count` with everything from the first `.` elided; a repeated top-level
    /// function is merged.
    Legacy,
    /// autofdo 0.20 to 0.30 (GCOV v1 and v2): the lines of [`Dialect::Legacy`], the
    /// "selected" suffixes elided, and a repeated top-level function ignored once
    /// one with samples was read.
    Autofdo030,
    /// autofdo with GCOV v3 (file names, timestamps): `name:file total:T head:H
    /// timestamp: S`, targets `name:file:count` (the file of the function holding
    /// the call), otherwise as [`Dialect::Autofdo030`].
    Current,
}

impl Dialect {
    /// The dump_gcov that reads the file this profile came from: [`Dialect::Current`]
    /// for profiles with file names (v3, v4), [`Dialect::Legacy`] otherwise.
    pub fn of(profile: &Profile) -> Self {
        if profile.kind.file_names || !profile.files.is_empty() {
            Dialect::Current
        } else {
            Dialect::Legacy
        }
    }
}

/// Appends `dump_gcov`'s text for the profile to `out`, in the [`Dialect::of`] it.
pub fn write(profile: &Profile, out: &mut Vec<u8>) {
    write_dialect(profile, Dialect::of(profile), out);
}

/// Appends `dump_gcov`'s text for the profile to `out`, as `dialect` prints it.
pub fn write_dialect(profile: &Profile, dialect: Dialect, out: &mut Vec<u8>) {
    let mut top: BTreeMap<Vec<u8>, Symbol> = BTreeMap::new();
    for f in &profile.functions {
        let mut s = Symbol::build(profile, dialect, f, 0);
        s.head = f.head;
        s.timestamp = f.timestamp;
        match top.entry(s.name.clone()) {
            Entry::Vacant(e) => {
                e.insert(s);
            }
            Entry::Occupied(mut e) => {
                let known = e.get_mut();
                match dialect {
                    Dialect::Legacy => known.absorb(s),
                    Dialect::Autofdo030 | Dialect::Current => {
                        // The reader sets the file and timestamp of every copy it reads,
                        // but takes samples only while the function has none.
                        known.file = core::mem::take(&mut s.file);
                        known.timestamp = s.timestamp;
                        if known.total == 0 {
                            known.absorb(s);
                        }
                    }
                }
            }
        }
    }
    let mut order: Vec<&Symbol> = top.values().filter(|s| s.total > 0).collect();
    order.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.name.cmp(&b.name)));
    for s in order {
        s.print(dialect, 0, out);
    }
}

/// A position of a symbol: its count and call targets by (elided) name.
#[derive(Default)]
struct Position {
    count: u64,
    targets: BTreeMap<Vec<u8>, u64>,
}

/// autofdo's `Symbol` as its reader builds it.
#[derive(Default)]
struct Symbol {
    name: Vec<u8>,
    file: Vec<u8>,
    total: u64,
    head: u64,
    timestamp: u64,
    positions: BTreeMap<u32, Position>,
    callsites: BTreeMap<(u32, Vec<u8>), Symbol>,
}

impl Symbol {
    /// The symbol for `f`, inlined `depth` levels deep (callees past [`MAX_DEPTH`],
    /// which no decoder produces, are left out).
    fn build(profile: &Profile, dialect: Dialect, f: &FunctionSamples, depth: usize) -> Symbol {
        let mut s = Symbol { name: profile.names.bytes(f.name).into_owned(), ..Symbol::default() };
        s.file = file_name(profile, f.name);
        for b in &f.body {
            let position = s.positions.entry(compressed_offset(b.location)).or_default();
            position.count = position.count.saturating_add(b.samples);
            s.total = s.total.saturating_add(b.samples);
            for call in &b.calls {
                let name = profile.names.bytes(call.name);
                position.targets.insert(elide(dialect, &name), call.count);
            }
        }
        if depth < MAX_DEPTH {
            for c in &f.callsites {
                let callee = Symbol::build(profile, dialect, &c.callee, depth.saturating_add(1));
                // The reader creates an inlined symbol on the way to a position only.
                if callee.positions.is_empty() && callee.callsites.is_empty() {
                    continue;
                }
                s.total = s.total.saturating_add(callee.total);
                match s.callsites.entry((compressed_offset(c.location), callee.name.clone())) {
                    Entry::Vacant(e) => {
                        e.insert(callee);
                    }
                    Entry::Occupied(mut e) => e.get_mut().absorb(callee),
                }
            }
        }
        s
    }

    /// Adds `other`'s counts into this symbol (same name).
    fn absorb(&mut self, other: Symbol) {
        self.total = self.total.saturating_add(other.total);
        self.head = self.head.saturating_add(other.head);
        for (offset, p) in other.positions {
            let mine = self.positions.entry(offset).or_default();
            mine.count = mine.count.saturating_add(p.count);
            mine.targets.extend(p.targets);
        }
        for (key, callee) in other.callsites {
            match self.callsites.entry(key) {
                Entry::Vacant(e) => {
                    e.insert(callee);
                }
                Entry::Occupied(mut e) => e.get_mut().absorb(callee),
            }
        }
    }

    /// `Symbol::Dump(indent)`: the header line (its indentation, and the location of
    /// an inlined one, already printed by the caller), then positions and callsites.
    fn print(&self, dialect: Dialect, indent: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.name);
        if dialect == Dialect::Current {
            out.push(b':');
            out.extend_from_slice(&self.file);
        }
        let mut o = Out(out);
        let _ = write!(o, " total:{}", self.total);
        if indent == 0 {
            let _ = write!(o, " head:{}", self.head);
            if dialect == Dialect::Current {
                let _ = write!(o, " timestamp: {}", self.timestamp);
            }
        }
        out.push(b'\n');
        let inner = indent.saturating_add(2);
        for (&offset, p) in &self.positions {
            spaces(out, inner);
            let _ = write!(Out(out), "{}: {}", Loc(location(offset)), p.count);
            let mut targets: Vec<(&Vec<u8>, u64)> = p.targets.iter().map(|(n, &c)| (n, c)).collect();
            targets.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(a.0)));
            for (name, count) in targets {
                out.extend_from_slice(b"  ");
                out.extend_from_slice(name);
                if dialect == Dialect::Current {
                    out.push(b':');
                    out.extend_from_slice(&self.file);
                }
                let _ = write!(Out(out), ":{count}");
            }
            out.push(b'\n');
        }
        for ((offset, _), callee) in &self.callsites {
            spaces(out, inner);
            let _ = write!(Out(out), "{}: ", Loc(location(*offset)));
            callee.print(dialect, inner, out);
        }
    }
}

/// The file a name's function is in, or "" when the profile does not say.
fn file_name(profile: &Profile, name: NameId) -> Vec<u8> {
    let file = profile.names.get(name).and_then(|e| e.file);
    let file = file.and_then(|f| usize::try_from(f).ok()).and_then(|f| profile.files.get(f));
    file.cloned().unwrap_or_default()
}

/// A call target's name as the reader keys it (`SymbolMap::GetOriginalName`).
fn elide(dialect: Dialect, name: &[u8]) -> Vec<u8> {
    match dialect {
        // Everything from the first '.'.
        Dialect::Legacy => name.split(|&b| b == b'.').next().unwrap_or(name).to_vec(),
        // The "selected" policy: the last ".cold", then ".llvm." and ".__part." with
        // what follows them up to the next '.' (".lto_priv" and ".isra" are listed
        // but never stripped: only suffixes starting and ending with '.' are).
        Dialect::Autofdo030 | Dialect::Current => {
            let mut cand = name.to_vec();
            if let Some(at) = rfind(&cand, b".cold") {
                cand.drain(at..at.saturating_add(5));
            }
            if name.len() >= 2 {
                for suffix in [&b".llvm."[..], b".__part."] {
                    let Some(at) = rfind(&cand, suffix) else { continue };
                    let after = at.saturating_add(suffix.len());
                    let rest = cand.get(after..).unwrap_or(&[]);
                    let end = rest.iter().position(|&b| b == b'.').map_or(cand.len(), |p| after.saturating_add(p));
                    cand.drain(at..end);
                }
            }
            cand
        }
    }
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

fn spaces(out: &mut Vec<u8>, n: usize) {
    out.extend(core::iter::repeat_n(b' ', n));
}

/// `fmt::Write` onto the output bytes.
struct Out<'a>(&'a mut Vec<u8>);

impl Write for Out<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_elided_like_autofdo() {
        assert_eq!(elide(Dialect::Legacy, b"foo.cold.1"), b"foo");
        assert_eq!(elide(Dialect::Legacy, b".hidden"), b"");
        assert_eq!(elide(Dialect::Current, b"foo.llvm.1234"), b"foo");
        assert_eq!(elide(Dialect::Current, b"foo.llvm.1234.cold"), b"foo");
        assert_eq!(elide(Dialect::Current, b"foo.__part.3.isra.0"), b"foo.isra.0");
        assert_eq!(elide(Dialect::Current, b"foo.lto_priv.0"), b"foo.lto_priv.0");
        assert_eq!(elide(Dialect::Current, b"a.cold.cold"), b"a.cold");
    }
}
