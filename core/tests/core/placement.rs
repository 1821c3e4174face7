//! Placement scenarios: NVL72 domains, segments, GPUs by index, tree
//! switches.

use spur_core::{
    Effect, JobState, PlacementPolicy, Reason, SchedConfig, SegmentLayout, SubmitError,
};

use crate::env::*;

#[test]
fn job_of_one_domain_lands_in_one_domain_even_when_the_first_is_partly_used() {
    let mut env = TestEnv::nvl72(4);
    let small = env.submit(gpu_job(2));
    let started = env.schedule();
    assert_eq!(started[0].0, small);
    let big = env.submit(gpu_job(18));
    let started = env.schedule();
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].0, big);
    assert_eq!(
        domains(&started[0].1).len(),
        1,
        "18 nodes fit one domain: {:?}",
        started[0].1
    );
}

#[test]
fn small_jobs_fill_the_domain_already_in_use() {
    let mut env = TestEnv::nvl72(4);
    env.submit(gpu_job(10));
    let first = env.schedule();
    env.submit(gpu_job(4));
    let second = env.schedule();
    assert_eq!(
        domains(&first[0].1),
        domains(&second[0].1),
        "best fit keeps other domains whole"
    );
}

#[test]
fn job_of_two_domains_spans_exactly_two_even_when_fragmented() {
    let mut env = TestEnv::nvl72(4);
    // Fragment: 3 nodes busy in each of domains 0 and 1.
    env.submit(gpu_job(3).name("a"));
    env.schedule();
    env.submit(
        JobBuilder::new()
            .nodes(3)
            .gpus_per_node(4)
            .exclusive()
            .name("b"),
    );
    env.schedule();
    let big = env.submit(gpu_job(36));
    let started = env.schedule();
    assert_eq!(started[0].0, big);
    assert_eq!(domains(&started[0].1).len(), 2);
}

#[test]
fn linear_first_fit_baseline_ignores_domains() {
    let config = SchedConfig {
        placement: PlacementPolicy::LinearFirstFit,
        ..Default::default()
    };
    let mut env = TestEnv::new(cluster(72, nvl72_topology(4, None)), config);
    env.submit(gpu_job(10));
    env.schedule();
    env.submit(gpu_job(18));
    let started = env.schedule();
    assert_eq!(
        domains(&started[0].1),
        vec![0, 1],
        "first fit splits a domain-sized job"
    );
}

#[test]
fn segments_each_stay_inside_one_domain() {
    let mut env = TestEnv::nvl72(4);
    // Leave 10 free nodes in domain 0 and 18 in the others.
    env.submit(gpu_job(8));
    env.schedule();
    let job = env.submit(gpu_job(32).segment(16));
    let started = env.schedule();
    assert_eq!(started[0].0, job);
    let nodes = &started[0].1;
    for d in domains(nodes) {
        let in_domain = nodes.iter().filter(|n| n.get() / DOMAIN == d).count();
        assert_eq!(
            in_domain % 16,
            0,
            "domain {d} holds a partial segment: {nodes:?}"
        );
    }
}

#[test]
fn spread_segments_take_a_domain_each_and_consolidate_shares_a_level_block() {
    let mut env = TestEnv::nvl72(8);
    let spread = env.submit(gpu_job(8).segment(4).layout(SegmentLayout::Spread));
    let started = env.schedule();
    assert_eq!(started[0].0, spread);
    assert_eq!(domains(&started[0].1).len(), 2);

    let mut env = TestEnv::nvl72(8);
    let packed = env.submit(gpu_job(8).segment(4).layout(SegmentLayout::Consolidate));
    let started = env.schedule();
    assert_eq!(started[0].0, packed);
    assert_eq!(domains(&started[0].1).len(), 1);
}

#[test]
fn segment_must_divide_the_node_count() {
    let mut env = TestEnv::nvl72(2);
    let err = env
        .core
        .submit_job(gpu_job(30).segment(16).0, env.now)
        .unwrap_err();
    assert_eq!(err, SubmitError::SegmentNotDivisor);
    assert_eq!(
        err.to_string(),
        "Requested topology configuration is not available"
    );
}

#[test]
fn exclusive_topo_keeps_other_jobs_out_of_the_domain() {
    let mut env = TestEnv::nvl72(2);
    let topo = env.submit(gpu_job(4).exclusive_topo());
    let started = env.schedule();
    assert_eq!(started[0].0, topo);
    let other = env.submit(gpu_job(14));
    let started = env.schedule();
    assert_eq!(started[0].0, other);
    assert_ne!(
        domains(&started[0].1),
        domains(
            &env.core
                .job(topo)
                .unwrap()
                .allocation()
                .iter()
                .map(|a| a.node)
                .collect::<Vec<_>>()
        )
    );
    // A second topo-exclusive job cannot use domain 1 while `other` is there.
    let blocked = env.submit(gpu_job(2).exclusive_topo());
    assert!(env.schedule().is_empty());
    assert_eq!(env.core.job(blocked).unwrap().reason(), Reason::Resources);
}

#[test]
fn small_gpu_jobs_share_a_node_with_distinct_gpu_indices() {
    let mut env = TestEnv::nvl72(1);
    let a = env.submit(JobBuilder::new().gpus(1).cpus(1, 8));
    let b = env.submit(JobBuilder::new().gpus(1).cpus(1, 8));
    let c = env.submit(JobBuilder::new().gpus(2).cpus(1, 8));
    env.schedule();
    fn alloc(env: &TestEnv, id: spur_core::JobId) -> spur_core::NodeAlloc {
        env.core.job(id).unwrap().allocation()[0].clone()
    }
    let (aa, bb, cc) = (alloc(&env, a), alloc(&env, b), alloc(&env, c));
    assert_eq!(aa.node, bb.node);
    assert_eq!(bb.node, cc.node);
    assert_eq!(aa.gpus.to_string(), "0");
    assert_eq!(bb.gpus.to_string(), "1");
    assert_eq!(cc.gpus.to_string(), "2,3");
    // The node is full of GPUs now: a fourth GPU job goes elsewhere.
    let d = env.submit(JobBuilder::new().gpus(1));
    env.schedule();
    assert_ne!(alloc(&env, d).node, aa.node);
}

#[test]
fn shared_jobs_avoid_stranding_gpus_the_workload_could_not_use() {
    let mut env = TestEnv::nvl72(1);
    // The mix: 1-GPU and 2-GPU jobs. After a 1-GPU job, a node has 3 GPUs
    // free; a 2-GPU job there would strand 1 GPU that a 2-GPU job cannot
    // use, so it takes a fresh node and the next 1-GPU job fills the gap.
    let a = env.submit(JobBuilder::new().gpus(1).cpus(1, 8));
    env.schedule();
    let b = env.submit(JobBuilder::new().gpus(2).cpus(1, 8));
    env.schedule();
    let c = env.submit(JobBuilder::new().gpus(1).cpus(1, 8));
    env.schedule();
    let node = |id| env.core.job(id).unwrap().allocation()[0].node;
    assert_ne!(node(a), node(b));
    assert_eq!(node(a), node(c));
}

#[test]
fn impossible_requests_are_rejected_with_slurms_error() {
    let mut env = TestEnv::nvl72(1);
    let too_many = env
        .core
        .submit_job(JobBuilder::new().gpus_per_node(5).0, env.now)
        .unwrap_err();
    assert_eq!(
        too_many.to_string(),
        "Requested node configuration is not available"
    );
    let bad_part = env
        .core
        .submit_job(JobBuilder::new().partition("nosuch").0, env.now)
        .unwrap_err();
    assert_eq!(bad_part.to_string(), "Invalid partition name specified");
    let mut spec = JobBuilder::new().0;
    spec.constraint = Some("nosuchfeature".into());
    assert_eq!(
        env.core.submit_job(spec, env.now).unwrap_err().to_string(),
        "Invalid feature specification"
    );
    // Too many nodes for the partition is accepted and pends, as in Slurm.
    let big = env.submit(gpu_job(100));
    env.schedule();
    assert_eq!(
        env.core.job(big).unwrap().reason(),
        Reason::PartitionNodeLimit
    );
    assert_eq!(
        env.core.jobs().count(),
        1,
        "rejected jobs leave nothing behind"
    );
}

#[test]
fn node_range_takes_as_many_nodes_as_are_free() {
    let mut env = TestEnv::nvl72(1);
    env.submit(gpu_job(12));
    env.schedule();
    let ranged = env.submit(
        JobBuilder::new()
            .node_range(2, 10)
            .gpus_per_node(4)
            .exclusive(),
    );
    let started = env.schedule();
    assert_eq!(started[0].0, ranged);
    assert_eq!(started[0].1.len(), 6);
}

#[test]
fn tree_job_stays_under_one_leaf_switch_when_it_can() {
    let mut env = TestEnv::new(cluster(16, tree_topology(4, 4)), SchedConfig::default());
    env.submit(gpu_job(1));
    env.schedule();
    let job = env.submit(gpu_job(4));
    let started = env.schedule();
    assert_eq!(started[0].0, job);
    let leaves: std::collections::BTreeSet<u32> =
        started[0].1.iter().map(|n| n.get() / 4).collect();
    assert_eq!(leaves.len(), 1);
}

#[test]
fn switches_request_waits_then_gives_up_after_its_limit() {
    let mut env = TestEnv::new(cluster(8, tree_topology(2, 4)), SchedConfig::default());
    let mut pin = |node: &str| {
        let mut spec = gpu_job(1).0;
        spec.required_nodes = vec![node.into()];
        env.submit(JobBuilder(spec));
    };
    pin("gb001");
    pin("gb005");
    env.schedule();
    // One node busy on each leaf: 6 free, but no leaf has 4.
    let mut spec = gpu_job(4).0;
    spec.switches = Some(spur_core::SwitchesRequest {
        count: 1,
        max_wait: Some(60),
    });
    let job = env.submit(JobBuilder(spec));
    assert!(env.schedule().is_empty());
    assert_eq!(env.core.job(job).unwrap().reason(), Reason::Switches);
    assert_eq!(
        env.core.next_wakeup(env.now),
        Some(env.now + 60).min(env.core.next_wakeup(env.now))
    );
    env.advance(60);
    let started = env.schedule();
    assert_eq!(started[0].0, job);
    assert_eq!(env.core.job(job).unwrap().state(), JobState::Running);
}

#[test]
fn a_node_going_down_ends_its_jobs_as_node_fail() {
    let mut env = TestEnv::nvl72(1);
    let job = env.submit(gpu_job(2));
    let started = env.schedule();
    let node = started[0].1[0];
    let mut effects = Vec::new();
    env.core
        .on_node_down(node, "not responding".into(), &mut effects)
        .unwrap();
    assert!(matches!(
        effects.as_slice(),
        [Effect::KillJob {
            cause: spur_core::KillCause::NodeFail,
            ..
        }]
    ));
    env.finish(job, 0);
    assert_eq!(env.core.job(job).unwrap().state(), JobState::NodeFail);
    // The down node is not used again.
    let next = env.submit(gpu_job(18));
    assert!(env.schedule().is_empty());
    assert_eq!(env.core.job(next).unwrap().reason(), Reason::Resources);
}

#[test]
fn multi_domain_job_waits_for_the_fewest_domains_then_takes_more() {
    let config = SchedConfig {
        block_wait: 600,
        ..SchedConfig::default()
    };
    let mut env = TestEnv::new(cluster(54, nvl72_topology(3, None)), config);
    for node in ["gb001", "gb019", "gb037"] {
        let mut spec = gpu_job(1).time(7200).0;
        spec.required_nodes = vec![node.into()];
        env.submit(JobBuilder(spec));
    }
    env.schedule();
    // 36 nodes need 2 domains, but every domain has only 17 free.
    let job = env.submit(gpu_job(36));
    assert!(env.schedule().is_empty());
    assert_eq!(env.core.job(job).unwrap().reason(), Reason::Resources);
    assert_eq!(env.core.next_wakeup(env.now), Some(env.now + 600));
    env.advance(600);
    let started = env.schedule();
    assert_eq!(started[0].0, job);
    assert_eq!(domains(&started[0].1).len(), 3);
}

#[test]
fn domains_report_their_gpus_stranded_where_no_waiting_job_fits() {
    let mut env = TestEnv::nvl72(2);
    let whole = env.submit(gpu_job(18));
    let part = env.submit(gpu_job(10));
    env.schedule();
    // Nothing waits: idle GPUs are idle, not stranded.
    let domains = env.core.domain_gpus();
    assert_eq!(
        domains
            .iter()
            .map(|d| (d.idle, d.stranded))
            .collect::<Vec<_>>(),
        [(0, 0), (32, 0)]
    );
    let big = env.submit(gpu_job(18));
    env.schedule();
    assert_eq!(env.core.job(big).unwrap().reason(), Reason::Resources);
    let domains = env.core.domain_gpus();
    let full = domains
        .iter()
        .find(|d| d.alloc == 72)
        .expect("the whole job's domain");
    let other = domains
        .iter()
        .find(|d| d.alloc == 40)
        .expect("the other domain");
    assert_eq!((full.total, full.idle, full.stranded), (72, 0, 0));
    // Eight free nodes cannot hold the waiting job's eighteen.
    assert_eq!((other.total, other.idle, other.stranded), (72, 32, 32));
    assert_eq!(env.core.domain_spans(), [(1, 2)]);
    // A waiting job that fits eight nodes could use them: nothing there
    // is stranded.
    let mut effects = Vec::new();
    env.core.cancel_job(big, env.now, &mut effects).unwrap();
    env.submit(gpu_job(8));
    let domains = env.core.domain_gpus();
    let other = domains
        .iter()
        .find(|d| d.alloc == 40)
        .expect("the other domain");
    assert_eq!((other.idle, other.stranded), (32, 0));
    for job in [whole, part] {
        assert_eq!(env.core.job(job).unwrap().state(), JobState::Running);
    }
}

#[test]
fn a_job_waiting_in_another_partition_leaves_a_domain_stranded() {
    let mut cl = cluster(36, nvl72_topology(2, None));
    cl.partitions.push(spur_core::Partition::new(
        "left",
        (0..18).map(spur_core::NodeId).collect(),
    ));
    let mut env = TestEnv::new(cl, SchedConfig::default());
    env.submit(gpu_job(18).partition("left"));
    env.schedule();
    let waiting = env.submit(gpu_job(1).partition("left"));
    env.schedule();
    assert_eq!(env.core.job(waiting).unwrap().reason(), Reason::Resources);
    let domains = env.core.domain_gpus();
    // The second domain's GPUs are all free, and the one job that waits
    // may not use them.
    assert_eq!((domains[1].idle, domains[1].stranded), (72, 72));
    assert_eq!((domains[0].idle, domains[0].stranded), (0, 0));
}

#[test]
fn a_request_asked_again_gets_the_same_verdict_and_a_different_one_its_own() {
    let mut env = TestEnv::nvl72(1);
    let two = || JobBuilder::new().gpus_per_node(4).nodes(2);
    env.submit(two());
    env.submit(two());
    // The same request with every node excluded could never run: it is
    // not answered with the verdict of the one without exclusions.
    let mut none_left = two().0;
    none_left.excluded_nodes = (1..=18).map(|i| format!("gb{i:03}")).collect();
    for _ in 0..2 {
        assert_eq!(
            env.core.submit_job(none_left.clone(), env.now).unwrap_err(),
            SubmitError::NodeConfigUnavailable
        );
    }
    // One node left: accepted, as Slurm accepts too few nodes, to pend.
    let mut one_left = two().0;
    one_left.excluded_nodes = (2..=18).map(|i| format!("gb{i:03}")).collect();
    let pends = env.core.submit_job(one_left, env.now).expect("accepted");
    env.schedule();
    assert_eq!(env.core.job(pends).unwrap().state(), JobState::Pending);
    for _ in 0..2 {
        assert_eq!(
            env.core
                .submit_job(JobBuilder::new().gpus_per_node(5).0, env.now)
                .unwrap_err(),
            SubmitError::NodeConfigUnavailable
        );
    }
    assert_eq!(env.core.jobs().count(), 3);
}
