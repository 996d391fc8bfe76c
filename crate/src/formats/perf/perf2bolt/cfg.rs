//! A function's basic blocks as BOLT 22 builds them (`BinaryFunction::buildCFG`), from
//! an x86-64 disassembly of its `st_size` bytes.
//!
//! * Blocks start at offset 0, at every direct branch target inside the function, at
//!   every jump-table target, at every landing pad (from the LSDAs), and at the first non-nop instruction after a terminator
//!   (conditional or unconditional jump, indirect jump, return).
//! * A `jmp` right after a `jcc` stays in the `jcc`'s block (BOLT's "unconditional
//!   branch following a conditional one").
//! * Nops are instructions like any other (BOLT 22 keeps them in the CFG): padding
//!   after a terminator is a block of its own, padding before a branch target ends
//!   the block before it.
//! * Calls do not end blocks.
//! * A jump table is read as BOLT's `analyzeJumpTable` reads it after disassembling
//!   every function: up to the next jump table in memory of *any* function (SQLite's
//!   `yy_reduce` table is followed by `yy_destructor`'s, whose entries would
//!   otherwise read as more targets in `yy_reduce`), in relocation mode only while
//!   entries hold a relocation against code, and only while they point to an
//!   instruction of the function (entries to its end, `__builtin_unreachable`, are
//!   skipped).
//!
//! A function that does not disassemble (an invalid opcode) has no CFG, as in BOLT
//! (not "simple"): traces through it are dropped.

use alloc::vec::Vec;

use iced_x86::{Decoder, DecoderOptions, FlowControl, Instruction, Mnemonic, OpKind, Register};

use super::binary::{Binary, Function};

/// One basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Offset of the block in its function.
    pub start: u64,
    /// Offset of the last instruction.
    pub last: u64,
    /// The last instruction is a call.
    pub ends_in_call: bool,
    /// The last instruction is a direct call into this function (a recursive call).
    pub ends_in_own_call: bool,
    /// The block is a landing pad.
    pub landing_pad: bool,
    /// Offsets of the landing pads its instructions throw to (LSDA call sites
    /// overlapping it).
    pub landing_pads: Vec<u64>,
    /// Offsets of the successor blocks, the fall-through included.
    pub successors: Vec<u64>,
    /// How many instructions it holds (nops included).
    pub instructions: u32,
}

/// The blocks of one function in address (= BOLT's original layout) order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cfg {
    pub blocks: Vec<Block>,
    /// The function's `st_size`: offsets at or past it are in no block.
    pub size: u64,
    /// The jump tables its indirect jumps read: address and size in bytes.
    pub jump_tables: Vec<(u64, u64)>,
}

impl Cfg {
    /// Index of the block holding `offset` (BOLT's `getBasicBlockContainingOffset`).
    pub fn block_containing(&self, offset: u64) -> Option<usize> {
        if offset >= self.size {
            return None;
        }
        self.blocks.partition_point(|b| b.start <= offset).checked_sub(1)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Other,
    Call,
    /// A direct call into the function itself (llvm-bolt's recursive call).
    OwnCall,
    Return,
    /// Target offset, None when it leaves the function (a conditional tail call).
    Jcc(Option<u64>),
    /// Direct jump: target offset, None when it leaves the function (a tail call).
    Jmp(Option<u64>),
    /// Indirect jump: index into the jump-table list, if one was recognized.
    JmpIndirect(Option<usize>),
}

impl Kind {
    fn is_terminator(self) -> bool {
        matches!(self, Kind::Return | Kind::Jcc(_) | Kind::Jmp(_) | Kind::JmpIndirect(_))
    }
}

/// Whether the instruction at `address` is a return (None: not inside a function's code).
pub fn is_return(binary: &Binary<'_>, address: u64) -> bool {
    let Some(bytes) = binary.bytes_at(address, 15) else { return false };
    let mut decoder = Decoder::with_ip(64, bytes, address, DecoderOptions::NONE);
    let instruction = decoder.decode();
    !instruction.is_invalid() && instruction.flow_control() == FlowControl::Return
}

/// A function's instructions (offset, kind) and the jump tables (address, entry
/// size) its indirect jumps read, in the order of the jumps.
struct Decoded {
    instructions: Vec<(u64, Kind)>,
    tables: Vec<(u64, u64)>,
}

/// Disassembles `function`; None when it does not disassemble.
fn decode(binary: &Binary<'_>, function: &Function) -> Option<Decoded> {
    let bytes = binary.bytes_at(function.address, function.size)?;
    let start = function.address;
    let end = start.checked_add(u64::try_from(bytes.len()).ok()?)?;
    let inside = |target: u64| (target >= start && target < end).then(|| target.wrapping_sub(start));

    let mut decoder = Decoder::with_ip(64, bytes, start, DecoderOptions::NONE);
    let mut instructions: Vec<(u64, Kind)> = Vec::new();
    let mut tables: Vec<(u64, u64)> = Vec::new();
    let mut recent: Vec<Instruction> = Vec::new();
    let mut instruction = Instruction::default();
    while decoder.can_decode() {
        decoder.decode_out(&mut instruction);
        if instruction.is_invalid() {
            return None;
        }
        let offset = instruction.ip().wrapping_sub(start);
        let kind = match instruction.flow_control() {
            FlowControl::Return => Kind::Return,
            FlowControl::Call if inside(instruction.near_branch_target()).is_some() => Kind::OwnCall,
            FlowControl::Call | FlowControl::IndirectCall => Kind::Call,
            FlowControl::ConditionalBranch => Kind::Jcc(inside(instruction.near_branch_target())),
            FlowControl::UnconditionalBranch => Kind::Jmp(inside(instruction.near_branch_target())),
            FlowControl::IndirectBranch => match jump_table_address(&instruction, &recent) {
                Some(table) => {
                    tables.push(table);
                    Kind::JmpIndirect(Some(tables.len().wrapping_sub(1)))
                }
                None => Kind::JmpIndirect(None),
            },
            _ => Kind::Other,
        };
        instructions.push((offset, kind));
        // Enough to reach a PIC table's `lea` across the unrelated instructions
        // compilers schedule between it and the `jmp`.
        if recent.len() >= 32 {
            recent.remove(0);
        }
        recent.push(instruction);
    }
    Some(Decoded { instructions, tables })
}

/// Where reading a table at `table` must stop before any other check: the next
/// data symbol (pgolens's stand-in for BOLT's containing object) and, when given,
/// the next of the sorted `tables` after it.
fn table_limit(binary: &Binary<'_>, table: u64, tables: &[u64]) -> u64 {
    let next_table = tables.get(tables.partition_point(|&t| t <= table)).copied().unwrap_or(u64::MAX);
    let next_object = binary.objects.get(binary.objects.partition_point(|o| o.address <= table));
    next_table.min(next_object.map_or(u64::MAX, |o| o.address))
}

/// The addresses of the jump tables of every function, sorted: BOLT registers them
/// while disassembling every function (`BinaryContext::JumpTables`), and bounds each
/// table by the next one in memory, whichever function it belongs to
/// (`BinaryContext::populateJumpTables`). Disassembles the whole binary on first use.
pub fn jump_tables<'b>(binary: &'b Binary<'_>) -> &'b [u64] {
    binary.jump_tables.get_or_init(|| jump_table_starts(binary))
}

/// The tables of every function's indirect jumps that BOLT's first reading (no
/// other table known yet) accepts, sorted.
fn jump_table_starts(binary: &Binary<'_>) -> Vec<u64> {
    let mut out = Vec::new();
    for function in binary.functions.iter().filter(|f| !f.plt) {
        // Only a function with an indirect `jmp` (opcode FF, ModRM reg 4) reads a
        // table: the others need not be disassembled.
        let bytes = binary.bytes_at(function.address, function.size).unwrap_or_default();
        if !bytes.windows(2).any(|w| matches!(*w, [0xff, modrm] if modrm & 0x38 == 0x20)) {
            continue;
        }
        let Some(decoded) = decode(binary, function) else { continue };
        let end = function.address.saturating_add(function.size);
        for &(table, entry_size) in &decoded.tables {
            let limit = table_limit(binary, table, &[]);
            let read = read_table(binary, table, entry_size, limit, function.address, end, None);
            if read.is_table() {
                out.push(table);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Disassembles `function` and splits it into blocks; None when it does not disassemble.
pub fn build(binary: &Binary<'_>, function: &Function) -> Option<Cfg> {
    let Decoded { instructions, tables: pending } = decode(binary, function)?;
    let start = function.address;
    let end = start.checked_add(function.size)?;
    let mut labels: Vec<u64> = alloc::vec![0];
    for &(_, kind) in &instructions {
        if let Kind::Jcc(Some(t)) | Kind::Jmp(Some(t)) = kind {
            labels.push(t);
        }
    }
    // A table ends where the next jump table in memory starts, this function's or
    // another's (adjacent tables would otherwise read as one), or at the next data
    // symbol, and at the first entry that is not a relocated jump to an instruction.
    let mut starts: Vec<u64> = pending.iter().map(|t| t.0).collect();
    starts.extend_from_slice(jump_tables(binary));
    starts.sort_unstable();
    starts.dedup();
    let mut jump_tables = Vec::new();
    let mut tables: Vec<Vec<u64>> = Vec::with_capacity(pending.len());
    for &(table, entry_size) in &pending {
        let limit = table_limit(binary, table, &starts);
        let read = read_table(binary, table, entry_size, limit, start, end, Some(&instructions));
        if !read.targets.is_empty() {
            jump_tables.push((table, entry_size.wrapping_mul(read.entries)));
        }
        labels.extend(read.targets.iter().copied());
        tables.push(read.targets);
    }
    let pads = binary.landing_pads.partition_point(|&p| p < start)..binary.landing_pads.partition_point(|&p| p < end);
    let pads: Vec<u64> = binary.landing_pads.get(pads).into_iter().flatten().map(|p| p.wrapping_sub(start)).collect();
    labels.extend(pads.iter().copied());
    labels.sort_unstable();
    labels.dedup();

    // Per block: start, last instruction and its kind, the jcc merged before a jmp.
    struct Open {
        start: u64,
        last: u64,
        kind: Kind,
        jcc: Option<Kind>,
        instructions: u32,
    }
    let mut blocks: Vec<Open> = Vec::new();
    let mut open = false;
    for &(offset, kind) in &instructions {
        if labels.binary_search(&offset).is_ok() {
            blocks.push(Open { start: offset, last: offset, kind: Kind::Other, jcc: None, instructions: 0 });
            open = true;
        }
        if !open {
            let previous = blocks.last().map(|b| b.kind);
            let merge = matches!(kind, Kind::Jmp(Some(_))) && matches!(previous, Some(Kind::Jcc(Some(_))));
            if !merge {
                blocks.push(Open { start: offset, last: offset, kind: Kind::Other, jcc: None, instructions: 0 });
            } else if let Some(b) = blocks.last_mut() {
                b.jcc = Some(b.kind);
            }
            open = true;
        }
        if let Some(b) = blocks.last_mut() {
            b.last = offset;
            b.kind = kind;
            b.instructions = b.instructions.saturating_add(1);
        }
        if kind.is_terminator() {
            open = false;
        }
    }

    let starts: Vec<u64> = blocks.iter().map(|b| b.start).collect();
    let mut cfg = Cfg { blocks: Vec::with_capacity(blocks.len()), size: function.size, jump_tables };
    for (i, b) in blocks.iter().enumerate() {
        let next = starts.get(i.wrapping_add(1)).copied();
        let mut successors = Vec::new();
        if let Some(Kind::Jcc(Some(t))) = b.jcc {
            successors.push(t);
        }
        match b.kind {
            Kind::Jcc(target) => {
                successors.extend(target);
                successors.extend(next);
            }
            Kind::Jmp(target) => successors.extend(target),
            Kind::JmpIndirect(table) => {
                successors.extend(table.and_then(|t| tables.get(t)).into_iter().flatten().copied());
            }
            Kind::Return => {}
            Kind::Other | Kind::Call | Kind::OwnCall => successors.extend(next),
        }
        cfg.blocks.push(Block {
            start: b.start,
            last: b.last,
            ends_in_call: matches!(b.kind, Kind::Call | Kind::OwnCall),
            ends_in_own_call: b.kind == Kind::OwnCall,
            landing_pad: pads.binary_search(&b.start).is_ok(),
            landing_pads: thrown_to(binary, &instructions, b.start, b.last, start),
            successors,
            instructions: b.instructions,
        });
    }
    Some(cfg)
}

/// The landing pads (offsets) the calls among the instructions from offset `first`
/// to `last` throw to: those of the LSDA call sites holding them, as llvm-bolt
/// gives a landing pad to each invoke, each pad once.
fn thrown_to(binary: &Binary<'_>, instructions: &[(u64, Kind)], first: u64, last: u64, function: u64) -> Vec<u64> {
    // The function's own sites only: they start inside it.
    let from = binary.call_sites.partition_point(|&(start, _, _)| start < function);
    let sites = binary.call_sites.get(from..).unwrap_or_default();
    let at = instructions.partition_point(|&(offset, _)| offset < first);
    let block = instructions.get(at..).unwrap_or_default().iter().take_while(|&&(offset, _)| offset <= last);
    let mut pads: Vec<u64> = Vec::new();
    for &(offset, _) in block.filter(|&&(_, kind)| matches!(kind, Kind::Call | Kind::OwnCall)) {
        let call = function.wrapping_add(offset);
        // Call sites do not overlap: the last one starting at or before the call.
        let before = sites.partition_point(|&(start, _, _)| start <= call);
        let holding = before.checked_sub(1).and_then(|i| sites.get(i));
        if let Some(&(_, _, pad)) = holding.filter(|&&(_, end, _)| end > call) {
            pads.push(pad.wrapping_sub(function));
        }
    }
    pads.sort_unstable();
    pads.dedup();
    pads
}

/// The jump table an indirect `jmp` reads (address, entry size), for the two forms
/// compilers emit:
///
/// ```text
/// non-PIC  jmp *TABLE(,%idx,8)              8-byte absolute entries
/// PIC      lea TABLE(%rip),%base
///          movslq (%base,%idx,4),%off
///          add %base,%off ; jmp *%off        4-byte entries relative to TABLE
/// ```
fn jump_table_address(jmp: &Instruction, recent: &[Instruction]) -> Option<(u64, u64)> {
    if jmp.op0_kind() == OpKind::Memory
        && jmp.memory_base() == Register::None
        && jmp.memory_index() != Register::None
        && jmp.memory_index_scale() == 8
    {
        Some((jmp.memory_displacement64(), 8))
    } else if jmp.op0_kind() == OpKind::Register {
        // Follow the register back: `add %base, %target`, then `lea TABLE(%rip), %base`
        // (other instructions may sit between them).
        let target = jmp.op0_register();
        let mut at = recent.len();
        let base = loop {
            at = at.checked_sub(1)?;
            let i = recent.get(at)?;
            if i.mnemonic() == Mnemonic::Add && i.op0_kind() == OpKind::Register && i.op0_register() == target {
                if i.op1_kind() != OpKind::Register {
                    return None;
                }
                break i.op1_register();
            }
        };
        let table = recent.get(..at)?.iter().rev().find_map(|i| {
            (i.mnemonic() == Mnemonic::Lea && i.is_ip_rel_memory_operand() && i.op0_register() == base)
                .then(|| i.ip_rel_memory_address())
        })?;
        Some((table, 4))
    } else {
        None
    }
}

/// What BOLT's reading of one jump table found (`BinaryContext::analyzeJumpTable`).
struct TableRead {
    /// The function offsets of its entries, but those of `__builtin_unreachable`.
    targets: Vec<u64>,
    /// How many entries it has (the unreachable ones too, but trailing ones of an
    /// absolute table when a function starts where they point).
    entries: u64,
    /// Entries to an instruction of the function other than its start.
    real: u64,
    /// An entry to the function's end (`__builtin_unreachable`) or start.
    special: bool,
}

impl TableRead {
    /// BOLT's test for a jump table: two real entries, or one and a special one.
    fn is_table(&self) -> bool {
        self.real.saturating_add(u64::from(self.special)) >= 2
    }
}

/// Reads the table at `table` as BOLT does, up to `limit`: an entry is read while
/// it lies before `limit`, holds a relocation against code in relocation mode
/// (PC-relative for the 4-byte PIC entries), and points to the function `[start,
/// end)`: to its end (`__builtin_unreachable`, not a target), its start, or, when
/// `instructions` are given (the function disassembled), an instruction.
fn read_table(
    binary: &Binary<'_>,
    table: u64,
    entry_size: u64,
    limit: u64,
    start: u64,
    end: u64,
    instructions: Option<&[(u64, Kind)]>,
) -> TableRead {
    let mut read = TableRead { targets: Vec::new(), entries: 0, real: 0, special: false };
    let mut reached = 0;
    let mut at = table;
    while at.checked_add(entry_size).is_some_and(|e| e <= limit) {
        if binary.relocations && !binary.has_code_relocation(at, entry_size == 4) {
            break;
        }
        let Some(entry) = binary.bytes_at(at, entry_size) else { break };
        let target = match *entry {
            [a, b, c, d, e, f, g, h] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
            [a, b, c, d] => table.wrapping_add_signed(i64::from(i32::from_le_bytes([a, b, c, d]))),
            _ => break,
        };
        if target == end {
            read.special = true;
        } else if target == start {
            read.special = true;
            read.targets.push(0);
            reached = read.entries.wrapping_add(1);
        } else {
            let offset = target.wrapping_sub(start);
            let instruction = instructions.is_none_or(|i| i.binary_search_by_key(&offset, |i| i.0).is_ok());
            if target < start || target >= end || !instruction || read.targets.len() > 4096 {
                break;
            }
            read.real = read.real.wrapping_add(1);
            read.targets.push(offset);
            reached = read.entries.wrapping_add(1);
        }
        read.entries = read.entries.wrapping_add(1);
        at = at.wrapping_add(entry_size);
    }
    // BOLT drops an absolute table's trailing unreachable entries when they point
    // to another function's start.
    let function_at_end = binary.functions.binary_search_by_key(&end, |f| f.address).is_ok();
    if entry_size == 8 && reached != read.entries && function_at_end {
        read.entries = reached;
    }
    read
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use alloc::vec;

    const BASE: u64 = 0x40_1000;

    fn blocks(code: &[u8]) -> Vec<(u64, u64, Vec<u64>, bool)> {
        let binary = Binary::for_code(BASE, code);
        let function = binary.functions.first().unwrap();
        let cfg = build(&binary, function).unwrap();
        cfg.blocks.into_iter().map(|b| (b.start, b.last, b.successors, b.ends_in_call)).collect()
    }

    #[test]
    fn terminators_targets_calls_and_nops() {
        let code = [
            0x85, 0xff, //                      0  test %edi,%edi
            0x74, 0x0a, //                      2  je 0xe
            0xe8, 0x00, 0x00, 0x00, 0x00, //    4  call 9 (calls do not end blocks)
            0x75, 0x03, //                      9  jne 0xe
            0xeb, 0x01, //                      b  jmp 0xe (stays in the jne's block)
            0x90, //                            d  nop (after a terminator: a block)
            0xc3, //                            e  ret
        ];
        assert_eq!(
            blocks(&code),
            [
                (0, 2, vec![0xe, 4], false),
                (4, 0xb, vec![0xe, 0xe], false),
                (0xd, 0xd, vec![0xe], false),
                (0xe, 0xe, vec![], false),
            ]
        );
    }

    #[test]
    fn call_before_a_branch_target_and_a_tail_call() {
        let code = [
            0x85, 0xff, //                      0  test %edi,%edi
            0x74, 0x05, //                      2  je 9
            0xe8, 0x00, 0x00, 0x00, 0x00, //    4  call 9: its block ends in a call
            0xe9, 0x00, 0x10, 0x00, 0x00, //    9  jmp out of the function (a tail call)
        ];
        assert_eq!(blocks(&code), [(0, 2, vec![9, 4], false), (4, 4, vec![9], true), (9, 9, vec![], false)]);
    }

    #[test]
    fn undecodable_code_has_no_cfg() {
        let binary = Binary::for_code(BASE, &[0x90, 0x06]); // nop, then 06 (invalid in 64-bit mode)
        assert_eq!(build(&binary, binary.functions.first().unwrap()), None);
    }
}
