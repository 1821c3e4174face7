//! Head passes: between full passes, what came free goes to the head of
//! the last full pass's order, in that order, and nothing passes a job
//! that cannot start or one filed since.

use spur_core::{Effect, Input, JobId, PassSummary, Reason};

use crate::env::*;

/// Runs a head pass; returns the jobs it started, in order, and its summary.
fn head(env: &mut TestEnv) -> (Vec<JobId>, PassSummary) {
    let mut effects = Vec::new();
    let summary = env.core.schedule_head(env.now, &mut effects);
    env.core.sanity_check().expect("sane after a head pass");
    let started = effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartJob { job, .. } => Some(*job),
            _ => None,
        })
        .collect();
    (started, summary)
}

/// One domain (18 nodes) scheduled by `config`, taken by a job.
fn full_domain(config: spur_core::SchedConfig) -> (TestEnv, JobId) {
    let mut env = TestEnv::new(cluster(DOMAIN, nvl72_topology(1, None)), config);
    let running = env.submit(gpu_job(18).time(3600));
    env.schedule();
    env.advance(10);
    (env, running)
}

/// A scheduler that tries at most `depth` jobs in a head pass.
fn queue_depth(depth: u32) -> spur_core::SchedConfig {
    spur_core::SchedConfig {
        queue_depth: depth,
        ..spur_core::SchedConfig::default()
    }
}

/// One domain taken by a job; `pending` queued behind it and ordered by a
/// full pass.
fn queue_behind_a_full_cluster(pending: &[u32]) -> (TestEnv, JobId, Vec<JobId>) {
    let (mut env, running) = full_domain(spur_core::SchedConfig::default());
    let queued = pending
        .iter()
        .map(|&n| env.submit(gpu_job(n).time(600)))
        .collect();
    assert!(env.schedule().is_empty());
    env.advance(10);
    (env, running, queued)
}

#[test]
fn a_head_pass_starts_the_head_of_the_queue_and_stops_at_the_first_that_does_not_fit() {
    let (mut env, running, q) = queue_behind_a_full_cluster(&[6, 6, 18, 6]);
    env.finish(running, 0);
    let (started, summary) = head(&mut env);
    // The third needs the whole domain: the fourth, which would fit in
    // what is left, does not pass it.
    assert_eq!(started, vec![q[0], q[1]]);
    assert_eq!((summary.started, summary.depth, summary.planned), (2, 3, 0));
    assert_eq!(env.core.job(q[3]).unwrap().reason(), Reason::Priority);
    // The full pass backfills it: it ends before the big one could start.
    let started = env.schedule();
    assert_eq!(started.iter().map(|s| s.0).collect::<Vec<_>>(), vec![q[3]]);
}

#[test]
fn a_head_pass_passes_no_job_submitted_since_the_full_pass() {
    let (mut env, running, q) = queue_behind_a_full_cluster(&[6]);
    // Of a higher priority than the queued one, not yet ordered by a pass.
    let urgent = env.submit(gpu_job(18).time(600).priority(u32::MAX));
    env.finish(running, 0);
    let (started, summary) = head(&mut env);
    assert!(started.is_empty(), "{started:?}");
    assert_eq!(summary.depth, 0);
    let started = env.schedule();
    assert_eq!(started[0].0, urgent);
    assert_eq!(
        env.core.job(q[0]).unwrap().state(),
        spur_core::JobState::Pending
    );
}

#[test]
fn a_job_submitted_since_the_full_pass_stops_a_head_pass_only_at_its_place() {
    let (mut env, running, q) = queue_behind_a_full_cluster(&[6, 6]);
    // Later, and of the same priority: its place is after the two.
    env.advance(5);
    let later = env.submit(gpu_job(6).time(600));
    env.finish(running, 0);
    let (started, _) = head(&mut env);
    assert_eq!(started, vec![q[0], q[1]]);
    assert_eq!(
        env.core.job(later).unwrap().state(),
        spur_core::JobState::Pending
    );
}

#[test]
fn a_head_pass_leaves_a_job_held_or_raised_since_the_full_pass_to_the_full_pass() {
    let (mut env, running, q) = queue_behind_a_full_cluster(&[6, 6, 6]);
    env.core
        .handle(
            Input::Hold(q[0], spur_core::Hold::User),
            env.now,
            &mut Vec::new(),
        )
        .expect("hold");
    // Raised above the others since the pass: the head pass stops there.
    env.core
        .handle(
            Input::SetPriority {
                job: q[2],
                priority: u32::MAX,
            },
            env.now,
            &mut Vec::new(),
        )
        .expect("priority");
    env.finish(running, 0);
    let (started, _) = head(&mut env);
    assert!(started.is_empty(), "{started:?}");
    let started: Vec<JobId> = env.schedule().into_iter().map(|s| s.0).collect();
    assert_eq!(started, vec![q[2], q[1]]);
}

#[test]
fn a_head_pass_with_nothing_free_starts_nothing_and_changes_no_reason() {
    let (mut env, _running, q) = queue_behind_a_full_cluster(&[6, 6]);
    let before: Vec<Reason> = q
        .iter()
        .map(|&id| env.core.job(id).unwrap().reason())
        .collect();
    let (started, summary) = head(&mut env);
    assert!(started.is_empty());
    assert_eq!(summary.depth, 1);
    let after: Vec<Reason> = q
        .iter()
        .map(|&id| env.core.job(id).unwrap().reason())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn a_journal_with_head_passes_replays_into_the_same_state() {
    let mut env = TestEnv::nvl72(1);
    env.core.start_journal();
    let running = env.submit(gpu_job(18).time(3600));
    env.schedule();
    let queued: Vec<JobId> = [6, 6, 18].iter().map(|&n| env.submit(gpu_job(n))).collect();
    env.schedule();
    env.advance(60);
    env.core
        .handle(
            Input::JobExited {
                job: running,
                status: spur_core::ExitStatus { code: 0, signal: 0 },
            },
            env.now,
            &mut Vec::new(),
        )
        .expect("exit");
    let (started, _) = head(&mut env);
    assert_eq!(started, queued[..2]);
    let journal = env.core.take_journal();
    let mut replayed = spur_core::Core::new(
        cluster(DOMAIN, nvl72_topology(1, None)),
        spur_core::SchedConfig::default(),
    )
    .expect("valid cluster");
    replayed.replay(&journal, &mut Vec::new());
    let records = |core: &spur_core::Core| -> Vec<String> {
        core.jobs().map(|j| format!("{:?}", j.record())).collect()
    };
    assert_eq!(records(&replayed), records(&env.core));
}

#[test]
fn a_head_pass_tries_at_most_default_queue_depth_jobs() {
    let (mut env, running) = full_domain(queue_depth(2));
    let q: Vec<JobId> = (0..3).map(|_| env.submit(gpu_job(6).time(600))).collect();
    env.schedule();
    env.finish(running, 0);
    let (started, summary) = head(&mut env);
    assert_eq!(started, q[..2]);
    assert_eq!(summary.depth, 2);
    // The full pass tries them all.
    let started: Vec<JobId> = env.schedule().into_iter().map(|s| s.0).collect();
    assert_eq!(started, q[2..]);
}

#[test]
fn each_task_an_array_starts_in_a_head_pass_counts_toward_default_queue_depth() {
    let (mut env, running) = full_domain(queue_depth(2));
    env.submit(gpu_job(6).time(600).array("0-2"));
    env.schedule();
    env.finish(running, 0);
    let (started, summary) = head(&mut env);
    assert_eq!((started.len(), summary.depth), (2, 2));
}

#[test]
fn a_head_pass_sees_all_only_while_the_full_pass_order_holds_every_waiting_job() {
    let (mut env, running, q) = queue_behind_a_full_cluster(&[6, 6]);
    assert!(env.core.head_sees_all());
    // Filed since the full pass: not in its order.
    let later = env.submit(gpu_job(6));
    assert!(!env.core.head_sees_all());
    env.schedule();
    assert!(env.core.head_sees_all());
    // Cancelled: gone from the queue, so no longer a job the order lacks.
    env.core
        .handle(Input::Cancel(later), env.now, &mut Vec::new())
        .expect("cancel");
    assert!(env.core.head_sees_all());
    // Left out of the order: waits on a dependency.
    env.submit(gpu_job(6).dependency(&format!("afterok:{}", q[0])));
    env.schedule();
    assert!(!env.core.head_sees_all());
    env.finish(running, 0);
    head(&mut env);
    assert!(!env.core.head_sees_all());
}

#[test]
fn the_cluster_has_room_until_every_node_is_taken_or_held_whole() {
    let mut env = TestEnv::nvl72(1);
    assert!(env.core.has_room());
    // One exclusive job on every node: each held whole.
    let jobs: Vec<JobId> = (0..DOMAIN).map(|_| env.submit(gpu_job(1))).collect();
    env.schedule();
    assert!(!env.core.has_room());
    env.finish(jobs[0], 0);
    assert!(env.core.has_room());
}
