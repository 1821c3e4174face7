//! `spurd dev`, the README's first command: it starts, prints the three
//! export lines, and in a shell with them set a job runs and `man sbatch`
//! shows spur's page.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::harness::bin_dir;

/// Stops the dev cluster when the test ends, however it ends.
pub(crate) struct Dev(std::process::Child);

impl Drop for Dev {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child's pid has no preconditions.
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `spurd dev --nodes N` in `folder`; the lines of its banner, up
/// to "Press Ctrl-C".
pub(crate) fn start(folder: &std::path::Path, nodes: u32) -> (Dev, Vec<String>) {
    let mut child = Command::new(bin_dir().join("spurd"))
        .args(["dev", "--nodes", &nodes.to_string(), "--dir"])
        .arg(folder)
        .env_remove("SLURM_CONF")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spurd dev starts");
    let stdout = child.stdout.take().expect("stdout");
    let dev = Dev(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut banner = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx.recv_timeout(left).expect("spurd dev prints its banner");
        let last = line.starts_with("Press Ctrl-C");
        banner.push(line);
        if last {
            return (dev, banner);
        }
    }
}

#[test]
fn the_dev_cluster_prints_its_exports_runs_a_job_and_serves_man_pages() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("cluster");
    let (dev, banner) = start(&folder, 2);
    let mut exports = Vec::new();
    let mut metrics = None;
    for line in &banner {
        if let Some(export) = line.trim().strip_prefix("export ") {
            let (name, value) = export.split_once('=').expect("NAME=value");
            exports.push((name.to_string(), value.to_string()));
        }
        if let Some(rest) = line.strip_prefix("OpenMetrics at http://") {
            let addr = rest.split_once("/metrics").expect("an address").0;
            metrics = Some(crate::http::Target::Tcp(addr.to_string()));
        }
    }
    // Its controller serves metrics of its nodes, once it listens (the
    // banner comes first; the commands wait for it as this does).
    let metrics = metrics.expect("spurd dev prints where its metrics are");
    let crate::http::Target::Tcp(addr) = &metrics else {
        unreachable!("a TCP address")
    };
    let listening = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < listening, "the controller never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
    let nodes = crate::http::request(&metrics, "GET", "/metrics/nodes", &[], None);
    assert_eq!(nodes.status, 200);
    assert!(nodes.body.contains("\nslurm_nodes 2\n"), "{}", nodes.body);
    let names: Vec<&str> = exports.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["PATH", "SLURM_CONF", "MANPATH"]);
    // What the shell makes of each line ($VAR left empty here).
    let value = |name: &str| -> String {
        let (_, v) = exports.iter().find(|(n, _)| n == name).expect("export");
        let own = std::env::var(name).unwrap_or_default();
        v.replace(&format!("${name}"), &own)
    };
    let shell = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .env("PATH", value("PATH"))
            .env("SLURM_CONF", value("SLURM_CONF"))
            .env("MANPATH", value("MANPATH"))
            .env("MANWIDTH", "100")
            .current_dir(dir.path())
            .output()
            .expect("runs")
    };
    let out = shell("sbatch", &["--parsable", "--wrap", "echo hello from dev"]);
    assert!(out.status.success(), "{out:?}");
    let job = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let done = Instant::now() + Duration::from_secs(30);
    loop {
        let out = shell("squeue", &["-h", "-t", "all", "-j", &job, "-o", "%T"]);
        if String::from_utf8_lossy(&out.stdout).trim() == "COMPLETED" {
            break;
        }
        assert!(Instant::now() < done, "job {job} did not complete: {out:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = std::fs::read_to_string(dir.path().join(format!("slurm-{job}.out"))).expect("log");
    assert_eq!(log, "hello from dev\n");
    // The pages and completions are in the folder whether or not man is
    // installed; with man, `man sbatch` finds spur's page.
    let share = folder.join("share");
    for file in [
        "man/man1/sbatch.1",
        "man/man1/spurd-dev.1",
        "bash-completion/completions/srun",
        "zsh/site-functions/_squeue",
        "fish/vendor_completions.d/sacct.fish",
    ] {
        assert!(share.join(file).is_file(), "{file} not installed");
    }
    if Command::new("man").arg("--version").output().is_ok() {
        let out = shell("man", &["-P", "cat", "sbatch"]);
        assert!(out.status.success(), "{out:?}");
        // man justifies lines: compare with single spaces.
        let page = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(page.contains("SBATCH(1) spur SBATCH(1)"), "{page}");
        assert!(
            page.contains(
                "--mail-type <mail-type> mail on these job events. \
                 Accepted for compatibility; spur does not act on it."
            ),
            "{page}"
        );
    } else {
        eprintln!("man is not installed: only the files were checked");
    }
    drop(dev);
}
