//! squeue's golden tests: rows that mirror the jobs of the Slurm 22.05.8
//! recording, run through the same pipeline as the command (arguments ->
//! plan -> filter -> sort -> render), compared byte for byte with what real
//! squeue printed; plus unit tests of selection and ordering.

use std::ffi::OsString;

use spur_proto::{ExclusiveMode, JobInfo, JobList, JobStateName, MemSpec};

use super::golden;
use super::options::Plan;
use super::{args, fields, report, Report};

/// The controller's clock of the recording: jobs started 5 s before.
const NOW: u64 = 1_795_993_503;

/// Slurm's priority for the n-th job of the recording (0xFFFF0000 - id).
fn prio(id: u32) -> u32 {
    0xFFFF_0000 - id
}

fn base(id: u32, name: &str) -> JobInfo {
    JobInfo {
        job_id: id,
        name: name.into(),
        user_id: 2001,
        user_name: "anchor".into(),
        group_id: 2001,
        group_name: "anchor".into(),
        state: JobStateName::Pending,
        reason: "None".into(),
        priority: prio(id),
        nice: 0,
        account: Some("research".into()),
        qos: "normal".into(),
        partition: "batch".into(),
        time_limit: None,
        time_min: None,
        submit_time: NOW - 6,
        eligible_time: NOW - 6,
        start_time: None,
        end_time: None,
        nodes: String::new(),
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
        mem: MemSpec::PerCpu(4096),
        tres: Some(spur_proto::Tres {
            cpus: 1,
            mem_mb: 4096,
            nodes: 1,
            billing: 1,
            gpus: 0,
        }),
        tres_per_node: None,
        tres_per_job: None,
        tres_per_task: None,
        gpus_per_node_idx: Vec::new(),
        work_dir: "/var/tmp/slurm-anchor".into(),
        stdout: String::new(),
        stderr: String::new(),
        stdin: "/dev/null".into(),
        command: None,
        comment: None,
        exit_code: 0,
        exit_signal: 0,
        restarts: 0,
        requeue: true,
        batch: true,
        deadline: None,
        exclusive: ExclusiveMode::No,
        contiguous: false,
        submit_host: "login".into(),
        dependency: None,
        array_job_id: None,
        array_task_id: None,
        array_task_str: None,
        array_task_throttle: 0,
        last_sched_eval: Some(NOW - 5),
        unacted: Vec::new(),
    }
}

fn running(id: u32, name: &str, nodes: &str, count: u32, limit: Option<u64>) -> JobInfo {
    let first = nodes
        .split(['[', ','])
        .next()
        .unwrap_or_default()
        .to_string();
    JobInfo {
        state: JobStateName::Running,
        start_time: Some(NOW - 5),
        end_time: limit.map(|l| NOW - 5 + l),
        nodes: nodes.into(),
        num_nodes: count,
        batch_host: Some(first),
        time_limit: limit,
        cpus_per_node: vec![1; count as usize],
        ..base(id, name)
    }
}

fn pending(id: u32, name: &str, reason: &str, count: u32, limit: Option<u64>) -> JobInfo {
    JobInfo {
        reason: reason.into(),
        num_nodes: count,
        time_limit: limit,
        ..base(id, name)
    }
}

/// Array 8 (tasks 0-9, at most 2 running): the pending record and task `t`.
fn array_meta(tasks: &str) -> JobInfo {
    JobInfo {
        array_job_id: Some(8),
        array_task_str: Some(tasks.into()),
        array_task_throttle: 2,
        ..pending(8, "arr", "JobArrayTaskLimit", 1, Some(300))
    }
}

fn array_task(id: u32, task: u32) -> JobInfo {
    JobInfo {
        array_job_id: Some(8),
        array_task_id: Some(task),
        array_task_throttle: 2,
        priority: prio(8),
        ..running(id, "arr", "gb001", 1, Some(300))
    }
}

fn with_gres(job: JobInfo, gres: &str) -> JobInfo {
    JobInfo {
        tres_per_node: Some(gres.into()),
        ..job
    }
}

/// The queue of recordings 10 to 19b, in job id order.
fn queue() -> Vec<JobInfo> {
    vec![
        running(1, "wrap", "gb001", 1, None),
        running(2, "wrap", "gb001", 1, None),
        with_gres(
            running(5, "big2x4", "gb[001-002]", 2, Some(7200)),
            "gres:gpu:4",
        ),
        running(6, "one-gpu", "gb003", 1, Some(1800)),
        JobInfo {
            partition: "debug".into(),
            ..with_gres(running(7, "dbg", "gb003", 1, Some(600)), "gres:gpu:2")
        },
        array_meta("2-9%2"),
        array_task(9, 0),
        array_task(10, 1),
        with_gres(
            pending(11, "whole-cluster", "Resources", 72, Some(3600)),
            "gres:gpu:4",
        ),
        JobInfo {
            priority: 0,
            ..pending(12, "held", "JobHeldUser", 1, None)
        },
        JobInfo {
            dependency: Some("afterok:5(unfulfilled)".into()),
            ..pending(13, "after-big", "Dependency", 1, None)
        },
    ]
}

fn plan(list: &[&str]) -> Plan {
    let argv: Vec<OsString> = std::iter::once("squeue")
        .chain(list.iter().copied())
        .map(OsString::from)
        .collect();
    let a = args::parse(argv).expect("valid arguments");
    Plan::new(&a, &|_| None).expect("valid plan")
}

/// squeue's report of `jobs` as the controller would send them: only the
/// fields the plan asks for, so every golden test also checks the ask.
fn squeue(list: &[&str], jobs: Vec<JobInfo>) -> Report {
    let plan = plan(list);
    report(&plan, NOW, &sent(&plan, &jobs))
}

/// `jobs` as the controller sends them for `plan`: the fields it asks for,
/// decoded as the report reads them.
fn sent(plan: &Plan, jobs: &[JobInfo]) -> JobList {
    JobList::sent(fields(plan), jobs)
}

fn out(list: &[&str], jobs: Vec<JobInfo>) -> String {
    let done = squeue(list, jobs);
    assert!(done.ok && done.err.is_empty(), "{}", done.err);
    done.out
}

#[test]
fn default_output_matches_slurm() {
    assert_eq!(out(&[], queue()), golden::DEFAULT);
}

#[test]
fn custom_format_matches_slurm() {
    assert_eq!(out(&["-o", "%i %j %T %D %R"], queue()), golden::CUSTOM);
}

#[test]
fn custom_format_with_widths_matches_slurm() {
    let fmt = "%.10i %.9P %.12j %.8u %.2t %.10M %.10l %.6D %b %R";
    assert_eq!(out(&["-o", fmt], queue()), golden::CUSTOM2);
}

#[test]
fn long_output_matches_slurm_after_its_date_line() {
    let (_, expected) = golden::LONG.split_once('\n').expect("a date line");
    assert_eq!(out(&["-l"], queue()), expected);
    assert!(plan(&["-l"]).date_line);
    assert!(!plan(&["-l", "-h"]).date_line);
}

#[test]
fn date_line_pads_the_day_with_a_zero() {
    // 2026-11-05 12:00 UTC is the 4th, 5th or 6th in every time zone.
    let line = super::date_line(1_793_880_000);
    assert_eq!(&line[8..9], "0", "{line}");
    assert_eq!(line.len(), 24, "{line}");
}

#[test]
fn state_filter_matches_slurm() {
    assert_eq!(out(&["-t", "PD"], queue()), golden::PENDING);
    assert_eq!(out(&["--states=pending"], queue()), golden::PENDING);
}

/// slurmctld answers a query for one array with the newest task first.
fn array_as_loaded() -> Vec<JobInfo> {
    vec![array_task(10, 1), array_task(9, 0), array_meta("2-9%2")]
}

#[test]
fn expanded_array_matches_slurm() {
    assert_eq!(
        out(&["-r", "-j", "8"], array_as_loaded()),
        golden::ARRAY_EXPANDED
    );
}

#[test]
fn compact_array_matches_slurm() {
    assert_eq!(out(&["-j", "8"], array_as_loaded()), golden::ARRAY_COMPACT);
}

#[test]
fn start_report_matches_slurm() {
    assert_eq!(out(&["--start"], queue()), golden::START);
}

#[test]
fn field_name_format_matches_slurm() {
    let spec = "JobID,Name:20,State,NumNodes,TresPerNode,ReasonList";
    let (error, expected) = golden::FORMAT_LONG.split_once('\n').expect("two parts");
    let p = plan(&["-O", spec]);
    let errors: Vec<String> = p
        .format_errors
        .iter()
        .map(|e| format!("squeue: error: {e}"))
        .collect();
    assert_eq!(errors, vec![error.to_string()]);
    assert_eq!(report(&p, NOW, &sent(&p, &queue())).out, expected);
}

#[test]
fn noheader_user_filter_matches_slurm() {
    let mut jobs = queue();
    jobs.push(JobInfo {
        user_id: 2002,
        user_name: "other".into(),
        ..running(3, "theirs", "gb004", 1, None)
    });
    assert_eq!(
        out(&["-h", "-u", "2001", "-o", "%A %i %t"], jobs),
        golden::NOHEADER_USER
    );
}

#[test]
fn single_job_reports_match_slurm() {
    assert_eq!(out(&["-j", "12", "-o", "%i %T %R"], queue()), golden::HELD);
    let mut jobs = queue();
    jobs[9].time_limit = Some(600);
    assert_eq!(out(&["-j", "12", "-o", "%i %l"], jobs), golden::TIME_LIMIT);
    let dep = "%i %j %T %R %E";
    assert_eq!(out(&["-j", "13", "-o", dep], queue()), golden::DEPENDENCY);
}

#[test]
fn dependency_and_array_reports_match_slurm() {
    let never = JobInfo {
        dependency: Some("afterok:5(failed)".into()),
        ..pending(13, "after-big", "DependencyNeverSatisfied", 1, None)
    };
    let fmt = "%i %j %T %R";
    assert_eq!(
        out(&["-j", "13", "-o", fmt], vec![never]),
        golden::DEPENDENCY_NEVER_SATISFIED
    );
    let cancelled = vec![array_task(10, 1), array_task(9, 0), array_meta("2-8%2")];
    assert_eq!(
        out(&["-r", "-j", "8", "-o", "%i %T %R"], cancelled),
        golden::ARRAY_TASK_CANCELLED
    );
    let waiting = vec![
        pending(14, "ok", "None", 1, None),
        JobInfo {
            dependency: Some("afterok:14(unfulfilled)".into()),
            ..pending(15, "after-ok", "Dependency", 1, None)
        },
    ];
    assert_eq!(
        out(&["-j", "14,15", "-o", fmt], waiting),
        golden::AFTEROK_WAITING
    );
}

#[test]
fn cancelled_jobs_leave_the_default_report() {
    let jobs: Vec<JobInfo> = queue()
        .into_iter()
        .map(|mut j| {
            if j.job_id == 5 {
                j.state = JobStateName::Cancelled;
                j.end_time = Some(NOW - 2);
            }
            if j.job_id == 13 {
                j.reason = "DependencyNeverSatisfied".into();
            }
            j
        })
        .collect();
    assert_eq!(
        out(&["-j", "5,13", "-o", "%i %j %T %R"], jobs),
        golden::AFTER_CANCEL
    );
}

/// The queue of recording 78: jobs 5, 6 and 11 ended, 18 and 20 cannot run.
fn later_queue() -> Vec<JobInfo> {
    let mut jobs: Vec<JobInfo> = queue()
        .into_iter()
        .filter(|j| j.job_id != 8)
        .map(|mut j| {
            if matches!(j.job_id, 5 | 6 | 11) {
                j.state = JobStateName::Completed;
            }
            if j.job_id == 13 {
                j.reason = "DependencyNeverSatisfied".into();
            }
            j
        })
        .collect();
    jobs.insert(5, array_meta("2-8%2"));
    jobs.push(pending(18, "wrap", "PartitionNodeLimit", 80, None));
    jobs.push(JobInfo {
        partition: "debug".into(),
        ..pending(20, "wrap", "PartitionTimeLimit", 1, Some(7 * 86_400))
    });
    jobs
}

#[test]
fn partitions_then_states_then_priorities_order_the_rows() {
    assert_eq!(
        out(&["-o", "%i %j %T %R"], later_queue()),
        golden::NEVER_SATISFIED
    );
}

#[test]
fn sort_keys_apply_with_descending_marks() {
    let ids =
        |list: &[&str]| -> Vec<String> { out(list, queue()).lines().map(String::from).collect() };
    let by_id = ids(&["-h", "-o", "%i", "-S", "i"]);
    assert_eq!(
        by_id,
        [
            "1",
            "2",
            "5",
            "6",
            "7",
            "8_0",
            "8_1",
            "8_[2-9%2]",
            "11",
            "12",
            "13"
        ]
    );
    let by_name_desc = ids(&["-h", "-o", "%j", "-S", "-j"]);
    assert_eq!(by_name_desc.first().map(String::as_str), Some("wrap"));
    assert_eq!(by_name_desc.last().map(String::as_str), Some("after-big"));
    let by_nodes = ids(&["-h", "-o", "%D %i", "-S", "-D,i"]);
    assert_eq!(by_nodes[0], "72 11");
    assert_eq!(by_nodes[1], "2 5");
}

#[test]
fn an_unknown_sort_key_prints_the_header_then_fails() {
    let done = squeue(&["-S", "!"], queue());
    assert!(!done.ok);
    assert_eq!(done.err, "squeue: error: Invalid sort specification: !\n");
    assert_eq!(done.out.lines().count(), 1);
}

#[test]
fn name_partition_and_array_task_selections() {
    let ids = |list: &[&str]| out(list, queue());
    assert_eq!(ids(&["-h", "-o", "%i", "-n", "WRAP,dbg"]), "1\n2\n7\n");
    assert_eq!(ids(&["-h", "-o", "%i", "-p", "debug"]), "7\n");
    assert_eq!(ids(&["-h", "-o", "%i", "-j", "8_1"]), "8_1\n");
    assert_eq!(ids(&["-h", "-o", "%i", "-j", "8_4"]), "8_4\n");
    assert_eq!(ids(&["-h", "-o", "%i", "-j", "8_4,8_5,8_7"]), "8_[4-5,7]\n");
    assert_eq!(ids(&["-h", "-o", "%i", "-t", "all", "-L", "x"]), "");
    assert_eq!(ids(&["-h", "-o", "%i", "-t", "SUSPENDED"]), "");
}

#[test]
fn bad_selections_report_slurms_errors() {
    let a = args::parse(["squeue", "-t", "bogus"].map(OsString::from).to_vec()).expect("args");
    let err = Plan::new(&a, &|_| None).expect_err("bad state");
    assert!(
        err.starts_with("squeue: error: Invalid job state specified: bogus\n"),
        "{err}"
    );
    let a = args::parse(["squeue", "-j", "x"].map(OsString::from).to_vec()).expect("args");
    let err = Plan::new(&a, &|_| None).expect_err("bad id");
    assert_eq!(err, "squeue: error: Invalid job id: x\n");
    let a = args::parse(["squeue", "-l", "-o", "%i"].map(OsString::from).to_vec()).expect("args");
    assert!(Plan::new(&a, &|_| None).is_err());
}

#[test]
fn environment_supplies_format_and_sort_unless_overridden() {
    let a = args::parse(vec!["squeue".into()]).expect("args");
    let env = |v: &str| match v {
        "SQUEUE_FORMAT" => Some("%i".to_string()),
        "SQUEUE_SORT" => Some("-i".to_string()),
        _ => None,
    };
    let p = Plan::new(&a, &env).expect("plan");
    assert_eq!(p.sort, "-i");
    let text = report(&p, NOW, &sent(&p, &queue())).out;
    assert_eq!(text.lines().nth(1), Some("13"));
    let a = args::parse(["squeue", "-l"].map(OsString::from).to_vec()).expect("args");
    let p = Plan::new(&a, &env).expect("plan");
    assert!(report(&p, NOW, &sent(&p, &queue()))
        .out
        .starts_with("             JOBID"));
}

#[test]
fn all_codes_render_without_panicking() {
    let text = out(&["-o", "%all"], queue());
    assert_eq!(text.lines().count(), 12);
    let names = super::field::Field::names().join(",");
    let text = out(&["-O", &names], queue());
    assert_eq!(text.lines().count(), 12);
}

#[test]
fn json_has_slurms_shape() {
    let text = out(&["--json"], queue());
    let expected_head = "{\n  \"meta\": {\n    \"plugin\": {\n      \"type\": \"openapi/v0.0.38\",\n      \
        \"name\": \"Slurm OpenAPI v0.0.38\"\n    },\n    \"Slurm\": {\n      \"version\": {\n        \
        \"major\": 22,\n        \"micro\": 8,\n        \"minor\": 5\n      },\n      \
        \"release\": \"22.05.8\"\n    }\n  },\n  \"errors\": [],\n  \"jobs\": [\n    {\n";
    assert!(text.starts_with(expected_head), "{text}");
    let jobs_part = text.split_once("\"jobs\": [\n").expect("jobs").1;
    let first = jobs_part.split("\n    },\n").next().unwrap_or_default();
    let keys: Vec<&str> = first
        .lines()
        .filter_map(|l| l.strip_prefix("      \""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert_eq!(keys.join(" "), JSON_KEYS);
    assert!(first.contains("\"billable_tres\": 1.0,"));
    assert!(first.contains("\"time_limit\": null,"));
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let jobs = value["jobs"].as_array().expect("jobs");
    assert_eq!(jobs.len(), 11);
    let pending = jobs.iter().find(|j| j["job_id"] == 11).expect("job 11");
    assert!(pending.get("job_resources").is_none());
    assert_eq!(pending["time_limit"], 60);
    // Every job of array 8 carries its throttle.
    for id in [8, 9, 10] {
        let job = jobs.iter().find(|j| j["job_id"] == id).expect("array 8");
        assert_eq!(
            (job["array_job_id"].clone(), job["array_max_tasks"].clone()),
            (8.into(), 2.into())
        );
    }
    assert_eq!(
        jobs.iter().find(|j| j["job_id"] == 1).expect("job 1")["array_max_tasks"],
        0
    );
}

/// The keys of a running job in recording 18, in order.
const JSON_KEYS: &str = "account accrue_time admin_comment array_job_id array_task_id \
array_max_tasks array_task_string association_id batch_features batch_flag batch_host flags \
burst_buffer burst_buffer_state cluster cluster_features command comment container contiguous \
core_spec thread_spec cores_per_socket billable_tres cpus_per_task cpu_frequency_minimum \
cpu_frequency_maximum cpu_frequency_governor cpus_per_tres deadline delay_boot dependency \
derived_exit_code eligible_time end_time excluded_nodes exit_code features federation_origin \
federation_siblings_active federation_siblings_viable gres_detail group_id group_name job_id \
job_resources job_state last_sched_evaluation licenses max_cpus max_nodes mcs_label \
memory_per_tres name nodes nice tasks_per_core tasks_per_node tasks_per_socket tasks_per_board \
cpus node_count tasks het_job_id het_job_id_set het_job_offset partition prefer memory_per_node \
memory_per_cpu minimum_cpus_per_node minimum_tmp_disk_per_node preempt_time pre_sus_time \
priority profile qos reboot required_nodes requeue resize_time restart_cnt resv_name shared \
show_flags sockets_per_board sockets_per_node start_time state_description state_reason \
standard_error standard_input standard_output submit_time suspend_time system_comment \
time_limit time_minimum threads_per_core tres_bind tres_freq tres_per_job tres_per_node \
tres_per_socket tres_per_task tres_req_str tres_alloc_str user_id user_name wckey \
current_working_directory";

/// `jobs` as a controller sends a listing of many: in two runs, read on
/// two threads.
fn sent_in_runs(plan: &Plan, jobs: &[JobInfo]) -> JobList {
    use spur_proto::frame::{decode, encode_jobs};
    let frame = encode_jobs(
        NOW,
        fields(plan),
        jobs,
        |_| {},
        |j, out| {
            out.clone_from(j);
            true
        },
    )
    .expect("encodes");
    match decode(&frame[4..]) {
        Ok(spur_proto::ClientResponse::Jobs { jobs, .. }) => jobs,
        other => panic!("not a listing: {other:?}"),
    }
}

#[test]
fn a_listing_in_runs_reads_as_one() {
    // Many jobs of the recording's kinds, named so that sorting by name
    // compares text kept by both threads.
    let kinds = queue();
    let jobs: Vec<JobInfo> = (0..spur_proto::frame::SPLIT_LISTING_FROM as u32 + 3)
        .map(|i| JobInfo {
            job_id: 100 + i,
            name: format!("n{}", (i * 7919) % 1000),
            priority: prio(i % 50),
            ..kinds[i as usize % kinds.len()].clone()
        })
        .collect();
    for args in [
        &[][..],
        &["-S", "j,-i"],
        &["-t", "all", "-o", "%i %j %T %R"],
    ] {
        let p = plan(args);
        let runs = sent_in_runs(&p, &jobs);
        assert_eq!(runs.parts().expect("runs").len(), 2);
        let one = report(&p, NOW, &sent(&p, &jobs));
        assert_eq!(report(&p, NOW, &runs), one, "{args:?}");
        assert!(one.out.lines().count() > jobs.len() / 2, "{args:?}");
    }
}
