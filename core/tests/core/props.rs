//! Property tests: no resource is ever over-allocated, every segment stays
//! inside one base block (both checked by `sanity_check` after every step),
//! and the schedule does not depend on the order jobs were submitted in when
//! their priorities decide.

use proptest::prelude::*;
use spur_core::{JobId, NodeId, SegmentLayout};

use crate::env::*;

#[derive(Debug, Clone)]
struct Req {
    nodes: u32,
    gpus: u32,
    segment: Option<u32>,
    layout: u8,
    time: u64,
    whole: bool,
}

fn req() -> impl Strategy<Value = Req> {
    (
        1u32..40,
        0u32..5,
        prop::option::of(prop::sample::select(vec![2u32, 4, 8, 16])),
        0u8..3,
        1u64..10,
        any::<bool>(),
    )
        .prop_map(|(nodes, gpus, segment, layout, time, whole)| Req {
            nodes,
            gpus,
            segment: segment.filter(|s| nodes % s == 0),
            layout,
            time: time * 600,
            whole,
        })
}

fn builder(r: &Req, priority: u32) -> JobBuilder {
    let mut b = JobBuilder::new()
        .nodes(r.nodes)
        .time(r.time)
        .priority(priority);
    if r.gpus > 0 {
        b = b.gpus_per_node(r.gpus);
    }
    if r.whole {
        b = b.exclusive();
    }
    if let Some(s) = r.segment {
        b = b.segment(s).layout(match r.layout {
            0 => SegmentLayout::Default,
            1 => SegmentLayout::Spread,
            _ => SegmentLayout::Consolidate,
        });
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn never_over_allocates_and_segments_stay_in_a_block(reqs in prop::collection::vec(req(), 1..30), finish_every in 1usize..5) {
        let mut env = TestEnv::nvl72(4);
        let mut running: Vec<JobId> = Vec::new();
        for (i, r) in reqs.iter().enumerate() {
            if env.core.submit_job(builder(r, 1000).0, env.now).is_err() {
                continue;
            }
            for (id, _) in env.schedule() {
                running.push(id);
            }
            if i % finish_every == 0 && !running.is_empty() {
                let id = running.remove(0);
                env.advance(60);
                env.finish(id, 0);
            }
        }
        // Drain the queue: everything accepted eventually runs.
        for _ in 0..200 {
            for (id, _) in env.schedule() {
                running.push(id);
            }
            if running.is_empty() {
                break;
            }
            env.advance(60);
            let id = running.remove(0);
            env.finish(id, 0);
        }
        prop_assert_eq!(env.core.pending_jobs().count(), 0);
    }

    #[test]
    fn schedule_does_not_depend_on_submission_order(reqs in prop::collection::vec(req(), 1..20), seed in any::<u64>()) {
        let run = |order: &[usize]| -> Vec<(Box<str>, Vec<NodeId>)> {
            let mut env = TestEnv::nvl72(4);
            for &i in order {
                let b = builder(&reqs[i], 10_000 - i as u32).name(&format!("j{i}"));
                let _ = env.core.submit_job(b.0, env.now);
            }
            let mut out: Vec<(Box<str>, Vec<NodeId>)> = env
                .schedule()
                .into_iter()
                .map(|(id, nodes)| (env.core.job(id).unwrap().spec.name.clone(), nodes))
                .collect();
            out.sort();
            out
        };
        let forward: Vec<usize> = (0..reqs.len()).collect();
        let mut shuffled = forward.clone();
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(run(&forward), run(&shuffled));
    }
}
