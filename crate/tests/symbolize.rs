//! Symbolization against perf's own names: every (address, symbol) that
//! `perf script -F comm,pid,tid,time,ip,sym,dso,period,event` printed for the corpus
//! programs `cprog` (non-PIE) and `cxxprog` (PIE) must come out of
//! [`Symbolizer`] with the same name. Inline frames are checked against
//! `llvm-symbolizer-22 --inlining`, and malformed binaries and kallsyms files must
//! give errors (or fall back), never panic.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod common;

use std::collections::BTreeMap;

use pgolens::symbolize::{
    dso_offset_label, file_offset, files_for_dso, own_build_id, Address, Binary, Frame, Symbolizer,
};

const PROGRAMS: [&str; 2] = ["cprog", "cxxprog"];
const RECORDINGS: [&str; 5] = ["fp", "dwarf", "hifreq", "pipe", "multi"];

fn dso(program: &str) -> String {
    format!("/tmp/corpusB/work/{program}/{program}")
}

fn binary_bytes(program: &str) -> Vec<u8> {
    common::read(&format!("bolt-perf/{program}/{program}"))
}

fn hex(text: &str) -> u64 {
    u64::from_str_radix(text, 16).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `PERF_RECORD_MMAP2 …: [0xSTART(0xLEN) @ 0xPGOFF …]: r-xp DSO` lines of a raw dump:
/// (start, length, pgoff) of each mapping of `dso`.
fn mappings(rawdump: &str, dso: &str) -> Vec<(u64, u64, u64)> {
    rawdump
        .lines()
        .filter(|l| l.contains("PERF_RECORD_MMAP") && l.ends_with(&format!(" {dso}")))
        .map(|l| {
            let inner = &l[l.find(": [0x").unwrap() + 5..];
            let (start, rest) = inner.split_once("(0x").unwrap();
            let (len, rest) = rest.split_once(") @ 0x").unwrap();
            let pgoff = rest.split_whitespace().next().unwrap();
            (hex(start), hex(len), hex(pgoff))
        })
        .collect()
}

/// What perf printed for the corpus binary in one `script-F` file: (file offset,
/// symbol) pairs, each once. Call-chain lines (`\t ADDR SYM (DSO)`) give file
/// offsets; sample lines without call chains give process addresses, turned into
/// file offsets with the MMAP2 records of the same recording.
fn perf_symbols(program: &str, recording: &str) -> BTreeMap<u64, String> {
    perf_symbols_of(program, recording, &dso(program))
}

/// [`perf_symbols`] for any DSO of the recording.
fn perf_symbols_of(program: &str, recording: &str, dso: &str) -> BTreeMap<u64, String> {
    let base = format!("bolt-perf/{program}/{program}.{recording}.perf.data");
    let script = String::from_utf8(common::read(&format!("{base}.script-F.txt"))).unwrap();
    let suffix = format!(" ({dso})");
    let mut maps = None;
    let mut out = BTreeMap::new();
    for line in script.lines() {
        let Some(rest) = line.strip_suffix(&suffix) else { continue };
        let (offset, symbol) = if line.starts_with('\t') {
            let (address, symbol) = rest.trim_start().split_once(' ').unwrap();
            (hex(address), symbol)
        } else {
            // `comm pid/tid time: period event: ADDR SYM`: the address follows the
            // event name's colon.
            let after_event = &rest[rest.rfind(": ").unwrap() + 2..];
            let (address, symbol) = after_event.trim_start().split_once(' ').unwrap();
            let maps = maps.get_or_insert_with(|| {
                mappings(&String::from_utf8(common::read(&format!("{base}.rawdump.txt"))).unwrap(), dso)
            });
            let ip = hex(address);
            let &(start, _, pgoff) = maps.iter().find(|(start, len, _)| (*start..start + len).contains(&ip)).unwrap();
            (file_offset(ip, start, pgoff).unwrap(), symbol)
        };
        if let Some(before) = out.insert(offset, symbol.to_string()) {
            assert_eq!(before, symbol, "{base}: perf named {offset:#x} twice");
        }
    }
    out
}

#[test]
fn function_names_match_perf_script() {
    let mut checked = 0;
    for program in PROGRAMS {
        let bytes = binary_bytes(program);
        let mut symbolizer = Symbolizer::new();
        symbolizer.add_binary(&dso(program), &bytes).unwrap();
        for recording in RECORDINGS {
            for (offset, perf) in perf_symbols(program, recording) {
                let ours = symbolizer.function_name(&dso(program), None, Address::FileOffset(offset));
                assert_eq!(ours, perf, "{program}.{recording}: file offset {offset:#x}");
                // The frames end with the same function.
                let frames = symbolizer.resolve(&dso(program), None, Address::FileOffset(offset)).unwrap();
                assert_eq!(frames.last().map(|f| f.function.as_str()), Some(perf.as_str()));
                checked += 1;
            }
        }
    }
    // Distinct addresses over both programs and five recordings each.
    assert!(checked > 300, "only {checked} addresses checked");
}

/// The corpus recordings' libc is Debian 12's (build id 93ac61ec…), kept with its
/// separate debug file (`libc6-dbg`) in the corpus sysroot: perf's names for libc
/// addresses come out of the pair, file offsets placed by the stripped library,
/// names from the debug file's `.symtab`.
#[test]
fn libc_with_its_debug_file() {
    let library = "/usr/lib/x86_64-linux-gnu/libc.so.6";
    let sysroot = common::corpus().join("bolt-perf/sysroot");
    let library_bytes = std::fs::read(sysroot.join(library.trim_start_matches('/'))).unwrap();
    let debug_bytes =
        std::fs::read(sysroot.join("usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug")).unwrap();
    let mut symbolizer = Symbolizer::new();
    symbolizer.add_binary("libc.so.6", &library_bytes).unwrap();
    symbolizer.add_binary("93ac61ec5a8eb1396f9fbd350e3169a558528a40.debug", &debug_bytes).unwrap();
    let build_id = Binary::parse(&debug_bytes).unwrap().build_id().unwrap().to_vec();
    assert_eq!(Binary::parse(&library_bytes).unwrap().build_id(), Some(build_id.as_slice()));
    let mut checked = 0;
    for program in PROGRAMS {
        for recording in RECORDINGS {
            for (offset, perf) in perf_symbols_of(program, recording, library) {
                let ours = symbolizer.function_name(library, Some(&build_id), Address::FileOffset(offset));
                assert_eq!(ours, perf, "{program}.{recording}: libc file offset {offset:#x}");
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} libc addresses checked");
}

#[test]
fn files_standing_for_a_dso_follow_perfs_rule() {
    // The sysroot's libc and libm with their debug files, and cprog: their build ids
    // as the files carry them (perf buildid-list: libc 93ac61ec…).
    let sysroot = common::corpus().join("bolt-perf/sysroot");
    let paths = [
        "usr/lib/x86_64-linux-gnu/libc.so.6",
        "usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug",
        "usr/lib/x86_64-linux-gnu/libm.so.6",
        "usr/lib/debug/.build-id/d6/e6f9e3af1243eed9bf5efd366dd015a9f22c13.debug",
    ];
    let bytes: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(sysroot.join(p)).unwrap()).collect();
    let ids: Vec<Vec<u8>> = bytes.iter().map(|b| Binary::parse(b).unwrap().build_id().unwrap().to_vec()).collect();
    assert_eq!(ids[0], ids[1]);
    assert_eq!(ids[2], ids[3]);
    assert_ne!(ids[0], ids[2]);
    let files: Vec<(&str, Option<&[u8]>)> = paths.iter().zip(&ids).map(|(p, id)| (*p, Some(id.as_slice()))).collect();
    let libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
    // Recorded with its build id: the library and its debug file, by the id alone.
    assert_eq!(files_for_dso(libc, Some(&ids[0]), &files), [0, 1]);
    assert_eq!(files_for_dso("/elsewhere/renamed.so", Some(&ids[0]), &files), [0, 1]);
    // Without one (pipe mode): the file of its name, and its debug file by that file's id.
    assert_eq!(files_for_dso(libc, None, &files), [0, 1]);
    // Another build of libc (a known id no file has): the file of its name differs, so none.
    assert_eq!(files_for_dso(libc, Some(&[1, 2, 3]), &files), [] as [usize; 0]);
    // A file of the name whose id is not known stands for any build of it.
    let unknown: Vec<(&str, Option<&[u8]>)> = vec![(paths[0], None), files[2]];
    assert_eq!(files_for_dso(libc, Some(&[1, 2, 3]), &unknown), [0]);
    assert_eq!(files_for_dso("/usr/lib/libz.so.1", None, &files), [] as [usize; 0]);
    // The Symbolizer finds by the same rule: the debug file (more symbols) for libc.
    let mut symbolizer = Symbolizer::new();
    for (path, b) in paths.iter().zip(&bytes) {
        symbolizer.add_binary(path, b).unwrap();
    }
    let found = symbolizer.find(libc, Some(&ids[0])).unwrap();
    assert_eq!(found.build_id(), Some(ids[0].as_slice()));
    assert!(symbolizer.find(libc, Some(&[1, 2, 3])).is_none());
    // A DSO recorded without a build id takes its own file's, in the Symbolizer as in
    // the file list: libc's (its debug file is named by the id, not as libc).
    assert_eq!(symbolizer.own_build_id(libc), Some(ids[0].as_slice()));
    assert_eq!(own_build_id(libc, files.iter().copied()), Some(ids[0].as_slice()));
    assert_eq!(symbolizer.own_build_id("/usr/lib/libz.so.1"), None);
    let empty: Vec<(&str, Option<&[u8]>)> = vec![(paths[0], Some(&[])), files[2]];
    assert_eq!(own_build_id(libc, empty.into_iter()), None, "an empty build id is none");
}

#[test]
fn build_ids_match_perf_header() {
    for program in PROGRAMS {
        let ids = String::from_utf8(common::read(&format!("bolt-perf/{program}/{program}.fp.perf.data.buildids.txt")))
            .unwrap();
        let line = ids.lines().find(|l| l.ends_with(&dso(program))).unwrap();
        let wanted: Vec<u8> = (0..40).step_by(2).map(|i| u8::from_str_radix(&line[i..i + 2], 16).unwrap()).collect();
        let bytes = binary_bytes(program);
        let binary = Binary::parse(&bytes).unwrap();
        assert_eq!(binary.build_id(), Some(wanted.as_slice()), "{program}");
        assert_eq!(binary.is_dynamic(), program == "cxxprog");

        // Matched by build id whatever the path; by file name without one; not by a
        // file name whose build id differs.
        let mut symbolizer = Symbolizer::new();
        symbolizer.add_binary(&format!("dropped/{program}"), &bytes).unwrap();
        assert!(symbolizer.find("/elsewhere/renamed", Some(&wanted)).is_some());
        assert!(symbolizer.find(&dso(program), None).is_some());
        assert!(symbolizer.find(&dso(program), Some(&[0xab; 20])).is_none());
        assert!(symbolizer.find("/tmp/other", None).is_none());
    }
}

#[test]
fn address_spaces() {
    let bytes = binary_bytes("cprog");
    let binary = Binary::parse(&bytes).unwrap();
    // MANIFEST.md: perf prints `129d hot_loop+0x4d` for the non-PIE cprog's 0x40129d.
    assert_eq!(binary.vaddr_of_file_offset(0x129d), Some(0x40_129d));
    let (name, offset) = binary.symbol_for(0x40_129d).unwrap();
    assert_eq!((name, offset), ("hot_loop", 0x4d));
    // The MMAP2 of the cprog.multi recording: [0x401000(0x1000) @ 0x1000].
    assert_eq!(file_offset(0x40_129d, 0x40_1000, 0x1000), Some(0x129d));
    assert_eq!(file_offset(0x40_0fff, 0x40_1000, 0x1000), None);

    let mut symbolizer = Symbolizer::new();
    symbolizer.add_binary("cprog", &bytes).unwrap();
    assert_eq!(symbolizer.function_name("/x/cprog", None, Address::Vaddr(0x40_129d)), "hot_loop");
    // Past the last PT_LOAD, and no binary at all.
    assert_eq!(symbolizer.resolve("/x/cprog", None, Address::FileOffset(0x10_0000)), Some(Vec::new()));
    assert_eq!(symbolizer.function_name("/x/cprog", None, Address::FileOffset(0x10_0000)), "[unknown]");
    assert_eq!(symbolizer.resolve("/usr/lib/libc.so.6", None, Address::FileOffset(0x2724a)), None);
    assert_eq!(symbolizer.function_name("/usr/lib/libc.so.6", None, Address::FileOffset(0x2724a)), "libc.so.6+0x2724a");
    assert_eq!(dso_offset_label("/usr/lib/libc.so.6", 0x2724a), "libc.so.6+0x2724a");
}

#[test]
fn plt_entries_are_named() {
    // cxxprog.multi: `561b3eba6150 memmove@plt`, mapped [0x561b3eba6000(0x3000) @ 0x2000].
    let bytes = binary_bytes("cxxprog");
    let binary = Binary::parse(&bytes).unwrap();
    let offset = file_offset(0x561b_3eba_6150, 0x561b_3eba_6000, 0x2000).unwrap();
    let vaddr = binary.vaddr_of_file_offset(offset).unwrap();
    assert_eq!(binary.symbol_for(vaddr).map(|(n, o)| (n.to_string(), o)), Some(("memmove@plt".into(), 0)));
}

const STL: &str = "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits";

/// Inline frames against `llvm-symbolizer-22 --inlining --output-style=GNU` (and
/// `addr2line -i -f -C`, which agrees): same functions, files and lines, innermost
/// first. The names are perf's form of the tools' demangled names: no parameters,
/// `> >` as libiberty and perf write nested template closings.
#[test]
fn inline_frames_match_llvm_symbolizer() {
    let cprog = binary_bytes("cprog");
    let cprog = Binary::parse(&cprog).unwrap();
    // llvm-symbolizer-22 --inlining --obj=cprog 0x401363: atol inlined into main.
    assert_eq!(
        cprog.frames(0x40_1363),
        [
            frame("atol", "/usr/include/stdlib.h", 369, true),
            frame("main", "/tmp/corpusB/work/cprog/src/cmain.c", 59, false)
        ]
    );
    // _start has no DWARF: the symbol table's frame alone.
    assert_eq!(cprog.frames(0x40_10b0), [Frame { function: "_start".into(), file: None, line: None, inlined: false }]);

    let cxxprog = binary_bytes("cxxprog");
    let cxxprog = Binary::parse(&cxxprog).unwrap();
    let source = "/tmp/corpusB/work/cxxprog/src/cxxprog.cpp";
    // llvm-symbolizer-22 --inlining --obj=cxxprog 0x304a
    assert_eq!(
        cxxprog.frames(0x304a),
        [frame("Matrix<double, 24>::trace", source, 48, true), frame("main", source, 107, false)]
    );
    // llvm-symbolizer-22 --inlining --obj=cxxprog 0x3593: three levels of unique_ptr
    // inlined into the static total_area (perf names the symbol `total_area`).
    let unique_ptr = format!("{STL}/unique_ptr.h");
    assert_eq!(
        cxxprog.frames(0x3593),
        [
            frame("std::__uniq_ptr_impl<geo::Shape, std::default_delete<geo::Shape> >::_M_ptr", &unique_ptr, 191, true),
            frame("std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> >::get", &unique_ptr, 462, true),
            frame("std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> >::operator->", &unique_ptr, 455, true),
            frame("total_area", source, 71, false),
        ]
    );
    // llvm-symbolizer-22 --inlining --obj=cxxprog 0x37db: eight frames, std::sort's
    // insertion sort inlined into quick_sort; lines of the tool, innermost first.
    let lines: Vec<_> = cxxprog.frames(0x37db).iter().map(|f| (f.file.clone().unwrap(), f.line.unwrap())).collect();
    let algo = format!("{STL}/stl_algo.h");
    assert_eq!(
        lines,
        [
            (source.to_string(), 109),
            (format!("{STL}/predefined_ops.h"), 240),
            (algo.clone(), 1789),
            (algo.clone(), 1817),
            (algo.clone(), 1854),
            (algo.clone(), 1940),
            (algo, 4853),
            (source.to_string(), 64),
        ]
    );
    let last = cxxprog.frames(0x37db).pop().unwrap();
    assert_eq!(
        last.function,
        "quick_sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, main::$_0>"
    );
}

/// The offset and size of the ELF64 section named `name`.
fn section(elf: &[u8], name: &str) -> (usize, usize, usize) {
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap()) as usize;
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let strtab = u64_at(shoff + shstrndx * shentsize + 24);
    for i in 0..shnum {
        let header = shoff + i * shentsize;
        let name_at = strtab + u32::from_le_bytes(elf[header..header + 4].try_into().unwrap()) as usize;
        let end = elf[name_at..].iter().position(|&b| b == 0).unwrap();
        if &elf[name_at..name_at + end] == name.as_bytes() {
            return (header, u64_at(header + 24), u64_at(header + 32));
        }
    }
    panic!("no section {name}");
}

/// `elf` with every `.debug_*` section compressed in place as `objcopy
/// --compress-debug-sections=zlib` stores them: an `Elf64_Chdr` (ch_type 1 = zlib,
/// reserved, ch_size, ch_addralign) and the zlib stream, `SHF_COMPRESSED` set.
fn compress_debug_sections(elf: &[u8]) -> Vec<u8> {
    let mut out = elf.to_vec();
    for name in [
        ".debug_info",
        ".debug_abbrev",
        ".debug_line",
        ".debug_str",
        ".debug_addr",
        ".debug_line_str",
        ".debug_loclists",
        ".debug_rnglists",
        ".debug_str_offsets",
    ] {
        let (header, at, size) = section(&out, name);
        let stream = miniz_oxide::deflate::compress_to_vec_zlib(&elf[at..at + size], 6);
        let mut chdr = Vec::new();
        chdr.extend_from_slice(&1u32.to_le_bytes());
        chdr.extend_from_slice(&0u32.to_le_bytes());
        chdr.extend_from_slice(&(size as u64).to_le_bytes());
        chdr.extend_from_slice(&1u64.to_le_bytes());
        chdr.extend_from_slice(&stream);
        assert!(chdr.len() <= size, "{name} does not shrink");
        out[at..at + chdr.len()].copy_from_slice(&chdr);
        out[header + 9] |= 0x08; // sh_flags: SHF_COMPRESSED (0x800)
        out[header + 32..header + 40].copy_from_slice(&(chdr.len() as u64).to_le_bytes());
    }
    out
}

/// Compressed DWARF gives the same frames as the plain sections.
#[test]
fn zlib_compressed_dwarf() {
    let plain = binary_bytes("cxxprog");
    let compressed = compress_debug_sections(&plain);
    let (plain, compressed) = (Binary::parse(&plain).unwrap(), Binary::parse(&compressed).unwrap());
    assert!(compressed.load_dwarf().unwrap());
    for vaddr in [0x304a, 0x3593, 0x37db, 0x3695] {
        let frames = compressed.inline_frames(vaddr).unwrap();
        assert!(frames.len() > 1 || vaddr == 0x3695, "{vaddr:#x}: {frames:?}");
        assert_eq!(frames, plain.inline_frames(vaddr).unwrap());
    }
}

/// Every truncation of both binaries parses or fails cleanly, and lookups in what
/// parsed never panic.
#[test]
fn truncated_binaries() {
    for program in PROGRAMS {
        let bytes = binary_bytes(program);
        let mut parsed = 0;
        for len in (0..bytes.len()).step_by(97).chain([1, 4, 5, 6, 63, 64, 65, bytes.len() - 1]) {
            let Ok(binary) = Binary::parse(&bytes[..len]) else { continue };
            parsed += 1;
            for vaddr in [0x40_1293, 0x40_1363, 0x3593, 0x37db, 0, u64::MAX] {
                let _ = binary.frames(vaddr);
                let _ = binary.inline_frames(vaddr);
            }
        }
        // Section headers are at the end: short files do not parse.
        assert!(parsed < 5, "{program}: {parsed} truncations parsed");
        assert!(Binary::parse(&bytes[..63]).is_err());
    }
}

/// DWARF that cannot be read: an error from `inline_frames` at the section's offset,
/// and `frames` falls back to the symbol table.
#[test]
fn garbage_dwarf() {
    let original = binary_bytes("cxxprog");
    let (_, info_at, info_size) = section(&original, ".debug_info");

    // Unit headers overwritten with 0xff: an absurd 64-bit unit length.
    let mut bytes = original.clone();
    bytes[info_at..info_at + info_size].fill(0xff);
    let binary = Binary::parse(&bytes).unwrap();
    let err = binary.inline_frames(0x3593).unwrap_err();
    assert_eq!(err.offset(), Some(info_at as u64), "{err}");
    assert!(binary.load_dwarf().is_err());
    assert_eq!(
        binary.frames(0x3593),
        [Frame { function: "total_area".into(), file: None, line: None, inlined: false }]
    );

    // .debug_info said to extend past the end of the file.
    let mut bytes = original.clone();
    let (header, _, _) = section(&bytes, ".debug_info");
    bytes[header + 32..header + 40].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let binary = Binary::parse(&bytes).unwrap();
    let err = binary.inline_frames(0x3593).unwrap_err();
    assert_eq!(err.offset(), Some(info_at as u64), "{err}");
    assert_eq!(binary.frames(0x304a).last().unwrap().function, "main");

    // Marked SHF_COMPRESSED without being so: the unit length read as ch_type is no
    // known compression.
    let mut bytes = original.clone();
    bytes[header + 9] |= 0x08; // sh_flags: SHF_COMPRESSED is bit 11
    let binary = Binary::parse(&bytes).unwrap();
    let err = binary.inline_frames(0x3593).unwrap_err();
    assert!(err.to_string().contains("zlib"), "{err}");
    assert_eq!(err.offset(), Some(info_at as u64));

    // A zlib stream that is cut short, and one that claims a larger size.
    for (cut, claim) in [(true, 0), (false, 1)] {
        let mut bytes = compress_debug_sections(&original);
        let (header, at, size) = section(&bytes, ".debug_line");
        if cut {
            bytes[header + 32..header + 40].copy_from_slice(&((size / 2) as u64).to_le_bytes());
        }
        let ch_size = u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap());
        bytes[at + 8..at + 16].copy_from_slice(&(ch_size + claim).to_le_bytes());
        let binary = Binary::parse(&bytes).unwrap();
        let err = binary.inline_frames(0x3593).unwrap_err();
        // In the .debug_line stream, after its Elf64_Chdr.
        let offset = err.offset().unwrap() as usize;
        assert!((at + 24..=at + size).contains(&offset), "{err}");
        assert_eq!(binary.frames(0x3593).last().unwrap().function, "total_area");
    }

    // Line programs and abbreviations scribbled over, and bit flips through
    // .debug_info: whatever comes out, nothing panics.
    for name in [".debug_line", ".debug_abbrev", ".debug_str_offsets", ".debug_addr", ".debug_rnglists"] {
        let mut bytes = original.clone();
        let (_, at, size) = section(&bytes, name);
        for (i, b) in bytes[at..at + size].iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37) ^ 0x5a;
        }
        let binary = Binary::parse(&bytes).unwrap();
        for vaddr in [0x304a, 0x3593, 0x37db] {
            let frames = binary.frames(vaddr);
            assert!(!frames.is_empty(), "{name}: {vaddr:#x} lost its symbol");
        }
    }
    for step in 0..64 {
        let mut bytes = original.clone();
        let at = info_at + (step * 7919) % info_size;
        bytes[at] ^= 1 << (step % 8);
        let binary = Binary::parse(&bytes).unwrap();
        for vaddr in [0x304a, 0x3593, 0x37db] {
            let _ = binary.frames(vaddr);
        }
    }
}

/// Bytes flipped all over both binaries (headers, symbol and string tables, notes,
/// every DWARF section): parsing and lookups may fail or give other names, never panic.
#[test]
fn bit_flips_anywhere() {
    for program in PROGRAMS {
        let original = binary_bytes(program);
        // A fixed pseudo-random walk (xorshift), so failures reproduce.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..300 {
            let mut bytes = original.clone();
            for _ in 0..4 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = (state % bytes.len() as u64) as usize;
                bytes[at] ^= (state >> 56) as u8 | 1;
            }
            let Ok(binary) = Binary::parse(&bytes) else { continue };
            for vaddr in [0x40_1293, 0x40_1363, 0x304a, 0x3593, 0x37db] {
                let _ = binary.frames(vaddr);
            }
            let _ = binary.vaddr_of_file_offset(0x129d);
        }
    }
}

/// Symbol tables whose string table or entries lie outside the file.
#[test]
fn broken_symbol_tables() {
    let original = binary_bytes("cprog");
    let mut bytes = original.clone();
    let (header, _, _) = section(&bytes, ".symtab");
    bytes[header + 32..header + 40].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let err = Binary::parse(&bytes).unwrap_err();
    assert!(err.to_string().contains("symbol table"), "{err}");

    // Names pointing past the string table are skipped, not fatal.
    let mut bytes = original.clone();
    let (_, at, size) = section(&bytes, ".symtab");
    for entry in (at + 24..at + size).step_by(24) {
        bytes[entry..entry + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    }
    let binary = Binary::parse(&bytes).unwrap();
    assert_eq!(binary.symbol_for(0x40_129d).map(|(n, _)| n.to_string()), None);
}

#[test]
fn kernel_addresses() {
    let kallsyms = b"ffffffff81000000 T _stext\n\
ffffffff81000c70 T asm_exc_page_fault\n\
ffffffff81000cc0 T asm_exc_machine_check\n\
ffffffff8158c350 t next_uptodate_folio\n\
ffffffffc0a01000 t ext4_init_fs\t[ext4]\n";
    let mut symbolizer = Symbolizer::new();
    // perf script printed `ffffffff81000c82 asm_exc_page_fault ([kernel.kallsyms])`.
    assert_eq!(symbolizer.kernel_label(0xffff_ffff_8100_0c82), "[kernel.kallsyms]+0xffffffff81000c82");
    symbolizer.set_kallsyms(kallsyms).unwrap();
    assert_eq!(symbolizer.kernel_label(0xffff_ffff_8100_0c82), "asm_exc_page_fault+0x12");
    assert_eq!(symbolizer.kernel_label(0xffff_ffff_8158_c375), "next_uptodate_folio+0x25");
    let module = symbolizer.kallsyms().unwrap().symbol_for(0xffff_ffff_c0a0_1010).unwrap();
    assert_eq!((module.name, module.module), ("ext4_init_fs", Some("ext4")));
    // Kernel DSOs as perf names them, resolved through kallsyms.
    let kernel = |dso: &str, address: u64| symbolizer.function_name(dso, None, Address::Vaddr(address));
    assert_eq!(kernel("[kernel.kallsyms]", 0xffff_ffff_8100_0c82), "asm_exc_page_fault");
    assert_eq!(kernel("[ext4]", 0xffff_ffff_c0a0_1010), "ext4_init_fs");
    assert_eq!(kernel("[kernel.kallsyms]", 0x1000), "[unknown]");
    assert_eq!(kernel("[vdso]", 0x1000), "[vdso]+0x1000");
    assert_eq!(
        symbolizer.resolve("[kernel.kallsyms]", None, Address::FileOffset(0xffff_ffff_8158_c375)).unwrap(),
        [Frame { function: "next_uptodate_folio".into(), file: None, line: None, inlined: false }]
    );

    for bad in [
        &b"ffffffff81000000 T _stext\nnot an address\n"[..],
        b"ffffffff81000000",
        b"ffffffff81000000 T",
        b"ffffffff81000000 long name",
        b"ffffffff81000000 T name module",
        b"10000000000000000 T overflow",
        b"\xff\xfe T x",
        b"0000000000000000 T hidden\n0000000000000000 t by_kptr_restrict",
    ] {
        let err = Symbolizer::new().set_kallsyms(bad).unwrap_err();
        assert!(err.offset().is_none(), "text errors are at a line: {err}");
    }
}

fn frame(function: &str, file: &str, line: u32, inlined: bool) -> Frame {
    Frame { function: function.into(), file: Some(file.into()), line: Some(line), inlined }
}
