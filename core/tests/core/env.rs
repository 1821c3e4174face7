//! The test environment: clusters of NVL72 domains (or flat, or a switch
//! tree), a job builder, and helpers that run a pass and return what started.

use spur_core::{
    BaseBlock, BlockTopology, Cluster, Core, Effect, Exclusive, ExitStatus, JobId, JobSpec,
    NodeConfig, NodeId, Partition, SchedConfig, SegmentLayout, SwitchSpec, Time, Topology,
    TreeTopology, Uid,
};

pub const DOMAIN: u32 = 18;

pub struct TestEnv {
    pub core: Core,
    pub now: Time,
    pub effects: Vec<Effect>,
}

pub fn gb200(i: u32) -> NodeConfig {
    NodeConfig::new(format!("gb{:03}", i + 1), 144, 960 * 1024, 4)
}

pub fn cluster(nodes: u32, topology: Topology) -> Cluster {
    let configs: Vec<NodeConfig> = (0..nodes).map(gb200).collect();
    let mut batch = Partition::new("batch", (0..nodes).map(NodeId).collect());
    batch.is_default = true;
    Cluster {
        nodes: configs,
        partitions: vec![batch],
        qos: vec![],
        topology,
    }
}

pub fn nvl72_topology(domains: u32, sizes: Option<Vec<u32>>) -> Topology {
    let blocks = (0..domains)
        .map(|d| BaseBlock {
            name: format!("nvl{d}"),
            nodes: (d * DOMAIN..(d + 1) * DOMAIN).map(NodeId).collect(),
        })
        .collect();
    Topology::Block(
        BlockTopology::new((domains * DOMAIN) as usize, blocks, sizes).expect("valid topology"),
    )
}

pub fn tree_topology(leaves: u32, per_leaf: u32) -> Topology {
    let mut specs: Vec<SwitchSpec> = (0..leaves)
        .map(|l| SwitchSpec {
            name: format!("leaf{l}"),
            switches: vec![],
            nodes: (l * per_leaf..(l + 1) * per_leaf).map(NodeId).collect(),
        })
        .collect();
    specs.push(SwitchSpec {
        name: "top".into(),
        switches: (0..leaves).map(|l| format!("leaf{l}")).collect(),
        nodes: vec![],
    });
    Topology::Tree(TreeTopology::new((leaves * per_leaf) as usize, specs).expect("valid tree"))
}

impl TestEnv {
    pub fn new(cluster: Cluster, config: SchedConfig) -> TestEnv {
        TestEnv {
            core: Core::new(cluster, config).expect("valid cluster"),
            now: 1_000_000,
            effects: Vec::new(),
        }
    }

    pub fn nvl72(domains: u32) -> TestEnv {
        TestEnv::new(
            cluster(domains * DOMAIN, nvl72_topology(domains, None)),
            SchedConfig::default(),
        )
    }

    pub fn submit(&mut self, job: JobBuilder) -> JobId {
        let id = self.core.submit_job(job.0, self.now).expect("job accepted");
        self.core.sanity_check().expect("sane after submit");
        id
    }

    /// Runs a pass; returns the jobs started, with their nodes.
    pub fn schedule(&mut self) -> Vec<(JobId, Vec<NodeId>)> {
        let mut effects = Vec::new();
        self.core.schedule(self.now, &mut effects);
        self.core.sanity_check().expect("sane after schedule");
        let started = effects
            .iter()
            .filter_map(|e| match e {
                Effect::StartJob { job, alloc } => {
                    Some((*job, alloc.iter().map(|a| a.node).collect()))
                }
                _ => None,
            })
            .collect();
        self.effects.extend(effects);
        started
    }

    pub fn finish(&mut self, job: JobId, code: i32) {
        self.core
            .on_job_exited(job, ExitStatus { code, signal: 0 }, self.now)
            .expect("job was running");
        self.core.sanity_check().expect("sane after exit");
    }

    pub fn advance(&mut self, secs: u64) {
        self.now += secs;
    }

    /// Runs a pass; returns every effect it had (and no earlier one).
    pub fn pass(&mut self) -> Vec<Effect> {
        self.effects.clear();
        self.schedule();
        self.take_effects()
    }

    /// The job that task `task` of array `array` is.
    pub fn task(&self, array: JobId, task: u32) -> JobId {
        match self.core.find_array_task(array, task) {
            Some(spur_core::TaskLocation::Job(id)) => id,
            other => panic!("task {array}_{task} is not a job: {other:?}"),
        }
    }

    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }
}

/// The base blocks (domains) a set of nodes touches.
pub fn domains(nodes: &[NodeId]) -> Vec<u32> {
    let mut d: Vec<u32> = nodes.iter().map(|n| n.get() / DOMAIN).collect();
    d.dedup();
    d
}

pub struct JobBuilder(pub JobSpec);

impl JobBuilder {
    pub fn new() -> JobBuilder {
        JobBuilder(JobSpec {
            name: "job".into(),
            user: Uid(1000),
            time_limit: Some(3600),
            ..Default::default()
        })
    }
    pub fn nodes(mut self, n: u32) -> Self {
        self.0.min_nodes = Some(n);
        self
    }
    pub fn node_range(mut self, min: u32, max: u32) -> Self {
        self.0.min_nodes = Some(min);
        self.0.max_nodes = Some(max);
        self
    }
    pub fn gpus_per_node(mut self, g: u32) -> Self {
        self.0.gpus_per_node = Some(g);
        self
    }
    pub fn gpus(mut self, g: u32) -> Self {
        self.0.gpus = Some(g);
        self
    }
    pub fn exclusive(mut self) -> Self {
        self.0.exclusive = Exclusive::Node;
        self
    }
    pub fn exclusive_topo(mut self) -> Self {
        self.0.exclusive = Exclusive::Topo;
        self
    }
    pub fn segment(mut self, s: u32) -> Self {
        self.0.segment = Some(s);
        self
    }
    pub fn layout(mut self, l: SegmentLayout) -> Self {
        self.0.segment_layout = l;
        self
    }
    pub fn time(mut self, secs: u64) -> Self {
        self.0.time_limit = Some(secs);
        self
    }
    pub fn time_min(mut self, secs: u64) -> Self {
        self.0.time_min = Some(secs);
        self
    }
    pub fn partition(mut self, p: &str) -> Self {
        self.0.partitions = vec![p.into()];
        self
    }
    pub fn priority(mut self, p: u32) -> Self {
        self.0.priority = Some(p);
        self
    }
    pub fn name(mut self, n: &str) -> Self {
        self.0.name = n.into();
        self
    }
    pub fn cpus(mut self, tasks: u32, per_task: u32) -> Self {
        self.0.ntasks = Some(tasks);
        self.0.cpus_per_task = Some(per_task);
        self
    }
    pub fn hold(mut self) -> Self {
        self.0.hold = true;
        self
    }
    pub fn array(mut self, expr: &str) -> Self {
        self.0.array = Some(expr.into());
        self
    }
    pub fn dependency(mut self, dep: &str) -> Self {
        self.0.dependency = Some(dep.into());
        self
    }
    pub fn kill_on_invalid_dep(mut self, kill: bool) -> Self {
        self.0.kill_on_invalid_dep = Some(kill);
        self
    }
}

/// Whole-node GB200 job of `nodes` nodes.
pub fn gpu_job(nodes: u32) -> JobBuilder {
    JobBuilder::new().nodes(nodes).gpus_per_node(4).exclusive()
}
