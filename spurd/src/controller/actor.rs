//! The controller's actor: one thread owns the core, the store and the node
//! registry. A turn takes every waiting command, applies it to the core,
//! runs a scheduling pass when one is due, commits everything in one SQLite
//! transaction, and only then answers clients and tells agents.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::AtomicU16;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tracing::{debug, error, info, warn};

use spur_core::{Core, Effect, ExitStatus, Input, JobId, JobState, NodeId, Outcome};
use spur_proto::{
    ClientRequest, ClientResponse, ErrorCode, FromAgent, ProtoError, Registration, SignalScope,
    ToAgent,
};

use super::convert;
use super::env::ClusterFacts;
use super::registry::{AgentLink, NodeLive};
use super::store::{JobMeta, JobPayload, NodeOverride, Store};
use super::Site;

/// The answer to a client: a response, or one already encoded as a frame
/// (large job listings are encoded while they are built).
#[derive(Debug)]
pub enum Reply {
    /// A response to encode.
    Response(ClientResponse),
    /// A complete frame.
    Frame(Vec<u8>),
}

impl From<ClientResponse> for Reply {
    fn from(resp: ClientResponse) -> Reply {
        Reply::Response(resp)
    }
}

/// Where a client's answer goes.
#[derive(Debug)]
pub enum ReplyTo {
    /// A connection to the controller's own socket waits for it.
    Local(oneshot::Sender<Reply>),
    /// A command an agent or a login relay passed on: the answer goes back
    /// on that connection with its tag, sent by the actor itself so that it
    /// comes before what the same turn tells that node. (A job that
    /// requeues or cancels itself hears the answer before its end.)
    Relay {
        /// The relayed request's tag.
        tag: u64,
        /// The connection's outgoing messages.
        to: tokio::sync::mpsc::UnboundedSender<ToAgent>,
    },
}

impl ReplyTo {
    /// Delivers the answer; a connection gone meanwhile is not an error.
    pub fn send(self, reply: Reply) {
        match self {
            ReplyTo::Local(tx) => {
                let _ = tx.send(reply);
            }
            ReplyTo::Relay { tag, to } => {
                let frame = match reply {
                    Reply::Frame(bytes) => Ok(bytes),
                    Reply::Response(resp) => spur_proto::frame::encode(&resp),
                };
                match frame {
                    Ok(frame) => {
                        let _ = to.send(ToAgent::RelayReply { tag, frame });
                    }
                    Err(e) => warn!(error = %e, "cannot encode a relayed answer"),
                }
            }
        }
    }
}

/// A message to the actor.
#[derive(Debug)]
pub enum Command {
    /// A client request, made by `uid` (from the socket's credentials).
    Client {
        /// The caller.
        uid: u32,
        /// The request.
        req: ClientRequest,
        /// Where the answer goes.
        reply: ReplyTo,
    },
    /// An agent connected and registered.
    AgentUp {
        /// The node it says it serves.
        name: String,
        /// The address it connected from.
        from: std::net::IpAddr,
        /// Its connection.
        link: AgentLink,
        /// What it reported.
        reg: Box<Registration>,
        /// Answered false when slurm.conf has no such node.
        accepted: oneshot::Sender<bool>,
    },
    /// A node's agent asks to join the mesh (it proved the cluster key).
    MeshJoin {
        /// The node it says it serves.
        node: String,
        /// Its WireGuard public key.
        public_key: spur_proto::MeshKeyBytes,
        /// Where the answer goes.
        reply: oneshot::Sender<spur_proto::MeshAnswer>,
    },
    /// A message from an agent.
    Agent {
        /// The connection it came on.
        conn: u64,
        /// The message.
        msg: FromAgent,
    },
    /// Stop after this turn.
    Shutdown,
    /// An agent's connection closed.
    AgentDown {
        /// The connection.
        conn: u64,
    },
    /// An HTTP client asks for one metrics endpoint's families.
    Metrics {
        /// Which.
        endpoint: super::metrics::Endpoint,
        /// Where they go.
        reply: oneshot::Sender<super::metrics::families::Exposition>,
    },
}

/// Hashes a job id with one multiplication: ids are unique integers, and
/// the metadata map is looked up once per job in every listing.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Per-job data of the controller, by job id.
pub type JobMap<V> = HashMap<JobId, V, std::hash::BuildHasherDefault<IdHasher>>;

/// Scheduling passes run at most this often (or twice as far apart as the
/// last one took), so that a burst of submissions is scheduled together.
/// Short enough that a job submitted on its own usually starts in the turn
/// that stores it: one commit stores it running, where a later pass would
/// take a turn and a commit of its own.
const MIN_PASS_INTERVAL: Duration = Duration::from_millis(1);

/// How long a submitted job that could not start waits for a pass to say
/// why ([`Controller::submitted`]).
const FIRST_LOOK: Duration = Duration::from_secs(1);

/// The longest a full pass waits after head passes found nothing more to
/// do for one ([`Controller::finish_turn`]), so that priorities, reasons
/// and plans follow the time.
const FULL_PASS_AT_LEAST: Duration = Duration::from_secs(10);

/// How long changes that nobody waits on may wait for a later turn's
/// commit: a turn that owes no answer and no instruction (one of agents'
/// reports: a job's end, a step's, usage) leaves its changes to the next
/// turn, so that one disk flush stores both (a node ending a job while a
/// shell loop submits the next one), unless nothing comes within this.
/// What it owes the agents, acknowledgements, waits with them: an agent
/// keeps what it reported until acknowledged, and reports it again to a
/// controller restarted meanwhile, so a crash loses nothing.
const COMMIT_DELAY: Duration = Duration::from_millis(5);

/// The controller's state, owned by the actor thread.
pub struct Controller {
    pub(super) core: Core,
    pub(super) store: Store,
    pub(super) site: Site,
    pub(super) facts: ClusterFacts,
    pub(super) metas: JobMap<Box<JobMeta>>,
    /// The names the metas share.
    pub(super) names: super::store::Names,
    /// The jobs of keyed submissions, by key.
    pub(super) submit_keys: super::submit_key::SubmitKeys,
    pub(super) live: Vec<NodeLive>,
    /// The node each agent connection serves.
    pub(super) conns: HashMap<u64, NodeId>,
    /// Steps that run, by job and step id.
    pub(super) steps: std::collections::BTreeMap<(u32, u32), super::store::StepRow>,
    /// What `scontrol show step` tells of each running step beyond its
    /// history row (kept in memory only: srun's host, the step's limit).
    pub(super) step_live: HashMap<(u32, u32), super::step::StepLive>,
    /// Nodes of each step whose part has not ended yet.
    pub(super) step_nodes: HashMap<(u32, u32), u32>,
    /// What running steps (batch steps under BATCH_STEP) have used so far,
    /// by node, as their agents last sampled it (for sstat).
    pub(super) live_usage:
        HashMap<(u32, u32), std::collections::BTreeMap<NodeId, spur_proto::Usage>>,
    /// When the salloc or srun holding each running allocation was last
    /// heard from (for InactiveLimit).
    pub(super) holders: HashMap<u32, u64>,
    pub(super) started_at: u64,
    /// This turn's work, committed together.
    pub(super) turn: TurnState,
    /// Since when the turn's changes wait for a later turn's commit
    /// ([`COMMIT_DELAY`]).
    commit_waits_since: Option<Instant>,
    sched_due: bool,
    /// Whether resources came free (a job ended, a node came) since the
    /// last pass: a head pass may start what waits at the head of the
    /// queue before the next full pass is due ([`Core::schedule_head`]).
    freed: bool,
    /// Whether a full pass is due for more than jobs' ends.
    due_other: bool,
    /// Since when a full pass has waited that head passes found nothing
    /// more to do for ([`FULL_PASS_AT_LEAST`]).
    head_only_since: Option<Instant>,
    /// Since when a job submitted that could not start has waited for a
    /// pass to look at it.
    unseen_since: Option<Instant>,
    last_pass: Option<Instant>,
    last_pass_cost: Duration,
    last_housekeeping: u64,
    /// The core's next wake-up, as of the last pass.
    wakeup: Option<u64>,
    /// How long job history is kept, and the purge in progress.
    pub(super) retention: super::retention::Retention,
    /// Jobs and passes since the start, for sdiag.
    pub(super) counters: super::stats::Counters,
    /// Requests served, shared with the gateway.
    pub(super) rpcs: super::stats::Rpcs,
    /// slurm.conf's PrivateData bits, shared with the gateway, which
    /// answers accounting queries off the actor.
    pub(super) private_data: Arc<AtomicU16>,
    /// Set while the store takes no writes.
    pub(super) frozen: Option<Frozen>,
    /// Set when this turn's commit failed: the controller is to be rebuilt.
    store_failed: Option<String>,
    /// The configuration before a reconfigure this turn, until the turn
    /// commits: what the store matches.
    pub(super) site_before_reconfigure: Option<Site>,
    /// The WireGuard mesh, where spur.conf turns it on.
    pub(super) mesh: Option<super::mesh::Mesh>,
}

/// Whether a turn must commit now or may leave its changes to a later
/// turn's commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Commit {
    /// Now: the controller stops, or what follows needs the turn settled.
    Now,
    /// Later, if nobody waits on the turn ([`COMMIT_DELAY`]).
    MayWait,
}

/// What a turn changed and owes, until it commits.
#[derive(Default)]
pub(super) struct TurnState {
    pub new_jobs: Vec<NewJob>,
    pub dirty: BTreeSet<JobId>,
    pub meta_dirty: BTreeSet<JobId>,
    pub nodes_dirty: BTreeSet<NodeId>,
    pub replies: Vec<(ReplyTo, Reply)>,
    pub to_agents: Vec<(NodeId, ToAgent)>,
    pub effects: Vec<Effect>,
    /// Step rows to write (started or ended this turn).
    pub steps: Vec<super::store::StepRow>,
    /// What steps' nodes reported their tasks used, to store.
    pub usage: Vec<super::usage::UsagePart>,
    /// Jobs whose stored usage a new run replaces (requeued jobs that
    /// start again), cleared before `usage` is stored.
    pub usage_reset: Vec<u32>,
    /// The node numbering to save (a reconfigure renumbered the nodes).
    pub node_names: Option<Vec<String>>,
    /// Mesh members admitted or given a new key, to store.
    pub mesh_members: Vec<super::store::StoredMember>,
    /// Mesh members whose node left slurm.conf, to forget.
    pub mesh_gone: Vec<String>,
    /// Answers to mesh joins, sent once the turn commits.
    pub mesh_replies: Vec<(
        oneshot::Sender<spur_proto::MeshAnswer>,
        spur_proto::MeshAnswer,
    )>,
}

impl TurnState {
    /// Whether the turn has anything to store (besides the fair-share
    /// usage the core charged, which the core holds).
    fn has_changes(&self) -> bool {
        !self.new_jobs.is_empty()
            || !self.dirty.is_empty()
            || !self.meta_dirty.is_empty()
            || !self.nodes_dirty.is_empty()
            || !self.steps.is_empty()
            || !self.usage.is_empty()
            || !self.usage_reset.is_empty()
            || self.node_names.is_some()
            || !self.mesh_members.is_empty()
            || !self.mesh_gone.is_empty()
    }
}

/// Why [`Controller::run`] returned.
pub(super) enum Stopped {
    /// Every sender is gone, or a shutdown was asked for.
    Shutdown,
    /// A turn could not be committed (the error, as text): the controller
    /// must be rebuilt from the store.
    StoreFailed(Box<Controller>, String),
}

/// The controller cannot save changes: it answers reads from the last
/// committed state and refuses everything else until a probe write takes.
pub(super) struct Frozen {
    /// The commit's error.
    pub why: String,
    /// When the store was last tried.
    pub last_probe: Instant,
}

/// An error with its sources, as one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// A job made this turn, to be inserted as it commits.
pub(super) struct NewJob {
    pub id: JobId,
    pub meta: JobMeta,
    pub payload: JobPayload,
    /// The digest of its submission's idempotency key.
    pub submit_key: Option<super::store::SubmitKey>,
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Controller {
    /// A controller over a restored core.
    pub(super) fn new(
        restored: super::Restored,
        store: Store,
        site: Site,
        facts: ClusterFacts,
    ) -> Controller {
        let super::Restored {
            core,
            metas,
            names,
            submit_keys,
        } = restored;
        let started_at = now();
        // Allocations held before a restart: their holders get a full
        // InactiveLimit from now to be heard again.
        let holders = core
            .running_jobs()
            .filter(|j| metas.get(&j.id).is_some_and(|m| m.interactive))
            .map(|j| (j.id.0, started_at))
            .collect();
        let live = vec![
            NodeLive {
                last_heard: started_at,
                ..Default::default()
            };
            core.nodes().len()
        ];
        let ended = core
            .jobs()
            .filter(|j| j.state().is_finished())
            .map(|j| j.id)
            .collect::<Vec<_>>();
        Controller {
            counters: super::stats::Counters::new(started_at, ended.into_iter()),
            rpcs: super::stats::Rpcs::default(),
            private_data: Arc::new(AtomicU16::new(site.conf.private_data.bits())),
            core,
            store,
            site,
            facts,
            metas,
            names,
            submit_keys,
            live,
            conns: HashMap::new(),
            steps: std::collections::BTreeMap::new(),
            step_live: HashMap::new(),
            step_nodes: HashMap::new(),
            live_usage: HashMap::new(),
            holders,
            started_at,
            turn: TurnState::default(),
            commit_waits_since: None,
            sched_due: true,
            freed: false,
            due_other: true,
            head_only_since: None,
            unseen_since: None,
            last_pass: None,
            last_pass_cost: Duration::ZERO,
            last_housekeeping: 0,
            wakeup: None,
            retention: Default::default(),
            frozen: None,
            store_failed: None,
            site_before_reconfigure: None,
            mesh: None,
        }
    }

    /// Runs turns until every sender is gone, or until a turn cannot be
    /// committed: then the controller is handed back to be rebuilt from
    /// the store (everything since the last commit is forgotten, and was
    /// never announced).
    pub fn run(mut self, inbox: &Receiver<Command>) -> Stopped {
        loop {
            let wait = self.time_to_next_work();
            let mut stop = false;
            match inbox.recv_timeout(wait) {
                Ok(cmd) => {
                    stop |= self.handle(cmd);
                    // Take whatever else is already waiting into this turn.
                    for cmd in inbox.try_iter().take(4096) {
                        stop |= self.handle(cmd);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => stop = true,
            }
            self.finish_turn(if stop { Commit::Now } else { Commit::MayWait });
            if stop {
                break;
            }
            if let Some(why) = self.store_failed.take() {
                return Stopped::StoreFailed(Box::new(self), why);
            }
        }
        info!("controller stopped");
        Stopped::Shutdown
    }

    /// Closes every agent's connection (each agent connects and registers
    /// again, reporting what it runs and what ended).
    pub(super) fn close_agent_links(&mut self) {
        for live in &mut self.live {
            if let Some(link) = live.link.take() {
                link.close.notify_one();
            }
        }
        self.conns.clear();
    }

    /// A turn while the store takes no writes: only reads were answered;
    /// every second a one-row write tries the store, and once it takes it
    /// the controller works again (agents, refused meanwhile, connect and
    /// register anew).
    fn frozen_turn(&mut self) {
        let Some(frozen) = &mut self.frozen else {
            return;
        };
        if frozen.last_probe.elapsed() >= Duration::from_secs(1) {
            frozen.last_probe = Instant::now();
            match self.store.probe() {
                Ok(()) => {
                    warn!(was = %frozen.why, "the state database takes writes again; changes are accepted");
                    self.frozen = None;
                    self.pass_due();
                    let now_s = now();
                    for live in &mut self.live {
                        live.last_heard = now_s;
                    }
                }
                Err(e) => debug!(error = %e, "the state database still takes no writes"),
            }
        }
        for (reply, resp) in self.turn.replies.drain(..) {
            reply.send(resp);
        }
    }

    fn time_to_next_work(&self) -> Duration {
        if let Some(frozen) = &self.frozen {
            // Nothing is scheduled while frozen: only the next probe.
            return Duration::from_secs(1).saturating_sub(frozen.last_probe.elapsed());
        }
        let now_s = now();
        let mut wait = Duration::from_secs(1);
        if let Some(t) = self.wakeup {
            wait = wait.min(Duration::from_secs(t.saturating_sub(now_s)));
        }
        let since_pass = self.last_pass.map_or(Duration::MAX, |t| t.elapsed());
        let interval_left = self.pass_interval().saturating_sub(since_pass);
        if self.sched_due {
            wait = wait.min(interval_left);
        }
        if let Some(since) = self.unseen_since {
            let look_left = FIRST_LOOK.saturating_sub(since.elapsed());
            wait = wait.min(look_left.max(interval_left));
        }
        if let Some(since) = self.commit_waits_since {
            wait = wait.min(COMMIT_DELAY.saturating_sub(since.elapsed()));
        }
        if let Some(since) = self.head_only_since {
            let full_left = FULL_PASS_AT_LEAST.saturating_sub(since.elapsed());
            wait = wait.min(full_left.max(interval_left));
        }
        wait
    }

    fn pass_interval(&self) -> Duration {
        MIN_PASS_INTERVAL.max(self.last_pass_cost * 2)
    }

    /// A job was submitted: a pass is due if it could start now. One that
    /// cannot (the cluster is full, or its nodes are down) would get from
    /// a pass only why it waits; a deep queue's pass is long, and one per
    /// submission would take a third of the controller's time from a
    /// burst of them ([`Controller::pass_interval`]), so such a job is
    /// looked at with others within [`FIRST_LOOK`], showing Slurm's
    /// `None` reason until then.
    fn submitted(&mut self, id: JobId) {
        if self.core.could_start_now(id) {
            self.pass_due();
        } else {
            self.unseen_since.get_or_insert_with(Instant::now);
        }
    }

    /// A full pass is due, for more than jobs' ends.
    fn pass_due(&mut self) {
        self.sched_due = true;
        self.due_other = true;
    }

    /// A job's end freed what it held: a pass is due, which a head pass
    /// may stand in for ([`Controller::finish_turn`]).
    fn resources_freed(&mut self) {
        self.sched_due = true;
        self.freed = true;
    }

    /// Whether jobs submitted that could not start have waited long
    /// enough for a pass to look at them.
    fn first_look_due(&self) -> bool {
        self.unseen_since.is_some_and(|t| t.elapsed() >= FIRST_LOOK)
    }

    /// Applies one command; true when it asks the actor to stop.
    fn handle(&mut self, cmd: Command) -> bool {
        if let Some(frozen) = &self.frozen {
            match cmd {
                Command::Client { req, reply, .. } if !req.only_reads() => {
                    let refusal =
                        ProtoError::with_detail(ErrorCode::StateStore, frozen.why.clone());
                    self.turn
                        .replies
                        .push((reply, Reply::Response(ClientResponse::Error(refusal))));
                    return false;
                }
                Command::AgentUp { accepted, .. } => {
                    // It connects again later, when changes are taken.
                    let _ = accepted.send(false);
                    return false;
                }
                Command::MeshJoin { reply, .. } => {
                    let refusal =
                        ProtoError::with_detail(ErrorCode::StateStore, frozen.why.clone());
                    let _ = reply.send(Err(refusal));
                    return false;
                }
                Command::Agent { .. } => return false,
                cmd => return self.handle_now(cmd),
            }
        }
        self.handle_now(cmd)
    }

    /// Applies one command as a controller that can save state.
    fn handle_now(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::Shutdown => return true,
            Command::Metrics { endpoint, reply } => {
                let _ = reply.send(self.metrics(endpoint));
            }
            Command::Client { uid, req, reply } => {
                // What may let a job start calls for a pass. A held job's
                // submission starts nothing and is in no other job's way;
                // its reason is set as it is held. (A hold is different: a
                // held job may have been what blocked the others.) Another
                // submission calls for one if the job could start now.
                let submits = matches!(&req, ClientRequest::Submit(desc) if !desc.hold);
                let changes = matches!(
                    &req,
                    ClientRequest::Signal(_)
                        | ClientRequest::Hold { .. }
                        | ClientRequest::Release { .. }
                        | ClientRequest::Requeue { .. }
                        | ClientRequest::UpdateJob(_)
                        | ClientRequest::SplitArrayTasks(_)
                        | ClientRequest::UpdateNode(_)
                        | ClientRequest::Reconfigure
                );
                let kind = super::stats::message_type(&req);
                let began = Instant::now();
                let resp = self.on_request(uid, req);
                self.rpcs.record(kind, uid, began.elapsed());
                if changes {
                    self.pass_due();
                }
                if let (true, Reply::Response(ClientResponse::Submitted { job_id, .. })) =
                    (submits, &resp)
                {
                    self.submitted(JobId(*job_id));
                }
                self.turn.replies.push((reply, resp));
            }
            Command::MeshJoin {
                node,
                public_key,
                reply,
            } => self.on_mesh_join(&node, public_key, reply),
            Command::AgentUp {
                name,
                from,
                link,
                reg,
                accepted,
            } => {
                let node = self.core.node_id(&name);
                let Some(node) = node.filter(|_| self.mesh_admits(&name, from)) else {
                    let _ = accepted.send(false);
                    return false;
                };
                let _ = accepted.send(true);
                if let Some(old) = &self.live[node.index()].link {
                    self.conns.remove(&old.conn);
                }
                self.conns.insert(link.conn, node);
                let began = Instant::now();
                self.on_agent_registered(node, link, *reg);
                // Members that joined between its join and now.
                if let Some(mesh) = &self.mesh {
                    let peers = mesh.members.peers_of(&name);
                    self.turn.to_agents.push((node, ToAgent::MeshPeers(peers)));
                }
                let stats = super::stats::NODE_REGISTRATION;
                self.rpcs.record(stats, 0, began.elapsed());
                // A node back is capacity back, as a job's end is.
                self.pass_due();
                self.resources_freed();
            }
            Command::Agent { conn, msg } => {
                if let Some(&node) = self.conns.get(&conn) {
                    self.on_agent_message(node, msg);
                }
            }
            Command::AgentDown { conn } => {
                if let Some(node) = self.conns.remove(&conn) {
                    self.forget_node_usage(node);
                    info!(node = %self.core.nodes()[node.index()].config.name, "agent disconnected");
                    self.live[node.index()].link = None;
                }
            }
        }
        false
    }

    /// Applies an input to the core, collecting its effects into the turn.
    pub(super) fn apply(
        &mut self,
        input: Input,
    ) -> Result<spur_core::Outcome, spur_core::CoreError> {
        let now = now();
        let mut effects = std::mem::take(&mut self.turn.effects);
        let r = self.core.handle(input, now, &mut effects);
        self.turn.effects = effects;
        r
    }

    /// Schedules, commits, answers and sends what this turn owes; with
    /// [`Commit::MayWait`], a turn that owes nobody an answer may leave
    /// its changes to a later turn's commit ([`COMMIT_DELAY`]).
    pub(super) fn finish_turn(&mut self, commit: Commit) {
        if self.frozen.is_some() {
            self.frozen_turn();
            return;
        }
        if self.store_failed.is_some() {
            return;
        }
        let now_s = now();
        if now_s != self.last_housekeeping {
            self.last_housekeeping = now_s;
            self.check_node_timeouts(now_s);
            self.check_inactive_holders(now_s);
            self.purge(now_s);
            self.counters.roll_day(now_s);
            if now_s.is_multiple_of(60) {
                let core = &self.core;
                self.counters.forget_gone(|id| core.job(id).is_some());
                self.submit_keys
                    .forget_gone(|id| core.job(id).is_some(), now_s);
            }
        }
        let wakeup_due = self.wakeup.is_some_and(|t| t <= now_s);
        let interval_ok = self
            .last_pass
            .is_none_or(|t| t.elapsed() >= self.pass_interval());
        let head_only_over = self
            .head_only_since
            .is_some_and(|t| t.elapsed() >= FULL_PASS_AT_LEAST);
        let first_look_due = self.first_look_due();
        // Only jobs' ends ask for a pass, and the last full pass's order
        // holds every waiting job: a head pass tries what a full pass
        // would try first, at a cost that does not grow with the queue.
        // Not with preemption, which only a full pass does: a job the head
        // pass stops at may preempt what it started.
        let head_will_do = self.freed
            && self.core.config().preempt == spur_core::PreemptType::None
            && !self.due_other
            && !wakeup_due
            && !first_look_due
            && !head_only_over
            && self.core.head_sees_all();
        if (self.sched_due || wakeup_due || first_look_due || head_only_over)
            && interval_ok
            && !head_will_do
        {
            let started = Instant::now();
            // The interval gathers a burst of submissions into one pass; a
            // pass with no job waiting gathers nothing, and holding the
            // next one back would start a job submitted right after it (a
            // shell loop's next, after its last ended) a turn and a
            // commit later than the one that stores it.
            let any_waiting = self.core.pending_count() > 0;
            let mut effects = std::mem::take(&mut self.turn.effects);
            self.core.schedule(now_s, &mut effects);
            self.turn.effects = effects;
            self.last_pass_cost = started.elapsed();
            self.counters
                .note_pass(now_s, self.last_pass_cost, self.core.last_pass());
            if any_waiting {
                self.last_pass = Some(Instant::now());
            }
            self.sched_due = false;
            self.freed = false;
            self.due_other = false;
            self.head_only_since = None;
            self.unseen_since = None;
            // The next time the core must look again without an input;
            // only inputs and passes change it, and inputs lead to a pass.
            self.wakeup = self.core.next_wakeup(now_s);
        } else if self.freed && self.sched_due {
            // The full pass waits for its interval, which a deep queue
            // makes long, or a head pass will do: what came free goes to
            // the head of the queue now.
            let started = Instant::now();
            let mut effects = std::mem::take(&mut self.turn.effects);
            let summary = self.core.schedule_head(now_s, &mut effects);
            // What the jobs it started must be looked at for (their time
            // limits), as a full pass would have found.
            for effect in &effects {
                if let Effect::StartJob { job, .. } = effect {
                    let due = self.core.job(*job).and_then(Core::running_wakeup);
                    if let Some(t) = due.filter(|&t| t > now_s) {
                        self.wakeup = Some(self.wakeup.map_or(t, |w| w.min(t)));
                    }
                }
            }
            self.turn.effects = effects;
            self.counters.note_pass(now_s, started.elapsed(), summary);
            self.freed = false;
            // Where only jobs' ends asked for the full pass, its order
            // holds every waiting job and no node has room left, it would
            // start nothing and find the queue as the last one left it;
            // else it stays due (to backfill what is left, say).
            if head_will_do && !self.core.has_room() {
                self.sched_due = false;
                self.head_only_since.get_or_insert_with(Instant::now);
            }
        }
        let effects = std::mem::take(&mut self.turn.effects);
        for effect in effects {
            self.on_effect(effect, now_s);
        }
        // Effects may end jobs at once (a kill on an unreachable node).
        let effects = std::mem::take(&mut self.turn.effects);
        for effect in effects {
            self.on_effect(effect, now_s);
        }
        for &id in &self.turn.dirty {
            if let Some(job) = self.core.job(id) {
                self.counters.note_end(id, job.state());
            }
        }
        if commit == Commit::MayWait && self.may_wait_to_commit() {
            return;
        }
        self.commit_waits_since = None;
        if let Err(e) = self.commit() {
            // Nothing of this turn was announced: its answers become
            // refusals, its messages are dropped, and the controller is
            // rebuilt from the store, which still holds every acknowledged
            // job.
            let why = error_chain(&e);
            error!(error = %why, "cannot commit state; this turn's changes are dropped and changes are refused until the state database takes writes again");
            let refusal = ProtoError::with_detail(ErrorCode::StateStore, why.clone());
            for (reply, _) in self.turn.replies.drain(..) {
                reply.send(Reply::Response(ClientResponse::Error(refusal.clone())));
            }
            self.turn = TurnState::default();
            self.store_failed = Some(why);
            return;
        }
        #[cfg(debug_assertions)]
        if let Err(e) = self.core.sanity_check() {
            error!(error = %e, "core invariant broken");
        }
        if !self.turn.replies.is_empty() || !self.turn.to_agents.is_empty() {
            crate::failpoint::pass(crate::failpoint::Point::Answer);
        }
        for (reply, resp) in self.turn.replies.drain(..) {
            reply.send(resp);
        }
        for (reply, answer) in self.turn.mesh_replies.drain(..) {
            let _ = reply.send(answer);
        }
        for (node, msg) in std::mem::take(&mut self.turn.to_agents) {
            if !self.live[node.index()].send(msg) {
                warn!(node = %self.core.nodes()[node.index()].config.name, "agent not connected; message dropped");
            }
        }
        // After everything the turn owed has gone out.
        self.purge_history(now_s);
    }

    /// Whether the turn's changes may wait for a later turn's commit: it
    /// owes no answer and sends the agents nothing but acknowledgements
    /// and heartbeat answers, and its oldest change has waited less than
    /// [`COMMIT_DELAY`]. A turn that changed nothing never waits.
    fn may_wait_to_commit(&mut self) -> bool {
        let t = &self.turn;
        let owes = !t.replies.is_empty()
            || !t.mesh_replies.is_empty()
            || t.to_agents
                .iter()
                .any(|(_, m)| !matches!(m, ToAgent::EndAcknowledged { .. } | ToAgent::Alive));
        if !t.has_changes() || owes {
            return false;
        }
        let since = *self.commit_waits_since.get_or_insert_with(Instant::now);
        since.elapsed() < COMMIT_DELAY
    }

    fn commit(&mut self) -> Result<(), super::store::StoreError> {
        let charged = self.core.take_charged();
        let t = &mut self.turn;
        if charged.is_empty() && !t.has_changes() {
            return Ok(());
        }
        let tx = self.store.begin()?;
        for member in &t.mesh_members {
            tx.set_mesh_member(member)?;
        }
        for node in &t.mesh_gone {
            tx.remove_mesh_member(node)?;
        }
        if let Some(names) = &t.node_names {
            tx.set_node_names(names)?;
        }
        for new in &t.new_jobs {
            if let Some(job) = self.core.job(new.id) {
                tx.insert_job(&job.record(), &new.meta, &new.payload, new.submit_key)?;
            }
            t.dirty.remove(&new.id);
        }
        for id in &t.dirty {
            if let Some(job) = self.core.job(*id) {
                tx.update_job(&job.record())?;
            }
        }
        for id in &t.meta_dirty {
            if let Some(meta) = self.metas.get(id) {
                tx.update_meta(id.0, meta)?;
            }
        }
        for n in &t.nodes_dirty {
            let node = &self.core.nodes()[n.index()];
            tx.set_node_override(&NodeOverride {
                name: node.config.name.clone(),
                drain: node.is_drain(),
                down: self.live[n.index()].admin_down,
                reason: node.reason().map(str::to_string),
            })?;
        }
        for step in &t.steps {
            tx.insert_step(step)?;
        }
        for &job in &t.usage_reset {
            tx.clear_usage(job)?;
        }
        for part in &t.usage {
            tx.merge_usage(part.job_id, part.step_id, &part.usage, part.merge)?;
        }
        for (user, usage, at) in charged {
            if usage.is_finite() {
                tx.set_usage(user.0, usage, at)?;
            } else {
                warn!(
                    uid = user.0,
                    usage, "fair-share usage is not a number; not saved"
                );
            }
        }
        tx.set_next_job_id(self.core.next_job_id().0)?;
        crate::failpoint::pass(crate::failpoint::Point::Commit);
        tx.commit()?;
        self.site_before_reconfigure = None;
        let t = &mut self.turn;
        t.steps.clear();
        t.usage.clear();
        t.usage_reset.clear();
        t.new_jobs.clear();
        t.dirty.clear();
        t.meta_dirty.clear();
        t.nodes_dirty.clear();
        t.node_names = None;
        t.mesh_members.clear();
        t.mesh_gone.clear();
        Ok(())
    }

    fn on_effect(&mut self, effect: Effect, now: u64) {
        match effect {
            Effect::StartJob { job, alloc } => {
                self.turn.dirty.insert(job);
                let Some(first) = alloc.first() else { return };
                for a in &alloc {
                    self.live[a.node.index()].last_busy = Some(now);
                }
                let names: Vec<&str> = alloc
                    .iter()
                    .map(|a| self.core.nodes()[a.node.index()].config.name.as_str())
                    .collect();
                if let Some(meta) = self.metas.get_mut(&job) {
                    meta.nodes = Some(spur_conf::hostlist::compress(&names).into());
                    self.turn.meta_dirty.insert(job);
                }
                self.note_start(job);
                if self.core.job(job).is_some_and(|j| j.restarts() > 0) {
                    // A requeued job's run starts its steps' usage afresh
                    // (its steps count from 0 again).
                    self.turn.usage_reset.push(job.0);
                }
                self.counters.started += 1;
                if self.metas.get(&job).is_some_and(|m| m.interactive) {
                    // salloc or srun holds it: nothing to launch.
                    self.holders.insert(job.0, now);
                    info!(job = job.0, nodes = alloc.len(), "allocation granted");
                    return;
                }
                match self.batch_launch(job) {
                    Ok(launch) => self
                        .turn
                        .to_agents
                        .push((first.node, ToAgent::LaunchBatch(Box::new(launch)))),
                    Err(e) => {
                        error!(job = job.0, error = %e, "cannot read the job's script");
                        self.launch_failed(job);
                    }
                }
                info!(job = job.0, nodes = alloc.len(), "job started");
            }
            Effect::PendingJobEnded { job } | Effect::DependencyChanged { job } => {
                self.turn.dirty.insert(job);
            }
            Effect::ArrayTaskSplit { array_job, job, .. } => {
                // The task is a job of its own from now on: its own row,
                // with the array's metadata and script.
                let meta: JobMeta = self
                    .metas
                    .get(&array_job)
                    .map(|m| (**m).clone())
                    .unwrap_or_default();
                let fresh = self
                    .turn
                    .new_jobs
                    .iter()
                    .find(|new| new.id == array_job)
                    .map(|new| new.payload.clone());
                let payload = match fresh {
                    Some(p) => Ok(Some(p)),
                    None => self.store.payload(array_job.0),
                };
                match payload {
                    Ok(payload) => {
                        self.metas.insert(job, Box::new(meta.clone()));
                        // The key stays with the array: a retry names it.
                        self.turn.new_jobs.push(NewJob {
                            id: job,
                            meta,
                            payload: payload.unwrap_or_default(),
                            submit_key: None,
                        });
                    }
                    Err(e) => error!(job = job.0, error = %e, "cannot read the array's script"),
                }
                self.turn.dirty.insert(array_job);
            }
            Effect::SignalJob { job, signal } => {
                // `--signal`: the steps, or with `B:` the batch shell.
                let scope = if self.metas.get(&job).is_some_and(|m| m.signal_batch_only) {
                    SignalScope::BatchShell
                } else {
                    SignalScope::Steps
                };
                self.turn.dirty.insert(job);
                self.send_signal(job, signal, scope);
            }
            Effect::KillJob { job, cause, grace } => {
                self.turn.dirty.insert(job);
                // The other nodes may run steps of it; an allocation that
                // salloc or srun holds runs nothing but steps, anywhere.
                let interactive = self.metas.get(&job).is_some_and(|m| m.interactive);
                let others: Vec<NodeId> = self
                    .core
                    .job(job)
                    .map(|j| {
                        let skip = usize::from(!interactive);
                        j.allocation().iter().skip(skip).map(|a| a.node).collect()
                    })
                    .unwrap_or_default();
                for node in others {
                    self.turn.to_agents.push((
                        node,
                        ToAgent::Kill {
                            job_id: job.0,
                            grace,
                            notice: None,
                        },
                    ));
                }
                if interactive {
                    info!(job = job.0, ?cause, "allocation revoked");
                    self.job_ended(
                        job,
                        ExitStatus {
                            code: 0,
                            signal: libc::SIGKILL,
                        },
                    );
                    return;
                }
                match self.batch_host(job) {
                    Some(node)
                        if self.live[node.index()].link.is_some()
                            && !self.core.nodes()[node.index()].is_down() =>
                    {
                        self.turn.to_agents.push((
                            node,
                            ToAgent::Kill {
                                job_id: job.0,
                                grace,
                                notice: Some(convert::kill_notice(cause)),
                            },
                        ));
                    }
                    _ => {
                        // The node cannot answer: the job ends now.
                        info!(job = job.0, ?cause, "job ended without its node");
                        self.job_ended(
                            job,
                            ExitStatus {
                                code: 0,
                                signal: libc::SIGKILL,
                            },
                        );
                    }
                }
            }
        }
    }

    /// Sends `signal` to the processes of `job` that `scope` names: the
    /// batch shell lives on the first node, steps on every node.
    pub(super) fn send_signal(&mut self, job: JobId, signal: i32, scope: SignalScope) {
        let nodes: Vec<NodeId> = match self.core.job(job) {
            Some(j) if scope != SignalScope::BatchShell => {
                j.allocation().iter().map(|a| a.node).collect()
            }
            _ => self.batch_host(job).into_iter().collect(),
        };
        for node in nodes {
            self.turn.to_agents.push((
                node,
                ToAgent::Signal {
                    job_id: job.0,
                    signal,
                    scope,
                },
            ));
        }
    }

    /// The node running a job's batch script.
    pub(super) fn batch_host(&self, job: JobId) -> Option<NodeId> {
        self.core.job(job)?.allocation().first().map(|a| a.node)
    }

    /// A job's processes are gone.
    pub(super) fn job_ended(&mut self, job: JobId, status: ExitStatus) {
        match self.apply(Input::JobExited { job, status }) {
            Ok(_) => {
                self.turn.dirty.insert(job);
                self.resources_freed();
                if self
                    .core
                    .job(job)
                    .is_some_and(|j| j.state() == JobState::Pending)
                {
                    self.note_requeued(job);
                }
                if let Some(j) = self.core.job(job) {
                    info!(
                        job = job.0,
                        state = j.state().as_str(),
                        code = status.code,
                        signal = status.signal,
                        "job ended"
                    );
                }
                self.end_steps(job);
            }
            Err(e) => warn!(job = job.0, error = %e, "end of a job that is not running"),
        }
    }

    /// A job went back to the queue: its next run launches anew, and its
    /// steps count from 0 again (slurmctld's batch_requeue_fini).
    pub(super) fn note_requeued(&mut self, job: JobId) {
        if let Some(meta) = self.metas.get_mut(&job) {
            meta.launched = false;
            meta.next_step = 0;
            meta.cancelled_by = None;
            self.turn.meta_dirty.insert(job);
        }
    }

    /// A job's batch script could not be started.
    pub(super) fn launch_failed(&mut self, job: JobId) {
        match self.apply(Input::LaunchFailed(job)) {
            Ok(_) => {
                self.turn.dirty.insert(job);
                self.resources_freed();
                self.end_steps(job);
            }
            Err(e) => warn!(job = job.0, error = %e, "launch failure of a job that is not running"),
        }
    }

    /// Sets DOWN each node whose agent has been silent for SlurmdTimeout,
    /// connected or not: a partition leaves a TCP connection open for many
    /// minutes, so the link is closed too, and the agent registers anew
    /// (its stale jobs killed) once it is heard again.
    fn check_node_timeouts(&mut self, now: u64) {
        let timeout = u64::from(self.site.conf.slurmd_timeout_secs.max(1));
        for i in 0..self.live.len() {
            let live = &self.live[i];
            if live.not_responding || now.saturating_sub(live.last_heard) < timeout {
                continue;
            }
            let name = self.core.nodes()[i].config.name.clone();
            if let Some(link) = self.live[i].link.take() {
                warn!(node = %name, "agent connected but silent for SlurmdTimeout; closing its connection");
                self.conns.remove(&link.conn);
                link.close.notify_one();
            }
            warn!(node = %name, "agent silent for SlurmdTimeout; node set DOWN");
            self.live[i].not_responding = true;
            self.node_failed(NodeId(i as u32), "Not responding".into());
        }
    }

    /// Sets `node` DOWN. Its batch jobs that may be requeued (`--requeue`,
    /// or JobRequeue=1 without `--no-requeue`) go back to the queue, as
    /// slurmctld's kill_running_job_by_node_name sends them; the rest end
    /// NODE_FAIL with the node.
    pub(super) fn node_failed(&mut self, node: NodeId, reason: String) {
        let on_node: Vec<JobId> = (self.core.running_jobs())
            .filter(|j| j.allocation().iter().any(|a| a.node == node))
            .map(|j| j.id)
            .collect();
        for id in on_node {
            if self.metas.get(&id).is_some_and(|m| m.interactive) {
                continue;
            }
            if self
                .apply(Input::Requeue {
                    job: id,
                    hold: None,
                })
                .is_ok()
            {
                info!(job = id.0, "node failed; job requeued");
            }
        }
        let _ = self.apply(Input::NodeDown(node, reason));
        self.pass_due();
    }

    fn purge(&mut self, now: u64) {
        let age = u64::from(self.site.conf.min_job_age_secs);
        let input = Input::PurgeFinished {
            ended_before: now.saturating_sub(age),
        };
        if let Ok(Outcome::Purged(ids)) = self.apply(input) {
            for id in ids {
                self.metas.remove(&id);
            }
        }
    }

    /// Records the operator's view of a node for the store.
    pub(super) fn node_changed(&mut self, node: NodeId) {
        self.turn.nodes_dirty.insert(node);
    }
}
