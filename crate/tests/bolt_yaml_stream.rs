//! A BOLT YAML profile decoded as it streams in, a piece of whole functions at a
//! time, is the profile the whole text decodes to, for every YAML in the corpus
//! (LLVM's and hand-written ones, those LLVM rejects too), in blocks and pieces of
//! any size; a text cut after any line, or with a line doubled, fails with the
//! whole text's error.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use pgolens::formats::bolt::yaml::{self, YamlStream};
use pgolens::read::Lines;

fn corpus_yamls() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = common::files_under(&common::corpus())
        .into_iter()
        .filter(|p| p.to_str().unwrap().ends_with(".yaml"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    assert!(out.len() >= 40, "{}", out.len());
    out
}

/// `data` streamed in blocks of `block` bytes, pieces cut once `piece` bytes wait,
/// its length said to be `len` (as the page says a file's size; None: not said):
/// the profile (or error), the pieces decoded, and the lines counted.
fn streamed(
    data: &[u8],
    block: usize,
    piece: usize,
    len: Option<u64>,
) -> (pgolens::Result<yaml::Profile<'static>>, usize, u64) {
    let mut stream = len.map_or_else(|| YamlStream::new(piece), |len| YamlStream::with_len(piece, len));
    for b in data.chunks(block) {
        if let Err(e) = stream.feed(b) {
            return (Err(e), stream.pieces(), 0);
        }
    }
    let (pieces, lines) = (stream.pieces(), stream.lines());
    let result = stream.finish();
    (result, pieces + 1, lines)
}

#[test]
fn every_corpus_yaml_streamed_is_the_whole_texts_profile() {
    let mut cut = 0;
    for (name, data) in corpus_yamls() {
        let whole = yaml::decode(&data).map(yaml::Profile::into_owned);
        let len = data.len() as u64;
        // A wrong length costs memory or copies, never another profile.
        let lens = [None, Some(len), Some(1), Some(len * 3), Some(u64::MAX)];
        for ((block, piece), len) in
            [(1, 1), (7, 64), (61, 1024), (4096, 1), (4096, 1 << 20)].into_iter().zip(lens.iter().cycle())
        {
            let (profile, pieces, lines) = streamed(&data, block, piece, *len);
            assert_eq!(profile, whole, "{name}: blocks of {block}, pieces of {piece}, length {len:?}");
            if whole.is_ok() {
                assert_eq!(lines, Lines::new(&data).count() as u64, "{name}");
            }
            cut += usize::from(pieces > 2);
        }
    }
    // Most profiles hold several functions: they were cut into pieces.
    assert!(cut > 40, "{cut}");
}

#[test]
fn a_cut_or_damaged_yaml_fails_streamed_as_it_fails_whole() {
    // cprog's instrumentation profile: several functions, blocks, calls.
    let data = common::read("bolt-perf/cprog/cprog.instr.yaml");
    let text = String::from_utf8(data.clone()).unwrap();
    let mut failed = 0;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        at += line.len();
        // Cut after every line, and with the line's last field doubled.
        let cut = &data[..at];
        let mut doubled = data[..at].to_vec();
        doubled.extend_from_slice(line.as_bytes());
        doubled.extend_from_slice(&data[at..]);
        for damaged in [cut.to_vec(), doubled] {
            let whole = yaml::decode(&damaged).map(yaml::Profile::into_owned);
            let (profile, _, _) = streamed(&damaged, 13, 1, Some(damaged.len() as u64));
            failed += usize::from(whole.is_err());
            assert_eq!(profile, whole, "at byte {at}");
        }
    }
    assert!(failed > 20, "{failed}");
}

/// Told the text's length, the stream sizes the profile's arrays for the whole text
/// from the density of what it decoded so far, in one step: they end within a
/// fifth of their length (see `YamlStream::with_len`), where growing by doubling
/// leaves up to half of an array unused. The text: cxxprog's instrumentation
/// profile with its functions written 200 times, renamed, in pieces of 16 KiB.
#[test]
fn told_the_length_the_arrays_are_sized_ahead() {
    let text = String::from_utf8(common::read("bolt-perf/cxxprog/cxxprog.instr.yaml")).unwrap();
    let (head, rest) = text.split_once("\nfunctions:\n").unwrap();
    let items = &rest[..rest.find("\n...").map_or(rest.len(), |i| i + 1)];
    let tail = &rest[items.len()..];
    let mut big = format!("{head}\nfunctions:\n");
    for copy in 0..200 {
        big.push_str(&items.replace("  - name:            ", &format!("  - name:            c{copy}_")));
    }
    big.push_str(tail);
    let whole = yaml::decode(big.as_bytes()).unwrap().into_owned();
    assert_eq!(whole.functions.len(), 200 * 28);

    let (profile, pieces, _) = streamed(big.as_bytes(), 4096, 16 << 10, Some(big.len() as u64));
    let profile = profile.unwrap();
    assert!(pieces > 100, "{pieces}");
    assert_eq!(profile, whole);
    let unused = |len: usize, capacity: usize| (capacity - len) as f64 / len as f64;
    for (what, len, capacity) in [
        ("functions", profile.functions.len(), profile.functions.capacity()),
        ("blocks", profile.blocks.len(), profile.blocks.capacity()),
        ("calls", profile.calls.len(), profile.calls.capacity()),
        ("successors", profile.successors.len(), profile.successors.capacity()),
    ] {
        assert!(len > 1000, "{what}: {len}");
        assert!(unused(len, capacity) < 0.2, "{what}: {len} of {capacity}");
    }
}
