//! MD5 (RFC 1321), only as far as instrprof needs it: a function's `NameRef` /
//! GUID is the first 8 bytes of the MD5 digest of its PGO name, read little-endian
//! (`IndexedInstrProf::ComputeHash`, `MD5Hash`).
//!
//! A small self-contained implementation keeps the core free of another
//! dependency; it hashes names, never large inputs.

/// Per-round shift amounts.
const S: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
    21,
];

/// `floor(abs(sin(i + 1)) × 2^32)`.
const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501, 0x698098d8,
    0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
    0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87,
    0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039,
    0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
    0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
    0xeb86d391,
];

fn compress(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut m = [0u32; 16];
    for (word, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        let mut b = [0u8; 4];
        b.copy_from_slice(bytes);
        *word = u32::from_le_bytes(b);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for (i, (&k, &s)) in K.iter().zip(S.iter()).enumerate() {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), i.wrapping_mul(5).wrapping_add(1) % 16),
            2 => (b ^ c ^ d, i.wrapping_mul(3).wrapping_add(5) % 16),
            _ => (c ^ (b | !d), i.wrapping_mul(7) % 16),
        };
        let word = m.get(g).copied().unwrap_or(0);
        let rotated = a.wrapping_add(f).wrapping_add(k).wrapping_add(word).rotate_left(s);
        a = d;
        d = c;
        c = b;
        b = b.wrapping_add(rotated);
    }
    for (x, y) in state.iter_mut().zip([a, b, c, d]) {
        *x = x.wrapping_add(y);
    }
}

/// The 16-byte MD5 digest of `data`.
pub fn digest(data: &[u8]) -> [u8; 16] {
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut chunks = data.chunks_exact(64);
    for chunk in &mut chunks {
        let mut block = [0u8; 64];
        block.copy_from_slice(chunk);
        compress(&mut state, &block);
    }
    // The tail, the 0x80 marker, zeros, and the bit length: one or two blocks.
    let tail = chunks.remainder();
    let mut last = [0u8; 128];
    let blocks = if tail.len() < 56 { 1 } else { 2 };
    for (dst, &src) in last.iter_mut().zip(tail) {
        *dst = src;
    }
    if let Some(marker) = last.get_mut(tail.len()) {
        *marker = 0x80;
    }
    let bits = (data.len() as u64).wrapping_mul(8).to_le_bytes();
    let len_at = if blocks == 1 { 56 } else { 120 };
    for (dst, src) in last.iter_mut().skip(len_at).zip(bits) {
        *dst = src;
    }
    for block in last.chunks_exact(64).take(blocks) {
        let mut b = [0u8; 64];
        b.copy_from_slice(block);
        compress(&mut state, &b);
    }
    let mut out = [0u8; 16];
    for (dst, word) in out.chunks_exact_mut(4).zip(state) {
        dst.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// `NameRef` / `IndexedInstrProf::ComputeHash`: the digest's first 8 bytes as a
/// little-endian u64.
pub fn name_ref(name: &[u8]) -> u64 {
    let d = digest(name);
    let mut low = [0u8; 8];
    low.copy_from_slice(d.get(..8).unwrap_or(&[0; 8]));
    u64::from_le_bytes(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_1321_vectors_and_name_refs() {
        let hex = |d: [u8; 16]| d.iter().map(|b| alloc::format!("{b:02x}")).collect::<alloc::string::String>();
        assert_eq!(hex(digest(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(digest(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        let long = b"12345678901234567890123456789012345678901234567890123456789012345678901234567890";
        assert_eq!(hex(digest(long)), "57edf4a22be3c955ac49da2e2107b67a");
        // 56 bytes: the length no longer fits in the first padding block
        assert_eq!(hex(digest(&[b'a'; 56])), "3b0c8ac703f828b04c6c197006d17218");
        // The layout notes' checks: "simple_loops" and "main".
        assert_eq!(name_ref(b"simple_loops"), 0x079b_e9fb_1489_87d7);
        assert_eq!(name_ref(b"main"), 0xdb95_6436_e78d_d5fa);
    }
}
