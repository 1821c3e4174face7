//! spurd under Slurm's daemon names, started as Debian's unit files start
//! Slurm's (`slurmctld -D -s`, `slurmd -D -s`): they run a job, keep their
//! pid files and log files where slurm.conf says, reopen the log on
//! SIGUSR2, the controller rereads slurm.conf on SIGHUP, and both stop
//! cleanly on SIGTERM; `slurmd -C` and `-V` answer as Slurm's.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{bin_dir, Cluster, Options};
use crate::text;

/// Debian 12's `ExecStart=` of `unit` (its installed file, when the
/// package is installed), with its `$..._OPTIONS` left empty, as
/// /etc/default leaves them.
fn exec_start(unit: &str, recorded: &str) -> Vec<String> {
    let line = std::fs::read_to_string(format!("/lib/systemd/system/{unit}"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("ExecStart=").map(str::to_string))
        })
        .unwrap_or_else(|| {
            eprintln!("{unit} is not installed: using Debian 12's recorded line");
            recorded.to_string()
        });
    line.split_whitespace()
        .filter(|w| !w.starts_with('$'))
        .map(|w| {
            Path::new(w)
                .file_name()
                .map_or(w.to_string(), |n| n.to_string_lossy().into_owned())
        })
        .collect()
}

/// Waits for `check`, failing with `what` after 20 s.
fn wait(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
}

fn pid_in(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[test]
fn debians_command_lines_run_spur_with_slurms_files_and_signals() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    // The harness's daemons give way to the same ones under Slurm's names.
    c.kill_controller();
    c.kill_agent(0);
    let dir = c.dir.path().to_path_buf();
    let logs = dir.join("log");
    std::fs::create_dir(&logs).expect("log folder");
    let extra = format!(
        "SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
         SlurmctldLogFile={l}/slurmctld.log\nSlurmdLogFile={l}/slurmd.log\n",
        d = dir.display(),
        l = logs.display()
    );
    let mut conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    conf.push_str(&extra);
    std::fs::write(&c.conf, &conf).expect("slurm.conf");
    let sbin = dir.join("sbin");
    std::fs::create_dir(&sbin).expect("sbin");
    for name in ["slurmctld", "slurmd"] {
        std::os::unix::fs::symlink(bin_dir().join("spurd"), sbin.join(name)).expect("link");
    }
    let start = |argv: Vec<String>, extra: &[&str]| -> Child {
        Command::new(sbin.join(&argv[0]))
            .args(&argv[1..])
            .args(extra)
            .env("SLURM_CONF", &c.conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts")
    };
    let ctld_line = exec_start(
        "slurmctld.service",
        "/usr/sbin/slurmctld -D -s $SLURMCTLD_OPTIONS",
    );
    let slurmd_line = exec_start("slurmd.service", "/usr/sbin/slurmd -D -s $SLURMD_OPTIONS");
    assert_eq!(ctld_line, ["slurmctld", "-D", "-s"]);
    let mut ctld = start(ctld_line, &[]);
    // The node's name, as /etc/default/slurmd would add it.
    let mut slurmd = start(slurmd_line, &["-N", "n01"]);
    wait("the node registered", || {
        let out = text(
            &c.run("sinfo", &["-h", "-N", "-p", "batch", "-o", "%t"])
                .stdout,
        );
        out.trim() == "idle"
    });
    let job = c.submit(&["--wrap", "true"], "");
    c.wait_state(job, "COMPLETED");

    // Pid files and log files where slurm.conf says.
    assert_eq!(pid_in(&dir.join("slurmctld.pid")), Some(ctld.id()));
    assert_eq!(pid_in(&dir.join("slurmd.pid")), Some(slurmd.id()));
    let ctld_log = logs.join("slurmctld.log");
    let first = std::fs::read_to_string(&ctld_log).expect("the controller's log");
    assert!(first.contains("controller ready"), "{first}");
    assert!(std::fs::read_to_string(logs.join("slurmd.log"))
        .expect("the agent's log")
        .contains("registered with the controller"));

    // logrotate moves the log away and sends SIGUSR2: a new one starts.
    std::fs::rename(&ctld_log, logs.join("slurmctld.log.1")).expect("moves");
    signal(&ctld, libc::SIGUSR2);
    wait("a new log file", || {
        std::fs::read_to_string(&ctld_log).is_ok_and(|t| t.contains("log file reopened"))
    });

    // SIGHUP rereads slurm.conf, as `systemctl reload slurmctld` asks.
    conf.push_str("PartitionName=extra Nodes=n01 State=UP\n");
    std::fs::write(&c.conf, &conf).expect("slurm.conf");
    signal(&ctld, libc::SIGHUP);
    wait("the new partition", || {
        text(&c.run("sinfo", &["-h", "-o", "%P"]).stdout).contains("extra")
    });

    // slurmd starts its agent anew on SIGHUP, with slurm.conf reread;
    // jobs run as before.
    signal(&slurmd, libc::SIGHUP);
    let slurmd_log = logs.join("slurmd.log");
    wait("the agent registered again", || {
        std::fs::read_to_string(&slurmd_log)
            .is_ok_and(|t| t.matches("registered with the controller").count() >= 2)
    });
    let job = c.submit(&["--wrap", "true"], "");
    c.wait_state(job, "COMPLETED");

    // SIGTERM stops both cleanly, their pid files gone.
    signal(&slurmd, libc::SIGTERM);
    signal(&ctld, libc::SIGTERM);
    assert!(slurmd.wait().expect("reaped").success());
    assert!(ctld.wait().expect("reaped").success());
    assert!(!dir.join("slurmctld.pid").exists());
    assert!(!dir.join("slurmd.pid").exists());

    // What a site asks of slurmd before it writes slurm.conf.
    let out = Command::new(sbin.join("slurmd"))
        .arg("-C")
        .output()
        .expect("runs");
    let config = text(&out.stdout);
    let host = text(
        &Command::new("hostname")
            .arg("-s")
            .output()
            .expect("hostname")
            .stdout,
    );
    assert!(
        config.starts_with(&format!("NodeName={} CPUs=", host.trim())),
        "{config}"
    );
    assert!(config
        .lines()
        .nth(1)
        .is_some_and(|l| l.starts_with("UpTime=")));
    let version = Command::new(sbin.join("slurmctld"))
        .arg("-V")
        .output()
        .expect("runs");
    assert_eq!(text(&version.stdout), "slurm 22.05.8\n");
    let bad = Command::new(sbin.join("slurmd"))
        .arg("-x")
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).starts_with("slurmd: invalid option -- 'x'\nUsage: slurmd"));
}
