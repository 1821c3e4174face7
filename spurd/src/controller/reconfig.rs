//! `scontrol reconfigure`: reads slurm.conf (and the gres.conf and
//! topology.conf beside it) again and hands it to the core as one
//! `Input::Reconfigure`, which keeps every job in place, as a restart
//! would, but without one: agents stay connected, node states carry over
//! by name, and nothing is lost. A configuration that cannot hold the
//! current jobs is refused whole. The turn's commit saves the result.

use std::collections::HashMap;
use std::path::Path;

use tracing::{info, warn};

use spur_core::{Input, Outcome, Reconfiguration};
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
        // The old node numbering, to carry each node's agent over by name.
        let old: HashMap<String, usize> = self
            .core
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.config.name.clone(), i))
            .collect();
        let reconfiguration = Reconfiguration { cluster, config };
        let renumber = match self.apply(Input::Reconfigure(Box::new(reconfiguration))) {
            Ok(Outcome::Reconfigured(renumber)) => renumber,
            Ok(_) => return Err(refused("the core did not reconfigure".into())),
            Err(e) => return Err(refused(e.to_string())),
        };
        let started = now();
        let live: Vec<NodeLive> = self
            .core
            .nodes()
            .iter()
            .map(|n| match old.get(&n.config.name) {
                Some(&was) => self.live[was].clone(),
                None => NodeLive {
                    last_heard: started,
                    ..Default::default()
                },
            })
            .collect();
        // The turn saves the new node numbering and every job row
        // (allocations name nodes by number).
        let names: Vec<String> = self
            .core
            .nodes()
            .iter()
            .map(|n| n.config.name.clone())
            .collect();
        self.turn.node_names = Some(names.clone());
        self.turn.dirty.extend(self.core.jobs().map(|j| j.id));
        self.turn.nodes_dirty = std::mem::take(&mut self.turn.nodes_dirty)
            .into_iter()
            .filter_map(|n| renumber[n.index()])
            .collect();

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
        let jobs = self.core.jobs().count();
        // Until the turn commits, the configuration the store matches is
        // the old one (a failed commit rebuilds from it).
        self.site_before_reconfigure
            .get_or_insert_with(|| self.site.clone());
        self.site = site;
        self.publish_private_data();
        self.live = live;
        self.conns = conns;
        // Samples follow their nodes to their new numbers.
        for parts in self.live_usage.values_mut() {
            *parts = std::mem::take(parts)
                .into_iter()
                .filter_map(|(n, u)| Some((renumber[n.index()]?, u)))
                .collect();
        }
        self.live_usage.retain(|_, parts| !parts.is_empty());
        // Members whose node left are forgotten; the others' endpoints
        // follow their NodeAddr.
        if let Some(mesh) = self.mesh.as_mut() {
            let gone = mesh.members.set_nodes(&self.site.conf);
            if let Err(e) = mesh.apply() {
                warn!(error = %format!("{e:#}"), "cannot give the controller's mesh interface its peers");
            }
            if !gone.is_empty() {
                info!(nodes = ?gone, "mesh members left with their nodes");
                self.turn.mesh_gone.extend(gone);
            }
            self.tell_mesh_peers(None);
        }
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
