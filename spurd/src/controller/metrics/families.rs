//! The metric families of slurmctld's OpenMetrics endpoints (Slurm 26.05's
//! metrics/openmetrics plugin): their names, help texts and labels, in the
//! order Slurm writes them, filled from the core's jobs and nodes. Every
//! family is a gauge. As in Slurm, memory is in megabytes whatever a name
//! says; unlike Slurm's, no count wraps at 16 or 32 bits.

use std::collections::HashMap;
use std::fmt;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use spur_core::node::Node;
use spur_core::{Core, Job, JobState, NodeState};

use crate::controller::registry::NodeLive;

/// One family: its name, help text, and its series, each with the value
/// of its one label (None: no label).
#[derive(Debug)]
struct Family {
    name: String,
    help: &'static str,
    label: &'static str,
    series: Vec<(Option<String>, u64)>,
}

/// What one endpoint serves, family by family, in order.
#[derive(Debug, Default)]
pub struct Exposition {
    families: Vec<Family>,
}

impl Exposition {
    /// A family of one unlabelled series.
    fn gauge(&mut self, name: &str, help: &'static str, value: u64) {
        self.families.push(Family {
            name: name.to_string(),
            help,
            label: "",
            series: vec![(None, value)],
        });
    }

    /// A family of one series per `label` value.
    fn labelled(
        &mut self,
        name: String,
        help: &'static str,
        label: &'static str,
        series: Vec<(Option<String>, u64)>,
    ) {
        self.families.push(Family {
            name,
            help,
            label,
            series,
        });
    }

    /// Whether it holds nothing (Slurm then answers with no body).
    pub fn is_empty(&self) -> bool {
        self.families.is_empty()
    }

    /// The text exposition, as Slurm's plugin writes it: `# HELP` and
    /// `# TYPE` once per family, its series under them, no `# EOF`.
    pub fn text(self) -> String {
        let mut registry = Registry::default();
        registry.register_collector(Box::new(self));
        let mut out = String::new();
        // Writing into a String does not fail.
        let _ = prometheus_client::encoding::text::encode_registry(&mut out, &registry);
        out
    }
}

impl prometheus_client::collector::Collector for Exposition {
    fn encode(&self, mut encoder: DescriptorEncoder) -> fmt::Result {
        for f in &self.families {
            let mut family = encoder.encode_descriptor(&f.name, f.help, None, MetricType::Gauge)?;
            if let [(None, value)] = f.series.as_slice() {
                ConstGauge::new(*value).encode(family)?;
                continue;
            }
            for (label, value) in &f.series {
                let gauge = ConstGauge::new(*value);
                // A series with no label value is written without braces
                // in Slurm's; here it takes the label's empty value.
                let l = label.as_deref().unwrap_or_default();
                gauge.encode(family.encode_family(&[(f.label, l)])?)?;
            }
        }
        Ok(())
    }
}

/// What Slurm's job statistics count of a set of job records.
#[derive(Debug, Clone, Default)]
pub struct JobCounts {
    bootfail: u64,
    cancelled: u64,
    completed: u64,
    completing: u64,
    cpus_alloc: u64,
    deadline: u64,
    failed: u64,
    finished: u64,
    gpus_alloc: u64,
    hold: u64,
    jobs: u64,
    memory_alloc: u64,
    node_failed: u64,
    nodes_alloc: u64,
    oom: u64,
    pending: u64,
    preempted: u64,
    requeued: u64,
    running: u64,
    started: u64,
    timeout: u64,
}

/// The job families, in Slurm's order: each name's last word, the help
/// text, and the count. `revoked` has Slurm's own spelling in /metrics/jobs.
fn job_families(
    c: &JobCounts,
    revoked_help: &'static str,
) -> [(&'static str, &'static str, u64); 30] {
    [
        (
            "jobs_bootfail",
            "Number of jobs in BootFail state",
            c.bootfail,
        ),
        (
            "jobs_cancelled",
            "Number of jobs in Cancelled state",
            c.cancelled,
        ),
        (
            "jobs_completed",
            "Number of jobs in Completed state",
            c.completed,
        ),
        (
            "jobs_completing",
            "Number of jobs in Completing state",
            c.completing,
        ),
        // spur has no prolog stage in the controller: no job configures.
        ("jobs_configuring", "Number of jobs in Configuring state", 0),
        (
            "jobs_cpus_alloc",
            "Total number of Cpus allocated by jobs",
            c.cpus_alloc,
        ),
        (
            "jobs_deadline",
            "Number of jobs in Deadline state",
            c.deadline,
        ),
        ("jobs_expediting", "Number of jobs in Expediting state", 0),
        ("jobs_failed", "Number of jobs in Failed state", c.failed),
        // No federations.
        (
            "jobs_fed_requeued",
            "Number of jobs requeued in a federation",
            0,
        ),
        ("jobs_finished", "Number of finished jobs", c.finished),
        (
            "jobs_gpus_alloc",
            "Total number of GPUs allocated by jobs",
            c.gpus_alloc,
        ),
        ("jobs_hold", "Number of jobs in Hold state", c.hold),
        ("jobs", "Total number of jobs", c.jobs),
        (
            "jobs_memory_alloc",
            "Total memory bytes allocated by jobs",
            c.memory_alloc,
        ),
        (
            "jobs_node_failed",
            "Number of jobs in Node Failed state",
            c.node_failed,
        ),
        (
            "jobs_nodes_alloc",
            "Total number of nodes allocated by jobs",
            c.nodes_alloc,
        ),
        (
            "jobs_outofmemory",
            "Number of jobs in Out of Memory state",
            c.oom,
        ),
        ("jobs_pending", "Number of jobs in Pending state", c.pending),
        // No power saving: no job waits for a node to boot.
        (
            "jobs_powerup_node",
            "Number of jobs in PowerUp Node state",
            0,
        ),
        (
            "jobs_preempted",
            "Number of jobs in Preempted state",
            c.preempted,
        ),
        (
            "jobs_requeued",
            "Number of jobs in Requeued state",
            c.requeued,
        ),
        ("jobs_resizing", "Number of jobs in Resizing state", 0),
        ("jobs_revoked", revoked_help, 0),
        ("jobs_running", "Number of jobs in Running state", c.running),
        ("jobs_signaling", "Number of jobs being signaled", 0),
        ("jobs_stageout", "Number of jobs in StageOut state", 0),
        ("jobs_started", "Number of started jobs", c.started),
        ("jobs_suspended", "Number of jobs in Suspended state", 0),
        ("jobs_timeout", "Number of jobs in Timeout state", c.timeout),
    ]
}

impl JobCounts {
    /// Counts `job`; `weight` is what a pending record stands for (an
    /// array's record, its tasks not yet split off), for the pending and
    /// held counts; `each` what it adds to the total.
    fn add(&mut self, job: &Job, weight: u64, each: u64) {
        self.jobs += each;
        let state = job.state();
        match state {
            JobState::Pending => {
                self.pending += weight;
                if job.hold().is_some() {
                    self.hold += weight;
                }
            }
            JobState::Running => {
                self.running += 1;
                // Asked to end: COMPLETING until its node says it is gone,
                // and REQUEUED too when it goes back to the queue after.
                if let Some(cause) = job.kill_cause() {
                    self.completing += 1;
                    self.requeued += u64::from(cause.is_requeue());
                }
                for a in job.allocation() {
                    self.cpus_alloc += u64::from(a.res.cpus);
                    self.memory_alloc += a.res.mem_mb;
                    self.gpus_alloc += u64::from(a.res.gpus);
                }
            }
            JobState::Completed => self.completed += 1,
            JobState::Failed => self.failed += 1,
            JobState::Cancelled => self.cancelled += 1,
            JobState::Timeout => self.timeout += 1,
            JobState::NodeFail => self.node_failed += 1,
            JobState::Preempted => self.preempted += 1,
            JobState::Deadline => self.deadline += 1,
            JobState::OutOfMemory => self.oom += 1,
        }
        if state != JobState::Pending {
            self.started += 1;
        }
        if state.is_finished() {
            self.finished += 1;
        }
    }
}

/// What a pending record stands for: an array's record its unsplit tasks.
fn weight(job: &Job) -> u64 {
    match job.array() {
        Some(a) if a.is_meta() => (a.pending_tasks().len() as u64).max(1),
        _ => 1,
    }
}

/// `/metrics/jobs`.
pub fn jobs(core: &Core) -> Exposition {
    let mut c = JobCounts::default();
    let mut nodes = vec![false; core.nodes().len()];
    for job in core.jobs() {
        let w = weight(job);
        c.add(job, w, w);
        if job.state() == JobState::Running {
            for a in job.allocation() {
                nodes[a.node.index()] = true;
            }
        }
    }
    c.nodes_alloc = nodes.iter().filter(|&&n| n).count() as u64;
    let mut out = Exposition::default();
    for (name, help, value) in job_families(&c, "Number of jobs in Rvoked state") {
        out.gauge(&format!("slurm_{name}"), help, value);
    }
    out
}

/// `/metrics/jobs-users-accts`: the job families per user, then per
/// account, each in order of first appearance among the jobs. A record
/// counts once in the totals here, as in Slurm's.
pub fn users_accounts(core: &Core, user_name: &dyn Fn(u32) -> String) -> Exposition {
    /// Counts and allocated nodes of one user or account.
    #[derive(Default)]
    struct Group {
        counts: JobCounts,
        nodes: Vec<bool>,
    }
    let mut users: Vec<(String, Group)> = Vec::new();
    let mut user_at: HashMap<u32, usize> = HashMap::new();
    let mut accounts: Vec<(Option<String>, Group)> = Vec::new();
    let mut account_at: HashMap<Option<&str>, usize> = HashMap::new();
    let node_count = core.nodes().len();
    for job in core.jobs() {
        let uid = job.spec.user.0;
        let u = *user_at.entry(uid).or_insert_with(|| {
            users.push((user_name(uid), Group::default()));
            users.len() - 1
        });
        let account = job.spec.account.as_deref();
        let a = *account_at.entry(account).or_insert_with(|| {
            accounts.push((account.map(str::to_string), Group::default()));
            accounts.len() - 1
        });
        for group in [&mut users[u].1, &mut accounts[a].1] {
            group.counts.add(job, weight(job), 1);
            if job.state() == JobState::Running {
                group.nodes.resize(node_count, false);
                for alloc in job.allocation() {
                    group.nodes[alloc.node.index()] = true;
                }
            }
        }
    }
    let mut out = Exposition::default();
    let finish = |groups: &mut Vec<(Option<String>, Group)>| {
        for (_, g) in groups.iter_mut() {
            g.counts.nodes_alloc = g.nodes.iter().filter(|&&n| n).count() as u64;
        }
    };
    let mut users: Vec<(Option<String>, Group)> =
        users.into_iter().map(|(n, g)| (Some(n), g)).collect();
    finish(&mut users);
    finish(&mut accounts);
    for (prefix, label, groups) in [
        ("user", "username", &users),
        ("account", "account", &accounts),
    ] {
        if groups.is_empty() {
            continue;
        }
        let tables: Vec<_> = groups
            .iter()
            .map(|(_, g)| job_families(&g.counts, "Number of jobs revoked"))
            .collect();
        for (i, (name, help, _)) in tables[0].iter().enumerate() {
            let series = groups
                .iter()
                .zip(&tables)
                .map(|((key, _), table)| (key.clone(), table[i].2))
                .collect();
            out.labelled(format!("slurm_{prefix}_{name}"), help, label, series);
        }
    }
    out
}

/// One figure of a node.
type Figure = fn(&NodeFigures<'_>) -> u64;

/// One node's figures and state, as Slurm's node statistics read them.
struct NodeFigures<'a> {
    name: &'a str,
    cpus: u64,
    cpus_alloc: u64,
    gpus: u64,
    gpus_alloc: u64,
    mem: u64,
    mem_alloc: u64,
    mem_free: u64,
    state: NodeState,
    drain: bool,
    not_responding: bool,
    completing: bool,
}

fn figures<'a>(core: &Core, node: &'a Node, live: &NodeLive) -> NodeFigures<'a> {
    let used = node.used();
    let completing = node.jobs().iter().any(|j| {
        core.job(*j)
            .is_some_and(|j| j.kill_cause().is_some_and(|c| !c.is_requeue()))
    });
    NodeFigures {
        name: &node.config.name,
        cpus: u64::from(node.config.cpus),
        cpus_alloc: u64::from(used.cpus),
        gpus: u64::from(node.config.gpus),
        gpus_alloc: u64::from(used.gpus),
        mem: node.config.mem_mb,
        mem_alloc: used.mem_mb,
        mem_free: live.free_mem.unwrap_or(0),
        state: node.state(),
        drain: node.is_drain(),
        not_responding: live.not_responding,
        completing,
    }
}

/// `/metrics/nodes`: ten families per node, then the cluster's counts.
pub fn nodes(core: &Core, live: &[NodeLive]) -> Exposition {
    let nodes: Vec<NodeFigures<'_>> = core
        .nodes()
        .iter()
        .zip(live)
        .map(|(n, l)| figures(core, n, l))
        .collect();
    let mut out = Exposition::default();
    let per_node: [(&str, &'static str, Figure); 10] = [
        ("slurm_node_cpus", "Total number of cpus in the node", |n| {
            n.cpus
        }),
        ("slurm_node_cpus_alloc", "Allocated cpus in the node", |n| {
            n.cpus_alloc
        }),
        (
            "slurm_node_cpus_effective",
            "CPUs allocatable to jobs not reserved for system usage",
            |n| n.cpus,
        ),
        ("slurm_node_cpus_idle", "Idle cpus in the node", |n| {
            n.cpus.saturating_sub(n.cpus_alloc)
        }),
        ("slurm_node_gpus", "Total number of GPUs in the node", |n| {
            n.gpus
        }),
        (
            "slurm_node_gpus_alloc",
            "Number of GPUs currently allocated by jobs on the node",
            |n| n.gpus_alloc,
        ),
        (
            "slurm_node_memory_alloc_bytes",
            "Bytes allocated to jobs in the node",
            |n| n.mem_alloc,
        ),
        (
            "slurm_node_memory_effective_bytes",
            "Memory allocatable to jobs not reserved for system usage",
            |n| n.mem,
        ),
        (
            "slurm_node_memory_free_bytes",
            "Free memory in bytes of the node",
            |n| n.mem_free,
        ),
        (
            "slurm_node_memory_bytes",
            "Total memory in bytes of the node",
            |n| n.mem,
        ),
    ];
    if !nodes.is_empty() {
        for (name, help, value) in per_node {
            let series = nodes
                .iter()
                .map(|n| (Some(n.name.to_string()), value(n)))
                .collect();
            out.labelled(name.to_string(), help, "node", series);
        }
    }
    let count =
        |pred: &dyn Fn(&NodeFigures<'_>) -> bool| nodes.iter().filter(|n| pred(n)).count() as u64;
    let base = |n: &NodeFigures<'_>| base_state(n);
    let draining =
        |n: &NodeFigures<'_>| n.drain && matches!(base(n), Base::Allocated | Base::Mixed);
    let totals: [(&str, &'static str, u64); 28] = [
        ("slurm_nodes", "Total number of nodes", nodes.len() as u64),
        (
            "slurm_nodes_alloc",
            "Number of nodes in Allocated state",
            count(&|n| base(n) == Base::Allocated),
        ),
        ("slurm_nodes_blocked", "Number of nodes in Blocked state", 0),
        (
            "slurm_nodes_completing",
            "Number of nodes with Completing flag",
            count(&|n| n.completing),
        ),
        ("slurm_nodes_cloud", "Number of Cloud nodes", 0),
        (
            "slurm_nodes_down",
            "Number of nodes in Down state",
            count(&|n| base(n) == Base::Down),
        ),
        (
            "slurm_nodes_drain",
            "Number of nodes with Drain flag",
            count(&|n| n.drain && !draining(n)),
        ),
        (
            "slurm_nodes_drained",
            "Number of drained nodes",
            count(&|n| n.drain && !matches!(base(n), Base::Allocated | Base::Mixed)),
        ),
        (
            "slurm_nodes_draining",
            "Number of nodes in draining condition (Drain state with active jobs)",
            count(&draining),
        ),
        (
            "slurm_nodes_dyn_future",
            "Number of future dynamic nodes",
            0,
        ),
        ("slurm_nodes_dyn_normal", "Number of dynamic nodes", 0),
        ("slurm_nodes_external", "Number of external nodes", 0),
        ("slurm_nodes_fail", "Number of nodes with Fail flag", 0),
        ("slurm_nodes_future", "Number of nodes in Future state", 0),
        (
            "slurm_nodes_idle",
            "Number of nodes in Idle state",
            count(&|n| base(n) == Base::Idle),
        ),
        (
            "slurm_nodes_invalid_reg",
            "Number of nodes with Invalid Registration flag",
            0,
        ),
        (
            "slurm_nodes_maint",
            "Number of nodes with Maintenance flag",
            0,
        ),
        (
            "slurm_nodes_mixed",
            "Number of nodes in Mixed state",
            count(&|n| base(n) == Base::Mixed),
        ),
        (
            "slurm_nodes_noresp",
            "Number of nodes with Not Responding flag",
            count(&|n| n.not_responding),
        ),
        (
            "slurm_nodes_planned",
            "Number of nodes with Planned flag",
            0,
        ),
        (
            "slurm_nodes_power_down",
            "Number of nodes marked to be powered down",
            0,
        ),
        (
            "slurm_nodes_power_up",
            "Number of nodes marked to be powered up",
            0,
        ),
        (
            "slurm_nodes_powered_down",
            "Number of nodes powered down",
            0,
        ),
        ("slurm_nodes_powering_up", "Number of nodes powering up", 0),
        (
            "slurm_nodes_reboot_issued",
            "Number of nodes with Reboot Issued flag",
            0,
        ),
        (
            "slurm_nodes_reboot_req",
            "Number of nodes with Reboot Requested flag",
            0,
        ),
        ("slurm_nodes_resv", "Number of nodes with Reserved flag", 0),
        (
            "slurm_nodes_unknown",
            "Number of nodes in Unknown state",
            count(&|n| base(n) == Base::Unknown),
        ),
    ];
    for (name, help, value) in totals {
        out.gauge(name, help, value);
    }
    out
}

/// A node's base state, as Slurm's statistics chain decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Down,
    Mixed,
    Allocated,
    Idle,
    Unknown,
}

fn base_state(n: &NodeFigures<'_>) -> Base {
    match n.state {
        NodeState::Down => Base::Down,
        NodeState::Unknown => Base::Unknown,
        _ if n.cpus_alloc > 0 && n.cpus_alloc < n.cpus => Base::Mixed,
        NodeState::Allocated | NodeState::Mixed | NodeState::Draining => Base::Allocated,
        NodeState::Idle | NodeState::Drained => Base::Idle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_written_as_slurms_plugin_writes_them() {
        let mut e = Exposition::default();
        e.labelled(
            "slurm_node_cpus".into(),
            "Total number of cpus in the node",
            "node",
            vec![(Some("n1".into()), 8), (Some("n2".into()), 4)],
        );
        e.gauge("slurm_nodes", "Total number of nodes", 2);
        e.labelled(
            "slurm_account_jobs".into(),
            "Total number of jobs",
            "account",
            vec![(None, 3)],
        );
        assert_eq!(
            e.text(),
            "# HELP slurm_node_cpus Total number of cpus in the node\n\
             # TYPE slurm_node_cpus gauge\n\
             slurm_node_cpus{node=\"n1\"} 8\n\
             slurm_node_cpus{node=\"n2\"} 4\n\
             # HELP slurm_nodes Total number of nodes\n\
             # TYPE slurm_nodes gauge\n\
             slurm_nodes 2\n\
             # HELP slurm_account_jobs Total number of jobs\n\
             # TYPE slurm_account_jobs gauge\n\
             slurm_account_jobs 3\n"
        );
    }
}
