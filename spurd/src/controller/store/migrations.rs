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
