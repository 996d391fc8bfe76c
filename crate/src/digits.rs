//! Numbers as text writers write them, into a byte buffer without `format!`: decimal,
//! and hex without leading zeros (BOLT's fdata in lower case, its YAML in upper case
//! after `0x`). The writers of large text profiles (LLVM sample text, fdata, YAML)
//! spend much of their time here.

use alloc::vec::Vec;

pub const LOWER: &[u8; 16] = b"0123456789abcdef";
pub const UPPER: &[u8; 16] = b"0123456789ABCDEF";

pub fn push_unsigned(out: &mut Vec<u8>, value: u64) {
    if value < 10 {
        out.push(b'0'.wrapping_add(u8::try_from(value).unwrap_or(0)));
        return;
    }
    // Digits fill the array from its end, so one copy appends them in order.
    let mut digits = [0u8; 20];
    let mut n = value;
    let mut len = 0usize;
    for d in digits.iter_mut().rev() {
        *d = b'0'.wrapping_add((n % 10) as u8);
        len = len.saturating_add(1);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(digits.len().saturating_sub(len)..).unwrap_or_default());
}

pub fn push_signed(out: &mut Vec<u8>, value: i64) {
    if value < 0 {
        out.push(b'-');
    }
    push_unsigned(out, value.unsigned_abs());
}

pub fn push_hex(out: &mut Vec<u8>, value: u64, alphabet: &[u8; 16]) {
    let mut digits = [0u8; 16];
    let mut n = value;
    let mut len = 0usize;
    loop {
        if let Some(d) = digits.get_mut(len) {
            *d = alphabet.get((n & 0xf) as usize).copied().unwrap_or(b'0');
        }
        len = len.saturating_add(1);
        n >>= 4;
        if n == 0 || len >= digits.len() {
            break;
        }
    }
    out.extend(digits.iter().take(len).rev());
}
