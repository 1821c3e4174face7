//! The controller's state in SQLite: every SQL statement of spur lives under
//! this module. One writer connection, WAL, synchronous=FULL: a turn's
//! changes are one transaction, and nothing is announced before it commits.
//! Migrations are an append-only list keyed by `PRAGMA user_version`.

pub mod backup;
mod history;
pub mod integrity;
mod mesh;
mod migrations;
mod retention;
mod step;
mod usage;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};
use spur_core::JobRecord;
use thiserror::Error;

pub use self::history::{HistoryRow, Reader};
pub use self::mesh::StoredMember;
pub use self::step::StepRow;

/// The state file inside StateSaveLocation.
pub const STATE_FILE: &str = "spur-state.db";

/// A store operation that failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    /// SQLite failed.
    #[error("state database error")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored row does not decode.
    #[error("job {job} is stored in a form this version cannot read")]
    Decode {
        /// The job.
        job: u32,
        /// Why.
        #[source]
        source: RowError,
    },
    /// A row could not be encoded.
    #[error("job {job} cannot be encoded")]
    Encode {
        /// The job.
        job: u32,
        /// Why.
        #[source]
        source: RowError,
    },
    /// A mesh member's stored key is not a WireGuard key.
    #[error("mesh member {node} is stored with a key of {len} bytes, not 32")]
    MeshKey {
        /// The member.
        node: String,
        /// The stored key's length.
        len: usize,
    },
    /// The database is newer than this build.
    #[error("state database schema {found} is newer than this spurd (knows {known})")]
    TooNew {
        /// user_version found.
        found: u32,
        /// The newest this build knows.
        known: u32,
    },
    /// A copy of the database could not be made or put back.
    #[error("{}: {why}", path.display())]
    Copy {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        why: String,
    },
    /// The database cannot be trusted: the controller must not start from
    /// it.
    #[error("{}: {fault}. {}", path.display(), integrity::RECOVERY)]
    Unusable {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        fault: String,
    },
    /// A thread the store works on could not be started.
    #[error("cannot start a thread to {what}")]
    Thread {
        /// What it was to do.
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Why a stored row could not be read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RowError {
    /// A row in bincode.
    #[error("binary row: {0}")]
    Binary(#[source] bincode::Error),
    /// A row in JSON.
    #[error("JSON row: {0}")]
    Json(#[source] serde_json::Error),
    /// A row in a layout this build does not know (written by a newer
    /// spurd).
    #[error("binary row of layout {0}, newer than this spurd's {ROW_LAYOUT}")]
    Layout(u8),
}

/// What the controller keeps about a job beyond the core's record, in
/// memory (everything except script and environment). Kept for every job
/// the controller holds, so it is lean: names many jobs repeat are shared
/// ([`Names`]), other texts are boxed `str`s (no spare capacity).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JobMeta {
    /// The owner's primary gid.
    pub gid: u32,
    /// The owner's name.
    #[serde(deserialize_with = "shared_name")]
    pub user_name: Arc<str>,
    /// The group's name.
    #[serde(deserialize_with = "shared_name")]
    pub group_name: Arc<str>,
    /// The working directory.
    pub work_dir: Box<str>,
    /// `-o` as given (None: default pattern).
    pub stdout: Option<Box<str>>,
    /// `-e` as given.
    pub stderr: Option<Box<str>>,
    /// `-i` as given.
    pub stdin: Option<Box<str>>,
    /// `--open-mode=append`.
    pub append: bool,
    /// `--comment`.
    pub comment: Option<Box<str>>,
    /// The submit host.
    #[serde(deserialize_with = "shared_name")]
    pub submit_host: Arc<str>,
    /// The script's path as submitted (None for `--wrap` and stdin).
    pub command: Option<Box<str>>,
    /// `--signal=B:...`: only the batch shell gets the signal.
    pub signal_batch_only: bool,
    /// Options stored but not acted on.
    pub unacted: Vec<String>,
    /// The nodes of its last allocation, as a hostlist (kept after it
    /// ends, for squeue and scontrol).
    pub nodes: Option<Box<str>>,
    /// The id its next step gets.
    pub next_step: u32,
    /// An allocation salloc or srun holds: no batch script.
    pub interactive: bool,
    /// Its batch host confirmed the launch (FromAgent::Launched).
    pub launched: bool,
    /// The partition it runs (or waits) in, as resolved (None: written
    /// before spur kept it; the first one asked for applies).
    #[serde(deserialize_with = "shared_name_or_none")]
    pub partition: Option<Arc<str>>,
    /// What it asked for, as accounting counts it (ReqTRES).
    pub requested: Option<TresCount>,
    /// What it was given when it last started (AllocTRES), kept after it
    /// ends (boxed: a pending job, most of the queue, has none).
    pub allocated: Option<Box<AllocRecord>>,
    /// Who cancelled it (`CANCELLED by N`).
    pub cancelled_by: Option<u32>,
}

impl JobMeta {
    /// The same metadata with its repeated names shared through `names`.
    pub fn share_names(&mut self, names: &mut Names) {
        self.user_name = names.get(&self.user_name);
        self.group_name = names.get(&self.group_name);
        self.submit_host = names.get(&self.submit_host);
        if let Some(p) = &self.partition {
            self.partition = Some(names.get(p));
        }
    }

    /// The partition of a job: as resolved, else the first it asked for.
    pub fn partition_of<'a>(&'a self, record: &'a JobRecord) -> &'a str {
        self.partition
            .as_deref()
            .or(record.spec.partitions.first().map(String::as_str))
            .unwrap_or_default()
    }
}

/// One shared copy of each name jobs repeat: owners, groups, submit hosts,
/// partitions. A cluster has few of each, so the set stays small while
/// every job's metadata points into it.
#[derive(Debug, Default)]
pub struct Names {
    all: std::collections::HashSet<Arc<str>>,
    /// The last few asked for, compared before any hashing: jobs come in
    /// runs of one owner, group, host and partition.
    recent: Vec<Arc<str>>,
    /// The entry of `recent` the next new one replaces.
    next: usize,
}

/// How many names [`Names`] keeps at hand.
const RECENT_NAMES: usize = 8;

std::thread_local! {
    /// The names that metadata decoded on this thread takes its own from,
    /// while [`Names::sharing`] runs.
    static SHARING: std::cell::RefCell<Option<Names>> = const { std::cell::RefCell::new(None) };
}

/// A name of [`JobMeta`], decoded as the shared copy while
/// [`Names::sharing`] runs (no copy of its own made, then dropped), else
/// as a copy.
struct SharedName(Arc<str>);

impl<'de> Deserialize<'de> for SharedName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SharedName, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = SharedName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a name")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<SharedName, E> {
                let shared = SHARING.with_borrow_mut(|names| match names {
                    Some(names) => names.get(name),
                    None => name.into(),
                });
                Ok(SharedName(shared))
            }
        }
        d.deserialize_str(Text)
    }
}

fn shared_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
    SharedName::deserialize(d).map(|n| n.0)
}

fn shared_name_or_none<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Arc<str>>, D::Error> {
    Option::<SharedName>::deserialize(d).map(|n| n.map(|n| n.0))
}

impl Names {
    /// Runs `f`, in which metadata decoded on this thread takes its names
    /// from these.
    pub fn sharing<T>(&mut self, f: impl FnOnce() -> T) -> T {
        SHARING.set(Some(std::mem::take(self)));
        let out = f();
        *self = SHARING.take().unwrap_or_default();
        out
    }

    /// The shared copy of `name`.
    pub fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(hit) = self.recent.iter().find(|r| ***r == *name) {
            return hit.clone();
        }
        let shared = match self.all.get(name) {
            Some(shared) => shared.clone(),
            None => {
                let shared: Arc<str> = name.into();
                self.all.insert(shared.clone());
                shared
            }
        };
        if self.recent.len() < RECENT_NAMES {
            self.recent.push(shared.clone());
        } else {
            self.recent[self.next] = shared.clone();
            self.next = (self.next + 1) % RECENT_NAMES;
        }
        shared
    }
}

/// Trackable resources as accounting counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TresCount {
    /// CPUs.
    pub cpus: u32,
    /// Memory, MiB.
    pub mem_mb: u64,
    /// Nodes.
    pub nodes: u32,
    /// GPUs.
    pub gpus: u32,
}

/// A job's allocation when it started: all of it, and the part on the
/// node that runs its batch script (the batch step's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AllocRecord {
    /// Every node's resources together.
    pub total: TresCount,
    /// The first node's.
    pub batch_host: TresCount,
    /// Its priority when it started.
    pub priority: u32,
}

/// The parts of a batch job only its launch needs, kept on disk only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JobPayload {
    /// The script.
    pub script: String,
    /// Its arguments.
    pub argv: Vec<String>,
    /// The environment.
    pub env: Vec<(String, String)>,
}

/// A job as loaded at startup.
#[derive(Debug, Clone)]
pub struct StoredJob {
    /// The core's record.
    pub record: JobRecord,
    /// The controller's extras.
    pub meta: JobMeta,
    /// The digest of its submission's idempotency key, if it had one.
    pub submit_key: Option<SubmitKey>,
}

/// The digest of a submission's idempotency key and its user (see
/// `controller::submit_key`).
pub type SubmitKey = u128;

/// A node's operator-set state, which survives restarts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeOverride {
    /// NodeName.
    pub name: String,
    /// DRAIN set.
    pub drain: bool,
    /// DOWN set by an operator.
    pub down: bool,
    /// The reason.
    pub reason: Option<String>,
}

/// The state database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// Whether the database file carries the open marker (a file, not one
    /// in memory), to be cleared as the store closes.
    marked_open: bool,
    /// The check of every page, while it runs beside the first reads.
    check: Option<PendingCheck>,
}

/// SQLite's check of a database's pages, on a thread of its own with a
/// read-only connection, in two stages: the tables a restart reads every
/// row of, then the rest (scripts and environments). A restart loads its
/// jobs while the first stage runs and serves nothing before it passed;
/// the second starts once the jobs are loaded (it would take a core from
/// the load), and the first write waits for it.
#[derive(Debug)]
struct PendingCheck {
    /// Each stage's result, in order.
    stages: std::sync::mpsc::Receiver<Result<(), StoreError>>,
    /// Dropped to let the second stage start.
    hold_rest: Option<std::sync::mpsc::Sender<()>>,
    /// How many stages have passed.
    passed: usize,
    path: std::path::PathBuf,
    /// Whether the log was there when the database was opened, until the
    /// log has been checked.
    log_unchecked: Option<bool>,
    /// What the check found wrong, once it has.
    fault: Option<String>,
}

impl PendingCheck {
    const STAGES: usize = 2;

    fn start(path: &Path, wal_was_there: bool) -> Result<PendingCheck, StoreError> {
        let (tx, stages) = std::sync::mpsc::channel();
        let (hold_rest, rest_held) = std::sync::mpsc::channel::<()>();
        let checked = path.to_path_buf();
        let check = move || {
            let started = std::time::Instant::now();
            let conn = match Connection::open_with_flags(
                &checked,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            ) {
                Ok(conn) => conn,
                Err(e) => return drop(tx.send(Err(integrity::fault_of(&checked, e)))),
            };
            let first = integrity::check_restored_tables(&conn, &checked);
            tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                ok = first.is_ok(),
                "pages of the tables a restart reads checked"
            );
            let failed = first.is_err();
            if tx.send(first).is_err() || failed {
                return;
            }
            // Nothing is ever sent: this returns once the sender is gone.
            let _ = rest_held.recv();
            // The rest (scripts, environments: most of the file) holds up
            // only the first write: it yields to the threads that answer.
            if let Err(e) = spur_sys::background_thread() {
                tracing::debug!(error = %e, "the page check keeps its priority");
            }
            let rest = integrity::check_other_tables(&conn, &checked);
            tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                ok = rest.is_ok(),
                "every page checked"
            );
            // Closed before the check reports its end: once it has, this
            // connection holds no lock nor the log.
            drop(conn);
            let _ = tx.send(rest);
        };
        std::thread::Builder::new()
            .name("spur-check".into())
            .spawn(check)
            .map_err(|source| StoreError::Thread {
                what: "check the state database's pages",
                source,
            })?;
        Ok(PendingCheck {
            stages,
            hold_rest: Some(hold_rest),
            passed: 0,
            path: path.to_path_buf(),
            log_unchecked: Some(wal_was_there),
            fault: None,
        })
    }

    /// Waits until `stages` stages have passed, or one failed.
    fn wait(&mut self, stages: usize) -> Result<(), StoreError> {
        if stages > 1 {
            self.hold_rest = None;
        }
        while self.passed < stages {
            match self.stages.recv() {
                Ok(Ok(())) => self.passed += 1,
                Ok(Err(e)) => {
                    // Every later write is refused with the same finding.
                    if let StoreError::Unusable { fault, .. } = &e {
                        self.fault = Some(fault.clone());
                    }
                    return Err(e);
                }
                Err(_) => {
                    return Err(StoreError::Unusable {
                        path: self.path.clone(),
                        fault: self
                            .fault
                            .clone()
                            .unwrap_or_else(|| "the check of its pages failed".into()),
                    })
                }
            }
        }
        Ok(())
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if self.check.is_some() {
            // Stopped before its first write: the files stay as they were
            // found. Closing would fold a log left by an earlier crash into
            // the database file, still marked open, and remove the log,
            // and the next start would refuse the state for the log it
            // lacks.
            if let Ok(spare) = Connection::open_in_memory() {
                std::mem::forget(std::mem::replace(&mut self.conn, spare));
            }
            return;
        }
        if self.marked_open {
            if let Err(e) = integrity::set_open(&self.conn, false) {
                tracing::warn!(error = %e, "cannot mark the state database closed; its log is kept");
                // Closing would fold the log into the database file and
                // remove it, leaving a file marked open without its log,
                // which the next start refuses. Left open, the log stays.
                if let Ok(spare) = Connection::open_in_memory() {
                    std::mem::forget(std::mem::replace(&mut self.conn, spare));
                }
            }
        }
    }
}

// A job's record, extras and payload are stored in bincode behind a
// two-byte prefix naming the layout: a restart decodes every live job, and
// bincode does it several times faster than JSON. The layout is the types'
// fields in order: changing any of them (core's JobRecord and what it
// holds, JobMeta, JobPayload) needs a new ROW_LAYOUT and a decoder of the
// old one, as Slurm keeps unpack functions per protocol version. The test
// `the_stored_layout_is_pinned` fails when a change was not marked so.
// Rows written as JSON (by spurd before this layout, and any JSON row:
// they begin with `{`) still read, a later field taking its default.

/// SQLite's page cache per connection (`PRAGMA cache_size`: negative is
/// KiB). The kernel's page cache holds the file already; SQLite's own only
/// needs the pages a turn or a query walks more than once (the b-trees'
/// upper levels and their right edges, where new rows go). Its default, up
/// to 2 MiB per connection, held 2.2 MB of the controller's 29 MB with
/// 10,000 jobs.
pub(super) const CACHE_SIZE: i64 = -512;

/// The first byte of a row in bincode (JSON rows begin with `{`).
const ROW_BINARY: u8 = 0xB1;
/// The layout of rows in bincode this build writes and reads.
const ROW_LAYOUT: u8 = 1;

fn encode<T: Serialize>(job: u32, value: &T) -> Result<Vec<u8>, StoreError> {
    let mut row = vec![ROW_BINARY, ROW_LAYOUT];
    bincode::serialize_into(&mut row, value).map_err(|source| StoreError::Encode {
        job,
        source: RowError::Binary(source),
    })?;
    Ok(row)
}

/// Column `i` of `row` as the bytes SQLite holds (a blob, or text), None
/// for NULL: borrowed, not copied.
/// How many decoded jobs go from the reading thread to the restoring one
/// at a time, and how many such batches may wait.
const LOAD_BATCH: usize = 512;
const LOAD_BATCHES: usize = 4;

/// The jobs [`Store::each_job`] reads, read and decoded on `conn`.
fn read_jobs(
    conn: &Connection,
    ended_since: u64,
    names: &mut Names,
    mut each: impl FnMut(StoredJob),
) -> Result<usize, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, record, meta, submit_key FROM jobs \
         WHERE end_time IS NULL OR end_time >= ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([ended_since as i64])?;
    let mut count = 0;
    // Each row decoded from SQLite's own buffers, copied nowhere first.
    while let Some(r) = rows.next()? {
        let id = r.get::<_, i64>(0)? as u32;
        let key = bytes(r, 3)?;
        let meta = names.sharing(|| decode(id, bytes(r, 2)?.unwrap_or_default()))?;
        each(StoredJob {
            record: decode(id, bytes(r, 1)?.unwrap_or_default())?,
            meta,
            // Anything but 16 bytes was not written by spur: no key.
            submit_key: key
                .and_then(|k| <[u8; 16]>::try_from(k).ok())
                .map(u128::from_le_bytes),
        });
        count += 1;
    }
    Ok(count)
}

fn bytes<'r>(row: &'r rusqlite::Row<'_>, i: usize) -> Result<Option<&'r [u8]>, StoreError> {
    let value = row.get_ref(i)?;
    let kind = value.data_type();
    value.as_bytes_or_null().map_err(|e| {
        StoreError::from(rusqlite::Error::FromSqlConversionFailure(
            i,
            kind,
            Box::new(e),
        ))
    })
}

fn decode<T: for<'de> Deserialize<'de>>(job: u32, bytes: &[u8]) -> Result<T, StoreError> {
    let decoded = match bytes {
        [ROW_BINARY, ROW_LAYOUT, rest @ ..] => bincode::deserialize(rest).map_err(RowError::Binary),
        [ROW_BINARY, layout, ..] => Err(RowError::Layout(*layout)),
        _ => serde_json::from_slice(bytes).map_err(RowError::Json),
    };
    decoded.map_err(|source| StoreError::Decode { job, source })
}

/// Makes the database, its log and its shared-memory index readable by
/// the controller's user alone: they hold every user's scripts and
/// environments, and StateSaveLocation is often world-readable (Debian's
/// /var/spool/slurmctld is 0755; slurmctld keeps its own job state 0600).
/// SQLite makes a new log with the database's mode. A file that cannot be
/// changed is warned about, not refused.
fn keep_private(db: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for file in [
        db.to_path_buf(),
        integrity::wal_of(db),
        integrity::beside(db, "-shm"),
    ] {
        let Ok(meta) = std::fs::metadata(&file) else {
            continue;
        };
        if meta.permissions().mode() & 0o077 == 0 {
            continue;
        }
        if let Err(e) = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)) {
            tracing::warn!(path = %file.display(), error = %e, "cannot make the state file private");
        }
    }
}

/// A SQLite error on the way in, as a fault of the file.
fn of_file(path: &Path, e: StoreError) -> StoreError {
    match e {
        StoreError::Sqlite(e) => integrity::fault_of(path, e),
        other => other,
    }
}

/// The array's id and the task's index of an array task, for sacct's
/// `-j N` and `-j N_i`.
fn array_ids(record: &JobRecord) -> (Option<i64>, Option<i64>) {
    let array = record.array.as_ref();
    (
        array.map(|a| i64::from(a.array_job_id().0)),
        array.and_then(|a| a.task_id()).map(i64::from),
    )
}

/// When a job became eligible to run, for sacct's window: a job held
/// while it waits is not eligible (slurmdbd's `time_eligible` is 0 then).
fn eligible_time(record: &JobRecord) -> Option<i64> {
    let held = record.state == spur_core::JobState::Pending && record.hold.is_some();
    (!held).then_some(record.eligible_time as i64)
}

impl Store {
    /// Opens (creating and migrating) the database in `dir`, after making
    /// sure it can be trusted ([`integrity`]): an empty, damaged or newer
    /// database, or one whose write-ahead log went missing after a crash,
    /// is refused with [`StoreError::Unusable`]. (The controller opens it
    /// with [`Store::open_checking`].)
    #[cfg(test)]
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let mut store = Store::open_checking(dir)?;
        store.verified()?;
        Ok(store)
    }

    /// Opens (creating and migrating) the database in `dir`, leaving its
    /// check of every page ([`integrity`]) running on another thread:
    /// reads may go on at once, [`Store::readable`] waits for the tables a
    /// restart reads, the first write waits for the whole check, and
    /// [`Store::verified`] says how it ended. A restart reads its jobs while SQLite reads every
    /// page, instead of one after the other.
    pub fn open_checking(dir: &Path) -> Result<Store, StoreError> {
        let path = dir.join(STATE_FILE);
        let wal_was_there = integrity::before_open(&path)?;
        let conn = Connection::open(&path).map_err(|e| integrity::fault_of(&path, e))?;
        integrity::check_foreign(&conn, &path)?;
        let mut store = Store::with_connection(conn).map_err(|e| match e {
            StoreError::TooNew { found, known } => StoreError::Unusable {
                path: path.clone(),
                fault: format!(
                    "its schema (version {found}) is newer than this spurd knows ({known}); \
                     run the spurd that wrote it"
                ),
            },
            other => of_file(&path, other),
        })?;
        keep_private(&path);
        store.check = Some(PendingCheck::start(&path, wal_was_there)?);
        Ok(store)
    }

    /// Waits for the check of the tables a restart reads, which
    /// [`Store::open_checking`] started: nothing read from them may be
    /// served before it passed.
    pub fn readable(&mut self) -> Result<(), StoreError> {
        let Some(check) = &mut self.check else {
            return Ok(());
        };
        check.wait(1)?;
        // A damaged page is the first thing to say; then whether the log
        // that held the latest commits is missing.
        if let Some(wal_was_there) = check.log_unchecked {
            integrity::check_log(&self.conn, &check.path, wal_was_there)
                .map_err(|e| of_file(&check.path, e))?;
            check.log_unchecked = None;
        }
        Ok(())
    }

    /// Lets the second stage of the check [`Store::open_checking`] started
    /// run: the jobs are loaded.
    pub fn loaded(&mut self) {
        if let Some(check) = &mut self.check {
            check.hold_rest = None;
        }
    }

    /// Waits for the whole check [`Store::open_checking`] started, and
    /// marks the database open once it passed. Every write does this first.
    pub fn verified(&mut self) -> Result<(), StoreError> {
        self.readable()?;
        let Some(check) = &mut self.check else {
            return Ok(());
        };
        check.wait(PendingCheck::STAGES)?;
        let path = check.path.clone();
        self.check = None;
        integrity::mark_open(&self.conn).map_err(|e| of_file(&path, e))?;
        self.marked_open = true;
        Ok(())
    }

    /// A store in memory, for tests.
    #[cfg(test)]
    pub fn in_memory() -> Result<Store, StoreError> {
        Store::with_connection(Connection::open_in_memory()?)
    }

    fn with_connection(mut conn: Connection) -> Result<Store, StoreError> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "cache_size", CACHE_SIZE)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations::apply(&mut conn)?;
        Ok(Store {
            conn,
            marked_open: false,
            check: None,
        })
    }

    /// The jobs of the history `q` selects, read on this connection (the
    /// controller reads through [`Reader`]s; this is for tests).
    #[cfg(test)]
    pub fn history(&self, q: &spur_proto::HistoryQuery) -> Result<Vec<HistoryRow>, StoreError> {
        history::select(&self.conn, q)
    }

    /// Starts the transaction of one turn.
    pub fn begin(&mut self) -> Result<Turn<'_>, StoreError> {
        self.verified()?;
        Ok(Turn {
            tx: self.conn.transaction()?,
        })
    }

    /// Whether the database takes a write now: a one-row transaction,
    /// committed (after a failed commit, the controller tries this until
    /// it works).
    pub fn probe(&mut self) -> Result<(), StoreError> {
        self.verified()?;
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('probe', 0) \
             ON CONFLICT(key) DO UPDATE SET value = value + 1",
            [],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The lowest job id never handed out (0 for a new store).
    pub fn next_job_id(&self) -> Result<u32, StoreError> {
        let v: Option<i64> = self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'next_job_id'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        Ok(v.unwrap_or(0) as u32)
    }

    /// Jobs still live (pending, running) or ended at or after
    /// `ended_since`, in id order, each handed to `each` as it is decoded
    /// (a restart puts them in place as they come: no list of them all is
    /// made, moved and freed), their metadata's names shared through
    /// `names`. Returns how many there were.
    ///
    /// Reading and decoding the rows is half the work of a restart: for a
    /// database in a file it runs on a thread of its own, with a
    /// connection of its own, a batch at a time, while `each` runs here.
    /// What that thread allocates for a job it hands over whole: freeing
    /// across threads is what makes glibc's allocator slow.
    pub fn each_job(
        &self,
        ended_since: u64,
        names: &mut Names,
        mut each: impl FnMut(StoredJob),
    ) -> Result<usize, StoreError> {
        let Some(path) = self.conn.path().filter(|p| !p.is_empty()) else {
            return read_jobs(&self.conn, ended_since, names, each);
        };
        let path = PathBuf::from(path);
        std::thread::scope(|scope| {
            let (full_tx, full) = std::sync::mpsc::sync_channel::<Vec<StoredJob>>(LOAD_BATCHES);
            // Emptied batches go back to be filled again.
            let (empty_tx, empty) = std::sync::mpsc::channel::<Vec<StoredJob>>();
            let reader = move || {
                let conn = Connection::open_with_flags(
                    &path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                conn.pragma_update(None, "cache_size", CACHE_SIZE)?;
                let mut batch = Vec::with_capacity(LOAD_BATCH);
                let count = read_jobs(&conn, ended_since, names, |job| {
                    batch.push(job);
                    if batch.len() == LOAD_BATCH {
                        let next = empty
                            .try_recv()
                            .unwrap_or_else(|_| Vec::with_capacity(LOAD_BATCH));
                        // Refused only once the receiving side is gone, and
                        // then its error is what the caller sees.
                        let _ = full_tx.send(std::mem::replace(&mut batch, next));
                    }
                })?;
                let _ = full_tx.send(batch);
                Ok::<_, StoreError>(count)
            };
            let reader = spur_sys::spawn_apart(scope, "spur-load", reader).map_err(|source| {
                StoreError::Thread {
                    what: "read the stored jobs",
                    source,
                }
            })?;
            for mut batch in full {
                batch.drain(..).for_each(&mut each);
                let _ = empty_tx.send(batch);
            }
            reader
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// The jobs [`Store::each_job`] hands out, as a list.
    #[cfg(test)]
    pub fn load_jobs(&self, ended_since: u64) -> Result<Vec<StoredJob>, StoreError> {
        let mut jobs = Vec::new();
        self.each_job(ended_since, &mut Names::default(), |job| jobs.push(job))?;
        Ok(jobs)
    }

    /// The script, arguments and environment of a job.
    pub fn payload(&self, job: u32) -> Result<Option<JobPayload>, StoreError> {
        // Read for every job started in a later turn than the one that
        // stored it: the statement is parsed once, not per job.
        let bytes: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT payload FROM payloads WHERE id = ?1")?
            .query_row([i64::from(job)], |r| r.get(0))
            .optional()?;
        bytes.map(|b| decode(job, &b)).transpose()
    }

    /// The node names, in NodeId order, as of the last start (None for a
    /// store that has not recorded them).
    pub fn node_names(&self) -> Result<Option<Vec<String>>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM settings WHERE key = 'node_names'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        text.map(|t| decode(0, t.as_bytes())).transpose()
    }

    /// Each user's fair-share usage and the time it was decayed to.
    pub fn usage(&self) -> Result<Vec<(u32, f64, u64)>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT uid, usage, at FROM usage")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)? as u32,
                r.get::<_, f64>(1)?,
                r.get::<_, i64>(2)? as u64,
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Operator-set node states.
    pub fn node_overrides(&self) -> Result<Vec<NodeOverride>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, drain, down, reason FROM node_state ORDER BY name")?;
        let rows = stmt.query_map([], |r| {
            Ok(NodeOverride {
                name: r.get(0)?,
                drain: r.get(1)?,
                down: r.get(2)?,
                reason: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// The open transaction of one controller turn.
pub struct Turn<'a> {
    tx: Transaction<'a>,
}

impl Turn<'_> {
    /// Records a new job with everything it needs to run, and the digest
    /// of its submission's idempotency key.
    pub fn insert_job(
        &self,
        record: &JobRecord,
        meta: &JobMeta,
        payload: &JobPayload,
        submit_key: Option<SubmitKey>,
    ) -> Result<(), StoreError> {
        let id = record.id.0;
        self.tx
            .prepare_cached(
                "INSERT INTO jobs (id, uid, state, end_time, record, meta, \
                 submit_time, eligible_time, start_time, array_job_id, array_task_id, \
                 submit_key) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?
            .execute(params![
                i64::from(id),
                i64::from(record.spec.user.0),
                record.state.as_str(),
                record.end_time.map(|t| t as i64),
                encode(id, record)?,
                encode(id, meta)?,
                record.submit_time as i64,
                eligible_time(record),
                record.start_time.map(|t| t as i64),
                array_ids(record).0,
                array_ids(record).1,
                submit_key.map(u128::to_le_bytes),
            ])?;
        self.tx
            .prepare_cached("INSERT INTO payloads (id, payload) VALUES (?1, ?2)")?
            .execute(params![i64::from(id), encode(id, payload)?])?;
        Ok(())
    }

    /// Saves a job's changed record.
    pub fn update_job(&self, record: &JobRecord) -> Result<(), StoreError> {
        let id = record.id.0;
        self.tx
            .prepare_cached(
                "UPDATE jobs SET state = ?2, end_time = ?3, record = ?4, submit_time = ?5, \
                 eligible_time = ?6, start_time = ?7, array_job_id = ?8, array_task_id = ?9 \
                 WHERE id = ?1",
            )?
            .execute(params![
                i64::from(id),
                record.state.as_str(),
                record.end_time.map(|t| t as i64),
                encode(id, record)?,
                record.submit_time as i64,
                eligible_time(record),
                record.start_time.map(|t| t as i64),
                array_ids(record).0,
                array_ids(record).1,
            ])?;
        Ok(())
    }

    /// Saves a job's changed extras.
    pub fn update_meta(&self, job: u32, meta: &JobMeta) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("UPDATE jobs SET meta = ?2 WHERE id = ?1")?
            .execute(params![i64::from(job), encode(job, meta)?])?;
        Ok(())
    }

    /// Records the node names, in NodeId order.
    pub fn set_node_names(&self, names: &[String]) -> Result<(), StoreError> {
        // Text, as an operator reading the table expects: one row.
        let value = serde_json::to_string(names).map_err(|source| StoreError::Encode {
            job: 0,
            source: RowError::Json(source),
        })?;
        self.tx
            .prepare_cached(
                "INSERT INTO settings (key, value) VALUES ('node_names', ?1) \
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            )?
            .execute([value])?;
        Ok(())
    }

    /// Remembers that ids below `next` are used.
    pub fn set_next_job_id(&self, next: u32) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT INTO meta (key, value) VALUES ('next_job_id', ?1) \
                 ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
            )?
            .execute([i64::from(next)])?;
        Ok(())
    }

    /// Saves a node's operator-set state (all clear removes the row).
    pub fn set_node_override(&self, node: &NodeOverride) -> Result<(), StoreError> {
        if !node.drain && !node.down {
            self.tx
                .prepare_cached("DELETE FROM node_state WHERE name = ?1")?
                .execute([&node.name])?;
            return Ok(());
        }
        self.tx
            .prepare_cached(
                "INSERT INTO node_state (name, drain, down, reason) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT(name) DO UPDATE SET drain = ?2, down = ?3, reason = ?4",
            )?
            .execute(params![node.name, node.drain, node.down, node.reason])?;
        Ok(())
    }

    /// Saves a user's fair-share usage, decayed to `at`.
    pub fn set_usage(&self, uid: u32, usage: f64, at: u64) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT INTO usage (uid, usage, at) VALUES (?1, ?2, ?3) \
                 ON CONFLICT(uid) DO UPDATE SET usage = ?2, at = ?3",
            )?
            .execute(params![i64::from(uid), usage, at as i64])?;
        Ok(())
    }

    /// Makes the turn durable.
    pub fn commit(self) -> Result<(), StoreError> {
        Ok(self.tx.commit()?)
    }
}

#[cfg(test)]
mod tests;
