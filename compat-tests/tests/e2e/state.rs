//! The state database's faults and copies, with the real controller: a
//! damaged database stops the controller at start with the file, the
//! fault and the way back named (it never starts empty), a copy made while
//! it runs (`spurd controller --backup`) is put back with
//! `spurd controller --restore`, and the controller runs from it, handing
//! out no id twice.

use std::process::Command;

use crate::harness::{bin_dir, Cluster, Options};
use crate::text;

fn spurd(c: &Cluster, args: &[&str]) -> std::process::Output {
    Command::new(bin_dir().join("spurd"))
        .args(args)
        .env("SLURM_CONF", &c.conf)
        .env("SPUR_LOG", "warn")
        .output()
        .expect("spurd runs")
}

#[test]
fn a_damaged_database_stops_the_start_and_a_backup_brings_the_jobs_back() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let script = "#!/bin/sh\nsleep 300\n";
    let early: Vec<u32> = (0..3).map(|_| c.submit(&["-N1"], script)).collect();
    let copy = c.dir.path().join("copy.db");
    let copy_arg = copy.to_str().expect("utf-8");

    // Only an operator may ask for a copy.
    let denied = {
        use std::os::unix::process::CommandExt;
        Command::new(bin_dir().join("spurd"))
            .args(["controller", "--backup", copy_arg])
            .env("SLURM_CONF", &c.conf)
            .uid(65534)
            .gid(65534)
            .current_dir("/")
            .output()
            .expect("spurd runs")
    };
    assert!(!denied.status.success());
    assert!(
        text(&denied.stderr).contains("Access/permission denied"),
        "{}",
        text(&denied.stderr)
    );
    assert!(!copy.exists());
    let out = spurd(&c, &["controller", "--backup", copy_arg]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with(&format!("spurd: state written to {copy_arg} (3 jobs, ")),
        "{}",
        text(&out.stdout)
    );
    // Once written, a copy is never overwritten.
    let again = spurd(&c, &["controller", "--backup", copy_arg]);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("the file exists"),
        "{}",
        text(&again.stderr)
    );
    let late = c.submit(&["-N1"], script);
    assert_eq!(c.job_ids(), [early.clone(), vec![late]].concat());

    // --restore refuses while the controller runs.
    let busy = spurd(&c, &["controller", "--restore", copy_arg]);
    assert!(!busy.status.success());
    assert!(
        text(&busy.stderr).contains("a controller is running"),
        "{}",
        text(&busy.stderr)
    );

    // Damage the jobs' pages (the job id counter's survive): the start is
    // refused, naming the file.
    c.kill_controller();
    let db = c.dir.path().join("state/spur-state.db");
    let sqlite = |sql: &str| {
        Command::new("sqlite3")
            .arg(&db)
            .arg(sql)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| text(&o.stdout).trim().to_string())
    };
    // Fold the log in, then find the jobs table's first page.
    let root = sqlite("PRAGMA wal_checkpoint(TRUNCATE);")
        .and_then(|_| sqlite("SELECT rootpage FROM sqlite_schema WHERE name = 'jobs';"))
        .and_then(|p| p.parse::<usize>().ok());
    let mut bytes = std::fs::read(&db).expect("reads");
    match root {
        Some(page) => bytes[(page - 1) * 4096..page * 4096].fill(0xA5),
        // No sqlite3 here: damage the header instead (the counter is
        // lost with it).
        None => bytes[..16].fill(0),
    }
    std::fs::write(&db, &bytes).expect("writes");
    let refused = spurd(&c, &["controller"]);
    assert!(!refused.status.success());
    let why = text(&refused.stderr);
    assert!(why.contains(&db.display().to_string()), "{why}");
    assert!(why.contains("spurd controller --restore FILE"), "{why}");
    let fault = if root.is_some() {
        "damaged"
    } else {
        "not a spur state database"
    };
    assert!(why.contains(fault), "{why}");

    // Put the copy back; the controller runs from it.
    let out = spurd(&c, &["controller", "--restore", copy_arg]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let next_id = if root.is_some() { late + 1 } else { late };
    let restored = format!("(3 jobs, next job id {next_id})");
    assert!(
        text(&out.stdout).contains(&restored),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stdout).contains(".replaced-"),
        "{}",
        text(&out.stdout)
    );
    c.start_controller();
    c.wait_for(
        std::time::Duration::from_secs(20),
        "the restored jobs",
        |c| c.job_ids() == early,
    );
    // The job made after the copy is gone with the damaged file, but its
    // id is not handed out again (or, where the damage took the counter
    // too, the restore said so).
    let next = c.submit(&["-N1"], script);
    if root.is_some() {
        assert!(next > late, "{next} after {late}");
    } else {
        assert!(text(&out.stdout).contains("counter could not be read"));
    }
}
