//! `spurd dev`: the embedded default cluster. It writes a slurm.conf, a
//! topology.conf (one block per NVL72 domain of 18 nodes) and a cluster key
//! into a folder, links the Slurm command names to spurctl (sbatch to its
//! own program) in DIR/bin, and runs a controller, one agent per emulated
//! node and a REST server on a loopback port in this process. The man
//! pages and shell completions go into DIR/share. The controller takes
//! JSON Web Tokens (auth/jwt with a key of its own in DIR), so `scontrol
//! token` gives one for the REST API.

use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tracing::info;

use crate::{agent, controller};

/// Nodes in one NVL72 domain.
const DOMAIN_NODES: u32 = 18;

/// Options of `spurd dev`.
#[derive(Debug, clap::Args)]
pub struct DevOpts {
    /// The folder for configuration, state and logs (created if missing;
    /// an existing configuration there is reused).
    #[arg(long, env = "SPUR_DEV_DIR", default_value = "spur-dev")]
    dir: PathBuf,
    /// Emulated nodes (4 GPUs each, 18 per NVLink domain).
    #[arg(long, env = "SPUR_DEV_NODES", default_value_t = 36)]
    nodes: u32,
}

/// The daemons spurd answers to.
const DAEMONS: &[&str] = &["spurd", "slurmrestd"];

/// Runs the dev cluster until `shutdown` resolves.
pub async fn run(opts: DevOpts, shutdown: impl std::future::Future<Output = ()>) -> Result<()> {
    anyhow::ensure!(opts.nodes > 0, "--nodes must be at least 1");
    std::fs::create_dir_all(&opts.dir)
        .with_context(|| format!("while creating {}", opts.dir.display()))?;
    let dir = opts
        .dir
        .canonicalize()
        .context("while resolving the dev folder")?;
    let conf_path = dir.join("slurm.conf");
    if !conf_path.exists() {
        write_config(&dir, opts.nodes)?;
    }
    let key_file = dir.join("spur.key");
    link_commands(&dir)?;
    let share = dir.join("share");
    // Pages are a convenience: a cluster without them still runs.
    if let Err(e) = install_docs(&share) {
        tracing::warn!(error = %format!("{e:#}"), "man pages and completions not installed");
    }
    let site = controller::Site::load(&conf_path, &key_file)?;
    let rest_opts = crate::rest::RestOpts::loopback(&conf_path);
    let rest_listeners = crate::rest::bind(&rest_opts).await?;
    let rest_url = rest_listeners.first().map(|l| l.url()).unwrap_or_default();
    let jwt_on = controller::jwt::enabled(&site.conf);
    let names: Vec<String> = site.conf.nodes.iter().map(|n| n.name.clone()).collect();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut agents = Vec::new();
    for name in &names {
        let settings = agent::Settings::from_conf(&site.conf, site.key.clone(), name.clone())?;
        let mut rx = stop_rx.clone();
        agents.push(tokio::spawn(async move {
            let stop = async move {
                let _ = rx.wait_for(|s| *s).await;
            };
            agent::run(settings, stop).await
        }));
    }
    println!(
        "spur dev cluster '{}': {} nodes, {} GPUs, in {}",
        site.conf.cluster_name.as_deref().unwrap_or("spur-dev"),
        names.len(),
        names.len() * 4,
        dir.display()
    );
    println!("  export PATH={}:$PATH", dir.join("bin").display());
    println!("  export SLURM_CONF={}", conf_path.display());
    // The trailing colon keeps man's own search path after this one.
    println!("  export MANPATH={}:$MANPATH", share.join("man").display());
    if jwt_on {
        println!("REST API at {rest_url}/slurm/v0.0.44/ (a token for it: scontrol token)");
    } else {
        println!("REST API at {rest_url}/slurm/v0.0.44/ (this slurm.conf has no auth/jwt; delete it to regenerate)");
    }
    println!("Cluster map at {rest_url}/ui (sign in with a token from scontrol token)");
    if site.conf.other.contains_key("metricstype") {
        println!(
            "OpenMetrics at http://127.0.0.1:{}/metrics (MetricsType in slurm.conf)",
            site.conf.slurmctld_port.first
        );
    }
    println!("Press Ctrl-C to stop.");
    let mut rx = stop_rx.clone();
    let rest = tokio::spawn(crate::rest::serve(rest_opts, rest_listeners, async move {
        let _ = rx.wait_for(|s| *s).await;
    }));
    let mut rx = stop_rx.clone();
    let ctld = controller::run(site, async move {
        let _ = rx.wait_for(|s| *s).await;
    });
    let mut ctld = tokio::spawn(ctld);
    // The controller may fail at start (a port in use, a state it cannot
    // read): then the dev cluster stops with its error.
    let early = tokio::select! {
        () = shutdown => None,
        r = &mut ctld => Some(r),
    };
    info!("stopping the dev cluster");
    let _ = stop_tx.send(true);
    for a in agents {
        let _ = a.await;
    }
    match rest.await {
        Ok(Err(e)) => tracing::warn!(error = %format!("{e:#}"), "REST server failed"),
        Err(e) => tracing::warn!(error = %e, "REST server task failed"),
        Ok(Ok(())) => {}
    }
    match early {
        Some(r) => r.context("controller task")?,
        None => ctld.await.context("controller task")?,
    }
}

/// The man pages and shell completions of spurd and of the commands
/// under `share` (share/man/man1, share/bash-completion, share/zsh,
/// share/fish), rendered from the parsers of this build.
pub fn install_docs(share: &Path) -> Result<()> {
    let [slurmctld, slurmd] = crate::daemon::commands();
    spur_man::install(share, &[crate::command(), slurmctld, slurmd])
        .with_context(|| format!("while writing spurd's man pages into {}", share.display()))?;
    let spurctl = std::env::current_exe()
        .context("while finding spurd")?
        .with_file_name("spurctl");
    let status = std::process::Command::new(&spurctl)
        .arg("--install-docs")
        .arg(share)
        .status()
        .with_context(|| format!("while running {}", spurctl.display()))?;
    anyhow::ensure!(
        status.success(),
        "{} --install-docs {} failed ({status})",
        spurctl.display(),
        share.display()
    );
    Ok(())
}

/// Writes slurm.conf, topology.conf and the key for `nodes` nodes.
fn write_config(dir: &Path, nodes: u32) -> Result<()> {
    let port = free_port()?;
    let width = nodes.to_string().len().max(3);
    let name = |i: u32| format!("gb{:0width$}", i + 1);
    let user = spur_sys::users::user(spur_sys::users::current_uid()).name;
    let mut conf = String::new();
    writeln!(
        conf,
        "# spur dev cluster, written by `spurd dev`. Edit freely; delete to regenerate."
    )?;
    writeln!(conf, "ClusterName=spur-dev")?;
    writeln!(
        conf,
        "SlurmctldHost={}(127.0.0.1)",
        spur_sys::short_hostname()
    )?;
    writeln!(conf, "SlurmctldPort={port}")?;
    writeln!(conf, "SlurmdPort={}", port + 1)?;
    writeln!(conf, "SlurmUser={user}")?;
    writeln!(conf, "StateSaveLocation={}", dir.join("state").display())?;
    writeln!(conf, "SlurmdSpoolDir={}", dir.join("spool/%n").display())?;
    writeln!(
        conf,
        "SlurmdTimeout=60\nReturnToService=1\nMinJobAge=300\nKillWait=30\nMaxJobCount=200000\nMaxArraySize=100001"
    )?;
    writeln!(conf, "SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory")?;
    writeln!(conf, "MetricsType=metrics/openmetrics")?;
    writeln!(
        conf,
        "JobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=task=30"
    )?;
    writeln!(
        conf,
        "DefMemPerCPU=4096\nGresTypes=gpu\nTopologyPlugin=topology/block"
    )?;
    let jwt_key = dir.join("jwt_hs256.key");
    writeln!(
        conf,
        "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={}",
        jwt_key.display()
    )?;
    std::fs::write(&jwt_key, random_key()?)?;
    std::fs::set_permissions(&jwt_key, std::fs::Permissions::from_mode(0o600))?;
    let mut topo = String::from("# One block per NVL72 domain.\n");
    let domains = nodes.div_ceil(DOMAIN_NODES);
    for d in 0..domains {
        let first = d * DOMAIN_NODES;
        let last = (first + DOMAIN_NODES).min(nodes) - 1;
        let list = format!("gb[{}-{}]", &name(first)[2..], &name(last)[2..]);
        // Every emulated node its own loopback address, so that all of
        // them listen on SlurmdPort as real nodes do.
        for i in first..=last {
            writeln!(
                conf,
                "NodeName={} NodeAddr=127.0.{}.{} CPUs=144 Boards=1 SocketsPerBoard=2 CoresPerSocket=72 \
                 ThreadsPerCore=1 RealMemory=880000 Gres=gpu:4 Feature=gb200,nvl{:02} State=UNKNOWN",
                name(i),
                1 + (i + 1) / 256,
                (i + 1) % 256,
                d + 1
            )?;
        }
        writeln!(topo, "BlockName=nvl{:02} Nodes={list}", d + 1)?;
    }
    let all = format!("gb[{}-{}]", &name(0)[2..], &name(nodes - 1)[2..]);
    writeln!(
        conf,
        "PartitionName=batch Nodes={all} Default=YES MaxTime=INFINITE State=UP"
    )?;
    std::fs::write(dir.join("slurm.conf"), conf)?;
    std::fs::write(dir.join("topology.conf"), topo)?;
    let key_path = dir.join("spur.key");
    std::fs::write(&key_path, random_key()?)?;
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o600))?;
    Ok(())
}

fn free_port() -> Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").context("while finding a free port")?;
    Ok(l.local_addr()?.port())
}

fn random_key() -> Result<Vec<u8>> {
    let mut key = vec![0u8; 32];
    spur_sys::random_bytes(&mut key).context("while making a random key")?;
    Ok(key)
}

/// DIR/bin/<command> -> the spurctl binary beside this spurd, or the
/// command's own program beside it where it has one.
fn link_commands(dir: &Path) -> Result<()> {
    let exe = std::env::current_exe().context("while finding spurd")?;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin)?;
    for cmd in spur_slurm::COMMANDS {
        let program = exe.with_file_name(spur_slurm::program_of(cmd));
        anyhow::ensure!(
            program.exists(),
            "{} is not installed beside {} (build it with `cargo build --release`)",
            program.file_name().unwrap_or_default().to_string_lossy(),
            exe.display()
        );
        let link = bin.join(cmd);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&program, &link)
            .with_context(|| format!("while linking {}", link.display()))?;
    }
    for daemon in DAEMONS {
        let link = bin.join(daemon);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&exe, &link)?;
    }
    Ok(())
}
