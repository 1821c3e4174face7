#![no_main]
//! cargo-fuzz entry of the `tres_gres` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::tres_gres(data));
