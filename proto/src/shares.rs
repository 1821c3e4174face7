//! Fair-share as `sshare` and slurmrestd's shares path show it
//! (slurmctld's `shares_response_msg_t`): spur gives every user an equal
//! share, so each user with past usage is one entry under the root, with
//! that usage decayed to now and the fair-share factor it gives.

use serde::{Deserialize, Serialize};

/// Every user's share.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Shares {
    /// The users with past usage, by uid.
    pub users: Vec<UserShare>,
    /// When the usage was decayed to (Unix seconds).
    pub now: u64,
}

/// One user's share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserShare {
    /// The uid.
    pub uid: u32,
    /// The user's name.
    pub name: String,
    /// Past usage decayed to now: GPU-seconds, or CPU-seconds for jobs
    /// without GPUs.
    pub usage: f64,
    /// The fair-share factor, in [0, 1].
    pub factor: f64,
}

impl Shares {
    /// The usage of all users together.
    pub fn total_usage(&self) -> f64 {
        self.users.iter().map(|u| u.usage).sum()
    }
}
