//! srun steps in the store: one row per step of a job, written when the
//! step starts and again when it ends, read back for sacct. Batch steps
//! (`N.batch`) have no row: they are derived from their job's row. This
//! module does not decide when steps start or end; the controller does.

use rusqlite::types::Value;
use rusqlite::Row;
use spur_core::JobState;
use spur_proto::Tres;
use tracing::warn;

use super::{StoreError, Turn};

/// One srun step as the history keeps it (the `steps` table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRow {
    /// The job.
    pub job_id: u32,
    /// The step: 0, 1, ... (Slurm's special ids such as batch are not
    /// stored).
    pub step_id: u32,
    /// Its name (`srun -J`, else the program's).
    pub name: String,
    /// Its state: RUNNING while it runs, then how it ended.
    pub state: JobState,
    /// The highest exit code of its tasks.
    pub exit_code: i32,
    /// The signal that ended one of its tasks (0: none).
    pub exit_signal: i32,
    /// When it started, Unix seconds.
    pub start_time: u64,
    /// When it ended (None while it runs).
    pub end_time: Option<u64>,
    /// Its nodes, as a hostlist (`gb[001-002]`).
    pub nodes: String,
    /// How many nodes.
    pub node_count: u32,
    /// How many tasks.
    pub ntasks: u32,
    /// CPUs allocated to it.
    pub ncpus: u32,
    /// Its resources, stored as [`Tres::step_text`] writes them
    /// (`cpu=8,gres/gpu=8,mem=32G,node=2`).
    pub tres: Tres,
    /// Who cancelled it, when it was cancelled (`CANCELLED by N`).
    pub cancelled_by: Option<u32>,
    /// Its task layout (`Block`, `Cyclic`, ...), if known.
    pub layout: Option<String>,
    /// User CPU time of its tasks, microseconds (0: not measured).
    pub user_cpu_us: u64,
    /// System CPU time of its tasks, microseconds (0: not measured).
    pub system_cpu_us: u64,
}

/// The columns, in [`StepRow::from_row`]'s order.
pub(super) const STEP_COLUMNS: &str = "job_id, step_id, name, state, exit_code, exit_signal, \
     start_time, end_time, nodes, node_count, ntasks, ncpus, tres, cancelled_by, layout, \
     user_cpu_us, system_cpu_us";

impl StepRow {
    /// Reads a row selected with [`STEP_COLUMNS`].
    pub(super) fn from_row(r: &Row<'_>) -> rusqlite::Result<StepRow> {
        let state: String = r.get(3)?;
        let state = JobState::from_name(&state).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                3,
                rusqlite::types::Type::Text,
                format!("unknown step state {state:?}").into(),
            )
        })?;
        Ok(StepRow {
            job_id: r.get::<_, i64>(0)? as u32,
            step_id: r.get::<_, i64>(1)? as u32,
            name: r.get(2)?,
            state,
            exit_code: r.get(4)?,
            exit_signal: r.get(5)?,
            start_time: r.get::<_, i64>(6)? as u64,
            end_time: r.get::<_, Option<i64>>(7)?.map(|t| t as u64),
            nodes: r.get(8)?,
            node_count: r.get(9)?,
            ntasks: r.get(10)?,
            ncpus: r.get(11)?,
            tres: stored_tres(r)?,
            cancelled_by: r.get(13)?,
            layout: r.get(14)?,
            user_cpu_us: r.get::<_, i64>(15)? as u64,
            system_cpu_us: r.get::<_, i64>(16)? as u64,
        })
    }
}

/// A row's TRES column; one that does not read back (a store written by
/// hand) is its CPUs and nodes, with a warning.
fn stored_tres(r: &Row<'_>) -> rusqlite::Result<Tres> {
    let text: String = r.get(12)?;
    if let Some(tres) = Tres::parse(&text) {
        return Ok(tres);
    }
    let (job, step) = (r.get::<_, i64>(0)?, r.get::<_, i64>(1)?);
    warn!(job, step, tres = %text, "stored step TRES does not parse");
    Ok(Tres {
        cpus: r.get(11)?,
        nodes: r.get(9)?,
        ..Tres::default()
    })
}

impl super::Store {
    /// Steps recorded as started and not ended: those a controller that
    /// stopped left running.
    pub fn unended_steps(&self) -> Result<Vec<StepRow>, StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {STEP_COLUMNS} FROM steps WHERE end_time IS NULL ORDER BY job_id, step_id"
        ))?;
        let rows = stmt.query_map([], StepRow::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

// Called by the controller as srun steps start and end.
impl Turn<'_> {
    /// Records a step as it starts, and again as it ends: a step already
    /// recorded under the same job and step id is replaced (a requeued job
    /// numbers its steps anew).
    pub fn insert_step(&self, step: &StepRow) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO steps ({STEP_COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, \
                 ?16, ?17)"
            ))?
            .execute(step_params(step))?;
        Ok(())
    }
}

/// The step's columns as owned values, in [`STEP_COLUMNS`]' order (more
/// than rusqlite's tuples take).
fn step_params(s: &StepRow) -> rusqlite::ParamsFromIter<Vec<Value>> {
    let opt = |v: Option<i64>| v.map_or(Value::Null, Value::Integer);
    let text = |v: &Option<String>| v.clone().map_or(Value::Null, Value::Text);
    rusqlite::params_from_iter(vec![
        Value::Integer(i64::from(s.job_id)),
        Value::Integer(i64::from(s.step_id)),
        Value::Text(s.name.clone()),
        Value::Text(s.state.as_str().to_string()),
        Value::Integer(i64::from(s.exit_code)),
        Value::Integer(i64::from(s.exit_signal)),
        Value::Integer(s.start_time as i64),
        opt(s.end_time.map(|t| t as i64)),
        Value::Text(s.nodes.clone()),
        Value::Integer(i64::from(s.node_count)),
        Value::Integer(i64::from(s.ntasks)),
        Value::Integer(i64::from(s.ncpus)),
        Value::Text(s.tres.step_text()),
        opt(s.cancelled_by.map(i64::from)),
        text(&s.layout),
        Value::Integer(s.user_cpu_us as i64),
        Value::Integer(s.system_cpu_us as i64),
    ])
}
