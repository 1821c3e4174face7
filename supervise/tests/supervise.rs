//! The spur-supervise binary run as the agent runs it: a job folder on
//! disk, the job's lock as standard input; what it leaves behind is what
//! the agent reads.

use std::fs;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use spur_proto::job::OpenMode;
use spur_proto::BatchLaunch;

/// A job folder under `root` holding `launch` and `groups`.
fn prepare(root: &Path, launch: &BatchLaunch, groups: &[u32]) -> PathBuf {
    let dir = root.join(format!("job{:010}", launch.job_id));
    fs::create_dir_all(&dir).expect("job folder");
    let bytes = spur_supervise::launch_bytes(launch, groups).expect("encodes");
    fs::write(dir.join(spur_supervise::LAUNCH_FILE), bytes).expect("launch file");
    dir
}

fn launch(job_id: u32, script: &str, work_dir: &Path) -> BatchLaunch {
    // SAFETY: getuid and getgid have no preconditions.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    BatchLaunch {
        job_id,
        name: "test".into(),
        uid,
        gid,
        user_name: "whoever".into(),
        script: script.into(),
        argv: vec!["first".into()],
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("GREETING".into(), "old".into()),
            ("GREETING".into(), "hello".into()),
        ],
        work_dir: work_dir.display().to_string(),
        stdout: "slurm-%j.out".into(),
        stderr: None,
        stdin: "/dev/null".into(),
        open_mode: OpenMode::Truncate,
        gpus: vec![],
        memory_mib: 0,
        array: None,
    }
}

/// Runs spur-supervise on `dir` with a locked lock file as its standard
/// input, as the agent does; returns its exit status.
fn supervise(dir: &Path) -> std::process::ExitStatus {
    let lock_path = dir.join(spur_supervise::LAUNCH_FILE);
    let lock = fs::File::open(lock_path).expect("the launch file");
    // SAFETY: flock on a descriptor we own.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    Command::new(env!("CARGO_BIN_EXE_spur-supervise"))
        .arg(dir)
        .stdin(lock)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spur-supervise runs")
}

#[test]
fn a_script_runs_in_its_folder_and_its_end_is_left_for_the_agent() {
    let root = tempfile::tempdir().expect("temp dir");
    let work = root.path().join("work");
    fs::create_dir(&work).expect("work dir");
    let script = "#!/bin/sh\necho \"$GREETING $1 $SLURM_TASK_PID\"\npwd\nexit 3\n";
    let job = launch(7, script, &work);
    let dir = prepare(root.path(), &job, &[job.gid]);
    assert!(supervise(&dir).success());

    let (code, signal, end) = spur_supervise::read_status(&dir).expect("a status");
    assert_eq!((code, signal), (3, 0));
    assert!(end > 0);
    let out = fs::read_to_string(work.join("slurm-7.out")).expect("the output file");
    let pid = spur_supervise::script_pid(&dir).expect("the script's pid");
    // The last GREETING wins; the script's pid is its SLURM_TASK_PID.
    assert_eq!(out, format!("hello first {pid}\n{}\n", work.display()));
    assert_eq!(
        spur_supervise::read_record(&dir).expect("a record").error,
        None
    );
    // The record went where the launch is: the folder holds the launch
    // and the script, and nothing else.
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("the job folder")
        .map(|e| e.expect("an entry").file_name())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [spur_supervise::LAUNCH_FILE, spur_supervise::SCRIPT_FILE]
    );
    let script = fs::metadata(dir.join(spur_supervise::SCRIPT_FILE)).expect("the script");
    use std::os::unix::fs::MetadataExt;
    assert_eq!((script.mode() & 0o777, script.uid()), (0o700, job.uid));
}

#[test]
fn a_script_that_cannot_start_leaves_why() {
    let root = tempfile::tempdir().expect("temp dir");
    let missing = root.path().join("gone");
    let job = launch(8, "#!/bin/sh\ntrue\n", &missing);
    let dir = prepare(root.path(), &job, &[]);
    assert!(supervise(&dir).success());
    let why = spur_supervise::read_record(&dir)
        .and_then(|r| r.error)
        .expect("why, recorded");
    assert!(why.contains("entering"), "{why}");
    assert_eq!(
        spur_supervise::read_status(&dir).map(|s| (s.0, s.1)),
        Some((1, 0))
    );
    assert_eq!(spur_supervise::script_pid(&dir), None);
}

#[test]
fn a_malformed_launch_file_is_said_and_ends_the_job() {
    let root = tempfile::tempdir().expect("temp dir");
    let job = launch(9, "#!/bin/sh\ntrue\n", root.path());
    let dir = prepare(root.path(), &job, &[]);
    fs::write(dir.join(spur_supervise::LAUNCH_FILE), b"\x01\x02").expect("launch file");
    assert!(supervise(&dir).success());
    let why = spur_supervise::read_record(&dir)
        .and_then(|r| r.error)
        .expect("why, recorded");
    assert!(why.contains("malformed launch file"), "{why}");
    assert!(spur_supervise::read_status(&dir).is_some());
}

#[test]
fn without_a_job_folder_it_says_how_it_is_used() {
    let out = Command::new(env!("CARGO_BIN_EXE_spur-supervise"))
        .output()
        .expect("spur-supervise runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: spur-supervise DIR"));
}
