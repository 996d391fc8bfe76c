//! A block's instructions as text, for the CFG view: x86-64 in AT&T syntax, as
//! llvm-bolt's `--print-cfg` and objdump print them (iced-x86's GAS formatter).

use alloc::string::String;
use alloc::vec::Vec;

use iced_x86::{Decoder, DecoderOptions, FlowControl, Formatter, GasFormatter, Instruction};

use crate::formats::perf::perf2bolt::binary::Binary;

/// Instructions listed per block at most: a block is rarely longer, and the view
/// must not hold a function's megabytes of text.
pub const MAX_INSTRUCTIONS: usize = 256;

/// One instruction: its offset in the function and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub offset: u64,
    pub text: String,
    /// Whether the next instruction may run after it: not after a jump, an indirect
    /// jump (a jump table's entries are all taken branches), a return or a trap.
    pub falls_through: bool,
}

/// The instructions of `[start, end)` of the function at `address` (offsets in
/// the function), up to [`MAX_INSTRUCTIONS`]; empty when the bytes are not in the
/// file or do not decode.
pub fn block(binary: &Binary<'_>, address: u64, start: u64, end: u64) -> Vec<Line> {
    let Some(at) = address.checked_add(start) else { return Vec::new() };
    let Some(bytes) = binary.bytes_at(at, end.saturating_sub(start)) else { return Vec::new() };
    let mut decoder = Decoder::with_ip(64, bytes, at, DecoderOptions::NONE);
    let mut formatter = GasFormatter::new();
    formatter.options_mut().set_first_operand_char_index(8);
    formatter.options_mut().set_hex_prefix("0x");
    formatter.options_mut().set_hex_suffix("");
    formatter.options_mut().set_uppercase_hex(false);
    formatter.options_mut().set_gas_show_mnemonic_size_suffix(true);
    formatter.options_mut().set_branch_leading_zeros(false);
    let mut out = Vec::new();
    let mut instruction = Instruction::default();
    while decoder.can_decode() && out.len() < MAX_INSTRUCTIONS {
        decoder.decode_out(&mut instruction);
        if instruction.is_invalid() {
            break;
        }
        let mut text = String::new();
        formatter.format(&instruction, &mut text);
        let falls_through = !matches!(
            instruction.flow_control(),
            FlowControl::UnconditionalBranch
                | FlowControl::IndirectBranch
                | FlowControl::Return
                | FlowControl::Exception
        );
        out.push(Line { offset: instruction.ip().wrapping_sub(address), text, falls_through });
    }
    out
}
