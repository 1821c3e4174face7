use rusqlite::Connection;
use spur_core::{ExitStatus, Hold, JobId, JobRecord, JobSpec, JobState, Uid};
use spur_proto::{AcctState, HistoryQuery, JobSelector, StepId};

use super::super::{migrations, JobMeta, JobPayload, Reader, StepRow, Store};

/// A job submitted at `submit`, started at `start`, ended at `end`.
fn job(id: u32, submit: u64, start: Option<u64>, end: Option<u64>, state: JobState) -> JobRecord {
    JobRecord {
        id: JobId(id),
        spec: JobSpec {
            user: Uid(1000 + id % 2),
            name: format!("job{id}").into(),
            partitions: vec![if id.is_multiple_of(3) {
                "debug"
            } else {
                "batch"
            }
            .into()],
            ..Default::default()
        },
        state,
        submit_time: submit,
        eligible_time: submit,
        start_time: start,
        end_time: end,
        time_limit: None,
        alloc: vec![],
        hold: None,
        exit: end.map(|_| ExitStatus::default()),
        kill: None,
        restarts: 0,
        signaled: false,
        array: None,
        dependency: None,
        reason: spur_core::Reason::None,
        reason_prev: spur_core::Reason::None,
    }
}

fn step(job_id: u32, step_id: u32, start: u64, end: Option<u64>, code: i32) -> StepRow {
    StepRow {
        job_id,
        step_id,
        name: "bash".into(),
        state: if end.is_some() {
            JobState::Completed
        } else {
            JobState::Running
        },
        exit_code: code,
        exit_signal: 0,
        start_time: start,
        end_time: end,
        nodes: "gb[001-002]".into(),
        node_count: 2,
        ntasks: 8,
        ncpus: 8,
        tres: spur_proto::Tres::parse("cpu=8,gres/gpu=8,mem=32G,node=2").expect("TRES"),
        cancelled_by: None,
        layout: Some("Block".into()),
        user_cpu_us: 11_390,
        system_cpu_us: 9_499,
    }
}

fn store_with(jobs: &[JobRecord]) -> Store {
    let mut store = Store::in_memory().expect("opens");
    let turn = store.begin().expect("begins");
    for j in jobs {
        turn.insert_job(j, &JobMeta::default(), &JobPayload::default(), None)
            .expect("inserts");
    }
    turn.commit().expect("commits");
    store
}

fn ids(store: &Store, q: &HistoryQuery) -> Vec<u32> {
    store
        .history(q)
        .expect("reads")
        .iter()
        .map(|r| r.record.id.0)
        .collect()
}

/// The jobs of the window tests: 1 ran 110-200, 2 runs since 310, 3 waits
/// since 500, 4 ran 60-90, 5 is held since 120, 6 ran 1000-1100, 7 was
/// cancelled at 400 while pending.
fn window_jobs() -> Store {
    let mut held = job(5, 120, None, None, JobState::Pending);
    held.hold = Some(Hold::User);
    store_with(&[
        job(1, 100, Some(110), Some(200), JobState::Completed),
        job(2, 300, Some(310), None, JobState::Running),
        job(3, 500, None, None, JobState::Pending),
        job(4, 50, Some(60), Some(90), JobState::Failed),
        held,
        job(6, 1000, Some(1000), Some(1100), JobState::Completed),
        job(7, 150, None, Some(400), JobState::Cancelled),
    ])
}

#[test]
fn a_window_selects_jobs_eligible_before_its_end_and_not_ended_before_its_start() {
    let store = window_jobs();
    let q = HistoryQuery {
        start: Some(150),
        end: Some(600),
        ..Default::default()
    };
    // 4 ended before the window, 5 was never eligible, 6 became eligible
    // after it.
    assert_eq!(ids(&store, &q), vec![1, 2, 3, 7]);
    let q = HistoryQuery {
        start: Some(1050),
        end: Some(2000),
        ..Default::default()
    };
    assert_eq!(ids(&store, &q), vec![2, 3, 6]);
    let q = HistoryQuery {
        end: Some(100),
        ..Default::default()
    };
    assert_eq!(ids(&store, &q), vec![4]);
}

#[test]
fn a_job_list_shows_its_jobs_even_if_never_eligible() {
    let store = window_jobs();
    let sel = |job_id| JobSelector {
        job_id,
        array_task: None,
        step: None,
    };
    let q = HistoryQuery {
        jobs: vec![sel(5), sel(4), sel(99)],
        ..Default::default()
    };
    assert_eq!(ids(&store, &q), vec![4, 5]);
    // With a window, only those submitted before its end and not ended
    // before its start.
    let q = HistoryQuery {
        jobs: vec![sel(4), sel(6)],
        start: Some(95),
        end: Some(900),
        ..Default::default()
    };
    assert!(ids(&store, &q).is_empty());
}

#[test]
fn states_select_jobs_that_were_in_them_during_the_window() {
    let store = window_jobs();
    let q = |states: Vec<AcctState>, start, end| HistoryQuery {
        states,
        start,
        end,
        ..Default::default()
    };
    // Running at some time in [150, 600): 1 (until 200) and 2.
    assert_eq!(
        ids(&store, &q(vec![AcctState::Running], Some(150), Some(600))),
        vec![1, 2]
    );
    // Pending during it: 2 (until 310), 3 (still), 7 (until cancelled).
    assert_eq!(
        ids(&store, &q(vec![AcctState::Pending], Some(150), Some(600))),
        vec![2, 3, 7]
    );
    // Ended in the window in that state.
    assert_eq!(
        ids(
            &store,
            &q(
                vec![AcctState::Completed, AcctState::Cancelled],
                Some(150),
                Some(600)
            )
        ),
        vec![1, 7]
    );
    assert!(ids(&store, &q(vec![AcctState::Failed], Some(150), Some(600))).is_empty());
    // Without a window: the state now.
    assert_eq!(
        ids(&store, &q(vec![AcctState::Completed], None, None)),
        vec![1, 6]
    );
    // States spur never has select nothing.
    assert!(ids(&store, &q(vec![AcctState::BootFail], None, None)).is_empty());
}

#[test]
fn users_names_and_partitions_narrow_the_selection() {
    let store = window_jobs();
    let all = HistoryQuery::default();
    assert_eq!(ids(&store, &all), vec![1, 2, 3, 4, 5, 6, 7]);
    let q = HistoryQuery {
        uids: vec![1001],
        ..Default::default()
    };
    assert_eq!(ids(&store, &q), vec![1, 3, 5, 7]);
    let q = HistoryQuery {
        names: vec!["job2".into(), "job4".into()],
        ..Default::default()
    };
    assert_eq!(ids(&store, &q), vec![2, 4]);
    let q = HistoryQuery {
        partitions: vec!["debug".into()],
        ..Default::default()
    };
    assert_eq!(ids(&store, &q), vec![3, 6]);
}

#[test]
fn steps_come_with_their_jobs_inside_the_window_and_give_the_derived_exit_code() {
    let mut store = window_jobs();
    let turn = store.begin().expect("begins");
    turn.insert_step(&step(1, 0, 120, Some(130), 0))
        .expect("inserts");
    turn.insert_step(&step(1, 1, 140, Some(190), 4))
        .expect("inserts");
    turn.insert_step(&step(2, 0, 320, None, 0))
        .expect("inserts");
    turn.commit().expect("commits");
    let q = HistoryQuery {
        start: Some(135),
        end: Some(600),
        steps: true,
        ..Default::default()
    };
    let rows = store.history(&q).expect("reads");
    let steps: Vec<(u32, Vec<u32>)> = rows
        .iter()
        .map(|r| (r.record.id.0, r.steps.iter().map(|s| s.step_id).collect()))
        .collect();
    // 1.0 ended before the window.
    assert_eq!(
        steps,
        vec![(1, vec![1]), (2, vec![0]), (3, vec![]), (7, vec![])]
    );
    // The derived exit code counts every step, in the window or not.
    assert_eq!(rows[0].derived, (4, 0));
    assert_eq!(rows[0].steps[0], step(1, 1, 140, Some(190), 4));
    let without = HistoryQuery { steps: false, ..q };
    let rows = store.history(&without).expect("reads");
    assert!(rows.iter().all(|r| r.steps.is_empty()));
    assert_eq!(rows[0].derived, (4, 0));
}

/// One node's record of `tasks` tasks that each peaked at `mem` bytes.
fn node_usage(node: u32, tasks: u32, mem: u64) -> spur_proto::Usage {
    let mut u = spur_proto::Usage::default();
    for t in 0..tasks {
        let mut one = spur_proto::Usage {
            tasks: 1,
            ..Default::default()
        };
        one.input.insert(
            spur_proto::UsageTres::Mem,
            spur_proto::TresUsage::one(mem, node, Some(node * 10 + t)),
        );
        u.merge(&one);
    }
    u
}

#[test]
fn steps_usage_is_merged_by_node_replaced_for_batch_and_cleared_for_a_new_run() {
    let mut store = window_jobs();
    let turn = store.begin().expect("begins");
    turn.insert_step(&step(1, 0, 120, Some(130), 0))
        .expect("inserts");
    turn.merge_usage(1, 0, &node_usage(0, 2, 100), true)
        .expect("merges");
    turn.merge_usage(1, 0, &node_usage(1, 2, 300), true)
        .expect("merges");
    let batch = spur_proto::BATCH_STEP;
    turn.merge_usage(1, batch, &node_usage(0, 1, 50), false)
        .expect("sets");
    // An end reported again replaces, never adds.
    turn.merge_usage(1, batch, &node_usage(0, 1, 70), false)
        .expect("sets");
    turn.commit().expect("commits");
    let q = HistoryQuery {
        jobs: vec![JobSelector {
            job_id: 1,
            array_task: None,
            step: None,
        }],
        steps: true,
        ..Default::default()
    };
    let rows = store.history(&q).expect("reads");
    let step0 = &rows[0].usage[&0];
    assert_eq!(step0.tasks, 4);
    let mem = step0.input[&spur_proto::UsageTres::Mem];
    assert_eq!(
        (mem.max.value, mem.max.node, mem.max.task),
        (300, 1, Some(10))
    );
    assert_eq!((mem.min.value, mem.tot), (100, 800));
    let b = &rows[0].usage[&batch];
    assert_eq!((b.tasks, b.input[&spur_proto::UsageTres::Mem].tot), (1, 70));

    // A requeued job's new run starts from nothing.
    let turn = store.begin().expect("begins");
    turn.clear_usage(1).expect("clears");
    turn.commit().expect("commits");
    assert!(store.history(&q).expect("reads")[0].usage.is_empty());
}

#[test]
fn a_step_is_recorded_when_it_starts_and_saved_again_when_it_ends() {
    let mut store = window_jobs();
    let running = step(2, 0, 320, None, 0);
    let turn = store.begin().expect("begins");
    turn.insert_step(&running).expect("inserts");
    turn.commit().expect("commits");
    let ended = StepRow {
        state: JobState::Failed,
        exit_code: 2,
        end_time: Some(330),
        cancelled_by: None,
        ..running.clone()
    };
    let unknown = step(2, 1, 325, Some(326), 0);
    let turn = store.begin().expect("begins");
    // Its end replaces the row written at its start.
    turn.insert_step(&ended).expect("updates");
    turn.insert_step(&unknown).expect("inserts");
    turn.commit().expect("commits");
    let q = HistoryQuery {
        jobs: vec![JobSelector {
            job_id: 2,
            array_task: None,
            step: Some(StepId::Numbered(0)),
        }],
        steps: true,
        ..Default::default()
    };
    let rows = store.history(&q).expect("reads");
    assert_eq!(rows[0].steps, vec![ended, unknown]);
}

#[test]
fn expired_jobs_and_steps_are_purged_in_batches_but_held_jobs_stay() {
    let mut store = window_jobs();
    let turn = store.begin().expect("begins");
    turn.insert_step(&step(1, 0, 120, Some(130), 0))
        .expect("inserts");
    turn.insert_step(&step(2, 0, 320, Some(330), 0))
        .expect("inserts");
    turn.insert_step(&step(2, 1, 340, None, 0))
        .expect("inserts");
    turn.commit().expect("commits");
    // Submitted by 200, ended before 1000: 1, 4 and 7; 7 is held.
    let turn = store.begin().expect("begins");
    let first = turn
        .purge_jobs(200, 1000, 1, &|id| id == 7)
        .expect("purges");
    let second = turn
        .purge_jobs(200, 1000, 10, &|id| id == 7)
        .expect("purges");
    turn.commit().expect("commits");
    assert_eq!((first, second), (1, 1));
    assert_eq!(ids(&store, &HistoryQuery::default()), vec![2, 3, 5, 6, 7]);
    // Their scripts went with them.
    assert_eq!(store.payload(1).expect("reads"), None);
    assert_eq!(store.payload(4).expect("reads"), None);
    assert!(store.payload(2).expect("reads").is_some());
    // The purged job's steps went with it; a running step is never purged.
    let turn = store.begin().expect("begins");
    assert_eq!(turn.purge_steps(400, 10).expect("purges"), 1);
    turn.commit().expect("commits");
    let q = HistoryQuery {
        steps: true,
        ..Default::default()
    };
    let left: Vec<(u32, u32)> = store
        .history(&q)
        .expect("reads")
        .iter()
        .flat_map(|r| r.steps.iter().map(|s| (s.job_id, s.step_id)))
        .collect();
    assert_eq!(left, vec![(2, 1)]);
}

#[test]
fn a_reader_sees_committed_turns_while_the_writer_is_open() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("opens");
    let mut reader = Reader::open(dir.path()).expect("opens read-only");
    let q = HistoryQuery::default();
    assert!(reader.history(&q).expect("reads").is_empty());
    let turn = store.begin().expect("begins");
    turn.insert_job(
        &job(1, 100, Some(110), None, JobState::Running),
        &JobMeta::default(),
        &JobPayload::default(),
        None,
    )
    .expect("inserts");
    // Not yet committed: not seen.
    assert!(reader.history(&q).expect("reads").is_empty());
    turn.commit().expect("commits");
    let rows = reader.history(&q).expect("reads");
    assert_eq!(rows[0].record.state, JobState::Running);
    let turn = store.begin().expect("begins");
    turn.update_job(&job(1, 100, Some(110), Some(150), JobState::Completed))
        .expect("updates");
    turn.commit().expect("commits");
    let rows = reader.history(&q).expect("reads");
    assert_eq!(rows[0].record.state, JobState::Completed);
    assert!(reader.conn.execute_batch("DELETE FROM jobs").is_err());
}

#[test]
fn a_version_2_store_gets_its_window_columns_filled() {
    let mut conn = Connection::open_in_memory().expect("opens");
    for sql in &migrations::MIGRATIONS[..2] {
        conn.execute_batch(sql).expect("old migration");
    }
    conn.pragma_update(None, "user_version", 2).expect("sets");
    let record = job(1, 100, Some(110), Some(200), JobState::Completed);
    conn.execute(
        "INSERT INTO jobs (id, uid, state, end_time, record, meta, payload) \
         VALUES (1, 1001, 'COMPLETED', 200, ?1, ?2, ?3)",
        rusqlite::params![
            serde_json::to_vec(&record).expect("encodes"),
            serde_json::to_vec(&JobMeta::default()).expect("encodes"),
            serde_json::to_vec(&JobPayload::default()).expect("encodes"),
        ],
    )
    .expect("inserts");
    migrations::apply(&mut conn).expect("upgrades");
    let times: (i64, i64, i64) = conn
        .query_row(
            "SELECT submit_time, eligible_time, start_time FROM jobs WHERE id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("reads");
    assert_eq!(times, (100, 100, 110));
    let q = HistoryQuery {
        start: Some(150),
        end: Some(300),
        ..Default::default()
    };
    assert_eq!(super::select(&conn, &q).expect("reads").len(), 1);
}

#[test]
fn an_array_is_selected_by_its_id_and_a_task_by_its_index() {
    let task = |id: u32, array: u32, index: u32| {
        let mut j = job(id, 100, Some(110), Some(120), JobState::Completed);
        j.array = Some(
            serde_json::from_str(&format!(r#"{{"array_job_id":{array},"task_id":{index}}}"#))
                .expect("an array task"),
        );
        j
    };
    let store = store_with(&[
        task(24, 24, 2),
        task(28, 24, 0),
        task(29, 24, 1),
        job(30, 100, None, None, JobState::Pending),
    ]);
    let sel = |job_id, array_task| JobSelector {
        job_id,
        array_task,
        step: None,
    };
    let q = |jobs| HistoryQuery {
        jobs,
        ..Default::default()
    };
    assert_eq!(ids(&store, &q(vec![sel(24, None)])), vec![24, 28, 29]);
    assert_eq!(ids(&store, &q(vec![sel(24, Some(1))])), vec![29]);
    assert_eq!(ids(&store, &q(vec![sel(28, None)])), vec![28]);
    assert!(ids(&store, &q(vec![sel(30, Some(0))])).is_empty());
}

/// Not a test: writes the job history `bench/sacct` measures, through the
/// store's own API. SPUR_BENCH_FILL_DIR names the StateSaveLocation to
/// create, SPUR_BENCH_FILL_JOBS how many finished jobs (default 100,000),
/// SPUR_BENCH_FILL_DAYS over how many days before now they ended, evenly
/// (default 100). Each job ran a minute on one node of partition batch.
#[test]
#[ignore = "a helper of bench/sacct, run by it"]
fn fill_a_state_database_for_the_sacct_bench() {
    let Some(dir) = std::env::var_os("SPUR_BENCH_FILL_DIR") else {
        return;
    };
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let jobs = var("SPUR_BENCH_FILL_JOBS", 100_000) as u32;
    let days = var("SPUR_BENCH_FILL_DAYS", 100);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("creates the state folder");
    let mut store = Store::open(&dir).expect("opens");
    let span = days * 86_400;
    let tres = super::super::TresCount {
        cpus: 4,
        mem_mb: 16_384,
        nodes: 1,
        gpus: 4,
    };
    for chunk in (1..=jobs).collect::<Vec<u32>>().chunks(10_000) {
        let turn = store.begin().expect("begins");
        for &id in chunk {
            // Job 1 ended `days` ago, the last one a minute ago.
            let end = now - 60 - span * u64::from(jobs - id) / u64::from(jobs);
            let mut record = job(
                id,
                end - 120,
                Some(end - 60),
                Some(end),
                JobState::Completed,
            );
            record.spec.user = Uid(1000 + id % 16);
            record.spec.partitions = vec!["batch".into()];
            record.spec.name = format!("bench{}", id % 100).into();
            let meta = JobMeta {
                user_name: format!("user{}", id % 16).into(),
                group_name: "bench".into(),
                work_dir: "/tmp".into(),
                nodes: Some(format!("gb{:03}", 1 + id % 72).into()),
                partition: Some("batch".into()),
                requested: Some(tres),
                allocated: Some(Box::new(super::super::AllocRecord {
                    total: tres,
                    batch_host: tres,
                    priority: 1,
                })),
                ..JobMeta::default()
            };
            turn.insert_job(&record, &meta, &JobPayload::default(), None)
                .expect("inserts");
        }
        turn.set_next_job_id(jobs + 1).expect("sets");
        turn.commit().expect("commits");
    }
}
