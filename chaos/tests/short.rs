//! A short chaos run, part of the tests: half a minute of load with the
//! controller killed every few seconds (from outside, inside a commit,
//! between a commit and its answers) and agents killed while their jobs
//! run; every acknowledged job must be there once, ended as its script
//! says, and have run once. `bench/chaos` runs the long one.

use std::path::Path;
use std::process::Command;

#[test]
fn half_a_minute_of_faults_loses_nothing() {
    let exe = Path::new(env!("CARGO_BIN_EXE_spur-chaos"));
    let bin = exe.parent().expect("target folder");
    // `cargo test --workspace` builds them beside this program
    // (`cargo test -p spur-chaos` alone builds neither).
    assert!(
        ["spurd", "spurctl"]
            .iter()
            .chain(spur_slurm::OWN_PROGRAMS)
            .all(|b| bin.join(b).exists()),
        "spurd, spurctl and sbatch must be built beside spur-chaos: cargo build -p spurd -p spurctl"
    );
    let out = Command::new(exe)
        .args([
            "--seconds",
            "30",
            "--submitters",
            "8",
            "--controller-every",
            "4",
            "--agent-every",
            "8",
            "--settle",
            "120",
            "--seed",
            &std::process::id().to_string(),
        ])
        .output()
        .expect("spur-chaos runs");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the run found faults:\n{text}");
    let figures = text
        .lines()
        .find(|l| l.starts_with("acknowledged "))
        .expect("the figures line");
    assert!(
        figures.ends_with("/ lost 0 / duplicate ids 0 / stuck 0 / ran twice 0"),
        "{figures}"
    );
    let acknowledged: u32 = figures
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a count");
    assert!(acknowledged > 50, "too little load to judge: {figures}");
    let kills = text
        .lines()
        .find(|l| l.contains("controller killed"))
        .expect("the faults line");
    assert!(!kills.contains("controller killed 0 times"), "{kills}");
}
