//! GCC AutoFDO v1–v3: decoding against LLVM's text (`llvm-profdata merge --sample
//! --text`), autofdo's `dump_gcov`, the create_gcov writer, and malformed input.
//!
//! References: the corpus (`F.proftext`, `F.dump_gcov.txt` beside F) and
//! `tests/data/sample/afdo/` (hand-made files and references, see its README).

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod common;

use std::path::{Path, PathBuf};

use common::{corpus, crate_dir, files_under, read};
use pgolens::formats::gcov::afdo::{self, Layout, VERSION_704};
use pgolens::formats::gcov::dump_gcov::{self, Dialect};
use pgolens::formats::gcov::write_afdo::{self, Options};
use pgolens::formats::gcov::{decode_afdo, write_afdo::write_with};
use pgolens::formats::sample::model::{FunctionSamples, NameId, Profile, MAX_DEPTH};
use pgolens::formats::sample::write_text;
use pgolens::read::Endian;
use pgolens::{Detection, Format, Node};

fn data_dir() -> PathBuf {
    crate_dir().join("tests/data/sample/afdo")
}

fn data(name: &str) -> Vec<u8> {
    std::fs::read(data_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn det() -> Detection {
    Detection::new(Format::GcovAfdo)
}

fn llvm_text(p: &Profile) -> String {
    let mut out = Vec::new();
    write_text::write(p, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn dump_gcov_text(p: &Profile, dialect: Dialect) -> String {
    let mut out = Vec::new();
    dump_gcov::write_dialect(p, dialect, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn text(path: &Path) -> String {
    String::from_utf8(std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// The GCC binary files and the LLVM text each must read as.
fn gcc_files() -> Vec<(String, Vec<u8>, String)> {
    let mut files = vec![(
        "llvm/afdo-progB/afdo-progB.afdo".to_string(),
        read("llvm/afdo-progB/afdo-progB.afdo"),
        text(&corpus().join("llvm/afdo-progB/afdo-progB.afdo.proftext")),
    )];
    for path in files_under(&corpus().join("peers/llvm-profparser")) {
        if path.file_name().is_some_and(|n| n == "gcc-sample-profile.gcov") {
            let rel = path.strip_prefix(corpus()).unwrap().display().to_string();
            files.push((
                rel,
                std::fs::read(&path).unwrap(),
                text(&data_dir().join("gcc-sample-profile.gcov.proftext")),
            ));
        }
    }
    for (name, reference) in [
        ("targets.afdo", "targets.afdo.proftext"),
        ("targets.v2.afdo", "targets.afdo.proftext"),
        ("targets.v3.afdo", "targets.afdo.proftext"),
        ("alias.afdo", "alias.afdo.proftext"),
    ] {
        files.push((name.to_string(), data(name), text(&data_dir().join(reference))));
    }
    files
}

#[test]
fn gcc_files_read_as_llvm_reads_them() {
    let files = gcc_files();
    // afdo-progB, gcc-sample-profile.gcov in five llvm-N folders, four hand-made files
    assert_eq!(files.len(), 10);
    let mut failures = Vec::new();
    for (name, bytes, reference) in &files {
        let profile = decode_afdo::decode(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        if llvm_text(&profile) != *reference {
            failures.push(format!("{name}:\n{}", llvm_text(&profile)));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ from LLVM:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// Every `.afdo` and `.gcov` file of the corpus (GCC binaries and LLVM text files
/// that carry the extension), through format detection.
#[test]
fn every_afdo_and_gcov_corpus_file() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in files_under(&corpus()) {
        let ext = path.extension().and_then(|e| e.to_str());
        if !matches!(ext, Some("afdo" | "gcov")) {
            continue;
        }
        let rel = path.strip_prefix(corpus()).unwrap().display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let result = pgolens::detect::decode_sample_profile(&bytes);
        let beside = PathBuf::from(format!("{}.proftext", path.display()));
        let error = PathBuf::from(format!("{}.reference-error.txt", path.display()));
        let name = path.file_name().unwrap().to_str().unwrap();
        let reference = if beside.exists() { beside } else { data_dir().join(format!("{name}.proftext")) };
        checked += 1;
        match result {
            Err(e) if error.exists() => assert!(e.offset().is_some() || !e.to_string().is_empty()),
            Ok(_) if error.exists() => failures.push(format!("{rel}: LLVM rejects it, we decoded it")),
            Err(e) => failures.push(format!("{rel}: {e}")),
            Ok(profile) => {
                if llvm_text(&profile) != text(&reference) {
                    failures.push(format!("{rel}: differs from {}", reference.display()));
                }
            }
        }
    }
    // afdo-progB.afdo, gcc-sample-profile.gcov and inline-samples.afdo in five llvm-N
    // folders each, fsloader-probe.afdo and fsloader_v1.afdo
    assert_eq!(checked, 13);
    assert!(failures.is_empty(), "{} of {checked} failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn dump_gcov_prints_like_autofdo() {
    let cases = [
        // autofdo 0.19's own output
        ("llvm/afdo-progB/afdo-progB.afdo", read("llvm/afdo-progB/afdo-progB.afdo"), Dialect::Legacy),
        ("targets.afdo", data("targets.afdo"), Dialect::Legacy),
        ("targets.v3.afdo", data("targets.v3.afdo"), Dialect::Current),
    ];
    let references = [
        text(&corpus().join("llvm/afdo-progB/afdo-progB.afdo.dump_gcov.txt")),
        text(&data_dir().join("targets.afdo.dump_gcov.txt")),
        text(&data_dir().join("targets.v3.afdo.dump_gcov.txt")),
    ];
    for ((name, bytes, dialect), reference) in cases.iter().zip(&references) {
        let profile = decode_afdo::decode(bytes).unwrap();
        assert_eq!(Dialect::of(&profile), *dialect, "{name}");
        let mut out = Vec::new();
        dump_gcov::write(&profile, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), *reference, "{name}");
    }
    // autofdo 0.20–0.30 read the v2 file; nothing there prints differently from 0.19
    let v2 = decode_afdo::decode(&data("targets.v2.afdo")).unwrap();
    assert_eq!(dump_gcov_text(&v2, Dialect::Autofdo030), references[1]);
}

#[test]
fn dump_gcov_rules() {
    let mut p = decode_afdo::decode(&data("targets.afdo")).unwrap();
    // Targets whose elided names collide: the later one replaces the earlier; 0.19
    // cuts at the first '.', later versions strip ".llvm.N", ".__part.N", ".cold".
    let main = p.functions.iter().position(|f| p.names.name(f.name).is_some_and(|n| *n == name("main"))).unwrap();
    let dotted = p.names.intern_bytes(b"_Z3bazv.lto_priv.0").unwrap();
    let body = p.functions[main].body.iter_mut().find(|b| b.location.line == 2).unwrap();
    body.calls.push(pgolens::formats::sample::model::CallTarget { name: dotted, count: 1 });
    let legacy = dump_gcov_text(&p, Dialect::Legacy);
    assert!(legacy.contains("  2.1: 20  qux:9  _Z3bazv:1\n"), "{legacy}");
    let later = dump_gcov_text(&p, Dialect::Autofdo030);
    assert!(later.contains("  2.1: 20  qux:9  _Z3bazv:6  _Z3bazv.lto_priv.0:1\n"), "{later}");
    // Lines and discriminators keep 16 bits, as create_gcov writes them.
    let foo = p.functions.iter_mut().find(|f| f.head == 0 && f.total == 54).unwrap();
    foo.body[0].location.line = 0x1_0001;
    foo.body[0].location.discriminator = 0x2_0000;
    let shown = dump_gcov_text(&p, Dialect::Legacy);
    assert!(shown.starts_with("foo total:54 head:0\n  1.2: 54\n"), "{shown}");
}

fn name(s: &str) -> pgolens::formats::sample::model::Name {
    pgolens::formats::sample::model::Name::Bytes(s.as_bytes().to_vec())
}

/// Files create_gcov wrote come back byte for byte, when its order is reproducible.
#[test]
fn create_gcov_files_are_written_back() {
    // autofdo 0.19 (std::map order): exact
    let bytes = read("llvm/afdo-progB/afdo-progB.afdo");
    let decoded = afdo::decode(&bytes).unwrap();
    let options = Options::reproducing(&decoded.file);
    // "*704" in the v1 layout, a module grouping of length 1, the file's working set
    assert_eq!((options.version, options.layout, &options.module_grouping[..]), (VERSION_704, Layout::V1, &[1, 0][..]));
    assert_eq!(written(&decoded.profile, &options), bytes);

    // gcc-sample-profile.gcov lists positions out of offset order (a create_gcov of a
    // hash-map era): everything but the order inside the functions comes back.
    let mut paths = Vec::new();
    for path in files_under(&corpus().join("peers/llvm-profparser")) {
        if path.file_name().is_some_and(|n| n == "gcc-sample-profile.gcov") {
            paths.push(path.strip_prefix(corpus()).unwrap().display().to_string());
        }
    }
    assert_eq!(paths.len(), 5);
    for rel in paths {
        let bytes = read(&rel);
        let decoded = afdo::decode(&bytes).unwrap();
        let out = written(&decoded.profile, &Options::reproducing(&decoded.file));
        assert_eq!(out.len(), bytes.len(), "{rel}");
        let root = afdo::dump(&bytes, &det()).unwrap();
        let functions = root.children.iter().find(|c| c.label == "AFDO_FUNCTION").unwrap();
        let (start, end) = (functions.start as usize + 12, functions.end as usize);
        assert_eq!(out[..start], bytes[..start], "{rel}");
        assert_eq!(out[end..], bytes[end..], "{rel}");
        assert_ne!(out[start..end], bytes[start..end], "{rel}");
        let back = decode_afdo::decode(&out).unwrap();
        assert_eq!(norms(&back, false), norms(&decoded.profile, false), "{rel}");
    }
}

/// A body sample for comparing: line, discriminator, samples, call targets.
type BodyRow = (u32, u32, u64, Vec<(Vec<u8>, u64)>);

/// A profile for comparing: names as bytes with their files, everything sorted.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Norm {
    name: (Vec<u8>, Option<Vec<u8>>),
    total: u64,
    head: u64,
    timestamp: u64,
    body: Vec<BodyRow>,
    callsites: Vec<(u32, u32, Norm)>,
}

fn norm_name(p: &Profile, id: NameId) -> (Vec<u8>, Option<Vec<u8>>) {
    let entry = p.names.get(id).unwrap();
    let file = entry.file.and_then(|f| p.files.get(f as usize)).cloned();
    (p.names.bytes(id).into_owned(), file)
}

fn norm(p: &Profile, f: &FunctionSamples, recompute_totals: bool) -> Norm {
    let callsites: Vec<_> = f
        .callsites
        .iter()
        .map(|c| (c.location.line, c.location.discriminator, norm(p, &c.callee, recompute_totals)))
        .collect();
    let body: Vec<_> = f
        .body
        .iter()
        .map(|b| {
            let mut calls: Vec<_> = b.calls.iter().map(|c| (norm_name(p, c.name).0, c.count)).collect();
            calls.sort();
            (b.location.line, b.location.discriminator, b.samples, calls)
        })
        .collect();
    let total = if recompute_totals {
        body.iter().map(|b| b.2).sum::<u64>() + callsites.iter().map(|c| c.2.total).sum::<u64>()
    } else {
        f.total
    };
    Norm { name: norm_name(p, f.name), total, head: f.head, timestamp: f.timestamp, body, callsites }
}

fn norms(p: &Profile, recompute_totals: bool) -> Vec<Norm> {
    let mut all: Vec<_> = p.functions.iter().map(|f| norm(p, f, recompute_totals)).collect();
    all.sort();
    all
}

fn written(p: &Profile, options: &Options) -> Vec<u8> {
    let mut out = Vec::new();
    write_with(p, options, &mut out);
    out
}

#[test]
fn gcc_profiles_survive_every_layout() {
    for (name, bytes, _) in gcc_files() {
        let p = decode_afdo::decode(&bytes).unwrap();
        let expected = norms(&p, false);
        for layout in [Layout::V1, Layout::V2, Layout::V3] {
            for endian in [Endian::Little, Endian::Big] {
                let version = if layout == Layout::V2 { 2 } else { VERSION_704 };
                let options = Options { endian, version, layout, ..Options::default() };
                let back = decode_afdo::decode(&written(&p, &options)).unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut got = norms(&back, false);
                if !layout.v3 {
                    // only v3 keeps files and timestamps
                    let mut stripped = norms(&p, false);
                    strip(&mut stripped);
                    strip(&mut got);
                    assert_eq!(got, stripped, "{name} {layout:?} {endian:?}");
                } else {
                    assert_eq!(got, expected, "{name} {layout:?} {endian:?}");
                }
            }
        }
        // the default is create_gcov's: "*704", v3, little-endian
        let mut out = Vec::new();
        write_afdo::write(&p, &mut out);
        assert_eq!(out, written(&p, &Options::default()));
        assert_eq!(&out[..12], b"adcg*704\0\0\0\0");
        assert_eq!(&out[12..16], &0xa800_0000u32.to_le_bytes());
    }
}

fn strip(norms: &mut [Norm]) {
    for n in norms {
        n.name.1 = None;
        n.timestamp = 0;
        strip_callsites(n);
    }
}

fn strip_callsites(n: &mut Norm) {
    for (_, _, c) in &mut n.callsites {
        c.name.1 = None;
        strip_callsites(c);
    }
}

/// LLVM profiles written as GCOV v3 (the size comparison's input) read back with the
/// same samples: names without files, totals recomputed from the positions.
#[test]
fn llvm_profiles_write_as_v3() {
    let mut checked = Vec::new();
    let mut sources: Vec<PathBuf> = files_under(&corpus().join("llvm/sample-basic"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "prof"))
        .collect();
    sources.push(corpus().join("llvm/afdo-progB/afdo-progB.extbinary.prof"));
    for path in sources {
        let rel = path.strip_prefix(corpus()).unwrap().display().to_string();
        let p = pgolens::detect::decode_sample_profile(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        if p.kind.context_sensitive {
            continue;
        }
        let fits = |f: &FunctionSamples| {
            let mut ok = true;
            let mut stack = vec![f];
            while let Some(f) = stack.pop() {
                ok &= f.body.iter().all(|b| b.location.line < 0x10000 && b.location.discriminator < 0x10000);
                ok &= f.callsites.iter().all(|c| c.location.line < 0x10000 && c.location.discriminator < 0x10000);
                stack.extend(f.callsites.iter().map(|c| &c.callee));
            }
            ok
        };
        assert!(p.functions.iter().all(fits), "{rel}");
        let mut out = Vec::new();
        write_afdo::write(&p, &mut out);
        let back = afdo::decode(&out).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(back.file.layout, Layout::V3);
        assert!(back.profile.files.is_empty(), "{rel}");
        assert_eq!(back.profile.names.name(NameId(0)), Some(&name("")), "{rel}");
        assert!(back.profile.names.iter().all(|(_, e)| e.file.is_none()), "{rel}");
        assert_eq!(norms(&back.profile, false), norms(&p, true), "{rel}");
        checked.push(rel);
    }
    assert!(checked.len() >= 6, "{checked:?}");
}

// ---- byte layouts, one field a line ----

fn w(d: &mut Vec<u8>, words: &[u32]) {
    words.iter().for_each(|x| d.extend_from_slice(&x.to_le_bytes()));
}

/// "*704", v1 layout: foo {1: 3}; main (head 2) {1: 5 → foo:5; 2.1: foo {1: 4}},
/// as autofdo 0.19 writes it (up to the end of the functions).
fn v1_bytes() -> Vec<u8> {
    let mut d = b"adcg".to_vec(); //                      0 magic
    w(&mut d, &[VERSION_704, 0]); //                      4 version "*704", 8 zero
    w(&mut d, &[0xaa00_0000, 8, 3]); //                   12 FILE_NAMES, length 8, num_names 3
    w(&mut d, &[1, 0]); //                                24 "" (1 word)
    w(&mut d, &[1]); //                                   32 "foo" (1 word)
    d.extend_from_slice(b"foo\0"); //                     36
    w(&mut d, &[2]); //                                   40 "main" (2 words)
    d.extend_from_slice(b"main\0\0\0\0"); //              44
    w(&mut d, &[0xac00_0000, 32, 2]); //                  52 FUNCTION, length 32, num_functions 2
    w(&mut d, &[0, 0, 1, 1, 0]); //                       64 head 0; name 1 (foo); 1 position; 0 callsites
    w(&mut d, &[0x0001_0000, 0, 3, 0]); //                84 offset 1, no targets, count 3
    w(&mut d, &[2, 0, 2, 1, 1]); //                       100 head 2; name 2 (main); 1 position; 1 callsite
    w(&mut d, &[0x0001_0000, 1, 5, 0]); //                120 offset 1, 1 target, count 5
    w(&mut d, &[7, 1, 0, 5, 0]); //                       136 TOPN, target name 1 (foo, 64-bit), count 5
    w(&mut d, &[0x0002_0001, 1, 1, 0]); //                156 callsite 2.1: name 1 (foo); 1 position; 0 callsites
    w(&mut d, &[0x0001_0000, 0, 4, 0]); //                172 offset 1, no targets, count 4
    d //                                                  188
}

/// The same profile, version 2: byte-length strings, unaligned after them.
fn v2_bytes() -> Vec<u8> {
    let mut d = b"adcg".to_vec(); //                      0 magic
    w(&mut d, &[2, 0]); //                                4 version 2, 8 zero
    w(&mut d, &[0xaa00_0000, 8, 3]); //                   12 FILE_NAMES, length 8 (create_gcov counts words), 3 names
    w(&mut d, &[1]); //                                   24 "" (1 byte)
    d.push(0); //                                         28
    w(&mut d, &[4]); //                                   29 "foo" (4 bytes)
    d.extend_from_slice(b"foo\0"); //                     33
    w(&mut d, &[5]); //                                   37 "main" (5 bytes)
    d.extend_from_slice(b"main\0"); //                    41
    w(&mut d, &[0xac00_0000, 32, 2]); //                  46 FUNCTION, length 32, num_functions 2
    w(&mut d, &[0, 0, 1, 1, 0]); //                       58 foo
    w(&mut d, &[0x0001_0000, 0, 3, 0]); //                78
    w(&mut d, &[2, 0, 2, 1, 1]); //                       94 main
    w(&mut d, &[0x0001_0000, 1, 5, 0]); //                114
    w(&mut d, &[7, 1, 0, 5, 0]); //                       130
    w(&mut d, &[0x0002_0001, 1, 1, 0]); //                150
    w(&mut d, &[0x0001_0000, 0, 4, 0]); //                166
    d //                                                  182
}

/// The same profile, v3 under "*704" as create_gcov writes it today: summary, files
/// (foo in a.c, main in m.c), timestamps (main 7).
fn v3_bytes() -> Vec<u8> {
    let mut d = b"adcg".to_vec(); //                      0 magic
    w(&mut d, &[VERSION_704, 0]); //                      4 version "*704", 8 zero
    w(&mut d, &[0xa800_0000]); //                         12 SUMMARY (no length)
    w(&mut d, &[12, 0, 5, 0, 2, 0]); //                   16 total 12, max count 5, max function (head) count 2
    w(&mut d, &[3, 0, 2, 0, 16, 0]); //                   40 3 counts, 2 functions, 16 cutoffs
                                     // cutoff → (min count, counts): counts 5, 4, 3 taken from the top until their sum
                                     // reaches total × cutoff / 10^6 (rounded down; 1% of 12 is 0: nothing taken)
    let entries: [(u32, u32, u32); 16] = [
        (10_000, 0, 0),
        (100_000, 5, 1),
        (200_000, 5, 1),
        (300_000, 5, 1),
        (400_000, 5, 1),
        (500_000, 4, 2),
        (600_000, 4, 2),
        (700_000, 4, 2),
        (800_000, 4, 2),
        (900_000, 3, 3),
        (950_000, 3, 3),
        (990_000, 3, 3),
        (999_000, 3, 3),
        (999_900, 3, 3),
        (999_990, 3, 3),
        (999_999, 3, 3),
    ];
    for (cutoff, min, n) in entries {
        w(&mut d, &[cutoff, min, 0, n, 0]); //             64.. cutoff, min_count, num_counts
    }
    w(&mut d, &[0xaa00_0000, 8, 2]); //                   384 FILE_NAMES, length 8, num_files 2
    w(&mut d, &[4]); //                                   396 "a.c" (foo's, first visited)
    d.extend_from_slice(b"a.c\0"); //                     400
    w(&mut d, &[4]); //                                   404 "m.c"
    d.extend_from_slice(b"m.c\0"); //                     408
    w(&mut d, &[3, 1]); //                                412 num_names 3; "" (1 byte)
    d.push(0); //                                         420
    w(&mut d, &[u32::MAX, 4]); //                         421 file: none; "foo"
    d.extend_from_slice(b"foo\0"); //                     429
    w(&mut d, &[0, 5]); //                                433 file 0 (a.c); "main"
    d.extend_from_slice(b"main\0"); //                    441
    w(&mut d, &[1]); //                                   446 file 1 (m.c)
    w(&mut d, &[0xac00_0000, 32, 2]); //                  450 FUNCTION, length 32 (timestamps not counted), 2 functions
    w(&mut d, &[0, 0, 0, 0, 1, 1, 0]); //                 462 head 0, timestamp 0, name 1 (foo), 1 position, 0 callsites
    w(&mut d, &[0x0001_0000, 0, 3, 0]); //                490
    w(&mut d, &[2, 0, 7, 0, 2, 1, 1]); //                 506 head 2, timestamp 7, name 2 (main), 1 position, 1 callsite
    w(&mut d, &[0x0001_0000, 1, 5, 0]); //                534
    w(&mut d, &[7, 1, 0, 5, 0]); //                       550
    w(&mut d, &[0x0002_0001, 1, 1, 0]); //                570
    w(&mut d, &[0x0001_0000, 0, 4, 0]); //                586
    d //                                                  602
}

/// LLVM's reading of all three (`llvm-profdata merge --sample --text` of the v1
/// bytes; it cannot read the others).
const SMALL_TEXT: &str = "main:9:2\n 1: 5 foo:5\n 2.1: foo:4\n  1: 4\nfoo:3:0\n 1: 3\n";

#[test]
fn byte_layouts() {
    for (bytes, layout) in [(v1_bytes(), Layout::V1), (v2_bytes(), Layout::V2), (v3_bytes(), Layout::V3)] {
        let d = afdo::decode(&bytes).unwrap_or_else(|e| panic!("{layout:?}: {e}"));
        assert_eq!(d.file.layout, layout);
        assert_eq!(llvm_text(&d.profile), SMALL_TEXT, "{layout:?}");
        let root = afdo::dump(&bytes, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()), "{layout:?}");
        assert!(!contains_label(&root, "unparsed"), "{layout:?}");
        // written back: the same bytes up to the end of the functions
        let out = written(&d.profile, &Options::reproducing(&d.file));
        assert_eq!(out[..bytes.len()], bytes[..], "{layout:?}");
        assert_eq!(out[bytes.len()..bytes.len() + 12], [0, 0, 0, 0xae, 0, 0, 0, 0, 0, 0, 0, 0], "{layout:?}");
    }
    let v3 = afdo::decode(&v3_bytes()).unwrap();
    assert_eq!(v3.profile.files, [b"a.c".to_vec(), b"m.c".to_vec()]);
    let main = v3.profile.functions.iter().find(|f| f.head == 2).unwrap();
    assert_eq!((main.timestamp, norm_name(&v3.profile, main.name)), (7, (b"main".to_vec(), Some(b"m.c".to_vec()))));
    let summary = v3.file.summary.unwrap();
    assert_eq!((summary.total_count, summary.max_count, summary.num_counts, summary.detailed.len()), (12, 5, 3, 16));
    // version word 1: the v1 layout without sniffing
    let mut v1 = v1_bytes();
    v1[4..8].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(llvm_text(&decode_afdo::decode(&v1).unwrap()), SMALL_TEXT);
    // big-endian: "gcda"
    let big = written(&v3.profile, &Options { endian: Endian::Big, ..Options::default() });
    assert_eq!(&big[..4], b"gcda");
    assert_eq!(llvm_text(&decode_afdo::decode(&big).unwrap()), SMALL_TEXT);
}

fn contains_label(node: &Node, label: &str) -> bool {
    node.label == label || node.children.iter().any(|c| contains_label(c, label))
}

fn find<'a>(node: &'a Node, label: &str, out: &mut Vec<&'a Node>) {
    if node.label == label {
        out.push(node);
    }
    node.children.iter().for_each(|c| find(c, label, out));
}

// ---- malformed input ----

fn malformed_inputs() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = gcc_files().into_iter().map(|(name, bytes, _)| (name, bytes)).collect();
    files.dedup_by(|a, b| a.1 == b.1);
    files.extend([("v1".to_string(), v1_bytes()), ("v2".to_string(), v2_bytes()), ("v3".to_string(), v3_bytes())]);
    files
}

/// Decoding and dumping agree, never panic, and every error is inside the input.
fn check(name: &str, bytes: &[u8]) -> Result<(), pgolens::Error> {
    check_with(name, bytes, true)
}

/// [`check`], writing what decodes only when `write`.
fn check_with(name: &str, bytes: &[u8], write: bool) -> Result<(), pgolens::Error> {
    let decoded = afdo::decode(bytes);
    let dumped = afdo::dump(bytes, &det());
    match (&decoded, &dumped) {
        (Ok(d), Ok(root)) => {
            assert_eq!(root.check_tiling(), Ok(()), "{name}");
            assert_eq!(root.end, bytes.len() as u64, "{name}");
            if !write {
                return Ok(());
            }
            // whatever decodes can be written and printed
            let mut out = Vec::new();
            write_afdo::write(&d.profile, &mut out);
            dump_gcov::write(&d.profile, &mut out);
            write_text::write(&d.profile, &mut out);
            Ok(())
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "{name}: decode and dump disagree");
            let offset = a.offset().unwrap_or_else(|| panic!("{name}: error without offset: {a}"));
            assert!(offset <= bytes.len() as u64, "{name}: {a} outside {} bytes", bytes.len());
            Err(*a)
        }
        _ => panic!("{name}: decode {:?} but dump {:?}", decoded.as_ref().err(), dumped.as_ref().err()),
    }
}

#[test]
fn truncation_at_every_byte() {
    for (name, bytes) in malformed_inputs() {
        let root = afdo::dump(&bytes, &det()).unwrap();
        // Readers stop after the functions: a file cut at the end of a section from
        // there on is a shorter valid file, and so is one whose next tag is cut (LLVM
        // ignores what follows the functions; we leave it unparsed).
        let functions = root.children.iter().position(|c| c.label == "AFDO_FUNCTION").unwrap();
        let valid: Vec<usize> =
            root.children[functions..].iter().flat_map(|c| c.end as usize..c.end as usize + 4).collect();
        for cut in 0..bytes.len() {
            let result = check(&format!("{name} cut at {cut}"), &bytes[..cut]);
            assert_eq!(result.is_ok(), valid.contains(&cut), "{name} cut at {cut}: {result:?}");
            if let Err(e) = result {
                assert!(e.offset().unwrap() <= cut as u64);
            }
        }
    }
}

#[test]
fn bit_flips() {
    for (name, bytes) in malformed_inputs() {
        // every bit of the small layouts; of the hand-made v1 and v3 files, one bit a
        // byte (rotating); truncation covers the rest
        let small = bytes.len() < 1000;
        if !small && name != "targets.afdo" && name != "targets.v3.afdo" {
            continue;
        }
        let bits: Vec<usize> =
            if small { (0..bytes.len() * 8).collect() } else { (0..bytes.len()).map(|i| i * 8 + i % 8).collect() };
        for bit in bits {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            let _ = check_with(&format!("{name} bit {bit}"), &flipped, small);
        }
    }
}

/// The offset of every field labelled `label` in the dump of `bytes`.
fn fields(bytes: &[u8], label: &str) -> Vec<u64> {
    let root = afdo::dump(bytes, &det()).unwrap();
    let mut found = Vec::new();
    find(&root, label, &mut found);
    found.iter().map(|n| n.start).collect()
}

/// The offset of every field labelled `label` in section `section`.
fn fields_in(bytes: &[u8], section: &str, label: &str) -> Vec<u64> {
    let root = afdo::dump(bytes, &det()).unwrap();
    let mut found = Vec::new();
    root.children.iter().filter(|c| c.label == section).for_each(|c| find(c, label, &mut found));
    found.iter().map(|n| n.start).collect()
}

fn patched(bytes: &[u8], at: u64, value: u32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at as usize..at as usize + 4].copy_from_slice(&value.to_le_bytes());
    out
}

#[test]
fn absurd_counts_and_bad_indexes_fail_where_they_are() {
    for (name, bytes) in [("targets.v3", data("targets.v3.afdo")), ("targets", data("targets.afdo"))] {
        let labels = [
            ("AFDO_SUMMARY", "num_detailed"),
            ("AFDO_FILE_NAMES", "num_files"),
            ("AFDO_FILE_NAMES", "num_names"),
            ("AFDO_FILE_NAMES", "length"),
            ("AFDO_FUNCTION", "num_functions"),
            ("AFDO_FUNCTION", "num_pos_counts"),
            ("AFDO_FUNCTION", "num_callsites"),
            ("AFDO_FUNCTION", "num_targets"),
            ("AFDO_WORKING_SET", "length"),
        ];
        let mut tried = 0;
        for (section, label) in labels {
            for at in fields_in(&bytes, section, label) {
                // the FILE_NAMES length word is ignored: only string lengths count
                if bytes[at as usize - 4..at as usize] == 0xaa00_0000u32.to_le_bytes() {
                    continue;
                }
                for value in [u32::MAX, 0x4000_0000] {
                    let what = format!("{name} {label} at {at} = {value:#x}");
                    let e =
                        check(&what, &patched(&bytes, at, value)).err().unwrap_or_else(|| panic!("{what}: decoded"));
                    assert_eq!(e.offset(), Some(at), "{what}: {e}");
                    tried += 1;
                }
            }
        }
        assert!(tried > 40, "{name}: {tried}");
        // name indexes past the table, a histogram that is not TOPN
        let names = 7;
        for at in fields(&bytes, "name_index") {
            let e = check(name, &patched(&bytes, at, names)).unwrap_err();
            assert_eq!(e.offset(), Some(at), "{name}: {e}");
            assert!(e.to_string().contains("name index"), "{e}");
        }
        for at in fields(&bytes, "hist_type") {
            let e = check(name, &patched(&bytes, at, 4)).unwrap_err();
            assert_eq!(e.offset(), Some(at), "{name}: {e}");
        }
    }
}

/// A "*704" v1 file whose one function nests `depth` inlined callees, the deepest
/// with a sample.
fn nested(depth: usize) -> Vec<u8> {
    let mut d = b"adcg".to_vec();
    w(&mut d, &[VERSION_704, 0, 0xaa00_0000, 0, 2, 1, 0, 1]); // names: "", "f"
    d.extend_from_slice(b"f\0\0\0");
    w(&mut d, &[0xac00_0000, 0, 1, 0, 0]); // one function, head 0
    for _ in 0..depth {
        w(&mut d, &[1, 0, 1, 0x0001_0000]); // name f, no positions, one callsite at line 1
    }
    w(&mut d, &[1, 1, 0, 0x0002_0000, 0, 1, 0]); // the deepest: one position, count 1
    d
}

#[test]
fn inline_depth_is_bounded() {
    let ok = nested(MAX_DEPTH);
    let p = decode_afdo::decode(&ok).unwrap();
    assert_eq!(p.functions[0].total, 1);
    let text = dump_gcov_text(&p, Dialect::Legacy);
    assert_eq!(text.lines().count(), 1 + MAX_DEPTH + 1);
    let back = decode_afdo::decode(&written(&p, &Options::default())).unwrap();
    assert_eq!(norms(&back, false), norms(&p, false));
    let deep = nested(MAX_DEPTH + 1);
    let e = check("too deep", &deep).unwrap_err();
    // the 257th callsite's offset word: the function's fields start at 60, each level
    // takes 16 bytes (name, two counts, the callsite's offset)
    assert_eq!(e.offset(), Some(60 + 16 * (MAX_DEPTH as u64 + 1) - 4));
    assert!(e.to_string().contains("deeper than 256"), "{e}");
}

/// A big file's dump keeps every byte covered but builds fields only for the first
/// records; the rest are runs.
#[test]
fn big_dumps_collapse_into_runs() {
    let mut p = Profile::new();
    for i in 0..5000u32 {
        let name = p.names.intern_bytes(format!("f{i:05}").as_bytes()).unwrap();
        let mut f = FunctionSamples { name, head: 1, ..FunctionSamples::default() };
        for line in 0..10 {
            f.add_body(pgolens::formats::sample::model::LineLocation { line, discriminator: 0 }, 3, Vec::new());
        }
        f.total = 30;
        p.add(f);
    }
    let mut bytes = Vec::new();
    write_afdo::write(&p, &mut bytes);
    let root = afdo::dump(&bytes, &det()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    assert!(root.count() < 100_000, "{}", root.count());
    let functions = root.children.iter().find(|c| c.label == "AFDO_FUNCTION").unwrap();
    let run = functions.children.last().unwrap();
    assert!(run.label.starts_with("functions ") && run.label.ends_with("..5000"), "{}", run.label);
    assert_eq!(run.end, functions.end);
    let back = decode_afdo::decode(&bytes).unwrap();
    assert_eq!(back.functions.len(), 5000);
    assert_eq!(norms(&back, false), norms(&p, false));
}
