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

/// `data` streamed in blocks of `block` bytes, pieces cut once `piece` bytes wait:
/// the profile (or error), the pieces decoded, and the lines counted.
fn streamed(data: &[u8], block: usize, piece: usize) -> (pgolens::Result<yaml::Profile<'static>>, usize, u64) {
    let mut stream = YamlStream::new(piece);
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
        for (block, piece) in [(1, 1), (7, 64), (61, 1024), (4096, 1), (4096, 1 << 20)] {
            let (profile, pieces, lines) = streamed(&data, block, piece);
            assert_eq!(profile, whole, "{name}: blocks of {block}, pieces of {piece}");
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
            let (profile, _, _) = streamed(&damaged, 13, 1);
            failed += usize::from(whole.is_err());
            assert_eq!(profile, whole, "at byte {at}");
        }
    }
    assert!(failed > 20, "{failed}");
}
