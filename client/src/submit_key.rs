//! Idempotency keys for submissions: every submission leaves with a key
//! of its own, so that a retry after a lost answer gets the job the first
//! try made (the controller keeps the key with the job) instead of a second
//! job.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh key: 128 random bits from the kernel, as 32 hex digits.
pub fn new_key() -> String {
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        // No /dev/urandom (a bare chroot): this host, process, moment and
        // count still name one submission.
        static MADE: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let host = spur_sys::short_hostname();
        let mixed = host.bytes().fold(u64::from(std::process::id()), |h, b| {
            h.rotate_left(5) ^ u64::from(b)
        });
        bytes[..8].copy_from_slice(&nanos.to_le_bytes());
        bytes[8..].copy_from_slice(&(mixed ^ MADE.fetch_add(1, Ordering::Relaxed)).to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ() {
        let (a, b) = (new_key(), new_key());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
