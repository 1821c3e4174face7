//! Unit tests of the placement helpers: per-node task capacity, task
//! distribution and the fewest-groups choice every topology uses.

use super::*;
use crate::spec::{Exclusive, MemDemand, SegmentLayout};

fn shape(tasks: u32, cpus_per_task: u32) -> Shape {
    Shape {
        nodes_min: 1,
        nodes_max: 1,
        tasks,
        tasks_per_node: None,
        cpus_per_task,
        mem: MemDemand::PerCpu(1000),
        gpus_per_node: 0,
        gpus_per_task: 0,
        gpus_total: None,
        gpu_type: None,
        exclusive: Exclusive::No,
        segment: None,
        segment_layout: SegmentLayout::Default,
        switches: None,
    }
}

const NODE: Resources = Resources {
    cpus: 144,
    mem_mb: 100_000,
    gpus: 4,
};

#[test]
fn tasks_fit_takes_the_tightest_resource() {
    // CPUs allow 18 tasks of 8, memory 12 tasks of 8 GB.
    assert_eq!(tasks_fit(&shape(100, 8), &NODE, &NODE, true), 12);
    let gpu = Shape {
        gpus_per_task: 1,
        ..shape(100, 1)
    };
    assert_eq!(tasks_fit(&gpu, &NODE, &NODE, true), 4);
    let used = Resources {
        cpus: 144,
        mem_mb: 0,
        gpus: 4,
    };
    assert_eq!(
        tasks_fit(&shape(1, 1), &NODE, &NODE.saturating_sub(&used), false),
        0
    );
}

#[test]
fn whole_node_jobs_need_an_idle_node() {
    let whole = Shape {
        exclusive: Exclusive::Node,
        ..shape(1, 1)
    };
    assert_eq!(tasks_fit(&whole, &NODE, &NODE, false), 0);
    assert_eq!(tasks_fit(&whole, &NODE, &NODE, true), 1);
}

#[test]
fn exact_tasks_per_node_is_all_or_nothing() {
    let s = Shape {
        tasks_per_node: Some(4),
        ..shape(8, 36)
    };
    assert_eq!(
        tasks_fit(&s, &NODE, &NODE, true),
        0,
        "memory holds only 2 such tasks"
    );
    let s = Shape {
        mem: MemDemand::PerNode(0),
        ..s
    };
    assert_eq!(tasks_fit(&s, &NODE, &NODE, true), 4);
}

#[test]
fn tasks_are_distributed_block_wise() {
    let s = shape(7, 1);
    let nodes = [NodeId(0), NodeId(1), NodeId(2)];
    let caps = [4, 4, 4];
    assert_eq!(
        distribute_tasks(&s, &nodes, &caps),
        Some(vec![(NodeId(0), 4), (NodeId(1), 2), (NodeId(2), 1)])
    );
    assert_eq!(distribute_tasks(&shape(13, 1), &nodes, &caps), None);
}

#[test]
fn fewest_groups_prefers_one_best_fit_group_then_largest_first() {
    let mut order = Vec::new();
    assert_eq!(
        fewest_groups(&[18, 5, 7], 6, &mut order),
        Some(vec![(2, 6)])
    );
    // 20 nodes: one full domain plus the best fit for the remaining 2.
    assert_eq!(
        fewest_groups(&[18, 5, 3, 18], 20, &mut order),
        Some(vec![(0, 18), (2, 2)])
    );
    assert_eq!(fewest_groups(&[1, 1], 3, &mut order), None);
}

#[test]
fn fit_keys_order_by_weight_then_fragmentation_then_leftovers() {
    let left = |gpus| Resources {
        cpus: 10,
        mem_mb: 0,
        gpus,
    };
    assert!(fit_key(1, None, &left(0)) < fit_key(1, None, &left(1)));
    assert!(fit_key(1, Some(-1.0), &left(3)) < fit_key(1, Some(0.0), &left(0)));
    assert!(fit_key(1, Some(5.0), &left(0)) < fit_key(2, Some(-5.0), &left(0)));
    assert_eq!(key_weight(fit_key(7, None, &left(2))), 7);
}
