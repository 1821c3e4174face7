//! End-to-end tests of sbatch: words, variables, scripts and a stand-in
//! controller in; the JobDesc it was sent, stdout, stderr and the exit
//! status out.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::Write;

use spur_client::ClientError;
use spur_proto::{
    ClientRequest, ClientResponse, ErrorCode, ExclusiveMode, JobDesc, JobInfo, JobList,
    JobStateName, MemSpec, OpenMode, ProtoError, SegmentLayout, WillRun,
};

use super::*;
use crate::controller::RequestError;

type Answer = Result<ClientResponse, RequestError>;

/// The controller's answer to a submission it took.
fn submitted(job_id: u32) -> ClientResponse {
    ClientResponse::Submitted {
        job_id,
        cluster: "anchor".to_string(),
    }
}

/// A controller that answers from a list and remembers what it was asked.
struct Fake {
    answers: VecDeque<Answer>,
    seen: Vec<ClientRequest>,
}

impl Controller for Fake {
    fn request(&mut self, req: &ClientRequest) -> Answer {
        self.seen.push(req.clone());
        let answer = self.answers.pop_front().unwrap_or(Ok(submitted(42)));
        // Listings hold the fields asked for, as the controller's do.
        match (req, answer) {
            (ClientRequest::Jobs { fields, .. }, Ok(ClientResponse::Jobs { now, jobs })) => {
                let jobs = jobs.into_vec().expect("a listing");
                let jobs = JobList::sent(*fields, &jobs);
                Ok(ClientResponse::Jobs { now, jobs })
            }
            (_, answer) => answer,
        }
    }
}

struct Run {
    code: u8,
    out: String,
    err: String,
    seen: Vec<ClientRequest>,
}

impl Run {
    /// The job that was submitted.
    fn desc(&self) -> &JobDesc {
        self.seen
            .iter()
            .find_map(|r| match r {
                ClientRequest::Submit(d) | ClientRequest::WillRun(d) => Some(&**d),
                _ => None,
            })
            .unwrap_or_else(|| panic!("nothing submitted; stderr: {}", self.err))
    }
}

fn host_in(cwd: &str, env: &[(&str, &str)]) -> Host {
    Host {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        cwd: cwd.to_string(),
        hostname: "login1".to_string(),
        now: 1_800_000_000,
    }
}

fn host(env: &[(&str, &str)]) -> Host {
    host_in("/home/u/work", env)
}

fn sbatch_with(words: &[&str], host: &Host, stdin: &str, answers: Vec<Answer>) -> Run {
    let mut fake = Fake {
        answers: answers.into(),
        seen: Vec::new(),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv: Vec<OsString> = std::iter::once("sbatch")
        .chain(words.iter().copied())
        .map(OsString::from)
        .collect();
    let mut stdin = stdin.as_bytes();
    let result = execute(
        &argv,
        host,
        &mut stdin,
        &mut fake,
        &mut out,
        &mut err,
        &mut |_| {},
    );
    let code = result.unwrap_or_else(|e| {
        writeln!(err, "{e}").unwrap();
        e.exit_code() as u8
    });
    Run {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
        seen: fake.seen,
    }
}

fn sbatch(words: &[&str]) -> Run {
    sbatch_with(words, &host(&[]), "", Vec::new())
}

fn refused(code: ErrorCode, detail: Option<&str>) -> Answer {
    Err(RequestError::Refused(ProtoError {
        code,
        detail: detail.map(str::to_string),
    }))
}

#[test]
fn wrap_submits_and_prints_the_job_id() {
    let run = sbatch(&["--wrap", "sleep 600"]);
    assert_eq!(
        (run.code, run.out.as_str(), run.err.as_str()),
        (0, "Submitted batch job 42\n", "")
    );
    let d = run.desc();
    assert_eq!(d.name.as_deref(), Some("wrap"));
    assert_eq!(
        d.script.as_deref(),
        Some("#!/bin/sh\n# This script was created by sbatch --wrap.\n\nsleep 600\n")
    );
    assert_eq!(d.work_dir, "/home/u/work");
    assert_eq!(d.submit_host, "login1");
    assert_eq!(sbatch(&["--parsable", "--wrap=true"]).out, "42\n");
    assert_eq!(sbatch(&["-Q", "--wrap=true"]).out, "");
}

/// sbatch on a command line written as one string (no spaces in values).
fn sbatch_line(line: &str) -> Run {
    sbatch(&line.split_whitespace().collect::<Vec<_>>())
}

#[test]
fn resource_options_in_every_spelling() {
    let run = sbatch_line(
        "-N2-4 --ntasks=8 -c 2 --ntasks-per-n=4 -p batch,debug -A proj -q high -J train \
         --comment=x --hold --nice --priority=7 -C nvl -w gb[001-002] -x gb003 \
         --gpus-per-node=a100:4 --mem 64G --exclusive=topo --segment=2 --spread-seg \
         --switches=1@5:00 --wrap=true",
    );
    assert_eq!((run.code, run.err.as_str()), (0, ""));
    let d = run.desc();
    assert_eq!(
        (d.min_nodes, d.max_nodes, d.ntasks),
        (Some(2), Some(4), Some(8))
    );
    assert_eq!((d.cpus_per_task, d.ntasks_per_node), (Some(2), Some(4)));
    assert_eq!(d.partitions, ["batch", "debug"]);
    assert_eq!(
        (d.account.as_deref(), d.qos.as_deref()),
        (Some("proj"), Some("high"))
    );
    assert_eq!(
        (d.name.as_deref(), d.comment.as_deref()),
        (Some("train"), Some("x"))
    );
    assert!(d.hold);
    assert_eq!((d.nice, d.priority), (100, Some(7)));
    assert_eq!(d.constraint.as_deref(), Some("nvl"));
    assert_eq!(d.required_nodes, ["gb001", "gb002"]);
    assert_eq!(d.excluded_nodes, ["gb003"]);
    assert_eq!(
        (d.gpus_per_node, d.gpu_type.as_deref()),
        (Some(4), Some("a100"))
    );
    assert_eq!(d.mem, MemSpec::PerNode(65536));
    assert_eq!((d.exclusive, d.segment), (ExclusiveMode::Topo, Some(2)));
    assert_eq!(
        (d.segment_layout, d.switches),
        (SegmentLayout::Spread, Some((1, Some(300))))
    );
    assert!(d.unacted.is_empty(), "{:?}", d.unacted);
}

#[test]
fn time_and_file_options_in_every_spelling() {
    let run = sbatch_line(
        "--time=1:30:00 --time-min 30 --signal=B:USR1@90 --no-requeue -o out-%j.txt \
         -e /tmp/err -iin.txt --open-mode=append -D sub --wrap=true",
    );
    assert_eq!((run.code, run.err.as_str()), (0, ""));
    let d = run.desc();
    assert_eq!((d.time_limit, d.time_min), (Some(5400), Some(1800)));
    let sig = d.signal.unwrap();
    assert_eq!(
        (sig.signal, sig.before, sig.batch_only),
        (libc::SIGUSR1, 90, true)
    );
    assert_eq!(d.requeue, Some(false));
    assert_eq!(d.work_dir, "/home/u/work/sub");
    assert_eq!(d.stdout.as_deref(), Some("/home/u/work/sub/out-%j.txt"));
    assert_eq!(d.stderr.as_deref(), Some("/tmp/err"));
    assert_eq!(d.stdin.as_deref(), Some("/home/u/work/sub/in.txt"));
    assert_eq!(d.open_mode, OpenMode::Append);
}

#[test]
fn gres_gpus_and_tasks() {
    let d = sbatch(&[
        "--gres=gpu:2",
        "--gpus-per-task=1",
        "-G",
        "8",
        "--cpus-per-gpu=8",
        "--wrap=x",
    ])
    .desc()
    .clone();
    assert_eq!(
        (d.gpus_per_node, d.gpus_per_task, d.gpus),
        (Some(2), Some(1), Some(8))
    );
    assert_eq!(d.cpus_per_gpu, Some(8));
    let run = sbatch(&["-c", "2", "--cpus-per-gpu=8", "--wrap=x"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (1, "sbatch: fatal: --cpus-per-task, --tres-per-task=cpu:#, and --cpus-per-gpu are mutually exclusive\n")
    );
    let run = sbatch(&["--gres=nic:1", "--wrap", "true"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            1,
            "sbatch: error: Invalid generic resource (gres) specification\n"
        )
    );
    assert!(run.seen.is_empty());
    let run = sbatch(&["--gres=gpu:1", "--gpus-per-node=2", "--wrap", "true"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            1,
            "sbatch: fatal: --gpus-per-node and --gres=gpu are mutually exclusive.\n"
        )
    );
    let run = sbatch(&["--gpus=a100:2", "--gpus-per-task=h100:1", "--wrap", "true"]);
    assert_eq!(run.code, 1);
    assert!(run.err.contains("more than one GPU type"), "{}", run.err);
}

#[test]
fn unknown_and_malformed_options_get_getopts_words() {
    let run = sbatch(&["--bogus-option", "--wrap", "true"]);
    assert_eq!(run.code, 255);
    assert_eq!(
        run.err,
        "sbatch: unrecognized option '--bogus-option'\nTry \"sbatch --help\" for more information\n"
    );
    assert_eq!(
        sbatch(&["--bogus=5"]).err.lines().next(),
        Some("sbatch: unrecognized option '--bogus=5'")
    );
    assert_eq!(
        sbatch(&["-j"]).err.lines().next(),
        Some("sbatch: invalid option -- 'j'")
    );
    assert_eq!(
        sbatch(&["--wrap=x", "-t"]).err.lines().next(),
        Some("sbatch: option requires an argument -- 't'")
    );
    assert_eq!(
        sbatch(&["--wrap=x", "--open"]).err.lines().next(),
        Some("sbatch: option '--open-mode' requires an argument")
    );
    assert_eq!(
        sbatch(&["--hold=yes"]).err.lines().next(),
        Some("sbatch: option '--hold' doesn't allow an argument")
    );
    assert_eq!(
        sbatch(&["--mem-per=1", "--wrap=x"]).err.lines().next(),
        Some("sbatch: option '--mem-per=1' is ambiguous; possibilities: '--mem-per-cpu' '--mem-per-gpu'")
    );
    let run = sbatch(&["-t", "abc", "--wrap", "true"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (255, "sbatch: error: Invalid --time specification\n")
    );
    let run = sbatch(&["-n", "x", "--wrap", "true"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            1,
            "sbatch: error: Invalid numeric value \"x\" for --ntasks.\n"
        )
    );
}

#[test]
fn values_may_start_with_a_dash_like_getopt() {
    let d = sbatch(&["-J", "-x", "--comment", "--weird", "--wrap=true"])
        .desc()
        .clone();
    assert_eq!(
        (d.name.as_deref(), d.comment.as_deref()),
        (Some("-x"), Some("--weird"))
    );
}

#[test]
fn unacted_options_warn_once_and_are_stored() {
    let run = sbatch(&[
        "--mail-type=END,FAIL",
        "--mail-user",
        "me@x",
        "--contiguous",
        "-k",
        "--wrap=true",
    ]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.err,
        "sbatch: warning: --contiguous is accepted but not acted on yet\n\
         sbatch: warning: --mail-type is accepted but not acted on yet\n\
         sbatch: warning: --mail-user is accepted but not acted on yet\n\
         sbatch: warning: --no-kill is accepted but not acted on yet\n"
    );
    assert_eq!(
        run.desc().unacted,
        [
            "--contiguous",
            "--mail-type=END,FAIL",
            "--mail-user=me@x",
            "--no-kill"
        ]
    );
    let run = sbatch(&[
        "--exclusive=mcs",
        "--signal=R:USR2",
        "-t",
        "UNLIMITED",
        "--wrap=true",
    ]);
    assert_eq!(run.desc().unacted, ["--exclusive=mcs", "--signal=R:USR2"]);
    assert_eq!(
        run.err.lines().collect::<Vec<_>>(),
        [
            "sbatch: warning: --exclusive=mcs is accepted but not acted on yet",
            "sbatch: warning: --signal=R:USR2 is accepted but not acted on yet"
        ]
    );
    assert_eq!(run.desc().exclusive, ExclusiveMode::Node);
    // -t UNLIMITED is acted on: no limit beyond the partition's MaxTime.
    assert_eq!(
        (run.desc().time_limit, run.desc().time_unlimited),
        (None, true)
    );
    assert_eq!(sbatch(&["-Q", "--mail-type=ALL", "--wrap=true"]).err, "");
}

#[test]
fn arrays_and_dependencies_go_to_the_controller_as_given() {
    let run = sbatch(&[
        "--parsable",
        "--array=0-5%2",
        "-d",
        "afterok:7:8?afterany:9",
        "--kill-on-invalid-dep=YES",
        "--wrap=x",
    ]);
    assert_eq!(
        (run.code, run.out.as_str(), run.err.as_str()),
        (0, "42\n", "")
    );
    let d = run.desc();
    assert_eq!(d.array.as_deref(), Some("0-5%2"));
    assert_eq!(d.dependency.as_deref(), Some("afterok:7:8?afterany:9"));
    assert_eq!(d.kill_on_invalid_dep, Some(true));
    assert!(d.unacted.is_empty());
    // sbatch sets SLURM_JOB_DEPENDENCY for the job, as Slurm's does.
    let dep = d.env.iter().find(|(k, _)| k == "SLURM_JOB_DEPENDENCY");
    assert_eq!(dep.map(|(_, v)| v.as_str()), Some("afterok:7:8?afterany:9"));
    let plain = sbatch(&["--wrap=x"]);
    let d = plain.desc();
    assert_eq!(
        (&d.array, &d.dependency, d.kill_on_invalid_dep),
        (&None, &None, None)
    );
    assert!(!d.env.iter().any(|(k, _)| k == "SLURM_JOB_DEPENDENCY"));
    let no = sbatch(&["--kill-on-invalid-dep=no", "--wrap=x"]);
    assert_eq!(no.desc().kill_on_invalid_dep, Some(false));
}

#[test]
fn arrays_come_from_the_command_line_the_environment_and_directives() {
    let script = "#!/bin/sh\n#SBATCH --array=3-4\n#SBATCH -d singleton\ntrue\n";
    let run = sbatch_with(&[], &host(&[("SBATCH_ARRAY_INX", "1-2")]), script, vec![]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(run.desc().array.as_deref(), Some("1-2"));
    assert_eq!(run.desc().dependency.as_deref(), Some("singleton"));
    let run = sbatch_with(&[], &host(&[]), script, vec![]);
    assert_eq!(run.desc().array.as_deref(), Some("3-4"));
    let env = host(&[("SBATCH_ARRAY_INX", "1-2")]);
    let run = sbatch_with(&["-a", "7"], &env, script, vec![]);
    assert_eq!(run.desc().array.as_deref(), Some("7"));
}

#[test]
fn bad_arrays_and_dependencies_get_slurms_errors() {
    // sbatch checks only --kill-on-invalid-dep itself (exit 255).
    let run = sbatch(&["--kill-on-invalid-dep=maybe", "--wrap=x"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            255,
            "sbatch: error: Invalid --kill-on-invalid-dep specification\n"
        )
    );
    assert!(run.seen.is_empty());
    // The controller refuses the rest (70-err-bad-array.txt).
    let answers = vec![refused(ErrorCode::InvalidArray, None)];
    let run = sbatch_with(
        &["--array=0-200000", "--wrap", "true"],
        &host(&[]),
        "",
        answers,
    );
    assert_eq!(
        (run.code, run.out.as_str(), run.err.as_str()),
        (
            1,
            "",
            "sbatch: error: Batch job submission failed: Invalid job array specification\n"
        )
    );
    for (code, text) in [
        (ErrorCode::Dependency, "Job dependency problem"),
        (ErrorCode::CircularDependency, "Circular job dependency"),
    ] {
        let run = sbatch_with(
            &["-d", "afterok:x", "--wrap=x"],
            &host(&[]),
            "",
            vec![refused(code, None)],
        );
        assert_eq!(run.code, 1);
        assert_eq!(
            run.err,
            format!("sbatch: error: Batch job submission failed: {text}\n")
        );
    }
}

#[test]
fn wait_for_an_array_waits_for_every_task() {
    let task = |id: u32, state, code| JobInfo {
        array_job_id: Some(7),
        array_task_id: Some(id - 6),
        ..job(id, state, code, 0)
    };
    let listing = |jobs: Vec<JobInfo>| {
        Ok(ClientResponse::Jobs {
            now: 0,
            jobs: jobs.into(),
        })
    };
    let answers = vec![
        Ok(submitted(7)),
        listing(vec![
            task(7, JobStateName::Completed, 0),
            task(8, JobStateName::Running, 0),
        ]),
        listing(vec![
            task(7, JobStateName::Completed, 0),
            task(8, JobStateName::Failed, 3),
        ]),
    ];
    let run = sbatch_with(
        &["-W", "--array=0-1", "--wrap", "x"],
        &host(&[]),
        "",
        answers,
    );
    assert_eq!((run.code, run.seen.len()), (3, 3));
}

#[test]
fn scripts_from_stdin_and_files_with_arguments() {
    let run = sbatch_with(&[], &host(&[]), "#!/bin/sh\n#SBATCH -N 3\ntrue\n", vec![]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(
        (run.desc().name.as_deref(), run.desc().min_nodes),
        (Some("sbatch"), Some(3))
    );
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_str().unwrap();
    std::fs::write(
        dir.path().join("train.sh"),
        "#!/bin/bash\n#SBATCH -t 5\necho $1\n",
    )
    .unwrap();
    let run = sbatch_with(&["train.sh", "--lr", "3"], &host_in(cwd, &[]), "", vec![]);
    assert_eq!(run.code, 0, "{}", run.err);
    let d = run.desc();
    assert_eq!(d.name.as_deref(), Some("train.sh"));
    assert_eq!(d.argv, ["--lr", "3"]);
    assert_eq!(d.time_limit, Some(300));
    assert_eq!(
        d.script.as_deref(),
        Some("#!/bin/bash\n#SBATCH -t 5\necho $1\n")
    );
    let run = sbatch_with(&["nosuch.sh"], &host_in(cwd, &[]), "", vec![]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (1, "sbatch: error: Unable to open file nosuch.sh\n")
    );
}

#[test]
fn script_problems_stop_before_submitting() {
    let empty = sbatch_with(&[], &host(&[]), "", vec![]);
    assert_eq!(
        (empty.code, empty.err.as_str()),
        (1, "sbatch: error: Batch script is empty!\n")
    );
    assert!(empty.seen.is_empty());
    let no_shebang = sbatch_with(&[], &host(&[]), "echo hi\n", vec![]);
    assert_eq!(no_shebang.code, 1);
    assert_eq!(no_shebang.err.lines().count(), 3);
    let dos = sbatch_with(&[], &host(&[]), "#!/bin/sh\r\ntrue\r\n", vec![]);
    assert_eq!(
        dos.err.lines().next(),
        Some("sbatch: error: Batch script contains DOS line breaks (\\r\\n)")
    );
    let nul = sbatch_with(&[], &host(&[]), "#!/bin/sh\n\0", vec![]);
    assert_eq!(
        nul.err.lines().nth(1),
        Some("sbatch: error: contain a NULL character '\\0'.")
    );
    // A bad option value is only reported once the script was read, as in
    // Slurm's second pass.
    let run = sbatch_with(&["-t", "abc"], &host(&[]), "", vec![]);
    assert_eq!(run.err, "sbatch: error: Batch script is empty!\n");
}

#[test]
fn precedence_is_command_line_then_environment_then_directives() {
    let script = "#!/bin/sh\n#SBATCH -J from-dir -p dirpart --time=10 --comment=dir\n#SBATCH --no-requeue\ntrue\n";
    let env = host(&[
        ("SBATCH_JOB_NAME", "from-env"),
        ("SBATCH_PARTITION", "envpart"),
        ("SBATCH_REQUEUE", "1"),
    ]);
    let run = sbatch_with(&["-J", "from-cli"], &env, script, vec![]);
    assert_eq!(run.code, 0, "{}", run.err);
    let d = run.desc();
    assert_eq!(d.name.as_deref(), Some("from-cli"));
    assert_eq!(d.partitions, ["envpart"]);
    assert_eq!(d.time_limit, Some(600));
    assert_eq!(d.comment.as_deref(), Some("dir"));
    // --requeue from the environment beats --no-requeue in the script.
    assert_eq!(d.requeue, Some(true));
    let run = sbatch_with(&["--no-requeue"], &env, script, vec![]);
    assert_eq!(run.desc().requeue, Some(false));
}

#[test]
fn memory_conflicts_follow_slurm() {
    let script = "#!/bin/sh\n#SBATCH --mem=4G\ntrue\n";
    let run = sbatch_with(&["--mem-per-cpu=1G"], &host(&[]), script, vec![]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            1,
            "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.\n"
        )
    );
    // A directive beats a variable of another kind.
    let env = host(&[("SBATCH_MEM_PER_CPU", "1G")]);
    assert_eq!(
        sbatch_with(&[], &env, script, vec![]).desc().mem,
        MemSpec::PerNode(4096)
    );
    let env = host(&[("SBATCH_MEM_PER_CPU", "1G"), ("SBATCH_MEM_PER_GPU", "1G")]);
    let run = sbatch_with(&["--wrap=x"], &env, "", vec![]);
    assert_eq!(run.code, 1);
    assert!(
        run.err.starts_with("sbatch: fatal: SLURM_MEM_PER_CPU"),
        "{}",
        run.err
    );
    assert_eq!(
        sbatch(&["--mem-per-gpu=10G", "--wrap=x"]).desc().mem,
        MemSpec::PerGpu(10240)
    );
}

#[test]
fn directive_errors_name_the_word() {
    let run = sbatch_with(
        &[],
        &host(&[]),
        "#!/bin/sh\n#SBATCH -N 2 oops\ntrue\n",
        vec![],
    );
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            255,
            "sbatch: error: Invalid directive found in batch script: oops\n"
        )
    );
    let run = sbatch_with(
        &[],
        &host(&[]),
        "#!/bin/sh\n#SBATCH --bogus\ntrue\n",
        vec![],
    );
    assert_eq!(run.code, 255);
    assert_eq!(
        run.err.lines().next(),
        Some("sbatch: unrecognized option '--bogus'")
    );
    let run = sbatch_with(
        &[],
        &host(&[]),
        "#!/bin/sh\n#SBATCH -t nope\ntrue\n",
        vec![],
    );
    assert_eq!(
        (run.code, run.err.as_str()),
        (255, "sbatch: error: Invalid --time specification\n")
    );
}

#[test]
fn environment_variables_stand_for_options() {
    let env = host(&[
        ("SBATCH_TIMELIMIT", "2:00"),
        ("SBATCH_ACCOUNT", "acct"),
        ("SBATCH_QOS", "q"),
        ("SBATCH_GPUS_PER_NODE", "4"),
        ("SBATCH_EXCLUSIVE", "user"),
        ("SBATCH_OPEN_MODE", "append"),
        ("SBATCH_CONSTRAINT", "nvl72"),
        ("SBATCH_WAIT", "1"),
        ("SBATCH_EXPORT", "NONE"),
        ("SBATCH_DEBUG", "2"),
        ("HOME", "/home/u"),
        ("SLURM_CONF", "/etc/slurm/slurm.conf"),
    ]);
    let answers = vec![Ok(submitted(5)), Ok(jobs(5, JobStateName::Completed, 3, 0))];
    let run = sbatch_with(&["--wrap=true"], &env, "", answers);
    assert_eq!(run.code, 3, "{}", run.err);
    let d = run.desc();
    assert_eq!(
        (d.time_limit, d.account.as_deref(), d.qos.as_deref()),
        (Some(120), Some("acct"), Some("q"))
    );
    assert_eq!(
        (d.gpus_per_node, d.exclusive),
        (Some(4), ExclusiveMode::User)
    );
    assert_eq!(
        (d.open_mode, d.constraint.as_deref()),
        (OpenMode::Append, Some("nvl72"))
    );
    assert_eq!(
        without_umask(&d.env),
        [
            (
                "SLURM_CONF".to_string(),
                "/etc/slurm/slurm.conf".to_string()
            ),
            // sbatch tells the job its open mode and export list.
            ("SLURM_OPEN_MODE".to_string(), "a".to_string()),
            ("SLURM_EXPORT_ENV".to_string(), "NONE".to_string()),
            ("SLURM_GET_USER_ENV".to_string(), "1".to_string())
        ]
    );
}

/// The environment less SLURM_UMASK, after checking sbatch set it to an
/// octal mask as Slurm does.
fn without_umask(env: &[(String, String)]) -> Vec<(String, String)> {
    let umask = env
        .iter()
        .find(|(k, _)| k == "SLURM_UMASK")
        .expect("SLURM_UMASK is set");
    assert!(
        umask.1.len() == 4 && u32::from_str_radix(&umask.1, 8).is_ok(),
        "{umask:?}"
    );
    env.iter()
        .filter(|(k, _)| k != "SLURM_UMASK")
        .cloned()
        .collect()
}

#[test]
fn default_export_is_the_whole_environment() {
    let env = host(&[("PATH", "/bin"), ("SLURM_JWT", "t"), ("FOO", "bar")]);
    let d = sbatch_with(&["--wrap=x"], &env, "", vec![]).desc().clone();
    assert_eq!(
        without_umask(&d.env),
        [
            ("PATH".to_string(), "/bin".to_string()),
            ("FOO".to_string(), "bar".to_string())
        ]
    );
    let d = sbatch_with(&["--export=FOO,X=1", "--wrap=x"], &env, "", vec![])
        .desc()
        .clone();
    assert_eq!(
        without_umask(&d.env),
        [
            ("FOO".to_string(), "bar".to_string()),
            ("X".to_string(), "1".to_string()),
            ("SLURM_JWT".to_string(), "t".to_string()),
            ("SLURM_EXPORT_ENV".to_string(), "FOO,X=1".to_string()),
            ("SLURM_GET_USER_ENV".to_string(), "1".to_string())
        ]
    );
}

#[test]
fn an_export_file_replaces_the_environment_or_stops_sbatch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("env");
    std::fs::write(&path, "A=1\0HOSTNAME=x\0").unwrap();
    let env = host(&[("PATH", "/bin")]);
    let given = format!("--export-file={}", path.display());
    let d = sbatch_with(&[&given, "--wrap=x"], &env, "", vec![])
        .desc()
        .clone();
    assert_eq!(without_umask(&d.env), [("A".to_string(), "1".to_string())]);
    let run = sbatch(&["--export-file=/no/such/file", "--wrap=x"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            1,
            "sbatch: error: Could not open user environment file /no/such/file\n"
        )
    );
}

#[test]
fn node_lists_and_counts() {
    let d = sbatch(&["-w", "gb[001-003],gb001", "--wrap=x"])
        .desc()
        .clone();
    assert_eq!((d.min_nodes, d.required_nodes.len()), (Some(3), 4));
    let run = sbatch(&["-N", "4", "-n", "2", "--wrap=x"]);
    assert_eq!(
        run.err,
        "sbatch: warning: can't run 2 processes on 4 nodes, setting nnodes to 2\n"
    );
    assert_eq!(run.desc().min_nodes, Some(2));
    let run = sbatch(&["-N", "3", "--segment=2", "--wrap=x"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (1, "sbatch: fatal: --segment=2 does not fit the job size (3): node count must be evenly divisible by segment size\n")
    );
    let run = sbatch(&["-w", "gb[1-", "--wrap=x"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (1, "sbatch: fatal: Invalid node list specified\n")
    );
    let run = sbatch(&["-N", "x", "--wrap=x"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (255, "sbatch: error: \"x\" is not a valid node count\n")
    );
}

#[test]
fn controller_refusals_print_slurms_lines() {
    let run = sbatch_with(
        &["-p", "nosuch", "--wrap", "true"],
        &host(&[]),
        "",
        vec![refused(ErrorCode::InvalidPartitionName, Some("nosuch"))],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.err,
        "sbatch: error: invalid partition specified: nosuch\n\
         sbatch: error: Batch job submission failed: Invalid partition name specified\n"
    );
    let run = sbatch_with(
        &["-p", "nosuch", "--wrap", "true"],
        &host(&[]),
        "",
        vec![refused(ErrorCode::InvalidPartitionName, None)],
    );
    assert_eq!(
        run.err.lines().next(),
        Some("sbatch: error: invalid partition specified: nosuch")
    );
    let run = sbatch_with(
        &["-A", "nosuchaccount", "--wrap", "true"],
        &host(&[]),
        "",
        vec![refused(ErrorCode::InvalidAccount, Some("nosuchaccount"))],
    );
    assert_eq!(
        run.err,
        "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n"
    );
    let run = sbatch_with(
        &["--gpus-per-node=5", "--wrap", "true"],
        &host(&[]),
        "",
        vec![refused(ErrorCode::NodeConfigUnavailable, None)],
    );
    assert_eq!(
        run.err,
        "sbatch: error: Batch job submission failed: Requested node configuration is not available\n"
    );
}

#[test]
fn too_much_memory_is_explained() {
    // slurmctld's err_msg comes with its refusal.
    let answers = vec![refused(
        ErrorCode::NodeConfigUnavailable,
        Some("Memory specification can not be satisfied"),
    )];
    let run = sbatch_with(&["--mem=2000G", "--wrap", "true"], &host(&[]), "", answers);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.err,
        "sbatch: error: Memory specification can not be satisfied\n\
         sbatch: error: Batch job submission failed: Requested node configuration is not available\n"
    );
    assert_eq!(run.seen.len(), 1, "one round trip");
}

#[test]
fn an_unreachable_controller_is_slurms_connect_failure() {
    let unreachable = Err(RequestError::Unreachable(ClientError::Connect {
        socket: "/var/spool/spur.sock".into(),
        source: std::io::Error::from(std::io::ErrorKind::NotFound),
    }));
    let run = sbatch_with(&["--wrap", "true"], &host(&[]), "", vec![unreachable]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.err,
        "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)\n"
    );
}

#[test]
fn a_busy_controller_is_retried() {
    let answers = vec![
        refused(ErrorCode::TryAgain, None),
        refused(ErrorCode::TryAgain, None),
        Ok(submitted(9)),
    ];
    let run = sbatch_with(&["--wrap", "true"], &host(&[]), "", answers);
    assert_eq!(run.code, 0);
    assert_eq!(run.out, "Submitted batch job 9\n");
    assert_eq!(
        run.err,
        "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n"
    );
    assert_eq!(run.seen.len(), 3);
}

#[test]
fn clusters_name_this_controller() {
    let answers = vec![Ok(submitted(3))];
    let run = sbatch_with(
        &["--parsable", "--clusters=anchor", "--wrap", "true"],
        &host(&[]),
        "",
        answers,
    );
    assert_eq!((run.code, run.out.as_str()), (0, "3;anchor\n"));
    assert_eq!(run.desc().clusters.as_deref(), Some("anchor"));
    assert_eq!(run.seen.len(), 1, "one round trip");
    let answers = vec![Ok(submitted(3))];
    let run = sbatch_with(&["-M", "anchor", "--wrap", "true"], &host(&[]), "", answers);
    assert_eq!(run.out, "Submitted batch job 3 on cluster anchor\n");
    // The controller checks the names and refuses the job.
    let run = sbatch_with(
        &["-M", "other", "--wrap", "true"],
        &host(&[]),
        "",
        vec![refused(ErrorCode::InvalidClusterName, Some("other"))],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.err,
        "sbatch: error: 'other' can't be reached now, or it is an invalid entry for --cluster.  \
         Use 'sacctmgr list clusters' to see available clusters.\n"
    );
}

#[test]
fn test_only_says_when_and_where_on_stderr() {
    let will = WillRun {
        job_id: 4,
        start: 1_800_000_000,
        nodes: "gb[001-002]".to_string(),
        cpus: 2,
        partition: "batch".to_string(),
    };
    let run = sbatch_with(
        &[
            "--test-only",
            "-N",
            "2",
            "--gpus-per-node=4",
            "--wrap",
            "true",
        ],
        &host(&[]),
        "",
        vec![Ok(ClientResponse::WillRun(will))],
    );
    assert_eq!((run.code, run.out.as_str()), (0, ""));
    assert_eq!(
        run.err,
        format!(
            "sbatch: Job 4 to start at {} using 2 processors on nodes gb[001-002] in partition batch\n",
            spur_slurm::time::timestamp(1_800_000_000)
        )
    );
    assert!(matches!(run.seen[..], [ClientRequest::WillRun(_)]));
}

#[test]
fn wait_polls_until_the_job_ends_and_returns_its_status() {
    let answers = vec![
        Ok(submitted(7)),
        Ok(jobs(7, JobStateName::Pending, 0, 0)),
        Ok(jobs(7, JobStateName::Running, 0, 0)),
        Ok(jobs(7, JobStateName::Failed, 2, 0)),
    ];
    let run = sbatch_with(&["-W", "--wrap", "false"], &host(&[]), "", answers);
    assert_eq!((run.code, run.out.as_str()), (2, "Submitted batch job 7\n"));
    assert_eq!(run.seen.len(), 4);
    assert_eq!(
        submit::exit_status(&job(1, JobStateName::Cancelled, 0, 0)),
        1
    );
    assert_eq!(
        submit::exit_status(&job(1, JobStateName::Timeout, 0, 15)),
        1
    );
    assert_eq!(
        submit::exit_status(&job(1, JobStateName::Completed, 0, 0)),
        0
    );
    let answers = vec![Ok(submitted(8)), refused(ErrorCode::InvalidJobId, None)];
    let run = sbatch_with(&["--wait", "--wrap", "x"], &host(&[]), "", answers);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.err,
        "sbatch: error: Job 8 no longer found and exit code not found\n"
    );
}

#[test]
fn begin_times_become_unix_seconds() {
    let d = sbatch(&["--begin=now+1hour", "--wrap=x"]).desc().clone();
    assert_eq!(d.begin, Some(1_800_003_600));
    let run = sbatch(&["--begin=whenever", "--wrap=x"]);
    assert_eq!(run.code, 255);
    assert_eq!(
        run.err,
        "Invalid time specification (pos=0): whenever\nsbatch: error: Invalid --begin specification\n"
    );
}

#[test]
fn help_usage_and_version() {
    let run = sbatch(&["--version"]);
    assert_eq!((run.code, run.out.as_str()), (0, "slurm 22.05.8\n"));
    let help = sbatch(&["--help"]).out;
    assert!(help.contains("--mail-type"), "{help}");
    assert!(help.contains("--gpus-per-node"), "{help}");
    assert!(sbatch(&["--usage"]).out.starts_with("Usage: sbatch"));
}

#[test]
fn every_option_has_a_long_name_and_merges_back() {
    let cmd = args::command();
    for arg in cmd.get_arguments().filter(|a| !a.is_positional()) {
        assert!(arg.get_long().is_some(), "{:?}", arg.get_id());
    }
    // Options written back by the merge parse to the same values.
    let words: Vec<OsString> = [
        "sbatch",
        "-vv",
        "--exclusive",
        "--nice=5",
        "-k",
        "--mail-type=ALL",
        "-J",
        "a b",
        "--requeue",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    let mut table = layer::Table::new(cmd.clone());
    let empty = table.none().unwrap();
    let layers = Layers {
        directives: empty.clone(),
        env: empty,
        cmdline: table.source(&words).unwrap(),
    };
    let merged = layers.merged_words(&cmd);
    let again: Vec<String> = merged
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        again,
        [
            "sbatch",
            "--exclusive",
            "--job-name=a b",
            "--nice=5",
            "--requeue",
            "--verbose",
            "--verbose",
            "--mail-type=ALL",
            "--no-kill"
        ]
    );
}

fn jobs(id: u32, state: JobStateName, code: i32, signal: i32) -> ClientResponse {
    ClientResponse::Jobs {
        now: 0,
        jobs: vec![job(id, state, code, signal)].into(),
    }
}

fn job(id: u32, state: JobStateName, exit_code: i32, exit_signal: i32) -> JobInfo {
    JobInfo {
        job_id: id,
        name: "wrap".into(),
        user_id: 1000,
        user_name: "u".into(),
        group_id: 1000,
        group_name: "u".into(),
        state,
        reason: "None".into(),
        priority: 1,
        nice: 0,
        account: None,
        qos: "normal".into(),
        partition: "batch".into(),
        time_limit: None,
        time_min: None,
        submit_time: 0,
        eligible_time: 0,
        start_time: None,
        end_time: None,
        nodes: String::new(),
        sched_nodes: None,
        num_nodes: 1,
        num_cpus: 1,
        num_tasks: 1,
        cpus_per_task: 1,
        ntasks_per_node: 0,
        cpus_per_node: vec![],
        batch_host: None,
        req_nodes: None,
        exc_nodes: None,
        features: None,
        mem: MemSpec::Default,
        tres: None,
        tres_per_node: None,
        tres_per_job: None,
        tres_per_task: None,
        gpus_per_node_idx: vec![],
        work_dir: "/".into(),
        stdout: String::new(),
        stderr: String::new(),
        stdin: String::new(),
        command: None,
        comment: None,
        exit_code,
        exit_signal,
        restarts: 0,
        requeue: true,
        batch: true,
        deadline: None,
        exclusive: ExclusiveMode::No,
        contiguous: false,
        submit_host: "login1".into(),
        dependency: None,
        array_job_id: None,
        array_task_id: None,
        array_task_str: None,
        array_task_throttle: 0,
        last_sched_eval: None,
        unacted: vec![],
    }
}

/// Every long option of sbatch(1) in Slurm 25.11 and 26.x.
const MAN_PAGE_OPTIONS: &[&str] = &[
    "account",
    "acctg-freq",
    "array",
    "batch",
    "bb",
    "bbf",
    "begin",
    "chdir",
    "cluster-constraint",
    "clusters",
    "comment",
    "consolidate-segments",
    "constraint",
    "container",
    "container-id",
    "contiguous",
    "core-spec",
    "cores-per-socket",
    "cpu-freq",
    "cpus-per-gpu",
    "cpus-per-task",
    "deadline",
    "delay-boot",
    "dependency",
    "distribution",
    "error",
    "exclude",
    "exclusive",
    "export",
    "export-file",
    "extra",
    "extra-node-info",
    "get-user-env",
    "gid",
    "gpu-bind",
    "gpu-freq",
    "gpus",
    "gpus-per-node",
    "gpus-per-socket",
    "gpus-per-task",
    "gres",
    "gres-flags",
    "help",
    "hint",
    "hold",
    "ignore-pbs",
    "input",
    "job-name",
    "kill-on-invalid-dep",
    "licenses",
    "mail-type",
    "mail-user",
    "mcs-label",
    "mem",
    "mem-bind",
    "mem-per-cpu",
    "mem-per-gpu",
    "mem-update",
    "mincpus",
    "network",
    "nice",
    "no-kill",
    "no-requeue",
    "nodefile",
    "nodelist",
    "nodes",
    "ntasks",
    "ntasks-per-core",
    "ntasks-per-gpu",
    "ntasks-per-node",
    "ntasks-per-socket",
    "ntasks-per-tres",
    "oom-kill-step",
    "open-mode",
    "output",
    "overcommit",
    "oversubscribe",
    "parsable",
    "partition",
    "prefer",
    "priority",
    "profile",
    "propagate",
    "qos",
    "quiet",
    "reboot",
    "requeue",
    "reservation",
    "resources",
    "resv-ports",
    "runtime",
    "segment",
    "signal",
    "sockets-per-node",
    "spread-job",
    "spread-segments",
    "stepmgr",
    "switches",
    "test-only",
    "thread-spec",
    "threads-per-core",
    "time",
    "time-min",
    "tmp",
    "tres-bind",
    "tres-per-task",
    "uid",
    "usage",
    "use-min-nodes",
    "verbose",
    "version",
    "wait",
    "wait-all-nodes",
    "wckey",
    "wrap",
    "tasks-per-node",
    "cluster",
];

#[test]
fn every_man_page_option_is_accepted() {
    let mut table = layer::Table::new(args::command());
    let cmd = table.command().clone();
    for name in MAN_PAGE_OPTIONS {
        let arg = cmd
            .get_arguments()
            .find(|a| {
                a.get_long() == Some(name) || a.get_all_aliases().unwrap_or_default().contains(name)
            })
            .unwrap_or_else(|| panic!("--{name} is not an option"));
        let word = match args::takes(arg) {
            args::Takes::Value => format!("--{name}=1"),
            _ => format!("--{name}"),
        };
        let words = [OsString::from("sbatch"), OsString::from(&word)];
        assert!(table.parse(&words).is_ok(), "{word}");
    }
}

#[test]
fn short_letters_are_slurms() {
    let cmd = args::command();
    let pairs = [
        ('A', "account"),
        ('a', "array"),
        ('B', "extra-node-info"),
        ('b', "begin"),
        ('C', "constraint"),
        ('c', "cpus-per-task"),
        ('D', "chdir"),
        ('d', "dependency"),
        ('e', "error"),
        ('F', "nodefile"),
        ('G', "gpus"),
        ('H', "hold"),
        ('h', "help"),
        ('i', "input"),
        ('J', "job-name"),
        ('k', "no-kill"),
        ('L', "licenses"),
        ('M', "clusters"),
        ('m', "distribution"),
        ('N', "nodes"),
        ('n', "ntasks"),
        ('O', "overcommit"),
        ('o', "output"),
        ('p', "partition"),
        ('Q', "quiet"),
        ('q', "qos"),
        ('S', "core-spec"),
        ('s', "oversubscribe"),
        ('t', "time"),
        ('V', "version"),
        ('v', "verbose"),
        ('W', "wait"),
        ('w', "nodelist"),
        ('x', "exclude"),
    ];
    for (short, long) in pairs {
        let arg = cmd.get_arguments().find(|a| a.get_short() == Some(short));
        assert_eq!(arg.and_then(|a| a.get_long()), Some(long), "-{short}");
    }
}

#[test]
fn exclusive_and_oversubscribe_conflict_only_when_both_are_given() {
    let run = sbatch(&["--exclusive", "-s", "--wrap=x"]);
    assert_eq!(
        (run.code, run.err.as_str()),
        (
            1,
            "sbatch: fatal: --exclusive and --oversubscribe options are mutually exclusive\n"
        )
    );
    let env = host(&[("SBATCH_EXCLUSIVE", "1")]);
    let run = sbatch_with(&["-s", "--wrap=x"], &env, "", vec![]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(run.desc().exclusive, ExclusiveMode::Node);
    assert_eq!(run.desc().unacted, ["--oversubscribe"]);
}
