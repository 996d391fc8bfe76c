//! BOLT Address Translation against what llvm-bolt 22 printed and wrote.
//!
//! References (tests/corpus/bolt-perf, see its MANIFEST.md):
//! * `X.bolt`: the BOLTed ELF with `.note.bolt_bat` and `.note.bolt_info`;
//!   its `.symtab` gives every function's and cold fragment's (`name.cold.0`)
//!   output address and size;
//! * `X.bolt.cfg.txt`: llvm-bolt's `--print-finalized --print-output-address-range`
//!   log: every rewritten function's blocks in layout order, with their input
//!   offset and output range, and `BB Count`;
//! * `X.bolt.bat.yaml`: perf2bolt's YAML profile written from the BAT of `X.bolt`
//!   (function hashes, block indices and block hashes come from BAT);
//! * `X.bolt.bat.bin`: the section's raw bytes (`llvm-objcopy --dump-section`).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

mod common;

use std::collections::BTreeMap;

use object::{Object, ObjectSymbol};
use pgolens::formats::bolt::{bat, yaml};

// ---------------------------------------------------------------- the cfg log

#[derive(Debug)]
struct CfgBlock {
    label: String,
    /// 0 = main fragment, 1 = after "HOT-COLD SPLIT POINT".
    fragment: usize,
    start: u64,
    end: u64,
    input: u64,
}

#[derive(Debug)]
struct CfgFunction {
    name: String,
    names: Vec<String>,
    bb_count: u64,
    blocks: Vec<CfgBlock>,
}

impl CfgFunction {
    /// The name without BOLT's `/N` suffix and `(*2)` alias count.
    fn base(&self) -> &str {
        self.name.split(['/', '(']).next().unwrap()
    }

    fn fragment(&self, k: usize) -> impl Iterator<Item = &CfgBlock> {
        self.blocks.iter().filter(move |b| b.fragment == k)
    }

    fn fragment_end(&self, k: usize) -> Option<u64> {
        self.fragment(k).map(|b| b.end).max()
    }
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).unwrap()
}

fn parse_cfg(text: &str) -> Vec<CfgFunction> {
    let mut out: Vec<CfgFunction> = Vec::new();
    let mut in_header = false;
    let mut fragment = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Binary Function \"") {
            let name = rest.split("\" after").next().unwrap().to_string();
            out.push(CfgFunction { name, names: Vec::new(), bb_count: 0, blocks: Vec::new() });
            in_header = true;
            fragment = 0;
            continue;
        }
        let Some(f) = out.last_mut() else { continue };
        if in_header {
            if line == "}" {
                in_header = false;
                continue;
            }
            match line.split_once(':').map(|(k, v)| (k.trim(), v.trim())) {
                Some(("All names", v)) => f.names.push(v.to_string()),
                Some(("BB Count", v)) => f.bb_count = v.parse().unwrap(),
                // continuation lines of "All names"
                None if !line.trim().is_empty() => f.names.push(line.trim().to_string()),
                _ => {}
            }
            continue;
        }
        if line.contains("HOT-COLD SPLIT POINT") {
            fragment += 1;
        } else if line.starts_with('.') && line.contains(" instructions") {
            let label = line.split(' ').next().unwrap().to_string();
            f.blocks.push(CfgBlock { label, fragment, start: u64::MAX, end: 0, input: u64::MAX });
        } else if let Some(r) = line.trim().strip_prefix("Output Address Range: [") {
            let (a, b) = r.split_once(')').unwrap().0.split_once(", ").unwrap();
            let block = f.blocks.last_mut().unwrap();
            (block.start, block.end) = (hex(a), hex(b));
        } else if let Some(r) = line.trim().strip_prefix("Input offset: ") {
            f.blocks.last_mut().unwrap().input = hex(r);
        }
    }
    out
}

// ---------------------------------------------------------------- the binary

struct Symbol {
    name: String,
    address: u64,
    size: u64,
}

fn function_symbols(elf: &[u8]) -> Vec<Symbol> {
    let file = object::File::parse(elf).unwrap();
    file.symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.address() != 0)
        .map(|s| Symbol { name: s.name().unwrap().to_string(), address: s.address(), size: s.size() })
        .collect()
}

/// The output symbol of a cfg function: its (base) name, and where a local name
/// repeats (`helper` in both files), the size of its main fragment.
fn symbol_of<'s>(symbols: &'s [Symbol], name: &str, size: Option<u64>) -> Option<&'s Symbol> {
    let named: Vec<&Symbol> = symbols.iter().filter(|s| s.name == name).collect();
    match named.as_slice() {
        [one] => Some(one),
        _ => named.into_iter().find(|s| Some(s.size) == size),
    }
}

struct Case {
    prog: &'static str,
    /// Hot functions and cold fragments BAT holds.
    hot: usize,
    cold: usize,
    /// Functions in BAT that llvm-bolt did not print (not rewritten, only moved).
    unprinted: &'static [&'static str],
    /// Functions whose printed output ranges predate the final emission (branches
    /// BOLT shortened afterwards): their block order and input offsets are checked,
    /// their output offsets only for order.
    relaxed: &'static [&'static str],
    /// Functions and blocks in `X.bolt.bat.yaml`.
    yaml: (usize, usize),
}

/// In both programs: the C runtime's functions, whose unprofiled blocks llvm-bolt
/// printed at offset 0 of a second fragment and whose branches it shortened after
/// printing (their symbols are smaller than the printed ranges).
const CRT_RELAXED: &[&str] = &["__do_global_dtors_aux", "_init", "frame_dummy"];

/// Not rewritten (no profile, lite mode) but moved, so in BAT and not in the log.
const CRT_UNPRINTED: &[&str] = &["deregister_tm_clones", "register_tm_clones"];

const CASES: [Case; 2] = [
    Case { prog: "cprog", hot: 21, cold: 4, unprinted: CRT_UNPRINTED, relaxed: CRT_RELAXED, yaml: (13, 34) },
    Case { prog: "cxxprog", hot: 28, cold: 6, unprinted: CRT_UNPRINTED, relaxed: CRT_RELAXED, yaml: (18, 120) },
];

fn load(prog: &str) -> (Vec<u8>, bat::Bat) {
    let elf = common::read(&format!("bolt-perf/{prog}/{prog}.bolt"));
    let decoded = bat::from_elf(&elf).unwrap().unwrap();
    (elf, decoded)
}

/// A BAT hot function and its cold fragment (if split), with their symbols.
struct Matched<'b> {
    hot: &'b bat::Function,
    cold: Option<&'b bat::Function>,
    hot_symbol: &'b Symbol,
    cold_symbol: Option<&'b Symbol>,
}

fn match_function<'b>(bat: &'b bat::Bat, symbols: &'b [Symbol], f: &CfgFunction) -> Matched<'b> {
    let hot_symbol = symbol_of(symbols, f.base(), f.fragment_end(0)).unwrap_or_else(|| panic!("{}: no symbol", f.name));
    let at = |table: &'b bat::Table, address: u64| table.functions.iter().find(|g| g.address.value == address);
    let hot = at(&bat.hot, hot_symbol.address)
        .unwrap_or_else(|| panic!("{}: no hot function at {:#x}", f.name, hot_symbol.address));
    let cold_symbol = symbol_of(symbols, &format!("{}.cold.0", hot_symbol.name), f.fragment_end(1));
    let cold = cold_symbol.map(|s| at(&bat.cold, s.address).unwrap_or_else(|| panic!("{}: no cold fragment", f.name)));
    Matched { hot, cold, hot_symbol, cold_symbol }
}

/// Compares one function with the log; returns whether its printed output ranges
/// are the final ones (they add up to its symbol's size).
fn check_function(bat: &bat::Bat, m: &Matched<'_>, f: &CfgFunction) -> bool {
    let name = &f.name;
    // The printed ranges are the final layout when each fragment's blocks tile
    // its symbol from 0 to its size.
    let tiles = |k: usize, size: Option<u64>| {
        let mut at = 0;
        f.fragment(k).all(|b| std::mem::replace(&mut at, b.end) == b.start) && Some(at) == size.or(Some(0))
    };
    let final_layout = tiles(0, Some(m.hot_symbol.size)) && tiles(1, m.cold_symbol.map(|s| s.size));
    assert_eq!(f.fragment(1).next().is_some(), m.cold.is_some(), "{name}: split as printed");
    let printed_inputs: Vec<u64> = f.blocks.iter().map(|b| b.input).collect();
    let mut all_blocks = Vec::new();
    for (k, fragment) in [Some(m.hot), m.cold].into_iter().enumerate() {
        let Some(fragment) = fragment else { continue };
        let size = if k == 0 { m.hot_symbol.size } else { m.cold_symbol.unwrap().size };
        // Input blocks BOLT deleted are written at the function's end offset.
        let (deleted, kept): (Vec<&bat::Entry>, Vec<&bat::Entry>) =
            fragment.blocks().partition(|e| !printed_inputs.contains(&e.input_offset()));
        for e in &deleted {
            assert_eq!((k, e.output_offset), (0, size), "{name}: deleted block {:#x} at the end", e.input_offset());
        }
        if k == 0 {
            let deleted = deleted.len() as u64;
            assert_eq!(
                fragment.num_blocks.unwrap().value,
                f.bb_count + deleted,
                "{name}: NumBlocks = BB Count + deleted"
            );
        } else {
            assert_eq!(bat.parent(fragment).map(|p| p.address.value), Some(m.hot.address.value), "{name}: HotIndex");
            let first = fragment.entries.first().map(|e| e.input_offset());
            assert_eq!(fragment.input_skew.map(|s| s.value), first, "{name}: ColdInputSkew = first input offset");
        }
        let printed: Vec<&CfgBlock> = f.fragment(k).collect();
        let ours: Vec<u64> = kept.iter().map(|e| e.input_offset()).collect();
        let theirs: Vec<u64> = printed.iter().map(|b| b.input).collect();
        assert_eq!(ours, theirs, "{name}: fragment {k}: input offsets of the blocks in layout order");
        for (e, b) in kept.iter().zip(&printed) {
            if final_layout {
                assert_eq!(e.output_offset, b.start, "{name}: {}: output offset", b.label);
            }
            assert!(e.output_offset <= size, "{name}: {} inside the fragment", b.label);
        }
        all_blocks.extend(fragment.blocks().copied());
    }
    // Block indices number the input function's blocks in input order.
    all_blocks.sort_by_key(|e| e.input_offset());
    let indices: Vec<u64> = all_blocks.iter().map(|e| e.block.unwrap().index).collect();
    let expected: Vec<u64> = (0..all_blocks.len() as u64).collect();
    assert_eq!(indices, expected, "{name}: block indices in input order");
    final_layout
}

#[test]
fn tables_agree_with_llvm_bolt_print_function_by_function() {
    for case in &CASES {
        let (elf, b) = load(case.prog);
        assert_eq!(b.encoding, bat::Encoding::Current, "{}", case.prog);
        assert_eq!((b.hot.functions.len(), b.cold.functions.len()), (case.hot, case.cold), "{}", case.prog);
        let symbols = function_symbols(&elf);
        let log = common::read(&format!("bolt-perf/{0}/{0}.bolt.cfg.txt", case.prog));
        let cfg = parse_cfg(&String::from_utf8(log).unwrap());
        let mut seen = Vec::new();
        let mut relaxed = Vec::new();
        let mut blocks = 0;
        for f in &cfg {
            let m = match_function(&b, &symbols, f);
            if !check_function(&b, &m, f) {
                relaxed.push(f.base().to_string());
            }
            blocks += f.blocks.len();
            seen.push(m.hot.address.value);
            seen.extend(m.cold.map(|c| c.address.value));
        }
        let mut unprinted: Vec<&str> = b
            .functions()
            .filter(|g| !seen.contains(&g.address.value))
            .map(|g| symbols.iter().find(|s| s.address == g.address.value).unwrap().name.as_str())
            .collect();
        unprinted.sort();
        relaxed.sort();
        assert_eq!(unprinted, case.unprinted, "{}: BAT functions llvm-bolt did not print", case.prog);
        assert_eq!(relaxed, case.relaxed, "{}: printed before relaxation", case.prog);
        println!("{}: {} functions, {} blocks matched", case.prog, cfg.len(), blocks);
    }
}

/// perf2bolt's YAML written from the BAT of the same binary: every function's
/// hash and block count, and every profiled block's index and hash, are BAT's.
#[test]
fn hashes_and_block_indices_agree_with_perf2bolt_yaml_from_bat() {
    for case in &CASES {
        let (elf, b) = load(case.prog);
        let symbols = function_symbols(&elf);
        let cfg =
            parse_cfg(&String::from_utf8(common::read(&format!("bolt-perf/{0}/{0}.bolt.cfg.txt", case.prog))).unwrap());
        let text = common::read(&format!("bolt-perf/{0}/{0}.bolt.bat.yaml", case.prog));
        let profile = yaml::decode(&text).unwrap();
        let mut blocks = 0;
        for function in &profile.functions {
            let name = String::from_utf8_lossy(&function.name).into_owned();
            let f = cfg
                .iter()
                .find(|f| f.name.trim_end_matches("(*2)") == name || f.names.contains(&name))
                .unwrap_or_else(|| panic!("{name}: not in the log"));
            let m = match_function(&b, &symbols, f);
            assert_eq!(m.hot.hash.unwrap().value, function.hash, "{name}: FuncHash");
            assert_eq!(m.hot.num_blocks.unwrap().value, u64::from(function.block_count), "{name}: NumBlocks");
            let ours: BTreeMap<u64, u64> = [Some(m.hot), m.cold]
                .into_iter()
                .flatten()
                .flat_map(|g| g.blocks().map(|e| (e.block.unwrap().index, e.block.unwrap().hash)))
                .collect();
            for block in profile.blocks_of(function) {
                assert_eq!(ours.get(&u64::from(block.index)), Some(&block.hash), "{name}: block {}", block.index);
                blocks += 1;
            }
        }
        println!("{}: {} functions, {blocks} blocks", case.prog, profile.functions.len());
        assert_eq!((profile.functions.len(), blocks), case.yaml, "{}: YAML functions and blocks checked", case.prog);
    }
}

/// A function's address and its entries' output offset, input value and block hash.
type FunctionKey = (u64, Vec<(u64, u64, Option<u64>)>);

/// `X.bolt.bat.bin` is the section dumped by llvm-objcopy: the same note, decoded
/// the same from its own bytes (spans then count from the section's start).
#[test]
fn the_dumped_section_decodes_like_the_note_in_the_elf() {
    for case in &CASES {
        let (elf, from_elf) = load(case.prog);
        let bin = common::read(&format!("bolt-perf/{0}/{0}.bolt.bat.bin", case.prog));
        let note = bat::find_note(&elf).unwrap().unwrap();
        assert_eq!(&elf[note.span.start as usize..note.span.end as usize], &bin[..], "{}", case.prog);
        let alone = bat::Note::parse(&bin, 0, bin.len() as u64).unwrap();
        assert_eq!((alone.namesz.value, alone.note_type.value, alone.name.value), (5, 1, &b"BOLT\0"[..]));
        let decoded = bat::decode(alone.desc.value).unwrap();
        let shift = note.desc.span.start;
        assert_eq!(decoded.span, bat::Span { start: 0, end: u64::from(alone.descsz.value) });
        let key = |b: &bat::Bat| -> Vec<FunctionKey> {
            b.functions()
                .map(|f| {
                    (
                        f.address.value,
                        f.entries.iter().map(|e| (e.output_offset, e.input, e.block.map(|x| x.hash))).collect(),
                    )
                })
                .collect()
        };
        assert_eq!(key(&decoded), key(&from_elf));
        let first = &from_elf.hot.functions[0];
        assert_eq!(first.address.span.start - shift, decoded.hot.functions[0].address.span.start);
        assert_eq!(first.entries[0].start - shift, decoded.hot.functions[0].entries[0].start);
    }
}

#[test]
fn counts_per_file() {
    // (hot functions, cold fragments, entries, block entries, branch entries)
    let expected = [("cprog", (21, 4, 192, 102, 90)), ("cxxprog", (28, 6, 755, 429, 326))];
    for (prog, counts) in expected {
        let (_, b) = load(prog);
        let entries: usize = b.functions().map(|f| f.entries.len()).sum();
        let blocks: usize = b.functions().map(|f| f.blocks().count()).sum();
        let got = (b.hot.functions.len(), b.cold.functions.len(), entries, blocks, entries - blocks);
        println!("{prog}: {got:?}");
        assert_eq!(got, counts, "{prog}: (hot, cold, entries, blocks, branches)");
        assert!(b.functions().all(|f| f.secondary_entry_points.is_empty()), "no multi-entry functions here");
    }
}

/// `.note.bolt_info`: owner GNU, NT_GNU_GOLD_VERSION, "BOLT revision: <rev>,
/// command line: <argv>" without a NUL (`X.bolt.info.bin` is the section's bytes).
#[test]
fn bolt_info_gives_revision_and_command_line() {
    for case in &CASES {
        let (elf, _) = load(case.prog);
        let info = bat::info_from_elf(&elf).unwrap().unwrap();
        let bin = common::read(&format!("bolt-perf/{0}/{0}.bolt.info.bin", case.prog));
        assert_eq!(&elf[info.note.span.start as usize..info.note.span.end as usize], &bin[..]);
        assert_eq!(info.note.owner(), b"GNU");
        assert_eq!(info.revision, Some(&b"<unknown>"[..]));
        let command = String::from_utf8(info.command_line.unwrap().to_vec()).unwrap();
        let prog = case.prog;
        assert!(command.starts_with(&format!("/usr/lib/llvm-22/bin/llvm-bolt {prog} -o {prog}.bolt ")), "{command}");
        assert!(command.ends_with("--print-finalized --print-output-address-range"), "{command}");
        assert!(command.contains(" --enable-bat "));
    }
}

fn find<'n>(node: &'n pgolens::Node, label: &str) -> Option<&'n pgolens::Node> {
    if node.label == label {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, label))
}

fn count(node: &pgolens::Node, pred: &dyn Fn(&pgolens::Node) -> bool) -> usize {
    usize::from(pred(node)) + node.children.iter().map(|c| count(c, pred)).sum::<usize>()
}

/// The ELF dump shows the BAT tables down to each entry's fields, every byte
/// claimed (no `unparsed` inside the note), and names the encoding.
#[test]
fn dump_shows_every_field_with_its_span() {
    for case in &CASES {
        let (elf, b) = load(case.prog);
        let detection = pgolens::detect(&elf).unwrap();
        let root = pgolens::dump(&elf, &detection).unwrap();
        root.check_tiling().unwrap();
        let section = find(&root, "section .note.bolt_bat").unwrap();
        assert_eq!(count(section, &|n| n.label == pgolens::dump::UNPARSED), 0, "{}", case.prog);
        let tables = find(section, "BAT tables").unwrap();
        assert!(tables.value.as_deref().unwrap().starts_with("current"), "{:?}", tables.value);
        let entries: usize = b.functions().map(|f| f.entries.len()).sum();
        assert_eq!(count(tables, &|n| n.label.starts_with("entry ")), entries);
        let hashes = b.functions().flat_map(|f| f.blocks()).count() + b.hot.functions.len();
        assert_eq!(count(tables, &|n| n.label == "BBHash" || n.label == "FuncHash"), hashes);
        let first = &b.hot.functions[0];
        let node = find(tables, &format!("function {:#x}", first.address.value)).unwrap();
        assert_eq!((node.start, node.end), (first.span.start, first.span.end));
        let labels: Vec<&str> = node.children.iter().map(|c| c.label.as_ref()).collect();
        assert_eq!(
            labels,
            [
                "Address",
                "FuncHash",
                "NumBlocks",
                "NumSecEntryPoints",
                "NumEntries",
                "EqualElems",
                "BranchEntries",
                "entry 0",
                "entry 1"
            ]
        );
        let cold = find(tables, &format!("cold fragment {:#x}", b.cold.functions[0].address.value)).unwrap();
        assert_eq!(cold.children[1].label, "HotIndex");
        assert_eq!(cold.children[2].label, "ColdInputSkew");

        let info = find(&root, "section .note.bolt_info").unwrap();
        let note = bat::find_info(&elf).unwrap().unwrap();
        assert_eq!((info.start, info.end), (note.span.start, note.span.end));
        let labels: Vec<&str> = info.children.iter().map(|c| c.label.as_ref()).collect();
        assert_eq!(labels, ["namesz", "descsz", "type", "name", "description", "descriptor padding"]);
        let description = &info.children[4];
        assert!(description.children.iter().any(|c| c.value.as_deref() == Some("<unknown>")), "{description:?}");
    }
}

// ---------------------------------------------------------------- damaged input

fn descriptor(prog: &str) -> Vec<u8> {
    let bin = common::read(&format!("bolt-perf/{prog}/{prog}.bolt.bat.bin"));
    bat::Note::parse(&bin, 0, bin.len() as u64).unwrap().desc.value.to_vec()
}

/// Every proper prefix of a real descriptor fails, at an offset inside it.
#[test]
fn truncation_at_every_byte_fails_with_an_offset() {
    for prog in ["cprog", "cxxprog"] {
        let desc = descriptor(prog);
        for len in 0..desc.len() {
            let err =
                bat::decode(&desc[..len]).err().unwrap_or_else(|| panic!("{prog}: prefix of {len} bytes decoded"));
            let offset = err.offset().unwrap();
            assert!(offset <= len as u64, "{prog}: prefix {len}: error at {offset:#x}: {err}");
        }
    }
}

/// Every single-bit flip of a real descriptor either decodes or fails at an
/// offset inside it; none panics. Most are caught by the consistency rules.
#[test]
fn bit_flips_never_panic() {
    let desc = descriptor("cprog");
    let (mut failed, mut current, mut older) = (0, 0, 0);
    for i in 0..desc.len() {
        for bit in 0..8 {
            let mut damaged = desc.clone();
            damaged[i] ^= 1 << bit;
            match bat::decode(&damaged) {
                Ok(b) if b.encoding == bat::Encoding::Current => current += 1,
                Ok(_) => older += 1,
                Err(e) => {
                    assert!(e.offset().unwrap() <= desc.len() as u64, "byte {i} bit {bit}: {e}");
                    failed += 1;
                }
            }
        }
    }
    println!("bit flips: {failed} rejected, {current} still current, {older} read as older");
    // Flips inside hashes, and small changes of deltas, still decode.
    assert!(failed > 0 && current > 0, "{failed} {current} {older}");
}

fn uleb(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[test]
fn absurd_counts_fail_before_allocating() {
    let cases: Vec<(Vec<u8>, u64, &str)> = vec![
        // NumFuncs = u64::MAX
        ([0xff; 9].iter().copied().chain([0x01]).collect(), 0, "a count that fits in 32 bits"),
        // NumFuncs = 2^32 - 1 with two bytes left
        (vec![0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0], 0, "a count the remaining bytes can hold"),
    ];
    for (bytes, offset, expected) in cases {
        let err = bat::decode(&bytes).unwrap_err();
        assert_eq!(err.offset(), Some(offset), "{err}");
        assert!(format!("{err}").contains(expected), "{err}");
    }
    // One hot function (current encoding) whose NumEntries is absurd.
    let mut d = vec![1];
    uleb(0x1000, &mut d); // Address
    d.extend(0x1122_3344_5566_7788u64.to_le_bytes()); // FuncHash
    d.extend([1, 0]); // NumBlocks, NumSecEntryPoints
    let at = d.len() as u64;
    uleb(1 << 30, &mut d); // NumEntries
    d.extend([0, 0]);
    let err = bat::decode(&d).unwrap_err();
    assert_eq!(err.offset(), Some(at), "{err}");
}

// ---------------------------------------------------------------- the older encoding

/// A descriptor hand-encoded from the seed's BAT.md (older encoding), one field
/// per line:
///
/// hot table: two functions
///   0x401000: 3 entries, the first 2 with equal offsets
///     0x0 -> 0x0 block, 0x5 -> 0x5 branch (bitmask 0b10), 0x10 -> 0x20 block
///   0x401100: 1 entry, none equal: 0x0 -> 0x8 branch
/// cold table: one fragment of the first function at 0x402000
///   0x0 -> 0x30 block, 0x4 -> 0x2c branch
fn older_descriptor() -> Vec<u8> {
    let mut d = Vec::new();
    uleb(2, &mut d); // hot NumFuncs
    uleb(0x401000, &mut d); // Address: delta from 0
    uleb(3, &mut d); // NumEntries
    uleb(2, &mut d); // EqualElems
    d.push(0b10); // BranchEntries: entry 1 is a branch
    uleb(0, &mut d); // entry 0: OutputAddress delta (0x401000), input implied 0x0 << 1
    uleb(5, &mut d); // entry 1: 0x401005, input implied 0x5 << 1 | 1
    uleb(0xb, &mut d); // entry 2: 0x401010
    d.push(0x35); // InputOffset SLEB delta: 0x20 << 1 - (0x5 << 1 | 1) = 0x40 - 0xb = 0x35
    uleb(0x100 - 0x10, &mut d); // Address 0x401100: continuous from the last entry
    uleb(1, &mut d); // NumEntries
    uleb(0, &mut d); // EqualElems
    uleb(0, &mut d); // entry 0: 0x401100
    d.push(0x11); // InputOffset: 0x8 << 1 | 1 = 0x11
    uleb(1, &mut d); // cold NumFuncs
    uleb(0x402000 - 0x401100, &mut d); // Address 0x402000
    uleb(0, &mut d); // HotIndex delta: function 0
    uleb(2, &mut d); // NumEntries (no EqualElems in cold fragments)
    uleb(0, &mut d); // entry 0: 0x402000
    d.extend([0xe0, 0x00]); // InputOffset: 0x30 << 1 = 0x60 (SLEB 0xe0 0x00)
    uleb(4, &mut d); // entry 1: 0x402004
    d.push(0x79); // InputOffset: 0x2c << 1 | 1 = 0x59; 0x59 - 0x60 = -7 (SLEB 0x79)
    d
}

#[test]
fn the_older_encoding_is_detected_and_decoded() {
    let d = older_descriptor();
    let b = bat::decode(&d).unwrap();
    assert_eq!(b.encoding, bat::Encoding::Older);
    let table = |f: &bat::Function| -> Vec<(u64, u64, bool)> {
        f.entries.iter().map(|e| (e.output_offset, e.input_offset(), e.is_branch())).collect()
    };
    let [f0, f1] = &b.hot.functions[..] else { panic!() };
    assert_eq!(f0.address.value, 0x401000);
    assert_eq!(f0.equal_elems.unwrap().value, 2);
    assert_eq!(table(f0), [(0, 0, false), (5, 5, true), (0x10, 0x20, false)]);
    assert_eq!(f0.entries[0].input_delta, None);
    assert_eq!(f1.address.value, 0x401100);
    assert_eq!(table(f1), [(0, 8, true)]);
    assert!(f0.hash.is_none() && f0.num_blocks.is_none() && f0.entries[0].block.is_none());
    let [c] = &b.cold.functions[..] else { panic!() };
    assert_eq!(c.address.value, 0x402000);
    assert_eq!(b.parent(c).map(|p| p.address.value), Some(0x401000));
    assert!(c.equal_elems.is_none() && c.input_skew.is_none());
    assert_eq!(table(c), [(0, 0x30, false), (4, 0x2c, true)]);
    // Spans: entry 2 of the first function is its output delta and input delta.
    let spans = f0.entries[2].spans();
    assert_eq!((spans.output.len(), spans.input.map(|s| s.len()), spans.hash), (1, Some(1), None));
    // Every proper prefix fails in both encodings.
    for len in 0..d.len() {
        assert!(bat::decode(&d[..len]).is_err(), "prefix {len}");
    }
}

/// The real descriptors do not read as the older encoding, and a descriptor
/// both encodings read the same (empty tables) is taken as the current one.
#[test]
fn detection_prefers_the_encoding_that_reads_everything() {
    for prog in ["cprog", "cxxprog"] {
        assert_eq!(bat::decode(&descriptor(prog)).unwrap().encoding, bat::Encoding::Current);
    }
    assert_eq!(bat::decode(&[0, 0]).unwrap().encoding, bat::Encoding::Current);
    // Trailing bytes after both tables: neither encoding reads everything.
    let mut d = older_descriptor();
    d.push(0);
    assert!(bat::decode(&d).is_err());
}
