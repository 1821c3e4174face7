//! How long the job history is kept: slurmdbd.conf's `PurgeJobAfter` and
//! `PurgeStepAfter`, applied to spur's own store (kept forever when not
//! set, as slurmdbd does). Once an hour the actor starts a purge round that
//! deletes expired rows in bounded batches, one batch per turn, each in its
//! own transaction after the turn's; jobs the controller still holds are
//! never purged. The SQL is the store's.

use tracing::{info, warn};

use spur_conf::{ConfFile, PurgeAfter, PurgeUnit, SlurmdbdConf};
use spur_core::JobId;

use super::actor::Controller;

/// How often a purge round starts, in seconds.
const ROUND_EVERY: u64 = 3600;

/// The most rows one batch deletes.
const BATCH: usize = 1000;

/// The purge settings and the progress of the current round.
#[derive(Debug, Clone, Default)]
pub struct Retention {
    conf: SlurmdbdConf,
    next_round: u64,
    in_round: bool,
    last_batch: u64,
    purged_jobs: usize,
    purged_steps: usize,
}

impl Retention {
    /// Retention as `conf` sets it; the first round starts at once.
    pub fn new(conf: SlurmdbdConf) -> Retention {
        Retention {
            conf,
            ..Retention::default()
        }
    }
}

/// Reads the slurmdbd.conf beside `slurm_conf`, if there is one. A file
/// that cannot be read keeps the whole history, with a warning.
pub fn load(slurm_conf: &std::path::Path) -> SlurmdbdConf {
    let path = SlurmdbdConf::path_beside(slurm_conf);
    if !path.exists() {
        return SlurmdbdConf::default();
    }
    match SlurmdbdConf::load(&path) {
        Ok(parsed) => {
            for warning in &parsed.warnings {
                warn!(%warning, "slurmdbd.conf");
            }
            info!(
                file = %path.display(),
                purge_job_after = ?parsed.value.purge_job_after,
                purge_step_after = ?parsed.value.purge_step_after,
                "history retention"
            );
            parsed.value
        }
        Err(e) => {
            warn!(file = %path.display(), error = %e, "cannot read slurmdbd.conf; history is kept");
            SlurmdbdConf::default()
        }
    }
}

/// The newest submit (or step start) time a purge removes at `now`:
/// slurmdbd's `archive_setup_end_time`, in local time: the current hour,
/// day or month boundary, minus the period, minus one second.
pub fn cutoff(now: u64, purge: PurgeAfter) -> u64 {
    let mut tm = spur_slurm::time::local(now as i64);
    tm.tm_sec = 0;
    tm.tm_min = 0;
    let units = purge.count.min(i32::MAX as u32) as i32;
    match purge.unit {
        PurgeUnit::Hours => tm.tm_hour -= units,
        PurgeUnit::Days => {
            tm.tm_hour = 0;
            tm.tm_mday -= units;
        }
        PurgeUnit::Months => {
            tm.tm_hour = 0;
            tm.tm_mday = 1;
            tm.tm_mon -= units;
        }
    }
    tm.tm_isdst = -1;
    // SAFETY: tm is a valid, initialised struct that mktime may normalise.
    let at = unsafe { libc::mktime(&mut tm) };
    #[allow(clippy::useless_conversion)]
    let at = i64::from(at);
    at.saturating_sub(1).max(0) as u64
}

/// What one purge batch deletes: finished jobs submitted by, and finished
/// steps started by, these times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batch {
    /// PurgeJobAfter's cutoff.
    pub jobs_submitted_by: Option<u64>,
    /// PurgeStepAfter's cutoff.
    pub steps_started_by: Option<u64>,
}

impl Retention {
    /// The batch to delete at `now`: a round starts once an hour and runs
    /// one batch a second, however busy the actor is, until a batch finds
    /// less than a full load. None when nothing is due.
    pub fn due(&mut self, now: u64) -> Option<Batch> {
        let (jobs, steps) = (self.conf.purge_job_after, self.conf.purge_step_after);
        if (jobs.is_none() && steps.is_none()) || self.last_batch == now {
            return None;
        }
        if !self.in_round {
            if now < self.next_round {
                return None;
            }
            self.next_round = now + ROUND_EVERY;
            self.in_round = true;
            self.purged_jobs = 0;
            self.purged_steps = 0;
        }
        self.last_batch = now;
        Some(Batch {
            jobs_submitted_by: jobs.map(|p| cutoff(now, p)),
            steps_started_by: steps.map(|p| cutoff(now, p)),
        })
    }

    /// Counts what a batch deleted; the round's totals when it is over.
    pub fn deleted(&mut self, jobs: usize, steps: usize) -> Option<(usize, usize)> {
        self.purged_jobs += jobs;
        self.purged_steps += steps;
        if jobs < BATCH && steps < BATCH {
            self.in_round = false;
            return Some((self.purged_jobs, self.purged_steps));
        }
        None
    }

    /// Ends the round after a failed batch; the next starts on schedule.
    pub fn failed(&mut self) {
        self.in_round = false;
    }
}

impl Controller {
    /// Deletes one batch of expired history when one is due. Not on the
    /// hot path: at most once a second, after the turn's commit, in a
    /// transaction of its own.
    pub(super) fn purge_history(&mut self, now: u64) {
        let Some(batch) = self.retention.due(now) else {
            return;
        };
        let held_until = now.saturating_sub(u64::from(self.site.conf.min_job_age_secs));
        let core = &self.core;
        let keep = |id: u32| core.job(JobId(id)).is_some();
        let result = (|| {
            let turn = self.store.begin()?;
            let jobs = match batch.jobs_submitted_by {
                Some(by) => turn.purge_jobs(by, held_until, BATCH, &keep)?,
                None => 0,
            };
            let steps = match batch.steps_started_by {
                Some(by) => turn.purge_steps(by, BATCH)?,
                None => 0,
            };
            turn.commit()?;
            Ok::<_, super::store::StoreError>((jobs, steps))
        })();
        match result {
            Ok((jobs, steps)) => {
                if let Some((jobs, steps)) = self.retention.deleted(jobs, steps) {
                    if jobs + steps > 0 {
                        info!(jobs, steps, "expired job history purged");
                    }
                }
            }
            Err(e) => {
                warn!(error = %e, "cannot purge expired job history; retrying next round");
                self.retention.failed();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(y: i32, mo: i32, d: i32, h: i32, mi: i32, s: i32) -> u64 {
        // SAFETY: an all-zero tm is a valid starting value.
        let mut tm: libc::tm = unsafe { std::mem::zeroed() };
        (tm.tm_year, tm.tm_mon, tm.tm_mday) = (y - 1900, mo - 1, d);
        (tm.tm_hour, tm.tm_min, tm.tm_sec) = (h, mi, s);
        tm.tm_isdst = -1;
        // SAFETY: tm is valid and initialised.
        let t = unsafe { libc::mktime(&mut tm) };
        #[allow(clippy::useless_conversion)]
        let t = i64::from(t);
        t as u64
    }

    #[test]
    fn rounds_start_hourly_and_run_a_batch_a_second_until_done() {
        let mut none = Retention::new(SlurmdbdConf::default());
        assert_eq!(none.due(1000), None);
        let thirty_days = PurgeAfter {
            count: 30,
            unit: PurgeUnit::Days,
        };
        let mut r = Retention::new(SlurmdbdConf {
            purge_job_after: Some(thirty_days),
            purge_step_after: None,
        });
        let now = local(2026, 5, 20, 14, 37, 12);
        let batch = r.due(now).expect("the first round starts at once");
        assert_eq!(batch.jobs_submitted_by, Some(cutoff(now, thirty_days)));
        assert_eq!(batch.steps_started_by, None);
        assert_eq!(r.due(now), None, "one batch a second");
        assert_eq!(r.deleted(BATCH, 0), None, "a full batch: more to do");
        assert!(r.due(now + 1).is_some());
        assert_eq!(r.deleted(5, 0), Some((BATCH + 5, 0)));
        assert_eq!(r.due(now + 2), None, "the round is over");
        assert_eq!(r.due(now + ROUND_EVERY - 1), None);
        assert!(r.due(now + ROUND_EVERY).is_some(), "an hour later");
        r.failed();
        assert_eq!(r.due(now + ROUND_EVERY + 1), None);
    }

    #[test]
    fn cutoffs_fall_on_slurmdbds_boundaries() {
        let now = local(2026, 5, 20, 14, 37, 12);
        let p = |count, unit| PurgeAfter { count, unit };
        assert_eq!(
            cutoff(now, p(2, PurgeUnit::Hours)),
            local(2026, 5, 20, 12, 0, 0) - 1
        );
        assert_eq!(
            cutoff(now, p(30, PurgeUnit::Days)),
            local(2026, 4, 20, 0, 0, 0) - 1
        );
        assert_eq!(
            cutoff(now, p(12, PurgeUnit::Months)),
            local(2025, 5, 1, 0, 0, 0) - 1
        );
    }
}
