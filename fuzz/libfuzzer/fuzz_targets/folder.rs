#![no_main]

// Built without a sanitizer: more than 512 MiB live for an input of at most 1 MiB
// aborts, and libFuzzer keeps the input.
#[global_allocator]
static ALLOCATOR: pgolens_fuzz::alloc::Counting = pgolens_fuzz::alloc::Counting::with_limit(512 << 20);

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgolens_fuzz::folder_offer(data));
