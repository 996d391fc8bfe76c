//! LLVM sample-profile raw binary and extbinary: every such file of the corpus and of
//! `tests/data/sample/binary/` (made with llvm-profdata-22, see its README) decodes
//! to the model that `write_text` prints byte for byte as `llvm-profdata-22 merge
//! --sample --text` did (`F.proftext`), or fails where LLVM failed
//! (`F.reference-error.txt`), with the error we expect there. The dump tiles each
//! file down to every body record; malformed input (every truncation, bit flips,
//! absurd counts, bad name indices, lying compressed sizes) never panics and every
//! error carries an offset inside the input.

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
use pgolens::error::ErrorKind;
use pgolens::formats::sample::decode_binary::decode;
use pgolens::formats::sample::model::{Name, Profile};
use pgolens::formats::sample::write_text;
use pgolens::{Error, Node};

/// First bytes of the raw binary, extbinary and (obsolete) compact binary magics.
const MAGICS: [[u8; 2]; 3] = [[0xff, 0xe5], [0x84, 0xe4], [0x82, 0xe4]];

fn is_sample_binary(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else { return false };
    bytes.len() >= 9
        && MAGICS.iter().any(|m| bytes[..2] == m[..])
        && bytes[2..9] == [0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53]
}

/// Every binary sample profile of the corpus, found by its magic.
fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["llvm", "peers/llvm-profparser", "peers/llvm-sample-tests"] {
        files.extend(files_under(&corpus().join(dir)).into_iter().filter(|p| is_sample_binary(p)));
    }
    files
}

fn data_dir() -> PathBuf {
    crate_dir().join("tests/data/sample/binary")
}

fn data_files() -> Vec<PathBuf> {
    files_under(&data_dir()).into_iter().filter(|p| p.extension().is_some_and(|e| e == "prof")).collect()
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

fn text(profile: &Profile) -> String {
    let mut out = Vec::new();
    write_text::write(profile, &mut out);
    String::from_utf8(out).unwrap()
}

fn rel(path: &Path) -> String {
    let s = path.display().to_string();
    s.rsplit_once("/tests/").map_or(s.clone(), |(_, r)| r.to_string())
}

/// The error we give where LLVM 22 rejects a file, by file name: the offset and
/// what we say. (`*.reference-error.txt` beside the peers' files came from
/// `merge --text` without `--sample`; llvm-profdata-22 `merge --sample` says
/// "Unrecognized sample profile encoding format" for the compact files and
/// "Truncated function name table" for the two name-table files.)
fn expected_error(name: &str) -> Error {
    match name {
        "compat-sample.profdata" => Error::invalid(
            0,
            "a raw binary or extbinary magic (LLVM no longer reads the compact binary format)",
            0x5350_524f_4634_3202,
        ),
        // the third section's function names index 1 of a one-name table
        "sample-multiple-nametables.profdata" => Error::invalid(0x9d, "a name index inside the name table", 1),
        // an empty fixed-length MD5 table replaced the one-name table
        "sample-nametable-empty-string.profdata" => Error::invalid(0x76, "a name index inside the name table", 0),
        // "Illegal line offset in sample profile data"
        "bad-line-offset.extbinary.prof" => Error::invalid(0x7f, "a line offset of at most 0xffff", 0x10000),
        // "Truncated function name table": the flat section names contexts by name index
        "cs-lbr.split.extbinary.prof" => Error::invalid(0x351, "a context index inside the CS name table", 0),
        // "Malformed sample profile data": a byte after the last name
        "name-table-too-long.extbinary.prof" => Error::malformed(0x5b, "section contents end before the section does"),
        // "Truncated profile data": one record promised, two bytes left
        "truncated-function.binary.prof" => Error::invalid(0x16, "a count that fits in the bytes left", 1),
        // "Unsupported sample profile format version"
        "version-102.binary.prof" => Error::invalid(9, "sample profile version 103", 102),
        // "Malformed sample profile data": NumRecords 2^32
        "wide-count.binary.prof" => Error::invalid(0x16, "a number of at most 32 bits", 1 << 32),
        other => panic!("{other}: no expected error written down"),
    }
}

/// Decodes `path` and compares with its reference; returns whether it decoded.
fn check_against_reference(path: &Path) -> bool {
    let data = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    let reference = sibling(path, ".proftext");
    let refused = sibling(path, ".reference-error.txt");
    match (reference.exists(), refused.exists()) {
        (true, _) => {
            let profile = decode(&data).unwrap_or_else(|e| panic!("{}: {e}", rel(path)));
            let want = std::fs::read_to_string(&reference).unwrap();
            let got = text(&profile);
            assert!(got == want, "{}: text differs\n--- got\n{got}\n--- want\n{want}", rel(path));
            // the same through format detection (what `pgolens export --to sampletext` does)
            let detected = pgolens::detect::decode_sample_profile(&data).unwrap();
            assert!(text(&detected) == want, "{}: detected decoding differs", rel(path));
            true
        }
        (false, true) => {
            let err = decode(&data).err().unwrap_or_else(|| panic!("{}: decoded, LLVM refused it", rel(path)));
            assert_eq!(err, expected_error(name), "{}: {err}", rel(path));
            false
        }
        (false, false) => panic!("{}: neither .proftext nor .reference-error.txt", rel(path)),
    }
}

#[test]
fn corpus_files_match_llvm_text() {
    let files = corpus_files();
    let decoded = files.iter().filter(|f| check_against_reference(f)).count();
    // 10 of ours (sample-basic ×6 … afdo-progB), 12 unknown-section peers, 2 name
    // tables after samples; refused: 5 compact, 2 × 2 name-table peers
    assert_eq!((decoded, files.len()), (22, 31), "{files:#?}");
    for must in [
        "llvm/sample-basic/sample-basic.binary.prof",
        "llvm/sample-basic/sample-basic.extbinary-partial.prof",
        "llvm/afdo-progB/afdo-progB.extbinary.prof",
        "llvm/sample-cs-probe/sample-cs-probe.extbinary.prof",
        "peers/llvm-profparser/llvm-14/unknown.section.compressed.extbin.profdata",
        "peers/llvm-profparser/llvm-19/sample-nametable-after-samples.profdata",
    ] {
        assert!(files.contains(&corpus().join(must)), "{must} missing");
    }
}

#[test]
fn generated_files_match_llvm_text() {
    let files = data_files();
    let decoded = files.iter().filter(|f| check_against_reference(f)).count();
    assert_eq!((decoded, files.len()), (32, 38));
}

/// The profile's kinds as the extbinary summary and metadata flags say.
#[test]
fn flags_reach_the_model() {
    let p = decode(&read("llvm/sample-cs-probe/sample-cs-probe.extbinary.prof")).unwrap();
    assert!(p.kind.context_sensitive && p.kind.probe_based && p.kind.preinlined && !p.kind.md5);
    // "[main:3 @ _Z7run_opsi:6 @ _ZL6op_addll]:6000:6000 … !Attributes: 3"
    let op_add = p.functions.iter().find(|f| f.total == 6000 && f.context.len() == 3).unwrap();
    assert_eq!((op_add.head, op_add.checksum, op_add.attributes), (6000, Some(4_294_967_295), 3));

    let p = decode(&read("llvm/sample-basic/sample-basic.extbinary-partial.prof")).unwrap();
    assert!(p.kind.partial && !p.kind.context_sensitive && !p.kind.probe_based);
    let p = decode(&read("llvm/sample-cs-lbr/sample-cs-lbr.extbinary-md5.prof")).unwrap();
    assert!(p.kind.md5 && p.kind.context_sensitive);
    assert!(p.names.iter().all(|(_, e)| matches!(e.name, Name::Md5(_))));
    let p = decode(&std::fs::read(data_dir().join("vtable-fs.extbinary.prof")).unwrap()).unwrap();
    assert!(p.kind.fs_discriminator);
    assert!(p.functions[0].types.iter().any(|t| t.location.discriminator == 257));
}

#[test]
fn symbol_lists() {
    // symbols.txt lists _Z9cold_funcv twice; LLVM keeps a set
    for file in ["basic.symlist.extbinary.prof", "basic.symlist-compressed.extbinary.prof"] {
        let p = decode(&std::fs::read(data_dir().join(file)).unwrap()).unwrap();
        let mut symbols: Vec<Vec<u8>> = p
            .symbol_list
            .as_ref()
            .unwrap()
            .iter()
            .map(|&id| match p.names.name(id) {
                Some(Name::Bytes(b)) => b.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        symbols.sort();
        let want: Vec<&[u8]> =
            vec![b"_Z10run_shapesi", b"_Z12never_calledi", b"_Z9cold_funcv", b"_ZL8internalv", b"main"];
        assert_eq!(symbols, want, "{file}");
    }
    assert!(decode(&read("llvm/sample-basic/sample-basic.extbinary.prof")).unwrap().symbol_list.is_none());
}

/// Every built node's label, recursively.
fn labels<'n>(node: &'n Node, out: &mut Vec<&'n str>) {
    out.push(&node.label);
    for child in &node.children {
        labels(child, out);
    }
}

fn print(node: &Node, depth: usize, out: &mut String) {
    pgolens::dump::write_text(node, depth, out);
    for child in &node.children {
        print(child, depth + 1, out);
    }
}

fn dump(data: &[u8]) -> pgolens::Result<Node> {
    let detection = pgolens::open(data)?.detect()?;
    pgolens::dump_all(data, &detection)
}

#[test]
fn dumps_tile_every_file() {
    let mut files = corpus_files();
    files.extend(data_files());
    let mut checked = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let Ok(profile) = decode(&data) else {
            // the dump is the decoding pass: it fails where decoding does
            let compact = data[0] == 0x82;
            assert_eq!(dump(&data).is_ok(), compact, "{}", rel(path));
            continue;
        };
        let root = dump(&data).unwrap_or_else(|e| panic!("{}: {e}", rel(path)));
        assert_eq!((root.start, root.end), (0, data.len() as u64), "{}", rel(path));
        assert_eq!(root.check_tiling(), Ok(()), "{}", rel(path));
        let mut all = Vec::new();
        labels(&root, &mut all);
        assert!(!all.contains(&pgolens::dump::UNPARSED), "{}", rel(path));
        // one node per function record read from an uncompressed profile section
        let compressed = all.contains(&"zlib data");
        let records = all.iter().filter(|l| l.starts_with("function ") && *l != &"function profiles").count();
        if !compressed {
            let repeated = usize::from(rel(path).contains("repeated"));
            assert_eq!(records, profile.functions.len() + repeated, "{}", rel(path));
        }
        // as `pgolens dump` and `pgolens dump --json` print it
        let mut printed = String::new();
        print(&root, 0, &mut printed);
        assert_eq!(printed.lines().count(), all.len(), "{}", rel(path));
        let mut json = String::new();
        pgolens::dump::write_json(&root, &mut json);
        assert!(json.starts_with("{\"label\":\"sample "), "{}", rel(path));
        checked += 1;
    }
    assert_eq!(checked, 54);
}

#[test]
fn dump_shows_every_field_of_a_function() {
    // sample-basic.binary.prof: `_Z7run_opsi:120000:1` with its inlined `_Z5applyPFlllEll`
    let data = read("llvm/sample-basic/sample-basic.binary.prof");
    let root = dump(&data).unwrap();
    let functions = root.children.iter().find(|c| c.label == "function profiles").unwrap();
    assert_eq!(functions.value.as_deref(), Some("7 functions"));
    let run_ops = functions.children.iter().find(|c| c.value.as_deref() == Some("_Z7run_opsi")).unwrap();
    let record = run_ops.children.iter().find(|c| c.value.as_deref() == Some("3: 10000")).unwrap();
    let calls: Vec<_> = record.children.iter().filter(|c| c.label.starts_with("call ")).collect();
    assert_eq!(calls.len(), 6);
    assert!(calls.iter().any(|c| c.value.as_deref() == Some("_ZL6op_addll:6000")));
    let apply = run_ops.children.iter().find(|c| c.value.as_deref() == Some("3: _Z5applyPFlllEll")).unwrap();
    let nested = apply.children.iter().find(|c| c.label.starts_with("callsite ")).unwrap();
    assert_eq!(nested.value.as_deref(), Some("0: _ZL6op_addll"));
    assert_eq!(nested.children.iter().find(|c| c.label == "TotalSamples").unwrap().value.as_deref(), Some("6000"));

    // extbinary CS: the CS name table's contexts and the metadata records
    let data = read("llvm/sample-cs-probe/sample-cs-probe.extbinary.prof");
    let root = dump(&data).unwrap();
    let mut all = Vec::new();
    labels(&root, &mut all);
    for label in ["context 0", "frame 0", "ContextIdx", "Checksum", "Attributes", "entry 0", "Offset"] {
        assert!(all.contains(&label), "{label}");
    }
    let cs_names = root.children.iter().find(|c| c.value.as_deref() == Some("SecCSNameTable")).unwrap();
    assert!(cs_names.children.iter().any(|c| c.value.as_deref() == Some("main:3 @ _Z7run_opsi:6 @ _ZL6op_addll")));
}

/// Every start and end of every node of the dump.
fn boundaries(node: &Node, out: &mut Vec<u64>) {
    out.push(node.start);
    out.push(node.end);
    for child in &node.children {
        boundaries(child, out);
    }
}

/// Decoding and dumping `data` either succeed or fail at an offset inside it.
fn survives(data: &[u8], what: &str) {
    for result in [decode(data).map(|_| ()), dump(data).map(|_| ())] {
        if let Err(e) = result {
            let offset = e.offset().unwrap_or_else(|| panic!("{what}: error without offset: {e}"));
            assert!(offset <= data.len() as u64, "{what}: offset {offset:#x} past the end: {e}");
        }
    }
}

fn small_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = corpus_files().into_iter().filter(|p| !rel(p).contains("compat-sample")).collect();
    files.extend(data_files());
    files
}

#[test]
fn truncated_at_every_byte() {
    for path in small_files() {
        let data = std::fs::read(&path).unwrap();
        for cut in 0..data.len() {
            let part = &data[..cut];
            match decode(part) {
                Ok(_) => assert_eq!(data[0], 0xff, "{} cut at {cut}: only a raw binary may end early", rel(&path)),
                Err(e) => assert!(e.offset().is_some_and(|o| o <= cut as u64), "{} cut at {cut}: {e}", rel(&path)),
            }
        }
        // and the dump at each of its own boundaries
        if let Ok(root) = dump(&data) {
            let mut cuts = Vec::new();
            boundaries(&root, &mut cuts);
            cuts.sort_unstable();
            cuts.dedup();
            for cut in cuts {
                survives(&data[..cut as usize], &format!("{} cut at {cut}", rel(&path)));
            }
        }
    }
}

#[test]
fn single_bit_flips() {
    for path in small_files() {
        let data = std::fs::read(&path).unwrap();
        for at in 0..data.len() {
            // a rotating bit, and the LEB continuation bit, of every byte
            for bit in [at % 7, 7] {
                let mut bad = data.clone();
                bad[at] ^= 1 << bit;
                let what = format!("{} bit {bit} of byte {at:#x}", rel(&path));
                if let Err(e) = decode(&bad) {
                    let offset = e.offset().unwrap_or_else(|| panic!("{what}: no offset: {e}"));
                    assert!(offset <= bad.len() as u64, "{what}: {e}");
                }
                if (at + bit) % 5 == 0 {
                    survives(&bad, &what);
                }
            }
        }
    }
}

/// The span of the first node labelled `label` under `node` (depth first).
fn find<'n>(node: &'n Node, label: &str) -> Option<&'n Node> {
    if node.label == label {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, label))
}

fn uleb(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

/// `data` with the field spanning `node` replaced by `value` (a raw binary has no
/// offsets to keep right).
fn splice(data: &[u8], node: &Node, value: u64) -> Vec<u8> {
    let mut out = data[..node.start as usize].to_vec();
    out.extend(uleb(value));
    out.extend_from_slice(&data[node.end as usize..]);
    out
}

#[test]
fn absurd_counts_and_indices() {
    let data = read("llvm/sample-basic/sample-basic.binary.prof");
    let root = dump(&data).unwrap();
    let function = &find(&root, "function profiles").unwrap().children[0];
    let cases = [
        (find(&root, "NumNames").unwrap(), u64::MAX, "a count that fits in the bytes left"),
        (find(&root, "NumSummaryEntries").unwrap(), 1 << 40, "a count that fits in the bytes left"),
        (find(function, "NumRecords").unwrap(), u64::from(u32::MAX), "a count that fits in the bytes left"),
        (find(function, "NumCallsites").unwrap(), 1 << 20, "a count that fits in the bytes left"),
        (find(function, "NumCalls").unwrap(), 1 << 33, "a number of at most 32 bits"),
        (find(function, "NameIdx").unwrap(), 1 << 30, "a name index inside the name table"),
        (find(function, "LineOffset").unwrap(), 1 << 16, "a line offset of at most 0xffff"),
    ];
    for (node, value, expected) in cases {
        let bad = splice(&data, node, value);
        let err = decode(&bad).unwrap_err();
        assert_eq!(err.offset(), Some(node.start), "{}: {err}", node.label);
        assert!(matches!(err.kind, ErrorKind::Invalid { expected: e, .. } if e == expected), "{}: {err}", node.label);
        survives(&bad, &node.label);
    }

    // extbinary: the section count and a section beyond the file
    let data = read("llvm/sample-basic/sample-basic.extbinary.prof");
    let mut bad = data.clone();
    bad[10..18].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(decode(&bad).unwrap_err(), Error::invalid(10, "section table entries that fit in the input", u64::MAX));
    let mut bad = data.clone();
    bad[34..42].copy_from_slice(&(data.len() as u64).to_le_bytes()); // first section's Offset
    assert_eq!(decode(&bad).unwrap_err().offset(), Some(34));
}

#[test]
fn compressed_sections_must_inflate_to_their_claim() {
    let data = read("llvm/sample-basic/sample-basic.extbinary-compressed.prof");
    let root = dump(&data).unwrap();
    let names = root.children.iter().find(|c| c.value.as_deref() == Some("SecNameTable {compressed}")).unwrap();
    let size = find(names, "UncompressedSize").unwrap();
    let payload = find(names, "zlib data").unwrap();
    let claimed: u64 = size.value.as_deref().unwrap().parse().unwrap();
    assert_eq!(size.len(), 2, "the claim is a 2-byte ULEB");
    for lie in [claimed - 1, claimed + 1, 1 << 13, 200] {
        let mut bad = data.clone();
        bad[size.start as usize..size.end as usize].copy_from_slice(&[0x80 | (lie & 0x7f) as u8, (lie >> 7) as u8]);
        let err = decode(&bad).unwrap_err();
        assert_eq!(err.offset(), Some(payload.start), "claim {lie}: {err}");
    }
    // a claim no zlib stream of this size can reach is refused before inflating
    let mut bad = data[..size.start as usize].to_vec();
    bad.extend(uleb(1 << 40));
    bad.extend_from_slice(&data[size.end as usize..]);
    // the section grew by 4 bytes: so does its Size in the table (later sections'
    // offsets are off, but the name table is read first)
    let table = root.children.iter().find(|c| c.label == "section header table").unwrap();
    let entry = table
        .children
        .iter()
        .find(|e| e.children.iter().any(|f| f.label == "Offset" && f.value == Some(names.start.to_string())))
        .unwrap();
    let size_field = entry.children.iter().find(|f| f.label == "Size").unwrap();
    let at = size_field.start as usize;
    let grown = u64::from_le_bytes(bad[at..at + 8].try_into().unwrap()) + 4;
    bad[at..at + 8].copy_from_slice(&grown.to_le_bytes());
    let err = decode(&bad).unwrap_err();
    assert_eq!(err, Error::invalid(size.start, "an UncompressedSize the compressed data can produce", 1 << 40));
    // corrupt zlib data
    let mut bad = data.clone();
    bad[payload.start as usize + 5] ^= 0xff;
    let err = decode(&bad).unwrap_err();
    assert!(err.offset().is_some_and(|o| o >= payload.start && o <= payload.end), "{err}");
}

/// An extbinary of `n` functions calling each other, as LLVM's writer lays it out.
fn large_profile(n: u64) -> Vec<u8> {
    let mut names = uleb(n);
    for i in 0..n {
        names.extend(format!("_ZN4llvm8function{i}Ev\0").bytes());
    }
    let mut functions = Vec::new();
    let mut offsets = uleb(n);
    for i in 0..n {
        offsets.extend(uleb(i));
        offsets.extend(uleb(functions.len() as u64));
        // head, name, total, 3 records (one with a call), 1 inlined callee with a record
        for v in [i % 7, i, 1000 + i, 3, 1, 0, 400, 0, 2, 1, 300, 1, (i + 1) % n, 300, 3, 0, 300, 0, 1, 4, 0] {
            functions.extend(uleb(v));
        }
        for v in [(i + 2) % n, 200, 1, 0, 0, 200, 0, 0] {
            functions.extend(uleb(v));
        }
    }
    let summary = [0u8, 0, 0, 0, 0, 0];
    let sections: [(u64, &[u8]); 4] = [(1, &summary), (2, &names), (4, &offsets), (32, &functions)];
    let mut out = vec![0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53, 103];
    out.extend((sections.len() as u64).to_le_bytes());
    let mut offset = out.len() as u64 + 32 * sections.len() as u64;
    for (kind, bytes) in sections {
        for v in [kind, 0, offset, bytes.len() as u64] {
            out.extend(v.to_le_bytes());
        }
        offset += bytes.len() as u64;
    }
    for (_, bytes) in sections {
        out.extend_from_slice(bytes);
    }
    out
}

/// A large profile's dump is built in deferred blocks, each expanded on demand
/// (`pgolens::expand` routes sample profiles to `binary::expand`).
#[test]
fn large_dumps_defer_their_lists() {
    use pgolens::formats::sample::binary::{expand, ITEMS_PER_BLOCK};
    let data = large_profile(3000);
    let detection = pgolens::open(&data).unwrap().detect().unwrap();
    let root = pgolens::dump(&data, &detection).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    let mut deferred = Vec::new();
    collect_deferred(&root, &mut deferred);
    let labels: Vec<_> = deferred.iter().map(|n| n.label.as_ref()).collect();
    assert_eq!(
        labels,
        [
            "names 0..1024",
            "names 1024..2048",
            "names 2048..3000",
            "entries 0..1024",
            "entries 1024..2048",
            "entries 2048..3000",
            "functions 0..1024",
            "functions 1024..2048",
            "functions 2048..3000"
        ]
    );
    let mut functions = 0;
    for node in deferred {
        let mut block = Node::new("block", node.start, node.end);
        block.children = expand(&data, node.deferred.as_ref().unwrap()).unwrap();
        block.tile_deep().unwrap();
        assert_eq!(block.check_tiling(), Ok(()), "{}", node.label);
        assert!(block.children.iter().all(|c| c.label != pgolens::dump::UNPARSED), "{}", node.label);
        assert!(block.children.len() <= ITEMS_PER_BLOCK);
        functions += block.children.iter().filter(|c| c.label.starts_with("function ")).count();
    }
    assert_eq!(functions, 3000);
}

fn collect_deferred<'n>(node: &'n Node, out: &mut Vec<&'n Node>) {
    if node.deferred.is_some() {
        out.push(node);
    }
    for child in &node.children {
        collect_deferred(child, out);
    }
}

#[test]
fn decodes_200k_functions() {
    let data = large_profile(200_000);
    let start = std::time::Instant::now();
    let p = decode(&data).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(p.functions.len(), 200_000);
    assert_eq!(p.names.len(), 200_000);
    let f = &p.functions[12_345];
    assert_eq!((f.total, f.head, f.body.len(), f.callsites.len()), (13_345, 12_345 % 7, 3, 1));
    assert_eq!(f.callsites[0].callee.total, 200);
    eprintln!("decoded {} bytes, 200,000 functions, in {elapsed:?}", data.len());
}
