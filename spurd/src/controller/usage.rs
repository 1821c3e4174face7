//! The controller's side of job accounting: the agents' samples of running
//! steps, kept in memory by node for sstat, and each node's record of a
//! step that ended there, stored with the turn for sacct and seff.

use spur_core::NodeId;
use spur_proto::{LiveUsage, Usage};

use super::actor::Controller;

/// A node's record of what a step used, to store.
#[derive(Debug, Clone)]
pub(super) struct UsagePart {
    pub job_id: u32,
    pub step_id: u32,
    pub usage: Usage,
    /// Folded into the other nodes' parts (an srun step), or the whole
    /// record (a batch script, whose end may be reported twice).
    pub merge: bool,
}

impl Controller {
    /// An agent's samples of the steps running on `node`; a sample of a
    /// step that has ended meanwhile is dropped.
    pub(super) fn usage_sampled(&mut self, node: NodeId, live: Vec<LiveUsage>) {
        for l in live {
            let running = self
                .core
                .job(spur_core::JobId(l.job_id))
                .is_some_and(|j| j.state() == spur_core::JobState::Running);
            let step_runs = l.step_id == spur_proto::BATCH_STEP
                || self.steps.contains_key(&(l.job_id, l.step_id));
            if !running || !step_runs {
                continue;
            }
            self.live_usage
                .entry((l.job_id, l.step_id))
                .or_default()
                .insert(node, l.usage);
        }
    }

    /// `node`'s part of a step ended, having used `usage` (None: its agent
    /// gathers none).
    pub(super) fn usage_of_node_ended(
        &mut self,
        node: NodeId,
        job_id: u32,
        step_id: u32,
        usage: Option<Usage>,
    ) {
        if let Some(parts) = self.live_usage.get_mut(&(job_id, step_id)) {
            parts.remove(&node);
            if parts.is_empty() {
                self.live_usage.remove(&(job_id, step_id));
            }
        }
        if let Some(usage) = usage {
            self.turn.usage.push(UsagePart {
                job_id,
                step_id,
                usage,
                merge: step_id != spur_proto::BATCH_STEP,
            });
        }
    }

    /// What the running jobs' processes use of each node's GPUs, as its
    /// agent last sampled them: (SM utilisation in percent summed over the
    /// GPUs, GPU memory in bytes), for nodes where GPU use is sampled.
    pub(super) fn gpu_use_by_node(&self) -> std::collections::BTreeMap<NodeId, (u64, u64)> {
        let mut by_node = std::collections::BTreeMap::new();
        for parts in self.live_usage.values() {
            for (node, usage) in parts {
                let util = usage.input.get(&spur_proto::UsageTres::GpuUtil);
                let mem = usage.input.get(&spur_proto::UsageTres::GpuMem);
                if util.is_none() && mem.is_none() {
                    continue;
                }
                let entry: &mut (u64, u64) = by_node.entry(*node).or_default();
                entry.0 += util.map_or(0, |u| u.tot);
                entry.1 += mem.map_or(0, |m| m.tot);
            }
        }
        by_node
    }

    /// `node`'s agent went away: its samples are no longer current.
    pub(super) fn forget_node_usage(&mut self, node: NodeId) {
        self.live_usage.retain(|_, parts| {
            parts.remove(&node);
            !parts.is_empty()
        });
    }

    /// What a running step has used so far, over the nodes that sampled it.
    pub(super) fn live_usage_of(&self, job_id: u32, step_id: u32) -> Option<Usage> {
        let parts = self.live_usage.get(&(job_id, step_id))?;
        let mut all = Usage::default();
        for part in parts.values() {
            all.merge(part);
        }
        Some(all)
    }
}
