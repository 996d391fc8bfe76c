//! The reducer, natively: documents, routing of messages and worker replies to the
//! views, the requests each view queues, and the cross-document rules.

use pgolens_protocol::{
    Cell, CellKind, Column, Envelope, Failure, FnDetail, FrameNames, MemSite, NodeInfo, Opened, Order, Request, Row,
    SampleExport, SampleFilter, StacksInfo, TableId, TablePage, TableQuery,
};

use super::*;
use crate::views::dump::{Children, Key, Msg as DumpMsg};
use crate::views::flame::{FlameData, Msg as FlameMsg, Zoom};
use crate::views::functions::Msg as FnMsg;
use crate::views::sample_functions::Msg as SampleMsg;
use crate::views::table::{Msg as TableMsg, FIRST_PAGE};

fn info(label: &str, start: u64, end: u64, has_children: bool) -> NodeInfo {
    NodeInfo { label: label.into(), value: None, start, end, has_children }
}

fn summary(format: &str, views: &[View], open_on: View) -> FileSummary {
    FileSummary {
        name: "f".into(),
        format: format.into(),
        detection: format.into(),
        version: Some(2),
        size: 100,
        file_size: 100,
        gzip: false,
        views: views.to_vec(),
        open_on,
        views_error: None,
        stacks: None,
        branch_profile: false,
        remark: None,
    }
}

fn worker(doc: DocId, req: Option<ReqId>, reply: Reply) -> Action {
    Action::Worker(Box::new(FromWorker { doc, req, reply }))
}

fn open(s: &mut State, doc: DocId, summary: FileSummary, root: NodeInfo, children: Vec<NodeInfo>) -> bool {
    s.update(worker(doc, None, Reply::Opened(Box::new(Opened { summary, root, children }))))
}

/// A state with one decoded file: root 0..100 with children a 0..10 (leaf) and
/// b 10..100 (children not loaded).
fn opened() -> State {
    let mut s = State::default();
    assert!(s.update(Action::Add { id: 1, name: "f".into(), size: 100, demo: false, select: true }));
    open(
        &mut s,
        1,
        summary("perf.data", &[View::Dump], View::Dump),
        info("file", 0, 100, true),
        vec![info("a", 0, 10, false), info("b", 10, 100, true)],
    );
    s
}

fn labels(s: &State) -> Vec<String> {
    let doc = s.current_doc().unwrap();
    doc.dump.tree.rows.iter().map(|&r| doc.dump.tree.nodes[r].info.label.clone()).collect()
}

fn last(s: &State) -> Envelope {
    s.outbox.queue.last().cloned().unwrap()
}

/// The requests queued, acknowledged as posted.
fn sent(s: &mut State) -> Vec<Request> {
    let out = s.outbox.queue.iter().map(|e| e.request.clone()).collect();
    let last = s.outbox.queue.last().map_or(0, |e| e.req);
    s.update(Action::Posted(last));
    out
}

#[test]
fn progress_reads_then_decodes_counting_steps() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "f".into(), size: 100, demo: false, select: true });
    let progress = |loaded, total, phase| worker(1, None, Reply::Progress { loaded, total, phase });
    s.update(progress(40, 100, ReadPhase::Read));
    assert_eq!(s.current_doc().unwrap().phase, Phase::Reading { loaded: 40, total: 100 });
    s.update(progress(0, 0, ReadPhase::Decode));
    assert_eq!(s.current_doc().unwrap().phase, Phase::Decoding { done: 0, total: 0 });
    s.update(progress(3, 4, ReadPhase::Decode));
    assert_eq!(s.current_doc().unwrap().phase, Phase::Decoding { done: 3, total: 4 });
}

#[test]
fn opening_shows_root_and_first_level() {
    let s = opened();
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.phase, Phase::Ready);
    assert_eq!(labels(&s), ["file", "a", "b"]);
    assert_eq!(doc.dump.selection(), Some((0, 100)));
    assert_eq!(doc.tabs(), [View::Dump]);
}

#[test]
fn expanding_asks_the_worker_once_then_inserts_children() {
    let mut s = opened();
    assert!(s.update(Action::Dump(DumpMsg::Toggle(2))));
    let e = last(&s);
    assert_eq!((e.doc, e.request.clone()), (1, Request::Children { path: vec![1] }));
    // A second click while loading does nothing.
    assert!(!s.update(Action::Dump(DumpMsg::Toggle(2))));
    assert_eq!(s.outbox.queue.len(), 1);
    assert!(s.update(Action::Posted(e.req)));
    assert!(s.outbox.queue.is_empty());

    s.update(worker(
        1,
        Some(e.req),
        Reply::Children { path: vec![1], nodes: vec![info("b0", 10, 50, false), info("b1", 50, 100, false)] },
    ));
    assert_eq!(labels(&s), ["file", "a", "b", "b0", "b1"]);
    assert_eq!(s.current_doc().unwrap().dump.tree.path(4), [1, 1]);

    // Collapsing needs no request.
    assert!(s.update(Action::Dump(DumpMsg::Toggle(2))));
    assert_eq!(labels(&s), ["file", "a", "b"]);
    assert!(s.outbox.queue.is_empty());
}

#[test]
fn selecting_a_node_selects_its_bytes_and_scrolls_the_hex_pane() {
    let mut s = opened();
    let focus = s.current_doc().unwrap().dump.hex_focus;
    assert!(s.update(Action::Dump(DumpMsg::Select(1))));
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.dump.selection(), Some((0, 10)));
    assert_eq!(doc.dump.hex_focus, focus + 1);
    assert!(!s.update(Action::Dump(DumpMsg::Select(99))));
}

#[test]
fn revealing_an_offset_expands_the_path_and_selects_the_innermost_node() {
    let mut s = opened();
    assert!(s.update(Action::Dump(DumpMsg::Reveal(60))));
    assert_eq!(last(&s).request, Request::PathTo { offset: 60 });
    assert!(!s.update(Action::Dump(DumpMsg::Reveal(100))), "past the end");
    s.update(worker(
        1,
        Some(last(&s).req),
        Reply::Path {
            offset: 60,
            path: vec![1, 1],
            levels: vec![
                vec![info("a", 0, 10, false), info("b", 10, 100, true)],
                vec![info("b0", 10, 50, false), info("b1", 50, 100, false)],
            ],
        },
    ));
    let doc = s.current_doc().unwrap();
    assert_eq!(labels(&s), ["file", "a", "b", "b0", "b1"]);
    assert_eq!(doc.dump.selection(), Some((50, 100)));
    assert_eq!(doc.dump.tree_focus, 1);
}

#[test]
fn hex_bytes_are_asked_for_with_a_margin_and_cached() {
    let mut s = opened();
    assert!(s.update(Action::Dump(DumpMsg::NeedBytes { start: 16, end: 64 })));
    assert_eq!(last(&s).request, Request::Bytes { start: 0, end: 100 });
    // Already asked for: no second request.
    assert!(!s.update(Action::Dump(DumpMsg::NeedBytes { start: 32, end: 48 })));
    s.update(worker(1, Some(1), Reply::Bytes { start: 0, bytes: (0..100).collect::<Vec<u8>>().into() }));
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.dump.hex.byte(42), Some(42));
    assert_eq!(doc.dump.hex.pending, None);
    assert!(!s.update(Action::Dump(DumpMsg::NeedBytes { start: 0, end: 100 })));
}

#[test]
fn a_dump_that_came_without_its_first_level_opens_it_when_shown() {
    // A recording decoded as it streamed in: its root only, the worker reads the
    // file when the dump is first shown.
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "r.perf.data".into(), size: 100, demo: false, select: true });
    open(
        &mut s,
        1,
        summary("perf.data", &[View::Dump, View::Flame], View::Flame),
        info("perf.data", 0, 100, true),
        vec![],
    );
    sent(&mut s);
    assert_eq!(labels(&s), ["perf.data"]);
    assert!(s.update(Action::Dump(DumpMsg::NeedBytes { start: 0, end: 64 })));
    assert_eq!(sent(&mut s), [Request::Children { path: vec![] }, Request::Bytes { start: 0, end: 100 }]);
    s.update(worker(
        1,
        Some(1),
        Reply::Children { path: vec![], nodes: vec![info("perf_file_header", 0, 100, false)] },
    ));
    assert_eq!(labels(&s), ["perf.data", "perf_file_header"]);
    // Shown again, nothing more is asked for.
    assert!(!s.update(Action::Dump(DumpMsg::NeedBytes { start: 0, end: 64 })));
    assert!(s.outbox.queue.is_empty());
}

#[test]
fn failures_are_kept_per_file_and_the_next_file_works() {
    let mut s = opened();
    s.update(Action::Add { id: 2, name: "bad".into(), size: 10, demo: false, select: true });
    s.update(worker(2, None, Reply::Failed(Failure::new("not a known profile format (at offset 0x0)"))));
    assert!(matches!(s.current_doc().unwrap().phase, Phase::Failed(ref m) if m.contains("offset")));
    s.update(Action::Add { id: 3, name: "good".into(), size: 100, demo: false, select: true });
    open(&mut s, 3, summary("bolt-fdata", &[View::Dump], View::Dump), info("r", 0, 100, false), vec![]);
    assert_eq!(s.current_doc().unwrap().summary.as_ref().unwrap().format, "bolt-fdata");
    assert!(s.update(Action::Select(1)));
    assert_eq!(s.current_doc().unwrap().summary.as_ref().unwrap().format, "perf.data");
    // A file the page could not even hand to the worker.
    s.update(Action::Add { id: 4, name: "gone".into(), size: 10, demo: false, select: true });
    s.update(Action::OpenFailed { doc: 4, message: "could not hand the file to the worker".into() });
    assert!(matches!(s.current_doc().unwrap().phase, Phase::Failed(_)));
}

#[test]
fn a_failed_expansion_can_be_retried() {
    let mut s = opened();
    s.update(Action::Dump(DumpMsg::Toggle(2)));
    let req = s.outbox.queue[0].req;
    s.update(worker(1, Some(req), Reply::Failed(Failure::new("bad record (at offset 0x10)"))));
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.dump.tree.nodes[2].children, Children::Unloaded);
    assert!(doc.notice.is_some());
    assert!(s.update(Action::Dump(DumpMsg::Toggle(2))));
}

#[test]
fn keys_move_through_rows() {
    let mut s = opened();
    assert!(s.update(Action::Dump(DumpMsg::Key(Key::Down))));
    assert_eq!(s.current_doc().unwrap().dump.selected, Some(1));
    assert!(s.update(Action::Dump(DumpMsg::Key(Key::End))));
    assert_eq!(s.current_doc().unwrap().dump.selected, Some(2));
    assert!(s.update(Action::Dump(DumpMsg::Key(Key::Right))), "loads the children");
    assert!(matches!(last(&s).request, Request::Children { .. }));
    assert!(s.update(Action::Dump(DumpMsg::Key(Key::Home))));
    assert!(s.update(Action::Dump(DumpMsg::Key(Key::Left))), "collapses the root");
    assert_eq!(labels(&s), ["file"]);
}

const PROFILE_VIEWS: [View; 3] = [View::Dump, View::Functions, View::Summary];

/// An indexed profile, opened on its Functions view.
fn profile() -> State {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 1, summary("instrprof-indexed", &PROFILE_VIEWS, View::Functions), info("file", 0, 100, false), vec![]);
    s
}

fn col(id: &str, kind: CellKind, descending_first: bool) -> Column {
    Column { id: id.into(), title: id.into(), kind, descending_first, share: false, sortable: true, help: None }
}

fn page(query: TableQuery, total: u64, start: u64, ids: std::ops::Range<u32>) -> Reply {
    Reply::Table(TablePage {
        query,
        columns: vec![col("name", CellKind::Name, false), col("total", CellKind::Count, true)],
        total,
        matching: total,
        weight: None,
        start,
        rows: ids.map(|id| Row { id, cells: vec![Cell::Text(format!("f{id}")), Cell::Count(id.into())] }).collect(),
    })
}

#[test]
fn a_profile_opens_on_its_functions_and_pages_rows_dropping_stale_replies() {
    let mut s = profile();
    assert_eq!(s.current_doc().unwrap().tabs(), PROFILE_VIEWS);
    assert_eq!(s.current_doc().unwrap().tab, View::Functions);
    // Opening on Functions asked for the first page, in the table's default order.
    let Request::Table { query, start: 0, count } = last(&s).request else { panic!("{:?}", s.outbox) };
    assert_eq!(query, TableQuery::new(TableId::Functions));
    assert!(count >= FIRST_PAGE);
    // Asked already: no second request for the same rows.
    assert!(!s.update(Action::Functions(FnMsg::Table(TableMsg::NeedRows { start: 0, end: 30 }))));
    let resolved = TableQuery { column: "total".into(), ..query.clone() };
    assert!(s.update(worker(1, Some(1), page(resolved.clone(), 1000, 0, 0..128))));
    let f = &s.current_doc().unwrap().functions.table;
    assert_eq!(f.row(5).unwrap().id, 5);
    assert!(!s.update(Action::Functions(FnMsg::Table(TableMsg::NeedRows { start: 10, end: 40 }))), "held");
    assert!(s.update(Action::Functions(FnMsg::Table(TableMsg::NeedRows { start: 500, end: 530 }))));
    assert!(matches!(last(&s).request, Request::Table { start: 436, count: 158, .. }));

    // Sorting by name: ascending first, then reversed; the old page goes.
    assert!(s.update(Action::Functions(FnMsg::Table(TableMsg::Sort("name".into())))));
    let q = s.current_doc().unwrap().functions.table.query.clone();
    assert_eq!((q.column.as_str(), q.descending), ("name", false));
    assert!(s.current_doc().unwrap().functions.table.rows.is_empty());
    // The reply to the total-sorted query is stale now.
    assert!(!s.update(worker(1, Some(2), page(resolved, 1000, 436, 0..3))));
    s.update(Action::Functions(FnMsg::Table(TableMsg::Sort("name".into()))));
    assert!(s.current_doc().unwrap().functions.table.query.descending);

    assert!(s.update(Action::Functions(FnMsg::Table(TableMsg::Filter("main".into())))));
    assert!(!s.update(Action::Functions(FnMsg::Table(TableMsg::Filter("main".into())))));
    assert!(
        matches!(last(&s).request, Request::Table { query: TableQuery { ref filter, .. }, start: 0, .. } if filter == "main")
    );
}

#[test]
fn selecting_a_function_asks_for_its_detail_and_the_summary_once() {
    let mut s = profile();
    assert!(s.update(Action::Functions(FnMsg::Table(TableMsg::Select(7)))));
    assert_eq!(last(&s).request, Request::Function { row: 7 });
    assert!(!s.update(worker(1, None, Reply::Function(Box::new(FnDetail { id: 3, ..FnDetail::default() })))));
    assert!(s.update(worker(
        1,
        None,
        Reply::Function(Box::new(FnDetail { id: 7, counters: vec![1, 2], ..FnDetail::default() }))
    )));
    assert_eq!(s.current_doc().unwrap().functions.detail.as_ref().unwrap().counters, [1, 2]);
    s.update(Action::SelectTab(View::Summary));
    s.update(Action::SelectTab(View::Dump));
    s.update(Action::SelectTab(View::Summary));
    assert_eq!(s.outbox.queue.iter().filter(|e| e.request == Request::Summary).count(), 1);
    // A format without the table asks for nothing.
    let mut t = opened();
    assert!(!t.update(Action::SelectTab(View::Functions)));
    assert!(t.outbox.queue.is_empty());
}

#[test]
fn the_memprof_tab_pages_sites_sorts_and_asks_for_a_site() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "m".into(), size: 100, demo: false, select: true });
    let views = [View::Dump, View::MemProf];
    open(&mut s, 1, summary("memprof-raw", &views, View::Dump), info("file", 0, 100, false), vec![]);
    assert_eq!(s.current_doc().unwrap().tabs(), views);
    assert!(s.update(Action::SelectTab(View::MemProf)));
    let Request::Table { query, start: 0, .. } = last(&s).request else { panic!("{:?}", s.outbox) };
    assert_eq!(query.table, TableId::MemProf);
    assert!(!s.update(Action::MemProf(TableMsg::NeedRows { start: 0, end: 10 })), "asked already");
    let resolved = TableQuery { column: "TotalSize".into(), ..query };
    let sites = |q: TableQuery| {
        Reply::Table(TablePage {
            query: q,
            columns: vec![col("name", CellKind::Name, false), col("TotalSize", CellKind::Count, true)],
            total: 2,
            matching: 2,
            weight: None,
            start: 0,
            rows: vec![Row { id: 1, cells: vec![] }, Row { id: 0, cells: vec![] }],
        })
    };
    s.update(worker(1, Some(1), sites(resolved.clone())));
    assert_eq!(s.current_doc().unwrap().memprof.table.row(0).unwrap().id, 1);
    assert!(!s.update(Action::MemProf(TableMsg::NeedRows { start: 0, end: 30 })), "all held");
    // Sorting by the same column reverses; a reply to the old order is dropped.
    assert!(s.update(Action::MemProf(TableMsg::Sort("TotalSize".into()))));
    assert!(!s.current_doc().unwrap().memprof.table.query.descending);
    assert!(!s.update(worker(1, Some(2), sites(resolved))));
    assert!(s.update(Action::MemProf(TableMsg::Select(1))));
    assert_eq!(last(&s).request, Request::MemProfSite { site: 1 });
    assert!(!s.update(worker(1, None, Reply::MemProfSite(Box::new(MemSite { id: 0, ..MemSite::default() })))));
    assert!(s.update(worker(1, None, Reply::MemProfSite(Box::new(MemSite { id: 1, ..MemSite::default() })))));
    // A profile without MemProf asks for nothing.
    let mut t = profile();
    sent(&mut t);
    assert!(!t.update(Action::SelectTab(View::MemProf)));
    assert!(t.outbox.queue.is_empty());
}

#[test]
fn a_correlated_raw_profile_is_offered_the_elf_dropped_with_or_after_it() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p.profraw".into(), size: 100, demo: false, select: true });
    let mut raw = summary("instrprof-raw", &[View::Dump], View::Dump);
    raw.views_error = Some(Failure::new("correlated raw profile: … the instrumented binary, which is needed"));
    open(&mut s, 1, raw, info("file", 0, 100, false), vec![]);
    assert!(s.outbox.queue.is_empty(), "no binary yet");
    s.update(Action::Add { id: 2, name: "p.elf".into(), size: 100, demo: false, select: false });
    open(&mut s, 2, summary("elf", &[View::Dump], View::Dump), info("elf", 0, 100, false), vec![]);
    let e = last(&s);
    assert_eq!((e.doc, e.request), (1, Request::Correlate { binary: 2 }));
    // Offered once: another file opening asks nothing more.
    s.update(Action::Add { id: 3, name: "x".into(), size: 1, demo: false, select: false });
    open(&mut s, 3, summary("instrprof-indexed", &[View::Dump], View::Dump), info("r", 0, 1, false), vec![]);
    assert_eq!(s.outbox.queue.iter().filter(|e| matches!(e.request, Request::Correlate { .. })).count(), 1);
    assert!(s.update(worker(
        1,
        Some(e.req),
        Reply::Correlated { binary: 2, binary_name: "p.elf".into(), views: PROFILE_VIEWS.to_vec() }
    )));
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.tabs(), PROFILE_VIEWS);
    assert_eq!(doc.correlated_with.as_deref(), Some("p.elf"));
    assert!(!doc.summary.as_ref().unwrap().needs_binary());
}

#[test]
fn closing_a_file_selects_a_neighbour_and_frees_the_session() {
    let mut s = opened();
    s.update(Action::Add { id: 2, name: "g".into(), size: 1, demo: false, select: true });
    assert!(s.update(Action::Close(2)));
    assert_eq!(s.current, Some(1));
    let e = last(&s);
    assert_eq!((e.doc, e.request), (2, Request::Close));
    assert!(s.update(Action::Close(1)));
    assert_eq!(s.current, None);
    // The worker may still answer for a file that is gone: nothing changes.
    assert!(!s.update(worker(1, None, Reply::Progress { loaded: 1, total: 2, phase: ReadPhase::Read })));
    assert!(!open(&mut s, 2, summary("instrprof-raw", &[View::Dump], View::Dump), info("root", 0, 1, false), vec![]));
    assert!(s.docs.is_empty());
}

const STACK_VIEWS: [View; 3] = [View::Dump, View::Flame, View::Functions];

fn stacks_summary() -> FileSummary {
    let mut sum = summary("perf.data", &STACK_VIEWS, View::Flame);
    sum.stacks =
        Some(StacksInfo { events: vec!["cycles".into(), "instructions".into()], end: 100, ..StacksInfo::default() });
    sum
}

/// A recording with two events, opened (on its flame graph).
fn stacked() -> State {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 1, stacks_summary(), info("file", 0, 100, false), vec![]);
    s
}

#[test]
fn a_recording_opens_on_its_flame_graph_which_asks_for_its_views_and_refilters_them() {
    let mut s = stacked();
    assert_eq!(s.current_doc().unwrap().tab, View::Flame);
    let all = SampleFilter::default();
    let asked = sent(&mut s);
    assert!(asked.contains(&Request::FrameNames), "{asked:?}");
    assert!(
        asked.contains(&Request::Flame { samples: all.clone(), inverted: false, order: Order::Alphabetical }),
        "{asked:?}"
    );
    assert!(asked.iter().any(|r| matches!(r, Request::Timeline { event: 0, .. })), "{asked:?}");
    // The graph comes; zooms are clamped to it.
    let layout = |rects: &[f64]| pgolens_protocol::FlameLayout::from_quads(rects, vec![0, 1, 2]);
    let rects = [0.0, 100.0, 0.0, -1.0, 0.0, 60.0, 60.0, 0.0];
    // A reply to another filter is dropped.
    let other = SampleFilter { event: 1, range: None, ..SampleFilter::default() };
    assert!(!s.update(worker(
        1,
        None,
        Reply::Flame { samples: other, inverted: false, order: Order::Alphabetical, layout: layout(&rects) }
    )));
    assert!(s.update(worker(
        1,
        None,
        Reply::Flame { samples: all.clone(), inverted: false, order: Order::Alphabetical, layout: layout(&rects) }
    )));
    assert_eq!(
        *s.current_doc().unwrap().stacks.flame.as_deref().unwrap(),
        FlameData::from_arrays(&rects, vec![0, 1, 2])
    );
    assert_eq!(s.current_doc().unwrap().stacks.zoom(), Zoom { x0: 0.0, x1: 100.0, top: 0.0 });
    let mut s2 = s.clone();
    s2.update(Action::Flame(FlameMsg::SetZoom(Zoom { x0: -50.0, x1: 10.0, top: 7.0 })));
    assert_eq!(s2.current_doc().unwrap().stacks.zoom(), Zoom { x0: 0.0, x1: 60.0, top: 1.0 });
    s2.update(Action::Flame(FlameMsg::ZoomToRect(1)));
    assert_eq!(
        (s2.current_doc().unwrap().stacks.zoom().x1, s2.current_doc().unwrap().stacks.selected),
        (60.0, Some(1))
    );
    assert!(s2.update(Action::Flame(FlameMsg::ResetZoom)));
    assert_eq!(s2.current_doc().unwrap().stacks.zoom, None);
    // A time range asks for the graph and the functions again; a search for its result.
    s.update(Action::Flame(FlameMsg::SelectTimeRange(Some((10, 20)))));
    let ranged = SampleFilter { event: 0, range: Some((10, 20)), ..SampleFilter::default() };
    let asked = sent(&mut s);
    assert!(asked.iter().any(|r| matches!(r, Request::Flame { samples, .. } if *samples == ranged)), "{asked:?}");
    assert!(asked.iter().any(
        |r| matches!(r, Request::Table { query, .. } if query.table == TableId::StackFunctions && query.samples == Some(ranged.clone()))
    ));
    s.update(Action::Flame(FlameMsg::Search("mem".into())));
    let asked = sent(&mut s);
    assert!(matches!(&asked[..], [Request::Search { pattern, .. }] if pattern == "mem"), "{asked:?}");
    s.update(Action::Flame(FlameMsg::ToggleInverted));
    assert!(sent(&mut s).iter().any(|r| matches!(r, Request::Flame { inverted: true, .. })));
    s.update(Action::Flame(FlameMsg::ShowSandwich(Some(3))));
    assert!(sent(&mut s).iter().any(|r| matches!(r, Request::Sandwich { frame: 3, .. })));
    assert!(!s.update(Action::Flame(FlameMsg::SetEvent(5))), "no such event");
    assert!(s.update(Action::Flame(FlameMsg::SetEvent(1))));
}

#[test]
fn a_sandwich_asked_from_the_functions_table_shows_the_flame_graph() {
    let mut s = stacked();
    s.update(Action::SelectTab(View::Functions));
    sent(&mut s);
    assert!(s.update(Action::Flame(FlameMsg::ShowSandwich(Some(2)))));
    assert_eq!(s.current_doc().unwrap().tab, View::Flame);
}

#[test]
fn the_view_chosen_for_a_format_is_kept_for_the_next_file_of_that_format() {
    let mut s = stacked();
    assert!(s.update(Action::SelectTab(View::Functions)));
    // A second recording opens on the view chosen for the first, not on its flame graph.
    s.update(Action::Add { id: 2, name: "q".into(), size: 100, demo: false, select: true });
    open(&mut s, 2, stacks_summary(), info("file", 0, 100, false), vec![]);
    assert_eq!(s.current_doc().unwrap().tab, View::Functions);
    // A profile of another format opens on its own most useful view.
    s.update(Action::Add { id: 3, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 3, summary("instrprof-raw", &PROFILE_VIEWS, View::Functions), info("f", 0, 100, false), vec![]);
    assert_eq!(s.current_doc().unwrap().tab, View::Functions);
    s.update(Action::SelectTab(View::Summary));
    // Going back to the first recording after choosing the flame graph on the second.
    s.update(Action::Select(2));
    s.update(Action::SelectTab(View::Flame));
    s.update(Action::Select(1));
    assert_eq!(s.current_doc().unwrap().tab, View::Flame);
    // A view the file does not offer is not forced on it.
    s.update(Action::Add { id: 4, name: "r".into(), size: 100, demo: false, select: true });
    open(&mut s, 4, summary("instrprof-raw", &[View::Dump], View::Dump), info("f", 0, 100, false), vec![]);
    assert_eq!(s.current_doc().unwrap().tab, View::Dump);
}

#[test]
fn a_binary_dropped_for_a_recording_keeps_the_recording_on_screen_and_names_its_frames() {
    let mut s = stacked();
    sent(&mut s);
    // The binary is dropped alone: it is shown while it is read...
    s.update(Action::Add { id: 2, name: "cprog".into(), size: 100, demo: false, select: true });
    assert_eq!(s.current, Some(2));
    // ...and once it is known to be a binary, the recording comes back, symbolized.
    open(&mut s, 2, summary("elf", &[View::Dump], View::Dump), info("elf", 0, 100, false), vec![]);
    assert_eq!(s.current, Some(1));
    assert_eq!(s.current_doc().unwrap().tab, View::Flame);
    assert!(sent(&mut s).contains(&Request::Symbolize { binaries: vec![2] }));
    // A kallsyms file likewise.
    s.update(Action::Add { id: 3, name: "kallsyms".into(), size: 100, demo: false, select: true });
    open(&mut s, 3, summary("kallsyms", &[View::Dump], View::Dump), info("k", 0, 100, false), vec![]);
    assert_eq!(s.current, Some(1));
    assert!(sent(&mut s).contains(&Request::Symbolize { binaries: vec![2, 3] }));
    // The stacks come back renamed: the graph is asked for again, the table keeps its order.
    s.update(Action::StackFunctions(TableMsg::Sort("name".into())));
    let with = vec!["cprog".into(), "kallsyms".into()];
    s.update(worker(1, Some(9), Reply::Symbolized { stacks: StacksInfo::default(), with }));
    let asked = sent(&mut s);
    assert!(asked.contains(&Request::FrameNames), "{asked:?}");
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.stacks.symbolized_with, ["cprog", "kallsyms"]);
    // A file of another kind dropped over the recording is shown.
    s.update(Action::Add { id: 4, name: "x.fdata".into(), size: 1, demo: false, select: true });
    open(&mut s, 4, summary("bolt-fdata", &[View::Dump], View::Dump), info("r", 0, 1, false), vec![]);
    assert_eq!(s.current, Some(4));
}

#[test]
fn a_bolt_profile_is_offered_the_elf_and_its_graph_is_asked_again_with_the_code() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p.fdata".into(), size: 100, demo: false, select: true });
    let fdata = summary("bolt-fdata", &[View::Dump, View::BoltFunctions], View::BoltFunctions);
    open(&mut s, 1, fdata, info("file", 0, 100, false), vec![]);
    s.update(Action::Add { id: 2, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 2, summary("elf", &[View::Dump], View::Dump), info("elf", 0, 100, false), vec![]);
    // The profile is offered the binary, and keeps the screen.
    let e = s.outbox.queue.iter().find(|e| matches!(e.request, Request::Correlate { .. })).unwrap().clone();
    assert_eq!((e.doc, e.request), (1, Request::Correlate { binary: 2 }));
    assert_eq!(s.current, Some(1));
    let views = vec![View::Dump, View::BoltFunctions, View::BoltCfg];
    s.update(worker(1, Some(e.req), Reply::Correlated { binary: 2, binary_name: "p".into(), views: views.clone() }));
    assert_eq!(s.current_doc().unwrap().tabs(), views);
    // A row opens its graph; the worker's graph is shown.
    assert!(s.update(Action::BoltFunctions(TableMsg::Select(4))));
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.tab, View::BoltCfg);
    assert_eq!(last(&s).request, Request::BoltCfg { function: Some(4) });
    let req = last(&s).req;
    let graph = pgolens_protocol::CfgGraph { function: 4, name: "f".into(), ..Default::default() };
    assert!(s.update(worker(1, Some(req), Reply::BoltCfg(Box::new(graph)))));
    assert_eq!(s.current_doc().unwrap().bolt_cfg.graph.as_ref().unwrap().name, "f");
    // A second ELF is not offered: the profile has its binary.
    s.update(Action::Add { id: 3, name: "q".into(), size: 100, demo: false, select: false });
    open(&mut s, 3, summary("elf", &[View::Dump], View::Dump), info("elf", 0, 100, false), vec![]);
    assert_eq!(s.outbox.queue.iter().filter(|e| matches!(e.request, Request::Correlate { .. })).count(), 1);
}

#[test]
fn a_recording_with_branch_stacks_is_offered_the_elf_to_become_a_bolt_profile() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p.perf.data".into(), size: 100, demo: false, select: true });
    let mut perf = stacks_summary();
    perf.branch_profile = true;
    open(&mut s, 1, perf, info("file", 0, 100, false), vec![]);
    s.update(Action::Add { id: 2, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 2, summary("elf", &[View::Dump], View::Dump), info("elf", 0, 100, false), vec![]);
    // Symbolized with it, and aggregated with it; the recording keeps the screen.
    let asked: Vec<&Request> = s.outbox.queue.iter().filter(|e| e.doc == 1).map(|e| &e.request).collect();
    assert!(asked.contains(&&Request::Symbolize { binaries: vec![2] }), "{asked:?}");
    assert!(asked.contains(&&Request::Correlate { binary: 2 }), "{asked:?}");
    assert_eq!(s.current, Some(1));
    // Without branch stacks, only symbolized.
    let mut t = State::default();
    t.update(Action::Add { id: 1, name: "q.perf.data".into(), size: 100, demo: false, select: true });
    open(&mut t, 1, stacks_summary(), info("file", 0, 100, false), vec![]);
    t.update(Action::Add { id: 2, name: "q".into(), size: 100, demo: false, select: true });
    open(&mut t, 2, summary("elf", &[View::Dump], View::Dump), info("elf", 0, 100, false), vec![]);
    assert!(!t.outbox.queue.iter().any(|e| matches!(e.request, Request::Correlate { .. })));
}

#[test]
fn a_bolted_binary_shows_its_bat_and_a_row_asks_for_its_translation() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p.bolt".into(), size: 100, demo: false, select: true });
    open(&mut s, 1, summary("elf+bat", &[View::Dump, View::Bat], View::Bat), info("file", 0, 100, false), vec![]);
    let asked = last(&s);
    assert!(
        matches!(&asked.request, Request::Table { query, .. } if query.table == TableId::BatFunctions),
        "{asked:?}"
    );
    assert!(s.update(Action::Bat(TableMsg::Select(3))));
    let e = last(&s);
    assert_eq!(e.request, Request::BatFunction { row: 3 });
    // A reply for another row is dropped; the selected one is shown.
    let detail = |row| Reply::BatFunction(Box::new(pgolens_protocol::BatDetail { row, ..Default::default() }));
    assert!(!s.update(worker(1, Some(e.req), detail(2))));
    assert!(s.update(worker(1, Some(e.req), detail(3))));
    assert_eq!(s.current_doc().unwrap().bat.detail.as_ref().unwrap().row, 3);
}

#[test]
fn a_profile_translated_through_a_bolted_binarys_bat_asks_its_picture_again() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p.bolt".into(), size: 100, demo: false, select: true });
    open(&mut s, 1, summary("elf+bat", &[View::Dump, View::Bat], View::Bat), info("file", 0, 100, false), vec![]);
    s.update(Action::Bat(TableMsg::Select(3)));
    s.update(Action::Add { id: 2, name: "p.bolt.perf.data".into(), size: 100, demo: false, select: false });
    let mut perf = summary("perf.data", &[View::Dump], View::Dump);
    perf.branch_profile = true;
    open(&mut s, 2, perf, info("file", 0, 100, false), vec![]);
    let views = vec![View::Dump, View::BoltFunctions];
    s.update(worker(2, None, Reply::Correlated { binary: 1, binary_name: "p.bolt".into(), views }));
    let asked: Vec<_> = s.outbox.queue.iter().filter(|e| e.doc == 1).map(|e| e.request.clone()).collect();
    assert_eq!(asked.last(), Some(&Request::BatFunction { row: 3 }));
    // Closing the profile asks once more, for the picture without counts.
    let before = s.outbox.queue.iter().filter(|e| e.request == Request::BatFunction { row: 3 }).count();
    s.update(Action::Close(2));
    let after = s.outbox.queue.iter().filter(|e| e.request == Request::BatFunction { row: 3 }).count();
    assert_eq!(after, before + 1);
}

#[test]
fn a_bolt_profile_is_written_out_once_and_saved() {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p.fdata".into(), size: 100, demo: false, select: true });
    let fdata = summary("bolt-fdata", &[View::Dump, View::BoltFunctions], View::BoltFunctions);
    open(&mut s, 1, fdata, info("file", 0, 100, false), vec![]);
    assert!(s.update(Action::ExportBolt(false)));
    assert!(!s.update(Action::ExportBolt(true)), "once at a time");
    let e = last(&s);
    assert_eq!(e.request, Request::ExportBolt { yaml: false });
    let bytes = pgolens_protocol::Bytes(b"1 f 0 1 f 4 0 1\n".to_vec());
    assert!(s.update(worker(1, Some(e.req), Reply::Exported { name: "p.fdata".into(), bytes })));
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.bolt_functions.exported.as_ref().unwrap().0, "p.fdata");
    assert!(!doc.bolt_functions.exporting);
    assert!(s.update(Action::ExportSaved));
    assert!(s.current_doc().unwrap().bolt_functions.exported.is_none());
}

const SAMPLE_VIEWS: [View; 5] = [View::Dump, View::SampleFunctions, View::Flame, View::Functions, View::Summary];

/// A sample profile, opened (on its Functions), its first requests acknowledged.
fn sampled() -> State {
    let mut s = State::default();
    s.update(Action::Add { id: 1, name: "p.prof".into(), size: 100, demo: false, select: true });
    let mut sum = summary("sample-text", &SAMPLE_VIEWS, View::SampleFunctions);
    sum.stacks = Some(StacksInfo { events: vec!["samples".into()], ..StacksInfo::default() });
    open(&mut s, 1, sum, info("file", 0, 100, false), vec![]);
    s
}

fn heat_row(depth: u32, line: u32, callee: Option<&str>, descendants: u32) -> pgolens_protocol::HeatRow {
    pgolens_protocol::HeatRow {
        depth,
        line,
        samples: 10,
        callee: callee.map(|c| pgolens_protocol::SampleName { raw: c.into(), demangled: None }),
        descendants,
        ..pgolens_protocol::HeatRow::default()
    }
}

#[test]
fn a_sample_profile_opens_on_its_functions_and_a_row_asks_for_its_heat_and_its_inline_tree() {
    let mut s = sampled();
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.tab, View::SampleFunctions);
    assert_eq!(
        sent(&mut s),
        [Request::Table { query: TableQuery::new(TableId::SampleFunctions), start: 0, count: FIRST_PAGE + 64 }]
    );
    s.update(Action::SampleFunctions(SampleMsg::Table(TableMsg::Select(3))));
    let rooted = SampleFilter { root: Some(3), ..SampleFilter::default() };
    // The graph rooted at the function; no timeline (no times), the names once.
    assert_eq!(
        sent(&mut s),
        [
            Request::SampleFunction { row: 3 },
            Request::FrameNames,
            Request::Flame { samples: rooted.clone(), inverted: false, order: Order::Alphabetical }
        ]
    );
    // The rooted graph is the function's, not the Flame graph tab's.
    let layout = pgolens_protocol::FlameLayout::from_quads(&[0.0, 5.0, 5.0, 2.0], vec![0, 1]);
    assert!(s.update(worker(
        1,
        None,
        Reply::Flame { samples: rooted.clone(), inverted: false, order: Order::Alphabetical, layout }
    )));
    let doc = s.current_doc().unwrap();
    assert!(doc.stacks.flame.is_none());
    assert_eq!(doc.sample_functions.inline.flame.as_ref().unwrap().frame, [2]);
    // Names come for both graphs; another row asks for its graph, not the names again.
    assert!(s.update(worker(
        1,
        None,
        Reply::FrameNames(Box::new(FrameNames { names: ["a"].into_iter().collect(), ..FrameNames::default() }))
    )));
    let doc = s.current_doc().unwrap();
    assert!(doc.stacks.names.is_some() && doc.sample_functions.inline.names.is_some());
    s.update(Action::SampleFunctions(SampleMsg::Table(TableMsg::Select(4))));
    let asked = sent(&mut s);
    assert!(!asked.contains(&Request::FrameNames), "{asked:?}");
    assert!(s.current_doc().unwrap().sample_functions.inline.names.is_some());
    // Nothing to invert or pick in one function's tree.
    assert!(!s.update(Action::SampleFunctions(SampleMsg::Flame(FlameMsg::ToggleInverted))));
    s.update(Action::SampleFunctions(SampleMsg::Flame(FlameMsg::Search("op".into()))));
    let rooted4 = SampleFilter { root: Some(4), ..SampleFilter::default() };
    assert_eq!(sent(&mut s), [Request::Search { samples: rooted4, pattern: "op".into() }]);
    // The whole-profile graph asks for no timeline either.
    s.update(Action::SelectTab(View::Flame));
    let asked = sent(&mut s);
    assert_eq!(
        asked[0],
        Request::Flame { samples: SampleFilter::default(), inverted: false, order: Order::Alphabetical }
    );
    assert!(!asked.iter().any(|r| matches!(r, Request::Timeline { .. } | Request::FrameNames)), "{asked:?}");
}

#[test]
fn inlined_callsites_open_in_place_recursively() {
    let mut s = sampled();
    s.update(Action::SampleFunctions(SampleMsg::Table(TableMsg::Select(0))));
    // 0: line; 1: inline (2..5 its rows); 2: line; 3: inline (4 its row); 4: line; 5: line
    let rows = vec![
        heat_row(0, 1, None, 0),
        heat_row(0, 3, Some("apply"), 3),
        heat_row(1, 0, None, 0),
        heat_row(1, 0, Some("op"), 1),
        heat_row(2, 0, None, 0),
        heat_row(0, 5, None, 0),
    ];
    let detail = pgolens_protocol::SampleFnDetail { id: 0, rows, ..Default::default() };
    assert!(s.update(worker(1, None, Reply::SampleFunction(Box::new(detail.clone())))));
    let shown = |s: &State| s.current_doc().unwrap().sample_functions.shown_rows();
    assert_eq!(shown(&s), [0, 1, 5]);
    s.update(Action::SampleFunctions(SampleMsg::ToggleInline(1)));
    assert_eq!(shown(&s), [0, 1, 2, 3, 5]);
    s.update(Action::SampleFunctions(SampleMsg::ToggleInline(3)));
    assert_eq!(shown(&s), [0, 1, 2, 3, 4, 5]);
    s.update(Action::SampleFunctions(SampleMsg::ToggleInline(1)));
    assert_eq!(shown(&s), [0, 1, 5], "closing a callsite hides what is open under it");
    s.update(Action::SampleFunctions(SampleMsg::ExpandAll(true)));
    assert_eq!(shown(&s).len(), 6);
    s.update(Action::SampleFunctions(SampleMsg::ExpandAll(false)));
    assert_eq!(shown(&s), [0, 1, 5]);
    // A detail for a row no longer selected is dropped.
    s.update(Action::SampleFunctions(SampleMsg::Table(TableMsg::Select(7))));
    assert!(!s.update(worker(1, None, Reply::SampleFunction(Box::new(detail)))));
}

#[test]
fn a_sample_profile_saves_in_each_format_once_at_a_time() {
    let mut s = sampled();
    sent(&mut s);
    assert!(s.update(Action::SampleFunctions(SampleMsg::Export(SampleExport::Gcov4))));
    assert!(!s.update(Action::SampleFunctions(SampleMsg::Export(SampleExport::Text))), "one at a time");
    assert_eq!(sent(&mut s), [Request::ExportSample { to: SampleExport::Gcov4 }]);
    let file = Reply::Exported { name: "p.gcov".into(), bytes: vec![1, 2].into() };
    assert!(s.update(worker(1, Some(1), file)));
    let doc = s.current_doc().unwrap();
    assert_eq!(doc.sample_functions.exported.as_deref(), Some(&("p.gcov".to_string(), vec![1, 2])));
    assert!(doc.bolt_functions.exported.is_none());
    assert!(s.update(Action::SampleFunctions(SampleMsg::Saved)));
    assert!(s.current_doc().unwrap().sample_functions.exported.is_none());
    // A failed export can be tried again.
    s.update(Action::SampleFunctions(SampleMsg::Export(SampleExport::Text)));
    let req = last(&s).req;
    s.update(worker(1, Some(req), Reply::Failed(Failure::new("no"))));
    assert!(s.update(Action::SampleFunctions(SampleMsg::Export(SampleExport::Text))));
}

/// The file `doc` hashed: the fingerprint a link names it by.
fn hashed(s: &mut State, doc: DocId, hex: &str, size: u64) -> bool {
    s.update(worker(doc, None, Reply::Fingerprint { hex: hex.into(), size }))
}

mod links;

#[test]
fn folding_inlined_frames_refilters_every_stack_view_and_rides_in_the_link() {
    use crate::views::transforms::Msg as TransformMsg;
    use pgolens_protocol::Transform;
    let mut s = stacked();
    hashed(&mut s, 1, "feedfacefeedface", 100);
    sent(&mut s);
    let fold = || Action::Transform(TransformMsg::Push(Transform::FoldInlined));
    assert!(s.update(Action::Transform(TransformMsg::Push(Transform::Merge { frame: 2 }))));
    sent(&mut s);
    // Folded (the flame graph's button or `f`): the graph and the functions table are
    // asked for again with the fold after the merge.
    assert!(s.update(fold()));
    let folded = SampleFilter {
        transforms: vec![Transform::Merge { frame: 2 }, Transform::FoldInlined],
        ..SampleFilter::default()
    };
    let asked = sent(&mut s);
    assert!(asked.iter().any(|r| matches!(r, Request::Flame { samples, .. } if *samples == folded)), "{asked:?}");
    assert!(asked.iter().any(
        |r| matches!(r, Request::Table { query, .. } if query.table == TableId::StackFunctions && query.samples == Some(folded.clone()))
    ), "{asked:?}");
    let link = s.link();
    assert_eq!(link.get("transforms"), Some("mf-2,inl"));
    // The link opens folded.
    let mut r = State::default();
    r.update(Action::Restore(Params::parse(&link.fragment())));
    r.update(Action::Add { id: 1, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut r, 1, stacks_summary(), info("file", 0, 100, false), vec![]);
    hashed(&mut r, 1, "feedfacefeedface", 100);
    assert_eq!(r.restoring, None);
    assert_eq!(r.current_doc().unwrap().stacks.samples.transforms, folded.transforms);
    let asked = sent(&mut r);
    assert!(asked.iter().any(|r| matches!(r, Request::Flame { samples, .. } if *samples == folded)), "{asked:?}");
    // Toggled again: unfolded, the merge kept.
    assert!(s.update(fold()));
    assert_eq!(s.current_doc().unwrap().stacks.samples.transforms, vec![Transform::Merge { frame: 2 }]);
    assert_eq!(s.link().get("transforms"), Some("mf-2"));
}

fn symbol_status(matched: Option<&str>) -> pgolens_protocol::SymbolStatus {
    pgolens_protocol::SymbolStatus {
        dsos: vec![
            pgolens_protocol::DsoStatus {
                path: "/usr/lib/x86_64-linux-gnu/libc.so.6".into(),
                build_id: Some("93ac61ec5a8eb1396f9fbd350e3169a558528a40".into()),
                samples: 60,
                matched: matched.map(String::from),
                ..Default::default()
            },
            pgolens_protocol::DsoStatus { path: "[vdso]".into(), samples: 0, ..Default::default() },
        ],
        ..Default::default()
    }
}

#[test]
fn the_symbols_panel_asks_for_the_status_once_and_again_when_frames_are_renamed() {
    let mut s = stacked();
    sent(&mut s);
    // Opening the panel asks; closing and opening it again does not.
    assert!(s.update(Action::Symbols(crate::views::symbols::Msg::Toggle)));
    assert_eq!(sent(&mut s), [Request::Symbols]);
    assert!(s.current_doc().unwrap().symbols.open);
    s.update(worker(1, Some(7), Reply::Symbols(Box::new(symbol_status(None)))));
    let status = s.current_doc().unwrap().symbols.status.clone().unwrap();
    // One DSO with samples, none named yet.
    assert_eq!(crate::views::symbols::named_count(&status), (0, 1));
    s.update(Action::Symbols(crate::views::symbols::Msg::Toggle));
    s.update(Action::Symbols(crate::views::symbols::Msg::Toggle));
    assert!(!sent(&mut s).contains(&Request::Symbols));
    // A binary dropped one by one renames the frames: the status is asked again.
    s.update(worker(1, Some(9), Reply::Symbolized { stacks: StacksInfo::default(), with: vec!["libc.so.6".into()] }));
    assert!(sent(&mut s).contains(&Request::Symbols));
    s.update(worker(1, Some(10), Reply::Symbols(Box::new(symbol_status(Some("libc.so.6"))))));
    let status = s.current_doc().unwrap().symbols.status.clone().unwrap();
    assert_eq!(crate::views::symbols::named_count(&status), (1, 1));
}

#[test]
fn a_folders_status_opens_the_symbols_panel_and_a_recording_never_asked_is_not_asked() {
    let mut s = stacked();
    sent(&mut s);
    // Renamed before anyone looked: no status asked for.
    s.update(worker(1, None, Reply::Symbolized { stacks: StacksInfo::default(), with: vec!["libc.so.6".into()] }));
    assert!(!sent(&mut s).contains(&Request::Symbols));
    // A folder's status (no request) opens the panel on it, and is not a failed open.
    s.update(worker(1, None, Reply::Symbols(Box::new(symbol_status(Some("sysroot/libc.so.6"))))));
    let doc = s.current_doc().unwrap();
    assert!(doc.symbols.open && doc.phase == Phase::Ready);
    assert_eq!(doc.symbols.status.as_ref().unwrap().dsos[0].matched.as_deref(), Some("sysroot/libc.so.6"));
    // A file without stacks has no panel to open.
    s.update(Action::Add { id: 2, name: "p".into(), size: 100, demo: false, select: true });
    open(&mut s, 2, summary("instrprof-raw", &[View::Dump], View::Dump), info("f", 0, 100, false), vec![]);
    sent(&mut s);
    assert!(!s.update(Action::Symbols(crate::views::symbols::Msg::Toggle)));
    assert!(sent(&mut s).is_empty());
}
