//! Removing expired history: finished jobs submitted before a cutoff (with
//! their steps), and finished steps started before one, as slurmdbd's
//! PurgeJobAfter and PurgeStepAfter do. Each call removes a bounded batch,
//! so that a large purge never holds the writer for long. When to purge
//! and which cutoff applies are the controller's business.

use super::{StoreError, Turn};

impl Turn<'_> {
    /// Deletes up to `limit` finished jobs submitted at or before
    /// `submitted_by` that ended before `ended_before`, with their steps,
    /// oldest first; jobs for which `keep` is true stay. Returns how many
    /// were deleted.
    pub fn purge_jobs(
        &self,
        submitted_by: u64,
        ended_before: u64,
        limit: usize,
        keep: &dyn Fn(u32) -> bool,
    ) -> Result<usize, StoreError> {
        let ids: Vec<u32> = self
            .tx
            .prepare_cached(
                "SELECT id FROM jobs WHERE submit_time <= ?1 AND end_time IS NOT NULL \
                 AND end_time < ?2 ORDER BY submit_time LIMIT ?3",
            )?
            .query_map(
                [submitted_by as i64, ended_before as i64, limit as i64],
                |r| Ok(r.get::<_, i64>(0)? as u32),
            )?
            .collect::<Result<_, _>>()?;
        let mut deleted = 0;
        let mut job = self.tx.prepare_cached("DELETE FROM jobs WHERE id = ?1")?;
        let mut payload = self
            .tx
            .prepare_cached("DELETE FROM payloads WHERE id = ?1")?;
        let mut steps = self
            .tx
            .prepare_cached("DELETE FROM steps WHERE job_id = ?1")?;
        let mut usage = self
            .tx
            .prepare_cached("DELETE FROM step_usage WHERE job_id = ?1")?;
        for id in ids.into_iter().filter(|id| !keep(*id)) {
            steps.execute([i64::from(id)])?;
            usage.execute([i64::from(id)])?;
            payload.execute([i64::from(id)])?;
            deleted += job.execute([i64::from(id)])?;
        }
        Ok(deleted)
    }

    /// Deletes up to `limit` finished steps that started at or before
    /// `started_by`, oldest first. Returns how many were deleted.
    pub fn purge_steps(&self, started_by: u64, limit: usize) -> Result<usize, StoreError> {
        let ids: Vec<(i64, i64)> = self
            .tx
            .prepare_cached(
                "SELECT job_id, step_id FROM steps \
                 WHERE start_time <= ?1 AND end_time IS NOT NULL \
                 ORDER BY start_time LIMIT ?2",
            )?
            .query_map([started_by as i64, limit as i64], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<_, _>>()?;
        let mut step = self
            .tx
            .prepare_cached("DELETE FROM steps WHERE job_id = ?1 AND step_id = ?2")?;
        let mut usage = self
            .tx
            .prepare_cached("DELETE FROM step_usage WHERE job_id = ?1 AND step_id = ?2")?;
        let mut deleted = 0;
        for (job, id) in ids {
            usage.execute([job, id])?;
            deleted += step.execute([job, id])?;
        }
        Ok(deleted)
    }
}
