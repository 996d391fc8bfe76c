//! zstd for COMPRESSED records, through `ruzstd` (pure Rust, no_std).
//!
//! perf compresses the whole recording as one zstd stream and flushes it at the
//! end of every record, so a frame usually spans many records: its header is in
//! the first, and every later record holds whole blocks of the same frame.

use alloc::vec::Vec;

use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use crate::error::{Error, Result};

/// perf compresses with small windows; refusing larger ones bounds memory.
const MAX_WINDOW: u64 = 64 << 20;

/// A zstd stream decoded one compressed record at a time.
pub struct Unpacker {
    decoder: FrameDecoder,
    in_frame: bool,
}

impl Unpacker {
    pub fn new() -> Self {
        let mut decoder = FrameDecoder::new();
        decoder.set_max_window_size(MAX_WINDOW);
        Unpacker { decoder, in_frame: false }
    }

    /// Decodes the blocks of one compressed record, appending to `out`; fails
    /// once `out` would exceed `limit` bytes. `at` is the record's offset, for errors.
    pub fn unpack(&mut self, mut input: &[u8], out: &mut Vec<u8>, limit: usize, at: u64) -> Result<()> {
        while !input.is_empty() {
            if !self.in_frame {
                // Zero padding may follow the last frame.
                if input.iter().all(|&b| b == 0) {
                    break;
                }
                self.decoder.reset(&mut input).map_err(|_| Error::malformed(at, "a zstd frame header"))?;
                self.in_frame = true;
                continue;
            }
            let before = input.len();
            let done = self
                .decoder
                .decode_blocks(&mut input, BlockDecodingStrategy::UptoBlocks(1))
                .map_err(|_| Error::malformed(at, "zstd blocks"))?;
            if out.len().saturating_add(self.decoder.can_collect()) > limit {
                return Err(Error::malformed(at, "compressed records no larger than the file allows"));
            }
            self.decoder.collect_to_writer(&mut *out).map_err(|_| Error::malformed(at, "zstd output"))?;
            if done {
                // Everything decoded is final once the frame ends.
                self.decoder.collect_to_writer(&mut *out).map_err(|_| Error::malformed(at, "zstd output"))?;
                self.in_frame = false;
            }
            if input.len() >= before {
                return Err(Error::malformed(at, "zstd data that makes progress"));
            }
        }
        Ok(())
    }

    /// Ends the stream. perf never ends its frame, and the decoder keeps the last
    /// window of output for back-references until the frame ends; an empty last
    /// raw block (and a dummy checksum, which is not verified) ends it and
    /// releases that output.
    pub fn finish(&mut self, out: &mut Vec<u8>, limit: usize, at: u64) -> Result<()> {
        if !self.in_frame {
            return Ok(());
        }
        const EMPTY_LAST_RAW_BLOCK: [u8; 7] = [1, 0, 0, 0, 0, 0, 0];
        let mut input = &EMPTY_LAST_RAW_BLOCK[..];
        let done = self
            .decoder
            .decode_blocks(&mut input, BlockDecodingStrategy::UptoBlocks(1))
            .map_err(|_| Error::malformed(at, "zstd blocks"))?;
        if !done || out.len().saturating_add(self.decoder.can_collect()) > limit {
            return Err(Error::malformed(at, "a zstd stream that can end"));
        }
        self.decoder.collect_to_writer(&mut *out).map_err(|_| Error::malformed(at, "zstd output"))?;
        self.in_frame = false;
        Ok(())
    }
}
