//! Job steps: how a step's tasks and GPUs are laid out over the running
//! job's allocation (`srun` inside a job). Pure: the job's allocation and
//! the request in, the layout out. Tasks are placed in blocks, node by
//! node, as Slurm's default `--distribution=block` does.

use thiserror::Error;

use crate::core::Core;
use crate::id::{JobId, NodeId};
use crate::job::JobState;

/// What a step asks for (srun's options).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    /// The job's CPUs on the node.
    pub cpus: u32,
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
}

impl Core {
    /// Lays a step out over running job `id`'s allocation.
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
        // As even as the job's CPUs on each node allow, every node at
        // least one task; with -n given, --ntasks-per-node is only a
        // maximum, as in Slurm.
        let cpt = shape.cpus_per_task.max(1);
        let room: Vec<u32> = allocs[..nodes as usize]
            .iter()
            .map(|a| (a.res.cpus / cpt).max(1))
            .collect();
        let mut counts: Vec<u32> = (0..nodes)
            .map(|i| (ntasks / nodes + u32::from(i < ntasks % nodes)).min(room[i as usize]))
            .collect();
        let mut left = ntasks - counts.iter().sum::<u32>();
        for (count, &cap) in counts.iter_mut().zip(&room) {
            let more = left.min(cap - *count);
            *count += more;
            left -= more;
        }
        if left > 0 {
            return Err(StepError::TooManyCpus);
        }
        let mut parts = Vec::with_capacity(nodes as usize);
        let mut next_task = 0;
        let gpus_each = shape.gpus.map(|g| g.div_ceil(nodes));
        for (alloc, &count) in allocs.iter().zip(&counts) {
            if count * cpt > alloc.res.cpus {
                return Err(StepError::TooManyCpus);
            }
            let held: Vec<u32> = alloc.gpus.indices().collect();
            let want = match (shape.gpus_per_task, shape.gpus_per_node, gpus_each) {
                (Some(g), _, _) => g * count,
                (None, Some(g), _) => g,
                (None, None, Some(g)) => g,
                (None, None, None) => held.len() as u32,
            };
            if want as usize > held.len() {
                return Err(StepError::Gres);
            }
            parts.push(StepPart {
                node: alloc.node,
                tasks: (next_task..next_task + count).collect(),
                gpus: held[..want as usize].to_vec(),
                cpus: alloc.res.cpus,
            });
            next_task += count;
        }
        Ok(parts)
    }
}
