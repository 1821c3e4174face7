#![no_main]
//! cargo-fuzz entry of the `gres_conf` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::gres_conf(data));
