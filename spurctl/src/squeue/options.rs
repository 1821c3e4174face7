//! Turns squeue's parsed command line and its SQUEUE_* environment into a
//! [`Plan`]: the selection, the format, the sort keys and the switches,
//! with Slurm's precedence (command line over environment, `--start`
//! defaults, `-l`/`-o`/`-O` exclusions) and Slurm's error texts.

use super::args::SqueueArgs;
use super::filter::{self, Query, States};
use super::format::{self, Format, Item};
use super::sort::DEFAULT_SORT;

/// Everything squeue will do, decided before it talks to the controller.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Which rows.
    pub query: Query,
    /// How rows print.
    pub format: Format,
    /// Errors the format parse reports (Slurm goes on after them).
    pub format_errors: Vec<String>,
    /// `-S`.
    pub sort: String,
    /// Print the date line first (`-l`, `-i`, `-v`, unless `-h`).
    pub date_line: bool,
    /// `-i`: seconds between reports.
    pub iterate: Option<u64>,
    /// `--json` / `--yaml`.
    pub json: bool,
    /// `-s`: a step report.
    pub steps: bool,
    /// How the step report prints.
    pub step_format: super::step::StepFormat,
    /// `-s`'s list of steps, if one was given.
    pub step_list: Option<Vec<super::step::StepSel>>,
    /// A single `-j` id: an unknown one is an error, as slurm_load_job makes
    /// it.
    pub single_job: Option<u32>,
    /// `-w` as given, checked against the controller's node names.
    pub nodelist: Option<String>,
    /// `-v` count.
    pub verbose: u8,
    /// Warnings for options spur accepts but does not act on.
    pub warnings: Vec<String>,
}

/// Looks up an environment variable.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The warning printed once for an option spur stores but does not act on.
fn not_acted(option: &str) -> String {
    format!("squeue: warning: {option} is not supported by spur yet and is ignored")
}

impl Plan {
    /// Builds the plan; `Err` holds the stderr text of a fatal error
    /// (squeue exits 1).
    pub fn new(a: &SqueueArgs, env: Env) -> Result<Plan, String> {
        let mut plan = Plan {
            verbose: a.verbose,
            json: a.json.is_some() || a.yaml.is_some(),
            steps: a.steps.is_some(),
            ..Plan::default()
        };
        plan.warnings = warnings(a);
        plan.iterate = iterate(a.iterate.as_deref())?;
        let (jobs, steps) = positional(a)?;
        if let Some(list) = &jobs {
            let sels = filter::parse_jobs(list).map_err(|e| format!("squeue: error: {e}\n"))?;
            plan.single_job = match sels[..] {
                [one] => Some(one.job),
                _ => None,
            };
            plan.query.jobs = Some(sels);
        }
        if a.jobs.is_some() && steps.is_some() && jobs.is_none() {
            return Err("squeue: error: Incompatible options --jobs and --steps\n".into());
        }
        if let Some(list) = &steps {
            let sels =
                super::step::parse_steps(list).map_err(|e| format!("squeue: error: {e}\n"))?;
            plan.step_list = Some(sels);
        }
        plan.select(a, env)?;
        plan.layout(a, env)?;
        plan.date_line = !a.noheader && (a.long || plan.iterate.is_some() || a.verbose > 0);
        Ok(plan)
    }

    /// The selection options, then their SQUEUE_* defaults.
    fn select(&mut self, a: &SqueueArgs, env: Env) -> Result<(), String> {
        let q = &mut self.query;
        let list = |arg: &Option<String>, var: &str| {
            arg.clone()
                .or_else(|| env(var))
                .map(|s| filter::str_list(&s))
        };
        let accounts = a.accounts.clone().or_else(|| a.accounts_old.clone());
        q.accounts = list(&accounts, "SQUEUE_ACCOUNT");
        q.names = list(&a.name, "SQUEUE_NAMES");
        // Slurm reads SQUEUE_LICENSES only when no partition is given.
        let licenses = a.licenses.clone().or_else(|| match a.partitions {
            None => env("SQUEUE_LICENSES"),
            Some(_) => None,
        });
        q.licenses = licenses.map(|s| filter::str_list(&s));
        q.partitions = list(&a.partitions, "SQUEUE_PARTITION");
        q.qos = list(&a.qos, "SQUEUE_QOS");
        q.reservation = a.reservation.clone();
        q.per_partition = a.priority || env("SQUEUE_PRIORITY").is_some();
        let mut errors = String::new();
        let users = if a.me {
            Some(spur_sys::users::current_uid().to_string())
        } else {
            a.user.clone().or_else(|| env("SQUEUE_USERS"))
        };
        if let Some(users) = users {
            let (uids, bad) = filter::parse_users(&users);
            for line in bad {
                errors.push_str(&format!("squeue: error: {line}\n"));
            }
            q.users = Some(uids);
        }
        if a.notme {
            q.not_user = Some(spur_sys::users::current_uid());
        }
        let states = a.states.clone().or_else(|| env("SQUEUE_STATES"));
        let states = states.or_else(|| (a.start && !self.steps).then(|| "PD".to_string()));
        if let Some(states) = states {
            q.states = filter::parse_states(&states).map_err(|lines| {
                let mut text = errors.clone();
                for l in lines {
                    text.push_str(&format!("squeue: error: {l}\n"));
                }
                text
            })?;
        }
        self.nodelist = a.nodelist.clone();
        self.warnings
            .extend(errors.lines().filter(|l| !l.is_empty()).map(String::from));
        Ok(())
    }

    /// The format and the sort keys.
    fn layout(&mut self, a: &SqueueArgs, env: Env) -> Result<(), String> {
        if a.format.is_some() && a.format_long.is_some() {
            return Err("squeue: error: -O (--Format) is incompatible with -o (--format)\n".into());
        }
        if a.long && a.format.is_some() {
            return Err(
                "squeue: fatal: Options -o(--format) and -l(--long) are mutually \
                        exclusive. Please remove one and retry.\n"
                    .into(),
            );
        }
        let overridden =
            a.long || a.format.is_some() || a.format_long.is_some() || self.steps || a.start;
        let (mut fmt, mut fmt_long) = (a.format.clone(), a.format_long.clone());
        if !overridden {
            fmt = env("SQUEUE_FORMAT");
            fmt_long = fmt.is_none().then(|| env("SQUEUE_FORMAT2")).flatten();
        }
        let start = a.start && !self.steps;
        if start && fmt.is_none() {
            fmt = Some(format::START_FORMAT.to_string());
        }
        if self.steps {
            // The step report reads the same options with its own fields.
            let parsed = match (&a.format, &a.format_long) {
                (Some(f), _) => format::parse_codes(f),
                (None, Some(f)) => format::parse_names(f),
                (None, None) => format::parse_codes(format::STEP_FORMAT),
            };
            self.format_errors = parsed.errors;
            self.step_format = super::step::StepFormat {
                items: parsed.items,
                no_header: a.noheader,
                cluster: None,
            };
            return Ok(());
        }
        let parsed = match (fmt, fmt_long) {
            (Some(f), _) => format::parse_format(&f),
            (None, Some(f)) => format::parse_format_long(&f),
            (None, None) => format::parse_format(default_format(a)),
        };
        self.format_errors = parsed.errors;
        let env_flag = |v: &str| env(v).is_some();
        self.format = Format {
            items: parsed.items,
            no_header: a.noheader,
            expand_arrays: a.array || env_flag("SQUEUE_ARRAY"),
            no_convert: a.noconvert,
            cluster: None,
        };
        let sort = a.sort.clone().or_else(|| env("SQUEUE_SORT"));
        let sort = sort.or_else(|| start.then(|| "S".to_string()));
        self.sort = sort.unwrap_or_else(|| DEFAULT_SORT.to_string());
        Ok(())
    }

    /// Whether any column prints the cluster's name.
    pub fn wants_cluster(&self) -> bool {
        let step = super::step::StepField::Cluster;
        self.format
            .items
            .iter()
            .any(|i| matches!(i, Item::Field(s) if s.field == super::field::Field::Cluster))
            || self
                .step_format
                .items
                .iter()
                .any(|i| matches!(i, Item::Field(s) if s.field == step))
    }

    /// `-v`'s dump of the options, as Slurm prints it on stdout.
    pub fn options_dump(&self, a: &SqueueArgs) -> String {
        let show = |o: &Option<String>| o.clone().unwrap_or_else(|| "(null)".into());
        let tf = |b: bool| if b { "true" } else { "false" };
        let states = match &self.query.states {
            States::Active => a.states.clone(),
            _ => a.states.clone().or(Some("all".into())),
        };
        let lines = [
            format!("all         = {}", tf(a.all)),
            format!("array       = {}", tf(self.format.expand_arrays)),
            format!("federation  = {}", tf(a.federation)),
            format!("format      = {}", show(&a.format)),
            format!("iterate     = {}", self.iterate.unwrap_or(0)),
            format!("job_flag    = {}", u8::from(a.jobs.is_some())),
            format!("jobs        = {}", show(&a.jobs)),
            format!("licenses    = {}", show(&a.licenses)),
            format!("local       = {}", tf(a.local)),
            format!("names       = {}", show(&a.name)),
            format!("nodes       = {}", a.nodelist.clone().unwrap_or_default()),
            format!("partitions  = {}", show(&a.partitions)),
            format!("priority    = {}", tf(a.priority)),
            format!("reservation = {}", show(&a.reservation)),
            format!("sibling      = {}", tf(a.sibling)),
            format!("sort        = {}", self.sort),
            format!("start_flag  = {}", u8::from(a.start)),
            format!("states      = {}", show(&states)),
            format!("step_flag   = {}", u8::from(self.steps)),
            format!("steps       = {}", show(&a.steps)),
            format!("users       = {}", show(&a.user)),
            format!("verbose     = {}", a.verbose),
        ];
        let rule = "-----------------------------";
        format!("{rule}\n{}\n{rule}\n\n\n", lines.join("\n"))
    }
}

fn default_format(a: &SqueueArgs) -> &'static str {
    if a.long {
        format::LONG_FORMAT
    } else if a.only_job_state {
        format::ONLY_STATE_FORMAT
    } else {
        format::DEFAULT_FORMAT
    }
}

/// `-i`: a positive number of seconds (`atoi`).
fn iterate(text: Option<&str>) -> Result<Option<u64>, String> {
    let Some(text) = text else { return Ok(None) };
    match spur_slurm::number::strtol_or_zero(text).0 {
        n if n > 0 => Ok(Some(n as u64)),
        _ => Err(format!("squeue: error: --iterate={text}\n\n")),
    }
}

/// The job list and the step list, taking the argument after the options
/// as the list of `-j` or `-s` when they were given without one.
fn positional(a: &SqueueArgs) -> Result<(Option<String>, Option<String>), String> {
    let given = |o: &Option<String>| o.clone().filter(|s| !s.is_empty());
    let (mut jobs, mut steps) = (given(&a.jobs), given(&a.steps));
    let mut rest = a.rest.iter();
    if let Some(first) = rest.next() {
        if a.jobs.is_some() {
            jobs = Some(first.clone());
        } else if a.steps.is_some() {
            steps = Some(first.clone());
        } else {
            return Err(unrecognized(first));
        }
    }
    match rest.next() {
        Some(extra) => Err(unrecognized(extra)),
        None => Ok((jobs, steps)),
    }
}

fn unrecognized(arg: &str) -> String {
    format!(
        "squeue: error: Unrecognized option: {arg}\n{}",
        super::args::usage_text()
    )
}

/// The options squeue accepts and does not act on (its man page says so).
pub const NOT_ACTED: &[&str] = &[
    "clusters",
    "running-over",
    "running-under",
    "expand-patterns",
];

/// One warning per option spur does not act on.
fn warnings(a: &SqueueArgs) -> Vec<String> {
    let given = [
        a.clusters.is_some(),
        a.running_over.is_some(),
        a.running_under.is_some(),
        a.expand_patterns,
    ];
    let mut out: Vec<String> = NOT_ACTED
        .iter()
        .zip(given)
        .filter(|(_, given)| *given)
        .map(|(name, _)| not_acted(&format!("--{name}")))
        .collect();
    if a.yaml.is_some() {
        out.push("squeue: warning: --yaml prints JSON (a YAML subset) in spur".to_string());
    }
    out
}
