//! pgolens: decoders for compiler and optimizer profiles.
//!
//! Linux `perf.data`, BOLT profiles (fdata, pre-aggregated, YAML, BAT), LLVM
//! instrumentation profiles (raw, indexed, text, MemProf) and sample profiles (text,
//! binary, extbinary), GCC AutoFDO and the proposed AutoFDO GCOV v4.
//!
//! The crate is `#![no_std]` + `alloc` and never panics on input: every failure is an
//! [`Error`] that says where (byte offset, or line) and what was expected.
//!
//! Data flows one way: bytes → [`read::Reader`] → a format module in [`formats`] →
//! a [`dump::Node`] tree (and, in later layers, view models).

#![no_std]
#![cfg_attr(test, allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::arithmetic_side_effects))]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod compress;
pub mod detect;
pub mod digits;
pub mod dump;
pub mod error;
pub mod format;
pub mod formats;
pub mod layout;
pub mod model;
pub mod read;
pub mod summary;
pub mod symbolize;

use alloc::borrow::Cow;
use alloc::vec::Vec;

pub use detect::detect;
pub use dump::{Deferred, Node};
pub use error::{Error, ErrorKind, Location, Result};
pub use format::{Detection, Format};

/// The input as the decoders see it: gzip- and zstd-compressed files are decompressed here.
pub struct Input<'a> {
    pub data: Cow<'a, [u8]>,
    pub gzip: bool,
    pub zstd: bool,
}

/// Opens raw file bytes: decompresses gzip and zstd (by magic), leaves everything else borrowed.
pub fn open(file: &[u8]) -> Result<Input<'_>> {
    if compress::is_gzip(file) {
        let data = compress::gunzip(file)?;
        Ok(Input { data: Cow::Owned(data), gzip: true, zstd: false })
    } else if compress::is_zstd(file) {
        let data = compress::unzstd(file)?;
        Ok(Input { data: Cow::Owned(data), gzip: false, zstd: true })
    } else {
        Ok(Input { data: Cow::Borrowed(file), gzip: false, zstd: false })
    }
}

impl Input<'_> {
    /// What the file was compressed with, if it was.
    pub fn compression(&self) -> Option<&'static str> {
        match (self.gzip, self.zstd) {
            (true, _) => Some("gzip"),
            (_, true) => Some("zstd"),
            _ => None,
        }
    }

    /// An error of a decoder that read [`Input::data`], located in the file: in a
    /// compressed file, its offset is said to be one in the decompressed content.
    pub fn locate(&self, e: Error) -> Error {
        match self.compression() {
            Some(compression) => e.in_decompressed(compression),
            None => e,
        }
    }

    /// Detects the format of the (decompressed) content.
    pub fn detect(&self) -> Result<Detection> {
        let mut detection = detect(&self.data).map_err(|e| self.locate(e))?;
        detection.gzip = self.gzip;
        detection.zstd = self.zstd;
        Ok(detection)
    }
}

/// Detects the format of raw file bytes, decompressing a compressed file only as far
/// as detection needs ([`compress::SNIFF_PREFIX`]); an ELF (whose section headers
/// are at its end) or a prefix nothing matched is decompressed whole.
pub fn sniff(file: &[u8]) -> Result<Detection> {
    if !compress::is_gzip(file) && !compress::is_zstd(file) {
        return detect(file);
    }
    let prefix = compress::decompressed_prefix(file, compress::SNIFF_PREFIX)?;
    let cut = prefix.len() == compress::SNIFF_PREFIX;
    let input = Input { gzip: compress::is_gzip(file), zstd: compress::is_zstd(file), data: Cow::Owned(prefix) };
    match input.detect() {
        Ok(d) if cut && matches!(d.format, Format::Elf | Format::ElfWithBat) => open(file)?.detect(),
        Err(_) if cut => open(file)?.detect(),
        other => other,
    }
}

/// Dumps `data`, detected as `detection`, into a tree that tiles it.
pub fn dump(data: &[u8], detection: &Detection) -> Result<Node> {
    let mut root = match detection.format {
        Format::PerfData | Format::PerfDataPipe => formats::perf::dump(data, detection)?,
        Format::InstrProfRaw | Format::InstrProfIndexed | Format::MemProfRaw => {
            formats::instrprof::dump(data, detection)?
        }
        Format::SampleBinary | Format::SampleExtBinary => formats::sample::dump(data, detection)?,
        Format::GcovAfdo | Format::GcovV4 => formats::gcov::dump(data, detection)?,
        Format::Elf | Format::ElfWithBat => formats::elf::dump(data, detection)?,
        _ => formats::text::dump(data, detection)?,
    };
    root.tile_deep()?;
    Ok(root)
}

/// [`dump`], and for a binary or extbinary sample profile also its decoded profile,
/// from the same pass (those dumps are a full decode).
pub fn dump_with_sample_profile(
    data: &[u8],
    detection: &Detection,
) -> Result<(Node, Option<formats::sample::model::Profile>)> {
    match detection.format {
        Format::SampleBinary | Format::SampleExtBinary => formats::sample::binary::dump_and_decode(data, true),
        _ => Ok((dump(data, detection)?, None)),
    }
}

/// Builds the children of a node that [`dump`] left deferred, tiled like the rest.
pub fn expand(data: &[u8], detection: &Detection, deferred: &Deferred) -> Result<Vec<Node>> {
    let mut parent = Node::new("", deferred.start, deferred.end);
    parent.children = expand_raw(data, detection, deferred)?;
    parent.tile_deep()?;
    Ok(parent.children)
}

fn expand_raw(data: &[u8], detection: &Detection, deferred: &Deferred) -> Result<Vec<Node>> {
    match detection.format {
        f if f.is_text() => formats::text::expand(data, deferred),
        Format::PerfData | Format::PerfDataPipe => formats::perf::expand(data, detection, deferred),
        // Raw profiles' tags, and names chunks that indexed profiles share with them.
        Format::InstrProfRaw | Format::InstrProfIndexed if formats::instrprof::raw::owns(deferred) => {
            formats::instrprof::raw::expand(data, deferred)
        }
        Format::InstrProfIndexed => formats::instrprof::indexed::expand(data, deferred),
        Format::SampleBinary | Format::SampleExtBinary => formats::sample::binary::expand(data, deferred),
        Format::GcovV4 => formats::gcov::v4::expand(data, deferred),
        _ => Err(Error::malformed(deferred.start, "no deferred children in this format")),
    }
}

/// Detects and dumps in one call, expanding every deferred node: what `pgolens dump`
/// and the tests use. Viewers should call [`dump`] and [`expand`] on demand instead.
pub fn dump_all(data: &[u8], detection: &Detection) -> Result<Node> {
    let mut root = dump(data, detection)?;
    expand_all(data, detection, &mut root)?;
    Ok(root)
}

fn expand_all(data: &[u8], detection: &Detection, node: &mut Node) -> Result<()> {
    if let Some(deferred) = node.deferred.take() {
        node.children = expand(data, detection, &deferred)?;
    }
    for child in &mut node.children {
        expand_all(data, detection, child)?;
    }
    Ok(())
}
