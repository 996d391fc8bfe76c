//! The worker's sessions against the corpus: what each format opens on, its
//! tables and byte views, and the cross-document requests (BOLT profiles in
//! `bolt_tests`).

use super::*;
use pgolens_protocol::{Cell, Order, Transform};

pub(super) fn session(name: &str, bytes: &[u8]) -> Session {
    let mut s = Session::new(name.into(), bytes.len() as u64).unwrap();
    // Two chunks, as a stream would deliver them.
    let (a, b) = bytes.split_at(bytes.len() / 2);
    s.slot(a.len()).unwrap().copy_from_slice(a);
    s.slot(b.len()).unwrap().copy_from_slice(b);
    s
}

/// A file of the repository's corpus, `tests/corpus/`; a missing one fails the test.
pub(super) fn corpus(path: &str) -> Vec<u8> {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(path);
    std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

pub(super) fn query(table: TableId, column: &str, descending: bool, filter: &str) -> TableQuery {
    TableQuery { table, column: column.into(), descending, filter: filter.into(), samples: None }
}

pub(super) fn name_of(cell: &Cell) -> &str {
    match cell {
        Cell::Name { text, .. } => text,
        other => panic!("not a name: {other:?}"),
    }
}

#[test]
fn perf_data_has_stacks_named_by_dropped_binaries_and_kallsyms() {
    let (perf, elf) = (corpus("bolt-perf/cprog/cprog.fp.perf.data"), corpus("bolt-perf/cprog/cprog"));
    let mut p = session("cprog.fp.perf.data", &perf);
    let mut steps = Vec::new();
    let opened = p.finish_with(&mut |done, total| steps.push((done, total))).unwrap();
    // Progress over the records, ending with all of them.
    assert!(steps.len() >= 2 && steps.windows(2).all(|w| w[0].0 <= w[1].0), "{steps:?}");
    assert!(steps.last().is_some_and(|&(done, total)| done == total && total > 0), "{steps:?}");
    assert_eq!(opened.summary.views, [View::Dump, View::Flame, View::CallTree, View::StackChart, View::Functions]);
    // A recording opens on its flame graph.
    assert_eq!(opened.summary.open_on, View::Flame);
    // perf report: "Samples: 469 of event 'cpu-clock'".
    let stacks = opened.summary.stacks.unwrap();
    assert_eq!((stacks.events.as_slice(), stacks.samples), (&[String::from("cpu-clock")][..], 469));
    let names = p.frame_names().unwrap().names;
    assert!(names.iter().any(|n| n == "cprog+0x129d") && !names.iter().any(|n| n == "hot_loop"), "{names:?}");

    let mut e = session("cprog", &elf);
    e.finish().unwrap();
    // cprog.fp.perf.data.script.txt: "ffffffff8158c375 next_uptodate_folio+0x55 ([kernel.kallsyms])".
    let mut k = session("kallsyms", b"ffffffff8158c320 T next_uptodate_folio\nffffffff8158c600 T filemap_map_pages\n");
    let kopened = k.finish().unwrap();
    assert_eq!(kopened.summary.format, "kallsyms");
    p.symbolize_add(&e).unwrap();
    p.symbolize_add(&k).unwrap();
    assert!(p.symbolize_add(&p_clone_text()).is_err());
    let (_, with) = p.symbolize().unwrap();
    assert_eq!(with, ["cprog", "kallsyms"]);
    let all = p.frame_names().unwrap();
    let names = &all.names;
    assert!(names.iter().any(|n| n == "hot_loop") && names.iter().any(|n| n == "next_uptodate_folio"));
    // hot_loop's first instruction, as `llvm-addr2line -e cprog 0x401250` prints it
    // (nm: hot_loop at 0x401250); a C name has no other raw name.
    let hot = names.iter().position(|n| n == "hot_loop").unwrap();
    assert_eq!(
        (all.source.get(hot).unwrap(), all.raw.get(hot).unwrap()),
        ("/tmp/corpusB/work/cprog/src/cmain.c:43", "")
    );
    assert!(!names.iter().any(|n| n == "cprog+0x129d"), "{names:?}");
}

fn p_clone_text() -> Session {
    let mut t = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
    t.finish().unwrap();
    t
}

#[test]
fn text_file_expands_blocks_lazily_and_finds_offsets() {
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&alloc::format!("1 main {i:x} 1 main {:x} 0 {i}\n", i + 1));
    }
    let mut s = session("big.fdata", text.as_bytes());
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.format, "bolt-fdata");
    assert_eq!(opened.summary.open_on, View::BoltFunctions);
    // The first level's blocks are deferred: they have children not built yet.
    assert!(opened.children.iter().any(|c| c.has_children), "{:?}", opened.children);

    let second_line = text.find('\n').unwrap() as u64 + 1;
    let (path, levels) = s.path_to(second_line).unwrap();
    assert_eq!(&path[..2], &[0, 1]);
    assert_eq!(levels.len(), path.len());
    let kids = s.children(&[0]).unwrap();
    assert!(!kids.is_empty() && !kids[0].label.is_empty(), "{kids:?}");
    assert_eq!(s.bytes(0, 4), b"1 ma");
    assert_eq!(s.bytes(u64::MAX - 1, u64::MAX), b"");

    // A link's node, by its path: the same node the offset found, and a path past
    // what the file has stops at the last node that exists.
    let (start, (found, reveal_levels)) = s.reveal(&path).unwrap();
    assert_eq!((found.as_slice(), reveal_levels.len()), (path.as_slice(), path.len()));
    assert_eq!(reveal_levels, levels);
    let innermost = levels.last().unwrap()[*path.last().unwrap() as usize].clone();
    assert_eq!(start, innermost.start);
    assert!(start <= second_line && second_line < innermost.end);
    let (_, (cut, _)) = s.reveal(&[0, 1, u32::MAX, 0]).unwrap();
    assert_eq!(cut, [0, 1]);
}

#[test]
fn errors_are_messages_with_offsets() {
    let random: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut s = session("random.bin", &random);
    let err = s.finish().unwrap_err();
    assert!(err.message.contains("offset"), "{err}");
    assert_eq!(err.location, Some(Location::Offset(0)));
    assert!(s.children(&[]).is_err());
    assert!(s.path_to(0).is_err());
}

#[test]
fn a_compressed_files_errors_say_their_offsets_are_of_its_decompressed_content() {
    let bytes = corpus("llvm/sample-basic/sample-basic.extbinary.prof");
    let cut = &bytes[..bytes.len() / 2];
    let plain = session("cut.extbinary", cut).finish().unwrap_err();
    let gz = session("cut.extbinary.gz", &pgolens::compress::gzip_stored(cut)).finish().unwrap_err();
    let at = plain.message.rfind(" (at offset ").unwrap();
    assert_eq!(gz.message, format!("{} of the decompressed gzip content)", plain.message.trim_end_matches(')')));
    // The page's location stays the hex pane's: an offset of the content it shows.
    assert_eq!(gz.location, plain.location);
    assert!(at > 0 && matches!(plain.location, Some(Location::Offset(_))), "{plain:?}");
}

#[test]
fn a_compressed_files_view_errors_say_their_offsets_are_of_its_decompressed_content() {
    // A correlated raw profile opens on its dump; its function table says why it
    // needs the binary, at an offset of the content the decoder read.
    let raw = corpus("llvm/bincorr-progB/bincorr-progB.profraw");
    let plain = session("bincorr-progB.profraw", &raw).finish().unwrap().summary.views_error.unwrap();
    let gz = session("bincorr-progB.profraw.gz", &pgolens::compress::gzip_stored(&raw)).finish().unwrap();
    let gz = gz.summary.views_error.unwrap();
    assert!(plain.message.ends_with(" (at offset 0x8)"), "{plain:?}");
    assert_eq!(gz.message, format!("{} of the decompressed gzip content)", plain.message.trim_end_matches(')')));
    assert_eq!((gz.location, plain.location), (Some(Location::Offset(8)), Some(Location::Offset(8))));
}

#[test]
fn instrprof_files_offer_the_function_table_summary_and_details() {
    let bytes = corpus("llvm/irpgo-progA/irpgo-progA.profdata");
    let mut s = session("irpgo-progA.profdata", &bytes);
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.views, [View::Dump, View::Functions, View::Summary]);
    assert_eq!(opened.summary.open_on, View::Functions);
    let page = s.table(&TableQuery::new(TableId::Functions), 0, 3).unwrap();
    assert_eq!((page.total, page.matching, page.start, page.rows.len()), (67, 67, 0, 3));
    // The default order, resolved: total, largest first.
    assert_eq!((page.query.column.as_str(), page.query.descending), ("total", true));
    let titles: Vec<&str> = page.columns.iter().map(|c| c.title.as_str()).collect();
    assert_eq!(titles, ["Function", "Hash", "Counters", "Entry", "Max", "Total", "Non-zero"]);
    let filtered = s.table(&query(TableId::Functions, "name", false, "Circle4name"), 0, 100).unwrap();
    assert_eq!(filtered.matching, 1);
    assert_eq!(name_of(&filtered.rows[0].cells[0]), "geo::Circle::name() const");
    let past_end = s.table(&query(TableId::Functions, "hash", false, ""), 1000, 10).unwrap();
    assert_eq!((past_end.start, past_end.rows.len()), (67, 0));
    assert!(s.table(&query(TableId::Functions, "bogus", false, ""), 0, 1).is_err());

    let (summary, cs) = s.summary().unwrap();
    assert_eq!((summary.functions, summary.max_function), (67, 8361));
    assert!(cs.is_none());

    let detail = s.function(0).unwrap();
    assert_eq!(detail.id, 0);
    assert!(!detail.name.is_empty());
    assert!(s.function(67).is_err());
    // A format without a function table says so.
    let mut text = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
    text.finish().unwrap();
    assert!(text.table(&TableQuery::new(TableId::Functions), 0, 1).is_err());
}

#[test]
fn every_table_sorts_by_every_column_it_describes_with_the_cores_ids() {
    let mut s = session("irpgo-progA.profdata", &corpus("llvm/irpgo-progA/irpgo-progA.profdata"));
    s.finish().unwrap();
    let ids: Vec<String> = tables::function_columns().into_iter().map(|c| c.id).collect();
    let core: Vec<&str> = pgolens::model::functions::Column::ALL.iter().map(|c| c.id()).collect();
    assert_eq!(ids, core);
    for id in &ids {
        for descending in [false, true] {
            let page = s.table(&query(TableId::Functions, id, descending, ""), 0, 67).unwrap();
            assert_eq!(page.rows.len(), 67, "{id}");
            assert!(page.rows.iter().all(|r| r.cells.len() == page.columns.len()));
        }
    }
    // Total, descending: the rows' totals do not increase.
    let page = s.table(&query(TableId::Functions, "total", true, ""), 0, 67).unwrap();
    let totals: Vec<u64> = page.rows.iter().map(|r| if let Cell::Count(t) = r.cells[5] { t } else { 0 }).collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");

    let mut m = session("memprof-progA.profdata", &corpus("llvm/memprof-progA/memprof-progA.profdata"));
    m.finish().unwrap();
    let page = m.table(&TableQuery::new(TableId::MemProf), 0, 100).unwrap();
    // Name and record GUID first (not sortable), then the core's metrics.
    assert_eq!(page.columns[1].id, tables::MEMPROF_GUID);
    for c in page.columns.iter().skip(2) {
        let core = pgolens::model::memprof::Column::from_id(&c.id).unwrap();
        assert_eq!(core.id(), c.id);
        for descending in [false, true] {
            let sorted = m.table(&query(TableId::MemProf, &c.id, descending, ""), 0, 100).unwrap();
            assert_eq!(sorted.rows.len(), page.rows.len());
        }
    }
    assert!(!page.columns[0].sortable && !page.columns[1].sortable);
    assert!(page.rows.iter().all(|r| matches!(r.cells[1], Cell::Hex(_))));

    let text = "#pgolens-stacks\nevent cycles\ns 0 0 3 main;a;b@libc.so\ns 0 10 1 main;a\n";
    let mut st = session("x.stacks", text.as_bytes());
    st.finish().unwrap();
    for c in tables::stack_columns() {
        for descending in [false, true] {
            let sorted = st.table(&query(TableId::StackFunctions, &c.id, descending, ""), 0, 10).unwrap();
            assert_eq!(sorted.rows.len(), 3, "{}", c.id);
        }
    }
}

#[test]
fn memprof_profiles_list_their_allocation_sites() {
    for (path, sites) in [
        // One row per MemInfoBlock: llvm-profdata, which symbolizes with the binary,
        // drops the contexts outside it and lists the rest under each inlined function.
        ("llvm/memprof-progA/memprof-progA.profdata", 25),
        ("llvm/memprof-progA/memprof-progA.memprofraw", 16),
    ] {
        let bytes = corpus(path);
        let mut s = session(path, &bytes);
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.views.last(), Some(&View::MemProf), "{path}");
        let page = s.table(&query(TableId::MemProf, "TotalSize", true, ""), 0, 100).unwrap();
        assert_eq!((page.total, page.start, page.rows.len()), (sites, 0, sites as usize));
        let detail = s.memprof_site(0).unwrap();
        assert!(!detail.frames.is_empty());
        assert!(detail.fields.iter().any(|(name, _)| name == "TotalSize"), "{:?}", detail.fields);
        assert!(s.memprof_site(sites as u32).is_err());
        assert!(s.table(&query(TableId::MemProf, "bogus", false, ""), 0, 1).is_err());
    }
    let bytes = corpus("llvm/irpgo-progA/irpgo-progA.profdata");
    let mut s = session("irpgo-progA.profdata", &bytes);
    assert!(!s.finish().unwrap().summary.views.contains(&View::MemProf));
    assert!(s.table(&query(TableId::MemProf, "TotalSize", true, ""), 0, 1).is_err());
}

#[test]
fn a_correlated_raw_profile_is_decoded_with_the_session_of_its_binary() {
    let (raw, elf) =
        (corpus("llvm/bincorr-progB/bincorr-progB.profraw"), corpus("llvm/bincorr-progB/bincorr-progB.elf"));
    let mut s = session("bincorr-progB.profraw", &raw);
    let opened = s.finish().unwrap();
    let error = opened.summary.views_error.unwrap();
    assert!(error.message.contains("binary"), "{error}");
    assert_eq!(opened.summary.views, [View::Dump]);
    assert!(s.table(&TableQuery::new(TableId::Functions), 0, 1).is_err());
    let mut b = session("bincorr-progB.elf", &elf);
    b.finish().unwrap();
    // Not a binary: refused.
    let mut other = session("x.profraw", &raw);
    other.finish().unwrap();
    assert!(s.correlate(2, &other).is_err());
    let views = s.correlate(2, &b).unwrap();
    assert_eq!(views, [View::Dump, View::Functions, View::Summary]);
    assert!(s.table(&TableQuery::new(TableId::Functions), 0, 100).unwrap().total > 0);
    assert!(s.correlate(2, &b).is_err(), "once");
}

#[test]
fn the_call_tree_comes_heaviest_first_under_the_pages_transforms() {
    // main → a → b (3), main → a (1), main → c → b (2); frames main 0, a 1, b 2, c 3;
    // b in libc.so (DSO 0).
    let text = "#pgolens-stacks\nevent cycles\ns 0 0 3 main;a;b@libc.so\ns 0 10 1 main;a\ns 0 20 2 main;c;b@libc.so\n";
    let mut s = session("x.stacks", text.as_bytes());
    s.finish().unwrap();
    let tree = s.call_tree(&SampleFilter::default(), false).unwrap();
    assert_eq!(tree.frame.0, [u32::MAX, 0, 1, 2, 3, 2]);
    assert_eq!(tree.parent.0, [0, 0, 1, 2, 1, 4]);
    assert_eq!(tree.total.0, [6.0, 6.0, 4.0, 3.0, 2.0, 2.0]);
    assert_eq!(tree.self_weight.0, [0.0, 0.0, 1.0, 3.0, 0.0, 2.0]);
    // Merging a hands its weight to main; its b comes first (3 against c's 2).
    let merged = SampleFilter { transforms: alloc::vec![Transform::Merge { frame: 1 }], ..SampleFilter::default() };
    let tree = s.call_tree(&merged, false).unwrap();
    assert_eq!(tree.frame.0, [u32::MAX, 0, 2, 3, 2]);
    assert_eq!(tree.self_weight.0, [0.0, 1.0, 3.0, 0.0, 2.0]);
    // The frame standing for libc.so is named after it and listed with the others.
    let names = s.frame_names().unwrap();
    assert_eq!(names.names.len(), 5);
    assert_eq!(names.names.get(4), Some("libc.so"));
    let collapsed =
        SampleFilter { transforms: alloc::vec![Transform::CollapseDso { dso: 0 }], ..SampleFilter::default() };
    let tree = s.call_tree(&collapsed, true).unwrap();
    assert_eq!((tree.frame.0[1], tree.total.0[1], tree.self_weight.0[1]), (4, 5.0, 5.0));
    // The stack chart, 21 columns over times 0..21: main throughout; a (with b on
    // top, then alone) until the sample at 20 shows main → c → b.
    let chart = s.stack_chart(&SampleFilter::default(), 21).unwrap();
    assert_eq!((chart.start, chart.end, chart.samples), (0, 21, 3));
    assert_eq!(chart.boxes.0, [0, 21, 0, 0, 0, 20, 1, 1, 0, 10, 2, 2, 20, 21, 1, 3, 20, 21, 2, 2]);
    // A transform naming a frame or DSO the file does not have is refused, with which.
    for bad in [Transform::DropFunction { frame: 9 }, Transform::CollapseDso { dso: 3 }] {
        let filter = SampleFilter { transforms: alloc::vec![bad], ..SampleFilter::default() };
        let err = s.call_tree(&filter, false).unwrap_err();
        assert!(err.message == "no frame 9" || err.message == "no DSO 3", "{}", err.message);
        assert!(s.flame(&filter, false, Order::Heaviest).is_err());
    }
}

#[test]
fn synthetic_stacks_offer_the_flame_graph_and_its_functions() {
    let text = "#pgolens-stacks\nevent cycles\ns 0 0 3 main;a;b@libc.so\ns 0 10 1 main;a\ns 0 20 2 main;c;b@libc.so\n";
    let mut s = session("x.stacks", text.as_bytes());
    let opened = s.finish().unwrap();
    assert_eq!(opened.summary.views, [View::Dump, View::Flame, View::CallTree, View::StackChart, View::Functions]);
    assert_eq!(
        opened.summary.stacks,
        Some(StacksInfo {
            events: alloc::vec!["cycles".into()],
            frames: 4,
            samples: 3,
            start: 0,
            end: 21,
            stack_copies: false
        })
    );
    assert_eq!(s.stack_profile().unwrap().sample_count(), 3);
    let all = SampleFilter::default();
    // root; main; a, c; b (under a), b (under c): rows by depth.
    let flame = s.flame(&all, false, Order::Alphabetical).unwrap();
    assert_eq!(flame.len(), 6);
    assert_eq!(flame.rows.0, [0, 1, 2, 4, 6]);
    let rects = &flame.to_quads();
    // [x0, width, self, frame]: a (frame 1) is 4 wide with self 1; c (3) starts at 4.
    assert_eq!(&rects[8..16], &[0.0, 4.0, 1.0, 1.0, 4.0, 2.0, 0.0, 3.0]);
    assert_eq!(&rects[..4], &[0.0, 6.0, 0.0, -1.0]);
    // Rectangle 4 is b under a: its stack from the root.
    assert_eq!(s.flame_stack(crate::stacks::MAIN, 4).unwrap(), ["main", "a", "b"]);
    // A time range: the samples at 10 and 20.
    let range = SampleFilter { range: Some((10, 30)), ..SampleFilter::default() };
    let icicle = s.flame(&range, true, Order::Alphabetical).unwrap();
    assert_eq!(icicle.len(), 6);
    assert_eq!(icicle.to_quads()[1], 3.0);
    let page = s.table(&query(TableId::StackFunctions, "total", true, ""), 0, 10).unwrap();
    assert_eq!((page.total, page.matching, page.weight, page.start), (4, 4, Some(6), 0));
    assert_eq!(page.rows[0].id, 0);
    assert_eq!(name_of(&page.rows[0].cells[0]), "main");
    let b = page.rows.iter().find(|r| r.id == 2).unwrap();
    assert_eq!(
        b.cells,
        [
            Cell::Name { text: "b".into(), raw: None, tag: None },
            Cell::Count(5),
            Cell::Count(5),
            Cell::Text("libc.so".into())
        ]
    );
    // By DSO: the one without (main, a, c by name) first, then libc.so's b.
    let by_dso = s.table(&query(TableId::StackFunctions, "dso", false, ""), 0, 10).unwrap();
    assert_eq!(by_dso.rows.iter().map(|r| r.id).collect::<alloc::vec::Vec<_>>(), [1, 3, 0, 2]);
    let by_name = s.table(&query(TableId::StackFunctions, "name", false, "B"), 0, 10).unwrap();
    assert_eq!(by_name.matching, 1);
    // c, and the frame a collapsed libc.so would show (4), which no stack holds yet.
    assert_eq!(s.search(&all, "c").unwrap(), Found { frames: alloc::vec![3, 4], weight: 2, total: 6 });
    assert_eq!(s.timeline(0, 3).unwrap(), Timeline { event: 0, start: 0, end: 21, bins: alloc::vec![3, 1, 2] });
    let (callers, callees) = s.sandwich(&all, 2).unwrap();
    assert_eq!(callers.rows.0, [0, 1, 2, 4, 6]);
    assert_eq!(callees.rows.0, [0, 1, 2]);
    assert!(s.sandwich(&all, 99).is_err());
    let names = s.frame_names().unwrap();
    assert_eq!(
        names,
        FrameNames {
            // The last stands for all of libc.so (a collapsed DSO).
            names: ["main", "a", "b", "c", "libc.so"].into_iter().collect(),
            dsos: alloc::vec!["libc.so".into()],
            dso: alloc::vec![u32::MAX, u32::MAX, 0, u32::MAX, 0].into(),
            kinds: ["user"; 5].into_iter().collect(),
            raw: [""; 5].into_iter().collect(),
            source: [""; 5].into_iter().collect(),
        }
    );
    // Files without stacks say so.
    let mut text = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
    text.finish().unwrap();
    assert!(text.flame(&all, false, Order::Alphabetical).is_err());
    assert!(text.stack_profile().is_none());
}

#[test]
fn corpus_files_open() {
    for (path, id) in [
        ("llvm/irpgo-progA/irpgo-progA.profraw", "instrprof-raw"),
        ("bolt-perf/cprog/cprog.pipe.perf.data", "perf.data-pipe"),
        ("llvm/sample-basic/sample-basic.text.prof", "sample-text"),
    ] {
        let bytes = corpus(path);
        let mut s = session(path, &bytes);
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.format, id);
        let last = bytes.len() as u64 - 1;
        let (found, _) = s.path_to(last).unwrap();
        assert!(!found.is_empty(), "{path}");
        assert_eq!(s.file_size(), bytes.len() as u64);
    }
}
