//! Numbers as BOLT's text profiles write them: decimal, and hex without leading
//! zeros (fdata in lower case, YAML in upper case after `0x`).

use alloc::vec::Vec;

pub const LOWER: &[u8; 16] = b"0123456789abcdef";
pub const UPPER: &[u8; 16] = b"0123456789ABCDEF";

pub fn push_unsigned(out: &mut Vec<u8>, value: u64) {
    let mut digits = [0u8; 20];
    let mut n = value;
    let mut len = 0usize;
    loop {
        if let Some(d) = digits.get_mut(len) {
            *d = b'0'.wrapping_add((n % 10) as u8);
        }
        len = len.saturating_add(1);
        n /= 10;
        if n == 0 || len >= digits.len() {
            break;
        }
    }
    out.extend(digits.iter().take(len).rev());
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
