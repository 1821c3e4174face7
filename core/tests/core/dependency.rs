//! Job dependency scenarios: afterok/afternotok/afterany/after+time chains,
//! singleton, aftercorr between arrays, `?` alternatives, dependencies that
//! can never be met (pending or cancelled), updates, forgotten jobs and
//! persistence.

use spur_core::{
    CoreError, DependencyError, Effect, Input, Job, JobId, JobRecord, JobState, Reason,
    SchedConfig, SubmitError,
};

use crate::env::*;

fn small() -> JobBuilder {
    JobBuilder::new().name("dep")
}

fn started(effects: &[Effect]) -> Vec<JobId> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartJob { job, .. } => Some(*job),
            _ => None,
        })
        .collect()
}

fn reason(env: &TestEnv, id: JobId) -> Reason {
    env.core.job(id).unwrap().reason()
}

fn shown(env: &TestEnv, id: JobId) -> Option<String> {
    env.core.job(id).unwrap().dependency_str()
}

#[test]
fn afterok_waits_for_success_then_runs_and_is_cleared() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    env.schedule();
    let b = env.submit(small().dependency(&format!("afterok:{a}")));
    assert!(env.pass().is_empty());
    assert_eq!(reason(&env, b), Reason::Dependency);
    assert_eq!(shown(&env, b), Some(format!("afterok:{a}(unfulfilled)")));
    env.finish(a, 0);
    let effects = env.pass();
    assert_eq!(effects[0], Effect::DependencyChanged { job: b });
    assert_eq!(started(&effects), vec![b]);
    assert_eq!(env.core.job(b).unwrap().dependency(), None);
    assert_eq!(shown(&env, b), None);
}

#[test]
fn afterok_on_a_failed_job_is_never_satisfied() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    let b = env.submit(small().dependency(&format!("afterok:{a}")));
    env.schedule();
    env.finish(a, 1);
    let effects = env.pass();
    assert_eq!(effects, vec![Effect::DependencyChanged { job: b }]);
    assert_eq!(reason(&env, b), Reason::DependencyNeverSatisfied);
    assert_eq!(shown(&env, b), Some(format!("afterok:{a}(failed)")));
    assert_eq!(env.core.job(b).unwrap().state(), JobState::Pending);
    // Decided once: later passes change nothing.
    env.advance(60);
    assert!(env.pass().is_empty());
}

#[test]
fn afternotok_runs_after_a_failure_and_never_after_a_success() {
    let mut env = TestEnv::nvl72(1);
    let bad = env.submit(small());
    let good = env.submit(small());
    let after_bad = env.submit(small().dependency(&format!("afternotok:{bad}")));
    let after_good = env.submit(small().dependency(&format!("afternotok:{good}")));
    env.schedule();
    env.finish(bad, 2);
    env.finish(good, 0);
    let effects = env.pass();
    assert_eq!(started(&effects), vec![after_bad]);
    assert_eq!(reason(&env, after_good), Reason::DependencyNeverSatisfied);
}

#[test]
fn afterany_runs_after_any_end_and_the_old_form_means_afterany() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    let b = env.submit(small().dependency(&format!("afterany:{a}")));
    let c = env.submit(small().dependency(&a.to_string()));
    env.schedule();
    assert_eq!(shown(&env, c), Some(format!("afterany:{a}(unfulfilled)")));
    env.finish(a, 9);
    assert_eq!(started(&env.pass()), vec![b, c]);
}

#[test]
fn after_with_a_time_waits_minutes_after_the_start() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small().hold());
    let b = env.submit(small().dependency(&format!("after:{a}+2")));
    env.schedule();
    assert_eq!(reason(&env, b), Reason::Dependency);
    env.core
        .handle(Input::Release(a), env.now, &mut Vec::new())
        .unwrap();
    let start = env.now;
    assert_eq!(started(&env.pass()), vec![a]);
    assert_eq!(shown(&env, b), Some(format!("after:{a}+2(unfulfilled)")));
    assert_eq!(env.core.next_wakeup(env.now), Some(start + 120));
    env.advance(119);
    assert!(env.pass().is_empty());
    env.advance(1);
    assert_eq!(started(&env.pass()), vec![b]);
    // `after` a job cancelled before it started is met at once.
    let c = env.submit(small().hold());
    let d = env.submit(small().dependency(&format!("after:{c}")));
    env.core.cancel_job(c, env.now, &mut Vec::new()).unwrap();
    assert_eq!(started(&env.pass()), vec![d]);
}

#[test]
fn singleton_runs_one_job_of_a_user_and_name_at_a_time() {
    let mut env = TestEnv::nvl72(1);
    let single = || small().name("s").dependency("singleton");
    let (j1, j2, j3) = (
        env.submit(single()),
        env.submit(single()),
        env.submit(single()),
    );
    let other = env.submit(JobBuilder::new().name("t").dependency("singleton"));
    let effects = env.pass();
    assert_eq!(started(&effects), vec![j1, other]);
    assert_eq!(reason(&env, j2), Reason::Dependency);
    assert_eq!(shown(&env, j3).as_deref(), Some("singleton(unfulfilled)"));
    env.finish(j1, 0);
    assert_eq!(started(&env.pass()), vec![j2]);
    assert_eq!(reason(&env, j3), Reason::Dependency);
    env.finish(j2, 1);
    assert_eq!(started(&env.pass()), vec![j3]);
}

#[test]
fn aftercorr_runs_each_task_after_its_counterpart() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small().array("0-2"));
    env.schedule();
    let (a0, a1) = (JobId(a.0 + 1), JobId(a.0 + 2));
    let b = env.submit(small().array("0-2").dependency(&format!("aftercorr:{a}")));
    assert_eq!(
        shown(&env, b),
        Some(format!("aftercorr:{a}_*(unfulfilled)"))
    );
    env.take_effects();
    let effects = env.pass();
    // The tasks wait as jobs of their own; the record keeps the last.
    let (b0, b1) = (JobId(b.0 + 1), JobId(b.0 + 2));
    assert_eq!(
        effects,
        vec![
            Effect::ArrayTaskSplit {
                array_job: b,
                task: 0,
                job: b0
            },
            Effect::ArrayTaskSplit {
                array_job: b,
                task: 1,
                job: b1
            },
        ]
    );
    assert_eq!(env.core.job(b).unwrap().array_task_id(), Some(2));
    for id in [b0, b1, b] {
        assert_eq!(reason(&env, id), Reason::Dependency);
    }
    env.finish(a1, 0);
    assert_eq!(started(&env.pass()), vec![b1]);
    env.finish(a0, 1);
    env.pass();
    assert_eq!(reason(&env, b0), Reason::DependencyNeverSatisfied);
    assert_eq!(reason(&env, b), Reason::Dependency);
    env.finish(a, 0);
    assert_eq!(started(&env.pass()), vec![b]);
}

#[test]
fn with_a_question_mark_any_part_suffices() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    let b = env.submit(small());
    let either = env.submit(small().dependency(&format!("afterok:{a}?afterok:{b}")));
    let both = env.submit(small().dependency(&format!("afterok:{a},afterok:{b}")));
    env.schedule();
    env.finish(a, 1);
    env.pass();
    assert_eq!(reason(&env, either), Reason::Dependency);
    assert_eq!(
        shown(&env, either),
        Some(format!("afterok:{a}(failed)?afterok:{b}(unfulfilled)"))
    );
    // One failed part of a `,` list is enough to fail it.
    assert_eq!(reason(&env, both), Reason::DependencyNeverSatisfied);
    env.finish(b, 0);
    assert_eq!(started(&env.pass()), vec![either]);
    // Found never satisfiable, `both` is not looked at again (Slurm shows
    // the rest as it was).
    assert_eq!(
        shown(&env, both),
        Some(format!("afterok:{a}(failed),afterok:{b}(unfulfilled)"))
    );
}

#[test]
fn kill_on_invalid_dep_cancels_the_job_with_slurms_reason() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    let b = env.submit(
        small()
            .dependency(&format!("afterok:{a}"))
            .kill_on_invalid_dep(true),
    );
    env.schedule();
    env.finish(a, 1);
    let effects = env.pass();
    assert_eq!(
        effects,
        vec![
            Effect::DependencyChanged { job: b },
            Effect::PendingJobEnded { job: b }
        ]
    );
    let job = env.core.job(b).unwrap();
    assert_eq!(job.state(), JobState::Cancelled);
    assert_eq!(job.reason(), Reason::DependencyNeverSatisfied);
    assert_eq!(job.dependency_str(), Some(format!("afterok:{a}(failed)")));
}

#[test]
fn kill_invalid_depend_cancels_unless_the_job_says_no() {
    let config = SchedConfig {
        kill_invalid_depend: true,
        ..SchedConfig::default()
    };
    let mut env = TestEnv::new(cluster(18, nvl72_topology(1, None)), config);
    let a = env.submit(small());
    let killed = env.submit(small().dependency(&format!("afterok:{a}")));
    let kept = env.submit(
        small()
            .dependency(&format!("afterok:{a}"))
            .kill_on_invalid_dep(false),
    );
    env.schedule();
    env.finish(a, 1);
    env.pass();
    assert_eq!(env.core.job(killed).unwrap().state(), JobState::Cancelled);
    assert_eq!(env.core.job(kept).unwrap().state(), JobState::Pending);
    assert_eq!(reason(&env, kept), Reason::DependencyNeverSatisfied);
}

#[test]
fn a_job_id_the_core_does_not_know_is_accepted_and_met() {
    // Slurm 22.05 takes `--dependency=afterok:999999` (reference 69): the
    // job is "gone", so the dependency is lifted.
    let mut env = TestEnv::nvl72(1);
    let b = env.submit(small().dependency("afterok:999999"));
    let effects = env.pass();
    assert_eq!(effects[0], Effect::DependencyChanged { job: b });
    assert_eq!(started(&effects), vec![b]);
}

#[test]
fn bad_self_and_circular_dependencies_are_refused() {
    let mut env = TestEnv::nvl72(1);
    let err = env
        .core
        .submit_job(small().dependency("afterok:").0, env.now)
        .unwrap_err();
    assert_eq!(err, SubmitError::Dependency(DependencyError::Invalid));
    assert_eq!(err.to_string(), "Job dependency problem");
    let own = env.core.next_job_id();
    assert_eq!(
        env.core
            .submit_job(small().dependency(&format!("afterok:{own}")).0, env.now),
        Err(SubmitError::Dependency(DependencyError::Invalid))
    );
    let a = env.submit(small().hold());
    let b = env.submit(small().dependency(&format!("afterok:{a}")));
    let c = env.submit(small().dependency(&format!("afterany:{b}")));
    assert_eq!(
        env.core.set_dependency(a, &format!("afterok:{c}")),
        Err(CoreError::Dependency(DependencyError::Circular))
    );
    assert_eq!(
        env.core.set_dependency(a, &format!("afterok:{a}")),
        Err(CoreError::Dependency(DependencyError::Invalid))
    );
    assert_eq!(env.core.job(a).unwrap().dependency(), None);
}

#[test]
fn a_dependency_on_an_array_waits_for_every_task() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small().array("0-1"));
    let all = env.submit(small().dependency(&format!("afterok:{a}")));
    let one = env.submit(small().dependency(&format!("afterok:{a}_0")));
    assert_eq!(
        shown(&env, all),
        Some(format!("afterok:{a}_*(unfulfilled)"))
    );
    assert_eq!(
        shown(&env, one),
        Some(format!("afterok:{a}_0(unfulfilled)"))
    );
    env.schedule();
    env.finish(env.task(a, 0), 0);
    assert_eq!(started(&env.pass()), vec![one]);
    assert_eq!(reason(&env, all), Reason::Dependency);
    env.finish(a, 0);
    assert_eq!(started(&env.pass()), vec![all]);
}

#[test]
fn an_array_with_a_failed_task_never_satisfies_afterok() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small().array("0-1"));
    let all = env.submit(small().dependency(&format!("afterok:{a}")));
    let any = env.submit(small().dependency(&format!("afternotok:{a}")));
    env.schedule();
    env.finish(env.task(a, 0), 1);
    env.finish(a, 0);
    assert_eq!(started(&env.pass()), vec![any]);
    assert_eq!(reason(&env, all), Reason::DependencyNeverSatisfied);
}

#[test]
fn scontrol_update_replaces_or_clears_a_pending_jobs_dependency() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    env.schedule();
    let b = env.submit(small().dependency(&format!("afterok:{a}")));
    env.finish(a, 1);
    env.pass();
    assert_eq!(reason(&env, b), Reason::DependencyNeverSatisfied);
    env.core
        .handle(
            Input::SetDependency {
                job: b,
                dependency: format!("afternotok:{a}"),
            },
            env.now,
            &mut Vec::new(),
        )
        .unwrap();
    assert_eq!(shown(&env, b), Some(format!("afternotok:{a}(unfulfilled)")));
    assert_eq!(started(&env.pass()), vec![b]);
    assert!(matches!(
        env.core.set_dependency(b, ""),
        Err(CoreError::Transition(_))
    ));
    let c = env.submit(small().dependency(&format!("afterok:{b}")));
    env.core.set_dependency(c, "0").unwrap();
    assert_eq!(env.core.job(c).unwrap().spec.dependency, None);
    assert_eq!(started(&env.pass()), vec![c]);
}

#[test]
fn a_job_named_by_an_undecided_dependency_outlives_min_job_age() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    let b = env.submit(small().dependency(&format!("afterok:{a}")));
    env.schedule();
    env.finish(a, 1);
    // Purged before a pass decided b's dependency: a must stay, or b
    // would run as if a were gone.
    assert!(env.core.purge_finished(env.now + 1).is_empty());
    env.pass();
    assert_eq!(env.core.purge_finished(env.now + 1), vec![a]);
    env.pass();
    assert_eq!(reason(&env, b), Reason::DependencyNeverSatisfied);
    assert_eq!(shown(&env, b), Some(format!("afterok:{a}(failed)")));
    // A dependency on the forgotten job is met, as in Slurm.
    let c = env.submit(small().dependency(&format!("afterok:{a}")));
    assert_eq!(started(&env.pass()), vec![c]);
}

#[test]
fn an_array_record_is_purged_after_its_tasks() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small().array("0-1"));
    env.schedule();
    let a0 = JobId(a.0 + 1);
    env.finish(a, 0);
    env.advance(100);
    env.finish(a0, 0);
    assert!(env.core.purge_finished(env.now - 50).is_empty());
    assert_eq!(env.core.purge_finished(env.now + 1), vec![a, a0]);
    assert!(!env.core.is_array(a));
    env.core.sanity_check().unwrap();
}

#[test]
fn decided_dependencies_survive_a_restart_without_the_jobs_they_name() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(small());
    let waiting = env.submit(small().dependency(&format!("afterok:{a}")));
    let killed = env.submit(
        small()
            .dependency(&format!("afterok:{a}"))
            .kill_on_invalid_dep(true),
    );
    env.schedule();
    env.finish(a, 1);
    env.pass();
    // Restore without a, as after MinJobAge: what was decided stays.
    let records: Vec<JobRecord> = env
        .core
        .jobs()
        .filter(|j| j.id != a)
        .map(Job::record)
        .collect();
    let mut restored = TestEnv::nvl72(1);
    restored.now = env.now;
    for r in records {
        restored.core.restore_job(r).unwrap();
    }
    restored.core.sanity_check().unwrap();
    assert!(restored.pass().is_empty());
    assert_eq!(reason(&restored, waiting), Reason::DependencyNeverSatisfied);
    assert_eq!(
        shown(&restored, waiting),
        Some(format!("afterok:{a}(failed)"))
    );
    let job = restored.core.job(killed).unwrap();
    assert_eq!(job.state(), JobState::Cancelled);
    assert_eq!(job.reason(), Reason::DependencyNeverSatisfied);
}
