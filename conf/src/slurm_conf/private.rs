//! `PrivateData`: what a user who is not an operator may see only of their
//! own (Slurm's PRIVATE_DATA_* bits), read as slurm.conf's reader reads it:
//! each word counts wherever it appears in the value, and `all` is every
//! one.

/// The PRIVATE_DATA_* bits slurm.conf turned on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct PrivateData(u16);

impl PrivateData {
    /// Other users' jobs and steps (PRIVATE_DATA_JOBS).
    pub const JOBS: u16 = 1 << 0;
    /// Nodes (PRIVATE_DATA_NODES).
    pub const NODES: u16 = 1 << 1;
    /// Partitions (PRIVATE_DATA_PARTITIONS).
    pub const PARTITIONS: u16 = 1 << 2;
    /// Other users' usage (PRIVATE_DATA_USAGE).
    pub const USAGE: u16 = 1 << 3;
    /// Users (PRIVATE_DATA_USERS).
    pub const USERS: u16 = 1 << 4;
    /// Accounts (PRIVATE_DATA_ACCOUNTS).
    pub const ACCOUNTS: u16 = 1 << 5;
    /// Reservations (PRIVATE_DATA_RESERVATIONS).
    pub const RESERVATIONS: u16 = 1 << 6;
    /// Cloud nodes (PRIVATE_DATA_CLOUD).
    pub const CLOUD: u16 = 1 << 7;
    /// Events (PRIVATE_DATA_EVENTS).
    pub const EVENTS: u16 = 1 << 8;

    const WORDS: [(&'static str, u16); 9] = [
        ("account", Self::ACCOUNTS),
        ("cloud", Self::CLOUD),
        ("event", Self::EVENTS),
        ("job", Self::JOBS),
        ("node", Self::NODES),
        ("partition", Self::PARTITIONS),
        ("reservation", Self::RESERVATIONS),
        ("usage", Self::USAGE),
        ("user", Self::USERS),
    ];

    /// Reads a `PrivateData` value.
    pub fn parse(value: &str) -> PrivateData {
        let lower = value.to_ascii_lowercase();
        let all = lower.contains("all");
        let bits = (Self::WORDS.iter())
            .filter(|(word, _)| all || lower.contains(word))
            .fold(0, |bits, (_, bit)| bits | bit);
        PrivateData(bits)
    }

    /// These bits.
    pub const fn from_bits(bits: u16) -> PrivateData {
        PrivateData(bits)
    }

    /// The bits, as `slurm_conf.private_data` holds them.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Whether `bit` (one of the constants) is on.
    pub const fn hides(self, bit: u16) -> bool {
        self.0 & bit != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_count_wherever_they_appear_and_all_is_everything() {
        assert_eq!(PrivateData::parse("").bits(), 0);
        let p = PrivateData::parse("jobs,Usage");
        assert!(p.hides(PrivateData::JOBS) && p.hides(PrivateData::USAGE));
        assert!(!p.hides(PrivateData::NODES));
        // "users" holds "user" and "usage" does not hold "user".
        assert_eq!(PrivateData::parse("users").bits(), PrivateData::USERS);
        assert_eq!(PrivateData::parse("all").bits(), 0x1ff);
    }
}
