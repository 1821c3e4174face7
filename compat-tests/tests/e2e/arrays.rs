//! Job arrays and dependencies end to end: sbatch `--array` and
//! `--dependency`, the throttle, the ids tasks get, their environment and
//! output files, squeue's and scontrol's views (laid out as the recordings
//! in ../shared/slurm-reference/ show them), scancel of tasks, and scontrol
//! updates of the throttle and of dependencies.

use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::text;

/// stdout of a command that must succeed.
fn ok(c: &Cluster, cmd: &str, args: &[&str]) -> String {
    let out = c.run(cmd, args);
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// `squeue -h -t all -j N -o <fmt>` (every job of array N, ended ones too).
fn rows(c: &Cluster, array: u32, fmt: &str) -> Vec<String> {
    let out = c.run(
        "squeue",
        &["-h", "-t", "all", "-j", &array.to_string(), "-o", fmt],
    );
    text(&out.stdout).lines().map(str::to_string).collect()
}

/// A file of the cluster folder.
fn read(c: &Cluster, name: &str) -> String {
    std::fs::read_to_string(c.dir.path().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `start end` seconds, as the scripts below write them.
fn span(c: &Cluster, name: &str) -> (f64, f64) {
    let t = read(c, name);
    let v: Vec<f64> = t
        .split_whitespace()
        .map(|x| x.parse().expect("a time"))
        .collect();
    (v[0], v[1])
}

/// Each task writes when it started and ended, and what it was told.
const TASK_SCRIPT: &str = "#!/bin/bash\n#SBATCH -J arr\n\
     start=$(date +%s.%N)\n\
     echo \"$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT \
     $SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_STEP $SLURM_JOB_ID\" \
     > env-$SLURM_ARRAY_TASK_ID.txt\n\
     srun -n1 sh -c 'echo \"$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT\"' \
     > step-$SLURM_ARRAY_TASK_ID.txt\n\
     sleep 1.5\n\
     echo \"$start $(date +%s.%N)\" > times-$SLURM_ARRAY_TASK_ID.txt\n\
     echo task $SLURM_ARRAY_TASK_ID\n";

#[test]
fn an_array_runs_two_tasks_at_a_time_with_slurms_ids_environment_and_files() {
    let c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let n = c.submit(&["--array=0-5%2", "-t", "5"], TASK_SCRIPT);
    let pending = format!("{n}_[2-5%2]");
    c.wait_for(Duration::from_secs(20), "the first two tasks", |c| {
        rows(c, n, "%i %T").contains(&format!("{pending} PENDING"))
    });
    // 16-squeue-array-compact.txt: the record, then its tasks newest first.
    let user = ok(&c, "squeue", &["-h", "-j", &n.to_string(), "-o", "%u"]);
    let user = user.lines().next().expect("a job").trim().to_string();
    let listed = ok(&c, "squeue", &["-j", &n.to_string()]);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(
        lines[0],
        "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)"
    );
    let user8: String = user.chars().take(8).collect();
    assert_eq!(
        lines[1],
        format!(
            "{pending:>18}     batch      arr {user8:>8} PD       0:00      1 (JobArrayTaskLimit)"
        ),
        "{listed}"
    );
    let running: Vec<String> = lines[2..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(running, [format!("{n}_1"), format!("{n}_0")], "{listed}");
    // 15-squeue-array-expanded.txt: one line per pending task with -r.
    let expanded = ok(
        &c,
        "squeue",
        &["-r", "-h", "-j", &n.to_string(), "-o", "%i %T %r"],
    );
    for t in 2..=5 {
        let line = format!("{n}_{t} PENDING JobArrayTaskLimit");
        assert!(expanded.lines().any(|l| l == line), "{line} in {expanded}");
    }
    c.wait_for(Duration::from_secs(60), "every task completed", |c| {
        let states = rows(c, n, "%T");
        states.len() == 6 && states.iter().all(|s| s == "COMPLETED")
    });
    // Tasks split off get ids of their own; the last one keeps N.
    let mut ids = Vec::new();
    for row in rows(&c, n, "%i %A %F %K") {
        let f: Vec<&str> = row.split_whitespace().collect();
        let task: u32 = f[3].parse().expect("a task id");
        assert_eq!(
            (f[0], f[2]),
            (format!("{n}_{task}").as_str(), n.to_string().as_str())
        );
        ids.push((task, f[1].parse::<u32>().expect("a job id")));
    }
    ids.sort_unstable();
    assert_eq!(
        ids.iter().map(|i| i.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5]
    );
    assert_eq!(ids[5].1, n, "the last task keeps the array's id");
    let mut split: Vec<u32> = ids[..5].iter().map(|i| i.1).collect();
    assert!(split.iter().all(|&id| id > n), "{ids:?}");
    split.sort_unstable();
    split.dedup();
    assert_eq!(split.len(), 5, "{ids:?}");
    for (task, id) in &ids {
        assert_eq!(
            read(&c, &format!("env-{task}.txt")),
            format!("{n} {task} 6 0 5 1 {id}\n")
        );
        // Its steps' tasks are told too.
        assert_eq!(
            read(&c, &format!("step-{task}.txt")),
            format!("{n} {task} 6\n")
        );
        // The default output file of an array task is slurm-%A_%a.out.
        assert_eq!(
            read(&c, &format!("slurm-{n}_{task}.out")),
            format!("task {task}\n")
        );
    }
    // Never more than two at once, and two did run together.
    let spans: Vec<(f64, f64)> = (0..6)
        .map(|t| span(&c, &format!("times-{t}.txt")))
        .collect();
    let most = spans
        .iter()
        .map(|&(s, _)| spans.iter().filter(|&&(a, b)| a <= s && s < b).count())
        .max()
        .expect("spans");
    assert_eq!(most, 2, "{spans:?}");
}

#[test]
fn dependencies_order_jobs_and_one_never_satisfied_waits_or_is_cancelled() {
    let c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let stamp = |name: &str| {
        format!("#!/bin/bash\ns=$(date +%s.%N)\nsleep 1\necho \"$s $(date +%s.%N)\" > {name}\n")
    };
    let a = c.submit(&["-J", "a"], &stamp("a.txt"));
    let after_ok = format!("--dependency=afterok:{a}");
    let b = c.submit(&["-J", "b", &after_ok], &stamp("b.txt"));
    let not_ok = format!("--dependency=afternotok:{a}");
    let never = c.submit(&["-J", "never", &not_ok], &stamp("never.txt"));
    let killed = c.submit(
        &["-J", "killed", &not_ok, "--kill-on-invalid-dep=yes"],
        &stamp("killed.txt"),
    );
    let either = format!("--dependency=afterany:{b}?afterany:{never}");
    let d = c.submit(&["-J", "d", &either], &stamp("d.txt"));
    // 50-dependency-pending.txt while A runs.
    let out = ok(
        &c,
        "squeue",
        &["-j", &b.to_string(), "-o", "%i %j %T %R %E"],
    );
    assert_eq!(
        out,
        format!(
            "JOBID NAME STATE NODELIST(REASON) DEPENDENCY\n\
             {b} b PENDING (Dependency) afterok:{a}(unfulfilled)\n"
        )
    );
    c.wait_state(a, "COMPLETED");
    c.wait_state(b, "COMPLETED");
    c.wait_state(d, "COMPLETED");
    c.wait_state(killed, "CANCELLED");
    // 52-dependency-never-satisfied.txt.
    c.wait_for(Duration::from_secs(10), "never satisfied", |c| {
        let out = c.run("squeue", &["-j", &never.to_string(), "-o", "%i %j %T %R"]);
        text(&out.stdout)
            == format!("JOBID NAME STATE NODELIST(REASON)\n{never} never PENDING (DependencyNeverSatisfied)\n")
    });
    let show = ok(&c, "scontrol", &["show", "job", &never.to_string()]);
    assert!(
        show.contains(&format!(
            "JobState=PENDING Reason=DependencyNeverSatisfied Dependency=afternotok:{a}(failed)\n"
        )),
        "{show}"
    );
    let show = ok(&c, "scontrol", &["show", "job", &d.to_string()]);
    assert!(show.contains("Reason=None Dependency=(null)\n"), "{show}");
    let (a_span, b_span, d_span) = (span(&c, "a.txt"), span(&c, "b.txt"), span(&c, "d.txt"));
    assert!(b_span.0 >= a_span.1, "B after A: {a_span:?} {b_span:?}");
    assert!(d_span.0 >= b_span.1, "D after B: {b_span:?} {d_span:?}");
    assert!(!c.dir.path().join("never.txt").exists());
    assert!(!c.dir.path().join("killed.txt").exists());
    // A new dependency, met at once, lets the waiting job run.
    ok(
        &c,
        "scontrol",
        &[
            "update",
            &format!("JobId={never}"),
            &format!("Dependency=afterany:{a}"),
        ],
    );
    c.wait_state(never, "COMPLETED");
    // An ended job's dependency cannot change.
    let out = c.run(
        "scontrol",
        &["update", &format!("JobId={never}"), "Dependency=afterok:1"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("Job has already finished for job {never}\n")
    );
}

#[test]
fn bad_arrays_and_dependencies_get_slurms_errors() {
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    // 70-err-bad-array.txt.
    let out = c.run("sbatch", &["--array=0-200000", "--wrap", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sbatch: error: Batch job submission failed: Invalid job array specification\n"
    );
    let out = c.run("sbatch", &["--dependency=afterok:abc", "--wrap", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sbatch: error: Batch job submission failed: Job dependency problem\n"
    );
    // 69-err-bad-dependency.txt: an unknown job is accepted.
    let out = c.run("sbatch", &["--dependency=afterok:999999", "--wrap", "true"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    let id: u32 = said
        .strip_prefix("Submitted batch job ")
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    c.wait_state(id, "COMPLETED");
    // A job cannot wait for itself or for a job that waits for it.
    let first = c.submit(&["--hold", "--wrap", "true"], "");
    let after_first = format!("afterany:{first}");
    let second = c.submit(&["-d", &after_first, "--wrap", "true"], "");
    let out = c.run(
        "scontrol",
        &[
            "update",
            &format!("JobId={first}"),
            &format!("Dependency=afterok:{second}"),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("Circular job dependency for job {first}\n")
    );
}

#[test]
fn scancel_takes_tasks_out_and_the_throttle_changes_while_the_array_runs() {
    let mut c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let n = c.submit(&["--array=0-7%1", "--wrap", "sleep 60"], "");
    let ns = n.to_string();
    c.wait_for(Duration::from_secs(20), "task 0 running", |c| {
        rows(c, n, "%i %T").contains(&format!("{n}_0 RUNNING"))
    });
    // 54-scancel-array-task.txt: silent, exit 0, and the tasks are gone.
    let out = c.run("scancel", &[&format!("{n}_[5-6]"), &format!("{n}_42")]);
    assert_eq!(
        (out.status.code(), text(&out.stderr).as_str()),
        (Some(0), "")
    );
    assert_eq!(
        ok(&c, "squeue", &["-h", "-j", &ns, "-o", "%i"]),
        format!("{n}_[1-4,7%1]\n{n}_0\n")
    );
    // More at once while it runs.
    ok(
        &c,
        "scontrol",
        &["update", &format!("JobId={n}"), "ArrayTaskThrottle=3"],
    );
    c.wait_for(Duration::from_secs(20), "three tasks running", |c| {
        rows(c, n, "%T").iter().filter(|s| *s == "RUNNING").count() == 3
    });
    let show = ok(&c, "scontrol", &["show", "job", &ns]);
    assert!(
        show.starts_with(&format!(
            "JobId={n} ArrayJobId={n} ArrayTaskId=3-4,7%3 ArrayTaskThrottle=3 "
        )),
        "{show}"
    );
    assert!(
        show.contains("ArrayTaskThrottle=3 JobName=wrap\n"),
        "every task shows the throttle: {show}"
    );
    // Both survive a restart of the controller.
    c.kill_controller();
    c.start_controller();
    c.wait_for(Duration::from_secs(20), "the controller back", |c| {
        c.run("squeue", &["-h", "-j", &n.to_string()])
            .status
            .success()
    });
    let again = ok(&c, "scontrol", &["show", "job", &ns]);
    assert!(
        again.starts_with(&format!(
            "JobId={n} ArrayJobId={n} ArrayTaskId=3-4,7%3 ArrayTaskThrottle=3 "
        )),
        "{again}"
    );
    // One running task, and one still in the record held on its own.
    ok(&c, "scancel", &[&format!("{n}_0")]);
    ok(&c, "scontrol", &["uhold", &format!("{n}_7")]);
    c.wait_for(
        Duration::from_secs(20),
        "task 0 cancelled, task 7 held",
        |c| {
            let all = rows(c, n, "%i %T %r");
            all.iter()
                .any(|r| r.starts_with(&format!("{n}_0 CANCELLED ")))
                && all.contains(&format!("{n}_7 PENDING JobHeldUser"))
        },
    );
    // The whole array.
    ok(&c, "scancel", &[&ns]);
    c.wait_for(
        Duration::from_secs(20),
        "every job of the array ended",
        |c| {
            let states = rows(c, n, "%T");
            !states.is_empty() && states.iter().all(|s| s == "CANCELLED")
        },
    );
    // Tasks 5 and 6 left the record without ever being jobs.
    let tasks: Vec<String> = rows(&c, n, "%K");
    assert!(!tasks.iter().any(|t| t == "5" || t == "6"), "{tasks:?}");
    // An update of the whole array answers per group of tasks, as
    // slurmctld's job_array_resp_msg does.
    let out = c.run(
        "scontrol",
        &["update", &format!("JobId={n}"), "TimeLimit=5"],
    );
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (Some(1), format!("{n}_0-4,7: Job has already finished\n"))
    );
}
