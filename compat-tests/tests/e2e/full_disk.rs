//! A full state folder: submissions are refused with Slurm's error and
//! nothing refused is acknowledged, running jobs carry on, reads are still
//! answered, and everything works again once space returns, without a
//! restart. StateSaveLocation is a small tmpfs the test mounts (as root;
//! the test skips, saying so, where it cannot).

use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::text;

fn can_mount() -> bool {
    let probe = tempfile::tempdir().expect("tempdir");
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(probe.path())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        let _ = std::process::Command::new("umount")
            .arg(probe.path())
            .status();
    }
    ok
}

#[test]
fn a_full_state_folder_refuses_submissions_and_recovers_when_space_returns() {
    if !can_mount() {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    }
    let c = Cluster::start(Options {
        nodes: 1,
        state_fs_kib: Some(2048),
        ..Options::default()
    });
    let out_file = c.dir.path().join("long.out");
    let long = c.submit(
        &["-N1", "-o", out_file.to_str().expect("utf-8")],
        "#!/bin/sh\nfor i in 1 2 3 4 5 6; do echo tick $i; sleep 1; done\n",
    );
    c.wait_state(long, "RUNNING");

    // Fill the state folder.
    let filler = c.dir.path().join("state/filler");
    let _ = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=64k"])
        .arg(format!("of={}", filler.display()))
        .output();
    // Submit until the controller refuses (the log may still have room
    // for a few): each taken job must exist, each refused one must not.
    let mut taken = Vec::new();
    let mut refusal = None;
    for i in 0..400 {
        let name = format!("full-{i}");
        let out = c.run_with_input(
            "sbatch",
            &["--parsable", "-J", &name, "-o", "/dev/null"],
            &format!("#!/bin/sh\necho {}\n", "x".repeat(2000)),
        );
        if out.status.success() {
            taken.push(text(&out.stdout).trim().parse::<u32>().expect("an id"));
        } else {
            refusal = Some((name, text(&out.stderr)));
            break;
        }
    }
    let (refused_name, stderr) = refusal.expect("a full state folder refuses a submission");
    assert_eq!(
        stderr.trim(),
        "sbatch: error: Batch job submission failed: Unable to save state, nothing was changed"
    );
    // Reads are answered, the refused job is nowhere, the taken ones are.
    let listed = c.run("squeue", &["-h", "-t", "all", "-o", "%i %j"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listing = text(&listed.stdout);
    assert!(
        !listing.contains(&format!(" {refused_name}\n")),
        "{listing}"
    );
    for id in &taken {
        assert!(
            listing.contains(&format!("{id} ")),
            "{id} missing:\n{listing}"
        );
    }
    // While full, every change is refused (a cancel too).
    let cancel = c.run("scancel", &[&long.to_string()]);
    assert!(
        text(&cancel.stderr).contains("Unable to save state, nothing was changed"),
        "{}",
        text(&cancel.stderr)
    );
    // The running job carries on.
    std::thread::sleep(Duration::from_secs(2));
    let ticks = std::fs::read_to_string(&out_file).unwrap_or_default();
    assert!(ticks.lines().count() >= 2, "{ticks}");

    // Space returns: submissions are taken again, the long job's end is
    // recorded, all without a restart.
    std::fs::remove_file(&filler).expect("the filler goes");
    c.wait_for(Duration::from_secs(30), "a submission taken again", |c| {
        c.run_with_input(
            "sbatch",
            &["--parsable", "-o", "/dev/null"],
            "#!/bin/sh\ntrue\n",
        )
        .status
        .success()
    });
    c.wait_state(long, "COMPLETED");
    assert_eq!(
        std::fs::read_to_string(&out_file)
            .expect("output")
            .lines()
            .count(),
        6
    );
    for id in &taken {
        assert!(c.state(*id).is_some(), "job {id} is gone");
    }
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).expect("log");
    assert!(log.contains("takes writes again"), "{log}");
}
