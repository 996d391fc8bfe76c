//! Sample profiles in the worker, against the corpus (`tests/corpus/llvm/sample-*`):
//! the function table against `llvm-profdata show --sample` (`.show.txt`), every
//! function's line heat printed back as `show` prints it, the stacks and one
//! function's inline tree, the summary (`.summary.txt`) and the downloads.

use super::tests::{corpus, name_of, session};
use super::*;
use pgolens::formats::gcov::write_v4;
use pgolens_protocol::{Cell, HeatRow, Order, Row};

const BASIC: &str = "llvm/sample-basic/sample-basic";

fn opened(file: &str) -> Session {
    let bytes = corpus(file);
    let mut s = session(file.rsplit('/').next().unwrap(), &bytes);
    s.finish().unwrap();
    s
}

/// Every row of the function table in its default order (total, largest first).
fn all_rows(s: &mut Session) -> TablePage {
    s.table(&TableQuery::new(TableId::SampleFunctions), 0, 1 << 20).unwrap()
}

fn cell<'a>(page: &'a TablePage, row: &'a Row, column: &str) -> &'a Cell {
    let at = page.columns.iter().position(|c| c.id == column).unwrap_or_else(|| panic!("no column {column}"));
    &row.cells[at]
}

fn count(page: &TablePage, row: &Row, column: &str) -> u64 {
    match cell(page, row, column) {
        Cell::Count(n) => *n,
        other => panic!("{column}: {other:?}"),
    }
}

fn raw(page: &TablePage, row: &Row) -> String {
    match cell(page, row, "name") {
        Cell::Name { raw: Some(raw), .. } => raw.clone(),
        other => panic!("{other:?}"),
    }
}

/// `Function: NAME: TOTAL, HEAD, N sampled lines` of a `show` dump: the top-level functions.
fn shown_functions(show: &str) -> Vec<(String, u64, u64, u64)> {
    show.lines()
        .filter_map(|l| l.strip_prefix("Function: "))
        .map(|l| {
            let (name, rest) = l.rsplit_once(": ").unwrap();
            let nums: Vec<u64> =
                rest.trim_end_matches(" sampled lines").split(", ").map(|n| n.parse().unwrap()).collect();
            (name.to_string(), nums[0], nums[1], nums[2])
        })
        .collect()
}

#[test]
fn a_sample_profile_opens_on_its_functions_with_the_numbers_llvm_shows() {
    for file in [".text.prof", ".extbinary.prof", ".binary.prof"] {
        let path = alloc::format!("{BASIC}{file}");
        let mut s = session(&path, &corpus(&path));
        let opened = s.finish().unwrap();
        assert_eq!(
            opened.summary.views,
            [View::Dump, View::SampleFunctions, View::Flame, View::CallTree, View::Functions, View::Summary],
            "{path}"
        );
        assert_eq!(opened.summary.open_on, View::SampleFunctions);
        assert!(opened.summary.views_error.is_none());
        let stacks = opened.summary.stacks.unwrap();
        assert_eq!((stacks.events, stacks.start, stacks.end), (vec![String::from("samples")], 0, 0));

        let page = all_rows(&mut s);
        let show = String::from_utf8(corpus(&alloc::format!("{path}.show.txt"))).unwrap();
        let functions = shown_functions(&show);
        assert_eq!(functions.len(), 7);
        assert_eq!(page.total, 7);
        // Shares are of all top-level totals.
        assert_eq!(page.weight, Some(functions.iter().map(|f| f.1).sum()));
        for (name, total, head, lines) in &functions {
            let row = page.rows.iter().find(|r| raw(&page, r) == *name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(
                (count(&page, row, "total"), count(&page, row, "head"), count(&page, row, "lines")),
                (*total, *head, *lines),
                "{path}: {name}"
            );
        }
        // Largest total first: _Z3fibi's 4181000, demangled, the raw name on hover.
        assert_eq!(
            page.rows[0].cells[0],
            Cell::Name { text: "fib(int)".into(), raw: Some("_Z3fibi".into()), tag: None }
        );
        let run_ops = page.rows.iter().find(|r| raw(&page, r) == "_Z7run_opsi").unwrap();
        // apply and op_add inlined (at line 3, then at 0); one call site with targets.
        assert_eq!((count(&page, run_ops, "inlined"), count(&page, run_ops, "calls")), (2, 1));
        let recursion = page.rows.iter().find(|r| raw(&page, r) == "_Z13run_recursioni").unwrap();
        assert_eq!((count(&page, recursion, "inlined"), count(&page, recursion, "calls")), (3, 1));
    }
}

#[test]
fn the_table_sorts_and_filters_by_name() {
    let mut s = opened(&alloc::format!("{BASIC}.text.prof"));
    let mut q = TableQuery::new(TableId::SampleFunctions);
    q.column = "name".into();
    q.descending = false;
    let page = s.table(&q, 0, 100).unwrap();
    let names: Vec<String> = page.rows.iter().map(|r| name_of(&r.cells[0]).to_string()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    q.filter = "RUN_".into();
    let page = s.table(&q, 0, 100).unwrap();
    assert_eq!((page.matching, page.total), (3, 7));
    for column in ["head", "lines", "inlined", "calls", "total"] {
        q.column = column.into();
        q.filter.clear();
        let page = s.table(&q, 0, 100).unwrap();
        let values: Vec<u64> = page.rows.iter().map(|r| count(&page, r, column)).collect();
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "{column}: {values:?}");
    }
    q.column = "hash".into();
    assert!(s.table(&q, 0, 10).is_err());
}

/// A function's line heat as `llvm-profdata show --sample` prints it: body lines,
/// then inlined callsites, each with its callee's body and callsites.
fn show_text(detail: &SampleFnDetail) -> String {
    let mut out = String::new();
    let head = alloc::format!("Function: {}: {}, {}, ", detail.name.raw, detail.total, detail.head);
    show_level(&detail.rows, 0, &head, "", &mut out);
    out
}

fn loc(r: &HeatRow) -> String {
    if r.discriminator == 0 {
        r.line.to_string()
    } else {
        alloc::format!("{}.{}", r.line, r.discriminator)
    }
}

/// Prints the rows of one level (`rows`: the level's rows and their descendants).
fn show_level(rows: &[HeatRow], depth: u32, head: &str, indent: &str, out: &mut String) {
    let mut level = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        level.push(i);
        i += 1 + if rows[i].callee.is_some() { rows[i].descendants as usize } else { 0 };
    }
    let lines: Vec<&HeatRow> = level.iter().map(|&i| &rows[i]).filter(|r| r.callee.is_none()).collect();
    out.push_str(&alloc::format!("{head}{} sampled lines\n", lines.len()));
    out.push_str(&alloc::format!("{indent}Samples collected in the function's body {{\n"));
    for r in &lines {
        assert_eq!(r.depth, depth);
        out.push_str(&alloc::format!("{indent}  {}: {}", loc(r), r.samples));
        if !r.calls.is_empty() {
            let calls: Vec<String> = r.calls.iter().map(|c| alloc::format!("{}:{}", c.name.raw, c.count)).collect();
            out.push_str(&alloc::format!(", calls: {}", calls.join(" ")));
        }
        out.push('\n');
    }
    out.push_str(&alloc::format!("{indent}}}\n"));
    let inlined: Vec<usize> = level.into_iter().filter(|&i| rows[i].callee.is_some()).collect();
    if inlined.is_empty() {
        out.push_str(&alloc::format!("{indent}No inlined callsites in this function\n"));
        return;
    }
    out.push_str(&alloc::format!("{indent}Samples collected in inlined callsites {{\n"));
    for i in inlined {
        let r = &rows[i];
        let callee = r.callee.as_ref().unwrap();
        let head = alloc::format!("{indent}  {}: inlined callee: {}: {}, 0, ", loc(r), callee.raw, r.samples);
        let below = &rows[i + 1..i + 1 + r.descendants as usize];
        show_level(below, depth + 1, &head, &alloc::format!("{indent}    "), out);
    }
    out.push_str(&alloc::format!("{indent}}}\n"));
}

#[test]
fn every_functions_line_heat_is_what_llvm_shows() {
    for file in [".text.prof", ".extbinary.prof"] {
        let path = alloc::format!("{BASIC}{file}");
        let mut s = opened(&path);
        let page = all_rows(&mut s);
        let show = String::from_utf8(corpus(&alloc::format!("{path}.show.txt"))).unwrap();
        // show.txt lists the functions by total, largest first: the table's default order.
        let mut printed = String::new();
        for row in &page.rows {
            printed.push_str(&show_text(&s.sample_function(row.id).unwrap()));
        }
        assert_eq!(printed, show, "{path}");
    }
    let mut s = opened(&alloc::format!("{BASIC}.text.prof"));
    let page = all_rows(&mut s);
    let run_ops = page.rows.iter().find(|r| raw(&page, r) == "_Z7run_opsi").unwrap().id;
    let d = s.sample_function(run_ops).unwrap();
    assert_eq!((d.total, d.head, d.context.as_deref(), d.md5), (120000, 1, None, None));
    assert_eq!(d.name.demangled.as_deref(), Some("run_ops(int)"));
    // Line 3: 10000 samples with their call targets, then apply inlined there (60000).
    let at3: Vec<&HeatRow> = d.rows.iter().filter(|r| r.depth == 0 && r.line == 3).collect();
    assert_eq!(at3.len(), 2);
    assert_eq!(
        (at3[0].samples, at3[0].calls[0].name.raw.as_str(), at3[0].calls[0].count),
        (10000, "_ZL6op_addll", 6000)
    );
    assert_eq!(at3[1].callee.as_ref().unwrap().raw, "_Z5applyPFlllEll");
    assert_eq!((at3[1].samples, at3[1].descendants), (60000, 3));
    assert!(s.sample_function(99).is_err());
}

#[test]
fn the_stacks_are_the_inline_trees_and_a_function_is_a_root() {
    let mut s = opened(&alloc::format!("{BASIC}.text.prof"));
    let page = all_rows(&mut s);
    let run_ops = page.rows.iter().find(|r| raw(&page, r) == "_Z7run_opsi").unwrap().id;
    // Nothing is built before a graph is asked for.
    assert!(s.decoded.as_ref().unwrap().stacks.is_none());
    let all = SampleFilter::default();
    let flame = s.flame(&all, false, Order::Alphabetical).unwrap();
    let names = s.frame_names().unwrap().names;
    let rects: Vec<(String, u64, u64)> = flame
        .to_quads()
        .chunks(4)
        .map(|r| {
            let name = if r[3] < 0.0 { String::from("all") } else { String::from(names.get(r[3] as usize).unwrap()) };
            (name, r[1] as u64, r[2] as u64)
        })
        .collect();
    // Every body sample once: the summary's "Total count: 170070".
    assert_eq!(rects[0], (String::from("all"), 170070, 0));
    assert!(rects.contains(&(String::from("run_ops(int)"), 58004, 42004)), "{rects:?}");
    // ack inlined in ack inlined in run_recursion.
    assert!(rects.contains(&(String::from("ack(int, int)"), 20400, 11700)), "{rects:?}");
    assert!(rects.contains(&(String::from("ack(int, int)"), 8700, 8700)), "{rects:?}");
    assert!(!rects.iter().any(|r| r.0 == "never_called(int)"), "no samples, no rectangle");

    // One function's inline tree, laid out from the function.
    let rooted = SampleFilter { root: Some(run_ops), ..SampleFilter::default() };
    let flame = s.flame(&rooted, false, Order::Alphabetical).unwrap();
    let rects: Vec<(String, u64, u64)> = flame
        .to_quads()
        .chunks(4)
        .map(|r| (String::from(names.get(r[3] as usize).unwrap()), r[1] as u64, r[2] as u64))
        .collect();
    assert_eq!(
        rects,
        [
            ("run_ops(int)".into(), 58004, 42004),
            ("apply(long (*)(long, long), long, long)".into(), 16000, 10000),
            ("op_add(long, long)".into(), 6000, 6000),
        ]
    );
    assert_eq!(flame.rows.0, [0, 1, 2, 3]);
    // A search inside it: the paths through op_add weigh 6000 of its 58004.
    let found = s.search(&rooted, "op_add").unwrap();
    assert_eq!((found.weight, found.total, found.frames.len()), (6000, 58004, 1));
    // Over the whole profile op_add is also a function of its own (6000 more).
    assert_eq!(s.search(&all, "op_add").unwrap().weight, 12000);
    // The sandwich sees the whole profile.
    let (callers, _) = s.sandwich(&rooted, found.frames[0]).unwrap();
    assert_eq!(callers.to_quads()[1], 12000.0);
    assert!(s.flame(&SampleFilter { root: Some(99), ..SampleFilter::default() }, false, Order::Alphabetical).is_err());
    // The stack functions table: op_add's self samples wherever it is inlined.
    let mut q = TableQuery::new(TableId::StackFunctions);
    q.filter = "op_add".into();
    let fns = s.table(&q, 0, 10).unwrap();
    assert_eq!(fns.rows[0].cells[1..], [Cell::Count(12000), Cell::Count(12000), Cell::Empty]);
}

/// `Total count: N`-style lines of `show --detailed-summary` (a sample profile's).
fn summary_number(text: &str, key: &str) -> u64 {
    let line = text.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("{key}"));
    line.trim().parse().unwrap()
}

#[test]
fn the_summary_is_llvms() {
    for file in [".text.prof", ".extbinary.prof"] {
        let path = alloc::format!("{BASIC}{file}");
        let mut s = opened(&path);
        let text = String::from_utf8(corpus(&alloc::format!("{path}.summary.txt"))).unwrap();
        let (summary, cs) = s.summary().unwrap();
        assert!(cs.is_none());
        assert_eq!(summary.functions, summary_number(&text, "Total functions:"));
        assert_eq!(summary.max_function, summary_number(&text, "Maximum function count:"));
        assert_eq!(summary.max_internal, summary_number(&text, "Maximum internal block count:"));
        assert_eq!(summary.counts, summary_number(&text, "Total number of blocks:"));
        assert_eq!(summary.total, u128::from(summary_number(&text, "Total count:")));
        // "1 blocks (1.82%) with count >= 21892 account for 1% of the total counts."
        let detailed: Vec<(u64, u64)> = text
            .lines()
            .filter(|l| l.contains(" with count >= "))
            .map(|l| {
                let n = l.split(' ').next().unwrap().parse().unwrap();
                let min = l.split(">= ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
                (n, min)
            })
            .collect();
        let ours: Vec<(u64, u64)> = summary.detailed.iter().map(|e| (e.num_counts, e.min_count)).collect();
        assert_eq!(ours, detailed, "{path}");
    }
}

#[test]
fn the_downloads_are_what_the_cli_writes() {
    for file in [".text.prof", ".extbinary.prof"] {
        let path = alloc::format!("{BASIC}{file}");
        let mut s = opened(&path);
        let (name, text) = s.export_sample(SampleExport::Text).unwrap();
        assert_eq!(name, path.rsplit('/').next().unwrap().replace(".prof", ".proftext"));
        assert_eq!(text, corpus(&alloc::format!("{path}.proftext")), "{path}");
        // GCOV v4 as `pgolens export --to gcov4|gcov4-compact|gcov4-text` writes it.
        let profile = pgolens::detect::decode_sample_profile(&corpus(&path)).unwrap();
        let summary = pgolens::model::sample::summary(&profile);
        for (to, encoding, extension) in [
            (SampleExport::Gcov4, write_v4::Encoding::Binary, ".gcov"),
            (SampleExport::Gcov4Compact, write_v4::Encoding::Compact, ".compact.gcov"),
            (SampleExport::Gcov4Text, write_v4::Encoding::Text, ".gcov.txt"),
        ] {
            let mut cli = Vec::new();
            write_v4::write(&profile, &summary, encoding, &mut cli);
            let (name, bytes) = s.export_sample(to).unwrap();
            assert!(name.ends_with(extension), "{name}");
            assert_eq!(bytes, cli, "{path} {to:?}");
        }
    }
}

#[test]
fn cs_and_md5_profiles_show_contexts_and_hashes() {
    let mut s = opened("llvm/sample-cs-lbr/sample-cs-lbr.text.prof");
    let page = all_rows(&mut s);
    assert!(page.columns.iter().any(|c| c.id == "context"));
    let show = String::from_utf8(corpus("llvm/sample-cs-lbr/sample-cs-lbr.text.prof.show.txt")).unwrap();
    let functions = shown_functions(&show);
    assert_eq!(page.total as usize, functions.len());
    // show names CS records by their context, without the brackets.
    for (name, total, head, _) in &functions {
        let row = page
            .rows
            .iter()
            .find(|r| matches!(cell(&page, r, "context"), Cell::Text(c) if c[1..c.len() - 1] == *name))
            .unwrap_or_else(|| panic!("{name}"));
        assert_eq!((count(&page, row, "total"), count(&page, row, "head")), (*total, *head), "{name}");
        assert!(matches!(cell(&page, row, "name"), Cell::Name { tag: Some(t), .. } if t == "CS"));
    }
    let classify = page
        .rows
        .iter()
        .find(|r| matches!(cell(&page, r, "context"), Cell::Text(c) if c.ends_with("@ _ZN3geo8classifyERKNS_5ShapeE]")))
        .unwrap();
    assert_eq!(name_of(cell(&page, classify, "name")), "geo::classify(geo::Shape const&)");
    // The context is searched too.
    let mut q = TableQuery::new(TableId::SampleFunctions);
    q.filter = "main:5 @".into();
    assert_eq!(s.table(&q, 0, 10).unwrap().matching, 2);
    // The stacks start with the context frames: main → run_shapes → classify.
    let flame = s.flame(&SampleFilter::default(), false, Order::Alphabetical).unwrap();
    let names = s.frame_names().unwrap().names;
    let depth3: Vec<&str> = flame
        .to_quads()
        .chunks(4)
        .skip(flame.rows.0[3] as usize)
        .take((flame.rows.0[4] - flame.rows.0[3]) as usize)
        .map(|r| names.get(r[3] as usize).unwrap())
        .collect();
    assert!(depth3.contains(&"geo::classify(geo::Shape const&)"), "{depth3:?}");

    let mut s = opened(&alloc::format!("{BASIC}.extbinary-md5.prof"));
    let page = all_rows(&mut s);
    assert!(page.columns.iter().any(|c| c.id == "md5"));
    let show = String::from_utf8(corpus(&alloc::format!("{BASIC}.extbinary-md5.prof.show.txt"))).unwrap();
    for (name, total, ..) in shown_functions(&show) {
        let row = page.rows.iter().find(|r| raw(&page, r) == name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(count(&page, row, "total"), total);
        assert_eq!(*cell(&page, row, "md5"), Cell::Hex(name.parse().unwrap()));
    }
}

#[test]
fn a_profile_llvm_rejects_shows_its_error_beside_its_dump() {
    let mut bytes = corpus(&alloc::format!("{BASIC}.text.prof"));
    // A body line with no count: LLVM's reader stops there.
    bytes.extend_from_slice(b" 7: x\n");
    let mut s = session("bad.prof", &bytes);
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.views, [View::Dump]);
    let error = opened.summary.views_error.unwrap();
    assert!(matches!(error.location, Some(Location::Line { .. })), "{error:?}");
    assert!(s.table(&TableQuery::new(TableId::SampleFunctions), 0, 10).is_err());
}

#[test]
fn autofdo_and_gcov_v4_open_the_same_views() {
    let mut s = opened("llvm/afdo-progB/afdo-progB.afdo");
    let page = all_rows(&mut s);
    let show = String::from_utf8(corpus("llvm/afdo-progB/afdo-progB.afdo.show.txt")).unwrap();
    for (name, total, head, lines) in shown_functions(&show) {
        let row = page.rows.iter().find(|r| raw(&page, r) == name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(
            (count(&page, row, "total"), count(&page, row, "head"), count(&page, row, "lines")),
            (total, head, lines)
        );
    }
    // A GCOV v4 download opens again with the same functions, heads and lines (v4
    // keeps no totals: a function's total is then what its body and inlinees hold).
    let mut basic = opened(&alloc::format!("{BASIC}.text.prof"));
    let before = all_rows(&mut basic);
    for to in [SampleExport::Gcov4, SampleExport::Gcov4Compact, SampleExport::Gcov4Text] {
        let (name, bytes) = basic.export_sample(to).unwrap();
        let mut v4 = session(&name, &bytes);
        let opened = v4.finish().unwrap();
        assert!(opened.summary.format.starts_with("gcov-v4"), "{}", opened.summary.format);
        assert_eq!(opened.summary.open_on, View::SampleFunctions);
        let after = all_rows(&mut v4);
        let numbers = |p: &TablePage| -> Vec<(String, u64, u64)> {
            let mut v: Vec<_> = p.rows.iter().map(|r| (raw(p, r), count(p, r, "head"), count(p, r, "lines"))).collect();
            v.sort();
            v
        };
        assert_eq!(numbers(&after), numbers(&before), "{to:?}");
    }
}

#[test]
fn a_profile_symbol_list_is_a_table_of_its_own() {
    // crate/tests/data/sample/binary/make.sh: basic with --prof-sym-list of five names.
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../crate/tests/data/sample/binary/basic.symlist.extbinary.prof");
    let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut s = session("basic.symlist.extbinary.prof", &bytes);
    let summary = s.finish().unwrap().summary;
    assert_eq!(summary.views.last(), Some(&View::SampleSymbols));
    let page = s.table(&TableQuery::new(TableId::SampleSymbols), 0, 100).unwrap();
    assert!(!page.query.descending, "names A→Z first");
    let names: Vec<&str> = page.rows.iter().map(|r| name_of(&r.cells[0])).collect();
    assert_eq!(names, ["cold_func()", "internal()", "main", "never_called(int)", "run_shapes(int)"]);
    let mut q = page.query.clone();
    q.filter = "_Z9".into();
    assert_eq!(s.table(&q, 0, 100).unwrap().rows.len(), 1);
    // A profile without a list has no such table.
    let mut basic = opened(&alloc::format!("{BASIC}.extbinary.prof"));
    assert!(basic.table(&TableQuery::new(TableId::SampleSymbols), 0, 10).is_err());
}
