//! The real clients, unchanged, against a spur cluster: submitit, snakemake
//! with its Slurm executor plugin, and psij-python, installed at pinned
//! versions into a virtualenv the first test builds (under the target
//! folder, shared by the tests of one build and guarded by a lock). Where
//! the package registry cannot be reached, each test says so and returns.

use std::path::{Path, PathBuf};

use crate::harness::{Cluster, Options};
use crate::text;
use crate::venv::{self, client, run_python};

/// The packages, pinned; the environment is rebuilt when this changes.
const REQUIREMENTS: &str = "submitit==1.5.4\n\
                            snakemake==9.27.1\n\
                            snakemake-executor-plugin-slurm==2.8.0\n\
                            snakemake-executor-plugin-slurm-jobstep==0.6.1\n\
                            psij-python==0.9.11\n";

/// The clients' virtualenv's python (None, after saying why, without the
/// package registry).
fn clients() -> Option<PathBuf> {
    venv::python("real-clients", REQUIREMENTS)
}

/// A cluster whose requeued jobs wait 6 s rather than 121 s.
fn cluster() -> Cluster {
    Cluster::start(Options {
        nodes: 2,
        kill_wait: 5,
        extra_conf: "AuthInfo=cred_expire=5\n",
        ..Options::default()
    })
}

const SUBMITIT: &str = r#"
import time, os, submitit

def wait_running(j):
    end = time.time() + 60
    while j.state != "RUNNING":
        assert time.time() < end and not j.done(), f"job {j.job_id} is {j.state}"
        time.sleep(0.2)

ex = submitit.AutoExecutor(folder="sub/%j")
ex.update_parameters(timeout_min=5, slurm_partition="batch")
print("function", ex.submit(lambda x: x * 2, 21).result())

def stamp(x):
    t0 = time.time(); time.sleep(2)
    return (x + 1, t0, time.time())
ex.update_parameters(slurm_array_parallelism=2)
jobs = ex.map_array(stamp, [1, 2, 3, 4])
res = [j.result() for j in jobs]
spans = [(a, b) for _, a, b in res]
most = max(sum(1 for a, b in spans if a <= t < b) for t, _ in spans)
print("array", [r[0] for r in res], "throttled", most <= 2)

ex2 = submitit.AutoExecutor(folder="sub/%j")
ex2.update_parameters(timeout_min=5, tasks_per_node=2, nodes=1)
def rank():
    env = submitit.JobEnvironment()
    return (env.global_rank, env.num_tasks)
print("tasks", ex2.submit(rank).results())

def boom():
    raise ValueError("boom")
try:
    ex.submit(boom).result()
except submitit.core.utils.FailedJobError as e:
    print("failed", "ValueError: boom" in str(e))

j = ex.submit(time.sleep, 100)
wait_running(j)
j.cancel()
end = time.time() + 60
while not j.done():
    assert time.time() < end, f"job {j.job_id} is still {j.state}"
    time.sleep(0.2)
print("cancelled", j.state)

class Counter(submitit.helpers.Checkpointable):
    def __init__(self):
        self.done = 0
    def __call__(self, n):
        while self.done < n:
            time.sleep(0.5)
            self.done += 1
        return (self.done, int(os.environ.get("SLURM_RESTART_COUNT", "0")))

ex.update_parameters(slurm_array_parallelism=None)
j = ex.submit(Counter(), 16)
wait_running(j)
time.sleep(3)
j._interrupt()
print("checkpointed", j.result())
log = open(j.paths.stdout).read()
print("runs in the log", log.count("Starting with JobEnvironment"))
"#;

#[test]
fn submitit_runs_functions_arrays_tasks_failures_cancels_and_requeues() {
    let Some(python) = clients() else { return };
    let c = cluster();
    let out = run_python(&c, &python, "submitit_check.py", SUBMITIT);
    let want = [
        "function 42",
        "array [2, 3, 4, 5] throttled True",
        "tasks [(0, 2), (1, 2)]",
        "failed True",
        "cancelled CANCELLED by 0",
        // The task was requeued once, ran again, and both runs wrote to
        // the same log (--open-mode=append).
        "checkpointed (16, 1)",
        "runs in the log 2",
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), want, "{out}");
}

const SNAKEFILE: &str = r#"
SAMPLES = ["a", "b", "c", "d"]
rule all:
    input: expand("out/{s}.txt", s=SAMPLES)
rule make:
    output: "out/{s}.txt"
    resources: runtime=5, mem_mb=100
    shell: "echo {wildcards.s} ${{SLURM_ARRAY_TASK_ID:-}} > {output}"
"#;

#[test]
fn snakemake_with_the_slurm_plugin_runs_a_workflow_plainly_and_as_an_array() {
    let Some(python) = clients() else { return };
    let c = cluster();
    let snakemake = python.with_file_name("snakemake");
    for (mode, extra) in [("plain", None), ("array", Some("--slurm-array-jobs=all"))] {
        let work = c.dir.path().join(mode);
        std::fs::create_dir_all(&work).expect("workflow folder");
        std::fs::write(work.join("Snakefile"), SNAKEFILE).expect("Snakefile");
        let mut args = vec![
            "--executor",
            "slurm",
            "--jobs",
            "4",
            "--default-resources",
            "slurm_partition=batch",
            "--slurm-init-seconds-before-status-checks",
            "1",
            "--seconds-between-status-checks",
            "1",
            "--quiet",
        ];
        args.extend(extra);
        let out = client(&c, &python, &snakemake, &args)
            .current_dir(&work)
            .output()
            .expect("snakemake runs");
        assert!(
            out.status.success(),
            "snakemake ({mode}) failed:\n{}\n{}\n{}\n{}",
            text(&out.stdout),
            text(&out.stderr),
            job_logs(&work.join(".snakemake/slurm_logs")),
            c.logs()
        );
        for s in ["a", "b", "c", "d"] {
            let got = std::fs::read_to_string(work.join(format!("out/{s}.txt")))
                .unwrap_or_else(|e| panic!("{mode}: out/{s}.txt: {e}\n{}", text(&out.stderr)));
            let task = got.split_whitespace().nth(1);
            match mode {
                // One array of four tasks: each output names its task.
                "array" => assert!(task.is_some(), "{mode}: {got:?}"),
                _ => assert_eq!(task, None, "{mode}: {got:?}"),
            }
        }
    }
    // The array's four jobs were one array job in the history.
    let out = c.run("sacct", &["-X", "-n", "-P", "-o", "JobID,State"]);
    let history = text(&out.stdout);
    let tasks: Vec<&str> = history
        .lines()
        .filter(|l| l.contains('_'))
        .map(|l| l.split('|').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(tasks, ["COMPLETED"; 4], "{history}");
}

/// The logs snakemake's jobs wrote, for a failure's message.
fn job_logs(dir: &Path) -> String {
    let mut all = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return all;
    };
    for e in entries.flatten() {
        if e.path().is_dir() {
            all.push_str(&job_logs(&e.path()));
        } else {
            let body = std::fs::read_to_string(e.path()).unwrap_or_default();
            let tail: Vec<&str> = body.lines().rev().take(12).collect();
            all.push_str(&format!("--- {}\n", e.path().display()));
            for l in tail.into_iter().rev() {
                all.push_str(l);
                all.push('\n');
            }
        }
    }
    all
}

const PSIJ: &str = r#"
import datetime, os, psij
from psij.executors.batch.slurm import SlurmExecutorConfig

ex = psij.JobExecutor.get_instance("slurm", config=SlurmExecutorConfig(queue_polling_interval=1))
wait = datetime.timedelta(seconds=60)
spec = psij.JobSpec(executable="/bin/sh", arguments=["-c", "echo rank=$SLURM_PROCID"],
                    directory=os.getcwd(), stdout_path=os.path.join(os.getcwd(), "two.out"),
                    launcher="srun")
spec.resources = psij.ResourceSpecV1(process_count=2)
spec.attributes = psij.JobAttributes(duration=datetime.timedelta(minutes=5))
job = psij.Job(spec)
ex.submit(job)
print("two", job.wait(timeout=wait).state, sorted(open("two.out").read().split()))
long = psij.Job(psij.JobSpec(executable="/bin/sleep", arguments=["300"], directory=os.getcwd()))
ex.submit(long)
long.wait(target_states=[psij.JobState.ACTIVE], timeout=wait)
long.cancel()
print("cancelled", long.wait(timeout=wait).state)
bad = psij.Job(psij.JobSpec(executable="/bin/false", directory=os.getcwd()))
ex.submit(bad)
st = bad.wait(timeout=wait)
print("failed", st.state, st.exit_code)
"#;

#[test]
fn psij_runs_a_two_process_job_cancels_one_and_sees_a_failure() {
    let Some(python) = clients() else { return };
    let c = cluster();
    let out = run_python(&c, &python, "psij_check.py", PSIJ);
    let want = [
        "two COMPLETED ['rank=0', 'rank=1']",
        "cancelled CANCELED",
        "failed FAILED 1",
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), want, "{out}");
}
