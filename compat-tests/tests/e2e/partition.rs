//! Network partitions: each node's agent in a network namespace of its
//! own, joined to the controller's by a veth pair that the test cuts (the
//! connections stay open, as in a real partition), heals or slows down. A
//! cut shorter than SlurmdTimeout changes nothing; a longer one sets the
//! node DOWN, ends its jobs NODE_FAIL or requeues them; the cut-off node
//! stops its jobs before that (it hears no controller either), and when it
//! heals they are killed while stopped, so no job runs in two places at
//! once or writes again, and their ends are ignored. A slow link, or one that loses packets at random (in
//! user space: this kernel has no sch_netem), still carries jobs and
//! steps, and a node whose clock is off by minutes still runs them. Skips
//! where namespaces cannot be made (not root) or libfaketime is missing.

use std::time::Duration;

use crate::harness::{faketime_library, netns_unavailable, Cluster, Options};
use crate::text;

/// A cluster of `opts` with each node in a network namespace of its own;
/// None (the test skips) where namespaces cannot be made.
fn in_namespaces(opts: Options) -> Option<Cluster> {
    if let Some(why) = netns_unavailable() {
        eprintln!("skipped: cannot make network namespaces here: {why}");
        return None;
    }
    Some(Cluster::start(Options {
        netns: true,
        ..opts
    }))
}

/// A script that writes `node tick` to `file` every 0.2 s, `n` times.
fn ticker(file: &std::path::Path, n: u32) -> String {
    format!(
        "#!/bin/sh\nfor i in $(seq {n}); do echo \"$SLURMD_NODENAME $i\" >> {}; sleep 0.2; done\n",
        file.display()
    )
}

fn lines_from(file: &std::path::Path, node: &str) -> usize {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(&format!("{node} ")))
        .count()
}

/// `bytes` of task output from n01 reach srun byte for byte.
fn output_arrives_whole(c: &Cluster, bytes: usize) {
    let make = format!("head -c {bytes} /dev/zero | tr '\\0' x");
    let out = c.run("srun", &["-w", "n01", "sh", "-c", &make]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(out.stdout.len(), bytes);
    assert!(out.stdout.iter().all(|&b| b == b'x'));
}

/// The clock offset an agent's log last reported, in seconds.
fn logged_offset(log: &std::path::Path) -> Option<i64> {
    let log = std::fs::read_to_string(log).ok()?;
    log.lines()
        .rfind(|l| l.contains("this node's clock is off from the controller's"))?
        .split("offset_secs=")
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn node_state(c: &Cluster, node: &str) -> String {
    let out = c.run("sinfo", &["-h", "-n", node, "-o", "%t", "-p", "batch"]);
    text(&out.stdout).trim().to_string()
}

#[test]
fn a_node_cut_off_for_less_than_slurmd_timeout_changes_nothing() {
    let Some(c) = in_namespaces(Options {
        nodes: 2,
        slurmd_timeout: 20,
        ..Options::default()
    }) else {
        return;
    };
    let ticks = c.dir.path().join("ticks");
    let id = c.submit(&["-w", "n01", "-o", "/dev/null"], &ticker(&ticks, 30));
    c.wait_state(id, "RUNNING");
    c.cut_node(0);
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(c.state(id).as_deref(), Some("RUNNING"));
    let state = node_state(&c, "n01");
    assert!(matches!(state.as_str(), "mix" | "alloc"), "{state}");
    // The job went on while its node was cut off.
    assert!(
        lines_from(&ticks, "n01") >= 15,
        "{}",
        lines_from(&ticks, "n01")
    );
    c.heal_node(0);
    c.wait_state_within(id, "COMPLETED", Duration::from_secs(30));
    assert_eq!(lines_from(&ticks, "n01"), 30);
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).expect("log");
    assert!(!log.contains("node set DOWN"), "{log}");
    // And steps still reach the node.
    let out = c.run("srun", &["-w", "n01", "hostname"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_node_cut_off_for_longer_goes_down_and_its_stale_jobs_die_when_it_heals() {
    let Some(c) = in_namespaces(Options {
        nodes: 2,
        slurmd_timeout: 4,
        // A requeued job waits cred_expire + 1 s before it runs again.
        extra_conf: "AuthInfo=cred_expire=5\n",
        ..Options::default()
    }) else {
        return;
    };
    let ticks = c.dir.path().join("ticks");
    // Requeued on node failure (JobRequeue=1, slurm.conf's default).
    let requeued = c.submit(&["-o", "/dev/null"], &ticker(&ticks, 100));
    c.wait_state(requeued, "RUNNING");
    let first = text(
        &c.run("squeue", &["-h", "-j", &requeued.to_string(), "-o", "%N"])
            .stdout,
    )
    .trim()
    .to_string();
    let (cut, other) = if first == "n01" {
        (0, "n02")
    } else {
        (1, "n01")
    };
    let failed_ticks = c.dir.path().join("failed-ticks");
    let failed = c.submit(
        &["--no-requeue", "-w", &first, "-o", "/dev/null"],
        &ticker(&failed_ticks, 150),
    );
    c.wait_state(failed, "RUNNING");

    c.cut_node(cut);
    c.wait_state_within(failed, "NODE_FAIL", Duration::from_secs(20));
    assert!(
        node_state(&c, &first).starts_with("down"),
        "{}",
        node_state(&c, &first)
    );
    // The requeued job runs again, on the other node.
    c.wait_for(
        Duration::from_secs(30),
        "the requeued job on the other node",
        |_| lines_from(&ticks, other) > 0,
    );
    // The cut-off copies stopped before the new run began: every line
    // from the cut-off node comes before the first from the other.
    let order = std::fs::read_to_string(&ticks).expect("ticks");
    let first_other = order
        .lines()
        .position(|l| l.starts_with(&format!("{other} ")))
        .expect("a line from the other node");
    assert!(
        order
            .lines()
            .skip(first_other)
            .all(|l| !l.starts_with(&format!("{first} "))),
        "two copies ran at once:\n{order}"
    );
    let (stale, stale_failed) = (
        lines_from(&ticks, &first),
        lines_from(&failed_ticks, &first),
    );
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        lines_from(&ticks, &first),
        stale,
        "a cut-off copy writes on"
    );
    let agent_log = c.dir.path().join(format!("agent-{first}.log"));
    let agent = std::fs::read_to_string(&agent_log).expect("agent log");
    assert!(
        agent.contains("this node's jobs are stopped until it answers"),
        "{agent}"
    );

    c.heal_node(cut);
    let log_file = c.dir.path().join("controller.log");
    c.wait_for(
        Duration::from_secs(30),
        "the healed node's stale jobs killed",
        |_| {
            let log = std::fs::read_to_string(&log_file).unwrap_or_default();
            log.matches("node runs a job the controller does not; killing it")
                .count()
                >= 2
        },
    );
    // Killed while stopped: not a line more, then or later.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        lines_from(&ticks, &first),
        stale,
        "a stale copy wrote again"
    );
    assert_eq!(lines_from(&failed_ticks, &first), stale_failed);
    assert!(stale < 100, "the stale copy ran to its end");

    // The requeued run completes, and the stale ends changed nothing.
    c.wait_state_within(requeued, "COMPLETED", Duration::from_secs(60));
    assert_eq!(lines_from(&ticks, other), 100);
    assert_eq!(c.state(failed).as_deref(), Some("NODE_FAIL"));
    let restarts = text(
        &c.run("scontrol", &["show", "job", &requeued.to_string()])
            .stdout,
    );
    assert!(restarts.contains("Restarts=1"), "{restarts}");
}

#[test]
fn a_cut_off_nodes_share_of_a_multi_node_job_stops_and_dies_when_it_heals() {
    let Some(c) = in_namespaces(Options {
        nodes: 2,
        slurmd_timeout: 4,
        ..Options::default()
    }) else {
        return;
    };
    let ticks = c.dir.path().join("step-ticks");
    let script = format!(
        "#!/bin/sh\nsrun -N2 sh -c 'while :; do echo \"$SLURMD_NODENAME x\" >> {}; sleep 0.2; done'\n",
        ticks.display()
    );
    let id = c.submit(&["-N2", "--no-requeue", "-o", "/dev/null"], &script);
    c.wait_state(id, "RUNNING");
    let shown = text(&c.run("scontrol", &["show", "job", &id.to_string()]).stdout);
    let batch_host = shown
        .split_whitespace()
        .find_map(|w| w.strip_prefix("BatchHost="))
        .expect("BatchHost")
        .to_string();
    // Cut the node that runs only the step's tasks.
    let (cut, away) = if batch_host == "n01" {
        (1, "n02")
    } else {
        (0, "n01")
    };
    c.wait_for(
        Duration::from_secs(30),
        "the step's tasks on both nodes",
        |_| lines_from(&ticks, "n01") > 0 && lines_from(&ticks, "n02") > 0,
    );
    c.cut_node(cut);
    c.wait_state_within(id, "NODE_FAIL", Duration::from_secs(20));
    let stale = lines_from(&ticks, away);
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        lines_from(&ticks, away),
        stale,
        "the cut-off tasks write on"
    );

    c.heal_node(cut);
    // Killed on the node's return: by the controller when the node
    // registers, or by the step itself when it finds its srun gone,
    // whichever comes first; never let run again.
    let path = ticks.to_string_lossy().into_owned();
    c.wait_for(Duration::from_secs(30), "the cut-off tasks gone", |_| {
        processes_naming(&path) == 0
    });
    assert_eq!(lines_from(&ticks, away), stale, "a stale task wrote again");
}

/// How many processes have `text` in their command line.
fn processes_naming(text: &str) -> usize {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .flatten()
        .filter_map(|p| std::fs::read(p.path().join("cmdline")).ok())
        .filter(|cmd| String::from_utf8_lossy(cmd).contains(text))
        .count()
}

#[test]
fn a_slow_link_still_carries_jobs_and_steps() {
    let Some(c) = in_namespaces(Options {
        nodes: 1,
        ..Options::default()
    }) else {
        return;
    };
    c.slow_node(0, "512kbit");
    // 200 KB of task output over 64 KB/s: about three seconds.
    output_arrives_whole(&c, 200_000);
    let id = c.submit(&["-o", "/dev/null"], "#!/bin/sh\ntrue\n");
    c.wait_state(id, "COMPLETED");
}

#[test]
fn a_link_that_loses_a_tenth_of_its_packets_still_carries_jobs_and_steps() {
    let Some(c) = in_namespaces(Options {
        nodes: 1,
        lossy_links: true,
        slurmd_timeout: 10,
        ..Options::default()
    }) else {
        return;
    };
    // As `netem loss 10%` would, each way.
    c.lose_packets(0, 10.0);
    output_arrives_whole(&c, 300_000);
    let ids: Vec<u32> = (0..20)
        .map(|i| {
            c.submit(
                &["-o", "/dev/null", "-J", &format!("lossy{i}")],
                "#!/bin/sh\nsrun true\n",
            )
        })
        .collect();
    for id in ids {
        c.wait_state_within(id, "COMPLETED", Duration::from_secs(120));
    }
    let lost = c.packets_lost(0);
    assert!(lost > 0, "the link lost nothing; the test tried no loss");
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).expect("log");
    assert!(!log.contains("node set DOWN"), "{log}");
    eprintln!("packets lost on the link: {lost}");
}

#[test]
fn a_node_whose_clock_is_off_by_minutes_still_runs_jobs_and_steps() {
    if faketime_library().is_none() {
        eprintln!("skipped: libfaketime is not installed (apt-get install faketime)");
        return;
    }
    let mut c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    // Step grants live AuthInfo's cred_expire (120 s by default): a node
    // judging them by its own clock would find every one expired (n01) or
    // good for ten minutes too long (n02).
    c.restart_agent_skewed(0, "+10m").expect("libfaketime");
    c.restart_agent_skewed(1, "-10m").expect("libfaketime");
    let real_now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs() as i64
    };
    for (name, sign) in [("n01", -1), ("n02", 1)] {
        // The agent found its clock off: the controller's minus its own.
        let log = c.dir.path().join(format!("agent-{name}.log"));
        c.wait_for(
            Duration::from_secs(30),
            "the skewed agent's registration",
            |_| logged_offset(&log).is_some(),
        );
        let offset = logged_offset(&log).expect("an offset");
        assert!(
            (offset - sign * 600).abs() < 60,
            "{name} is off by {offset} s"
        );

        let out = c.run("srun", &["-w", name, "true"]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let id = c.submit(&["-w", name, "-o", "/dev/null"], "#!/bin/sh\nsrun true\n");
        c.wait_state(id, "COMPLETED");
        // Its start and end are the controller's times, not the node's.
        let out = c.run(
            "sacct",
            &["-n", "-X", "-P", "-j", &id.to_string(), "-o", "Start,End"],
        );
        let times = text(&out.stdout);
        for at in times.trim().split('|') {
            let at = std::process::Command::new("date")
                .args(["-d", at, "+%s"])
                .output()
                .expect("date runs");
            let at: i64 = text(&at.stdout).trim().parse().expect("a time");
            assert!((at - real_now()).abs() < 60, "{name}: {times}");
        }
    }
}
