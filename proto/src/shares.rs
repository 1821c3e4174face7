//! Fair-share as `sshare` and slurmrestd's shares path show it
//! (slurmctld's `shares_response_msg_t`): spur gives every user an equal
//! share, so each user with past usage is one entry under the root, with
//! that usage decayed to now and the fair-share factor it gives.

use serde::{Deserialize, Serialize};

/// Every user's share.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Shares {
    /// The users with past usage, by uid (under PrivateData=usage, only
    /// the asker's).
    pub users: Vec<UserShare>,
    /// When the usage was decayed to (Unix seconds).
    pub now: u64,
    /// The usage of all users together, those not shown included.
    pub usage_total: f64,
    /// How many users have past usage, those not shown included.
    pub user_count: u32,
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
    /// `users`, every one of them shown.
    pub fn of_all(users: Vec<UserShare>, now: u64) -> Shares {
        Shares {
            usage_total: users.iter().map(|u| u.usage).sum(),
            user_count: u32::try_from(users.len()).unwrap_or(u32::MAX),
            users,
            now,
        }
    }
}
