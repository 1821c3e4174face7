//! Golden cases: a small cluster (slurm.conf + topology.conf) and a trace
//! give an expected schedule, checked in as `expected.txt` and reviewed as a
//! diff. Bless changes with `SPUR_BLESS=1 cargo test -p spur-sim --test golden`.

use std::path::{Path, PathBuf};

use spur_sim::{cluster, engine, report, trace, workload};

fn run_case(dir: &Path) -> String {
    let conf = dir.join("slurm.conf");
    let cluster = cluster::from_slurm_conf(&conf).expect("case slurm.conf is valid");
    let config = cluster::sched_config(Some(&conf)).expect("case slurm.conf is valid");
    let policy: workload::SegmentPolicy = std::fs::read_to_string(dir.join("segment-policy"))
        .map(|s| s.trim().parse().expect("valid segment policy"))
        .unwrap_or(workload::SegmentPolicy::None);
    let trace = trace::load(&dir.join("trace.csv")).expect("case trace is valid");
    let jobs: Vec<_> = trace
        .jobs
        .iter()
        .map(|j| workload::to_sim_job(j, policy))
        .collect();
    let domains = cluster::domain_map(&cluster);
    let mut out = String::new();
    for (name, placement) in [
        ("spur", spur_core::PlacementPolicy::Topology),
        ("baseline", spur_core::PlacementPolicy::LinearFirstFit),
    ] {
        let config = spur_core::SchedConfig {
            placement,
            ..config
        };
        let jobs: Vec<_> = match placement {
            spur_core::PlacementPolicy::Topology => jobs.clone(),
            _ => jobs.iter().map(report::baseline_job).collect(),
        };
        let replay = engine::replay(cluster.clone(), config, &jobs, &[], &domains, true)
            .expect("replay runs");
        out.push_str(&format!("# {name} ({})\n", replay.placement));
        out.push_str(&report::render_schedule(&replay, &jobs, &cluster));
    }
    out
}

#[test]
fn golden_schedules() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cases");
    let bless = std::env::var_os("SPUR_BLESS").is_some();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("cases folder")
        .map(|e| e.expect("entry").path())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    let mut failed = Vec::new();
    for case in cases {
        let got = run_case(&case);
        let path = case.join("expected.txt");
        if bless {
            std::fs::write(&path, &got).expect("write expected.txt");
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            eprintln!("--- {} expected\n{want}+++ got\n{got}", case.display());
            failed.push(case);
        }
    }
    assert!(
        failed.is_empty(),
        "golden schedules differ (SPUR_BLESS=1 to accept): {failed:?}"
    );
}
