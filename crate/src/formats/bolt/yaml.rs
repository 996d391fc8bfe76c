//! BOLT YAML profiles (`llvm-bolt -w`, `perf2bolt -w`): a `header` mapping with
//! `profile-version: 1`, then `functions`.

use crate::format::{Detection, Format};
use crate::read::head_lines;

pub fn sniff(data: &[u8]) -> Option<Detection> {
    let mut lines = head_lines(data).filter(|l| !l.is_empty() && !l.starts_with(b"#"));
    let mut first = lines.next()?;
    if first == b"---" {
        first = lines.next()?;
    }
    if first != b"header:" {
        return None;
    }
    let mut detection = Detection::new(Format::BoltYaml);
    for line in lines.take_while(|l| l.starts_with(b" ")) {
        let trimmed = line.trim_ascii();
        if let Some(v) = trimmed.strip_prefix(b"profile-version:") {
            if let Some(version) = core::str::from_utf8(v.trim_ascii()).ok().and_then(|s| s.parse().ok()) {
                detection = detection.version(version);
            }
        }
    }
    Some(detection)
}
