//! The commands admins ask "why" with, against a running cluster: sdiag's
//! counters of jobs, passes, backfill and requests, and who may reset them.

use std::os::unix::process::CommandExt;

use crate::harness::{Cluster, Options};
use crate::text;

/// The line of `report` that starts with `start`.
fn line<'a>(report: &'a str, start: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in:\n{report}"))
}

#[test]
fn sdiag_counts_jobs_passes_backfill_and_requests() {
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let sleeper = "#!/bin/sh\nsleep 300\n";
    let first = c.submit(&["-n1", "-t", "10"], sleeper);
    c.wait_state(first, "RUNNING");
    // The whole node: it waits for the first job, planned to start when
    // that one's limit is up; the short one fits before then and passes it.
    let whole = c.submit(&["--exclusive", "-t", "10"], sleeper);
    let short = c.submit(&["-n1", "-t", "1"], sleeper);
    c.wait_state(short, "RUNNING");

    let out = c.run("sdiag", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    for expected in [
        "Jobs submitted: 3",
        "Jobs started:   2",
        "Jobs pending:   1",
        "Jobs running:   2",
        "\tTotal backfilled jobs (since last slurm start): 1",
        "\tTotal backfilled jobs (since last stats cycle start): 1",
        "\tLast depth cycle (try sched): 1",
    ] {
        line(&report, expected);
    }
    let cycles = line(&report, "\tTotal cycles: ");
    assert_ne!(cycles, "\tTotal cycles: 0", "{report}");
    let submits = line(&report, "\tREQUEST_SUBMIT_BATCH_JOB ");
    assert!(submits.contains("( 4003) count:3 "), "{submits}");
    line(&report, "\troot            (       0) count:");
    assert!(report.ends_with("\nPending RPC statistics\n\tNo pending RPCs\n"));

    // Anyone may look; only an operator may begin the counters again.
    let as_nobody = |args: &[&str]| {
        c.command("sdiag", args)
            .uid(65534)
            .gid(65534)
            .current_dir("/")
            .output()
            .expect("runs")
    };
    assert!(as_nobody(&[]).status.success());
    let out = as_nobody(&["-r"]);
    assert_eq!(out.status.code(), Some(255));
    assert_eq!(
        text(&out.stderr),
        "slurm_reset_statistics: Access/permission denied\n"
    );
    let out = c.run("sdiag", &["-r"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Reset scheduling statistics\n");

    let report = text(&c.run("sdiag", &["-i"]).stdout);
    line(&report, "Jobs submitted: 0");
    line(&report, "Jobs running:   2");
    line(
        &report,
        "\tTotal backfilled jobs (since last slurm start): 0",
    );
    assert!(!report.contains("REQUEST_SUBMIT_BATCH_JOB"), "{report}");
    // The reset itself is the first request counted after it.
    line(
        &report,
        "\tREQUEST_STATS_INFO                      ( 2035) count:",
    );
    for job in [first, whole, short] {
        c.run("scancel", &[&job.to_string()]);
    }
}
