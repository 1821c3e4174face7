//! scontrol tests: golden cases recorded from Slurm 22.05.8 (`golden/`)
//! run against a fake controller holding the recorded cluster, and unit
//! tests for keywords, job id lists and update parsing.

use std::cell::RefCell;
use std::rc::Rc;

use clap::Parser;
use spur_client::ClientError;
use spur_conf::{ConfFile, TopologyConf};
use spur_proto::{
    ArrayTasks, ClientRequest, ClientResponse, ConfigInfo, ErrorCode, ExclusiveMode, JobInfo,
    JobStateName, JobUpdate, MemSpec, NodeStateRequest, NodeUpdate, ProtoError, RequeueHold,
};

use super::args::{self, abbrev, ScontrolArgs};
use super::config::{render_topology, topology_records};
use super::session::{Session, Site};
use super::update::{self, Entity, TimeChange};
use super::{apply_flags, process};
use crate::controller::RequestError;
use crate::sinfo::fixture::{self, golden, NOW};
use spur_slurm::job_ref::{parse_job_list, task_ids, JobRef};
use spur_slurm::locale::utc;

/// Job 5: two nodes, four GPUs each, running 5 seconds.
fn job5() -> JobInfo {
    JobInfo {
        job_id: 5,
        name: "big2x4".to_string(),
        user_id: 2001,
        user_name: "anchor".to_string(),
        group_id: 2001,
        group_name: "anchor".to_string(),
        state: JobStateName::Running,
        reason: "None".to_string(),
        priority: 4_294_901_755,
        nice: 0,
        account: Some("research".to_string()),
        qos: "normal".to_string(),
        partition: "batch".to_string(),
        time_limit: Some(7200),
        time_min: None,
        submit_time: NOW - 6,
        eligible_time: NOW - 6,
        start_time: Some(NOW - 5),
        end_time: Some(NOW - 5 + 7200),
        nodes: "gb[001-002]".to_string(),
        sched_nodes: None,
        num_nodes: 2,
        num_cpus: 2,
        num_tasks: 2,
        cpus_per_task: 1,
        ntasks_per_node: 0,
        cpus_per_node: vec![1, 1],
        batch_host: Some("gb001".to_string()),
        req_nodes: None,
        exc_nodes: None,
        features: None,
        mem: MemSpec::PerCpu(4096),
        tres: Some(spur_proto::Tres {
            cpus: 2,
            mem_mb: 8192,
            nodes: 2,
            billing: 2,
            gpus: 8,
        }),
        tres_per_node: Some("gres:gpu:4".to_string()),
        tres_per_job: None,
        tres_per_task: None,
        gpus_per_node_idx: vec![vec![0, 1, 2, 3], vec![0, 1, 2, 3]],
        work_dir: "/var/tmp/slurm-anchor".to_string(),
        stdout: "/var/tmp/slurm-anchor/slurm-5.out".to_string(),
        stderr: "/var/tmp/slurm-anchor/slurm-5.out".to_string(),
        stdin: "/dev/null".to_string(),
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
        submit_host: "localhost".to_string(),
        dependency: None,
        array_job_id: None,
        array_task_id: None,
        array_task_str: None,
        array_task_throttle: 0,
        last_sched_eval: Some(NOW - 5),
        unacted: Vec::new(),
    }
}

/// Job 11: the whole cluster, waiting for resources.
fn job11() -> JobInfo {
    JobInfo {
        job_id: 11,
        name: "whole-cluster".to_string(),
        state: JobStateName::Pending,
        reason: "Resources".to_string(),
        priority: 4_294_901_751,
        time_limit: Some(3600),
        submit_time: NOW - 5,
        eligible_time: NOW - 5,
        start_time: None,
        end_time: None,
        nodes: String::new(),
        num_nodes: 72,
        num_cpus: 72,
        num_tasks: 72,
        cpus_per_node: Vec::new(),
        batch_host: None,
        tres: Some(spur_proto::Tres {
            cpus: 72,
            mem_mb: 294912,
            nodes: 72,
            billing: 72,
            gpus: 288,
        }),
        gpus_per_node_idx: Vec::new(),
        stdout: "/var/tmp/slurm-anchor/slurm-11.out".to_string(),
        stderr: "/var/tmp/slurm-anchor/slurm-11.out".to_string(),
        last_sched_eval: Some(NOW - 2),
        ..job5()
    }
}

/// Job 9: task 0 of array 8.
fn job9() -> JobInfo {
    JobInfo {
        job_id: 9,
        name: "arr".to_string(),
        priority: 4_294_901_752,
        time_limit: Some(300),
        submit_time: NOW - 6,
        eligible_time: NOW - 5,
        end_time: Some(NOW - 5 + 300),
        nodes: "gb001".to_string(),
        num_nodes: 1,
        num_cpus: 1,
        num_tasks: 1,
        cpus_per_node: vec![1],
        tres: Some(spur_proto::Tres {
            cpus: 1,
            mem_mb: 4096,
            nodes: 1,
            billing: 1,
            gpus: 0,
        }),
        tres_per_node: None,
        gpus_per_node_idx: vec![Vec::new()],
        stdout: "/var/tmp/slurm-anchor/slurm-8_0.out".to_string(),
        stderr: "/var/tmp/slurm-anchor/slurm-8_0.out".to_string(),
        array_job_id: Some(8),
        array_task_id: Some(0),
        array_task_throttle: 2,
        ..job5()
    }
}

/// Job 8: the pending rest of array 8.
fn job8() -> JobInfo {
    JobInfo {
        job_id: 8,
        state: JobStateName::Pending,
        reason: "JobArrayTaskLimit".to_string(),
        start_time: None,
        end_time: None,
        nodes: String::new(),
        batch_host: None,
        cpus_per_node: Vec::new(),
        array_task_id: None,
        array_task_str: Some("2-9%2".to_string()),
        ..job9()
    }
}

/// The `show config` entries recorded in the golden file.
/// The configuration of the cluster the reference was recorded on, as
/// its controller sends it.
fn recorded_config() -> ConfigInfo {
    let text = include_str!("../../../conf/tests/fixtures/anchor/slurm.conf");
    let mut no_includes = |_: &std::path::Path| Err(std::io::ErrorKind::NotFound.into());
    let conf = spur_conf::SlurmConf::parse_with(
        text,
        std::path::Path::new("/etc/slurm/slurm.conf"),
        &mut no_includes,
    )
    .expect("the fixture parses")
    .value;
    ConfigInfo {
        loaded_at: NOW - 9,
        conf: Box::new(conf),
        facts: spur_slurm::config::HostFacts {
            conf_path: "/etc/slurm/slurm.conf".into(),
            next_job_id: 14,
            slurm_user_uid: Some(64030),
            slurmd_user_uid: Some(0),
            plugin_dir: "/usr/lib/x86_64-linux-gnu/slurm-wlm".into(),
            mail_prog: "/bin/mail".into(),
            hostname: "vm".into(),
        },
    }
}

/// A controller answering from the recorded cluster; every request is
/// logged.
fn fake(log: Rc<RefCell<Vec<ClientRequest>>>) -> Box<super::session::Ask<'static>> {
    Box::new(move |req: &ClientRequest| {
        log.borrow_mut().push(req.clone());
        let all = [job5(), job8(), job9(), job11()];
        Ok(match req {
            ClientRequest::Ping => ClientResponse::Pong {
                host: "vm".to_string(),
            },
            ClientRequest::Jobs { ids, fields, .. } => ClientResponse::Jobs {
                now: NOW,
                jobs: spur_proto::JobList::sent(
                    *fields,
                    &all.iter()
                        .filter(|j| {
                            ids.is_empty()
                                || ids.contains(&j.job_id)
                                || j.array_job_id.is_some_and(|a| ids.contains(&a))
                        })
                        .cloned()
                        .collect::<Vec<_>>(),
                ),
            },
            ClientRequest::Nodes => ClientResponse::Nodes {
                now: NOW,
                nodes: fixture::nodes(),
            },
            ClientRequest::Partitions => ClientResponse::Partitions(fixture::partitions()),
            ClientRequest::Config => ClientResponse::Config(recorded_config()),
            ClientRequest::Hold { jobs, .. } if jobs.contains(&99) => {
                ClientResponse::PerJob(vec![(99, Err(ProtoError::new(ErrorCode::AlreadyDone)))])
            }
            // Task 0 of array 8 is job 9; tasks 2-9 wait in job 8 and get
            // jobs 102-109 when split off.
            ClientRequest::SplitArrayTasks(t) if t.array_job_id == 8 => {
                let found = spur_slurm::job_ref::task_ids(&t.tasks)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|task| match task {
                        0 => Some((0, 9)),
                        2..=9 => Some((task, 100 + task)),
                        _ => None,
                    })
                    .collect();
                ClientResponse::ArrayTaskJobs(found)
            }
            ClientRequest::SplitArrayTasks(_) => ClientResponse::ArrayTaskJobs(Vec::new()),
            _ => ClientResponse::Done,
        })
    })
}

fn site() -> Site {
    Site {
        controllers: vec!["vm".to_string()],
        ..Site::default()
    }
}

/// Runs `scontrol <argv>` against `ask`; returns stdout, stderr, exit code.
fn run_with(argv: &[&str], ask: Box<super::session::Ask<'static>>) -> (String, String, u8) {
    let argv: Vec<String> = std::iter::once("scontrol")
        .chain(argv.iter().copied())
        .map(str::to_string)
        .collect();
    let parsed = match ScontrolArgs::try_parse_from(args::permute(&argv)) {
        Ok(p) => p,
        Err(e) => {
            return (
                String::new(),
                crate::getopt::error(
                    "scontrol",
                    &e,
                    argv.last().map(String::as_str).unwrap_or_default().as_ref(),
                ),
                1,
            );
        }
    };
    let mut s = Session::new(site(), utc::locale(), NOW, 2001, ask);
    apply_flags(&mut s, &parsed);
    process(&mut s, &parsed.command);
    (s.out, s.err, s.exit_code)
}

fn scontrol(argv: &[&str]) -> (String, String, u8) {
    run_with(argv, fake(Rc::default()))
}

fn assert_golden(recorded: &str, argv: &[&str], fix: &[(&str, &str)]) {
    let (mut expected, code) = golden(recorded);
    for (from, to) in fix {
        assert!(expected.contains(from), "{from} is in the recording");
        expected = expected.replace(from, to);
    }
    let (out, err, exit) = scontrol(argv);
    let actual = out + &err;
    assert_eq!(
        actual, expected,
        "\n--- actual ---\n{actual}--- expected ---\n{expected}"
    );
    assert_eq!(exit, code);
}

/// JobInfo has no session id of the submitting shell (AllocNode:Sid).
const NO_SID: (&str, &str) = ("localhost:2234", "localhost:0");

#[test]
fn running_job_matches_slurm() {
    let text = include_str!("golden/30-scontrol-show-job-running.txt");
    assert_golden(text, &["show", "job", "5"], &[NO_SID]);
}

#[test]
fn pending_job_matches_slurm() {
    // JobInfo has no max node count, so NumNodes shows the minimum only.
    let fix = [NO_SID, ("NumNodes=72-72", "NumNodes=72")];
    let text = include_str!("golden/31-scontrol-show-job-pending.txt");
    assert_golden(text, &["show", "job", "11"], &fix);
}

#[test]
fn array_task_matches_slurm() {
    let text = include_str!("golden/32-scontrol-show-job-array.txt");
    assert_golden(text, &["show", "job", "8_0"], &[NO_SID]);
}

#[test]
fn job_details_match_slurm() {
    // JobInfo has CPU counts per node, not CPU ids: both nodes show CPU 0,
    // so their lines merge as Slurm merges equal allocations.
    let fix = [
        NO_SID,
        (
            "     Nodes=gb001 CPU_IDs=3 Mem=4096 GRES=gpu:4(IDX:0-3)\n\
             \x20    Nodes=gb002 CPU_IDs=0 Mem=4096 GRES=gpu:4(IDX:0-3)\n",
            "     Nodes=gb[001-002] CPU_IDs=0 Mem=4096 GRES=gpu:4(IDX:0-3)\n",
        ),
    ];
    let text = include_str!("golden/33-scontrol-show-job-details.txt");
    assert_golden(text, &["show", "job", "-d", "5"], &fix);
}

#[test]
fn nodes_match_slurm() {
    let alloc = include_str!("golden/34-scontrol-show-node-alloc.txt");
    assert_golden(alloc, &["show", "node", "gb001"], &[]);
    let idle = include_str!("golden/35-scontrol-show-node-idle.txt");
    assert_golden(idle, &["show", "node", "gb072"], &[]);
    let one = include_str!("golden/43-scontrol-show-node-oneliner.txt");
    assert_golden(one, &["-o", "show", "node", "gb001"], &[]);
}

#[test]
fn hostlists_match_slurm() {
    let names = include_str!("golden/36-scontrol-show-hostnames.txt");
    assert_golden(names, &["show", "hostnames", "gb[001-003,010]"], &[]);
    let list = include_str!("golden/37-scontrol-show-hostlist.txt");
    assert_golden(list, &["show", "hostlist", "gb001,gb002,gb003,gb010"], &[]);
    let (out, _, _) = scontrol(&["show", "hostlistsorted", "gb010,gb001,gb002"]);
    assert_eq!(out, "gb[001-002,010]\n");
}

#[test]
fn config_matches_slurm() {
    let full = include_str!("golden/39-scontrol-show-config-full.txt");
    assert_golden(full, &["show", "config"], &[]);
    let (head, _) = golden(include_str!("golden/38-scontrol-show-config-head.txt"));
    let (out, _, _) = scontrol(&["show", "config"]);
    let first: String = out.split_inclusive('\n').take(40).collect();
    assert_eq!(first, head);
}

#[test]
fn config_boot_time_is_the_controllers_start_in_local_format() {
    // The controller sends its start, not BOOT_TIME's text; the client
    // formats ConfigInfo::loaded_at, as scontrol formats boot_time itself.
    let sent = recorded_config();
    let text = spur_report::show::config::render_config(&sent, NOW, &utc::locale());
    let (recorded, _) = golden(include_str!("golden/39-scontrol-show-config-full.txt"));
    assert!(recorded.starts_with(&text), "\n{text}");
    assert!(text.contains("\nBOOT_TIME               = 2026-11-29T23:04:54\n"));
}

#[test]
fn partitions_match_slurm() {
    let text = include_str!("golden/40-scontrol-show-partition.txt");
    assert_golden(text, &["show", "partition"], &[]);
    let (out, _, code) = scontrol(&["show", "partition", "nosuch"]);
    assert_eq!((out.as_str(), code), ("Partition nosuch not found\n", 1));
}

#[test]
fn topology_matches_slurm() {
    let conf = include_str!("golden/topology.conf");
    let topo = TopologyConf::parse_with(conf, std::path::Path::new("topology.conf"), &mut |_| {
        Err(std::io::ErrorKind::NotFound.into())
    })
    .expect("the recorded topology.conf parses")
    .value;
    let records = topology_records(&topo);
    let (expected, _) = golden(include_str!("golden/41-scontrol-show-topology.txt"));
    assert_eq!(render_topology(&records, None), Ok(expected));
    assert_eq!(
        render_topology(&records, Some("gb020")),
        Ok("SwitchName=nvl02 Level=0 LinkSpeed=1 Nodes=gb[019-036]\n\
            SwitchName=spine Level=1 LinkSpeed=1 Nodes=gb[001-072] Switches=nvl[01-04]\n"
            .to_string())
    );
    assert!(render_topology(&records, Some("zz")).is_err());
    assert_eq!(
        render_topology(&[], None),
        Err("scontrol: error: No topology information available\n".to_string())
    );
}

#[test]
fn json_option_is_rejected_like_slurm() {
    let text = include_str!("golden/42-scontrol-json-unsupported.txt");
    assert_golden(text, &["--json", "show", "job", "5"], &[]);
}

#[test]
fn unknown_ids_fail_like_slurm() {
    let job = include_str!("golden/46-scontrol-show-job-invalid.txt");
    assert_golden(job, &["show", "job", "999999"], &[]);
    let refused = Box::new(|_: &ClientRequest| {
        Err(RequestError::Refused(ProtoError::new(
            ErrorCode::InvalidJobId,
        )))
    });
    let (_, err, code) = run_with(&["show", "job", "999999"], refused);
    assert_eq!(
        (err.as_str(), code),
        ("slurm_load_jobs error: Invalid job id specified\n", 1)
    );
    let node = include_str!("golden/47-scontrol-show-node-invalid.txt");
    assert_golden(node, &["show", "node", "nosuch"], &[]);
    let (out, _, code) = scontrol(&["show", "job", "8_5"]);
    assert!(
        out.starts_with("JobId=8 ArrayJobId=8 ArrayTaskId=5 "),
        "pending in job 8"
    );
    assert_eq!(code, 0);
    let (out, _, code) = scontrol(&["show", "job", "8_11"]);
    assert_eq!((out.as_str(), code), ("Job 8_11 not found\n", 1));
    let (_, err, code) = scontrol(&["show", "job", "abc"]);
    assert_eq!(
        (err.as_str(), code),
        ("scontrol_print_job error: Invalid job id specified\n", 1)
    );
}

#[test]
fn ping_matches_slurm_up_and_down() {
    let text = include_str!("golden/48-scontrol-ping.txt");
    assert_golden(text, &["ping"], &[]);
    let down = Box::new(|_: &ClientRequest| {
        Err(RequestError::Unreachable(ClientError::Connect {
            socket: "/nonexistent/spur.sock".into(),
            source: std::io::ErrorKind::NotFound.into(),
        }))
    });
    let (out, _, code) = run_with(&["ping"], down);
    assert_eq!(
        (out.as_str(), code),
        ("Slurmctld(primary) at vm is DOWN\n", 1)
    );
}

#[test]
fn pending_array_record_shows_the_task_asked_for() {
    let (out, _, _) = scontrol(&["show", "job", "8"]);
    assert!(out.starts_with("JobId=8 ArrayJobId=8 ArrayTaskId=2-9%2 ArrayTaskThrottle=2 "));
    assert!(
        out.contains("\n\nJobId=9 ArrayJobId=8 ArrayTaskId=0 ArrayTaskThrottle=2 JobName=arr\n")
    );
    let mut job = job8();
    job.array_task_str = Some("2-9%2".to_string());
    let text = super::render_job(&job, NOW, Default::default(), Some(5), &utc::locale());
    assert!(
        text.starts_with("JobId=8 ArrayJobId=8 ArrayTaskId=5 ArrayTaskThrottle=2 JobName=arr\n")
    );
    let text = super::render_job(&job, NOW, Default::default(), None, &utc::locale());
    assert!(text.contains("ArrayTaskId=2-9%2 ArrayTaskThrottle=2 "));
    assert!(text.contains("JobState=PENDING Reason=JobArrayTaskLimit"));
}

#[test]
fn drained_node_shows_state_and_reason() {
    let mut node = fixture::node(10);
    node.drain = true;
    node.reason = Some("bad gpu".to_string());
    node.reason_set = Some((0, NOW - 60));
    node.port = 6818;
    let view = spur_report::show::node::NodeView {
        slurmd_port: 6818,
        locale: &utc::locale(),
    };
    let opts = spur_report::show::ShowOpts::default();
    let text = super::render_node(&node, opts, view);
    assert!(text.contains("NodeAddr=127.0.0.1 NodeHostName=gb010 Version=22.05.8\n"));
    assert!(text.contains("State=IDLE+DRAIN ThreadsPerCore=1"));
    assert!(text.ends_with("ExtSensorsTemp=n/s\n   Reason=bad gpu [root@2026-11-29T23:04:03]\n\n"));
}

fn requests(argv: &[&str]) -> (Vec<ClientRequest>, String, u8) {
    let log: Rc<RefCell<Vec<ClientRequest>>> = Rc::default();
    let (_, err, code) = run_with(argv, fake(log.clone()));
    let sent = log.borrow().clone();
    (sent, err, code)
}

#[test]
fn requeuehold_and_the_requeue_flags_reach_the_controller() {
    let requeue = |hold, special_exit, incomplete, jobs: Vec<u32>| ClientRequest::Requeue {
        jobs,
        hold: RequeueHold { hold, special_exit },
        incomplete,
    };
    let (sent, _, code) = requests(&["requeuehold", "12"]);
    assert_eq!(
        (sent, code),
        (vec![requeue(true, false, false, vec![12])], 0)
    );
    let (sent, _, _) = requests(&["requeue", "Incomplete", "state=se", "12", "13"]);
    assert_eq!(
        sent,
        vec![
            requeue(false, true, true, vec![12]),
            requeue(false, true, true, vec![13])
        ]
    );
    let (sent, _, _) = requests(&["requeuehold", "STATE=SpecialExit", "inc", "12"]);
    assert_eq!(sent, vec![requeue(true, true, true, vec![12])]);
    // A word that is no flag starts the jobs, as scontrol reads them.
    let (sent, err, code) = requests(&["requeue", "State=held", "12"]);
    assert_eq!(sent, vec![requeue(false, false, false, vec![12])]);
    assert_eq!(
        (err.as_str(), code),
        ("Invalid job id specified for job State=held\n", 1)
    );
    let (_, err, code) = requests(&["requeuehold"]);
    assert_eq!(
        (err.as_str(), code),
        ("too few arguments for keyword:requeuehold\n", 1)
    );
}

#[test]
fn hold_release_and_requeue_send_job_ids() {
    let (sent, _, code) = requests(&["hold", "12,13"]);
    assert_eq!(code, 0);
    assert_eq!(
        sent,
        vec![ClientRequest::Hold {
            jobs: vec![12, 13],
            admin: true
        }]
    );
    let (sent, _, _) = requests(&["uhold", "JobId=12"]);
    assert_eq!(
        sent,
        vec![ClientRequest::Hold {
            jobs: vec![12],
            admin: false
        }]
    );
    let (sent, _, _) = requests(&["release", "12", "1[4-5]"]);
    assert_eq!(
        sent,
        vec![
            ClientRequest::Release { jobs: vec![12] },
            ClientRequest::Release { jobs: vec![14, 15] }
        ]
    );
    let (sent, _, _) = requests(&["requeue", "8_0"]);
    assert_eq!(
        sent.last(),
        Some(&ClientRequest::Requeue {
            jobs: vec![9],
            hold: RequeueHold::default(),
            incomplete: false
        })
    );
    let (_, err, code) = requests(&["hold", "99"]);
    assert_eq!(
        (err.as_str(), code),
        (
            "Job/step already completing or completed for job 99\n\
             slurm_suspend error: Job/step already completing or completed\n",
            1
        )
    );
    let (sent, err, code) = requests(&["hold", "x12"]);
    assert!(sent.is_empty());
    assert_eq!(
        (err.as_str(), code),
        ("Invalid job id specified for job x12\n", 1)
    );
}

#[test]
fn array_tasks_are_split_off_before_they_are_held() {
    let split = |tasks: &str| {
        ClientRequest::SplitArrayTasks(ArrayTasks {
            array_job_id: 8,
            tasks: tasks.to_string(),
        })
    };
    let (sent, err, code) = requests(&["hold", "8_3"]);
    assert_eq!((err.as_str(), code), ("", 0));
    assert_eq!(
        sent,
        vec![
            split("3"),
            ClientRequest::Hold {
                jobs: vec![103],
                admin: true
            }
        ]
    );
    let (sent, _, _) = requests(&["release", "8_[4,3,0]", "8"]);
    assert_eq!(
        sent,
        vec![
            split("0,3-4"),
            ClientRequest::Release {
                jobs: vec![104, 103, 9]
            },
            ClientRequest::Release { jobs: vec![8] }
        ]
    );
    let (sent, err, code) = requests(&["hold", "8_42"]);
    assert_eq!(sent, vec![split("42")]);
    assert_eq!(
        (err.as_str(), code),
        ("Invalid job id specified for job 8_42\n", 1)
    );
    let (_, err, code) = requests(&["update", "JobId=77_1", "Nice=5"]);
    assert_eq!(
        (err.as_str(), code),
        ("Invalid job id specified for job 77_1\n", 1)
    );
}

#[test]
fn throttle_and_dependency_updates_go_to_the_controller() {
    let (sent, err, code) = requests(&["update", "JobId=8", "ArrayTaskThrottle=3"]);
    assert_eq!((err.as_str(), code), ("", 0));
    let throttle = JobUpdate {
        job_id: 8,
        array_task_throttle: Some(3),
        ..JobUpdate::default()
    };
    assert_eq!(sent, vec![ClientRequest::UpdateJob(throttle)]);
    let (sent, _, _) = requests(&["update", "JobId=13", "Dependency=afterok:5?afterany:6"]);
    let dependency = JobUpdate {
        job_id: 13,
        dependency: Some("afterok:5?afterany:6".to_string()),
        ..JobUpdate::default()
    };
    assert_eq!(sent, vec![ClientRequest::UpdateJob(dependency)]);
    let (sent, err, code) = requests(&["update", "JobId=8", "ArrayTaskThrottle=-1"]);
    assert!(sent.is_empty());
    assert_eq!(
        (err.as_str(), code),
        ("scontrol: error: Invalid ArrayTaskThrottle value\n", 1)
    );
}

#[test]
fn an_arrays_outcomes_print_per_task_group_unless_all_went_well() {
    let answer = |groups: Vec<(String, Result<(), ProtoError>)>| {
        Box::new(move |_: &ClientRequest| Ok(ClientResponse::PerTasks(groups.clone())))
            as Box<super::session::Ask<'static>>
    };
    let ok = answer(vec![("8_0-9".to_string(), Ok(()))]);
    assert_eq!(
        run_with(&["update", "JobId=8", "Dependency=afterany:5"], ok),
        (String::new(), String::new(), 0)
    );
    let mixed = answer(vec![
        (
            "8_0-1".to_string(),
            Err(ProtoError::new(ErrorCode::JobNotPending)),
        ),
        ("8_2-9".to_string(), Ok(())),
    ]);
    let (_, err, code) = run_with(&["update", "JobId=8", "Dependency=afterany:5"], mixed);
    assert_eq!(
        (err.as_str(), code),
        (
            "8_0-1: Job is no longer pending execution\n8_2-9: No error\n",
            1
        )
    );
}

#[test]
fn updates_send_what_was_asked() {
    let (sent, _, code) = requests(&["update", "JobId=12", "TimeLimit=10"]);
    assert_eq!(code, 0);
    let limit = JobUpdate {
        job_id: 12,
        time_limit: Some(Some(600)),
        ..JobUpdate::default()
    };
    assert_eq!(sent, vec![ClientRequest::UpdateJob(limit)]);
    let (sent, _, _) = requests(&["update", "jobid=5", "TimeLimit+=30", "Nice", "Comment=x"]);
    let bumped = JobUpdate {
        job_id: 5,
        time_limit: Some(Some(7200 + 1800)),
        nice: Some(100),
        comment: Some("x".to_string()),
        ..JobUpdate::default()
    };
    assert_eq!(sent.last(), Some(&ClientRequest::UpdateJob(bumped)));
    let (sent, _, _) = requests(&[
        "update",
        "NodeName=gb[001-002]",
        "State=DRAIN",
        "Reason=\"fan\"",
    ]);
    let drain = NodeUpdate {
        nodes: vec!["gb001".to_string(), "gb002".to_string()],
        state: Some(NodeStateRequest::Drain),
        reason: Some("fan".to_string()),
    };
    assert_eq!(sent, vec![ClientRequest::UpdateNode(drain)]);
    let (sent, _, _) = requests(&["update", "JobName=whole-cluster", "Priority=7"]);
    assert!(
        matches!(sent.last(), Some(ClientRequest::UpdateJob(u)) if u.job_id == 11 && u.priority == Some(7))
    );
}

#[test]
fn update_errors_read_like_slurm() {
    let err = |argv: &[&str]| {
        let (sent, err, code) = requests(argv);
        assert_eq!(code, 1, "{argv:?} fails");
        assert!(
            sent.iter().all(|r| matches!(r, ClientRequest::Jobs { .. })),
            "{argv:?}"
        );
        err
    };
    assert_eq!(
        err(&["update", "NodeName=gb001", "State=DRAIN"]),
        "You must specify a reason when DOWNING or DRAINING a node. Request denied\n"
    );
    assert_eq!(
        err(&["update", "NodeName=gb001", "State=BOGUS"]),
        "Invalid input: State=BOGUS\nRequest aborted\nValid states are: NoResp DRAIN FAIL FUTURE \
         RESUME POWER_DOWN POWER_UP UNDRAIN\nNot all states are valid given a node's prior state\n"
    );
    assert_eq!(
        err(&["update", "NodeName=gb001", "State=ALLOC"]),
        "slurm_update error: Invalid node state specified\n"
    );
    assert_eq!(
        err(&["update", "JobId=5", "Bogus=1"]),
        "Update of this parameter is not supported: Bogus=1\nRequest aborted\n"
    );
    assert_eq!(err(&["update", "JobId=5"]), "No changes specified\n");
    assert_eq!(
        err(&["update", "JobId=5", "TimeLimit=abc"]),
        "scontrol: error: Invalid TimeLimit value\n"
    );
    assert_eq!(
        err(&["update", "JobId=5", "TimeLimit-=200"]),
        "scontrol: error: TimeLimit decrement larger than current time limit (200 > 120)\n"
    );
    assert_eq!(err(&["update", "Foo=1"]), update::NO_ENTITY);
    assert_eq!(err(&["update"]), "too few arguments for update keyword\n");
}

#[test]
fn keywords_and_options_are_read_like_slurm() {
    let (out, _, code) = scontrol(&["version"]);
    assert_eq!((out.as_str(), code), ("slurm 22.05.8\n", 0));
    let (_, err, code) = scontrol(&["bogus"]);
    assert_eq!((err.as_str(), code), ("invalid keyword: bogus\n", 1));
    let (_, err, _) = scontrol(&["show", "bogus"]);
    assert_eq!(err, "invalid entity:bogus for keyword:show \n");
    let (_, err, _) = scontrol(&["show"]);
    assert_eq!(err, "too few arguments for keyword:show\n");
    let (out, _, _) = scontrol(&["sho", "j=5"]);
    assert!(out.starts_with("JobId=5 JobName=big2x4\n"));
    let (out, _, _) = scontrol(&["show", "job", "5", "--oneliner"]);
    assert!(out.starts_with("JobId=5 JobName=big2x4 UserId=anchor(2001)"));
    assert!(out.ends_with("TresPerNode=gres:gpu:4 \n"));
    let (_, err, _) = scontrol(&["-Q", "show", "node", "nosuch"]);
    assert!(err.is_empty());
    let (_, err, code) = scontrol(&["suspend", "5"]);
    assert_eq!(
        (err.as_str(), code),
        ("scontrol: error: suspend is not supported by spur\n", 1)
    );
    assert!(abbrev("rec", "reconfigure", 3));
    assert!(!abbrev("re", "reconfigure", 3));
    assert!(!abbrev("showx", "show", 3));
    assert_eq!(
        args::permute(&["scontrol", "show", "job", "-d", "5", "-M", "c1"].map(String::from)),
        ["scontrol", "-d", "-M", "c1", "--", "show", "job", "5"].map(String::from)
    );
    assert_eq!(
        args::split_line("update JobId=5 Comment=\"a b\""),
        ["update", "JobId=5", "Comment=\"a b\""].map(String::from)
    );
}

#[test]
fn job_lists_parse_like_scontrol() {
    assert_eq!(
        parse_job_list("12,13 1[4-5]"),
        Some(vec![
            JobRef::Job(12),
            JobRef::Job(13),
            JobRef::Job(14),
            JobRef::Job(15)
        ])
    );
    assert_eq!(
        parse_job_list("8_3,8_[1-2]"),
        Some(vec![
            JobRef::Task(8, 3),
            JobRef::Tasks(8, "1-2".to_string())
        ])
    );
    assert_eq!(parse_job_list("9+1"), Some(vec![JobRef::Het(9, 1)]));
    assert_eq!(parse_job_list("12-13"), None);
    assert_eq!(parse_job_list("abc"), None);
    assert_eq!(task_ids("2-9%2"), Some(vec![2, 3, 4, 5, 6, 7, 8, 9]));
    assert_eq!(task_ids("1-7:3,10"), Some(vec![1, 4, 7, 10]));
}

#[test]
fn update_words_parse_like_scontrol() {
    let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    assert_eq!(
        update::entity(&words(&["JobId=5", "Partition=x"])),
        Some(Entity::Job)
    );
    assert_eq!(
        update::entity(&words(&["Partition=x", "JobId=5"])),
        Some(Entity::Job)
    );
    assert_eq!(
        update::entity(&words(&["NodeName", "gb001"])),
        Some(Entity::Node)
    );
    assert_eq!(
        update::entity(&words(&["PartitionName=x"])),
        Some(Entity::Partition)
    );
    let req = update::parse_job(&words(&[
        "JobId",
        "5",
        "TimeLimit=UNLIMITED",
        "Partition=debug",
        "Nice=-5",
        "Name=n",
    ]))
    .expect("valid");
    assert_eq!(req.ids.as_deref(), Some("5"));
    assert_eq!(req.time, Some(TimeChange::Set(None)));
    assert_eq!(req.partition.as_deref(), Some("debug"));
    assert_eq!(req.nice, Some(-5));
    assert_eq!(req.name.as_deref(), Some("n"));
    let req = update::parse_job(&words(&["JobId=5", "TimeLimit=1-00:00:30"])).expect("valid");
    assert_eq!(req.time, Some(TimeChange::Set(Some(86_460))));
    assert_eq!(
        update::parse_job(&words(&["TimeLimit=+5", "JobId=5"])),
        Err("scontrol: error: JobId must precede TimeLimit increment or decrement\n".to_string())
    );
    assert_eq!(
        update::parse_job(&words(&["JobId=5", "Partition+=x"])),
        Err("scontrol: error: Option Partition does not accept [+|-]= syntax\n".to_string())
    );
    assert!(update::parse_job(&words(&["JobId=5", "Nice=9999999999"])).is_err());
    assert!(update::parse_job(&words(&["JobId=5", "QOS=high"]))
        .is_err_and(|e| e.contains("not supported by spur")));
    let node = update::parse_node(&words(&["NodeName=gb001", "State=RESUME"])).expect("valid");
    assert_eq!(node.state, Some(NodeStateRequest::Resume));
    let node = update::parse_node(&words(&["N=gb001", "Reason=checking"])).expect("valid");
    assert_eq!(
        (node.state, node.reason.as_deref()),
        (None, Some("checking"))
    );
}
