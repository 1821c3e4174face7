//! sacct end to end: jobs that completed, failed and were cancelled, as
//! sacct prints them from the controller's own history (no database
//! server), with and without their batch steps, and again after the
//! controller was killed and restarted.

use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::text;

/// `sacct` with `args`, which must succeed; its stdout.
fn sacct(c: &Cluster, args: &[&str]) -> String {
    let out = c.run("sacct", args);
    assert!(
        out.status.success(),
        "sacct {args:?} failed: {}{}",
        text(&out.stderr),
        c.logs()
    );
    text(&out.stdout)
}

/// Three jobs: one completed, one failed with exit code 3, one cancelled
/// while it ran. Returns their ids.
fn three_jobs(c: &Cluster) -> (u32, u32, u32) {
    let ok = c.submit(&["-J", "ok", "--wrap", "true"], "");
    let fails = c.submit(&["-J", "fails", "--wrap", "exit 3"], "");
    let long = c.submit(&["-J", "long", "--wrap", "sleep 300"], "");
    c.wait_state(ok, "COMPLETED");
    c.wait_state(fails, "FAILED");
    c.wait_state(long, "RUNNING");
    // While it runs, its record says so.
    let running = sacct(
        c,
        &[
            "-j",
            &long.to_string(),
            "-X",
            "-P",
            "-n",
            "-o",
            "JobID,State,End",
        ],
    );
    assert_eq!(running, format!("{long}|RUNNING|Unknown\n"));
    let out = c.run("scancel", &[&long.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(long, "CANCELLED");
    (ok, fails, long)
}

/// The batch step of a cancelled job ends by SIGTERM, or SIGKILL if it
/// outlived KillWait.
fn cancelled_batch(line: &str) -> bool {
    line.ends_with("|CANCELLED|0:15") || line.ends_with("|CANCELLED|0:9")
}

#[test]
fn sacct_shows_completed_failed_and_cancelled_jobs_and_their_batch_steps() {
    let c = Cluster::start(Options::default());
    let (ok, fails, long) = three_jobs(&c);
    // SAFETY: getuid has no preconditions.
    let me = unsafe { libc::getuid() };
    let list = format!("{ok},{fails}");
    let jobs = ["-j", &list, "-j", &long.to_string()];
    let alloc = sacct(
        &c,
        &[
            &jobs[..],
            &["-X", "-P", "-o", "JobID,JobName,State,ExitCode"],
        ]
        .concat(),
    );
    assert_eq!(
        alloc,
        format!(
            "JobID|JobName|State|ExitCode\n{ok}|ok|COMPLETED|0:0\n{fails}|fails|FAILED|3:0\n\
             {long}|long|CANCELLED by {me}|0:0\n"
        )
    );
    let with_steps = sacct(
        &c,
        &[&jobs[..], &["-P", "-n", "-o", "JobID,State,ExitCode"]].concat(),
    );
    let lines: Vec<&str> = with_steps.lines().collect();
    assert_eq!(lines.len(), 6, "{with_steps}");
    assert_eq!(lines[0], format!("{ok}|COMPLETED|0:0"));
    assert_eq!(lines[1], format!("{ok}.batch|COMPLETED|0:0"));
    assert_eq!(lines[2], format!("{fails}|FAILED|3:0"));
    assert_eq!(lines[3], format!("{fails}.batch|FAILED|3:0"));
    assert_eq!(lines[4], format!("{long}|CANCELLED by {me}|0:0"));
    assert!(
        lines[5].starts_with(&format!("{long}.batch|")) && cancelled_batch(lines[5]),
        "{with_steps}"
    );
    // Only the batch step, when that is what was named.
    let batch = sacct(
        &c,
        &[
            "-j",
            &format!("{fails}.batch"),
            "-P",
            "-n",
            "-o",
            "JobID,JobName,NodeList",
        ],
    );
    assert!(
        batch.starts_with(&format!("{fails}.batch|batch|n0")),
        "{batch}"
    );
    // The default report: today's jobs, Slurm's columns.
    let default = sacct(&c, &[]);
    let mut rows = default.lines();
    assert_eq!(
        rows.next(),
        Some("JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ")
    );
    assert_eq!(
        rows.next(),
        Some("------------ ---------- ---------- ---------- ---------- ---------- -------- ")
    );
    assert_eq!(
        rows.next()
            .map(|r| r.split_whitespace().collect::<Vec<_>>()),
        Some(vec![
            ok.to_string().as_str(),
            "ok",
            "batch",
            "1",
            "COMPLETED",
            "0:0"
        ])
    );
    assert_eq!(default.lines().count(), 2 + 6, "{default}");
    // A window that closed long ago selects nothing.
    let old = sacct(&c, &["-S", "2001-01-01", "-E", "2001-01-02", "-n"]);
    assert_eq!(old, "");
    // JSON parses and names the jobs.
    let json = sacct(&c, &["-j", &ok.to_string(), "--json"]);
    let value: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    assert_eq!(value["jobs"][0]["job_id"], ok);
    assert_eq!(value["jobs"][0]["steps"][0]["step"]["id"], "batch");
}

#[test]
fn sacct_still_shows_the_history_after_the_controller_is_killed() {
    let mut c = Cluster::start(Options::default());
    let (ok, fails, long) = three_jobs(&c);
    let list = format!("{ok},{fails},{long}");
    let args = [
        "-j",
        list.as_str(),
        "-P",
        "-o",
        "JobID,JobName,State,ExitCode,Elapsed",
    ];
    let before = sacct(&c, &args);
    c.kill_controller();
    c.start_controller();
    c.wait_for(Duration::from_secs(20), "the controller back", |c| {
        c.run("sacct", &args).status.success()
    });
    assert_eq!(sacct(&c, &args), before);
    assert_eq!(before.lines().count(), 1 + 6, "{before}");
}

#[test]
fn sacct_refuses_what_slurm_refuses() {
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let out = c.run("sacct", &["-o", "JobID,Bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sacct: error: Invalid field requested: \"Bogus\"\n"
    );
    let out = c.run("sacct", &["--bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sacct: unrecognized option '--bogus'\nTry \"sacct --help\" for more information\n"
    );
    let out = c.run("sacct", &["-S", "yesterdayish"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "Invalid time specification (pos=0): yesterdayish\n"
    );
}
