//! What one reader of a recording read of its first part, for another reader to
//! join ([`super::StackReader::join`]), and its bytes, to hand it from one wasm
//! instance to another.

use alloc::string::String;
use alloc::vec::Vec;

use super::{Addresses, Location, PerfStacks};
use crate::error::{Error, Result};
use crate::formats::perf::dsos::DsoCount;
use crate::model::stacks::wire::{count, put_len, put_str, put_u32, put_u64, string};
use crate::model::stacks::StackProfile;
use crate::read::{Endian, Reader};

/// What a [`super::StackReader`] read of the first part of a recording, for another
/// reader, which replayed that part and read the rest, to put before its own
/// ([`super::StackReader::join`]).
#[derive(Debug)]
pub struct StacksPart {
    pub stacks: PerfStacks,
    /// The samples of each DSO, when counted.
    pub dsos: Option<DsoCount>,
}

impl StacksPart {
    /// The part as bytes, for a reader in another wasm instance
    /// ([`StacksPart::from_bytes`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.stacks.profile.write_wire(&mut out);
        let addresses = &self.stacks.addresses;
        put_len(&mut out, addresses.dsos.len());
        for (path, build_id) in &addresses.dsos {
            put_str(&mut out, path);
            out.push(u8::from(build_id.is_some()));
            let id = build_id.as_deref().unwrap_or_default();
            put_len(&mut out, id.len());
            out.extend_from_slice(id);
        }
        put_len(&mut out, addresses.locations.len());
        for location in &addresses.locations {
            match *location {
                Location::File { dso, offset } => {
                    out.push(0);
                    put_u32(&mut out, dso);
                    put_u64(&mut out, offset);
                }
                Location::Kernel { address } => {
                    out.push(1);
                    put_u64(&mut out, address);
                }
                Location::Fixed => out.push(2),
            }
        }
        out.push(u8::from(addresses.stack_copies));
        out.push(u8::from(self.dsos.is_some()));
        let counts = self.dsos.as_ref().map(DsoCount::counts).unwrap_or_default();
        put_len(&mut out, counts.len());
        for &(samples, kernel) in counts {
            put_u64(&mut out, samples);
            out.push(u8::from(kernel));
        }
        out
    }

    /// A part from the bytes [`StacksPart::to_bytes`] wrote: an error (with its
    /// offset) for any others, never a part whose frames and locations disagree.
    pub fn from_bytes(bytes: &[u8]) -> Result<StacksPart> {
        let mut r = Reader::new(bytes, Endian::Little);
        let profile = StackProfile::read_wire(&mut r)?;
        let mut dsos = Vec::new();
        for _ in 0..count(&mut r, 9, "the DSOs")? {
            let path = String::from(string(&mut r, "a DSO's path")?);
            let known = r.u8("whether the DSO's build id is known")? != 0;
            let len = r.u32("a build id's length")?;
            let id = r.bytes(len.into(), "a build id")?;
            dsos.push((path, known.then(|| id.to_vec())));
        }
        let at = r.offset();
        let n = count(&mut r, 1, "the frames' locations")?;
        if n as usize != profile.frames().len() {
            return Err(Error::invalid(at, "a location per frame", n.into()));
        }
        let mut locations = Vec::new();
        for _ in 0..n {
            let at = r.offset();
            locations.push(match r.u8("a location's kind")? {
                0 => {
                    let dso = r.u32("a location's DSO")?;
                    if dso as usize >= dsos.len() {
                        return Err(Error::invalid(at, "a location's DSO among the DSOs", dso.into()));
                    }
                    Location::File { dso, offset: r.u64("a location's offset")? }
                }
                1 => Location::Kernel { address: r.u64("a kernel address")? },
                2 => Location::Fixed,
                kind => return Err(Error::invalid(at, "a location kind (0 to 2)", kind.into())),
            });
        }
        let stack_copies = r.u8("whether samples copied stacks")? != 0;
        let counted = r.u8("whether DSOs' samples were counted")? != 0;
        let mut counts = Vec::new();
        for _ in 0..count(&mut r, 9, "the DSOs' samples")? {
            counts.push((r.u64("a DSO's samples")?, r.u8("whether a kernel map holds the DSO")? != 0));
        }
        if !r.is_empty() {
            return Err(Error::malformed(r.offset(), "the part's end"));
        }
        let addresses = Addresses { locations, dsos, stack_copies };
        Ok(StacksPart { stacks: PerfStacks { profile, addresses }, dsos: counted.then(|| DsoCount::of_counts(counts)) })
    }
}
