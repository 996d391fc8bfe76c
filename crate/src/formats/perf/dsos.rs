//! What a recording needs to be symbolized: the DSOs it names, with their build
//! ids and how many samples land in each ([`dsos`]); the time range of its samples
//! ([`sample_time_range`], what a pipe-mode file's SAMPLE_TIME feature cannot say:
//! perf writes that record before any sample, as 0, 0); and which of a folder's
//! files are ELFs with which build id, read a few slices at a time ([`probe_elf`]),
//! so that a build directory or a sysroot is matched without reading it whole.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::machine::Machine;
use super::record::{c_string, misc};
use super::sample::Sample;
use super::{PerfData, Record};
use crate::error::Result;
use crate::read::{Endian, Reader};

/// One DSO the recording names (an MMAP/MMAP2, or the BUILD_ID feature).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsoUse {
    /// The path as perf recorded it (`/usr/lib/x86_64-linux-gnu/libc.so.6`,
    /// `[kernel.kallsyms]`, `[vdso]`, `//anon`...).
    pub name: Vec<u8>,
    /// From an MMAP2 with a build id or the BUILD_ID feature.
    pub build_id: Option<Vec<u8>>,
    /// Samples whose ip lies in the DSO.
    pub samples: u64,
    /// Mapped in the kernel's address space (the kernel, its modules).
    pub kernel: bool,
}

/// The recording's DSOs in the order perf first named them, each with the samples
/// whose ip it holds (resolved through the replayed maps as perf resolves them).
pub fn dsos(perf: &PerfData<'_>) -> Result<Vec<DsoUse>> {
    let mut machine = Machine::new(perf);
    let mut count = DsoCount::default();
    perf.for_each_in_time_order(|position| {
        let decoded = perf.record_at(position);
        let record = match decoded {
            Ok(ref record) => record,
            Err(e) => return Err(e),
        };
        machine.apply(record);
        if let Record::Sample(sample) = &record.record {
            let maps = machine.thread(sample.pid.map_or(-1, |p| p as i32)).map(|t| t.maps);
            count.sample(&machine, maps, sample);
        }
        Ok(())
    })?;
    Ok(count.uses(&machine, perf))
}

/// The samples of each DSO, counted as a recording's records are replayed in time
/// order (by [`dsos`], or by a reader that replays them for its own ends).
#[derive(Clone, Debug, Default)]
pub struct DsoCount {
    /// Per DSO index of the machine: samples, and whether a kernel map holds it.
    counts: Vec<(u64, bool)>,
    /// The last kernel sample's answer and the last other one's: most samples lie
    /// in the map of the one before in their mode (user and kernel samples
    /// alternate in a recording of system calls).
    last: [Option<LastDso>; 2],
}

/// Where a DSO of [`DsoCount::last`] holds: the address space and addresses of
/// [`Machine::dso_of`]'s answer, while the machine's maps stay.
#[derive(Clone, Debug)]
struct LastDso {
    changes: u64,
    maps: Option<usize>,
    addresses: core::ops::Range<u64>,
    dso: usize,
}

impl DsoCount {
    /// The samples of each DSO index of the machine, and whether a kernel map holds it.
    pub fn counts(&self) -> &[(u64, bool)] {
        &self.counts
    }

    /// Counts read back ([`DsoCount::counts`]), as a reader in another wasm
    /// instance counted them.
    pub fn of_counts(counts: Vec<(u64, bool)>) -> DsoCount {
        DsoCount { counts, last: [None, None] }
    }

    /// Adds the counts of `other`, counted over other samples of the same
    /// recording (the first part of it, read by another reader).
    pub fn add(&mut self, other: &DsoCount) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), (0, false));
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            mine.0 = mine.0.saturating_add(theirs.0);
            mine.1 |= theirs.1;
        }
    }

    /// Counts `sample` in the DSO its ip lies in; `machine` has applied every
    /// record before it, and `maps` is the sample's address space
    /// ([`super::machine::Thread::maps`] of its pid).
    pub fn sample(&mut self, machine: &Machine, maps: Option<usize>, sample: &Sample<'_>) {
        let Some(ip) = sample.ip else { return };
        let cpumode = sample.cpumode();
        // Other modes (hypervisor, guests) lie in no map perf keeps here.
        let kernel = match cpumode {
            misc::KERNEL => true,
            misc::USER => false,
            _ => return,
        };
        // The kernel's maps are every process's.
        let maps = if kernel { None } else { maps };
        let last = self.last.get_mut(usize::from(kernel));
        let index = match last.as_deref() {
            Some(Some(kept))
                if kept.changes == machine.changes() && kept.maps == maps && kept.addresses.contains(&ip) =>
            {
                kept.dso
            }
            _ => {
                let Some((dso, addresses)) = machine.dso_of(maps, cpumode, ip) else { return };
                if let Some(last) = last {
                    *last = Some(LastDso { changes: machine.changes(), maps, addresses, dso });
                }
                dso
            }
        };
        if self.counts.len() <= index {
            self.counts.resize(index.saturating_add(1), (0, false));
        }
        if let Some(count) = self.counts.get_mut(index) {
            count.0 = count.0.saturating_add(1);
            count.1 |= cpumode == misc::KERNEL;
        }
    }

    /// The DSOs `machine` knows, in the order perf first named them, with their
    /// samples; `perf`: the recording, its metadata complete.
    pub fn uses(&self, machine: &Machine, perf: &PerfData<'_>) -> Vec<DsoUse> {
        // perf names the BUILD_ID feature's files before any map (`Machine::new`); a
        // pipe recording read as it streams in gives them at its end, after its maps.
        let feature = perf.features.build_ids.iter().map(|e| c_string(&e.filename));
        let names = feature.chain(machine.dsos().iter().map(|d| &d.name[..]));
        let mut seen = BTreeSet::new();
        let mut out: Vec<DsoUse> = Vec::new();
        for raw in names {
            if !seen.insert(raw) {
                continue;
            }
            let index = machine.dso_named(raw);
            let (samples, kernel_map) = index.and_then(|i| self.counts.get(i)).copied().unwrap_or((0, false));
            let build_id = index
                .and_then(|i| machine.dsos().get(i))
                .and_then(|d| d.build_id.clone())
                .or_else(|| perf.features.build_id_named(|name| name == raw).map(<[u8]>::to_vec));
            // The kernel's map is `[kernel.kallsyms]_text` (its MMAP's name), the
            // BUILD_ID feature's entry `[kernel.kallsyms]`: one DSO for perf.
            let name = if raw.starts_with(KERNEL) { KERNEL } else { raw };
            match out.iter_mut().find(|d| d.name == name) {
                Some(known) => {
                    known.samples = known.samples.saturating_add(samples);
                    known.kernel |= kernel_map;
                    if known.build_id.is_none() {
                        known.build_id = build_id;
                    }
                }
                None => {
                    out.push(DsoUse { name: name.to_vec(), build_id, samples, kernel: kernel_map || name == KERNEL })
                }
            }
        }
        out
    }
}

/// perf's name for the kernel's DSO.
const KERNEL: &[u8] = b"[kernel.kallsyms]";

/// The time of the first and the last sample, in perf's clock (nanoseconds), read
/// without decoding the samples; `None` when no sample has a time. The earliest
/// and the latest time: one pass in file order, no time ordering needed.
pub fn sample_time_range(perf: &PerfData<'_>) -> Result<Option<(u64, u64)>> {
    let mut range: Option<(u64, u64)> = None;
    perf.for_each_position(|position| {
        let (kind, time) = perf.kind_and_time(position)?;
        if kind == super::record::PERF_RECORD_SAMPLE {
            if let Some(t) = time {
                range = Some(range.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
            }
        }
        Ok(())
    })?;
    Ok(range)
}

/// A sample time as perf prints it: seconds with six decimals (`328.158342`).
pub fn seconds(ns: u64) -> alloc::string::String {
    alloc::format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// What [`probe_elf`] knows of a file from the slices read so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Not an ELF file (or too short to be one).
    NotElf,
    /// Read `len` bytes at `offset` and probe again with them.
    Need { offset: u64, len: u64 },
    /// An ELF file, and its GNU build id when a note gives one.
    Elf { build_id: Option<Vec<u8>> },
}

/// The most bytes one note section or header table is read for: a build id note
/// is 36 bytes, a table of 1,000 section headers 64 KB.
const MAX_SLICE: u64 = 1 << 20;
/// `SHT_NOTE`, `PT_NOTE`, `NT_GNU_BUILD_ID`.
const SHT_NOTE: u32 = 7;
const PT_NOTE: u32 = 4;
const NT_GNU_BUILD_ID: u32 = 3;

/// Probes a file of `size` bytes for an ELF header and its GNU build id, from the
/// slices `(offset, bytes)` read so far: starts from none, and asks for the next
/// slice to read until it can answer.
///
/// ```text
/// [0, 64)                    ELF header: magic, class, byte order, e_phoff, e_shoff
/// [e_shoff, +shnum*shentsize) section headers → each SHT_NOTE section's bytes
/// [e_phoff, +phnum*phentsize) program headers → each PT_NOTE segment (no sections)
/// ```
///
/// Sections come first: a separate debug file keeps its notes' sections, while its
/// program headers describe the stripped file's layout.
pub fn probe_elf(size: u64, pieces: &[(u64, &[u8])]) -> Probe {
    let Some(head) = slice(pieces, 0, 64) else {
        return if size < 64 { Probe::NotElf } else { Probe::Need { offset: 0, len: 64 } };
    };
    let Some(elf) = ElfHeader::parse(head) else { return Probe::NotElf };
    let tables =
        [(elf.shoff, elf.shentsize, elf.shnum, SHT_NOTE, true), (elf.phoff, elf.phentsize, elf.phnum, PT_NOTE, false)];
    for (table_offset, entsize, count, note_type, sections) in tables {
        if table_offset == 0 || count == 0 || entsize == 0 {
            continue;
        }
        let len = u64::from(entsize).saturating_mul(u64::from(count));
        if len > MAX_SLICE || table_offset.saturating_add(len) > size {
            continue;
        }
        let Some(table) = slice(pieces, table_offset, len) else {
            return Probe::Need { offset: table_offset, len };
        };
        for entry in table.chunks_exact(usize::from(entsize)) {
            let Some((kind, offset, note_len)) = elf.note_range(entry, sections) else { continue };
            if kind != note_type || note_len == 0 || note_len > MAX_SLICE || offset.saturating_add(note_len) > size {
                continue;
            }
            let Some(notes) = slice(pieces, offset, note_len) else {
                return Probe::Need { offset, len: note_len };
            };
            if let Some(id) = gnu_build_id(notes, elf.endian) {
                return Probe::Elf { build_id: Some(id.to_vec()) };
            }
        }
        // A file with section headers says where its notes are; no phdr fallback.
        if sections {
            break;
        }
    }
    Probe::Elf { build_id: None }
}

/// The bytes `offset..offset + len` when one piece holds them all.
fn slice<'a>(pieces: &[(u64, &'a [u8])], offset: u64, len: u64) -> Option<&'a [u8]> {
    pieces.iter().find_map(|&(at, bytes)| {
        let start = usize::try_from(offset.checked_sub(at)?).ok()?;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        bytes.get(start..end)
    })
}

/// The fields of an ELF header the probe needs.
struct ElfHeader {
    wide: bool,
    endian: Endian,
    phoff: u64,
    shoff: u64,
    phentsize: u16,
    phnum: u16,
    shentsize: u16,
    shnum: u16,
}

impl ElfHeader {
    /// `e_ident` then, by class, the offsets and sizes of the two header tables.
    fn parse(head: &[u8]) -> Option<ElfHeader> {
        let mut r = Reader::new(head, Endian::Little);
        if r.bytes(4, "ELF magic").ok()? != b"\x7fELF" {
            return None;
        }
        let wide = match r.u8("EI_CLASS").ok()? {
            1 => false,
            2 => true,
            _ => return None,
        };
        let endian = match r.u8("EI_DATA").ok()? {
            1 => Endian::Little,
            2 => Endian::Big,
            _ => return None,
        };
        let mut r = Reader::new(head, endian);
        // e_ident (16), e_type, e_machine (2 each), e_version (4), e_entry (word).
        r.skip(if wide { 32 } else { 28 }, "e_ident..e_entry").ok()?;
        let word = if wide { 8 } else { 4 };
        let phoff = r.uint(word, "e_phoff").ok()?;
        let shoff = r.uint(word, "e_shoff").ok()?;
        r.skip(6, "e_flags, e_ehsize").ok()?;
        Some(ElfHeader {
            wide,
            endian,
            phoff,
            shoff,
            phentsize: r.u16("e_phentsize").ok()?,
            phnum: r.u16("e_phnum").ok()?,
            shentsize: r.u16("e_shentsize").ok()?,
            shnum: r.u16("e_shnum").ok()?,
        })
    }

    /// A section header's (`sections`) or program header's type, file offset and size.
    fn note_range(&self, entry: &[u8], sections: bool) -> Option<(u32, u64, u64)> {
        let mut r = Reader::new(entry, self.endian);
        let word = if self.wide { 8 } else { 4 };
        if sections {
            // sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size.
            r.u32("sh_name").ok()?;
            let kind = r.u32("sh_type").ok()?;
            r.skip(if self.wide { 16 } else { 8 }, "sh_flags, sh_addr").ok()?;
            Some((kind, r.uint(word, "sh_offset").ok()?, r.uint(word, "sh_size").ok()?))
        } else if self.wide {
            // p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz.
            let kind = r.u32("p_type").ok()?;
            r.u32("p_flags").ok()?;
            let offset = r.u64("p_offset").ok()?;
            r.skip(16, "p_vaddr, p_paddr").ok()?;
            Some((kind, offset, r.u64("p_filesz").ok()?))
        } else {
            // p_type, p_offset, p_vaddr, p_paddr, p_filesz.
            let kind = r.u32("p_type").ok()?;
            let offset = u64::from(r.u32("p_offset").ok()?);
            r.skip(8, "p_vaddr, p_paddr").ok()?;
            Some((kind, offset, u64::from(r.u32("p_filesz").ok()?)))
        }
    }
}

/// The descriptor of the first `NT_GNU_BUILD_ID` note named `GNU` in `notes`
/// (`namesz`, `descsz`, `type`, then name and descriptor, each padded to 4 bytes).
fn gnu_build_id(notes: &[u8], endian: Endian) -> Option<&[u8]> {
    let mut r = Reader::new(notes, endian);
    while r.remaining() >= 12 {
        let namesz = u64::from(r.u32("namesz").ok()?);
        let descsz = u64::from(r.u32("descsz").ok()?);
        let kind = r.u32("type").ok()?;
        let name = r.bytes(namesz, "note name").ok()?;
        r.align(4, "note name padding").ok()?;
        let desc = r.bytes(descsz, "note descriptor").ok()?;
        if kind == NT_GNU_BUILD_ID && name == b"GNU\0" {
            return Some(desc);
        }
        if r.align(4, "note descriptor padding").is_err() {
            return None;
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::panic)]
mod tests {
    use super::*;

    /// Probes `data` as the page does: reading only the slices asked for.
    fn probe_all(data: &[u8]) -> (Probe, u64) {
        let mut read: Vec<(u64, Vec<u8>)> = Vec::new();
        loop {
            let pieces: Vec<(u64, &[u8])> = read.iter().map(|(o, b)| (*o, b.as_slice())).collect();
            match probe_elf(data.len() as u64, &pieces) {
                Probe::Need { offset, len } => {
                    assert!(read.len() < 8, "the probe keeps asking");
                    let (s, e) = (usize::try_from(offset).unwrap(), usize::try_from(offset + len).unwrap());
                    read.push((offset, data[s..e].to_vec()));
                }
                done => return (done, read.iter().map(|(_, b)| b.len() as u64).sum()),
            }
        }
    }

    fn corpus(path: &str) -> Vec<u8> {
        std::fs::read(alloc::format!("{}/../tests/corpus/bolt-perf/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn libc_and_its_debug_file_probe_to_their_build_id_reading_a_few_slices() {
        let libc = corpus("sysroot/usr/lib/x86_64-linux-gnu/libc.so.6");
        let (probe, read) = probe_all(&libc);
        let Probe::Elf { build_id: Some(id) } = probe else { panic!("{probe:?}") };
        assert_eq!(crate::read::hex_string(&id), "93ac61ec5a8eb1396f9fbd350e3169a558528a40");
        assert!(read < 8192, "read {read} bytes of {}", libc.len());
        let debug = corpus("sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug");
        let (probe, _) = probe_all(&debug);
        assert_eq!(probe, Probe::Elf { build_id: Some(id) });
    }

    #[test]
    fn text_and_short_files_are_not_elf() {
        assert_eq!(probe_all(b"ffffffff81000000 T _text\n").0, Probe::NotElf);
        assert_eq!(probe_all(&[0u8; 100]).0, Probe::NotElf);
        // An ELF header whose tables lie past the end: an ELF without a build id.
        let mut elf = corpus("cprog/cprog")[..64].to_vec();
        elf.extend_from_slice(&[0; 64]);
        assert_eq!(probe_all(&elf).0, Probe::Elf { build_id: None });
    }

    #[test]
    fn fp_recording_names_libc_with_its_build_id_and_samples() {
        let data = corpus("cprog/cprog.fp.perf.data");
        let perf = PerfData::parse(&data).unwrap();
        let dsos = dsos(&perf).unwrap();
        let libc = dsos.iter().find(|d| d.name.ends_with(b"/libc.so.6")).unwrap();
        assert_eq!(
            crate::read::hex_string(libc.build_id.as_deref().unwrap()),
            "93ac61ec5a8eb1396f9fbd350e3169a558528a40"
        );
        // perf script: the samples whose ip (first frame) lies in libc.so.6.
        let script = std::fs::read_to_string(alloc::format!(
            "{}/../tests/corpus/bolt-perf/cprog/cprog.fp.perf.data.script.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let leaves: Vec<&str> =
            script.split("\n\n").filter_map(|s| s.lines().nth(1)).filter(|l| !l.trim().is_empty()).collect();
        let in_libc = leaves.iter().filter(|l| l.ends_with("/libc.so.6)")).count() as u64;
        assert!(in_libc > 0);
        assert_eq!(libc.samples, in_libc);
        let total: u64 = dsos.iter().map(|d| d.samples).sum();
        assert_eq!(total, perf.sample_count() as u64);
    }

    #[test]
    fn pipe_recording_sample_time_range_is_its_first_and_last_sample() {
        // cprog.pipe.perf.data.script-ip.txt: 328.158342 … 328.226223.
        let data = corpus("cprog/cprog.pipe.perf.data");
        let perf = PerfData::parse(&data).unwrap();
        let (first, last) = sample_time_range(&perf).unwrap().unwrap();
        assert_eq!((seconds(first).as_str(), seconds(last).as_str()), ("328.158342", "328.226223"));
        let root = crate::formats::perf::dump(&data, &crate::detect(&data).unwrap()).unwrap();
        assert_eq!(root.value.as_deref(), Some("time of first sample 328.158342, time of last sample 328.226223"));
        // cxxprog.pipe.perf.data.script-ip.txt: 330.852176 … 330.892596.
        let data = corpus("cxxprog/cxxprog.pipe.perf.data");
        let (first, last) = sample_time_range(&PerfData::parse_unindexed(&data).unwrap()).unwrap().unwrap();
        assert_eq!((seconds(first).as_str(), seconds(last).as_str()), ("330.852176", "330.892596"));
    }
}
