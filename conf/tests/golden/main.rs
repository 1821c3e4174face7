//! Golden tests: realistic config files parsed end to end. `anchor/` holds
//! the files of the real Slurm 22.05 cluster the reference outputs were
//! recorded on (../shared/slurm-reference/conf); `gb200/` a 2-domain
//! GB200 NVL72-style cluster on topology/block.

mod anchor;
mod gb200;

use std::path::PathBuf;

/// The fixture file `dir/name` of this crate.
pub fn fixture(dir: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(name)
}
