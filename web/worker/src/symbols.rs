//! What names a recording's frames: the DSOs it names (with build ids and samples,
//! see `pgolens::formats::perf::dsos`), the files given for them, and a dropped
//! folder matched against them without reading it whole.
//!
//! A folder arrives as `File` handles (see [`pgolens_protocol::SymbolsFolder`]).
//! The JS glue reads, for each file, the slices [`Folder::probe`] asks for (its
//! first 64 bytes, then its section headers and notes: a few KB for an ELF, 64
//! bytes for anything else); [`Folder::pick`] then says which files to read in
//! full: the ELFs whose build id a recorded DSO has (a library and its separate
//! debug file share one), those named like a DSO recorded without a build id, and
//! a `kallsyms` when the recording has kernel samples.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pgolens::formats::perf::dsos::{self, DsoUse, Probe};
use pgolens::formats::perf::PerfData;
use pgolens::symbolize::{basename, files_for_dso};
use pgolens_protocol::{DsoStatus, FolderScan, SymbolStatus};

use crate::session::{fail, failure, Failure};

/// The DSOs of a recording (its bytes: one pass over its records).
pub fn recording_dsos(data: &[u8]) -> Result<Vec<DsoUse>, Failure> {
    let perf = PerfData::parse_unindexed(data).map_err(failure)?;
    dsos::dsos(&perf).map_err(failure)
}

/// What the worker knows of one recording's symbols.
#[derive(Default)]
pub struct Known {
    pub dsos: Vec<DsoUse>,
    /// The last folder offered to it.
    pub scan: Option<FolderScan>,
}

/// A file given to name frames: its name (a folder's files: their path in it),
/// its bytes, whether it is a kallsyms file.
pub struct GivenFile<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
    pub kallsyms: bool,
}

/// A folder's files being probed and read.
#[derive(Default)]
pub struct Folder {
    pub paths: Vec<String>,
    sizes: Vec<u64>,
    /// The slices read of each file, at their offsets.
    pieces: Vec<Vec<(u64, Vec<u8>)>>,
    probes: Vec<Option<Probe>>,
    /// The files read in full.
    pub full: BTreeMap<usize, Rc<Vec<u8>>>,
    /// The files picked to be read in full ([`Folder::pick`]).
    pub picked: Vec<usize>,
    /// The buffers handed out by [`Folder::slot`] and not yet said filled: a read
    /// that failed midway leaves its file here, never used.
    filling: BTreeMap<usize, Vec<u8>>,
    /// Bytes read by probing.
    pub probed_bytes: u64,
}

/// The most slices one file is probed with (an ELF needs three).
const MAX_PROBES: usize = 8;

impl Folder {
    pub fn new(paths: Vec<String>, sizes: Vec<u64>) -> Folder {
        let n = paths.len();
        Folder { paths, sizes, pieces: alloc::vec![Vec::new(); n], probes: alloc::vec![None; n], ..Folder::default() }
    }

    /// Adds `bytes` read at `offset` of file `index` (none on the first call) and
    /// returns the next slice to read, `(offset, len)`, or `None` once the file is known.
    pub fn probe(&mut self, index: usize, offset: u64, bytes: Vec<u8>) -> Option<(u64, u64)> {
        let size = *self.sizes.get(index)?;
        let pieces = self.pieces.get_mut(index)?;
        if !bytes.is_empty() {
            self.probed_bytes = self.probed_bytes.saturating_add(bytes.len() as u64);
            pieces.push((offset, bytes));
        }
        // A `kallsyms` is text: known by its name, read whole only when wanted.
        let name = self.paths.get(index).map_or("", |p| basename(p));
        let probe = if name == "kallsyms" {
            Probe::NotElf
        } else {
            let slices: Vec<(u64, &[u8])> = pieces.iter().map(|(o, b)| (*o, b.as_slice())).collect();
            match dsos::probe_elf(size, &slices) {
                Probe::Need { .. } if pieces.len() >= MAX_PROBES => Probe::Elf { build_id: None },
                probe => probe,
            }
        };
        let need = match probe {
            Probe::Need { offset, len } => Some((offset, len)),
            _ => None,
        };
        if let Some(slot) = self.probes.get_mut(index) {
            *slot = need.is_none().then_some(probe);
        }
        need
    }

    /// The files to read in full for recordings with these DSOs: the ELFs that
    /// stand for one of them ([`files_for_dso`]), and a kallsyms for kernel samples.
    pub fn pick<'d>(&self, recordings: impl Iterator<Item = &'d [DsoUse]> + Clone) -> Vec<usize> {
        let elves: Vec<usize> = (0..self.paths.len()).filter(|&i| self.is_elf(i)).collect();
        let mut picked = self.standing_for(&elves, recordings.clone().flatten());
        let kernel = recordings.clone().any(|dsos| dsos.iter().any(|d| d.kernel && d.samples > 0));
        if let Some(kallsyms) =
            (0..self.paths.len()).find(|&i| !self.is_elf(i) && self.is_kallsyms(i)).filter(|_| kernel)
        {
            picked.push(kallsyms);
        }
        picked.sort_unstable();
        picked
    }

    /// Of the ELFs `elves` (file indices), those that stand for one of `dsos`.
    fn standing_for<'d>(&self, elves: &[usize], dsos: impl Iterator<Item = &'d DsoUse>) -> Vec<usize> {
        let ids: Vec<Option<Vec<u8>>> = elves.iter().map(|&i| self.elf_build_id(i)).collect();
        let files: Vec<(&str, Option<&[u8]>)> = elves
            .iter()
            .zip(&ids)
            .map(|(&i, id)| (self.paths.get(i).map_or("", String::as_str), id.as_deref()))
            .collect();
        let mut chosen = BTreeSet::new();
        for d in dsos.filter(|d| !d.kernel) {
            let path = String::from_utf8_lossy(&d.name);
            chosen.extend(files_for_dso(&path, d.build_id.as_deref(), &files).into_iter().filter_map(|k| elves.get(k)));
        }
        chosen.into_iter().collect()
    }

    fn is_elf(&self, index: usize) -> bool {
        matches!(self.probes.get(index), Some(Some(Probe::Elf { .. })))
    }

    /// A `kallsyms` is text: known by its name.
    fn is_kallsyms(&self, index: usize) -> bool {
        self.paths.get(index).is_some_and(|p| basename(p) == "kallsyms")
    }

    /// File `index`'s build id, when it is an ELF that has one.
    fn elf_build_id(&self, index: usize) -> Option<Vec<u8>> {
        match self.probes.get(index)? {
            Some(Probe::Elf { build_id }) => self.build_id_of(index, build_id.as_deref()),
            _ => None,
        }
    }

    /// A probed ELF's build id, or the one its `.build-id/xx/rest.debug` path names.
    fn build_id_of(&self, index: usize, probed: Option<&[u8]>) -> Option<Vec<u8>> {
        if let Some(id) = probed {
            return Some(id.to_vec());
        }
        let path = self.paths.get(index)?;
        let (dir, file) = path.rsplit_once('/')?;
        let rest = file.strip_suffix(".debug")?;
        let (parent, xx) = dir.rsplit_once('/').unwrap_or(("", dir));
        if !parent.ends_with(".build-id") && parent != ".build-id" {
            return None;
        }
        unhex(&alloc::format!("{xx}{rest}"))
    }

    /// A buffer of `len` bytes for file `index`, for the caller to fill and then
    /// say so ([`Folder::filled`]).
    pub fn slot(&mut self, index: usize, len: usize) -> Result<&mut [u8], Failure> {
        if index >= self.paths.len() {
            return Err(fail("no such file"));
        }
        let mut buffer = Vec::new();
        buffer.try_reserve_exact(len).map_err(|_| fail("a folder's file does not fit in memory"))?;
        buffer.resize(len, 0);
        self.filling.insert(index, buffer);
        self.filling.get_mut(&index).map(Vec::as_mut_slice).ok_or_else(|| fail("no such file"))
    }

    /// File `index` was read whole into its [`Folder::slot`]: it can name frames.
    pub fn filled(&mut self, index: usize) {
        if let Some(buffer) = self.filling.remove(&index) {
            self.full.insert(index, Rc::new(buffer));
        }
    }

    /// The paths of the picked files that were not read whole (their read failed,
    /// or their buffer did not fit).
    pub fn unread(&self) -> Vec<&str> {
        let missing = self.picked.iter().filter(|i| !self.full.contains_key(i));
        missing.filter_map(|&i| self.paths.get(i).map(String::as_str)).collect()
    }

    /// What the folder held, for the status.
    pub fn scan(&self) -> FolderScan {
        let elf = self.probes.iter().filter(|p| matches!(p, Some(Probe::Elf { .. }))).count();
        FolderScan {
            files: u32::try_from(self.paths.len()).unwrap_or(u32::MAX),
            elf: u32::try_from(elf).unwrap_or(u32::MAX),
            read: u32::try_from(self.full.len()).unwrap_or(u32::MAX),
        }
    }

    /// The files read in full that name frames of a recording with `dsos`:
    /// `(path, bytes, kallsyms)`.
    pub fn files_for(&self, dsos: &[DsoUse]) -> Vec<(String, Rc<Vec<u8>>, bool)> {
        let elves: Vec<usize> = self.full.keys().copied().filter(|&i| self.is_elf(i)).collect();
        let mut chosen = self.standing_for(&elves, dsos.iter());
        if dsos.iter().any(|d| d.kernel) {
            chosen.extend(self.full.keys().copied().filter(|&i| !self.is_elf(i)));
        }
        chosen
            .into_iter()
            .filter_map(|i| Some((self.paths.get(i)?.clone(), Rc::clone(self.full.get(&i)?), !self.is_elf(i))))
            .collect()
    }
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || text.is_empty() {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i.checked_add(2)?)?, 16).ok()).collect()
}

/// Whether a file named `name` is a separate debug file (`x.debug`, or under a
/// `.build-id` folder).
fn is_debug_file(name: &str) -> bool {
    name.ends_with(".debug") || name.contains(".build-id/")
}

/// The status of a recording with `known` DSOs symbolized with `files`.
pub fn status(known: &Known, files: &[GivenFile<'_>]) -> SymbolStatus {
    let elves: Vec<(&str, Option<Vec<u8>>)> = files
        .iter()
        .filter(|f| !f.kallsyms)
        .map(|f| {
            let id = match dsos::probe_elf(f.data.len() as u64, &[(0, f.data)]) {
                Probe::Elf { build_id } => build_id,
                _ => None,
            };
            (f.name, id)
        })
        .collect();
    let elves: Vec<(&str, Option<&[u8]>)> = elves.iter().map(|(n, id)| (*n, id.as_deref())).collect();
    let kallsyms = files.iter().rev().find(|f| f.kallsyms).map(|f| f.name.to_string());
    let mut dsos: Vec<DsoStatus> = known
        .dsos
        .iter()
        .filter(|d| d.samples > 0 || d.build_id.is_some())
        .filter(|d| !d.name.starts_with(b"//") && !d.name.starts_with(b"[stack") && !d.name.starts_with(b"[heap"))
        .map(|d| {
            let path = String::from_utf8_lossy(&d.name).into_owned();
            let (matched, debug) = if d.kernel {
                (kallsyms.clone(), None)
            } else {
                let standing: Vec<&str> = files_for_dso(&path, d.build_id.as_deref(), &elves)
                    .into_iter()
                    .filter_map(|k| elves.get(k).map(|(n, _)| *n))
                    .collect();
                let matched = standing.iter().find(|n| !is_debug_file(n)).map(|n| n.to_string());
                let debug = standing.iter().find(|n| is_debug_file(n)).map(|n| n.to_string());
                (matched, debug)
            };
            DsoStatus {
                path,
                build_id: d.build_id.as_deref().map(pgolens::read::hex_string),
                samples: d.samples,
                kernel: d.kernel,
                matched,
                debug,
            }
        })
        .collect();
    // The DSOs most samples land in first, as `perf report --sort dso` lists them.
    dsos.sort_by_key(|d| core::cmp::Reverse(d.samples));
    let kernel_samples = known.dsos.iter().filter(|d| d.kernel).map(|d| d.samples).sum();
    SymbolStatus { dsos, kallsyms, kernel_samples, folder: known.scan, error: None }
}
