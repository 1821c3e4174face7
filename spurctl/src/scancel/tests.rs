//! scancel's tests: argument and signal parsing, the jobs a request selects
//! and in which order, and the messages and exit statuses of recordings
//! 51-56 (Slurm 22.05.8), from the controller's per-job answers.

use std::ffi::OsString;

use spur_proto::{ErrorCode, JobInfo, JobStateName, ProtoError};

use super::target::{self, ArraySel, Miss, Target};
use super::{args, misses_report, outcome, Failure, Request};

fn request(list: &[&str]) -> Result<Request, String> {
    let argv: Vec<OsString> = std::iter::once("scancel")
        .chain(list.iter().copied())
        .map(OsString::from)
        .collect();
    Request::new(&args::parse(argv).expect("valid arguments"))
}

fn job(id: u32, name: &str, state: JobStateName, partition: &str) -> JobInfo {
    let running = state == JobStateName::Running;
    JobInfo {
        job_id: id,
        name: name.into(),
        user_id: 2001,
        user_name: "anchor".into(),
        group_id: 2001,
        group_name: "anchor".into(),
        state,
        reason: "None".into(),
        priority: 1,
        nice: 0,
        account: Some("research".into()),
        qos: "normal".into(),
        partition: partition.into(),
        time_limit: None,
        time_min: None,
        submit_time: 1,
        eligible_time: 1,
        start_time: running.then_some(2),
        end_time: None,
        nodes: if running {
            "gb001".into()
        } else {
            String::new()
        },
        sched_nodes: None,
        num_nodes: 1,
        num_cpus: 1,
        num_tasks: 1,
        cpus_per_task: 1,
        ntasks_per_node: 0,
        cpus_per_node: Vec::new(),
        batch_host: None,
        req_nodes: None,
        exc_nodes: None,
        features: None,
        mem: spur_proto::MemSpec::Default,
        tres: None,
        tres_per_node: None,
        tres_per_job: None,
        tres_per_task: None,
        gpus_per_node_idx: Vec::new(),
        work_dir: "/tmp".into(),
        stdout: String::new(),
        stderr: String::new(),
        stdin: String::new(),
        command: None,
        comment: None,
        exit_code: 0,
        exit_signal: 0,
        restarts: 0,
        requeue: true,
        batch: true,
        deadline: None,
        exclusive: spur_proto::ExclusiveMode::No,
        contiguous: false,
        submit_host: "login".into(),
        dependency: None,
        array_job_id: None,
        array_task_id: None,
        array_task_str: None,
        array_task_throttle: 0,
        last_sched_eval: None,
        unacted: Vec::new(),
    }
}

/// The jobs of recordings 51-56.
fn jobs() -> Vec<JobInfo> {
    use JobStateName::{Completed, Pending, Running};
    let mut v = vec![
        job(1, "wrap", Running, "batch"),
        job(4, "done", Completed, "batch"),
        job(6, "one-gpu", Running, "batch"),
        job(7, "dbg", Running, "debug"),
        job(8, "arr", Pending, "batch"),
        job(9, "arr", Running, "batch"),
        job(10, "arr", Running, "batch"),
        job(11, "whole-cluster", Pending, "batch"),
        job(12, "held", Pending, "batch"),
    ];
    v[4].array_job_id = Some(8);
    v[4].array_task_str = Some("2-9%2".into());
    for (i, task) in [(5, 0), (6, 1)] {
        v[i].array_job_id = Some(8);
        v[i].array_task_id = Some(task);
    }
    v
}

fn gone(code: ErrorCode) -> Failure {
    Failure::of(&ProtoError::new(code))
}

fn target(id: u32, label: &str) -> Target {
    Target::job(id, label)
}

#[test]
fn signals_parse_by_name_or_number() {
    assert_eq!(target::parse_signal("USR1"), Some(10));
    assert_eq!(target::parse_signal("SIGUSR1"), Some(10));
    assert_eq!(target::parse_signal("sigterm"), Some(15));
    assert_eq!(target::parse_signal("KILL"), Some(9));
    assert_eq!(target::parse_signal("10"), Some(10));
    assert_eq!(target::parse_signal(" 2 "), Some(2));
    assert_eq!(target::parse_signal("USR3"), None);
    assert_eq!(target::parse_signal("10x"), None);
    assert_eq!(target::parse_signal("0"), None);
}

#[test]
fn job_ids_parse_as_slurm_parses_them() {
    let ids = |list: &[&str]| {
        let owned: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        target::parse_ids(&owned)
    };
    let refs = ids(&["5,8_1", "8_[2-3]", "8_*", "5.0", "7+1"]).expect("valid");
    let view: Vec<(u32, ArraySel, Option<u32>, &str)> = refs
        .iter()
        .map(|r| (r.job, r.array, r.step, r.text.as_str()))
        .collect();
    assert_eq!(
        view,
        vec![
            (5, ArraySel::None, None, "5"),
            (8, ArraySel::Task(1), None, "8_1"),
            (8, ArraySel::Task(2), None, "8_2"),
            (8, ArraySel::Task(3), None, "8_3"),
            (8, ArraySel::All, None, "8_*"),
            (5, ArraySel::None, Some(0), "5.0"),
            (7, ArraySel::None, None, "7+1"),
        ]
    );
    assert_eq!(ids(&["abc"]).unwrap_err(), "Invalid job id abc");
    assert_eq!(ids(&["0"]).unwrap_err(), "Invalid job id 0");
    assert_eq!(ids(&["5x"]).unwrap_err(), "Invalid job id 5x");
}

#[test]
fn no_job_identification_is_an_error() {
    let err = request(&[]).unwrap_err();
    assert_eq!(err, "scancel: error: No job identification provided\n");
    let err = request(&["-s", "USR1"]).unwrap_err();
    assert_eq!(err, "scancel: error: No job identification provided\n");
    assert!(request(&["--me"]).is_ok());
}

#[test]
fn bad_values_report_slurms_texts() {
    assert_eq!(
        request(&["-s", "FOO", "5"]).unwrap_err(),
        "Unknown job signal: FOO\n"
    );
    assert_eq!(
        request(&["-t", "bogus"]).unwrap_err(),
        "Invalid job state specified: bogus\nValid job states are PENDING, RUNNING, and SUSPENDED\n"
    );
    assert_eq!(
        request(&["-u", "no-such-user-here"]).unwrap_err(),
        "scancel: error: Invalid user name: no-such-user-here\n"
    );
}

#[test]
fn unknown_id_is_silent_and_succeeds() {
    // 53-scancel-invalid.txt: `scancel 999999` then `scancel -v 999999`.
    let quiet = request(&["999999"]).expect("request");
    assert!(quiet.is_direct());
    let t = [target(999_999, "999999")];
    let answer = [Err(gone(ErrorCode::InvalidJobId))];
    assert_eq!(outcome(&quiet, &t, &answer), (String::new(), 0));
    let verbose = request(&["-v", "999999"]).expect("request");
    assert_eq!(
        outcome(&verbose, &t, &answer),
        (
            "scancel: Terminating job 999999\n\
             scancel: error: Kill job error on job id 999999: Invalid job id specified\n"
                .to_string(),
            0
        )
    );
}

#[test]
fn permission_denied_is_reported_and_fails() {
    let req = request(&["5"]).expect("request");
    let answer = [Err(gone(ErrorCode::AccessDenied))];
    let (text, rc) = outcome(&req, &[target(5, "5")], &answer);
    assert_eq!(
        text,
        "scancel: error: Kill job error on job id 5: Access/permission denied\n"
    );
    // Slurm's scancel exits with the errno, ESLURM_ACCESS_DENIED (2002).
    assert_eq!(rc, 2002);
    assert_eq!(rc & 0xff, 210);
}

#[test]
fn signalling_a_batch_shell_selects_the_job() {
    // 56-scancel-signal.txt: `scancel --signal=USR1 --batch 6`.
    let req = request(&["--signal=USR1", "--batch", "6"]).expect("request");
    assert!(!req.is_direct());
    let (targets, misses) = target::select(&req.refs, &req.filters, &jobs());
    assert_eq!(targets, vec![target(6, "6")]);
    assert!(misses.is_empty());
    let verbose = Request { verbose: 1, ..req };
    let (text, rc) = outcome(&verbose, &targets, &[Ok(())]);
    assert_eq!(text, "scancel: Signal 10 to batch job 6\n");
    assert_eq!(rc, 0);
}

#[test]
fn a_gone_job_is_an_error_when_signalled() {
    let req = request(&["-s", "USR1", "4", "999"]).expect("request");
    let (targets, misses) = target::select(&req.refs, &req.filters, &jobs());
    assert!(targets.is_empty());
    let mut err = String::new();
    assert_eq!(misses_report(&req, &misses, &mut err), 1);
    assert_eq!(
        err,
        "scancel: error: Kill job error on job id 4: Invalid job id specified\n\
         scancel: error: Kill job error on job id 999: Invalid job id specified\n"
    );
    let quiet = request(&["-Q", "-s", "USR1", "999"]).expect("request");
    let mut err = String::new();
    assert_eq!(misses_report(&quiet, &misses[1..], &mut err), 1);
    assert_eq!(err, "");
}

#[test]
fn filters_select_active_jobs_pending_first() {
    // 55-scancel-name.txt: `scancel --name=whole-cluster`.
    let req = request(&["--name=whole-cluster"]).expect("request");
    let (targets, _) = target::select(&req.refs, &req.filters, &jobs());
    assert_eq!(targets, vec![target(11, "11")]);
    let req = request(&["-u", "2001", "-p", "batch"]).expect("request");
    let (targets, _) = target::select(&req.refs, &req.filters, &jobs());
    let labels: Vec<&str> = targets.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(labels, ["8_[2-9%2]", "11", "12", "1", "6", "8_0", "8_1"]);
    let req = request(&["-t", "R", "-w", "gb001"]).expect("request");
    let (targets, _) = target::select(&req.refs, &req.filters, &jobs());
    assert_eq!(targets.len(), 5);
    let req = request(&["-t", "SUSPENDED"]).expect("request");
    assert!(target::select(&req.refs, &req.filters, &jobs())
        .0
        .is_empty());
    let req = request(&["-A", "RESEARCH", "-q", "Normal", "-n", "dbg"]).expect("request");
    assert_eq!(
        target::select(&req.refs, &req.filters, &jobs()).0,
        vec![target(7, "7")]
    );
}

#[test]
fn ids_and_filters_combine() {
    let req = request(&["-p", "debug", "6", "7"]).expect("request");
    let (targets, misses) = target::select(&req.refs, &req.filters, &jobs());
    assert_eq!(targets, vec![target(7, "7")]);
    assert!(misses.is_empty());
}

#[test]
fn array_tasks_go_to_the_controller_as_tasks_of_their_array() {
    // 54-scancel-array-task.txt cancels 8_9, a task still pending inside
    // the array's record: the controller takes it out of the record.
    let req = request(&["8_1", "8_9", "8_[41-42]", "8"]).expect("request");
    assert!(req.is_direct());
    let targets = target::resolve_direct(&req.refs);
    assert_eq!(
        targets,
        vec![
            Target::tasks(8, "1", "8_1"),
            Target::tasks(8, "9", "8_9"),
            Target::tasks(8, "41", "8_41"),
            Target::tasks(8, "42", "8_42"),
            target(8, "8"),
        ]
    );
    // Jobs are answered first, then tasks.
    assert_eq!(target::answer_slots(&targets), [1, 2, 3, 4, 0]);
    // An unknown task is an invalid job id: silent when cancelling.
    let answer = [
        Ok(()),
        Ok(()),
        Err(gone(ErrorCode::InvalidJobId)),
        Err(gone(ErrorCode::InvalidJobId)),
        Ok(()),
    ];
    assert_eq!(outcome(&req, &targets, &answer), (String::new(), 0));
    let verbose = request(&["-v", "8_42"]).expect("request");
    let t = target::resolve_direct(&verbose.refs);
    assert_eq!(
        outcome(&verbose, &t, &[Err(gone(ErrorCode::InvalidJobId))]).0,
        "scancel: Terminating job 8_42\n\
         scancel: error: Kill job error on job id 8_42: Invalid job id specified\n"
    );
}

#[test]
fn selected_array_records_are_sent_as_their_tasks() {
    // Job 8 is the array's pending record: selecting it must not cancel
    // the running tasks 8_0 and 8_1 with it.
    let req = request(&["-t", "PD", "-u", "2001"]).expect("request");
    let (targets, _) = target::select(&req.refs, &req.filters, &jobs());
    assert_eq!(
        targets,
        vec![
            Target::tasks(8, "2-9", "8_[2-9%2]"),
            target(11, "11"),
            target(12, "12")
        ]
    );
    let req = request(&["-s", "USR1", "8"]).expect("request");
    let (targets, misses) = target::select(&req.refs, &req.filters, &jobs());
    assert!(misses.is_empty());
    assert_eq!(
        targets,
        vec![
            Target::tasks(8, "2-9", "8_[2-9%2]"),
            Target::tasks(8, "0", "8_0"),
            Target::tasks(8, "1", "8_1")
        ]
    );
    // One task of the record names that task alone.
    let req = request(&["-s", "USR1", "8_9", "8_3", "8_0", "8_77"]).expect("request");
    let (targets, misses) = target::select(&req.refs, &req.filters, &jobs());
    assert_eq!(
        targets,
        vec![
            Target::tasks(8, "9", "8_9"),
            Target::tasks(8, "3", "8_3"),
            Target::tasks(8, "0", "8_0")
        ]
    );
    assert_eq!(misses, vec![Miss::NotFound("8_77".into())]);
}

#[test]
fn steps_are_not_sent_as_jobs() {
    let req = request(&["6.0"]).expect("request");
    assert!(!req.is_direct());
    let (targets, misses) = target::select(&req.refs, &req.filters, &jobs());
    assert!(targets.is_empty());
    assert_eq!(misses, vec![Miss::NotSupported("6.0".into())]);
}

#[test]
fn no_match_is_described_with_the_filters() {
    let req = request(&["-n", "x", "-p", "debug", "-t", "PD"]).expect("request");
    assert_eq!(
        target::describe(&req.filters),
        "job_name=x partition=debug state=PENDING "
    );
}
