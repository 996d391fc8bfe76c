//! The sample-profile view models (`pgolens::model::sample_views`) against the
//! corpus (LLVM text, binary, extbinary, CS, probes, GCC AutoFDO): every top-level
//! function's total, head and sampled lines as
//! `llvm-profdata show --sample` prints them (`.show.txt`), `_Z7run_opsi`'s line
//! heat, and the stacks' weights (every body sample once, each on its inline path).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::panic)]

mod common;

use pgolens::detect::decode_sample_profile;
use pgolens::model::sample_views::{
    inline_tree, line_heat, location_string, shown_name, stack_profile, Column, SampleTable,
};
use pgolens::model::stacks::Filter;

const FILES: [&str; 10] = [
    "llvm/sample-basic/sample-basic.text.prof",
    "llvm/sample-basic/sample-basic.binary.prof",
    "llvm/sample-basic/sample-basic.extbinary.prof",
    "llvm/sample-basic/sample-basic.extbinary-compressed.prof",
    "llvm/sample-basic/sample-basic.extbinary-md5.prof",
    "llvm/sample-basic/sample-basic.extbinary-partial.prof",
    "llvm/sample-cs-lbr/sample-cs-lbr.text.prof",
    "llvm/sample-cs-lbr/sample-cs-lbr.extbinary.prof",
    "llvm/sample-probe-nested/sample-probe-nested.text.prof",
    "llvm/afdo-progB/afdo-progB.afdo",
];

/// The top-level functions of a `show` dump: (name, total, head, sampled lines). A
/// probe-based profile's header breaks after its `CFG checksum N`.
fn shown_functions(show: &str) -> Vec<(String, u64, u64, u64)> {
    let mut out = Vec::new();
    let mut lines = show.lines();
    while let Some(line) = lines.next() {
        let Some(header) = line.strip_prefix("Function: ") else { continue };
        let (name, numbers) = match header.split_once(": CFG checksum ") {
            Some((name, _)) => (name, lines.next().unwrap()),
            None => header.rsplit_once(": ").unwrap(),
        };
        let n: Vec<u64> = numbers.trim_end_matches(" sampled lines").split(", ").map(|n| n.parse().unwrap()).collect();
        out.push((name.to_string(), n[0], n[1], n[2]));
    }
    out
}

#[test]
fn the_table_has_the_numbers_llvm_shows() {
    for file in FILES {
        let profile = decode_sample_profile(&common::read(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut table = SampleTable::new(&profile);
        let show = String::from_utf8(common::read(&format!("{file}.show.txt"))).unwrap();
        let shown = shown_functions(&show);
        assert_eq!(table.len(), shown.len(), "{file}");
        // show lists the functions by total, largest first, as the table's default order does.
        let order = table.sorted(Column::Total, true);
        let mut totals = Vec::new();
        for (id, (name, total, head, lines)) in order.iter().zip(&shown) {
            let row = table.row(*id).unwrap();
            // A CS record is shown by its context, without the brackets.
            let ours = match row.context {
                Some(c) => c[1..c.len() - 1].to_string(),
                None => String::from_utf8_lossy(row.raw).into_owned(),
            };
            totals.push(row.stats.total);
            assert_eq!((row.stats.total, row.stats.head, row.stats.lines), (*total, *head, *lines), "{file} {ours}");
            if shown.iter().filter(|s| s.1 == *total).count() == 1 {
                assert_eq!(&ours, name, "{file}");
            }
        }
        assert_eq!(table.weight(), totals.iter().sum::<u64>());
    }
}

#[test]
fn run_ops_line_heat() {
    let profile = decode_sample_profile(&common::read(FILES[0])).unwrap();
    let names = &profile.names;
    let f = profile.functions.iter().find(|f| names.bytes(f.name).as_ref() == b"_Z7run_opsi").unwrap();
    let rows = line_heat(names, f);
    let own: Vec<(String, u64)> = rows
        .iter()
        .filter(|r| r.depth == 0 && r.callee.is_none())
        .map(|r| (location_string(r.location), r.samples))
        .collect();
    // sample-basic.text.prof.show.txt: "9 sampled lines".
    assert_eq!(
        own,
        [
            ("0", 1),
            ("1", 10001),
            ("1.1", 6000),
            ("1.2", 4001),
            ("2", 10000),
            ("2.3", 800),
            ("2.4", 1200),
            ("3", 10000),
            ("5", 1)
        ]
        .map(|(l, s)| (l.to_string(), s))
    );
    let inlined: Vec<(u32, String, u64, u32)> =
        rows.iter().filter_map(|r| Some((r.depth, shown_name(names, r.callee?), r.samples, r.location.line))).collect();
    assert_eq!(
        inlined,
        [
            (0, "apply(long (*)(long, long), long, long)".to_string(), 60000, 3),
            (1, "op_add(long, long)".to_string(), 6000, 0),
        ]
    );
    let calls: Vec<(String, u64)> =
        rows[7].calls.iter().map(|c| (String::from_utf8_lossy(&names.bytes(c.name)).into_owned(), c.count)).collect();
    assert_eq!(calls[0], ("_ZL6op_addll".to_string(), 6000));
    assert_eq!(calls.iter().map(|c| c.1).collect::<Vec<_>>(), [6000, 2000, 1000, 600, 300, 100]);
}

#[test]
fn the_stacks_hold_every_body_sample_once_on_its_inline_path() {
    for file in FILES {
        let profile = decode_sample_profile(&common::read(file)).unwrap();
        let built = stack_profile(&profile);
        let tree = built.stacks.call_tree(&Filter::default());
        let mut all = 0u64;
        for (i, f) in profile.functions.iter().enumerate() {
            // A function's line heat holds its body samples and its callees'.
            let body: u64 = line_heat(&profile.names, f).iter().filter(|r| r.callee.is_none()).map(|r| r.samples).sum();
            all += body;
            let inline = inline_tree(&profile, i, &built.frames, &built.stacks).unwrap();
            assert_eq!(inline.total(), body, "{file}: function {i}");
            assert_eq!(inline.nodes[0].frame, built.frames.get(f.name).unwrap());
        }
        assert_eq!(tree.total(), all, "{file}");
    }
    // sample-basic: the summary's total count.
    let profile = decode_sample_profile(&common::read(FILES[0])).unwrap();
    assert_eq!(stack_profile(&profile).stacks.call_tree(&Filter::default()).total(), 170070);
}
