//! The product's vocabulary of formats: every format id, and what detection
//! found out about a file (its version, word size, byte order, flags).
//!
//! Detection itself ([`crate::detect`]) sits above the format modules, which
//! describe what they find with these types.

use alloc::string::String;
use core::fmt;

use crate::read::Endian;

/// Every format the product reads. [`Format::id`] is the stable id used by the CLI,
/// the page and the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    PerfData,
    PerfDataPipe,
    BoltPreagg,
    BoltFdata,
    BoltYaml,
    Elf,
    ElfWithBat,
    InstrProfRaw,
    InstrProfIndexed,
    InstrProfText,
    MemProfRaw,
    SampleText,
    SampleBinary,
    SampleExtBinary,
    GcovAfdo,
    GcovV4,
    GcovV4Text,
    /// `/proc/kallsyms`: the kernel's symbols, which name kernel frames in perf stacks.
    Kallsyms,
}

impl Format {
    pub const ALL: [Format; 18] = [
        Format::PerfData,
        Format::PerfDataPipe,
        Format::BoltPreagg,
        Format::BoltFdata,
        Format::BoltYaml,
        Format::Elf,
        Format::ElfWithBat,
        Format::InstrProfRaw,
        Format::InstrProfIndexed,
        Format::InstrProfText,
        Format::MemProfRaw,
        Format::SampleText,
        Format::SampleBinary,
        Format::SampleExtBinary,
        Format::GcovAfdo,
        Format::GcovV4,
        Format::GcovV4Text,
        Format::Kallsyms,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Format::PerfData => "perf.data",
            Format::PerfDataPipe => "perf.data-pipe",
            Format::BoltPreagg => "bolt-preagg",
            Format::BoltFdata => "bolt-fdata",
            Format::BoltYaml => "bolt-yaml",
            Format::Elf => "elf",
            Format::ElfWithBat => "elf+bat",
            Format::InstrProfRaw => "instrprof-raw",
            Format::InstrProfIndexed => "instrprof-indexed",
            Format::InstrProfText => "instrprof-text",
            Format::MemProfRaw => "memprof-raw",
            Format::SampleText => "sample-text",
            Format::SampleBinary => "sample-binary",
            Format::SampleExtBinary => "sample-extbinary",
            Format::GcovAfdo => "gcov-afdo",
            Format::GcovV4 => "gcov-v4",
            Format::GcovV4Text => "gcov-v4-text",
            Format::Kallsyms => "kallsyms",
        }
    }

    pub fn from_id(id: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.id() == id)
    }

    pub fn is_text(self) -> bool {
        matches!(
            self,
            Format::BoltPreagg
                | Format::BoltFdata
                | Format::BoltYaml
                | Format::InstrProfText
                | Format::SampleText
                | Format::GcovV4Text
                | Format::Kallsyms
        )
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What detection found: the format and what its header states about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    pub format: Format,
    /// The format version as the header states it (low 32 bits for instrprof).
    pub version: Option<u64>,
    /// Pointer width of the producer, in bits.
    pub word_size: Option<u8>,
    pub endian: Option<Endian>,
    /// Flags or variants named by the header, comma-separated (e.g. `IR,BYTE_COVERAGE`).
    pub flags: String,
    /// The file was gzip-compressed; everything else describes the content inside.
    pub gzip: bool,
    /// The file was zstd-compressed.
    pub zstd: bool,
}

impl Detection {
    pub fn new(format: Format) -> Self {
        Detection {
            format,
            version: None,
            word_size: None,
            endian: None,
            flags: String::new(),
            gzip: false,
            zstd: false,
        }
    }

    pub fn version(mut self, version: u64) -> Self {
        self.version = Some(version);
        self
    }

    pub fn word_size(mut self, bits: u8) -> Self {
        self.word_size = Some(bits);
        self
    }

    pub fn endian(mut self, endian: Endian) -> Self {
        self.endian = Some(endian);
        self
    }

    pub fn flag(mut self, flag: &str) -> Self {
        if !self.flags.is_empty() {
            self.flags.push(',');
        }
        self.flags.push_str(flag);
        self
    }
}

/// `ID [version N, 64-bit, little-endian, flags]`: the line `pgolens detect` prints.
impl fmt::Display for Detection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.format.id())?;
        let mut parts = alloc::vec::Vec::new();
        if let Some(v) = self.version {
            parts.push(match self.format {
                // GCC's version word is four characters, "*704" for the 4.7 layout
                Format::GcovAfdo if v > 0xffff => alloc::format!("version {v:#x}"),
                _ => alloc::format!("version {v}"),
            });
        }
        if let Some(bits) = self.word_size {
            parts.push(alloc::format!("{bits}-bit"));
        }
        if let Some(e) = self.endian {
            parts.push(String::from(e.name()));
        }
        if !self.flags.is_empty() {
            parts.push(self.flags.clone());
        }
        if self.gzip {
            parts.push(String::from("gzip"));
        }
        if self.zstd {
            parts.push(String::from("zstd"));
        }
        if !parts.is_empty() {
            write!(f, " [{}]", parts.join(", "))?;
        }
        Ok(())
    }
}
