//! The spurd binary's command line: errors a site sees before any daemon
//! runs. (Being an integration test of this package also makes
//! `cargo test --workspace` build the `spurd` binary the end-to-end tests
//! start.)

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn spurd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spurd"))
}

#[test]
fn a_missing_slurm_conf_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("slurm.conf");
    let out = spurd()
        .args(["controller", "--conf"])
        .arg(&conf)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!("spurd: error: while reading {}", conf.display())),
        "{err}"
    );
}

#[test]
fn an_agent_for_a_node_not_in_slurm_conf_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("slurm.conf");
    std::fs::write(
        &conf,
        "SlurmctldHost=ctl(127.0.0.1)\nNodeName=n1 CPUs=2\nPartitionName=p Nodes=n1\n",
    )
    .expect("writes");
    let key = dir.path().join("spur.key");
    std::fs::write(&key, b"0123456789abcdef").expect("writes");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let out = spurd()
        .args(["agent", "--node", "nosuch", "--conf"])
        .arg(&conf)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "spurd: error: nosuch is not a NodeName in slurm.conf\n"
    );
}

#[test]
fn a_cluster_key_others_can_read_stops_every_daemon() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("slurm.conf");
    std::fs::write(
        &conf,
        format!(
            "SlurmctldHost=ctl(127.0.0.1)\nStateSaveLocation={}/state\n\
             NodeName=n1 CPUs=2\nPartitionName=p Nodes=n1\n",
            dir.path().display()
        ),
    )
    .expect("writes");
    let key = dir.path().join("spur.key");
    std::fs::write(&key, b"0123456789abcdef").expect("writes");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    for args in [
        &["controller", "--conf"][..],
        &["agent", "--node", "n1", "--conf"],
        &["relay", "--socket", "/nonexistent/relay.sock", "--conf"],
    ] {
        let out = spurd().args(args).arg(&conf).output().expect("runs");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "spurd: error: the cluster key file {} has mode 0644, which lets other users at \
                 it; chmod it to 0600\n",
                key.display()
            ),
            "{args:?}"
        );
    }
}
