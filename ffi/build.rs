//! Names the library as Slurm 22.05's: programs linked against
//! `libslurm.so.38` find it under that SONAME.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libslurm.so.38");
}
