//! The corpus seeds of each target: the files of `tests/corpus/` and of the core's
//! test data (`crate/tests/data/`, which has gzip and zstd inputs) whose detected
//! format is one the target reads, each cut to [`crate::MAX_INPUT`] bytes as the
//! targets would see it. Nothing is copied: the smoke test reads them in place,
//! `pgolens-fuzz-seeds` links them into the campaign's seed directories.

use std::path::{Path, PathBuf};

use pgolens::Format;

use crate::{Target, MAX_INPUT};

/// Which corpus files seed a target.
#[derive(Clone, Copy, Debug)]
pub enum Seeds {
    /// Every file that detects as a profile, ELF or kallsyms file.
    Any,
    /// The files detected as one of these formats (after gzip or zstd).
    Formats(&'static [Format]),
    /// These files (paths under `tests/corpus/`): the inputs that match a target's
    /// fixed second files.
    Files(&'static [&'static str]),
}

impl Seeds {
    pub fn accepts(self, seed: &Seed) -> bool {
        match self {
            Seeds::Any => true,
            Seeds::Formats(formats) => formats.contains(&seed.format),
            Seeds::Files(files) => files.iter().any(|f| seed.path.ends_with(Path::new("tests/corpus").join(f))),
        }
    }
}

/// A corpus file and what it detects as.
#[derive(Clone, Debug)]
pub struct Seed {
    pub path: PathBuf,
    pub format: Format,
    /// Its length as a target reads it (at most [`MAX_INPUT`]).
    pub len: usize,
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The directories seeds are taken from.
pub fn corpus_dirs() -> [PathBuf; 2] {
    let root = repo_root();
    [root.join("tests/corpus"), root.join("crate/tests/data")]
}

/// A seed's bytes as a target reads them: the file's first [`MAX_INPUT`] bytes.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut data = std::fs::read(path)?;
    data.truncate(MAX_INPUT);
    Ok(data)
}

/// Every corpus file that detects as some format, in path order.
pub fn index() -> Vec<Seed> {
    let mut files = Vec::new();
    for dir in corpus_dirs() {
        walk(&dir, &mut files);
    }
    files
        .into_iter()
        .filter_map(|path| {
            let data = read(&path).ok()?;
            let format = pgolens::open(&data).ok()?.detect().ok()?.format;
            Some(Seed { path, format, len: data.len() })
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The seeds of `target` in `index`.
pub fn of<'i>(target: &Target, index: &'i [Seed]) -> Vec<&'i Seed> {
    index.iter().filter(|s| target.seeds.accepts(s)).collect()
}

/// At most `per_format` seeds of each format, spread over the sizes of those no
/// longer than `max_len` (the smallest of the format when none is): the smoke
/// test's share of a target's seeds, which it cuts to `max_len` bytes.
pub fn spread_per_format<'i>(seeds: &[&'i Seed], per_format: usize, max_len: usize) -> Vec<&'i Seed> {
    let mut sorted = seeds.to_vec();
    sorted.sort_by(|a, b| (a.len, &a.path).cmp(&(b.len, &b.path)));
    let mut out = Vec::new();
    for format in Format::ALL {
        let all: Vec<&Seed> = sorted.iter().copied().filter(|s| s.format == format).collect();
        let short: Vec<&Seed> = all.iter().copied().filter(|s| s.len <= max_len).collect();
        let of = if short.is_empty() { all.get(..1).unwrap_or_default().to_vec() } else { short };
        let n = of.len();
        let take = per_format.min(n);
        let mut picked: Vec<usize> = (0..take).map(|i| if take > 1 { i * (n - 1) / (take - 1) } else { 0 }).collect();
        picked.dedup();
        out.extend(picked.into_iter().filter_map(|i| of.get(i).copied()));
    }
    out
}
