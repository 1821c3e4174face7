//! The real clients, unchanged, against a spur cluster: submitit, snakemake
//! with its Slurm executor plugin, and psij-python, installed at pinned
//! versions into a virtualenv the first test builds (under the target
//! folder, shared by the tests of one build and guarded by a lock). Where
//! the package registry cannot be reached, each test says so and returns.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{Cluster, Options};
use crate::text;

/// The packages, pinned; the environment is rebuilt when this changes.
const REQUIREMENTS: &str = "submitit==1.5.4\n\
                            snakemake==9.27.1\n\
                            snakemake-executor-plugin-slurm==2.8.0\n\
                            snakemake-executor-plugin-slurm-jobstep==0.6.1\n\
                            psij-python==0.9.11\n";

/// The virtualenv's folder, beside the workspace's binaries.
fn venv_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .join("real-clients")
}

/// The virtualenv's python, built once per requirements; None (after
/// saying why) when it cannot be built, as without the registry.
fn clients() -> Option<PathBuf> {
    let dir = venv_dir();
    std::fs::create_dir_all(dir.parent().expect("has a parent")).ok()?;
    let lock = std::fs::File::create(dir.with_extension("lock")).ok()?;
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor we own; released when `lock` drops.
    unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) };
    let python = dir.join("bin/python");
    let stamp = dir.join("requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(REQUIREMENTS) && python.exists() {
        return Some(python);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&dir)
        .output();
    if !made.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: python3 -m venv failed: {made:?}");
        return None;
    }
    let wanted = dir.join("wanted.txt");
    std::fs::write(&wanted, REQUIREMENTS).ok()?;
    let pip = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(&wanted)
        .output()
        .ok()?;
    if !pip.status.success() {
        eprintln!(
            "skipped: the package registry could not be reached to install the real clients:\n{}",
            text(&pip.stderr)
        );
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    std::fs::write(&stamp, REQUIREMENTS).ok()?;
    Some(python)
}

/// `program` of the clients' virtualenv with `args`, in the cluster's
/// folder and environment, the cluster's commands and the virtualenv's
/// first on PATH.
fn client(c: &Cluster, python: &Path, program: &Path, args: &[&str]) -> Command {
    let venv_bin = python.parent().expect("venv bin");
    let mut cmd = c.command(program.to_str().expect("utf-8 path"), args);
    cmd.env(
        "PATH",
        format!(
            "{}:{}:/usr/bin:/bin",
            c.dir.path().join("bin").display(),
            venv_bin.display()
        ),
    );
    cmd
}

/// Runs `script` with the clients' python in the cluster's folder and
/// environment; returns its stdout, failing the test on a non-zero exit.
fn run_python(c: &Cluster, python: &Path, name: &str, script: &str) -> String {
    let path = c.dir.path().join(name);
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(script.as_bytes()))
        .expect("script written");
    let out = client(c, python, python, &[path.to_str().expect("utf-8 path")])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{name} failed:\n{}\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr),
        c.logs()
    );
    text(&out.stdout)
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
