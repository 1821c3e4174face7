//! End-to-end: a real controller and agents on loopback, driven by the real
//! commands. Each test gets its own cluster in its own folder.

mod arrays;
mod authz;
mod bad_input;
mod clients;
mod daemons;
mod dev;
mod document;
mod environment;
mod full_disk;
mod harness;
mod http;
mod idempotency;
mod libslurm;
mod lossy;
mod memory;
mod mesh;
mod metrics;
mod openapi;
mod package;
mod partition;
mod patterns;
mod privacy;
mod recordings;
mod replay;
mod requests;
mod requeue;
mod rest;
mod rest_clients;
mod sacct;
mod schemathesis;
mod state;
mod steps;
mod tools;
mod ui;
mod usage;
mod venv;
mod why;

use std::time::{Duration, Instant};

use harness::{Cluster, Options};

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// slurmstepd's `*** JOB N ON node CANCELLED AT time... ***` lines in a
/// batch job's output, with the time (`2026-12-02T03:10:00`) checked and
/// replaced by `TIME`.
pub(crate) fn cancel_notices(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("slurmstepd: error: *** "))
        .map(|l| {
            let at = l.find(" CANCELLED AT ").expect("a cancel line") + 14;
            let time = &l[at..at + 19];
            let digits = time.bytes().filter(u8::is_ascii_digit).count();
            assert!(digits == 14 && time.as_bytes()[10] == b'T', "{l}");
            format!("{}TIME{}", &l[..at], &l[at + 19..])
        })
        .collect()
}

#[test]
fn a_batch_job_runs_with_slurms_environment_and_output_file() {
    let c = Cluster::start(Options::default());
    let script = "#!/bin/bash\n#SBATCH -J envjob\n#SBATCH --gpus-per-node=2\n\
                  echo \"id=$SLURM_JOB_ID name=$SLURM_JOB_NAME node=$SLURMD_NODENAME\"\n\
                  echo \"gpus=$CUDA_VISIBLE_DEVICES job_gpus=$SLURM_JOB_GPUS on=$SLURM_GPUS_ON_NODE\"\n\
                  echo \"nodelist=$SLURM_JOB_NODELIST nnodes=$SLURM_NNODES pwd=$PWD\"\n\
                  echo \"topo=$SLURM_TOPOLOGY_ADDR pattern=$SLURM_TOPOLOGY_ADDR_PATTERN\"\n\
                  echo args=\"$@\"\necho err >&2\n";
    let id = c.submit(&["-o", "out-%j-%x.txt"], script);
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join(format!("out-{id}-envjob.txt")))
        .expect("output file exists");
    assert!(
        out.contains(&format!("id={id} name=envjob node=n0")),
        "{out}"
    );
    assert!(out.contains("gpus=0,1 job_gpus=0,1 on=2"), "{out}");
    assert!(out.contains("nnodes=1"), "{out}");
    assert!(out.contains("topo=nvl01.n0"), "{out}");
    assert!(out.contains("pattern=block.node"), "{out}");
    assert!(
        out.contains(&format!("pwd={}", c.dir.path().display())),
        "{out}"
    );
    assert!(
        out.contains("err"),
        "stderr goes with stdout by default: {out}"
    );
}

#[test]
fn the_default_output_file_is_slurm_jobid_out() {
    let c = Cluster::start(Options::default());
    let id = c.submit(&["--wrap", "echo hello"], "");
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join(format!("slurm-{id}.out")))
        .expect("slurm-N.out exists");
    assert_eq!(out, "hello\n");
}

#[test]
fn a_failing_script_ends_failed_with_its_exit_code() {
    let c = Cluster::start(Options::default());
    let id = c.submit(&["--wrap", "exit 3"], "");
    c.wait_state(id, "FAILED");
    let out = c.run("scontrol", &["show", "job", &id.to_string()]);
    assert!(
        text(&out.stdout).contains("ExitCode=3:0"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn scancel_ends_a_running_job_as_cancelled() {
    let c = Cluster::start(Options::default());
    let id = c.submit(&["--wrap", "sleep 300"], "");
    c.wait_state(id, "RUNNING");
    let out = c.run("scancel", &[&id.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(id, "CANCELLED");
}

#[test]
fn the_time_limit_ends_a_job_as_timeout() {
    let c = Cluster::start(Options::default());
    // Slurm keeps limits in whole minutes: 0:02 is one minute.
    let id = c.submit(&["-t", "0:02", "-w", "n02", "--wrap", "sleep 300"], "");
    c.wait_state(id, "RUNNING");
    let out = c.run("squeue", &["-h", "-j", &id.to_string(), "-o", "%l"]);
    assert_eq!(text(&out.stdout).trim(), "1:00");
    c.wait_state_within(id, "TIMEOUT", Duration::from_secs(90));
    let out = c.run(
        "squeue",
        &["-h", "-t", "all", "-j", &id.to_string(), "-o", "%r"],
    );
    assert_eq!(text(&out.stdout).trim(), "TimeLimit");
    let out =
        std::fs::read_to_string(c.dir.path().join(format!("slurm-{id}.out"))).expect("output file");
    assert_eq!(
        cancel_notices(&out),
        [format!(
            "slurmstepd: error: *** JOB {id} ON n02 CANCELLED AT TIME DUE TO TIME LIMIT ***"
        )],
        "{out}"
    );
}

#[test]
fn a_silent_node_goes_down_and_its_jobs_end_as_node_fail_or_are_requeued() {
    let mut c = Cluster::start(Options {
        nodes: 2,
        slurmd_timeout: 2,
        ..Options::default()
    });
    let id = c.submit(&["-w", "n02", "--no-requeue", "--wrap", "sleep 300"], "");
    // JobRequeue=1 (the default): back to the queue, to wait for n02.
    let requeued = c.submit(&["-w", "n02", "--wrap", "sleep 300"], "");
    c.wait_state(id, "RUNNING");
    c.wait_state(requeued, "RUNNING");
    c.kill_agent(1);
    c.wait_state(id, "NODE_FAIL");
    c.wait_state(requeued, "PENDING");
    let out = c.run("scontrol", &["show", "job", &requeued.to_string()]);
    assert!(
        text(&out.stdout).contains("Restarts=1"),
        "{}",
        text(&out.stdout)
    );
    let out = c.run(
        "squeue",
        &["-h", "-t", "all", "-j", &id.to_string(), "-o", "%r"],
    );
    assert_eq!(text(&out.stdout).trim(), "NodeDown");
    let out = c.run("sinfo", &["-h", "-N", "-n", "n02", "-o", "%t"]);
    assert!(
        text(&out.stdout).starts_with("down"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn return_to_service_decides_which_down_nodes_come_back_when_they_register() {
    for rts in [0u8, 1, 2] {
        let mut c = Cluster::start(Options {
            nodes: 2,
            slurmd_timeout: 2,
            return_to_service: rts,
            ..Options::default()
        });
        let state = |c: &Cluster, node: &str| {
            let out = c.run(
                "sinfo",
                &["-h", "-N", "-p", "batch", "-n", node, "-o", "%t|%E"],
            );
            text(&out.stdout).trim().to_string()
        };
        let down = c.run(
            "scontrol",
            &["update", "nodename=n01", "state=down", "reason=broken fan"],
        );
        assert!(down.status.success(), "{}", text(&down.stderr));
        c.kill_agent(1);
        c.wait_for(
            Duration::from_secs(20),
            "n02 down for not responding",
            |c| state(c, "n02") == "down*|Not responding",
        );
        c.kill_agent(0);
        c.start_agent(0);
        c.start_agent(1);
        // The agents are back when both have registered.
        c.wait_for(Duration::from_secs(20), "both agents registered", |c| {
            let log = std::fs::read_to_string(c.dir.path().join("controller.log")).unwrap();
            log.matches("agent registered").count() >= 4
        });
        let (n01, n02) = match rts {
            0 => ("down|broken fan", "down|Not responding"),
            1 => ("down|broken fan", "idle|none"),
            _ => ("idle|none", "idle|none"),
        };
        c.wait_for(Duration::from_secs(10), "the nodes' states", |c| {
            state(c, "n01") == n01 && state(c, "n02") == n02
        });
        // A resume brings back what stayed down.
        let stayed = ["n[01-02]", "n01", ""][usize::from(rts)];
        if !stayed.is_empty() {
            let node = format!("nodename={stayed}");
            let out = c.run("scontrol", &["update", &node, "state=resume"]);
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
        c.wait_for(Duration::from_secs(10), "both nodes idle", |c| {
            state(c, "n01") == "idle|none" && state(c, "n02") == "idle|none"
        });
        let id = c.submit(&["-N", "2", "--wrap", "true"], "");
        c.wait_state(id, "COMPLETED");
    }
}

#[test]
fn a_killed_controller_restarts_with_every_acknowledged_job() {
    let mut c = Cluster::start(Options::default());
    let running = c.submit(&["--wrap", "sleep 3; echo survived"], "");
    let held = c.submit(&["--hold", "--wrap", "true"], "");
    c.wait_state(running, "RUNNING");
    c.kill_controller();
    c.start_controller();
    c.wait_state(held, "PENDING");
    // The job kept running under its supervisor and is reconciled.
    c.wait_state(running, "COMPLETED");
    let out =
        std::fs::read_to_string(c.dir.path().join(format!("slurm-{running}.out"))).expect("output");
    assert_eq!(out, "survived\n");
    // Ids never repeat.
    let next = c.submit(&["--wrap", "true"], "");
    assert!(next > held, "{next} after {held}");
}

#[test]
fn a_job_end_not_yet_stored_when_the_controller_dies_is_reported_again() {
    // The controller leaves an end that nobody waits on to the next
    // commit; killed as the job ends (nothing asks it anything meanwhile),
    // it has stored the job running, and the agent, which keeps the end
    // until acknowledged, reports it to the new controller.
    let mut c = Cluster::start(Options::default());
    let id = c.submit(&["--wrap", "echo ran"], "");
    let out = c.dir.path().join(format!("slurm-{id}.out"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&out).ok().as_deref() != Some("ran\n") {
        assert!(Instant::now() < deadline, "job {id} never ran");
        std::thread::sleep(Duration::from_millis(1));
    }
    c.kill_controller();
    c.start_controller();
    c.wait_state(id, "COMPLETED");
    assert_eq!(std::fs::read_to_string(&out).expect("output"), "ran\n");
    let exit = c.run(
        "sacct",
        &[
            "-n",
            "-X",
            "-j",
            &id.to_string(),
            "-o",
            "State,ExitCode",
            "-P",
        ],
    );
    assert_eq!(text(&exit.stdout), "COMPLETED|0:0\n");
}

#[test]
fn bad_input_gets_slurms_error_and_the_daemons_keep_running() {
    let c = Cluster::start(Options::default());
    let out = c.run("sbatch", &["-p", "nosuch", "--wrap", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sbatch: error: invalid partition specified: nosuch\n\
         sbatch: error: Batch job submission failed: Invalid partition name specified\n"
    );
    let out = c.run("sbatch", &["--gpus-per-node=5", "--wrap", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sbatch: error: Batch job submission failed: Requested node configuration is not available\n"
    );
    let out = c.run("squeue", &["-j", "999999"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "slurm_load_jobs error: Invalid job id specified\n"
    );
    let out = c.run_with_input("sbatch", &[], "#!/bin/sh\r\ntrue\r\n");
    assert_eq!(out.status.code(), Some(1));
    let id = c.submit(&["--wrap", "true"], "");
    c.wait_state(id, "COMPLETED");
}

#[test]
fn another_user_cannot_cancel_my_job() {
    use std::os::unix::process::CommandExt;
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        eprintln!("skipped: running a command as another user needs root");
        return;
    }
    let c = Cluster::start(Options::default());
    let id = c.submit(&["--wrap", "sleep 300"], "");
    c.wait_state(id, "RUNNING");
    let out = c
        .command("scancel", &[&id.to_string()])
        .uid(4242)
        .gid(4242)
        .output()
        .expect("runs");
    // Slurm's scancel exits with the error number modulo 256
    // (ESLURM_ACCESS_DENIED is 2002).
    assert_eq!(
        text(&out.stderr),
        format!("scancel: error: Kill job error on job id {id}: Access/permission denied\n")
    );
    assert_eq!(out.status.code(), Some(2002 % 256));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(c.state(id).as_deref(), Some("RUNNING"));
}

#[test]
fn a_job_outlives_a_restart_of_its_agent() {
    let mut c = Cluster::start(Options::default());
    let id = c.submit(&["-w", "n01", "--wrap", "sleep 2; echo done"], "");
    c.wait_state(id, "RUNNING");
    c.kill_agent(0);
    c.start_agent(0);
    c.wait_state(id, "COMPLETED");
    let out =
        std::fs::read_to_string(c.dir.path().join(format!("slurm-{id}.out"))).expect("output");
    assert_eq!(out, "done\n");
}

#[test]
fn a_job_runs_as_the_user_who_submitted_it() {
    use std::os::unix::process::CommandExt;
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        eprintln!("skipped: submitting as another user needs root");
        return;
    }
    let c = Cluster::start(Options::default());
    let work = c.dir.path().join("work");
    std::fs::create_dir(&work).expect("work dir");
    std::os::unix::fs::chown(&work, Some(4242), Some(4242)).expect("chown");
    let out = c
        .command(
            "sbatch",
            &[
                "--parsable",
                "-D",
                work.to_str().expect("utf-8"),
                "--wrap",
                "id -u; id -g",
            ],
        )
        .uid(4242)
        .gid(4242)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id: u32 = text(&out.stdout).trim().parse().expect("job id");
    c.wait_state(id, "COMPLETED");
    let output = std::fs::read_to_string(work.join(format!("slurm-{id}.out"))).expect("output");
    assert_eq!(output, "4242\n4242\n");
    let meta = std::fs::metadata(work.join(format!("slurm-{id}.out"))).expect("stat");
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&meta), 4242);
}

#[test]
fn signal_reaches_the_batch_shell_before_the_time_limit() {
    let c = Cluster::start(Options::default());
    // One minute of limit, USR1 to the batch shell 55 seconds before it.
    let script = "#!/bin/bash\n#SBATCH -t 1\n#SBATCH --signal=B:USR1@55\n\
                  trap 'echo caught USR1; exit 0' USR1\n\
                  sleep 100 &\nwait\n";
    let id = c.submit(&[], script);
    c.wait_state_within(id, "COMPLETED", Duration::from_secs(30));
    let out =
        std::fs::read_to_string(c.dir.path().join(format!("slurm-{id}.out"))).expect("output");
    assert_eq!(out, "caught USR1\n");
}

#[test]
fn a_drained_node_takes_no_new_jobs_until_resumed() {
    let c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let out = c.run("scontrol", &["update", "NodeName=n01", "State=DRAIN"]);
    assert_eq!(out.status.code(), Some(1), "a drain needs a reason");
    let out = c.run(
        "scontrol",
        &["update", "NodeName=n01", "State=DRAIN", "Reason=fan"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // n01 is in two partitions; -N prints it once per partition, as Slurm.
    let out = c.run(
        "sinfo",
        &["-h", "-N", "-n", "n01", "-p", "batch", "-o", "%t %E"],
    );
    assert_eq!(text(&out.stdout).trim(), "drain fan");
    let id = c.submit(&["-w", "n01", "--wrap", "true"], "");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(c.state(id).as_deref(), Some("PENDING"));
    let out = c.run("scontrol", &["update", "NodeName=n01", "State=RESUME"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(id, "COMPLETED");
}

#[test]
fn finished_jobs_are_forgotten_after_min_job_age() {
    let c = Cluster::start(Options {
        min_job_age: 2,
        ..Options::default()
    });
    let id = c.submit(&["--wrap", "true"], "");
    c.wait_state(id, "COMPLETED");
    c.wait_for(Duration::from_secs(10), "the job to be purged", |c| {
        c.state(id).is_none()
    });
    let out = c.run("scontrol", &["show", "job", &id.to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "slurm_load_jobs error: Invalid job id specified\n"
    );
}

#[test]
fn scontrol_updates_a_pending_jobs_limit_name_nice_partition_and_priority() {
    let c = Cluster::start(Options::default());
    let id = c.submit(&["--hold", "-t", "30", "--wrap", "true"], "");
    let job = format!("JobId={id}");
    let show = |format: &str| {
        let out = c.run("squeue", &["-h", "-j", &id.to_string(), "-o", format]);
        text(&out.stdout).trim().to_string()
    };
    let out = c.run(
        "scontrol",
        &["update", &job, "TimeLimit=10", "JobName=renamed", "Nice=5"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(show("%l %j %y"), "10:00 renamed 5");

    // A partition that does not exist changes nothing.
    let out = c.run("scontrol", &["update", &job, "Partition=nosuch"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("Invalid partition name specified for job {id}\n")
    );
    let out = c.run("scontrol", &["update", &job, "Partition=short"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(show("%P %l"), "short 10:00");

    // A held job's priority cannot be set; released, it can, and the nice
    // value no longer counts.
    let out = c.run("scontrol", &["update", &job, "Priority=5000"]);
    assert_eq!(
        text(&out.stderr),
        format!("Job is in held state, pending scheduler release for job {id}\n")
    );
    let out = c.run(
        "scontrol",
        &["update", &job, "Partition=batch", "TimeLimit=1"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let blocker = c.submit(&["-N", "4", "--exclusive", "--wrap", "sleep 30"], "");
    c.wait_state(blocker, "RUNNING");
    let out = c.run("scontrol", &["release", &id.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = c.run("scontrol", &["update", &job, "Priority=5000"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(show("%P %Q %y %r"), "batch 5000 0 Resources");

    // Priority 0 holds the job, as an operator's hold.
    let out = c.run("scontrol", &["update", &job, "Priority=0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(show("%Q %r"), "0 JobHeldAdmin");

    // A running job's partition stays.
    let out = c.run(
        "scontrol",
        &["update", &format!("JobId={blocker}"), "Partition=short"],
    );
    assert_eq!(
        text(&out.stderr),
        format!("Job is no longer pending execution for job {blocker}\n")
    );
    let out = c.run("scancel", &[&blocker.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = c.run("scontrol", &["release", &id.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(id, "COMPLETED");
}

#[test]
fn a_node_with_fewer_gpus_than_configured_is_drained() {
    let c = Cluster::start(Options {
        nodes: 2,
        gres_conf: Some(
            "NodeName=n01 Name=gpu File=/dev/nvidia[0-3]\nNodeName=n02 Name=gpu Count=2\n",
        ),
        ..Options::default()
    });
    let out = c.run("sinfo", &["-h", "-N", "-p", "batch", "-o", "%N %t %E"]);
    assert_eq!(
        text(&out.stdout),
        "n01 idle none\nn02 drain gres/gpu count reported lower than configured (2 < 4)\n"
    );
}

#[test]
fn commands_away_from_the_controller_go_through_the_local_agent() {
    use std::os::unix::process::CommandExt;
    let c = Cluster::start(Options::default());
    // The same cluster as a node without the controller sees it: its
    // StateSaveLocation (where the controller's socket is) is not here.
    let away = c.conf_away_from_controller("node.conf");
    let on_node = |cmd: &str, args: &[&str]| {
        let mut command = c.command(cmd, args);
        command.env("SLURM_CONF", &away).env("SPUR_NODE", "n03");
        command
    };
    let out = on_node("sbatch", &["--parsable", "--wrap", "sleep 300"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id: u32 = text(&out.stdout).trim().parse().expect("job id");
    c.wait_state(id, "RUNNING");
    let out = on_node("squeue", &["-h", "-o", "%i %T"])
        .output()
        .expect("runs");
    assert_eq!(text(&out.stdout), format!("{id} RUNNING\n"));
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } == 0 {
        // The agent vouches for the uid it sees, not one the command claims.
        let out = on_node("scancel", &[&id.to_string()])
            .uid(4242)
            .gid(4242)
            .output()
            .expect("runs");
        assert_eq!(
            text(&out.stderr),
            format!("scancel: error: Kill job error on job id {id}: Access/permission denied\n")
        );
    }
    let out = on_node("scancel", &[&id.to_string()])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(id, "CANCELLED");
}

#[test]
fn the_job_and_its_output_file_get_the_submitters_umask() {
    use std::os::unix::fs::PermissionsExt;
    let c = Cluster::start(Options::default());
    let sbatch = c.dir.path().join("bin/sbatch");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 077; {} --parsable --wrap 'echo $SLURM_UMASK; umask'",
            sbatch.display()
        ))
        .env("SLURM_CONF", &c.conf)
        .current_dir(c.dir.path())
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id: u32 = text(&out.stdout).trim().parse().expect("job id");
    c.wait_state(id, "COMPLETED");
    let path = c.dir.path().join(format!("slurm-{id}.out"));
    // The script runs with the umask; the variable itself is taken away
    // before it starts, as slurmstepd's set_umask does for batch scripts.
    assert_eq!(std::fs::read_to_string(&path).expect("output"), "\n0077\n");
    let mode = std::fs::metadata(&path).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_login_node_reaches_the_controller_through_spurd_relay() {
    let mut c = Cluster::start(Options::default());
    let login = c.conf_away_from_controller("login.conf");
    let socket = c.dir.path().join("relay.sock");
    c.start_relay(&socket);
    c.wait_for(Duration::from_secs(10), "the relay socket", |_| {
        socket.exists()
    });
    let on_login = |cmd: &str, args: &[&str]| {
        let mut command = c.command(cmd, args);
        command
            .env("SLURM_CONF", &login)
            .env("SPUR_NODE", "login1")
            .env("SPUR_RELAY_SOCKET", &socket);
        command.output().expect("runs")
    };
    let out = on_login("sbatch", &["--parsable", "--wrap", "echo from-login"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id: u32 = text(&out.stdout).trim().parse().expect("job id");
    c.wait_state(id, "COMPLETED");
    let out = on_login("squeue", &["-h", "-t", "all", "-o", "%i %T"]);
    assert_eq!(text(&out.stdout), format!("{id} COMPLETED\n"));
}

#[test]
fn a_submission_rides_out_a_controller_restart() {
    let mut c = Cluster::start(Options::default());
    c.kill_controller();
    // Submitted while the controller is away: sbatch keeps trying for
    // MessageTimeout (10 s), as Slurm's does, and the restart comes first.
    let sbatch = c
        .command("sbatch", &["--parsable", "--wrap", "true"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sbatch runs");
    std::thread::sleep(Duration::from_secs(2));
    c.start_controller();
    let out = sbatch.wait_with_output().expect("sbatch ends");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let id: u32 = text(&out.stdout).trim().parse().expect("a job id");
    c.wait_state(id, "COMPLETED");
    // A relayed command from a node waits the same way.
    let away = c.conf_away_from_controller("node.conf");
    c.kill_controller();
    let squeue = c
        .command("squeue", &["-h", "-t", "all", "-o", "%i %T"])
        .env("SLURM_CONF", &away)
        .env("SPUR_NODE", "n02")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("squeue runs");
    std::thread::sleep(Duration::from_secs(2));
    c.start_controller();
    let out = squeue.wait_with_output().expect("squeue ends");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{id} COMPLETED\n"));
}

#[test]
fn a_relayed_command_fails_after_message_timeout_while_the_controller_is_away() {
    let mut c = Cluster::start(Options {
        extra_conf: "MessageTimeout=2\n",
        ..Options::default()
    });
    let away = c.conf_away_from_controller("node.conf");
    c.kill_controller();
    let started = std::time::Instant::now();
    let out = c
        .command("squeue", &[])
        .env("SLURM_CONF", &away)
        .env("SPUR_NODE", "n02")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"
    );
    // It kept trying for MessageTimeout, and not much longer.
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(6),
        "{took:?}"
    );
    c.start_controller();
}

#[test]
fn an_unlimited_time_limit_is_the_partitions_max_time() {
    let c = Cluster::start(Options::default());
    let short = c.submit(
        &["--hold", "-p", "short", "-t", "UNLIMITED", "--wrap", "true"],
        "",
    );
    let batch = c.submit(&["--hold", "-t", "UNLIMITED", "--wrap", "true"], "");
    let ids = format!("{short},{batch}");
    let out = c.run("squeue", &["-h", "-j", &ids, "-o", "%i %l", "-S", "i"]);
    assert_eq!(
        text(&out.stdout),
        format!("{short} 1:00\n{batch} UNLIMITED\n")
    );
}

#[test]
fn a_running_job_keeps_its_node_when_slurm_conf_reorders_the_nodes() {
    let mut c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let id = c.submit(&["-w", "n02", "--gpus-per-node=4", "--wrap", "sleep 3"], "");
    c.wait_state(id, "RUNNING");
    c.kill_controller();
    let conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    let (first, second): (Vec<&str>, Vec<&str>) =
        conf.lines().partition(|l| !l.starts_with("NodeName=n02"));
    let mut reordered: Vec<&str> = second;
    reordered.extend(first);
    std::fs::write(&c.conf, reordered.join("\n") + "\n").expect("writes");
    c.start_controller();
    c.wait_state(id, "RUNNING");
    let out = c.run("squeue", &["-h", "-j", &id.to_string(), "-o", "%N"]);
    assert_eq!(text(&out.stdout), "n02\n");
    // Its GPUs are still held there: a second whole-node GPU job must not
    // get n02 while the first runs.
    let other = c.submit(&["-w", "n02", "--gpus-per-node=4", "--wrap", "true"], "");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(c.state(other).as_deref(), Some("PENDING"));
    c.wait_state(id, "COMPLETED");
    c.wait_state(other, "COMPLETED");
}

#[test]
fn scontrol_reconfigure_applies_a_changed_slurm_conf_and_keeps_every_job() {
    let mut c = Cluster::start(Options {
        nodes: 3,
        ..Options::default()
    });
    let running = c.submit(
        &["-w", "n01", "-o", "running.out"],
        "#!/bin/sh\nwhile [ ! -e go ]; do sleep 0.1; done\necho finished\n",
    );
    c.wait_state(running, "RUNNING");
    let held = c.submit(&["--hold", "--wrap", "true"], "");
    let out = c.run(
        "scontrol",
        &["update", "NodeName=n02", "State=DRAIN", "Reason=fan"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    // n03 leaves, a partition is added and another's limit changes.
    let conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    let changed = conf
        .lines()
        .filter(|l| !l.starts_with("NodeName=n03"))
        .map(|l| {
            l.replace("Nodes=n[01-03]", "Nodes=n[01-02]")
                .replace("MaxTime=00:01:00", "MaxTime=00:05:00")
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\nPartitionName=long Nodes=n[01-02] MaxTime=2:00:00 State=UP\n";
    std::fs::write(&c.conf, changed).expect("writes slurm.conf");
    std::fs::write(
        c.dir.path().join("topology.conf"),
        "BlockName=nvl01 Nodes=n[01-02]\n",
    )
    .expect("writes topology.conf");
    let out = c.run("scontrol", &["reconfigure"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");

    let out = c.run("sinfo", &["-h", "-o", "%P %l %N"]);
    assert_eq!(
        text(&out.stdout),
        "batch* infinite n[01-02]\nshort 5:00 n01\nlong 2:00:00 n[01-02]\n"
    );
    let out = c.run("sinfo", &["-h", "-N", "-p", "batch", "-o", "%N %t %E"]);
    assert_eq!(text(&out.stdout), "n01 mix none\nn02 drain fan\n");
    assert_eq!(c.state(running).as_deref(), Some("RUNNING"));
    assert_eq!(c.state(held).as_deref(), Some("PENDING"));
    // The reconfigure's turn saved it: a controller killed now comes back
    // to the same partitions, nodes and jobs.
    c.kill_controller();
    c.start_controller();
    c.wait_for(Duration::from_secs(10), "the restarted controller", |c| {
        let out = c.run("sinfo", &["-h", "-N", "-p", "batch", "-o", "%N %t %E"]);
        text(&out.stdout) == "n01 mix none\nn02 drain fan\n"
    });
    let out = c.run("sinfo", &["-h", "-o", "%P %l %N"]);
    assert_eq!(
        text(&out.stdout),
        "batch* infinite n[01-02]\nshort 5:00 n01\nlong 2:00:00 n[01-02]\n"
    );
    assert_eq!(c.state(running).as_deref(), Some("RUNNING"));
    assert_eq!(c.state(held).as_deref(), Some("PENDING"));

    // A configuration without a node that runs a job is refused whole.
    let conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    let without_n01 = conf
        .lines()
        .filter(|l| !l.starts_with("NodeName=n01"))
        .map(|l| {
            l.replace("n[01-02]", "n02")
                .replace("Nodes=n01", "Nodes=n02")
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&c.conf, &without_n01).expect("writes slurm.conf");
    let topology = c.dir.path().join("topology.conf");
    std::fs::write(&topology, "BlockName=nvl01 Nodes=n02\n").expect("writes topology.conf");
    let out = c.run("scontrol", &["reconfigure"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "slurm_reconfigure error: Unspecified error\n"
    );
    std::fs::write(&c.conf, conf).expect("writes slurm.conf back");
    std::fs::write(&topology, "BlockName=nvl01 Nodes=n[01-02]\n").expect("writes it back");
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).expect("log");
    assert!(
        log.contains(&format!(
            "node n01 is gone from slurm.conf but runs job {running}"
        )),
        "{log}"
    );

    // Everything still runs, in the new partition too.
    std::fs::write(c.dir.path().join("go"), "").expect("touch go");
    c.wait_state(running, "COMPLETED");
    let out_file = c.dir.path().join("running.out");
    assert_eq!(
        std::fs::read_to_string(out_file).expect("output"),
        "finished\n"
    );
    let out = c.run("scontrol", &["release", &held.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(held, "COMPLETED");
    let long = c.submit(&["-p", "long", "-N", "1", "--wrap", "true"], "");
    c.wait_state(long, "COMPLETED");
    let out = c.run(
        "squeue",
        &["-h", "-j", &long.to_string(), "-o", "%P", "-t", "all"],
    );
    assert_eq!(text(&out.stdout).trim(), "long");
    assert!(long > held, "job ids keep counting up");

    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } == 0 {
        use std::os::unix::process::CommandExt;
        let out = c
            .command("scontrol", &["reconfigure"])
            .uid(4242)
            .gid(4242)
            .output()
            .expect("runs");
        assert_eq!(
            text(&out.stderr),
            "slurm_reconfigure error: Access/permission denied\n"
        );
    }
}

#[test]
fn srun_in_a_batch_job_runs_every_task_with_its_rank_and_gpus() {
    let c = Cluster::start(Options::default());
    let id = c.submit(
        &["-N", "2", "--ntasks-per-node=2", "--gpus-per-node=4", "-o", "steps.out"],
        "#!/bin/sh\n\
         srun -l sh -c 'echo $SLURMD_NODENAME $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $CUDA_VISIBLE_DEVICES $SLURM_STEP_ID $SLURM_STEP_NUM_TASKS $SLURM_STEP_NODELIST $SLURM_STEP_TASKS_PER_NODE'\n\
         echo step0=$?\n\
         srun -n 2 --gpus-per-task=1 sh -c 'echo gpu $SLURM_PROCID $CUDA_VISIBLE_DEVICES $SLURM_STEP_ID'\n\
         srun -n 1 sh -c 'exit 3'\n\
         echo step2=$?\n",
    );
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join("steps.out")).expect("output");
    let mut labelled: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with(char::is_numeric))
        .collect();
    labelled.sort_unstable();
    assert_eq!(
        labelled,
        vec![
            "0: n01 0 0 0 0,1,2,3 0 4 n[01-02] 2(x2)",
            "1: n01 1 1 0 0,1,2,3 0 4 n[01-02] 2(x2)",
            "2: n02 2 0 1 0,1,2,3 0 4 n[01-02] 2(x2)",
            "3: n02 3 1 1 0,1,2,3 0 4 n[01-02] 2(x2)",
        ],
        "{out}"
    );
    assert!(out.contains("step0=0\n"), "{out}");
    let mut gpus: Vec<&str> = out.lines().filter(|l| l.starts_with("gpu ")).collect();
    gpus.sort_unstable();
    // Two tasks on the job's two nodes (SLURM_JOB_NUM_NODES), one GPU each.
    assert_eq!(gpus, vec!["gpu 0 0 1", "gpu 1 0 1"], "{out}");
    assert!(
        out.contains("srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1\n"),
        "{out}"
    );
    assert!(
        out.contains("srun: error: n01: task 0: Exited with exit code 3\n"),
        "{out}"
    );
    assert!(out.contains("step2=3\n"), "{out}");
}

/// Whether a process with this pid still runs (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.split_whitespace().nth(2).is_none_or(|st| st != "Z"))
        .unwrap_or(false)
}

fn pids_in(dir: &std::path::Path, prefix: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for e in std::fs::read_dir(dir).expect("dir").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) {
            if let Ok(p) = std::fs::read_to_string(e.path()).map(|t| t.trim().parse::<u32>()) {
                pids.extend(p);
            }
        }
    }
    pids
}

#[test]
fn srun_feeds_every_task_writes_per_task_files_and_runs_multi_prog() {
    let c = Cluster::start(Options::default());
    std::fs::write(
        c.dir.path().join("multi.conf"),
        "# rank program\n0 echo leader\n* sh -c 'echo worker %t'\n",
    )
    .expect("multi-prog file");
    std::fs::write(c.dir.path().join("input.txt"), "fed to every task\n").expect("input");
    let id = c.submit(
        &["-N", "2", "-n", "4", "-o", "batch.out"],
        "#!/bin/sh\n\
         srun -n 2 -o 'task-%t-%N.out' sh -c 'cat; echo rank $SLURM_PROCID' < input.txt\n\
         srun -l --multi-prog multi.conf\n\
         srun -n 4 -K sh -c 'if [ $SLURM_PROCID = 1 ]; then exit 4; fi; sleep 30'\n\
         echo killed=$?\n",
    );
    c.wait_state(id, "COMPLETED");
    let read = |name: &str| std::fs::read_to_string(c.dir.path().join(name)).unwrap_or_default();
    // srun's stdin reaches every task, as Slurm's default `-i all` does.
    assert_eq!(read("task-0-n01.out"), "fed to every task\nrank 0\n");
    assert_eq!(read("task-1-n02.out"), "fed to every task\nrank 1\n");
    let out = read("batch.out");
    let mut multi: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("leader") || l.contains("worker"))
        .collect();
    multi.sort_unstable();
    assert_eq!(
        multi,
        vec!["0: leader", "1: worker 1", "2: worker 2", "3: worker 3"],
        "{out}"
    );
    // -K: the failing task ends the others at once, long before 30 s.
    assert!(
        out.contains("srun: error: n01: task 1: Exited with exit code 4\n"),
        "{out}"
    );
    assert!(out.contains("killed=137\n"), "{out}");
}

#[test]
fn two_interrupts_within_a_second_end_the_step_and_scancel_ends_steps_on_every_node() {
    use std::io::BufRead;
    let c = Cluster::start(Options::default());
    // An allocation held by a batch script; srun joins it from outside,
    // as from a shell that holds the job.
    let holder = c.submit(&["-N", "2", "--wrap", "sleep 300"], "");
    c.wait_state(holder, "RUNNING");
    let mut srun = c
        .command(
            "srun",
            &[
                "sh",
                "-c",
                "echo $$ > step-pid-$SLURM_PROCID; echo started; exec sleep 300",
            ],
        )
        .env("SLURM_JOB_ID", holder.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("srun starts");
    let mut lines = std::io::BufReader::new(srun.stdout.take().expect("stdout")).lines();
    for _ in 0..2 {
        assert_eq!(lines.next().expect("a line").expect("reads"), "started");
    }
    let pids = pids_in(c.dir.path(), "step-pid-");
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|&p| alive(p)));
    let pid = srun.id() as i32;
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(pid, libc::SIGINT) };
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(pids.iter().all(|&p| alive(p)), "one interrupt only reports");
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let out = srun.wait_with_output().expect("srun ends");
    let err = text(&out.stderr);
    assert!(
        err.contains("srun: interrupt (one more within 1 sec to abort)\n"),
        "{err}"
    );
    assert!(
        err.contains(&format!("srun: StepId={holder}.0 tasks 0-1: running\n")),
        "{err}"
    );
    assert!(err.contains("srun: forcing job termination\n"), "{err}");
    assert_eq!(out.status.code(), Some(137), "{err}");
    c.wait_for(
        std::time::Duration::from_secs(5),
        "the step's tasks to end",
        |_| pids.iter().all(|&p| !alive(p)),
    );

    // A step of a cancelled job ends on every node.
    let id = c.submit(
        &["-N", "2"],
        "#!/bin/sh\nsrun sh -c 'echo $$ > cancel-pid-$SLURM_PROCID; exec sleep 300'\n",
    );
    c.wait_for(std::time::Duration::from_secs(10), "both step tasks", |c| {
        pids_in(c.dir.path(), "cancel-pid-").len() == 2
    });
    let pids = pids_in(c.dir.path(), "cancel-pid-");
    assert!(pids.iter().all(|&p| alive(p)));
    let out = c.run("scancel", &[&id.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(id, "CANCELLED");
    c.wait_for(
        std::time::Duration::from_secs(10),
        "the cancelled job's tasks to end",
        |_| pids.iter().all(|&p| !alive(p)),
    );
    let out = c.run("scancel", &[&holder.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn salloc_runs_a_command_in_its_allocation_and_srun_runs_outside_one() {
    let c = Cluster::start(Options::default());
    let out = c.run(
        "salloc",
        &[
            "-N2",
            "--gpus-per-node=2",
            "sh",
            "-c",
            "echo ALLOC $SLURM_JOB_NAME $SLURM_JOB_NODELIST $SLURM_JOB_NUM_NODES; \
             srun -l sh -c 'echo $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES' | sort; exit 5",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(
        text(&out.stdout),
        "ALLOC interactive n[01-02] 2\n0: n01 0,1\n1: n02 0,1\n",
        "{err}"
    );
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert_eq!(
        err,
        "salloc: Granted job allocation 1\n\
         salloc: Relinquishing job allocation 1\n\
         salloc: Job allocation 1 has been revoked.\n"
    );
    assert_eq!(c.state(1).as_deref(), Some("FAILED"));

    // srun outside an allocation: an allocation of its own, one step, and
    // the allocation is given back.
    let out = c.run(
        "srun",
        &[
            "-N3",
            "-n3",
            "-l",
            "sh",
            "-c",
            "echo $SLURM_JOB_ID $SLURM_STEP_ID",
        ],
    );
    let mut lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    lines.sort();
    assert_eq!(
        lines,
        vec!["0: 2 0", "1: 2 0", "2: 2 0"],
        "{}",
        text(&out.stderr)
    );
    assert!(out.status.success());
    c.wait_state(2, "COMPLETED");

    // Cancelled while salloc holds it: the command is told and salloc ends.
    let mut held = c
        .command("salloc", &["-N1", "sleep", "300"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("salloc starts");
    c.wait_state(3, "RUNNING");
    let out = c.run("scancel", &["3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let status = held.wait().expect("salloc ends");
    assert!(!status.success());
    c.wait_state(3, "CANCELLED");
}

#[test]
fn steps_wait_for_the_cpus_other_steps_hold_unless_exact_or_overlap() {
    let c = Cluster::start(Options::default());
    let id = c.submit(
        &["-N", "1", "-n", "2", "-o", "steps.out"],
        "#!/bin/sh\n\
         srun -n1 sh -c 'sleep 1; echo first' &\n\
         sleep 0.3\n\
         srun -n1 sh -c 'echo second'\n\
         wait\n\
         srun -n1 --exact sh -c 'sleep 1; echo third' &\n\
         sleep 0.3\n\
         srun -n1 --exact sh -c 'echo fourth'\n\
         wait\n\
         srun -n1 sh -c 'sleep 1; echo fifth' &\n\
         sleep 0.3\n\
         srun -n1 --overlap sh -c 'echo sixth'\n\
         wait\n",
    );
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join("steps.out")).expect("output");
    let order: Vec<&str> = out.lines().filter(|l| !l.starts_with("srun:")).collect();
    // The second step waits for the first, which holds both CPUs; --exact
    // steps take one CPU each and --overlap shares: those run at once.
    assert_eq!(
        order,
        vec!["first", "second", "fourth", "third", "sixth", "fifth"],
        "{out}"
    );
    for line in [
        format!("srun: Job {id} step creation temporarily disabled, retrying (Requested nodes are busy)"),
        format!("srun: Step created for StepId={id}.1"),
    ] {
        assert!(out.lines().any(|l| l == line), "{out}");
    }
    assert_eq!(out.matches("temporarily disabled").count(), 1, "{out}");
}

#[test]
fn a_direct_srun_task_gets_every_variable_slurm_sets() {
    let c = Cluster::start(Options::default());
    let out = c.run(
        "srun",
        &[
            "-N1",
            "-n1",
            "--gpus=1",
            "-A",
            "research",
            "bash",
            "-c",
            "env | sort | grep -E '^(SLURM|CUDA|GPU)'",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names = |t: &str| -> Vec<String> {
        t.lines()
            .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_string()))
            .filter(|k| k.starts_with("SLURM") || k.starts_with("CUDA") || k.starts_with("GPU"))
            .collect()
    };
    // The names in slurm-reference/83-srun-env-direct.txt (Slurm 22.05.8,
    // `srun -N1 -n1 --gpus=1` in an account), in `sort` order.
    let reference = [
        "CUDA_VISIBLE_DEVICES",
        "GPU_DEVICE_ORDINAL",
        "SLURMD_NODENAME",
        "SLURM_CLUSTER_NAME",
        "SLURM_CONF",
        "SLURM_CPUS_ON_NODE",
        "SLURM_GPUS_ON_NODE",
        "SLURM_GTIDS",
        "SLURM_JOBID",
        "SLURM_JOB_ACCOUNT",
        "SLURM_JOB_CPUS_PER_NODE",
        "SLURM_JOB_GID",
        "SLURM_JOB_ID",
        "SLURM_JOB_NAME",
        "SLURM_JOB_NODELIST",
        "SLURM_JOB_NUM_NODES",
        "SLURM_JOB_PARTITION",
        "SLURM_JOB_QOS",
        "SLURM_JOB_UID",
        "SLURM_JOB_USER",
        "SLURM_LAUNCH_NODE_IPADDR",
        "SLURM_LOCALID",
        "SLURM_NNODES",
        "SLURM_NODEID",
        "SLURM_NODELIST",
        "SLURM_NPROCS",
        "SLURM_NTASKS",
        "SLURM_PRIO_PROCESS",
        "SLURM_PROCID",
        "SLURM_SRUN_COMM_HOST",
        "SLURM_SRUN_COMM_PORT",
        "SLURM_STEPID",
        "SLURM_STEP_GPUS",
        "SLURM_STEP_ID",
        "SLURM_STEP_LAUNCHER_PORT",
        "SLURM_STEP_NODELIST",
        "SLURM_STEP_NUM_NODES",
        "SLURM_STEP_NUM_TASKS",
        "SLURM_STEP_TASKS_PER_NODE",
        "SLURM_SUBMIT_DIR",
        "SLURM_SUBMIT_HOST",
        "SLURM_TASKS_PER_NODE",
        "SLURM_TASK_PID",
        "SLURM_TOPOLOGY_ADDR",
        "SLURM_TOPOLOGY_ADDR_PATTERN",
        "SLURM_UMASK",
        "SLURM_WORKING_CLUSTER",
    ];
    let got = text(&out.stdout);
    assert_eq!(names(&got), reference, "{got}");
    let value = |k: &str| {
        got.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(value("CUDA_VISIBLE_DEVICES"), "0");
    assert_eq!(value("SLURM_STEP_GPUS"), "0");
    assert_eq!(value("SLURM_JOB_NAME"), "bash");
    assert_eq!(value("SLURM_JOB_ACCOUNT"), "research");
    assert_eq!(value("SLURM_STEP_ID"), "0");
    assert_eq!(
        value("SLURM_TASK_PID").parse::<u32>().map(|p| p > 1),
        Ok(true)
    );
}

#[test]
fn scancel_signals_the_steps_by_default_and_the_batch_shell_with_b() {
    let c = Cluster::start(Options::default());
    let id = c.submit(
        &["-N", "2", "-o", "signals.out"],
        "#!/bin/bash\n\
         trap 'echo batch got USR1' USR1\n\
         trap 'echo batch got USR2' USR2\n\
         srun sh -c 'trap \"echo step $SLURM_PROCID got USR1\" USR1; \
         trap \"echo step $SLURM_PROCID got USR2\" USR2; echo ready; \
         while [ ! -e done ]; do sleep 0.1; done' &\n\
         while [ ! -e done ]; do sleep 0.1; done\n\
         wait\n",
    );
    let out = || std::fs::read_to_string(c.dir.path().join("signals.out")).unwrap_or_default();
    let limit = std::time::Duration::from_secs(10);
    c.wait_for(limit, "both tasks ready", |_| {
        out().matches("ready").count() == 2
    });
    let sent = c.run("scancel", &["-s", "USR1", &id.to_string()]);
    assert!(sent.status.success(), "{}", text(&sent.stderr));
    c.wait_for(limit, "both steps got USR1", |_| {
        out().contains("step 0 got USR1") && out().contains("step 1 got USR1")
    });
    let sent = c.run("scancel", &["-b", "-s", "USR2", &id.to_string()]);
    assert!(sent.status.success(), "{}", text(&sent.stderr));
    c.wait_for(limit, "the batch shell got USR2", |_| {
        out().contains("batch got USR2")
    });
    std::fs::write(c.dir.path().join("done"), "").expect("touch done");
    c.wait_state(id, "COMPLETED");
    let all = out();
    assert!(!all.contains("batch got USR1"), "{all}");
    assert!(
        !all.contains("step 0 got USR2") && !all.contains("step 1 got USR2"),
        "{all}"
    );
}

#[test]
fn srun_wait_export_chdir_open_mode_and_step_name() {
    let c = Cluster::start(Options::default());
    std::fs::create_dir_all(c.dir.path().join("sub")).expect("sub folder");
    let id = c.submit(
        &["-N", "2", "-o", "opts.out", "-t", "5"],
        "#!/bin/sh\n\
         export KEPT=yes DROPPED=yes\n\
         srun -n1 --export=NONE,KEPT,EXTRA=1 sh -c 'echo env ${KEPT:-unset} ${DROPPED:-unset} ${EXTRA:-unset}'\n\
         srun -n1 -D sub sh -c 'echo dir $(basename $PWD)'\n\
         srun -n1 -o appended.out sh -c 'echo one'\n\
         srun -n1 -o appended.out --open-mode=append sh -c 'echo two'\n\
         srun -n2 -W 1 sh -c 'if [ $SLURM_PROCID = 1 ]; then sleep 30; fi; echo quick'\n\
         echo waited=$?\n\
         srun -n1 -J named sh -c 'echo named'\n",
    );
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join("opts.out")).expect("output");
    assert!(out.contains("env yes unset 1\n"), "{out}");
    assert!(out.contains("dir sub\n"), "{out}");
    let appended = std::fs::read_to_string(c.dir.path().join("appended.out")).expect("file");
    assert_eq!(appended, "one\ntwo\n");
    // -W: the slow task is ended a second after the first one ended.
    assert!(
        out.contains("srun: error: First task exited 1s ago\n"),
        "{out}"
    );
    assert!(out.contains("waited=137\n"), "{out}");
    // The step's name is what sacct shows.
    let out = c.run(
        "sacct",
        &["-j", &id.to_string(), "-n", "-P", "-o", "JobID,JobName"],
    );
    assert!(
        text(&out.stdout).contains(&format!("{id}.5|named\n")),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_steps_time_limit_ends_its_tasks() {
    let c = Cluster::start(Options::default());
    let id = c.submit(
        &["-N", "1", "-o", "limit.out"],
        "#!/bin/sh\nsrun -t 1 sh -c 'sleep 120'\necho rc=$?\n",
    );
    c.wait_state_within(id, "COMPLETED", std::time::Duration::from_secs(100));
    let out = std::fs::read_to_string(c.dir.path().join("limit.out")).expect("output");
    let cancelled = format!("slurmstepd: error: *** STEP {id}.0 ON n01 CANCELLED AT ");
    assert!(out.contains(&cancelled), "{out}");
    assert!(out.contains(" DUE TO TIME LIMIT ***\n"), "{out}");
    assert!(
        out.contains("srun: error: n01: task 0: Killed\nrc=137\n"),
        "{out}"
    );
}

#[test]
fn a_launch_its_agent_never_read_is_sent_again_when_the_agent_returns() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    // The launch waits unread in the stopped agent's socket and dies with it.
    c.pause_agent(0);
    let id = c.submit(&["-o", "relaunched.out", "--wrap", "echo ran once"], "");
    c.wait_state(id, "RUNNING");
    c.kill_agent(0);
    c.start_agent(0);
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join("relaunched.out")).expect("output");
    assert_eq!(out, "ran once\n");
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).expect("log");
    assert!(
        log.contains("launch never reached the node; sending it again"),
        "{log}"
    );
}

#[test]
fn a_running_job_its_node_forgot_is_lost_not_started_again() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let id = c.submit(
        &["-o", "forgotten.out", "--wrap", "echo started; sleep 300"],
        "",
    );
    let out = c.dir.path().join("forgotten.out");
    c.wait_for(Duration::from_secs(10), "the script's start", |_| {
        std::fs::read_to_string(&out).is_ok_and(|o| o == "started\n")
    });
    // The node reports a script's start once it has run a tenth of a
    // second; ten times that is ample.
    std::thread::sleep(Duration::from_secs(1));
    // The node forgets the job: its agent, its script and its folder go.
    c.kill_agent(0);
    let folder = c.dir.path().join(format!("spool/n01/job{id:010}"));
    let script = spur_supervise::script_pid(&folder).expect("the script's pid");
    // SAFETY: signalling the process group of this test's job.
    unsafe { libc::kill(-script, libc::SIGKILL) };
    std::fs::remove_dir_all(&folder).expect("job folder removed");
    c.start_agent(0);
    c.wait_state(id, "FAILED");
    assert_eq!(std::fs::read_to_string(&out).expect("output"), "started\n");
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).expect("log");
    assert!(
        log.contains("node does not know a job it was running; job lost"),
        "{log}"
    );
    assert!(!log.contains("sending it again"), "{log}");
}

#[test]
fn inactive_limit_ends_an_allocation_whose_holder_went_silent() {
    let c = Cluster::start(Options {
        nodes: 2,
        inactive_limit: 8,
        ..Options::default()
    });
    // A holder that keeps talking keeps its allocation past the limit.
    let out = c.run("salloc", &["-N1", "sh", "-c", "sleep 12; echo held"]);
    assert_eq!(text(&out.stdout), "held\n", "{}", text(&out.stderr));
    assert_eq!(c.state(1).as_deref(), Some("COMPLETED"));
    // One stopped with SIGSTOP says nothing: its job ends as TIMEOUT.
    // (Its command outlives it briefly: a short sleep.)
    let mut holder = c
        .command("salloc", &["-N1", "sleep", "30"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("salloc starts");
    c.wait_state(2, "RUNNING");
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(holder.id() as i32, libc::SIGSTOP) };
    c.wait_state_within(2, "TIMEOUT", std::time::Duration::from_secs(30));
    let out = c.run("squeue", &["-h", "-t", "all", "-j", "2", "-o", "%r"]);
    assert_eq!(text(&out.stdout).trim(), "InactiveLimit");
    holder.kill().expect("kill -9");
    let _ = holder.wait();
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).expect("log");
    assert!(log.contains("inactivity time limit reached"), "{log}");
    let out = c.run("scontrol", &["show", "config"]);
    assert!(text(&out.stdout).contains("InactiveLimit           = 8 sec\n"));
}

#[test]
fn a_step_running_across_a_controller_restart_ends_in_the_history() {
    let mut c = Cluster::start(Options::default());
    let id = c.submit(
        &["-N", "2"],
        "#!/bin/sh\nsrun sh -c 'while [ ! -e go ]; do sleep 0.1; done'\n",
    );
    let step = format!("{id}.0|RUNNING");
    let history = |c: &Cluster| {
        let out = c.run(
            "sacct",
            &["-j", &id.to_string(), "-n", "-P", "-o", "JobID,State"],
        );
        text(&out.stdout)
    };
    c.wait_for(std::time::Duration::from_secs(10), "the step to run", |c| {
        history(c).contains(&step)
    });
    c.kill_controller();
    c.start_controller();
    std::fs::write(c.dir.path().join("go"), "").expect("touch go");
    c.wait_state(id, "COMPLETED");
    c.wait_for(
        std::time::Duration::from_secs(10),
        "the step's end in sacct",
        |c| history(c).contains(&format!("{id}.0|COMPLETED\n")),
    );
}

#[test]
fn job_folders_are_reused_without_handing_one_users_script_to_another() {
    // An ended job's folder is kept for the next job on its node (a node
    // of short jobs would otherwise make and delete three files a job);
    // the script file in it only ever goes to its own user's next job,
    // and a folder a job's leftover process still holds is deleted.
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;
    // SAFETY: getuid has no preconditions.
    let root = unsafe { libc::getuid() } == 0;
    let mut c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let spool = c.dir.path().join("spool/n01");
    let spares = || std::fs::read_dir(spool.join("spare")).map_or(0, |d| d.count());
    let work = c.dir.path().join("work");
    std::fs::create_dir(&work).expect("work dir");
    let submit_as = |c: &Cluster, uid: u32, wrap: &str| -> u32 {
        let mut cmd = c.command(
            "sbatch",
            &[
                "--parsable",
                "-D",
                work.to_str().expect("utf-8"),
                "--wrap",
                wrap,
            ],
        );
        if uid != 0 {
            cmd.uid(uid).gid(uid);
        }
        let out = cmd.output().expect("runs");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let id: u32 = text(&out.stdout).trim().parse().expect("job id");
        c.wait_state(id, "COMPLETED");
        id
    };
    let output =
        |id: u32| std::fs::read_to_string(work.join(format!("slurm-{id}.out"))).expect("output");
    // Each job prints its script's path and owner, then its first line.
    let wrap = "stat -c '%n %u' \"$0\"; sed -n 2p \"$0\"";
    let other = if root {
        std::os::unix::fs::chown(&work, Some(4242), Some(4242)).expect("chown");
        std::fs::set_permissions(&work, std::os::unix::fs::PermissionsExt::from_mode(0o777))
            .expect("chmod");
        4242
    } else {
        eprintln!("another user's jobs skipped: submitting as another user needs root");
        0
    };
    // SAFETY: getuid has no preconditions.
    let me = unsafe { libc::getuid() };
    let mut ids = Vec::new();
    for uid in [other, me, other, me] {
        let id = submit_as(&c, uid, wrap);
        let script = spool.join(format!("job{id:010}/slurm_script"));
        assert_eq!(
            output(id),
            format!(
                "{} {uid}\n# This script was created by sbatch --wrap.\n",
                script.display()
            ),
            "job {id}"
        );
        c.wait_for(Duration::from_secs(10), "the folder kept", |_| {
            spares() == 1
        });
        ids.push(id);
    }
    assert!(
        !spool.join(format!("job{:010}", ids[3])).exists(),
        "no job folder left behind"
    );
    // The kept folder holds the last launch, root's alone in a folder
    // root's alone, and the script of its last job's user, still that
    // user's own.
    let spare = std::fs::metadata(spool.join("spare")).expect("spare folder");
    assert_eq!((spare.uid(), spare.mode() & 0o777), (0, 0o700));
    let kept = std::fs::read_dir(spool.join("spare"))
        .expect("lists")
        .flatten()
        .next()
        .expect("a kept folder")
        .path();
    let launch = std::fs::metadata(kept.join(spur_supervise::LAUNCH_FILE)).expect("launch");
    assert_eq!((launch.uid(), launch.mode() & 0o777), (0, 0o600));
    let script = std::fs::metadata(kept.join(spur_supervise::SCRIPT_FILE)).expect("script");
    assert_eq!(script.uid(), me);
    // A restarted agent takes up the kept folders.
    c.kill_agent(0);
    c.start_agent(0);
    let id = submit_as(&c, me, wrap);
    assert!(output(id).ends_with(&format!(
        " {me}\n# This script was created by sbatch --wrap.\n"
    )));
    c.wait_for(Duration::from_secs(10), "the folder kept", |_| {
        spares() == 1
    });
    // A job whose leftover process still holds its lock (the process
    // inherits it) leaves a folder that is deleted, not kept.
    let id = submit_as(&c, me, "sleep 30 & echo started");
    assert_eq!(output(id), "started\n");
    let folder = spool.join(format!("job{id:010}"));
    c.wait_for(Duration::from_secs(10), "the held folder deleted", |_| {
        !folder.exists()
    });
    assert_eq!(spares(), 0, "the kept one was taken, the held one deleted");
    let id = submit_as(&c, me, wrap);
    assert!(output(id).contains("# This script was created by sbatch --wrap."));
}

#[test]
fn the_job_folder_on_its_node_is_roots_and_only_the_script_the_users() {
    // As slurmd's: the agent's files for the job (its launch, with the
    // job's environment, and the supervisor's record) sit in a folder the
    // job's user may enter but not write in, so the agent may believe
    // them; the script in it is the user's.
    use std::os::unix::fs::MetadataExt;
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let id = c.submit(
        &["-o", "folder.out", "--wrap", "echo \"$0\"; sleep 300"],
        "",
    );
    c.wait_state(id, "RUNNING");
    let folder = c.dir.path().join(format!("spool/n01/job{id:010}"));
    c.wait_for(Duration::from_secs(10), "the script's pid", |_| {
        spur_supervise::script_pid(&folder).is_some()
    });
    // SAFETY: getuid and getgid have no preconditions.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let meta = |name: &str| std::fs::metadata(folder.join(name)).expect("a file in the folder");
    let dir = std::fs::metadata(&folder).expect("the job's folder");
    assert_eq!(
        (dir.uid(), dir.gid(), dir.mode() & 0o777),
        (uid, gid, 0o750)
    );
    assert_eq!(meta(spur_supervise::LAUNCH_FILE).mode() & 0o777, 0o600);
    let script = meta(spur_supervise::SCRIPT_FILE);
    assert_eq!((script.uid(), script.mode() & 0o777), (uid, 0o700));
    let out = c.run("scancel", &[&id.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(id, "CANCELLED");
    let out = std::fs::read_to_string(c.dir.path().join("folder.out")).expect("output");
    let script_path = folder.join(spur_supervise::SCRIPT_FILE);
    assert_eq!(
        out.lines().next(),
        Some(&*script_path.to_string_lossy()),
        "{out}"
    );
}
