//! The controller's side of job steps: srun asks for a step in a running
//! job, the core lays it out over the job's allocation, and the controller
//! answers with a grant it signs, which srun carries to each node. The
//! tasks' output never passes through here.

use tracing::info;

use spur_core::spec::MemDemand;
use spur_core::{Input, JobId, JobState, Outcome, StepError, StepShape};
use spur_proto::{
    ClientResponse, ErrorCode, ProtoError, StepGrant, StepId, StepInfo, StepNode, StepRequest,
};

use super::actor::{now, Controller};
use super::convert;
use super::store::{JobMeta, StepRow};

/// What the controller keeps of a running step beyond its history row.
#[derive(Debug, Clone)]
pub(super) struct StepLive {
    /// srun's host and pid.
    pub srun: Option<(String, u32)>,
    /// `srun -t`, in seconds.
    pub time_limit: Option<u64>,
    /// srun's `--gpus`, `--gpus-per-node`, `--gpus-per-task`.
    pub gpus: [Option<u32>; 3],
    /// The digest of the creation's idempotency key, and the answer it
    /// got, for a repeat whose first answer was lost.
    pub created: Option<(super::store::SubmitKey, ClientResponse)>,
}

/// The memory a step of `job` holds with `cpus` CPUs and `gpus` GPUs on
/// `nodes` nodes: the job's per-CPU or per-GPU memory times those, or the
/// job's memory per node on each (None when the job holds none).
fn step_mem_mb(
    core: &spur_core::Core,
    job: JobId,
    cpus: u32,
    gpus: u32,
    nodes: u32,
) -> Option<u64> {
    let job = core.job(job)?;
    let mb = match job.shape().mem {
        MemDemand::PerCpu(mb) => mb * u64::from(cpus),
        MemDemand::PerGpu(mb) => mb * u64::from(gpus),
        MemDemand::PerNode(_) | MemDemand::WholeNode => {
            job.allocation().first().map_or(0, |a| a.res.mem_mb) * u64::from(nodes)
        }
    };
    (mb > 0).then_some(mb)
}

pub(super) fn step_error(e: &StepError) -> ProtoError {
    ProtoError::new(match e {
        StepError::UnknownJob => ErrorCode::InvalidJobId,
        StepError::Pending => ErrorCode::JobPending,
        StepError::Finished => ErrorCode::AlreadyDone,
        StepError::TooManyCpus => ErrorCode::TooManyCpus,
        StepError::Gres => ErrorCode::InvalidGres,
        StepError::TaskCount => ErrorCode::BadTaskCount,
        StepError::Busy => ErrorCode::NodesBusy,
        _ => ErrorCode::NodeConfigUnavailable,
    })
}

impl Controller {
    /// `srun` inside job `req.job_id`, by `uid`.
    pub(super) fn create_step(
        &mut self,
        uid: u32,
        req: &StepRequest,
    ) -> Result<ClientResponse, ProtoError> {
        let id = JobId(req.job_id);
        let job = self.core.job(id).ok_or(ErrorCode::InvalidJobId)?;
        if job.spec.user.0 != uid && !self.is_operator(uid) {
            return Err(ErrorCode::AccessDenied.into());
        }
        let key = match &req.key {
            Some(k) => Some(super::submit_key::digest(uid, k)?),
            None => None,
        };
        if let Some(answer) = key.and_then(|k| self.created_step(req.job_id, k)) {
            info!(job = req.job_id, "step creation repeated; its step answers");
            return Ok(answer);
        }
        let nodelist = req
            .nodelist
            .iter()
            .map(|n| self.core.node_id(n).ok_or(ErrorCode::NodeConfigUnavailable))
            .collect::<Result<Vec<_>, _>>()?;
        let shape = StepShape {
            ntasks: req.ntasks,
            nodes: req.nodes,
            ntasks_per_node: req.ntasks_per_node,
            cpus_per_task: req.cpus_per_task.unwrap_or(1),
            gpus_per_task: req.gpus_per_task,
            gpus_per_node: req.gpus_per_node,
            gpus: req.gpus,
            nodelist,
            exact: req.exact,
            overlap: req.overlap,
        };
        let step_id = self
            .metas
            .get(&id)
            .ok_or(ErrorCode::InvalidJobId)?
            .next_step;
        let input = Input::StartStep {
            job: id,
            step: step_id,
            shape,
        };
        let parts = match self.apply(input) {
            Ok(Outcome::StepStarted(parts)) => parts,
            Ok(_) => return Err(ErrorCode::Unspecified.into()),
            Err(e) => return Err(super::request::core_error(&e)),
        };
        self.step_nodes
            .insert((req.job_id, step_id), parts.len() as u32);
        let meta = self.metas.get_mut(&id).ok_or(ErrorCode::InvalidJobId)?;
        meta.next_step += 1;
        self.turn.meta_dirty.insert(id);
        let meta: JobMeta = (**meta).clone();
        let job = self.core.job(id).ok_or(ErrorCode::InvalidJobId)?;
        let info = convert::job_info(&self.core, job, &meta, "");
        let names: Vec<String> = parts
            .iter()
            .map(|p| self.core.nodes()[p.node.index()].config.name.clone())
            .collect();
        let hostlist = spur_conf::hostlist::compress(&names);
        let tasks: Vec<u32> = parts.iter().map(|p| p.tasks.len() as u32).collect();
        let mut env = super::env::step_env(&info, step_id, &hostlist, &tasks, &self.facts);
        env.extend(self.array_env(job));
        let nodes = parts
            .into_iter()
            .zip(names)
            .map(|(p, name)| {
                let conf = &self.site.conf.nodes[p.node.index()];
                let (addr, pattern) = convert::topology_addr(&self.core, p.node);
                let env = vec![
                    ("SLURM_TOPOLOGY_ADDR".into(), addr),
                    ("SLURM_TOPOLOGY_ADDR_PATTERN".into(), pattern),
                ];
                StepNode {
                    name,
                    hostname: conf.hostname.clone(),
                    addr: self.step_addr(conf),
                    port: conf.port,
                    tasks: p.tasks,
                    gpus: p.gpus,
                    cpus: p.cpus,
                    memory_mib: job
                        .allocation()
                        .iter()
                        .find(|a| a.node == p.node)
                        .map_or(0, |a| a.res.mem_mb),
                    env,
                }
            })
            .collect();
        let grant = StepGrant {
            job_id: req.job_id,
            step_id,
            uid: job.spec.user.0,
            gid: meta.gid,
            user_name: meta.user_name.to_string(),
            nodes,
            time_limit: req.time_limit,
            env,
            nonce: crate::credential::grant_nonce(),
            expires: now() + u64::from(self.site.conf.cred_expire_secs),
        };
        let signature = crate::credential::sign(&self.site.key, &grant);
        let cpt = req.cpus_per_task.unwrap_or(1);
        let gpus: usize = grant.nodes.iter().map(|n| n.gpus.len()).sum();
        let ncpus = grant.ntasks() * cpt;
        let node_count = grant.nodes.len() as u32;
        let tres = spur_proto::Tres {
            cpus: ncpus,
            mem_mb: step_mem_mb(&self.core, id, ncpus, gpus as u32, node_count).unwrap_or(0),
            nodes: node_count,
            billing: 0,
            gpus: gpus as u32,
        };
        // srun lays tasks out cyclically when each node has one, in blocks
        // otherwise.
        let layout = if grant.ntasks() <= node_count {
            "Cyclic"
        } else {
            "Block"
        };
        self.step_live.insert(
            (req.job_id, step_id),
            StepLive {
                srun: Some((req.srun_host.clone(), req.srun_pid)),
                time_limit: req.time_limit,
                gpus: [req.gpus, req.gpus_per_node, req.gpus_per_task],
                created: key.map(|k| {
                    let answer = ClientResponse::StepCreated {
                        grant: grant.clone(),
                        signature: signature.clone(),
                    };
                    (k, answer)
                }),
            },
        );
        let row = StepRow {
            job_id: req.job_id,
            step_id,
            name: req.name.clone(),
            state: JobState::Running,
            exit_code: 0,
            exit_signal: 0,
            start_time: now(),
            end_time: None,
            nodes: hostlist.clone(),
            node_count,
            ntasks: grant.ntasks(),
            ncpus,
            tres,
            cancelled_by: None,
            layout: Some(layout.into()),
            user_cpu_us: 0,
            system_cpu_us: 0,
        };
        self.turn.steps.push(row.clone());
        self.steps.insert((req.job_id, step_id), row);
        info!(job = req.job_id, step = step_id, tasks = grant.ntasks(), nodes = %hostlist, "step created");
        Ok(ClientResponse::StepCreated { grant, signature })
    }

    /// The answer a creation with this key got, if its step still runs.
    fn created_step(&self, job_id: u32, key: super::store::SubmitKey) -> Option<ClientResponse> {
        self.steps
            .range((job_id, 0)..=(job_id, u32::MAX))
            .filter_map(|(k, _)| self.step_live.get(k)?.created.as_ref())
            .find(|(k, _)| *k == key)
            .map(|(_, answer)| answer.clone())
    }

    /// salloc or srun says it still holds allocation `job_id`.
    pub(super) fn allocation_alive(
        &mut self,
        uid: u32,
        job_id: u32,
    ) -> Result<ClientResponse, ProtoError> {
        let job = self
            .core
            .job(JobId(job_id))
            .ok_or(ErrorCode::InvalidJobId)?;
        if job.spec.user.0 != uid && !self.is_operator(uid) {
            return Err(ErrorCode::AccessDenied.into());
        }
        if job.state() != JobState::Running {
            return Err(ErrorCode::AlreadyDone.into());
        }
        if let Some(heard) = self.holders.get_mut(&job_id) {
            *heard = now();
        }
        Ok(ClientResponse::Done)
    }

    /// InactiveLimit: ends (as TIMEOUT) every allocation whose salloc or
    /// srun has been silent longer than it, as slurmctld does.
    pub(super) fn check_inactive_holders(&mut self, now: u64) {
        let limit = u64::from(self.site.conf.inactive_limit_secs);
        self.holders.retain(|job, _| {
            self.core
                .job(JobId(*job))
                .is_some_and(|j| j.state() == JobState::Running)
        });
        if limit == 0 {
            return;
        }
        let silent: Vec<u32> = self
            .holders
            .iter()
            .filter(|(_, heard)| now.saturating_sub(**heard) > limit)
            .map(|(job, _)| *job)
            .collect();
        for job in silent {
            info!(job, limit, "inactivity time limit reached");
            self.holders.remove(&job);
            let _ = self.apply(spur_core::Input::TimeOut(JobId(job)));
        }
    }

    /// salloc or srun is done with the allocation it held.
    pub(super) fn release_allocation(
        &mut self,
        uid: u32,
        job_id: u32,
        exit_code: i32,
        signal: i32,
    ) -> Result<ClientResponse, ProtoError> {
        let id = JobId(job_id);
        let job = self.core.job(id).ok_or(ErrorCode::InvalidJobId)?;
        if job.spec.user.0 != uid && !self.is_operator(uid) {
            return Err(ErrorCode::AccessDenied.into());
        }
        if !self.metas.get(&id).is_some_and(|m| m.interactive) {
            return Err(ErrorCode::NotSupported.into());
        }
        match job.state() {
            spur_core::JobState::Running => {
                info!(job = job_id, exit_code, signal, "allocation released");
                self.job_ended(
                    id,
                    spur_core::ExitStatus {
                        code: exit_code,
                        signal,
                    },
                );
                Ok(ClientResponse::Done)
            }
            spur_core::JobState::Pending => {
                // Given up before it was granted (salloc interrupted).
                self.apply(spur_core::Input::Cancel(id))
                    .map(|_| ClientResponse::Done)
                    .map_err(|_| ErrorCode::AlreadyDone.into())
            }
            _ => Err(ErrorCode::AlreadyDone.into()),
        }
    }

    /// srun reports a step's end.
    pub(super) fn complete_step(
        &mut self,
        uid: u32,
        job_id: u32,
        step_id: u32,
        exit_code: i32,
        signal: i32,
    ) -> Result<ClientResponse, ProtoError> {
        let job = self
            .core
            .job(JobId(job_id))
            .ok_or(ErrorCode::InvalidJobId)?;
        if job.spec.user.0 != uid && !self.is_operator(uid) {
            return Err(ErrorCode::AccessDenied.into());
        }
        info!(
            job = job_id,
            step = step_id,
            exit_code,
            signal,
            "step ended"
        );
        self.release_step(job_id, step_id);
        self.step_live.remove(&(job_id, step_id));
        self.live_usage.remove(&(job_id, step_id));
        if let Some(mut row) = self.steps.remove(&(job_id, step_id)) {
            row.state = match (exit_code, signal) {
                (0, 0) => JobState::Completed,
                (_, spur_proto::SIG_OOM) => JobState::OutOfMemory,
                (_, libc::SIGKILL | libc::SIGTERM | libc::SIGINT) => JobState::Cancelled,
                _ => JobState::Failed,
            };
            row.exit_code = exit_code;
            row.exit_signal = signal;
            row.end_time = Some(now());
            self.turn.steps.push(row);
        }
        Ok(ClientResponse::Done)
    }

    /// What a step holds of its job is free again: srun reported its end,
    /// or every node did.
    fn release_step(&mut self, job_id: u32, step_id: u32) {
        self.step_nodes.remove(&(job_id, step_id));
        let input = Input::EndStep {
            job: JobId(job_id),
            step: step_id,
        };
        if matches!(self.apply(input), Ok(Outcome::StepEnded(true))) {
            // Steps waiting in srun retry on their own.
            info!(job = job_id, step = step_id, "step released its resources");
        }
    }

    /// A node's part of a step ended (its agent says so).
    pub(super) fn step_node_ended(&mut self, job_id: u32, step_id: u32) {
        let left = self.step_nodes.get_mut(&(job_id, step_id));
        match left {
            Some(n) if *n > 1 => *n -= 1,
            Some(_) => self.release_step(job_id, step_id),
            None => {}
        }
    }

    /// Takes back the steps a stopped controller left running: those of
    /// jobs still running are followed again (srun reports their end, or
    /// the job's end closes them); those of jobs that ended meanwhile end
    /// now, as their job did. They hold none of the job's resources.
    pub(super) fn restore_steps(&mut self, rows: Vec<StepRow>) {
        for mut row in rows {
            match self.core.job(JobId(row.job_id)).map(|j| j.state()) {
                Some(JobState::Running) => {
                    self.steps.insert((row.job_id, row.step_id), row);
                }
                // The job ended while the controller was away (or is
                // forgotten): its steps ended with it, as it did.
                state => {
                    row.state = state
                        .filter(|s| s.is_finished())
                        .unwrap_or(JobState::Cancelled);
                    row.end_time = Some(now());
                    self.turn.steps.push(row);
                }
            }
        }
    }

    /// Ends the steps of `job` that srun never reported (the job ended
    /// under them): they end as the job did, or CANCELLED.
    pub(super) fn end_steps(&mut self, job: JobId) {
        let state = match self.core.job(job).map(|j| j.state()) {
            Some(s @ (JobState::Timeout | JobState::NodeFail | JobState::Preempted)) => s,
            _ => JobState::Cancelled,
        };
        let ids: Vec<(u32, u32)> = self
            .steps
            .range((job.0, 0)..=(job.0, u32::MAX))
            .map(|(k, _)| *k)
            .collect();
        self.step_nodes.retain(|(j, _), _| *j != job.0);
        self.step_live.retain(|(j, _), _| *j != job.0);
        self.live_usage.retain(|(j, _), _| *j != job.0);
        for key in ids {
            if let Some(mut row) = self.steps.remove(&key) {
                row.state = state;
                row.end_time = Some(now());
                self.turn.steps.push(row);
            }
        }
    }
}

impl Controller {
    /// The running steps of `jobs` (every job when empty; the id of an
    /// array names its jobs), batch steps included, by job and step. A job
    /// the controller does not know is ESLURM_INVALID_JOB_ID. What a step
    /// has used so far is shown to its job's owner and operators only, as
    /// slurmstepd answers sstat.
    pub(super) fn list_steps(
        &self,
        jobs: &[u32],
        viewer: Option<u32>,
        uid: u32,
    ) -> Result<ClientResponse, ProtoError> {
        let operator = self.is_operator(uid);
        // Someone else's job is unknown to a viewer PrivateData limits.
        let visible = |j: &spur_core::Job| viewer.is_none_or(|v| v == j.spec.user.0);
        if jobs
            .iter()
            .any(|&j| !self.core.job(JobId(j)).is_some_and(visible))
        {
            return Err(ErrorCode::InvalidJobId.into());
        }
        let wanted: Vec<JobId> = if jobs.is_empty() {
            self.core.running_jobs().map(|j| j.id).collect()
        } else {
            let mut ids: Vec<JobId> = jobs.iter().flat_map(|&j| self.members(JobId(j))).collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let mut steps = Vec::new();
        for id in wanted {
            let Some(job) =
                (self.core.job(id)).filter(|j| j.state() == JobState::Running && visible(j))
            else {
                continue;
            };
            let meta = self.metas.get(&id).cloned().unwrap_or_default();
            let usage_visible = operator || job.spec.user.0 == uid;
            let base = StepInfo {
                job_id: id.0,
                step: StepId::Batch,
                array: job.array_job_id().map(|a| a.0).zip(job.array_task_id()),
                name: "batch".into(),
                user_id: job.spec.user.0,
                user_name: meta.user_name.to_string(),
                partition: self.core.partitions()[job.partition().index()].name.clone(),
                start_time: job.start_time().unwrap_or(0),
                time_limit: None,
                nodes: String::new(),
                node_count: 1,
                num_tasks: 1,
                num_cpus: 0,
                tres: None,
                tres_per_step: None,
                tres_per_node: None,
                tres_per_task: None,
                dist: None,
                srun: None,
                usage: None,
            };
            if !meta.interactive {
                let host = self.batch_host(id);
                steps.push(StepInfo {
                    nodes: host
                        .map(|n| self.core.nodes()[n.index()].config.name.clone())
                        .unwrap_or_default(),
                    usage: usage_visible
                        .then(|| self.live_usage_of(id.0, spur_proto::BATCH_STEP))
                        .flatten(),
                    ..base.clone()
                });
            }
            for ((_, step_id), row) in self.steps.range((id.0, 0)..=(id.0, u32::MAX)) {
                let live = self.step_live.get(&(id.0, *step_id));
                let gres = |i: usize| {
                    live.and_then(|l| l.gpus[i])
                        .map(|n| format!("gres:gpu:{n}"))
                };
                steps.push(StepInfo {
                    step: StepId::Numbered(*step_id),
                    name: row.name.clone(),
                    start_time: row.start_time,
                    time_limit: live.and_then(|l| l.time_limit),
                    nodes: row.nodes.clone(),
                    node_count: row.node_count,
                    num_tasks: row.ntasks,
                    num_cpus: row.ncpus,
                    tres: Some(row.tres),
                    tres_per_step: gres(0),
                    tres_per_node: gres(1),
                    tres_per_task: gres(2),
                    dist: row.layout.clone(),
                    srun: live.and_then(|l| l.srun.clone()),
                    usage: usage_visible
                        .then(|| self.live_usage_of(id.0, *step_id))
                        .flatten(),
                    ..base.clone()
                });
            }
        }
        Ok(ClientResponse::Steps { now: now(), steps })
    }
}
