//! Memory confinement (`TaskPlugin=task/cgroup`, cgroup.conf
//! `ConstrainRAMSpace=yes`) on the machine's real cgroups: a job is held to
//! its `--mem`, the out-of-memory killer's work ends it as OUT_OF_MEMORY
//! with Slurm's reason, exit code and slurmstepd's line, steps likewise,
//! and what a job leaves running is killed with its cgroup. Skips where
//! this process cannot make memory cgroups (not root, or no hierarchy).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::text;

/// The v1 memory cgroup this process may make children in, or why not.
fn memory_cgroups() -> Result<PathBuf, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root".into());
    }
    let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| e.to_string())?;
    let path = own
        .lines()
        .find_map(|l| {
            let mut p = l.splitn(3, ':');
            let (_, ctl, path) = (p.next()?, p.next()?, p.next()?);
            ctl.split(',')
                .any(|c| c == "memory")
                .then(|| path.to_string())
        })
        .ok_or("no cgroup v1 memory hierarchy (a v2-only machine)")?;
    let dir = Path::new("/sys/fs/cgroup/memory").join(path.trim_start_matches('/'));
    let probe = dir.join(format!("spur-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).map_err(|e| format!("cannot make {}: {e}", probe.display()))?;
    let _ = std::fs::remove_dir(&probe);
    Ok(dir)
}

fn cluster() -> Option<(Cluster, PathBuf)> {
    let base = match memory_cgroups() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("skipped: memory cgroups are not usable here: {why}");
            return None;
        }
    };
    let c = Cluster::start(Options {
        nodes: 2,
        extra_conf: "TaskPlugin=task/affinity,task/cgroup\nProctrackType=proctrack/cgroup\n",
        cgroup_conf: Some("CgroupPlugin=cgroup/v1\nConstrainRAMSpace=yes\n"),
        memory_cgroup_in: Some(base),
        ..Options::default()
    });
    let cg = c.memory_cgroup.clone().expect("made");
    Some((c, cg))
}

fn sacct(c: &Cluster, id: u32, fields: &str) -> String {
    let out = c.run("sacct", &["-n", "-P", "-o", fields, "-j", &id.to_string()]);
    text(&out.stdout)
}

#[test]
fn a_job_is_held_to_its_memory_and_ends_out_of_memory_beyond_it() {
    let Some((c, base)) = cluster() else { return };
    // Within its memory: the limit is the allocation, in bytes.
    let fits = c.submit(
        &["--mem=64M", "-o", "fits.out"],
        "#!/bin/sh\ncg=$(grep ':memory:' /proc/self/cgroup | cut -d: -f3)\n\
         echo \"$cg\"\ncat /sys/fs/cgroup/memory$cg/../memory.limit_in_bytes\n\
         dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null && echo fitted\n",
    );
    // Beyond it: dd's 300 MiB buffer is more than the job's 40 MiB.
    let grows = c.submit(
        &["--mem=40M", "-o", "grows.out"],
        "#!/bin/sh\ndd if=/dev/zero of=/dev/null bs=300M count=1\necho after $?\n",
    );
    c.wait_state(fits, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join("fits.out")).expect("output");
    let mut lines = out.lines();
    let cg = lines.next().unwrap_or_default();
    assert!(
        cg.ends_with(&format!("/spur_n01/job_{fits}/step_batch")),
        "{out}"
    );
    assert_eq!(
        lines.next(),
        Some((64u64 << 20).to_string().as_str()),
        "{out}"
    );
    assert_eq!(lines.next(), Some("fitted"), "{out}");

    c.wait_state(grows, "OUT_OF_MEMORY");
    let out = c.run(
        "squeue",
        &[
            "-h",
            "-t",
            "all",
            "-j",
            &grows.to_string(),
            "-o",
            "%T|%r|%R",
        ],
    );
    assert_eq!(
        text(&out.stdout).trim(),
        "OUT_OF_MEMORY|OutOfMemory|(OutOfMemory)"
    );
    let show = text(
        &c.run("scontrol", &["show", "job", &grows.to_string()])
            .stdout,
    );
    assert!(
        show.contains("JobState=OUT_OF_MEMORY Reason=OutOfMemory"),
        "{show}"
    );
    assert!(show.contains(" ExitCode=0:125"), "{show}");
    // The script itself went on after dd was killed, as on Slurm.
    let out = std::fs::read_to_string(c.dir.path().join("grows.out")).expect("output");
    assert!(out.contains("Killed") || out.contains("after 137"), "{out}");
    assert!(
        out.ends_with(&format!(
            "slurmstepd: error: Detected 1 oom-kill event(s) in StepId={grows}.batch. \
             Some of your processes may have been killed by the cgroup out-of-memory \
             handler.\n"
        )),
        "{out}"
    );
    assert_eq!(
        sacct(&c, grows, "JobID,State,ExitCode"),
        format!("{grows}|OUT_OF_MEMORY|0:125\n{grows}.batch|OUT_OF_MEMORY|0:125\n")
    );
    // With a state and no window, the window is this second alone (as
    // slurmdbd's): the last hour is asked for, so that a slow machine
    // still sees the job that ended seconds ago.
    let out = c.run(
        "sacct",
        &[
            "-n", "-X", "-s", "OOM", "-S", "now-3600", "-E", "now", "-o", "JobID", "-P",
        ],
    );
    assert_eq!(text(&out.stdout), format!("{grows}\n"));
    // Their cgroups went with them.
    c.wait_for(Duration::from_secs(10), "the jobs' cgroups removed", |_| {
        !base.join(format!("spur_n01/job_{fits}")).exists()
            && !base.join(format!("spur_n01/job_{grows}")).exists()
    });
}

#[test]
fn a_step_beyond_its_memory_ends_out_of_memory_and_srun_says_so() {
    let Some((c, _)) = cluster() else { return };
    let out = c.run(
        "srun",
        &[
            "--mem=40M",
            "dd",
            "if=/dev/zero",
            "of=/dev/null",
            "bs=300M",
            "count=1",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let listed = text(&c.run("sacct", &["-n", "-X", "-P", "-o", "JobID"]).stdout);
    let id: u32 = listed.trim().parse().expect("one job");
    assert!(
        err.starts_with(&format!(
            "slurmstepd: error: Detected 1 oom-kill event(s) in StepId={id}.0. Some of your \
             processes may have been killed by the cgroup out-of-memory handler.\n"
        )),
        "{err}"
    );
    assert!(
        err.ends_with("srun: error: n01: task 0: Out Of Memory\n"),
        "{err}"
    );
    c.wait_for(Duration::from_secs(10), "the step recorded", |c| {
        sacct(c, id, "JobID").lines().count() == 2
    });
    // srun's own allocation ends as its step did; it has no batch step.
    assert_eq!(
        sacct(&c, id, "JobID,State,ExitCode"),
        format!("{id}|OUT_OF_MEMORY|0:125\n{id}.0|OUT_OF_MEMORY|0:125\n")
    );
    let derived = sacct(&c, id, "DerivedExitCode");
    assert_eq!(derived.lines().next(), Some("0:125"), "{derived}");
}

#[test]
fn what_a_job_leaves_running_ends_with_it() {
    let Some((c, _)) = cluster() else { return };
    let pid_file = c.dir.path().join("orphan.pid");
    let id = c.submit(
        &["--mem=64M"],
        &format!(
            "#!/bin/sh\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\necho $! > {}\n",
            pid_file.display()
        ),
    );
    c.wait_state(id, "COMPLETED");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    c.wait_for(
        Duration::from_secs(10),
        "the escaped process killed",
        |_| {
            // SAFETY: signal 0 only asks whether the process exists.
            unsafe { libc::kill(pid, 0) != 0 }
        },
    );
}
