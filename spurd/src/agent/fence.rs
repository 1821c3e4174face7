//! A node cut off from its controller stops its jobs. Once the controller
//! has been silent for nearly SlurmdTimeout it has set this node DOWN and
//! requeued or ended the node's jobs, and a copy that ran on here would
//! write beside the new run elsewhere. So the jobs' processes (each batch
//! script's process group and each step's) are stopped with SIGSTOP until
//! the controller answers again: on the same connection (it never set the
//! node DOWN: they continue), or on a new one, where it first kills, while
//! they are still stopped, the jobs it no longer counts as running here,
//! and the rest continue. A controller that was down rather than cut off
//! finds its jobs paused for the time it was away, never killed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::{info, warn};

/// When this node's jobs stop for want of a controller, and which are
/// stopped.
pub struct Fence {
    spool: PathBuf,
    /// How long a silence stops the jobs (None: never, SlurmdTimeout=0).
    after: Option<Duration>,
    started: Instant,
    /// When the controller was last heard, in ms since `started`.
    heard_ms: AtomicU64,
    stopped: Mutex<BTreeSet<u32>>,
}

impl Fence {
    /// A fence for the jobs in `spool` that stops them after `after` of
    /// silence.
    pub fn new(spool: PathBuf, after: Option<Duration>) -> Fence {
        Fence {
            spool,
            after,
            started: Instant::now(),
            heard_ms: AtomicU64::new(0),
            stopped: Mutex::new(BTreeSet::new()),
        }
    }

    /// The controller was heard just now.
    pub fn heard(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        self.heard_ms.store(now, Ordering::Relaxed);
    }

    /// How long until the controller's silence, counted from when it was
    /// last heard, would stop the jobs (zero once it would); None where
    /// silence never stops them.
    pub fn due_in(&self) -> Option<Duration> {
        let after = self.after?;
        let heard = Duration::from_millis(self.heard_ms.load(Ordering::Relaxed));
        let silent = self.started.elapsed().saturating_sub(heard);
        Some(after.saturating_sub(silent))
    }

    /// Stops every job's processes if the controller has been silent too
    /// long.
    pub fn check(&self) {
        let Some(after) = self.after else {
            return;
        };
        let heard = Duration::from_millis(self.heard_ms.load(Ordering::Relaxed));
        let silent = self.started.elapsed().saturating_sub(heard);
        if silent < after {
            return;
        }
        let mut stopped = self.lock();
        let mut newly = 0;
        for id in jobs_in(&self.spool) {
            if stopped.insert(id) {
                signal(&self.spool, id, libc::SIGSTOP);
                newly += 1;
            }
        }
        if newly > 0 {
            warn!(
                jobs = newly,
                silent_secs = silent.as_secs(),
                "controller silent for nearly SlurmdTimeout; this node's jobs are stopped until it answers"
            );
        }
    }

    /// Whether job `id` was stopped here; it is no longer counted as such
    /// (the caller kills it).
    pub fn take(&self, id: u32) -> bool {
        self.lock().remove(&id)
    }

    /// The controller answers again, and has killed what it no longer
    /// runs here: the jobs still stopped continue.
    pub fn resume(&self) {
        let stopped = std::mem::take(&mut *self.lock());
        for &id in &stopped {
            signal(&self.spool, id, libc::SIGCONT);
        }
        if !stopped.is_empty() {
            info!(
                jobs = stopped.len(),
                "controller answers again; stopped jobs continue"
            );
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<u32>> {
        self.stopped.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends `sig` to job `id`'s batch script (unless it has ended) and
/// steps on this node.
pub fn signal(spool: &Path, id: u32, sig: i32) {
    let dir = super::job_dir(spool, id);
    if spur_supervise::read_status(&dir).is_none() {
        super::signal_job(&dir, sig, true);
    }
    super::launcher::signal_steps(spool, id, sig);
}

/// The jobs with a folder in `spool`: batch scripts and steps.
pub fn jobs_in(spool: &Path) -> BTreeSet<u32> {
    let Ok(entries) = std::fs::read_dir(spool) else {
        return BTreeSet::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            name.to_str()?.strip_prefix("job")?.parse().ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_are_read_from_their_folders() {
        let spool = tempfile::tempdir().expect("temp dir");
        for name in ["job0000000007", "job0000000009", "grants", "jobx"] {
            std::fs::create_dir(spool.path().join(name)).expect("mkdir");
        }
        assert_eq!(jobs_in(spool.path()), BTreeSet::from([7, 9]));
    }

    #[test]
    fn a_fence_stops_nothing_before_its_time_or_when_it_has_none() {
        let spool = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(spool.path().join("job0000000007")).expect("mkdir");
        let never = Fence::new(spool.path().into(), None);
        never.check();
        assert!(!never.take(7));
        let later = Fence::new(spool.path().into(), Some(Duration::from_secs(60)));
        later.check();
        assert!(!later.take(7));
        assert_eq!(never.due_in(), None, "no silence stops the jobs");
        let due = later.due_in().expect("a silence stops them");
        assert!(due > Duration::from_secs(59) && due <= Duration::from_secs(60));
        let now = Fence::new(spool.path().into(), Some(Duration::ZERO));
        assert_eq!(now.due_in(), Some(Duration::ZERO));
        now.check();
        assert!(now.take(7), "the job is counted as stopped");
        assert!(!now.take(7), "and taken once");
    }
}
