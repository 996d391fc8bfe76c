//! Symbolization of sampled addresses: from an address inside a binary the user
//! dropped beside a `perf.data` file to function names, inline frames and source
//! lines, named the way `perf report` names them.
//!
//! Three address spaces meet here:
//!
//! ```text
//!  process address (sample ip)        0x561b3eba7695
//!    − map start + map pgoff          (PERF_RECORD_MMAP2: 0x561b3eba6000 @ 0x2000)
//!  = file offset in the DSO           0x3695   ← what perf script prints in call chains
//!    → PT_LOAD segment holding it     (offset 0x2000 → vaddr 0x2000)
//!  = ELF virtual address              0x3695   ← what symbols and DWARF use
//! ```
//!
//! [`file_offset`] does the first step, [`Binary::vaddr_of_file_offset`] the second;
//! [`Symbolizer::resolve`] takes either kind of [`Address`].
//!
//! A [`Symbolizer`] holds the dropped binaries and matches each DSO of a recording
//! by build id, else by file name; a stripped library and its separate debug file
//! (same build id) work as a pair. Kernel addresses are looked up in a
//! `/proc/kallsyms` file ([`Kallsyms`]).
//!
//! Names are perf's: the symbol table decides the function (with perf's choice
//! among aliases and its sizes for zero-sized symbols), demangled without
//! parameters ([`perf_name`]); DWARF adds the inlined functions and source lines.

mod demangle;
mod dwarf;
mod elf;
pub(crate) mod kallsyms;
mod symbols;
pub mod unwind;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub use demangle::perf_name;
pub use elf::{Binary, Segment};
pub use kallsyms::{Kallsyms, KernelSymbol};

use crate::error::Result;

/// One frame at an address: a function, and where in its source the address is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Demangled as perf prints it (no parameters); `[unknown]` for DWARF code that
    /// names no function.
    pub function: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Inlined into the next frame. The last frame is the real (symbol-table) function.
    pub inlined: bool,
}

/// Where a function comes from (see [`Symbolizer::origin`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub raw: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// An address inside a DSO, in one of the two spaces perf gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Address {
    /// An offset in the DSO's file: `pgoff + ip − map start` (see [`file_offset`]).
    FileOffset(u64),
    /// An ELF virtual address of the DSO, as symbol tables and DWARF use.
    Vaddr(u64),
}

/// The file offset that the process address `ip` maps to, for a mapping of the DSO
/// starting at `map_start` with file offset `pgoff` (`PERF_RECORD_MMAP2`'s `start`
/// and `pgoff`). `None` when `ip` is below the mapping.
pub fn file_offset(ip: u64, map_start: u64, pgoff: u64) -> Option<u64> {
    ip.checked_sub(map_start)?.checked_add(pgoff)
}

/// What to print for an address no dropped binary explains: `libfoo.so+0x1a2b`
/// (the DSO's file name and the file offset).
pub fn dso_offset_label(dso_path: &str, offset: u64) -> String {
    format!("{}+{offset:#x}", basename(dso_path))
}

/// The file name of a path: what binaries are matched by when there is no build id.
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A dropped binary and the file name it came with.
struct Entry<'a> {
    name: String,
    binary: Binary<'a>,
}

/// Which files stand for a DSO, by the rule [`Symbolizer::find`] follows: those with
/// the DSO's build id when one of the files has it; else those with its file name,
/// unless both build ids are known and differ. The worker's folder matching and its
/// symbol status use the same rule, on files it has not parsed.
pub struct DsoMatch<'q> {
    name: &'q str,
    wanted: Option<&'q [u8]>,
    /// Some file has the wanted build id: match by it alone.
    by_id: bool,
}

impl<'q> DsoMatch<'q> {
    /// The DSO at `dso_path` (its file name is compared) with `build_id`, among files
    /// whose build ids are `ids`.
    pub fn new<'i>(
        dso_path: &'q str,
        build_id: Option<&'q [u8]>,
        mut ids: impl Iterator<Item = Option<&'i [u8]>>,
    ) -> DsoMatch<'q> {
        let wanted = build_id.filter(|id| !id.is_empty());
        let by_id = wanted.is_some_and(|w| ids.any(|id| id == Some(w)));
        DsoMatch { name: basename(dso_path), wanted, by_id }
    }

    /// Whether the file named `file` (a path is cut to its file name) with `id` stands for the DSO.
    pub fn accepts(&self, file: &str, id: Option<&[u8]>) -> bool {
        if self.by_id {
            id == self.wanted
        } else {
            basename(file) == self.name && (self.wanted.is_none() || id.is_none())
        }
    }
}

/// The files (file name or path, build id) that stand for the DSO at `dso_path`
/// recorded with `build_id`, as the symbolizer uses them: by [`DsoMatch`]; and for a
/// DSO recorded without a build id (pipe mode), perf's way: the build id of the
/// file of its name, which brings in that file's separate debug file too.
pub fn files_for_dso(dso_path: &str, build_id: Option<&[u8]>, files: &[(&str, Option<&[u8]>)]) -> Vec<usize> {
    let ids = || files.iter().map(|(_, id)| *id);
    let own = build_id.filter(|id| !id.is_empty()).or_else(|| own_build_id(dso_path, files.iter().copied()));
    let matching = DsoMatch::new(dso_path, own, ids());
    (0..files.len()).filter(|&i| files.get(i).is_some_and(|(name, id)| matching.accepts(name, *id))).collect()
}

/// The build id of a DSO recorded without one (pipe mode), as perf finds it: that
/// of its own file, the first of `files` (file name or path, build id) named as
/// the DSO that has one.
pub fn own_build_id<'i>(
    dso_path: &str,
    mut files: impl Iterator<Item = (&'i str, Option<&'i [u8]>)>,
) -> Option<&'i [u8]> {
    let name = basename(dso_path);
    files.find_map(|(file, id)| id.filter(|id| !id.is_empty() && basename(file) == name))
}

/// Several dropped binaries and, optionally, the kernel's symbols.
#[derive(Default)]
pub struct Symbolizer<'a> {
    binaries: Vec<Entry<'a>>,
    kallsyms: Option<Kallsyms<'a>>,
}

impl<'a> Symbolizer<'a> {
    pub fn new() -> Self {
        Symbolizer { binaries: Vec::new(), kallsyms: None }
    }

    /// Parses `bytes` as an ELF binary dropped under the file name `name` (a path is
    /// cut to its last component) and adds it.
    pub fn add_binary(&mut self, name: &str, bytes: &'a [u8]) -> Result<()> {
        self.add(name, Binary::parse(bytes)?);
        Ok(())
    }

    /// Adds a binary parsed already, dropped under the file name `name`.
    pub fn add(&mut self, name: &str, binary: Binary<'a>) {
        self.binaries.push(Entry { name: String::from(basename(name)), binary });
    }

    /// The dropped binaries with their file names, in the order they were added.
    pub fn binaries(&self) -> impl Iterator<Item = (&str, &Binary<'a>)> {
        self.binaries.iter().map(|e| (e.name.as_str(), &e.binary))
    }

    /// Parses and keeps a `/proc/kallsyms` file for kernel addresses.
    pub fn set_kallsyms(&mut self, text: &'a [u8]) -> Result<()> {
        self.kallsyms = Some(Kallsyms::parse(text)?);
        Ok(())
    }

    pub fn kallsyms(&self) -> Option<&Kallsyms<'a>> {
        self.kallsyms.as_ref()
    }

    /// [`own_build_id`] among the dropped binaries.
    pub fn own_build_id(&self, dso_path: &str) -> Option<&[u8]> {
        own_build_id(dso_path, self.binaries.iter().map(|e| (e.name.as_str(), e.binary.build_id())))
    }

    /// The dropped binary for a DSO: one with `build_id` when it is given and some
    /// binary has it; else one with the same file name, unless the two build ids are
    /// both known and differ (another build of the program would give wrong names).
    /// Of several (a stripped library and its separate debug file share a build id),
    /// the one with the most symbols.
    pub fn find(&self, dso_path: &str, build_id: Option<&[u8]>) -> Option<&Binary<'a>> {
        let matching = self.matching(dso_path, build_id);
        let mut best: Option<&Binary<'a>> = None;
        for entry in self.binaries.iter().filter(|e| matching.accepts(&e.name, e.binary.build_id())) {
            if best.is_none_or(|b| entry.binary.symbol_count() > b.symbol_count()) {
                best = Some(&entry.binary);
            }
        }
        best
    }

    /// The dropped binary that holds a DSO's call-frame information: the first
    /// matching one (as [`Symbolizer::find`] matches) whose `.eh_frame` has bytes.
    /// A library and its separate debug file share a build id, and the debug file,
    /// with more symbols, is the one [`Symbolizer::find`] names with.
    pub fn find_call_frames(&self, dso_path: &str, build_id: Option<&[u8]>) -> Option<&Binary<'a>> {
        let matching = self.matching(dso_path, build_id);
        self.binaries
            .iter()
            .find(|e| matching.accepts(&e.name, e.binary.build_id()) && e.binary.has_call_frames())
            .map(|e| &e.binary)
    }

    /// The ELF virtual address of `address` in the DSO. A file offset is placed by the
    /// first matching binary whose `PT_LOAD` segments hold it in the file: a separate
    /// debug file's segments hold no bytes, so its stripped twin places them.
    fn vaddr(&self, dso_path: &str, build_id: Option<&[u8]>, address: Address) -> Option<u64> {
        match address {
            Address::Vaddr(vaddr) => Some(vaddr),
            Address::FileOffset(offset) => {
                let matching = self.matching(dso_path, build_id);
                self.binaries
                    .iter()
                    .filter(|e| matching.accepts(&e.name, e.binary.build_id()))
                    .find_map(|e| e.binary.vaddr_of_file_offset(offset))
            }
        }
    }

    fn matching<'q>(&self, dso_path: &'q str, build_id: Option<&'q [u8]>) -> DsoMatch<'q> {
        DsoMatch::new(dso_path, build_id, self.binaries.iter().map(|e| e.binary.build_id()))
    }

    /// The frames at `address` in the DSO `dso_path` (innermost first, see
    /// [`Binary::frames`]), or `None` when no dropped binary matches the DSO (print
    /// [`dso_offset_label`]). An empty list means the binary has no symbol there:
    /// perf prints `[unknown]`.
    ///
    /// Kernel DSOs (`[kernel.kallsyms]`, and `[module]` for a module kallsyms names)
    /// are looked up in the kallsyms file, taking either kind of address as the kernel
    /// address perf prints for them; they resolve to `None` without kallsyms.
    pub fn resolve(&self, dso_path: &str, build_id: Option<&[u8]>, address: Address) -> Option<Vec<Frame>> {
        if let Some(kallsyms) = self.kernel(dso_path) {
            let (Address::FileOffset(address) | Address::Vaddr(address)) = address;
            let symbol = kallsyms.symbol_for(address);
            return Some(
                symbol
                    .map(|s| Frame { function: String::from(s.name), file: None, line: None, inlined: false })
                    .into_iter()
                    .collect(),
            );
        }
        let binary = self.find(dso_path, build_id)?;
        let vaddr = self.vaddr(dso_path, build_id, address);
        Some(vaddr.map(|v| binary.frames(v)).unwrap_or_default())
    }

    /// Where the function symbol holding `address` comes from: its raw (mangled)
    /// name, and the source file and line of its first instruction (from DWARF, when
    /// the binary has it), as `addr2line` of the symbol's address prints them.
    pub fn origin(&self, dso_path: &str, build_id: Option<&[u8]>, address: Address) -> Option<Origin> {
        if self.kernel(dso_path).is_some() {
            return None;
        }
        let binary = self.find(dso_path, build_id)?;
        let vaddr = self.vaddr(dso_path, build_id, address)?;
        let (raw, start) = binary.raw_symbol_for(vaddr)?;
        // The outermost frame at the entry: the function itself, not code inlined there.
        let at_entry = binary.frames(start).pop();
        Some(Origin {
            raw: String::from(raw),
            file: at_entry.as_ref().and_then(|f| f.file.clone()),
            line: at_entry.and_then(|f| f.line),
        })
    }

    /// The name perf shows for `address` in `dso_path`: the symbol's (not inlined)
    /// function, `[unknown]` when the binary has no symbol there, `dso+0xoffset`
    /// when no binary matches. A [`Address::Vaddr`] is printed as the offset then.
    pub fn function_name(&self, dso_path: &str, build_id: Option<&[u8]>, address: Address) -> String {
        if self.kernel(dso_path).is_some() {
            let frames = self.resolve(dso_path, build_id, address).unwrap_or_default();
            return frames.into_iter().next().map_or_else(|| String::from("[unknown]"), |f| f.function);
        }
        let Some(binary) = self.find(dso_path, build_id) else {
            let (Address::FileOffset(offset) | Address::Vaddr(offset)) = address;
            return dso_offset_label(dso_path, offset);
        };
        match self.vaddr(dso_path, build_id, address).and_then(|v| binary.symbol_for(v)) {
            Some((name, _)) => String::from(name),
            None => String::from("[unknown]"),
        }
    }

    /// The kallsyms file, when `dso_path` is how perf names kernel code: the kernel
    /// image (`[kernel.kallsyms]`, `[kernel.kallsyms]_text`) or a module it lists
    /// (`[ext4]`). Other bracketed names (`[vdso]`, `[unknown]`) are not the kernel's.
    fn kernel(&self, dso_path: &str) -> Option<&Kallsyms<'a>> {
        let kallsyms = self.kallsyms.as_ref()?;
        let module = dso_path.strip_prefix('[').and_then(|d| d.strip_suffix(']'));
        let is_kernel = dso_path.starts_with("[kernel.kallsyms]") || module.is_some_and(|m| kallsyms.has_module(m));
        is_kernel.then_some(kallsyms)
    }

    /// The kernel symbol at `address`, as `name+0x1f`; without kallsyms, or outside
    /// every symbol, `[kernel.kallsyms]+0xffffffff81000c82`.
    pub fn kernel_label(&self, address: u64) -> String {
        match self.kallsyms.as_ref().and_then(|k| k.symbol_for(address)) {
            Some(symbol) => symbol.label(),
            None => dso_offset_label("[kernel.kallsyms]", address),
        }
    }
}
