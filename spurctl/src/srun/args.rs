//! srun's command line, with Slurm's option names and the SLURM_* input
//! variables a batch script hands down (SLURM_JOB_ID, SLURM_NTASKS, ...).
//! Options spur does not act on are accepted with one warning each.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{ArgAction, Parser};

use spur_proto::{OpenMode, StepRequest};

use crate::unacted;

/// srun's options.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "srun",
    about = "Run parallel jobs (spur).",
    override_usage = "srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] executable(N) [args(N)...]",
    disable_help_flag = true,
    disable_version_flag = true,
    trailing_var_arg = true
)]
pub struct Cli {
    /// Tasks to run.
    #[arg(short = 'n', long = "ntasks")]
    ntasks: Option<u32>,
    /// Nodes for the step (min[-max]; the step takes the minimum).
    #[arg(short = 'N', long = "nodes")]
    nodes: Option<String>,
    /// Tasks per node.
    #[arg(long = "ntasks-per-node")]
    ntasks_per_node: Option<u32>,
    /// CPUs per task.
    #[arg(short = 'c', long = "cpus-per-task")]
    cpus_per_task: Option<u32>,
    /// GPUs per task.
    #[arg(long = "gpus-per-task")]
    gpus_per_task: Option<String>,
    /// GPUs per node.
    #[arg(long = "gpus-per-node")]
    gpus_per_node: Option<String>,
    /// GPUs for the whole step.
    #[arg(short = 'G', long = "gpus")]
    gpus: Option<String>,
    /// Generic resources per node (gpu[:type]:count, or none).
    #[arg(long = "gres")]
    gres: Option<String>,
    /// Prefix each line of output with its task number.
    #[arg(short = 'l', long = "label", action = ArgAction::SetTrue)]
    label: bool,
    /// Pass output on as it comes, not line by line.
    #[arg(short = 'u', long = "unbuffered", action = ArgAction::SetTrue)]
    unbuffered: bool,
    /// Where the tasks' standard output goes (file name pattern).
    #[arg(short = 'o', long = "output")]
    output: Option<String>,
    /// Where the tasks' standard error goes (file name pattern).
    #[arg(short = 'e', long = "error")]
    error: Option<String>,
    /// Where the tasks' standard input comes from: all, none, a task id or a file name pattern.
    #[arg(short = 'i', long = "input")]
    input: Option<String>,
    /// Open output files with append or truncate.
    #[arg(long = "open-mode")]
    open_mode: Option<String>,
    /// Name of the step (and of the job srun allocates).
    #[arg(short = 'J', long = "job-name")]
    job_name: Option<String>,
    /// Time limit.
    #[arg(short = 't', long = "time")]
    time: Option<String>,
    /// Give the step only the CPUs it asks for.
    #[arg(long = "exact", action = ArgAction::SetTrue)]
    exact: bool,
    /// Share the allocation's resources with other steps.
    #[arg(long = "overlap", action = ArgAction::SetTrue)]
    overlap: bool,
    /// End the step when a task exits non-zero (0 or 1).
    #[arg(
        short = 'K',
        long = "kill-on-bad-exit",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "1"
    )]
    kill_on_bad_exit: Option<u8>,
    /// Seconds to wait after the first task ends before ending the rest.
    #[arg(short = 'W', long = "wait")]
    wait: Option<u64>,
    /// Environment variables to propagate: ALL, NONE or a list.
    #[arg(long = "export")]
    export: Option<String>,
    /// Working directory of the tasks.
    #[arg(short = 'D', long = "chdir")]
    chdir: Option<String>,
    /// Run a different program per task, from the configuration file given as the program.
    #[arg(long = "multi-prog", action = ArgAction::SetTrue)]
    multi_prog: bool,
    /// MPI type (none; PMI types are not offered yet).
    #[arg(long = "mpi")]
    mpi: Option<String>,
    /// Task to CPU binding.
    #[arg(long = "cpu-bind")]
    cpu_bind: Option<String>,
    /// Nodes to run on.
    #[arg(short = 'w', long = "nodelist")]
    nodelist: Option<String>,
    /// Run the step in this existing job.
    #[arg(long = "jobid")]
    jobid: Option<u32>,
    /// More messages (repeat for more).
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    verbose: u8,
    /// Fewer messages.
    #[arg(short = 'Q', long = "quiet", action = ArgAction::SetTrue)]
    quiet: bool,
    /// Distribution of tasks to nodes.
    #[arg(long = "distribution", short = 'm')]
    distribution: Option<String>,
    /// Memory per node.
    #[arg(long = "mem")]
    mem: Option<String>,
    /// Memory per allocated CPU.
    #[arg(long = "mem-per-cpu")]
    mem_per_cpu: Option<String>,
    /// Task to GPU binding.
    #[arg(long = "gpu-bind")]
    gpu_bind: Option<String>,
    /// Partition to allocate in.
    #[arg(short = 'p', long = "partition")]
    partition: Option<String>,
    /// Charge the job to this account.
    #[arg(short = 'A', long = "account")]
    account: Option<String>,
    /// Quality of service.
    #[arg(short = 'q', long = "qos")]
    qos: Option<String>,
    /// Required node features.
    #[arg(short = 'C', long = "constraint")]
    constraint: Option<String>,
    /// Nodes not to use.
    #[arg(short = 'x', long = "exclude")]
    exclude: Option<String>,
    /// Do not share nodes (with other jobs, other users, or other NVLink blocks).
    #[arg(long = "exclusive", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    exclusive: Option<String>,
    /// An arbitrary comment.
    #[arg(long = "comment")]
    comment: Option<String>,
    /// Minimum time limit.
    #[arg(long = "time-min")]
    time_min: Option<String>,
    /// Defer the allocation until this time.
    #[arg(long = "begin")]
    begin: Option<String>,
    /// Lower the job's priority by this much.
    #[arg(long = "nice", num_args = 0..=1, require_equals = true, default_missing_value = "100")]
    nice: Option<String>,
    /// The job's priority.
    #[arg(long = "priority")]
    priority: Option<String>,
    /// Submit the allocation held.
    #[arg(short = 'H', long = "hold", action = ArgAction::SetTrue)]
    hold: bool,
    /// Memory per allocated GPU.
    #[arg(long = "mem-per-gpu")]
    mem_per_gpu: Option<String>,
    /// CPUs per allocated GPU.
    #[arg(long = "cpus-per-gpu")]
    cpus_per_gpu: Option<u32>,
    /// Signal the job this long before its time limit ([R:]sig[@time]).
    #[arg(long = "signal")]
    signal: Option<String>,
    /// Defer the allocation until dependencies are satisfied.
    #[arg(short = 'd', long = "dependency")]
    dependency: Option<String>,
    /// Most leaf switches (or NVLink blocks) the job may span ([@max-wait]).
    #[arg(long = "switches")]
    switches: Option<String>,
    /// Nodes per segment: each segment stays inside one NVLink block.
    #[arg(long = "segment")]
    segment: Option<String>,
    /// Print this help.
    #[arg(short = 'h', long = "help", action = ArgAction::SetTrue)]
    help: bool,
    /// Print a short usage line.
    #[arg(long = "usage", action = ArgAction::SetTrue)]
    usage: bool,
    /// The long names of the options given on the command line.
    #[arg(skip)]
    given: Vec<String>,
    /// The program and its arguments (everything from the first word that
    /// is not an option is the program's).
    command: Vec<String>,
}

/// What srun does, resolved from the command line and the environment.
#[derive(Debug, Clone)]
pub struct SrunArgs {
    /// The job the step runs in.
    pub job_id: Option<u32>,
    /// The step request.
    pub ntasks: Option<u32>,
    /// `-N`.
    pub nodes: Option<u32>,
    /// `--ntasks-per-node`.
    pub ntasks_per_node: Option<u32>,
    /// `-c`.
    pub cpus_per_task: Option<u32>,
    /// `--gpus-per-task`.
    pub gpus_per_task: Option<u32>,
    /// `--gpus-per-node` / `--gres=gpu:N`.
    pub gpus_per_node: Option<u32>,
    /// `--gpus`.
    pub gpus: Option<u32>,
    /// `-w`, expanded.
    pub nodelist: Vec<String>,
    /// `-l`.
    pub label: bool,
    /// `-u`: output passed on as it comes, not line by line.
    pub unbuffered: bool,
    /// `-o`.
    pub output: Option<String>,
    /// `-e`.
    pub error: Option<String>,
    /// `-i`: `all` (the default), `none`, a task id or a file name
    /// pattern.
    pub input: Option<String>,
    /// `--open-mode`.
    pub open_mode: OpenMode,
    /// The step's name.
    pub name: String,
    /// What `%A`, `%a` and `%x` stand for in `-o`, `-e` and `-i`: as
    /// srun's fname.c reads them, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID
    /// and SLURM_JOB_NAME (the job's name, inside an allocation).
    pub pattern_names: PatternNames,
    /// `-t` in seconds.
    pub time_limit: Option<u64>,
    /// `-K`.
    pub kill_on_bad_exit: bool,
    /// `--exact`.
    pub exact: bool,
    /// `--overlap`.
    pub overlap: bool,
    /// `-W`.
    pub wait: Option<u64>,
    /// The tasks' environment from srun's side.
    pub env: Vec<(String, String)>,
    /// The working directory.
    pub cwd: String,
    /// `--multi-prog`: per task, its command.
    pub multi_prog: Vec<(u32, Vec<String>)>,
    /// The program and arguments.
    pub command: Vec<String>,
    /// `-Q`.
    pub quiet: bool,
    /// One warning per option given that spur does not act on.
    pub warnings: Vec<String>,
    /// What Slurm's srun says at info level (`srun: Warning: can't run...`).
    pub notes: Vec<String>,
    /// Outside an allocation: the allocation to ask for first.
    pub allocation: spur_proto::JobDesc,
}

/// The array ids and job name srun's file name patterns use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatternNames {
    /// `%A` (None: the job id).
    pub array_job_id: Option<u32>,
    /// `%a` (None: Slurm's NO_VAL).
    pub array_task_id: Option<u32>,
    /// `%x`.
    pub job_name: String,
}

impl SrunArgs {
    /// The step request for job `job_id`.
    pub fn step_request(&self, job_id: u32) -> StepRequest {
        StepRequest {
            job_id,
            name: self.name.clone(),
            ntasks: self.ntasks,
            nodes: self.nodes,
            ntasks_per_node: self.ntasks_per_node,
            cpus_per_task: self.cpus_per_task,
            gpus_per_task: self.gpus_per_task,
            gpus_per_node: self.gpus_per_node,
            gpus: self.gpus,
            time_limit: self.time_limit,
            nodelist: self.nodelist.clone(),
            exact: self.exact,
            overlap: self.overlap,
            srun_host: spur_sys::short_hostname(),
            srun_pid: std::process::id(),
        }
    }
}

fn fail(text: &str) -> ExitCode {
    eprintln!("srun: error: {text}");
    ExitCode::from(1)
}

fn count(option: &str, text: &str) -> Result<u32, ExitCode> {
    let digits = text.rsplit(':').next().unwrap_or(text);
    digits
        .parse()
        .map_err(|_| fail(&format!("Invalid {option} specification: {text}")))
}

/// Reads the command line and the environment.
pub fn parse(args: Vec<OsString>) -> Result<SrunArgs, ExitCode> {
    let last = args.last().cloned().unwrap_or_default();
    let cli = parse_cli(args).map_err(|e| {
        eprint!("{}", crate::getopt::error("srun", &e, &last));
        ExitCode::from(1)
    })?;
    if cli.help || cli.usage {
        let mut cmd = command();
        let text = if cli.help {
            cmd.render_help().to_string()
        } else {
            cmd.render_usage().to_string()
        };
        println!("{}", text.trim_end());
        return Err(ExitCode::SUCCESS);
    }
    resolve(cli, std::env::vars().collect())
}

/// srun's command line: the options above, and the options of
/// sbatch(1), salloc(1) and srun(1) that spur does not act on (one table,
/// [`crate::unacted`]). The man page and completions come from it too.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().args(unacted::args(unacted::SRUN))
}

/// Options srun acts on nowhere, though it reads them.
pub(crate) const NEVER_ACTED: &[&str] = &["cpu-bind", "gpu-bind", "distribution"];

/// Options that describe the job rather than the step: srun acts on them
/// when it asks for an allocation of its own, not inside an existing one.
pub(crate) const ALLOCATION_ONLY: &[&str] = &[
    "mem",
    "mem-per-cpu",
    "partition",
    "account",
    "qos",
    "constraint",
    "exclude",
    "exclusive",
    "comment",
    "time-min",
    "begin",
    "nice",
    "priority",
    "hold",
    "mem-per-gpu",
    "cpus-per-gpu",
    "signal",
    "dependency",
    "switches",
    "segment",
];

/// The command line, with the long names of the options given on it.
fn parse_cli(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    use clap::parser::ValueSource;
    use clap::FromArgMatches;
    let matches = command().try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    cli.given = matches
        .ids()
        .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| id.as_str().replace('_', "-"))
        .collect();
    Ok(cli)
}

/// The options from `cli` and the environment `env` (pure but for
/// reading a `--multi-prog` file and the working directory).
pub fn resolve(cli: Cli, env: Vec<(String, String)>) -> Result<SrunArgs, ExitCode> {
    let var = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let job_id = cli
        .jobid
        .or_else(|| var("SLURM_JOB_ID").and_then(|v| v.parse().ok()));
    // Slurm's input variables, each standing for an option not given (a
    // batch script hands its -N, -n and --ntasks-per-node down this way;
    // -c, as of 22.05, is not handed down).
    let env_count = |k: &str| var(k).and_then(|v| v.parse::<u32>().ok());
    let nodes = match &cli.nodes {
        // `-N min-max`: the step takes the minimum.
        Some(n) => Some(count("node count", n.split('-').next().unwrap_or(n))?),
        None => env_count("SLURM_JOB_NUM_NODES"),
    };
    let ntasks = cli
        .ntasks
        .or_else(|| env_count("SLURM_NTASKS"))
        .or_else(|| env_count("SLURM_NPROCS"));
    let ntasks_per_node = cli
        .ntasks_per_node
        .or_else(|| env_count("SLURM_NTASKS_PER_NODE"));
    let mut nodes_final = nodes;
    if let (Some(t), Some(n)) = (ntasks, nodes) {
        if t < n && t > 0 {
            notes.push(format!(
                "Warning: can't run {t} processes on {n} nodes, setting nnodes to {t}"
            ));
            nodes_final = Some(t);
        }
    }
    let gpus_per_node = match (&cli.gpus_per_node, &cli.gres) {
        (Some(g), _) => Some(count("--gpus-per-node", g)?),
        (None, Some(g)) if g.starts_with("gpu") => Some(count("--gres", g)?),
        (None, Some(g)) if g != "none" => {
            return Err(fail(&format!(
                "Invalid generic resource (gres) specification: {g}"
            )))
        }
        _ => None,
    };
    let time_limit = match &cli.time {
        Some(t) => match spur_conf::parse_time_minutes(t) {
            Ok(Some(0)) | Ok(None) => None,
            Ok(Some(m)) => Some(m * 60),
            Err(_) => return Err(fail("Invalid --time specification")),
        },
        None => None,
    };
    // sbatch hands its --open-mode down in SLURM_OPEN_MODE, which srun
    // reads as its own (submitit's requeued tasks append to their logs).
    let open_mode_given = cli.open_mode.clone().or_else(|| var("SLURM_OPEN_MODE"));
    let open_mode = match open_mode_given.as_deref() {
        None | Some("truncate") | Some("t") => OpenMode::Truncate,
        Some("append") | Some("a") => OpenMode::Append,
        Some(other) => return Err(fail(&format!("Invalid --open-mode argument: {other}"))),
    };
    match cli.mpi.as_deref() {
        None | Some("none") => {}
        Some(m @ ("pmi2" | "pmix" | "pmix_v3" | "pmix_v4")) => warnings.push(format!(
            "--mpi={m} is not supported by spur yet; tasks start without PMI"
        )),
        Some(m) => return Err(fail(&format!("MPI type '{m}' not found"))),
    }
    let inside = job_id.is_some();
    let given = |name: &str| cli.given.iter().any(|g| g == name);
    for name in unacted::names(unacted::SRUN).filter(|n| given(n)) {
        warnings.push(format!("--{name} is accepted but not acted on by spur"));
    }
    let suffix = if inside { " inside an allocation" } else { "" };
    let not_acted = NEVER_ACTED
        .iter()
        .chain(ALLOCATION_ONLY.iter().filter(|_| inside));
    for name in not_acted.filter(|n| given(n)) {
        warnings.push(format!(
            "--{name} is accepted but not acted on by spur{suffix}"
        ));
    }
    // -D may be relative to where srun runs.
    let here = std::env::current_dir().unwrap_or_else(|_| "/tmp".into());
    let cwd = match &cli.chdir {
        Some(d) => here.join(d).display().to_string(),
        None => here.display().to_string(),
    };
    if cli.command.is_empty() {
        return Err(fail("No command given to execute."));
    }
    let multi_prog = if cli.multi_prog {
        let text = std::fs::read_to_string(&cli.command[0])
            .map_err(|e| fail(&format!("Unable to open {}: {e}", cli.command[0])))?;
        parse_multi_prog(&text).map_err(|e| fail(&e))?
    } else {
        Vec::new()
    };
    let mut task_env = match cli.export.as_deref() {
        None | Some("ALL") => env.clone(),
        Some(spec) => {
            let mut out: Vec<(String, String)> = Vec::new();
            let mut all = false;
            for item in spec.split(',') {
                match item {
                    "ALL" => all = true,
                    "NONE" | "NIL" => {}
                    _ => match item.split_once('=') {
                        Some((k, v)) => out.push((k.into(), v.into())),
                        None => {
                            if let Some(v) = var(item) {
                                out.push((item.into(), v));
                            }
                        }
                    },
                }
            }
            // The step still needs to find the controller's configuration.
            for k in ["SLURM_CONF", "PATH"] {
                if !out.iter().any(|(n, _)| n == k) {
                    if let Some(v) = var(k).filter(|_| k == "SLURM_CONF" || all) {
                        out.push((k.into(), v));
                    }
                }
            }
            if all {
                let mut merged = env.clone();
                merged.extend(out);
                merged
            } else {
                out
            }
        }
    };
    // The tasks create files with srun's umask, as in Slurm.
    if !task_env.iter().any(|(k, _)| k == "SLURM_UMASK") {
        let umask = crate::sbatch::desc::current_umask();
        task_env.push(("SLURM_UMASK".into(), format!("{umask:04o}")));
    }
    let name = cli.job_name.clone().unwrap_or_else(|| {
        std::path::Path::new(&cli.command[0])
            .file_name()
            .map_or_else(|| cli.command[0].clone(), |n| n.to_string_lossy().into())
    });
    let allocation = allocation_desc(
        &cli,
        &AllocationCounts {
            nodes: nodes_final,
            ntasks,
            ntasks_per_node,
            time_limit,
            name: &name,
            cwd: &cwd,
        },
    )
    .map_err(|e| fail(&e))?;
    Ok(SrunArgs {
        allocation,
        job_id,
        ntasks,
        nodes: nodes_final,
        ntasks_per_node,
        cpus_per_task: cli.cpus_per_task,
        gpus_per_task: cli
            .gpus_per_task
            .as_deref()
            .map(|g| count("--gpus-per-task", g))
            .transpose()?,
        gpus_per_node,
        gpus: cli
            .gpus
            .as_deref()
            .map(|g| count("--gpus", g))
            .transpose()?,
        nodelist: match &cli.nodelist {
            Some(list) => spur_conf::hostlist::expand(list)
                .map_err(|_| fail(&format!("Invalid node name specified: {list}")))?,
            None => Vec::new(),
        },
        label: cli.label,
        unbuffered: cli.unbuffered,
        output: cli.output,
        error: cli.error,
        input: cli.input,
        open_mode,
        pattern_names: PatternNames {
            array_job_id: var("SLURM_ARRAY_JOB_ID").and_then(|v| v.parse().ok()),
            array_task_id: var("SLURM_ARRAY_TASK_ID").and_then(|v| v.parse().ok()),
            job_name: var("SLURM_JOB_NAME")
                .filter(|_| inside)
                .unwrap_or_else(|| name.clone()),
        },
        name,
        time_limit,
        kill_on_bad_exit: cli.kill_on_bad_exit.is_some_and(|k| k != 0),
        exact: cli.exact || var("SLURM_EXACT").is_some(),
        overlap: cli.overlap || var("SLURM_OVERLAP").is_some(),
        wait: cli.wait.filter(|&w| w > 0),
        env: task_env,
        cwd,
        multi_prog,
        command: cli.command,
        quiet: cli.quiet,
        warnings,
        notes,
    })
}

/// The counts an allocation for srun takes from the resolved options.
struct AllocationCounts<'a> {
    nodes: Option<u32>,
    ntasks: Option<u32>,
    ntasks_per_node: Option<u32>,
    time_limit: Option<u64>,
    name: &'a str,
    cwd: &'a str,
}

/// An sbatch value error as srun words it (without `srun: error: `,
/// which [`fail`] adds).
fn sbatch_text(e: crate::sbatch::error::ValueError) -> String {
    let text = e.to_string();
    text.strip_prefix("sbatch: error: ")
        .unwrap_or(&text)
        .to_string()
}

/// The interactive job srun asks for when it runs outside an allocation.
fn allocation_desc(cli: &Cli, c: &AllocationCounts<'_>) -> Result<spur_proto::JobDesc, String> {
    let gpus = |t: &Option<String>| -> Result<Option<u32>, String> {
        t.as_deref()
            .map(|g| {
                g.rsplit(':')
                    .next()
                    .unwrap_or(g)
                    .parse()
                    .map_err(|_| format!("Invalid GPU specification: {g}"))
            })
            .transpose()
    };
    let mem = |t: &Option<String>| -> Result<Option<u64>, String> {
        t.as_deref()
            .map(|m| {
                spur_conf::parse_memory_mb(m)
                    .map_err(|_| format!("Invalid --mem specification: {m}"))
            })
            .transpose()
    };
    let hosts = |t: &Option<String>| -> Result<Vec<String>, String> {
        t.as_deref().map_or(Ok(Vec::new()), |l| {
            spur_conf::hostlist::expand(l).map_err(|_| format!("Invalid node name specified: {l}"))
        })
    };
    let mut desc = spur_proto::JobDesc {
        name: Some(c.name.to_string()),
        account: cli.account.clone(),
        partitions: cli
            .partition
            .as_deref()
            .map(|p| p.split(',').map(str::to_string).collect())
            .unwrap_or_default(),
        qos: cli.qos.clone(),
        min_nodes: c.nodes,
        ntasks: c.ntasks,
        ntasks_per_node: c.ntasks_per_node,
        cpus_per_task: cli.cpus_per_task,
        gpus: gpus(&cli.gpus)?,
        gpus_per_node: match (&cli.gpus_per_node, &cli.gres) {
            (Some(_), _) => gpus(&cli.gpus_per_node)?,
            (None, Some(g)) if g.starts_with("gpu") => gpus(&cli.gres)?,
            _ => None,
        },
        gpus_per_task: gpus(&cli.gpus_per_task)?,
        required_nodes: hosts(&cli.nodelist)?,
        excluded_nodes: hosts(&cli.exclude)?,
        constraint: cli.constraint.clone(),
        time_limit: c.time_limit,
        comment: cli.comment.clone(),
        work_dir: c.cwd.to_string(),
        submit_host: spur_sys::short_hostname(),
        interactive: true,
        ..Default::default()
    };
    if let Some(mb) = mem(&cli.mem)? {
        desc.mem = spur_proto::MemSpec::PerNode(mb);
    } else if let Some(mb) = mem(&cli.mem_per_cpu)? {
        desc.mem = spur_proto::MemSpec::PerCpu(mb);
    }
    if let Some(mb) = mem(&cli.mem_per_gpu)? {
        desc.mem = spur_proto::MemSpec::PerGpu(mb);
    }
    if let Some(e) = &cli.exclusive {
        desc.exclusive = match crate::sbatch::value::exclusive(e).map_err(sbatch_text)? {
            crate::sbatch::value::Exclusive::Mode(m) => m,
            crate::sbatch::value::Exclusive::Mcs => spur_proto::ExclusiveMode::Node,
            crate::sbatch::value::Exclusive::Oversubscribe => spur_proto::ExclusiveMode::No,
        };
    }
    // sbatch's readers, with sbatch's words in srun's name.
    use crate::sbatch::value;
    if let Some(t) = &cli.time_min {
        desc.time_min = match value::time("--time-min", t).map_err(sbatch_text)? {
            value::TimeValue::Secs(s) => Some(s),
            value::TimeValue::Unlimited => None,
        };
    }
    if let Some(b) = &cli.begin {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        desc.begin = Some(crate::sbatch::begin::parse_begin(b, now).map_err(sbatch_text)?);
    }
    if let Some(n) = &cli.nice {
        desc.nice = value::nice(n).map_err(sbatch_text)?;
    }
    if let Some(p) = &cli.priority {
        desc.priority = Some(value::priority(p).map_err(sbatch_text)?);
    }
    if let Some(s) = &cli.signal {
        desc.signal = Some(value::signal(s).map_err(sbatch_text)?.0);
    }
    if let Some(s) = &cli.switches {
        desc.switches = Some(value::switches(s).map_err(sbatch_text)?);
    }
    if let Some(s) = &cli.segment {
        desc.segment = Some(value::segment(s).map_err(sbatch_text)?);
    }
    desc.dependency = cli.dependency.clone();
    desc.hold = cli.hold;
    desc.cpus_per_gpu = cli.cpus_per_gpu;
    Ok(desc)
}

/// A line cut into words at blanks, with '...' and "..." quoting.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("Unterminated quote in --multi-prog line: {line}"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// `--multi-prog` file: `ranks program args...` per line, `#` comments;
/// ranks are `*`, `N`, `N-M` and commas of those; `%t` in the arguments is
/// the task id and `%o` its offset within the line's ranks.
pub fn parse_multi_prog(text: &str) -> Result<Vec<(u32, Vec<String>)>, String> {
    const ANY: u32 = u32::MAX;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = split_words(line)?.into_iter();
        let ranks = words.next().unwrap_or_default();
        let argv: Vec<String> = words.collect();
        if argv.is_empty() {
            return Err(format!("Invalid --multi-prog line {}: {line}", n + 1));
        }
        // `*` is kept as task ANY and filled in per task by the node;
        // listed ranks get `%t` (the task) and `%o` (its offset on the
        // line) now.
        let mut offset = 0;
        for r in ranks.split(',') {
            let (a, b) = if r == "*" {
                out.push((ANY, argv.clone()));
                continue;
            } else if let Some((a, b)) = r.split_once('-') {
                (
                    a.parse::<u32>()
                        .map_err(|_| format!("Invalid task range: {r}"))?,
                    b.parse::<u32>()
                        .map_err(|_| format!("Invalid task range: {r}"))?,
                )
            } else {
                let t = r.parse().map_err(|_| format!("Invalid task range: {r}"))?;
                (t, t)
            };
            for t in a..=b.min(a + 4096) {
                let args = argv
                    .iter()
                    .map(|w| {
                        w.replace("%t", &t.to_string())
                            .replace("%o", &offset.to_string())
                    })
                    .collect();
                out.push((t, args));
                offset += 1;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_with(args: &[&str], env: &[(&str, &str)]) -> SrunArgs {
        let mut argv = vec!["srun"];
        argv.extend_from_slice(args);
        let cli = parse_cli(argv.into_iter().map(OsString::from).collect()).expect("parses");
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve(cli, env).expect("resolves")
    }

    #[test]
    fn a_batch_scripts_task_and_node_counts_are_the_default() {
        let env = [
            ("SLURM_JOB_ID", "7"),
            ("SLURM_NTASKS", "4"),
            ("SLURM_JOB_NUM_NODES", "2"),
        ];
        let a = resolve_with(&["hostname"], &env);
        assert_eq!((a.job_id, a.ntasks, a.nodes), (Some(7), Some(4), Some(2)));
        let a = resolve_with(&["-n", "1", "hostname"], &env);
        assert_eq!((a.ntasks, a.nodes), (Some(1), Some(1)));
        assert_eq!(
            a.notes,
            vec!["Warning: can't run 1 processes on 2 nodes, setting nnodes to 1"]
        );
        let a = resolve_with(&["-N", "1", "hostname"], &env);
        assert_eq!((a.ntasks, a.nodes), (Some(4), Some(1)));
    }

    #[test]
    fn the_batch_scripts_open_mode_and_array_and_name_reach_srun() {
        let env = [
            ("SLURM_JOB_ID", "7"),
            ("SLURM_OPEN_MODE", "a"),
            ("SLURM_ARRAY_JOB_ID", "5"),
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_JOB_NAME", "train"),
        ];
        let a = resolve_with(&["hostname"], &env);
        assert_eq!(a.open_mode, OpenMode::Append);
        assert_eq!(
            a.pattern_names,
            PatternNames {
                array_job_id: Some(5),
                array_task_id: Some(2),
                job_name: "train".into()
            }
        );
        assert_eq!(a.name, "hostname");
        let a = resolve_with(&["--open-mode=truncate", "hostname"], &env);
        assert_eq!(a.open_mode, OpenMode::Truncate);
        // Outside an allocation the job is srun's own, named as it names it.
        let a = resolve_with(&["-J", "mine", "hostname"], &[("SLURM_JOB_NAME", "x")]);
        assert_eq!(a.pattern_names.job_name, "mine");
    }

    #[test]
    fn attached_values_are_options_and_the_rest_is_the_program() {
        let a = resolve_with(&["-N3", "-n3", "-l", "sh", "-c", "echo -N"], &[]);
        assert_eq!((a.nodes, a.ntasks), (Some(3), Some(3)));
        assert_eq!(a.command, vec!["sh", "-c", "echo -N"]);
    }

    #[test]
    fn the_program_keeps_its_own_options() {
        let a = resolve_with(&["-l", "bash", "-c", "echo -n x"], &[("SLURM_JOB_ID", "3")]);
        assert!(a.label);
        assert_eq!(a.command, vec!["bash", "-c", "echo -n x"]);
        assert_eq!(a.name, "bash");
    }

    #[test]
    fn gres_and_gpus_per_node_give_the_gpus_per_node() {
        let a = resolve_with(&["--gres=gpu:2", "true"], &[]);
        assert_eq!(a.gpus_per_node, Some(2));
        let a = resolve_with(&["--gpus-per-task=1", "true"], &[]);
        assert_eq!(a.gpus_per_task, Some(1));
    }

    #[test]
    fn kill_on_bad_exit_takes_its_value_only_attached() {
        let a = resolve_with(&["-K", "sh", "-c", "true"], &[]);
        assert!(a.kill_on_bad_exit);
        assert_eq!(a.command, vec!["sh", "-c", "true"]);
        let a = resolve_with(&["--kill-on-bad-exit=0", "true"], &[]);
        assert!(!a.kill_on_bad_exit);
    }

    #[test]
    fn outside_an_allocation_srun_asks_for_what_sbatch_would() {
        let a = resolve_with(
            &[
                "-N2",
                "-p",
                "gpu",
                "-t",
                "30",
                "--time-min=10",
                "--nice=5",
                "-H",
                "--exclusive",
                "--mem-per-gpu=4G",
                "--signal=USR1@60",
                "true",
            ],
            &[],
        );
        let d = &a.allocation;
        assert_eq!(d.min_nodes, Some(2));
        assert_eq!(d.partitions, vec!["gpu".to_string()]);
        assert_eq!((d.time_limit, d.time_min), (Some(1800), Some(600)));
        assert_eq!((d.nice, d.hold), (5, true));
        assert_eq!(d.exclusive, spur_proto::ExclusiveMode::Node);
        assert_eq!(d.mem, spur_proto::MemSpec::PerGpu(4096));
        assert_eq!(
            d.signal.map(|s| (s.signal, s.before)),
            Some((libc::SIGUSR1, 60))
        );
        assert!(d.interactive);
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        let bad = Cli::try_parse_from(["srun", "--time-min=abc", "true"]).expect("parses");
        assert!(resolve(bad, Vec::new()).is_err());
    }

    #[test]
    fn options_spur_does_not_act_on_are_accepted_with_one_warning_each() {
        let a = resolve_with(
            &[
                "--mail-type=END",
                "--hint",
                "nomultithread",
                "-k",
                "--pty",
                "-I",
                "true",
            ],
            &[],
        );
        assert_eq!(
            a.warnings,
            vec![
                "--hint is accepted but not acted on by spur",
                "--immediate is accepted but not acted on by spur",
                "--mail-type is accepted but not acted on by spur",
                "--no-kill is accepted but not acted on by spur",
                "--pty is accepted but not acted on by spur",
            ]
        );
        assert_eq!(a.command, vec!["true"]);
        let a = resolve_with(&["-d", "afterok:5", "--switches=2@10", "true"], &[]);
        assert_eq!(a.allocation.dependency.as_deref(), Some("afterok:5"));
        assert_eq!(a.allocation.switches, Some((2, Some(600))));
    }

    #[test]
    fn pmi_is_accepted_with_a_warning() {
        let a = resolve_with(&["--mpi=pmix", "true"], &[]);
        assert_eq!(a.warnings.len(), 1);
        assert!(a.warnings[0].contains("pmix"));
    }

    #[test]
    fn multi_prog_lines_give_each_task_its_command() {
        let got = parse_multi_prog("# comment\n0 echo first\n1-2 echo rank %t offset %o\n")
            .expect("parses");
        assert_eq!(got[0], (0, vec!["echo".into(), "first".into()]));
        assert_eq!(
            got[2],
            (
                2,
                vec![
                    "echo".into(),
                    "rank".into(),
                    "2".into(),
                    "offset".into(),
                    "1".into()
                ]
            )
        );
        assert!(parse_multi_prog("0\n").is_err());
        let quoted = parse_multi_prog("* sh -c 'echo worker %t'\n").expect("parses");
        assert_eq!(
            quoted[0].1,
            vec!["sh".to_string(), "-c".into(), "echo worker %t".into()]
        );
    }
}
