#![no_main]
//! cargo-fuzz entry of the `frame` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::frame(data));
