#![no_main]
//! cargo-fuzz entry of the `topology_conf` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::topology_conf(data));
