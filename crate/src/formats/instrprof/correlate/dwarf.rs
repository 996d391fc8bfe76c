//! Debug-info correlation (`-mllvm -profile-correlate=debug-info`, raw variant bit
//! 59): the data records are rebuilt from DWARF, as LLVM's
//! `DwarfInstrProfCorrelator` does (`llvm/lib/ProfileData/InstrProfCorrelator.cpp`).
//!
//! Each instrumented function's counter array is a global with a debug entry nested
//! in the function's subprogram:
//!
//! ```text
//! DW_TAG_subprogram                      DW_AT_low_pc → FunctionPointer
//!   DW_TAG_variable "__profc_main"       DW_AT_location: DW_OP_addr / DW_OP_addrx
//!     DW_TAG_LLVM_annotation             "Function Name" = "main"   (the PGO name)
//!     DW_TAG_LLVM_annotation             "CFG Hash"      = FuncHash
//!     DW_TAG_LLVM_annotation             "Num Counters"  = NumCounters
//! ```
//!
//! The counter offset is the variable's address minus the address of
//! `__llvm_prf_cnts`; NameRef is the MD5 of the function name. Value profiling and
//! MC/DC bitmaps are not recorded with this correlation. A variable with neither a
//! location nor a function address was dead-stripped and is skipped, as LLVM does;
//! where LLVM warns and drops a record (missing annotations, an address outside the
//! counters section) this is an error, at the variable's offset in the binary.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use gimli::{constants, AttributeValue, DebuggingInformationEntry, DwTag, EndianSlice, Operation, RunTimeEndian};

use super::Section;
use crate::error::{Error, Result};
use crate::formats::instrprof::decode_raw::{Correlation, RawRecord};
use crate::formats::instrprof::md5;
use crate::read::{Endian, Reader};

/// `DW_TAG_LLVM_annotation` (LLVM's `Dwarf.def`; gimli has no name for it).
const DW_TAG_LLVM_ANNOTATION: DwTag = DwTag(0x6000);
/// `getInstrProfCountersVarPrefix()`.
const COUNTERS_PREFIX: &[u8] = b"__profc_";

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;
type Dwarf<'a> = gimli::Dwarf<Slice<'a>>;
type Unit<'a> = gimli::Unit<Slice<'a>>;

/// Where `.debug_info` starts in the binary, to turn DIE offsets into file offsets.
#[derive(Clone, Copy)]
struct InfoBase(u64);

impl InfoBase {
    fn die(self, unit: &Unit<'_>, entry: gimli::UnitOffset) -> u64 {
        let unit_at = unit.header.offset().as_debug_info_offset().map_or(0, |o| o.0 as u64);
        self.0.saturating_add(unit_at).saturating_add(entry.0 as u64)
    }
}

/// Rebuilds the data records and names of a debug-info-correlated profile from the
/// binary's DWARF. `counters` is the binary's `__llvm_prf_cnts`; a counter is
/// `counter_width` bytes.
pub(super) fn correlate(
    elf: &[u8],
    sections: &[Section],
    endian: Endian,
    counters: &Section,
    counter_width: u64,
) -> Result<Correlation> {
    let Some(info) = sections.iter().find(|s| s.name == b".debug_info" && s.file.is_some_and(|(_, n)| n > 0)) else {
        return Err(Error::malformed(
            0,
            "the binary has no .debug_info section: a debug-info-correlated profile needs the binary built with -g",
        ));
    };
    let base = InfoBase(info.file.map_or(0, |(at, _)| at));
    let order = if endian == Endian::Little { RunTimeEndian::Little } else { RunTimeEndian::Big };
    let file = Reader::new(elf, endian);
    let dwarf = Dwarf::load(|id| -> Result<Slice<'_>> {
        let Some(s) = sections.iter().find(|s| s.name == id.name().as_bytes()) else {
            return Ok(EndianSlice::new(&[], order));
        };
        let Some((at, size)) = s.file else {
            return Ok(EndianSlice::new(&[], order));
        };
        if s.compressed {
            return Err(Error::malformed(at, "compressed DWARF sections in the binary are not supported"));
        }
        Ok(EndianSlice::new(file.sub_at(at, size, "DWARF section inside the binary")?.rest(), order))
    })?;

    let mut walk =
        Walk { dwarf: &dwarf, base, counters, counter_width, seen: BTreeSet::new(), out: Correlation::default() };
    let mut units = dwarf.units();
    let mut unit_at = base.0;
    loop {
        let header = match units.next() {
            Ok(Some(header)) => header,
            Ok(None) => break,
            Err(_) => {
                return Err(Error::malformed(unit_at, "a malformed DWARF unit header in the binary's .debug_info"))
            }
        };
        let this_unit = unit_at;
        unit_at = unit_at.saturating_add(header.length_including_self() as u64);
        let Ok(unit) = dwarf.unit(header) else {
            return Err(Error::malformed(
                this_unit,
                "a DWARF unit in the binary's .debug_info whose abbreviations or base attributes cannot be read",
            ));
        };
        walk.unit(&unit, this_unit)?;
    }
    if walk.out.records.is_empty() {
        return Err(Error::malformed(
            base.0,
            "no __profc_ variables with profile annotations in the binary's DWARF (.debug_info)",
        ));
    }
    Ok(walk.out)
}

/// The DWARF, what a probe is checked against, and the records found so far.
struct Walk<'d, 'a> {
    dwarf: &'d Dwarf<'a>,
    base: InfoBase,
    counters: &'d Section,
    counter_width: u64,
    /// Counter offsets already taken: a record per offset, as `addDataProbe` keeps.
    seen: BTreeSet<u64>,
    out: Correlation,
}

impl Walk<'_, '_> {
    /// Visits every DIE of `unit` in order, keeping its ancestors' tags and offsets on a
    /// heap stack (no recursion: nesting depth comes from the file).
    fn unit(&mut self, unit: &Unit<'_>, unit_at: u64) -> Result<()> {
        let (dwarf, base) = (self.dwarf, self.base);
        let mut ancestors: Vec<(DwTag, gimli::UnitOffset)> = Vec::new();
        let mut depth: isize = 0;
        let mut last_at = unit_at;
        let mut cursor = unit.entries();
        loop {
            let (delta, entry) = match cursor.next_dfs() {
                Ok(Some(next)) => next,
                Ok(None) => return Ok(()),
                Err(_) => {
                    return Err(Error::malformed(
                        last_at,
                        "a DIE in the binary's .debug_info that cannot be read (at or after this one)",
                    ))
                }
            };
            depth = depth.saturating_add(delta);
            ancestors.truncate(usize::try_from(depth).unwrap_or(0));
            let parent = ancestors.last().copied();
            ancestors.push((entry.tag(), entry.offset()));
            let at = base.die(unit, entry.offset());
            last_at = at;
            match parent {
                Some((constants::DW_TAG_subprogram, function))
                    if entry.tag() == constants::DW_TAG_variable && entry.has_children() =>
                {
                    let name = match entry.attr_value(constants::DW_AT_name) {
                        Ok(Some(value)) => dwarf.attr_string(unit, value).map_err(|_| {
                            Error::malformed(
                                at,
                                "a variable's DW_AT_name in the binary's .debug_info that cannot be read",
                            )
                        })?,
                        Ok(None) => continue,
                        Err(_) => {
                            return Err(Error::malformed(at, "a DIE in the binary's .debug_info that cannot be read"))
                        }
                    };
                    if name.slice().starts_with(COUNTERS_PREFIX) {
                        self.probe(unit, entry, function)?;
                    }
                }
                _ => {}
            }
        }
    }

    /// Reads one `__profc_` variable and adds its record, unless a record with the same
    /// counter offset is already there.
    fn probe(
        &mut self,
        unit: &Unit<'_>,
        var: &DebuggingInformationEntry<'_, '_, Slice<'_>>,
        function: gimli::UnitOffset,
    ) -> Result<()> {
        let (dwarf, base, counters) = (self.dwarf, self.base, self.counters);
        let at = base.die(unit, var.offset());
        let bad = |what| move |_: gimli::Error| Error::malformed(at, what);
        let address = location(dwarf, unit, var)
            .map_err(bad("a __profc_ variable's DW_AT_location in the binary's .debug_info that cannot be read"))?;
        let function_ptr = unit
            .entry(function)
            .and_then(|f| match f.attr_value(constants::DW_AT_low_pc)? {
                Some(value) => dwarf.attr_address(unit, value),
                None => Ok(None),
            })
            .map_err(bad("a subprogram's DW_AT_low_pc in the binary's .debug_info that cannot be read"))?;

        let mut name = None;
        let mut hash = None;
        let mut num_counters = None;
        let mut tree = unit
            .entries_tree(Some(var.offset()))
            .map_err(bad("a DIE in the binary's .debug_info that cannot be read"))?;
        let root = tree.root().map_err(bad("a DIE in the binary's .debug_info that cannot be read"))?;
        let mut children = root.children();
        let mut child_at = at;
        loop {
            let child = match children.next() {
            Ok(Some(child)) => child,
            Ok(None) => break,
            Err(_) => {
                return Err(Error::malformed(
                    child_at,
                    "an annotation of a __profc_ variable in the binary's .debug_info that cannot be read (at or after this DIE)",
                ))
            }
        };
            let c = child.entry();
            child_at = base.die(unit, c.offset());
            if c.tag() != DW_TAG_LLVM_ANNOTATION {
                continue;
            }
            let unreadable = bad_child(child_at);
            let (Some(key), Some(value)) = (
                c.attr_value(constants::DW_AT_name).map_err(unreadable)?,
                c.attr_value(constants::DW_AT_const_value).map_err(unreadable)?,
            ) else {
                continue;
            };
            // LLVM skips annotations whose name is not a string.
            let Ok(key) = dwarf.attr_string(unit, key) else {
                continue;
            };
            match key.slice() {
                b"Function Name" => name = Some(dwarf.attr_string(unit, value).map_err(unreadable)?.slice()),
                b"CFG Hash" => hash = value.udata_value(),
                b"Num Counters" => num_counters = value.udata_value().map(|n| (n, child_at)),
                _ => {}
            }
        }

        let (address, function_ptr) = match (address, function_ptr) {
            (None, None) => return Ok(()), // dead-stripped
            (Some(address), function_ptr) => (address, function_ptr),
            (None, Some(_)) => {
                return Err(Error::malformed(
                    at,
                    "a __profc_ variable without a DW_OP_addr location in the binary's DWARF",
                ))
            }
        };
        let (Some(name), Some(hash), Some((num_counters, num_at))) = (name, hash, num_counters) else {
            return Err(Error::malformed(
            at,
            "a __profc_ variable in the binary's DWARF without its Function Name, CFG Hash and Num Counters annotations",
        ));
        };
        let Some(offset) = address.checked_sub(counters.address).filter(|&o| o < counters.size) else {
            return Err(Error::invalid(
                at,
                "a __profc_ variable address (in the binary's DWARF) inside __llvm_prf_cnts",
                address,
            ));
        };
        let room = counters.size.saturating_sub(offset).checked_div(self.counter_width).unwrap_or(0);
        let fits = num_counters > 0 && num_counters <= room;
        let Some(num) = u32::try_from(num_counters).ok().filter(|_| fits) else {
            return Err(Error::invalid(
                num_at,
                "a Num Counters annotation (in the binary's DWARF) of at least 1 that fits in __llvm_prf_cnts",
                num_counters,
            ));
        };
        if self.seen.insert(offset) {
            self.out.records.push(RawRecord {
                name_ref: md5::name_ref(name),
                hash,
                counter_ptr: offset,
                function_ptr: function_ptr.unwrap_or(0),
                num_counters: num,
                offset: at,
                ..RawRecord::default()
            });
        }
        self.out.names.push(name.to_vec());
        Ok(())
    }
}

fn bad_child(at: u64) -> impl Fn(gimli::Error) -> Error + Copy {
    move |_| {
        Error::malformed(at, "an annotation of a __profc_ variable in the binary's .debug_info that cannot be read")
    }
}

/// The first `DW_OP_addr` or `DW_OP_addrx` of the variable's location, which is an
/// expression or a location list.
fn location(
    dwarf: &Dwarf<'_>,
    unit: &Unit<'_>,
    var: &DebuggingInformationEntry<'_, '_, Slice<'_>>,
) -> gimli::Result<Option<u64>> {
    let Some(value) = var.attr_value(constants::DW_AT_location)? else {
        return Ok(None);
    };
    if let Some(expression) = value.exprloc_value() {
        return first_address(dwarf, unit, expression);
    }
    if let AttributeValue::LocationListsRef(_) | AttributeValue::DebugLocListsIndex(_) = value {
        if let Some(mut list) = dwarf.attr_locations(unit, value)? {
            while let Some(entry) = list.next()? {
                if let Some(address) = first_address(dwarf, unit, entry.data)? {
                    return Ok(Some(address));
                }
            }
        }
    }
    Ok(None)
}

fn first_address(
    dwarf: &Dwarf<'_>,
    unit: &Unit<'_>,
    expression: gimli::Expression<Slice<'_>>,
) -> gimli::Result<Option<u64>> {
    let mut ops = expression.operations(unit.encoding());
    while let Some(op) = ops.next()? {
        match op {
            Operation::Address { address } => return Ok(Some(address)),
            Operation::AddressIndex { index } => return dwarf.address(unit, index).map(Some),
            _ => {}
        }
    }
    Ok(None)
}
