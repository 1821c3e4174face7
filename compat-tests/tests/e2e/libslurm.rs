//! spur's libslurm.so.38 (spur-ffi) under C programs built against
//! Debian's `slurm/slurm.h`, found first by the dynamic loader, against a
//! running cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{bin_dir, Cluster, Options};
use crate::text;

const HEADER: &str = "/usr/include/slurm/slurm.h";

/// A folder where the dynamic loader finds spur's library as
/// `libslurm.so.38` (and the linker as `libslurm.so`).
fn library_dir(inside: &Path) -> PathBuf {
    let built = bin_dir().join("libslurm.so");
    assert!(
        built.exists(),
        "{} is not built (cargo build -p spur-ffi)",
        built.display()
    );
    let dir = inside.join("lib");
    std::fs::create_dir_all(&dir).expect("lib folder");
    for name in ["libslurm.so.38", "libslurm.so"] {
        std::os::unix::fs::symlink(&built, dir.join(name)).expect("link");
    }
    dir
}

/// `source` compiled against slurm.h and linked with `-lslurm` from `lib`.
fn compile(dir: &Path, lib: &Path, name: &str, source: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    let program = dir.join(name);
    std::fs::write(&c, source).expect("source written");
    let built = Command::new("cc")
        .arg(&c)
        .arg("-o")
        .arg(&program)
        .arg(format!("-L{}", lib.display()))
        .arg("-lslurm")
        .output()
        .expect("cc runs");
    assert!(built.status.success(), "{}", text(&built.stderr));
    program
}

const BASICS: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(void) {
    Dl_info where;
    dladdr((void *) slurm_ping, &where);
    printf("library %s\n", where.dli_fname);
    long v = slurm_api_version();
    printf("api %ld.%ld.%ld\n", SLURM_VERSION_MAJOR(v), SLURM_VERSION_MINOR(v), SLURM_VERSION_MICRO(v));
    slurm_init(NULL);
    printf("ping %d\n", slurm_ping(0));
    int rc = slurm_ping(1);
    printf("backup %d %s\n", rc, slurm_strerror(slurm_get_errno()));
    reserve_info_msg_t *resv = NULL;
    rc = slurm_load_reservations(0, &resv);
    printf("reservations %d %d %s %s\n", rc, slurm_get_errno(), resv ? "set" : "NULL",
           slurm_strerror(slurm_get_errno()));
    printf("strerror %s | %s | %s\n", slurm_strerror(ESLURM_INVALID_PARTITION_NAME),
           slurm_strerror(SLURM_ERROR), slurm_strerror(2));
    slurm_seterrno(ESLURM_INVALID_JOB_ID);
    slurm_perror("probe");
    slurm_fini();
    return 0;
}
"#;

#[test]
fn a_c_program_built_against_slurm_h_runs_on_spurs_library() {
    if !Path::new(HEADER).exists() {
        eprintln!("skipped: {HEADER} is not installed (libslurm-dev)");
        return;
    }
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let lib = library_dir(c.dir.path());
    let program = compile(c.dir.path(), &lib, "basics", BASICS);
    let out = Command::new(&program)
        .env("LD_LIBRARY_PATH", &lib)
        .env("SLURM_CONF", &c.conf)
        .output()
        .expect("the program runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines = text(&out.stdout);
    let lines: Vec<&str> = lines.lines().collect();
    let loaded = lines[0].strip_prefix("library ").expect("library line");
    assert!(
        Path::new(loaded).starts_with(&lib),
        "the loader took {loaded}, not spur's in {}",
        lib.display()
    );
    assert_eq!(
        lines[1..],
        [
            "api 38.0.0",
            "ping 0",
            "backup -1 Communication connection failure",
            "reservations -1 2036 NULL Requested operation not supported on this system",
            "strerror Invalid partition name specified | Unspecified error | No such file or directory",
        ]
    );
    assert_eq!(text(&out.stderr), "probe: Invalid job id specified\n");
}
