//! Job accounting end to end: agents sample their jobs' processes (and,
//! through a fake libnvidia-ml the agents load as they would NVIDIA's, the
//! GPU use of each process), sstat shows running steps, and sacct and seff
//! show what finished steps used, in Slurm's fields and words.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::text;

/// Builds the agents' fake NVML as `libnvidia-ml.so.1` in `dir`.
fn fake_nvml(dir: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spurd/src/agent/fake_nvml.c");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join("libnvidia-ml.so.1"))
        .arg(&source)
        .status()
        .expect("a C compiler `cc` is installed");
    assert!(status.success(), "cc failed to build the fake NVML");
}

/// The `-P` line of `report` whose first field is `id`, split.
fn row<'a>(report: &'a str, id: &str) -> Vec<&'a str> {
    report
        .lines()
        .find(|l| l.split('|').next() == Some(id))
        .unwrap_or_else(|| panic!("no line for {id} in:\n{report}"))
        .split('|')
        .collect()
}

/// `mem=...` of a TRES usage string, in bytes.
fn bytes_of(tres: &str, name: &str) -> u64 {
    let value = tres
        .split(',')
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} in {tres}"));
    let (digits, unit) = value.split_at(value.trim_end_matches(char::is_alphabetic).len());
    let n: f64 = digits.parse().expect("a number");
    let scale = match unit {
        "" => 1.0,
        "K" => 1024.0,
        "M" => 1024.0 * 1024.0,
        "G" => 1024.0 * 1024.0 * 1024.0,
        other => panic!("unit {other} in {tres}"),
    };
    (n * scale) as u64
}

#[test]
fn usage_reaches_sstat_sacct_and_seff_with_gpu_use_from_nvml() {
    let mut c = Cluster::start(Options {
        nodes: 2,
        gres_conf: Some("AutoDetect=nvml\n"),
        extra_conf: "JobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=task=1\n\
                     AccountingStorageTRES=gres/gpu\nMetricsType=metrics/openmetrics\n",
        ..Options::default()
    });
    let nvml = c.dir.path().join("nvml");
    std::fs::create_dir(&nvml).expect("nvml folder");
    fake_nvml(&nvml);
    let procs = nvml.join("procs");
    std::fs::write(&procs, "").expect("procs file");
    // The agents again, now finding "NVIDIA's" library.
    let lib = nvml.to_str().expect("utf-8").to_string();
    let procs_path = procs.to_str().expect("utf-8").to_string();
    for i in 0..2 {
        c.kill_agent(i);
        c.start_agent_with_env(
            i,
            &[
                ("LD_LIBRARY_PATH", &lib),
                ("FAKE_NVML_PROCS", &procs_path),
                ("FAKE_NVML_GPUS", "4"),
            ],
        );
    }
    c.wait_for(Duration::from_secs(20), "both nodes back", |c| {
        let states = text(
            &c.run("sinfo", &["-h", "-N", "-p", "batch", "-o", "%t"])
                .stdout,
        );
        states.lines().count() == 2 && states.lines().all(|l| l.trim() == "idle")
    });

    // The script holds 2 GiB and 60 % of GPU 0 (as the fake driver tells
    // it), grows to 64 MiB and spins, and waits for the test to have seen
    // it; then a two-node step holds 32 MiB a task until the test has
    // seen that.
    let go = |n: u32| c.dir.path().join(format!("go{n}"));
    let script = format!(
        "#!/bin/bash\n\
         echo \"0 $$ 2147483648 60\" >> {procs_path}\n\
         perl -e '$x = \"a\" x (64 << 20); for ($i = 0; $i < 5e6; $i++) {{}} \
         sleep 1 until -e \"{}\"'\n\
         srun -N2 -n2 --ntasks-per-node=1 perl -e '$x = \"b\" x (32 << 20); \
         sleep 1 until -e \"{}\"'\n",
        go(1).display(),
        go(2).display()
    );
    let job = c.submit(&["-N2", "-n2", "--gres=gpu:1"], &script);
    c.wait_state(job, "RUNNING");
    let id = job.to_string();

    // While it runs: the batch step's samples, then the srun step's.
    let mut batch_line = String::new();
    c.wait_for(
        Duration::from_secs(20),
        "sstat sees the batch step's memory",
        |c| {
            let out = c.run(
                "sstat",
                &[
                    "-P",
                    "-n",
                    "-j",
                    &format!("{id}.batch"),
                    "-o",
                    "JobID,MaxRSS,TRESUsageInMax,NTasks",
                ],
            );
            batch_line = text(&out.stdout);
            batch_line.contains("gres/gpumem=2G")
                && batch_line
                    .split('|')
                    .nth(2)
                    .is_some_and(|t| bytes_of(t, "mem") > 60 << 20)
        },
    );
    assert!(
        batch_line.starts_with(&format!("{id}.batch|")),
        "{batch_line}"
    );
    assert!(batch_line.contains("gres/gpuutil=60"), "{batch_line}");
    // The metrics show the GPUs' use on the batch step's node.
    let ctld = crate::metrics::controller(&c);
    let nodes = crate::metrics::get(&ctld, "/metrics/nodes", &[]).body;
    assert!(
        nodes.contains("spur_node_gpus_util{node=\"n01\"} 60\n"),
        "{nodes}"
    );
    assert!(
        nodes.contains("spur_node_gpus_mem_used{node=\"n01\"} 2048\n"),
        "{nodes}"
    );
    crate::metrics::promtool_passes(&nodes);
    let jobs = crate::metrics::get(&ctld, "/metrics/jobs", &[]).body;
    assert!(jobs.contains("spur_jobs_gpus_util 60\n"), "{jobs}");
    std::fs::write(go(1), "").expect("go1");
    c.wait_for(Duration::from_secs(30), "sstat sees the srun step", |c| {
        let out = text(
            &c.run(
                "sstat",
                &["-P", "-n", "-j", &id, "-o", "JobID,NTasks,MaxRSSNode"],
            )
            .stdout,
        );
        out.starts_with(&format!("{id}.0|2|n0"))
    });
    let header = text(&c.run("sstat", &["-j", &id, "-o", "JobID,MaxRSS"]).stdout);
    assert!(
        header.starts_with("JobID            MaxRSS \n------------ ---------- \n"),
        "{header}"
    );
    std::fs::write(go(2), "").expect("go2");
    let missing = c.run("sstat", &["-j", "999999"]);
    assert!(
        text(&missing.stderr).contains("sstat: error: couldn't get steps for job 999999"),
        "{}",
        text(&missing.stderr)
    );

    c.wait_state(job, "COMPLETED");
    // The nodes' records reach the history as their steps end.
    let fields =
        "JobID,NTasks,MaxRSS,MaxRSSNode,MaxRSSTask,TotalCPU,TRESUsageInMax,TRESUsageInAve,\
                  TRESUsageInMaxNode,TRESUsageOutTot";
    let mut report = String::new();
    c.wait_for(
        Duration::from_secs(10),
        "sacct has the srun step's usage",
        |c| {
            report = text(&c.run("sacct", &["-P", "-j", &id, "-o", fields]).stdout);
            report
                .lines()
                .find(|l| l.starts_with(&format!("{id}.0|")))
                .is_some_and(|l| l.contains("mem="))
        },
    );
    let job_line = row(&report, &id);
    assert_eq!(job_line[2], "", "a job's own line has no usage: {report}");
    let batch = row(&report, &format!("{id}.batch"));
    assert!(bytes_of(batch[6], "mem") > 60 << 20, "{report}");
    assert!(
        batch[6].contains("gres/gpumem=2G") && batch[6].contains("gres/gpuutil=60"),
        "{report}"
    );
    assert_eq!(batch[4], "0", "the batch script is task 0: {report}");
    assert_ne!(batch[5], "00:00:00", "the spinning perl's CPU: {report}");
    assert!(batch[8].starts_with("cpu=n01,energy=n01,"), "{report}");
    assert!(batch[9].contains("fs/disk="), "{report}");
    let step = row(&report, &format!("{id}.0"));
    assert_eq!(step[1], "2");
    let most = bytes_of(step[6], "mem");
    let mean = bytes_of(step[7], "mem");
    assert!(
        most > 30 << 20 && mean > 30 << 20 && mean <= most,
        "{report}"
    );
    assert!(["n01", "n02"].contains(&step[3]), "{report}");
    assert!(["0", "1"].contains(&step[4]), "{report}");
    assert!(
        step[6].contains("gres/gpumem=0"),
        "the step's processes hold no GPU: {report}"
    );

    let seff = c.run("seff", &[&id]);
    assert!(seff.status.success(), "{}", text(&seff.stderr));
    let seff = text(&seff.stdout);
    for expected in [
        format!("Job ID: {id}\n"),
        "Cluster: e2e\n".to_string(),
        "State: COMPLETED (exit code 0)\n".to_string(),
        "Nodes: 2\n".to_string(),
        "CPU Efficiency: ".to_string(),
        "Memory Utilized: ".to_string(),
        "GPU Efficiency: 30.00% of 2 GPUs (SM use at its sampled peak)\n".to_string(),
        "GPU Memory Utilized: 2.00 GB (sampled peak)\n".to_string(),
    ] {
        assert!(seff.contains(&expected), "{expected:?} in:\n{seff}");
    }
    let none = c.run("seff", &["999999"]);
    assert_eq!(none.status.code(), Some(2));
    assert_eq!(text(&none.stderr), "Job not found.\n");
}
