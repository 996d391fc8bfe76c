//! A folder given to the open recordings: which of its files are read, how the
//! frames are named then, and the symbol status per DSO.

use super::tests::{corpus, session};
use crate::Sessions;
use pgolens_protocol::{DsoStatus, FromWorker, Reply, Request, SymbolStatus};

/// The files under `tests/corpus/bolt-perf/DIR`, as a folder drop lists them:
/// paths from the folder's parent (`sysroot/usr/lib/...`), hidden folders included.
fn folder(dir: &str) -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/bolt-perf");
    let mut files = Vec::new();
    let mut todo = vec![root.join(dir)];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let name = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
                files.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// Offers `files` as the JS glue does: probes each with the slices asked for, reads
/// the picked ones whole. Returns the messages, the paths read whole, and the bytes
/// probed.
fn offer(sessions: &mut Sessions, files: &[(String, Vec<u8>)]) -> (Vec<FromWorker>, Vec<String>, u64) {
    offer_as(sessions, files, false)
}

/// [`offer`], `again`: as the glue offers the last folder again once a recording opens.
fn offer_as(sessions: &mut Sessions, files: &[(String, Vec<u8>)], again: bool) -> (Vec<FromWorker>, Vec<String>, u64) {
    offer_failing(sessions, files, again, None)
}

/// [`offer_as`], with the read of the picked file `unreadable` failing midway (its
/// first half copied, then the glue's reader throws).
fn offer_failing(
    sessions: &mut Sessions,
    files: &[(String, Vec<u8>)],
    again: bool,
    unreadable: Option<&str>,
) -> (Vec<FromWorker>, Vec<String>, u64) {
    let paths = files.iter().map(|(p, _)| p.clone()).collect();
    sessions.folder_start(paths, files.iter().map(|(_, b)| b.len() as u64).collect(), again);
    let mut probed = 0u64;
    for (i, (_, bytes)) in files.iter().enumerate() {
        let mut next = sessions.folder_probe(i, 0, Vec::new());
        while let Some((offset, len)) = next {
            let slice = bytes[offset as usize..(offset + len) as usize].to_vec();
            probed += len;
            next = sessions.folder_probe(i, offset, slice);
        }
    }
    let picked = sessions.folder_pick();
    for &i in &picked {
        let (path, bytes) = &files[i];
        let slot = sessions.folder_slot(i, bytes.len()).unwrap();
        if unreadable == Some(path.as_str()) {
            let half = bytes.len() / 2;
            slot[..half].copy_from_slice(&bytes[..half]);
            continue;
        }
        slot.copy_from_slice(bytes);
        sessions.folder_filled(i);
    }
    let read = picked.iter().map(|&i| files[i].0.clone()).collect();
    (sessions.folder_finish(), read, probed)
}

fn opened(sessions: &mut Sessions, doc: u32, name: &str, bytes: &[u8]) {
    let mut s = session(name, bytes);
    s.finish().unwrap();
    sessions.insert(doc, s);
}

fn status_of(messages: &[FromWorker], doc: u32) -> SymbolStatus {
    messages
        .iter()
        .find_map(|m| match &m.reply {
            Reply::Symbols(status) if m.doc == doc => Some((**status).clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no status for {doc}: {messages:?}"))
}

fn dso<'a>(status: &'a SymbolStatus, path_end: &str) -> &'a DsoStatus {
    status.dsos.iter().find(|d| d.path.ends_with(path_end)).unwrap_or_else(|| panic!("no {path_end}: {status:?}"))
}

/// `perf script`'s samples (blank-line separated) whose first frame ends with `end`.
fn leaf_samples_in(script: &str, end: &str) -> u64 {
    script.split("\n\n").filter_map(|s| s.lines().nth(1)).filter(|l| l.ends_with(end)).count() as u64
}

#[test]
fn sysroot_folder_names_libc_frames_reading_only_what_matches() {
    let mut sessions = Sessions::default();
    opened(&mut sessions, 1, "cprog.fp.perf.data", &corpus("bolt-perf/cprog/cprog.fp.perf.data"));
    let mut files = folder("sysroot");
    files.push((String::from("cprog"), corpus("bolt-perf/cprog/cprog")));
    let (messages, read, probed) = offer(&mut sessions, &files);

    // cprog.fp.perf.data.buildids.txt names cprog, ld.so and libc by build id: those,
    // and the debug files with their ids, are read; kallsyms (kernel samples) too.
    assert_eq!(
        read,
        [
            "sysroot/proc/kallsyms",
            "sysroot/usr/lib/debug/.build-id/7e/bc65e52f2bbea498b4040fa92f7238377aaba9.debug",
            "sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug",
            "sysroot/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            "sysroot/usr/lib/x86_64-linux-gnu/libc.so.6",
            "cprog",
        ]
    );
    // libm, libstdc++, libgcc_s and libm's debug file: only their headers and notes.
    assert!(probed < 64 * 1024, "probed {probed} bytes");

    // The stacks are rebuilt with them: libc's frames have perf script's names.
    let with = messages
        .iter()
        .find_map(|m| match &m.reply {
            Reply::Symbolized { with, .. } if m.doc == 1 && m.req.is_none() => Some(with.clone()),
            _ => None,
        })
        .unwrap();
    assert!(with.contains(&String::from("sysroot/usr/lib/x86_64-linux-gnu/libc.so.6")), "{with:?}");
    let script = String::from_utf8(corpus("bolt-perf/cprog/cprog.fp.perf.data.script.txt")).unwrap();
    assert!(script.contains(" msort_with_tmp.part.0+"));
    let names = sessions.get_mut(1).unwrap().frame_names().unwrap().names;
    assert!(names.iter().any(|n| n == "msort_with_tmp.part.0"), "{names:?}");
    assert!(names.iter().any(|n| n == "hot_loop"), "{names:?}");

    let status = status_of(&messages, 1);
    let libc = dso(&status, "/libc.so.6");
    assert_eq!(libc.build_id.as_deref(), Some("93ac61ec5a8eb1396f9fbd350e3169a558528a40"));
    assert_eq!(libc.matched.as_deref(), Some("sysroot/usr/lib/x86_64-linux-gnu/libc.so.6"));
    assert_eq!(
        libc.debug.as_deref(),
        Some("sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug")
    );
    assert_eq!(libc.samples, leaf_samples_in(&script, "/libc.so.6)"));
    let cprog = dso(&status, "/cprog");
    assert_eq!(cprog.build_id.as_deref(), Some("ac5e5d2c821278bbb9de3c8d7c090f208a46534e"));
    assert_eq!((cprog.matched.as_deref(), cprog.debug.as_deref()), (Some("cprog"), None));
    assert_eq!(cprog.samples, leaf_samples_in(&script, "/cprog)"));
    // [vdso] has a build id but no file: missing.
    assert_eq!(dso(&status, "[vdso]").matched, None);
    let kernel = dso(&status, "[kernel.kallsyms]");
    assert!(kernel.kernel);
    assert_eq!(kernel.build_id.as_deref(), Some("48dc540c8b76393804ca8088dbfa7d42911a9444"));
    assert_eq!(status.kallsyms.as_deref(), Some("sysroot/proc/kallsyms"));
    assert_eq!(status.kernel_samples, kernel.samples);
    assert_eq!(kernel.samples, leaf_samples_in(&script, "([kernel.kallsyms])"));
    // Ten files: nine ELFs (five libraries, three debug files, cprog) and kallsyms.
    assert_eq!(files.len(), 10);
    let scan = status.folder.unwrap();
    assert_eq!((scan.files, scan.elf, scan.read), (files.len() as u32, 9, 6));
    // Every sample lies in some DSO listed.
    assert_eq!(status.dsos.iter().map(|d| d.samples).sum::<u64>(), 469);
    assert!(status.error.is_none());
    // Asked again, the same status.
    let Some(Reply::Symbols(again)) = sessions.answer(1, Request::Symbols) else { panic!() };
    assert_eq!(*again, status);
}

#[test]
fn pipe_recording_matches_by_name_and_kallsyms_names_kernel_frames() {
    // A pipe recording has no build ids: libc is matched by file name, its debug
    // file by libc's build id; kallsyms (of the boot that recorded it) names the kernel.
    let mut sessions = Sessions::default();
    opened(&mut sessions, 4, "cprog.pipe.perf.data", &corpus("bolt-perf/cprog/cprog.pipe.perf.data"));
    let (messages, read, _) = offer(&mut sessions, &folder("sysroot"));
    assert!(read.contains(&String::from("sysroot/proc/kallsyms")), "{read:?}");
    assert!(!read.iter().any(|r| r.ends_with("libm.so.6") || r.ends_with("libstdc++.so.6.0.30")), "{read:?}");
    let status = status_of(&messages, 4);
    let libc = dso(&status, "/libc.so.6");
    assert_eq!(libc.build_id, None);
    assert_eq!(libc.matched.as_deref(), Some("sysroot/usr/lib/x86_64-linux-gnu/libc.so.6"));
    assert_eq!(
        libc.debug.as_deref(),
        Some("sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug")
    );
    assert_eq!(status.kallsyms.as_deref(), Some("sysroot/proc/kallsyms"));
    // cprog.pipe.perf.data.script-ip.txt: "ffffffff8225a6c1 do_syscall_64".
    let names = sessions.get_mut(4).unwrap().frame_names().unwrap().names;
    assert!(names.iter().any(|n| n == "do_syscall_64"), "{names:?}");
    // perf script -F ...,dso: the samples whose ip is in the kernel.
    let script = String::from_utf8(corpus("bolt-perf/cprog/cprog.pipe.perf.data.script-F.txt")).unwrap();
    let in_kernel = leaf_samples_in(&script, "([kernel.kallsyms])");
    assert!(in_kernel > 0);
    assert_eq!(status.kernel_samples, in_kernel);
    assert_eq!(dso(&status, "[kernel.kallsyms]").samples, in_kernel);
}

#[test]
fn binaries_dropped_one_by_one_show_in_the_status() {
    let mut sessions = Sessions::default();
    opened(&mut sessions, 1, "cprog.fp.perf.data", &corpus("bolt-perf/cprog/cprog.fp.perf.data"));
    opened(&mut sessions, 2, "cprog", &corpus("bolt-perf/cprog/cprog"));
    let Some(Reply::Symbols(before)) = sessions.answer(1, Request::Symbols) else { panic!() };
    assert!(before.dsos.iter().all(|d| d.matched.is_none()) && before.kallsyms.is_none(), "{before:?}");
    assert!(matches!(sessions.answer(1, Request::Symbolize { binaries: vec![2] }), Some(Reply::Symbolized { .. })));
    let Some(Reply::Symbols(after)) = sessions.answer(1, Request::Symbols) else { panic!() };
    assert_eq!(dso(&after, "/cprog").matched.as_deref(), Some("cprog"));
    assert_eq!(dso(&after, "/libc.so.6").matched, None);
    // A binary's own document has no DSOs.
    assert!(matches!(sessions.answer(2, Request::Symbols), Some(Reply::Failed(_))));
    // A folder with nothing to match reads nothing whole and changes no stacks.
    let (messages, read, _) = offer(&mut sessions, &[(String::from("notes.txt"), b"hello".to_vec())]);
    assert!(read.is_empty());
    assert!(!messages.iter().any(|m| matches!(m.reply, Reply::Symbolized { .. } | Reply::Failed(_))), "{messages:?}");
    assert_eq!(status_of(&messages, 1).folder.map(|f| (f.files, f.elf, f.read)), Some((1, 0, 0)));
}

#[test]
fn a_folder_given_before_a_recording_opens_names_it_when_offered_again() {
    // The folder comes first (dropped alone, or read while the recording still
    // streams in): no recording takes it, and none is symbolized.
    let mut sessions = Sessions::default();
    let files = folder("sysroot");
    let (messages, read, _) = offer(&mut sessions, &files);
    assert!(messages.is_empty() && read.is_empty(), "{messages:?} {read:?}");
    assert!(!sessions.folder_wanted());

    // A recording opens: it wants the folder, and the folder offered again names it.
    opened(&mut sessions, 1, "cprog.pipe.perf.data", &corpus("bolt-perf/cprog/cprog.pipe.perf.data"));
    assert!(sessions.folder_wanted());
    let (messages, read, _) = offer_as(&mut sessions, &files, true);
    assert!(read.contains(&String::from("sysroot/usr/lib/x86_64-linux-gnu/libc.so.6")), "{read:?}");
    let status = status_of(&messages, 1);
    assert_eq!(dso(&status, "/libc.so.6").matched.as_deref(), Some("sysroot/usr/lib/x86_64-linux-gnu/libc.so.6"));
    let names = sessions.get_mut(1).unwrap().frame_names().unwrap().names;
    assert!(names.iter().any(|n| n == "do_syscall_64"), "{names:?}");
    assert!(!sessions.folder_wanted());

    // A second recording opened later is given it alone: the first is not
    // symbolized again.
    opened(&mut sessions, 2, "cprog.fp.perf.data", &corpus("bolt-perf/cprog/cprog.fp.perf.data"));
    opened(&mut sessions, 3, "cprog", &corpus("bolt-perf/cprog/cprog"));
    assert!(sessions.folder_wanted());
    let (messages, _, _) = offer_as(&mut sessions, &files, true);
    assert_eq!(messages.iter().map(|m| m.doc).collect::<Vec<_>>(), [2, 2], "{messages:?}");
    assert!(dso(&status_of(&messages, 2), "/libc.so.6").matched.is_some());
    assert!(!sessions.folder_wanted());

    // A new folder goes to every recording open.
    let (messages, _, _) = offer(&mut sessions, &files);
    assert_eq!(messages.iter().filter(|m| matches!(m.reply, Reply::Symbols(_))).count(), 2, "{messages:?}");
}

#[test]
fn a_picked_file_whose_read_fails_names_nothing_and_the_folder_is_wanted_again() {
    let mut sessions = Sessions::default();
    opened(&mut sessions, 1, "cprog.pipe.perf.data", &corpus("bolt-perf/cprog/cprog.pipe.perf.data"));
    let files = folder("sysroot");
    let libc = "sysroot/usr/lib/x86_64-linux-gnu/libc.so.6";

    // libc's read stops halfway: its half-filled buffer is not taken for libc, the
    // status says which file was not read, and the other files still name frames.
    let (messages, read, _) = offer_failing(&mut sessions, &files, false, Some(libc));
    assert!(read.iter().any(|p| p == libc), "{read:?}");
    let status = status_of(&messages, 1);
    assert_eq!(dso(&status, "/libc.so.6").matched, None, "{status:?}");
    assert_eq!(status.error.as_deref(), Some(format!("could not be read: {libc}").as_str()));
    assert_eq!(status.folder.as_ref().map(|f| f.read), Some(read.len() as u32 - 1), "{status:?}");
    let names = sessions.get_mut(1).unwrap().frame_names().unwrap().names;
    assert!(names.iter().any(|n| n == "do_syscall_64"), "the kallsyms read names the kernel: {names:?}");

    // The recording still wants the folder; offered again and read whole, libc names it.
    assert!(sessions.folder_wanted());
    let (messages, _, _) = offer_as(&mut sessions, &files, true);
    let status = status_of(&messages, 1);
    assert_eq!(dso(&status, "/libc.so.6").matched.as_deref(), Some(libc));
    assert_eq!(status.error, None);
    assert!(!sessions.folder_wanted());
}
