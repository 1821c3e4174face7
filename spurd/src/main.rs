//! spurd: `spurd controller` (also run as `slurmctld`), `spurd agent` (as
//! `slurmd`), `spurd dev`, `spurd relay`, `spurd rest` (as `slurmrestd`),
//! `spurd install-docs`, and the
//! per-job processes the agent starts (`spurd step`, and `spurd supervise`
//! where spur-supervise is missing; internal).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod agent;
mod controller;
mod credential;
mod daemon;
mod dev;
mod failpoint;
mod handshake;
mod logging;
mod login;
mod mesh;
mod rest;

/// The spur daemon.
#[derive(Debug, Parser)]
#[command(
    name = "spurd",
    version,
    about = "spur's controller, node agent and embedded dev cluster"
)]
struct Opts {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Run the controller for the cluster in slurm.conf (or copy its
    /// state: --backup, --restore).
    Controller(ControllerOpts),
    /// Run the agent of one node.
    Agent(AgentOpts),
    /// Start a controller and emulated nodes on this machine.
    Dev(dev::DevOpts),
    /// Relay the commands of a host without an agent (a login node).
    Relay(login::RelayOpts),
    /// Serve Slurm's REST API (slurmrestd's command line; also run as
    /// `slurmrestd`).
    Rest(rest::RestOpts),
    /// The WireGuard mesh (spur.conf `MeshType=wireguard`).
    #[command(subcommand)]
    Mesh(MeshCmd),
    /// Write the man pages and shell completions of spurd and the Slurm
    /// commands under a share folder (DIR/man/man1, DIR/bash-completion,
    /// DIR/zsh, DIR/fish).
    InstallDocs {
        /// The share folder (e.g. /usr/local/share).
        dir: PathBuf,
    },
    /// Run one job's batch script (started by the agent).
    #[command(hide = true)]
    Supervise {
        /// The job's folder in the spool directory.
        dir: PathBuf,
    },
    /// Run one node's part of a job step (started by the agent, with
    /// srun's connection as file descriptor 3).
    #[command(hide = true)]
    Step {
        /// The step's folder in the spool directory.
        dir: PathBuf,
    },
}

/// `spurd mesh ...`.
#[derive(Debug, Subcommand)]
enum MeshCmd {
    /// Each member of the mesh as the controller sees it: its public key,
    /// endpoint, latest handshake and bytes moved.
    Status(ConfOpts),
    /// A new key pair for this host's mesh interface (a node's, through
    /// its agent; the controller's, on its host); the other members are
    /// told the new public key and running jobs carry on.
    Rotate(ConfOpts),
}

/// Where the configuration is.
#[derive(Debug, clap::Args)]
pub struct ConfOpts {
    /// slurm.conf (flag > SLURM_CONF > /etc/slurm/slurm.conf).
    #[arg(long, env = "SLURM_CONF", default_value = spur_conf::slurm_conf::DEFAULT_SLURM_CONF)]
    pub(crate) conf: PathBuf,
    /// The cluster key shared by the controller and agents (default:
    /// spur.key beside slurm.conf).
    #[arg(long, env = "SPUR_KEY_FILE")]
    key_file: Option<PathBuf>,
}

impl ConfOpts {
    pub(crate) fn key_file(&self) -> PathBuf {
        key_file(&self.conf, self.key_file.clone())
    }
}

/// The cluster key's file: the one given (`--key-file`, SPUR_KEY_FILE),
/// else `spur.key` beside slurm.conf `conf`.
pub(crate) fn key_file(conf: &std::path::Path, given: Option<PathBuf>) -> PathBuf {
    given.unwrap_or_else(|| {
        conf.parent()
            .unwrap_or(std::path::Path::new("."))
            .join("spur.key")
    })
}

/// `spurd controller`.
#[derive(Debug, clap::Args)]
struct ControllerOpts {
    #[command(flatten)]
    conf: ConfOpts,
    /// Instead of running the controller, have the running one write a
    /// consistent copy of its state database to FILE (an absolute path on
    /// its host, a new file), and exit.
    #[arg(long, value_name = "FILE", conflicts_with = "restore")]
    backup: Option<PathBuf>,
    /// Instead of running the controller, put the copy FILE in place as
    /// the state database of StateSaveLocation (no controller may run; the
    /// files it replaces are kept beside it), and exit.
    #[arg(long, value_name = "FILE")]
    restore: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct AgentOpts {
    #[command(flatten)]
    conf: ConfOpts,
    /// The NodeName this agent serves (default: the short host name).
    #[arg(long, short = 'N', env = "SPUR_NODE")]
    node: Option<String>,
}

/// spurd's command line, as its man pages show it.
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory;
    Opts::command()
}

fn init_tracing(default: &str) {
    // Stderr only: nothing to open, nothing to fail.
    let _ = logging::init(logging::LogSpec {
        level: default,
        file: None,
        stderr: true,
        syslog: None,
    });
}

/// slurmrestd's command line, when spurd runs under that name.
#[derive(Debug, Parser)]
#[command(
    name = "slurmrestd",
    version,
    about = "Slurm's REST API, served by spur"
)]
struct SlurmrestdOpts {
    #[command(flatten)]
    rest: rest::RestOpts,
}

/// The command the program's name or first argument picks.
fn parse() -> Opts {
    let argv0 = std::env::args_os().next().unwrap_or_default();
    let name = std::path::Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "slurmrestd" {
        return Opts {
            command: Cmd::Rest(SlurmrestdOpts::parse().rest),
        };
    }
    Opts::parse()
}

fn main() -> ExitCode {
    // As slurmctld or slurmd: Slurm's daemon command lines.
    if let Some(code) = daemon::run_if_named() {
        return code;
    }
    let opts = parse();
    match &opts.command {
        // No runtime, no threads: these fork.
        Cmd::Supervise { dir } => return spur_supervise::run(dir),
        Cmd::Step { dir } => return agent::stepd::run(dir),
        Cmd::Mesh(cmd) => {
            let done = match cmd {
                MeshCmd::Status(c) => mesh::status(&c.conf),
                MeshCmd::Rotate(c) => mesh::rotate(&c.conf),
            };
            return match done {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("spurd: error: {e:#}");
                    ExitCode::FAILURE
                }
            };
        }
        Cmd::InstallDocs { dir } => {
            return match dev::install_docs(dir) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("spurd: error: {e:#}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {}
    }
    let level = match &opts.command {
        Cmd::Rest(r) if r.verbose >= 2 => "trace",
        Cmd::Rest(r) if r.verbose == 1 => "debug",
        _ => "info",
    };
    init_tracing(level);
    if let Err(e) = failpoint::arm_from_env() {
        eprintln!("spurd: error: {e}");
        return ExitCode::FAILURE;
    }
    let runtime = match &opts.command {
        Cmd::Agent(_) => agent::runtime(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("spurd: error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match opts.command {
            Cmd::Controller(c) if c.backup.is_some() || c.restore.is_some() => {
                controller::copy_state(&c.conf.conf, c.backup, c.restore)
            }
            Cmd::Controller(c) => {
                let site = controller::Site::load(&c.conf.conf, &c.conf.key_file())?;
                controller::run(site, shutdown_signal()).await
            }
            Cmd::Agent(a) => {
                let settings = agent::Settings::load(&a.conf.conf, &a.conf.key_file(), a.node)?;
                agent::run(settings, shutdown_signal()).await
            }
            Cmd::Dev(d) => dev::run(d, shutdown_signal()).await,
            Cmd::Relay(r) => login::run(r, shutdown_signal()).await,
            Cmd::Rest(r) => rest::run(r, shutdown_signal()).await,
            Cmd::Supervise { .. } | Cmd::Step { .. } | Cmd::InstallDocs { .. } | Cmd::Mesh(_) => {
                unreachable!("handled before the runtime starts")
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spurd: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
pub(crate) async fn shutdown_signal() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_page_names_every_option_its_parser_accepts() {
        let cmd = super::command();
        let pages = spur_man::pages(&cmd).expect("renders");
        // Each page's command, in the pages' order (parents first).
        fn shown(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
            out.push(cmd.clone());
            for sub in cmd.get_subcommands() {
                if !sub.is_hide_set() && sub.get_name() != "help" {
                    shown(sub, out);
                }
            }
        }
        let mut commands = Vec::new();
        shown(&cmd, &mut commands);
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "spurd.1",
                "spurd-controller.1",
                "spurd-agent.1",
                "spurd-dev.1",
                "spurd-relay.1",
                "spurd-rest.1",
                "spurd-mesh.1",
                "spurd-mesh-status.1",
                "spurd-mesh-rotate.1",
                "spurd-install-docs.1"
            ]
        );
        assert_eq!(commands.len(), pages.len());
        for (cmd, page) in commands.iter().zip(&pages) {
            let text = spur_man::plain(&page.bytes);
            let missing = spur_man::missing_options(cmd, &text);
            assert!(missing.is_empty(), "{}: {missing:?}", page.path.display());
        }
    }
}
