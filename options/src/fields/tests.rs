//! The structured front end against the text one: the same job given as
//! sbatch's options and as job_desc_msg_t's fields is the same JobDesc.

use std::ffi::OsString;

use clap::FromArgMatches;

use super::*;
use crate::args::{self, SbatchArgs};
use crate::layer::{self, Layers};
use crate::{desc, script};

const NOW: i64 = 1_900_000_000;

fn env() -> Vec<(String, String)> {
    vec![("PATH".to_string(), "/bin".to_string())]
}

/// The job sbatch builds from `words` (command line only) for `--wrap`.
fn from_options(words: &[&str]) -> JobDesc {
    let mut table = layer::Table::new(args::command());
    let argv: Vec<OsString> = std::iter::once("sbatch")
        .chain(words.iter().copied())
        .map(OsString::from)
        .collect();
    let cmdline = table.parse(&argv).expect("parses");
    let all = SbatchArgs::from_arg_matches(&cmdline).expect("matches");
    let none = table.none().expect("empty");
    let layers = Layers {
        directives: none.clone(),
        env: none,
        cmdline: cmdline.into(),
    };
    let env = env();
    let ctx = desc::Context {
        script: script::wrap(all.wrap.as_deref().unwrap_or_default()),
        script_path: None,
        wrap: true,
        argv: Vec::new(),
        env: &env,
        cwd: "/home/u".into(),
        hostname: "login".into(),
        now: NOW,
    };
    desc::build(&all, &layers, Vec::new(), &ctx)
        .expect("builds")
        .desc
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn options_and_fields_give_the_same_batch_job() {
    let text = from_options(&[
        "-J",
        "train",
        "-A",
        "proj",
        "-p",
        "gpu,debug",
        "-q",
        "high",
        "-M",
        "e2e",
        "--comment=hi",
        "-N",
        "2-4",
        "-n",
        "8",
        "--ntasks-per-node=4",
        "-c",
        "2",
        "--mem=4G",
        "--gpus-per-node=a100:2",
        "--exclusive=user",
        "--segment=2",
        "--switches=1@10",
        "-w",
        "n[01-02]",
        "-x",
        "n03",
        "-C",
        "ib",
        "-t",
        "1:30:00",
        "--time-min=30",
        "--nice=10",
        "--begin=now+1hour",
        "--deadline=now+1day",
        "--requeue",
        "--signal=B:USR1@90",
        "--array=0-3",
        "-d",
        "afterok:5",
        "--kill-on-invalid-dep=yes",
        "-o",
        "out.%j",
        "-e",
        "/tmp/err",
        "-i",
        "in",
        "--open-mode=append",
        "-D",
        "/work",
        "--hold",
        "--wrap=hostname",
    ]);
    let fields = JobDescFields {
        name: some("train"),
        account: some("proj"),
        partition: some("gpu,debug"),
        qos: some("high"),
        clusters: some("e2e"),
        comment: some("hi"),
        min_nodes: Some(2),
        max_nodes: Some(4),
        num_tasks: Some(8),
        ntasks_per_node: Some(4),
        cpus_per_task: Some(2),
        pn_min_memory: Some(4096),
        tres_per_node: some("gres:gpu:a100:2"),
        shared: Some(JOB_SHARED_USER),
        segment_size: Some(2),
        req_switch: Some(1),
        wait4switch: Some(600),
        req_nodes: some("n[01-02]"),
        exc_nodes: some("n03"),
        features: some("ib"),
        time_limit: Some(90),
        time_min: Some(30),
        nice: Some(10),
        priority: Some(0),
        begin_time: Some(NOW as u64 + 3600),
        deadline: Some(NOW as u64 + 86400),
        requeue: Some(true),
        warn_signal: Some(libc::SIGUSR1 as u16),
        warn_time: Some(90),
        warn_flags: KILL_JOB_BATCH,
        bitflags: KILL_INV_DEP,
        array_inx: some("0-3"),
        dependency: some("afterok:5"),
        script: Some(script::wrap("hostname")),
        environment: text.env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        work_dir: some("/work"),
        std_out: some("out.%j"),
        std_err: some("/tmp/err"),
        std_in: some("in"),
        open_mode: Some(OPEN_MODE_APPEND),
        alloc_node: some("login"),
        ..JobDescFields::default()
    };
    assert_eq!(fields.job_desc(Request::Batch).expect("builds"), text);
    // The environment is sbatch's own plus what sbatch adds to it.
    assert!(text
        .env
        .contains(&("SLURM_JOB_DEPENDENCY".into(), "afterok:5".into())));
}

#[test]
fn options_and_fields_give_the_same_allocation() {
    let words: Vec<OsString> = [
        "srun",
        "-J",
        "shell",
        "-N",
        "1",
        "-n",
        "2",
        "--mem-per-cpu=1G",
        "--gpus=3",
        "--cpus-per-gpu=4",
        "-t",
        "UNLIMITED",
        "--exclusive",
    ]
    .map(OsString::from)
    .to_vec();
    let host = crate::Host {
        env: env(),
        cwd: "/home/u".into(),
        hostname: "login".into(),
        now: NOW,
    };
    let (text, warnings) = crate::alloc::srun_job(&words, &host).expect("builds");
    assert!(warnings.is_empty(), "{warnings:?}");
    let fields = JobDescFields {
        name: some("shell"),
        min_nodes: Some(1),
        num_tasks: Some(2),
        pn_min_memory: Some(1024 | MEM_PER_CPU),
        tres_per_job: some("gres:gpu:3"),
        cpus_per_tres: some("gres:gpu:4"),
        time_limit: Some(INFINITE),
        shared: Some(JOB_SHARED_NONE),
        work_dir: some("/home/u"),
        alloc_node: some("login"),
        ..JobDescFields::default()
    };
    assert_eq!(fields.job_desc(Request::Allocation).expect("builds"), text);
}

#[test]
fn fields_no_option_could_give_are_refused_with_slurms_codes() {
    let refused = |f: JobDescFields| f.job_desc(Request::Batch).expect_err("refused").code;
    let gres = JobDescFields {
        tres_per_node: some("gres:nic:1"),
        ..JobDescFields::default()
    };
    assert_eq!(refused(gres), ErrorCode::InvalidGres);
    let two_types = JobDescFields {
        tres_per_job: some("gres:gpu:a100:1"),
        tres_per_task: some("gres:gpu:h100:1"),
        ..JobDescFields::default()
    };
    assert_eq!(refused(two_types), ErrorCode::InvalidGres);
    let nodes = JobDescFields {
        req_nodes: some("n[01"),
        ..JobDescFields::default()
    };
    assert_eq!(refused(nodes), ErrorCode::InvalidNodeName);
    let shared = JobDescFields {
        shared: Some(9),
        ..JobDescFields::default()
    };
    assert_eq!(refused(shared), ErrorCode::InvalidArgument);
    let env = JobDescFields {
        environment: vec!["NOEQUALS".into()],
        ..JobDescFields::default()
    };
    assert_eq!(refused(env), ErrorCode::InvalidArgument);
    let memory = JobDescFields {
        pn_min_memory: Some(1024),
        mem_per_tres: some("gres:gpu:2048"),
        ..JobDescFields::default()
    };
    assert_eq!(refused(memory), ErrorCode::InvalidArgument);
}

#[test]
fn a_count_of_required_nodes_and_tres_lists_read_as_slurmctld_reads_them() {
    let f = JobDescFields {
        req_nodes: some("n[01-03],n01"),
        tres_per_task: some("gres/gpu:1"),
        mem_per_tres: some("gres:gpu:8192"),
        argv: vec!["job.sh".into(), "a".into(), "b".into()],
        ..JobDescFields::default()
    };
    let d = f.job_desc(Request::Batch).expect("builds");
    assert_eq!(d.min_nodes, Some(3));
    assert_eq!(d.gpus_per_task, Some(1));
    assert_eq!(d.mem, MemSpec::PerGpu(8192));
    assert_eq!(d.argv, vec!["a".to_string(), "b".to_string()]);
}
