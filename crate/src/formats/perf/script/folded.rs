//! Folded stacks, byte for byte as `perf script | inferno-collapse-perf` writes
//! them (inferno 0.12, default options): one line per distinct stack,
//! `comm;outermost;...;leaf count`, sorted by the stack's bytes.
//!
//! The frames are the ones [`super::write_script`] prints (the same walk: call
//! chains, unwound `--call-graph dwarf` stacks, inline frames), named as perf's
//! default fields name them (`sym+0xoff (dso)`), then read as inferno's
//! `collapse/perf.rs` reads that text:
//!
//! ```text
//! event filter  only samples of the first event seen (its name up to any ':');
//!               another event's line leaves inferno reading lines as its stack
//!               until a blank one: after a sample printed without a call chain
//!               (one line, no blank after it), every sample up to the end of the
//!               next one with a call chain is lost
//! comm          the text before the thread id, trimmed, spaces made '_'
//! count         the sample's period; 1 when the event does not record it or its
//!               name is padded (a shorter name than another event's: perf
//!               right-aligns it and inferno finds no period before it)
//! frame         "+0x<hex>" cut off the name; "[unknown]" becomes "[<module file>]"
//!               (the module: the DSO, "inlined" for an inline frame) unless the
//!               module is unknown too; names starting with '(' dropped; Rust
//!               hashes demangled; ';' made ':'; a top-level argument list cut
//!               ("(anonymous namespace)" and Go's ".(" kept); "java" comms: a
//!               leading 'L' of class names dropped; "a->b" split, inner ones "_[i]"
//! ```

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::super::record::{misc, Record};
use super::super::{attr::sample_type as st, machine::Machine, PerfData};
use super::{Entry, ScriptError, Walk};
use crate::error::Error;
use crate::symbolize::Symbolizer;

/// Folds the samples of `perf` and hands the lines to `sink` in chunks.
pub fn write_folded<E>(
    perf: &PerfData<'_>,
    symbols: Option<&Symbolizer<'_>>,
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), ScriptError<E>> {
    let stacks = fold(perf, symbols)?;
    let mut out = Vec::with_capacity(1 << 16);
    let mut buf = [0u8; 24];
    for (stack, count) in &stacks {
        out.extend_from_slice(stack.as_bytes());
        out.push(b' ');
        out.extend_from_slice(super::format_unsigned(&mut buf, *count));
        out.push(b'\n');
        if out.len() >= 1 << 16 {
            sink(&out).map_err(ScriptError::Sink)?;
            out.clear();
        }
    }
    if !out.is_empty() {
        sink(&out).map_err(ScriptError::Sink)?;
    }
    Ok(())
}

/// The folded stacks with their summed counts.
pub fn fold(perf: &PerfData<'_>, symbols: Option<&Symbolizer<'_>>) -> Result<BTreeMap<String, u64>, Error> {
    let mut machine = Machine::new(perf);
    let mut walk = Walk::new(perf, symbols);
    let width = perf.events.iter().map(|e| e.name.len()).max().unwrap_or(0);
    let events: Vec<(String, bool)> = perf
        .events
        .iter()
        .map(|e| {
            // inferno takes the last word before the event's first ':'.
            let before_colon = e.name.split(':').next().unwrap_or("");
            let period = e.attr.has(st::PERIOD) && e.name.len() == width;
            (String::from(before_colon.rsplit(' ').next().unwrap_or("")), period)
        })
        .collect();
    let mut filter: Option<usize> = None;
    // inferno reads lines as the stack of a filtered-out event until a blank line.
    let mut skipping = false;
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut frames: Vec<String> = Vec::new();
    perf.for_each_in_time_order(|position| {
        let decoded = perf.record_at(position);
        let record = match decoded {
            Ok(ref record) => record,
            Err(e) => return Err(e),
        };
        machine.apply(record);
        let Record::Sample(s) = &record.record else { return Ok(()) };
        let tid = s.tid.map_or(-1, |t| t as i32);
        // perf prints "-1", which inferno does not take for a thread id: the line
        // is not an event line and the sample is lost.
        if tid < 0 {
            return Ok(());
        }
        let Some((event, has_period)) = events.get(s.event) else { return Ok(()) };
        // Events with call chains end their text with a blank line.
        let chain = walk.chains.get(s.event).copied().unwrap_or(false);
        if skipping {
            skipping = !chain;
            return Ok(());
        }
        match filter {
            None => filter = Some(s.event),
            Some(first) if events.get(first).map(|e| &e.0) != Some(event) => {
                skipping = !chain;
                return Ok(());
            }
            Some(_) => {}
        }
        let thread = machine.thread(tid);
        let maps = thread.map(|t| t.maps);
        entries.clear();
        match s.callchain.filter(|_| chain) {
            Some(ips) => walk.chain(&machine, s, maps, ips, &mut entries),
            None => entries.push(Entry { ip: s.ip.unwrap_or(0), cpumode: s.cpumode(), inline: None }),
        }
        frames.clear();
        for entry in &entries {
            name_frame(&walk, &machine, maps, entry, &mut frames);
        }
        if frames.is_empty() {
            return Ok(());
        }
        let comm: &[u8] = thread.map_or(b":-1", |t| &t.comm);
        let mut stack = process_name(comm, tid, chain);
        let java = stack.starts_with("java");
        for frame in frames.iter().rev() {
            stack.push(';');
            tidy(frame, java, &mut stack);
        }
        let count = if *has_period { s.period.unwrap_or(0) } else { 1 };
        let slot = stacks.entry(stack).or_insert(0);
        *slot = slot.saturating_add(count);
        Ok(())
    })?;
    Ok(stacks)
}

/// The frame as inferno makes it of perf's `sym+0xoff (dso)` line: the name, or
/// `[<module file name>]` for `[unknown]`.
fn name_frame(walk: &Walk<'_, '_>, machine: &Machine, maps: Option<usize>, entry: &Entry, out: &mut Vec<String>) {
    let (name, module) = match &entry.inline {
        Some(inline) => (Some(inline.function.clone()), String::from("inlined")),
        None => {
            let name = walk.name(machine, maps, entry.cpumode, entry.ip);
            let module = match machine.resolve_in(maps, entry.cpumode, entry.ip) {
                Some(r) if r.filename.starts_with(b"[kernel.kallsyms]") => String::from("[kernel.kallsyms]"),
                Some(r) => String::from_utf8_lossy(r.filename).into_owned(),
                None if entry.cpumode == misc::KERNEL => String::from("[kernel.kallsyms]"),
                None => String::from("[unknown]"),
            };
            (name, module)
        }
    };
    let name = name.unwrap_or_else(|| String::from("[unknown]"));
    // perf prints "+0x<offset>" after a known symbol; inferno cuts it, and so any
    // such tail the name itself has.
    let name = match name.rfind("+0x") {
        Some(at) if name.get(at.saturating_add(3)..).is_some_and(|t| t.bytes().all(|b| b.is_ascii_hexdigit())) => {
            String::from(name.get(..at).unwrap_or(""))
        }
        _ => name,
    };
    if name.starts_with('(') {
        return;
    }
    if name != "[unknown]" || module == "[unknown]" {
        out.push(name);
        return;
    }
    let file = module.rsplit('/').next().unwrap_or(&module);
    out.push(alloc::format!("[{file}]"));
}

/// inferno's process name: the event line's text before the thread id (perf
/// prints the comm, padded to 16 columns without a call chain, then `%5d` of the
/// tid), trimmed, with spaces made '_'. A word of digits inside the comm is taken
/// for the thread id, as inferno takes it.
fn process_name(comm: &[u8], tid: i32, chain: bool) -> String {
    let comm = String::from_utf8_lossy(comm);
    let mut line = String::new();
    if !chain {
        line.extend(core::iter::repeat_n(' ', 16usize.saturating_sub(comm.chars().count())));
    }
    line.push_str(&comm);
    line.push_str(&alloc::format!(" {tid:5} "));
    let mut word_start = 0usize;
    let mut all_digits = false;
    let mut last_was_space = false;
    let mut comm_end = None;
    for (at, c) in line.char_indices() {
        if c == ' ' {
            if all_digits && !last_was_space {
                comm_end = Some(word_start.saturating_sub(1));
                break;
            }
            word_start = at.saturating_add(1);
            all_digits = true;
        } else if !(c.is_ascii_digit() || c == '/' && all_digits) {
            all_digits = false;
        }
        last_was_space = c == ' ';
    }
    let name = comm_end.and_then(|end| line.get(..end)).unwrap_or(&line).trim();
    name.replace(' ', "_")
}

/// Appends inferno's tidied form of one frame (its `->` pieces after the first
/// marked `_[i]`).
fn tidy(frame: &str, java: bool, out: &mut String) {
    let frame = rust_hash_fixed(frame);
    for (i, piece) in frame.split("->").enumerate() {
        if i > 0 {
            out.push(';');
        }
        let mut func = tidy_generic(piece);
        if java && func.starts_with('L') && func.contains('/') {
            func.remove(0);
        }
        out.push_str(&func);
        if i > 0 && !func.contains("_[i]") {
            out.push_str("_[i]");
        }
    }
}

/// ';' made ':', and the argument list cut at the first top-level '(' (not Go's
/// `pkg.(*T).f` nor C++'s `(anonymous namespace)`).
fn tidy_generic(func: &str) -> String {
    let func = func.replace(';', ":");
    let mut depth = 0i64;
    let mut after_dot = None;
    let mut end = func.len();
    for (at, c) in func.char_indices() {
        match c {
            '<' | '{' | '[' => depth = depth.saturating_add(1),
            '>' | '}' | ']' | ')' => depth = depth.saturating_sub(1),
            '(' => {
                if depth == 0 {
                    let go = after_dot == Some(at);
                    let anonymous = func.get(at..).is_some_and(|t| t.starts_with("(anonymous namespace)"));
                    if !go && !anonymous {
                        end = at;
                        break;
                    }
                }
                depth = depth.saturating_add(1);
            }
            '.' => after_dot = Some(at.saturating_add(1)),
            _ => {}
        }
    }
    String::from(func.get(..end).unwrap_or(&func))
}

/// A Rust symbol a profiler left half demangled (`..` for `::`, `$LT$` for `<`,
/// a trailing `::h<16 hex digits>`), finished as inferno finishes it.
fn rust_hash_fixed(symbol: &str) -> alloc::borrow::Cow<'_, str> {
    use alloc::borrow::Cow;
    const HASH: usize = 17;
    let hash = symbol.len().checked_sub(HASH).and_then(|at| symbol.get(at..));
    let is_hash = hash.is_some_and(|h| h.starts_with('h') && h.bytes().skip(1).all(|b| b.is_ascii_hexdigit()));
    if !is_hash {
        return Cow::Borrowed(symbol);
    }
    let mut rest = symbol.get(..symbol.len().saturating_sub(HASH)).unwrap_or("");
    rest = rest.strip_suffix("::").unwrap_or(rest);
    if rest.starts_with("_$") {
        rest = rest.get(1..).unwrap_or("");
    }
    const ESCAPES: [(&str, &str); 20] = [
        ("$SP$", "@"),
        ("$BP$", "*"),
        ("$RF$", "&"),
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$LP$", "("),
        ("$RP$", ")"),
        ("$C$", ","),
        ("$u7e$", "~"),
        ("$u20$", " "),
        ("$u27$", "'"),
        ("$u3d$", "="),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u3b$", ";"),
        ("$u2b$", "+"),
        ("$u21$", "!"),
        ("$u22$", "\""),
    ];
    let mut out = String::new();
    while !rest.is_empty() {
        if let Some(tail) = rest.strip_prefix("..") {
            out.push_str("::");
            rest = tail;
        } else if let Some(tail) = rest.strip_prefix('.') {
            out.push('.');
            rest = tail;
        } else if rest.starts_with('$') {
            match ESCAPES.iter().find(|(from, _)| rest.starts_with(from)) {
                Some((from, to)) => {
                    out.push_str(to);
                    rest = rest.get(from.len()..).unwrap_or("");
                }
                None => {
                    out.push_str(rest);
                    break;
                }
            }
        } else {
            let at = rest.find(['$', '.']).unwrap_or(rest.len());
            out.push_str(rest.get(..at).unwrap_or(""));
            rest = rest.get(at..).unwrap_or("");
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_tidied_as_inferno_tidies_them() {
        let tidied = |f: &str| {
            let mut out = String::new();
            tidy(f, false, &mut out);
            out
        };
        assert_eq!(tidied("main::$_0::operator()"), "main::$_0::operator");
        assert_eq!(
            tidied("std::vector<int, std::allocator<int> >::push_back(int)"),
            "std::vector<int, std::allocator<int> >::push_back"
        );
        assert_eq!(tidied("(anonymous namespace)::f(int)"), "(anonymous namespace)::f");
        assert_eq!(tidied("net/http.(*Client).Do"), "net/http.(*Client).Do");
        assert_eq!(tidied("a;b"), "a:b");
        assert_eq!(tidied("a->b"), "a;b_[i]");
        assert_eq!(
            tidied(
                "_$LT$std..fs..ReadDir$u20$as$u20$core..iter..traits..iterator..Iterator$GT$::next::hc14f1750ca79129b"
            ),
            "<std::fs::ReadDir as core::iter::traits::iterator::Iterator>::next"
        );
    }

    #[test]
    fn process_names_as_inferno_reads_event_lines() {
        assert_eq!(process_name(b"cprog", 13680, true), "cprog");
        assert_eq!(process_name(b"V8 WorkerThread", 7, false), "V8_WorkerThread");
        // A word of digits in the comm ends it, as inferno reads the line.
        assert_eq!(process_name(b"worker 12 x", 7, true), "worker");
    }
}
