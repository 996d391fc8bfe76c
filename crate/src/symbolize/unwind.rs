//! User-space call chains from a copy of the stack (`perf record --call-graph
//! dwarf`): each frame's caller found with the call-frame information of the
//! binary that holds it (`.eh_frame`, searched through `.eh_frame_hdr` when there
//! is one), as perf does with libunwind or libdw. x86-64 only.
//!
//! The walk stops where the information does: at a frame whose binary was not
//! dropped (its return address is still listed, as the last frame), at a rule
//! it cannot follow, at a read outside the copied stack, or when the stack
//! pointer stops growing.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use gimli::{
    BaseAddresses, CfaRule, EhFrame, EhFrameHdr, EhFrameOffset, EndianSlice, FrameDescriptionEntry, ParsedEhFrameHdr,
    Register, RegisterRule, RunTimeEndian, UnwindContext, UnwindSection,
};
use object::{Object, ObjectSection};

use super::Binary;

/// DWARF's x86-64 register numbers: 0–15 the integer registers (rax, rdx, rcx,
/// rbx, rsi, rdi, rbp, rsp, r8–r15), 16 the return address.
pub const DWARF_REGS: usize = 17;
const RSP: usize = 7;
const RA: usize = 16;
/// The slot of [`x86_64_regs`] that holds the sampled instruction pointer.
pub const IP: usize = RA;

/// perf's `perf_event_x86_regs` index of each DWARF register: AX 0, BX 1, CX 2,
/// DX 3, SI 4, DI 5, BP 6, SP 7, IP 8 (for the return-address slot), R8–R15 16–23.
const PERF_OF_DWARF: [u32; DWARF_REGS] = [0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8];

/// perf caps call chains at this many frames.
pub const MAX_FRAMES: usize = 127;

/// The DWARF registers from a `PERF_SAMPLE_REGS_USER` block: `mask` says which
/// perf registers `values` holds, in bit order.
pub fn x86_64_regs(mask: u64, values: impl Iterator<Item = u64>) -> [Option<u64>; DWARF_REGS] {
    let mut by_perf = [None; 64];
    let bits = (0u32..64).filter(|b| mask >> b & 1 == 1);
    for (bit, value) in bits.zip(values) {
        if let Some(slot) = by_perf.get_mut(bit as usize) {
            *slot = Some(value);
        }
    }
    let mut regs = [None; DWARF_REGS];
    for (dwarf, &perf) in PERF_OF_DWARF.iter().enumerate() {
        if let Some(slot) = regs.get_mut(dwarf) {
            *slot = by_perf.get(perf as usize).copied().flatten();
        }
    }
    regs
}

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;

/// One binary's call-frame tables.
struct Tables<'a> {
    eh_frame: EhFrame<Slice<'a>>,
    bases: BaseAddresses,
    hdr: Option<ParsedEhFrameHdr<Slice<'a>>>,
}

impl<'a> Tables<'a> {
    fn read(binary: &Binary<'a>) -> Option<Tables<'a>> {
        let file = object::File::parse(binary.bytes()).ok()?;
        let endian = if file.is_little_endian() { RunTimeEndian::Little } else { RunTimeEndian::Big };
        let section = file.section_by_name(".eh_frame")?;
        let eh_frame = EhFrame::new(section.data().ok()?, endian);
        let mut bases = BaseAddresses::default().set_eh_frame(section.address());
        if let Some(text) = file.section_by_name(".text") {
            bases = bases.set_text(text.address());
        }
        let hdr = file.section_by_name(".eh_frame_hdr").and_then(|h| {
            bases = bases.clone().set_eh_frame_hdr(h.address());
            EhFrameHdr::new(h.data().ok()?, endian).parse(&bases, 8).ok()
        });
        Some(Tables { eh_frame, bases, hdr })
    }

    /// The FDE that covers `vaddr`, found through `.eh_frame_hdr`'s search table.
    /// gimli 0.32's own lookup (`EhHdrTable::fde_for_address`) subtracts
    /// `.eh_frame`'s address from the table's entry unchecked, which a damaged table
    /// overflows: here the difference is checked.
    fn fde_by_table(&self, hdr: &ParsedEhFrameHdr<Slice<'a>>, vaddr: u64) -> gimli::Result<Fde<'a>> {
        let table = hdr.table().ok_or(gimli::Error::NoUnwindInfoForAddress)?;
        let entry = table.lookup(vaddr, &self.bases)?.direct()?;
        let offset = entry.checked_sub(hdr.eh_frame_ptr().direct()?).ok_or(gimli::Error::NoUnwindInfoForAddress)?;
        let offset = usize::try_from(offset).map_err(|_| gimli::Error::NoUnwindInfoForAddress)?;
        let fde = self.eh_frame.fde_from_offset(&self.bases, EhFrameOffset(offset), EhFrame::cie_from_offset)?;
        if fde.contains(vaddr) {
            Ok(fde)
        } else {
            Err(gimli::Error::NoUnwindInfoForAddress)
        }
    }
}

type Fde<'a> = FrameDescriptionEntry<Slice<'a>>;

/// Call-frame tables of the binaries met so far, read once each.
#[derive(Default)]
pub struct Unwinder<'a> {
    tables: BTreeMap<usize, Option<Tables<'a>>>,
    context: Option<alloc::boxed::Box<UnwindContext<usize>>>,
    /// Reads outside the copy give 0, and a return address of 0 is listed before
    /// the walk stops (see [`Unwinder::as_perf_script`]).
    libunwind: bool,
}

impl<'a> Unwinder<'a> {
    pub fn new() -> Self {
        Unwinder { tables: BTreeMap::new(), context: None, libunwind: false }
    }

    /// An unwinder that walks as perf 6.1 does with libunwind: a read outside the
    /// copy (or of its last word) gives 0 instead of ending the walk, so a caller
    /// whose return address lies past the copy is listed with address 0 as the last
    /// frame (`perf script` prints it less one: `ffffffffffffffff`). A return
    /// address with no rule still ends the walk unlisted.
    pub fn as_perf_script() -> Self {
        Unwinder { libunwind: true, ..Unwinder::new() }
    }

    /// The return addresses of the frames above the sampled one, innermost first
    /// (the sampled ip itself is not included). `regs` are the user registers at
    /// the sample, `stack` the stack copied from their stack pointer up, and
    /// `locate(pc)` the binary holding a process address with the address's ELF
    /// virtual address in it.
    pub fn unwind<'b>(
        &mut self,
        regs: [Option<u64>; DWARF_REGS],
        stack: &[u8],
        mut locate: impl FnMut(u64) -> Option<(&'b Binary<'a>, u64)>,
    ) -> Vec<u64>
    where
        'a: 'b,
    {
        let mut out = Vec::new();
        let mut regs = regs;
        let (Some(mut pc), Some(stack_base)) = (regs[RA_SLOT], regs[RSP]) else { return out };
        let libunwind = self.libunwind;
        let read = |address: u64| -> Option<u64> {
            let word = || -> Option<u64> {
                let at = usize::try_from(address.checked_sub(stack_base)?).ok()?;
                // perf's `access_mem` takes the copy's last word for outside it.
                let end = at.checked_add(8)?;
                if libunwind && end >= stack.len() {
                    return None;
                }
                let word: [u8; 8] = stack.get(at..end)?.try_into().ok()?;
                Some(u64::from_le_bytes(word))
            };
            match word() {
                None if libunwind => Some(0),
                found => found,
            }
        };
        let context = self.context.get_or_insert_with(|| alloc::boxed::Box::new(UnwindContext::new()));
        let mut first = true;
        while out.len() < MAX_FRAMES {
            // A return address points after its call: look up the call itself.
            let lookup = if first { pc } else { pc.saturating_sub(1) };
            first = false;
            let Some((binary, vaddr)) = locate(lookup) else { break };
            let key = binary as *const Binary<'a> as usize;
            let tables = self.tables.entry(key).or_insert_with(|| Tables::read(binary));
            let Some(tables) = tables.as_ref() else { break };
            let row = match &tables.hdr {
                Some(hdr) => tables
                    .fde_by_table(hdr, vaddr)
                    .and_then(|fde| fde.unwind_info_for_address(&tables.eh_frame, &tables.bases, context, vaddr)),
                None => {
                    tables.eh_frame.unwind_info_for_address(&tables.bases, context, vaddr, EhFrame::cie_from_offset)
                }
            };
            let Ok(row) = row else { break };
            let cfa = match row.cfa() {
                CfaRule::RegisterAndOffset { register, offset } => {
                    let Some(base) = regs.get(usize::from(register.0)).copied().flatten() else { break };
                    base.wrapping_add_signed(*offset)
                }
                CfaRule::Expression(_) => break,
            };
            let mut next = regs;
            for ((n, slot), &now) in next.iter_mut().enumerate().zip(regs.iter()) {
                let Ok(number) = u16::try_from(n) else { break };
                *slot = match row.register(Register(number)) {
                    // Callee-saved registers without a rule keep their value.
                    RegisterRule::Undefined if n != RA => now,
                    RegisterRule::Undefined => None,
                    RegisterRule::SameValue => now,
                    RegisterRule::Offset(o) => read(cfa.wrapping_add_signed(o)),
                    RegisterRule::ValOffset(o) => Some(cfa.wrapping_add_signed(o)),
                    RegisterRule::Register(r) => regs.get(usize::from(r.0)).copied().flatten(),
                    _ => None,
                };
            }
            // perf keeps a caller only while its frame starts inside the copy.
            let copied_end = stack_base.saturating_add(stack.len() as u64);
            if cfa >= copied_end && !libunwind {
                break;
            }
            next[RSP] = Some(cfa);
            let Some(ra) = next[RA] else { break };
            // The outermost frame returns nowhere; a stack that does not grow is corrupt.
            let grows = regs[RSP].is_none_or(|sp| cfa > sp);
            if ra == 0 || !grows {
                if ra == 0 && grows && libunwind {
                    out.push(ra);
                }
                break;
            }
            out.push(ra);
            pc = ra;
            regs = next;
        }
        out
    }
}

/// The register slot holding the sampled ip (the return-address column).
const RA_SLOT: usize = RA;
