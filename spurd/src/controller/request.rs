//! Client requests: each is checked (who asks, for what), applied to the
//! core, and answered; answers leave only after the turn commits. Only root
//! and SlurmUser may act on other users' jobs or on nodes.

use std::collections::HashSet;

use spur_conf::PrivateData;
use tracing::{info, warn};

use spur_core::{CoreError, Hold, Input, JobId, JobState, NodeId, Outcome};
use spur_proto::{
    ClientRequest, ClientResponse, ConfigInfo, ErrorCode, JobDesc, JobStateName, JobUpdate,
    NodeStateRequest, NodeUpdate, ProtoError, SignalScope, SignalTarget, ToAgent, WillRun,
};

use super::actor::{now, Controller, Reply};
use super::convert;
use super::store::{JobMeta, JobPayload};
use super::validate;
use spur_sys::users;

pub(super) fn core_error(e: &CoreError) -> ProtoError {
    match e {
        CoreError::Submit(s) => convert::submit_error(s),
        CoreError::Step(s) => super::step::step_error(s),
        CoreError::UnknownJob(_) | CoreError::UnknownTask { .. } => ErrorCode::InvalidJobId.into(),
        CoreError::Dependency(d) => convert::dependency_error(*d).into(),
        CoreError::UnknownNode(_) => ErrorCode::InvalidNodeName.into(),
        CoreError::JobPending(_) => ErrorCode::JobPending.into(),
        CoreError::RequeueDisabled(_) => ErrorCode::Disabled.into(),
        _ => ErrorCode::TransitionStateNoUpdate.into(),
    }
}

/// A core input's outcome as a per-job answer.
fn applied(result: Result<spur_core::Outcome, CoreError>) -> Result<(), ProtoError> {
    result.map(drop).map_err(|e| core_error(&e))
}

impl Controller {
    pub(super) fn on_request(&mut self, uid: u32, req: ClientRequest) -> Reply {
        if let ClientRequest::Jobs {
            ids,
            fields,
            active_only,
        } = &req
        {
            let viewer = self.private_viewer(uid, PrivateData::JOBS);
            return match self.jobs(ids, *fields, *active_only, viewer) {
                Ok(frame) => Reply::Frame(frame),
                Err(e) => Reply::Response(ClientResponse::Error(e)),
            };
        }
        let result = match req {
            ClientRequest::Ping => Ok(ClientResponse::Pong {
                host: self.site.ctld_name.clone(),
            }),
            ClientRequest::Submit(desc) => self.submit(uid, *desc),
            ClientRequest::WillRun(desc) => self.will_run(uid, &desc),
            ClientRequest::Nodes => match self.private_viewer(uid, PrivateData::NODES) {
                // slurmctld refuses the whole listing (REQUEST_NODE_INFO).
                Some(_) => {
                    warn!(uid, "node listing refused: PrivateData=nodes");
                    Err(ErrorCode::AccessDenied.into())
                }
                None => Ok(self.nodes()),
            },
            ClientRequest::Steps { jobs } => {
                self.list_steps(&jobs, self.private_viewer(uid, PrivateData::JOBS), uid)
            }
            ClientRequest::Partitions => Ok(ClientResponse::Partitions(
                self.core
                    .partitions()
                    .iter()
                    .map(|p| {
                        let conf = self.site.conf.partitions.iter().find(|c| c.name == p.name);
                        convert::partition_info(&self.core, p, conf)
                    })
                    .collect(),
            )),
            ClientRequest::Config => Ok(ClientResponse::Config(ConfigInfo {
                loaded_at: self.started_at,
                conf: Box::new(self.site.conf.clone()),
                facts: super::host_facts(&self.site, self.core.next_job_id().0),
            })),
            ClientRequest::Signal(target) => Ok(self.signal(uid, &target)),
            ClientRequest::Hold { jobs, admin } => {
                let hold = if admin && self.is_operator(uid) {
                    Hold::Admin
                } else {
                    Hold::User
                };
                Ok(self.per_job(uid, &jobs, |c, id| applied(c.apply(Input::Hold(id, hold)))))
            }
            ClientRequest::Release { jobs } => {
                Ok(self.per_job(uid, &jobs, |c, id| applied(c.apply(Input::Release(id)))))
            }
            ClientRequest::Requeue {
                jobs,
                hold,
                incomplete,
            } => Ok(self.per_job(uid, &jobs, |c, id| c.requeue(id, hold, incomplete))),
            ClientRequest::UpdateJob(update) => self.update_job(uid, &update),
            ClientRequest::StepCreate(req) => self.create_step(uid, &req),
            ClientRequest::AllocationAlive { job_id } => self.allocation_alive(uid, job_id),
            ClientRequest::ReleaseAllocation {
                job_id,
                exit_code,
                signal,
            } => self.release_allocation(uid, job_id, exit_code, signal),
            ClientRequest::StepComplete {
                job_id,
                step_id,
                exit_code,
                signal,
            } => self.complete_step(uid, job_id, step_id, exit_code, signal),
            ClientRequest::SplitArrayTasks(tasks) => self.split_array_tasks(uid, &tasks),
            ClientRequest::UpdateNode(update) => self.update_node(uid, &update),
            ClientRequest::Diag => Ok(ClientResponse::Diag(Box::new(self.diag()))),
            ClientRequest::MeshRotate => self.rotate_mesh_key(uid),
            ClientRequest::Mesh => match self.private_viewer(uid, PrivateData::NODES) {
                // Node names, like the node listing.
                Some(_) => Err(ErrorCode::AccessDenied.into()),
                None => Ok(ClientResponse::Mesh(self.mesh_status().map(Box::new))),
            },
            ClientRequest::Domains => match self.private_viewer(uid, PrivateData::NODES) {
                // Node names, like the node listing.
                Some(_) => Err(ErrorCode::AccessDenied.into()),
                None => Ok(ClientResponse::Domains(self.domains())),
            },
            ClientRequest::Shares => Ok(ClientResponse::Shares(
                self.shares(self.private_viewer(uid, PrivateData::USAGE)),
            )),
            ClientRequest::SignalStep {
                job_id,
                step_id,
                signal,
            } => self
                .signal_step(uid, JobId(job_id), step_id, signal)
                .map(|()| ClientResponse::Done),
            ClientRequest::Priorities(query) => Ok(ClientResponse::Priorities(
                self.priorities(&query, self.private_viewer(uid, PrivateData::JOBS)),
            )),
            ClientRequest::ResetDiag if !self.is_operator(uid) => {
                tracing::error!(uid, "Security violation: REQUEST_STATS_INFO reset");
                Err(ErrorCode::AccessDenied.into())
            }
            ClientRequest::ResetDiag => {
                self.counters.reset(now(), true);
                self.rpcs.clear();
                Ok(ClientResponse::Done)
            }
            ClientRequest::Reconfigure if !self.is_operator(uid) => {
                Err(ErrorCode::AccessDenied.into())
            }
            ClientRequest::Reconfigure => {
                // What this turn owes so far names nodes by their current
                // numbers: settle it before they change.
                self.finish_turn(super::actor::Commit::Now);
                self.reconfigure()
            }
            _ => Err(ErrorCode::Malformed.into()),
        };
        Reply::Response(result.unwrap_or_else(ClientResponse::Error))
    }

    /// One metrics endpoint's families; the HTTP task writes their text.
    pub(super) fn metrics(
        &self,
        endpoint: super::metrics::Endpoint,
    ) -> super::metrics::families::Exposition {
        use super::metrics::{families, Endpoint};
        match endpoint {
            Endpoint::Jobs => families::jobs(&self.core, &self.gpu_use_by_node()),
            Endpoint::Nodes => {
                let mut out = families::nodes(&self.core, &self.live, &self.gpu_use_by_node());
                if let Some(status) = self.mesh_status() {
                    families::mesh(&status, &mut out);
                }
                out
            }
            Endpoint::UsersAccounts => families::users_accounts(&self.core, &users::name_of),
            Endpoint::Scheduler => families::scheduler(&self.diag()),
            Endpoint::Partitions => families::partitions(&self.core, &self.live),
        }
    }

    /// The priority terms of the pending jobs `query` asks for, as
    /// slurmctld's multifactor plugin lists them: eligible now and not
    /// held; only `viewer`'s, when one is given.
    fn priorities(
        &self,
        query: &spur_proto::PriorityQuery,
        viewer: Option<u32>,
    ) -> spur_proto::Priorities {
        let spur_core::PriorityType::Multifactor(w) = self.core.config().priority else {
            return spur_proto::Priorities::default();
        };
        let at = now();
        let partitions = self.core.partitions();
        let named_jobs: HashSet<u32> = query.jobs.iter().copied().collect();
        let users: Option<HashSet<u32>> = query.users.as_ref().map(|u| u.iter().copied().collect());
        let parts: Option<HashSet<usize>> = query.partitions.as_ref().map(|names| {
            partitions
                .iter()
                .enumerate()
                .filter(|(_, p)| names.contains(&p.name))
                .map(|(i, _)| i)
                .collect()
        });
        let wanted = |job: &spur_core::Job| {
            let user = job.spec.user.0;
            viewer.is_none_or(|v| v == user)
                && users.as_ref().is_none_or(|u| u.contains(&user))
                && parts
                    .as_ref()
                    .is_none_or(|p| p.contains(&job.partition().index()))
        };
        // Named jobs are looked up; otherwise every pending job is read.
        let candidates: Box<dyn Iterator<Item = &spur_core::Job>> = if named_jobs.is_empty() {
            Box::new(self.core.pending_jobs())
        } else {
            let mut ids: Vec<u32> = named_jobs.into_iter().collect();
            ids.sort_unstable();
            Box::new(
                ids.into_iter()
                    .filter_map(|id| self.core.job(JobId(id)))
                    .filter(|j| j.state() == spur_core::JobState::Pending),
            )
        };
        let jobs = candidates
            .filter(|job| job.hold().is_none() && job.spec.begin.is_none_or(|t| t <= at))
            .filter(|job| wanted(job))
            .filter_map(|job| {
                let fixed = job.spec.priority.is_some();
                // A priority an operator set has no terms.
                let f = if fixed {
                    spur_core::PriorityFactors::default()
                } else {
                    self.core.priority_factors(job.id)?
                };
                Some(spur_proto::JobPriority {
                    job_id: job.id.0,
                    user_id: job.spec.user.0,
                    partition: partitions[job.partition().index()].name.clone(),
                    priority: if fixed { job.priority() } else { f.priority() },
                    fixed,
                    age: f.age,
                    fairshare: f.fairshare,
                    job_size: f.job_size,
                    partition_term: f.partition,
                    qos: f.qos,
                    nice: f.nice,
                })
            })
            .collect();
        spur_proto::Priorities {
            weights: Some(spur_proto::PriorityWeights {
                age: w.age,
                fairshare: w.fairshare,
                job_size: w.job_size,
                partition: w.partition,
                qos: w.qos,
            }),
            jobs,
        }
    }

    /// Every user's fair-share, as `sshare` shows it; only `viewer`'s row
    /// when one is given.
    fn shares(&self, viewer: Option<u32>) -> spur_proto::Shares {
        let at = now();
        let all = self.core.shares(at);
        // The cluster's totals, whichever rows the viewer may see.
        let usage_total = all.iter().map(|(_, usage, _)| usage).sum();
        let user_count = u32::try_from(all.len()).unwrap_or(u32::MAX);
        let users = all
            .into_iter()
            .filter(|(uid, _, _)| viewer.is_none_or(|v| v == uid.0))
            .map(|(uid, usage, factor)| spur_proto::UserShare {
                uid: uid.0,
                name: users::name_of(uid.0),
                usage,
                factor,
            })
            .collect();
        spur_proto::Shares {
            users,
            now: at,
            usage_total,
            user_count,
        }
    }

    /// The counters `sdiag` shows.
    fn diag(&self) -> spur_proto::Stats {
        let (by_type, by_user) = self.rpcs.rows();
        let c = &self.counters;
        spur_proto::Stats {
            now: now(),
            since: c.since,
            server_threads: self.rpcs.connections(),
            agent_queue: 0,
            agents: self.conns.len() as u32,
            jobs_submitted: c.submitted,
            jobs_started: c.started,
            jobs_completed: c.completed,
            jobs_canceled: c.canceled,
            jobs_failed: c.failed,
            jobs_pending: self.core.pending_count() as u32,
            jobs_running: self.core.running_count() as u32,
            sched: c.sched.clone(),
            backfill: c.backfill.clone(),
            clock_latency_us: super::stats::clock_latency_us(),
            by_type,
            by_user,
        }
    }

    pub(super) fn is_operator(&self, uid: u32) -> bool {
        uid == 0 || Some(uid) == self.site.slurm_user_uid
    }

    /// `Some(uid)` when slurm.conf's PrivateData keeps `what` (one of
    /// [`PrivateData`]'s bits) from `uid` beyond their own: they are no
    /// operator. None: they see everything.
    pub(super) fn private_viewer(&self, uid: u32, what: u16) -> Option<u32> {
        let private = self.site.conf.private_data.hides(what);
        (private && !self.is_operator(uid)).then_some(uid)
    }

    /// Tells the gateway the PrivateData bits of the configuration now in
    /// force.
    pub(super) fn publish_private_data(&self) {
        let bits = self.site.conf.private_data.bits();
        self.private_data
            .store(bits, std::sync::atomic::Ordering::Relaxed);
    }

    /// `-M`: Slurm's error unless this cluster is among those named.
    fn check_clusters(&self, desc: &JobDesc) -> Result<(), ProtoError> {
        let Some(names) = &desc.clusters else {
            return Ok(());
        };
        let ours = &self.facts.cluster_name;
        let named = names
            .split(',')
            .map(str::trim)
            .any(|n| n.eq_ignore_ascii_case("all") || n.eq_ignore_ascii_case(ours));
        if named {
            Ok(())
        } else {
            Err(ProtoError::with_detail(
                ErrorCode::InvalidClusterName,
                names.clone(),
            ))
        }
    }

    /// The controller's checks of a job request (slurmctld's
    /// validate_job_create_req), which every front end's request meets.
    fn validate(&self, uid: u32, desc: &JobDesc) -> Result<(), ProtoError> {
        let who = validate::Submitter {
            operator: self.is_operator(uid),
        };
        validate::job_desc(desc, who, now())
    }

    /// A refused submission with the line slurmctld sends with it where
    /// it has one: a `--mem` no node has.
    fn explain_refusal(&self, desc: &JobDesc, e: ProtoError) -> ProtoError {
        let spur_proto::MemSpec::PerNode(mb) = desc.mem else {
            return e;
        };
        let nodes = self.core.nodes();
        let no_node_has_it =
            mb > 0 && !nodes.is_empty() && nodes.iter().all(|n| n.config.mem_mb < mb);
        if e.code == ErrorCode::NodeConfigUnavailable && e.detail.is_none() && no_node_has_it {
            ProtoError::with_detail(e.code, "Memory specification can not be satisfied")
        } else {
            e
        }
    }

    fn submit(&mut self, uid: u32, desc: JobDesc) -> Result<ClientResponse, ProtoError> {
        let submit_key = match &desc.submit_key {
            Some(key) => Some(super::submit_key::digest(uid, key)?),
            None => None,
        };
        if let Some(key) = submit_key {
            if let Some(id) = self.submit_keys.job(key) {
                // A retry of a submission that was taken: its job again.
                info!(job = id.0, uid, "submission repeated; its job answers");
                return Ok(ClientResponse::Submitted {
                    job_id: id.0,
                    cluster: self.facts.cluster_name.clone(),
                });
            }
        }
        self.check_clusters(&desc)?;
        self.validate(uid, &desc)?;
        let script = desc.script.clone().unwrap_or_default();
        let mut spec = convert::job_spec(&desc, uid);
        if spec.priority.is_some() && !self.is_operator(uid) {
            // Slurm ignores --priority from ordinary users.
            spec.priority = None;
        }
        let id = match self.apply(Input::Submit(Box::new(spec))) {
            Ok(Outcome::Submitted(id)) => id,
            Ok(_) => return Err(ErrorCode::Unspecified.into()),
            Err(e) => return Err(self.explain_refusal(&desc, core_error(&e))),
        };
        let user = users::user(uid);
        let mut meta = JobMeta {
            gid: user.gid,
            group_name: users::group_name(user.gid).into(),
            user_name: user.name.into(),
            work_dir: desc.work_dir.into(),
            stdout: desc.stdout.map(Into::into),
            stderr: desc.stderr.map(Into::into),
            stdin: desc.stdin.map(Into::into),
            append: desc.open_mode == spur_proto::OpenMode::Append,
            comment: desc.comment.map(Into::into),
            submit_host: desc.submit_host.into(),
            command: desc.command.map(Into::into),
            signal_batch_only: desc.signal.is_some_and(|s| s.batch_only),
            unacted: desc.unacted,
            nodes: None,
            next_step: 0,
            interactive: desc.interactive,
            ..super::history::submitted_meta(&self.core, id)
        };
        let payload = JobPayload {
            script,
            argv: desc.argv,
            env: desc.env,
        };
        meta.share_names(&mut self.names);
        self.metas.insert(id, Box::new(meta.clone()));
        if let Some(key) = submit_key {
            self.submit_keys.insert(key, id);
        }
        self.turn.new_jobs.push(super::actor::NewJob {
            id,
            meta,
            payload,
            submit_key,
        });
        self.counters.submitted += 1;
        info!(job = id.0, uid, "job submitted");
        Ok(ClientResponse::Submitted {
            job_id: id.0,
            cluster: self.facts.cluster_name.clone(),
        })
    }

    fn will_run(&self, uid: u32, desc: &JobDesc) -> Result<ClientResponse, ProtoError> {
        self.check_clusters(desc)?;
        self.validate(uid, desc)?;
        let spec = convert::job_spec(desc, uid);
        let (start, nodes) = self
            .core
            .will_run(&spec, now())
            .map_err(|e| convert::submit_error(&e))?
            .ok_or(ErrorCode::NodeConfigUnavailable)?;
        let names: Vec<String> = nodes
            .iter()
            .map(|n| self.core.nodes()[n.index()].config.name.clone())
            .collect();
        let partition = match spec.partitions.first() {
            Some(p) => p.clone(),
            None => self
                .core
                .partitions()
                .iter()
                .find(|p| p.is_default)
                .map_or_else(String::new, |p| p.name.clone()),
        };
        let tasks = spec.ntasks.unwrap_or(names.len() as u32).max(1);
        Ok(ClientResponse::WillRun(WillRun {
            job_id: self.core.next_job_id().0,
            start,
            nodes: spur_conf::hostlist::compress(&names),
            cpus: tasks * spec.cpus_per_task.unwrap_or(1),
            partition,
        }))
    }

    /// The job listing of `fields`, encoded as it is built; only `viewer`'s
    /// jobs when one is given (PrivateData=jobs), and a job of someone
    /// else's is then an invalid id, as slurmctld's `pack_one_job` answers.
    fn jobs(
        &self,
        ids: &[u32],
        fields: spur_proto::JobFields,
        active_only: bool,
        viewer: Option<u32>,
    ) -> Result<Vec<u8>, ProtoError> {
        let visible = |j: &spur_core::Job| viewer.is_none_or(|v| v == j.spec.user.0);
        let none = JobMeta::default();
        // What filling a job reads, alone: a listing may be filled on two
        // threads.
        let (core, metas) = (&self.core, &self.metas);
        // A job and its metadata are boxed apart: both are asked for
        // before their turn, or each read waits for memory. The metadata
        // is found by the id beside the job, not in it: reading the job's
        // own would wait for the job's memory right there.
        let ahead = |&(id, j): &(JobId, &spur_core::Job)| {
            spur_sys::prefetch(j);
            if let Some(meta) = metas.get(&id) {
                spur_sys::prefetch(&**meta);
            }
        };
        // Fills the job in and lists it (encode_jobs' `fill`).
        let fill = |&(id, j): &(JobId, &spur_core::Job), info: &mut spur_proto::JobInfo| {
            let meta = metas.get(&id).map_or(&none, |m| &**m);
            let host = j
                .allocation()
                .first()
                .map(|a| core.nodes()[a.node.index()].config.name.as_str())
                .unwrap_or("");
            convert::fill_job_info(info, core, j, meta, host, fields);
            true
        };
        let encoded = if ids.is_empty() {
            let listed = |j: &spur_core::Job| {
                visible(j)
                    && (!active_only
                        || matches!(
                            convert::state_name(j),
                            JobStateName::Pending
                                | JobStateName::Running
                                | JobStateName::Completing
                        ))
            };
            // Every job, chosen as it is written: reading each job to
            // choose it is most of the work, and the writers share it.
            let jobs: Vec<(JobId, &spur_core::Job)> = self.core.jobs_with_ids().collect();
            spur_proto::frame::encode_jobs(now(), fields, &jobs, ahead, |job, info| {
                listed(job.1) && fill(job, info)
            })
        } else {
            // The id of an array names every job of it.
            let found: Vec<(JobId, &spur_core::Job)> = self
                .named_jobs(ids)
                .into_iter()
                .filter_map(|id| self.core.job(id).map(|j| (id, j)))
                .filter(|(_, j)| visible(j))
                .collect();
            if found.is_empty() {
                return Err(ErrorCode::InvalidJobId.into());
            }
            spur_proto::frame::encode_jobs(now(), fields, &found, ahead, fill)
        };
        encoded.map_err(|_| ErrorCode::Malformed.into())
    }

    /// The NVLink domains, their nodes and GPUs, in topology.conf order.
    fn domains(&self) -> Vec<spur_proto::DomainInfo> {
        let nodes = self.core.nodes();
        self.core
            .domain_gpus()
            .into_iter()
            .map(|d| spur_proto::DomainInfo {
                name: d.name,
                nodes: d
                    .nodes
                    .iter()
                    .map(|n| nodes[n.index()].config.name.clone())
                    .collect(),
                gpus: d.total,
                alloc: d.alloc,
                idle: d.idle,
                stranded: d.stranded,
            })
            .collect()
    }

    fn nodes(&self) -> ClientResponse {
        let nodes = self
            .core
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| {
                convert::node_info(&self.core, n, &self.site.conf.nodes[i], &self.live[i])
            })
            .collect();
        ClientResponse::Nodes { now: now(), nodes }
    }

    /// Checks that `uid` may act on job `id`.
    pub(super) fn authorize(&self, uid: u32, id: JobId) -> Result<(), ProtoError> {
        let job = self.core.job(id).ok_or(ErrorCode::InvalidJobId)?;
        if job.spec.user.0 == uid || self.is_operator(uid) {
            Ok(())
        } else {
            Err(ErrorCode::AccessDenied.into())
        }
    }

    fn per_job(
        &mut self,
        uid: u32,
        jobs: &[u32],
        mut action: impl FnMut(&mut Controller, JobId) -> Result<(), ProtoError>,
    ) -> ClientResponse {
        let results = jobs
            .iter()
            .map(|&raw| {
                let id = JobId(raw);
                let r = self.authorize(uid, id).and_then(|()| {
                    action(self, id)?;
                    // The id of an array acts on every job of it.
                    for m in self.members(id) {
                        self.turn.dirty.insert(m);
                    }
                    Ok(())
                });
                (raw, r)
            })
            .collect();
        ClientResponse::PerJob(results)
    }

    fn signal(&mut self, uid: u32, target: &SignalTarget) -> ClientResponse {
        let mut results: Vec<(u32, Result<(), ProtoError>)> = target
            .jobs
            .iter()
            .map(|&raw| (raw, self.signal_one(uid, JobId(raw), target)))
            .collect();
        for tasks in &target.array_tasks {
            let r = self.signal_tasks(uid, tasks, target);
            results.push((tasks.array_job_id, r));
        }
        ClientResponse::PerJob(results)
    }

    /// Cancels or signals job `id`; the id of an array (`scancel N`) names
    /// every job of it, and is done when all of them are.
    fn signal_one(&mut self, uid: u32, id: JobId, target: &SignalTarget) -> Result<(), ProtoError> {
        self.authorize(uid, id)?;
        let members = self.members(id);
        let unfinished: Vec<JobId> = members
            .iter()
            .copied()
            .filter(|m| self.core.job(*m).is_some_and(|j| !j.state().is_finished()))
            .collect();
        match target.signal {
            None => {
                if unfinished.is_empty() {
                    return Err(ErrorCode::AlreadyDone.into());
                }
                self.apply(Input::Cancel(id)).map_err(|e| core_error(&e))?;
                for m in unfinished {
                    self.turn.dirty.insert(m);
                    self.note_cancel(m, uid);
                }
                info!(job = id.0, uid, "job cancelled");
                Ok(())
            }
            Some(signal) => {
                let running: Vec<JobId> = unfinished
                    .iter()
                    .copied()
                    .filter(|m| {
                        self.core
                            .job(*m)
                            .is_some_and(|j| j.state() == JobState::Running)
                    })
                    .collect();
                if running.is_empty() {
                    // Says why, from the job (or the array's record).
                    return self.signal_running(id, signal, target.scope());
                }
                for m in running {
                    self.signal_running(m, signal, target.scope())?;
                }
                Ok(())
            }
        }
    }

    /// Signals step `step_id` of running job `id` on the nodes it runs on
    /// (the batch step: the batch shell, on the first node).
    fn signal_step(
        &mut self,
        uid: u32,
        id: JobId,
        step_id: u32,
        signal: i32,
    ) -> Result<(), ProtoError> {
        self.authorize(uid, id)?;
        self.require_running(id)?;
        if step_id == spur_proto::BATCH_STEP {
            if self.metas.get(&id).is_some_and(|m| m.interactive) {
                return Err(ErrorCode::InvalidJobId.into());
            }
            return self.signal_running(id, signal, SignalScope::BatchShell);
        }
        let Some(row) = self.steps.get(&(id.0, step_id)) else {
            return Err(ErrorCode::InvalidJobId.into());
        };
        let nodes: Vec<NodeId> = spur_conf::hostlist::expand(&row.nodes)
            .unwrap_or_default()
            .iter()
            .filter_map(|name| self.core.node_id(name))
            .collect();
        info!(job = id.0, step = step_id, signal, uid, "step signalled");
        for node in nodes {
            self.turn.to_agents.push((
                node,
                ToAgent::SignalStep {
                    job_id: id.0,
                    step_id,
                    signal,
                },
            ));
        }
        Ok(())
    }

    /// `scontrol update JobId=...`. The id of an array updates every job
    /// of it, each answered on its own, as slurmctld's update_job_str does;
    /// ArrayTaskThrottle goes to the array's record (and is ignored for a
    /// job that is not an array).
    fn update_job(&mut self, uid: u32, u: &JobUpdate) -> Result<ClientResponse, ProtoError> {
        let id = JobId(u.job_id);
        self.authorize(uid, id)?;
        if let Some(throttle) = u.array_task_throttle {
            self.turn.dirty.insert(id);
            match self.apply(Input::SetArrayThrottle {
                array: id,
                throttle,
            }) {
                Ok(_) | Err(CoreError::NotAnArray(_)) => {}
                Err(e) => return Err(core_error(&e)),
            }
        }
        if !self.core.is_array(id) {
            self.update_one(uid, id, u)?;
            return Ok(ClientResponse::Done);
        }
        let results = self
            .members(id)
            .into_iter()
            .map(|m| {
                // The throttle was all an ended record of the array could
                // take.
                let ended = self.core.job(m).is_some_and(|j| j.state().is_finished());
                let r = if m == id && ended && u.array_task_throttle.is_some() {
                    Ok(())
                } else {
                    self.update_one(uid, m, u)
                };
                (m, r)
            })
            .collect();
        Ok(self.per_tasks(id, results))
    }

    /// The fields of `u` other than the throttle, for one job; nothing of
    /// an ended job changes (slurmctld's _update_job).
    fn update_one(&mut self, uid: u32, id: JobId, u: &JobUpdate) -> Result<(), ProtoError> {
        if self.core.job(id).is_some_and(|j| j.state().is_finished()) {
            return Err(ErrorCode::JobFinished.into());
        }
        // Whatever part of the update applies is saved (Slurm applies
        // the fields one by one, too).
        self.turn.dirty.insert(id);
        let operator = self.is_operator(uid);
        if let Some(partition) = &u.partition {
            let names: Vec<String> = partition.split(',').map(str::to_string).collect();
            let job = self.core.job(id).ok_or(ErrorCode::InvalidJobId)?;
            if job.spec.partitions != names {
                if job.state() != JobState::Pending {
                    return Err(ErrorCode::JobNotPending.into());
                }
                self.apply(Input::SetPartitions {
                    job: id,
                    partitions: names,
                })
                .map_err(|e| core_error(&e))?;
                self.note_partition(id);
            }
        }
        if let Some(priority) = u.priority {
            self.update_priority(uid, id, priority)?;
        }
        if let Some(limit) = u.time_limit {
            if limit.is_some_and(|t| t > spur_conf::MAX_TIME_LIMIT_SECS) {
                return Err(ErrorCode::InvalidTimeLimit.into());
            }
            let current = self.core.job(id).and_then(|j| j.time_limit());
            // Only operators may raise a limit (Slurm's rule).
            let raises = match (limit, current) {
                (None, Some(_)) => true,
                (Some(new), Some(old)) => new > old,
                _ => false,
            };
            if raises && !operator {
                return Err(ErrorCode::AccessDenied.into());
            }
            self.apply(Input::SetTimeLimit { job: id, limit })
                .map_err(|e| core_error(&e))?;
        }
        if let Some(comment) = &u.comment {
            if let Some(meta) = self.metas.get_mut(&id) {
                meta.comment = Some(comment.as_str().into());
                self.turn.meta_dirty.insert(id);
            }
        }
        if let Some(nice) = u.nice {
            // Only operators may raise a job's priority with a negative nice.
            if nice < 0 && !operator {
                return Err(ErrorCode::AccessDenied.into());
            }
            self.apply(Input::SetNice { job: id, nice })
                .map_err(|e| core_error(&e))?;
        }
        if let Some(name) = &u.name {
            self.apply(Input::Rename {
                job: id,
                name: name.clone(),
            })
            .map_err(|e| core_error(&e))?;
        }
        if let Some(dependency) = &u.dependency {
            if self.core.job(id).map(|j| j.state()) != Some(JobState::Pending) {
                return Err(ErrorCode::JobNotPending.into());
            }
            self.apply(Input::SetDependency {
                job: id,
                dependency: dependency.clone(),
            })
            .map_err(|e| core_error(&e))?;
        }
        self.turn.dirty.insert(id);
        Ok(())
    }

    /// `scontrol update Priority=`, with slurmctld's rules: 0 holds (an
    /// operator's hold when an operator asks); a held job keeps priority 0;
    /// only operators may fix a priority, and others may only lower theirs,
    /// which Slurm answers with "change nice instead".
    fn update_priority(&mut self, uid: u32, id: JobId, priority: u32) -> Result<(), ProtoError> {
        let job = self.core.job(id).ok_or(ErrorCode::InvalidJobId)?;
        if job.state().is_finished() {
            return Err(ErrorCode::AlreadyDone.into());
        }
        let operator = self.is_operator(uid);
        let held = job.hold().is_some();
        if priority == 0 {
            if held {
                return Ok(());
            }
            let hold = if operator { Hold::Admin } else { Hold::User };
            return self
                .apply(Input::Hold(id, hold))
                .map(drop)
                .map_err(|e| core_error(&e));
        }
        if held {
            return Err(ErrorCode::JobHeld.into());
        }
        if priority == job.priority() {
            return Ok(());
        }
        if !operator {
            return Err(if priority < job.priority() {
                ErrorCode::PrioResetFail
            } else {
                ErrorCode::AccessDenied
            }
            .into());
        }
        self.apply(Input::SetPriority { job: id, priority })
            .map(drop)
            .map_err(|e| core_error(&e))
    }

    fn update_node(&mut self, uid: u32, u: &NodeUpdate) -> Result<ClientResponse, ProtoError> {
        if !self.is_operator(uid) {
            return Err(ErrorCode::AccessDenied.into());
        }
        let ids = u
            .nodes
            .iter()
            .map(|n| {
                self.core
                    .node_id(n)
                    .ok_or_else(|| ProtoError::with_detail(ErrorCode::InvalidNodeName, n.clone()))
            })
            .collect::<Result<Vec<NodeId>, _>>()?;
        let Some(state) = u.state else {
            return Ok(ClientResponse::Done);
        };
        let reason = u.reason.clone().unwrap_or_default();
        if matches!(state, NodeStateRequest::Drain | NodeStateRequest::Down) && reason.is_empty() {
            return Err(ErrorCode::InvalidNodeState.into());
        }
        let now = now();
        for id in ids {
            let live = &mut self.live[id.index()];
            live.reason_set = Some((uid, now));
            let registered = live.registered;
            match state {
                NodeStateRequest::Drain => {
                    self.apply(Input::Drain(id, reason.clone()))
                        .map_err(|e| core_error(&e))?;
                }
                // Its jobs go as a failed node's do.
                NodeStateRequest::Down => {
                    live.admin_down = true;
                    self.node_failed(id, reason.clone());
                }
                NodeStateRequest::Resume | NodeStateRequest::Undrain => {
                    live.admin_down = false;
                    self.apply(Input::Resume(id)).map_err(|e| core_error(&e))?;
                    if state == NodeStateRequest::Resume && !registered {
                        // A node never heard from stays unavailable until
                        // it registers: the drain only is cleared.
                        let _ = self.apply(Input::NodeUnknown(id));
                    }
                }
            }
            self.node_changed(id);
            info!(node = %self.core.nodes()[id.index()].config.name, ?state, "node state set");
        }
        Ok(ClientResponse::Done)
    }
}
