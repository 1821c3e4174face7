#![no_main]
//! cargo-fuzz entry of the `hostlist` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::hostlist(data));
