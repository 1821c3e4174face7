//! The schema, as an append-only list of migrations. Each runs once, in an
//! EXCLUSIVE transaction, and bumps `PRAGMA user_version`. Never edit or
//! remove a shipped migration: add a new one.

use rusqlite::{Connection, TransactionBehavior};

use super::StoreError;

/// Every migration, oldest first; index + 1 is the schema version it makes.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: jobs, counters, operator node states.
    "CREATE TABLE jobs (
        id INTEGER PRIMARY KEY,
        uid INTEGER NOT NULL,
        state TEXT NOT NULL,
        end_time INTEGER,
        record BLOB NOT NULL,
        meta BLOB NOT NULL,
        payload BLOB NOT NULL
     );
     CREATE INDEX jobs_end_time ON jobs (end_time);
     CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
     CREATE TABLE node_state (
        name TEXT PRIMARY KEY,
        drain INTEGER NOT NULL,
        down INTEGER NOT NULL,
        reason TEXT
     );",
    // 2: settings the controller must compare across restarts (the node
    // table, so that stored allocations follow their nodes by name).
    "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // 3: job history for sacct. The times its window selects on become
    // columns (filled from the stored records), with indexes for a window
    // over many finished jobs; srun steps get a table of their own (batch
    // steps are derived from their job's row).
    "ALTER TABLE jobs ADD COLUMN submit_time INTEGER;
     ALTER TABLE jobs ADD COLUMN eligible_time INTEGER;
     ALTER TABLE jobs ADD COLUMN start_time INTEGER;
     ALTER TABLE jobs ADD COLUMN array_job_id INTEGER;
     ALTER TABLE jobs ADD COLUMN array_task_id INTEGER;
     UPDATE jobs SET
        submit_time = json_extract(CAST(record AS TEXT), '$.submit_time'),
        eligible_time = json_extract(CAST(record AS TEXT), '$.eligible_time'),
        start_time = json_extract(CAST(record AS TEXT), '$.start_time'),
        array_job_id = json_extract(CAST(record AS TEXT), '$.array.array_job_id'),
        array_task_id = json_extract(CAST(record AS TEXT), '$.array.task_id');
     CREATE INDEX jobs_submit_time ON jobs (submit_time);
     CREATE INDEX jobs_array ON jobs (array_job_id, array_task_id);
     CREATE INDEX jobs_uid_end_time ON jobs (uid, end_time);
     CREATE TABLE steps (
        job_id INTEGER NOT NULL,
        step_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        state TEXT NOT NULL,
        exit_code INTEGER NOT NULL,
        exit_signal INTEGER NOT NULL,
        start_time INTEGER NOT NULL,
        end_time INTEGER,
        nodes TEXT NOT NULL,
        node_count INTEGER NOT NULL,
        ntasks INTEGER NOT NULL,
        ncpus INTEGER NOT NULL,
        tres TEXT NOT NULL,
        cancelled_by INTEGER,
        layout TEXT,
        user_cpu_us INTEGER NOT NULL,
        system_cpu_us INTEGER NOT NULL,
        PRIMARY KEY (job_id, step_id)
     );
     CREATE INDEX steps_start_time ON steps (start_time);",
    // 4: each user's fair-share usage (decayed to `at`), so that
    // priorities survive a restart.
    "CREATE TABLE usage (
        uid INTEGER PRIMARY KEY,
        usage REAL NOT NULL,
        at INTEGER NOT NULL
     );",
    // 5: each submission's idempotency key (a digest of its user and the
    // key it carried), so that a retried submission finds its job after a
    // restart too.
    "ALTER TABLE jobs ADD COLUMN submit_key BLOB;",
    // Scripts and environments in a table of their own: a job's row stays
    // small, and loading every job at a restart reads no script.
    "CREATE TABLE payloads (id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
     INSERT INTO payloads (id, payload) SELECT id, payload FROM jobs;
     ALTER TABLE jobs DROP COLUMN payload;",
    // 7: what each step used (the agents' accounting), merged node by
    // node; the batch step under Slurm's id for it.
    "CREATE TABLE step_usage (
        job_id INTEGER NOT NULL,
        step_id INTEGER NOT NULL,
        usage BLOB NOT NULL,
        PRIMARY KEY (job_id, step_id)
     );",
    // 8: the WireGuard mesh's members: each node's public key and mesh
    // address (the host part, an offset into MeshNetwork), kept across
    // restarts so that a node keeps its address.
    "CREATE TABLE mesh_members (
        node TEXT PRIMARY KEY,
        public_key BLOB NOT NULL,
        host INTEGER NOT NULL UNIQUE
     );",
];

/// Brings the schema up to date.
pub(super) fn apply(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Exclusive)?;
    let version: u32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let known = MIGRATIONS.len() as u32;
    if version > known {
        return Err(StoreError::TooNew {
            found: version,
            known,
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as u32 + 1)?;
    }
    tx.commit()?;
    Ok(())
}
