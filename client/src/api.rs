//! The controller's requests as typed calls: one method per request, each
//! returning the answer that request gets, so that no front end matches
//! answers by hand. An answer of another kind is Slurm's "Unexpected
//! message received" (`SLURM_UNEXPECTED_MSG_ERROR`).

use spur_proto::frame::FrameError;
use spur_proto::history::{HistoryJob, HistoryQuery};
use spur_proto::step::{StepGrant, StepInfo, StepRequest};
use spur_proto::{
    ArrayTasks, ClientRequest, ClientResponse, ConfigInfo, ErrorCode, JobDesc, JobField, JobFields,
    JobInfo, JobList, JobUpdate, NodeInfo, NodeUpdate, PartitionInfo, ProtoError, RequeueHold,
    SignalTarget, TokenRequest, WillRun,
};

use crate::{ClientError, Controller, RequestError};

/// A submission the controller took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// The job's id.
    pub job_id: u32,
    /// The controller's ClusterName.
    pub cluster: String,
}

/// A listing and the controller's clock when it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing<T> {
    /// The controller's clock.
    pub now: u64,
    /// The records.
    pub items: Vec<T>,
}

/// What a request acting on several jobs did to each: by job id, or by
/// array tasks (`8_[1-3]`) for a request that named tasks.
#[derive(Debug, Clone, PartialEq)]
pub enum PerTarget {
    /// One result per job.
    Jobs(Vec<(u32, Result<(), ProtoError>)>),
    /// One result per group of array tasks.
    Tasks(Vec<(String, Result<(), ProtoError>)>),
    /// Every one took it.
    Done,
}

/// A step the controller laid out: the grant and its signature.
#[derive(Debug, Clone, PartialEq)]
pub struct StepCreated {
    /// Where the step runs.
    pub grant: StepGrant,
    /// The cluster key's signature over the grant.
    pub signature: Vec<u8>,
}

fn unexpected() -> RequestError {
    RequestError::Refused(ProtoError::new(ErrorCode::Malformed))
}

/// The typed calls, for every [`Controller`].
pub trait Api: Controller {
    /// `Ping`: the controller's host name.
    fn ping(&mut self) -> Result<String, RequestError> {
        match self.request(&ClientRequest::Ping)? {
            ClientResponse::Pong { host } => Ok(host),
            _ => Err(unexpected()),
        }
    }

    /// Has the controller write a consistent copy of its state database
    /// to `path` (on its host); returns the jobs and bytes in the copy.
    fn backup(&mut self, path: &str) -> Result<(u64, u64), RequestError> {
        let req = ClientRequest::Backup {
            path: path.to_string(),
        };
        match self.request(&req)? {
            ClientResponse::BackedUp { jobs, bytes } => Ok((jobs, bytes)),
            _ => Err(unexpected()),
        }
    }

    /// Submits a job. A submission without an idempotency key gets one
    /// (a fresh one each call), so that the session may send it again when
    /// its answer is lost.
    fn submit(&mut self, mut desc: JobDesc) -> Result<Submitted, RequestError> {
        desc.submit_key
            .get_or_insert_with(crate::submit_key::new_key);
        match self.request(&ClientRequest::Submit(Box::new(desc)))? {
            ClientResponse::Submitted { job_id, cluster } => Ok(Submitted { job_id, cluster }),
            _ => Err(unexpected()),
        }
    }

    /// When and where a job would start (`--test-only`).
    fn will_run(&mut self, desc: JobDesc) -> Result<WillRun, RequestError> {
        match self.request(&ClientRequest::WillRun(Box::new(desc)))? {
            ClientResponse::WillRun(w) => Ok(w),
            _ => Err(unexpected()),
        }
    }

    /// Jobs: those of `ids` (every job when empty), or only the active
    /// ones, each with `fields` filled (the others default).
    fn jobs(
        &mut self,
        ids: Vec<u32>,
        fields: JobFields,
        active_only: bool,
    ) -> Result<Listing<JobInfo>, RequestError> {
        let (now, jobs) = self.job_list(ids, fields, active_only)?;
        let items = jobs
            .into_vec()
            .map_err(FrameError::from)
            .map_err(ClientError::from)?;
        Ok(Listing { now, items })
    }

    /// The job id that `text` names, as libslurm's `slurm_xlate_job_id`
    /// reads it: `N`, `N+o` (a heterogeneous offset, added) or `N_i` (array
    /// task `i`'s own job, asked of the controller); None when it names
    /// none (a task still pending in its array's record has no job of its
    /// own).
    fn xlate_job_id(&mut self, text: &str) -> Option<u32> {
        let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let id = text[..digits].parse::<u32>().ok()?;
        let rest = &text[digits..];
        if rest.is_empty() {
            return Some(id);
        }
        if let Some(offset) = rest.strip_prefix('+') {
            return offset.parse::<u32>().ok().map(|o| id.saturating_add(o));
        }
        let task = rest.strip_prefix('_')?.parse::<u32>().ok()?;
        self.task_job_id(id, task)
    }

    /// The job id of task `task` of array `array`; None if it has none
    /// (not there, or still pending in the array's record).
    fn task_job_id(&mut self, array: u32, task: u32) -> Option<u32> {
        let fields = JobFields::of(&[JobField::JobId, JobField::ArrayJobId, JobField::ArrayTaskId]);
        let listing = self.jobs(vec![array], fields, false).ok()?;
        (listing.items.iter())
            .find(|j| j.array_job_id == Some(array) && j.array_task_id == Some(task))
            .map(|j| j.job_id)
    }

    /// [`Api::jobs`] as they came, decoded as they are read: for a caller
    /// that reads each job once and keeps little of it. Also the
    /// controller's clock.
    fn job_list(
        &mut self,
        ids: Vec<u32>,
        fields: JobFields,
        active_only: bool,
    ) -> Result<(u64, JobList), RequestError> {
        let req = ClientRequest::Jobs {
            ids,
            fields,
            active_only,
        };
        match self.request(&req)? {
            ClientResponse::Jobs { now, jobs } => Ok((now, jobs)),
            _ => Err(unexpected()),
        }
    }

    /// Running steps of `jobs` (every job when empty).
    fn steps(&mut self, jobs: Vec<u32>) -> Result<Listing<StepInfo>, RequestError> {
        match self.request(&ClientRequest::Steps { jobs })? {
            ClientResponse::Steps { now, steps } => Ok(Listing { now, items: steps }),
            _ => Err(unexpected()),
        }
    }

    /// Every node.
    fn nodes(&mut self) -> Result<Listing<NodeInfo>, RequestError> {
        match self.request(&ClientRequest::Nodes)? {
            ClientResponse::Nodes { now, nodes } => Ok(Listing { now, items: nodes }),
            _ => Err(unexpected()),
        }
    }

    /// Every partition.
    fn partitions(&mut self) -> Result<Vec<PartitionInfo>, RequestError> {
        match self.request(&ClientRequest::Partitions)? {
            ClientResponse::Partitions(p) => Ok(p),
            _ => Err(unexpected()),
        }
    }

    /// The running configuration.
    fn config(&mut self) -> Result<ConfigInfo, RequestError> {
        match self.request(&ClientRequest::Config)? {
            ClientResponse::Config(c) => Ok(c),
            _ => Err(unexpected()),
        }
    }

    /// Signals or cancels jobs, array tasks or batch steps.
    fn signal(&mut self, target: SignalTarget) -> Result<PerTarget, RequestError> {
        per_target(self.request(&ClientRequest::Signal(target))?)
    }

    /// Signals one step of a running job (the batch step: its shell).
    fn signal_step(&mut self, job_id: u32, step_id: u32, signal: i32) -> Result<(), RequestError> {
        done(self.request(&ClientRequest::SignalStep {
            job_id,
            step_id,
            signal,
        })?)
    }

    /// Holds pending jobs (`admin`: as an operator's hold).
    fn hold(&mut self, jobs: Vec<u32>, admin: bool) -> Result<PerTarget, RequestError> {
        per_target(self.request(&ClientRequest::Hold { jobs, admin })?)
    }

    /// Releases held jobs.
    fn release(&mut self, jobs: Vec<u32>) -> Result<PerTarget, RequestError> {
        per_target(self.request(&ClientRequest::Release { jobs })?)
    }

    /// Requeues jobs.
    fn requeue(
        &mut self,
        jobs: Vec<u32>,
        hold: RequeueHold,
        incomplete: bool,
    ) -> Result<PerTarget, RequestError> {
        per_target(self.request(&ClientRequest::Requeue {
            jobs,
            hold,
            incomplete,
        })?)
    }

    /// Changes a job (`scontrol update job`).
    fn update_job(&mut self, update: JobUpdate) -> Result<PerTarget, RequestError> {
        per_target(self.request(&ClientRequest::UpdateJob(update))?)
    }

    /// Changes nodes (`scontrol update node`).
    fn update_node(&mut self, update: NodeUpdate) -> Result<(), RequestError> {
        done(self.request(&ClientRequest::UpdateNode(update))?)
    }

    /// Reads slurm.conf again (`scontrol reconfigure`).
    fn reconfigure(&mut self) -> Result<(), RequestError> {
        done(self.request(&ClientRequest::Reconfigure)?)
    }

    /// Accounting history.
    fn history(&mut self, query: HistoryQuery) -> Result<Listing<HistoryJob>, RequestError> {
        match self.request(&ClientRequest::History(query))? {
            ClientResponse::History { now, jobs } => Ok(Listing { now, items: jobs }),
            _ => Err(unexpected()),
        }
    }

    /// Says the holder of allocation `job_id` (salloc, srun) is alive.
    fn allocation_alive(&mut self, job_id: u32) -> Result<(), RequestError> {
        done(self.request(&ClientRequest::AllocationAlive { job_id })?)
    }

    /// Gives allocation `job_id` back with its command's exit.
    fn release_allocation(
        &mut self,
        job_id: u32,
        exit_code: i32,
        signal: i32,
    ) -> Result<(), RequestError> {
        done(self.request(&ClientRequest::ReleaseAllocation {
            job_id,
            exit_code,
            signal,
        })?)
    }

    /// Lays a step out in a running job.
    fn step_create(&mut self, mut req: StepRequest) -> Result<StepCreated, RequestError> {
        // As a submission's: the session may send it again.
        req.key.get_or_insert_with(crate::submit_key::new_key);
        match self.request(&ClientRequest::StepCreate(req))? {
            ClientResponse::StepCreated { grant, signature } => {
                Ok(StepCreated { grant, signature })
            }
            _ => Err(unexpected()),
        }
    }

    /// A step ended.
    fn step_complete(
        &mut self,
        job_id: u32,
        step_id: u32,
        exit_code: i32,
        signal: i32,
    ) -> Result<(), RequestError> {
        done(self.request(&ClientRequest::StepComplete {
            job_id,
            step_id,
            exit_code,
            signal,
        })?)
    }

    /// Takes array tasks out into jobs of their own: (task, job id) pairs.
    fn split_array_tasks(&mut self, tasks: ArrayTasks) -> Result<Vec<(u32, u32)>, RequestError> {
        match self.request(&ClientRequest::SplitArrayTasks(tasks))? {
            ClientResponse::ArrayTaskJobs(pairs) => Ok(pairs),
            _ => Err(unexpected()),
        }
    }

    /// `sdiag`: the controller's counters.
    fn diag(&mut self) -> Result<spur_proto::Stats, RequestError> {
        match self.request(&ClientRequest::Diag)? {
            ClientResponse::Diag(stats) => Ok(*stats),
            _ => Err(unexpected()),
        }
    }

    /// `sdiag -r` (operators only): the counters begin again.
    fn reset_diag(&mut self) -> Result<(), RequestError> {
        done(self.request(&ClientRequest::ResetDiag)?)
    }

    /// `sprio`: pending jobs' priority terms.
    fn priorities(
        &mut self,
        query: spur_proto::PriorityQuery,
    ) -> Result<spur_proto::Priorities, RequestError> {
        match self.request(&ClientRequest::Priorities(query))? {
            ClientResponse::Priorities(answer) => Ok(answer),
            _ => Err(unexpected()),
        }
    }

    /// The NVLink domains, their nodes and GPUs (none without
    /// topology/block).
    fn domains(&mut self) -> Result<Vec<spur_proto::DomainInfo>, RequestError> {
        match self.request(&ClientRequest::Domains)? {
            ClientResponse::Domains(domains) => Ok(domains),
            _ => Err(unexpected()),
        }
    }

    /// The WireGuard mesh's members as the controller sees them (None:
    /// the mesh is off).
    fn mesh(&mut self) -> Result<Option<spur_proto::MeshStatus>, RequestError> {
        match self.request(&ClientRequest::Mesh)? {
            ClientResponse::Mesh(status) => Ok(status.map(|s| *s)),
            _ => Err(unexpected()),
        }
    }

    /// `spurd mesh rotate`: a new mesh key pair for this host (its agent's
    /// on a node, the controller's on its host).
    fn mesh_rotate(&mut self) -> Result<(), RequestError> {
        match self.request(&ClientRequest::MeshRotate)? {
            ClientResponse::Done => Ok(()),
            _ => Err(unexpected()),
        }
    }

    /// `sshare`: every user's fair-share.
    fn shares(&mut self) -> Result<spur_proto::Shares, RequestError> {
        match self.request(&ClientRequest::Shares)? {
            ClientResponse::Shares(shares) => Ok(shares),
            _ => Err(unexpected()),
        }
    }

    /// `scontrol token`: a JSON Web Token.
    fn token(&mut self, asked: TokenRequest) -> Result<String, RequestError> {
        match self.request(&ClientRequest::Token(asked))? {
            ClientResponse::Token(token) => Ok(token),
            _ => Err(unexpected()),
        }
    }
}

impl<C: Controller + ?Sized> Api for C {}

fn per_target(answer: ClientResponse) -> Result<PerTarget, RequestError> {
    match answer {
        ClientResponse::PerJob(r) => Ok(PerTarget::Jobs(r)),
        ClientResponse::PerTasks(r) => Ok(PerTarget::Tasks(r)),
        ClientResponse::Done => Ok(PerTarget::Done),
        _ => Err(unexpected()),
    }
}

fn done(answer: ClientResponse) -> Result<(), RequestError> {
    match answer {
        ClientResponse::Done => Ok(()),
        _ => Err(unexpected()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_takes_its_own_answer_and_calls_any_other_unexpected() {
        let mut pong = |_: &ClientRequest| -> Result<ClientResponse, RequestError> {
            Ok(ClientResponse::Pong { host: "ctl".into() })
        };
        assert_eq!(pong.ping().expect("pong"), "ctl");
        let e = pong.nodes().expect_err("a pong is no node list");
        assert_eq!(e.code(), ErrorCode::Malformed);
        assert_eq!(e.to_string(), "Unexpected message received");
        assert_eq!(e.errno(), 1000);
        let mut done = |_: &ClientRequest| -> Result<ClientResponse, RequestError> {
            Ok(ClientResponse::Done)
        };
        let target = SignalTarget {
            jobs: vec![1],
            array_tasks: Vec::new(),
            signal: None,
            batch_only: false,
            full: false,
        };
        assert_eq!(done.signal(target).expect("done"), PerTarget::Done);
        assert!(done.reconfigure().is_ok());
        assert!(done.config().is_err());
    }
}
