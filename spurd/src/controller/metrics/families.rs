//! The metric families of slurmctld's OpenMetrics endpoints (Slurm 26.05's
//! metrics/openmetrics plugin): their names, help texts and labels, in the
//! order Slurm writes them, filled from the core's jobs and nodes, and
//! after them spur's own (`spur_*`: NVLink domains' GPUs and the domains
//! jobs span). Every family is a gauge. As in Slurm, memory is in
//! megabytes whatever a name says; unlike Slurm's, no count wraps at 16
//! or 32 bits.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use spur_core::node::Node;
use spur_core::{Core, Job, JobState, NodeId, NodeState};

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

    /// A family of one series per `label` value. Values are escaped as the
    /// text format asks (prometheus-client writes them as given): a user
    /// names their job's account, and no name may forge a series.
    fn labelled(
        &mut self,
        name: String,
        help: &'static str,
        label: &'static str,
        series: Vec<(Option<String>, u64)>,
    ) {
        let series = series
            .into_iter()
            .map(|(value, n)| (value.map(|v| escape(&v)), n))
            .collect();
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

/// A label value as the text format writes it: `\\`, `\"` and `\n` for
/// a backslash, a quote and a line break.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
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
    /// Nodes the running jobs hold, by index.
    nodes: HashSet<usize>,
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
            c.nodes.len() as u64,
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
                    self.nodes.insert(a.node.index());
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

/// What running jobs' processes use of each node's GPUs, as the agents
/// last sampled them: (SM percent summed over the GPUs, memory in bytes).
pub type GpuUse = BTreeMap<NodeId, (u64, u64)>;

/// Bytes as Slurm's memory figures give them: megabytes.
fn megabytes(bytes: u64) -> u64 {
    bytes / (1024 * 1024)
}

/// `/metrics/jobs`.
pub fn jobs(core: &Core, gpu_use: &GpuUse) -> Exposition {
    let mut c = JobCounts::default();
    for job in core.jobs() {
        let w = weight(job);
        c.add(job, w, w);
    }
    let mut out = Exposition::default();
    for (name, help, value) in job_families(&c, "Number of jobs in Rvoked state") {
        out.gauge(&format!("slurm_{name}"), help, value);
    }
    // spur's own: how many NVLink domains running jobs span.
    let spans = core.domain_spans();
    if !spans.is_empty() {
        let series = spans
            .into_iter()
            .map(|(domains, jobs)| (Some(domains.to_string()), u64::from(jobs)))
            .collect();
        out.labelled(
            "spur_jobs_domains_spanned".to_string(),
            "Running jobs by the number of NVLink domains they span",
            "domains",
            series,
        );
    }
    // And what their processes use of the GPUs, where NVML is read.
    if !gpu_use.is_empty() {
        out.gauge(
            "spur_jobs_gpus_util",
            "SM utilisation of running jobs' GPU processes, percent summed over GPUs",
            gpu_use.values().map(|u| u.0).sum(),
        );
        out.gauge(
            "spur_jobs_gpus_mem_used",
            "GPU memory held by running jobs' processes in megabytes",
            megabytes(gpu_use.values().map(|u| u.1).sum()),
        );
    }
    out
}

/// `/metrics/jobs-users-accts`: the job families per user, then per
/// account, each in order of first appearance among the jobs. A record
/// counts once in the totals here, as in Slurm's.
pub fn users_accounts(core: &Core, user_name: &dyn Fn(u32) -> String) -> Exposition {
    let mut users: Vec<(Option<String>, JobCounts)> = Vec::new();
    let mut user_at: HashMap<u32, usize> = HashMap::new();
    let mut accounts: Vec<(Option<String>, JobCounts)> = Vec::new();
    let mut account_at: HashMap<Option<&str>, usize> = HashMap::new();
    for job in core.jobs() {
        let uid = job.spec.user.0;
        let u = *user_at.entry(uid).or_insert_with(|| {
            users.push((Some(user_name(uid)), JobCounts::default()));
            users.len() - 1
        });
        let account = job.spec.account.as_deref();
        let a = *account_at.entry(account).or_insert_with(|| {
            accounts.push((account.map(str::to_string), JobCounts::default()));
            accounts.len() - 1
        });
        users[u].1.add(job, weight(job), 1);
        accounts[a].1.add(job, weight(job), 1);
    }
    let mut out = Exposition::default();
    for (prefix, label, groups) in [
        ("user", "username", &users),
        ("account", "account", &accounts),
    ] {
        if groups.is_empty() {
            continue;
        }
        let tables: Vec<_> = groups
            .iter()
            .map(|(_, c)| job_families(c, "Number of jobs revoked"))
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
        completing: crate::controller::convert::completing(core, node),
    }
}

/// `/metrics/nodes`: ten families per node, then the cluster's counts.
pub fn nodes(core: &Core, live: &[NodeLive], gpu_use: &GpuUse) -> Exposition {
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
    domains(core, &mut out);
    gpu_use_per_node(core, gpu_use, &mut out);
    out
}

/// spur's own: what jobs' processes use of each node's GPUs, for nodes
/// whose agents read NVML.
fn gpu_use_per_node(core: &Core, gpu_use: &GpuUse, out: &mut Exposition) {
    if gpu_use.is_empty() {
        return;
    }
    let name = |n: &NodeId| Some(core.nodes()[n.index()].config.name.clone());
    out.labelled(
        "spur_node_gpus_util".to_string(),
        "SM utilisation of the node's GPU processes in jobs, percent summed over its GPUs",
        "node",
        gpu_use.iter().map(|(n, u)| (name(n), u.0)).collect(),
    );
    out.labelled(
        "spur_node_gpus_mem_used".to_string(),
        "GPU memory held by jobs' processes on the node in megabytes",
        "node",
        gpu_use
            .iter()
            .map(|(n, u)| (name(n), megabytes(u.1)))
            .collect(),
    );
}

/// spur's own: each WireGuard mesh member as the controller's interface
/// sees it (bytes each way, its latest handshake), where the mesh is on.
pub fn mesh(status: &spur_proto::MeshStatus, out: &mut Exposition) {
    let each = |f: &dyn Fn(&spur_proto::MeshPeerStatus) -> Option<u64>| {
        status
            .peers
            .iter()
            .filter_map(|p| f(p).map(|v| (Some(p.name.clone()), v)))
            .collect()
    };
    out.labelled(
        "spur_mesh_peer_received_bytes".to_string(),
        "Bytes the controller's mesh interface received from the member",
        "node",
        each(&|p| Some(p.rx_bytes)),
    );
    out.labelled(
        "spur_mesh_peer_sent_bytes".to_string(),
        "Bytes the controller's mesh interface sent to the member",
        "node",
        each(&|p| Some(p.tx_bytes)),
    );
    out.labelled(
        "spur_mesh_peer_last_handshake_timestamp_seconds".to_string(),
        "When the member last completed a handshake with the controller, in seconds since the epoch",
        "node",
        each(&|p| p.last_handshake),
    );
}

/// spur's own families after Slurm's: each NVLink domain's GPUs.
fn domains(core: &Core, out: &mut Exposition) {
    let domains = core.domain_gpus();
    if domains.is_empty() {
        return;
    }
    let rows: [(&str, &'static str, DomainFigure); 4] = [
        (
            "spur_domain_gpus",
            "GPUs of the NVLink domain's nodes",
            |d| d.total,
        ),
        (
            "spur_domain_gpus_alloc",
            "GPUs of the NVLink domain held by jobs",
            |d| d.alloc,
        ),
        (
            "spur_domain_gpus_idle",
            "Free GPUs of the NVLink domain on nodes that take work",
            |d| d.idle,
        ),
        (
            "spur_domain_gpus_stranded",
            "Free GPUs of the NVLink domain that no job waiting for resources could use now",
            |d| d.stranded,
        ),
    ];
    for (name, help, value) in rows {
        let series = domains
            .iter()
            .map(|d| (Some(d.name.clone()), u64::from(value(d))))
            .collect();
        out.labelled(name.to_string(), help, "domain", series);
    }
}

/// One figure of a domain.
type DomainFigure = fn(&spur_core::DomainGpus) -> u32;

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

/// What Slurm's partition statistics count of a partition's pending jobs
/// besides their states.
#[derive(Debug, Clone, Default)]
struct PendingShape {
    /// Jobs not ended (pending, running, completing).
    active: u64,
    max_nodes: u64,
    max_nodes_nohold: u64,
    min_nodes: u64,
    min_nodes_nohold: u64,
    /// Jobs waiting on the partition's node limits.
    wait_part_node_limit: u64,
}

impl PendingShape {
    fn add(&mut self, job: &Job) {
        let state = job.state();
        if !state.is_finished() {
            self.active += 1;
        }
        if state != JobState::Pending {
            return;
        }
        let min = u64::from(job.shape().nodes_min);
        let max = u64::from(job.shape().nodes_max).max(min);
        self.max_nodes = self.max_nodes.max(max);
        self.min_nodes = self.min_nodes.max(min);
        if job.hold().is_none() {
            self.max_nodes_nohold = self.max_nodes_nohold.max(max);
            self.min_nodes_nohold = self.min_nodes_nohold.max(min);
        }
        if job.reason() == spur_core::Reason::PartitionNodeLimit {
            self.wait_part_node_limit += 1;
        }
    }
}

/// `/metrics/partitions`: the count, then 72 families per partition.
pub fn partitions(core: &Core, live: &[NodeLive]) -> Exposition {
    let parts = core.partitions();
    let mut jobs = vec![JobCounts::default(); parts.len()];
    let mut shapes = vec![PendingShape::default(); parts.len()];
    for job in core.jobs() {
        let p = job.partition().index();
        jobs[p].add(job, weight(job), 1);
        shapes[p].add(job);
    }
    let nodes: Vec<NodeFigures<'_>> = core
        .nodes()
        .iter()
        .zip(live)
        .map(|(n, l)| figures(core, n, l))
        .collect();
    let mut out = Exposition::default();
    out.gauge(
        "slurm_partitions",
        "Total number of partitions",
        parts.len() as u64,
    );
    if parts.is_empty() {
        return out;
    }
    // Each partition's row of 72 values, in Slurm's order.
    let rows: Vec<[(&'static str, &'static str, u64); 72]> = parts
        .iter()
        .zip(jobs.iter().zip(&shapes))
        .map(|(part, (c, shape))| {
            let members: Vec<&NodeFigures<'_>> =
                part.nodes.iter().map(|n| &nodes[n.index()]).collect();
            let count = |pred: &dyn Fn(&NodeFigures<'_>) -> bool| {
                members.iter().filter(|n| pred(n)).count() as u64
            };
            let sum = |get: &dyn Fn(&NodeFigures<'_>) -> u64| members.iter().map(|n| get(n)).sum();
            let busy = |n: &NodeFigures<'_>| matches!(base_state(n), Base::Allocated | Base::Mixed);
            partition_row(c, shape, &count, &sum, &busy, part.nodes.len() as u64)
        })
        .collect();
    for i in 0..72 {
        let (name, help, _) = rows[0][i];
        let series = parts
            .iter()
            .zip(&rows)
            .map(|(part, row)| (Some(part.name.clone()), row[i].2))
            .collect();
        out.labelled(format!("slurm_partition_{name}"), help, "partition", series);
    }
    out
}

/// A counter of a partition's nodes.
type NodeCount<'a> = dyn Fn(&dyn Fn(&NodeFigures<'_>) -> bool) -> u64 + 'a;
/// A sum over a partition's nodes.
type NodeSum<'a> = dyn Fn(&dyn Fn(&NodeFigures<'_>) -> u64) -> u64 + 'a;

/// One partition's 72 families: name (after `slurm_partition_`), help
/// text and value.
fn partition_row(
    c: &JobCounts,
    shape: &PendingShape,
    count: &NodeCount<'_>,
    sum: &NodeSum<'_>,
    busy: &dyn Fn(&NodeFigures<'_>) -> bool,
    total_nodes: u64,
) -> [(&'static str, &'static str, u64); 72] {
    let base = |b: Base| move |n: &NodeFigures<'_>| base_state(n) == b;
    [
        ("jobs", "Number of jobs in this partition", shape.active),
        ("jobs_bootfail", "Number of jobs in BootFail state", c.bootfail),
        ("jobs_cancelled", "Number of jobs in Cancelled state", c.cancelled),
        ("jobs_completed", "Number of jobs in Completed state", c.completed),
        ("jobs_completing", "Number of jobs in Completing state", c.completing),
        ("jobs_configuring", "Number of jobs in Configuring state", 0),
        ("jobs_cpus_alloc", "Total number of Cpus allocated by jobs", c.cpus_alloc),
        ("jobs_gpus_alloc", "Total number of GPUs allocated by jobs", c.gpus_alloc),
        ("jobs_deadline", "Number of jobs in Deadline state", c.deadline),
        ("jobs_expediting", "Number of jobs in Expediting state", 0),
        ("jobs_failed", "Number of jobs in Failed state", c.failed),
        ("jobs_fed_requeued", "Number of jobs requeued in a federation", 0),
        ("jobs_finished", "Number of jobs in Finished", c.finished),
        ("jobs_hold", "Number of jobs in Hold state", c.hold),
        (
            "jobs_max_job_nodes",
            "Max of the max_nodes required of all pending jobs in that partition",
            shape.max_nodes,
        ),
        (
            "jobs_max_job_nodes_nohold",
            "Max of the max_nodes required of all pending jobs in that partition excluding Held jobs",
            shape.max_nodes_nohold,
        ),
        ("jobs_memory_alloc", "Total memory bytes allocated by jobs", c.memory_alloc),
        (
            "jobs_min_job_nodes",
            "Max of the min_nodes required of all pending jobs in that partition",
            shape.min_nodes,
        ),
        (
            "jobs_min_job_nodes_nohold",
            "Max of the min_nodes required of all pending jobs in that partition excluding Held jobs",
            shape.min_nodes_nohold,
        ),
        ("jobs_node_failed", "Number of jobs in Node Failed state", c.node_failed),
        ("jobs_outofmemory", "Number of jobs in Out of Memory state", c.oom),
        ("jobs_pending", "Number of jobs in Pending state", c.pending),
        ("jobs_powerup_node", "Number of jobs in PowerUp Node state", 0),
        ("jobs_preempted", "Number of jobs in Preempted state", c.preempted),
        ("jobs_requeued", "Number of jobs in Requeued state", c.requeued),
        ("jobs_resizing", "Number of jobs in Resizing state", 0),
        ("jobs_revoked", "Number of revoked jobs", 0),
        ("jobs_running", "Number of jobs in Running state", c.running),
        ("jobs_signaling", "Number of jobs in Signaling state", 0),
        ("jobs_stageout", "Number of jobs in StageOut state", 0),
        ("jobs_started", "Number of jobs started", c.started),
        ("jobs_suspended", "Number of jobs in Suspended state", 0),
        ("jobs_timeout", "Number of jobs in Timeout state", c.timeout),
        (
            "jobs_wait_part_node_limit",
            "Jobs wait partition node limit",
            shape.wait_part_node_limit,
        ),
        ("nodes_alloc", "Nodes allocated", count(&base(Base::Allocated))),
        ("nodes_blocked", "Nodes blocked", 0),
        ("nodes_cg", "Nodes in completing state", count(&|n| n.completing)),
        ("nodes_cloud", "Cloud nodes", 0),
        (
            "nodes_cpus_efctv",
            "Number of effective CPUs on all nodes, excludes CoreSpec",
            sum(&|n| n.cpus),
        ),
        (
            "nodes_cpus_idle",
            "Number of idle CPUs on all nodes",
            sum(&|n| n.cpus.saturating_sub(n.cpus_alloc)),
        ),
        ("nodes_cpus_alloc", "Number of allocated cpus", sum(&|n| n.cpus_alloc)),
        ("nodes_down", "Nodes in Down state", count(&base(Base::Down))),
        ("nodes_drain", "Nodes in Drain state", count(&|n| n.drain && !busy(n))),
        ("nodes_drained", "Nodes in Drained state", count(&|n| n.drain && !busy(n))),
        (
            "nodes_draining",
            "Number of nodes in draining condition (Drain state with active jobs)",
            count(&|n| n.drain && busy(n)),
        ),
        ("nodes_dyn_future", "Dynamic nodes in Future state", 0),
        ("nodes_dyn_normal", "Dynamic nodes", 0),
        ("nodes_external", "External nodes", 0),
        ("nodes_fail", "Nodes in Fail state", 0),
        ("nodes_future", "Nodes in Future state", 0),
        ("nodes_idle", "Nodes in Idle state", count(&base(Base::Idle))),
        ("nodes_invalid_reg", "Number of nodes with Invalid Registration flag", 0),
        ("nodes_maint", "Nodes in maintenance state", 0),
        ("nodes_mem_alloc", "Amount of allocated memory of all nodes", sum(&|n| n.mem_alloc)),
        ("nodes_mem_avail", "Amount of available memory of all nodes", sum(&|n| n.mem)),
        ("nodes_mem_free", "Amount of free memory in all nodes", sum(&|n| n.mem_free)),
        ("nodes_mem_tot", "Total amount of memory of all nodes", sum(&|n| n.mem)),
        ("nodes_mixed", "Nodes in Mixed state", count(&base(Base::Mixed))),
        ("nodes_no_resp", "Nodes in Not Responding state", count(&|n| n.not_responding)),
        ("nodes_planned", "Nodes in Planned state", 0),
        ("nodes_power_down", "Nodes marked to Power Down", 0),
        ("nodes_power_up", "Nodes marked to Power Up", 0),
        ("nodes_powered_down", "Powered down nodes", 0),
        ("nodes_powering_down", "Powering down nodes", 0),
        ("nodes_powering_up", "Powering up nodes", 0),
        ("nodes_reboot_issued", "Nodes which initiated reboot", 0),
        ("nodes_reboot_requested", "Nodes with Reboot Requested flag", 0),
        ("nodes_resv", "Nodes with Reserved flag", 0),
        ("nodes_unknown", "Nodes in Unknown state", count(&base(Base::Unknown))),
        ("cpus", "Partition total cpus", sum(&|n| n.cpus)),
        ("gpus", "Partition total gpus", sum(&|n| n.gpus)),
        ("nodes", "Partition total nodes", total_nodes),
    ]
}

/// `/metrics/scheduler`: the sdiag counters (`stats`), under Slurm's names.
/// spur's one scheduling pass walks the whole queue: every pass ends at
/// the end of it, and each backfill cycle too.
pub fn scheduler(s: &spur_proto::Stats) -> Exposition {
    let (m, b) = (&s.sched, &s.backfill);
    let mean = |sum: u64, n: u32| spur_proto::stats::mean(sum, u64::from(n));
    let rows: [(&str, &'static str, u64); 58] = [
        (
            "slurm_agent_cnt",
            "Number of agent threads",
            u64::from(s.agents),
        ),
        (
            "slurm_agent_queue_size",
            "Outgoing RPC retry queue length",
            u64::from(s.agent_queue),
        ),
        (
            "slurm_agent_thread_cnt",
            "Total active agent-created threads",
            0,
        ),
        (
            "slurm_bf_depth_mean",
            "Mean backfill cycle depth",
            mean(b.depth_sum, b.cycles),
        ),
        (
            "slurm_bf_mean_cycle",
            "Mean backfill cycle time",
            mean(b.sum_us, b.cycles),
        ),
        (
            "slurm_bf_mean_table_sz",
            "Mean backfill table size",
            mean(b.table_size_sum, b.cycles),
        ),
        (
            "slurm_bf_queue_len_mean",
            "Mean backfill queue length",
            mean(b.queue_len_sum, b.cycles),
        ),
        (
            "slurm_bf_try_depth_mean",
            "Mean depth attempts in backfill",
            mean(b.depth_try_sum, b.cycles),
        ),
        (
            "slurm_backfilled_het_jobs",
            "Heterogeneous components backfilled",
            0,
        ),
        (
            "slurm_backfilled_jobs",
            "Total backfilled jobs since reset",
            u64::from(b.jobs_total),
        ),
        // The pass runs inside the actor's turn: never while a scrape is answered.
        ("slurm_bf_active", "Backfill scheduler active jobs", 0),
        (
            "slurm_bf_cycle_cnt",
            "Backfill cycle count",
            u64::from(b.cycles),
        ),
        ("slurm_bf_cycle_last", "Last backfill cycle time", b.last_us),
        ("slurm_bf_cycle_max", "Max backfill cycle time", b.max_us),
        (
            "slurm_bf_cycle_tot",
            "Sum of backfill cycle times",
            b.sum_us,
        ),
        (
            "slurm_bf_depth_tot",
            "Sum of backfill job depths",
            b.depth_sum,
        ),
        (
            "slurm_bf_depth_try_tot",
            "Sum of backfill depth attempts",
            b.depth_try_sum,
        ),
        (
            "slurm_bf_last_depth",
            "Last backfill depth",
            u64::from(b.last_depth),
        ),
        (
            "slurm_bf_last_depth_try",
            "Last backfill depth attempts",
            u64::from(b.last_depth_try),
        ),
        (
            "slurm_bf_queue_len",
            "Backfill queue length",
            u64::from(b.queue_len),
        ),
        (
            "slurm_bf_queue_len_tot",
            "Sum of backfill queue lengths",
            b.queue_len_sum,
        ),
        (
            "slurm_bf_table_size",
            "Backfill table size",
            u64::from(b.table_size),
        ),
        (
            "slurm_bf_table_size_tot",
            "Sum of backfill table sizes",
            b.table_size_sum,
        ),
        (
            "slurm_bf_when_last_cycle",
            "Timestamp of last backfill cycle",
            b.last_when,
        ),
        (
            "slurm_sdiag_jobs_canceled",
            "Jobs canceled since reset",
            u64::from(s.jobs_canceled),
        ),
        (
            "slurm_sdiag_jobs_completed",
            "Jobs completed since reset",
            u64::from(s.jobs_completed),
        ),
        (
            "slurm_sdiag_jobs_failed",
            "Jobs failed since reset",
            u64::from(s.jobs_failed),
        ),
        (
            "slurm_sdiag_jobs_pending",
            "Jobs pending at timestamp",
            u64::from(s.jobs_pending),
        ),
        (
            "slurm_sdiag_jobs_running",
            "Jobs running at timestamp",
            u64::from(s.jobs_running),
        ),
        (
            "slurm_sdiag_jobs_started",
            "Jobs started since reset",
            u64::from(s.jobs_started),
        ),
        (
            "slurm_sdiag_jobs_submitted",
            "Jobs submitted since reset",
            u64::from(s.jobs_submitted),
        ),
        ("slurm_sdiag_job_states_ts", "Job states timestamp", s.now),
        (
            "slurm_last_backfilled_jobs",
            "Backfilled jobs since last cycle",
            u64::from(b.jobs),
        ),
        (
            "slurm_sdiag_latency",
            "Measurement latency",
            s.clock_latency_us,
        ),
        (
            "slurm_schedule_cycle_cnt",
            "Scheduling cycle count",
            u64::from(m.cycles),
        ),
        (
            "slurm_schedule_cycle_depth",
            "Processed jobs depth total",
            m.depth_sum,
        ),
        (
            "slurm_schedule_cycle_last",
            "Last scheduling cycle time",
            m.last_us,
        ),
        (
            "slurm_schedule_cycle_max",
            "Max scheduling cycle time",
            m.max_us,
        ),
        (
            "slurm_schedule_cycle_tot",
            "Sum of scheduling cycle times",
            m.sum_us,
        ),
        (
            "slurm_schedule_queue_len",
            "Jobs pending queue length",
            u64::from(m.last_queue_len),
        ),
        (
            "slurm_sched_exit_end",
            "End of job queue",
            u64::from(m.cycles),
        ),
        ("slurm_sched_exit_max_depth", "Hit default_queue_depth", 0),
        (
            "slurm_sched_exit_max_job_start",
            "Hit sched_max_job_start",
            0,
        ),
        ("slurm_sched_exit_lic", "Blocked on licenses", 0),
        ("slurm_sched_exit_rpc_cnt", "Hit max_rpc_cnt", 0),
        ("slurm_sched_exit_timeout", "Timeout (max_sched_time)", 0),
        ("slurm_bf_exit_end", "End of job queue", u64::from(b.cycles)),
        ("slurm_bf_exit_max_job_start", "Hit bf_max_job_start", 0),
        ("slurm_bf_exit_max_job_test", "Hit bf_max_job_test", 0),
        ("slurm_bf_exit_state_changed", "System state changed", 0),
        (
            "slurm_bf_exit_table_limit",
            "Hit table size limit (bf_node_space_size)",
            0,
        ),
        ("slurm_bf_exit_timeout", "Timeout (bf_max_time)", 0),
        (
            "slurm_sched_mean_cycle",
            "Mean scheduling cycle time",
            mean(m.sum_us, m.cycles),
        ),
        (
            "slurm_sched_mean_depth_cycle",
            "Mean depth of scheduling cycles",
            mean(m.depth_sum, m.cycles),
        ),
        (
            "slurm_server_thread_cnt",
            "Active slurmctld threads count",
            u64::from(s.server_threads),
        ),
        (
            "slurm_slurmdbd_queue_size",
            "Queued messages to SlurmDBD",
            0,
        ),
        (
            "slurm_last_proc_req_start",
            "Timestamp of last process request start",
            s.since,
        ),
        (
            "slurm_sched_stats_timestamp",
            "Statistics snapshot timestamp",
            s.now,
        ),
    ];
    let mut out = Exposition::default();
    for (name, help, value) in rows {
        out.gauge(name, help, value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_cannot_forge_series() {
        let mut e = Exposition::default();
        let account = "x\"} 1\nslurm_nodes_down 500\n#\\".to_string();
        e.labelled(
            "slurm_account_jobs".into(),
            "Total number of jobs",
            "account",
            vec![(Some(account), 1), (Some("b".into()), 2)],
        );
        assert_eq!(
            e.text(),
            "# HELP slurm_account_jobs Total number of jobs\n\
             # TYPE slurm_account_jobs gauge\n\
             slurm_account_jobs{account=\"x\\\"} 1\\nslurm_nodes_down 500\\n#\\\\\"} 1\n\
             slurm_account_jobs{account=\"b\"} 2\n"
        );
    }

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
