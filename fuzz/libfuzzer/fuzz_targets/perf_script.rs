#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgolens_fuzz::perf_script(data));
