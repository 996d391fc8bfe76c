//! The worker target: a file opened in a worker session (`pgolens-worker`) as the
//! page opens one, then the page's requests, answered through
//! [`pgolens_worker::Sessions::answer`] as the worker answers them.
//!
//! First the requests every view makes when it is shown (the dump's levels, each
//! table's first page, the flame graph, a search, the summary, the exports), then
//! up to [`MAX_REQUESTS`] requests with arbitrary arguments, drawn from the input's
//! last bytes (so a mutation of the file also mutates the requests). A second
//! document, the fixed binary `cprog`, is open beside it for the requests that
//! name one (correlate, symbolize, the CFG of a BOLT profile).

use arbitrary::{Result as ArbitraryResult, Unstructured};
use pgolens_protocol::{DocId, Order, Reply, Request, SampleExport, SampleFilter, TableId, TableQuery, Transform};
use pgolens_worker::session::Session;
use pgolens_worker::Sessions;

use crate::{fixed, MAX_INPUT, MAX_NODES, MAX_REQUESTS};

const FILE: DocId = 1;
const BINARY: DocId = 2;
/// How many of the input's last bytes choose the requests.
const ARGUMENT_BYTES: usize = 256;
/// The dump nodes the first walk asks children of.
const WALK: usize = 256;

const TABLES: [TableId; 10] = [
    TableId::Functions,
    TableId::StackFunctions,
    TableId::MemProf,
    TableId::BoltFunctions,
    TableId::BoltBranches,
    TableId::BoltMemory,
    TableId::BoltSamples,
    TableId::BatFunctions,
    TableId::SampleFunctions,
    TableId::SampleSymbols,
];

/// Column ids the tables know (and one they do not).
const COLUMNS: [&str; 12] =
    ["", "name", "hash", "counters", "total", "self", "exec", "count", "address", "blocks", "samples", "nope"];

/// The blocks a recording is streamed in (the glue's are 4 MiB: smaller here, so
/// that records and rounds straddle them).
const STREAM_BLOCK: usize = 4093;

/// Opens `data` as the glue does: a recording the session takes as it streams in is
/// fed in blocks (and read whole when the stream rejects it); anything else is read
/// into the session whole. Streamed, it opens as when read whole.
fn open(name: &str, data: &[u8]) -> Option<Session> {
    let mut session = Session::new(name.into(), data.len() as u64).ok()?;
    let mut fetch = |offset: u64, len: u64, expected: &'static str| {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
        data.get(start..end).map(<[u8]>::to_vec).ok_or(pgolens::Error::eof(offset, expected))
    };
    let streamed = match session.stream_start(data.len() as u64, &mut fetch) {
        Some(start) => {
            let records = data.get(usize::try_from(start).unwrap_or(usize::MAX)..).unwrap_or_default();
            records.chunks(STREAM_BLOCK).all(|block| session.feed(block)) && session.stream_end()
        }
        None => false,
    };
    if !streamed {
        read_whole(&mut session, data)?;
    }
    let opened = session.finish().ok()?;
    if streamed {
        // Read whole, the file may fail where the stream did not (its dump is stricter,
        // and is read only when shown); when it opens with its stacks, they agree.
        let mut whole = Session::new(name.into(), data.len() as u64).ok()?;
        read_whole(&mut whole, data)?;
        if let Some(whole) = whole.finish().ok().filter(|w| w.summary.views_error.is_none()) {
            assert_eq!(whole.summary, opened.summary);
        }
    }
    Some(session)
}

/// The file into the session's slots, in two chunks, as the page streams a file.
fn read_whole(session: &mut Session, data: &[u8]) -> Option<()> {
    let (a, b) = data.split_at(data.len() / 2);
    session.slot(a.len()).ok()?.copy_from_slice(a);
    session.slot(b.len()).ok()?.copy_from_slice(b);
    Some(())
}

/// Answers `request` about the input as the glue has it answered: a recording
/// decoded as it streamed in is read again first when the request needs its bytes.
fn answer(sessions: &mut Sessions, data: &[u8], request: Request) -> Option<Reply> {
    if sessions.needs_bytes(FILE, &request) {
        if let Ok(session) = sessions.get_mut(FILE) {
            let _ = read_whole(session, data);
            let _ = session.loaded();
        }
    }
    sessions.answer(FILE, request)
}

/// A folder holding the input offered to the fixed frame-pointer recording, as the
/// JS glue offers one: the input as the program (`build/cprog`) and as cprog's
/// separate debug file (by build id), each probed slice by slice as
/// [`Sessions::folder_probe`] asks (a slice past the end comes back short, as
/// `Blob.slice` gives it), the picked ones read whole, the recording symbolized
/// with them, and its Symbols status.
pub fn folder_offer(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some(recording) = open("cprog.fp.perf.data", fixed::CPROG_FP_PERF) else { return };
    let mut sessions = Sessions::default();
    sessions.insert(FILE, recording);
    let files = ["build/cprog", "build/usr/lib/debug/.build-id/ac/5e5d2c821278bbb9de3c8d7c090f208a46534e.debug"];
    sessions.folder_start(files.iter().map(|f| f.to_string()).collect(), vec![data.len() as u64; files.len()], false);
    for index in 0..files.len() {
        let mut next = sessions.folder_probe(index, 0, Vec::new());
        // The worker stops asking after a few slices; the bound is the target's own.
        for _ in 0..16 {
            let Some((offset, len)) = next else { break };
            let start = usize::try_from(offset).unwrap_or(usize::MAX).min(data.len());
            let end = usize::try_from(offset.saturating_add(len)).unwrap_or(usize::MAX).min(data.len());
            next = sessions.folder_probe(index, offset, data.get(start..end).unwrap_or_default().to_vec());
        }
    }
    for index in sessions.folder_pick() {
        if let Ok(slot) = sessions.folder_slot(index, data.len()) {
            slot.copy_from_slice(data);
            sessions.folder_filled(index);
        }
    }
    let _ = sessions.folder_finish();
    let _ = sessions.answer(FILE, Request::Symbols);
}

/// The worker's entry points on one file (see the module docs).
pub fn worker_session(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some(file) = open("input.fuzz", data) else { return };
    let mut sessions = Sessions::default();
    sessions.insert(FILE, file);
    if let Some(binary) = open("cprog", fixed::CPROG) {
        sessions.insert(BINARY, binary);
    }
    shown(&mut sessions, data);
    let tail = data.get(data.len().saturating_sub(ARGUMENT_BYTES)..).unwrap_or_default();
    let mut u = Unstructured::new(tail);
    for _ in 0..MAX_REQUESTS {
        let Ok(request) = request(&mut u) else { break };
        answer(&mut sessions, data, request);
    }
}

/// What the page asks when it shows each view: the views first (a recording
/// decoded as it streamed in answers most without its bytes), then the dump.
fn shown(sessions: &mut Sessions, data: &[u8]) {
    views_shown(sessions, data);
    let mut paths = vec![Vec::new()];
    let mut asked = 0;
    let mut nodes = 0;
    while let Some(path) = paths.pop() {
        asked += 1;
        if asked > WALK || nodes > MAX_NODES {
            break;
        }
        if let Some(Reply::Children { nodes: children, .. }) =
            answer(sessions, data, Request::Children { path: path.clone() })
        {
            nodes += children.len();
            for (i, child) in children.iter().enumerate().rev() {
                if child.has_children {
                    let mut deeper = path.clone();
                    deeper.push(u32::try_from(i).unwrap_or(u32::MAX));
                    paths.push(deeper);
                }
            }
        }
    }
}

fn views_shown(sessions: &mut Sessions, data: &[u8]) {
    let samples = SampleFilter::default();
    let mut requests = vec![
        Request::Summary,
        Request::Flame { samples: samples.clone(), inverted: false, order: Order::Alphabetical },
        Request::Flame { samples: samples.clone(), inverted: true, order: Order::Heaviest },
        Request::Flame {
            samples: SampleFilter { root: Some(0), ..samples.clone() },
            inverted: false,
            order: Order::Alphabetical,
        },
        Request::CallTree { samples: samples.clone(), inverted: false },
        Request::StackChart { samples: samples.clone(), columns: 640 },
        Request::StackChart { samples: SampleFilter { transforms: every_transform(), ..samples.clone() }, columns: 1 },
        Request::CallTree {
            samples: SampleFilter { transforms: every_transform(), ..samples.clone() },
            inverted: true,
        },
        Request::FrameNames,
        Request::Search { samples: samples.clone(), pattern: "main".into() },
        Request::Sandwich { samples: samples.clone(), frame: 0 },
        Request::Timeline { event: 0, bins: 100 },
        Request::Function { row: 0 },
        Request::MemProfSite { site: 0 },
        Request::SampleFunction { row: 0 },
        Request::BatFunction { row: 0 },
        Request::BoltCfg { function: None },
        Request::ExportBolt { yaml: false },
        Request::ExportBolt { yaml: true },
        Request::Bytes { start: 0, end: 4096 },
        Request::PathTo { offset: 0 },
        Request::Correlate { binary: BINARY },
        Request::BoltCfg { function: None },
        Request::Symbolize { binaries: vec![BINARY] },
    ];
    requests.extend(SampleExport::ALL.map(|to| Request::ExportSample { to }));
    requests.extend(TABLES.map(|table| Request::Table { query: TableQuery::new(table), start: 0, count: 100 }));
    for request in requests {
        answer(sessions, data, request);
    }
}

/// A small count most of the time, any `u64` sometimes.
fn count(u: &mut Unstructured<'_>) -> ArbitraryResult<u64> {
    Ok(if u.ratio(3, 4)? { u.int_in_range(0..=300)? } else { u.arbitrary()? })
}

fn index(u: &mut Unstructured<'_>) -> ArbitraryResult<u32> {
    Ok(if u.ratio(3, 4)? { u.int_in_range(0..=40)? } else { u.arbitrary()? })
}

fn path(u: &mut Unstructured<'_>) -> ArbitraryResult<Vec<u32>> {
    let len = u.int_in_range(0..=8)?;
    (0..len).map(|_| if u.ratio(7, 8)? { u.int_in_range(0..=8) } else { u.arbitrary() }).collect()
}

fn samples(u: &mut Unstructured<'_>) -> ArbitraryResult<SampleFilter> {
    let range = if u.arbitrary()? { Some((count(u)?, count(u)?)) } else { None };
    let root = if u.ratio(1, 4)? { Some(index(u)?) } else { None };
    let transforms = (0..u.int_in_range(0..=3)?).map(|_| transform(u)).collect::<ArbitraryResult<_>>()?;
    Ok(SampleFilter { event: index(u)?, range, root, transforms })
}

fn transform(u: &mut Unstructured<'_>) -> ArbitraryResult<Transform> {
    let frame = index(u)?;
    Ok(match u.int_in_range(0..=6u8)? {
        0 => Transform::Merge { frame },
        1 => Transform::FocusFunction { frame },
        2 => Transform::FocusSubtree { path: path(u)?, inverted: u.arbitrary()? },
        3 => Transform::CollapseDso { dso: frame },
        4 => Transform::CollapseRecursion { frame },
        5 => Transform::CollapseDirectRecursion { frame },
        _ => Transform::DropFunction { frame },
    })
}

/// One of each transform, on the first frames and DSO.
fn every_transform() -> Vec<Transform> {
    vec![
        Transform::CollapseDso { dso: 0 },
        Transform::CollapseRecursion { frame: 1 },
        Transform::CollapseDirectRecursion { frame: 2 },
        Transform::Merge { frame: 3 },
        Transform::FocusSubtree { path: vec![0], inverted: true },
        Transform::FocusFunction { frame: 0 },
        Transform::DropFunction { frame: 4 },
    ]
}

fn text(u: &mut Unstructured<'_>) -> ArbitraryResult<String> {
    let len = u.int_in_range(0..=12)?;
    let bytes = u.bytes(len)?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

fn request(u: &mut Unstructured<'_>) -> ArbitraryResult<Request> {
    Ok(match u.int_in_range(0..=19u8)? {
        0 => Request::Children { path: path(u)? },
        1 => Request::Bytes { start: count(u)?, end: count(u)? },
        2 => Request::PathTo { offset: count(u)? },
        3 => Request::Reveal { path: path(u)? },
        4 => {
            let query = TableQuery {
                table: *u.choose(&TABLES)?,
                column: (*u.choose(&COLUMNS)?).into(),
                descending: u.arbitrary()?,
                filter: text(u)?,
                samples: if u.arbitrary()? { Some(samples(u)?) } else { None },
            };
            Request::Table { query, start: count(u)?, count: count(u)? }
        }
        5 => Request::Summary,
        6 => Request::Function { row: index(u)? },
        7 => Request::MemProfSite { site: index(u)? },
        8 => Request::Flame {
            samples: samples(u)?,
            inverted: u.arbitrary()?,
            order: if u.arbitrary()? { Order::Heaviest } else { Order::Alphabetical },
        },
        18 => Request::CallTree { samples: samples(u)?, inverted: u.arbitrary()? },
        19 => Request::StackChart { samples: samples(u)?, columns: u.arbitrary()? },
        9 => Request::Sandwich { samples: samples(u)?, frame: index(u)? },
        10 => Request::FrameNames,
        11 => Request::Search { samples: samples(u)?, pattern: text(u)? },
        12 => Request::Timeline {
            event: index(u)?,
            bins: if u.ratio(3, 4)? { u.int_in_range(0..=4096)? } else { u.arbitrary()? },
        },
        13 => Request::BoltCfg { function: if u.arbitrary()? { Some(index(u)?) } else { None } },
        14 => Request::BatFunction { row: index(u)? },
        15 => Request::ExportBolt { yaml: u.arbitrary()? },
        16 => Request::SampleFunction { row: index(u)? },
        _ => Request::ExportSample { to: *u.choose(&SampleExport::ALL)? },
    })
}
