//! `pgolens export F --to perf-script | perf-script-brstack | folded`: a perf.data
//! as `perf script` prints it, or its stacks folded as `perf script |
//! inferno-collapse-perf` writes them, with the binaries found as perf finds them.
//!
//! `--symfs DIR` is perf's: each DSO the recording names (its MMAP/MMAP2 paths,
//! with the build ids of MMAP2 or the BUILD_ID feature) is read from DIR + path,
//! its separate debug file from `DIR/usr/lib/debug/.build-id/xx/rest.debug`, and
//! the kernel's symbols from `DIR/proc/kallsyms` (unless `--kallsyms` names a
//! file). Only the files the recording names are read. `--binary` adds binaries
//! that are not under DIR (matched by build id, else by file name).

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use pgolens::formats::perf::machine::recorded_dsos;
use pgolens::formats::perf::script::{write_script_with, ScriptError, ScriptFields};
use pgolens::formats::perf::PerfData;
use pgolens::symbolize::{Binary, Symbolizer};

use crate::{failed, map};

/// What `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Script(ScriptFields),
    Folded,
}

/// Where the binaries and the kernel's symbols come from.
pub struct Sources<'a> {
    pub binaries: &'a [&'a String],
    pub kallsyms: Option<&'a String>,
    pub symfs: Option<&'a String>,
}

/// The text of a perf.data, streamed: it is several times the size of the file.
pub fn export(path: &str, target: Target, sources: &Sources) -> Result<(), String> {
    let bytes = map(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    // One pass in time order: the record index is not needed.
    let perf = PerfData::parse_unindexed(&input.data).map_err(|e| failed(path, &input, e))?;
    let mut files = Vec::new();
    if let Some(root) = sources.symfs {
        let dsos = recorded_dsos(&perf).map_err(|e| failed(path, &input, e))?;
        files = symfs_files(Path::new(root), dsos.iter().map(|d| (&d.name[..], d.build_id.as_deref())))?;
    }
    for binary in sources.binaries {
        files.push((binary.to_string(), map(binary)?));
    }
    let kallsyms = match (sources.kallsyms, sources.symfs) {
        (Some(file), _) => Some((file.to_string(), read(Path::new(file))?)),
        (None, Some(root)) => {
            let file = Path::new(root).join("proc/kallsyms");
            file.is_file().then(|| read(&file).map(|t| (file.display().to_string(), t))).transpose()?
        }
        (None, None) => None,
    };
    let mut symbols = Symbolizer::new();
    for (name, elf) in &files {
        symbols.add_binary(name, elf).map_err(|e| format!("{name}: {e}"))?;
    }
    if let Some((name, text)) = &kallsyms {
        symbols.set_kallsyms(text).map_err(|e| format!("{name}: {e}"))?;
    }
    let symbols = (!files.is_empty() || kallsyms.is_some()).then_some(&symbols);
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let sink = |chunk: &[u8]| out.write_all(chunk);
    let result = match target {
        Target::Script(fields) => write_script_with(&perf, fields, symbols, sink),
        Target::Folded => pgolens::formats::perf::script::folded::write_folded(&perf, symbols, sink),
    };
    let written = match result {
        Ok(()) => out.flush(),
        Err(ScriptError::Decode(e)) => return Err(failed(path, &input, e)),
        Err(ScriptError::Sink(e)) => Err(e),
    };
    crate::written(written)
}

/// The files under `root` that stand for the recording's DSOs, named by the path
/// the recording gives (which is what binaries are matched by without a build
/// id): each DSO's file, and the separate debug file of its build id (the
/// recorded one, else the file's own). Names perf gives no file (`[vdso]`,
/// `//anon`, `[kernel.kallsyms]`) and files that are missing or not ELF are
/// skipped, as perf skips them.
pub fn symfs_files<'d>(
    root: &Path,
    dsos: impl Iterator<Item = (&'d [u8], Option<&'d [u8]>)>,
) -> Result<Vec<(String, memmap2::Mmap)>, String> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (name, build_id) in dsos {
        let Ok(name) = std::str::from_utf8(name) else { continue };
        if !name.starts_with('/') || !seen.insert(name.to_string()) {
            continue;
        }
        let mut build_id = build_id.filter(|id| !id.is_empty()).map(<[u8]>::to_vec);
        let file = under(root, name);
        if file.is_file() {
            let bytes = map(&file.display().to_string())?;
            let Ok(binary) = Binary::parse(&bytes) else { continue };
            build_id = build_id.or(binary.build_id().map(<[u8]>::to_vec));
            out.push((name.to_string(), bytes));
        }
        if let Some(id) = build_id {
            let hex = pgolens::read::hex_string(&id);
            let (head, rest) = hex.split_at(2.min(hex.len()));
            let debug = root.join(format!("usr/lib/debug/.build-id/{head}/{rest}.debug"));
            if debug.is_file() && seen.insert(debug.display().to_string()) {
                let bytes = map(&debug.display().to_string())?;
                if Binary::parse(&bytes).is_ok() {
                    out.push((debug.display().to_string(), bytes));
                }
            }
        }
    }
    Ok(out)
}

/// `root` + an absolute path, as perf joins its `--symfs` to a DSO's name.
fn under(root: &Path, path: &str) -> PathBuf {
    root.join(path.trim_start_matches('/'))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}
