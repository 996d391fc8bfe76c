//! Links: the view written into the URL, and restored from it when the linked
//! files come.

use super::*;

#[test]
fn a_sorted_filtered_table_with_a_selected_row_is_restored_once_its_file_is_dropped() {
    let mut s = profile();
    hashed(&mut s, 1, "0123456789abcdef", 100);
    s.update(Action::Functions(FnMsg::Table(TableMsg::NeedRows { start: 0, end: 30 })));
    let resolved = TableQuery { column: "total".into(), descending: true, ..TableQuery::new(TableId::Functions) };
    s.update(worker(1, Some(1), page(resolved, 1000, 0, 0..128)));
    s.update(Action::Functions(FnMsg::Table(TableMsg::Sort("name".into()))));
    s.update(Action::Functions(FnMsg::Table(TableMsg::Filter("ma in&=#".into()))));
    s.update(Action::Functions(FnMsg::Table(TableMsg::Select(7))));
    let link = s.link();
    assert_eq!(link.fragment(), "file=100.0123456789ab.p&doc=0&tab=functions&sort=name&filter=ma%20in%26%3D%23&row=7");

    // A reload: the link waits for its file, and says which.
    let mut r = State::default();
    r.update(Action::Restore(Params::parse(&link.fragment())));
    let missing = &r.restoring.as_ref().unwrap().missing;
    assert_eq!(missing, &[FileRef { name: "p".into(), size: 100, id: "0123456789ab".into() }]);
    assert_eq!(r.link(), link, "the URL keeps the link while it waits");
    // The same file dropped under another name: decoded, then hashed, then shown as linked.
    r.update(Action::Add { id: 4, name: "renamed".into(), size: 100, demo: false, select: true });
    open(&mut r, 4, summary("instrprof-indexed", &PROFILE_VIEWS, View::Functions), info("file", 0, 100, false), vec![]);
    r.outbox.queue.clear();
    assert!(r.restoring.is_some(), "not restored before the hash is checked");
    hashed(&mut r, 4, "0123456789abcdef", 100);
    assert_eq!(r.restoring, None);
    let doc = r.current_doc().unwrap();
    assert_eq!(doc.tab, View::Functions);
    let q = doc.functions.table.query.clone();
    assert_eq!((q.column.as_str(), q.descending, q.filter.as_str()), ("name", false, "ma in&=#"));
    assert_eq!(doc.functions.table.selected, Some(7));
    let asked = sent(&mut r);
    assert!(asked.contains(&Request::Function { row: 7 }), "{asked:?}");
    assert!(asked.iter().any(|a| matches!(a, Request::Table { query, start: 0, .. } if *query == q)), "{asked:?}");
    // Written back, the link names the file as dropped.
    assert_eq!(r.link().get("sort"), Some("name"));
    assert_eq!(r.link().get("file"), Some("100.0123456789ab.renamed"));
}

#[test]
fn a_file_of_the_linked_name_and_size_but_another_fingerprint_is_not_taken_for_it() {
    let mut s = State::default();
    s.update(Action::Restore(Params::parse("file=100.aaaaaaaaaaaa.p&file=9.bbbbbbbbbbbb.bin&doc=0&tab=summary")));
    s.update(Action::Add { id: 1, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 1, summary("instrprof-indexed", &PROFILE_VIEWS, View::Functions), info("file", 0, 100, false), vec![]);
    hashed(&mut s, 1, "aaaaaaaaaaab0000", 100);
    let restoring = s.restoring.clone().unwrap();
    assert_eq!(restoring.missing.len(), 2);
    assert_eq!(restoring.impostors, ["p"]);
    // The right file, and its binary: restored, on the linked tab of the first.
    s.update(Action::Add { id: 2, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 2, summary("instrprof-indexed", &PROFILE_VIEWS, View::Functions), info("file", 0, 100, false), vec![]);
    hashed(&mut s, 2, "aaaaaaaaaaaa0000", 100);
    assert_eq!(s.restoring.as_ref().unwrap().missing.len(), 1);
    s.update(Action::Add { id: 3, name: "bin".into(), size: 0, demo: false, select: true });
    open(&mut s, 3, summary("elf", &[View::Dump], View::Dump), info("file", 0, 9, false), vec![]);
    hashed(&mut s, 3, "bbbbbbbbbbbb", 9);
    assert_eq!(s.restoring, None);
    assert_eq!(s.current, Some(2));
    assert_eq!(s.current_doc().unwrap().tab, View::Summary);
    // Forgetting a link shows what is open.
    s.update(Action::Restore(Params::parse("file=5.cc.gone")));
    assert!(s.update(Action::ForgetLink));
    assert!(s.link().get("file").is_some_and(|f| f.ends_with(".p")));
}

#[test]
fn the_flame_graphs_zoom_search_direction_and_sandwich_are_restored() {
    let mut s = stacked();
    hashed(&mut s, 1, "feedfacefeedface", 100);
    let layout = |rects: &[f64]| pgolens_protocol::FlameLayout::from_quads(rects, vec![0, 1, 2]);
    let rects = [0.0, 100.0, 0.0, -1.0, 0.0, 60.0, 60.0, 0.0];
    s.update(Action::Flame(FlameMsg::SetEvent(1)));
    s.update(Action::Flame(FlameMsg::ToggleInverted));
    s.update(Action::Flame(FlameMsg::SelectTimeRange(Some((10, 20)))));
    let samples = SampleFilter { event: 1, range: Some((10, 20)), ..SampleFilter::default() };
    s.update(worker(
        1,
        None,
        Reply::Flame { samples: samples.clone(), inverted: true, order: Order::Alphabetical, layout: layout(&rects) },
    ));
    s.update(Action::Flame(FlameMsg::ZoomToRect(1)));
    s.update(Action::Flame(FlameMsg::Search("mem cpy".into())));
    s.update(Action::Flame(FlameMsg::ShowSandwich(Some(3))));
    let link = s.link();
    assert_eq!(
        link.fragment(),
        "file=100.feedfacefeed.p&doc=0&tab=flame&event=1&inverted=1&range=10,20&zoom=0,60,0&frame=1&search=mem%20cpy&sandwich=3"
    );

    let mut r = State::default();
    r.update(Action::Restore(link.clone()));
    r.update(Action::Add { id: 1, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut r, 1, stacks_summary(), info("file", 0, 100, false), vec![]);
    hashed(&mut r, 1, "feedfacefeedface", 100);
    assert_eq!(r.restoring, None);
    let asked = sent(&mut r);
    assert!(
        asked.contains(&Request::Flame { samples: samples.clone(), inverted: true, order: Order::Alphabetical }),
        "{asked:?}"
    );
    assert!(asked.contains(&Request::Search { samples: samples.clone(), pattern: "mem cpy".into() }), "{asked:?}");
    assert!(asked.contains(&Request::Sandwich { samples: samples.clone(), frame: 3 }), "{asked:?}");
    // Until the graph comes, the link keeps the zoom; then the graph is zoomed.
    assert_eq!(r.link(), link);
    r.update(worker(
        1,
        None,
        Reply::Flame { samples, inverted: true, order: Order::Alphabetical, layout: layout(&rects) },
    ));
    let stacks = &r.current_doc().unwrap().stacks;
    assert_eq!((stacks.zoom(), stacks.selected), (Zoom { x0: 0.0, x1: 60.0, top: 0.0 }, Some(1)));
    assert_eq!(r.link(), link);
}

#[test]
fn a_dump_selection_is_asked_for_by_its_path_and_selected_when_it_comes() {
    let mut s = opened();
    hashed(&mut s, 1, "00", 100);
    s.update(worker(1, None, Reply::Children { path: vec![1], nodes: vec![info("b0", 10, 50, false)] }));
    let b0 = s.current_doc().unwrap().dump.tree.find(&[1, 0]).unwrap();
    s.update(Action::Dump(DumpMsg::Select(b0)));
    let link = s.link();
    assert_eq!(link.get("node"), Some("1.0"));

    let mut r = State::default();
    r.update(Action::Restore(link.clone()));
    r.update(Action::Add { id: 1, name: "f".into(), size: 100, demo: false, select: true });
    open(
        &mut r,
        1,
        summary("perf.data", &[View::Dump], View::Dump),
        info("file", 0, 100, true),
        vec![info("a", 0, 10, false), info("b", 10, 100, true)],
    );
    hashed(&mut r, 1, "00", 100);
    assert_eq!(sent(&mut r), [Request::Reveal { path: vec![1, 0] }]);
    assert_eq!(r.link(), link, "kept until revealed");
    let levels = vec![
        vec![info("a", 0, 10, false), info("b", 10, 100, true)],
        vec![info("b0", 10, 50, false), info("b1", 50, 100, false)],
    ];
    r.update(worker(1, Some(1), Reply::Path { offset: 10, path: vec![1, 0], levels }));
    assert_eq!(r.current_doc().unwrap().dump.selection(), Some((10, 50)));
    assert_eq!(r.link(), link);
}

#[test]
fn files_from_a_link_keep_their_url_or_data_in_the_link_written_for_them() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p".into(), size: 0, demo: false, select: true });
    s.update(Action::Source { doc: 1, key: "url".into(), value: "https://ci.example/p?x=1&y".into() });
    s.update(Action::Add { id: 2, name: "bin".into(), size: 5, demo: false, select: false });
    hashed(&mut s, 1, "abcdefabcdefabcd", 7);
    let link = s.link();
    assert_eq!(link.fragment(), "url=https://ci.example/p?x%3D1%26y&file=7.abcdefabcdef.p&file=5..bin&doc=0");
    assert_eq!(Params::parse(&link.fragment()).get("url"), Some("https://ci.example/p?x=1&y"));
    // Inline data is kept only when it stands for every file, in order.
    s.update(Action::Source { doc: 1, key: "data".into(), value: "AAA".into() });
    assert_eq!(s.link().get("data"), None);
    s.update(Action::Source { doc: 2, key: "data".into(), value: "BBB".into() });
    assert_eq!(s.link().all("data").collect::<Vec<_>>(), ["AAA", "BBB"]);
}

#[test]
fn a_links_view_that_a_binary_brings_is_shown_once_the_binary_is_correlated() {
    let restored = |user_moves: bool| {
        let mut s = State::default();
        s.update(Action::Restore(Params::parse("file=100.aa.p.profraw&file=100.bb.p.elf&doc=0&tab=functions&row=3")));
        s.update(Action::Add { id: 1, name: "p.profraw".into(), size: 100, demo: false, select: true });
        let mut raw = summary("instrprof-raw", &[View::Dump], View::Dump);
        raw.views_error = Some(Failure::new("correlated raw profile: … the instrumented binary, which is needed"));
        open(&mut s, 1, raw, info("file", 0, 100, false), vec![]);
        hashed(&mut s, 1, "aa00", 100);
        s.update(Action::Add { id: 2, name: "p.elf".into(), size: 100, demo: false, select: false });
        open(&mut s, 2, summary("elf", &[View::Dump], View::Dump), info("elf", 0, 100, false), vec![]);
        hashed(&mut s, 2, "bb00", 100);
        // Restored before the binary is correlated: no Functions tab yet.
        assert_eq!(s.restoring, None);
        assert_eq!((s.current, s.current_doc().unwrap().tab), (Some(1), View::Dump));
        if user_moves {
            s.update(Action::Dump(DumpMsg::Select(0)));
            s.update(Action::SelectTab(View::Dump));
        }
        let correlate = s.outbox.queue.iter().find(|e| matches!(e.request, Request::Correlate { .. })).unwrap().req;
        s.outbox.queue.clear();
        let views = PROFILE_VIEWS.to_vec();
        s.update(worker(1, Some(correlate), Reply::Correlated { binary: 2, binary_name: "p.elf".into(), views }));
        let tab = s.current_doc().unwrap().tab;
        (tab, sent(&mut s))
    };
    let (tab, asked) = restored(false);
    assert_eq!(tab, View::Functions);
    assert!(asked.contains(&Request::Function { row: 3 }), "{asked:?}");
    // Once the person has moved, the link is theirs no more.
    let (tab, asked) = restored(true);
    assert_eq!(tab, View::Dump);
    assert!(!asked.contains(&Request::Function { row: 3 }), "{asked:?}");
}
