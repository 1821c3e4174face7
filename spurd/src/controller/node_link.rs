//! The controller's side of its agents: registration and reconciliation
//! (which jobs the node still runs, which ended while the controller was
//! away), heartbeats, job ends, and the launch message for a batch script.

use std::collections::BTreeSet;

use tracing::{info, warn};

use spur_core::{ExitStatus, Input, JobId, JobState, NodeId};
use spur_proto::{BatchLaunch, FromAgent, JobEnd, OpenMode, Registration, ToAgent};

use super::actor::{now, Controller};
use super::registry::AgentLink;
use super::store::StoreError;

impl Controller {
    pub(super) fn on_agent_registered(&mut self, node: NodeId, link: AgentLink, reg: Registration) {
        let now = now();
        let name = self.core.nodes()[node.index()].config.name.clone();
        info!(node = %name, cpus = reg.cpus, gpus = reg.gpus.len(), running = reg.running.len(), "agent registered");
        let rts = self.site.conf.return_to_service;
        let live = &mut self.live[node.index()];
        // ReturnToService: 0 keeps a node that went DOWN for not
        // responding down until an admin resumes it, as if an admin had
        // set it DOWN; 2 returns even one an admin set DOWN.
        let held = match rts {
            0 => live.admin_down || live.not_responding,
            1 => live.admin_down,
            _ => false,
        };
        let held_changed = held != live.admin_down;
        live.admin_down = held;
        live.link = Some(link);
        live.last_heard = now;
        live.not_responding = false;
        live.registered = true;
        live.registered_at = Some(now);
        live.arch = Some(reg.arch.clone());
        live.os = Some(reg.os.clone());
        live.version = Some(reg.version.clone());
        live.boot_time = Some(reg.boot_time);
        let admin_down = live.admin_down;
        for end in &reg.ended {
            self.on_job_end(node, end.clone());
        }
        self.reconcile(node, &reg);
        // After the kills: the agent lets jobs it stopped while cut off
        // continue when it reads this.
        self.turn
            .to_agents
            .push((node, ToAgent::Registered { now }));
        if admin_down {
            info!(node = %name, return_to_service = rts, "node stays DOWN until it is resumed");
        } else {
            let _ = self.apply(Input::NodeUp(node));
        }
        if held_changed {
            self.node_changed(node);
        }
        if let Some(reason) = self.short_of_config(node, &reg) {
            warn!(node = %name, %reason, "node has less than slurm.conf says; draining it");
            let _ = self.apply(Input::Drain(node, reason));
            self.live[node.index()].reason_set = Some((0, now));
        }
    }

    /// Slurm's drain reason when a node reports fewer resources than
    /// configured.
    fn short_of_config(&self, node: NodeId, reg: &Registration) -> Option<String> {
        let cfg = &self.core.nodes()[node.index()].config;
        let gpus = reg.gpus.len() as u32;
        if gpus < cfg.gpus {
            return Some(format!(
                "gres/gpu count reported lower than configured ({gpus} < {})",
                cfg.gpus
            ));
        }
        if reg.cpus < cfg.cpus {
            return Some(format!(
                "Low socket*core*thread count, Low CPUs ({} < {})",
                reg.cpus, cfg.cpus
            ));
        }
        if reg.real_memory < cfg.mem_mb {
            return Some(format!(
                "Low RealMemory (reported:{} < 100.00% of configured:{})",
                reg.real_memory, cfg.mem_mb
            ));
        }
        None
    }

    /// Jobs the core runs on `node` that the agent does not know are lost;
    /// jobs the agent runs that the core does not (batch scripts, or steps
    /// of jobs no longer running on the node) are killed.
    fn reconcile(&mut self, node: NodeId, reg: &Registration) {
        let reported: BTreeSet<u32> = reg.running.iter().copied().collect();
        let ended: BTreeSet<u32> = reg.ended.iter().map(|e| e.job_id).collect();
        let ours: Vec<JobId> = self
            .core
            .running_jobs()
            .filter(|j| j.allocation().first().is_some_and(|a| a.node == node))
            .map(|j| j.id)
            .collect();
        for id in ours {
            // An allocation salloc or srun holds has no process on the node.
            let interactive = self.metas.get(&id).is_some_and(|m| m.interactive);
            if reported.contains(&id.0) {
                // Running there: its launch reached the node, whether or
                // not the node had said so (it reports a start late).
                if let Some(meta) = self.metas.get_mut(&id).filter(|m| !m.launched) {
                    meta.launched = true;
                    self.turn.meta_dirty.insert(id);
                }
                continue;
            }
            if interactive || ended.contains(&id.0) {
                continue;
            }
            if !self.metas.get(&id).is_some_and(|m| m.launched) {
                // The node never had it (its agent stopped before the
                // launch was on disk): send it again.
                match self.batch_launch(id) {
                    Ok(launch) => {
                        info!(
                            job = id.0,
                            "launch never reached the node; sending it again"
                        );
                        self.turn
                            .to_agents
                            .push((node, ToAgent::LaunchBatch(Box::new(launch))));
                        continue;
                    }
                    Err(e) => warn!(job = id.0, error = %e, "cannot read the job's script"),
                }
            }
            warn!(
                job = id.0,
                "node does not know a job it was running; job lost"
            );
            self.job_ended(
                id,
                ExitStatus {
                    code: 0,
                    signal: libc::SIGKILL,
                },
            );
        }
        let kill = |id| ToAgent::Kill {
            job_id: id,
            grace: 0,
            notice: None,
        };
        for &id in &reported {
            let known = self.core.job(JobId(id)).is_some_and(|j| {
                j.state() == JobState::Running && self.batch_host(j.id) == Some(node)
            });
            if !known {
                warn!(
                    job = id,
                    "node runs a job the controller does not; killing it"
                );
                self.turn.to_agents.push((node, kill(id)));
            }
        }
        for &id in reg.steps.iter().filter(|id| !reported.contains(id)) {
            let known = self.core.job(JobId(id)).is_some_and(|j| {
                j.state() == JobState::Running && j.allocation().iter().any(|a| a.node == node)
            });
            if !known {
                warn!(
                    job = id,
                    "node runs steps of a job the controller does not run there; killing them"
                );
                self.turn.to_agents.push((node, kill(id)));
            }
        }
    }

    pub(super) fn on_agent_message(&mut self, node: NodeId, msg: FromAgent) {
        self.live[node.index()].last_heard = now();
        match msg {
            FromAgent::Heartbeat { cpu_load, free_mem } => {
                let live = &mut self.live[node.index()];
                live.cpu_load = Some(cpu_load);
                live.free_mem = Some(free_mem);
                self.turn.to_agents.push((node, ToAgent::Alive));
            }
            FromAgent::JobEnded(end) => {
                let began = std::time::Instant::now();
                self.on_job_end(node, end);
                let kind = super::stats::COMPLETE_BATCH_SCRIPT;
                self.rpcs.record(kind, 0, began.elapsed());
            }
            FromAgent::StepEnded {
                job_id,
                step_id,
                usage,
            } => {
                self.usage_of_node_ended(node, job_id, step_id, usage.map(|u| *u));
                self.step_node_ended(job_id, step_id);
            }
            FromAgent::Usage(live) => self.usage_sampled(node, live),
            FromAgent::Launched { job_id } => {
                if let Some(meta) = self.metas.get_mut(&JobId(job_id)) {
                    meta.launched = true;
                    self.turn.meta_dirty.insert(JobId(job_id));
                }
            }
            FromAgent::Register(_) => warn!("second registration on one connection ignored"),
            _ => warn!("unexpected message from agent"),
        }
    }

    fn on_job_end(&mut self, node: NodeId, end: JobEnd) {
        let id = JobId(end.job_id);
        self.usage_of_node_ended(
            node,
            end.job_id,
            spur_proto::BATCH_STEP,
            end.usage.map(|u| *u),
        );
        let running_here = self
            .core
            .job(id)
            .is_some_and(|j| j.state() == JobState::Running && self.batch_host(id) == Some(node));
        if running_here && end.launch_failed {
            self.launch_failed(id);
        } else if running_here {
            self.job_ended(
                id,
                ExitStatus {
                    code: end.code,
                    signal: end.signal,
                },
            );
        }
        // Acknowledged after the turn commits, so the agent keeps the record
        // until the end is durable.
        self.turn
            .to_agents
            .push((node, ToAgent::EndAcknowledged { job_id: end.job_id }));
    }

    /// The message that starts a job's batch script.
    pub(super) fn batch_launch(&self, id: JobId) -> Result<BatchLaunch, StoreError> {
        // A job submitted in this turn is not in the store until the turn
        // commits (and the launch goes out only after that).
        let fresh = self.turn.new_jobs.iter().find(|new| new.id == id);
        let payload = match fresh {
            Some(new) => new.payload.clone(),
            None => self.store.payload(id.0)?.unwrap_or_default(),
        };
        let job = self.core.job(id).expect("started jobs exist");
        let meta = self.metas.get(&id).cloned().unwrap_or_default();
        let info = super::convert::job_info(&self.core, job, &meta, "");
        let tasks: Vec<u32> = job.allocation().iter().map(|a| a.tasks).collect();
        let mut env = super::env::batch_env(&info, &payload.env, &tasks, &self.facts);
        env.extend(self.array_env(job));
        let array = info.array_job_id.zip(info.array_task_id);
        if let Some(first) = job.allocation().first() {
            let (addr, pattern) = super::convert::topology_addr(&self.core, first.node);
            env.push(("SLURM_TOPOLOGY_ADDR".into(), addr));
            env.push(("SLURM_TOPOLOGY_ADDR_PATTERN".into(), pattern));
        }
        Ok(BatchLaunch {
            job_id: id.0,
            name: job.spec.name.to_string(),
            uid: job.spec.user.0,
            gid: meta.gid,
            user_name: meta.user_name.to_string(),
            script: payload.script,
            argv: payload.argv,
            env,
            work_dir: meta.work_dir.to_string(),
            stdout: meta
                .stdout
                .clone()
                .unwrap_or_else(|| spur_proto::pattern::default_output(array.is_some()).into())
                .to_string(),
            stderr: meta.stderr.as_deref().map(str::to_string),
            stdin: meta
                .stdin
                .clone()
                .unwrap_or_else(|| "/dev/null".into())
                .to_string(),
            open_mode: if meta.append {
                OpenMode::Append
            } else {
                OpenMode::Truncate
            },
            gpus: info.gpus_per_node_idx.first().cloned().unwrap_or_default(),
            memory_mib: job.allocation().first().map_or(0, |a| a.res.mem_mb),
            array,
        })
    }
}
