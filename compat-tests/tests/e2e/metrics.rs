//! slurmctld's HTTP endpoints on SlurmctldPort, as Slurm 26.05 serves
//! them: the OpenMetrics families of jobs, nodes, partitions, the
//! scheduler, users and accounts with
//! Slurm's names and help texts (checked by `promtool check metrics` where
//! Debian's prometheus package is installed), the indexes and health
//! probes, and who may read them.

use crate::harness::{Cluster, Options};
use crate::http::{request, Answer, Target};

/// The controller's HTTP address, from the cluster's slurm.conf.
pub(crate) fn controller(c: &Cluster) -> Target {
    let conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    let value = |key: &str| {
        conf.lines()
            .find_map(|l| l.strip_prefix(key))
            .expect("a SlurmctldHost and SlurmctldPort")
            .to_string()
    };
    let host = value("SlurmctldHost=");
    let addr = host
        .split_once('(')
        .and_then(|(_, a)| a.strip_suffix(')'))
        .expect("ctl(addr)");
    Target::Tcp(format!("{addr}:{}", value("SlurmctldPort=")))
}

pub(crate) fn get(t: &Target, path: &str, headers: &[(&str, &str)]) -> Answer {
    request(t, "GET", path, headers, None)
}

/// Where promtool is installed, it finds nothing wrong with `body`.
pub(crate) fn promtool_passes(body: &str) {
    let promtool = "/usr/bin/promtool";
    if !std::path::Path::new(promtool).exists() {
        eprintln!("promtool is not installed (Debian's prometheus): the format check skips");
        return;
    }
    use std::io::Write;
    let mut child = std::process::Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(body.as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("promtool ends");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every family's HELP and TYPE come once, before its series, and no
/// `# EOF` ends the text (Slurm's plugin writes none).
fn families_are_whole(body: &str) {
    let helps: Vec<&str> = body.lines().filter(|l| l.starts_with("# HELP ")).collect();
    let mut names: Vec<&str> = helps
        .iter()
        .map(|l| l.split(' ').nth(2).unwrap_or_default())
        .collect();
    let total = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), total, "a family is split: {body}");
    assert!(!body.contains("# EOF"), "{body}");
    assert!(body.lines().all(|l| !l.contains("{}")), "{body}");
}

#[test]
fn metrics_show_jobs_nodes_users_and_accounts_as_slurm_names_them() {
    let c = Cluster::start(Options {
        nodes: 2,
        extra_conf: "MetricsType=metrics/openmetrics\n",
        ..Options::default()
    });
    let running = c.submit(&["-n4", "-A", "proj", "-t", "5"], "#!/bin/sh\nsleep 300\n");
    c.wait_state(running, "RUNNING");
    let held = c.submit(&["--hold"], "#!/bin/sh\ntrue\n");
    let t = controller(&c);

    let a = get(&t, "/metrics/jobs", &[]);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.header("content-type"), Some("text/plain"));
    assert!(a.body.starts_with(
        "# HELP slurm_jobs_bootfail Number of jobs in BootFail state\n\
         # TYPE slurm_jobs_bootfail gauge\n\
         slurm_jobs_bootfail 0\n"
    ));
    for line in [
        "slurm_jobs 2",
        "slurm_jobs_running 1",
        "slurm_jobs_pending 1",
        "slurm_jobs_hold 1",
        "slurm_jobs_started 1",
        "slurm_jobs_cpus_alloc 4",
        "slurm_jobs_memory_alloc 4000",
        "slurm_jobs_nodes_alloc 1",
        "# HELP slurm_jobs_revoked Number of jobs in Rvoked state",
    ] {
        assert!(a.body.lines().any(|l| l == line), "{line} in {}", a.body);
    }
    // Slurm's 30 families, then spur's: the domains running jobs span.
    assert!(a.body.ends_with(
        "# HELP spur_jobs_domains_spanned Running jobs by the number of NVLink domains they span\n\
         # TYPE spur_jobs_domains_spanned gauge\n\
         spur_jobs_domains_spanned{domains=\"1\"} 1\n"
    ));
    let slurms = |body: &str| {
        body.lines()
            .filter(|l| l.starts_with("# TYPE slurm_"))
            .count()
    };
    assert_eq!(slurms(&a.body), 30);
    families_are_whole(&a.body);
    promtool_passes(&a.body);

    let a = get(&t, "/metrics/nodes", &[]);
    assert_eq!(a.status, 200);
    for line in [
        "slurm_node_cpus{node=\"n01\"} 8",
        "slurm_node_cpus{node=\"n02\"} 8",
        "slurm_node_gpus{node=\"n01\"} 4",
        "slurm_node_memory_bytes{node=\"n02\"} 16000",
        "slurm_nodes 2",
        "slurm_nodes_mixed 1",
        "slurm_nodes_idle 1",
        "slurm_nodes_down 0",
    ] {
        assert!(a.body.lines().any(|l| l == line), "{line} in {}", a.body);
    }
    let alloc = |node: &str| format!("slurm_node_cpus_alloc{{node=\"{node}\"}} ");
    let busy = a
        .body
        .lines()
        .filter(|l| l.starts_with(&alloc("n01")) || l.starts_with(&alloc("n02")))
        .map(|l| l.rsplit(' ').next().unwrap_or_default())
        .collect::<Vec<_>>();
    assert_eq!(busy.iter().filter(|v| **v == "4").count(), 1, "{busy:?}");
    // The one NVLink domain: no job holds its GPUs, and none waits for
    // resources (the held job waits for its release): nothing stranded.
    for line in [
        "spur_domain_gpus{domain=\"nvl01\"} 8",
        "spur_domain_gpus_alloc{domain=\"nvl01\"} 0",
        "spur_domain_gpus_idle{domain=\"nvl01\"} 8",
        "spur_domain_gpus_stranded{domain=\"nvl01\"} 0",
    ] {
        assert!(a.body.lines().any(|l| l == line), "{line} in {}", a.body);
    }
    assert_eq!(slurms(&a.body), 38);
    families_are_whole(&a.body);
    promtool_passes(&a.body);

    let a = get(&t, "/metrics/jobs-users-accts", &[]);
    assert_eq!(a.status, 200);
    for line in [
        "slurm_user_jobs{username=\"root\"} 2",
        "slurm_user_jobs_running{username=\"root\"} 1",
        "slurm_account_jobs_running{account=\"proj\"} 1",
        "slurm_account_jobs_cpus_alloc{account=\"proj\"} 4",
    ] {
        assert!(a.body.lines().any(|l| l == line), "{line} in {}", a.body);
    }
    assert_eq!(
        a.body.lines().filter(|l| l.starts_with("# TYPE")).count(),
        60
    );
    families_are_whole(&a.body);
    promtool_passes(&a.body);

    let a = get(&t, "/metrics/partitions", &[]);
    assert_eq!(a.status, 200);
    assert!(a.body.starts_with(
        "# HELP slurm_partitions Total number of partitions\n\
         # TYPE slurm_partitions gauge\n\
         slurm_partitions 2\n\
         # HELP slurm_partition_jobs Number of jobs in this partition\n\
         # TYPE slurm_partition_jobs gauge\n\
         slurm_partition_jobs{partition=\"batch\"} 2\n\
         slurm_partition_jobs{partition=\"short\"} 0\n"
    ));
    for line in [
        "slurm_partition_jobs_running{partition=\"batch\"} 1",
        "slurm_partition_jobs_hold{partition=\"batch\"} 1",
        "slurm_partition_jobs_cpus_alloc{partition=\"batch\"} 4",
        "slurm_partition_nodes_cpus_alloc{partition=\"batch\"} 4",
        "slurm_partition_cpus{partition=\"batch\"} 16",
        "slurm_partition_gpus{partition=\"batch\"} 8",
        "slurm_partition_nodes{partition=\"short\"} 1",
    ] {
        assert!(a.body.lines().any(|l| l == line), "{line} in {}", a.body);
    }
    assert_eq!(
        a.body.lines().filter(|l| l.starts_with("# TYPE")).count(),
        73
    );
    families_are_whole(&a.body);
    promtool_passes(&a.body);

    let a = get(&t, "/metrics/scheduler", &[]);
    assert_eq!(a.status, 200);
    for line in [
        "slurm_sdiag_jobs_submitted 2",
        "slurm_sdiag_jobs_started 1",
        "slurm_sdiag_jobs_running 1",
        "slurm_sdiag_jobs_pending 1",
        "# HELP slurm_bf_exit_end End of job queue",
    ] {
        assert!(a.body.lines().any(|l| l == line), "{line} in {}", a.body);
    }
    let cycles = a
        .body
        .lines()
        .find_map(|l| l.strip_prefix("slurm_schedule_cycle_cnt "))
        .and_then(|v| v.parse::<u64>().ok())
        .expect("a cycle count");
    assert!(cycles >= 1, "{}", a.body);
    assert_eq!(
        a.body.lines().filter(|l| l.starts_with("# TYPE")).count(),
        58
    );
    families_are_whole(&a.body);
    promtool_passes(&a.body);

    // The indexes, the probes, and what is not there.
    let a = get(&t, "/metrics", &[]);
    assert_eq!(
        a.body,
        "slurmctld index of metrics endpoints:\n  '/metrics/jobs': get job metrics\n  \
         '/metrics/nodes': get node metrics\n  '/metrics/partitions': get partition metrics\n  \
         '/metrics/jobs-users-accts': get user and account jobs metrics\n  \
         '/metrics/scheduler': get scheduler metrics\n"
    );
    for probe in ["/livez", "/healthz", "/readyz"] {
        let a = get(&t, probe, &[]);
        assert_eq!((a.status, a.body.as_str()), (204, ""), "{probe}");
    }
    let a = get(&t, "/nosuch", &[]);
    assert_eq!(a.status, 404);
    assert_eq!(
        a.body,
        "slurmctld HTTP server request for 'GET /nosuch':\nFailed: Invalid or unknown URL path\n"
    );
    let a = request(&t, "POST", "/metrics/jobs", &[], Some(""));
    assert_eq!(a.status, 404);
    // The port still speaks spur's protocol to everything else.
    let queue = c.run("squeue", &["-h", "-o", "%i"]);
    assert!(queue.status.success());
    for job in [running, held] {
        c.run("scancel", &[&job.to_string()]);
    }
}

#[test]
fn without_metrics_type_nothing_is_shown_and_private_data_asks_for_a_token() {
    let plain = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let a = get(&controller(&plain), "/metrics/jobs", &[]);
    assert_eq!((a.status, a.body.as_str()), (200, ""));
    assert_eq!(a.header("content-type"), None);
    drop(plain);

    let c = Cluster::start(Options {
        nodes: 1,
        jwt: true,
        extra_conf: "MetricsType=metrics/openmetrics\nPrivateData=jobs\n",
        ..Options::default()
    });
    let t = controller(&c);
    let a = get(&t, "/metrics/jobs", &[]);
    assert_eq!(a.status, 401);
    assert_eq!(
        a.body,
        "slurmctld HTTP server request for 'GET /metrics/jobs':\n\
         Failed: Invalid authentication credential\n"
    );
    let nobody = c.token(&["username=nobody"]);
    let a = get(&t, "/metrics/jobs", &[("X-SLURM-USER-TOKEN", &nobody)]);
    assert_eq!(a.status, 403);
    assert!(
        a.body.ends_with("Failed: Operation not permitted\n"),
        "{}",
        a.body
    );
    let root = c.token(&[]);
    let bearer = format!("Bearer {root}");
    let a = get(&t, "/metrics/jobs", &[("Authorization", &bearer)]);
    assert_eq!(a.status, 200);
    assert!(a.body.contains("\nslurm_jobs 0\n"), "{}", a.body);
    // The probes stay open.
    assert_eq!(get(&t, "/livez", &[]).status, 204);
}
