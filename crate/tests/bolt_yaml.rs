//! BOLT YAML profiles against LLVM 22's YAML I/O and merge-fdata: every YAML in
//! the corpus that LLVM wrote round-trips byte for byte, hand-written ones decode
//! as LLVM re-emits them, merges equal `merge-fdata`'s, and damaged documents fail
//! at their line and column.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

mod common;

use std::path::PathBuf;

use pgolens::formats::bolt::yaml;

fn corpus_yamls() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = common::files_under(&common::corpus())
        .into_iter()
        .filter(|p| {
            let s = p.to_str().unwrap();
            s.ends_with(".yaml") && (s.contains("/bolt-perf/") || s.contains("/llvm-bolt-tests/"))
        })
        .collect();
    out.sort();
    out
}

/// The YAMLs LLVM's writer wrote: every bolt-perf one and every merge-fdata output.
fn llvm_written(path: &std::path::Path) -> bool {
    let s = path.to_str().unwrap();
    s.contains("/bolt-perf/") || s.ends_with(".merge-fdata.yaml")
}

#[test]
fn every_llvm_written_yaml_round_trips_byte_for_byte() {
    let mut checked = 0;
    for path in corpus_yamls().into_iter().filter(|p| llvm_written(p)) {
        let data = std::fs::read(&path).unwrap();
        let profile = yaml::decode(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let out = yaml::write(&profile, profile.wrap_column());
        if out != data {
            let a = String::from_utf8_lossy(&data);
            let b = String::from_utf8_lossy(&out);
            let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
            panic!(
                "{}: differs at line {}:\n  llvm: {:?}\n  ours: {:?}",
                path.display(),
                line + 1,
                a.lines().nth(line),
                b.lines().nth(line)
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 31);
}

fn decoded(path: &std::path::Path) -> (Vec<u8>, &'static [u8]) {
    let data: &'static [u8] = Box::leak(std::fs::read(path).unwrap().into_boxed_slice());
    (data.to_vec(), data)
}

fn assert_same_text(what: &str, ours: &[u8], theirs: &[u8]) {
    if ours != theirs {
        let a = String::from_utf8_lossy(theirs);
        let b = String::from_utf8_lossy(ours);
        let line =
            a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(a.lines().count().min(b.lines().count()));
        panic!(
            "{what}: differs at line {}:\n  merge-fdata: {:?}\n  ours:        {:?}",
            line + 1,
            a.lines().nth(line),
            b.lines().nth(line)
        );
    }
}

fn merged(paths: &[PathBuf]) -> Result<Vec<u8>, yaml::MergeError> {
    let profiles: Vec<yaml::Profile<'static>> =
        paths.iter().map(|p| yaml::decode(decoded(p).1).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).collect();
    yaml::merge(&profiles).map(|m| yaml::write(&m, yaml::MERGE_FDATA_WRAP))
}

/// merge-fdata of one input is LLVM's re-emission of what its reader read: the
/// hand-written YAMLs of LLVM's tests, with their comments, quoting, padding and
/// unknown keys, come out as merge-fdata writes them.
#[test]
fn hand_written_yamls_read_as_merge_fdata_reads_them() {
    let mut checked = 0;
    for path in corpus_yamls().into_iter().filter(|p| !llvm_written(p)) {
        let reference = PathBuf::from(format!("{}.merge-fdata.yaml", path.display()));
        let ours = merged(std::slice::from_ref(&path)).unwrap();
        assert_same_text(&path.display().to_string(), &ours, &std::fs::read(&reference).unwrap());
        // The keys LLVM warned about, at the same line and column.
        let log = std::fs::read_to_string(format!("{}.merge-fdata.log", path.display())).unwrap();
        let mut warned: Vec<(u64, u64, String)> = log
            .lines()
            .filter_map(|l| l.strip_prefix("YAML:"))
            .filter_map(|l| {
                let (pos, rest) = l.split_once(": warning: unknown key '")?;
                let (line, column) = pos.split_once(':')?;
                Some((line.parse().unwrap(), column.parse().unwrap(), rest.trim_end_matches('\'').to_string()))
            })
            .collect();
        warned.sort();
        let (_, data) = decoded(&path);
        let profile = yaml::decode(data).unwrap();
        let mut ours: Vec<(u64, u64, String)> = profile
            .unknown_keys
            .iter()
            .map(|k| (k.line, k.column, String::from_utf8_lossy(&k.key).into_owned()))
            .collect();
        ours.sort();
        assert_eq!(ours, warned, "{}", path.display());
        checked += 1;
    }
    assert_eq!(checked, 10);
}

#[test]
fn merges_equal_merge_fdata_byte_for_byte() {
    let corpus = common::corpus().join("bolt-perf");
    let data = common::crate_dir().join("tests/data/bolt-yaml-merge");
    let mut cases: Vec<(Vec<PathBuf>, PathBuf)> = Vec::new();
    for p in ["cprog", "cxxprog"] {
        let input = |s: &str| corpus.join(p).join(format!("{p}.{s}.yaml"));
        cases.push((vec![input("instr"), input("instr2")], corpus.join(p).join(format!("{p}.merged.yaml"))));
        for (inputs, name) in [
            (&["brstack", "instr"][..], "brstack+instr"),
            (&["brstack", "preagg-traces"][..], "brstack+preagg-traces"),
            (&["instr", "brstack", "preagg-legacy"][..], "instr+brstack+preagg-legacy"),
            (&["nolbr", "preagg-samples"][..], "nolbr+preagg-samples"),
        ] {
            cases.push((inputs.iter().map(|s| input(s)).collect(), data.join(format!("{p}.{name}.yaml"))));
        }
    }
    // Call sites only the second input has, in libstdc++'s unordered_map order.
    cases.push((vec![data.join("calls.a.yaml"), data.join("calls.b.yaml")], data.join("calls.merged.yaml")));
    for (inputs, reference) in &cases {
        let ours = merged(inputs).unwrap();
        assert_same_text(&reference.display().to_string(), &ours, &std::fs::read(reference).unwrap());
    }
    assert_eq!(cases.len(), 11);
}

#[test]
fn merges_merge_fdata_refuses_are_refused() {
    let corpus = common::corpus().join("bolt-perf");
    for p in ["cprog", "cxxprog"] {
        let input = |s: &str| corpus.join(p).join(format!("{p}.{s}.yaml"));
        let log = std::fs::read_to_string(
            common::crate_dir().join(format!("tests/data/bolt-yaml-merge/{p}.instr.dfs+instr.error.log")),
        )
        .unwrap();
        assert!(log.contains("'deregister_tm_clones/1': hash mismatch."));
        match merged(&[input("instr.dfs"), input("instr")]) {
            Err(yaml::MergeError::Mismatch { input: 1, function, block: None, what: "hash mismatch" }) => {
                assert_eq!(function, b"deregister_tm_clones/1");
            }
            other => panic!("{p}: {:?}", other.map(|_| ())),
        }
        assert!(matches!(merged(&[input("instr"), input("nolbr")]), Err(yaml::MergeError::MixedModes { input: 1 })));
    }
}

fn error_at(text: &str) -> (u64, u64, String) {
    match yaml::decode(text.as_bytes()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => match e.location {
            pgolens::error::Location::Line { line, column } => (line, column, e.to_string()),
            other => panic!("{other:?}"),
        },
    }
}

const GOOD: &str = "---
header:
  profile-version: 1
  binary-name:     cprog
  profile-flags:   [ lbr ]
functions:
  - name:            fib
    fid:             9
    hash:            0x5C9FDA452E4932B2
    exec:            92
    nblocks:         4
    blocks:
      - bid:             0
        insns:           7
        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1, cnt: 3 } ]
...
";

/// A block's `events` (memory events, `BinaryBasicBlockProfile::EventCount`),
/// which no corpus YAML has: put in two blocks of a pseudo-probe profile (as
/// merge-fdata wrote it) where LLVM's writer puts it (after `exec`), it
/// round-trips byte for byte beside their probes, is that block's alone, and adds
/// up in a merge as merge-fdata adds it.
#[test]
fn block_events_round_trip_and_add_up_in_a_merge() {
    let path = "peers/llvm-bolt-tests/match-blocks-with-pseudo-probes-inline__yaml.yaml.merge-fdata.yaml";
    let original = String::from_utf8(common::read(path)).unwrap();
    let exec = "        exec:            1\n";
    assert_eq!(original.matches(exec).count(), 3);
    // bar's only block and foo's first.
    let mut text = String::new();
    for (i, piece) in original.split_inclusive(exec).enumerate() {
        text.push_str(piece);
        match i {
            0 => text.push_str("        events:          5\n"),
            1 => text.push_str("        events:          7\n"),
            _ => {}
        }
    }
    // (block, events, probe sets) of each block with events.
    let events = |p: &yaml::Profile<'_>| -> Vec<(u32, u64, usize)> {
        let with_events = p.block_extras.iter().filter(|e| e.events > 0);
        with_events.map(|e| (e.block, e.events, p.probes_of(e).len())).collect()
    };
    let p = yaml::decode(text.as_bytes()).unwrap();
    assert_same_text(path, &yaml::write(&p, p.wrap_column()), text.as_bytes());
    assert_eq!(events(&p), [(0, 5, 1), (1, 7, 1)]);
    assert_eq!(p.extra_of(2).events, 0);
    let merged = yaml::merge(&[p.clone(), p]).unwrap();
    assert_eq!(events(&merged), [(0, 10, 1), (1, 14, 1)]);
}

#[test]
fn a_minimal_profile_reads_with_llvm_defaults() {
    let p = yaml::decode(GOOD.as_bytes()).unwrap();
    assert_eq!(p.header.hash_function, yaml::HashFunction::StdHash);
    assert!(p.header.dfs_order);
    assert_eq!(p.functions.len(), 1);
    let f = &p.functions[0];
    assert_eq!((f.id, f.hash, f.exec, f.block_count), (9, 0x5C9F_DA45_2E49_32B2, 92, 4));
    let b = &p.blocks_of(f)[0];
    let succ: Vec<(u32, u64, u64)> = p.successors_of(b).iter().map(|s| (s.index, s.count, s.mispredicts)).collect();
    assert_eq!(succ, [(3, 85, 1), (1, 3, 0)]);
    // Other spellings LLVM's reader takes: block sequences at the key's indentation,
    // flow collections over several lines, comments, quoted keys, octal numbers.
    let other = "header:\n  profile-version: 1\n  binary-name: \"c\\x41\"\n  profile-flags: [\n    lbr ]  # c\nfunctions:\n- 'name': f\n  fid: 010\n  hash: 1\n  exec: 0b11\n  nblocks: 1\n";
    let p = yaml::decode(other.as_bytes()).unwrap();
    assert_eq!(&*p.header.binary_name, b"cA");
    assert_eq!((p.functions[0].id, p.functions[0].exec), (8, 3));
}

#[test]
fn damaged_documents_fail_at_their_line_and_column() {
    let cases: &[(&str, &str, (u64, u64))] = &[
        (
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1, cnt: 3 } ]",
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1, cnt: 3 }",
            (16, 1),
        ),
        (
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1, cnt: 3 } ]",
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1 } ]",
            (15, 57),
        ),
        (
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1, cnt: 3 } ]",
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 } { bid: 1, cnt: 3 } ]",
            (15, 56),
        ),
        (
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1, cnt: 3 } ]",
            "        succ:            [ { bid: 3, cnt: 85, bid: 1 } ]",
            (15, 47),
        ),
        (
            "        succ:            [ { bid: 3, cnt: 85, mis: 1 }, { bid: 1, cnt: 3 } ]",
            "        succ:            [ { bid: 4294967296, cnt: 85 } ]",
            (15, 35),
        ),
        ("    fid:             9", "    fid:             -9", (8, 22)),
        ("    fid:             9", "    fid:             9\n    fid:             9", (9, 5)),
        ("    hash:            0x5C9FDA452E4932B2", "    hash:            0x5C9FDA452E4932B2G", (9, 22)),
        ("    exec:            92\n", "", (7, 5)),
        ("  profile-version: 1", "  profile-version: 2", (3, 20)),
        ("  profile-flags:   [ lbr ]", "  profile-flags:   [ lbr, branch ]", (5, 27)),
        ("  binary-name:     cprog", "  binary-name:     \"cp\\qrog\"", (4, 23)),
        ("  binary-name:     cprog", "  binary-name:     'cprog", (4, 20)),
        ("  binary-name:     cprog", "  binary-name:     &a cprog", (4, 20)),
        ("    nblocks:         4", "\tnblocks:         4", (11, 1)),
        ("    nblocks:         4", "     nblocks:         4", (11, 6)),
        ("        insns:           7", "       insns:           7", (13, 9)),
        ("...\n", "...\n---\nheader:\n", (17, 1)),
    ];
    for &(from, to, (line, column)) in cases {
        assert!(GOOD.contains(from), "{from}");
        let text = GOOD.replacen(from, to, 1);
        let (l, c, message) = error_at(&text);
        assert_eq!((l, c), (line, column), "{to:?}: {message}");
    }
}

/// Cut anywhere, flipped anywhere: an error or a profile, never a panic; an error
/// points inside the input.
#[test]
fn truncated_and_flipped_yamls_fail_cleanly() {
    for rel in
        ["bolt-perf/cprog/cprog.instr.yaml", "peers/llvm-bolt-tests/match-blocks-with-pseudo-probes-inline__yaml.yaml"]
    {
        let data = common::read(rel);
        let lines = data.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let check = |input: &[u8]| match yaml::decode(input) {
            Ok(_) => {}
            Err(e) => match e.location {
                pgolens::error::Location::Line { line, column } => {
                    assert!(line >= 1 && line <= lines && column >= 1, "{rel}: {e}");
                }
                other => panic!("{other:?}"),
            },
        };
        // Every cut in the first 3 KB, then at every line end and the byte before it.
        for cut in 0..data.len().min(3000) {
            check(&data[..cut]);
        }
        for (i, _) in data.iter().enumerate().filter(|(_, &b)| b == b'\n') {
            check(&data[..i]);
            check(&data[..i + 1]);
        }
        let mut flipped = data.clone();
        for i in (0..data.len()).step_by(7) {
            for b in [b'[', b'{', b':', b' ', b'\n', b'\'', b'-', b'#', 0xff] {
                flipped[i] = b;
                check(&flipped);
            }
            flipped[i] = data[i];
        }
    }
}

#[test]
fn unknown_nested_values_are_skipped_and_ids_pointing_nowhere_are_kept() {
    let text = GOOD.replace(
        "    nblocks:         4\n",
        "    nblocks:         4\n    extra:\n      deep: [ { a: [ [ 1 ], { b: '}' } ] } ]\n      more:\n        - x\n    other: { a: 1 }\n",
    );
    let text = text.replace("{ bid: 1, cnt: 3 }", "{ bid: 99, cnt: 3 }");
    let p = yaml::decode(text.as_bytes()).unwrap();
    let keys: Vec<&[u8]> = p.unknown_keys.iter().map(|k| &*k.key).collect();
    assert_eq!(keys, [&b"extra"[..], b"other"]);
    // A successor past nblocks is kept as written (LLVM's reader keeps it too; the
    // graph built from it leaves it out), and merging it is refused as merge-fdata does.
    assert_eq!(p.successors[1].index, 99);
    let twice = yaml::merge(&[p.clone(), p]);
    assert!(matches!(twice, Err(yaml::MergeError::Mismatch { what: "bad successor index", .. })));
}

/// The reader takes keys and values as LLVM writes them (`key: value` up to the
/// line's end) at once; spelled otherwise they take its general path. Every corpus
/// YAML with each `: ` written `:\t` (no key as LLVM writes them), a blank before
/// each line end (no value up to it) and a tab before each flow entry's end (no
/// flow value up to `,` or ` }`) decodes to the same profile, or fails at the same
/// line and column.
#[test]
fn llvm_spelled_keys_and_values_read_as_any_spelling() {
    let mut same = 0;
    for path in corpus_yamls() {
        let text = std::fs::read(&path).unwrap();
        let mut respelled = Vec::with_capacity(text.len() * 2);
        let mut i = 0;
        while i < text.len() {
            match (text[i], text.get(i + 1)) {
                (b':', Some(b' ')) => {
                    respelled.extend_from_slice(b":\t");
                    i += 2;
                }
                // A flow entry's value ends at a tab, not at `,` or ` }`: the
                // same length, so every column stays.
                (b',', Some(b' ')) => {
                    respelled.extend_from_slice(b"\t,");
                    i += 2;
                }
                (b' ', Some(&close @ (b'}' | b']'))) => {
                    respelled.extend_from_slice(&[b'\t', close]);
                    i += 2;
                }
                (b'\n', _) => {
                    respelled.extend_from_slice(b" \n");
                    i += 1;
                }
                (b, _) => {
                    respelled.push(b);
                    i += 1;
                }
            }
        }
        // `: ` (or `, `, ` }`) inside a quoted name is text, not a separator:
        // such files are compared as they decode, whatever that gives.
        let quoted_colon = text.split(|&b| b == b'\n').any(|line| {
            let quote = line.iter().position(|&b| b == b'\'' || b == b'"');
            quote.is_some_and(|q| line[q..].windows(2).any(|w| matches!(w, b": " | b", " | b" }" | b" ]")))
        });
        let (ours, theirs) = (yaml::decode(&text), yaml::decode(&respelled));
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) if !quoted_colon => {
                assert_eq!(a.functions, b.functions, "{}", path.display());
                assert_eq!(a.blocks, b.blocks, "{}", path.display());
                assert_eq!(a.calls, b.calls, "{}", path.display());
                assert_eq!(a.successors, b.successors, "{}", path.display());
                assert_eq!(a.header, b.header, "{}", path.display());
                assert_eq!(a.unknown_keys, b.unknown_keys, "{}", path.display());
                same += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{}", path.display()),
            _ if quoted_colon => {}
            _ => panic!("{}: {ours:?} against {theirs:?}", path.display()),
        }
    }
    assert!(same >= 30, "{same} profiles compared");
}
