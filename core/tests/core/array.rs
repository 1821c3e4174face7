//! Job array scenarios: the meta record splitting tasks off in task order
//! (the last keeping the array's id), the `%N` throttle over several passes,
//! cancelling tasks and whole arrays, holds, and persistence.

use spur_core::{
    Core, CoreError, Effect, Hold, Input, Job, JobId, JobRecord, JobState, KillCause, Reason,
    SchedConfig, SubmitError, TaskLocation, TaskSet,
};

use crate::env::*;

fn small() -> JobBuilder {
    JobBuilder::new().name("arr")
}

fn running_tasks(env: &TestEnv, array: JobId) -> Vec<(JobId, Option<u32>)> {
    env.core
        .running_jobs()
        .filter(|j| j.array_job_id() == Some(array))
        .map(|j| (j.id, j.array_task_id()))
        .collect()
}

#[test]
fn tasks_split_off_in_task_order_and_the_last_keeps_the_array_id() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-2"));
    let meta = env.core.job(array).unwrap();
    assert_eq!(meta.array_job_id(), Some(array));
    assert_eq!(meta.array_task_id(), None);
    assert_eq!(env.core.array_task_str(array).as_deref(), Some("0-2"));
    let effects = env.pass();
    let (t0, t1) = (JobId(array.0 + 1), JobId(array.0 + 2));
    let order: Vec<String> = effects
        .iter()
        .map(|e| match e {
            Effect::ArrayTaskSplit {
                array_job,
                task,
                job,
            } => format!("split {array_job}_{task} as {job}"),
            Effect::StartJob { job, .. } => format!("start {job}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        order,
        vec![
            format!("split {array}_0 as {t0}"),
            format!("start {t0}"),
            format!("split {array}_1 as {t1}"),
            format!("start {t1}"),
            format!("start {array}"),
        ]
    );
    // As sacct shows it: 24_0 -> 28, 24_1 -> 29, 24_2 -> 24.
    assert_eq!(
        running_tasks(&env, array),
        vec![(array, Some(2)), (t0, Some(0)), (t1, Some(1))]
    );
    assert_eq!(env.core.array_task_str(array), None);
    assert_eq!(
        env.core.find_array_task(array, 1),
        Some(TaskLocation::Job(t1))
    );
    assert_eq!(env.core.array_members(array), vec![array, t0, t1]);
    assert_eq!(env.core.next_job_id(), JobId(array.0 + 3));
}

#[test]
fn the_throttle_limits_running_tasks_over_several_passes() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-9%2"));
    env.schedule();
    let running = running_tasks(&env, array);
    assert_eq!(
        running.iter().map(|r| r.1).collect::<Vec<_>>(),
        vec![Some(0), Some(1)]
    );
    let meta = env.core.job(array).unwrap();
    assert_eq!(meta.state(), JobState::Pending);
    assert_eq!(meta.reason(), Reason::JobArrayTaskLimit);
    assert_eq!(env.core.array_task_str(array).as_deref(), Some("2-9%2"));
    assert_eq!(env.core.array_throttle(array), Some(2));
    let mut started_order = vec![0, 1];
    for _ in 0..8 {
        // Nothing more starts while two run.
        env.take_effects();
        assert!(env.schedule().is_empty());
        let (first, _) = running_tasks(&env, array)[0];
        env.advance(10);
        env.finish(first, 0);
        let started = env.schedule();
        assert_eq!(started.len(), 1);
        started_order.push(env.core.job(started[0].0).unwrap().array_task_id().unwrap());
        assert!(running_tasks(&env, array).len() <= 2);
        if started_order.len() == 9 {
            // With one task left, the record is that task (`8_9`, not
            // `8_[9]`), still pending.
            let record = env.core.job(array).unwrap();
            assert_eq!(record.state(), JobState::Pending);
            assert_eq!(record.array_task_id(), Some(9));
            assert_eq!(env.core.array_task_str(array), None);
        }
    }
    assert_eq!(started_order, (0..10).collect::<Vec<_>>());
    // The last task runs under the array's own id.
    assert!(running_tasks(&env, array).contains(&(array, Some(9))));
}

#[test]
fn the_throttle_can_be_changed_and_lifted() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-9%1"));
    assert_eq!(env.schedule().len(), 1);
    env.core
        .handle(
            Input::SetArrayThrottle { array, throttle: 3 },
            env.now,
            &mut Vec::new(),
        )
        .unwrap();
    assert_eq!(env.schedule().len(), 2);
    assert_eq!(env.core.array_task_str(array).as_deref(), Some("3-9%3"));
    env.core.set_array_throttle(array, 0).unwrap();
    assert_eq!(env.schedule().len(), 7);
    let plain = env.submit(small());
    assert_eq!(
        env.core.set_array_throttle(plain, 2),
        Err(CoreError::NotAnArray(plain))
    );
}

#[test]
fn cancelling_tasks_takes_them_out_of_the_record_or_kills_them() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-9%2"));
    env.schedule();
    let t1 = JobId(array.0 + 2);
    env.take_effects();
    let mut effects = Vec::new();
    let tasks: TaskSet = "1,5-6,42".parse().unwrap();
    let missing = env
        .core
        .cancel_array_tasks(array, &tasks, env.now, &mut effects)
        .unwrap();
    env.core.sanity_check().unwrap();
    assert_eq!(missing.to_string(), "42");
    assert_eq!(
        effects,
        vec![Effect::KillJob {
            job: t1,
            cause: KillCause::Cancelled,
            grace: 30
        }]
    );
    assert_eq!(env.core.array_task_str(array).as_deref(), Some("2-4,7-9%2"));
    assert_eq!(env.core.find_array_task(array, 5), None);
    // Through the input, an unknown task is reported after the rest.
    let result = env.core.handle(
        Input::CancelArrayTasks {
            array,
            tasks: "2,77".parse().unwrap(),
        },
        env.now,
        &mut effects,
    );
    assert_eq!(result, Err(CoreError::UnknownTask { array, task: 77 }));
    assert_eq!(env.core.array_task_str(array).as_deref(), Some("3-4,7-9%2"));
    let plain = env.submit(small());
    assert_eq!(
        env.core
            .cancel_array_tasks(plain, &TaskSet::range(0, 1), env.now, &mut effects),
        Err(CoreError::UnknownJob(plain))
    );
}

#[test]
fn cancelling_every_pending_task_cancels_the_record() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-3").hold());
    let mut effects = Vec::new();
    let missing = env
        .core
        .cancel_array_tasks(array, &TaskSet::range(0, 3), env.now, &mut effects)
        .unwrap();
    assert!(missing.is_empty());
    assert_eq!(effects, vec![Effect::PendingJobEnded { job: array }]);
    assert_eq!(env.core.job(array).unwrap().state(), JobState::Cancelled);
    env.core.sanity_check().unwrap();
    assert!(env.pass().is_empty());
}

#[test]
fn scancel_of_the_array_id_cancels_every_job_of_it() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-5%2"));
    env.schedule();
    let (t0, t1) = (JobId(array.0 + 1), JobId(array.0 + 2));
    env.take_effects();
    let mut effects = Vec::new();
    env.core.cancel_job(array, env.now, &mut effects).unwrap();
    env.core.sanity_check().unwrap();
    let kill = |job| Effect::KillJob {
        job,
        cause: KillCause::Cancelled,
        grace: 30,
    };
    assert_eq!(
        effects,
        vec![Effect::PendingJobEnded { job: array }, kill(t0), kill(t1)]
    );
    // The record keeps the tasks it was cancelled with (sacct: N_[2-5]).
    let meta = env.core.job(array).unwrap();
    assert_eq!(meta.state(), JobState::Cancelled);
    assert_eq!(meta.array().unwrap().pending_tasks().to_string(), "2-5");
    // A task's own id cancels only that task.
    let other = env.submit(small().array("0-1"));
    env.schedule();
    let other_t0 = JobId(other.0 + 1);
    effects.clear();
    env.core
        .cancel_job(other_t0, env.now, &mut effects)
        .unwrap();
    assert_eq!(effects, vec![kill(other_t0)]);
}

#[test]
fn holding_the_array_id_holds_every_pending_job_of_it() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-3%1"));
    env.schedule();
    let t0 = JobId(array.0 + 1);
    env.core
        .handle(Input::Hold(array, Hold::User), env.now, &mut Vec::new())
        .unwrap();
    assert_eq!(env.core.job(array).unwrap().hold(), Some(Hold::User));
    assert_eq!(env.core.job(t0).unwrap().hold(), None);
    env.finish(t0, 0);
    assert!(env.schedule().is_empty());
    assert_eq!(env.core.job(array).unwrap().reason(), Reason::JobHeldUser);
    env.core
        .handle(Input::Release(array), env.now, &mut Vec::new())
        .unwrap();
    let started = env.schedule();
    assert_eq!(started.len(), 1);
    assert_eq!(env.core.job(started[0].0).unwrap().array_task_id(), Some(1));
}

#[test]
fn one_task_split_off_for_an_update_waits_while_the_others_run() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-3").hold());
    let mut effects = Vec::new();
    let task2 = env.core.split_array_task(array, 2, &mut effects).unwrap();
    assert_eq!(
        effects,
        vec![Effect::ArrayTaskSplit {
            array_job: array,
            task: 2,
            job: task2
        }]
    );
    assert_eq!(env.core.job(task2).unwrap().hold(), Some(Hold::User));
    env.core
        .handle(Input::Release(array), env.now, &mut Vec::new())
        .unwrap();
    env.core
        .handle(Input::Hold(task2, Hold::User), env.now, &mut Vec::new())
        .unwrap();
    env.core.sanity_check().unwrap();
    let started: Vec<Option<u32>> = env
        .schedule()
        .iter()
        .map(|(id, _)| env.core.job(*id).unwrap().array_task_id())
        .collect();
    assert_eq!(started, vec![Some(0), Some(1), Some(3)]);
    assert_eq!(env.core.job(task2).unwrap().reason(), Reason::JobHeldUser);
    assert_eq!(
        env.core.split_array_task(array, 7, &mut effects),
        Err(CoreError::UnknownTask { array, task: 7 })
    );
}

#[test]
fn bad_arrays_and_max_array_size_are_refused_as_slurm_does() {
    let mut env = TestEnv::nvl72(1);
    let err = env
        .core
        .submit_job(small().array("0-200000").0, env.now)
        .unwrap_err();
    assert_eq!(err, SubmitError::InvalidArray(spur_core::InvalidArray));
    assert_eq!(err.to_string(), "Invalid job array specification");
    assert!(env
        .core
        .submit_job(small().array("1-3:0").0, env.now)
        .is_err());
    let config = SchedConfig {
        max_array_size: 200_001,
        max_job_count: 1_000_000,
        ..SchedConfig::default()
    };
    let mut big = TestEnv::new(cluster(4, spur_core::Topology::Flat), config);
    let array = big.submit(small().array("0-200000"));
    let meta = big.core.job(array).unwrap();
    assert_eq!(meta.array().unwrap().pending_tasks().len(), 200_001);
}

#[test]
fn every_task_counts_against_max_job_count() {
    let config = SchedConfig {
        max_job_count: 10,
        ..SchedConfig::default()
    };
    let mut env = TestEnv::new(cluster(4, spur_core::Topology::Flat), config);
    env.submit(small().array("0-7"));
    assert_eq!(
        env.core.submit_job(small().array("0-2").0, env.now),
        Err(SubmitError::QueueFull)
    );
    env.submit(small().array("0-1"));
    assert_eq!(
        env.core.submit_job(small().0, env.now),
        Err(SubmitError::QueueFull)
    );
}

#[test]
fn meta_records_and_split_tasks_survive_a_restart() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-9%3"));
    let blocker = env.submit(gpu_job(18).name("big"));
    env.schedule();
    let t0 = env.task(array, 0);
    env.finish(t0, 3);
    env.schedule();
    let records: Vec<JobRecord> = env.core.jobs().map(Job::record).collect();

    let mut restored = TestEnv::nvl72(1);
    for r in records.clone() {
        restored.core.restore_job(r).expect("restores");
    }
    restored.now = env.now;
    restored.core.sanity_check().unwrap();
    let again: Vec<JobRecord> = restored.core.jobs().map(Job::record).collect();
    assert_eq!(records, again);
    assert_eq!(restored.core.next_job_id(), env.core.next_job_id());
    assert_eq!(
        restored.core.array_task_str(array),
        env.core.array_task_str(array)
    );
    assert_eq!(
        restored.core.array_members(array),
        env.core.array_members(array)
    );
    assert!(restored.core.job(blocker).is_some());
    // Both go on alike.
    for e in [&mut env, &mut restored] {
        let running: Vec<JobId> = running_tasks(e, array).iter().map(|r| r.0).collect();
        for id in running {
            e.finish(id, 0);
        }
        e.take_effects();
    }
    assert_eq!(env.pass(), restored.pass());
    // A record whose task another record holds is refused.
    let mut dup = records
        .iter()
        .find(|r| r.id == t0)
        .cloned()
        .expect("task 0 has a record");
    dup.id = JobId(999);
    let mut twice = TestEnv::nvl72(1);
    for r in records {
        twice.core.restore_job(r).unwrap();
    }
    assert!(twice.core.restore_job(dup).is_err());
}

#[test]
fn a_restored_core_keeps_ids_above_split_tasks() {
    let mut env = TestEnv::nvl72(1);
    let array = env.submit(small().array("0-4"));
    env.schedule();
    let mut fresh = Core::new(cluster(18, nvl72_topology(1, None)), SchedConfig::default())
        .expect("valid cluster");
    for job in env.core.jobs() {
        fresh.restore_job(job.record()).unwrap();
    }
    assert_eq!(fresh.next_job_id(), JobId(array.0 + 5));
}
