use super::*;

const RAW_MAGIC: [u8; 9] = [0xff, 0xe5, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53];
const EXT_MAGIC: [u8; 9] = [0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53];

/// An extbinary file of `sections` (type, flags, bytes) laid out in order.
fn ext(sections: &[(u64, u64, &[u8])]) -> Vec<u8> {
    let mut d = EXT_MAGIC.to_vec();
    d.push(103);
    d.extend_from_slice(&(sections.len() as u64).to_le_bytes());
    let mut offset = (d.len() + 32 * sections.len()) as u64;
    for (kind, flags, bytes) in sections {
        for v in [*kind, *flags, offset, bytes.len() as u64] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        offset += bytes.len() as u64;
    }
    for (_, _, bytes) in sections {
        d.extend_from_slice(bytes);
    }
    d
}

fn name_of(p: &Profile, id: NameId) -> Vec<u8> {
    match p.names.name(id) {
        Some(Name::Bytes(b)) => b.clone(),
        Some(Name::Md5(h)) => alloc::format!("{h}").into_bytes(),
        None => Vec::new(),
    }
}

#[test]
fn raw_binary_function_with_calls_and_inlinee() {
    let mut d = RAW_MAGIC.to_vec();
    d.push(103); // version
    d.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // summary: five counts, no entries
    d.extend_from_slice(b"\x02main\0foo\0"); // NumNames 2, names
                                             // main: HeadSamples 1, NameIdx 0, TotalSamples 10, NumRecords 2
    d.extend_from_slice(&[1, 0, 10, 2]);
    d.extend_from_slice(&[3, 0, 4, 1, 1, 4]); // 3: 4, call foo:4
    d.extend_from_slice(&[1, 2, 5, 0]); // 1.2: 5
    d.extend_from_slice(&[1, 7, 0, 1, 6, 0, 0]); // callsite 7: foo, TotalSamples 6, empty
                                                 // main again: adds up
    d.extend_from_slice(&[2, 0, 5, 1, 3, 0, 1, 0, 0]);
    let p = decode(&d).unwrap();
    assert_eq!(p.functions.len(), 1);
    let main = &p.functions[0];
    assert_eq!(name_of(&p, main.name), b"main");
    assert_eq!((main.total, main.head), (15, 3));
    let body: Vec<_> = main.body.iter().map(|b| (b.location.line, b.location.discriminator, b.samples)).collect();
    assert_eq!(body, [(1, 2, 5), (3, 0, 5)]);
    assert_eq!(main.body[1].calls.len(), 1);
    assert_eq!(name_of(&p, main.body[1].calls[0].name), b"foo");
    assert_eq!(main.callsites.len(), 1);
    assert_eq!((main.callsites[0].location.line, main.callsites[0].callee.total), (7, 6));
    assert!(!p.kind.md5 && !p.kind.context_sensitive);
}

#[test]
fn name_tables_replace_each_other() {
    let md5: &[u8] = &[1, 0x2a]; // 1 ULEB MD5: 42
    let mut fixed = alloc::vec![1u8];
    fixed.extend_from_slice(&7u64.to_le_bytes()); // 1 fixed MD5: 7
    let profile: &[u8] = &[9, 0, 2, 0, 0]; // HeadSamples 9, NameIdx 0, TotalSamples 2
    let d = ext(&[(2, 1 << 32, md5), (32, 0, profile), (2, 3 << 32, &fixed), (32, 0, profile)]);
    let p = decode(&d).unwrap();
    let names: Vec<_> = p.functions.iter().map(|f| p.names.name(f.name).cloned()).collect();
    assert_eq!(names, [Some(Name::Md5(42)), Some(Name::Md5(7))]);
    assert!(p.kind.md5);
    // a name index past the table in force: LLVM's "Truncated function name table"
    let d = ext(&[(2, 3 << 32, &fixed), (32, 0, &[9, 1, 2, 0, 0])]);
    let err = decode(&d).unwrap_err();
    assert_eq!(err, Error::invalid(d.len() as u64 - 4, "a name index inside the name table", 1));
}

#[test]
fn cs_contexts_and_metadata() {
    let names: &[u8] = b"\x02main\0foo\0";
    // 2 contexts: [main:3 @ foo] and [main]
    let contexts: &[u8] = &[2, 2, 0, 3, 0, 1, 0, 0, 1, 0, 0, 0];
    // [main:3 @ foo]: head 1, total 5; [main]: head 2, total 7
    let profiles: &[u8] = &[1, 0, 5, 0, 0, 2, 1, 7, 0, 0];
    // checksum 99 and attributes 1 for context 0; context 1 record ends the section
    let metadata: &[u8] = &[0, 99, 1, 1, 5, 2];
    let d = ext(&[
        (1, 1 << 33, &[0, 0, 0, 0, 0, 0]),
        (2, 0, names),
        (6, 0, contexts),
        (32, 0, profiles),
        (5, 3 << 32, metadata),
    ]);
    let p = decode(&d).unwrap();
    assert!(p.kind.context_sensitive && p.kind.probe_based);
    let foo = &p.functions[0];
    assert_eq!(name_of(&p, foo.name), b"foo");
    assert_eq!(foo.context.len(), 2);
    assert_eq!(foo.context[0].location, LineLocation { line: 3, discriminator: 0 });
    assert_eq!((foo.checksum, foo.attributes), (Some(99), 1));
    let main = &p.functions[1];
    assert_eq!((main.checksum, main.attributes, main.total), (Some(5), 2, 7));
}

#[test]
fn offsets_must_start_functions() {
    let names: &[u8] = b"\x01a\0";
    let profiles: &[u8] = &[7, 0, 7, 0, 0, 8, 0, 8, 0, 0];
    let good = ext(&[(2, 0, names), (4, 0, &[2, 0, 0, 0, 5]), (32, 0, profiles)]);
    assert!(decode(&good).is_ok());
    let bad = ext(&[(2, 0, names), (4, 0, &[2, 0, 0, 0, 4]), (32, 0, profiles)]);
    let offset_field = 10 + 8 + 32 * 3 + 3 + 4;
    assert_eq!(decode(&bad).unwrap_err().offset(), Some(offset_field));
}

#[test]
fn rejects_what_llvm_rejects() {
    let mut compact = alloc::vec![0x82];
    compact.extend_from_slice(&RAW_MAGIC[1..]);
    compact.push(103);
    assert_eq!(decode(&compact).unwrap_err().offset(), Some(0));
    let mut old = RAW_MAGIC.to_vec();
    old.push(102);
    assert_eq!(decode(&old).unwrap_err(), Error::invalid(9, "sample profile version 103", 102));
    // line offset above 16 bits in a body record (`illegal_line_offset`)
    let d = ext(&[(2, 0, b"\x01a\0"), (32, 0, &[0, 0, 0, 1, 0x80, 0x80, 4, 0, 0, 0, 0])]);
    let err = decode(&d).unwrap_err();
    assert_eq!(err, Error::invalid(d.len() as u64 - 7, "a line offset of at most 0xffff", 0x10000));
    // a section not read to its end
    let d = ext(&[(2, 0, b"\x01a\0\0")]);
    assert_eq!(decode(&d).unwrap_err().offset(), Some(d.len() as u64 - 1));
    // NumRecords above 32 bits
    let d = ext(&[(2, 0, b"\x01a\0"), (32, 0, &[0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10])]);
    assert_eq!(decode(&d).unwrap_err(), Error::invalid(d.len() as u64 - 5, "a number of at most 32 bits", 1 << 32));
}

#[test]
fn deep_nesting_is_bounded() {
    // function "a": HeadSamples 0, NameIdx 0, then 300 levels of "a" inlined at line 1
    let mut body = alloc::vec![0u8, 0];
    for _ in 0..300 {
        // TotalSamples 1, NumRecords 0, NumCallsites 1: LineOffset 1, Discriminator 0, NameIdx 0
        body.extend_from_slice(&[1, 0, 1, 1, 0, 0]);
    }
    body.extend_from_slice(&[1, 0, 0]);
    let d = ext(&[(2, 0, b"\x01a\0"), (32, 0, &body)]);
    let err = decode(&d).unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::Malformed { what: TOO_DEEP });
}

#[test]
fn compressed_section_errors_point_at_the_payload() {
    let payload = [0x78, 0x9c, 0x63, 0x4c, 0x64, 0x00, 0x00, 0x00, 0xc8, 0x00, 0x63]; // "\x01a\0"
    let mut section = alloc::vec![3u8, 11];
    section.extend_from_slice(&payload);
    let d = ext(&[(2, 1, &section), (32, 0, &[0, 0, 1, 0, 0])]);
    assert!(decode(&d).is_ok());
    // claims 2 bytes: the stream inflates past its claim
    section[0] = 2;
    let d = ext(&[(2, 1, &section)]);
    assert!(decode(&d).is_err());
    // claims far more than 11 bytes of zlib can hold
    let mut huge = alloc::vec![0xff, 0xff, 0xff, 0xff, 0x0f, 11];
    huge.extend_from_slice(&payload);
    let d = ext(&[(2, 1, &huge)]);
    let at = d.len() as u64 - huge.len() as u64;
    assert_eq!(decode(&d).unwrap_err().offset(), Some(at));
    // an inflated name table that is not read to its end: reported at the payload
    let payload2 = [0x78, 0x9c, 0x63, 0x4c, 0x64, 0x60, 0x00, 0x00, 0x01, 0x2b, 0x00, 0x63];
    assert_eq!(crate::compress::inflate_zlib(&payload2, 4, 0).ok(), Some(b"\x01a\0\0".to_vec()));
    let mut section = alloc::vec![4u8, 12];
    section.extend_from_slice(&payload2);
    let d = ext(&[(2, 1, &section)]);
    assert_eq!(decode(&d).unwrap_err().offset(), Some(d.len() as u64 - 12));
}
