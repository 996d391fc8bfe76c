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
    // As `push_unsigned`: digits fill the array from its end, then one copy.
    let mut digits = [0u8; 16];
    let mut n = value;
    let mut start = digits.len();
    for d in digits.iter_mut().rev() {
        *d = alphabet.get((n & 0xf) as usize).copied().unwrap_or(b'0');
        start = start.saturating_sub(1);
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(start..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn numbers_are_written_as_format_writes_them() {
        let mut values = alloc::vec![0u64, 1, 9, 10, 15, 16, 255, 256, 4095, 4096, u64::MAX, u64::MAX - 1, 1 << 63];
        values.extend((0..64).map(|b| 1u64 << b));
        values.extend((1..64).map(|b| (1u64 << b) - 1));
        values.extend((1..20).map(|d| 10u64.pow(d) - 1));
        for v in values {
            let mut out = b"x".to_vec();
            push_hex(&mut out, v, LOWER);
            assert_eq!(out, format!("x{v:x}").as_bytes(), "{v}");
            out.clear();
            push_hex(&mut out, v, UPPER);
            assert_eq!(out, format!("{v:X}").as_bytes(), "{v}");
            out.clear();
            push_unsigned(&mut out, v);
            assert_eq!(out, format!("{v}").as_bytes(), "{v}");
            out.clear();
            let signed = v as i64;
            push_signed(&mut out, signed);
            assert_eq!(out, format!("{signed}").as_bytes(), "{v}");
        }
    }
}
