//! Conformance over the real files in `tests/corpus/`: detection of every profile
//! file, dumps that tile their input, and malformed inputs that fail cleanly.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod common;
mod corpus_ids;

use std::collections::BTreeSet;

use common::{corpus, read};
use corpus_ids::EXPECTED_IDS;
use pgolens::{Detection, Format, Node};

fn detect(bytes: &[u8]) -> pgolens::Result<Detection> {
    pgolens::open(bytes)?.detect()
}

/// Which corpus files are profiles (or what the product reads beside them: binaries,
/// debug files, kallsyms): everything but the reference tools' dumps and logs (BOLT's
/// CFG as Graphviz `*.dot` among them), sources, licences, and raw section extracts
/// (`*.bin`), except the pre-aggregated profiles, which are `.txt`, and LLVM's
/// cut-magic `*.text.bin` test.
fn is_profile_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.contains("/src/") || rel.contains("/tools/") || name.starts_with("LICENSE") || name == "DUMPED-BY-OLDER.txt"
    {
        return false;
    }
    if name.contains("preagg") && name.ends_with(".txt") || name.ends_with(".text.bin") {
        return true;
    }
    ![".txt", ".md", ".log", ".json", ".remap", ".expected", ".bin", ".dot", "memory.yaml"]
        .iter()
        .any(|s| name.ends_with(s))
}

#[test]
fn table_lists_every_profile_file() {
    let base = corpus();
    let found: BTreeSet<String> = common::files_under(&base)
        .iter()
        .map(|path| path.strip_prefix(&base).unwrap().to_string_lossy().replace('\\', "/"))
        .filter(|rel| is_profile_file(rel))
        .collect();
    let listed: BTreeSet<String> = EXPECTED_IDS.iter().map(|(f, _)| f.to_string()).collect();
    let missing: Vec<_> = found.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&found).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "not in the table: {missing:?}; no longer in the corpus: {stale:?}"
    );
}

#[test]
fn detects_every_corpus_file() {
    let mut wrong = Vec::new();
    for (rel, expected) in EXPECTED_IDS {
        let got = match detect(&read(rel)) {
            Ok(d) => d.format.id().to_string(),
            Err(_) => "ERROR".to_string(),
        };
        if got != *expected {
            wrong.push(format!("{rel}: expected {expected}, detected {got}"));
        }
    }
    assert!(wrong.is_empty(), "{} misdetected:\n{}", wrong.len(), wrong.join("\n"));
    // Every id of the vocabulary that the corpus has a file for is exercised.
    let ids: BTreeSet<&str> = EXPECTED_IDS.iter().map(|(_, id)| *id).collect();
    for format in Format::ALL {
        let no_corpus_file = matches!(format, Format::GcovV4 | Format::GcovV4Text);
        assert_eq!(ids.contains(format.id()), !no_corpus_file, "{format}");
    }
}

#[test]
fn detection_reports_header_details() {
    // (file, what `pgolens detect` prints after the id), from the MANIFEST's
    // "format / version" column and the files' headers.
    let cases = [
        ("llvm/m32-progB/m32-progB.profraw", "instrprof-raw [version 10, 32-bit, little-endian, IR_PROF]"),
        ("llvm/clang13-progA/clang13-progA.profraw", "instrprof-raw [version 7, 64-bit, little-endian, IR_PROF]"),
        ("llvm/clang16-fe-progA/clang16-fe-progA.profraw", "instrprof-raw [version 8, 64-bit, little-endian]"),
        (
            "llvm/blockcov-progA/blockcov-progA.profraw",
            "instrprof-raw [version 10, 64-bit, little-endian, IR_PROF,BYTE_COVERAGE]",
        ),
        (
            "llvm/blockcov-progA/blockcov-progA.profdata",
            "instrprof-indexed [version 13, little-endian, IR_PROF,BYTE_COVERAGE]",
        ),
        ("llvm/writeprev-progA/writeprev-progA.profdata", "instrprof-indexed [version 11, little-endian, IR_PROF]"),
        ("peers/llvm-profparser/llvm-11/c-general.profraw", "instrprof-raw [version 5, 64-bit, little-endian]"),
        ("llvm/memprof-progA/memprof-progA.memprofraw", "memprof-raw [version 5, 64-bit, little-endian]"),
        ("llvm/afdo-progB/afdo-progB.afdo", "gcov-afdo [version 0x3430372a, little-endian]"),
        ("llvm/afdo-progB/afdo-progB.extbinary.prof", "sample-extbinary [version 103]"),
        ("llvm/sample-basic/sample-basic.binary.prof", "sample-binary [version 103]"),
        ("peers/llvm-profparser/llvm-12/compat-sample.profdata", "sample-binary [version 103, compact (obsolete)]"),
        ("bolt-perf/cprog/cprog.fp.perf.data", "perf.data [version 2, little-endian]"),
        ("bolt-perf/cprog/cprog.pipe.perf.data", "perf.data-pipe [version 2, little-endian]"),
        ("bolt-perf/cprog/cprog", "elf [64-bit, little-endian]"),
        ("bolt-perf/cprog/cprog.bolt", "elf+bat [64-bit, little-endian]"),
        ("bolt-perf/cprog/cprog.bolt.bat.fdata", "bolt-fdata [boltedcollection]"),
        ("bolt-perf/cprog/cprog.nolbr.fdata", "bolt-fdata [no_lbr]"),
        ("bolt-perf/cprog/cprog.brstack.yaml", "bolt-yaml [version 1]"),
        ("bolt-perf/cprog/cprog.preagg-traces.txt", "bolt-preagg"),
        ("llvm/sample-cs-lbr/sample-cs-lbr.text.prof", "sample-text"),
        ("peers/llvm-profparser/llvm-19/header-directives-1.proftext", "instrprof-text [entry_first]"),
    ];
    for (rel, expected) in cases {
        let detection = detect(&read(rel)).unwrap();
        assert_eq!(detection.to_string(), expected, "{rel}");
    }
}

#[test]
fn gzip_is_transparent() {
    // gzip -n of a real fdata file, made here so nothing generated is committed.
    let plain = read("bolt-perf/cprog/cprog.brstack.fdata");
    let gz = gzip_stored(&plain);
    let input = pgolens::open(&gz).unwrap();
    assert!(input.gzip);
    assert_eq!(&*input.data, &plain[..]);
    assert_eq!(input.detect().unwrap().to_string(), "bolt-fdata [gzip]");
}

/// A gzip file holding `data` in stored (uncompressed) deflate blocks.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    let chunks: Vec<&[u8]> = data.chunks(65535).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Files that are malformed on purpose: LLVM's own bad-input tests.
fn malformed_on_purpose(rel: &str) -> bool {
    corpus().join(format!("{rel}.reference-error.txt")).exists()
}

fn check_dump(rel: &str, bytes: &[u8]) -> Result<Node, String> {
    let input = pgolens::open(bytes).map_err(|e| e.to_string())?;
    let detection = input.detect().map_err(|e| e.to_string())?;
    let root = pgolens::dump_all(&input.data, &detection).map_err(|e| e.to_string())?;
    if root.start != 0 || root.end != input.data.len() as u64 {
        return Err(format!("{rel}: root spans {}..{}, input is {} bytes", root.start, root.end, input.data.len()));
    }
    root.check_tiling().map_err(|e| format!("{rel}: {e}"))?;
    Ok(root)
}

#[test]
fn every_dump_tiles_its_file() {
    let mut failures = Vec::new();
    for (rel, id) in EXPECTED_IDS {
        if *id == "ERROR" {
            continue;
        }
        let bytes = read(rel);
        match check_dump(rel, &bytes) {
            Ok(_) => {}
            Err(e) if malformed_on_purpose(rel) => eprintln!("{rel}: rejected as expected: {e}"),
            Err(e) => failures.push(format!("{rel}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{} dumps failed:\n{}", failures.len(), failures.join("\n"));
}

/// The offsets where a truncation is most likely to confuse a decoder: every
/// boundary of the dump's first three levels, and the first 64 bytes.
fn cut_points(root: &Node, len: usize) -> BTreeSet<usize> {
    fn visit(node: &Node, depth: usize, out: &mut BTreeSet<usize>) {
        out.insert(node.start as usize);
        out.insert(node.end as usize);
        if depth < 3 {
            for child in &node.children {
                visit(child, depth + 1, out);
            }
        }
    }
    let mut cuts: BTreeSet<usize> = (1..=64).collect();
    visit(root, 0, &mut cuts);
    cuts.retain(|&c| c > 0 && c < len);
    cuts
}

fn assert_clean_error(rel: &str, what: &str, bytes: &[u8]) {
    let result = std::panic::catch_unwind(|| {
        let input = pgolens::open(bytes)?;
        let detection = input.detect()?;
        pgolens::dump_all(&input.data, &detection).map(|_| ())
    });
    match result {
        Ok(Err(e)) => {
            if let Some(offset) = e.offset() {
                assert!(
                    offset <= bytes.len() as u64,
                    "{rel} {what}: error offset {offset:#x} outside {} bytes: {e}",
                    bytes.len()
                );
            }
        }
        Ok(Ok(())) => panic!("{rel} {what}: decoded without error"),
        Err(_) => panic!("{rel} {what}: panicked"),
    }
}

#[test]
fn truncated_binary_files_fail_with_an_offset() {
    for (rel, id) in EXPECTED_IDS {
        let Some(format) = Format::from_id(id) else { continue };
        if format.is_text() || malformed_on_purpose(rel) {
            continue;
        }
        let bytes = read(rel);
        let Ok(root) = check_dump(rel, &bytes) else { continue };
        // Some formats have no length or count for their items: a pipe-mode perf
        // stream cut between two records, a raw binary sample profile cut before or between its
        // function profiles, an AutoFDO file cut after its functions (readers ignore
        // what follows), and a raw file holding several profiles cut between two of
        // them are shorter valid files. Cut anywhere else, any file
        // must fail.
        let valid_cuts: BTreeSet<usize> = match format {
            Format::PerfDataPipe => root.children[1].children.iter().map(|r| r.end as usize).chain([16]).collect(),
            Format::SampleBinary => root
                .children
                .iter()
                .filter(|c| c.label == "function profiles")
                .flat_map(|c| c.children.iter().map(|f| f.start as usize).chain([c.start as usize]))
                .collect(),
            Format::GcovAfdo => {
                let functions = root.children.iter().position(|c| c.label == "AFDO_FUNCTION").unwrap();
                root.children[functions..].iter().map(|c| c.end as usize).collect()
            }
            Format::InstrProfRaw | Format::MemProfRaw => {
                root.children.iter().filter(|c| c.label.starts_with("profile ")).map(|c| c.end as usize).collect()
            }
            _ => BTreeSet::new(),
        };
        for cut in cut_points(&root, bytes.len()) {
            if valid_cuts.contains(&cut) {
                let shorter = check_dump(rel, &bytes[..cut]).unwrap_or_else(|e| panic!("{rel} cut at {cut}: {e}"));
                assert_eq!(shorter.end, cut as u64);
            } else {
                assert_clean_error(rel, &format!("cut at {cut}"), &bytes[..cut]);
            }
        }
    }
}

/// xorshift64*: reproducible noise without a dependency.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn random_bytes_fail_cleanly() {
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    for len in [0usize, 1, 7, 8, 16, 64, 100, 4096, 65536] {
        let bytes: Vec<u8> = (0..len).map(|_| noise.next() as u8).collect();
        assert_clean_error("random", &format!("{len} bytes"), &bytes);
    }
    // Every binary magic followed by noise: detection succeeds or fails, decoding fails.
    let magics: [&[u8]; 8] = [
        b"PERFILE2",
        b"2ELIFREP",
        &[0x81, 0x72, 0x66, 0x6f, 0x72, 0x70, 0x6c, 0xff],
        &[0xff, 0x6c, 0x70, 0x72, 0x6f, 0x66, 0x69, 0x81],
        &[0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53, 0x67],
        b"adcg*704",
        b"gcov\0\0\0\x04",
        b"\x7fELF\x02\x01\x01\0",
    ];
    for magic in magics {
        for len in [0usize, 8, 100, 4096] {
            let mut bytes = magic.to_vec();
            bytes.extend((0..len).map(|_| noise.next() as u8));
            assert_clean_error("magic+noise", &format!("{magic:02x?} + {len}"), &bytes);
        }
    }
}

#[test]
fn bit_flips_never_panic_and_keep_tiling() {
    let mut noise = Noise(42);
    for (rel, id) in EXPECTED_IDS {
        let Some(format) = Format::from_id(id) else { continue };
        if format.is_text() {
            continue;
        }
        let original = read(rel);
        // The headers are where flips change structure; flip in the first 512 bytes.
        let span = original.len().min(512);
        for _ in 0..24 {
            let mut bytes = original.clone();
            let at = (noise.next() as usize) % span;
            bytes[at] ^= 1 << (noise.next() % 8);
            let outcome = std::panic::catch_unwind(|| check_dump(rel, &bytes));
            match outcome {
                Err(_) => panic!("{rel}: panicked with a bit flipped at {at:#x}"),
                Ok(Err(e)) if e.contains("does not continue") || e.contains("root spans") => {
                    panic!("{rel}: flip at {at:#x} broke the tiling: {e}")
                }
                Ok(_) => {}
            }
        }
    }
}

fn child<'a>(node: &'a Node, label: &str) -> &'a Node {
    node.children.iter().find(|c| c.label == label).unwrap_or_else(|| panic!("no {label} in {}", node.label))
}

#[test]
fn perf_file_dump_matches_perf_report_header() {
    // Values from `perf report --header-only` (cprog.fp.perf.data.header.txt).
    let bytes = read("bolt-perf/cprog/cprog.fp.perf.data");
    let root = check_dump("cprog.fp", &bytes).unwrap();
    let data = child(&root, "data");
    assert_eq!((data.start, data.end - data.start), (264, 40360)); // data offset, data size
    assert_eq!(child(&root, "feature sections").start, 40624); // feat offset
    assert_eq!(child(&root, "feature HOSTNAME").value.as_deref(), Some("vm"));
    assert_eq!(child(&root, "feature OSRELEASE").value.as_deref(), Some("6.18.44-fc-v657"));
    assert_eq!(child(&root, "feature VERSION").value.as_deref(), Some("6.1.192"));
    assert_eq!(child(&root, "feature CPUID").value.as_deref(), Some("AuthenticAMD,25,17,1"));
    // event: id = { 2545, 2546 }, type = 1, size = 128, sample_type = IP|TID|TIME|CALLCHAIN|PERIOD
    assert_eq!(child(&root, "ids of attr 0").value.as_deref(), Some("2"));
    let attr = child(child(child(&root, "attrs"), "attr 0"), "perf_event_attr");
    assert_eq!(child(attr, "type").value.as_deref(), Some("1"));
    assert_eq!(child(attr, "size").value.as_deref(), Some("128"));
    assert_eq!(child(attr, "sample_type").value.as_deref(), Some("0x127"));
    // perf reserved two feature slots it did not fill; they are named, not "unparsed".
    assert_eq!(child(&root, "unused feature slots").value.as_deref(), Some("2"));
    assert!(root.children.iter().all(|c| c.label != "unparsed"));
}

#[test]
fn indexed_memprof_dump_shows_each_table() {
    // memprof-progA.profdata: MemProf version 3 (radix call stacks). Offsets are the
    // section header's; the record count is that of `llvm-profdata show --memory`
    // (memprof-progA.profdata.memory.yaml lists 37 records).
    let bytes = read("llvm/memprof-progA/memprof-progA.profdata");
    let root = check_dump("memprof-progA", &bytes).unwrap();
    let memprof = child(&root, "MemProf");
    // The default "hot/cold" schema: AllocCount, TotalSize, TotalLifetime,
    // TotalLifetimeAccessDensity.
    assert_eq!(child(memprof, "schema").value.as_deref(), Some("1,5,10,23"));
    let spans: Vec<(&str, u64, u64)> =
        memprof.children.iter().skip(5).map(|c| (c.label.as_ref(), c.start, c.end)).collect();
    assert_eq!(
        spans,
        [
            ("frames", 0x3360, 13900),
            ("call stacks (radix array)", 13900, 14368),
            ("records payload", 14368, 17144),
            ("record table", 17144, 0x4508),
        ]
    );
    assert_eq!(child(memprof, "frames").value.as_deref(), Some("44 frames of 17 bytes"));
    let table = child(memprof, "record table");
    assert_eq!(child(table, "NumEntries").value.as_deref(), Some("37"));
}

#[test]
fn indexed_memprof_offsets_out_of_order_fail_at_their_field() {
    let original = read("llvm/memprof-progA/memprof-progA.profdata");
    // RecordPayloadOffset (at 0x3328) past the section's end, then before the call
    // stacks it must follow; NumBuckets of the record table (at 0x42f8) absurd.
    for (at, value) in [(0x3328usize, 0x10_0000u64), (0x3328, 13000), (0x42f8, 1 << 60)] {
        let mut bytes = original.clone();
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
        let detection = pgolens::detect(&bytes).unwrap();
        let err = pgolens::dump(&bytes, &detection).unwrap_err();
        assert_eq!(err.offset(), Some(at as u64), "{value:#x} at {at:#x}: {err}");
    }
}
