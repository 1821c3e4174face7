//! The groups of the users whose jobs this node starts, kept for
//! slurm.conf's `GroupUpdateTime` as slurmd keeps them: a batch job's
//! supervisor takes its user's groups from its launch file, and reading
//! them from the user databases for every job (a directory service's
//! answer may take milliseconds) is what slurmd's cache spares too.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a user's group list is read: [`spur_sys::users::group_list`], or a
/// stand-in in tests.
type Lookup = fn(&str, u32) -> Vec<u32>;

/// Group lists by user name and primary group, each kept for a while.
#[derive(Debug)]
pub struct GroupCache {
    keep: Duration,
    lookup: Lookup,
    lists: Mutex<HashMap<(String, u32), Kept>>,
}

/// A group list and when it was read.
#[derive(Debug)]
struct Kept {
    read: Instant,
    groups: Vec<u32>,
}

impl GroupCache {
    /// Lists read from the user databases, kept for `keep` (zero: read for
    /// every job).
    pub fn new(keep: Duration) -> GroupCache {
        GroupCache::with_lookup(keep, spur_sys::users::group_list)
    }

    fn with_lookup(keep: Duration, lookup: Lookup) -> GroupCache {
        GroupCache {
            keep,
            lookup,
            lists: Mutex::new(HashMap::new()),
        }
    }

    /// The groups of user `name` whose primary group is `gid`, as of `now`:
    /// kept where they were read less than the keeping time before. A
    /// lookup that failed (an empty list) is not kept, so that the next
    /// job asks again.
    pub fn groups(&self, name: &str, gid: u32, now: Instant) -> Vec<u32> {
        let key = (name.to_string(), gid);
        if let Some(kept) = self.lists.lock().expect("not poisoned").get(&key) {
            if now.saturating_duration_since(kept.read) < self.keep {
                return kept.groups.clone();
            }
        }
        let groups = (self.lookup)(name, gid);
        let mut lists = self.lists.lock().expect("not poisoned");
        if groups.is_empty() || self.keep.is_zero() {
            lists.remove(&key);
        } else {
            // Those read long ago go when one is read anew: the cache holds
            // the users of a keeping time at most.
            let keep = self.keep;
            lists.retain(|_, kept| now.saturating_duration_since(kept.read) < keep);
            lists.insert(
                key,
                Kept {
                    read: now,
                    groups: groups.clone(),
                },
            );
        }
        groups
    }
}

/// slurm.conf's `GroupUpdateTime` (seconds; 600 unless set, or where the
/// value is no number of seconds, which is said).
pub fn keep_time(conf: &spur_conf::SlurmConf) -> Duration {
    let secs = super::setting(
        conf,
        "groupupdatetime",
        600,
        |t| t.trim().parse().ok(),
        "GroupUpdateTime is no number of seconds; job users' groups are kept for 600 s",
    );
    Duration::from_secs(secs)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use spur_conf::ConfFile;

    use super::*;

    static READS: AtomicUsize = AtomicUsize::new(0);

    /// A user database where "alice" is in groups 7 and 8 besides her
    /// primary one, and nobody else exists; it counts its reads.
    fn counted(name: &str, gid: u32) -> Vec<u32> {
        READS.fetch_add(1, Ordering::SeqCst);
        match name {
            "alice" => vec![gid, 7, 8],
            _ => Vec::new(),
        }
    }

    #[test]
    fn a_list_is_read_once_a_keeping_time_and_failures_are_not_kept() {
        let cache = GroupCache::with_lookup(Duration::from_secs(600), counted);
        let t0 = Instant::now();
        let reads = || READS.load(Ordering::SeqCst);
        let before = reads();
        assert_eq!(cache.groups("alice", 100, t0), [100, 7, 8]);
        assert_eq!(
            cache.groups("alice", 100, t0 + Duration::from_secs(599)),
            [100, 7, 8]
        );
        assert_eq!(reads() - before, 1, "the second job's list is the kept one");
        // Another primary group is another list.
        assert_eq!(cache.groups("alice", 200, t0), [200, 7, 8]);
        assert_eq!(reads() - before, 2);
        // Past the keeping time, read again.
        assert_eq!(
            cache.groups("alice", 100, t0 + Duration::from_secs(600)),
            [100, 7, 8]
        );
        assert_eq!(reads() - before, 3);
        // An unknown user's empty list is asked for again each time.
        assert!(cache.groups("mallory", 100, t0).is_empty());
        assert!(cache.groups("mallory", 100, t0).is_empty());
        assert_eq!(reads() - before, 5);
        // A keeping time of zero keeps nothing.
        let uncached = GroupCache::with_lookup(Duration::ZERO, counted);
        uncached.groups("alice", 100, t0);
        uncached.groups("alice", 100, t0);
        assert_eq!(reads() - before, 7);
    }

    #[test]
    fn the_keeping_time_is_group_update_time() {
        let conf = |text: &str| {
            spur_conf::SlurmConf::parse(text, std::path::Path::new("slurm.conf"))
                .expect("parses")
                .value
        };
        assert_eq!(
            keep_time(&conf("ClusterName=c\n")),
            Duration::from_secs(600)
        );
        assert_eq!(
            keep_time(&conf("ClusterName=c\nGroupUpdateTime=30\n")),
            Duration::from_secs(30)
        );
        assert_eq!(
            keep_time(&conf("ClusterName=c\nGroupUpdateTime=0\n")),
            Duration::ZERO
        );
        // Not a number: the default, with a warning.
        assert_eq!(
            keep_time(&conf("ClusterName=c\nGroupUpdateTime=soon\n")),
            Duration::from_secs(600)
        );
    }
}
