//! Queue policy scenarios: priority order, backfill reservations, time
//! limits, pending reasons, preemption.

use spur_core::{
    Core, Effect, Hold, Input, JobState, KillCause, NodeId, Partition, PreemptMode, PreemptType,
    PriorityType, PriorityWeights, Reason, SchedConfig,
};

use crate::env::*;

#[test]
fn backfill_starts_a_short_job_that_does_not_delay_the_reservation() {
    let mut env = TestEnv::nvl72(1);
    let running = env.submit(gpu_job(10).time(3600));
    env.schedule();
    let big = env.submit(gpu_job(18).time(3600).name("big"));
    let short = env.submit(gpu_job(8).time(1800).name("short"));
    let long = env.submit(gpu_job(8).time(7200).name("long"));
    let started = env.schedule();
    assert_eq!(started.iter().map(|s| s.0).collect::<Vec<_>>(), vec![short]);
    let big_job = env.core.job(big).unwrap();
    assert_eq!(big_job.reason(), Reason::Resources);
    assert_eq!(big_job.expected_start(), Some(env.now + 3600));
    assert_eq!(env.core.job(long).unwrap().reason(), Reason::Priority);
    env.advance(3600);
    env.finish(running, 0);
    env.finish(short, 0);
    let started = env.schedule();
    assert_eq!(started[0].0, big);
}

#[test]
fn a_pass_counts_what_it_tried_planned_started_and_backfilled() {
    let mut env = TestEnv::nvl72(1);
    env.submit(gpu_job(10).time(3600));
    env.schedule();
    let first = env.core.last_pass();
    assert_eq!((first.queue, first.depth, first.started), (1, 1, 1));
    assert_eq!((first.planned, first.backfilled), (0, 0));
    env.submit(gpu_job(18).time(3600).name("big"));
    env.submit(gpu_job(8).time(1800).name("short"));
    env.submit(gpu_job(8).time(7200).name("long"));
    env.schedule();
    let pass = env.core.last_pass();
    assert_eq!((pass.queue, pass.depth), (3, 3));
    // big and long could not start and were planned for; short passed big.
    assert_eq!((pass.planned, pass.started, pass.backfilled), (2, 1, 1));
    assert!(pass.table_size > 0, "{pass:?}");
}

#[test]
fn time_min_lets_a_job_shrink_into_a_backfill_hole() {
    let mut env = TestEnv::nvl72(1);
    env.submit(gpu_job(10).time(3600));
    env.schedule();
    env.submit(gpu_job(18).time(3600));
    let flexible = env.submit(gpu_job(8).time(7200).time_min(1800));
    let started = env.schedule();
    assert_eq!(started[0].0, flexible);
    assert_eq!(env.core.job(flexible).unwrap().time_limit(), Some(3600));
}

#[test]
fn time_limit_kills_the_job_and_it_ends_as_timeout() {
    let mut env = TestEnv::nvl72(1);
    let mut spec = gpu_job(1).time(600).0;
    spec.signal = Some((10, 60));
    let job = env.submit(JobBuilder(spec));
    env.schedule();
    assert_eq!(env.core.next_wakeup(env.now), Some(env.now + 540));
    env.advance(540);
    env.take_effects();
    env.schedule();
    assert_eq!(
        env.take_effects(),
        vec![Effect::SignalJob { job, signal: 10 }]
    );
    env.advance(60);
    env.schedule();
    assert_eq!(
        env.take_effects(),
        vec![Effect::KillJob {
            job,
            cause: KillCause::TimeLimit,
            grace: 30
        }]
    );
    env.finish(job, 0);
    assert_eq!(env.core.job(job).unwrap().state(), JobState::Timeout);
}

#[test]
fn blocking_reasons_are_named_as_slurm_names_them() {
    let mut cl = cluster(18, nvl72_topology(1, None));
    let mut debug = Partition::new("debug", (0..4).map(NodeId).collect());
    debug.max_time = Some(1800);
    cl.partitions.push(debug);
    let mut env = TestEnv::new(cl, SchedConfig::default());
    let held = env.submit(gpu_job(1).hold());
    let over = env.submit(gpu_job(1).partition("debug").time(7200));
    let mut later = gpu_job(1).0;
    later.begin = Some(env.now + 100);
    let later = env.submit(JobBuilder(later));
    env.schedule();
    let reason = |id| env.core.job(id).unwrap().reason().as_str();
    assert_eq!(reason(held), "JobHeldUser");
    assert_eq!(reason(over), "PartitionTimeLimit");
    assert_eq!(reason(later), "BeginTime");
}

#[test]
fn higher_priority_tier_partition_goes_first() {
    let mut cl = cluster(18, nvl72_topology(1, None));
    let mut high = Partition::new("high", (0..18).map(NodeId).collect());
    high.priority_tier = 10;
    cl.partitions.push(high);
    let mut env = TestEnv::new(cl, SchedConfig::default());
    let low = env.submit(gpu_job(18));
    let urgent = env.submit(gpu_job(18).partition("high"));
    let started = env.schedule();
    assert_eq!(started[0].0, urgent);
    assert_eq!(env.core.job(low).unwrap().reason(), Reason::Resources);
}

#[test]
fn multifactor_age_and_nice_order_the_queue() {
    let weights = PriorityWeights {
        age: 1000,
        ..Default::default()
    };
    let config = SchedConfig {
        priority: PriorityType::Multifactor(weights),
        ..Default::default()
    };
    let mut env = TestEnv::new(cluster(18, nvl72_topology(1, None)), config);
    env.submit(gpu_job(18));
    env.schedule();
    let old = env.submit(gpu_job(18));
    env.advance(86_400);
    let young = env.submit(gpu_job(18));
    env.schedule();
    let p = |id| env.core.job(id).unwrap().priority();
    assert!(p(old) > p(young), "{} <= {}", p(old), p(young));
}

#[test]
fn priority_factors_are_the_terms_the_last_pass_summed() {
    let weights = PriorityWeights {
        age: 1000,
        job_size: 500,
        max_age: 4 * 86_400,
        ..Default::default()
    };
    let config = SchedConfig {
        priority: PriorityType::Multifactor(weights),
        ..Default::default()
    };
    let mut env = TestEnv::new(cluster(18, nvl72_topology(1, None)), config);
    let running = env.submit(gpu_job(18));
    env.schedule();
    let waiting = env.submit(gpu_job(9));
    env.advance(86_400);
    env.schedule();
    env.advance(600);
    let f = env.core.priority_factors(waiting).expect("pending");
    // A day of the four counted, as at the pass (not ten minutes later).
    assert_eq!(f.age, 250.0);
    assert_eq!(f.job_size, 250.0);
    assert_eq!(
        (f.fairshare, f.partition, f.qos, f.nice),
        (0.0, 0.0, 0.0, 0)
    );
    assert_eq!(f.priority(), env.core.job(waiting).unwrap().priority());
    assert_eq!(env.core.priority_factors(running), None, "not pending");
    let basic = TestEnv::nvl72(1);
    assert_eq!(basic.core.priority_factors(waiting), None);
}

#[test]
fn preemption_requeues_the_victim_that_loses_least_work() {
    let mut cl = cluster(18, nvl72_topology(1, None));
    cl.partitions[0].preempt_mode = PreemptMode::Requeue;
    let mut high = Partition::new("high", (0..18).map(NodeId).collect());
    high.priority_tier = 10;
    cl.partitions.push(high);
    let config = SchedConfig {
        preempt: PreemptType::PartitionPrio,
        ..Default::default()
    };
    let mut env = TestEnv::new(cl, config);
    let old = env.submit(gpu_job(9).name("old"));
    env.schedule();
    env.advance(3000);
    let young = env.submit(gpu_job(9).name("young"));
    env.schedule();
    env.advance(100);
    env.take_effects();
    let urgent = env.submit(gpu_job(9).partition("high"));
    assert!(env.schedule().is_empty());
    assert_eq!(
        env.take_effects(),
        vec![Effect::KillJob {
            job: young,
            cause: KillCause::PreemptRequeue,
            grace: 0
        }]
    );
    env.finish(young, 0);
    assert_eq!(env.core.job(young).unwrap().state(), JobState::Pending);
    let started = env.schedule();
    assert_eq!(started[0].0, urgent);
    assert_eq!(env.core.job(old).unwrap().state(), JobState::Running);
}

#[test]
fn cancelling_pending_and_running_jobs() {
    let mut env = TestEnv::nvl72(1);
    let running = env.submit(gpu_job(18));
    let pending = env.submit(gpu_job(18));
    env.schedule();
    let mut effects = Vec::new();
    env.core.cancel_job(pending, env.now, &mut effects).unwrap();
    assert_eq!(effects, vec![Effect::PendingJobEnded { job: pending }]);
    effects.clear();
    assert_eq!(env.core.job(pending).unwrap().state(), JobState::Cancelled);
    env.core.cancel_job(running, env.now, &mut effects).unwrap();
    assert_eq!(
        effects,
        vec![Effect::KillJob {
            job: running,
            cause: KillCause::Cancelled,
            grace: 30
        }]
    );
    env.finish(running, 0);
    assert_eq!(env.core.job(running).unwrap().state(), JobState::Cancelled);
}

#[test]
fn will_run_answers_when_and_where_a_job_would_start() {
    let mut env = TestEnv::nvl72(1);
    env.submit(gpu_job(10).time(3600));
    env.schedule();
    let now = env.now;
    let (at, nodes) = env
        .core
        .will_run(&gpu_job(8).0, now)
        .unwrap()
        .expect("fits now");
    assert_eq!((at, nodes.len()), (now, 8));
    let (at, nodes) = env
        .core
        .will_run(&gpu_job(18).0, now)
        .unwrap()
        .expect("fits later");
    assert_eq!((at, nodes.len()), (now + 3600, 18));
    assert_eq!(env.core.jobs().count(), 1, "will_run submits nothing");
    assert!(env
        .core
        .will_run(&gpu_job(1).partition("nosuch").0, now)
        .is_err());
}

#[test]
fn time_unlimited_takes_the_partitions_max_time_never_its_default() {
    use spur_core::{Cluster, Core, JobSpec, NodeConfig, NodeId, Partition, SchedConfig};
    let core_with = |max: Option<u64>| {
        let mut part = Partition::new("batch", vec![NodeId(0)]);
        part.is_default = true;
        part.default_time = Some(600);
        part.max_time = max;
        let cluster = Cluster {
            nodes: vec![NodeConfig::new("n1", 4, 1000, 0)],
            partitions: vec![part],
            ..Default::default()
        };
        Core::new(cluster, SchedConfig::default()).expect("valid cluster")
    };
    let unlimited = JobSpec {
        time_unlimited: true,
        ..Default::default()
    };
    for (max, want) in [(None, None), (Some(3600), Some(3600))] {
        let mut core = core_with(max);
        let id = core.submit_job(unlimited.clone(), 0).expect("accepted");
        assert_eq!(core.job(id).expect("exists").time_limit(), want);
        // Without -t the partition's DefaultTime applies.
        let id = core.submit_job(JobSpec::default(), 0).expect("accepted");
        assert_eq!(core.job(id).expect("exists").time_limit(), Some(600));
    }
}

#[test]
fn a_held_job_shows_its_hold_at_once_and_passes_leave_it_out_until_released() {
    let mut env = TestEnv::nvl72(1);
    env.submit(gpu_job(18).time(3600));
    env.schedule();
    let waiting = env.submit(gpu_job(4).time(600));
    let held = env.submit(gpu_job(4).time(600).hold());
    env.schedule();
    assert_eq!(env.core.last_pass().queue, 1, "the held job is not queued");
    let job = env.core.job(waiting).unwrap();
    assert!(job.expected_start().is_some() && job.priority() > 0);

    env.core
        .handle(Input::Hold(waiting, Hold::Admin), env.now, &mut Vec::new())
        .unwrap();
    let job = env.core.job(waiting).unwrap();
    assert_eq!(job.reason(), Reason::JobHeldAdmin);
    assert_eq!(
        (job.expected_start(), job.sched_nodes(), job.priority()),
        (None, &[][..], 0)
    );
    env.schedule();
    assert_eq!(env.core.last_pass().queue, 0);
    assert_eq!(env.core.job(held).unwrap().reason(), Reason::JobHeldUser);

    // A restarted controller shows the stored hold before its first pass.
    let mut fresh = Core::new(cluster(18, nvl72_topology(1, None)), SchedConfig::default())
        .expect("valid cluster");
    for job in env.core.jobs() {
        fresh.restore_job(job.record()).unwrap();
    }
    fresh.sanity_check().unwrap();
    assert_eq!(fresh.job(waiting).unwrap().reason(), Reason::JobHeldAdmin);
    assert_eq!(fresh.job(held).unwrap().reason(), Reason::JobHeldUser);

    env.core
        .handle(Input::Release(held), env.now, &mut Vec::new())
        .unwrap();
    env.core.sanity_check().unwrap();
    env.schedule();
    assert_eq!(env.core.last_pass().queue, 1);
    let job = env.core.job(held).unwrap();
    assert_eq!(job.reason(), Reason::Resources);
    assert!(job.expected_start().is_some());
}

#[test]
fn a_job_could_start_now_only_where_a_pass_could_start_it() {
    let mut env = TestEnv::nvl72(1);
    let one = env.submit(gpu_job(1));
    assert!(env.core.could_start_now(one));
    let held = env.submit(gpu_job(1).hold());
    assert!(!env.core.could_start_now(held));
    assert_eq!(env.schedule().len(), 1);
    assert!(!env.core.could_start_now(one), "running, not waiting");
    // 17 nodes left: a job of 17 could start, one of 18 could not, and a
    // pass agrees on both.
    let seventeen = env.submit(gpu_job(17));
    let eighteen = env.submit(gpu_job(18));
    assert!(env.core.could_start_now(seventeen));
    assert!(!env.core.could_start_now(eighteen));
    let started: Vec<_> = env.schedule().into_iter().map(|(id, _)| id).collect();
    assert_eq!(started, vec![seventeen]);
    // A full cluster: nothing could start, and once nodes are free again
    // a waiting job could.
    let small = env.submit(JobBuilder::new().cpus(1, 1));
    assert!(!env.core.could_start_now(small));
    assert!(env.schedule().is_empty());
    env.finish(one, 0);
    assert!(env.core.could_start_now(small));
    // A node down is no room.
    let mut effects = Vec::new();
    for n in 0..18 {
        let _ = env.core.handle(
            Input::NodeDown(NodeId(n), "test".into()),
            env.now,
            &mut effects,
        );
    }
    assert!(!env.core.could_start_now(small));
}

#[test]
fn with_preemption_a_job_could_always_start_now() {
    let config = SchedConfig {
        preempt: PreemptType::PartitionPrio,
        ..Default::default()
    };
    let mut env = TestEnv::new(cluster(18, nvl72_topology(1, None)), config);
    env.submit(gpu_job(18));
    env.schedule();
    let waiting = env.submit(gpu_job(1));
    assert!(env.core.could_start_now(waiting));
}
