//! How jobs end and come back: the reason each end leaves (slurmctld's
//! _job_complete), `--deadline`, and requeue of running and finished jobs.

use spur_core::{
    CoreError, Effect, ExitStatus, Hold, Input, JobState, KillCause, Reason, SchedConfig,
};

use crate::env::*;

fn exit(env: &mut TestEnv, job: spur_core::JobId, code: i32, signal: i32) {
    env.core
        .on_job_exited(job, ExitStatus { code, signal }, env.now)
        .expect("job was running");
    env.core.sanity_check().expect("sane after exit");
}

fn handle(env: &mut TestEnv, input: Input) -> Result<(), CoreError> {
    let mut effects = Vec::new();
    let r = env.core.handle(input, env.now, &mut effects).map(drop);
    env.core.sanity_check().expect("sane after input");
    env.effects.extend(effects);
    r
}

fn state_reason(env: &TestEnv, job: spur_core::JobId) -> (JobState, Reason) {
    let j = env.core.job(job).expect("job exists");
    (j.state(), j.reason())
}

#[test]
fn every_end_leaves_the_reason_slurmctld_gives_it() {
    let mut env = TestEnv::nvl72(1);
    let ok = env.submit(gpu_job(1));
    let failed = env.submit(gpu_job(1));
    let signalled = env.submit(gpu_job(1));
    let unlaunched = env.submit(gpu_job(1));
    let timed = env.submit(gpu_job(1).time(60));
    let cancelled = env.submit(gpu_job(1));
    let lost = env.submit(gpu_job(1));
    let silent = env.submit(gpu_job(1));
    let oom = env.submit(gpu_job(1));
    let oom_cancelled = env.submit(gpu_job(1));
    env.schedule();
    exit(&mut env, oom, 0, 125);
    handle(&mut env, Input::Cancel(oom_cancelled)).expect("running");
    exit(&mut env, oom_cancelled, 0, 125);
    exit(&mut env, ok, 0, 0);
    exit(&mut env, failed, 2, 0);
    exit(&mut env, signalled, 0, 9);
    handle(&mut env, Input::LaunchFailed(unlaunched)).expect("running");
    handle(&mut env, Input::Cancel(cancelled)).expect("running");
    exit(&mut env, cancelled, 0, 15);
    let node = env.core.job(lost).unwrap().allocation()[0].node;
    handle(&mut env, Input::NodeDown(node, "Not responding".into())).expect("node");
    exit(&mut env, lost, 0, 9);
    handle(&mut env, Input::TimeOut(silent)).expect("running");
    exit(&mut env, silent, 0, 15);
    env.advance(60);
    env.schedule();
    exit(&mut env, timed, 0, 15);
    assert_eq!(state_reason(&env, ok), (JobState::Completed, Reason::None));
    assert_eq!(
        state_reason(&env, failed),
        (JobState::Failed, Reason::NonZeroExitCode)
    );
    assert_eq!(
        state_reason(&env, signalled),
        (JobState::Failed, Reason::JobLaunchFailure)
    );
    assert_eq!(
        state_reason(&env, unlaunched),
        (JobState::Failed, Reason::JobLaunchFailure)
    );
    assert_eq!(
        env.core.job(unlaunched).unwrap().exit_status(),
        Some(ExitStatus {
            code: 0,
            signal: 53
        })
    );
    assert_eq!(
        state_reason(&env, timed),
        (JobState::Timeout, Reason::TimeLimit)
    );
    assert_eq!(
        state_reason(&env, cancelled),
        (JobState::Cancelled, Reason::None)
    );
    assert_eq!(
        state_reason(&env, lost),
        (JobState::NodeFail, Reason::NodeDown)
    );
    assert_eq!(
        state_reason(&env, silent),
        (JobState::Timeout, Reason::InactiveLimit)
    );
    assert_eq!(
        state_reason(&env, oom),
        (JobState::OutOfMemory, Reason::OutOfMemory)
    );
    assert_eq!(
        env.core.job(oom).unwrap().exit_status(),
        Some(ExitStatus::OUT_OF_MEMORY)
    );
    // Killed while being cancelled: the cancel is why it ended.
    assert_eq!(
        state_reason(&env, oom_cancelled),
        (JobState::Cancelled, Reason::None)
    );
}

#[test]
fn a_cancelled_pending_job_keeps_the_reason_it_waited_for() {
    let mut env = TestEnv::nvl72(1);
    let held = env.submit(gpu_job(1).hold());
    env.schedule();
    handle(&mut env, Input::Cancel(held)).expect("pending");
    assert_eq!(
        state_reason(&env, held),
        (JobState::Cancelled, Reason::JobHeldUser)
    );
}

#[test]
fn a_job_that_cannot_end_by_its_deadline_ends_as_deadline() {
    let mut env = TestEnv::nvl72(1);
    let blocker = env.submit(gpu_job(18).time(3600));
    env.schedule();
    let mut spec = gpu_job(1).time(600).0;
    spec.deadline = Some(env.now + 1200);
    let late = env.submit(JobBuilder(spec));
    // It may start until 600 s before its deadline.
    env.advance(600);
    env.pass();
    assert_eq!(env.core.job(late).unwrap().state(), JobState::Pending);
    assert_eq!(env.core.next_wakeup(env.now), Some(env.now + 1));
    env.advance(1);
    let effects = env.pass();
    assert_eq!(effects, vec![Effect::PendingJobEnded { job: late }]);
    assert_eq!(
        state_reason(&env, late),
        (JobState::Deadline, Reason::DeadLine)
    );
    assert_eq!(
        env.core.job(late).unwrap().exit_status(),
        Some(ExitStatus { code: 0, signal: 1 })
    );
    // A job that starts gets at most the whole minutes left to its
    // deadline as its limit.
    exit(&mut env, blocker, 0, 0);
    let mut spec = gpu_job(1).0;
    spec.deadline = Some(env.now + 3630);
    let soon = env.submit(JobBuilder(spec));
    env.schedule();
    assert_eq!(env.core.job(soon).unwrap().time_limit(), Some(3600));
    // One already past is refused.
    let mut spec = gpu_job(1).0;
    spec.deadline = Some(env.now - 1);
    assert_eq!(
        env.core.submit_job(spec, env.now),
        Err(spur_core::SubmitError::InvalidTimeLimit)
    );
}

#[test]
fn a_requeued_job_waits_its_begin_time_and_counts_a_restart() {
    let config = SchedConfig {
        requeue_delay: 6,
        ..SchedConfig::default()
    };
    let mut env = TestEnv::new(cluster(18, nvl72_topology(1, None)), config);
    let job = env.submit(gpu_job(1));
    env.schedule();
    handle(&mut env, Input::Requeue { job, hold: None }).expect("running");
    assert_eq!(
        env.take_effects().last(),
        Some(&Effect::KillJob {
            job,
            cause: KillCause::Requeue(None),
            grace: 30
        })
    );
    env.advance(2);
    exit(&mut env, job, 0, 15);
    let j = env.core.job(job).unwrap();
    assert_eq!((j.state(), j.restarts()), (JobState::Pending, 1));
    assert_eq!(j.submit_time(), env.now);
    assert_eq!(j.spec.begin, Some(env.now + 6));
    env.schedule();
    assert_eq!(
        state_reason(&env, job),
        (JobState::Pending, Reason::BeginTime)
    );
    assert_eq!(env.core.next_wakeup(env.now), Some(env.now + 6));
    env.advance(6);
    assert_eq!(env.schedule().len(), 1);
    exit(&mut env, job, 0, 0);
    // A finished job goes back at once, and may be requeued held.
    handle(
        &mut env,
        Input::Requeue {
            job,
            hold: Some(Hold::Requeued),
        },
    )
    .expect("finished");
    env.advance(60);
    env.schedule();
    let j = env.core.job(job).unwrap();
    assert_eq!(
        (j.state(), j.reason(), j.restarts(), j.priority()),
        (JobState::Pending, Reason::RequeuedHeld, 2, 0)
    );
    handle(&mut env, Input::Release(job)).expect("held");
    assert_eq!(env.schedule().len(), 1);
}

#[test]
fn requeue_is_refused_for_pending_and_non_requeueable_jobs() {
    let config = SchedConfig {
        job_requeue: false,
        ..SchedConfig::default()
    };
    let mut env = TestEnv::new(cluster(18, nvl72_topology(1, None)), config);
    let pending = env.submit(gpu_job(1).hold());
    let plain = env.submit(gpu_job(1));
    let mut spec = gpu_job(1).0;
    spec.requeue = Some(true);
    let asked = env.submit(JobBuilder(spec));
    env.schedule();
    let requeue = |job| Input::Requeue { job, hold: None };
    let mut spec = gpu_job(1).0;
    spec.requeue = Some(true);
    spec.hold = true;
    let pending_ok = env.submit(JobBuilder(spec));
    assert_eq!(
        handle(&mut env, requeue(pending_ok)),
        Err(CoreError::JobPending(pending_ok))
    );
    assert_eq!(
        handle(&mut env, requeue(pending)),
        Err(CoreError::RequeueDisabled(pending))
    );
    assert_eq!(
        handle(&mut env, requeue(plain)),
        Err(CoreError::RequeueDisabled(plain))
    );
    assert_eq!(handle(&mut env, requeue(asked)), Ok(()));
}

#[test]
fn accounting_keeps_the_last_reason_a_job_waited_for_beyond_its_turn() {
    let mut env = TestEnv::nvl72(1);
    let first = env.submit(gpu_job(1));
    let then = env.submit(gpu_job(1).dependency(&format!("afterok:{first}")));
    let crowd = env.submit(gpu_job(18));
    env.schedule();
    assert_eq!(env.core.job(then).unwrap().reason(), Reason::Dependency);
    assert_eq!(env.core.job(crowd).unwrap().reason(), Reason::Resources);
    exit(&mut env, first, 0, 0);
    env.schedule();
    // It waits for room now; accounting still names the dependency.
    let j = env.core.job(then).unwrap();
    assert_eq!(
        (j.state(), j.reason_prev()),
        (JobState::Running, Reason::Dependency)
    );
    assert_eq!(env.core.job(crowd).unwrap().reason_prev(), Reason::None);
    let record = env.core.job(then).unwrap().record();
    assert_eq!(record.reason_prev, Reason::Dependency);
}

#[test]
fn ended_jobs_are_purged_by_end_time_and_a_requeued_one_is_kept() {
    let mut env = TestEnv::nvl72(1);
    let first = env.submit(gpu_job(1));
    let second = env.submit(gpu_job(1));
    let requeued = env.submit(gpu_job(1));
    let waiting = env.submit(gpu_job(1).hold());
    env.schedule();
    exit(&mut env, first, 0, 0);
    let first_end = env.now;
    env.advance(10);
    exit(&mut env, second, 0, 0);
    exit(&mut env, requeued, 1, 0);
    handle(&mut env, Input::Cancel(waiting)).expect("pending");
    // A finished job put back in the queue is no longer an ended one.
    handle(
        &mut env,
        Input::Requeue {
            job: requeued,
            hold: Some(Hold::Requeued),
        },
    )
    .expect("finished");
    assert!(env.core.purge_finished(first_end).is_empty());
    assert_eq!(env.core.purge_finished(first_end + 1), vec![first]);
    env.core.sanity_check().expect("sane after a purge");
    assert_eq!(env.core.purge_finished(env.now + 1), vec![second, waiting]);
    env.core.sanity_check().expect("sane after a purge");
    assert!(env.core.job(first).is_none() && env.core.job(waiting).is_none());
    assert_eq!(
        env.core.job(requeued).map(|j| j.state()),
        Some(JobState::Pending)
    );
    assert!(env.core.purge_finished(env.now + 100).is_empty());
}
