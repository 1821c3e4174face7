//! srun's command line, with Slurm's option names and the SLURM_* input
//! variables a batch script hands down (SLURM_JOB_ID, SLURM_NTASKS, ...).
//! Options spur does not act on are accepted with one warning each.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{ArgAction, Parser};

use spur_proto::{OpenMode, StepRequest};
use spur_slurm::{export, gres};

use crate::unacted;
use spur_options::args::{self as sbatch_args, SbatchArgs};
use spur_options::error::ValueError;
use spur_options::{alloc, layer, value, Host};

/// The options srun has and sbatch has not. The rest come from sbatch's
/// table ([`SHARED`], [`ALLOCATION_ONLY`]) and the table of options spur
/// does not act on; see [`command`].
#[derive(Debug, Clone, Parser)]
#[command(
    name = "srun",
    about = "Run parallel jobs (spur).",
    override_usage = "srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] executable(N) [args(N)...]",
    disable_help_flag = true,
    disable_version_flag = true,
    args_override_self = true,
    trailing_var_arg = true
)]
pub struct Cli {
    /// Prefix each line of output with its task number.
    #[arg(short = 'l', long = "label", action = ArgAction::SetTrue)]
    label: bool,
    /// Pass output on as it comes, not line by line.
    #[arg(short = 'u', long = "unbuffered", action = ArgAction::SetTrue)]
    unbuffered: bool,
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
    /// Run a different program per task, from the configuration file given as the program.
    #[arg(long = "multi-prog", action = ArgAction::SetTrue)]
    multi_prog: bool,
    /// MPI type (none; PMI types are not offered yet).
    #[arg(long = "mpi")]
    mpi: Option<String>,
    /// Task to CPU binding.
    #[arg(long = "cpu-bind")]
    cpu_bind: Option<String>,
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
    /// Task to GPU binding.
    #[arg(long = "gpu-bind")]
    gpu_bind: Option<String>,
    /// Print this help.
    #[arg(short = 'h', long = "help", action = ArgAction::SetTrue)]
    help: bool,
    /// Print a short usage line.
    #[arg(long = "usage", action = ArgAction::SetTrue)]
    usage: bool,
    /// The long names of the options given on the command line.
    #[arg(skip)]
    given: Vec<String>,
    /// The options srun shares with sbatch, as sbatch reads them.
    #[arg(skip)]
    job: SbatchArgs,
    /// Those options in sbatch's spelling (`--name=value`), the program
    /// name first: what srun's own allocation is built from.
    #[arg(skip)]
    job_words: Vec<OsString>,
    /// The program and its arguments (everything from the first word that
    /// is not an option is the program's).
    command: Vec<String>,
}

/// Options srun shares with sbatch that shape the step as well as the job
/// srun allocates.
pub(crate) const SHARED: &[&str] = &[
    "ntasks",
    "nodes",
    "ntasks-per-node",
    "cpus-per-task",
    "gpus-per-task",
    "gpus-per-node",
    "gpus",
    "gres",
    "output",
    "error",
    "input",
    "open-mode",
    "job-name",
    "time",
    "export",
    "chdir",
    "nodelist",
];

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

/// srun's help lines for options of sbatch's table whose sbatch line
/// speaks of a batch job.
const SRUN_HELP: &[(&str, &str)] = &[
    ("ntasks", "Tasks to run"),
    (
        "nodes",
        "Nodes for the step (min[-max]; the step takes the minimum)",
    ),
    ("gpus", "GPUs for the whole step"),
    (
        "output",
        "Where the tasks' standard output goes (file name pattern)",
    ),
    (
        "error",
        "Where the tasks' standard error goes (file name pattern)",
    ),
    (
        "input",
        "Where the tasks' standard input comes from: all, none, a task id or a file name pattern",
    ),
    (
        "job-name",
        "Name of the step (and of the job srun allocates)",
    ),
    (
        "export",
        "Environment variables the tasks get: ALL, NONE or a list",
    ),
    ("chdir", "Working directory of the tasks"),
    ("nodelist", "Nodes to run on"),
    ("partition", "Partition to allocate in"),
    ("begin", "Defer the allocation until this time"),
    ("hold", "Submit the allocation held"),
    (
        "dependency",
        "Defer the allocation until dependencies are satisfied",
    ),
];

/// The shared options that say what the job srun allocates holds: srun
/// writes these from what it resolved (the counts, the name), or leaves
/// them to the step (the streams, the environment).
const STEP_ONLY: &[&str] = &[
    "ntasks",
    "nodes",
    "ntasks-per-node",
    "output",
    "error",
    "input",
    "open-mode",
    "job-name",
    "export",
];

/// Options srun acts on nowhere, though it reads them.
pub(crate) const NEVER_ACTED: &[&str] = &["cpu-bind", "gpu-bind", "distribution"];

/// srun's command line: its own options, the options it shares with
/// sbatch in sbatch's declarations, and the options of sbatch(1),
/// salloc(1) and srun(1) that spur does not act on (one table,
/// [`crate::unacted`]). The man page and completions come from it too.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let longs: Vec<&str> = SHARED.iter().chain(ALLOCATION_ONLY).copied().collect();
    let args = sbatch_args::shared(&longs).into_iter().map(|arg| {
        let long = arg.get_long().unwrap_or_default();
        match SRUN_HELP.iter().find(|(l, _)| *l == long) {
            Some((_, help)) => arg.help(*help),
            None => arg,
        }
    });
    // One list in the order of the long names, as Slurm's srun --help.
    Cli::command()
        .args(args)
        .args(unacted::args(unacted::SRUN))
        .mut_args(|arg| arg.display_order(0))
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
            key: None,
        }
    }
}

fn fail(text: &str) -> ExitCode {
    eprintln!("srun: error: {text}");
    ExitCode::from(1)
}

/// An sbatch value error as srun words it (without `srun: error: `,
/// which [`fail`] adds).
fn sbatch_text(e: ValueError) -> String {
    let text = e.to_string();
    text.strip_prefix("sbatch: error: ")
        .unwrap_or(&text)
        .to_string()
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

/// The command line, with the long names of the options given on it and
/// the options shared with sbatch read by sbatch's table.
fn parse_cli(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    use clap::parser::ValueSource;
    use clap::FromArgMatches;
    let cmd = command();
    let matches = cmd.clone().try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    cli.given = matches
        .ids()
        .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| id.as_str().replace('_', "-"))
        .collect();
    let sbatch_cmd = sbatch_args::command();
    let mut words = vec![OsString::from("sbatch")];
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        let shared = SHARED.contains(&long) || ALLOCATION_ONLY.contains(&long);
        if shared && cli.given.iter().any(|g| g == long) {
            words.extend(
                layer::rewrite(arg, &matches)
                    .into_iter()
                    .map(OsString::from),
            );
        }
    }
    let job = sbatch_cmd.try_get_matches_from(&words)?;
    cli.job = SbatchArgs::from_arg_matches(&job)?;
    cli.job_words = words;
    Ok(cli)
}

/// The options from `cli` and the environment `env` (pure but for
/// reading a `--multi-prog` file and the working directory).
pub fn resolve(cli: Cli, env: Vec<(String, String)>) -> Result<SrunArgs, ExitCode> {
    let var = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let a = &cli.job;
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let job_id = cli
        .jobid
        .or_else(|| var("SLURM_JOB_ID").and_then(|v| v.parse().ok()));
    let int = |option, text: &Option<String>| {
        text.as_deref()
            .map(|t| value::positive_int(option, t))
            .transpose()
            .map_err(|e| fail(&sbatch_text(e)))
    };
    // Slurm's input variables, each standing for an option not given (a
    // batch script hands its -N, -n and --ntasks-per-node down this way;
    // -c, as of 22.05, is not handed down).
    let env_count = |k: &str| var(k).and_then(|v| v.parse::<u32>().ok());
    let nodes = match a.nodes.as_deref() {
        // `-N min-max`: the step takes the minimum.
        Some(n) => Some(value::node_count(n).map_err(|e| fail(&sbatch_text(e)))?.min),
        None => env_count("SLURM_JOB_NUM_NODES"),
    };
    let ntasks = int("--ntasks", &a.ntasks)?
        .or_else(|| env_count("SLURM_NTASKS"))
        .or_else(|| env_count("SLURM_NPROCS"));
    let ntasks_per_node = int("--ntasks-per-node", &a.ntasks_per_node)?
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
    let gpus = |option: &str, text: &Option<String>| {
        text.as_deref()
            .map(|g| {
                gres::gpu_count(g)
                    .map(|s| s.count)
                    .map_err(|_| fail(&format!("Invalid {option} specification: {g}")))
            })
            .transpose()
    };
    let gpus_per_node = match (&a.gpus_per_node, &a.gres) {
        (Some(_), _) => gpus("--gpus-per-node", &a.gpus_per_node)?,
        (None, Some(g)) => gres::gres(g)
            .map_err(|_| {
                fail(&format!(
                    "Invalid generic resource (gres) specification: {g}"
                ))
            })?
            .map(|s| s.count),
        _ => None,
    };
    let time_limit = match a.time.as_deref() {
        Some(t) => match value::time("--time", t).map_err(|e| fail(&sbatch_text(e)))? {
            value::TimeValue::Secs(s) => Some(s),
            value::TimeValue::Unlimited => None,
        },
        None => None,
    };
    // sbatch hands its --open-mode down in SLURM_OPEN_MODE, which srun
    // reads as its own (submitit's requeued tasks append to their logs).
    let open_mode = match a.open_mode.clone().or_else(|| var("SLURM_OPEN_MODE")) {
        Some(text) => value::open_mode(&text)
            .map_err(|_| fail(&format!("Invalid --open-mode argument: {text}")))?,
        None => OpenMode::Truncate,
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
    let cwd = match &a.chdir {
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
    let mut task_env = export::step_environment(&env, a.export.as_deref());
    // The tasks create files with srun's umask, as in Slurm.
    if !task_env.iter().any(|(k, _)| k == "SLURM_UMASK") {
        let umask = spur_sys::umask();
        task_env.push(("SLURM_UMASK".into(), format!("{umask:04o}")));
    }
    let name = a.job_name.clone().unwrap_or_else(|| {
        std::path::Path::new(&cli.command[0])
            .file_name()
            .map_or_else(|| cli.command[0].clone(), |n| n.to_string_lossy().into())
    });
    let allocation = if inside {
        spur_proto::JobDesc::default()
    } else {
        let counts = Counts {
            nodes: nodes_final,
            ntasks,
            ntasks_per_node,
            name: &name,
        };
        let (desc, said) = allocation(&cli, &counts, &env, &here).map_err(|e| fail(&e))?;
        warnings.extend(said);
        desc
    };
    Ok(SrunArgs {
        allocation,
        job_id,
        ntasks,
        nodes: nodes_final,
        ntasks_per_node,
        cpus_per_task: int("--cpus-per-task", &a.cpus_per_task)?,
        gpus_per_task: gpus("--gpus-per-task", &a.gpus_per_task)?,
        gpus_per_node,
        gpus: gpus("--gpus", &a.gpus)?,
        nodelist: match &a.nodelist {
            Some(list) => spur_conf::hostlist::expand(list)
                .map_err(|_| fail(&format!("Invalid node name specified: {list}")))?,
            None => Vec::new(),
        },
        label: cli.label,
        unbuffered: cli.unbuffered,
        output: a.output.clone(),
        error: a.error.clone(),
        input: a.input.clone(),
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

/// What srun resolved that its allocation takes over: the counts (input
/// variables and the task count's cap on nodes applied) and the name.
struct Counts<'a> {
    nodes: Option<u32>,
    ntasks: Option<u32>,
    ntasks_per_node: Option<u32>,
    name: &'a str,
}

/// The interactive job srun asks for when it runs outside an allocation:
/// sbatch's builder over the job options given, with the counts and name
/// srun resolved.
fn allocation(
    cli: &Cli,
    counts: &Counts<'_>,
    env: &[(String, String)],
    here: &std::path::Path,
) -> Result<(spur_proto::JobDesc, Vec<String>), String> {
    let step_only = |w: &OsString| {
        let w = w.to_string_lossy();
        let long = w
            .trim_start_matches("--")
            .split('=')
            .next()
            .unwrap_or_default()
            .to_string();
        STEP_ONLY.contains(&long.as_str())
    };
    let mut words: Vec<OsString> = cli
        .job_words
        .iter()
        .filter(|w| !step_only(w))
        .cloned()
        .collect();
    let resolved = [
        ("nodes", counts.nodes),
        ("ntasks", counts.ntasks),
        ("ntasks-per-node", counts.ntasks_per_node),
    ];
    for (long, n) in resolved {
        if let Some(n) = n {
            words.push(format!("--{long}={n}").into());
        }
    }
    words.push(format!("--job-name={}", counts.name).into());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let host = Host {
        env: env.to_vec(),
        cwd: here.display().to_string(),
        hostname: spur_sys::short_hostname(),
        now,
    };
    alloc::srun_job(&words, &host)
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
        let bad = parse_cli(
            ["srun", "--time-min=abc", "true"]
                .map(OsString::from)
                .to_vec(),
        )
        .expect("parses");
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
