//! The BOLT YAML decoder in wasm, for `count.sh`: a buffer to copy the text into,
//! then the text decoded as the worker's stream decodes a dropped file (4 MiB
//! blocks) or whole. Each returns the blocks decoded, 0 on an error.

#![allow(unsafe_code)] // a bench harness: raw memory handed to JS

use pgolens::formats::bolt::yaml::{self, YamlStream, PIECE};

/// `len` bytes of wasm memory for the text, never freed.
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut buffer = Vec::<u8>::with_capacity(len);
    let at = buffer.as_mut_ptr();
    core::mem::forget(buffer);
    at
}

fn text<'a>(at: *const u8, len: usize) -> &'a [u8] {
    // SAFETY: `at` is what `alloc(len)` returned, filled by the caller.
    unsafe { core::slice::from_raw_parts(at, len) }
}

#[no_mangle]
pub extern "C" fn streamed(at: *const u8, len: usize) -> u32 {
    // Told the length, as the worker tells it the file's size.
    let mut stream = YamlStream::with_len(PIECE, len as u64);
    for block in text(at, len).chunks(4 << 20) {
        if stream.feed(block).is_err() {
            return 0;
        }
    }
    stream.finish().map_or(0, |p| p.blocks.len() as u32)
}

#[no_mangle]
pub extern "C" fn whole(at: *const u8, len: usize) -> u32 {
    yaml::decode(text(at, len)).map_or(0, |p| p.blocks.len() as u32)
}
