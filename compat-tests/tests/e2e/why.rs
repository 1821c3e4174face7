//! The commands admins ask "why" with, against a running cluster: sdiag's
//! counters of jobs, passes, backfill and requests, and who may reset
//! them; sprio's priority terms of the jobs that wait; sshare's
//! fair-share tree.

use std::os::unix::process::CommandExt;

use crate::harness::{Cluster, Options};
use crate::text;

/// A job that cannot start is told why with no other event to call a
/// pass: a submission that could start nothing leaves the pass for a
/// moment later, and then it comes.
#[test]
fn a_job_that_cannot_start_is_told_why_without_another_event() {
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let first = c.submit(&["--exclusive", "-t", "10"], "#!/bin/sh\nsleep 300\n");
    c.wait_state(first, "RUNNING");
    let waiting = c.submit(&["-n1", "-t", "10"], "#!/bin/sh\ntrue\n");
    let id = waiting.to_string();
    c.wait_for(std::time::Duration::from_secs(10), "its reason", |c| {
        text(&c.run("squeue", &["-h", "-j", &id, "-o", "%r"]).stdout).trim() == "Resources"
    });
    assert_eq!(c.state(waiting).as_deref(), Some("PENDING"));
}

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

    // squeue --start shows the whole-node job's start from the plan: when
    // the first job's limit is up.
    let start = text(
        &c.run(
            "squeue",
            &["--start", "-h", "-j", &whole.to_string(), "-o", "%S %r"],
        )
        .stdout,
    );
    let (when, reason) = start.trim().split_once(' ').expect("a start and a reason");
    assert_eq!(reason, "Resources");
    assert!(when.contains('T'), "a planned start: {start}");

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
    // This cluster has no multifactor priority: sprio has nothing to show.
    let out = c.run("sprio", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "You are not running a supported priority plugin\n(priority/basic).\n\
         Only 'priority/multifactor' is supported.\n"
    );
    for job in [first, whole, short] {
        c.run("scancel", &[&job.to_string()]);
    }
}

#[test]
fn sprio_shows_the_terms_of_the_jobs_that_wait() {
    let c = Cluster::start(Options {
        nodes: 1,
        extra_conf: "PriorityType=priority/multifactor\nPriorityWeightAge=1000\n\
                     PriorityWeightJobSize=1000\n",
        ..Options::default()
    });
    let sleeper = "#!/bin/sh\nsleep 300\n";
    let whole = c.submit(&["--exclusive", "-t", "10"], sleeper);
    c.wait_state(whole, "RUNNING");
    let plain = c.submit(&["-n1", "-t", "5"], sleeper);
    let nice = c.submit(&["-n1", "-t", "5", "--nice=100"], sleeper);
    let held = c.submit(&["-n1", "--hold"], sleeper);
    let row = |id: u32, prio: u32, nice: i32| {
        format!(
            "{id:>15} batch     {prio:>10} {:>10} {:>10} {:>10} {:>10}",
            0, 0, 1000, nice
        )
    };
    // Seconds of age out of PriorityMaxAge's week are worth nothing yet;
    // a one-node job on a one-node cluster is worth all of its weight.
    let out = c.run("sprio", &["-o", "%.15i %9r %.10Y %.10S %.10A %.10J %.10N"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "          JOBID PARTITION   PRIORITY       SITE        AGE    JOBSIZE       NICE\n\
             {}\n{}\n",
            row(plain, 1000, 0),
            row(nice, 900, 100)
        ),
        "the running and the held job are not listed"
    );
    // The default columns are the terms that weigh something.
    let out = text(&c.run("sprio", &["-S", "-y,i"]).stdout);
    let header = out.lines().next().unwrap_or_default();
    assert_eq!(
        header,
        "          JOBID PARTITION   PRIORITY       SITE        AGE    JOBSIZE"
    );
    // squeue agrees on each job's priority.
    let queue = text(&c.run("squeue", &["-h", "-t", "PD", "-o", "%i %Q"]).stdout);
    assert!(queue.contains(&format!("{plain} 1000\n")), "{queue}");
    assert!(queue.contains(&format!("{nice} 900\n")), "{queue}");
    let weights = text(&c.run("sprio", &["-w", "-n"]).stdout);
    assert_eq!(
        weights.lines().nth(1),
        Some("        Weights                      1000       1000      ")
    );
    let one = text(
        &c.run("sprio", &["-h", "-j", &nice.to_string(), "-o", "%i %u %r"])
            .stdout,
    );
    assert_eq!(one, format!("{nice} root batch\n"));
    let held_only = c.run("sprio", &["-j", &held.to_string()]);
    assert_eq!(
        text(&held_only.stdout),
        "Unable to find jobs matching user/id(s) specified\n"
    );
    let out = c.run("sprio", &["-u", "nobody", "-h"]);
    assert_eq!(text(&out.stdout), "", "root's jobs only");
    // A user this host does not know selects no job (and sprio says so).
    let out = c.run("sprio", &["-u", "no-such-user", "-h"]);
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "sprio: error: Invalid user: no-such-user\n\n"
    );
    for job in [whole, plain, nice, held] {
        c.run("scancel", &[&job.to_string()]);
    }
}

#[test]
fn sshare_lists_the_root_and_each_user_who_ran() {
    let c = Cluster::start(Options {
        nodes: 1,
        extra_conf: "PriorityType=priority/multifactor\nPriorityWeightFairshare=1000\n",
        ..Options::default()
    });
    let job = c.submit(&["-n1"], "#!/bin/sh\nsleep 1\n");
    c.wait_state(job, "COMPLETED");
    let out = c.run("sshare", &["-a", "-P"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(
        lines[0],
        "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare"
    );
    assert!(lines[1].starts_with("root|||1.000000|"), "{report}");
    assert!(lines[1].ends_with("|1.000000|"), "{report}");
    // The one user who ran holds all of the usage and the only share.
    assert!(lines[2].starts_with(" root|root|1|1.000000|"), "{report}");
    assert!(lines[2].contains("|1.000000|0."), "{report}");
    assert_eq!(lines.len(), 3, "{report}");
    // Columns, as root sees its own rows by default.
    let columns = text(&c.run("sshare", &[]).stdout);
    assert!(columns.starts_with(
        "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare \n\
         -------------------- ---------- ---------- ----------- ----------- ------------- ---------- \n\
         root                                          1.000000"
    ));
    let only = text(
        &c.run("sshare", &["-U", "-P", "-n", "-o", "User,RawSh"])
            .stdout,
    );
    assert_eq!(only, "root|1\n");
    let none = text(
        &c.run("sshare", &["-u", "nobody", "-P", "-n", "-o", "Account"])
            .stdout,
    );
    assert_eq!(none, "root\n", "the root's row only");
    let bad = c.run("sshare", &["-o", "nosuch"]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        text(&bad.stderr),
        "sshare: error: Invalid field requested: \"nosuch\"\n"
    );
}
