//! The merger's hot loop: the lines of an input that are known branches, one
//! after the other, matched by their text and their counts added, with no
//! look-up (`Merger::known_lines`).

use super::{KnownBranch, NONE};
use crate::formats::bolt::fdata::decode::{plain_counts, zero_and_count_in};
use crate::read::prefetch;

/// `line.starts_with(text)`, inline: most lines are compared once, with the text
/// of the branch after the last. A text of 16 to 64 bytes is compared as its first
/// and last 16 or 32 bytes (overlapping), fixed-size compares the compiler makes a
/// few vector instructions each; the call to `memcmp` had been a fifth of the
/// merge's time, and a loop of 16-byte words a third of its instructions.
#[inline(always)]
pub(super) fn starts_with(line: &[u8], text: &[u8]) -> bool {
    let Some(line) = line.get(..text.len()) else { return false };
    if let (Some(a), Some(b), Some(y), Some(z)) =
        (line.first_chunk::<32>(), text.first_chunk::<32>(), line.last_chunk::<32>(), text.last_chunk::<32>())
    {
        if text.len() <= 64 {
            return a == b && y == z;
        }
    } else if let (Some(a), Some(b), Some(y), Some(z)) =
        (line.first_chunk::<16>(), text.first_chunk::<16>(), line.last_chunk::<16>(), text.last_chunk::<16>())
    {
        return a == b && y == z;
    }
    line == text
}

/// The lines of `rest` from `len` on that are merged branch `at` and its followers,
/// one after the other (each starts with the text of the follower of the one
/// before, then plain counts): their counts added, where they end, how many, and
/// the last one's index. A loop of its own, over the branches alone: a line
/// matched here costs no look-up at all. Not inlined: in the merger's loop its
/// registers spilled to the stack.
#[inline(never)]
pub(super) fn follow(known: &mut [KnownBranch<'_>], rest: &[u8], len: usize, mut at: usize) -> (usize, u64, usize) {
    let (mut lines, mut last) = (0u64, NONE);
    let Some(mut line) = rest.get(len..) else { return (len, 0, NONE) };
    while let Some(k) = known.get_mut(at) {
        let text = k.text;
        prefetch(text, TEXT_AHEAD);
        prefetch(line, LINE_AHEAD);
        let used = match common_line(line, text) {
            Some((count, used)) => {
                k.sums[0] = k.sums[0].saturating_add(count);
                used
            }
            None => match other_line(k, line) {
                Some(used) => used,
                None => break,
            },
        };
        let Some(next) = line.get(used..) else { break };
        line = next;
        lines = lines.wrapping_add(1);
        last = at;
        at = k.follower;
    }
    (rest.len().wrapping_sub(line.len()), lines, last)
}

/// The commonest line of `follow`: `text` of 32 to 64 bytes, then `0 COUNT\n`
/// (`zero_and_count`), with ten bytes after the text at hand. Its count and
/// length, or `None` for any other line. One bounds check for all of it, and the
/// text compared as its first and last 32 bytes at once.
#[inline(always)]
fn common_line(line: &[u8], text: &[u8]) -> Option<(i64, usize)> {
    let n = text.len();
    if !(32..=64).contains(&n) {
        return None;
    }
    let (head, tail) = line.get(..n.wrapping_add(10))?.split_at_checked(n)?;
    let (a, b) = (head.first_chunk::<32>()?, text.first_chunk::<32>()?);
    let (y, z) = (head.last_chunk::<32>()?, text.last_chunk::<32>()?);
    if !((a == b) & (y == z)) {
        return None;
    }
    let (count, used) = zero_and_count_in(tail.first_chunk::<10>()?)?;
    Some((count, n.wrapping_add(used)))
}

/// `follow` of a line that is not `common_line`: if it is merged branch `k`, its
/// counts added and its length. Out of `follow`'s loop, so that the registers
/// of its rare cases are not taken from the common one.
#[cold]
#[inline(never)]
fn other_line(k: &mut KnownBranch<'_>, line: &[u8]) -> Option<usize> {
    let text = k.text;
    if text.is_empty() || !starts_with(line, text) {
        return None;
    }
    let ([mispredicted, count], used) = plain_counts(line.get(text.len()..)?)?;
    k.add([count, mispredicted]);
    Some(text.len().wrapping_add(used))
}

/// How far ahead of the line and of its text `follow` prefetches (`read::prefetch`).
/// The texts of a run of followers were most often first seen in that order, one
/// after the other in one input. With both, a merge of the 75 fdata of
/// `bench/bolt-profiles.sh` took 0.246-0.259x merge-fdata's time against 0.269-0.279x
/// without (`bench/interleave.sh 41`, twice); from 192 to 1,024 bytes for the
/// text and 512 to 4,096 for the line all measured alike.
const TEXT_AHEAD: usize = 640;
const LINE_AHEAD: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bolt::fdata::decode::decimal_counts;
    use alloc::vec::Vec;

    #[test]
    fn starts_with_is_the_slices_starts_with() {
        let line: Vec<u8> = (0..140u8).map(|i| b'a' + i % 26).collect();
        for n in 0..=line.len() {
            for len in [n, n + 1, line.len()] {
                let line = &line[..len.min(line.len())];
                let mut text = line[..n.min(line.len())].to_vec();
                assert_eq!(starts_with(line, &text), line.starts_with(&text), "{n} {len}");
                for at in 0..text.len() {
                    text[at] ^= 1;
                    assert!(!starts_with(line, &text), "{n} {len} {at}");
                    text[at] ^= 1;
                }
                text.push(b'!');
                assert_eq!(starts_with(line, &text), line.starts_with(&text), "{n} {len} longer");
            }
        }
    }

    #[test]
    fn follow_reads_every_line_as_the_field_reader_does() {
        // Texts on both sides of `common_line`'s 32 to 64 bytes, and counts in its
        // spelling and in others (mispredictions, eight digits, a leading zero, a
        // line cut short, no counts).
        let name: Vec<u8> = (0..100u8).map(|i| b'a' + i % 26).collect();
        let tails =
            ["0 1\n", "0 9876543\n", "0 12345678\n", "7 1\n", "0 01\n", "0 1\n1 f 0 1 f 4 0 1\n", "0 1 \n", "0 x\n"];
        // A text is the name and eleven bytes: 31, 32, 64 and 65 bytes at 20 to 54.
        for n in [1, 20, 21, 22, 36, 52, 53, 54, 80, 90] {
            let text = [&b"1 "[..], &name[..n], b" 0 1 f 4 "].concat();
            for tail in tails {
                let line = [&text[..], tail.as_bytes()].concat();
                let expected = decimal_counts(&line[text.len()..]).map(|([m, c], used)| (text.len() + used, [c, m]));
                let mut known = [KnownBranch { key: [0; 4], text: &text, follower: NONE, sums: [0, 0] }];
                let (len, lines, last) = follow(&mut known, &line, 0, 0);
                match expected {
                    Some((end, sums)) => {
                        assert_eq!((len, lines, last, known[0].sums), (end, 1, 0, sums), "{n} {tail:?}")
                    }
                    None => assert_eq!((len, lines), (0, 0), "{n} {tail:?}"),
                }
                // A line that differs from the text anywhere is not this branch.
                for at in 0..text.len() {
                    let mut other = line.clone();
                    other[at] ^= 0x20;
                    assert_eq!(follow(&mut known, &other, 0, 0).1, 0, "{n} {tail:?} {at}");
                }
            }
        }
    }
}
