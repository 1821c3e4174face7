//! spurd under Slurm's daemon names: `slurmctld` runs the controller and
//! `slurmd` a node's agent, with the command lines sites and Debian's unit
//! files use (`slurmctld -D -s`, `slurmd -D -s -N n01`, `slurmd -C`, `-V`,
//! `-f FILE`, `-L FILE`, `-v`...). As Slurm's daemons they go to the
//! background unless told `-D`, write their pid to SlurmctldPidFile or
//! SlurmdPidFile, log to SlurmctldLogFile or SlurmdLogFile (or `-L`) at
//! SlurmctldDebug or SlurmdDebug, and to syslog at *SyslogDebug,
//! reopen that file on SIGUSR2, reread slurm.conf on SIGHUP, and stop
//! cleanly on SIGTERM. A flag spur does not act on
//! is accepted with one warning.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{ArgAction, Parser};
use tracing::{info, warn};

use spur_conf::{ConfFile, SlurmConf};

use crate::agent::GpuDiscovery;

/// `slurmctld`'s command line (Slurm 22.05's `cdDf:hiL:n:rRsvV`).
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "slurmctld",
    disable_help_flag = true,
    disable_version_flag = true
)]
pub struct SlurmctldArgs {
    /// Start with no job state (spur always recovers its state: warned).
    #[arg(short = 'c')]
    pub clear: bool,
    /// Run in the background (the default).
    #[arg(short = 'd')]
    pub daemonize: bool,
    /// Run in the foreground, logging to stderr too.
    #[arg(short = 'D')]
    pub foreground: bool,
    /// slurm.conf.
    #[arg(short = 'f', value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Print the usage and exit.
    #[arg(short = 'h')]
    pub help: bool,
    /// Ignore errors in the saved state (spur's state is checked, not
    /// skipped: warned).
    #[arg(short = 'i')]
    pub ignore_state_errors: bool,
    /// Log to FILE.
    #[arg(short = 'L', value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Run at this nice value.
    #[arg(short = 'n', value_name = "NICE", allow_hyphen_values = true)]
    pub nice: Option<String>,
    /// Recover only part of the state (spur recovers all of it: warned).
    #[arg(short = 'r')]
    pub recover_partly: bool,
    /// Recover the full state (what spur always does).
    #[arg(short = 'R')]
    pub recover: bool,
    /// Work in the log file's folder, else StateSaveLocation, else /tmp.
    #[arg(short = 's')]
    pub setwd: bool,
    /// More detail in the log (repeatable).
    #[arg(short = 'v', action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version and exit.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
}

/// `slurmd`'s command line (Slurm 22.05's `bcCd:Df:F::GhL:Mn:N:svVZ`).
#[derive(Debug, Clone, Default, Parser)]
#[command(name = "slurmd", disable_help_flag = true, disable_version_flag = true)]
pub struct SlurmdArgs {
    /// Report the node's boot time to the controller (warned: it always
    /// does).
    #[arg(short = 'b')]
    pub boot_time: bool,
    /// Clear the node's job state (spur's jobs outlive the agent: warned).
    #[arg(short = 'c')]
    pub clean_start: bool,
    /// Print this node's hardware as a slurm.conf line and exit.
    #[arg(short = 'C')]
    pub print_config: bool,
    /// slurmstepd's path (spur's step process is spurd's own: warned).
    #[arg(short = 'd', value_name = "PATH")]
    pub stepd: Option<PathBuf>,
    /// Run in the foreground, logging to stderr too.
    #[arg(short = 'D')]
    pub foreground: bool,
    /// slurm.conf.
    #[arg(short = 'f', value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Register as a dynamic future node (not supported: warned).
    #[arg(short = 'F', value_name = "FEATURE", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub future: Option<String>,
    /// Print the GPUs this node finds and exit.
    #[arg(short = 'G')]
    pub print_gres: bool,
    /// Print the usage and exit.
    #[arg(short = 'h')]
    pub help: bool,
    /// Log to FILE.
    #[arg(short = 'L', value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Lock the daemon's memory in RAM.
    #[arg(short = 'M')]
    pub mlock: bool,
    /// Run at this nice value.
    #[arg(short = 'n', value_name = "NICE", allow_hyphen_values = true)]
    pub nice: Option<String>,
    /// The NodeName to serve (default: the short host name).
    #[arg(short = 'N', value_name = "NODENAME")]
    pub node: Option<String>,
    /// Work in the log file's folder, else SlurmdSpoolDir, else /tmp.
    #[arg(short = 's')]
    pub setwd: bool,
    /// More detail in the log (repeatable).
    #[arg(short = 'v', action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version and exit.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// Register as a dynamic node (not supported: warned).
    #[arg(short = 'Z')]
    pub dynamic: bool,
    /// A dynamic node's configuration (not supported: warned).
    #[arg(long = "conf", value_name = "NODE_PARAMETERS")]
    pub conf: Option<String>,
    /// Fetch slurm.conf from these controllers (configless; not
    /// supported: warned).
    #[arg(long = "conf-server", value_name = "HOST[:PORT]")]
    pub conf_server: Option<String>,
}

/// The command lines under the daemon names, as their man pages show them.
pub(crate) fn commands() -> [clap::Command; 2] {
    use clap::CommandFactory;
    [
        SlurmctldArgs::command().about("spur's controller under Slurm's name and command line"),
        SlurmdArgs::command().about("spur's node agent under Slurm's name and command line"),
    ]
}

/// Which daemon, and what its command line asks.
#[derive(Debug, Clone)]
enum Daemon {
    Ctld(SlurmctldArgs),
    Slurmd(SlurmdArgs),
}

/// How the daemon runs, from its command line and slurm.conf.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Plan {
    conf: PathBuf,
    foreground: bool,
    log_file: Option<PathBuf>,
    pid_file: PathBuf,
    /// The folder `-s` moves to.
    workdir: Option<PathBuf>,
    /// The log file's and stderr's level: SlurmctldDebug or SlurmdDebug
    /// raised by each `-v`.
    level: &'static str,
    /// syslog's level (None: no syslog): SlurmctldSyslogDebug or
    /// SlurmdSyslogDebug, else the log's level when the daemon runs in the
    /// background with no log file.
    syslog: Option<tracing_subscriber::filter::LevelFilter>,
    nice: Option<i32>,
    mlock: bool,
}

const CTLD_USAGE: &str = "\
Usage: slurmctld [OPTIONS]
  -c         Do not recover state (not acted on: spur always recovers).
  -d         Run in the background (the default).
  -D         Run in the foreground, with logging copied to stderr.
  -f file    Use this slurm.conf.
  -h         Print this help message.
  -i         Ignore errors found in the state (not acted on).
  -L logfile Log to this file.
  -n value   Run at this nice value.
  -r         Recover part of the state (not acted on: spur recovers all).
  -R         Recover the full state (what spur does).
  -s         Work in the log file's folder, else StateSaveLocation.
  -v         More detail in the log (repeatable).
  -V         Print the version and exit.
";

const SLURMD_USAGE: &str = "\
Usage: slurmd [OPTIONS]
  -b             Report the node's boot time (it always is).
  -c             Clear the node's job state (not acted on).
  -C             Print this node's hardware as a slurm.conf line and exit.
  -d stepd       slurmstepd's path (not acted on).
  -D             Run in the foreground, with logging copied to stderr.
  -f file        Use this slurm.conf.
  -F[feature]    Be a dynamic future node (not supported).
  -G             Print the GPUs this node finds and exit.
  -h             Print this help message.
  -L logfile     Log to this file.
  -M             Lock the daemon's memory in RAM.
  -n value       Run at this nice value.
  -N nodename    Serve this NodeName (default: the short host name).
  -s             Work in the log file's folder, else SlurmdSpoolDir.
  -v             More detail in the log (repeatable).
  -V             Print the version and exit.
  -Z             Be a dynamic node (not supported).
";

/// Runs spurd as `slurmctld` or `slurmd` when that is its name; None for
/// any other name.
pub fn run_if_named() -> Option<ExitCode> {
    let argv0 = std::env::args_os().next().unwrap_or_default();
    let name = Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let daemon = match name.as_str() {
        "slurmctld" => match SlurmctldArgs::try_parse() {
            Ok(a) => Daemon::Ctld(a),
            Err(e) => return Some(bad_usage("slurmctld", &e, CTLD_USAGE)),
        },
        "slurmd" => match SlurmdArgs::try_parse() {
            Ok(a) => Daemon::Slurmd(a),
            Err(e) => return Some(bad_usage("slurmd", &e, SLURMD_USAGE)),
        },
        _ => return None,
    };
    Some(run(daemon))
}

/// An option getopt would refuse: its complaint (getopt's words for an
/// unknown option) and the usage, exit 1.
fn bad_usage(name: &str, e: &clap::Error, usage: &str) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    match e.kind() {
        ErrorKind::UnknownArgument if !arg.starts_with("--") && arg.starts_with('-') => {
            let c = arg.trim_start_matches('-').chars().next().unwrap_or('?');
            eprintln!("{name}: invalid option -- '{c}'");
        }
        ErrorKind::UnknownArgument => eprintln!("{name}: unrecognized option '{arg}'"),
        _ => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            eprintln!("{name}: {}", first.trim_start_matches("error: "));
        }
    }
    eprint!("{usage}");
    ExitCode::from(1)
}

fn run(daemon: Daemon) -> ExitCode {
    match &daemon {
        Daemon::Ctld(a) if a.help => {
            eprint!("{CTLD_USAGE}");
            return ExitCode::SUCCESS;
        }
        Daemon::Slurmd(a) if a.help => {
            eprint!("{SLURMD_USAGE}");
            return ExitCode::SUCCESS;
        }
        Daemon::Ctld(SlurmctldArgs { version: true, .. })
        | Daemon::Slurmd(SlurmdArgs { version: true, .. }) => {
            println!("slurm {}", spur_proto::SLURM_COMPAT_VERSION);
            return ExitCode::SUCCESS;
        }
        Daemon::Slurmd(a) if a.print_config => {
            print!("{}", node_config_lines(&spur_sys::short_hostname()));
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    match start(daemon) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("spurd: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `slurmd -C`: this node as a slurm.conf line (with the GPUs NVML finds,
/// as Slurm 23.02 and later print them), then its uptime.
fn node_config_lines(host: &str) -> String {
    let hw = spur_sys::hardware::Hardware::detect();
    let gres = crate::agent::nvml::NvmlGpus::load()
        .ok()
        .map(|found| gres_text(&found.discover()))
        .filter(|g| !g.is_empty());
    let up = spur_sys::hardware::uptime_secs();
    format!(
        "NodeName={host} CPUs={} Boards={} SocketsPerBoard={} CoresPerSocket={} \
         ThreadsPerCore={} RealMemory={}{}\nUpTime={}-{:02}:{:02}:{:02}\n",
        hw.cpus,
        hw.boards,
        hw.sockets / hw.boards.max(1),
        hw.cores_per_socket,
        hw.threads_per_core,
        hw.real_memory_mb,
        gres.map(|g| format!(" Gres={g}")).unwrap_or_default(),
        up / 86_400,
        up / 3600 % 24,
        up / 60 % 60,
        up % 60
    )
}

/// GPUs as slurm.conf's Gres= counts them: `gpu:h200:4`, a type at a time.
fn gres_text(gpus: &[(u32, Option<String>)]) -> String {
    let mut by_type: Vec<(Option<&str>, u32)> = Vec::new();
    for (_, t) in gpus {
        match by_type.iter_mut().find(|(k, _)| *k == t.as_deref()) {
            Some((_, n)) => *n += 1,
            None => by_type.push((t.as_deref(), 1)),
        }
    }
    by_type
        .into_iter()
        .map(|(t, n)| match t {
            Some(t) => format!("gpu:{t}:{n}"),
            None => format!("gpu:{n}"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The conf path: `-f`, else SLURM_CONF, else Slurm's default.
fn conf_path(file: &Option<PathBuf>) -> PathBuf {
    file.clone()
        .or_else(|| std::env::var_os("SLURM_CONF").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(spur_conf::slurm_conf::DEFAULT_SLURM_CONF))
}

/// The flags given that spur does not act on, with why.
fn not_acted(daemon: &Daemon) -> Vec<&'static str> {
    let mut out = Vec::new();
    match daemon {
        Daemon::Ctld(a) => {
            if a.clear {
                out.push("-c: spur always recovers its state; nothing is cleared");
            }
            if a.ignore_state_errors {
                out.push("-i: the state is checked at start and a damaged one is refused");
            }
            if a.recover_partly {
                out.push("-r: spur recovers its whole state");
            }
        }
        Daemon::Slurmd(a) => {
            if a.boot_time {
                out.push("-b: the agent reports the boot time whenever it registers");
            }
            if a.clean_start {
                out.push("-c: jobs outlive the agent and are reported, not cleared");
            }
            if a.stepd.is_some() {
                out.push("-d: steps run under spurd's own step process");
            }
            if a.future.is_some() || a.dynamic || a.conf.is_some() {
                out.push("-F, -Z, --conf: dynamic nodes are not supported; the node must be in slurm.conf");
            }
            if a.conf_server.is_some() {
                out.push(
                    "--conf-server: configless mode is not supported; slurm.conf is read from disk",
                );
            }
        }
    }
    out
}

/// How `daemon` runs with slurm.conf `conf`.
fn plan(daemon: &Daemon, conf: &SlurmConf, conf_path: PathBuf) -> Plan {
    let (foreground, log_flag, verbose, setwd, nice, mlock) = match daemon {
        Daemon::Ctld(a) => (
            a.foreground,
            &a.log_file,
            a.verbose,
            a.setwd,
            &a.nice,
            false,
        ),
        Daemon::Slurmd(a) => (
            a.foreground,
            &a.log_file,
            a.verbose,
            a.setwd,
            &a.nice,
            a.mlock,
        ),
    };
    let (log_key, pid_key, pid_default) = match daemon {
        Daemon::Ctld(_) => ("slurmctldlogfile", "slurmctldpidfile", "/run/slurmctld.pid"),
        Daemon::Slurmd(_) => ("slurmdlogfile", "slurmdpidfile", "/run/slurmd.pid"),
    };
    let (debug_key, syslog_key) = match daemon {
        Daemon::Ctld(_) => ("slurmctlddebug", "slurmctldsyslogdebug"),
        Daemon::Slurmd(_) => ("slurmddebug", "slurmdsyslogdebug"),
    };
    let level_of = |key: &str| -> Option<u8> {
        let text = conf.other.get(key)?;
        let level = crate::logging::slurm_level(text);
        if level.is_none() {
            eprintln!("spurd: warning: {key}={text} is no Slurm log level; using info");
        }
        level
    };
    // Slurm's info, raised by each -v.
    let index = level_of(debug_key)
        .unwrap_or(3)
        .saturating_add(verbose)
        .min(9);
    let node = match daemon {
        Daemon::Slurmd(a) => a.node.clone().unwrap_or_else(spur_sys::short_hostname),
        Daemon::Ctld(_) => String::new(),
    };
    // slurmd's files in slurm.conf name their node with %n and %h, so that
    // several slurmd on one host (`-N`) each get their own; a path given
    // on the command line is taken as it is.
    let conf_path_of = |key: &str| {
        let path = conf.other.get(key).filter(|v| !v.is_empty())?;
        Some(PathBuf::from(match (daemon, conf.node(&node)) {
            (Daemon::Slurmd(_), Some(n)) => n.slurmd_path(path),
            _ => path.clone(),
        }))
    };
    let log_file = log_flag.clone().or_else(|| conf_path_of(log_key));
    // -s: the log file's folder, else where the daemon keeps its state.
    let workdir = setwd.then(|| {
        let state = match daemon {
            Daemon::Ctld(_) => conf.state_save_location.clone(),
            Daemon::Slurmd(_) => conf.node(&node).map_or_else(
                || conf.slurmd_spool_dir.clone(),
                |n| n.slurmd_path(&conf.slurmd_spool_dir),
            ),
        };
        log_file
            .as_ref()
            .and_then(|l| l.parent().map(Path::to_path_buf))
            .filter(|d| d.is_dir())
            .or_else(|| Some(PathBuf::from(state)).filter(|d| d.is_dir()))
            .unwrap_or_else(|| PathBuf::from("/tmp"))
    });
    let nice = match nice {
        None => None,
        Some(text) => match text.parse::<i32>() {
            Ok(n) => Some(n),
            Err(_) => {
                eprintln!("error: Invalid option for -n option (nice value), ignored");
                None
            }
        },
    };
    let syslog = match level_of(syslog_key) {
        Some(0) => None,
        Some(i) => Some(crate::logging::level_filter(i)),
        // Nowhere else to log: syslog, as Slurm's daemons do.
        None if log_file.is_none() && !foreground => Some(crate::logging::level_filter(index)),
        None => None,
    };
    Plan {
        conf: conf_path,
        foreground,
        log_file,
        pid_file: conf_path_of(pid_key).unwrap_or_else(|| PathBuf::from(pid_default)),
        workdir,
        level: match crate::logging::level_filter(index) {
            f if f == tracing_subscriber::filter::LevelFilter::OFF => "off",
            f if f == tracing_subscriber::filter::LevelFilter::ERROR => "error",
            f if f == tracing_subscriber::filter::LevelFilter::INFO => "info",
            f if f == tracing_subscriber::filter::LevelFilter::DEBUG => "debug",
            _ => "trace",
        },
        syslog,
        nice,
        mlock,
    }
}

/// Reads slurm.conf, goes to the background unless `-D`, and runs.
fn start(daemon: Daemon) -> Result<ExitCode> {
    let file = match &daemon {
        Daemon::Ctld(a) => &a.file,
        Daemon::Slurmd(a) => &a.file,
    };
    let conf_file = conf_path(file);
    let parsed = SlurmConf::load(&conf_file)
        .with_context(|| format!("while reading {}", conf_file.display()))?;
    let plan = plan(&daemon, &parsed.value, conf_file);
    if let Daemon::Slurmd(a) = &daemon {
        if a.print_gres {
            return print_gres(&plan.conf, a.node.clone());
        }
    }
    if !plan.foreground {
        // SAFETY: no thread has started yet; daemon(3) forks and the
        // parent exits.
        if unsafe { libc::daemon(1, 0) } != 0 {
            return Err(std::io::Error::last_os_error()).context("while going to the background");
        }
    }
    if let Some(dir) = &plan.workdir {
        if let Err(e) = std::env::set_current_dir(dir) {
            eprintln!("spurd: warning: cannot work in {}: {e}", dir.display());
        }
    }
    if let Some(nice) = plan.nice {
        // SAFETY: setpriority on this process has no memory preconditions.
        if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) } != 0 {
            eprintln!(
                "spurd: warning: cannot set the nice value {nice}: {}",
                std::io::Error::last_os_error()
            );
        }
    }
    if plan.mlock {
        // SAFETY: mlockall has no memory preconditions.
        if unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) } != 0 {
            eprintln!(
                "spurd: warning: cannot lock memory: {}",
                std::io::Error::last_os_error()
            );
        }
    }
    let ident = match &daemon {
        Daemon::Ctld(_) => "slurmctld",
        Daemon::Slurmd(_) => "slurmd",
    };
    let log = crate::logging::init(crate::logging::LogSpec {
        level: plan.level,
        file: plan.log_file.as_deref(),
        stderr: plan.foreground,
        syslog: plan.syslog.map(|level| (ident, level)),
    })
    .with_context(|| match &plan.log_file {
        Some(p) => format!("while opening the log file {}", p.display()),
        None => "while starting the log".to_string(),
    })?;
    for warning in &parsed.warnings {
        warn!(%warning, "slurm.conf");
    }
    for flag in not_acted(&daemon) {
        warn!("not acted on: {flag}");
    }
    let pid = PidFile::write(&plan.pid_file);
    let runtime = match &daemon {
        Daemon::Ctld(_) => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
        Daemon::Slurmd(_) => crate::agent::runtime(),
    }
    .context("while starting the runtime")?;
    let key_file = crate::key_file(&plan.conf, spur_key_file());
    let result = runtime.block_on(async move {
        if let Some(log) = log {
            tokio::spawn(reopen_on_usr2(log));
        }
        match daemon {
            Daemon::Ctld(_) => {
                let site = crate::controller::Site::load(&plan.conf, &key_file)?;
                crate::controller::run(site, crate::shutdown_signal()).await
            }
            Daemon::Slurmd(a) => agent_rereading_on_hangup(&plan.conf, &key_file, a.node).await,
        }
    });
    drop(pid);
    result.map(|()| ExitCode::SUCCESS)
}

/// SPUR_KEY_FILE, where the cluster key is not beside slurm.conf.
fn spur_key_file() -> Option<PathBuf> {
    std::env::var_os("SPUR_KEY_FILE").map(PathBuf::from)
}

/// `slurmd -G`: the GPUs the node's agent would report, one line each.
fn print_gres(conf: &Path, node: Option<String>) -> Result<ExitCode> {
    let key_file = crate::key_file(conf, spur_key_file());
    let node = node.unwrap_or_else(spur_sys::short_hostname);
    let settings = crate::agent::Settings::load(conf, &key_file, Some(node))?;
    let nvml = crate::agent::nvml::NvmlGpus::load().ok();
    for (index, type_name) in settings.gpus.discover() {
        let file = nvml
            .as_ref()
            .and_then(|n| n.gpus().iter().find(|g| g.index == index))
            .map(|g| format!(" File={}", g.device_file()))
            .unwrap_or_default();
        let kind = type_name.map(|t| format!(" Type={t}")).unwrap_or_default();
        println!("slurmd: Gres Name=gpu{kind} Count=1 Index={index}{file}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The daemon's pid in its pid file while it runs (a failure to write it
/// is logged, as slurmctld logs it, and the daemon runs on).
struct PidFile(Option<PathBuf>);

impl PidFile {
    fn write(path: &Path) -> PidFile {
        match std::fs::write(path, format!("{}\n", std::process::id())) {
            Ok(()) => PidFile(Some(path.to_path_buf())),
            Err(e) => {
                warn!(path = %path.display(), error = %e, "cannot write the pid file");
                PidFile(None)
            }
        }
    }
}

impl Drop for PidFile {
    fn drop(&mut self) {
        if let Some(path) = &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Reopens the log file on each SIGUSR2 (logrotate's postrotate).
async fn reopen_on_usr2(log: crate::logging::LogFile) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut usr2) = signal(SignalKind::user_defined2()) else {
        return;
    };
    while usr2.recv().await.is_some() {
        match log.reopen() {
            Ok(()) => info!(path = %log.path().display(), "log file reopened"),
            Err(e) => warn!(path = %log.path().display(), error = %e, "cannot reopen the log file"),
        }
    }
}

/// The node's agent, started anew with slurm.conf and gres.conf reread on
/// each SIGHUP, as slurmd reconfigures (its jobs run on: they outlive the
/// agent), until SIGTERM or SIGINT.
async fn agent_rereading_on_hangup(
    conf: &Path,
    key_file: &Path,
    node: Option<String>,
) -> Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut hup = signal(SignalKind::hangup()).context("while catching SIGHUP")?;
    let stop = crate::shutdown_signal();
    tokio::pin!(stop);
    let mut settings = crate::agent::Settings::load(conf, key_file, node.clone())?;
    loop {
        let (again, rerun) = tokio::sync::oneshot::channel::<()>();
        let agent = crate::agent::run(settings, async move {
            let _ = rerun.await;
        });
        tokio::pin!(agent);
        // The next configuration; a bad one leaves the agent running as
        // it was.
        let next = loop {
            tokio::select! {
                done = &mut agent => return done,
                () = &mut stop => {
                    let _ = again.send(());
                    return agent.await;
                }
                _ = hup.recv() => {
                    info!("SIGHUP: rereading slurm.conf");
                    match crate::agent::Settings::load(conf, key_file, node.clone()) {
                        Ok(fresh) => break fresh,
                        Err(e) => warn!(
                            error = %format!("{e:#}"),
                            "SIGHUP: slurm.conf not taken; the agent runs on as it was"
                        ),
                    }
                }
            }
        };
        let _ = again.send(());
        agent.await?;
        settings = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(text: &str) -> SlurmConf {
        SlurmConf::parse(text, Path::new("slurm.conf"))
            .expect("parses")
            .value
    }

    #[test]
    fn debians_command_lines_parse_and_plan_as_slurm_reads_them() {
        let ctld = SlurmctldArgs::try_parse_from(["slurmctld", "-D", "-s", "-vv"]).expect("parses");
        assert!(ctld.foreground && ctld.setwd);
        assert_eq!(ctld.verbose, 2);
        let dir = tempfile::tempdir().expect("temp dir");
        let text = format!(
            "ClusterName=c\nSlurmctldHost=h\nStateSaveLocation={}\nSlurmctldLogFile={}/ctld.log\n\
             SlurmctldPidFile={}/ctld.pid\nSlurmdSpoolDir=/nonexistent/spool\nNodeName=n01 CPUs=1\nPartitionName=p Nodes=n01\n",
            dir.path().display(),
            dir.path().display(),
            dir.path().display()
        );
        let p = plan(&Daemon::Ctld(ctld), &conf(&text), "slurm.conf".into());
        assert!(p.foreground);
        assert_eq!(p.level, "debug", "info raised twice: debug");
        assert_eq!(p.syslog, None);
        assert_eq!(p.log_file, Some(dir.path().join("ctld.log")));
        assert_eq!(p.pid_file, dir.path().join("ctld.pid"));
        assert_eq!(
            p.workdir.as_deref(),
            Some(dir.path()),
            "-s: the log's folder"
        );

        let slurmd = SlurmdArgs::try_parse_from([
            "slurmd",
            "-D",
            "-s",
            "-N",
            "n01",
            "-L",
            "/nonexistent/x.log",
        ])
        .expect("parses");
        let p = plan(
            &Daemon::Slurmd(slurmd.clone()),
            &conf(&text),
            "slurm.conf".into(),
        );
        assert_eq!(
            p.pid_file,
            PathBuf::from("/run/slurmd.pid"),
            "Slurm's default"
        );
        assert_eq!(
            p.workdir,
            Some(PathBuf::from("/tmp")),
            "neither the log's folder nor the spool"
        );
        assert!(not_acted(&Daemon::Slurmd(slurmd)).is_empty());
        let odd = SlurmdArgs::try_parse_from(["slurmd", "-Z", "-F", "-c"]).expect("parses");
        assert_eq!(odd.future.as_deref(), Some(""));
        assert_eq!(not_acted(&Daemon::Slurmd(odd)).len(), 2);
        assert!(SlurmctldArgs::try_parse_from(["slurmctld", "-x"]).is_err());
    }

    #[test]
    fn several_slurmd_on_one_host_get_their_own_files_from_percent_n() {
        // The layout of bench/swap's Slurm anchor: one slurmd per NodeName
        // on 127.0.0.1, each with `-N`.
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path().display();
        let text = format!(
            "ClusterName=c\nSlurmctldHost=h(127.0.0.1)\nSlurmctldPidFile={d}/slurmctld.pid\n\
             SlurmdPidFile={d}/slurmd-%n.pid\nSlurmdLogFile={d}/slurmd-%n.log\n\
             SlurmdSpoolDir={d}/%n\nNodeName=gb[001-002] NodeAddr=127.0.0.1 Port=[17001-17002]\n\
             PartitionName=p Nodes=gb[001-002]\n"
        );
        let slurmd = |args: &[&str]| {
            let a = SlurmdArgs::try_parse_from(args).expect("parses");
            plan(&Daemon::Slurmd(a), &conf(&text), "slurm.conf".into())
        };
        let p = slurmd(&["slurmd", "-N", "gb002", "-s"]);
        assert_eq!(p.pid_file, dir.path().join("slurmd-gb002.pid"));
        assert_eq!(p.log_file, Some(dir.path().join("slurmd-gb002.log")));
        assert_eq!(
            p.workdir,
            Some(dir.path().to_path_buf()),
            "the log's folder"
        );
        let p = slurmd(&["slurmd", "-N", "gb001", "-L", "/x/%n.log"]);
        assert_eq!(p.pid_file, dir.path().join("slurmd-gb001.pid"));
        assert_eq!(
            p.log_file,
            Some(PathBuf::from("/x/%n.log")),
            "-L is taken as given"
        );
        let ctld = SlurmctldArgs::try_parse_from(["slurmctld"]).expect("parses");
        let p = plan(&Daemon::Ctld(ctld), &conf(&text), "slurm.conf".into());
        assert_eq!(p.pid_file, dir.path().join("slurmctld.pid"));
    }

    #[test]
    fn the_daemon_names_have_man_pages_of_every_option() {
        for cmd in commands() {
            let pages = spur_man::pages(&cmd).expect("renders");
            let text = spur_man::plain(&pages[0].bytes);
            let missing = spur_man::missing_options(&cmd, &text);
            assert!(missing.is_empty(), "{}: {missing:?}", cmd.get_name());
        }
    }

    #[test]
    fn gpus_count_by_type_as_gres_says() {
        let h200 = Some("h200".to_string());
        assert_eq!(
            gres_text(&[(0, h200.clone()), (1, h200), (2, None)]),
            "gpu:h200:2,gpu:1"
        );
        assert_eq!(gres_text(&[]), "");
    }

    #[test]
    fn the_config_line_names_the_host_and_its_hardware() {
        let text = node_config_lines("gb001");
        let mut lines = text.lines();
        let first = lines.next().expect("a line");
        assert!(first.starts_with("NodeName=gb001 CPUs="), "{first}");
        assert!(first.contains(" Boards=1 SocketsPerBoard="), "{first}");
        assert!(first.contains(" RealMemory="), "{first}");
        assert!(
            lines.next().expect("uptime").starts_with("UpTime="),
            "{text}"
        );
    }
}
