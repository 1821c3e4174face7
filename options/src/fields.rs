//! The structured front end: a job as the fields of Slurm's
//! `job_desc_msg_t` give it (what libslurm's callers fill in, and what
//! slurmrestd's v0.0.41+ `job_desc` documents hold), turned into the same
//! `JobDesc` the options give. Values are in Slurm's units (minutes, MiB,
//! TRES strings such as `gres:gpu:a100:2`) with Slurm's "not given"
//! (NO_VAL, NULL) as `None`; the caller decodes NO_VAL and NICE_OFFSET.
//! Checks that need the cluster are the controller's, as for every front
//! end.

use spur_proto::{
    ErrorCode, ExclusiveMode, JobDesc, JobSignal, JobUpdate, MemSpec, OpenMode, ProtoError,
};
use spur_slurm::gres::{self, GpuRequest, GpuSpec, GresError};

use crate::unacted;

/// `pn_min_memory`'s flag: the amount is per CPU, not per node.
pub const MEM_PER_CPU: u64 = 0x8000_0000_0000_0000;

/// `time_limit` and `time_min`'s INFINITE.
pub const INFINITE: u32 = 0xffff_ffff;

/// `warn_flags`: signal the batch shell only (`--signal=B:...`).
pub const KILL_JOB_BATCH: u16 = 1 << 0;

/// `warn_flags`: the job may run in a reservation's nodes' last minutes
/// (`--signal=R:...`).
pub const KILL_JOB_RESV: u16 = 1 << 8;

/// `bitflags`: end the job when its dependency can never be met.
pub const KILL_INV_DEP: u64 = 1 << 0;

/// `bitflags`: keep the job when its dependency can never be met.
pub const NO_KILL_INV_DEP: u64 = 1 << 1;

/// `shared`: the job's nodes are its own (`--exclusive`).
pub const JOB_SHARED_NONE: u16 = 0;
/// `shared`: the job may share nodes (`--oversubscribe`).
pub const JOB_SHARED_OK: u16 = 1;
/// `shared`: only with the user's own jobs (`--exclusive=user`).
pub const JOB_SHARED_USER: u16 = 2;
/// `shared`: only with jobs of its MCS label (`--exclusive=mcs`).
pub const JOB_SHARED_MCS: u16 = 3;
/// `shared`: the job's topology blocks are its own (`--exclusive=topo`,
/// Slurm 24.11's value).
pub const JOB_SHARED_TOPO: u16 = 5;

/// `open_mode`: append to the output files.
pub const OPEN_MODE_APPEND: u8 = 1;
/// `open_mode`: truncate them.
pub const OPEN_MODE_TRUNCATE: u8 = 2;

/// A job as `job_desc_msg_t` holds it: only the fields spur reads, under
/// their C names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobDescFields {
    /// `name`.
    pub name: Option<String>,
    /// `account`.
    pub account: Option<String>,
    /// `partition`: names separated by commas.
    pub partition: Option<String>,
    /// `qos`.
    pub qos: Option<String>,
    /// `clusters`.
    pub clusters: Option<String>,
    /// `comment`.
    pub comment: Option<String>,
    /// `min_nodes`.
    pub min_nodes: Option<u32>,
    /// `max_nodes`.
    pub max_nodes: Option<u32>,
    /// `num_tasks`.
    pub num_tasks: Option<u32>,
    /// `ntasks_per_node`.
    pub ntasks_per_node: Option<u32>,
    /// `cpus_per_task`.
    pub cpus_per_task: Option<u32>,
    /// `pn_min_memory`: MiB per node, or per CPU with [`MEM_PER_CPU`].
    pub pn_min_memory: Option<u64>,
    /// `mem_per_tres`: `gres:gpu:MiB`.
    pub mem_per_tres: Option<String>,
    /// `cpus_per_tres`: `gres:gpu:count`.
    pub cpus_per_tres: Option<String>,
    /// `tres_per_job`: `gres:gpu[:type]:count` (`--gpus`).
    pub tres_per_job: Option<String>,
    /// `tres_per_node`: `gres:gpu[:type]:count` (`--gpus-per-node`,
    /// `--gres`).
    pub tres_per_node: Option<String>,
    /// `tres_per_task`: `gres:gpu[:type]:count` (`--gpus-per-task`).
    pub tres_per_task: Option<String>,
    /// `shared`: one of the `JOB_SHARED_*` values.
    pub shared: Option<u16>,
    /// `segment_size` (Slurm 25.05): nodes per segment.
    pub segment_size: Option<u32>,
    /// `req_switch`.
    pub req_switch: Option<u32>,
    /// `wait4switch`, seconds.
    pub wait4switch: Option<u32>,
    /// `req_nodes`: a hostlist.
    pub req_nodes: Option<String>,
    /// `exc_nodes`: a hostlist.
    pub exc_nodes: Option<String>,
    /// `features`.
    pub features: Option<String>,
    /// `time_limit`, minutes; 0 or [`INFINITE`]: no limit but the
    /// partition's.
    pub time_limit: Option<u32>,
    /// `time_min`, minutes.
    pub time_min: Option<u32>,
    /// `nice`, with NICE_OFFSET taken off.
    pub nice: Option<i32>,
    /// `priority`; 0 submits the job held.
    pub priority: Option<u32>,
    /// `begin_time`, Unix seconds.
    pub begin_time: Option<u64>,
    /// `deadline`, Unix seconds.
    pub deadline: Option<u64>,
    /// `requeue`.
    pub requeue: Option<bool>,
    /// `warn_signal`.
    pub warn_signal: Option<u16>,
    /// `warn_time`, seconds (Slurm's default 60).
    pub warn_time: Option<u16>,
    /// `warn_flags`: [`KILL_JOB_BATCH`], [`KILL_JOB_RESV`].
    pub warn_flags: u16,
    /// `bitflags`: [`KILL_INV_DEP`], [`NO_KILL_INV_DEP`].
    pub bitflags: u64,
    /// `array_inx`.
    pub array_inx: Option<String>,
    /// `dependency`.
    pub dependency: Option<String>,
    /// `script`.
    pub script: Option<String>,
    /// `argv`: the script's name, then its arguments.
    pub argv: Vec<String>,
    /// `environment`: `NAME=value` entries.
    pub environment: Vec<String>,
    /// `work_dir`.
    pub work_dir: Option<String>,
    /// `std_out`.
    pub std_out: Option<String>,
    /// `std_err`.
    pub std_err: Option<String>,
    /// `std_in`.
    pub std_in: Option<String>,
    /// `open_mode`: [`OPEN_MODE_APPEND`] or [`OPEN_MODE_TRUNCATE`].
    pub open_mode: Option<u8>,
    /// `alloc_node`: the host the request comes from.
    pub alloc_node: Option<String>,
    /// Fields the caller read that spur does not act on, as the options
    /// they stand for (`--mail-type=END`): stored and reported, as for
    /// the commands.
    pub unacted: Vec<String>,
}

/// Whether the request is a batch job or an allocation
/// (`slurm_submit_batch_job` or `slurm_allocate_resources`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// A batch job: its script runs.
    Batch,
    /// An allocation its holder uses and releases.
    Allocation,
}

impl JobDescFields {
    /// What the fields ask of an existing job (`slurm_update_job`, the REST
    /// job update): the fields slurmctld's update_job changes that spur
    /// changes too. A time limit of 0 or INFINITE is UNLIMITED.
    pub fn job_update(&self, job_id: u32) -> JobUpdate {
        JobUpdate {
            job_id,
            time_limit: self.time_limit.map(|m| match m {
                0 | INFINITE => None,
                m => Some(u64::from(m) * 60),
            }),
            partition: self.partition.clone(),
            name: self.name.clone(),
            nice: self.nice,
            priority: self.priority,
            comment: self.comment.clone(),
            dependency: self.dependency.clone(),
            ..JobUpdate::default()
        }
    }

    /// Whether every field set is one [`job_update`](Self::job_update)
    /// carries (or one slurmctld's update_job leaves as submitted: the
    /// script, its arguments and environment, the open mode).
    pub fn only_updatable(&self) -> bool {
        let rest = JobDescFields {
            time_limit: None,
            partition: None,
            name: None,
            nice: None,
            priority: None,
            comment: None,
            dependency: None,
            script: None,
            argv: Vec::new(),
            environment: Vec::new(),
            open_mode: None,
            ..self.clone()
        };
        rest == JobDescFields::default()
    }

    /// The job the fields describe, as the commands would have built it;
    /// Slurm's error for a field no option could have produced.
    pub fn job_desc(&self, request: Request) -> Result<JobDesc, ProtoError> {
        let mut d = JobDesc {
            name: self.name.clone(),
            account: self.account.clone(),
            partitions: self
                .partition
                .iter()
                .flat_map(|p| p.split(','))
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect(),
            qos: self.qos.clone(),
            clusters: self.clusters.clone(),
            comment: self.comment.clone(),
            min_nodes: self.min_nodes,
            max_nodes: self.max_nodes,
            ntasks: self.num_tasks,
            ntasks_per_node: self.ntasks_per_node,
            cpus_per_task: self.cpus_per_task,
            segment: self.segment_size.filter(|&s| s > 0),
            switches: self
                .req_switch
                .map(|n| (n, self.wait4switch.map(u64::from))),
            constraint: self.features.clone(),
            nice: self.nice.unwrap_or(0),
            priority: self.priority.filter(|&p| p != 0),
            hold: self.priority == Some(0),
            begin: self.begin_time,
            deadline: self.deadline,
            requeue: self.requeue,
            array: self.array_inx.clone(),
            dependency: self.dependency.clone(),
            kill_on_invalid_dep: match (
                self.bitflags & KILL_INV_DEP != 0,
                self.bitflags & NO_KILL_INV_DEP != 0,
            ) {
                (true, false) => Some(true),
                (false, true) => Some(false),
                (false, false) => None,
                (true, true) => return Err(invalid("bitflags", "KILL_INV_DEP|NO_KILL_INV_DEP")),
            },
            submit_host: self.alloc_node.clone().unwrap_or_default(),
            unacted: self.unacted.clone(),
            interactive: request == Request::Allocation,
            ..JobDesc::default()
        };
        if d.min_nodes.is_none() && d.max_nodes.is_some() {
            d.min_nodes = Some(1);
        }
        self.hosts(&mut d)?;
        self.gpus(&mut d)?;
        self.memory(&mut d)?;
        self.sharing(&mut d)?;
        self.times(&mut d);
        self.signal(&mut d);
        self.files(&mut d, request)?;
        Ok(d)
    }

    fn hosts(&self, d: &mut JobDesc) -> Result<(), ProtoError> {
        let expand = |list: &Option<String>| -> Result<Vec<String>, ProtoError> {
            list.as_deref().map_or(Ok(Vec::new()), |l| {
                spur_conf::hostlist::expand(l)
                    .map_err(|_| ProtoError::with_detail(ErrorCode::InvalidNodeName, l))
            })
        };
        d.required_nodes = expand(&self.req_nodes)?;
        d.excluded_nodes = expand(&self.exc_nodes)?;
        if d.min_nodes.is_none() && !d.required_nodes.is_empty() {
            // slurmctld's validate_job_create_req: -w names the node count.
            let mut unique = d.required_nodes.clone();
            unique.sort();
            unique.dedup();
            d.min_nodes = u32::try_from(unique.len()).ok();
        }
        Ok(())
    }

    fn gpus(&self, d: &mut JobDesc) -> Result<(), ProtoError> {
        let per_job = tres_gpus(&self.tres_per_job)?;
        let per_node = tres_gpus(&self.tres_per_node)?;
        let per_task = tres_gpus(&self.tres_per_task)?;
        let gpus = GpuRequest::of(per_job, per_node, per_task).map_err(gres_error)?;
        (d.gpu_type, d.gpus) = (gpus.gpu_type, gpus.per_job);
        (d.gpus_per_node, d.gpus_per_task) = (gpus.per_node, gpus.per_task);
        d.cpus_per_gpu = per_gpu("cpus_per_tres", &self.cpus_per_tres)?
            .map(|n| u32::try_from(n).map_err(|_| invalid("cpus_per_tres", "too large")))
            .transpose()?;
        Ok(())
    }

    fn memory(&self, d: &mut JobDesc) -> Result<(), ProtoError> {
        let per_gpu = per_gpu("mem_per_tres", &self.mem_per_tres)?;
        d.mem = match (self.pn_min_memory, per_gpu) {
            (Some(_), Some(_)) => {
                return Err(ProtoError::with_detail(
                    ErrorCode::InvalidArgument,
                    "pn_min_memory and mem_per_tres are mutually exclusive",
                ))
            }
            (Some(m), None) if m & MEM_PER_CPU != 0 => MemSpec::PerCpu(m & !MEM_PER_CPU),
            (Some(m), None) => MemSpec::PerNode(m),
            (None, Some(m)) => MemSpec::PerGpu(m),
            (None, None) => MemSpec::Default,
        };
        Ok(())
    }

    fn sharing(&self, d: &mut JobDesc) -> Result<(), ProtoError> {
        d.exclusive = match self.shared {
            None | Some(JOB_SHARED_OK) => ExclusiveMode::No,
            Some(JOB_SHARED_NONE) => ExclusiveMode::Node,
            Some(JOB_SHARED_USER) => ExclusiveMode::User,
            Some(JOB_SHARED_TOPO) => ExclusiveMode::Topo,
            Some(JOB_SHARED_MCS) => {
                // As sbatch --exclusive=mcs: whole nodes, the label kept.
                d.unacted.push(unacted::record("exclusive", Some("mcs")));
                ExclusiveMode::Node
            }
            Some(other) => return Err(invalid("shared", &other.to_string())),
        };
        Ok(())
    }

    fn times(&self, d: &mut JobDesc) {
        match self.time_limit {
            Some(0 | INFINITE) => d.time_unlimited = true,
            Some(minutes) => d.time_limit = Some(u64::from(minutes) * 60),
            None => {}
        }
        d.time_min = self
            .time_min
            .filter(|&m| m != INFINITE)
            .map(|m| u64::from(m) * 60);
    }

    fn signal(&self, d: &mut JobDesc) {
        let Some(signal) = self.warn_signal else {
            return;
        };
        d.signal = Some(JobSignal {
            signal: i32::from(signal),
            before: u64::from(self.warn_time.unwrap_or(60)),
            batch_only: self.warn_flags & KILL_JOB_BATCH != 0,
        });
        if self.warn_flags & KILL_JOB_RESV != 0 {
            // As sbatch --signal=R:...: the reservation part is stored.
            d.unacted
                .push(unacted::record("signal", Some(&format!("R:{signal}"))));
        }
    }

    fn files(&self, d: &mut JobDesc, request: Request) -> Result<(), ProtoError> {
        d.work_dir = self.work_dir.clone().unwrap_or_default();
        let full = |p: &Option<String>| {
            p.as_deref().map(|p| {
                if p.starts_with('/') || !d.work_dir.starts_with('/') {
                    p.to_string()
                } else {
                    format!("{}/{p}", d.work_dir)
                }
            })
        };
        (d.stdout, d.stderr, d.stdin) =
            (full(&self.std_out), full(&self.std_err), full(&self.std_in));
        d.open_mode = match self.open_mode {
            None | Some(0 | OPEN_MODE_TRUNCATE) => OpenMode::Truncate,
            Some(OPEN_MODE_APPEND) => OpenMode::Append,
            Some(other) => return Err(invalid("open_mode", &other.to_string())),
        };
        d.script = match request {
            Request::Batch => self.script.clone(),
            Request::Allocation => None,
        };
        d.argv = self.argv.iter().skip(1).cloned().collect();
        d.env = self
            .environment
            .iter()
            .map(|entry| match entry.split_once('=') {
                Some((k, v)) => Ok((k.to_string(), v.to_string())),
                None => Err(invalid("environment", entry)),
            })
            .collect::<Result<_, _>>()?;
        Ok(())
    }
}

/// A field no option could have produced.
fn invalid(field: &str, value: &str) -> ProtoError {
    ProtoError::with_detail(
        ErrorCode::InvalidArgument,
        format!("invalid {field}: {value}"),
    )
}

/// A GPU request's error as slurmctld answers it.
fn gres_error(e: GresError) -> ProtoError {
    let detail = e.to_string();
    ProtoError::with_detail(ErrorCode::InvalidGres, detail)
}

/// The GPUs of a `tres_per_*` field: `gres:gpu[:type]:count` entries (or
/// `gres/gpu...`), separated by `;` or `,`.
fn tres_gpus(field: &Option<String>) -> Result<Option<GpuSpec>, ProtoError> {
    let Some(text) = field.as_deref().filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let entries: Vec<&str> = text
        .split([';', ','])
        .map(|e| {
            e.strip_prefix("gres:")
                .or_else(|| e.strip_prefix("gres/"))
                .unwrap_or(e)
        })
        .collect();
    gres::gres(&entries.join(",")).map_err(gres_error)
}

/// The number of a `cpus_per_tres` or `mem_per_tres` field:
/// `gres:gpu:N` (or `gres/gpu:N`).
fn per_gpu(name: &str, field: &Option<String>) -> Result<Option<u64>, ProtoError> {
    let Some(text) = field.as_deref().filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let number = ["gres:gpu:", "gres/gpu:"]
        .iter()
        .find_map(|p| text.strip_prefix(p))
        .and_then(|n| n.parse::<u64>().ok());
    match number {
        Some(n) => Ok(Some(n)),
        None => Err(invalid(name, text)),
    }
}

#[cfg(test)]
mod tests;
