//! Trace jobs as spur jobs: how a trace record becomes a `JobSpec` on a
//! GB200 cluster (4-GPU nodes), and the segment policy applied to it.

use std::str::FromStr;

use spur_core::{Exclusive, JobSpec, Uid};
use thiserror::Error;

use crate::trace::TraceJob;

/// GPUs per GB200 node.
pub const GPUS_PER_NODE: u32 = 4;

/// How `--segment` is chosen for each job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentPolicy {
    /// No `--segment`: the job is placed as Slurm's block plugin places a
    /// job that gives none.
    None,
    /// NVIDIA's recommendation by job size: 16 nodes for jobs of 128+ GPUs,
    /// 4 for 32-64 GPUs, 1 below.
    Nvidia,
    /// The same segment size for every job larger than it.
    Fixed(u32),
}

impl FromStr for SegmentPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(SegmentPolicy::None),
            "nvidia" => Ok(SegmentPolicy::Nvidia),
            n => match n.parse::<u32>() {
                Ok(size) if size > 0 => Ok(SegmentPolicy::Fixed(size)),
                _ => Err(format!(
                    "invalid segment policy {s:?}: expected nvidia, none or a positive node count"
                )),
            },
        }
    }
}

impl std::fmt::Display for SegmentPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SegmentPolicy::None => f.write_str("none"),
            SegmentPolicy::Nvidia => f.write_str("nvidia"),
            SegmentPolicy::Fixed(n) => write!(f, "{n}"),
        }
    }
}

impl SegmentPolicy {
    /// The segment for a job of `nodes` nodes and `gpus` GPUs: the policy's
    /// size when it divides the node count (Slurm requires that); a job it
    /// does not divide, or one no larger than a segment, gets none.
    pub fn segment_for(self, nodes: u32, gpus: u32) -> Option<u32> {
        let wanted = match self {
            SegmentPolicy::None => return None,
            SegmentPolicy::Nvidia if gpus >= 128 => 16,
            SegmentPolicy::Nvidia if gpus >= 32 => 4,
            SegmentPolicy::Nvidia => 1,
            SegmentPolicy::Fixed(size) => size,
        };
        (nodes > wanted && nodes.is_multiple_of(wanted)).then_some(wanted)
    }
}

/// One job to replay.
#[derive(Debug, Clone)]
pub struct SimJob {
    /// The trace's id.
    pub trace_id: u64,
    /// Submit time (s, relative).
    pub submit: u64,
    /// How long it runs once started (s); `None`: until the end of the run.
    pub runtime: Option<u64>,
    /// The request.
    pub spec: JobSpec,
    /// Nodes it asks for.
    pub nodes: u32,
    /// GPUs it asks for.
    pub gpus: u32,
}

/// A user's time limit when the trace has none: the run time rounded up to
/// the next 10 minutes, at least 10 minutes.
fn estimate_limit(runtime: u64) -> u64 {
    runtime.div_ceil(600).max(1) * 600
}

/// Converts a trace job. `cpu_trace` says the trace is of CPU nodes taken
/// one-for-one as 4-GPU GB200 nodes (Theta).
pub fn to_sim_job(t: &TraceJob, policy: SegmentPolicy) -> SimJob {
    let runtime = (!t.runs_forever).then_some(t.runtime_s);
    let (nodes, gpus) = match t.gpus {
        None => (t.nodes, t.nodes * GPUS_PER_NODE),
        Some(g) => (g.div_ceil(GPUS_PER_NODE).max(1), g),
    };
    let mut spec = JobSpec {
        name: format!("t{}", t.id).into(),
        user: Uid(t.user.unwrap_or(1000)),
        time_limit: Some(
            t.walltime_s
                .unwrap_or_else(|| estimate_limit(runtime.unwrap_or(0))),
        ),
        ..JobSpec::default()
    };
    // Pods (they carry a CPU request) run on one node of their own cluster.
    let pod = t.cpu_milli.is_some();
    let (nodes, gpus) = if pod {
        (1, t.gpus.unwrap_or(0))
    } else {
        (nodes, gpus)
    };
    if !pod && (gpus >= GPUS_PER_NODE || t.gpus.is_none()) {
        spec.min_nodes = Some(nodes);
        spec.gpus_per_node = Some(GPUS_PER_NODE);
        spec.exclusive = Exclusive::Node;
        spec.segment = policy.segment_for(nodes, gpus);
    } else {
        // Sub-node jobs share a node: their GPUs, a CPU share and memory.
        spec.min_nodes = Some(1);
        if gpus > 0 {
            spec.gpus = Some(gpus);
        }
        let cpus = t
            .cpu_milli
            .map_or(8 * gpus.max(1), |m| m.div_ceil(1000).max(1));
        spec.cpus_per_task = Some(cpus);
        if let Some(mem) = t.mem_mib {
            spec.mem = spur_core::MemRequest::PerNode(mem);
        }
    }
    SimJob {
        trace_id: t.id,
        submit: t.submit_s,
        runtime,
        spec,
        nodes,
        gpus,
    }
}

/// A trace the cluster can never run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// A job larger than the whole cluster.
    #[error("{source_name}: job {id} asks for {nodes} nodes, but the cluster has {cluster} nodes")]
    TooLarge {
        /// The trace.
        source_name: String,
        /// The job's id in the trace.
        id: u64,
        /// Nodes it asks for.
        nodes: u32,
        /// Nodes in the cluster.
        cluster: usize,
    },
}

/// Refuses a trace with a job larger than the cluster: it could never
/// start, and the replay would wait for it forever.
pub fn check_fits(
    jobs: &[SimJob],
    cluster_nodes: usize,
    source_name: &str,
) -> Result<(), WorkloadError> {
    match jobs.iter().find(|j| j.nodes as usize > cluster_nodes) {
        Some(j) => Err(WorkloadError::TooLarge {
            source_name: source_name.to_string(),
            id: j.trace_id,
            nodes: j.nodes,
            cluster: cluster_nodes,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvidia_policy_by_job_size_and_divisibility() {
        let p = SegmentPolicy::Nvidia;
        assert_eq!(p.segment_for(32, 128), Some(16));
        assert_eq!(p.segment_for(804, 3216), None, "16 does not divide 804");
        assert_eq!(p.segment_for(8, 32), Some(4));
        assert_eq!(p.segment_for(2, 8), Some(1));
        assert_eq!(SegmentPolicy::None.segment_for(128, 512), None);
        assert_eq!("16".parse::<SegmentPolicy>(), Ok(SegmentPolicy::Fixed(16)));
        assert!("x".parse::<SegmentPolicy>().is_err());
    }

    #[test]
    fn a_job_larger_than_the_cluster_is_an_error_naming_it() {
        let t = TraceJob {
            id: 77,
            submit_s: 0,
            runtime_s: 10,
            runs_forever: false,
            walltime_s: None,
            nodes: 40,
            gpus: None,
            gpus_per_node: None,
            user: None,
            cpu_milli: None,
            mem_mib: None,
            gpu_milli: None,
        };
        let jobs = vec![to_sim_job(&t, SegmentPolicy::None)];
        let err = check_fits(&jobs, 36, "jobs.csv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "jobs.csv: job 77 asks for 40 nodes, but the cluster has 36 nodes"
        );
        assert!(check_fits(&jobs, 40, "jobs.csv").is_ok());
    }
}
