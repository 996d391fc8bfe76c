//! A tiny text format of call stacks, so the stack views can be tested and
//! benchmarked before (and besides) the formats that produce stacks:
//!
//! ```text
//! #pgolens-stacks                       the magic line
//! event cycles                          events, numbered from 0 in order
//! s 0 1000 3 main;work@prog;memcpy@libc.so.6    a sample: event, time, weight, frames root first
//! g 0 6 10                              generated: every path of 6 frames through 10
//!                                       functions per level (10^6 stacks), weight 1 + i % 3, time i
//! ```
//!
//! A frame is `name` or `name@dso`; the dso `[kernel.kallsyms]` makes it a kernel frame.

use alloc::string::String;
use alloc::vec::Vec;

use pgolens::model::stacks::{FrameKind, StackProfile};

pub const MAGIC: &[u8] = b"#pgolens-stacks";

/// The most stacks a `g` line may generate.
const MAX_GENERATED: u64 = 1 << 24;

pub fn parse(data: &[u8]) -> Result<StackProfile, String> {
    let text = core::str::from_utf8(data).map_err(|e| alloc::format!("not UTF-8 (at offset {})", e.valid_up_to()))?;
    let mut p = StackProfile::new();
    let mut stack = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let at = |what: &str| alloc::format!("{what} (at line {})", n.saturating_add(1));
        let mut words = line.split_whitespace();
        let num = |w: Option<&str>, what: &str| w.and_then(|w| w.parse::<u64>().ok()).ok_or_else(|| at(what));
        match words.next() {
            None => {}
            Some(w) if w.starts_with('#') => {}
            Some("event") => {
                p.add_event(words.next().ok_or_else(|| at("expected an event name"))?);
            }
            Some("s") => {
                let event = num(words.next(), "expected an event number")?;
                let time = num(words.next(), "expected a time")?;
                let weight = num(words.next(), "expected a weight")?;
                stack.clear();
                for frame in words.next().ok_or_else(|| at("expected frames"))?.split(';') {
                    let (name, dso) = match frame.split_once('@') {
                        Some((name, dso)) => (name, Some(dso)),
                        None => (frame, None),
                    };
                    let kind = if dso == Some("[kernel.kallsyms]") { FrameKind::Kernel } else { FrameKind::User };
                    stack.push(p.frame(name, dso, kind));
                }
                let event = u32::try_from(event).map_err(|_| at("no such event"))?;
                p.push_sample(event, time, weight, &stack).ok_or_else(|| at("no such event"))?;
            }
            Some("g") => {
                let event = u32::try_from(num(words.next(), "expected an event number")?).unwrap_or(u32::MAX);
                let depth = num(words.next(), "expected a depth")?;
                let fanout = num(words.next(), "expected a fanout")?;
                let count = u32::try_from(depth)
                    .ok()
                    .and_then(|d| fanout.checked_pow(d))
                    .filter(|&c| c <= MAX_GENERATED && fanout > 0)
                    .ok_or_else(|| at("too many stacks"))?;
                let frames: Vec<Vec<u32>> = (0..depth)
                    .map(|level| {
                        (0..fanout)
                            .map(|i| p.frame(&alloc::format!("L{level}_fn{i}"), Some("synthetic"), FrameKind::User))
                            .collect()
                    })
                    .collect();
                for i in 0..count {
                    stack.clear();
                    let mut rest = i;
                    for level in frames.iter().rev() {
                        stack.push(level.get(rest.checked_rem(fanout).unwrap_or(0) as usize).copied().unwrap_or(0));
                        rest = rest.checked_div(fanout).unwrap_or(0);
                    }
                    stack.reverse();
                    p.push_sample(event, i, (i % 3).saturating_add(1), &stack).ok_or_else(|| at("no such event"))?;
                }
            }
            Some(other) => return Err(at(&alloc::format!("unknown line kind {other:?}"))),
        }
    }
    Ok(p)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pgolens::model::stacks::Filter;

    #[test]
    fn samples_and_generated_stacks() {
        let p = parse(b"#pgolens-stacks\nevent cycles\ns 0 5 2 main;read@[kernel.kallsyms]\ng 0 2 3\n").unwrap();
        assert_eq!(p.events(), ["cycles"]);
        assert_eq!(p.sample_count(), 1 + 9);
        assert_eq!(p.frame_info(1).unwrap().kind, FrameKind::Kernel);
        // 2 + 9 generated samples weighing 1, 2, 3, 1, 2, 3, ...
        assert_eq!(p.call_tree(&Filter { event: 0, ..Filter::default() }).total(), 2 + 18);
        assert!(parse(b"#pgolens-stacks\ns 1 0 1 a\n").unwrap_err().contains("line 2"));
        assert!(parse(b"#pgolens-stacks\nevent e\ng 0 30 30\n").unwrap_err().contains("too many"));
    }
}
