#![no_main]
//! cargo-fuzz entry of the `rest_json` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::rest_json(data));
