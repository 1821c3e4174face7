//! From the merged options to the `JobDesc` the controller gets: values read
//! and checked in Slurm's terms (`_opt_verify`, `validate_options_*`),
//! conflicts refused as Slurm refuses them, and each option spur stores
//! without acting on recorded with its warning.

use std::sync::Arc;

use spur_proto::{ExclusiveMode, JobDesc, MemSpec, OpenMode, SegmentLayout};

use crate::args::SbatchArgs;
use crate::error::{Fatal, SbatchError, ValueError};
use crate::layer::{Layers, Table};
use crate::unacted;
use crate::value::{self, Exclusive, TimeValue};
use crate::{begin, script};
use spur_slurm::export::{export_file_entries, job_environment, Env, ExportInput};
use spur_slurm::gres::{gpu_count, gres, GpuRequest, GresError};

/// What the job is built from besides the options.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// The script's text.
    pub script: String,
    /// The script's path as found (None for stdin and --wrap).
    pub script_path: Option<String>,
    /// Whether the script came from --wrap.
    pub wrap: bool,
    /// The script's arguments.
    pub argv: Vec<String>,
    /// sbatch's environment.
    pub env: &'a [(String, String)],
    /// Where sbatch runs.
    pub cwd: String,
    /// The short host name.
    pub hostname: String,
    /// The current time, Unix seconds.
    pub now: i64,
}

impl<'a> Context<'a> {
    /// An allocation's: no script, the host's environment, directory, name
    /// and time.
    pub fn without_script(host: &'a crate::Host) -> Context<'a> {
        Context {
            script: String::new(),
            script_path: None,
            wrap: false,
            argv: Vec::new(),
            env: &host.env,
            cwd: host.cwd.clone(),
            hostname: host.hostname.clone(),
            now: host.now,
        }
    }
}

/// The job, and the warnings to print before submitting it.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    /// The job.
    pub desc: JobDesc,
    /// Lines for stderr.
    pub warnings: Vec<String>,
}

/// Builds the job from the merged options `a`, the sources they came from,
/// and the stored-only options given (`--name=value`).
pub fn build(
    a: &SbatchArgs,
    layers: &Layers,
    unacted: Vec<String>,
    ctx: &Context<'_>,
) -> Result<Built, SbatchError> {
    reject_unsupported(a)?;
    check_conflicts(a, layers)?;
    let mut b = Builder {
        desc: JobDesc::default(),
        warnings: unacted.iter().map(|r| unacted::warning(r)).collect(),
        unacted,
        size_list: false,
    };
    b.identity(a, ctx)?;
    b.nodes(a)?;
    b.tasks(a, layers)?;
    b.desc.mem = memory(a, layers)?;
    b.gpus(a)?;
    b.placement(a)?;
    b.timing(a, ctx.now)?;
    b.files(a, ctx)?;
    b.environment(a, ctx)?;
    Ok(b.finish())
}

/// The job that options alone describe, each word `--long[=value]`, with
/// no directives and no input variables: how slurmrestd's v0.0.38 reads a
/// job's properties (by option, through slurm_opt.c).
pub fn from_words(words: &[String], ctx: &Context<'_>) -> Result<Built, SbatchError> {
    // A server reads many jobs: the table is made once.
    static TABLE: std::sync::OnceLock<std::sync::Mutex<Table>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| std::sync::Mutex::new(Table::new(crate::args::command())));
    let mut line = vec![std::ffi::OsString::from("sbatch")];
    line.extend(words.iter().map(std::ffi::OsString::from));
    let (none, cmdline) = {
        let mut table = table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (table.none()?, Arc::new(table.parse(&line)?))
    };
    let layers = Layers {
        directives: none.clone(),
        env: none,
        cmdline,
    };
    let all = <SbatchArgs as clap::FromArgMatches>::from_arg_matches(&layers.cmdline)
        .expect("matches come from this command");
    let unacted = unacted::given(&layers.cmdline, unacted::BATCH);
    build(&all, &layers, unacted, ctx)
}

/// Options whose effect spur does not have yet and must not ignore.
fn reject_unsupported(a: &SbatchArgs) -> Result<(), SbatchError> {
    if a.external {
        return Err(SbatchError::NotSupported("--external"));
    }
    Ok(())
}

/// Slurm's validate_options_salloc_sbatch_srun conflicts. Directives count
/// as command line there, and the environment only conflicts with itself.
fn check_conflicts(a: &SbatchArgs, layers: &Layers) -> Result<(), SbatchError> {
    const MEM: [&str; 3] = ["mem", "mem_per_cpu", "mem_per_gpu"];
    let by_cli = MEM.iter().filter(|id| layers.by_cli(id)).count();
    if by_cli > 1 {
        return Err(Fatal::Memory.into());
    }
    if by_cli == 0 && MEM.iter().filter(|id| layers.by_env(id)).count() > 1 {
        return Err(Fatal::MemoryEnv.into());
    }
    if layers.by_cli("exclusive") && layers.by_cli("oversubscribe") {
        return Err(Fatal::ExclusiveOversubscribe.into());
    }
    let gres_has_gpu = a.gres.as_deref().is_some_and(|g| {
        g.split(',').any(|e| {
            e.trim_start_matches("gres/")
                .to_ascii_lowercase()
                .starts_with("gpu")
        })
    });
    if gres_has_gpu && a.gpus_per_node.is_some() {
        return Err(Fatal::GresGpusPerNode.into());
    }
    let both = |given: &dyn Fn(&str) -> bool| given("cpus_per_task") && given("cpus_per_gpu");
    if both(&|id| layers.by_cli(id)) || both(&|id| layers.by_env(id)) {
        return Err(Fatal::CpusPerTaskGpu.into());
    }
    Ok(())
}

/// A memory option: its id, its name, its text, and what it asks for.
type MemOption<'a> = (
    &'a str,
    &'static str,
    &'a Option<String>,
    fn(u64) -> MemSpec,
);

/// The memory request: the one given on the command line or in a
/// directive, else the one from the environment.
fn memory(a: &SbatchArgs, layers: &Layers) -> Result<MemSpec, SbatchError> {
    let kinds: [MemOption<'_>; 3] = [
        ("mem", "--mem", &a.mem, MemSpec::PerNode),
        (
            "mem_per_cpu",
            "--mem-per-cpu",
            &a.mem_per_cpu,
            MemSpec::PerCpu,
        ),
        (
            "mem_per_gpu",
            "--mem-per-gpu",
            &a.mem_per_gpu,
            MemSpec::PerGpu,
        ),
    ];
    let chosen = kinds
        .iter()
        .find(|k| layers.by_cli(k.0))
        .or_else(|| kinds.iter().find(|k| layers.by_env(k.0)));
    match chosen {
        Some((_, option, Some(text), make)) => Ok(make(value::memory(option, text)?)),
        _ => Ok(MemSpec::Default),
    }
}

/// A hostlist option's names: the expression, or the file it names.
fn hostnames(spec: &str) -> Result<Vec<String>, SbatchError> {
    let expr = if spec.contains('/') {
        read_hostfile(spec).ok_or(Fatal::NodeList)?
    } else {
        spec.to_string()
    };
    spur_conf::hostlist::expand(&expr).map_err(|_| Fatal::NodeList.into())
}

/// A host file: hostlists, one or more a line, `#` comments.
fn read_hostfile(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .collect();
    (!lines.is_empty()).then(|| lines.join(","))
}

/// Makes `path` absolute against `dir`, as Slurm's _fullpath does.
fn full_path(path: &str, dir: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{dir}/{path}")
    }
}

/// The job being built, and what was recorded on the way.
struct Builder {
    desc: JobDesc,
    unacted: Vec<String>,
    warnings: Vec<String>,
    /// -N was a list of sizes: its largest is the node count then.
    size_list: bool,
}

impl Builder {
    /// Records an option spur stores without acting on.
    /// The value is part of the warning: the option itself is acted on.
    fn store(&mut self, long: &str, value: &str) {
        let record = unacted::record(long, Some(value));
        self.warnings.push(format!(
            "sbatch: warning: {record} is accepted but not acted on yet"
        ));
        self.unacted.push(record);
    }

    fn identity(&mut self, a: &SbatchArgs, ctx: &Context<'_>) -> Result<(), SbatchError> {
        let d = &mut self.desc;
        d.name = Some(match (&a.job_name, &ctx.script_path) {
            (Some(name), _) => name.clone(),
            (None, _) if ctx.wrap => "wrap".to_string(),
            (None, Some(path)) => script::base_name(path).to_string(),
            (None, None) => "sbatch".to_string(),
        });
        d.account = a.account.clone();
        d.partitions = a
            .partition
            .iter()
            .flat_map(|p| spur_conf::comma_list(p))
            .collect();
        d.qos = a.qos.clone();
        d.comment = a.comment.clone();
        d.clusters = a.clusters.clone();
        // The controller reads --array and --dependency (sbatch passes them
        // on unchecked, as Slurm's does).
        d.array = a.array.clone();
        d.dependency = a.dependency.clone();
        d.kill_on_invalid_dep = a
            .kill_on_invalid_dep
            .as_deref()
            .map(value::kill_on_invalid_dep)
            .transpose()?;
        d.constraint = a.constraint.clone();
        d.hold = a.hold;
        d.nice = a.nice.as_deref().map(value::nice).transpose()?.unwrap_or(0);
        d.priority = a.priority.as_deref().map(value::priority).transpose()?;
        d.submit_host = ctx.hostname.clone();
        Ok(())
    }

    fn nodes(&mut self, a: &SbatchArgs) -> Result<(), SbatchError> {
        let nodelist = match &a.nodefile {
            Some(file) => Some(read_hostfile(file).ok_or(SbatchError::NodeFile)?),
            None => a.nodelist.clone(),
        };
        if let Some(list) = &nodelist {
            self.desc.required_nodes = hostnames(list)?;
        }
        if let Some(list) = &a.exclude {
            self.desc.excluded_nodes = hostnames(list)?;
        }
        match a.nodes.as_deref().map(value::node_count).transpose()? {
            Some(count) => {
                self.desc.min_nodes = Some(count.min);
                self.desc.max_nodes = count.max;
                if count.is_list {
                    self.size_list = true;
                    self.store("nodes", a.nodes.as_deref().unwrap_or_default());
                }
            }
            None if !self.desc.required_nodes.is_empty() => {
                let mut unique = self.desc.required_nodes.clone();
                unique.sort();
                unique.dedup();
                self.desc.min_nodes = u32::try_from(unique.len()).ok();
            }
            None => {}
        }
        Ok(())
    }

    fn tasks(&mut self, a: &SbatchArgs, layers: &Layers) -> Result<(), SbatchError> {
        let int = |option, text: &Option<String>| {
            text.as_deref()
                .map(|t| value::positive_int(option, t))
                .transpose()
        };
        let d = &mut self.desc;
        d.ntasks = int("--ntasks", &a.ntasks)?;
        d.ntasks_per_node = int("--ntasks-per-node", &a.ntasks_per_node)?;
        d.cpus_per_task = int("--cpus-per-task", &a.cpus_per_task)?;
        d.cpus_per_gpu = int("--cpus-per-gpu", &a.cpus_per_gpu)?;
        // The command line beats the environment between these two.
        if layers.by_cli("cpus_per_task") && layers.by_env("cpus_per_gpu") {
            d.cpus_per_gpu = None;
        } else if layers.by_cli("cpus_per_gpu") && layers.by_env("cpus_per_task") {
            d.cpus_per_task = None;
        }
        if let (Some(n), Some(min), true) = (d.ntasks, d.min_nodes, a.nodes.is_some()) {
            d.max_nodes = d.max_nodes.map(|max| max.min(n));
            if n < min {
                self.warnings.push(format!(
                    "sbatch: warning: can't run {n} processes on {min} nodes, setting nnodes to {n}"
                ));
                d.min_nodes = Some(n);
            }
        }
        Ok(())
    }

    fn gpus(&mut self, a: &SbatchArgs) -> Result<(), SbatchError> {
        let spec = |text: &Option<String>| text.as_deref().map(gpu_count).transpose();
        let per_job = spec(&a.gpus).map_err(gres_error)?;
        let per_node = match &a.gres {
            Some(list) => gres(list),
            None => spec(&a.gpus_per_node),
        }
        .map_err(gres_error)?;
        let per_task = spec(&a.gpus_per_task).map_err(gres_error)?;
        let gpus = GpuRequest::of(per_job, per_node, per_task).map_err(gres_error)?;
        let d = &mut self.desc;
        (d.gpu_type, d.gpus) = (gpus.gpu_type, gpus.per_job);
        (d.gpus_per_node, d.gpus_per_task) = (gpus.per_node, gpus.per_task);
        Ok(())
    }

    fn placement(&mut self, a: &SbatchArgs) -> Result<(), SbatchError> {
        if let Some(text) = &a.exclusive {
            self.desc.exclusive = match value::exclusive(text)? {
                Exclusive::Mode(mode) => mode,
                Exclusive::Mcs => {
                    self.store("exclusive", text);
                    ExclusiveMode::Node
                }
                Exclusive::Oversubscribe => {
                    self.store("exclusive", text);
                    ExclusiveMode::No
                }
            };
        }
        let segment = a.segment.as_deref().map(value::segment).transpose()?;
        self.desc.segment = segment.filter(|&s| s > 0);
        if let (Some(seg), Some(min), true) =
            (self.desc.segment, self.desc.min_nodes, a.nodes.is_some())
        {
            let nodes = self
                .desc
                .max_nodes
                .filter(|_| self.size_list)
                .unwrap_or(min);
            if nodes > seg && !nodes.is_multiple_of(seg) {
                return Err(Fatal::Segment {
                    segment: seg,
                    nodes,
                }
                .into());
            }
        }
        self.desc.segment_layout = if a.spread_segments {
            SegmentLayout::Spread
        } else if a.consolidate_segments {
            SegmentLayout::Consolidate
        } else {
            SegmentLayout::Default
        };
        self.desc.switches = a.switches.as_deref().map(value::switches).transpose()?;
        Ok(())
    }

    fn timing(&mut self, a: &SbatchArgs, now: i64) -> Result<(), SbatchError> {
        if let Some(text) = &a.time {
            match value::time("--time", text)? {
                TimeValue::Secs(s) => self.desc.time_limit = Some(s),
                TimeValue::Unlimited => {
                    self.desc.time_limit = None;
                    self.desc.time_unlimited = true;
                }
            }
        }
        if let Some(text) = &a.time_min {
            if let TimeValue::Secs(s) = value::time("--time-min", text)? {
                self.desc.time_min = Some(s);
            }
        }
        self.desc.begin = a
            .begin
            .as_deref()
            .map(|b| begin::parse_begin(b, now))
            .transpose()?;
        self.desc.deadline = a
            .deadline
            .as_deref()
            .map(|d| begin::parse_deadline(d, now))
            .transpose()?;
        if let (Some(b), Some(d)) = (self.desc.begin, self.desc.deadline) {
            if d < b {
                return Err(ValueError::BeginAfterDeadline.into());
            }
        }
        if let Some(text) = &a.signal {
            let (signal, reservation) = value::signal(text)?;
            self.desc.signal = Some(signal);
            if reservation {
                self.store("signal", text);
            }
        }
        if a.no_requeue {
            self.desc.requeue = Some(false);
        } else if let Some(text) = &a.requeue {
            if value::requeue(text)? {
                self.store("requeue", text);
            }
            self.desc.requeue = Some(true);
        }
        Ok(())
    }

    fn files(&mut self, a: &SbatchArgs, ctx: &Context<'_>) -> Result<(), SbatchError> {
        let d = &mut self.desc;
        d.work_dir = match &a.chdir {
            Some(dir) => full_path(dir, &ctx.cwd),
            None => ctx.cwd.clone(),
        };
        let full = |p: &Option<String>| p.as_deref().map(|p| full_path(p, &d.work_dir));
        (d.stdout, d.stderr, d.stdin) = (full(&a.output), full(&a.error), full(&a.input));
        d.script = Some(ctx.script.clone());
        d.command = ctx.script_path.as_deref().map(|p| full_path(p, &ctx.cwd));
        d.argv = ctx.argv.clone();
        if let Some(text) = &a.open_mode {
            d.open_mode = value::open_mode(text)?;
        }
        Ok(())
    }

    fn environment(&mut self, a: &SbatchArgs, ctx: &Context<'_>) -> Result<(), SbatchError> {
        let file = a.export_file.as_deref().map(read_export_file).transpose()?;
        // sbatch sets SLURM_JOB_DEPENDENCY in its own environment, and so
        // in the job's (_opt_verify).
        let mut process = ctx.env.to_vec();
        let mut set = |k: &str, v: &str, replace: bool| {
            if replace {
                process.retain(|(name, _)| name != k);
            } else if process.iter().any(|(name, _)| name == k) {
                return;
            }
            process.push((k.to_string(), v.to_string()));
        };
        // Also what sbatch's _opt_verify sets in its own environment.
        if let Some(dep) = &a.dependency {
            set("SLURM_JOB_DEPENDENCY", dep, true);
        }
        if a.open_mode.is_some() {
            let mode = match self.desc.open_mode {
                OpenMode::Append => "a",
                OpenMode::Truncate => "t",
            };
            set("SLURM_OPEN_MODE", mode, true);
        }
        if let Some(export) = a
            .export
            .as_deref()
            .filter(|e| !e.eq_ignore_ascii_case("ALL"))
        {
            set("SLURM_EXPORT_ENV", export, false);
        }
        self.desc.env = job_environment(ExportInput {
            process: &process,
            export: a.export.as_deref(),
            file: file.as_deref(),
            get_user_env: a.get_user_env.is_some(),
        });
        // The job runs, and writes its output files, with sbatch's umask.
        if !self.desc.env.iter().any(|(k, _)| k == "SLURM_UMASK") {
            let umask = spur_sys::umask();
            self.desc
                .env
                .push(("SLURM_UMASK".into(), format!("{umask:04o}")));
        }
        Ok(())
    }

    fn finish(mut self) -> Built {
        self.desc.unacted = self.unacted;
        Built {
            desc: self.desc,
            warnings: self.warnings,
        }
    }
}

/// A GPU request's error as sbatch words it.
fn gres_error(e: GresError) -> SbatchError {
    match e {
        GresError::Invalid => SbatchError::Gres,
        GresError::GpuTypes => SbatchError::GpuTypes,
    }
}

/// Reads `--export-file`: a file name, or a file descriptor number of 3 or
/// more.
fn read_export_file(spec: &str) -> Result<Env, SbatchError> {
    let fd_path = spec
        .parse::<u32>()
        .ok()
        .filter(|&fd| fd >= 3)
        .map(|fd| format!("/proc/self/fd/{fd}"))
        .filter(|p| std::path::Path::new(p).exists());
    let path = fd_path.as_deref().unwrap_or(spec);
    let bytes = std::fs::read(path).map_err(|_| SbatchError::ExportFile(spec.to_string()))?;
    Ok(export_file_entries(&bytes))
}
