//! The one error type of the crate: where in the input, and what was expected there.

use core::fmt;

/// Where an error was found: a byte offset in binary input, a line and column in text.
///
/// Offsets are absolute: from the start of the (decompressed) input, never from the
/// start of the structure being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Offset(u64),
    /// An offset in the decompressed content of a compressed file (`gzip`, `zstd`):
    /// the file the user gave has no such offset, so the message says whose it is.
    Decompressed {
        offset: u64,
        compression: &'static str,
    },
    /// 1-based line and column (column counts bytes).
    Line {
        line: u64,
        column: u64,
    },
}

/// A decoding error. Cheap to copy; `Display` says where and what was expected, e.g.
/// "expected 8-byte counter, found end of input (at offset 0x1f40)".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    pub location: Location,
    pub kind: ErrorKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input ended inside the named structure.
    UnexpectedEof { expected: &'static str },
    /// A value was present but not acceptable.
    Invalid { expected: &'static str, found: u64 },
    /// The input is well-formed up to here but says something we cannot follow.
    Malformed { what: &'static str },
    /// No known format matches the input.
    UnknownFormat,
    /// Compressed content decompresses past `limit` bytes; `claimed`: the size the
    /// file states for it, when it states one.
    TooLarge { limit: u64, claimed: Option<u64> },
}

impl Error {
    pub const fn eof(offset: u64, expected: &'static str) -> Self {
        Error { location: Location::Offset(offset), kind: ErrorKind::UnexpectedEof { expected } }
    }

    pub const fn invalid(offset: u64, expected: &'static str, found: u64) -> Self {
        Error { location: Location::Offset(offset), kind: ErrorKind::Invalid { expected, found } }
    }

    pub const fn malformed(offset: u64, what: &'static str) -> Self {
        Error { location: Location::Offset(offset), kind: ErrorKind::Malformed { what } }
    }

    pub const fn at_line(line: u64, column: u64, what: &'static str) -> Self {
        Error { location: Location::Line { line, column }, kind: ErrorKind::Malformed { what } }
    }

    /// The byte offset, when the error has one.
    pub fn offset(&self) -> Option<u64> {
        match self.location {
            Location::Offset(offset) | Location::Decompressed { offset, .. } => Some(offset),
            Location::Line { .. } => None,
        }
    }

    /// The error of a decoder that read the decompressed content of a `compression`
    /// file: its offset named as one in that content.
    pub fn in_decompressed(self, compression: &'static str) -> Self {
        match self.location {
            Location::Offset(offset) => Error { location: Location::Decompressed { offset, compression }, ..self },
            _ => self,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::UnexpectedEof { expected } => write!(f, "expected {expected}, found end of input")?,
            ErrorKind::Invalid { expected, found } => write!(f, "expected {expected}, found {found:#x}")?,
            ErrorKind::Malformed { what } => f.write_str(what)?,
            ErrorKind::UnknownFormat => f.write_str("not a known profile format")?,
            ErrorKind::TooLarge { limit, claimed } => {
                write!(f, "decompressed content larger than the limit of {limit} bytes")?;
                if let Some(claimed) = claimed {
                    write!(f, " (the file says it holds {claimed} bytes)")?;
                }
            }
        }
        match self.location {
            Location::Offset(offset) => write!(f, " (at offset {offset:#x})"),
            Location::Decompressed { offset, compression } => {
                write!(f, " (at offset {offset:#x} of the decompressed {compression} content)")
            }
            Location::Line { line, column } => write!(f, " (at line {line}, column {column})"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

pub type Result<T> = core::result::Result<T, Error>;
