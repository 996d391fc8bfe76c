//! Sample-profile text: `NAME:TOTAL:HEAD` function headers (NAME may be a `[context]`),
//! indented body lines `LINE[.DISC]: COUNT [target:count ...]` and callsite lines.

use crate::format::{Detection, Format};
use crate::read::{head_lines, is_decimal};

/// `NAME:TOTAL:HEAD`, split at the last two colons so NAME may contain colons.
pub fn is_function_header(line: &[u8]) -> bool {
    if line.is_empty() || line.starts_with(b" ") {
        return false;
    }
    let mut parts = line.rsplitn(3, |&b| b == b':');
    let head = parts.next().unwrap_or(&[]);
    let total = parts.next().unwrap_or(&[]);
    let name = parts.next().unwrap_or(&[]);
    !name.is_empty() && is_decimal(head) && is_decimal(total)
}

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let first = head_lines(data).find(|l| !l.trim_ascii().is_empty() && !l.trim_ascii_start().starts_with(b"#"))?;
    is_function_header(first).then(|| Detection::new(Format::SampleText))
}
