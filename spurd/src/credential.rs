//! Step credentials: the controller signs each step grant with the cluster
//! key (HMAC-SHA256), and a node runs a step's tasks only for a grant whose
//! signature checks out, whoever brings it. This is what lets srun launch
//! tasks on nodes directly without being trusted itself.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use spur_proto::StepGrant;

type HmacSha256 = Hmac<Sha256>;

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
        assert!(!verify(key, &g, &sig[..16]));
    }
}
