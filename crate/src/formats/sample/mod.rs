//! LLVM sample profiles: text, raw binary and extensible binary (`SPF_Ext_Binary`),
//! plus recognition of the obsolete compact binary. GCC's AutoFDO files are in
//! [`crate::formats::gcov`].
//!
//! Layout notes: `shared/formats/llvm-sample-profiles.md`.

pub mod binary;
pub mod decode_binary;
pub mod decode_text;
pub mod model;
pub mod text;
pub mod write_text;

use crate::dump::Node;
use crate::error::Result;
use crate::format::{Detection, Format};
use crate::read::{Endian, Reader};

/// `SPMagic(F)`: "SPROF42" then the format byte, stored as ULEB128.
pub const fn magic(format: u8) -> u64 {
    u64::from_be_bytes([b'S', b'P', b'R', b'O', b'F', b'4', b'2', format])
}

pub const MAGIC_BINARY: u64 = magic(0xff);
pub const MAGIC_COMPACT_BINARY: u64 = magic(2);
pub const MAGIC_EXT_BINARY: u64 = magic(4);

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    // A cheap gate before decoding a LEB128: every SPMagic encodes to 9 bytes whose
    // second to ninth are fixed.
    if data.get(1..9) != Some(&[0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53][..])
        && data.get(1..9) != Some(&[0xe5, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53][..])
    {
        return Ok(None);
    }
    let mut r = Reader::new(data, Endian::Little);
    let detection = match r.uleb128("sample profile magic") {
        Ok(MAGIC_BINARY) => Detection::new(Format::SampleBinary),
        Ok(MAGIC_COMPACT_BINARY) => Detection::new(Format::SampleBinary).flag("compact (obsolete)"),
        Ok(MAGIC_EXT_BINARY) => Detection::new(Format::SampleExtBinary),
        _ => return Ok(None),
    };
    let version = r.uleb128("sample profile version")?;
    Ok(Some(detection.version(version)))
}

pub fn dump(data: &[u8], detection: &Detection) -> Result<Node> {
    binary::dump(data, detection)
}

/// Decodes an LLVM sample profile (text, raw binary or extbinary) into the model.
pub fn decode(data: &[u8], detection: &Detection) -> Result<model::Profile> {
    match detection.format {
        Format::SampleText => decode_text::decode(data),
        _ => decode_binary::decode(data),
    }
}
