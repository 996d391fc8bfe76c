//! AutoFDO GCOV v4 (the 2026 proposal, `shared/seeds/004_*.txt`; our readings in
//! `docs/gcov-v4.md`): the proposal's own text example, byte arrays annotated per
//! field for every location type, every corpus sample profile written and read back
//! in the three encodings, and malformed input.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use pgolens::error::Location;
use pgolens::format::Format;
use pgolens::formats::gcov::decode_v4::{self, Decoded};
use pgolens::formats::gcov::v4;
use pgolens::formats::gcov::write_v4::{self, Encoding};
use pgolens::formats::sample::model::{
    CallTarget, FunctionSamples, LineLocation, Name, NameEntry, NameId, Profile, MAX_DEPTH,
};
use pgolens::formats::sample::write_text;
use pgolens::summary::{Summary, SummaryBuilder};

fn data(name: &str) -> Vec<u8> {
    let path = common::crate_dir().join("tests/data/gcov4").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn encode(p: &Profile, s: &Summary, e: Encoding) -> Vec<u8> {
    let mut out = Vec::new();
    write_v4::write(p, s, e, &mut out);
    out
}

fn decode(bytes: &[u8], e: Encoding) -> Decoded {
    match e {
        Encoding::Text => decode_v4::read_text(bytes),
        _ => decode_v4::read(bytes),
    }
    .unwrap_or_else(|err| panic!("{e:?}: {err}"))
}

fn name(p: &Profile, id: NameId) -> String {
    match p.names.name(id) {
        Some(Name::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        other => format!("{other:?}"),
    }
}

fn loc(line: u32, discriminator: u32) -> LineLocation {
    LineLocation { line, discriminator }
}

/// `(location, samples)` of a function's body.
fn body(f: &FunctionSamples) -> Vec<(LineLocation, u64)> {
    f.body.iter().map(|b| (b.location, b.samples)).collect()
}

// ---------------------------------------------------------------------------------
// The proposal's example (section 5.3)

#[test]
fn proposal_example_decodes_to_its_values() {
    let d = decode(&data("example.txt"), Encoding::Text);
    let p = &d.profile;
    assert_eq!(p.files, [b"/home/user/test.c".to_vec(), b"/usr/include/bits/stdio2.h".to_vec()]);

    let s = &d.summary;
    assert_eq!(
        (s.total_count, s.max_count, s.max_function_count, s.num_counts, s.num_functions),
        (2_194_467, 659_399, 0, 23, 2)
    );
    let documented: [(u32, u64, u64); 16] = [
        (10000, 659399, 2),
        (100000, 659399, 2),
        (200000, 659399, 2),
        (300000, 659399, 2),
        (400000, 659399, 2),
        (500000, 659399, 2),
        (600000, 659399, 2),
        (700000, 218844, 6),
        (800000, 218844, 6),
        (900000, 218844, 6),
        (950000, 218844, 6),
        (990000, 218844, 6),
        (999000, 218844, 6),
        (999900, 31, 9),
        (999990, 23, 16),
        (999999, 23, 16),
    ];
    let entries: Vec<_> = s.detailed.iter().map(|e| (e.cutoff, e.min_count, e.num_counts)).collect();
    assert_eq!(entries, documented);

    assert_eq!(p.functions.len(), 2);
    let bubble = &p.functions[0];
    assert_eq!(name(p, bubble.name), "bubble_sort");
    assert_eq!(p.names.get(bubble.name).unwrap().file, Some(0));
    assert_eq!((bubble.head, bubble.timestamp), (0, 0));
    assert_eq!(
        body(bubble),
        [
            (loc(0, 0), 0),
            (loc(1, 0), 0),
            (loc(2, 0), 34),
            (loc(3, 0), 31),
            (loc(4, 1), 659399),
            (loc(4, 2), 659399),
            (loc(5, 0), 23),
            (loc(6, 0), 218844),
            (loc(7, 0), 218844),
            (loc(8, 0), 218844),
            (loc(9, 0), 218844),
            (loc(13, 0), 31),
        ]
    );
    // No totals in v4: body samples plus inlined totals.
    assert_eq!(bubble.total, 34 + 31 + 2 * 659399 + 23 + 4 * 218844 + 31);

    let sort = &p.functions[1];
    assert_eq!(name(p, sort.name), "sort_array");
    assert_eq!(
        body(sort),
        [
            (loc(0, 0), 0),
            (loc(2, 0), 0),
            (loc(3, 0), 0),
            (loc(3, 1), 29),
            (loc(3, 3), 29),
            (loc(4, 0), 29),
            (loc(4, 1), 29),
            (loc(6, 0), 29),
            (loc(7, 0), 29),
        ]
    );
    assert_eq!(sort.total, 6 * 29);
    assert_eq!(sort.callsites.len(), 1);
    let printf = &sort.callsites[0];
    assert_eq!(printf.location, loc(1, 0));
    assert_eq!(name(p, printf.callee.name), "printf");
    assert_eq!(p.names.get(printf.callee.name).unwrap().file, Some(1));
    assert_eq!(body(&printf.callee), [(loc(0, 0), 0), (loc(2, 0), 0)]);

    // The document's summary is LLVM's arithmetic over the 23 body counts (inlined
    // bodies included, as SampleProfileSummaryBuilder counts them).
    let mut b = SummaryBuilder::new();
    fn add(f: &FunctionSamples, b: &mut SummaryBuilder) {
        f.body.iter().for_each(|s| b.add_internal_count(s.samples));
        f.callsites.iter().for_each(|c| add(&c.callee, b));
    }
    p.functions.iter().for_each(|f| add(f, &mut b));
    let computed = b.finish();
    assert_eq!((computed.total_count, computed.num_counts, computed.max_count), (2_194_467, 23, 659_399));
    assert_eq!(computed.detailed, s.detailed);
}

#[test]
fn proposal_example_in_every_encoding() {
    let d = decode(&data("example.txt"), Encoding::Text);
    let text = encode(&d.profile, &d.summary, Encoding::Text);
    let binary = encode(&d.profile, &d.summary, Encoding::Binary);
    let compact = encode(&d.profile, &d.summary, Encoding::Compact);
    // What our writer makes of the example, kept as reference files (see the README).
    assert_eq!(String::from_utf8_lossy(&text), String::from_utf8_lossy(&data("example.written.txt")));
    assert_eq!(binary, data("example.gcov4"));
    assert_eq!(compact, data("example.gcov4c"));
    assert_eq!(pgolens::detect(&binary).unwrap().format, Format::GcovV4);
    assert_eq!(pgolens::detect(&text).unwrap().format, Format::GcovV4Text);
    // The proposal claims -43% and -72% against v3; against its own binary form,
    // compact must be the smaller.
    assert!(compact.len() * 2 < binary.len(), "{} vs {}", compact.len(), binary.len());

    for (bytes, e) in [(&binary, Encoding::Binary), (&compact, Encoding::Compact), (&text, Encoding::Text)] {
        let back = decode(bytes, e);
        assert_eq!(back.summary, d.summary, "{e:?}");
        assert_eq!(back.profile.files, d.profile.files, "{e:?}");
        assert_eq!(encode(&back.profile, &back.summary, Encoding::Text), text, "{e:?}");
        assert_eq!(&encode(&back.profile, &back.summary, e), bytes, "{e:?} is stable");
        let mut a = Vec::new();
        write_text::write(&back.profile, &mut a);
        let mut b = Vec::new();
        write_text::write(&d.profile, &mut b);
        assert_eq!(a, b, "{e:?}: LLVM text");
    }
    let root = v4::dump(&binary, &pgolens::detect(&binary).unwrap()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    let root = v4::dump(&compact, &pgolens::detect(&compact).unwrap()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
}

/// Rewrites the reference files of the example from the writer: `GCOV4_BLESS=1
/// cargo test --test gcov_v4 bless`. Does nothing otherwise.
#[test]
fn bless() {
    if std::env::var_os("GCOV4_BLESS").is_none() {
        return;
    }
    let d = decode(&data("example.txt"), Encoding::Text);
    let dir = common::crate_dir().join("tests/data/gcov4");
    for (file, e) in [
        ("example.written.txt", Encoding::Text),
        ("example.gcov4", Encoding::Binary),
        ("example.gcov4c", Encoding::Compact),
    ] {
        std::fs::write(dir.join(file), encode(&d.profile, &d.summary, e)).unwrap();
    }
}

// ---------------------------------------------------------------------------------
// Byte arrays, one field a line

/// A normal-mode file from its sections (each starting with its bitmask): the
/// summary, the file names, then the table's sections.
fn assemble(sections: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"gcov"); // GCOV_MAGIC
    out.extend_from_slice(&4u32.to_be_bytes()); // GCOV_VERSION
    out.push(0); // GCOV_HEADER_BITMASK
    out.extend_from_slice(&(sections.len() as u64 - 2).to_be_bytes()[1..]); // GCOV_NUM_SECTIONS (7 bytes)
    let mut offset = 16 + 16 * sections.len() as u64;
    for s in sections {
        out.extend_from_slice(&offset.to_be_bytes());
        out.extend_from_slice(&(s.len() as u64).to_be_bytes());
        offset += s.len() as u64;
    }
    sections.iter().for_each(|s| out.extend_from_slice(s));
    out
}

/// A file of two symbols `f` (id 0, body in section 4) and `g` (id 1, no body),
/// unknown file, with `locations` as f's location records.
fn with_locations(count: u32, locations: &[u8]) -> Vec<u8> {
    #[rustfmt::skip]
    let summary = [
        vec![0x02],                          // GCOV_SUMMARY_INFO
        vec![0; 6 * 8],                      // six u64 fields, no detailed entries
    ].concat();
    #[rustfmt::skip]
    let files = [
        vec![0x03],                          // GCOV_FILE_NAMES
        vec![0, 0, 0, 1],                    // GCOV_NUM_FILE_NAMES
        vec![0, 0, 0, 1, 0],                 // length 1: "" (unknown file)
        vec![0, 0, 0, 2],                    // STRING_TABLE_SECTION_INDEX
        vec![0, 0, 0, 3],                    // SYMBOL_NAMES_SECTION_INDEX
        vec![0, 0, 0, 0],                    // SYMBOL_ID_START
        vec![0, 0, 0, 2],                    // SYMBOL_ID_END
    ].concat();
    #[rustfmt::skip]
    let strings = [
        vec![0x01],                          // GCOV_STRING_TABLE
        vec![0, 0, 0, 2],                    // GCOV_NUM_STRINGS
        vec![0x02],                          // root: 2 children
        vec![0, 1, b'f', 0x80, 0, 0, 0, 0],  // "f": terminal 0
        vec![0, 1, b'g', 0x80, 0, 0, 0, 1],  // "g": terminal 1
    ].concat();
    #[rustfmt::skip]
    let symbols = [
        vec![0x04],                          // GCOV_SYMBOL_NAMES
        vec![0, 0, 0, 2],                    // GCOV_NUM_SYMBOL_NAMES
        vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4],          // f: string 0, id 0, info in section 4
        vec![0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff], // g: string 1, id 1, none
    ].concat();
    #[rustfmt::skip]
    let info = [
        vec![0x05],                          // GCOV_SYMBOL_INFO
        vec![0, 0, 0, 0, 0, 0, 0, 9],        // SYMBOL_HEAD_COUNT
        vec![0, 0, 0, 0, 0, 0, 0, 0],        // SYMBOL_TIMESTAMP
        count.to_be_bytes().to_vec(),        // SYMBOL_NUM_LOCATIONS
        locations.to_vec(),
    ].concat();
    assemble(&[summary, files, strings, symbols, info])
}

/// Offset of f's first location record in [`with_locations`].
const FIRST_LOCATION: u64 = 16 + 16 * 5 + 49 + 26 + 22 + 29 + 21;

#[test]
fn location_types_field_by_field() {
    #[rustfmt::skip]
    let records = [
        0x01, 0, 0, 1,                       // LOCATION_ZERO line 1
        0x82, 0, 0, 2, 0, 7,                 // LOCATION_NORMAL line 2 discriminator 7
        0, 0, 0, 11,                         //   LOCATION_COUNT 11
        0x03, 0, 0, 3,                       // LOCATION_WIDE line 3
        0, 0, 0, 1, 0x2a, 0x05, 0xf2, 0x00,  //   LOCATION_COUNT 5000000000
        0x02, 0, 0, 4, 0, 0, 0, 5,           // LOCATION_NORMAL line 4: 5
        0x04, 0, 0, 4,                       // LOCATION_CALLED_FN line 4 (the same location)
        0, 0, 0, 1,                          //   LOCATION_CALLED_FN_INDEX: g
        0, 0, 0, 0, 0, 0, 0, 2,              //   LOCATION_CALLED_FN_COUNT 2
        0x05, 0, 0, 6,                       // LOCATION_CALLED_FNS line 6
        0, 0, 0, 2,                          //   LOCATION_CALLED_TARGETS 2
        0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3,  //   g: 3
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4,  //   f: 4
        0x90, 0, 0, 7, 0, 1,                 // type 0x10 (unknown) line 7.1
        0, 0, 0, 3, 0xaa, 0xbb, 0xcc,        //   LOCATION_TRAILING_SIZE 3, skipped
        0x06, 0, 0, 8,                       // LOCATION_INLINED_FN line 8
        0, 0, 0, 1,                          //   INLINED_SYMBOL_ID: g
        0, 0, 0, 2,                          //   SYMBOL_NUM_LOCATIONS 2
        0x02, 0, 0, 1, 0, 0, 0, 6,           //     LOCATION_NORMAL line 1: 6
        0x06, 0, 0, 2, 0, 0, 0, 0,           //     LOCATION_INLINED_FN line 2: f
        0, 0, 0, 1,                          //       1 location
        0x02, 0, 0, 0, 0, 0, 0, 1,           //       LOCATION_NORMAL line 0: 1
    ];
    let file = with_locations(8, &records);
    let d = decode(&file, Encoding::Binary);
    let p = &d.profile;
    assert_eq!(p.functions.len(), 1);
    let f = &p.functions[0];
    assert_eq!((name(p, f.name).as_str(), f.head), ("f", 9));
    assert_eq!(body(f), [(loc(1, 0), 0), (loc(2, 7), 11), (loc(3, 0), 5_000_000_000), (loc(4, 0), 5), (loc(6, 0), 0)]);
    let calls =
        |i: usize| -> Vec<(String, u64)> { f.body[i].calls.iter().map(|c| (name(p, c.name), c.count)).collect() };
    // The two records of line 4 are one location.
    assert_eq!(calls(3), [("g".to_string(), 2)]);
    assert_eq!(calls(4), [("g".to_string(), 3), ("f".to_string(), 4)]);
    let g = &f.callsites[0];
    assert_eq!((g.location, name(p, g.callee.name).as_str()), (loc(8, 0), "g"));
    assert_eq!(body(&g.callee), [(loc(1, 0), 6)]);
    assert_eq!(g.callee.callsites[0].callee.total, 1);
    assert_eq!(g.callee.total, 7);
    assert_eq!(f.total, 11 + 5_000_000_000 + 5 + 7);

    // The dump shows the unknown record's skipped bytes and tiles the file.
    let root = v4::dump(&file, &pgolens::detect(&file).unwrap()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    let info = root.children.last().unwrap();
    let unknown = info.children.iter().find(|c| c.value.as_deref() == Some("7.1 unknown type 16")).unwrap();
    assert_eq!(unknown.children.last().unwrap().label, "trailing data");

    // Written back: NORMAL for 5, WIDE for 5e9, ZERO for 0, both records at line 4.
    let again = encode(p, &d.summary, Encoding::Binary);
    let back = decode(&again, Encoding::Binary);
    assert_eq!(body(&back.profile.functions[0]), body(f));
}

#[test]
fn malformed_locations_are_errors_at_their_offset() {
    let at = |file: Vec<u8>| decode_v4::read(&file).err().and_then(|e| e.offset());
    let first = FIRST_LOCATION;
    // An unknown type whose trailing size runs past the section.
    let past = [0x10, 0, 0, 7, 0, 0, 0, 99, 0xaa];
    assert_eq!(at(with_locations(1, &past)), Some(first + 8));
    // A call target id no symbol has.
    let unknown_id = [0x04, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1];
    assert_eq!(at(with_locations(1, &unknown_id)), Some(first + 4));
    // An absurd number of locations, and of call targets.
    assert_eq!(at(with_locations(u32::MAX, &[0x01, 0, 0, 1])), Some(first - 4));
    let targets = [0x05, 0, 0, 1, 0xff, 0xff, 0xff, 0xff];
    assert_eq!(at(with_locations(1, &targets)), Some(first + 4));
    // Truncated inside a record.
    assert_eq!(at(with_locations(1, &[0x02, 0, 0, 1, 0, 0])), Some(first + 4));

    // Inline nesting: MAX_DEPTH levels are read, one more is an error at that record.
    let nest = |levels: usize| {
        let mut records = Vec::new();
        for _ in 0..levels {
            records.extend_from_slice(&[0x06, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
            // INLINED_FN g, 1 location
        }
        records.extend_from_slice(&[0x01, 0, 0, 0]); // LOCATION_ZERO
        with_locations(1, &records)
    };
    assert!(decode_v4::read(&nest(MAX_DEPTH)).is_ok());
    assert_eq!(at(nest(MAX_DEPTH + 1)), Some(first + 12 * MAX_DEPTH as u64));
}

#[test]
fn malformed_compact_varints_are_errors() {
    let good = encode(&small_profile(), &Summary::default(), Encoding::Compact);
    assert!(decode_v4::read(&good).is_ok());
    // The compact header: magic, version, bitmask, count, five offset/size pairs of
    // one byte each; the symbol-info section is last: 0x85, head, timestamp, 1
    // location, LOCATION_ZERO, line 1.
    assert_eq!(good[19], 6, "symbol-info size");
    assert_eq!(good[good.len() - 6..], [0x85, 0, 0, 1, 0x01, 1]);
    // GCOV_NUM_SECTIONS = 2^56 does not fit its 7-byte field.
    let mut bad = good[..9].to_vec();
    bad.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    assert_eq!(decode_v4::read(&bad).err().and_then(|e| e.offset()), Some(9));
    // A line offset of 0x10fffff: four varint bytes, too wide for 3 bytes.
    let line_at = good.len() - 1;
    let mut bad = good.clone();
    bad.splice(line_at.., [0xff, 0xff, 0xff, 0x08]);
    bad[19] = 9;
    let err = decode_v4::read(&bad).err().unwrap();
    assert_eq!(err.offset(), Some(line_at as u64), "{err}");
    // The same value as a 5-byte varint: longer than a 3-byte field allows.
    let mut bad = good.clone();
    bad.splice(line_at.., [0x81, 0x80, 0x80, 0x80, 0x00]);
    bad[19] = 10;
    assert_eq!(decode_v4::read(&bad).err().and_then(|e| e.offset()), Some(line_at as u64));
    // The same line as 4 bytes that fit: accepted (1 with padding groups).
    let mut ok = good.clone();
    ok.splice(line_at.., [0x81, 0x80, 0x80, 0x00]);
    ok[19] = 9;
    assert_eq!(decode_v4::read(&ok).unwrap().profile.functions[0].body[0].location, loc(1, 0));
}

/// `f` with one zero location at line 1, calling nothing.
fn small_profile() -> Profile {
    let mut p = Profile::new();
    let f = p.names.intern_bytes(b"f").unwrap();
    let mut func = FunctionSamples { name: f, ..FunctionSamples::default() };
    func.add_body(loc(1, 0), 0, Vec::new());
    p.add(func);
    p
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let d = decode(&data("example.txt"), Encoding::Text);
    let files = [
        encode(&d.profile, &d.summary, Encoding::Binary),
        encode(&d.profile, &d.summary, Encoding::Compact),
        with_locations(1, &[0x02, 0, 0, 1, 0, 0, 0, 5]),
    ];
    for file in &files {
        for cut in 0..file.len() {
            let err = decode_v4::read(&file[..cut]).err();
            let at = err.and_then(|e| e.offset());
            assert!(at.is_some_and(|o| o <= cut as u64), "cut at {cut}: {err:?}");
            assert!(v4::dump(&file[..cut], &pgolens::format::Detection::new(Format::GcovV4)).is_err());
        }
        for byte in 0..file.len() {
            for bit in 0..8 {
                let mut bad = file.clone();
                bad[byte] ^= 1 << bit;
                match decode_v4::read(&bad) {
                    Ok(_) => {}
                    Err(e) => assert!(e.offset().is_some_and(|o| o <= bad.len() as u64), "{e}"),
                }
                let _ = v4::dump(&bad, &pgolens::format::Detection::new(Format::GcovV4));
            }
        }
    }
    // Text: truncation at every byte is an error with a line and column, never a panic.
    let text = encode(&d.profile, &d.summary, Encoding::Text);
    for cut in 0..text.len() {
        match decode_v4::read_text(&text[..cut]) {
            // A cut between two top-level blocks leaves a shorter, valid file.
            Ok(_) => assert!(text[..cut].trim_ascii_end().ends_with(b"}"), "cut at {cut} decoded"),
            Err(e) => assert!(matches!(e.location, Location::Line { .. }), "{e}"),
        }
    }
}

#[test]
fn malformed_text_is_an_error_with_line_and_column() {
    let line_col = |text: &str| match decode_v4::read_text(text.as_bytes()).err().map(|e| e.location) {
        Some(Location::Line { line, column }) => (line, column),
        other => panic!("{text}: {other:?}"),
    };
    let head = "filenames = {\"a.c\"}\nsummary = {}\n";
    // a callsite target that names no symbol
    assert_eq!(line_col(&format!("{head}\"f\":0(0:0:0) = {{callsites = {{1 -> {{5 = 1}}}}}}")), (3, 36));
    // a file id past the filenames
    assert_eq!(line_col(&format!("{head}\"f\":1(0:0:0) = {{}}")), (3, 5));
    // a discriminator wider than 16 bits
    assert_eq!(line_col(&format!("{head}\"f\":0(0:0:0) = {{locations = {{1.65536 = 1}}}}")), (3, 32));
    // one id, two names
    assert_eq!(line_col(&format!("{head}\"f\":0(0:0:0) = {{}}\n\"g\":0(0:0:0) = {{}}")), (4, 7));
    // an unterminated string, an unbalanced skipped block
    assert_eq!(line_col(&format!("{head}\"f")), (3, 1));
    assert_eq!(line_col(&format!("{head}future = {{ {{ }}")), (3, 10));
    // symbols before the summary
    assert_eq!(line_col("filenames = {}\n\"f\":-1(0:0:0) = {}"), (2, 1));
    // nesting deeper than MAX_DEPTH
    let mut deep = format!("{head}\"f\":0(0:0:0) = ");
    for _ in 0..=MAX_DEPTH {
        deep.push_str("{inlined = {1 = \"g\":0(1) = ");
    }
    deep.push_str("{}");
    for _ in 0..=MAX_DEPTH {
        deep.push_str("}}");
    }
    let (line, _) = line_col(&deep);
    assert_eq!(line, 3);
}

#[test]
fn trie_damage_is_an_error_at_its_offset() {
    let good = with_locations(1, &[0x01, 0, 0, 1]);
    // The string table starts at 16 + 16 * 5 + 49 + 26 (after summary and file names).
    let strings = 16 + 16 * 5 + 49 + 26;
    let at = |bad: &[u8]| decode_v4::read(bad).err().and_then(|e| e.offset());
    // root announcing 3 children: the third runs into the next section's bytes
    let mut bad = good.clone();
    bad[strings + 5] = 0x03;
    assert!(at(&bad).is_some());
    // "g" relabelled "f": two children starting with the same byte
    let mut bad = good.clone();
    bad[strings + 16] = b'f';
    assert_eq!(at(&bad), Some(strings as u64 + 16));
    // an edge label longer than the section
    let mut bad = good.clone();
    bad[strings + 6..strings + 8].copy_from_slice(&[0xff, 0xff]);
    assert_eq!(at(&bad), Some(strings as u64 + 8));
    // both terminals id 0 (a string reached twice)
    let mut bad = good.clone();
    bad[strings + 21] = 0;
    assert_eq!(at(&bad), Some(strings as u64 + 18));
}

#[test]
fn sections_in_any_order_and_unknown_ones_are_skipped() {
    let file = with_locations(1, &[0x02, 0, 0, 1, 0, 0, 0, 5]);
    let expected = decode(&file, Encoding::Binary);
    // Move the summary after everything and add an unknown section type 0x33
    // (compact bit set) that nothing refers to.
    let header = 16 + 16 * 5;
    let summary = file[header..header + 49].to_vec();
    let rest = file[header + 49..].to_vec();
    let unknown = vec![0xb3, 1, 2, 3];
    let mut out = Vec::new();
    out.extend_from_slice(&file[..9]);
    out.extend_from_slice(&4u64.to_be_bytes()[1..]); // 4 table entries now
    let base = 16 + 16 * 6;
    let sizes = [(base + rest.len(), 49), (base, 26)];
    for (o, s) in sizes {
        out.extend_from_slice(&(o as u64).to_be_bytes());
        out.extend_from_slice(&(s as u64).to_be_bytes());
    }
    let mut offset = base + 26;
    for s in [22usize, 29, rest.len() - 26 - 22 - 29] {
        out.extend_from_slice(&(offset as u64).to_be_bytes());
        out.extend_from_slice(&(s as u64).to_be_bytes());
        offset += s;
    }
    out.extend_from_slice(&((base + rest.len() + 49) as u64).to_be_bytes());
    out.extend_from_slice(&(unknown.len() as u64).to_be_bytes());
    out.extend_from_slice(&rest);
    out.extend_from_slice(&summary);
    out.extend_from_slice(&unknown);
    let moved = decode(&out, Encoding::Binary);
    assert_eq!(moved.profile.functions, expected.profile.functions);
    let root = v4::dump(&out, &pgolens::detect(&out).unwrap()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    assert_eq!(root.children.last().unwrap().label, "unknown section");
}

#[test]
fn mixed_compact_bits_per_section() {
    // A compact header and compact sections, but a normal symbol-info section.
    let p = small_profile();
    let compact = encode(&p, &Summary::default(), Encoding::Compact);
    let normal = encode(&p, &Summary::default(), Encoding::Binary);
    // bitmask, head (8), timestamp (8), count (4), LOCATION_ZERO line 1 (4)
    let normal_info = &normal[normal.len() - 25..];
    assert_eq!(normal_info[0], 0x05);
    let mut mixed = compact[..compact.len() - 6].to_vec();
    mixed.extend_from_slice(normal_info);
    assert_eq!(mixed[19], 6, "the symbol-info size, last of the compact header");
    mixed[19] = 25;
    let expected = decode(&normal, Encoding::Binary);
    assert_eq!(decode(&mixed, Encoding::Compact).profile.functions, expected.profile.functions);
}

// ---------------------------------------------------------------------------------
// Writing any sample profile: what v4 carries, and what it does not

/// The profile as v4 can carry it, computed independently of the writer: contexts
/// folded into their leaf function; checksums, attributes, vtables, the symbol list
/// and the profile flags gone; locations whose line exceeds 24 bits or discriminator
/// 16 bits gone (with their targets and inlined callees); MD5 names as decimal
/// digits; file-less empty file names; inlined callees without head or timestamp;
/// totals recomputed as body samples plus inlined totals.
fn carried(p: &Profile) -> Profile {
    let mut out = Profile::new();
    out.files = p.files.iter().filter(|f| !f.is_empty()).cloned().collect();
    let file_map: Vec<Option<u32>> = {
        let mut next = 0u32;
        p.files
            .iter()
            .map(|f| {
                if f.is_empty() {
                    None
                } else {
                    next += 1;
                    Some(next - 1)
                }
            })
            .collect()
    };
    let names: Vec<NameId> = p
        .names
        .iter()
        .map(|(_, e)| {
            let bytes = match &e.name {
                Name::Bytes(b) => b.clone(),
                Name::Md5(h) => h.to_string().into_bytes(),
            };
            let file = e.file.and_then(|f| file_map.get(f as usize).copied().flatten());
            out.names.intern(NameEntry { name: Name::Bytes(bytes), file }).unwrap()
        })
        .collect();
    fn copy(f: &FunctionSamples, names: &[NameId], out: &Profile, depth: usize) -> FunctionSamples {
        let mut g = FunctionSamples { name: names[f.name.0 as usize], ..FunctionSamples::default() };
        let fits = |l: LineLocation| l.line < 1 << 24 && l.discriminator < 1 << 16;
        for b in f.body.iter().filter(|b| fits(b.location)) {
            let calls = b.calls.iter().map(|c| CallTarget { name: names[c.name.0 as usize], count: c.count });
            g.add_body(b.location, b.samples, calls.collect());
        }
        if depth < MAX_DEPTH {
            for c in f.callsites.iter().filter(|c| fits(c.location)) {
                g.add_callsite(c.location, copy(&c.callee, names, out, depth + 1), &out.names);
            }
        }
        g
    }
    fn totals(f: &mut FunctionSamples) {
        f.callsites.iter_mut().for_each(|c| totals(&mut c.callee));
        f.total = f.body_samples() + f.callsites.iter().map(|c| c.callee.total).sum::<u64>();
    }
    let copies: Vec<FunctionSamples> = p
        .functions
        .iter()
        .map(|f| {
            let mut g = copy(f, &names, &out, 0);
            g.head = f.head;
            g.timestamp = f.timestamp;
            g
        })
        .collect();
    for g in copies {
        out.add(g);
    }
    out.functions.iter_mut().for_each(totals);
    out
}

fn has_unparsed(n: &pgolens::Node) -> bool {
    n.label == pgolens::dump::UNPARSED || n.children.iter().any(has_unparsed)
}

fn llvm_text(p: &Profile) -> Vec<u8> {
    let mut out = Vec::new();
    write_text::write(p, &mut out);
    out
}

/// Every sample profile of the corpus that has the reference text beside it.
fn corpus_sample_profiles() -> Vec<std::path::PathBuf> {
    let root = common::corpus();
    let mut out = Vec::new();
    for dir in ["llvm", "peers/llvm-sample-tests", "peers/llvm-profparser"] {
        for path in common::files_under(&root.join(dir)) {
            let mut reference = path.clone().into_os_string();
            reference.push(".proftext");
            if !std::path::Path::new(&reference).exists() {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(input) = pgolens::open(&bytes) else { continue };
            let Ok(detection) = input.detect() else { continue };
            if matches!(
                detection.format,
                Format::SampleText | Format::SampleBinary | Format::SampleExtBinary | Format::GcovAfdo
            ) {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn corpus_profiles_round_trip_through_v4() {
    let files = corpus_sample_profiles();
    assert!(files.len() >= 80, "found {} sample profiles with a reference", files.len());
    let (mut exact, mut totals_only, mut lossy) = (Vec::new(), Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(common::corpus()).unwrap().display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let input = pgolens::open(&bytes).unwrap();
        let source = match pgolens::detect::decode_sample_profile(&input.data) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{rel}: the source does not decode: {e}"));
                continue;
            }
        };
        let summary = pgolens::model::sample::summary(&source);
        let expected = llvm_text(&carried(&source));
        let mut outputs = Vec::new();
        for e in [Encoding::Binary, Encoding::Compact, Encoding::Text] {
            let written = encode(&source, &summary, e);
            let back = match e {
                Encoding::Text => decode_v4::read_text(&written),
                _ => decode_v4::read(&written),
            };
            let back = match back {
                Ok(b) => b,
                Err(err) => {
                    failures.push(format!("{rel}: {e:?} does not decode: {err}"));
                    continue;
                }
            };
            let got = llvm_text(&back.profile);
            if got != expected {
                failures.push(format!(
                    "{rel}: {e:?} read back differs\n--- expected\n{}\n--- got\n{}",
                    String::from_utf8_lossy(&expected),
                    String::from_utf8_lossy(&got)
                ));
            }
            if encode(&back.profile, &back.summary, e) != written {
                failures.push(format!("{rel}: {e:?} written again differs"));
            }
            if e != Encoding::Text {
                // The dump of what we wrote accounts for every byte with a field.
                match v4::dump(&written, &pgolens::detect(&written).unwrap()) {
                    Ok(root) if root.check_tiling().is_ok() && !has_unparsed(&root) => {}
                    other => failures.push(format!("{rel}: {e:?} dump: {:?}", other.map(|r| r.check_tiling()))),
                }
            }
            let mut stored = summary.clone();
            stored.max_internal_count = 0;
            if back.summary != stored {
                failures.push(format!("{rel}: {e:?} summary {:?} != {:?}", back.summary, stored));
            }
            outputs.push(got);
        }
        let mut reference = path.clone().into_os_string();
        reference.push(".proftext");
        let reference = std::fs::read(reference).unwrap();
        let losses = write_v4::losses(&source);
        if outputs.iter().all(|o| *o == reference) {
            exact.push(rel);
        } else if losses == (write_v4::Losses { totals: losses.totals, ..Default::default() }) {
            totals_only.push(rel);
        } else {
            lossy.push(format!("{rel} {losses:?}"));
        }
    }
    eprintln!(
        "{} files: {} byte-exact against .proftext ({}), {} differ only by recomputed totals, {} lose more:\n{}",
        files.len(),
        exact.len(),
        exact.join(", "),
        totals_only.len(),
        lossy.len(),
        lossy.join("\n")
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn what_v4_cannot_carry_is_dropped_and_reported() {
    let mut p = Profile::new();
    let f = p.names.intern_bytes(b"f").unwrap();
    let g = p.names.intern(NameEntry { name: Name::Md5(1234), file: None }).unwrap();
    let mut func =
        FunctionSamples { name: f, head: 3, total: 999, checksum: Some(7), attributes: 2, ..Default::default() };
    func.add_body(loc(1, 0), 5, vec![CallTarget { name: g, count: 5 }]);
    func.add_body(loc(2, 1 << 16), 8, Vec::new()); // discriminator too wide
    func.add_body(loc(1 << 24, 0), 8, Vec::new()); // line too wide
    func.add_types(loc(1, 0), vec![CallTarget { name: g, count: 1 }]);
    p.add(func);
    let losses = write_v4::losses(&p);
    assert_eq!(
        losses,
        write_v4::Losses {
            checksums: 1,
            attributes: 1,
            vtables: 1,
            wide_locations: 2,
            totals: 1,
            md5_names: 1,
            ..Default::default()
        }
    );
    for e in [Encoding::Binary, Encoding::Compact, Encoding::Text] {
        let back = decode(&encode(&p, &Summary::default(), e), e);
        let f = &back.profile.functions[0];
        assert_eq!((f.total, f.head, f.checksum, f.attributes), (5, 3, None, 0), "{e:?}");
        assert_eq!(body(f), [(loc(1, 0), 5)]);
        assert_eq!(name(&back.profile, f.body[0].calls[0].name), "1234");
        assert_eq!(llvm_text(&back.profile), llvm_text(&carried(&p)));
    }
}

#[test]
fn contexts_fold_into_their_leaf_function() {
    let mut p = Profile::new();
    let main = p.names.intern_bytes(b"main").unwrap();
    let foo = p.names.intern_bytes(b"foo").unwrap();
    let frame = |name, line| pgolens::formats::sample::model::Frame { name, location: loc(line, 0) };
    for (context, head, count) in [(vec![frame(main, 3), frame(foo, 0)], 2, 10), (vec![frame(foo, 0)], 1, 4)] {
        let mut f = FunctionSamples { name: foo, context, head, ..Default::default() };
        f.add_body(loc(1, 0), count, Vec::new());
        p.add(f);
    }
    p.kind.context_sensitive = true;
    assert_eq!(p.functions.len(), 2);
    assert_eq!(write_v4::losses(&p).contexts, 2);
    let back = decode(&encode(&p, &Summary::default(), Encoding::Binary), Encoding::Binary);
    assert_eq!(back.profile.functions.len(), 1);
    let f = &back.profile.functions[0];
    assert_eq!((name(&back.profile, f.name).as_str(), f.head, f.total), ("foo", 3, 14));
    assert_eq!(llvm_text(&back.profile), llvm_text(&carried(&p)));
}

/// The CS profiles of the corpus, and what `llvm-profdata-22` makes of them when it
/// merges every context into its context-less base profile
/// (`crate/tests/data/gcov4/cs-base/README.md`).
const CS_BASES: [&str; 7] = [
    "llvm/sample-cs-lbr/sample-cs-lbr.text.prof",
    "llvm/sample-cs-probe/sample-cs-probe.text.prof",
    "peers/llvm-sample-tests/composite-cs-profile.proftext",
    "peers/llvm-sample-tests/csspgo-import-list.prof",
    "peers/llvm-sample-tests/profile-context-order.prof",
    "peers/llvm-sample-tests/profile-mismatch-cs.prof",
    "peers/llvm-sample-tests/pseudo-probe-inline.prof",
];

#[test]
fn contexts_fold_as_llvm_merges_them_into_base_profiles() {
    for source in CS_BASES {
        let p = pgolens::detect::decode_sample_profile(&common::read(source)).unwrap();
        assert!(p.functions.iter().any(|f| !f.context.is_empty()), "{source} has contexts");
        let name = source.rsplit('/').next().unwrap();
        let base = data(&format!("cs-base/{name}.base.proftext"));
        // LLVM's base profile keeps one-frame contexts and LLVM's totals: the filter
        // takes the frames away and recomputes the totals, nothing else.
        let expected = llvm_text(&carried(&pgolens::detect::decode_sample_profile(&base).unwrap()));
        for e in [Encoding::Binary, Encoding::Compact, Encoding::Text] {
            let back = decode(&encode(&p, &pgolens::model::sample::summary(&p), e), e);
            assert_eq!(
                String::from_utf8_lossy(&llvm_text(&back.profile)),
                String::from_utf8_lossy(&expected),
                "{source} {e:?}"
            );
        }
    }
}

#[test]
fn source_files_become_tus() {
    // Two files; a symbol of each, one without a file, one call target only.
    let mut p = Profile::new();
    p.files = vec![b"b.c".to_vec(), b"a.c".to_vec()];
    let f = p.names.intern(NameEntry { name: Name::Bytes(b"f".to_vec()), file: Some(0) }).unwrap();
    let g = p.names.intern(NameEntry { name: Name::Bytes(b"g".to_vec()), file: Some(1) }).unwrap();
    let h = p.names.intern_bytes(b"h").unwrap();
    let mut func = FunctionSamples { name: f, head: 1, timestamp: 77, ..Default::default() };
    func.add_body(loc(1, 0), 0, vec![CallTarget { name: h, count: 2 }]);
    let mut callee = FunctionSamples { name: g, ..Default::default() };
    callee.add_body(loc(0, 0), 3, Vec::new());
    func.add_callsite(loc(2, 0), callee, &p.names);
    p.add(func);
    let text = encode(&p, &Summary::default(), Encoding::Text);
    let expected = r#"filenames = {
  "b.c",
  "a.c"
}

summary = {
  total_count = 0,
  max_count = 0,
  max_fn_count = 0,
  num_counts = 0,
  num_functions = 0,
  num_detailed_entries = 0,
  detailed_entries = {}
}

symbol_names = {
  "h":-1(2)
}

"f":0(0:1:77) = {
  callsites = {
    1 -> {2 = 2}
  },
  inlined = {
    2 = "g":1(1) = {
      locations = {
        0 = 3
      }
    }
  }
}
"#;
    assert_eq!(String::from_utf8_lossy(&text), expected);
    for e in [Encoding::Binary, Encoding::Compact, Encoding::Text] {
        let back = decode(&encode(&p, &Summary::default(), e), e);
        assert_eq!(back.profile.files, p.files);
        let f = &back.profile.functions[0];
        assert_eq!(back.profile.names.get(f.name).unwrap().file, Some(0));
        assert_eq!(back.profile.names.get(f.callsites[0].callee.name).unwrap().file, Some(1));
        assert_eq!(back.profile.names.get(f.body[0].calls[0].name).unwrap().file, None);
        assert_eq!((f.timestamp, f.total), (77, 3));
        assert_eq!(encode(&back.profile, &Summary::default(), Encoding::Text), text);
    }
}
