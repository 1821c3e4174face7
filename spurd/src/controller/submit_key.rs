//! Idempotency keys of submissions: a submission whose answer was lost (the
//! controller died between its commit and its answer, a connection broke)
//! is sent again with the same key and gets the job the first one made.
//! A key belongs to its user: the controller keeps a digest of the user and
//! the key, in memory for every job it knows and in the job's row, so that
//! a retry finds its job across a restart too.

use std::collections::HashMap;

use sha2::{Digest, Sha256};
use spur_core::JobId;
use spur_proto::{ErrorCode, ProtoError, SUBMIT_KEY_MAX};

use super::store::SubmitKey;

/// The digest of `key` as `uid`'s (128 bits: two different submissions of
/// one user meet by chance with odds near 2^-100 among a million jobs).
pub fn digest(uid: u32, key: &str) -> Result<SubmitKey, ProtoError> {
    if key.is_empty() || key.len() > SUBMIT_KEY_MAX {
        return Err(ProtoError::with_detail(
            ErrorCode::InvalidArgument,
            format!("submission key must be 1 to {SUBMIT_KEY_MAX} bytes long"),
        ));
    }
    let mut h = Sha256::new();
    h.update(uid.to_le_bytes());
    h.update(key.as_bytes());
    let bytes: [u8; 16] = h.finalize()[..16].try_into().expect("32 bytes");
    Ok(u128::from_le_bytes(bytes))
}

/// The jobs of the keyed submissions the controller knows.
#[derive(Debug, Default)]
pub struct SubmitKeys {
    jobs: HashMap<SubmitKey, JobId>,
}

impl SubmitKeys {
    /// The job a submission with this key made, if the controller still
    /// knows it (`known`).
    pub fn job(&self, key: SubmitKey, known: impl Fn(JobId) -> bool) -> Option<JobId> {
        self.jobs.get(&key).copied().filter(|&id| known(id))
    }

    /// Remembers the job a keyed submission made.
    pub fn insert(&mut self, key: SubmitKey, job: JobId) {
        self.jobs.insert(key, job);
    }

    /// Forgets the keys of jobs the controller no longer knows.
    pub fn forget_gone(&mut self, known: impl Fn(JobId) -> bool) {
        self.jobs.retain(|_, id| known(*id));
    }

    /// How many keys are kept.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_its_users_own() {
        let a = digest(1000, "k-1").expect("fine");
        assert_eq!(a, digest(1000, "k-1").expect("fine"));
        assert_ne!(a, digest(1001, "k-1").expect("fine"));
        assert_ne!(a, digest(1000, "k-2").expect("fine"));
    }

    #[test]
    fn empty_and_long_keys_are_refused() {
        assert_eq!(digest(0, "").unwrap_err().code, ErrorCode::InvalidArgument);
        let long = "x".repeat(SUBMIT_KEY_MAX + 1);
        assert!(digest(0, &long).is_err());
        assert!(digest(0, &long[1..]).is_ok());
    }

    #[test]
    fn keys_of_gone_jobs_are_forgotten() {
        let mut keys = SubmitKeys::default();
        let (a, b) = (digest(0, "a").unwrap(), digest(0, "b").unwrap());
        keys.insert(a, JobId(1));
        keys.insert(b, JobId(2));
        assert_eq!(keys.job(a, |_| true), Some(JobId(1)));
        assert_eq!(keys.job(a, |id| id != JobId(1)), None);
        keys.forget_gone(|id| id == JobId(2));
        assert_eq!(keys.len(), 1);
        assert_eq!(keys.job(b, |_| true), Some(JobId(2)));
    }
}
