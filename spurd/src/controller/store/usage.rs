//! What steps used, as their nodes' agents measured it: one row per step
//! (the batch step under Slurm's id for it) in the `step_usage` table,
//! each node's part merged in as it arrives, read back beside the history
//! for sacct and seff. Purged with its job or step.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};
use spur_proto::Usage;

use super::history::HistoryRow;
use super::{decode, encode, StoreError, Turn};

impl Turn<'_> {
    /// Folds one node's `part` into what step `step_id` of `job_id` used
    /// (`merge`), or makes it the whole of it (a one-node step, whose part
    /// may come again when its agent resends an unacknowledged end).
    pub fn merge_usage(
        &self,
        job_id: u32,
        step_id: u32,
        part: &Usage,
        merge: bool,
    ) -> Result<(), StoreError> {
        let stored: Option<Vec<u8>> = if !merge {
            None
        } else {
            self.tx
                .prepare_cached("SELECT usage FROM step_usage WHERE job_id = ?1 AND step_id = ?2")?
                .query_row([i64::from(job_id), i64::from(step_id)], |r| r.get(0))
                .optional()?
        };
        let mut usage: Usage = match stored {
            Some(bytes) => decode(job_id, &bytes)?,
            None => Usage::default(),
        };
        usage.merge(part);
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO step_usage (job_id, step_id, usage) VALUES (?1, ?2, ?3)",
            )?
            .execute(rusqlite::params![
                i64::from(job_id),
                i64::from(step_id),
                encode(job_id, &usage)?
            ])?;
        Ok(())
    }
}

impl Turn<'_> {
    /// Forgets what every step of `job_id` used (a new run starts).
    pub fn clear_usage(&self, job_id: u32) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("DELETE FROM step_usage WHERE job_id = ?1")?
            .execute([i64::from(job_id)])?;
        Ok(())
    }
}

/// Fills in the usage of the steps of `jobs` (selected by `conds`).
pub(super) fn attach(
    conn: &Connection,
    conds: &str,
    jobs: &mut [HistoryRow],
) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT job_id, step_id, usage FROM step_usage \
         WHERE job_id IN (SELECT id FROM jobs WHERE {conds})"
    ))?;
    let mut rows = stmt.query([])?;
    let at: HashMap<u32, usize> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (j.record.id.0, i))
        .collect();
    while let Some(r) = rows.next()? {
        let job_id = r.get::<_, i64>(0)? as u32;
        let step_id = r.get::<_, i64>(1)? as u32;
        let bytes: Vec<u8> = r.get(2)?;
        if let Some(&i) = at.get(&job_id) {
            jobs[i].usage.insert(step_id, decode(job_id, &bytes)?);
        }
    }
    Ok(())
}
