//! `spurd controller`: loads the site's configuration and the state store,
//! rebuilds the core (every stored job back in place), and serves clients on
//! a local socket and agents on SlurmctldPort. The core lives on the actor
//! thread ([`actor`]); the sockets are tokio tasks that talk to it.

mod actor;
mod array;
mod convert;
pub mod env;
mod history;
pub mod jwt;
mod mesh;
mod metrics;
mod node_link;
mod reconfig;
mod registry;
mod request;
mod retention;
mod server;
mod stats;
mod step;
pub mod store;
mod submit_key;
mod usage;
mod validate;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use tracing::{error, info, warn};

use spur_conf::{ConfFile, SlurmConf};
use spur_core::{Core, Input, NodeId};
use spur_slurm::config::{HostFacts, HostLookup};

use self::actor::Controller;
use self::env::ClusterFacts;
use self::store::Store;

/// The site's configuration as the controller uses it.
#[derive(Debug, Clone)]
pub struct Site {
    /// slurm.conf.
    pub conf: SlurmConf,
    /// Its path.
    pub conf_path: PathBuf,
    /// SlurmctldHost's name.
    pub ctld_name: String,
    /// The address agents reach the controller at.
    pub ctld_addr: String,
    /// SlurmUser's uid, if the user exists here.
    pub slurm_user_uid: Option<u32>,
    /// The cluster key agents must present.
    pub key: Vec<u8>,
    /// spur.conf (the mesh): read at the start, kept at a reconfigure.
    pub spur: spur_conf::SpurConf,
}

impl Site {
    /// Reads slurm.conf at `path` and the key at `key_file`.
    pub fn load(path: &Path, key_file: &Path) -> Result<Site> {
        let parsed =
            SlurmConf::load(path).with_context(|| format!("while reading {}", path.display()))?;
        for warning in &parsed.warnings {
            warn!(%warning, "slurm.conf");
        }
        let conf = parsed.value;
        let host = conf
            .slurmctld_hosts
            .first()
            .context("slurm.conf has no SlurmctldHost")?;
        let key = crate::controller::jwt::read_secret(key_file, "cluster key")?;
        anyhow::ensure!(
            key.len() >= 16,
            "the cluster key {} is shorter than 16 bytes",
            key_file.display()
        );
        let spur = spur_conf::SpurConf::load_beside(path).context("while reading spur.conf")?;
        for warning in &spur.warnings {
            warn!(%warning, "spur.conf");
        }
        Ok(Site {
            spur: spur.value,
            ctld_name: host.name.clone(),
            ctld_addr: host.addr.clone().unwrap_or_else(|| host.name.clone()),
            slurm_user_uid: spur_sys::users::uid_of(&conf.slurm_user),
            conf_path: path.to_owned(),
            conf,
            key,
        })
    }

    /// Reads slurm.conf again from where it was first read; the cluster key
    /// stays.
    pub fn reload(&self) -> Result<Site> {
        let parsed = SlurmConf::load(&self.conf_path)
            .with_context(|| format!("while reading {}", self.conf_path.display()))?;
        for warning in &parsed.warnings {
            warn!(%warning, "slurm.conf");
        }
        Ok(Site {
            slurm_user_uid: spur_sys::users::uid_of(&parsed.value.slurm_user),
            conf: parsed.value,
            ..self.clone()
        })
    }

    /// The controller's local socket.
    pub fn socket_path(&self) -> PathBuf {
        Path::new(&self.conf.state_save_location).join(spur_proto::CONTROLLER_SOCKET_NAME)
    }
}

/// What `show config` needs of this host and this controller;
/// `next_job_id` is the id the next job gets.
pub(crate) fn host_facts(site: &Site, next_job_id: u32) -> HostFacts {
    HostFacts::debian(
        &site.conf,
        site.conf_path.display().to_string(),
        next_job_id,
        &this_host(),
    )
}

/// What this host says of itself, for [`HostFacts`].
fn this_host() -> HostLookup {
    HostLookup {
        hostname: spur_sys::short_hostname(),
        uid_of: spur_sys::users::uid_of,
        exists: |path| Path::new(path).exists(),
    }
}

/// What a restart puts back: the core with every stored job, the jobs'
/// extras, and their submissions' keys.
struct Restored {
    core: Core,
    metas: actor::JobMap<Box<store::JobMeta>>,
    names: store::Names,
    submit_keys: submit_key::SubmitKeys,
}

/// Builds the core from the configuration and puts every stored job back.
fn restore(site: &Site, store: &mut Store) -> Result<Restored> {
    let dir = site.conf_path.parent().unwrap_or(Path::new("."));
    let cluster = spur_site::cluster(&site.conf, dir)
        .context("while building the cluster from slurm.conf")?;
    let config = spur_site::sched_config_of(&site.conf);
    let mut core = Core::new(cluster, config).context("while building the scheduler")?;
    for (uid, usage, at) in store.usage().context("while loading fair-share usage")? {
        core.restore_usage(spur_core::Uid(uid), usage, at);
    }
    let min_age = u64::from(site.conf.min_job_age_secs);
    let reading = std::time::Instant::now();
    let stored_names = store.node_names().context("while loading the node table")?;
    let mut metas = actor::JobMap::default();
    let mut lost = Vec::new();
    let mut submit_keys = submit_key::SubmitKeys::default();
    let mut shared = store::Names::default();
    let restore_one = |mut job: store::StoredJob| {
        let id = job.record.id;
        if let Some(names) = &stored_names {
            if !follow_nodes(&core, names, &mut job.record) {
                warn!(
                    job = id.0,
                    "a node of this running job is gone from slurm.conf; job ended as NODE_FAIL"
                );
                lost.push(job.record.clone());
            }
        }
        match core.restore_job(job.record) {
            Ok(()) => {
                metas.insert(id, Box::new(job.meta));
                if let Some(key) = job.submit_key {
                    submit_keys.insert(key, id);
                }
            }
            Err(e) => {
                warn!(job = id.0, error = %e, "stored job cannot be restored; it stays in history only")
            }
        }
    };
    let jobs = store
        .each_job(
            actor::now().saturating_sub(min_age),
            &mut shared,
            restore_one,
        )
        .context("while loading jobs")?;
    store.loaded();
    tracing::debug!(
        jobs,
        elapsed_ms = reading.elapsed().as_millis() as u64,
        "jobs read and restored"
    );
    let names: Vec<String> = core.nodes().iter().map(|n| n.config.name.clone()).collect();
    // Written only when it changed: a controller rebuilt while its store
    // takes no writes must not need one.
    if stored_names.as_ref() != Some(&names) || !lost.is_empty() {
        let turn = store.begin().context("while saving the node table")?;
        turn.set_node_names(&names)
            .context("while saving the node table")?;
        for record in &lost {
            turn.update_job(record)
                .context("while ending jobs on removed nodes")?;
        }
        turn.commit().context("while saving the node table")?;
    }
    let next = store
        .next_job_id()
        .context("while loading the job id counter")?;
    core.reserve_job_ids_below(spur_core::JobId(next));
    for n in 0..core.nodes().len() {
        let _ = core.handle(
            Input::NodeUnknown(NodeId(n as u32)),
            actor::now(),
            &mut spur_core::Discard,
        );
    }
    for o in store
        .node_overrides()
        .context("while loading node states")?
    {
        if let Some(id) = core.node_id(&o.name) {
            let reason = o.reason.unwrap_or_default();
            if o.drain {
                let _ = core.handle(
                    Input::Drain(id, reason.clone()),
                    actor::now(),
                    &mut spur_core::Discard,
                );
            }
            if o.down {
                let _ = core.handle(
                    Input::NodeDown(id, reason),
                    actor::now(),
                    &mut spur_core::Discard,
                );
            }
        }
    }
    Ok(Restored {
        core,
        metas,
        names: shared,
        submit_keys,
    })
}

/// Points a stored allocation at the same nodes, by name, in a node table
/// that slurm.conf may have reordered. A running job whose node is gone
/// becomes NODE_FAIL; false then.
fn follow_nodes(core: &Core, stored: &[String], record: &mut spur_core::JobRecord) -> bool {
    let mut gone = false;
    for a in &mut record.alloc {
        match stored
            .get(a.node.index())
            .and_then(|name| core.node_id(name))
        {
            Some(id) => a.node = id,
            None => gone = true,
        }
    }
    if gone && record.state == spur_core::JobState::Running {
        record.state = spur_core::JobState::NodeFail;
        record.end_time = Some(actor::now());
        record.alloc.clear();
        record.exit = Some(spur_core::ExitStatus {
            code: 0,
            signal: libc::SIGKILL,
        });
        return false;
    }
    true
}

/// `spurd controller --backup FILE` (asks the running controller for a
/// copy of its state) or `--restore FILE` (puts a copy in place while no
/// controller runs), for the cluster of the slurm.conf at `conf`.
pub fn copy_state(conf: &Path, backup: Option<PathBuf>, restore: Option<PathBuf>) -> Result<()> {
    use spur_client::Api;
    let slurm = spur_client::load_conf(conf)?;
    if let Some(to) = backup {
        let to = std::path::absolute(&to)
            .with_context(|| format!("while resolving {}", to.display()))?;
        let mut session = spur_client::Session::new(slurm);
        let (jobs, bytes) = session
            .backup(&to.to_string_lossy())
            .map_err(|e| anyhow::anyhow!(e.detailed()))
            .with_context(|| format!("while writing {}", to.display()))?;
        println!(
            "spurd: state written to {} ({jobs} jobs, {bytes} bytes)",
            to.display()
        );
        return Ok(());
    }
    let Some(from) = restore else { return Ok(()) };
    let socket = spur_client::socket_path(&slurm);
    if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
        anyhow::bail!(
            "a controller is running (it answers on {}): stop it before --restore",
            socket.display()
        );
    }
    let dir = PathBuf::from(&slurm.state_save_location);
    let done = store::backup::restore(&from, &dir)?;
    println!(
        "spurd: {} restored into {} ({} jobs, next job id {}); start the controller to run from it",
        from.display(),
        dir.display(),
        done.copied.jobs,
        done.next_id
    );
    for k in &done.kept {
        println!("spurd: the file it replaced is kept as {}", k.display());
    }
    if !done.counter_read {
        println!(
            "spurd: warning: the replaced database's job id counter could not be read: jobs \
             submitted after the copy was made may see their ids handed out again; set \
             FirstJobId in slurm.conf above the highest id handed out to prevent it"
        );
    }
    Ok(())
}

/// Runs the controller until `shutdown` resolves.
pub async fn run(
    site: Site,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    // Listings and history answers are megabytes, made and freed on
    // several threads: they go back to the kernel once sent.
    if !spur_sys::unmap_blocks_from(128 << 10) {
        warn!("the C allocator refused a fixed bound for unmapping large blocks; listings may stay in memory once freed");
    }
    let state_dir = PathBuf::from(&site.conf.state_save_location);
    std::fs::create_dir_all(&state_dir)
        .with_context(|| format!("while creating {}", state_dir.display()))?;
    // Before anything listens: a key others can read stops the start.
    let jwt = jwt::JwtKeys::load(&site.conf).context("while loading auth/jwt's keys")?;
    if let Some(keys) = &jwt {
        info!(?keys, "auth/jwt on");
    }
    // The check of every page runs while the jobs load: the controller
    // serves nothing before the tables it loads from have passed, and
    // writes nothing before the rest has.
    let store = Store::open_checking(&state_dir).context("while opening the state database")?;
    let facts = ClusterFacts {
        cluster_name: site
            .conf
            .cluster_name
            .clone()
            .unwrap_or_else(|| "cluster".into()),
        conf_path: site.conf_path.display().to_string(),
        ctld_addr: site.ctld_addr.clone(),
        ctld_port: site.conf.slurmctld_port.first,
    };
    let members = store
        .mesh_members()
        .context("while loading the mesh's members")?;
    let mut controller = assemble(&site, facts, store)?;
    let plain_addr = bind_addr(&site);
    let mesh_listener = match &site.spur.mesh {
        None => None,
        Some(conf) => {
            let (mesh, gone) = mesh::Mesh::start(
                conf,
                &state_dir,
                &site.ctld_name,
                &site.ctld_addr,
                &site.conf,
                members,
            )?;
            let at = (conf.controller_address(), site.conf.slurmctld_port.first);
            controller.mesh = Some(mesh);
            // Forgotten in the store with the first turn.
            controller.turn.mesh_gone.extend(gone);
            // A listener on every address takes the mesh's connections
            // too (each is known by the address it came to).
            if plain_addr == "0.0.0.0" {
                None
            } else {
                Some(
                    tokio::net::TcpListener::bind(at)
                        .await
                        .with_context(|| format!("while binding {}:{} on the mesh", at.0, at.1))?,
                )
            }
        }
    };
    let agent_listener =
        tokio::net::TcpListener::bind((plain_addr, site.conf.slurmctld_port.first))
            .await
            .with_context(|| {
                format!(
                    "while binding SlurmctldPort {}",
                    site.conf.slurmctld_port.first
                )
            })?;
    let socket = site.socket_path();
    let client_listener = server::bind_unix(&socket)?;
    let (tx, rx) = std::sync::mpsc::channel();
    let rpcs = controller.rpcs.clone();
    let private_data = controller.private_data.clone();
    let actor = std::thread::Builder::new()
        .name("spur-core".into())
        .spawn(move || {
            let mut controller = controller;
            while let actor::Stopped::StoreFailed(old, why) = controller.run(&rx) {
                controller = match rebuild(*old, why) {
                    Ok(c) => c,
                    Err(e) => {
                        error!(error = %format!("{e:#}"), "cannot rebuild the controller from its state database; stopping");
                        std::process::exit(1);
                    }
                };
            }
        })
        .context("while starting the controller thread")?;
    info!(socket = %socket.display(), port = site.conf.slurmctld_port.first, "controller ready");
    let reread = tokio::spawn(reconfigure_on_hangup(tx.clone()));
    let listeners = server::Listeners {
        clients: client_listener,
        agents: agent_listener,
        mesh: mesh_listener,
        mesh_address: site.spur.mesh.as_ref().map(|m| m.controller_address()),
    };
    // The accept loop runs on a worker, not on the thread that started
    // the runtime: a connection is then served by the worker that saw it
    // arrive, where otherwise each one woke that thread first.
    let served = tokio::spawn(server::serve(
        listeners,
        tx.clone(),
        site,
        server::Shared { rpcs, private_data },
        jwt,
        shutdown,
    ))
    .await;
    reread.abort();
    // Connection tasks may still hold senders; tell the actor directly.
    let _ = tx.send(actor::Command::Shutdown);
    let _ = std::fs::remove_file(&socket);
    tokio::task::spawn_blocking(move || actor.join()).await.ok();
    // A server that panicked stops the daemon as it would have on this
    // thread, once the actor has stopped.
    if let Err(e) = served {
        if e.is_panic() {
            std::panic::resume_unwind(e.into_panic());
        }
        bail!("the controller's server stopped: {e}");
    }
    Ok(())
}

/// Rereads slurm.conf on each SIGHUP, as `scontrol reconfigure` does (and
/// slurmctld on SIGHUP: `systemctl reload slurmctld`).
async fn reconfigure_on_hangup(actor: std::sync::mpsc::Sender<actor::Command>) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut hangups) = signal(SignalKind::hangup()) else {
        warn!("cannot catch SIGHUP; reconfigure with scontrol reconfigure");
        return;
    };
    while hangups.recv().await.is_some() {
        info!("SIGHUP: rereading slurm.conf");
        let (reply, answer) = tokio::sync::oneshot::channel();
        let asked = actor.send(actor::Command::Client {
            uid: 0,
            req: spur_proto::ClientRequest::Reconfigure,
            reply: actor::ReplyTo::Local(reply),
        });
        if asked.is_err() {
            return;
        }
        if let Ok(actor::Reply::Response(spur_proto::ClientResponse::Error(e))) = answer.await {
            warn!(error = %e, "SIGHUP: slurm.conf not taken");
        }
    }
}

/// The controller as the store holds it: every stored job, the steps that
/// were running, the operators' node states, the history's retention.
fn assemble(site: &Site, facts: ClusterFacts, mut store: Store) -> Result<Controller> {
    let started = std::time::Instant::now();
    // A damaged page may fail the load first: the check's finding, which
    // names the fault and the way back, is the better answer.
    let restored = restore(site, &mut store);
    let loaded = started.elapsed();
    store
        .readable()
        .context("while opening the state database")?;
    let restored = restored?;
    let core = &restored.core;
    let overrides = store
        .node_overrides()
        .context("while loading node states")?;
    let admin_down: Vec<bool> = (0..core.nodes().len())
        .map(|i| {
            overrides
                .iter()
                .any(|o| o.down && o.name == core.nodes()[i].config.name)
        })
        .collect();
    info!(
        jobs = restored.metas.len(),
        submit_keys = restored.submit_keys.len(),
        loaded_ms = loaded.as_millis() as u64,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "state restored"
    );
    let unended = store
        .unended_steps()
        .context("while loading the steps that were running")?;
    let mut controller = Controller::new(restored, store, site.clone(), facts);
    controller.restore_steps(unended);
    for (i, down) in admin_down.into_iter().enumerate() {
        controller.live[i].admin_down = down;
    }
    controller.retention = retention::Retention::new(retention::load(&site.conf_path));
    Ok(controller)
}

/// After a turn that could not be committed: the controller rebuilt from
/// the store, which holds every acknowledged change, and frozen (reads
/// answered, changes refused) until the store takes writes again. The old
/// one's agents are disconnected (they register anew once it thaws); its
/// counters carry on.
fn rebuild(mut old: Controller, why: String) -> Result<Controller> {
    old.close_agent_links();
    let Controller {
        store,
        site,
        site_before_reconfigure,
        facts,
        rpcs,
        private_data,
        counters,
        mesh,
        ..
    } = old;
    // A reconfigure whose turn failed to commit did not happen.
    let site = site_before_reconfigure.unwrap_or(site);
    let mut fresh = assemble(&site, facts, store)?;
    fresh.mesh = mesh;
    if let Some(mesh) = fresh.mesh.as_mut() {
        // A join the failed turn admitted did not happen.
        let stored = fresh
            .store
            .mesh_members()
            .context("while loading the mesh's members")?;
        let gone = mesh.members.reset(stored);
        if let Err(e) = mesh.apply() {
            warn!(error = %format!("{e:#}"), "cannot give the controller's mesh interface its peers");
        }
        fresh.turn.mesh_gone.extend(gone);
    }
    fresh.rpcs = rpcs;
    fresh.private_data = private_data;
    fresh.publish_private_data();
    fresh.counters = counters;
    fresh.frozen = Some(actor::Frozen {
        why,
        last_probe: std::time::Instant::now(),
    });
    Ok(fresh)
}

fn bind_addr(site: &Site) -> String {
    // Listen on the configured address when it is one of ours; else on all.
    match site.ctld_addr.parse::<std::net::IpAddr>() {
        Ok(ip) if std::net::TcpListener::bind((ip, 0)).is_ok() => ip.to_string(),
        _ => "0.0.0.0".into(),
    }
}
