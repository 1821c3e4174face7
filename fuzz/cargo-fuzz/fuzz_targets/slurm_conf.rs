#![no_main]
//! cargo-fuzz entry of the `slurm_conf` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::slurm_conf(data));
