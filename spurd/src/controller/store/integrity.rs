//! Whether the state database can be trusted before the controller starts
//! from it: a file that is empty, damaged, of a newer schema, or missing
//! the write-ahead log that held its latest commits is refused with the
//! file, the fault and the way back named, never started from (which
//! would forget every job). A marker in the database file itself says
//! whether the controller that last had it open stopped cleanly: if not,
//! its log must be there.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, ErrorCode as SqliteCode, OptionalExtension};

use super::StoreError;

/// What the refusal says to do.
pub const RECOVERY: &str = "spurd will not start from it (it would forget every job it \
holds). Put back a copy made while the controller ran (`spurd controller --backup FILE` \
makes one; `spurd controller --restore FILE` puts it in place), or move the state folder's \
spur-state.db* files aside to start a new, empty cluster";

/// The file SQLite keeps beside the database at `db` (`-wal`, `-shm`).
pub fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The write-ahead log of the database at `db`.
pub fn wal_of(db: &Path) -> PathBuf {
    beside(db, "-wal")
}

fn unusable(db: &Path, fault: impl Into<String>) -> StoreError {
    StoreError::Unusable {
        path: db.to_path_buf(),
        fault: fault.into(),
    }
}

/// What can be told of the files before SQLite opens them (opening
/// makes a missing log and an empty database). Returns whether the log was
/// there.
pub fn before_open(db: &Path) -> Result<bool, StoreError> {
    let wal = wal_of(db);
    let wal_there = wal.exists();
    match std::fs::metadata(db) {
        Ok(m) if m.len() == 0 => Err(unusable(
            db,
            "the file is empty (0 bytes); if this is a new cluster whose first start was \
             cut short, remove it",
        )),
        Ok(_) => Ok(wal_there),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if wal_there {
                Err(unusable(
                    db,
                    format!(
                        "the file is missing, but its write-ahead log {} is there",
                        wal.display()
                    ),
                ))
            } else {
                Ok(false)
            }
        }
        Err(e) => Err(unusable(db, format!("cannot be read: {e}"))),
    }
}

/// A SQLite error on opening or checking, as the fault it shows.
pub fn fault_of(db: &Path, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(SqliteCode::NotADatabase) => unusable(
            db,
            "it is not a spur state database (its SQLite header is damaged or it is another file)",
        ),
        Some(SqliteCode::DatabaseCorrupt) => unusable(db, format!("the database is damaged ({e})")),
        _ => StoreError::Sqlite(e),
    }
}

/// Refuses an SQLite database of another program: tables, but no spur
/// schema version.
pub fn check_foreign(conn: &Connection, db: &Path) -> Result<(), StoreError> {
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| fault_of(db, e))?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .map_err(|e| fault_of(db, e))?;
    if version == 0 && tables > 0 {
        return Err(unusable(
            db,
            "it is an SQLite database of another program (tables, but no spur schema)",
        ));
    }
    Ok(())
}

/// SQLite's own check of every page's structure (`PRAGMA quick_check`).
pub fn check_pages(conn: &Connection, db: &Path) -> Result<(), StoreError> {
    quick_check(conn, db, "PRAGMA quick_check(5)")
}

/// The tables a restart reads every row of; the rest (the jobs' scripts
/// and environments, read one at a launch) is checked by
/// [`check_other_tables`].
const RESTORED: &[&str] = &["jobs", "meta", "settings", "usage", "node_state", "steps"];

/// The check of [`check_pages`], of the tables a restart reads (and their
/// indexes) only.
pub fn check_restored_tables(conn: &Connection, db: &Path) -> Result<(), StoreError> {
    for table in RESTORED {
        quick_check(conn, db, &format!("PRAGMA quick_check('{table}')"))?;
    }
    Ok(())
}

/// The check of [`check_pages`], of every table [`check_restored_tables`]
/// leaves out.
pub fn check_other_tables(conn: &Connection, db: &Path) -> Result<(), StoreError> {
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(|e| fault_of(db, e))?;
    for table in tables.iter().filter(|t| !RESTORED.contains(&t.as_str())) {
        quick_check(conn, db, &format!("PRAGMA quick_check('{table}')"))?;
    }
    Ok(())
}

fn quick_check(conn: &Connection, db: &Path, sql: &str) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(sql).map_err(|e| fault_of(db, e))?;
    let found: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .and_then(|rows| rows.collect())
        .map_err(|e| fault_of(db, e))?;
    if found == ["ok"] {
        Ok(())
    } else {
        Err(unusable(
            db,
            format!("the database is damaged ({})", found.join("; ")),
        ))
    }
}

/// Checks the clean-stop marker against the log's presence: a database
/// whose controller did not stop cleanly needs its log.
pub fn check_log(conn: &Connection, db: &Path, wal_was_there: bool) -> Result<(), StoreError> {
    let open: Option<i64> = conn
        .query_row("SELECT value FROM meta WHERE key = 'open'", [], |r| {
            r.get(0)
        })
        .optional()?;
    if open == Some(1) && !wal_was_there {
        return Err(unusable(
            db,
            format!(
                "the controller that had it open did not stop cleanly, and its write-ahead \
                 log {} (which held the latest commits) is missing",
                wal_of(db).display()
            ),
        ));
    }
    Ok(())
}

/// Marks the database open, in the database file itself (a checkpoint
/// moves it out of the log), so that a log lost after a crash is noticed
/// next time.
pub fn mark_open(conn: &Connection) -> Result<(), StoreError> {
    set_open(conn, true)?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    Ok(())
}

/// Records whether a controller has the database open.
pub fn set_open(conn: &Connection, open: bool) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('open', ?1) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![i64::from(open)],
    )?;
    Ok(())
}
