//! Idempotency keys of submissions: a submission whose answer was lost (the
//! controller died between its commit and its answer, a connection broke)
//! is sent again with the same key and gets the job the first one made.
//! A key belongs to its user: the controller keeps a digest of the user and
//! the key, in memory for every job it knows and in the job's row, so that
//! a retry finds its job across a restart too.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

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

/// The jobs of the keyed submissions the controller knows, and of those it
/// has forgotten lately: a retry may come after its job ended and was
/// purged (MinJobAge can be seconds), and still gets that job's id.
#[derive(Debug, Default)]
pub struct SubmitKeys {
    /// The job of each key.
    jobs: HashMap<Words, Kept, BuildHasherDefault<FirstWord>>,
}

/// What is kept of a key: a map entry of 32 bytes, where a `u128` key
/// and a `u64` time padded each to 48 (every job a pipeline submits has
/// one).
#[derive(Debug, Clone, Copy)]
struct Kept {
    job: JobId,
    /// Since when its job is gone, in seconds since the epoch (None: the
    /// controller knows it).
    gone: Option<u32>,
}

/// A digest as the map holds it: two words, aligned as words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Words([u64; 2]);

fn words(key: SubmitKey) -> Words {
    Words([key as u64, (key >> 64) as u64])
}

/// A digest's bits are already spread evenly (they are SHA-256's), and a
/// user who wanted keys that meet in a table would have to search for
/// each: its first word is its hash, with no hashing of its own.
impl Hash for Words {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0[0]);
    }
}

/// The hasher of [`Words`]: the word it was given.
#[derive(Debug, Default)]
struct FirstWord(u64);

impl Hasher for FirstWord {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = word;
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only Words is hashed with it, and it writes one u64.
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
}

/// How long a key outlives its job: longer than any command waits for an
/// answer before it stops sending (MessageTimeout is seconds).
pub const KEEP_GONE_SECS: u64 = 600;

impl SubmitKeys {
    /// The job a submission with this key made.
    pub fn job(&self, key: SubmitKey) -> Option<JobId> {
        self.jobs.get(&words(key)).map(|kept| kept.job)
    }

    /// Remembers the job a keyed submission made.
    pub fn insert(&mut self, key: SubmitKey, job: JobId) {
        self.jobs.insert(words(key), Kept { job, gone: None });
    }

    /// Notes which jobs the controller no longer knows (`known`), and
    /// forgets the keys of those gone longer than [`KEEP_GONE_SECS`].
    pub fn forget_gone(&mut self, known: impl Fn(JobId) -> bool, now: u64) {
        let now = u32::try_from(now).unwrap_or(u32::MAX);
        self.jobs.retain(|_, kept| {
            if known(kept.job) {
                kept.gone = None;
                return true;
            }
            let since = *kept.gone.get_or_insert(now);
            u64::from(now.saturating_sub(since)) <= KEEP_GONE_SECS
        });
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
    fn keys_outlive_their_jobs_for_a_while() {
        let mut keys = SubmitKeys::default();
        let (a, b) = (digest(0, "a").unwrap(), digest(0, "b").unwrap());
        keys.insert(a, JobId(1));
        keys.insert(b, JobId(2));
        assert_eq!(keys.job(a), Some(JobId(1)));
        // Job 1 is purged at 100: its key still answers a retry ...
        keys.forget_gone(|id| id == JobId(2), 100);
        assert_eq!(keys.job(a), Some(JobId(1)));
        keys.forget_gone(|id| id == JobId(2), 100 + KEEP_GONE_SECS);
        assert_eq!(keys.job(a), Some(JobId(1)));
        // ... until long after.
        keys.forget_gone(|id| id == JobId(2), 101 + KEEP_GONE_SECS);
        assert_eq!(keys.job(a), None);
        assert_eq!(keys.len(), 1);
        assert_eq!(keys.job(b), Some(JobId(2)));
    }
}
