//! `pgolens`: the decoders of the pgolens core, for scripts and tests.
//!
//! ```text
//! pgolens detect FILE...        one line per file: FILE: ID [details]
//! pgolens dump [--json] FILE    the dump tree, indented with spans in hex, or as JSON
//! pgolens export FILE --to proftext [--binary ELF]
//!                               a raw or indexed instrprof profile as `llvm-profdata merge --text`
//!                               writes it; ELF: the instrumented binary of a correlated raw profile
//! pgolens export FILE --to perf-script | perf-script-brstack | folded
//!                [--symfs DIR] [--binary ELF]... [--kallsyms FILE]
//!                               a perf.data as `perf script -F comm,pid,tid,time,period,event,ip`
//!                               (or `-F ip,brstack`) prints it, or its stacks folded as
//!                               `perf script | inferno-collapse-perf` writes them; the binaries
//!                               (DIR + each recorded path, debug files by build id under
//!                               DIR/usr/lib/debug/.build-id, DIR/proc/kallsyms) name frames, unwind
//!                               `--call-graph dwarf` stacks and add their inline frames, as perf's
//! pgolens export FILE --to fdata [--binary ELF] [--ba] [-o OUT]
//!                               an LBR perf.data as `perf2bolt ELF -p FILE -o OUT.fdata` writes OUT,
//!                               a pre-aggregated profile as `perf2bolt ELF --pa -p FILE` does
//!                               (--ba: basic samples, as `perf2bolt --ba`), an fdata re-written
//! pgolens export FILE --to yaml [--binary ELF] [--ba] [-o OUT]
//! pgolens export FILE --to sampletext|dump-gcov|afdo|gcov4|gcov4-compact|gcov4-text [-o OUT]
//!                               a BOLT YAML profile re-written as LLVM's YAML writer writes it, or
//!                               for a perf.data / pre-aggregated profile of a BOLTed ELF (with BAT)
//!                               the YAML `perf2bolt ELF -p FILE -w OUT` writes
//! pgolens merge A B... [-o OUT] [--threads N]  fdata or YAML profiles summed as `merge-fdata A B... -o OUT` does
//! pgolens share FILE... -o OUT.html [--page PAGE.html] [--link FRAGMENT]
//!                               the self-contained page (dist/pgolens.html, embedded at build time
//!                               when it existed, else --page) carrying the files, opening on them
//!                               (FRAGMENT: a link's view; by default the files, the first shown)
//! ```

mod bolt;
mod perf;
mod sample;
mod share;
mod spool;

use std::io::{self, Write};
use std::process::ExitCode;

use pgolens::dump::{write_json, write_text};
use pgolens::formats::perf::script::ScriptFields;
use pgolens::{Detection, Node};

pub const USAGE: &str = "usage: pgolens detect FILE...\n       pgolens dump [--json] FILE\n       pgolens export FILE --to proftext [--binary ELF]\n       pgolens export FILE --to perf-script|perf-script-brstack|folded [--symfs DIR] [--binary ELF]... [--kallsyms FILE]\n       pgolens export FILE --to fdata [--binary ELF] [--ba] [-o OUT]\n       pgolens export FILE --to yaml [--binary ELF] [--ba] [-o OUT]\n       pgolens export FILE --to sampletext|dump-gcov|afdo|gcov4|gcov4-compact|gcov4-text [-o OUT]\n       pgolens merge A B... [-o OUT] [--threads N]\n       pgolens share FILE... -o OUT.html [--page PAGE.html] [--link FRAGMENT]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("detect") if args.len() > 1 => detect(&args[1..]),
        Some("dump") => match &args[1..] {
            [flag, file] if flag == "--json" => dump(file, true),
            [file] => dump(file, false),
            _ => Err(USAGE.to_string()),
        },
        Some("export") => export(&args[1..]),
        Some("merge") => bolt::merge(&args[1..]),
        Some("share") => share::share(&args[1..]),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Empty: each failure was reported on its own line already.
        Err(message) => {
            if !message.is_empty() {
                eprintln!("pgolens: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// A decoder's error about `path`, whose content `input` is: one line naming the
/// file, with the offset in it (in a compressed file, said to be one in its
/// decompressed content).
pub fn failed(path: &str, input: &pgolens::Input, e: pgolens::Error) -> String {
    format!("{path}: {}", input.locate(e))
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

/// The file mapped read-only, for the large inputs of `export`: reading would copy
/// every byte out of the page cache into freshly zeroed pages (a quarter of the
/// time of a 200 MB export went to that copy and its page faults). `populate`
/// maps every page up front instead of faulting them in one by one.
pub fn map(path: &str) -> Result<memmap2::Mmap, String> {
    map_with(path, memmap2::MmapOptions::new().populate())
}

/// The file mapped read-only, its pages mapped as they are first read: for many
/// inputs read on several threads at once (`merge`), which then map their own
/// pages as they go instead of waiting for all of them to be mapped first.
pub fn map_lazily(path: &str) -> Result<memmap2::Mmap, String> {
    map_with(path, &memmap2::MmapOptions::new())
}

fn map_with(path: &str, options: &memmap2::MmapOptions) -> Result<memmap2::Mmap, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    // SAFETY: the map is only read. If another process truncates or rewrites the
    // file while we run, we may read garbage or get SIGBUS, the same contract every
    // mmap-based tool (llvm-profdata included) has; the decoder never trusts the
    // bytes, so garbage can only make it report an error.
    unsafe { options.map(&file) }.map_err(|e| format!("{path}: {e}"))
}

/// One line per file: its detection on stdout, or why not on stderr (and the exit
/// status says some failed, with no further line).
fn detect(paths: &[String]) -> Result<(), String> {
    let mut all = true;
    for path in paths {
        // Compressed files are decompressed only as far as their format shows.
        let result = map(path).and_then(|bytes| pgolens::sniff(&bytes).map_err(|e| format!("{path}: {e}")));
        match result {
            Ok(detection) => println!("{path}: {detection}"),
            Err(message) => {
                eprintln!("pgolens: {message}");
                all = false;
            }
        }
    }
    if all {
        Ok(())
    } else {
        Err(String::new())
    }
}

/// The whole dump, or nothing: printed into a [`spool::Output`] that reaches stdout
/// only once every deferred node has been expanded without error.
fn dump(path: &str, json: bool) -> Result<(), String> {
    let bytes = read(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let detection = input.detect().map_err(|e| format!("{path}: {e}"))?;
    let fail = |e| failed(path, &input, e);
    let root = pgolens::dump(&input.data, &detection).map_err(fail)?;
    let mut out = spool::Output::stdout();
    let printed = if json {
        print_json(&input.data, &detection, &root, &fail, &mut out)
            .and_then(|()| out.write_all(b"\n").map_err(io_error))
    } else {
        print_text(&input.data, &detection, &root, 0, &fail, &mut out)
    };
    if let Err(message) = printed {
        out.abandon();
        return Err(message);
    }
    written(out.finish())
}

pub fn io_error(e: io::Error) -> String {
    format!("writing output: {e}")
}

/// What writing the output came to: a broken pipe (`| head` closed it: what was
/// asked for was printed, as a tool killed by SIGPIPE would have it) is no error.
pub fn written(result: io::Result<()>) -> Result<(), String> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(io_error),
    }
}

/// How a decoder's error is said (the file named, the offset located in it).
type Fail<'a> = dyn Fn(pgolens::Error) -> String + 'a;

/// Deferred children are expanded one node at a time and dropped once printed, so
/// the whole tree of a large file is never in memory.
fn children_of(data: &[u8], detection: &Detection, node: &Node, fail: &Fail) -> Result<Option<Vec<Node>>, String> {
    match &node.deferred {
        Some(deferred) => pgolens::expand(data, detection, deferred).map(Some).map_err(fail),
        None => Ok(None),
    }
}

fn print_text(
    data: &[u8],
    det: &Detection,
    node: &Node,
    depth: usize,
    fail: &Fail,
    out: &mut impl Write,
) -> Result<(), String> {
    let mut line = String::new();
    write_text(node, depth, &mut line);
    out.write_all(line.as_bytes()).map_err(io_error)?;
    let expanded = children_of(data, det, node, fail)?;
    for child in expanded.as_deref().unwrap_or(&node.children) {
        print_text(data, det, child, depth + 1, fail, out)?;
    }
    Ok(())
}

fn print_json(data: &[u8], det: &Detection, node: &Node, fail: &Fail, out: &mut impl Write) -> Result<(), String> {
    let expanded = children_of(data, det, node, fail)?;
    let children = expanded.as_deref().unwrap_or(&node.children);
    // The node itself without children, then its children streamed into the array.
    let mut head = Node::new(node.label.clone(), node.start, node.end);
    head.value = node.value.clone();
    let mut text = String::new();
    write_json(&head, &mut text);
    text.pop(); // the closing brace
    out.write_all(text.as_bytes()).map_err(io_error)?;
    if !children.is_empty() {
        out.write_all(b",\"children\":[").map_err(io_error)?;
        for (i, child) in children.iter().enumerate() {
            if i > 0 {
                out.write_all(b",").map_err(io_error)?;
            }
            print_json(data, det, child, fail, out)?;
        }
        out.write_all(b"]").map_err(io_error)?;
    }
    out.write_all(b"}").map_err(io_error)
}

fn export(args: &[String]) -> Result<(), String> {
    let mut file = None;
    let mut to = None;
    let mut binary = None;
    // perf-script: every --binary names call-chain frames, with --kallsyms.
    let mut binaries = Vec::new();
    let mut kallsyms = None;
    let mut symfs = None;
    let mut basic = false;
    let mut output = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--to" => to = rest.next(),
            "--binary" => {
                binary = rest.next();
                binaries.extend(binary);
            }
            "--kallsyms" => kallsyms = rest.next(),
            "--symfs" => symfs = rest.next(),
            "--ba" => basic = true,
            "-o" => output = Some(rest.next().ok_or("-o needs a file")?.as_str()),
            _ if file.is_none() && !arg.starts_with("--") => file = Some(arg),
            _ => return Err(USAGE.to_string()),
        }
    }
    let (Some(path), Some(to)) = (file, to) else { return Err(USAGE.to_string()) };
    if sample::TARGETS.contains(&to.as_str()) {
        return sample::export(path, to, output);
    }
    if output.is_some() && !matches!(to.as_str(), "fdata" | "yaml") {
        return Err(format!("-o is for --to fdata, yaml and the sample-profile targets; --to {to} writes to stdout"));
    }
    let sources = perf::Sources { binaries: &binaries, kallsyms, symfs };
    if symfs.is_some() && !matches!(to.as_str(), "perf-script" | "perf-script-brstack" | "folded") {
        return Err(format!("--symfs is for --to perf-script, perf-script-brstack and folded, not {to}"));
    }
    match to.as_str() {
        "proftext" => {}
        "perf-script" => return perf::export(path, perf::Target::Script(ScriptFields::Samples), &sources),
        "perf-script-brstack" => return perf::export(path, perf::Target::Script(ScriptFields::Brstack), &sources),
        "folded" => return perf::export(path, perf::Target::Folded, &sources),
        "fdata" => return bolt::export_fdata(path, binary.map(String::as_str), basic, output),
        "yaml" => return bolt::export_yaml(path, binary.map(String::as_str), basic, output),
        _ => {
            return Err(format!(
                "cannot export to {to}: the targets are proftext, perf-script, perf-script-brstack, folded, fdata, yaml, {}",
                sample::TARGETS.join(", ")
            ))
        }
    }
    let bytes = map(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let elf = binary.map(|b| map(b)).transpose()?;
    let profile =
        pgolens::formats::instrprof::decode(&input.data, elf.as_deref()).map_err(|e| failed(path, &input, e))?;
    // Streamed: the text of a large profile is as large as the file.
    let mut out = io::stdout().lock();
    let written = pgolens::formats::instrprof::proftext::write_chunks(&profile, 1 << 20, &mut |b| out.write_all(b))
        .and_then(|()| out.flush())
        .map_err(io_error);
    // The process ends right after: freeing a model of a million small allocations
    // one by one took a tenth of the export, and the OS takes the pages back at once.
    std::mem::forget(profile);
    written
}
