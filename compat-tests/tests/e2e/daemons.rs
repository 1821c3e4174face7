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

/// Debian 12's Slurm unit files: the installed ones, else those of the
/// packages fetched (not installed) into `dir`; None where neither can be
/// had.
fn debian_units(dir: &Path) -> Option<std::path::PathBuf> {
    let installed = Path::new("/lib/systemd/system");
    if installed.join("slurmctld.service").exists() {
        return Some(installed.to_path_buf());
    }
    let fetched = Command::new("apt-get")
        .args(["download", "-qq", "slurmctld", "slurmd", "slurmrestd"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !fetched {
        return None;
    }
    let root = dir.join("debs");
    for deb in std::fs::read_dir(dir).ok()?.flatten() {
        if deb.path().extension().is_some_and(|e| e == "deb") {
            let unpacked = Command::new("dpkg-deb")
                .arg("-x")
                .arg(deb.path())
                .arg(&root)
                .status()
                .is_ok_and(|s| s.success());
            if !unpacked {
                return None;
            }
        }
    }
    Some(root.join("lib/systemd/system"))
}

/// The `ExecStart=` of `unit` in `units` (else `recorded`, Debian 12's,
/// saying so), its `$..._OPTIONS` left empty as /etc/default leaves them
/// and each program by its name.
fn exec_start(units: Option<&Path>, unit: &str, recorded: &str) -> Vec<String> {
    let line = units
        .and_then(|u| std::fs::read_to_string(u.join(unit)).ok())
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("ExecStart=").map(str::to_string))
        })
        .unwrap_or_else(|| {
            eprintln!("Debian's {unit} cannot be had here: using its recorded line");
            recorded.to_string()
        });
    line.split_whitespace()
        .filter(|w| !w.starts_with('$'))
        .map(|w| {
            Path::new(w)
                .file_name()
                .filter(|_| w.starts_with('/'))
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
         SlurmctldLogFile={l}/slurmctld.log\nSlurmdLogFile={l}/slurmd.log\n\
         SlurmctldDebug=verbose\nSlurmctldSyslogDebug=error\nSlurmdDebug=info\n",
        d = dir.display(),
        l = logs.display()
    );
    let mut conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    conf.push_str(&extra);
    std::fs::write(&c.conf, &conf).expect("slurm.conf");
    let sbin = dir.join("sbin");
    std::fs::create_dir(&sbin).expect("sbin");
    for name in ["slurmctld", "slurmd", "slurmrestd"] {
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
    let units = debian_units(&dir);
    let ctld_line = exec_start(
        units.as_deref(),
        "slurmctld.service",
        "/usr/sbin/slurmctld -D -s $SLURMCTLD_OPTIONS",
    );
    let slurmd_line = exec_start(
        units.as_deref(),
        "slurmd.service",
        "/usr/sbin/slurmd -D -s $SLURMD_OPTIONS",
    );
    let rest_line = exec_start(
        units.as_deref(),
        "slurmrestd.service",
        "/usr/sbin/slurmrestd $SLURMRESTD_OPTIONS unix:/run/slurmrestd.socket",
    );
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

    // slurmrestd's line, its socket in this test's folder rather than
    // /run: local authentication over the socket, as the unit sets it up.
    let socket = dir.join("slurmrestd.socket");
    let rest_line: Vec<String> = rest_line
        .into_iter()
        .map(|w| match w.strip_prefix("unix:") {
            Some(_) => format!("unix:{}", socket.display()),
            None => w,
        })
        .collect();
    assert_eq!(rest_line[0], "slurmrestd");
    let mut rest = start(rest_line, &[]);
    wait("slurmrestd's socket", || {
        std::os::unix::net::UnixStream::connect(&socket).is_ok()
    });
    let ping = crate::http::request(
        &crate::http::Target::Unix(socket.clone()),
        "GET",
        "/slurm/v0.0.38/ping",
        &[],
        None,
    );
    assert_eq!(ping.status, 200, "{}", ping.body);
    signal(&rest, libc::SIGTERM);
    assert!(rest.wait().expect("reaped").success());

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
    let registered = |n: usize| {
        std::fs::read_to_string(&slurmd_log)
            .is_ok_and(|t| t.matches("registered with the controller").count() >= n)
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !registered(2) {
        assert!(
            Instant::now() < deadline,
            "the agent did not register again:\n{}",
            std::fs::read_to_string(&slurmd_log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
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
