//! Invariants of the scheduler state, checked after every step in tests and
//! after every reactor turn in debug builds of the daemon.

use thiserror::Error;

use crate::core::Core;
use crate::id::{JobId, NodeId};
use crate::job::JobState;
use crate::resources::{GpuSet, Resources};

/// A broken invariant: always a bug in the core.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SanityError {
    /// A node's recorded use differs from the sum of its jobs' shares.
    #[error("node {node}: recorded use {recorded:?} differs from its jobs' sum {summed:?}")]
    UsageMismatch {
        /// The node.
        node: NodeId,
        /// What the node records.
        recorded: Resources,
        /// What its running jobs hold.
        summed: Resources,
    },
    /// More allocated than the node has.
    #[error("node {node} is over-allocated")]
    OverAllocated {
        /// The node.
        node: NodeId,
    },
    /// One GPU held by two jobs.
    #[error("node {node}: GPU held by two jobs ({first} and {second})")]
    GpuTwice {
        /// The node.
        node: NodeId,
        /// One job.
        first: JobId,
        /// The other.
        second: JobId,
    },
    /// A job's state disagrees with the pending/running/ended sets or its
    /// allocation.
    #[error("job {job}: state and bookkeeping disagree ({what})")]
    JobBookkeeping {
        /// The job.
        job: JobId,
        /// What disagrees.
        what: &'static str,
    },
    /// A `--segment` job with a segment outside one base block.
    #[error("job {job}: a segment spans more than one base block")]
    SegmentSplit {
        /// The job.
        job: JobId,
    },
}

impl Core {
    /// Verifies every invariant; see [`SanityError`].
    pub fn sanity_check(&self) -> Result<(), SanityError> {
        let mut summed = vec![Resources::ZERO; self.nodes.len()];
        let mut gpus: Vec<Vec<(JobId, GpuSet)>> = vec![Vec::new(); self.nodes.len()];
        for job in self.jobs.values() {
            let running = job.state() == JobState::Running;
            if running != self.running.contains(&job.id) {
                return Err(SanityError::JobBookkeeping {
                    job: job.id,
                    what: "running set",
                });
            }
            if let Some(what) = self.pending.misfiled(job) {
                return Err(SanityError::JobBookkeeping { job: job.id, what });
            }
            let ended = job.end_time.filter(|_| job.state().is_finished());
            if ended.is_some_and(|end| !self.ended.contains(&(end, job.id))) {
                return Err(SanityError::JobBookkeeping {
                    job: job.id,
                    what: "ended set",
                });
            }
            if running == job.alloc.is_empty() {
                return Err(SanityError::JobBookkeeping {
                    job: job.id,
                    what: "allocation",
                });
            }
            if running && job.alloc.len() < job.shape.nodes_min as usize {
                return Err(SanityError::JobBookkeeping {
                    job: job.id,
                    what: "node count",
                });
            }
            for a in &job.alloc {
                let i = a.node.index();
                summed[i] = summed[i].add(&a.res);
                if !self.nodes[i].jobs().contains(&job.id) {
                    return Err(SanityError::JobBookkeeping {
                        job: job.id,
                        what: "node job list",
                    });
                }
                if let Some((other, _)) = gpus[i].iter().find(|(_, set)| set.intersects(a.gpus)) {
                    return Err(SanityError::GpuTwice {
                        node: a.node,
                        first: *other,
                        second: job.id,
                    });
                }
                gpus[i].push((job.id, a.gpus));
            }
            self.check_segments(job)?;
            if running && job.dependency.is_some() {
                return Err(SanityError::JobBookkeeping {
                    job: job.id,
                    what: "running with a dependency",
                });
            }
        }
        // Every id the pending sets hold is a job (each job's membership
        // was checked above).
        if let Some(id) = self.pending.stray(|id| self.jobs.contains_key(&id)) {
            return Err(SanityError::JobBookkeeping {
                job: id,
                what: "pending set",
            });
        }
        // Every entry of the ended set names an ended job of that end time.
        for &(end, id) in &self.ended {
            let job = self.jobs.get(&id);
            if !job.is_some_and(|j| j.state().is_finished() && j.end_time == Some(end)) {
                return Err(SanityError::JobBookkeeping {
                    job: id,
                    what: "ended set",
                });
            }
        }
        self.check_arrays()?;
        for (i, node) in self.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            if node.used() != summed[i] {
                return Err(SanityError::UsageMismatch {
                    node: id,
                    recorded: node.used(),
                    summed: summed[i],
                });
            }
            if !node.config.resources().covers(&node.used()) {
                return Err(SanityError::OverAllocated { node: id });
            }
            let held = gpus[i]
                .iter()
                .fold(GpuSet::EMPTY, |acc, (_, s)| acc.union(*s));
            if held != node.gpus_used || held.len() > node.config.gpus {
                return Err(SanityError::OverAllocated { node: id });
            }
        }
        Ok(())
    }

    /// The index of arrays matches the jobs; a pending meta record holds
    /// tasks; no task of an array is held twice.
    fn check_arrays(&self) -> Result<(), SanityError> {
        let bad = |job: JobId, what: &'static str| Err(SanityError::JobBookkeeping { job, what });
        for job in self.jobs.values() {
            let Some(a) = job.array() else { continue };
            let indexed = self
                .array_index()
                .get(&a.array_job_id())
                .is_some_and(|m| m.contains(&job.id));
            if !indexed {
                return bad(job.id, "array index");
            }
            if a.is_meta() && job.state() == JobState::Pending && a.pending_tasks().is_empty() {
                return bad(job.id, "meta record without tasks");
            }
            if a.is_meta() && job.state() == JobState::Running {
                return bad(job.id, "running meta record");
            }
            if a.is_meta() && a.array_job_id() != job.id {
                return bad(job.id, "meta record under another id");
            }
            if !a.is_meta() && !a.pending_tasks().is_empty() {
                return bad(job.id, "array task holding tasks");
            }
        }
        for (array, members) in self.array_index() {
            let mut seen = crate::array::TaskSet::new();
            for id in members {
                let a = self.jobs.get(id).and_then(|j| j.array());
                let Some(a) = a.filter(|a| a.array_job_id() == *array) else {
                    return bad(*id, "array index");
                };
                let mut tasks = a.pending_tasks().clone();
                if let Some(t) = a.task_id() {
                    tasks.insert(t);
                }
                if !seen.intersection(&tasks).is_empty() {
                    return bad(*id, "array task held twice");
                }
                seen = seen.union(&tasks);
            }
        }
        Ok(())
    }

    /// Every segment of a running `--segment` job must fit in one base
    /// block: the nodes per block must be a multiple of the segment size.
    fn check_segments(&self, job: &crate::job::Job) -> Result<(), SanityError> {
        let Some(size) = job.shape.segment else {
            return Ok(());
        };
        let mut per_block = std::collections::BTreeMap::new();
        for a in &job.alloc {
            let block = self.node_block.get(a.node.index()).copied().flatten();
            *per_block.entry(block).or_insert(0u32) += 1;
        }
        if per_block
            .iter()
            .any(|(b, count)| b.is_none() || count % size != 0)
        {
            return Err(SanityError::SegmentSplit { job: job.id });
        }
        Ok(())
    }
}
