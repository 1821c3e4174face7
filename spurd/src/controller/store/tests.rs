use spur_core::{JobId, JobSpec, JobState, Uid};

use super::*;

fn record(id: u32, state: JobState, end: Option<u64>) -> JobRecord {
    JobRecord {
        id: JobId(id),
        spec: JobSpec {
            user: Uid(1000),
            name: format!("job{id}").into(),
            ..Default::default()
        },
        state,
        submit_time: 10,
        eligible_time: 10,
        start_time: None,
        end_time: end,
        time_limit: None,
        alloc: vec![],
        hold: None,
        exit: None,
        kill: None,
        restarts: 0,
        signaled: false,
        array: None,
        dependency: None,
        reason: spur_core::Reason::None,
        reason_prev: spur_core::Reason::None,
    }
}

#[test]
fn migrating_twice_is_harmless_and_every_version_upgrades() {
    let mut conn = Connection::open_in_memory().expect("opens");
    migrations::apply(&mut conn).expect("first");
    migrations::apply(&mut conn).expect("second");
    let v: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("reads");
    assert_eq!(v as usize, migrations::MIGRATIONS.len());
    // From every earlier version: a store stopped at version k migrates.
    for k in 0..migrations::MIGRATIONS.len() {
        let mut conn = Connection::open_in_memory().expect("opens");
        for sql in &migrations::MIGRATIONS[..k] {
            conn.execute_batch(sql).expect("old migration");
        }
        conn.pragma_update(None, "user_version", k as u32)
            .expect("sets");
        migrations::apply(&mut conn).expect("upgrades");
    }
}

#[test]
fn a_newer_schema_is_refused() {
    let mut conn = Connection::open_in_memory().expect("opens");
    conn.pragma_update(None, "user_version", 999).expect("sets");
    assert!(matches!(
        migrations::apply(&mut conn),
        Err(StoreError::TooNew { found: 999, .. })
    ));
}

#[test]
fn jobs_round_trip_and_old_finished_jobs_are_not_loaded() {
    let mut store = Store::in_memory().expect("opens");
    let payload = JobPayload {
        script: "#!/bin/sh\ntrue\n".into(),
        argv: vec!["a".into()],
        env: vec![("A".into(), "1".into())],
    };
    let meta = JobMeta {
        user_name: "alice".into(),
        ..Default::default()
    };
    let turn = store.begin().expect("begins");
    turn.insert_job(&record(1, JobState::Pending, None), &meta, &payload, None)
        .expect("inserts");
    let key = u128::MAX - 7;
    turn.insert_job(
        &record(2, JobState::Pending, None),
        &meta,
        &payload,
        Some(key),
    )
    .expect("inserts");
    turn.set_next_job_id(3).expect("sets");
    turn.commit().expect("commits");

    let turn = store.begin().expect("begins");
    turn.update_job(&record(1, JobState::Completed, Some(100)))
        .expect("updates");
    turn.set_next_job_id(2).expect("never lowers");
    turn.commit().expect("commits");

    assert_eq!(store.next_job_id().expect("reads"), 3);
    let live = store.load_jobs(101).expect("loads");
    assert_eq!(live.len(), 1);
    assert_eq!(live[0].record.id, JobId(2));
    assert_eq!(live[0].meta, meta);
    assert_eq!(live[0].submit_key, Some(key));
    let all = store.load_jobs(100).expect("loads");
    assert_eq!(all[0].submit_key, None);
    assert_eq!(all[0].record.state, JobState::Completed);
    assert_eq!(store.payload(2).expect("reads"), Some(payload));
    assert_eq!(store.payload(9).expect("reads"), None);
}

#[test]
fn an_uncommitted_turn_leaves_nothing() {
    let mut store = Store::in_memory().expect("opens");
    {
        let turn = store.begin().expect("begins");
        turn.insert_job(
            &record(1, JobState::Pending, None),
            &JobMeta::default(),
            &JobPayload::default(),
            None,
        )
        .expect("inserts");
    }
    assert!(store.load_jobs(0).expect("loads").is_empty());
}

#[test]
fn node_overrides_are_kept_until_cleared() {
    let mut store = Store::in_memory().expect("opens");
    let mut n = NodeOverride {
        name: "gb001".into(),
        drain: true,
        down: false,
        reason: Some("fan".into()),
    };
    let turn = store.begin().expect("begins");
    turn.set_node_override(&n).expect("sets");
    turn.commit().expect("commits");
    assert_eq!(store.node_overrides().expect("reads"), vec![n.clone()]);
    n.drain = false;
    let turn = store.begin().expect("begins");
    turn.set_node_override(&n).expect("clears");
    turn.commit().expect("commits");
    assert!(store.node_overrides().expect("reads").is_empty());
}

#[test]
fn fair_share_usage_is_kept_per_user_and_replaced() {
    let mut store = Store::in_memory().expect("opens");
    assert!(store.usage().expect("reads").is_empty());
    let turn = store.begin().expect("begins");
    turn.set_usage(1000, 120.5, 50).expect("sets");
    turn.set_usage(1001, 7.0, 60).expect("sets");
    turn.commit().expect("commits");
    let turn = store.begin().expect("begins");
    turn.set_usage(1000, 200.0, 90).expect("replaces");
    turn.commit().expect("commits");
    let mut rows = store.usage().expect("reads");
    rows.sort_by_key(|r| r.0);
    assert_eq!(rows, vec![(1000, 200.0, 90), (1001, 7.0, 60)]);
}

#[test]
fn a_row_written_before_a_field_existed_reads_with_its_default() {
    // A JobMeta as an older spurd wrote it: no `nodes`, no `unacted`.
    let old = br#"{"gid":5,"user_name":"alice","work_dir":"/home/alice"}"#;
    let meta: JobMeta = decode(1, old).expect("decodes");
    assert_eq!(&*meta.user_name, "alice");
    assert_eq!(meta.nodes, None);
    assert!(meta.unacted.is_empty());
}

#[test]
fn node_names_are_kept_and_replaced() {
    let mut store = Store::in_memory().expect("opens");
    assert_eq!(store.node_names().expect("reads"), None);
    let names: Vec<String> = vec!["gb001".into(), "gb002".into()];
    let turn = store.begin().expect("begins");
    turn.set_node_names(&names).expect("sets");
    turn.commit().expect("commits");
    assert_eq!(store.node_names().expect("reads"), Some(names));
    let turn = store.begin().expect("begins");
    turn.set_node_names(&["x".to_string()]).expect("sets");
    turn.commit().expect("commits");
    assert_eq!(
        store.node_names().expect("reads"),
        Some(vec!["x".to_string()])
    );
}

/// A state folder with a store of `jobs` pending jobs, closed cleanly.
fn folder_with_jobs(jobs: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(dir.path()).expect("a new store opens");
    let turn = store.begin().expect("begins");
    let payload = JobPayload {
        script: "#!/bin/sh\ntrue\n".repeat(20),
        ..Default::default()
    };
    for id in 1..=jobs {
        turn.insert_job(
            &record(id, JobState::Pending, None),
            &JobMeta::default(),
            &payload,
            None,
        )
        .expect("inserts");
    }
    turn.commit().expect("commits");
    dir
}

#[test]
fn a_file_store_loads_every_job_in_order_through_its_reading_thread_with_names_shared() {
    // Batches of LOAD_BATCH: two full ones and a part.
    let jobs = 2 * LOAD_BATCH as u32 + 7;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(dir.path()).expect("a new store opens");
    let turn = store.begin().expect("begins");
    for id in 1..=jobs {
        let meta = JobMeta {
            user_name: "alice".into(),
            group_name: "users".into(),
            submit_host: format!("login{}", id % 2).into(),
            partition: (id % 3 == 0).then(|| "gpu".into()),
            work_dir: format!("/home/alice/{id}").into(),
            ..Default::default()
        };
        let ended = (id % 5 == 0).then_some(50);
        let state = if ended.is_some() {
            JobState::Completed
        } else {
            JobState::Pending
        };
        let key = Some(u128::from(id) << 64 | 7);
        turn.insert_job(
            &record(id, state, ended),
            &meta,
            &JobPayload::default(),
            key,
        )
        .expect("inserts");
    }
    turn.commit().expect("commits");

    let mut names = Names::default();
    let mut loaded = Vec::new();
    let count = store
        .each_job(100, &mut names, |job| loaded.push(job))
        .expect("loads");
    let live: Vec<u32> = (1..=jobs).filter(|id| id % 5 != 0).collect();
    assert_eq!(count, live.len());
    let ids: Vec<u32> = loaded.iter().map(|j| j.record.id.0).collect();
    assert_eq!(ids, live, "every live job, in id order");
    for job in &loaded {
        let id = job.record.id.0;
        assert_eq!(&*job.meta.work_dir, format!("/home/alice/{id}"));
        assert_eq!(&*job.meta.submit_host, format!("login{}", id % 2));
        assert_eq!(
            job.meta.partition.as_deref(),
            (id % 3 == 0).then_some("gpu")
        );
        assert_eq!(job.submit_key, Some(u128::from(id) << 64 | 7));
        assert!(Arc::ptr_eq(&job.meta.user_name, &loaded[0].meta.user_name));
        assert!(Arc::ptr_eq(&job.meta.group_name, &names.get("users")));
    }
    assert!(Arc::ptr_eq(&loaded[0].meta.user_name, &names.get("alice")));
    let gpu = loaded.iter().find_map(|j| j.meta.partition.clone());
    assert!(Arc::ptr_eq(
        &gpu.expect("some job in gpu"),
        &names.get("gpu")
    ));
}

fn refusal(dir: &Path) -> String {
    match Store::open(dir) {
        Err(e @ StoreError::Unusable { .. }) => e.to_string(),
        Err(e) => panic!("refused, but not as unusable: {e}"),
        Ok(_) => panic!("a damaged store opened"),
    }
}

#[test]
fn the_state_files_are_for_the_controllers_user_alone() {
    use std::os::unix::fs::PermissionsExt;
    // bench/swap: in Slurm's StateSaveLocation (0755 on Debian) the
    // database, with every job's script and environment, was 0644.
    let mode = |p: &Path| std::fs::metadata(p).expect("there").permissions().mode() & 0o777;
    let dir = folder_with_jobs(1);
    let db = dir.path().join(STATE_FILE);
    assert_eq!(mode(&db), 0o600, "a new database");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let store = Store::open(dir.path()).expect("reopens");
    for file in [
        db.clone(),
        integrity::wal_of(&db),
        integrity::beside(&db, "-shm"),
    ] {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    drop(store);
}

#[test]
fn a_store_closed_cleanly_opens_again_with_its_jobs() {
    let dir = folder_with_jobs(3);
    let store = Store::open(dir.path()).expect("reopens");
    assert_eq!(store.load_jobs(0).expect("loads").len(), 3);
}

#[test]
fn an_empty_or_foreign_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join(STATE_FILE);
    std::fs::write(&db, b"").expect("writes");
    let text = refusal(dir.path());
    assert!(
        text.starts_with(&format!("{}: the file is empty", db.display())),
        "{text}"
    );
    assert!(text.contains("spurd controller --restore FILE"), "{text}");
    std::fs::write(
        &db,
        b"#!/bin/sh\necho not a database at all, but long enough\n".repeat(200),
    )
    .expect("writes");
    assert!(refusal(dir.path()).contains("not a spur state database"));
}

#[test]
fn truncated_and_bit_flipped_stores_are_refused() {
    let dir = folder_with_jobs(400);
    let db = dir.path().join(STATE_FILE);
    let good = std::fs::read(&db).expect("reads");
    assert!(good.len() > 16 * 4096, "{} bytes", good.len());
    // Cut in half.
    std::fs::write(&db, &good[..good.len() / 2]).expect("writes");
    assert!(
        refusal(dir.path()).contains("damaged"),
        "{}",
        refusal(dir.path())
    );
    // One byte flipped in a b-tree page's header (page 3's type byte).
    let mut flipped = good.clone();
    flipped[2 * 4096] ^= 0x55;
    std::fs::write(&db, &flipped).expect("writes");
    assert!(
        refusal(dir.path()).contains("damaged"),
        "{}",
        refusal(dir.path())
    );
    // The header's magic string.
    let mut flipped = good.clone();
    flipped[3] ^= 0x01;
    std::fs::write(&db, &flipped).expect("writes");
    assert!(refusal(dir.path()).contains("not a spur state database"));
    std::fs::write(&db, &good).expect("writes");
    assert_eq!(
        Store::open(dir.path())
            .expect("whole again")
            .load_jobs(0)
            .expect("loads")
            .len(),
        400
    );
}

#[test]
fn a_newer_store_is_refused_naming_the_versions() {
    let dir = folder_with_jobs(1);
    let conn = Connection::open(dir.path().join(STATE_FILE)).expect("opens");
    conn.pragma_update(None, "user_version", 999).expect("sets");
    drop(conn);
    let text = refusal(dir.path());
    assert!(text.contains("schema (version 999) is newer"), "{text}");
}

#[test]
fn a_store_that_stops_before_its_first_write_starts_again_after_a_crash() {
    let live = folder_with_jobs(2);
    let dir = tempfile::tempdir().expect("tempdir");
    {
        // The files as a crash leaves them: marked open, the log there.
        let store = Store::open(live.path()).expect("opens");
        let db = live.path().join(STATE_FILE);
        for f in [db.clone(), integrity::wal_of(&db)] {
            std::fs::copy(&f, dir.path().join(f.file_name().expect("named"))).expect("copies");
        }
        drop(store);
    }
    for _ in 0..2 {
        // A start that only reads, then a clean stop once its check of
        // the pages is over (and the check's connection closed).
        let mut store = Store::open_checking(dir.path()).expect("opens");
        store.readable().expect("readable");
        assert_eq!(store.load_jobs(0).expect("loads").len(), 2);
        let check = store.check.as_mut().expect("a check runs");
        check
            .wait(PendingCheck::STAGES)
            .expect("the pages are sound");
        drop(store);
    }
    let mut store = Store::open_checking(dir.path()).expect("starts again");
    store.verified().expect("verified");
    assert_eq!(store.load_jobs(0).expect("loads").len(), 2);
}

#[test]
fn a_crashed_store_needs_its_log_and_a_log_needs_its_store() {
    let dir = folder_with_jobs(1);
    let crash = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join(STATE_FILE);
    {
        // The files as a crash leaves them: a commit in the log, not yet
        // in the database file.
        let mut store = Store::open(dir.path()).expect("opens");
        let turn = store.begin().expect("begins");
        turn.insert_job(
            &record(2, JobState::Pending, None),
            &JobMeta::default(),
            &JobPayload::default(),
            None,
        )
        .expect("inserts");
        turn.commit().expect("commits");
        for f in [db.clone(), integrity::wal_of(&db)] {
            std::fs::copy(&f, crash.path().join(f.file_name().expect("named"))).expect("copies");
        }
    }
    let copy = crash.path().join(STATE_FILE);
    let wal = integrity::wal_of(&copy);
    let log = std::fs::read(&wal).expect("the log");
    assert!(!log.is_empty());
    // With its log the crash loses nothing.
    let store = Store::open(crash.path()).expect("recovers");
    assert_eq!(store.load_jobs(0).expect("loads").len(), 2);
    drop(store);
    // Crash again, then lose the log: refused.
    let store = Store::open(crash.path()).expect("opens");
    std::mem::forget(store);
    std::fs::remove_file(&wal).expect("the log goes");
    let text = refusal(crash.path());
    assert!(text.contains("did not stop cleanly"), "{text}");
    assert!(text.contains(&wal.display().to_string()), "{text}");
    // A log without its database.
    let orphan = tempfile::tempdir().expect("tempdir");
    std::fs::write(integrity::wal_of(&orphan.path().join(STATE_FILE)), &log).expect("writes");
    assert!(refusal(orphan.path()).contains("the file is missing"));
}

#[test]
fn another_programs_database_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let conn = Connection::open(dir.path().join(STATE_FILE)).expect("opens");
    conn.execute_batch("CREATE TABLE photos (id INTEGER PRIMARY KEY, data BLOB);")
        .expect("creates");
    drop(conn);
    assert!(refusal(dir.path()).contains("SQLite database of another program"));
}

#[test]
fn rows_are_written_in_bincode_and_read_back() {
    let mut store = Store::in_memory().expect("opens");
    let meta = JobMeta {
        user_name: "alice".into(),
        comment: Some("c".into()),
        requested: Some(TresCount {
            cpus: 2,
            ..Default::default()
        }),
        ..Default::default()
    };
    let turn = store.begin().expect("begins");
    turn.insert_job(
        &record(7, JobState::Pending, None),
        &meta,
        &JobPayload::default(),
        None,
    )
    .expect("inserts");
    turn.commit().expect("commits");
    let row: Vec<u8> = store
        .conn
        .query_row("SELECT record FROM jobs WHERE id = 7", [], |r| r.get(0))
        .expect("reads");
    assert_eq!(row[..2], [ROW_BINARY, ROW_LAYOUT]);
    let jobs = store.load_jobs(0).expect("loads");
    assert_eq!(jobs[0].record, record(7, JobState::Pending, None));
    assert_eq!(jobs[0].meta, meta);
}

#[test]
fn a_json_row_of_an_older_spurd_still_reads() {
    let mut store = Store::in_memory().expect("opens");
    let turn = store.begin().expect("begins");
    turn.insert_job(
        &record(3, JobState::Pending, None),
        &JobMeta::default(),
        &JobPayload::default(),
        None,
    )
    .expect("inserts");
    turn.commit().expect("commits");
    let json = serde_json::to_vec(&record(3, JobState::Pending, None)).expect("encodes");
    let meta = br#"{"gid":5,"user_name":"bob","work_dir":"/home/bob"}"#;
    store
        .conn
        .execute(
            "UPDATE jobs SET record = ?1, meta = ?2 WHERE id = 3",
            params![json, &meta[..]],
        )
        .expect("rewrites");
    let jobs = store.load_jobs(0).expect("loads");
    assert_eq!(jobs[0].record, record(3, JobState::Pending, None));
    assert_eq!(&*jobs[0].meta.user_name, "bob");
}

#[test]
fn a_row_of_a_newer_layout_is_refused_naming_it() {
    let err = decode::<JobMeta>(9, &[ROW_BINARY, ROW_LAYOUT + 1, 0, 0]).expect_err("refused");
    assert_eq!(
        err.to_string(),
        "job 9 is stored in a form this version cannot read"
    );
    let why = std::error::Error::source(&err)
        .expect("a cause")
        .to_string();
    assert!(why.contains(&format!("layout {}", ROW_LAYOUT + 1)), "{why}");
}

/// The fields of the stored types, as paths with their JSON kinds: what a
/// row in bincode depends on.
fn layout_of(value: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::Object(fields) => {
            for (name, v) in fields {
                layout_of(v, &format!("{path}.{name}"), out);
            }
        }
        Value::Array(items) => match items.first() {
            Some(first) => layout_of(first, &format!("{path}[]"), out),
            None => out.push(format!("{path}:[]")),
        },
        Value::Null => out.push(format!("{path}:null")),
        Value::Bool(_) => out.push(format!("{path}:bool")),
        Value::Number(_) => out.push(format!("{path}:number")),
        Value::String(_) => out.push(format!("{path}:string")),
    }
}

#[test]
fn the_stored_layout_is_pinned() {
    // If this fails, the stored types changed: rows in bincode written
    // before the change no longer read. Raise ROW_LAYOUT, keep a decoder of
    // the old layout (its types frozen) converting to the new one, and
    // then update the figure below.
    let meta = JobMeta {
        requested: Some(TresCount::default()),
        allocated: Some(Box::default()),
        ..Default::default()
    };
    let mut fields = Vec::new();
    for (name, value) in [
        (
            "record",
            serde_json::to_value(record(1, JobState::Pending, None)),
        ),
        ("meta", serde_json::to_value(meta)),
        ("payload", serde_json::to_value(JobPayload::default())),
    ] {
        layout_of(&value.expect("encodes"), name, &mut fields);
    }
    // FNV-1a over the list: stable across Rust versions.
    let digest = fields
        .join("\n")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    assert_eq!(
        (fields.len(), digest),
        (88, 3_663_219_174_715_324_899),
        "the stored layout changed:\n{}",
        fields.join("\n")
    );
}

#[test]
fn a_version_5_store_moves_its_scripts_to_a_table_of_their_own() {
    let conn = Connection::open_in_memory().expect("opens");
    for sql in &migrations::MIGRATIONS[..5] {
        conn.execute_batch(sql).expect("old migration");
    }
    conn.pragma_update(None, "user_version", 5).expect("sets");
    let payload = JobPayload {
        script: "#!/bin/sh\necho old\n".into(),
        argv: vec!["a".into()],
        env: vec![("HOME".into(), "/home/alice".into())],
    };
    conn.execute(
        "INSERT INTO jobs (id, uid, state, end_time, record, meta, payload) \
         VALUES (4, 1000, 'PENDING', NULL, ?1, ?2, ?3)",
        params![
            serde_json::to_vec(&record(4, JobState::Pending, None)).expect("encodes"),
            serde_json::to_vec(&JobMeta::default()).expect("encodes"),
            serde_json::to_vec(&payload).expect("encodes"),
        ],
    )
    .expect("inserts");
    let store = Store::with_connection(conn).expect("upgrades");
    assert_eq!(store.payload(4).expect("reads"), Some(payload));
    assert_eq!(store.load_jobs(0).expect("loads").len(), 1);
    let columns: Vec<String> = store
        .conn
        .prepare("SELECT name FROM pragma_table_info('jobs')")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("reads");
    assert!(!columns.contains(&"payload".to_string()), "{columns:?}");
}

/// Fills the first page of `table` in the closed store in `dir` with junk.
fn damage_table(dir: &Path, table: &str) {
    let db = dir.join(STATE_FILE);
    let root: usize = Connection::open(&db)
        .and_then(|c| {
            c.query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
                [table],
                |r| r.get(0),
            )
        })
        .expect("finds the table");
    let mut bytes = std::fs::read(&db).expect("reads");
    bytes[(root - 1) * 4096..root * 4096].fill(0xA5);
    std::fs::write(&db, &bytes).expect("writes");
}

#[test]
fn a_damaged_table_of_jobs_stops_the_start_before_anything_is_read() {
    let dir = folder_with_jobs(400);
    damage_table(dir.path(), "jobs");
    let mut store = Store::open_checking(dir.path()).expect("opens; the check runs aside");
    let err = store.readable().expect_err("refused");
    assert!(err.to_string().contains("damaged"), "{err}");
}

#[test]
fn damaged_scripts_let_the_jobs_be_read_but_nothing_be_written() {
    let dir = folder_with_jobs(400);
    damage_table(dir.path(), "payloads");
    let mut store = Store::open_checking(dir.path()).expect("opens; the check runs aside");
    store.readable().expect("the jobs' tables are whole");
    assert_eq!(store.load_jobs(0).expect("loads").len(), 400);
    let err = store.begin().err().expect("no write");
    assert!(err.to_string().contains("damaged"), "{err}");
    let again = store.probe().expect_err("still no write");
    assert!(again.to_string().contains("damaged"), "{again}");
    drop(store);
    assert!(refusal(dir.path()).contains("damaged"));
}

#[test]
fn jobs_of_one_owner_share_one_copy_of_its_names() {
    let mut names = Names::default();
    let meta = |dir: &str| JobMeta {
        user_name: "alice".into(),
        group_name: "users".into(),
        submit_host: "login1".into(),
        partition: Some("gpu".into()),
        work_dir: dir.into(),
        ..Default::default()
    };
    let (mut a, mut b) = (meta("/a"), meta("/b"));
    a.share_names(&mut names);
    b.share_names(&mut names);
    assert!(Arc::ptr_eq(&a.user_name, &b.user_name));
    assert!(Arc::ptr_eq(&a.group_name, &b.group_name));
    assert!(Arc::ptr_eq(&a.submit_host, &b.submit_host));
    let (pa, pb) = (a.partition.as_ref(), b.partition.as_ref());
    assert!(Arc::ptr_eq(pa.expect("set"), pb.expect("set")));
    assert_eq!((&*a.user_name, &*a.work_dir), ("alice", "/a"));
    assert_eq!(a, meta("/a"), "sharing changes no value");
}
