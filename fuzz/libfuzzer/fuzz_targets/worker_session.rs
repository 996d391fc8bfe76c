#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgolens_fuzz::worker_session(data));
