//! The spur-sim command on bad input: an error naming the place, exit 1,
//! never a panic; and a small good run writing JSON, CSV and the plot.

use std::path::Path;
use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_spur-sim"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("spur-sim runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write fixture");
    path.display().to_string()
}

const HEADER: &str = "job_id,submit_s,runtime_s,req_walltime_s,nodes,gpus,user,orig_wait_s\n";

#[test]
fn malformed_trace_names_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = write(
        dir.path(),
        "jobs.csv",
        &format!("{HEADER}1,0,10,10,2,-1,-1,-1\n2,5,abc,10,2,-1,-1,-1\n"),
    );
    let (code, _, err) = sim(&["--trace", &trace, "--domains", "2"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("jobs.csv:3"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Runs a one-job trace on a block cluster of nodes n[1-NODES] with the
/// given topology.conf; returns the exit code and stderr.
fn run_block_cluster(nodes: u32, topology: &str) -> (i32, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = write(
        dir.path(),
        "jobs.csv",
        &format!("{HEADER}1,0,10,10,2,-1,-1,-1\n"),
    );
    write(dir.path(), "topology.conf", topology);
    let conf = write(
        dir.path(),
        "slurm.conf",
        &format!(
            "TopologyPlugin=topology/block\nNodeName=n[1-{nodes}] CPUs=4 Gres=gpu:4\n\
             PartitionName=p Nodes=n[1-{nodes}] Default=YES\n"
        ),
    );
    let (code, _, err) = sim(&["--trace", &trace, "--conf", &conf]);
    (code, err)
}

#[test]
fn node_in_two_blocks_names_both_lines() {
    let (code, err) =
        run_block_cluster(3, "BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[2-3]\n");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("topology.conf:2") && err.contains("topology.conf:1"),
        "{err}"
    );
}

#[test]
fn block_sizes_that_are_not_power_of_two_multiples_are_refused() {
    let (code, err) = run_block_cluster(
        4,
        "BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\nBlockSizes=2,6\n",
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("topology.conf:3"), "{err}");
}

#[test]
fn job_larger_than_the_cluster_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = write(
        dir.path(),
        "jobs.csv",
        &format!("{HEADER}1,0,10,10,2,-1,-1,-1\n42,5,10,10,100,-1,-1,-1\n"),
    );
    let (code, _, err) = sim(&["--trace", &trace, "--domains", "2"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("job 42 asks for 100 nodes, but the cluster has 36 nodes"),
        "{err}"
    );
}

#[test]
fn a_small_run_writes_json_csv_plot_and_schedule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = write(
        dir.path(),
        "jobs.csv",
        &format!(
            "{HEADER}1,0,100,200,10,-1,-1,-1\n2,10,100,200,18,-1,-1,-1\n3,20,50,100,4,-1,-1,-1\n"
        ),
    );
    let json = dir.path().join("out.json");
    let csv = dir.path().join("out.csv");
    let svg = dir.path().join("out.svg");
    let schedule = dir.path().join("schedule.txt");
    let (code, out, err) = sim(&[
        "--trace",
        &trace,
        "--domains",
        "2",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
        "--schedule",
        schedule.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("domain_span_ratio"), "{out}");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for side in ["spur", "baseline"] {
        for key in [
            "occupancy",
            "occupancy_bound",
            "wait_mean_s",
            "wait_p50_s",
            "wait_p99_s",
            "bounded_slowdown_mean",
            "jobs_total",
            "jobs_split",
            "jobs_split_le18_nodes",
            "domain_span_ratio",
            "gpus_free_unusable_mean",
            "makespan_s",
        ] {
            assert!(value[side].get(key).is_some(), "{side}.{key} missing");
        }
    }
    assert!(value["sim_wall_s"].as_f64().is_some());
    assert_eq!(value["spur"]["jobs_total"], 3);
    // The 18-node job fits one domain in spur; first fit splits it.
    assert_eq!(value["spur"]["jobs_split_le18_nodes"], 0);
    assert_eq!(value["baseline"]["jobs_split_le18_nodes"], 1);
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .starts_with("metric,spur,baseline\n"));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let sched = std::fs::read_to_string(&schedule).unwrap();
    assert_eq!(sched.lines().count(), 3, "{sched}");
}
