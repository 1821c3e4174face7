//! Fair-share as sshare and slurmrestd's shares path show it
//! (slurmctld's `assoc_shares_object_t`): spur keeps no accounts or
//! associations and every user has an equal share, so the tree is the
//! root with each user who has past usage under it. Usage is what spur
//! charges (GPU-seconds, or CPU-seconds for jobs without GPUs), decayed by
//! PriorityDecayHalfLife; a user's factor is the one the priority uses.

use spur_proto::Shares;

/// One row of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareRow {
    /// The association's id: 0 for the root, a user's uid.
    pub id: u32,
    /// The account (`root`) or the user's name.
    pub name: String,
    /// The parent account (empty for the root).
    pub parent: &'static str,
    /// A user's row (else the root account's).
    pub user: bool,
    /// Raw shares (None: unset, as the root's).
    pub shares_raw: Option<u32>,
    /// Shares against all of the parent's.
    pub shares_norm: f64,
    /// Decayed usage.
    pub usage_raw: f64,
    /// Usage against the cluster's.
    pub usage_norm: f64,
    /// Effective usage (the normalized usage: the tree is flat).
    pub usage_efctv: f64,
    /// The fair-share factor (None for the root).
    pub fs_factor: Option<f64>,
}

/// The rows of `all`: the root, then each user `wanted` names (all when
/// None), by uid.
pub fn rows(all: &Shares, wanted: Option<&[String]>) -> Vec<ShareRow> {
    // The whole cluster's figures, whichever users are shown.
    let total = all.usage_total;
    let n = all.user_count.max(1);
    let mut rows = vec![ShareRow {
        id: 0,
        name: "root".into(),
        parent: "",
        user: false,
        shares_raw: None,
        shares_norm: 1.0,
        usage_raw: total,
        usage_norm: 1.0,
        usage_efctv: 1.0,
        fs_factor: None,
    }];
    for u in &all.users {
        if wanted.is_some_and(|w| !w.contains(&u.name)) {
            continue;
        }
        let normalized = if total > 0.0 { u.usage / total } else { 0.0 };
        rows.push(ShareRow {
            id: u.uid,
            name: u.name.clone(),
            parent: "root",
            user: true,
            shares_raw: Some(1),
            shares_norm: 1.0 / f64::from(n),
            usage_raw: u.usage,
            usage_norm: normalized,
            usage_efctv: normalized,
            fs_factor: Some(u.factor),
        });
    }
    rows
}
