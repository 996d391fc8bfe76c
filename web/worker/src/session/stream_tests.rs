//! Recordings decoded as they stream in, as the glue feeds them: the same views as
//! when read whole, the bytes read again only for the requests that need them.

use pgolens_protocol::{Order, Reply, Request, SampleFilter, TableId, TableQuery};

use super::tests::{corpus, session};
use super::{FirstPart, Session};
use crate::Sessions;

/// The corpus files under `dirs` whose names end with one of `ends`.
fn corpus_files(dirs: &[&str], ends: &[&str]) -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut out = Vec::new();
    let mut todo: Vec<_> = dirs.iter().map(|d| root.join(d)).collect();
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.to_string_lossy().into_owned();
            if path.is_dir() {
                todo.push(path);
            } else if ends.iter().any(|e| name.ends_with(e)) {
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The corpus recordings: file and pipe mode, compressed records, cut off.
fn recordings() -> Vec<(String, Vec<u8>)> {
    let out = corpus_files(&["bolt-perf", "peers/linux-perf-data"], &[".perf.data", ".data"]);
    assert!(out.len() > 25, "{}", out.len());
    out
}

/// Opens `bytes` as the glue does: streamed in blocks of `block` bytes when the
/// session takes it so (read whole from the start when the stream rejects it), else
/// read whole. Whether it was streamed, and the session (not yet finished).
fn glue_open(name: &str, bytes: &[u8], block: usize) -> (bool, Session) {
    let mut s = Session::new(name.into(), bytes.len() as u64).unwrap();
    let mut fetches = Vec::new();
    let mut fetch = |at: u64, len: u64, what: &'static str| {
        fetches.push((at, len));
        let slice = bytes.get(at as usize..(at + len) as usize);
        slice.map(<[u8]>::to_vec).ok_or(pgolens::Error::eof(at, what))
    };
    let streamed = match s.stream_start(bytes.len() as u64, &mut fetch) {
        Some(start) => bytes[start as usize..].chunks(block).all(|b| s.feed(b)) && s.stream_end(),
        None => false,
    };
    // What was fetched lies outside the record stream, and is small.
    let fetched: u64 = fetches.iter().map(|&(_, len)| len).sum();
    assert!(!streamed || fetched < 64 << 10, "{name}: {fetches:?}");
    if !streamed {
        s.slot(bytes.len()).unwrap().copy_from_slice(bytes);
    }
    (streamed, s)
}

/// Reads a streamed session's bytes again, as the glue does when a request needs them.
fn read_again(s: &mut Session, bytes: &[u8]) {
    let (a, b) = bytes.split_at(bytes.len() / 2);
    s.slot(a.len()).unwrap().copy_from_slice(a);
    s.slot(b.len()).unwrap().copy_from_slice(b);
    s.loaded().unwrap();
}

fn all() -> SampleFilter {
    SampleFilter::default()
}

#[test]
fn a_recording_streamed_in_opens_as_when_read_whole() {
    let mut streamed_count = 0;
    for (name, bytes) in recordings() {
        let mut whole = session(&name, &bytes);
        let Ok(whole_opened) = whole.finish() else {
            // A recording that does not open read whole does not open streamed either.
            let (_, mut s) = glue_open(&name, &bytes, 4096);
            assert!(s.finish().is_err(), "{name}");
            continue;
        };
        for block in [4096, 1 << 20] {
            let (streamed, mut s) = glue_open(&name, &bytes, block);
            let opened = s.finish().unwrap();
            assert_eq!(opened.summary, whole_opened.summary, "{name}");
            if !streamed {
                assert_eq!(opened, whole_opened, "{name}");
                continue;
            }
            streamed_count += usize::from(block == 4096);
            // The root as the dump gives it, its children read when asked for.
            let mut root = whole_opened.root.clone();
            root.has_children = true;
            assert_eq!((&opened.root, opened.children.len()), (&root, 0), "{name}");
            if whole.stack_profile().is_none() {
                continue;
            }
            for inverted in [false, true] {
                assert_eq!(
                    s.flame(&all(), inverted, Order::Alphabetical).unwrap(),
                    whole.flame(&all(), inverted, Order::Alphabetical).unwrap(),
                    "{name}"
                );
            }
            assert_eq!(s.frame_names().unwrap(), whole.frame_names().unwrap(), "{name}");
            assert_eq!(s.recording_dsos().unwrap(), whole.recording_dsos().unwrap(), "{name}");

            // The dump needs the bytes: read again, it is the whole file's.
            let last = bytes.len() as u64 - 1;
            for request in [
                Request::Children { path: Vec::new() },
                Request::Bytes { start: 0, end: 16 },
                Request::PathTo { offset: last },
                Request::Reveal { path: vec![0] },
            ] {
                assert!(s.needs_bytes(&request), "{name}: {request:?}");
            }
            assert!(!s.needs_bytes(&Request::FrameNames), "{name}");
            read_again(&mut s, &bytes);
            assert!(!s.needs_bytes(&Request::Children { path: Vec::new() }), "{name}");
            assert_eq!(s.children(&[]).unwrap(), whole.children(&[]).unwrap(), "{name}");
            assert_eq!(s.path_to(last).unwrap(), whole.path_to(last).unwrap(), "{name}");
            assert_eq!(s.bytes(0, 4096), whole.bytes(0, 4096), "{name}");
        }
    }
    assert!(streamed_count > 20, "{streamed_count}");
}

/// Opens `bytes` as the glue does a large recording, read by two workers: this
/// session replays the records up to the cut it picks and reads the rest, while a
/// [`FirstPart`] (the helper worker) reads up to the cut; its bytes (`handed`,
/// which may damage them) are joined before the end. `None` when the session does
/// not stream the file; else whether the stream ended, and the session.
fn glue_open_in_two(
    name: &str,
    bytes: &[u8],
    block: usize,
    handed: impl FnOnce(Vec<u8>) -> Vec<u8>,
) -> Option<(bool, Session)> {
    let mut s = Session::new(name.into(), bytes.len() as u64).unwrap();
    let mut fetch = |at: u64, len: u64, what: &'static str| {
        let slice = bytes.get(at as usize..(at + len) as usize);
        slice.map(<[u8]>::to_vec).ok_or(pgolens::Error::eof(at, what))
    };
    let start = s.stream_start(bytes.len() as u64, &mut fetch)? as usize;
    let cut = s.stream_split(0).unwrap() as usize;
    assert!(start < cut && cut < bytes.len());
    let (mut first, first_start) = FirstPart::start(bytes.len() as u64, &mut fetch).unwrap();
    assert_eq!(first_start as usize, start);
    let first_read = bytes[start..cut].chunks(block).all(|b| first.feed(b));
    let fed = bytes[start..].chunks(block).all(|b| s.feed(b));
    let joined = first_read && s.stream_join(&handed(first.end()));
    Some((fed && joined && s.stream_end(), s))
}

#[test]
fn a_recording_read_by_two_workers_opens_as_when_streamed_by_one() {
    let mut checked = 0;
    for (name, bytes) in recordings() {
        let (true, mut one) = glue_open(&name, &bytes, 4096) else { continue };
        let one_opened = one.finish().unwrap();
        for block in [4096, 1 << 20] {
            let (ended, mut two) = glue_open_in_two(&name, &bytes, block, |b| b).unwrap();
            assert!(ended, "{name}");
            let opened = two.finish().unwrap();
            assert_eq!(opened.summary, one_opened.summary, "{name}");
            // The dump's root holds a pipe recording's sample time range.
            assert_eq!(opened.root, one_opened.root, "{name}");
            if one.stack_profile().is_none() {
                continue;
            }
            for inverted in [false, true] {
                assert_eq!(
                    two.flame(&all(), inverted, Order::Alphabetical).unwrap(),
                    one.flame(&all(), inverted, Order::Alphabetical).unwrap(),
                    "{name}"
                );
            }
            assert_eq!(two.frame_names().unwrap(), one.frame_names().unwrap(), "{name}");
            assert_eq!(two.recording_dsos().unwrap(), one.recording_dsos().unwrap(), "{name}");
            checked += usize::from(block == 4096);
        }
    }
    assert!(checked > 20, "{checked}");
}

#[test]
fn a_first_part_lost_or_damaged_makes_the_recording_read_whole() {
    let bytes = corpus("bolt-perf/cprog/cprog.fp.perf.data");
    let (_, mut whole) = glue_open("cprog.fp.perf.data", &bytes, 4096);
    let whole = whole.finish().unwrap();
    type Damage = fn(Vec<u8>) -> Vec<u8>;
    let cases: [(&str, Damage); 3] = [
        ("cut short", |mut b| {
            b.truncate(b.len() / 2);
            b
        }),
        ("an absurd event count", |mut b| {
            b[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
            b
        }),
        ("one byte more", |mut b| {
            b.push(0);
            b
        }),
    ];
    for (what, damage) in cases {
        let (ended, mut s) = glue_open_in_two("cprog.fp.perf.data", &bytes, 4096, damage).unwrap();
        assert!(!ended, "{what}");
        // The glue then reads the file whole: the same views.
        s.slot(bytes.len()).unwrap().copy_from_slice(&bytes);
        assert_eq!(s.finish().unwrap().summary, whole.summary, "{what}");
    }
}

#[test]
fn a_recording_the_stream_rejects_is_read_whole_with_the_same_error() {
    // cprog.fp.perf.data with its first record's size cut to 4: no record is that small.
    let mut bytes = corpus("bolt-perf/cprog/cprog.fp.perf.data");
    let data_offset = u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize;
    bytes[data_offset + 6..data_offset + 8].copy_from_slice(&4u16.to_le_bytes());
    let (streamed, mut s) = glue_open("broken.perf.data", &bytes, 4096);
    assert!(!streamed);
    let whole = session("broken.perf.data", &bytes).finish();
    assert_eq!(s.finish(), whole);
}

#[test]
fn requests_that_need_a_streamed_recordings_bytes_wait_for_them() {
    let bytes = corpus("bolt-perf/cprog/cprog.fp.perf.data");
    let (streamed, mut s) = glue_open("cprog.fp.perf.data", &bytes, 4096);
    assert!(streamed);
    s.finish().unwrap();
    let mut sessions = Sessions::default();
    sessions.insert(1, s);
    // Answered natively, such a request says why, and the glue is told to read first.
    let children = Request::Children { path: Vec::new() };
    assert!(sessions.needs_bytes(1, &children));
    let reply = sessions.answer(1, children.clone()).unwrap();
    assert!(matches!(&reply, Reply::Failed(f) if f.message.contains("read it again")), "{reply:?}");
    // The Symbols panel's DSOs were counted as it streamed in: no read needed.
    assert!(!sessions.needs_bytes(1, &Request::Symbols));
    let Reply::Symbols(status) = sessions.answer(1, Request::Symbols).unwrap() else { panic!() };
    // cprog.fp.perf.data.buildids.txt: cprog, ld.so, libc, the kernel.
    assert!(status.dsos.iter().any(|d| d.path.ends_with("/cprog") && d.samples > 0), "{status:?}");
    read_again(sessions.get_mut(1).unwrap(), &bytes);
    assert!(!sessions.needs_bytes(1, &children));
    assert!(matches!(sessions.answer(1, children).unwrap(), Reply::Children { nodes, .. } if nodes.len() > 3));
}

#[test]
fn a_branch_recording_is_read_again_for_perf2bolt() {
    let bytes = corpus("bolt-perf/cprog/cprog.brstack.perf.data");
    let (streamed, mut s) = glue_open("cprog.brstack.perf.data", &bytes, 4096);
    assert!(streamed);
    assert!(s.finish().unwrap().summary.branch_profile);
    assert!(s.needs_bytes(&Request::Correlate { binary: 2 }));
    let mut sessions = Sessions::default();
    sessions.insert(1, s);
    let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
    elf.finish().unwrap();
    sessions.insert(2, elf);
    read_again(sessions.get_mut(1).unwrap(), &bytes);
    let Reply::Correlated { views, .. } = sessions.answer(1, Request::Correlate { binary: 2 }).unwrap() else {
        panic!()
    };
    assert!(views.contains(&pgolens_protocol::View::BoltFunctions), "{views:?}");
}

#[test]
fn a_dwarf_recording_is_read_again_to_unwind_with_new_binaries() {
    let bytes = corpus("bolt-perf/cprog/cprog.dwarf.perf.data");
    let (streamed, mut s) = glue_open("cprog.dwarf.perf.data", &bytes, 4096);
    assert!(streamed);
    // Streamed or whole, the page is told its samples copied the user stack.
    let copies = |opened: crate::session::Opened| opened.summary.stacks.is_some_and(|i| i.stack_copies);
    assert!(copies(s.finish().unwrap()));
    let mut whole = session("cprog.dwarf.perf.data", &bytes);
    assert!(copies(whole.finish().unwrap()));
    let fp = "bolt-perf/cprog/cprog.fp.perf.data";
    assert!(!copies(glue_open("cprog.fp.perf.data", &corpus(fp), 4096).1.finish().unwrap()));
    assert!(!copies(session("cprog.fp.perf.data", &corpus(fp)).finish().unwrap()));
    let mut sessions = Sessions::default();
    sessions.insert(1, s);
    sessions.insert(2, whole);
    let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
    elf.finish().unwrap();
    sessions.insert(3, elf);
    let symbolize = Request::Symbolize { binaries: vec![3] };
    assert!(sessions.needs_bytes(1, &symbolize) && !sessions.needs_bytes(2, &symbolize));
    read_again(sessions.get_mut(1).unwrap(), &bytes);
    let a = sessions.answer(1, symbolize.clone()).unwrap();
    let b = sessions.answer(2, symbolize).unwrap();
    assert!(matches!(&a, Reply::Symbolized { stacks, .. } if stacks.stack_copies), "{a:?}");
    assert_eq!(a, b);
}

#[test]
fn a_bolt_yaml_streamed_in_opens_as_when_read_whole() {
    // LLVM's YAMLs and BOLT's hand-written ones (those llvm-bolt rejects too).
    let yamls = corpus_files(&["bolt-perf", "peers/llvm-bolt-tests"], &[".yaml"]);
    assert!(yamls.len() >= 40, "{}", yamls.len());
    let mut streamed_count = 0;
    for (name, bytes) in yamls {
        let mut whole = session(&name, &bytes);
        let whole_opened = whole.finish();
        let (streamed, mut s) = glue_open(&name, &bytes, 4096);
        let opened = s.finish();
        let Ok(whole_opened) = whole_opened else {
            // Rejected by the stream, read whole: the same error.
            assert!(!streamed, "{name}");
            assert_eq!(opened, whole_opened, "{name}");
            continue;
        };
        let opened = opened.unwrap();
        assert!(streamed, "{name}");
        streamed_count += 1;
        assert_eq!(opened.summary, whole_opened.summary, "{name}");
        let mut root = whole_opened.root.clone();
        root.has_children = true;
        assert_eq!(opened.root, root, "{name}");
        let query = TableQuery::new(TableId::BoltFunctions);
        assert_eq!(s.table(&query, 0, 100).unwrap(), whole.table(&query, 0, 100).unwrap(), "{name}");
        assert!(s.needs_bytes(&Request::Children { path: Vec::new() }), "{name}");
        assert!(!s.needs_bytes(&Request::BoltCfg { function: Some(0) }), "{name}");
        read_again(&mut s, &bytes);
        assert_eq!(s.children(&[]).unwrap(), whole.children(&[]).unwrap(), "{name}");
        let last = bytes.len() as u64 - 1;
        assert_eq!(s.path_to(last).unwrap(), whole.path_to(last).unwrap(), "{name}");
    }
    assert!(streamed_count >= 30, "{streamed_count}");
}
