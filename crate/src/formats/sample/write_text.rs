//! The [`Profile`] model as LLVM sample-profile text, byte for byte what
//! `llvm-profdata merge --sample --text` writes (LLVM 22, `SampleProfileWriterText`
//! and `sortFuncProfiles`).
//!
//! ```text
//! NAME:TOTAL:HEAD                       top-level functions, most samples first,
//!  LINE[.DISC]: COUNT[ TARGET:COUNT]...   ties by name (or context)
//!  LINE[.DISC]: vtables TYPE:COUNT ...  after the body line at that location
//!  LINE[.DISC]: CALLEE:TOTAL            inlined callees by location then name,
//!   ...                                 their lines one space deeper
//!  LINE[.DISC]: vtables TYPE:COUNT ...  after the callees at that location
//!  !CFGChecksum: N                      every profile, when probe-based
//!  !Attributes: N                       when not 0
//! ```
//!
//! Body lines go by location, call targets by count descending then name, vtables
//! by name, each followed by a space. In a context-sensitive profile every header,
//! inlined callees' too, is in brackets: `[main:1 @ foo:2.1 @ bar]:TOTAL:HEAD`
//! (the last frame's line is not printed), `[callee]:TOTAL`. MD5 names print in
//! decimal. `merge` prints neither `!Flat` nor anything for an empty vtable list.
//!
//! The writer appends to one buffer with its own integer formatting (no `format!`
//! per line) and walks inlinees with an explicit stack.

use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::digits::push_unsigned;
use crate::formats::sample::model::{FunctionSamples, LineLocation, Name, NameId, Names, Profile, TypeSamples};

/// Appends the profile's text to `out`.
pub fn write(profile: &Profile, out: &mut Vec<u8>) {
    write_functions(profile, out, &mut |_| true);
}

/// The text in pieces of about `chunk` bytes, each handed to `sink` as soon as it is
/// written, so the whole text (as large as the profile's text file) is never held.
pub fn write_chunks<E>(profile: &Profile, chunk: usize, sink: &mut dyn FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
    let mut out = Vec::with_capacity(chunk.saturating_add(chunk / 2));
    let mut error = None;
    write_functions(profile, &mut out, &mut |out| {
        if out.len() >= chunk {
            error = sink(out).err();
            out.clear();
        }
        error.is_none()
    });
    match error {
        Some(e) => Err(e),
        None => sink(&out),
    }
}

/// Writes every top-level function in LLVM's order, calling `after` with the output
/// after each one; stops when it returns false.
fn write_functions(profile: &Profile, out: &mut Vec<u8>, after: &mut dyn FnMut(&mut Vec<u8>) -> bool) {
    let names = &profile.names;
    let mut order: Vec<&FunctionSamples> = profile.functions.iter().collect();
    // `sortFuncProfiles`: a stable sort by total samples descending, then context.
    order.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| context_cmp(names, a, b)));
    let writer = Writer { names, cs: profile.kind.context_sensitive, probe: profile.kind.probe_based };
    for f in order {
        writer.function(f, out);
        if !after(out) {
            return;
        }
    }
}

/// `SampleContext::operator<`: plain names before contexts; names by
/// [`Names::cmp`]; contexts frame by frame (name, then location), then by length.
fn context_cmp(names: &Names, a: &FunctionSamples, b: &FunctionSamples) -> Ordering {
    match (a.context.is_empty(), b.context.is_empty()) {
        (true, true) => names.cmp(a.name, b.name),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a
            .context
            .iter()
            .zip(&b.context)
            .map(|(x, y)| names.cmp(x.name, y.name).then(x.location.cmp(&y.location)))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.context.len().cmp(&b.context.len())),
    }
}

struct Writer<'p> {
    names: &'p Names,
    cs: bool,
    probe: bool,
}

/// An open profile of the walk: the function, its depth (0 for top level) and the
/// next of its callsites to write.
struct Open<'p> {
    f: &'p FunctionSamples,
    depth: usize,
    next: usize,
}

impl<'p> Writer<'p> {
    /// A top-level function and its inlinees (`writeSample`).
    fn function(&self, top: &'p FunctionSamples, out: &mut Vec<u8>) {
        self.head(top, 0, out);
        let mut stack = alloc::vec![Open { f: top, depth: 0, next: 0 }];
        while let Some(open) = stack.last_mut() {
            let (f, depth, i) = (open.f, open.depth, open.next);
            open.next = i.saturating_add(1);
            // After the last callee at a location, that location's vtables.
            if let Some(previous) = i.checked_sub(1).and_then(|p| f.callsites.get(p)) {
                if f.callsites.get(i).is_none_or(|c| c.location != previous.location) {
                    self.vtables(f, previous.location, depth.saturating_add(1), out);
                }
            }
            match f.callsites.get(i) {
                Some(c) => {
                    let depth = depth.saturating_add(1);
                    indent(out, depth);
                    location(out, c.location);
                    out.extend_from_slice(b": ");
                    self.head(&c.callee, depth, out);
                    stack.push(Open { f: &c.callee, depth, next: 0 });
                }
                None => {
                    self.metadata(f, depth, out);
                    stack.pop();
                }
            }
        }
    }

    /// The header line and the body lines (with their vtables) of `f`.
    fn head(&self, f: &FunctionSamples, depth: usize, out: &mut Vec<u8>) {
        if self.cs {
            out.push(b'[');
            self.context(f, out);
            out.extend_from_slice(b"]:");
        } else {
            self.name(f.name, out);
            out.push(b':');
        }
        push_unsigned(out, f.total);
        if depth == 0 {
            out.push(b':');
            push_unsigned(out, f.head);
        }
        out.push(b'\n');
        let mut sorted = Vec::new();
        for b in &f.body {
            indent(out, depth.saturating_add(1));
            location(out, b.location);
            out.extend_from_slice(b": ");
            push_unsigned(out, b.samples);
            let calls = match b.calls.as_slice() {
                [] | [_] => &b.calls,
                _ => {
                    sorted.clear();
                    sorted.extend_from_slice(&b.calls);
                    // `SampleRecord::getSortedCallTargets`.
                    sorted.sort_by(|x, y| y.count.cmp(&x.count).then_with(|| self.names.cmp(x.name, y.name)));
                    &sorted
                }
            };
            for call in calls {
                out.push(b' ');
                self.name(call.name, out);
                out.push(b':');
                push_unsigned(out, call.count);
            }
            out.push(b'\n');
            self.vtables(f, b.location, depth.saturating_add(1), out);
        }
    }

    /// `SampleContext::toString`: the frames joined by ` @ `, each but the last
    /// with its line; a function without context is its name.
    fn context(&self, f: &FunctionSamples, out: &mut Vec<u8>) {
        let Some((leaf, callers)) = f.context.split_last() else {
            self.name(f.name, out);
            return;
        };
        for frame in callers {
            self.name(frame.name, out);
            out.push(b':');
            location(out, frame.location);
            out.extend_from_slice(b" @ ");
        }
        self.name(leaf.name, out);
    }

    /// The vtables line for `at` in `f`, if it has a non-empty one.
    fn vtables(&self, f: &FunctionSamples, at: LineLocation, depth: usize, out: &mut Vec<u8>) {
        let Ok(i) = f.types.binary_search_by(|t| t.location.cmp(&at)) else { return };
        let Some(TypeSamples { types, .. }) = f.types.get(i) else { return };
        if types.is_empty() {
            return;
        }
        indent(out, depth);
        location(out, at);
        out.extend_from_slice(b": vtables ");
        let mut types: Vec<_> = types.iter().collect();
        // `TypeCountMap` is a `std::map` keyed by name.
        types.sort_by(|x, y| self.names.cmp(x.name, y.name));
        for t in types {
            self.name(t.name, out);
            out.push(b':');
            push_unsigned(out, t.count);
            out.push(b' ');
        }
        out.push(b'\n');
    }

    fn metadata(&self, f: &FunctionSamples, depth: usize, out: &mut Vec<u8>) {
        if self.probe {
            indent(out, depth.saturating_add(1));
            out.extend_from_slice(b"!CFGChecksum: ");
            push_unsigned(out, f.checksum.unwrap_or(0));
            out.push(b'\n');
        }
        if f.attributes != 0 {
            indent(out, depth.saturating_add(1));
            out.extend_from_slice(b"!Attributes: ");
            push_unsigned(out, u64::from(f.attributes));
            out.push(b'\n');
        }
    }

    /// `FunctionId`'s output: the bytes, or the MD5 in decimal.
    fn name(&self, id: NameId, out: &mut Vec<u8>) {
        match self.names.name(id) {
            Some(Name::Bytes(b)) => out.extend_from_slice(b),
            Some(Name::Md5(h)) => push_unsigned(out, *h),
            None => {}
        }
    }
}

/// `LineLocation::print`: the line, and `.DISC` when the discriminator is not 0.
fn location(out: &mut Vec<u8>, at: LineLocation) {
    push_unsigned(out, u64::from(at.line));
    if at.discriminator != 0 {
        out.push(b'.');
        push_unsigned(out, u64::from(at.discriminator));
    }
}

fn indent(out: &mut Vec<u8>, depth: usize) {
    out.resize(out.len().saturating_add(depth), b' ');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::sample::decode_text::decode;

    fn round_trip(text: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        write(&decode(text).unwrap(), &mut out);
        out
    }

    #[test]
    fn integers() {
        for n in [0, 7, 10, 65535, u64::MAX] {
            let mut out = Vec::new();
            push_unsigned(&mut out, n);
            assert_eq!(out, alloc::format!("{n}").as_bytes());
        }
    }

    #[test]
    fn functions_by_total_then_name_and_targets_by_count_then_name() {
        let text = b"b:5:0\n 2: 1\n 1: 4 y:2 x:2 z:3\na:5:1\nc:9:0\n";
        assert_eq!(round_trip(text), b"c:9:0\na:5:1\nb:5:0\n 1: 4 z:3 x:2 y:2\n 2: 1\n");
    }

    #[test]
    fn callees_by_location_then_name_with_vtables_after_each_location() {
        let text = b"f:10:1\n 2: y:3\n  1: 3\n 2: x:4\n 2: vtables b:1 a:2\n 1: 5\n 1: vtables t:1\n";
        let expected = b"f:10:1\n 1: 5\n 1: vtables t:1 \n 2: x:4\n 2: y:3\n  1: 3\n 2: vtables a:2 b:1 \n";
        assert_eq!(round_trip(text), expected);
    }

    #[test]
    fn cs_headers_and_metadata() {
        let text = b"[main:1.5 @ foo:2 @ bar]:10:1\n 1: 10\n 2: baz:5\n  1: 5\n  !Attributes: 4\n !CFGChecksum: 3\n";
        let expected = b"[main:1.5 @ foo:2 @ bar]:10:1\n 1: 10\n 2: [baz]:5\n  1: 5\n  !CFGChecksum: 0\n  !Attributes: 4\n !CFGChecksum: 3\n";
        assert_eq!(round_trip(text), expected);
    }
}
