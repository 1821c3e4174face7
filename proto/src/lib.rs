//! spur-proto: the wire protocol and the types every front end shares.
//!
//! Messages are named by direction ([`ClientRequest`] / [`ClientResponse`]
//! between a client and the controller, [`FromAgent`] / [`ToAgent`] between
//! a node agent and the controller). Each travels as one length-delimited
//! frame ([`frame`]); a connection opens with a [`Hello`] that carries the
//! protocol version, so both ends refuse a peer they do not understand.
//! Nothing here knows the scheduling core: the controller converts.
#![warn(missing_docs)]

pub mod auth;
pub mod counts;
pub mod error;
pub mod frame;
pub mod history;
pub mod job;
pub mod listing;
pub mod mesh;
pub mod message;
pub mod node;
pub mod pattern;
pub mod priority;
pub mod shares;
pub mod stats;
pub mod step;
pub mod usage;

pub use auth::{Authenticated, Credential, TokenRequest};
pub use error::{ErrorCode, ExitCode, ProtoError};
pub use frame::{FrameError, MAX_FRAME};
pub use history::{AcctState, HistoryJob, HistoryQuery, HistoryStep, JobSelector, StepId, Tres};
pub use job::{
    ExclusiveMode, JobDesc, JobInfo, JobSignal, JobStateName, MemSpec, OpenMode, SegmentLayout,
    SUBMIT_KEY_MAX,
};
pub use listing::{JobField, JobFields, JobList};
pub use mesh::{
    MeshAnswer, MeshJoinHello, MeshKeyBytes, MeshPeer, MeshPeerStatus, MeshSealed, MeshStatus,
    MeshWelcome,
};
pub use message::{
    AgentHello, ArrayTasks, BatchLaunch, ClientRequest, ClientResponse, FromAgent, Hello, JobEnd,
    JobUpdate, KeyChallenge, KeyProof, KillNotice, NodeStateRequest, NodeUpdate, Nonce,
    Registration, RelayHello, RequeueHold, Role, SignalScope, SignalTarget, ToAgent, WillRun,
};
pub use node::{ConfigInfo, DomainInfo, NodeBaseState, NodeInfo, PartitionInfo};
pub use pattern::PatternValues;
pub use priority::{JobPriority, Priorities, PriorityQuery, PriorityWeights};
pub use shares::{Shares, UserShare};
pub use stats::{BackfillCounts, RpcCount, SchedCounts, Stats, UserCount};
pub use step::{
    FromStep, StepGrant, StepInfo, StepNode, StepRequest, StepStdin, TaskLaunch, ToStep, BATCH_STEP,
};
pub use usage::{Extreme, LiveUsage, TresUsage, Usage, UsageTres};

/// The protocol version spoken by this build. A peer with another version is
/// refused at the hello.
pub const PROTOCOL_VERSION: u16 = 14;

/// The signal an end by the out-of-memory killer reports, in every exit
/// status on the wire: Slurm's SIG_OOM (253) read as a wait status. No
/// real signal has the number.
pub const SIG_OOM: i32 = 125;

/// The controller's local socket, in StateSaveLocation.
pub const CONTROLLER_SOCKET_NAME: &str = "spur.sock";

/// A node agent's local socket (commands relayed to the controller), in
/// the node's SlurmdSpoolDir.
pub const AGENT_SOCKET_NAME: &str = "spur-agent.sock";

/// Where `spurd relay` listens on a login node, unless SPUR_RELAY_SOCKET
/// says otherwise.
pub const DEFAULT_RELAY_SOCKET: &str = "/run/spur/relay.sock";

/// The version string the commands and daemons report (`scontrol version`).
pub const SLURM_COMPAT_VERSION: &str = spur_slurm::SLURM_VERSION;
