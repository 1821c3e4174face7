//! The journal: a busy run's changes, replayed into a fresh core, give the
//! same state, because every change enters through `Core::handle` or a
//! scheduling pass and the core is deterministic.

use spur_core::{
    Cluster, Core, Entry, ExitStatus, Hold, Input, JobId, NodeId, Outcome, Reconfiguration,
    SchedConfig, StepShape,
};

use crate::env::*;

/// Everything a core holds of its jobs and nodes, comparable.
fn state(core: &Core) -> String {
    let jobs: Vec<String> = core.jobs().map(|j| format!("{:?}", j.record())).collect();
    let nodes: Vec<String> = core.nodes().iter().map(|n| format!("{n:?}")).collect();
    format!("{jobs:#?}\n{nodes:#?}")
}

fn fresh() -> Core {
    Core::new(
        cluster(2 * DOMAIN, nvl72_topology(2, None)),
        SchedConfig::default(),
    )
    .expect("valid cluster")
}

#[test]
fn a_busy_run_replayed_into_a_fresh_core_ends_in_the_same_state() {
    let mut env = TestEnv {
        core: fresh(),
        now: 1_000_000,
        effects: Vec::new(),
    };
    env.core.start_journal();
    let handle = |env: &mut TestEnv, input: Input| {
        let mut effects = Vec::new();
        let r = env.core.handle(input, env.now, &mut effects);
        env.effects.extend(effects);
        r
    };
    // Submits of every kind, a pass, and the changes a site makes.
    let running = env.submit(gpu_job(2).time(3600));
    let failing = env.submit(gpu_job(1));
    let held = env.submit(gpu_job(1).hold());
    let array = env.submit(gpu_job(1).array("0-5%2"));
    let dependent = env.submit(gpu_job(1).dependency(&format!("afterok:{running}")));
    let big = env.submit(gpu_job(30).segment(15));
    env.schedule();
    env.advance(30);
    handle(
        &mut env,
        Input::SetTimeLimit {
            job: running,
            limit: Some(7200),
        },
    )
    .expect("limit");
    handle(
        &mut env,
        Input::Rename {
            job: held,
            name: "renamed".into(),
        },
    )
    .expect("name");
    handle(
        &mut env,
        Input::SetNice {
            job: held,
            nice: 50,
        },
    )
    .expect("nice");
    handle(
        &mut env,
        Input::SetPriority {
            job: dependent,
            priority: 9,
        },
    )
    .expect("priority");
    handle(&mut env, Input::SetArrayThrottle { array, throttle: 3 }).expect("throttle");
    handle(&mut env, Input::SplitArrayTask { array, task: 5 }).expect("split");
    handle(
        &mut env,
        Input::CancelArrayTasks {
            array,
            tasks: [4].into_iter().collect(),
        },
    )
    .expect("cancel task");
    // Steps in the running job.
    let shape = StepShape {
        ntasks: Some(2),
        cpus_per_task: 1,
        exact: true,
        ..StepShape::default()
    };
    handle(
        &mut env,
        Input::StartStep {
            job: running,
            step: 0,
            shape: shape.clone(),
        },
    )
    .expect("step 0");
    handle(
        &mut env,
        Input::StartStep {
            job: running,
            step: 1,
            shape,
        },
    )
    .expect("step 1");
    handle(
        &mut env,
        Input::EndStep {
            job: running,
            step: 0,
        },
    )
    .expect("end step 0");
    // Ends, a node going down and coming back, holds and releases.
    handle(
        &mut env,
        Input::JobExited {
            job: failing,
            status: ExitStatus { code: 3, signal: 0 },
        },
    )
    .expect("exit");
    handle(&mut env, Input::Release(held)).expect("release");
    handle(&mut env, Input::Hold(held, Hold::Admin)).expect("hold");
    handle(&mut env, Input::Drain(NodeId(35), "maintenance".into())).expect("drain");
    handle(
        &mut env,
        Input::NodeDown(NodeId(34), "Not responding".into()),
    )
    .expect("down");
    env.schedule();
    env.advance(60);
    handle(&mut env, Input::NodeUp(NodeId(34))).expect("up");
    handle(&mut env, Input::Resume(NodeId(35))).expect("resume");
    handle(&mut env, Input::Cancel(big)).expect("cancel");
    // A configuration the jobs do not fit is refused and changes nothing;
    // one with a third NVLink domain is taken, and work lands on it.
    let before = state(&env.core);
    let empty = Reconfiguration {
        cluster: Cluster::default(),
        config: SchedConfig::default(),
    };
    assert!(handle(&mut env, Input::Reconfigure(Box::new(empty))).is_err());
    assert_eq!(state(&env.core), before);
    let grown = Reconfiguration {
        cluster: cluster(3 * DOMAIN, nvl72_topology(3, None)),
        config: SchedConfig {
            max_job_count: 20_000,
            ..SchedConfig::default()
        },
    };
    let usage_before = env.core.shares(env.now);
    assert!(!usage_before.is_empty(), "jobs that ran were charged");
    match handle(&mut env, Input::Reconfigure(Box::new(grown))) {
        Ok(Outcome::Reconfigured(renumber)) => {
            assert_eq!(renumber.len(), 2 * DOMAIN as usize);
            assert!(renumber
                .iter()
                .enumerate()
                .all(|(i, n)| *n == Some(NodeId(i as u32))));
        }
        other => panic!("not reconfigured: {other:?}"),
    }
    assert_eq!(env.core.nodes().len(), 3 * DOMAIN as usize);
    // Past usage is the users', and stays.
    assert_eq!(env.core.shares(env.now), usage_before);
    let wide = env.submit(gpu_job(4 * 3 * DOMAIN / 2).segment(DOMAIN / 2));
    // Refused inputs are journaled and refused again on replay.
    assert!(handle(&mut env, Input::Cancel(JobId(9999))).is_err());
    env.schedule();
    for (job, _) in env.schedule() {
        let status = ExitStatus::default();
        handle(&mut env, Input::JobExited { job, status }).expect("exit");
    }
    env.advance(600);
    env.schedule();
    let cutoff = env.now;
    handle(
        &mut env,
        Input::PurgeFinished {
            ended_before: cutoff,
        },
    )
    .expect("purge");
    env.core.sanity_check().expect("sane");
    assert!(env.core.job(wide).is_some());

    let journal: Vec<Entry> = env.core.take_journal();
    assert!(journal.len() > 30, "{}", journal.len());
    let mut replayed = fresh();
    replayed.replay(&journal, &mut Vec::new());
    replayed.sanity_check().expect("sane after replay");
    assert_eq!(state(&replayed), state(&env.core));
    // Without its last pass and purge, the state is not the same.
    let mut partial = fresh();
    partial.replay(&journal[..journal.len() - 2], &mut Vec::new());
    assert_ne!(state(&partial), state(&env.core));
    // The journal survives a round trip through bytes, as a log would.
    let bytes = serde_json::to_vec(&journal).expect("serializes");
    let back: Vec<Entry> = serde_json::from_slice(&bytes).expect("deserializes");
    let mut from_log = fresh();
    from_log.replay(&back, &mut Vec::new());
    assert_eq!(state(&from_log), state(&env.core));
}
