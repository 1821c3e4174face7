//! The cluster under test: its folder, a slurm.conf on a loopback network of
//! its own, the controller, one agent per node and a REST server as
//! separate `spurd` processes (each appending to its own log), and the
//! Slurm commands as links to spurctl (sbatch to its own program). Any
//! thread may kill and restart a daemon.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// How a controller is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arming {
    /// Runs until killed from outside.
    None,
    /// Kills itself inside its n-th commit (rows written, not committed).
    Commit(u32),
    /// Kills itself after its n-th commit, before the answers leave.
    Answer(u32),
}

impl Arming {
    fn failpoints(self) -> Option<String> {
        match self {
            Arming::None => None,
            Arming::Commit(n) => Some(format!("commit:{n}")),
            Arming::Answer(n) => Some(format!("answer:{n}")),
        }
    }
}

/// A running cluster.
pub struct Cluster {
    dir: tempfile::TempDir,
    pub conf: PathBuf,
    spurd: PathBuf,
    /// The Slurm commands, linked to spurctl (sbatch to its own program).
    pub commands: PathBuf,
    controller: Mutex<Option<(Child, Arming)>>,
    agents: Vec<(String, Mutex<Option<Child>>)>,
    rest: Mutex<Option<Child>>,
    /// Where the REST server listens.
    pub rest_addr: String,
}

/// A port nothing listens on at `ip` now.
fn free_port(ip: &str) -> Result<u16> {
    Ok(std::net::TcpListener::bind((ip, 0))?.local_addr()?.port())
}

/// A loopback network of this run's own, `127.a.b.0/24`.
fn own_network() -> String {
    let n = u64::from(std::process::id()).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
    format!("127.{}.{}", 1 + n % 254, (n >> 8) % 256)
}

impl Cluster {
    /// Writes the configuration and starts every daemon.
    pub fn start(bin: &Path, nodes: u32) -> Result<Cluster> {
        let dir = tempfile::Builder::new().prefix("spur-chaos-").tempdir()?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
        let d = dir.path();
        let commands = d.join("bin");
        std::fs::create_dir_all(&commands)?;
        std::fs::create_dir_all(d.join("runs"))?;
        for cmd in ["sbatch", "srun", "squeue", "scancel", "scontrol", "sacct"] {
            let program = bin.join(spur_slurm::program_of(cmd));
            std::os::unix::fs::symlink(program, commands.join(cmd))?;
        }
        let net = own_network();
        let ctld = format!("{net}.1");
        let port = free_port(&ctld)?;
        let jwt = d.join("jwt.key");
        std::fs::write(&jwt, b"an HS256 key for this chaos run only")?;
        std::fs::set_permissions(&jwt, std::fs::Permissions::from_mode(0o600))?;
        let mut conf = format!(
            "ClusterName=chaos\nSlurmctldHost=ctl({ctld})\nSlurmctldPort={port}\n\
             SlurmUser=root\nStateSaveLocation={sd}/state\nSlurmdSpoolDir={sd}/spool/%n\n\
             SlurmdTimeout=300\nMinJobAge=30\nKillWait=2\nMessageTimeout=30\n\
             JobRequeue=0\nMaxJobCount=1000000\n\
             AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={jwt}\n",
            sd = d.display(),
            jwt = jwt.display(),
        );
        for i in 1..=nodes {
            let addr = format!("{net}.{}", i + 1);
            conf.push_str(&format!(
                "NodeName=c{i:02} NodeAddr={addr} Port={} CPUs=8 RealMemory=16000\n",
                free_port(&addr)?
            ));
        }
        conf.push_str(&format!(
            "PartitionName=batch Nodes=c[01-{nodes:02}] Default=YES MaxTime=INFINITE State=UP\n"
        ));
        let conf_path = d.join("slurm.conf");
        std::fs::write(&conf_path, conf)?;
        let key = d.join("spur.key");
        std::fs::write(&key, b"chaos-0123456789abcdef0123456789")?;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))?;
        let rest_addr = format!("127.0.0.1:{}", free_port("127.0.0.1")?);
        let c = Cluster {
            conf: conf_path,
            spurd: bin.join("spurd"),
            commands,
            controller: Mutex::new(None),
            agents: (1..=nodes)
                .map(|i| (format!("c{i:02}"), Mutex::new(None)))
                .collect(),
            rest: Mutex::new(None),
            rest_addr,
            dir,
        };
        c.start_controller(Arming::None)?;
        for i in 0..c.agents.len() {
            c.start_agent(i)?;
        }
        let rest = c.spurd(&["rest", &c.rest_addr.clone()], "rest", None)?;
        *c.rest.lock().expect("not poisoned") = Some(rest);
        c.wait_for(Duration::from_secs(60), "every node registered", || {
            let out = c.run("squeue", &["-h"]).ok();
            let sinfo = c.run("scontrol", &["show", "nodes"]).ok();
            out.is_some_and(|o| o.status.success())
                && sinfo.is_some_and(|o| {
                    let text = String::from_utf8_lossy(&o.stdout);
                    text.matches("State=IDLE").count() == c.agents.len()
                })
        })?;
        Ok(c)
    }

    /// The cluster's folder.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Keeps the folder after the run.
    pub fn keep(&mut self) -> PathBuf {
        self.stop();
        self.dir.disable_cleanup(true);
        self.dir.path().to_path_buf()
    }

    /// Where each job records its runs.
    pub fn runs(&self) -> PathBuf {
        self.dir.path().join("runs")
    }

    /// How many nodes there are.
    pub fn nodes(&self) -> usize {
        self.agents.len()
    }

    fn spurd(&self, args: &[&str], log: &str, failpoints: Option<String>) -> Result<Child> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(format!("{log}.log")))?;
        let mut cmd = Command::new(&self.spurd);
        cmd.args(args)
            .env("SLURM_CONF", &self.conf)
            .env("SPUR_LOG", "info")
            .env_remove("SPUR_FAILPOINTS")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        if let Some(points) = failpoints {
            cmd.env("SPUR_FAILPOINTS", points);
        }
        cmd.spawn()
            .with_context(|| format!("cannot start {}", self.spurd.display()))
    }

    /// Starts the controller (it must not be running).
    pub fn start_controller(&self, arming: Arming) -> Result<()> {
        let child = self.spurd(&["controller"], "controller", arming.failpoints())?;
        *self.controller.lock().expect("not poisoned") = Some((child, arming));
        Ok(())
    }

    /// Kills the controller with SIGKILL; returns how it was armed, or
    /// None if it had already died by itself (a failpoint), and how.
    pub fn kill_controller(&self) -> KillResult {
        kill(&mut self.controller.lock().expect("not poisoned"))
    }

    /// Whether the controller died by itself, how it was armed and how it
    /// ended; it is reaped.
    pub fn controller_died(&self) -> Option<(Arming, ExitStatus)> {
        let mut slot = self.controller.lock().expect("not poisoned");
        let (child, arming) = slot.as_mut()?;
        let arming = *arming;
        match child.try_wait() {
            Ok(Some(status)) => {
                *slot = None;
                Some((arming, status))
            }
            _ => None,
        }
    }

    /// How the running controller is armed (None when none runs).
    pub fn controller_arming(&self) -> Option<Arming> {
        self.controller
            .lock()
            .expect("not poisoned")
            .as_ref()
            .map(|(_, a)| *a)
    }

    /// Starts agent `i`.
    pub fn start_agent(&self, i: usize) -> Result<()> {
        let (name, slot) = &self.agents[i];
        let child = self.spurd(&["agent", "--node", name], &format!("agent-{name}"), None)?;
        *slot.lock().expect("not poisoned") = Some(child);
        Ok(())
    }

    /// Kills agent `i` with SIGKILL.
    pub fn kill_agent(&self, i: usize) {
        let mut slot = self.agents[i].1.lock().expect("not poisoned");
        if let Some(mut child) = slot.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// A daemon that is not running though it should be: its name.
    pub fn dead_daemon(&self) -> Option<String> {
        let gone = |slot: &Mutex<Option<Child>>| {
            slot.lock()
                .expect("not poisoned")
                .as_mut()
                .is_none_or(|c| !matches!(c.try_wait(), Ok(None)))
        };
        if let Some((name, _)) = self.agents.iter().find(|(_, s)| gone(s)) {
            return Some(format!("agent {name}"));
        }
        if gone(&self.rest) {
            return Some("the REST server".into());
        }
        let mut ctl = self.controller.lock().expect("not poisoned");
        let running = ctl
            .as_mut()
            .is_some_and(|(c, _)| matches!(c.try_wait(), Ok(None)));
        (!running).then(|| "the controller".into())
    }

    /// A Slurm command, ready to run.
    pub fn command(&self, cmd: &str, args: &[&str]) -> Command {
        let mut c = Command::new(self.commands.join(cmd));
        c.args(args)
            .env("SLURM_CONF", &self.conf)
            .env_remove("SLURM_JOB_ID")
            .current_dir(self.dir.path())
            .stdin(Stdio::null());
        c
    }

    /// Runs a Slurm command to its end.
    pub fn run(&self, cmd: &str, args: &[&str]) -> std::io::Result<Output> {
        self.command(cmd, args).output()
    }

    /// Waits up to `limit` for `check`.
    pub fn wait_for(&self, limit: Duration, what: &str, check: impl Fn() -> bool) -> Result<()> {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            if check() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        bail!("gave up waiting for {what} after {limit:?}")
    }

    /// Stops every daemon.
    pub fn stop(&self) {
        kill(&mut self.controller.lock().expect("not poisoned"));
        for i in 0..self.agents.len() {
            self.kill_agent(i);
        }
        if let Some(mut rest) = self.rest.lock().expect("not poisoned").take() {
            let _ = rest.kill();
            let _ = rest.wait();
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What killing the controller found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillResult {
    /// It ran, and was killed.
    Killed(Arming),
    /// It had died by itself and was reaped.
    AlreadyDead(Arming, ExitStatus),
    /// None was running.
    NoneRunning,
}

fn kill(slot: &mut Option<(Child, Arming)>) -> KillResult {
    let Some((mut child, arming)) = slot.take() else {
        return KillResult::NoneRunning;
    };
    if let Ok(Some(status)) = child.try_wait() {
        return KillResult::AlreadyDead(arming, status);
    }
    let _ = child.kill();
    let _ = child.wait();
    KillResult::Killed(arming)
}
