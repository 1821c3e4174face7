//! sacct's reads of the job history: a read-only connection of its own
//! (WAL lets it read while the actor writes), slurmdbd's rules for which
//! jobs a time window and a state list select, and the rows it returns.
//! Nothing here writes or formats.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use spur_core::JobRecord;
use spur_proto::{AcctState, HistoryQuery};

use super::step::{StepRow, STEP_COLUMNS};
use super::{decode, JobMeta, StoreError, STATE_FILE};

/// A job of the history as stored, with its srun steps in the window.
#[derive(Debug, Clone)]
pub struct HistoryRow {
    /// The core's record.
    pub record: JobRecord,
    /// The controller's extras.
    pub meta: JobMeta,
    /// Its srun steps that overlap the window, in start order.
    pub steps: Vec<StepRow>,
    /// The highest exit code and signal among all its srun steps (Slurm's
    /// derived exit code).
    pub derived: (i32, i32),
    /// What its steps used, by step id (the batch step's under
    /// [`spur_proto::BATCH_STEP`]).
    pub usage: std::collections::HashMap<u32, spur_proto::Usage>,
}

/// A read-only connection to the state database, for history queries off
/// the actor thread.
#[derive(Debug)]
pub struct Reader {
    pub(super) conn: Connection,
}

impl Reader {
    /// Opens the database in `dir` for reading. The controller has created
    /// and migrated it already.
    pub fn open(dir: &Path) -> Result<Reader, StoreError> {
        let conn = Connection::open_with_flags(
            dir.join(STATE_FILE),
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update(None, "cache_size", super::CACHE_SIZE)?;
        Ok(Reader { conn })
    }

    /// The jobs `q` selects, by id, read from one snapshot.
    pub fn history(&mut self, q: &HistoryQuery) -> Result<Vec<HistoryRow>, StoreError> {
        let tx = self.conn.transaction()?;
        select(&tx, q)
    }
}

/// The jobs `q` selects, by id, with their steps when `q.steps`.
pub(super) fn select(conn: &Connection, q: &HistoryQuery) -> Result<Vec<HistoryRow>, StoreError> {
    let conds = conditions(q);
    // No ORDER BY: ordering by id would make SQLite walk the whole table
    // in rowid order instead of using the window's index; sorted below.
    let mut stmt = conn.prepare(&format!("SELECT id, record, meta FROM jobs WHERE {conds}"))?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)? as u32,
            r.get::<_, Vec<u8>>(1)?,
            r.get::<_, Vec<u8>>(2)?,
        ))
    })?;
    let mut jobs = Vec::new();
    for row in rows {
        let (id, record, meta) = row?;
        let meta: JobMeta = decode(id, &meta)?;
        let record: JobRecord = decode(id, &record)?;
        if !q.names.is_empty() && !q.names.iter().any(|n| **n == *record.spec.name) {
            continue;
        }
        let partition = meta.partition_of(&record);
        if !q.partitions.is_empty() && !q.partitions.iter().any(|p| p == partition) {
            continue;
        }
        jobs.push(HistoryRow {
            record,
            meta,
            steps: Vec::new(),
            derived: (0, 0),
            usage: std::collections::HashMap::new(),
        });
    }
    jobs.sort_unstable_by_key(|j| j.record.id);
    if !jobs.is_empty() {
        attach_derived(conn, &conds, &mut jobs)?;
    }
    if q.steps && !jobs.is_empty() {
        attach_steps(conn, q, &conds, &mut jobs)?;
        super::usage::attach(conn, &conds, &mut jobs)?;
    }
    Ok(jobs)
}

/// The job in `jobs` (sorted by id) with id `id`, walking forward from
/// `*at` (ids come in ascending order).
fn job_at<'a>(jobs: &'a mut [HistoryRow], at: &mut usize, id: u32) -> Option<&'a mut HistoryRow> {
    while *at < jobs.len() && jobs[*at].record.id.0 < id {
        *at += 1;
    }
    jobs.get_mut(*at).filter(|j| j.record.id.0 == id)
}

/// Fills in each job's derived exit code, from all its steps.
fn attach_derived(
    conn: &Connection,
    conds: &str,
    jobs: &mut [HistoryRow],
) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT job_id, max(exit_code), max(exit_signal) FROM steps \
         WHERE job_id IN (SELECT id FROM jobs WHERE {conds}) GROUP BY job_id ORDER BY job_id"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)? as u32,
            r.get::<_, i32>(1)?,
            r.get::<_, i32>(2)?,
        ))
    })?;
    let mut at = 0;
    for row in rows {
        let (id, code, signal) = row?;
        if let Some(job) = job_at(jobs, &mut at, id) {
            job.derived = (code, signal);
        }
    }
    Ok(())
}

/// Reads the steps of the selected jobs that overlap the window (as
/// slurmdbd selects steps: started by its end, not ended before its start).
fn attach_steps(
    conn: &Connection,
    q: &HistoryQuery,
    conds: &str,
    jobs: &mut [HistoryRow],
) -> Result<(), StoreError> {
    let (start, end) = window(q);
    let mut stmt = conn.prepare(&format!(
        "SELECT {STEP_COLUMNS} FROM steps \
         WHERE job_id IN (SELECT id FROM jobs WHERE {conds}) \
         AND start_time <= {end} AND (end_time IS NULL OR end_time >= {start}) \
         ORDER BY job_id, start_time, step_id"
    ))?;
    let steps = stmt.query_map([], StepRow::from_row)?;
    // Both lists are in job id order: walk them together.
    let mut at = 0;
    for step in steps {
        let step = step?;
        if let Some(job) = job_at(jobs, &mut at, step.job_id) {
            job.steps.push(step);
        }
    }
    Ok(())
}

/// The window's bounds for SQL: Epoch 0 and no end when not given.
fn window(q: &HistoryQuery) -> (i64, i64) {
    let start = q.start.map_or(0, |t| t as i64);
    let end = q.end.map_or(i64::MAX, |t| t as i64);
    (start, end)
}

/// The WHERE clause, as slurmdbd builds it for sacct's job condition. Every
/// value is a number or a fixed state name, written inline.
fn conditions(q: &HistoryQuery) -> String {
    let mut sql = String::from("1");
    if !q.jobs.is_empty() {
        // `N` is job N and every task of array N; `N_i` one task.
        let mut any: Vec<String> = Vec::new();
        let whole: Vec<String> = q
            .jobs
            .iter()
            .filter(|j| j.array_task.is_none())
            .map(|j| j.job_id.to_string())
            .collect();
        if !whole.is_empty() {
            let ids = whole.join(",");
            any.push(format!("id IN ({ids}) OR array_job_id IN ({ids})"));
        }
        for j in &q.jobs {
            if let Some(task) = j.array_task {
                any.push(format!(
                    "(array_job_id = {} AND array_task_id = {task})",
                    j.job_id
                ));
            }
        }
        let _ = write!(sql, " AND ({})", any.join(" OR "));
    }
    if !q.uids.is_empty() {
        let uids: Vec<String> = q.uids.iter().map(u32::to_string).collect();
        let _ = write!(sql, " AND uid IN ({})", uids.join(","));
    }
    let (start, end) = window(q);
    if !q.states.is_empty() {
        let any: Vec<String> = q
            .states
            .iter()
            .map(|s| state_condition(*s, q.start.is_none() && q.end.is_none(), start, end))
            .collect();
        let _ = write!(sql, " AND ({})", any.join(" OR "));
    } else if !q.jobs.is_empty() {
        // An explicit list of jobs shows them even if never eligible.
        let _ = write!(
            sql,
            " AND submit_time < {end} AND (end_time >= {start} OR end_time IS NULL)"
        );
    } else if q.start.is_some() {
        let _ = write!(
            sql,
            " AND eligible_time IS NOT NULL AND eligible_time < {end} \
             AND (end_time >= {start} OR end_time IS NULL)"
        );
    } else if q.end.is_some() {
        let _ = write!(
            sql,
            " AND eligible_time IS NOT NULL AND eligible_time < {end}"
        );
    }
    sql
}

/// The state spur stores for an accounted state (None: spur never has it).
fn stored_state(s: AcctState) -> Option<&'static str> {
    spur_core::JobState::from_name(s.as_str()).map(spur_core::JobState::as_str)
}

/// Jobs that were in state `s` during the window (slurmdbd's
/// `_state_time_string`): pending jobs eligible before its end that had not
/// started (or ended) by its start, running jobs that started before its
/// end and had not ended by its start, and jobs that ended in that state
/// inside it. Without a window, the current state.
fn state_condition(s: AcctState, no_window: bool, start: i64, end: i64) -> String {
    let Some(name) = stored_state(s) else {
        return "0".into();
    };
    if no_window {
        return format!("state = '{name}'");
    }
    match s {
        AcctState::Pending => format!(
            "(eligible_time IS NOT NULL AND eligible_time < {end} AND \
             ((start_time IS NOT NULL AND start_time > {start}) OR \
              (start_time IS NULL AND end_time IS NOT NULL AND end_time > {start}) OR \
              (start_time IS NULL AND end_time IS NULL AND state = 'PENDING')))"
        ),
        AcctState::Running => format!(
            "(start_time IS NOT NULL AND start_time < {end} AND \
             (end_time > {start} OR (end_time IS NULL AND state = 'RUNNING')))"
        ),
        _ => format!("(state = '{name}' AND end_time BETWEEN {start} AND {end})"),
    }
}

#[cfg(test)]
mod tests;
