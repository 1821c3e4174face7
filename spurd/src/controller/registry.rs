//! What the controller knows of each node beyond the core: whether its agent
//! is connected (and how to reach it), when it was last heard from, and what
//! it reported (load, memory, OS). Owned by the actor.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::Notify;

use spur_proto::ToAgent;

/// A connected agent.
#[derive(Debug, Clone)]
pub struct AgentLink {
    /// Distinguishes a reconnected agent from its previous connection.
    pub conn: u64,
    /// Messages to the agent.
    pub tx: UnboundedSender<ToAgent>,
    /// Closes the connection (its node left slurm.conf).
    pub close: Arc<Notify>,
}

/// One node's live facts.
#[derive(Debug, Clone, Default)]
pub struct NodeLive {
    /// The agent's connection, while it is connected.
    pub link: Option<AgentLink>,
    /// Last time anything came from the agent (controller clock, seconds).
    pub last_heard: u64,
    /// Set when SlurmdTimeout passed without a word.
    pub not_responding: bool,
    /// The agent registered at least once since the controller started.
    pub registered: bool,
    /// When it registered.
    pub registered_at: Option<u64>,
    /// Reported load.
    pub cpu_load: Option<f64>,
    /// Reported free memory.
    pub free_mem: Option<u64>,
    /// Reported architecture.
    pub arch: Option<String>,
    /// Reported OS.
    pub os: Option<String>,
    /// Reported version.
    pub version: Option<String>,
    /// Reported boot time.
    pub boot_time: Option<u64>,
    /// When a job last ran there.
    pub last_busy: Option<u64>,
    /// Who set the DOWN/DRAIN reason, and when.
    pub reason_set: Option<(u32, u64)>,
    /// DOWN until an operator resumes it: set DOWN by an operator, or by
    /// not responding under ReturnToService=0. A registration clears it
    /// only under ReturnToService=2.
    pub admin_down: bool,
}

impl NodeLive {
    /// Sends to the agent if it is connected; false if it is not.
    pub fn send(&self, msg: ToAgent) -> bool {
        self.link.as_ref().is_some_and(|l| l.tx.send(msg).is_ok())
    }
}
