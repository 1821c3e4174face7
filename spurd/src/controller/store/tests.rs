use spur_core::{JobId, JobSpec, JobState, Uid};

use super::*;

fn record(id: u32, state: JobState, end: Option<u64>) -> JobRecord {
    JobRecord {
        id: JobId(id),
        spec: JobSpec {
            user: Uid(1000),
            name: format!("job{id}"),
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
    assert_eq!(meta.user_name, "alice");
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
