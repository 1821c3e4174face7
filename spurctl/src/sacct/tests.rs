use std::ffi::OsString;

use spur_proto::{AcctState, HistoryJob, HistoryStep, JobSelector, StepId};

use super::json;
use super::options::Plan;
use super::{args, fixture, golden, report, select};
use serde_json::Value as J;

/// A fixed clock: one hour after job 31 ended.
const NOW: u64 = 1_795_997_121;

fn parse(list: &[&str]) -> args::SacctArgs {
    let argv: Vec<OsString> = std::iter::once("sacct")
        .chain(list.iter().copied())
        .map(OsString::from)
        .collect();
    args::parse(argv).expect("parses")
}

fn plan_as(list: &[&str], uid: u32) -> Result<Plan, String> {
    Plan::new(&parse(list), &|_| None, NOW as i64, uid)
}

fn plan(list: &[&str]) -> Plan {
    plan_as(list, 0).expect("a valid command line")
}

/// The recording's jobs up to `last` (later ones did not exist yet).
fn upto(last: u32) -> Vec<HistoryJob> {
    fixture::jobs()
        .into_iter()
        .filter(|j| j.job_id <= last)
        .collect()
}

fn out(list: &[&str], jobs: &[HistoryJob]) -> String {
    report(&plan(list), NOW, jobs, "anchor")
}

#[test]
fn the_default_report_is_slurms_byte_for_byte() {
    assert_eq!(out(&[], &upto(31)), golden::DEFAULT);
}

#[test]
fn allocations_with_a_format_and_widths_are_slurms() {
    let list = "JobID,JobName%20,Partition,Account,AllocCPUS,AllocTRES%40,State,ExitCode,Elapsed";
    assert_eq!(out(&["-X", "-o", list], &upto(31)), golden::X_FORMAT);
}

#[test]
fn one_job_with_its_steps_is_slurms() {
    assert_eq!(out(&["-j", "31"], &upto(36)), golden::JOB_STEPS);
}

#[test]
fn the_long_parsable_report_is_slurms() {
    assert_eq!(out(&["-j", "31", "-l", "-P"], &upto(36)), golden::LONG_ONE);
}

#[test]
fn parsable_without_header_is_slurms() {
    let list = ["-P", "-X", "-n", "-o", "JobID,State,ExitCode,NodeList"];
    assert_eq!(
        out(&[&list[..], &["-S", "now-1hour"]].concat(), &upto(34)),
        golden::PARSABLE
    );
}

#[test]
fn failed_and_cancelled_jobs_are_slurms() {
    let list = [
        "-j",
        "35,36",
        "-o",
        "JobID,JobName,State,ExitCode,DerivedExitCode",
    ];
    assert_eq!(out(&list, &upto(36)), golden::FAILED_CANCELLED);
}

#[test]
fn array_tasks_are_slurms() {
    let list = ["-j", "24", "-X", "-o", "JobID,JobIDRaw,JobName,State"];
    assert_eq!(out(&list, &upto(36)), golden::ARRAY);
}

#[test]
fn array_expands_an_arrays_pending_tasks_a_line_each() {
    let mut pending = upto(31).remove(0);
    pending.job_id = 40;
    pending.array_job_id = Some(40);
    pending.array_task_id = None;
    pending.array_task_str = Some("3-5,9".into());
    pending.state = spur_proto::JobStateName::Pending;
    pending.steps.clear();
    let jobs = [pending];
    let list = ["-j", "40", "-n", "-X", "-o", "JobID,JobIDRaw,State"];
    let one = out(&list, &jobs);
    assert_eq!(one.lines().count(), 1, "{one}");
    assert!(one.starts_with("40_[3-5,9] "), "{one}");
    let each = out(&[&list[..], &["--array"]].concat(), &jobs);
    let ids: Vec<&str> = each
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, ["40_3", "40_4", "40_5", "40_9"], "{each}");
    assert!(
        each.lines()
            .all(|l| l.contains(" 40 ") && l.contains("PENDING")),
        "{each}"
    );
    assert!(plan(&["--array"]).warnings.is_empty());
}

/// Lists longer than 3 cut to their first 2 items and a note, as the
/// recording's trimjson.py did.
fn trim(j: J) -> J {
    match j {
        J::Array(items) if items.len() > 3 => {
            let n = items.len();
            let mut kept: Vec<J> = items.into_iter().take(2).map(trim).collect();
            kept.push(J::String(format!(
                "... [trimmed: {n} items total, first 2 shown]"
            )));
            J::Array(kept)
        }
        J::Array(items) => J::Array(items.into_iter().map(trim).collect()),
        J::Object(items) => J::Object(items.into_iter().map(|(k, v)| (k, trim(v))).collect()),
        other => other,
    }
}

#[test]
fn json_is_slurms_shape_and_values() {
    let jobs = upto(36);
    let p = plan(&["-j", "31", "--json"]);
    let chosen = select::jobs(&jobs, p.selection());
    let pairs: Vec<(&HistoryJob, Vec<&HistoryStep>)> = chosen
        .iter()
        .map(|j| (*j, select::steps(j, p.selection())))
        .collect();
    let doc = serde_json::to_value(json::document(
        &pairs,
        &json::Ctx {
            cluster: "anchor",
            now: NOW,
            user_name: spur_sys::users::name_of,
        },
    ))
    .expect("serializes");
    let mut text = serde_json::to_string_pretty(&trim(doc)).expect("serializes");
    text.push('\n');
    assert_eq!(text, golden::JSON);
    // Untrimmed, it is valid JSON with every step.
    let full = report(&p, NOW, &jobs, "anchor");
    let value: serde_json::Value = serde_json::from_str(&full).expect("valid JSON");
    assert_eq!(value["jobs"][0]["steps"].as_array().map(Vec::len), Some(4));
}

#[test]
fn naming_a_step_shows_only_that_step() {
    let jobs = upto(36);
    let text = out(&["-j", "31.batch,31.2", "-o", "JobID"], &jobs);
    assert_eq!(
        text,
        "JobID        \n------------ \n31.batch     \n31.2         \n"
    );
    // A whole-job entry after a step entry shows the job, still with only
    // the steps named before it (Slurm's order-dependent rule).
    let text = out(&["-j", "31.0,31", "-o", "JobID", "-n"], &jobs);
    assert_eq!(text, "31           \n31.0         \n");
    let text = out(&["-j", "31,31.0", "-o", "JobID", "-n"], &jobs);
    assert_eq!(text.lines().count(), 5);
    // -X shows the job even when only a step was named.
    let text = out(&["-j", "31.batch", "-X", "-o", "JobID", "-n"], &jobs);
    assert_eq!(text, "31           \n");
}

#[test]
fn job_lists_read_as_slurm_reads_them() {
    let sel = |job_id, array_task, step| JobSelector {
        job_id,
        array_task,
        step,
    };
    let p = plan(&["-j", "5,6.batch", "-j", "8_1,31.2", "--jobs=7.extern,5"]);
    assert_eq!(
        p.query.jobs,
        vec![
            sel(5, None, None),
            sel(6, None, Some(StepId::Batch)),
            sel(8, Some(1), None),
            sel(31, None, Some(StepId::Numbered(2))),
            sel(7, None, Some(StepId::Extern)),
        ]
    );
    let bad = |list: &[&str]| plan_as(list, 0).unwrap_err();
    assert_eq!(
        bad(&["-j", "x5"]),
        "sacct: fatal: Bad job/step specified: x5\n"
    );
    assert_eq!(bad(&["-j", "5.x"]), "sacct: fatal: Bad step specified: 5\n");
    assert_eq!(
        bad(&["-j", "5_x"]),
        "sacct: fatal: Bad job array element specified: 5\n"
    );
}

#[test]
fn states_take_long_and_short_names_and_refuse_the_unaccounted() {
    let p = plan(&[
        "-s",
        "cd,FAILED",
        "-s",
        "ca",
        "-S",
        "2026-01-01",
        "-E",
        "2026-02-01",
    ]);
    assert_eq!(
        p.query.states,
        vec![
            AcctState::Completed,
            AcctState::Failed,
            AcctState::Cancelled
        ]
    );
    assert_eq!(
        plan_as(&["-s", "bogus"], 0).unwrap_err(),
        "sacct: fatal: unrecognized job state value 'bogus'\n"
    );
    assert_eq!(
        plan_as(&["-s", "CG"], 0).unwrap_err(),
        "sacct: fatal: job state CG is not supported / accounted\n"
    );
}

fn local(y: i32, mo: i32, d: i32, h: i32, mi: i32, s: i32) -> u64 {
    // SAFETY: an all-zero tm is a valid starting value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    (tm.tm_year, tm.tm_mon, tm.tm_mday) = (y - 1900, mo - 1, d);
    (tm.tm_hour, tm.tm_min, tm.tm_sec) = (h, mi, s);
    tm.tm_isdst = -1;
    // SAFETY: tm is valid and initialised.
    let t = unsafe { libc::mktime(&mut tm) };
    #[allow(clippy::useless_conversion)]
    let t = i64::from(t);
    t as u64
}

#[test]
fn the_default_window_depends_on_jobs_and_states_as_in_slurm() {
    let now = local(2026, 11, 29, 23, 5, 3);
    let window = |list: &[&str]| {
        let p = Plan::new(&parse(list), &|_| None, now as i64, 0).expect("valid");
        (p.query.start, p.query.end)
    };
    // Neither: midnight to now (the current second included).
    assert_eq!(
        window(&[]),
        (Some(local(2026, 11, 29, 0, 0, 0)), Some(now + 1))
    );
    // -j: Epoch 0 to now.
    assert_eq!(window(&["-j", "5"]), (None, Some(now + 1)));
    // -s: now, for an instant.
    assert_eq!(window(&["-s", "R"]), (Some(now), Some(now + 1)));
    // -s with -S: from -S to -S.
    let s = local(2026, 11, 28, 12, 0, 0);
    assert_eq!(
        window(&["-s", "R", "-S", "1128-12:00"]),
        (Some(s), Some(s + 1))
    );
    assert_eq!(
        window(&["-S", "2026-11-01T08:30", "-E", "2026-11-02"]),
        (
            Some(local(2026, 11, 1, 8, 30, 0)),
            Some(local(2026, 11, 2, 0, 0, 0))
        )
    );
}

#[test]
fn times_read_as_slurms_parse_time_looking_back() {
    let now = local(2026, 3, 10, 12, 0, 0);
    let start = |text: &str| {
        Plan::new(&parse(&["-S", text]), &|_| None, now as i64, 0).map(|p| p.query.start)
    };
    assert_eq!(start("now"), Ok(Some(now)));
    assert_eq!(start("now-1hour"), Ok(Some(now - 3600)));
    assert_eq!(start("now-2days"), Ok(Some(now - 2 * 86_400)));
    assert_eq!(start("midnight"), Ok(Some(local(2026, 3, 10, 0, 0, 0))));
    assert_eq!(start("noon"), Ok(Some(local(2026, 3, 10, 12, 0, 0))));
    // A time of day already past is today, not tomorrow.
    assert_eq!(start("11:00"), Ok(Some(local(2026, 3, 10, 11, 0, 0))));
    // A date without a year is this year's, or last year's if still ahead.
    assert_eq!(start("0301"), Ok(Some(local(2026, 3, 1, 0, 0, 0))));
    assert_eq!(start("1225"), Ok(Some(local(2025, 12, 25, 0, 0, 0))));
    assert_eq!(start("12/25/24"), Ok(Some(local(2024, 12, 25, 0, 0, 0))));
    assert_eq!(
        start("2026-01-02T03:04:05"),
        Ok(Some(local(2026, 1, 2, 3, 4, 5)))
    );
    assert_eq!(
        start("bogus"),
        Err("Invalid time specification (pos=0): bogus\n".to_string())
    );
    let later = Plan::new(
        &parse(&["-S", "now", "-E", "now-1day"]),
        &|_| None,
        now as i64,
        0,
    );
    let err = later.unwrap_err();
    assert!(
        err.starts_with("sacct: error: Start time (2026-03-10T12:00:00) requested is after end time (2026-03-09T12:00:00)."),
        "{err}"
    );
}

#[test]
fn users_default_to_the_caller_unless_root_all_or_a_job_list() {
    let uids = |list: &[&str], uid| plan_as(list, uid).expect("valid").query.uids;
    assert_eq!(uids(&[], 2001), vec![2001]);
    assert!(uids(&[], 0).is_empty());
    assert!(uids(&["-a"], 2001).is_empty());
    assert!(uids(&["-j", "5"], 2001).is_empty());
    assert_eq!(uids(&["-u", "root,7"], 2001), vec![0, 7]);
    assert_eq!(uids(&["--me"], 2001), vec![2001]);
    assert_eq!(uids(&["-a", "-u", "7"], 2001), vec![7]);
    assert!(uids(&["-u", "7", "-a"], 2001).is_empty());
    assert!(uids(&["-u", "-1"], 2001).is_empty());
    assert!(uids(&["--json"], 2001).is_empty());
    assert_eq!(
        plan_as(&["-u", "no-such-user-here"], 0).unwrap_err(),
        "sacct: error: Invalid user id: no-such-user-here\n"
    );
}

#[test]
fn fields_match_by_prefix_any_case_and_unknown_ones_are_refused() {
    let names = |spec: &str| {
        plan(&["-o", spec])
            .layout
            .columns
            .iter()
            .map(|c| (c.field.name, c.width))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names("jobid,STATE%-15,elapsedraw, ncpus"),
        vec![
            ("JobID", -12),
            ("State", -15),
            ("ElapsedRaw", 10),
            ("NCPUS", 10)
        ]
    );
    assert_eq!(names("all").len(), super::field::FIELDS.len());
    assert_eq!(
        plan_as(&["-o", "JobID,Bogus"], 0).unwrap_err(),
        "sacct: error: Invalid field requested: \"Bogus\"\n"
    );
    assert_eq!(
        plan_as(&["-o", "AllocGRES"], 0).unwrap_err(),
        "sacct: fatal: AllocGRES has been removed, please use AllocTRES\n"
    );
    assert_eq!(
        plan_as(&["-o", "JobID", "-l"], 0).unwrap_err(),
        "sacct: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n"
    );
    assert_eq!(
        plan_as(&["extra"], 0).unwrap_err(),
        "sacct: error: Unknown arguments:\nsacct: error:  extra\n"
    );
}

#[test]
fn parsable_delimiters_and_the_p_ending_are_slurms() {
    let jobs = upto(3);
    assert_eq!(
        out(&["-p", "-X", "-o", "JobID,State", "-j", "3"], &jobs),
        "JobID|State|\n3|COMPLETED|\n"
    );
    assert_eq!(
        out(
            &["-P", "--delimiter=;", "-X", "-o", "JobID,State", "-j", "3"],
            &jobs
        ),
        "JobID;State\n3;COMPLETED\n"
    );
}

#[test]
fn a_running_job_shows_its_elapsed_time_and_no_end() {
    let mut jobs = upto(3);
    let j = &mut jobs[2];
    j.state = spur_proto::JobStateName::Running;
    j.start_time = Some(NOW - 65);
    j.end_time = None;
    j.steps[0].state = spur_proto::JobStateName::Running;
    j.steps[0].start_time = NOW - 65;
    j.steps[0].end_time = None;
    let text = out(
        &["-j", "3", "-n", "-P", "-o", "JobID,State,Elapsed,End"],
        &jobs,
    );
    assert_eq!(
        text,
        "3|RUNNING|00:01:05|Unknown\n3.batch|RUNNING|00:01:05|Unknown\n"
    );
}

#[test]
fn client_side_filters_narrow_the_jobs() {
    let jobs = upto(36);
    let ids = |list: &[&str]| -> Vec<String> {
        out(&[list, &["-X", "-n", "-P", "-o", "JobID"]].concat(), &jobs)
            .lines()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(ids(&["-N", "gb003"]), vec!["6", "7"]);
    assert_eq!(ids(&["-I", "50-200"]), vec!["11", "18"]);
    assert_eq!(
        ids(&["-i", "2", "-A", "research"]),
        vec!["5", "18", "31", "32"]
    );
    assert!(ids(&["-A", "other"]).is_empty());
}
