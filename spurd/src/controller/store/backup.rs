//! Copies of the state database: a consistent copy made while the
//! controller runs (`VACUUM INTO` from a reader's snapshot, so the writer
//! never waits for it), and such a copy put in place of the state folder's
//! database while no controller runs (the files it replaces are kept
//! beside it, never deleted).

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::{integrity, migrations, Reader, StoreError, STATE_FILE};

/// What a copy holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copied {
    /// Jobs in it.
    pub jobs: u64,
    /// Its size.
    pub bytes: u64,
}

fn refused(path: &Path, why: impl Into<String>) -> StoreError {
    StoreError::Copy {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

impl Reader {
    /// Writes a consistent copy of the database to `to` (a new file): one
    /// self-contained file, marked closed, that
    /// [`restore`] puts back.
    pub fn backup_into(&self, to: &Path) -> Result<Copied, StoreError> {
        if !to.is_absolute() {
            return Err(refused(to, "the path must be absolute"));
        }
        let name = to
            .to_str()
            .ok_or_else(|| refused(to, "the path is not UTF-8"))?;
        // Every user's scripts and environments are in it: made new, for
        // the controller's user alone (VACUUM INTO fills an empty file).
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(to)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => refused(to, "the file exists; name a new one"),
                _ => refused(to, e.to_string()),
            })?;
        if let Err(e) = self.conn.execute("VACUUM INTO ?1", [name]) {
            let _ = std::fs::remove_file(to);
            return Err(refused(to, e.to_string()));
        }
        let copy = Connection::open(to)?;
        copy.pragma_update(None, "journal_mode", "DELETE")?;
        integrity::set_open(&copy, false)?;
        seal(copy, to)
    }
}

/// Closes a copy and tells what it holds.
fn seal(copy: Connection, path: &Path) -> Result<Copied, StoreError> {
    let jobs: i64 = copy.query_row("SELECT count(*) FROM jobs", [], |r| r.get(0))?;
    copy.close().map_err(|(_, e)| e)?;
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| refused(path, e.to_string()))?;
    let bytes = std::fs::metadata(path)
        .map_err(|e| refused(path, e.to_string()))?
        .len();
    Ok(Copied {
        jobs: jobs as u64,
        bytes,
    })
}

/// Checks that `from` is a whole spur state database this build can run.
fn check_copy(from: &Path) -> Result<(), StoreError> {
    let conn = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| integrity::fault_of(from, e))?;
    integrity::check_pages(&conn, from)?;
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| integrity::fault_of(from, e))?;
    let known = migrations::MIGRATIONS.len() as u32;
    if version == 0 || version > known {
        return Err(refused(
            from,
            format!("it is not a state database this spurd can run (schema {version}, knows 1 to {known})"),
        ));
    }
    Ok(())
}

/// Puts the copy `from` in place as the database of the state folder
/// `dir` (no controller may run on it). The files it replaces are renamed
/// with a `.replaced-<unix time>` suffix; returns what the copy holds and
/// those names.
pub fn restore(from: &Path, dir: &Path) -> Result<Restored, StoreError> {
    check_copy(from)?;
    std::fs::create_dir_all(dir).map_err(|e| refused(dir, e.to_string()))?;
    let db = dir.join(STATE_FILE);
    let db_existed = db.exists();
    let fresh = dir.join(format!("{STATE_FILE}.restoring"));
    std::fs::copy(from, &fresh).map_err(|e| refused(&fresh, e.to_string()))?;
    let copy = Connection::open(&fresh)?;
    copy.pragma_update(None, "journal_mode", "DELETE")?;
    integrity::set_open(&copy, false)?;
    // Ids the replaced database handed out after the copy was made must
    // not be handed out again: its counter wins where it can be read.
    let counter = next_job_id(&db);
    if let Some(next) = counter {
        copy.execute(
            "INSERT INTO meta (key, value) VALUES ('next_job_id', ?1) \
             ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
            [next],
        )?;
    }
    let next_id: i64 = copy
        .query_row(
            "SELECT value FROM meta WHERE key = 'next_job_id'",
            [],
            |r| r.get(0),
        )
        .unwrap_or(1);
    let copied = seal(copy, &fresh)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut kept = Vec::new();
    for old in [
        db.clone(),
        integrity::wal_of(&db),
        integrity::beside(&db, "-shm"),
    ] {
        if old.exists() {
            let mut aside = old.clone().into_os_string();
            aside.push(format!(".replaced-{stamp}"));
            let aside = PathBuf::from(aside);
            std::fs::rename(&old, &aside).map_err(|e| refused(&old, e.to_string()))?;
            kept.push(aside);
        }
    }
    std::fs::rename(&fresh, &db).map_err(|e| refused(&db, e.to_string()))?;
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| refused(dir, e.to_string()))?;
    Ok(Restored {
        copied,
        kept,
        next_id: next_id.max(1) as u32,
        counter_read: counter.is_some() || !db_existed,
    })
}

/// What a restore did.
#[derive(Debug, Clone)]
pub struct Restored {
    /// What the copy holds.
    pub copied: Copied,
    /// The files it replaced, renamed.
    pub kept: Vec<PathBuf>,
    /// The next job id the controller hands out.
    pub next_id: u32,
    /// Whether the replaced database's counter was read (or there was no
    /// database), so that no id it handed out is handed out again.
    pub counter_read: bool,
}

/// The job id counter of a database that may be damaged, if it can be
/// read at all (with its log, if it has one: a read-only connection could
/// not open the log).
fn next_job_id(db: &Path) -> Option<i64> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE).ok()?;
    conn.query_row(
        "SELECT value FROM meta WHERE key = 'next_job_id'",
        [],
        |r| r.get(0),
    )
    .ok()
}
