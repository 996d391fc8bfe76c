//! A profile as bytes, to hand it from one decoding worker to another (wasm
//! instances share no memory): its events, frames, nodes and samples, no index.
//! Little-endian. Read back through the profile's own interning, so that bytes
//! written elsewhere give an error or a consistent profile, never a panic; no
//! count makes room for more than the bytes left could hold.

use alloc::string::String;
use alloc::vec::Vec;

use super::{FrameKind, StackProfile};
use crate::error::{Error, Result};
use crate::read::Reader;

/// "No DSO", "no line".
const NONE: u32 = u32::MAX;

impl StackProfile {
    /// Appends the profile's bytes to `out` ([`StackProfile::read_wire`] reads them).
    pub fn write_wire(&self, out: &mut Vec<u8>) {
        put_len(out, self.events.len());
        for event in &self.events {
            put_str(out, event);
        }
        put_len(out, self.dsos.len());
        for dso in &self.dsos {
            put_str(out, dso);
        }
        put_len(out, self.frames.len());
        for f in &self.frames {
            put_str(out, &f.name);
            put_u32(out, f.dso.unwrap_or(NONE));
            out.push(kind_code(f.kind));
            match &f.source {
                None => out.push(0),
                Some(s) => {
                    out.push(1);
                    put_str(out, s.raw.as_deref().unwrap_or(&f.name));
                    put_str(out, s.file.as_deref().unwrap_or_default());
                    out.push(u8::from(s.file.is_some()));
                    put_u32(out, s.line.unwrap_or(NONE));
                }
            }
        }
        // The root is implied.
        put_len(out, self.nodes.parent.len().saturating_sub(1));
        for (&parent, &frame) in self.nodes.parent.iter().zip(&self.nodes.frame).skip(1) {
            put_u32(out, parent);
            put_u32(out, frame);
        }
        put_len(out, self.leaf.len());
        for &leaf in &self.leaf {
            put_u32(out, leaf);
        }
        for time in self.time.iter() {
            put_u64(out, time);
        }
        out.push(u8::from(!self.weight.is_empty()));
        for &w in &self.weight {
            put_u64(out, w);
        }
        out.push(u8::from(!self.event.is_empty()));
        for &e in &self.event {
            out.extend_from_slice(&e.to_le_bytes());
        }
    }

    /// A profile from the bytes [`StackProfile::write_wire`] wrote, read from `r`.
    pub fn read_wire(r: &mut Reader<'_>) -> Result<StackProfile> {
        let mut p = StackProfile::new();
        for _ in 0..count(r, 4, "the events")? {
            p.add_event(string(r, "an event's name")?);
        }
        let mut dsos = Vec::new();
        for _ in 0..count(r, 4, "the DSOs")? {
            dsos.push(String::from(string(r, "a DSO's name")?));
        }
        for _ in 0..count(r, 10, "the frames")? {
            let at = r.offset();
            let name = string(r, "a frame's name")?;
            let dso = match r.u32("a frame's DSO")? {
                NONE => None,
                d => Some(dsos.get(d as usize).ok_or(Error::invalid(at, "a frame's DSO among the DSOs", d.into()))?),
            };
            let code = r.u8("a frame's kind")?;
            let kind = kind_of(code).ok_or(Error::invalid(at, "a frame kind (0 to 3)", code.into()))?;
            let id = p.frame(name, dso.map(String::as_str), kind);
            if u32::try_from(p.frames.len()).ok() != id.checked_add(1) {
                return Err(Error::malformed(at, "a frame not given before"));
            }
            if r.u8("whether the frame has a source")? != 0 {
                let raw = string(r, "a frame's raw name")?;
                let file = string(r, "a frame's source file")?;
                let has_file = r.u8("whether the frame has a source file")? != 0;
                let line = r.u32("a frame's source line")?;
                p.describe(id, raw, has_file.then_some(file), (line != NONE).then_some(line));
            }
        }
        for n in 1..=count(r, 8, "the stack nodes")? {
            let at = r.offset();
            let parent = r.u32("a node's parent")?;
            let frame = r.u32("a node's frame")?;
            // Parents come first: each node is new, and lands at its own index.
            let made = (parent < n).then(|| p.child(parent, frame)).flatten();
            if made != Some(n) {
                return Err(Error::malformed(at, "a new node under a node given before"));
            }
        }
        let samples = count(r, 12, "the samples")?;
        let leaves = r.bytes(u64::from(samples).saturating_mul(4), "the samples' leaves")?;
        let times = r.bytes(u64::from(samples).saturating_mul(8), "the samples' times")?;
        let weights = match r.u8("whether the samples' weights are stored")? {
            0 => None,
            _ => Some(r.bytes(u64::from(samples).saturating_mul(8), "the samples' weights")?),
        };
        let events = match r.u8("whether the samples' events are stored")? {
            0 => None,
            _ => Some(r.bytes(u64::from(samples).saturating_mul(2), "the samples' events")?),
        };
        p.reserve_samples(samples as usize);
        let at = r.offset();
        for i in 0..samples as usize {
            let word = |bytes: &[u8], size: usize| -> u64 {
                let start = i.saturating_mul(size);
                bytes
                    .get(start..start.saturating_add(size))
                    .map_or(0, |b| b.iter().rev().fold(0u64, |acc, &byte| (acc << 8) | u64::from(byte)))
            };
            let leaf = u32::try_from(word(leaves, 4)).unwrap_or(u32::MAX);
            let weight = weights.map_or(1, |w| word(w, 8));
            let event = u32::try_from(events.map_or(0, |e| word(e, 2))).unwrap_or(u32::MAX);
            if p.push_sample_at(event, word(times, 8), weight, leaf).is_none() {
                return Err(Error::malformed(at, "a sample of a known event and node"));
            }
        }
        Ok(p)
    }
}

/// A count of items of at least `size` bytes each, no more than the bytes left hold.
pub(crate) fn count(r: &mut Reader<'_>, size: u64, expected: &'static str) -> Result<u32> {
    let at = r.offset();
    let n = r.u32(expected)?;
    if !r.holds(n.into(), size) {
        return Err(Error::invalid(at, expected, n.into()));
    }
    Ok(n)
}

pub(crate) fn string<'a>(r: &mut Reader<'a>, expected: &'static str) -> Result<&'a str> {
    let len = r.u32(expected)?;
    let at = r.offset();
    let bytes = r.bytes(len.into(), expected)?;
    core::str::from_utf8(bytes).map_err(|_| Error::malformed(at, "UTF-8 text"))
}

pub(crate) fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

pub(crate) fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

pub(crate) fn put_len(out: &mut Vec<u8>, len: usize) {
    put_u32(out, u32::try_from(len).unwrap_or(u32::MAX));
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn kind_code(kind: FrameKind) -> u8 {
    match kind {
        FrameKind::User => 0,
        FrameKind::Kernel => 1,
        FrameKind::Inlined => 2,
        FrameKind::Unknown => 3,
    }
}

fn kind_of(code: u8) -> Option<FrameKind> {
    Some(match code {
        0 => FrameKind::User,
        1 => FrameKind::Kernel,
        2 => FrameKind::Inlined,
        3 => FrameKind::Unknown,
        _ => return None,
    })
}
