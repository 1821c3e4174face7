//! Step credentials: the controller signs each step grant with the cluster
//! key (HMAC-SHA256), and a node runs a step's tasks only for a grant whose
//! signature checks out, whoever brings it. This is what lets srun launch
//! tasks on nodes directly without being trusted itself. A grant carries a
//! nonce and an expiry (slurm.conf's `AuthInfo=cred_expire`, 120 s by
//! default: srun launches at once, and waits out a restarting node for
//! MessageTimeout, well inside it), so that one captured on the wire
//! cannot start its tasks again ([`crate::agent::launcher`] keeps the nonces it has used).

use hmac::{Hmac, Mac};
use sha2::Sha256;

use spur_proto::StepGrant;

type HmacSha256 = Hmac<Sha256>;

/// A new grant's nonce: random, so that no two grants share one, even
/// across controller restarts. It need only be unique (the signature
/// covers it), so were getrandom(2) to fail, the clock in nanoseconds
/// would do.
pub fn grant_nonce() -> u64 {
    let mut bytes = [0u8; 8];
    match spur_sys::random_bytes(&mut bytes) {
        Ok(()) => u64::from_ne_bytes(bytes),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    }
}

/// The signature of `grant` under `key`.
pub fn sign(key: &[u8], grant: &StepGrant) -> Vec<u8> {
    // HMAC takes keys of any length.
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(&grant.signed_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Whether `signature` is `grant`'s under `key` (compared in constant time).
pub fn verify(key: &[u8], grant: &StepGrant, signature: &[u8]) -> bool {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(&grant.signed_bytes());
    mac.verify_slice(signature).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant() -> StepGrant {
        StepGrant {
            job_id: 7,
            step_id: 0,
            uid: 1000,
            gid: 1000,
            user_name: "alice".into(),
            nodes: Vec::new(),
            time_limit: None,
            env: vec![("SLURM_JOB_ID".into(), "7".into())],
            nonce: 42,
            expires: 1_700_000_120,
        }
    }

    #[test]
    fn a_grant_verifies_only_unchanged_and_under_its_key() {
        let key = b"0123456789abcdef0123456789abcdef";
        let g = grant();
        let sig = sign(key, &g);
        assert!(verify(key, &g, &sig));
        assert!(!verify(b"another key of the same length!!", &g, &sig));
        let mut forged = g.clone();
        forged.uid = 0;
        assert!(!verify(key, &forged, &sig));
        let mut renewed = g.clone();
        renewed.expires += 3600;
        assert!(!verify(key, &renewed, &sig));
        assert!(!verify(key, &g, &sig[..16]));
    }
}
