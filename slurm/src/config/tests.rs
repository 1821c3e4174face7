//! The listing against real Slurm 22.05.8's, key by key and value by value.
use std::path::Path;

use spur_conf::ConfFile;

use super::*;

/// The cluster Slurm 22.05.8 was recorded on (its slurm.conf is the
/// conf crate's `anchor` fixture).
const ANCHOR_CONF: &str = include_str!("../../../conf/tests/fixtures/anchor/slurm.conf");
const RECORDING: &str =
    include_str!("../../../spurctl/src/scontrol/golden/39-scontrol-show-config-full.txt");

fn parse(text: &str) -> SlurmConf {
    let mut no_includes = |_: &Path| Err(std::io::ErrorKind::NotFound.into());
    SlurmConf::parse_with(text, Path::new("/etc/slurm/slurm.conf"), &mut no_includes)
        .expect("the fixture parses")
        .value
}

fn anchor_host() -> HostFacts {
    HostFacts {
        conf_path: "/etc/slurm/slurm.conf".into(),
        next_job_id: 14,
        slurm_user_uid: Some(64030),
        slurmd_user_uid: Some(0),
        plugin_dir: "/usr/lib/x86_64-linux-gnu/slurm-wlm".into(),
        mail_prog: "/bin/mail".into(),
        hostname: "vm".into(),
    }
}

fn recorded_pairs() -> Vec<(String, String)> {
    pairs_of(RECORDING)
}

/// The recorded `Key = Value` lines, split at the first ` = `.
fn pairs_of(recording: &str) -> Vec<(String, String)> {
    recording
        .lines()
        .skip_while(|l| !l.starts_with("Configuration data as of"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once(" = ").expect("a key = value line");
            (k.trim_end().to_string(), v.to_string())
        })
        .collect()
}

/// Compares key for key, in order; BOOT_TIME is the client's to fill
/// (from `ConfigInfo::loaded_at`).
fn assert_listing(ours: &[(String, String)], expected: &[(String, String)]) {
    let keys = |p: &[(String, String)]| p.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(keys(ours), keys(expected));
    for ((key, mine), (_, theirs)) in ours.iter().zip(expected) {
        let theirs = if key == "BOOT_TIME" { "" } else { theirs };
        assert_eq!(mine, theirs, "{key}");
    }
}

#[test]
fn the_recorded_clusters_listing_is_slurms() {
    // ../shared/slurm-reference/39-scontrol-show-config-full.txt, from this
    // very slurm.conf: every key, in order, with the same value.
    let ours = entries(&parse(ANCHOR_CONF), &anchor_host());
    assert_listing(&ours, &recorded_pairs());
}

#[test]
fn keys_off_their_defaults_print_as_slurm_prints_them() {
    // Recorded from Slurm 22.05.8 with a file that sets most keys:
    // flag lists in Slurm's order and spelling, clamped and derived
    // values, and the multifactor keys.
    let conf = include_str!("../../../spurctl/src/scontrol/golden/39b-slurm.conf");
    let recorded = include_str!(
        "../../../spurctl/src/scontrol/golden/39b-scontrol-show-config-nondefault.txt"
    );
    let host = HostFacts {
        conf_path: "/tmp/probe/b/slurm.conf".into(),
        next_job_id: 99_000,
        slurm_user_uid: Some(0),
        ..anchor_host()
    };
    let ours = entries(&parse(conf), &host);
    assert_listing(&ours, &pairs_of(recorded));
}

#[test]
fn unset_keys_print_slurms_defaults() {
    // Recorded from Slurm 22.05.8 (Debian's build) with this file: the
    // defaults, and `localhost` standing for the host's name.
    let conf = "ClusterName=probe\nSlurmctldHost=localhost\nSlurmctldPort=7817\n\
                SlurmdPort=7818\nStateSaveLocation=/tmp/probe/a/state\nSlurmUser=root\n\
                SelectType=select/cons_tres\nSlurmctldLogFile=/tmp/probe/a/ctld.log\n\
                NodeName=n1 CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=n1\n\
                PriorityType=priority/basic\n";
    let recorded =
        include_str!("../../../spurctl/src/scontrol/golden/39c-scontrol-show-config-defaults.txt");
    let host = HostFacts {
        conf_path: "/tmp/probe/a/slurm.conf".into(),
        next_job_id: 1,
        slurm_user_uid: Some(0),
        ..anchor_host()
    };
    assert_listing(&entries(&parse(conf), &host), &pairs_of(recorded));
}
