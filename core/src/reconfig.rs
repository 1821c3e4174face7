//! Reconfiguring a running core (`scontrol reconfigure`): a new cluster and
//! new settings, with every job kept where it is. Jobs are restored in id
//! order on the same nodes by name, job ids keep counting from where they
//! were, and each node that stays keeps its health, drain and reason. A
//! configuration that cannot hold the current jobs is refused whole and
//! the core is left as it was.

use serde::{Deserialize, Serialize};

use crate::core::{Cluster, Core, CoreError, SchedConfig};
use crate::effects::Discard;
use crate::id::NodeId;
use crate::job::JobState;
use crate::resources::Time;
use crate::Input;

/// What `Input::Reconfigure` installs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reconfiguration {
    /// The nodes, partitions, QOS and topology.
    pub cluster: Cluster,
    /// The scheduler's settings.
    pub config: SchedConfig,
}

impl Core {
    /// This core's jobs and node states under `r`: the new core, and for
    /// each node of this one its number in the new one (None: gone).
    pub(crate) fn reconfigured(
        &self,
        r: Reconfiguration,
        now: Time,
    ) -> Result<(Core, Vec<Option<NodeId>>), CoreError> {
        let refused = |why: String| CoreError::Reconfigure(why);
        let mut next = Core::new(r.cluster, r.config).map_err(|e| refused(e.to_string()))?;
        // Past usage is the users', not the configuration's.
        next.fairshare = self.fairshare.clone();
        next.charged = self.charged.clone();
        let renumber: Vec<Option<NodeId>> = self
            .nodes
            .iter()
            .map(|n| next.node_id(&n.config.name))
            .collect();
        for job in self.jobs() {
            let mut record = job.record();
            for a in &mut record.alloc {
                match renumber[a.node.index()] {
                    Some(id) => a.node = id,
                    None if job.state() == JobState::Running => {
                        let node = &self.nodes[a.node.index()].config.name;
                        return Err(refused(format!(
                            "node {node} is gone from slurm.conf but runs job {}",
                            job.id.0
                        )));
                    }
                    None => {}
                }
            }
            next.restore_job(record).map_err(|e| {
                refused(format!(
                    "job {} does not fit the new configuration: {e}",
                    job.id.0
                ))
            })?;
        }
        next.reserve_job_ids_below(self.next_job_id());
        // Nodes keep their state; new ones are unknown until heard from.
        let mut was = vec![None; next.nodes.len()];
        for (old, new) in renumber.iter().enumerate() {
            if let Some(id) = new {
                was[id.index()] = Some(old);
            }
        }
        for (n, was) in was.into_iter().enumerate() {
            let id = NodeId(n as u32);
            let _ = next.handle(Input::NodeUnknown(id), now, &mut Discard);
            let Some(old) = was else {
                continue;
            };
            let before = &self.nodes[old];
            let reason = before.reason().unwrap_or_default().to_string();
            if before.is_down() {
                let _ = next.handle(Input::NodeDown(id, reason.clone()), now, &mut Discard);
            } else if !before.is_unknown() {
                let _ = next.handle(Input::NodeUp(id), now, &mut Discard);
            }
            if before.is_drain() {
                let _ = next.handle(Input::Drain(id, reason), now, &mut Discard);
            }
        }
        Ok((next, renumber))
    }
}
