//! What a sacct command line asks for, resolved as Slurm's sacct resolves
//! it: the job list (`-j N`, `N_i`, `N.step`), states, users (only the
//! caller's jobs unless root, `-a`, `-u` or `-j`), the time window with its
//! defaults (midnight, Epoch 0 with `-j`, now with `-s`), the output fields
//! and widths, and the filters applied to what the controller returns.
//! Errors carry Slurm's text. Pure: the clock and the caller are arguments.

use spur_proto::{AcctState, HistoryQuery, JobSelector};

use super::args::SacctArgs;
use super::format::{parse_fields, FieldsError, Layout, Parsable};
pub use super::select::Filters;
use super::select::{self, Selection};

/// sacct's default fields.
const DEFAULT_FIELDS: &str = "jobid,jobname,partition,account,alloccpus,state,exitcode";
/// `-b`.
const BRIEF_FIELDS: &str = "jobid,state,exitcode";
/// `-l`.
const LONG_FIELDS: &str = "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,\
maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,\
avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,\
reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,\
maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,\
alloctres,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,\
tresusageinminn,tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,\
tresusageoutmaxt,tresusageoutave,tresusageouttot";

/// States Slurm knows but does not account: `-s` refuses them.
const UNACCOUNTED: &[(&str, &str)] = &[
    ("COMPLETING", "CG"),
    ("CONFIGURING", "CF"),
    ("RESV_DEL_HOLD", "RD"),
    ("REQUEUE_FED", "RF"),
    ("REQUEUE_HOLD", "RH"),
    ("SIGNALING", "SI"),
    ("SPECIAL_EXIT", "SE"),
    ("STAGE_OUT", "SO"),
    ("STOPPED", "ST"),
];

/// Everything a sacct run needs after its command line.
#[derive(Debug, Clone)]
pub struct Plan {
    /// What to ask the controller.
    pub query: HistoryQuery,
    /// `-X`.
    pub no_steps: bool,
    /// `--array`.
    pub expand_arrays: bool,
    /// `--json`.
    pub json: bool,
    /// The columns and print mode.
    pub layout: Layout,
    /// Client-side filters.
    pub filters: Filters,
    /// `--noconvert`.
    pub noconvert: bool,
    /// `-T`.
    pub truncate: bool,
    /// `-M`: the clusters asked for (None: this one).
    pub clusters: Option<Vec<String>>,
    /// Warnings to print first.
    pub warnings: Vec<String>,
    /// `-v`: the line describing the window.
    pub verbose_line: Option<String>,
}

fn fatal(text: impl std::fmt::Display) -> String {
    format!("sacct: fatal: {text}\n")
}

fn error(text: impl std::fmt::Display) -> String {
    format!("sacct: error: {text}\n")
}

fn fields_error(e: &FieldsError) -> String {
    if e.is_fatal() {
        fatal(e)
    } else {
        error(e)
    }
}

/// Slurm's list splitting: commas separate, empty items are skipped, and a
/// list may be quoted.
fn items(list: &str) -> Vec<String> {
    let list = list
        .strip_prefix(['"', '\''])
        .map_or(list, |rest| rest.split(['"', '\'']).next().unwrap_or(rest));
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// `-j`: `N`, `N_i`, `N.step`, `N_i.step`, as `slurm_parse_step_str` reads
/// them, each once.
pub fn parse_jobs(lists: &[String]) -> Result<Vec<JobSelector>, String> {
    let mut out: Vec<JobSelector> = Vec::new();
    for item in lists.iter().flat_map(|l| items(l)) {
        let sel = spur_slurm::step_ref::parse_step_str(&item).map_err(fatal)?;
        if !out.contains(&sel) {
            out.push(sel);
        }
    }
    Ok(out)
}

/// `-s`: state names or codes, any case.
pub fn parse_states(lists: &[String]) -> Result<Vec<AcctState>, String> {
    let mut out = Vec::new();
    for name in lists.iter().flat_map(|l| items(l)) {
        match AcctState::parse(&name) {
            Some(s) if !out.contains(&s) => out.push(s),
            Some(_) => {}
            None if UNACCOUNTED.iter().any(|(long, short)| {
                long.eq_ignore_ascii_case(&name) || short.eq_ignore_ascii_case(&name)
            }) =>
            {
                return Err(fatal(format!(
                    "job state {name} is not supported / accounted"
                )))
            }
            None => return Err(fatal(format!("unrecognized job state value '{name}'"))),
        }
    }
    Ok(out)
}

/// `-S`/`-E` as Unix seconds (0: not given), or Slurm's error.
fn parse_when(text: Option<&str>, now: i64) -> Result<u64, String> {
    let Some(text) = text else { return Ok(0) };
    match spur_slurm::parse_time::parse_past(text, now) {
        Ok(t) => Ok(t.map_or(0, |t| t.max(0) as u64)),
        Err(pos) => Err(format!("Invalid time specification (pos={pos}): {text}\n")),
    }
}

/// `min[-max]` of -i and -I.
fn range(text: &str, what: &str, flag: char) -> Result<(u32, u32), String> {
    let bad = || error(format!("invalid {what} range -{flag} '{text}'"));
    let (lo, hi) = match text.split_once('-') {
        Some((lo, hi)) => (lo, Some(hi)),
        None => (text, None),
    };
    let lo: u32 = lo.parse().map_err(|_| bad())?;
    let hi = match hi {
        Some(h) => h.parse().map_err(|_| bad())?,
        None => lo,
    };
    Ok((lo, hi))
}

/// A time limit of -k/-K in minutes (Slurm's time_str2mins).
fn limit_minutes(text: &str) -> Result<u64, String> {
    match spur_conf::parse_time_minutes(text) {
        Ok(Some(m)) if m > 0 => Ok(m),
        Ok(None) => Ok(u64::MAX),
        _ => Err(fatal("Invalid time limit specification")),
    }
}

/// The options sacct accepts and does not act on (its man page says so).
/// `--duplicates`: a requeued job's earlier runs are not kept apart.
pub const NOT_ACTED: &[&str] = &[
    "batch-script",
    "env-vars",
    "completion",
    "file",
    "flags",
    "wckeys",
    "associations",
    "units",
    "duplicates",
];

impl Plan {
    /// What picks the records to show.
    pub fn selection(&self) -> Selection<'_> {
        Selection {
            jobs: &self.query.jobs,
            filters: &self.filters,
            no_steps: self.no_steps,
            expand_arrays: self.expand_arrays,
        }
    }

    /// Resolves `a` for the user `uid` at `now` (Unix seconds); `env`
    /// reads SACCT_FORMAT. Errors are the text sacct prints before it
    /// exits 1.
    pub fn new(
        a: &SacctArgs,
        env: &dyn Fn(&str) -> Option<String>,
        now: i64,
        uid: u32,
    ) -> Result<Plan, String> {
        let jobs = parse_jobs(&a.jobs)?;
        let states = parse_states(&a.state)?;
        let mut warnings = Vec::new();
        let start = parse_when(a.starttime.as_deref(), now)?;
        let end = parse_when(a.endtime.as_deref(), now)?;
        let mut uids = resolve_users(a, uid, !jobs.is_empty())?;
        if a.json.is_some() && a.user.is_empty() && !a.me {
            // Slurm's --json asks for every user's jobs.
            uids.clear();
        }
        if a.long && !a.format.is_empty() {
            return Err(fatal(
                "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.",
            ));
        }
        if a.yaml.is_some() {
            return Err(fatal("--yaml is not supported by spur; use --json"));
        }
        let (start, end) = select::window(start, end, !states.is_empty(), !jobs.is_empty(), now);
        if start > end {
            return Err(error(format!(
                "Start time ({}) requested is after end time ({}).",
                spur_slurm::time::timestamp(start),
                spur_slurm::time::timestamp(end)
            )));
        }
        let verbose_line = (a.verbose > 0).then(|| {
            let what = if states.is_empty() {
                "Eligible".to_string()
            } else {
                states
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let from = if start == 0 {
                "Epoch 0".to_string()
            } else {
                spur_slurm::time::ctime(start)
            };
            format!(
                "sacct: Jobs {what} in the time window from {from} to {}",
                spur_slurm::time::ctime(end)
            )
        });
        let layout = Layout {
            columns: parse_fields(&field_spec(a, env)).map_err(|e| fields_error(&e))?,
            parsable: if a.parsable2 {
                Parsable::NoEnding
            } else if a.parsable {
                Parsable::Ending
            } else {
                Parsable::No
            },
            delimiter: a.delimiter.clone(),
            header: !a.noheader,
        };
        if !a.rest.is_empty() {
            let mut text = error("Unknown arguments:");
            for arg in &a.rest {
                text.push_str(&error(format!(" {arg}")));
            }
            return Err(text);
        }
        let given = [
            a.batch_script,
            a.env_vars,
            a.completion,
            a.file.is_some(),
            a.flags.is_some(),
            a.wckeys.is_some(),
            a.associations.is_some(),
            a.units.is_some(),
            a.duplicates,
        ];
        for (name, _) in NOT_ACTED.iter().zip(given).filter(|(_, on)| *on) {
            warnings.push(format!(
                "sacct: warning: --{name} is not supported by spur; ignored"
            ));
        }
        let filters = filters(a)?;
        let clusters = (!a.allclusters)
            .then(|| a.clusters.as_deref().map(items))
            .flatten()
            .filter(|c| !c.iter().any(|c| c.eq_ignore_ascii_case("all") || c == "-1"));
        Ok(Plan {
            query: HistoryQuery {
                jobs,
                uids,
                states,
                start: (start != 0).then_some(start),
                end: Some(end),
                names: a.name.iter().flat_map(|n| items(n)).collect(),
                partitions: a.partition.iter().flat_map(|p| items(p)).collect(),
                steps: !(a.allocations || a.allocations_old),
            },
            no_steps: a.allocations || a.allocations_old,
            expand_arrays: a.array,
            json: a.json.is_some(),
            layout,
            filters,
            noconvert: a.noconvert,
            truncate: a.truncate,
            clusters,
            warnings,
            verbose_line,
        })
    }
}

/// The field list: `-b`, `-l`, `-o` (each one added), else SACCT_FORMAT,
/// else the default.
fn field_spec(a: &SacctArgs, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut spec = String::new();
    for list in &a.format {
        spec.push_str(list);
        spec.push(',');
    }
    if a.brief {
        spec.push_str(BRIEF_FIELDS);
        spec.push(',');
    }
    if a.long {
        spec.push_str(LONG_FIELDS);
        spec.push(',');
    }
    if spec.is_empty() {
        spec = env("SACCT_FORMAT").unwrap_or_else(|| DEFAULT_FIELDS.to_string());
        spec.push(',');
    }
    spec
}

/// Whose jobs: `-u` (names or uids; `-1` is everyone), `--me`, `-a`;
/// without them, everyone's for root or with `-j`/`-N`, else the caller's.
fn resolve_users(a: &SacctArgs, uid: u32, jobs_given: bool) -> Result<Vec<u32>, String> {
    let mut all = a.allusers;
    let mut uids = Vec::new();
    for name in a.user.iter().flat_map(|u| items(u)) {
        if name == "-1" {
            all = true;
            continue;
        }
        let id = spur_sys::users::uid_of(&name)
            .ok_or_else(|| error(format!("Invalid user id: {name}")))?;
        if !uids.contains(&id) {
            uids.push(id);
        }
    }
    if a.me && !uids.contains(&uid) {
        uids.push(uid);
    }
    if !uids.is_empty() && !a.allusers_last {
        return Ok(uids);
    }
    if all || uids.is_empty() && (jobs_given || a.nodelist.is_some() || uid == 0) {
        return Ok(Vec::new());
    }
    Ok(if uids.is_empty() { vec![uid] } else { uids })
}

fn filters(a: &SacctArgs) -> Result<Filters, String> {
    let gids = a
        .gid
        .iter()
        .flat_map(|g| items(g))
        .map(|g| spur_sys::users::gid_of(&g).ok_or_else(|| error(format!("Invalid group id: {g}"))))
        .collect::<Result<Vec<u32>, String>>()?;
    let nodes = match &a.nodelist {
        Some(list) => spur_conf::hostlist::expand(list)
            .map_err(|_| error(format!("Invalid node list '{list}'")))?,
        None => Vec::new(),
    };
    let timelimit = match &a.timelimit_min {
        Some(min) => {
            let lo = limit_minutes(min)?;
            let hi = match &a.timelimit_max {
                Some(max) => limit_minutes(max)?,
                None => lo,
            };
            Some((lo, hi))
        }
        None => None,
    };
    Ok(Filters {
        accounts: a.accounts.iter().flat_map(|x| items(x)).collect(),
        gids,
        qos: a.qos.as_deref().map(items).unwrap_or_default(),
        nodes,
        nnodes: a
            .nnodes
            .as_deref()
            .map(|t| range(t, "node", 'i'))
            .transpose()?,
        ncpus: a
            .ncpus
            .as_deref()
            .map(|t| range(t, "cpu", 'i'))
            .transpose()?,
        timelimit,
        constraints: a.constraints.iter().flat_map(|x| items(x)).collect(),
        reasons: a.reason.iter().flat_map(|x| items(x)).collect(),
    })
}
