//! Idempotency keys for submissions: every submission leaves with a key
//! of its own, so that a retry after a lost answer gets the job the first
//! try made (the controller keeps the key with the job) instead of a second
//! job.

/// A fresh key: 128 random bits from the kernel, as 32 hex digits. A
/// kernel that gives none (Linux before 3.17) still gets a key unique to
/// this host, process, moment and count.
pub fn new_key() -> String {
    let mut bytes = [0u8; 16];
    if spur_sys::random_bytes(&mut bytes).is_err() {
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mixed = spur_sys::short_hostname()
            .bytes()
            .fold(u64::from(std::process::id()), |h, b| {
                h.rotate_left(5) ^ u64::from(b)
            });
        let count = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        bytes[..8].copy_from_slice(&nanos.to_le_bytes());
        bytes[8..].copy_from_slice(&(mixed ^ count).to_le_bytes());
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
