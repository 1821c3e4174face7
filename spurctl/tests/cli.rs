//! The multi-call binary: the name it runs under picks the command. (Being
//! an integration test of this package also makes `cargo test --workspace`
//! build the `spurctl` binary the end-to-end tests link to.)

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
