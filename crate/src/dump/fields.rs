//! Reading fixed fields while recording each as a dump node.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt::Display;

use super::Node;
use crate::error::Result;
use crate::read::Reader;

/// Wraps a [`Reader`]: every read also appends a leaf node with the field's span.
pub struct Fields<'r, 'a> {
    pub reader: &'r mut Reader<'a>,
    pub nodes: Vec<Node>,
}

impl<'r, 'a> Fields<'r, 'a> {
    pub fn new(reader: &'r mut Reader<'a>) -> Self {
        Fields { reader, nodes: Vec::new() }
    }

    fn push(&mut self, label: impl Into<Cow<'static, str>>, start: u64, value: impl Display) {
        let end = self.reader.offset();
        self.nodes.push(Node::leaf(label, start, end, value));
    }

    pub fn u8(&mut self, label: &'static str) -> Result<u8> {
        let start = self.reader.offset();
        let v = self.reader.u8(label)?;
        self.push(label, start, v);
        Ok(v)
    }

    pub fn u16(&mut self, label: &'static str) -> Result<u16> {
        let start = self.reader.offset();
        let v = self.reader.u16(label)?;
        self.push(label, start, v);
        Ok(v)
    }

    pub fn u32(&mut self, label: &'static str) -> Result<u32> {
        let start = self.reader.offset();
        let v = self.reader.u32(label)?;
        self.push(label, start, v);
        Ok(v)
    }

    pub fn u32_hex(&mut self, label: &'static str) -> Result<u32> {
        let start = self.reader.offset();
        let v = self.reader.u32(label)?;
        self.push(label, start, format_args!("{v:#x}"));
        Ok(v)
    }

    pub fn u64(&mut self, label: &'static str) -> Result<u64> {
        let start = self.reader.offset();
        let v = self.reader.u64(label)?;
        self.push(label, start, v);
        Ok(v)
    }

    pub fn u64_hex(&mut self, label: &'static str) -> Result<u64> {
        let start = self.reader.offset();
        let v = self.reader.u64(label)?;
        self.push(label, start, format_args!("{v:#x}"));
        Ok(v)
    }

    pub fn uint(&mut self, width: usize, label: &'static str) -> Result<u64> {
        let start = self.reader.offset();
        let v = self.reader.uint(width, label)?;
        self.push(label, start, v);
        Ok(v)
    }

    pub fn uleb128(&mut self, label: &'static str) -> Result<u64> {
        let start = self.reader.offset();
        let v = self.reader.uleb128(label)?;
        self.push(label, start, v);
        Ok(v)
    }

    /// A run of raw bytes, shown as hex (at most the first 32 bytes).
    pub fn bytes(&mut self, len: u64, label: &'static str) -> Result<&'a [u8]> {
        let start = self.reader.offset();
        let v = self.reader.bytes(len, label)?;
        self.push(label, start, Hex(v));
        Ok(v)
    }

    /// A NUL-terminated string; the node covers the NUL too.
    pub fn cstr(&mut self, label: &'static str) -> Result<&'a [u8]> {
        let start = self.reader.offset();
        let v = self.reader.cstr(label)?;
        self.push(label, start, Text(v));
        Ok(v)
    }

    /// A node for a region read some other way (`start` to the reader's offset).
    pub fn node_since(&mut self, label: impl Into<Cow<'static, str>>, start: u64, value: impl Display) {
        self.push(label, start, value);
    }

    pub fn into_nodes(self) -> Vec<Node> {
        self.nodes
    }
}

/// Displays bytes as hex pairs, abbreviated past 32 bytes.
pub struct Hex<'a>(pub &'a [u8]);

impl Display for Hex<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.0.iter().take(32) {
            write!(f, "{b:02x}")?;
        }
        if self.0.len() > 32 {
            write!(f, "… ({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

/// Displays bytes as text, replacing invalid UTF-8 and abbreviating past 200 bytes.
pub struct Text<'a>(pub &'a [u8]);

impl Display for Text<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let shown = self.0.get(..200).unwrap_or(self.0);
        for chunk in shown.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("\u{fffd}")?;
            }
        }
        if self.0.len() > 200 {
            write!(f, "… ({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}
