//! The files `perf script --symfs SYSROOT` reads for a recording of the corpus,
//! found as `pgolens export --symfs` finds them: each DSO the recording names
//! ([`recorded_dsos`]) under the sysroot, its separate debug file by build id
//! under `usr/lib/debug/.build-id/`, the sysroot's `proc/kallsyms`, and the
//! program itself, which the recording machine ran from outside the sysroot.

#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

use pgolens::formats::perf::machine::recorded_dsos;
use pgolens::formats::perf::PerfData;
use pgolens::symbolize::{Binary, Symbolizer};

/// What a recording is symbolized from: binaries by the name they are matched by,
/// and the kallsyms text.
pub struct SymbolFiles {
    pub binaries: Vec<(String, Vec<u8>)>,
    pub kallsyms: Vec<u8>,
}

impl SymbolFiles {
    pub fn symbolizer(&self) -> Symbolizer<'_> {
        let mut symbols = Symbolizer::new();
        for (name, bytes) in &self.binaries {
            symbols.add_binary(name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        symbols.set_kallsyms(&self.kallsyms).unwrap();
        symbols
    }
}

/// The corpus's copy of the recording machine: libraries, debug files, kallsyms.
pub fn sysroot() -> PathBuf {
    crate::common::corpus().join("bolt-perf/sysroot")
}

/// The program a corpus recording ran: `bolt-perf/<prog>/<prog>` for the files
/// beside it (the BOLTed recordings too: their call chains are not named).
pub fn program_of(data: &Path) -> Option<PathBuf> {
    let dir = data.parent()?;
    let program = dir.join(dir.file_name()?);
    program.is_file().then_some(program)
}

/// The files for `perf`, a recording of `program`.
pub fn symbol_files(perf: &PerfData<'_>, program: Option<&Path>) -> SymbolFiles {
    let root = sysroot();
    let mut binaries = Vec::new();
    for dso in recorded_dsos(perf).unwrap() {
        let Ok(name) = std::str::from_utf8(&dso.name) else { continue };
        if !name.starts_with('/') {
            continue;
        }
        let mut build_id = dso.build_id.clone();
        if let Ok(bytes) = std::fs::read(root.join(name.trim_start_matches('/'))) {
            build_id = build_id.or(Binary::parse(&bytes).unwrap().build_id().map(<[u8]>::to_vec));
            binaries.push((name.to_string(), bytes));
        }
        if let Some(id) = build_id {
            let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
            let debug = root.join(format!("usr/lib/debug/.build-id/{}/{}.debug", &hex[..2], &hex[2..]));
            if let Ok(bytes) = std::fs::read(&debug) {
                binaries.push((debug.display().to_string(), bytes));
            }
        }
    }
    if let Some(program) = program {
        binaries.push((program.display().to_string(), std::fs::read(program).unwrap()));
    }
    SymbolFiles { binaries, kallsyms: std::fs::read(root.join("proc/kallsyms")).unwrap() }
}
