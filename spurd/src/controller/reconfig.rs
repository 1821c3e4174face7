//! `scontrol reconfigure`: reads slurm.conf (and the gres.conf and
//! topology.conf beside it) again and rebuilds the core from it with every
//! job in place, as a restart would, but without one: agents stay
//! connected, node states carry over by name, and nothing is lost. A
//! configuration that cannot hold the current jobs is refused whole.

use std::collections::HashMap;
use std::path::Path;

use tracing::{info, warn};

use spur_core::{Core, Discard, Input, JobState, NodeId};
use spur_proto::{ClientResponse, ErrorCode, ProtoError};

use super::actor::{now, Controller};
use super::registry::NodeLive;
use super::Site;

/// Why a reconfigure was refused; logged, and sent as detail.
fn refused(why: String) -> ProtoError {
    warn!(reason = %why, "reconfigure refused; the running configuration stays");
    ProtoError::with_detail(ErrorCode::Unspecified, why)
}

impl Controller {
    /// Applies the site's configuration as it now reads. Settings only a
    /// restart can change (the state folder, the port, the controller's
    /// host, the cluster name) keep their running values, with a warning.
    pub(super) fn reconfigure(&mut self) -> Result<ClientResponse, ProtoError> {
        let mut site = self.site.reload().map_err(|e| refused(format!("{e:#}")))?;
        keep_restart_only_settings(&self.site, &mut site);
        let dir = site.conf_path.parent().unwrap_or(Path::new("."));
        let cluster = spur_site::cluster(&site.conf, dir).map_err(|e| refused(e.to_string()))?;
        let config = spur_site::sched_config_of(&site.conf);
        let mut core = Core::new(cluster, config).map_err(|e| refused(e.to_string()))?;

        // Every job, in id order (as a restart restores them), on the same
        // nodes by name.
        let renumber: Vec<Option<NodeId>> = self
            .core
            .nodes()
            .iter()
            .map(|n| core.node_id(&n.config.name))
            .collect();
        for job in self.core.jobs() {
            let mut record = job.record();
            for a in &mut record.alloc {
                match renumber[a.node.index()] {
                    Some(id) => a.node = id,
                    None if job.state() == JobState::Running => {
                        let node = &self.core.nodes()[a.node.index()].config.name;
                        return Err(refused(format!(
                            "node {node} is gone from slurm.conf but runs job {}",
                            job.id.0
                        )));
                    }
                    None => {}
                }
            }
            core.restore_job(record).map_err(|e| {
                refused(format!(
                    "job {} does not fit the new configuration: {e}",
                    job.id.0
                ))
            })?;
        }
        core.reserve_job_ids_below(self.core.next_job_id());

        // Nodes keep their state and their agent; new ones wait for theirs.
        let old: HashMap<&str, usize> = self
            .core
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.config.name.as_str(), i))
            .collect();
        let started = now();
        let mut live = Vec::with_capacity(core.nodes().len());
        for n in 0..core.nodes().len() {
            let id = NodeId(n as u32);
            let _ = core.handle(Input::NodeUnknown(id), started, &mut Discard);
            let Some(&was) = old.get(core.nodes()[n].config.name.as_str()) else {
                live.push(NodeLive {
                    last_heard: started,
                    ..Default::default()
                });
                continue;
            };
            let before = &self.core.nodes()[was];
            let reason = before.reason().unwrap_or_default().to_string();
            if before.is_down() {
                let _ = core.handle(Input::NodeDown(id, reason.clone()), started, &mut Discard);
            } else if !before.is_unknown() {
                let _ = core.handle(Input::NodeUp(id), started, &mut Discard);
            }
            if before.is_drain() {
                let _ = core.handle(Input::Drain(id, reason), started, &mut Discard);
            }
            live.push(self.live[was].clone());
        }

        // The new node numbering and every job row (allocations name nodes
        // by number) are saved before anything changes here.
        let names: Vec<String> = core.nodes().iter().map(|n| n.config.name.clone()).collect();
        let saved = (|| {
            let turn = self.store.begin()?;
            turn.set_node_names(&names)?;
            for job in core.jobs() {
                turn.update_job(&job.record())?;
            }
            turn.commit()
        })();
        saved.map_err(|e| {
            warn!(error = %e, "reconfigure could not be saved");
            ProtoError::with_detail(ErrorCode::StateStore, e.to_string())
        })?;

        // Agents of nodes that left are told to go.
        let mut conns = HashMap::with_capacity(self.conns.len());
        for (&conn, node) in &self.conns {
            match renumber[node.index()] {
                Some(id) => {
                    conns.insert(conn, id);
                }
                None => {
                    if let Some(link) = &self.live[node.index()].link {
                        link.close.notify_one();
                    }
                }
            }
        }
        let jobs = core.jobs().count();
        self.core = core;
        self.site = site;
        self.live = live;
        self.conns = conns;
        info!(nodes = names.len(), jobs, "reconfigured from slurm.conf");
        Ok(ClientResponse::Done)
    }
}

/// Copies the settings a running controller cannot change into `new`,
/// warning for each that differs.
fn keep_restart_only_settings(running: &Site, new: &mut Site) {
    let (old, conf) = (&running.conf, &mut new.conf);
    if conf.state_save_location != old.state_save_location {
        warn!("StateSaveLocation changes at the next restart");
        conf.state_save_location = old.state_save_location.clone();
    }
    if conf.slurmctld_port != old.slurmctld_port {
        warn!("SlurmctldPort changes at the next restart");
        conf.slurmctld_port = old.slurmctld_port;
    }
    if conf.slurmctld_hosts != old.slurmctld_hosts {
        warn!("SlurmctldHost changes at the next restart");
        conf.slurmctld_hosts = old.slurmctld_hosts.clone();
    }
    if conf.cluster_name != old.cluster_name {
        warn!("ClusterName changes at the next restart");
        conf.cluster_name = old.cluster_name.clone();
    }
    new.ctld_name = running.ctld_name.clone();
    new.ctld_addr = running.ctld_addr.clone();
}
