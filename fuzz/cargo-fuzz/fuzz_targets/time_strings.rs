#![no_main]
//! cargo-fuzz entry of the `time_strings` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::time_strings(data));
