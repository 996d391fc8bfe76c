//! llvm-bolt 22's fdata reader (`DataReader::parse`), record for record.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::{Branch, Fdata, Location, MemoryAccess, Sample, SymbolKind};
use crate::error::Result;
use crate::formats::bolt::text::{FieldReader, FIELD_SEPARATOR};

/// Reads an fdata profile. Accepts what llvm-bolt accepts, with one deliberate
/// difference: the two header lines may come in either order (perf2bolt writes
/// `boltedcollection` first, llvm-bolt 22 only reads `no_lbr` first). Errors carry
/// llvm-bolt's line and BOLT's column plus one (1-based).
pub fn decode(data: &[u8]) -> Result<Fdata<'_>> {
    let mut r = FieldReader::new(data);
    let mut fdata = Fdata::default();
    for _ in 0..2 {
        if fdata.no_lbr.is_none() && r.rest().starts_with(b"no_lbr") {
            fdata.no_lbr = Some(no_lbr_events(&mut r)?);
        } else if !fdata.bolted_collection && r.eat(b"boltedcollection") {
            if !r.eat_newline() {
                return Err(r.error("malformed boltedcollection line"));
            }
            fdata.bolted_collection = true;
        }
    }
    let starts = |r: &FieldReader<'_>, kinds: &[u8]| r.first().is_some_and(|b| kinds.contains(&b));
    if !starts(&r, b"012345") {
        return Err(r.error("a branch, sample or memory line (no valid profile data found)"));
    }
    // Records are only pushed after the whole line is read: a count read from the
    // file never sizes an allocation.
    while starts(&r, b"012") {
        let line = r.line();
        let from = location(&mut r, false)?;
        r.skip_separators();
        if fdata.no_lbr.is_some() {
            let count = r.decimal(FIELD_SEPARATOR, true)?;
            end_of_line(&mut r)?;
            fdata.samples.push(Sample { at: from, count, line });
            continue;
        }
        let to = location(&mut r, false)?;
        r.skip_separators();
        let mispredicted = r.decimal(FIELD_SEPARATOR, false)?;
        r.skip_separators();
        let count = r.decimal(FIELD_SEPARATOR, true)?;
        end_of_line(&mut r)?;
        fdata.branches.push(Branch { from, to, mispredicted, count, line });
    }
    while starts(&r, b"345") {
        let line = r.line();
        let pc = location(&mut r, true)?;
        r.skip_separators();
        let address = location(&mut r, true)?;
        r.skip_separators();
        let count = r.decimal(FIELD_SEPARATOR, true)?;
        end_of_line(&mut r)?;
        fdata.memory.push(MemoryAccess { pc, address, count, line });
    }
    if !r.is_empty() {
        fdata.ignored_from_line = Some(r.line());
    }
    Ok(fdata)
}

/// `no_lbr`, then (after at most one space) event names up to the end of the line.
fn no_lbr_events<'a>(r: &mut FieldReader<'a>) -> Result<Vec<Cow<'a, [u8]>>> {
    r.eat(b"no_lbr");
    r.eat_separator();
    let mut events = Vec::new();
    while r.first().is_some_and(|b| b != b'\n') {
        events.push(Cow::Borrowed(r.field(FIELD_SEPARATOR, true)?));
    }
    if !r.eat_newline() {
        return Err(r.error("malformed no_lbr line"));
    }
    Ok(events)
}

/// `parseLocation`: a kind digit, separators, a name, separators, a hex offset
/// (which ends at a separator: the counts follow).
fn location<'a>(r: &mut FieldReader<'a>, memory: bool) -> Result<Location<'a>> {
    let digits: &[u8] = if memory { b"345" } else { b"012" };
    let kind = r.first().filter(|b| digits.contains(b)).and_then(SymbolKind::from_digit);
    let Some(kind) = kind else {
        return Err(r.error(if memory { "expected 3, 4 or 5" } else { "expected 0, 1 or 2" }));
    };
    r.eat(&[r.first().unwrap_or_default()]);
    r.expect_separator()?;
    r.skip_separators();
    let name = r.field(FIELD_SEPARATOR, false)?;
    r.skip_separators();
    let offset = r.hex(FIELD_SEPARATOR, false)?;
    Ok(Location { kind, name: Cow::Borrowed(name), offset })
}

fn end_of_line(r: &mut FieldReader<'_>) -> Result<()> {
    r.skip_separators();
    r.expect_newline()
}
