//! Ended jobs' reasons and `scontrol requeue`/`requeuehold`, as Slurm 22.05
//! gives them (recorded against real Slurm: a requeued job waits
//! cred_expire + 1 seconds with Reason=BeginTime, counts a restart, gets
//! SLURM_RESTART_COUNT and, with `--open-mode=append`, adds to its output).

use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::{cancel_notices, text};

/// `squeue -o '%T %r'` of one job.
fn state_reason(c: &Cluster, id: u32) -> String {
    let out = c.run(
        "squeue",
        &["-h", "-t", "all", "-j", &id.to_string(), "-o", "%T %r"],
    );
    text(&out.stdout).trim().to_string()
}

/// One `Key=value` of `scontrol show job`.
fn show(c: &Cluster, id: u32, key: &str) -> String {
    let out = c.run("scontrol", &["show", "job", &id.to_string()]);
    let out = text(&out.stdout);
    let prefix = format!("{key}=");
    out.split_whitespace()
        .find_map(|w| w.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {key} in {out}"))
        .to_string()
}

#[test]
fn ended_jobs_keep_the_reason_slurm_gives_their_end() {
    let c = Cluster::start(Options::default());
    let failed = c.submit(&["--wrap", "exit 3"], "");
    let signalled = c.submit(&["--wrap", "kill -9 $$"], "");
    let bad_dir = c.submit(&["-D", "/nonexistent", "--wrap", "true"], "");
    let bad_out = c.submit(&["-o", "/proc/nope/x", "--wrap", "true"], "");
    let cancelled = c.submit(&["-w", "n03", "--wrap", "sleep 300"], "");
    let held = c.submit(&["--hold", "--wrap", "true"], "");
    let missed = c.submit(
        &["--deadline", "now+90seconds", "-t", "5", "--wrap", "true"],
        "",
    );
    let ok = c.submit(&["--wrap", "true"], "");
    c.wait_state(cancelled, "RUNNING");
    let out = c.run("scancel", &[&cancelled.to_string(), &held.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (id, want) in [
        (failed, "FAILED NonZeroExitCode"),
        (signalled, "FAILED JobLaunchFailure"),
        (bad_dir, "FAILED JobLaunchFailure"),
        (bad_out, "FAILED JobLaunchFailure"),
        (cancelled, "CANCELLED None"),
        (held, "CANCELLED JobHeldUser"),
        (missed, "DEADLINE DeadLine"),
        (ok, "COMPLETED None"),
    ] {
        c.wait_for(Duration::from_secs(30), &format!("job {id}: {want}"), |c| {
            state_reason(c, id) == want
        });
    }
    // slurmstepd's line ends the output of the cancelled job.
    let out = std::fs::read_to_string(c.dir.path().join(format!("slurm-{cancelled}.out")))
        .expect("output file");
    assert_eq!(
        cancel_notices(&out),
        [format!(
            "slurmstepd: error: *** JOB {cancelled} ON n03 CANCELLED AT TIME ***"
        )],
        "{out}"
    );
    assert_eq!(show(&c, failed, "Reason"), "NonZeroExitCode");
    assert_eq!(show(&c, failed, "ExitCode"), "3:0");
    assert_eq!(show(&c, signalled, "ExitCode"), "0:9");
    assert_eq!(show(&c, bad_dir, "ExitCode"), "0:53");
    assert_eq!(show(&c, missed, "JobState"), "DEADLINE");
    assert_eq!(show(&c, missed, "ExitCode"), "0:1");
    assert_ne!(show(&c, missed, "Deadline"), "N/A");
    // squeue's NODELIST(REASON) shows the reason of a failed job.
    let out = c.run("squeue", &["-h", "-t", "all", "-j", &failed.to_string()]);
    assert!(
        text(&out.stdout).trim_end().ends_with("(NonZeroExitCode)"),
        "{}",
        text(&out.stdout)
    );
    // sacct's Reason is what the job last waited for beyond its turn or
    // room (slurmdbd's state_reason_prev), not why it ended; a pending
    // array shows its throttle.
    let array = c.submit(&["--hold", "--array=0-3%2", "--wrap", "true"], "");
    let ids = format!("{failed},{held},{array}");
    let out = c.run(
        "sacct",
        &["-X", "-n", "-P", "-o", "JobID,State,Reason", "-j", &ids],
    );
    assert_eq!(
        text(&out.stdout),
        format!(
            "{failed}|FAILED|None\n{held}|CANCELLED by 0|JobHeldUser\n\
             {array}_[0-3%2]|PENDING|JobHeldUser\n"
        )
    );
    // slurmdbd keeps a missed deadline's exit code 1 as a code.
    let out = c.run(
        "sacct",
        &[
            "-X",
            "-n",
            "-P",
            "-o",
            "State,ExitCode",
            "-j",
            &missed.to_string(),
        ],
    );
    assert_eq!(text(&out.stdout), "DEADLINE|1:0\n");
    // A deadline already past is refused at submission, as slurmctld does.
    let out = c.run("sbatch", &["--deadline", "2020-01-01", "--wrap", "true"]);
    assert_eq!(
        (text(&out.stderr).as_str(), out.status.code()),
        (
            "sbatch: error: Batch job submission failed: Requested time limit is invalid \
             (missing or exceeds some limit)\n",
            Some(1)
        )
    );
    let out = c.run("sbatch", &["--deadline", "whenever", "--wrap", "true"]);
    assert_eq!(
        (text(&out.stderr).as_str(), out.status.code()),
        (
            "Invalid time specification (pos=0): whenever\n\
             sbatch: error: Invalid --deadline specification\n",
            Some(255)
        )
    );
}

/// A cluster whose requeued jobs wait 6 s rather than 121 s.
fn quick_requeue(extra: &'static str) -> Cluster {
    Cluster::start(Options {
        nodes: 2,
        extra_conf: extra,
        ..Options::default()
    })
}

#[test]
fn a_job_that_requeues_itself_runs_once_more_after_its_begin_time() {
    let c = quick_requeue("AuthInfo=cred_expire=5\n");
    // The first run ignores SIGTERM, as submitit's handler does, so that
    // it reports scontrol's status before KillWait ends it.
    let script = "#!/bin/bash\n#SBATCH --open-mode=append -o rq-%j.out\n\
                  echo \"run restart=${SLURM_RESTART_COUNT:-unset} open=$SLURM_OPEN_MODE\"\n\
                  if [ -z \"$SLURM_RESTART_COUNT\" ]; then\n\
                  trap '' TERM; scontrol requeue $SLURM_JOB_ID; echo rc=$?; sleep 30\n\
                  fi\necho done\n";
    let id = c.submit(&[], script);
    c.wait_for(Duration::from_secs(30), "the requeue", |c| {
        state_reason(c, id) == "PENDING BeginTime"
    });
    assert_eq!(show(&c, id, "Restarts"), "1");
    // It starts no earlier than cred_expire + 1 seconds after the requeue,
    // and says so, as slurmctld does.
    let submit = show(&c, id, "SubmitTime");
    let eligible = show(&c, id, "EligibleTime");
    assert!(eligible > submit, "{submit} {eligible}");
    assert_eq!(show(&c, id, "StartTime"), eligible);
    c.wait_state(id, "COMPLETED");
    assert_eq!(show(&c, id, "Restarts"), "1");
    let out = std::fs::read_to_string(c.dir.path().join(format!("rq-{id}.out"))).expect("output");
    let runs: Vec<&str> = out.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(
        runs,
        ["run restart=unset open=a", "run restart=1 open=a"],
        "{out}"
    );
    assert!(out.contains("rc=0\n"), "{out}");
    assert!(out.ends_with("done\n"), "{out}");
    let node = show(&c, id, "BatchHost");
    assert_eq!(
        cancel_notices(&out),
        [format!(
            "slurmstepd: error: *** JOB {id} ON {node} CANCELLED AT TIME DUE TO JOB REQUEUE ***"
        )],
        "{out}"
    );
}

#[test]
fn requeue_and_requeuehold_refuse_and_hold_as_slurm_does() {
    let c = quick_requeue("AuthInfo=cred_expire=5\n");
    let pending = c.submit(&["--hold", "--wrap", "true"], "");
    let norequeue = c.submit(&["--no-requeue", "--wrap", "sleep 300"], "");
    let done = c.submit(&["--wrap", "true"], "");
    c.wait_state(norequeue, "RUNNING");
    c.wait_state(done, "COMPLETED");
    let out = c.run("scontrol", &["requeue", &pending.to_string()]);
    assert_eq!(
        (text(&out.stderr), out.status.code()),
        (
            format!("Job is pending execution for job {pending}\n"),
            Some(1)
        )
    );
    let out = c.run("scontrol", &["requeue", &norequeue.to_string()]);
    assert_eq!(
        (text(&out.stderr), out.status.code()),
        (
            format!("Requested operation is presently disabled for job {norequeue}\n"),
            Some(1)
        )
    );
    let out = c.run("scontrol", &["requeue", "99999"]);
    assert_eq!(
        text(&out.stderr),
        "Invalid job id specified for job 99999\n"
    );
    // A finished job goes back to the queue and runs again.
    let out = c.run("scontrol", &["requeue", &done.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_for(Duration::from_secs(30), "the requeue", |c| {
        state_reason(c, done) == "PENDING BeginTime"
    });
    c.wait_state(done, "COMPLETED");
    assert_eq!(show(&c, done, "Restarts"), "1");
    // requeuehold: held with Slurm's description until released.
    let held = c.submit(&["--wrap", "sleep 300"], "");
    c.wait_state(held, "RUNNING");
    let out = c.run("scontrol", &["requeuehold", &held.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_for(Duration::from_secs(30), "the hold", |c| {
        state_reason(c, held) == "PENDING job requeued in held state"
    });
    assert_eq!(show(&c, held, "Reason"), "job_requeued_in_held_state");
    assert_eq!(show(&c, held, "Priority"), "0");
    // State=SpecialExit shows as SPECIAL_EXIT (SE) until released.
    let special = c.submit(&["--wrap", "sleep 300"], "");
    c.wait_state(special, "RUNNING");
    let out = c.run(
        "scontrol",
        &["requeuehold", "State=SpecialExit", &special.to_string()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(special, "SPECIAL_EXIT");
    let out = c.run("squeue", &["-h", "-j", &special.to_string(), "-o", "%t %r"]);
    assert_eq!(text(&out.stdout).trim(), "SE job requeued in held state");
    let out = c.run(
        "scontrol",
        &["release", &held.to_string(), &special.to_string()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        state_reason(&c, special).starts_with("PENDING"),
        "{}",
        state_reason(&c, special)
    );
    c.wait_state(held, "RUNNING");
    // Incomplete leaves a finished job alone.
    let out = c.run("scontrol", &["requeue", "Incomplete", &done.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(state_reason(&c, done), "COMPLETED None");
    // An allocation that salloc holds is not a batch job.
    let mut salloc = c
        .command("salloc", &["-N1", "-J", "holder", "sleep", "300"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("salloc starts");
    c.wait_for(Duration::from_secs(30), "the allocation", |c| {
        let out = c.run("squeue", &["-h", "-n", "holder", "-o", "%i %T"]);
        text(&out.stdout).contains("RUNNING")
    });
    let out = c.run("squeue", &["-h", "-n", "holder", "-o", "%i"]);
    let alloc = text(&out.stdout).trim().to_string();
    let out = c.run("scontrol", &["requeue", &alloc]);
    assert_eq!(
        text(&out.stderr),
        format!("Only batch jobs are accepted or processed for job {alloc}\n")
    );
    let _ = c.run("scancel", &[&alloc]);
    let _ = salloc.wait();
}

#[test]
fn job_requeue_0_lets_only_jobs_that_ask_for_it_be_requeued() {
    let c = quick_requeue("JobRequeue=0\nAuthInfo=cred_expire=5\n");
    let plain = c.submit(&["--wrap", "sleep 300"], "");
    let asked = c.submit(&["--requeue", "--wrap", "sleep 300"], "");
    c.wait_state(plain, "RUNNING");
    c.wait_state(asked, "RUNNING");
    assert_eq!(show(&c, plain, "Requeue"), "0");
    assert_eq!(show(&c, asked, "Requeue"), "1");
    let out = c.run("scontrol", &["requeue", &plain.to_string()]);
    assert_eq!(
        text(&out.stderr),
        format!("Requested operation is presently disabled for job {plain}\n")
    );
    let out = c.run("scontrol", &["requeue", &asked.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_for(Duration::from_secs(30), "the requeue", |c| {
        state_reason(c, asked) == "PENDING BeginTime"
    });
}
