#![no_main]
//! cargo-fuzz entry of the `sbatch_directives` target (see spur-fuzz).

libfuzzer_sys::fuzz_target!(|data: &[u8]| spur_fuzz::sbatch_directives(data));
