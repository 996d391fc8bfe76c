//! AutoFDO GCOV v4 text form: `filenames = { ... } summary = { ... }` then symbols.

use crate::format::{Detection, Format};

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let head = data.get(..4096).unwrap_or(data).trim_ascii_start();
    let rest = head.strip_prefix(b"filenames")?.trim_ascii_start();
    rest.starts_with(b"=").then(|| Detection::new(Format::GcovV4Text))
}
