//! Steps laid out over a running job: block distribution of tasks, GPUs of
//! the job per node, and Slurm's refusals.

use spur_core::{StepError, StepShape};

use crate::env::{gpu_job, TestEnv};

fn running(env: &mut TestEnv, nodes: u32) -> spur_core::JobId {
    let id = env.submit(gpu_job(nodes));
    env.schedule();
    assert_eq!(env.core.job(id).unwrap().allocation().len(), nodes as usize);
    id
}

#[test]
fn tasks_fill_the_jobs_nodes_in_blocks_with_all_their_gpus() {
    let mut env = TestEnv::nvl72(1);
    let job = running(&mut env, 4);
    let parts = env
        .core
        .layout_step(
            job,
            &StepShape {
                ntasks: Some(16),
                nodes: Some(4),
                ..Default::default()
            },
        )
        .expect("fits");
    let tasks: Vec<Vec<u32>> = parts.iter().map(|p| p.tasks.clone()).collect();
    assert_eq!(
        tasks,
        vec![
            vec![0, 1, 2, 3],
            vec![4, 5, 6, 7],
            vec![8, 9, 10, 11],
            vec![12, 13, 14, 15]
        ]
    );
    assert!(parts.iter().all(|p| p.gpus == vec![0, 1, 2, 3]));
    // Seven tasks over three nodes: the first nodes take one more.
    let parts = env
        .core
        .layout_step(
            job,
            &StepShape {
                ntasks: Some(7),
                nodes: Some(3),
                gpus_per_task: Some(1),
                ..Default::default()
            },
        )
        .expect("fits");
    let counts: Vec<usize> = parts.iter().map(|p| p.tasks.len()).collect();
    assert_eq!(counts, vec![3, 2, 2]);
    assert_eq!(parts[0].gpus, vec![0, 1, 2]);
    assert_eq!(parts[2].tasks, vec![5, 6]);
}

#[test]
fn a_step_defaults_to_one_task_per_node_of_the_job() {
    let mut env = TestEnv::nvl72(1);
    let job = running(&mut env, 2);
    let parts = env
        .core
        .layout_step(job, &StepShape::default())
        .expect("fits");
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1].tasks, vec![1]);
    let one = env
        .core
        .layout_step(
            job,
            &StepShape {
                ntasks: Some(1),
                ..Default::default()
            },
        )
        .expect("fits");
    assert_eq!(one.len(), 1);
}

#[test]
fn steps_beyond_the_job_are_refused_with_slurms_errors() {
    let mut env = TestEnv::nvl72(1);
    let job = running(&mut env, 2);
    let layout = |shape: StepShape| env.core.layout_step(job, &shape);
    assert_eq!(
        layout(StepShape {
            nodes: Some(3),
            ..Default::default()
        }),
        Err(StepError::NodeConfig)
    );
    assert_eq!(
        layout(StepShape {
            gpus_per_node: Some(5),
            ..Default::default()
        }),
        Err(StepError::Gres)
    );
    assert_eq!(
        layout(StepShape {
            ntasks: Some(2),
            cpus_per_task: 200,
            ..Default::default()
        }),
        Err(StepError::TooManyCpus)
    );
    assert_eq!(
        layout(StepShape {
            ntasks: Some(1),
            nodes: Some(2),
            ..Default::default()
        }),
        Err(StepError::TaskCount)
    );
    let pending = env.submit(gpu_job(18));
    assert_eq!(
        env.core.layout_step(pending, &StepShape::default()),
        Err(StepError::Pending)
    );
}

#[test]
fn a_step_holds_the_jobs_cpus_until_it_ends_unless_exact_or_overlap() {
    let mut env = TestEnv::nvl72(1);
    let job = running(&mut env, 1);
    let one = StepShape {
        ntasks: Some(1),
        ..Default::default()
    };
    // Without --exact a step takes every CPU and GPU the job has there.
    let first = env.core.start_step(job, 0, &one).expect("fits");
    assert_eq!(first[0].cpus, 144);
    assert_eq!(first[0].gpus, vec![0, 1, 2, 3]);
    assert_eq!(env.core.start_step(job, 1, &one), Err(StepError::Busy));
    let shared = StepShape {
        overlap: true,
        ..one.clone()
    };
    assert!(env.core.start_step(job, 1, &shared).is_ok());
    assert!(env.core.end_step(job, 0));
    assert!(!env.core.end_step(job, 0), "a step ends once");
    // --exact steps share the node, each with its own CPUs and GPUs.
    let exact = StepShape {
        ntasks: Some(1),
        cpus_per_task: 70,
        gpus_per_task: Some(2),
        exact: true,
        ..Default::default()
    };
    let a = env.core.start_step(job, 2, &exact).expect("fits");
    let b = env.core.start_step(job, 3, &exact).expect("fits beside it");
    assert_eq!((a[0].cpus, b[0].cpus), (70, 70));
    assert_eq!(
        (a[0].gpus.clone(), b[0].gpus.clone()),
        (vec![0, 1], vec![2, 3])
    );
    assert_eq!(env.core.start_step(job, 4, &exact), Err(StepError::Busy));
    // The job's end frees everything.
    env.core.end_step(job, 2);
    assert!(env.core.start_step(job, 4, &exact).is_ok());
}
