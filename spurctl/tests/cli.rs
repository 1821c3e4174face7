//! The multi-call binary: the name it runs under picks the command; and
//! sbatch's program of its own, the same command. (Being an integration
//! test of this package also makes `cargo test --workspace` build the
//! `spurctl` and `sbatch` binaries the end-to-end tests link to.)

use std::process::Command;

#[test]
fn the_program_name_picks_the_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let link = dir.path().join("sbatch");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_spurctl"), &link).expect("links");
    let out = Command::new(&link)
        .arg("--bogus-option")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(255));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sbatch: unrecognized option '--bogus-option'\nTry \"sbatch --help\" for more information\n"
    );
}

#[test]
fn spurctl_takes_the_command_as_its_first_argument() {
    let out = Command::new(env!("CARGO_BIN_EXE_spurctl"))
        .args(["scontrol", "show", "hostnames", "gb[001-003,010]"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "gb001\ngb002\ngb003\ngb010\n"
    );
}

#[test]
fn sbatch_on_its_own_answers_as_the_multi_call_binary_does() {
    let dir = tempfile::tempdir().expect("temp dir");
    // No controller listens where this slurm.conf leads.
    let conf = dir.path().join("slurm.conf");
    std::fs::write(
        &conf,
        "ClusterName=c\nSlurmctldHost=ctl(127.0.0.1)\nSlurmctldPort=1\n\
         StateSaveLocation=/nonexistent\nMessageTimeout=1\n\
         NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1 Default=YES\n",
    )
    .expect("writes");
    let run = |program: &str, first: Option<&str>, args: &[&str]| {
        let out = Command::new(program)
            .args(first)
            .args(args)
            .env("SLURM_CONF", &conf)
            .current_dir(dir.path())
            .output()
            .expect("runs");
        (out.status.code(), out.stdout, out.stderr)
    };
    for args in [
        &["--version"][..],
        &["--usage"],
        &["--bogus-option"],
        &["-J"],
        &["--time=bogus", "--wrap", "true"],
        &["--wrap", "true"],
    ] {
        let own = run(env!("CARGO_BIN_EXE_sbatch"), None, args);
        let multi = run(env!("CARGO_BIN_EXE_spurctl"), Some("sbatch"), args);
        assert_eq!(own, multi, "sbatch {args:?}");
        assert!(own.0.is_some(), "sbatch {args:?} exits");
    }
}

#[test]
fn the_own_programs_listed_are_built_beside_spurctl() {
    let out = Command::new(env!("CARGO_BIN_EXE_spurctl"))
        .arg("--own-programs")
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "sbatch\n");
    let beside = std::path::Path::new(env!("CARGO_BIN_EXE_spurctl")).with_file_name("sbatch");
    assert_eq!(beside, std::path::Path::new(env!("CARGO_BIN_EXE_sbatch")));
}
