//! The campaign's findings (`scripts/fuzz.sh`), one test each: the input that broke a
//! target, kept in `fuzz/regressions/TARGET/NAME`, run through the target again. A
//! test's name says what went wrong.

use std::path::Path;

/// Runs target `target` on `fuzz/regressions/{target}/{name}`.
fn replay(target: &str, name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions").join(target).join(name);
    let input = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let run = pgolens_fuzz::TARGETS.iter().find(|t| t.name == target).unwrap_or_else(|| panic!("no target {target}"));
    (run.run)(&input);
}

/// An ELF whose `.eh_frame_hdr` search table points below `.eh_frame`: gimli
/// 0.32's lookup subtracted the two unchecked (an overflow while unwinding a
/// DWARF-mode recording's stacks).
#[test]
fn eh_frame_hdr_entry_below_eh_frame() {
    replay("symbolize", "eh-frame-hdr-entry-below-eh-frame");
}

/// A YAML profile whose version is not 1 and whose second function lacks its name:
/// the whole text's decode reports the function (the version is checked at the
/// end); the stream reported the version from its first piece.
#[test]
fn bad_version_then_bad_function() {
    replay("bolt_yaml", "bad-version-then-bad-function");
}

/// A damaged YAML profile whose flow collection is left open across the next
/// function's line: the stream cut its piece there and failed inside the
/// collection, the whole text's decode further on (the page reads a file whose
/// stream failed whole, which says the whole text's error).
#[test]
fn flow_collection_open_across_a_function() {
    replay("bolt_yaml", "flow-collection-open-across-a-function");
}

/// An unknown key whose flow value runs across the next function's line: the whole
/// text's decode skips it and reads the profile, the stream cut its piece inside it
/// and failed (the page then reads the file whole).
#[test]
fn unknown_key_flow_value_across_a_function() {
    replay("bolt_yaml", "unknown-key-flow-value-across-a-function");
}

/// A damaged pipe recording whose MMAP and COMM records come before any event is
/// announced: read whole, the file's later events timed them and placed them in
/// perf's time order; the stream, which knows only the events seen so far, left
/// them untimed and released them at the end. The stream now fails there, as perf
/// does (it cannot time such a record either); a recording the stream rejects is
/// read whole.
#[test]
fn kernel_record_before_any_event() {
    replay("perf", "kernel-record-before-any-event");
}

/// A damaged pipe recording whose sample (byte 3,684) comes before a second event
/// is announced (HEADER_ATTR at byte 4,012): read whole, both events decided which
/// event the sample was, and so its time; the stream, which knew one event then,
/// took it for that one and placed it elsewhere in perf's time order. The stream
/// now fails at an event announced after a record was read by the events before
/// it (real recordings announce every event first); the page reads such a file
/// whole.
#[test]
fn sample_before_a_second_event() {
    replay("perf", "sample-before-a-second-event");
}

/// A file-mode recording with a HEADER_ATTR record among its records (an event
/// of an unknown type, no EVENT_DESC): read whole, the event was named when all
/// records were read (`type 4198816 config …`); streamed, the file's events were
/// named before its records, and the one the record added kept no name.
#[test]
fn header_attr_in_a_file_recording() {
    replay("worker_session", "header-attr-in-a-file-recording");
}

/// An fdata input whose records end in its first half (a line starting with a
/// byte that is no symbol kind, after which BOLT reads nothing): read in parts,
/// the second part was read as records, and failed where the whole input does not.
#[test]
fn records_end_before_a_cut() {
    replay("bolt_fdata", "records-end-before-a-cut");
}
