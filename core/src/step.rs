//! Job steps: how a step's tasks, CPUs and GPUs are laid out over the
//! running job's allocation (`srun` inside a job), and what running steps
//! hold of it. Tasks are placed in blocks, node by node, as Slurm's default
//! `--distribution=block` does. As in Slurm 22.05, a step takes every CPU
//! the job has free on its nodes unless `--exact`, and waits (Requested
//! nodes are busy) while other steps hold them, unless `--overlap`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::core::{Core, CoreError, Input, Outcome};
use crate::id::{JobId, NodeId};
use crate::job::JobState;
use crate::resources::GpuSet;

/// What a step asks for (srun's options).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepShape {
    /// `-n` (None: one per node, or `--ntasks-per-node` times the nodes).
    pub ntasks: Option<u32>,
    /// `-N` (None: as many nodes as the tasks need, up to the job's).
    pub nodes: Option<u32>,
    /// `--ntasks-per-node`.
    pub ntasks_per_node: Option<u32>,
    /// `-c`.
    pub cpus_per_task: u32,
    /// `--gpus-per-task`.
    pub gpus_per_task: Option<u32>,
    /// `--gpus-per-node`.
    pub gpus_per_node: Option<u32>,
    /// `--gpus` for the whole step.
    pub gpus: Option<u32>,
    /// `-w`: only these nodes (each must be the job's).
    pub nodelist: Vec<NodeId>,
    /// `--exact`: only the CPUs the tasks need.
    pub exact: bool,
    /// `--overlap`: share what other steps hold, and let them share this.
    pub overlap: bool,
}

/// One node's part of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepPart {
    /// The node.
    pub node: NodeId,
    /// Global task ids placed there, ascending.
    pub tasks: Vec<u32>,
    /// GPU indices the step uses there (a subset of the job's).
    pub gpus: Vec<u32>,
    /// CPUs the step holds there.
    pub cpus: u32,
}

/// What a running step holds of its job's allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepHold {
    /// Per node: CPUs and GPU indices.
    pub parts: Vec<(NodeId, u32, GpuSet)>,
    /// Shared with other steps (`--overlap`).
    pub overlap: bool,
}

/// Why a step cannot be created; the texts are Slurm's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum StepError {
    /// No such job.
    #[error("Invalid job id specified")]
    UnknownJob,
    /// The job is not running (ESLURM_JOB_PENDING / ALREADY_DONE).
    #[error("Job is pending execution")]
    Pending,
    /// The job has ended.
    #[error("Job/step already completing or completed")]
    Finished,
    /// More nodes than the job has, or nodes it does not have.
    #[error("Requested node configuration is not available")]
    NodeConfig,
    /// More CPUs on a node than the job holds there
    /// (ESLURM_TOO_MANY_REQUESTED_CPUS).
    #[error("More processors requested than permitted")]
    TooManyCpus,
    /// More GPUs than the job holds (ESLURM_INVALID_GRES).
    #[error("Invalid generic resource (gres) specification")]
    Gres,
    /// Zero tasks or nodes, or fewer tasks than nodes.
    #[error("Task count specification invalid")]
    TaskCount,
    /// Other steps hold what this one needs; it can be created once they
    /// end (ESLURM_NODES_BUSY).
    #[error("Requested nodes are busy")]
    Busy,
}

impl Core {
    /// Lays a step out over running job `id`'s allocation, given what its
    /// running steps hold, without holding anything.
    pub fn layout_step(&self, id: JobId, shape: &StepShape) -> Result<Vec<StepPart>, StepError> {
        let job = self.job(id).ok_or(StepError::UnknownJob)?;
        match job.state() {
            JobState::Running => {}
            JobState::Pending => return Err(StepError::Pending),
            _ => return Err(StepError::Finished),
        }
        let mut allocs: Vec<_> = job.allocation().iter().collect();
        if !shape.nodelist.is_empty() {
            if shape
                .nodelist
                .iter()
                .any(|n| !allocs.iter().any(|a| a.node == *n))
            {
                return Err(StepError::NodeConfig);
            }
            allocs.retain(|a| shape.nodelist.contains(&a.node));
        }
        let per_node = shape.ntasks_per_node.filter(|&t| t > 0);
        let nodes = match (shape.nodes, shape.ntasks, per_node) {
            (Some(n), _, _) => n,
            (None, Some(t), Some(p)) => t.div_ceil(p),
            (None, Some(t), None) => t.min(allocs.len() as u32),
            (None, None, _) => allocs.len() as u32,
        };
        if nodes == 0 {
            return Err(StepError::TaskCount);
        }
        if nodes as usize > allocs.len() {
            return Err(StepError::NodeConfig);
        }
        let ntasks = match (shape.ntasks, per_node) {
            (Some(t), _) => t,
            (None, Some(p)) => p * nodes,
            (None, None) => nodes,
        };
        if ntasks < nodes {
            return Err(StepError::TaskCount);
        }
        let cpt = shape.cpus_per_task.max(1);
        // What other steps hold, node by node (overlapping steps and
        // --overlap requests count nothing).
        let held = |node: NodeId| -> (u32, GpuSet) {
            if shape.overlap {
                return (0, GpuSet::EMPTY);
            }
            job.steps
                .values()
                .filter(|h| !h.overlap)
                .flat_map(|h| h.parts.iter())
                .filter(|(n, _, _)| *n == node)
                .fold((0, GpuSet::EMPTY), |(c, g), (_, cpus, gpus)| {
                    (c + cpus, g.union(*gpus))
                })
        };
        // Never more tasks on a node than the job has CPUs there; then the
        // nodes other steps leave room on, in the job's order.
        let fits = |a: &&crate::node::NodeAlloc| held(a.node).0 < a.res.cpus;
        let usable: Vec<_> = allocs.iter().copied().filter(fits).collect();
        if usable.len() < nodes as usize {
            let could = allocs.len() >= nodes as usize;
            return Err(if could {
                StepError::Busy
            } else {
                StepError::NodeConfig
            });
        }
        let chosen = &usable[..nodes as usize];
        let room: Vec<u32> = chosen
            .iter()
            .map(|a| (a.res.cpus - held(a.node).0) / cpt)
            .collect();
        let capacity: Vec<u32> = chosen.iter().map(|a| a.res.cpus / cpt).collect();
        let spread = |caps: &[u32]| -> Option<Vec<u32>> {
            // As even as the caps allow, every node at least one task.
            let mut counts: Vec<u32> = (0..nodes)
                .map(|i| (ntasks / nodes + u32::from(i < ntasks % nodes)).min(caps[i as usize]))
                .collect();
            let mut left = ntasks - counts.iter().sum::<u32>();
            for (count, &cap) in counts.iter_mut().zip(caps) {
                let more = left.min(cap.saturating_sub(*count));
                *count += more;
                left -= more;
            }
            (left == 0 && counts.iter().all(|&c| c > 0)).then_some(counts)
        };
        let counts = match spread(&room) {
            Some(c) => c,
            None if spread(&capacity).is_some() => return Err(StepError::Busy),
            None => return Err(StepError::TooManyCpus),
        };
        let mut parts = Vec::with_capacity(nodes as usize);
        let mut next_task = 0;
        let gpus_each = shape.gpus.map(|g| g.div_ceil(nodes));
        for (alloc, &count) in chosen.iter().zip(&counts) {
            let (cpus_held, gpus_held) = held(alloc.node);
            let free_gpus: Vec<u32> = alloc.gpus.without(gpus_held).indices().collect();
            let want = match (shape.gpus_per_task, shape.gpus_per_node, gpus_each) {
                (Some(g), _, _) => g * count,
                (None, Some(g), _) => g,
                (None, None, Some(g)) => g,
                // By default a step has every GPU the job has there that
                // no other step holds.
                (None, None, None) => free_gpus.len() as u32,
            };
            if want > alloc.gpus.len() {
                return Err(StepError::Gres);
            }
            if want as usize > free_gpus.len() {
                return Err(StepError::Busy);
            }
            let cpus = if shape.exact {
                count * cpt
            } else {
                alloc.res.cpus - cpus_held
            };
            parts.push(StepPart {
                node: alloc.node,
                tasks: (next_task..next_task + count).collect(),
                gpus: free_gpus[..want as usize].to_vec(),
                cpus,
            });
            next_task += count;
        }
        Ok(parts)
    }

    /// Shorthand for [`Input::StartStep`]: lays a step out and holds what
    /// it takes until [`Core::end_step`].
    pub fn start_step(
        &mut self,
        id: JobId,
        step: u32,
        shape: &StepShape,
    ) -> Result<Vec<StepPart>, StepError> {
        let input = Input::StartStep {
            job: id,
            step,
            shape: shape.clone(),
        };
        match self.handle(input, 0, &mut Vec::new()) {
            Ok(Outcome::StepStarted(parts)) => Ok(parts),
            Err(CoreError::Step(e)) => Err(e),
            _ => Err(StepError::UnknownJob),
        }
    }

    /// Shorthand for [`Input::EndStep`]: what the step held is the job's
    /// again. False if it held nothing (already ended, or started before a
    /// restart).
    pub fn end_step(&mut self, id: JobId, step: u32) -> bool {
        let input = Input::EndStep { job: id, step };
        matches!(
            self.handle(input, 0, &mut Vec::new()),
            Ok(Outcome::StepEnded(true))
        )
    }

    pub(crate) fn lay_out_step(
        &mut self,
        id: JobId,
        step: u32,
        shape: &StepShape,
    ) -> Result<Vec<StepPart>, StepError> {
        let parts = self.layout_step(id, shape)?;
        let hold = StepHold {
            parts: parts
                .iter()
                .map(|p| (p.node, p.cpus, GpuSet::from_indices(p.gpus.iter().copied())))
                .collect(),
            overlap: shape.overlap,
        };
        if let Some(job) = self.jobs.get_mut(&id) {
            job.steps.insert(step, hold);
        }
        Ok(parts)
    }

    pub(crate) fn release_step(&mut self, id: JobId, step: u32) -> bool {
        self.jobs
            .get_mut(&id)
            .is_some_and(|j| j.steps.remove(&step).is_some())
    }
}
