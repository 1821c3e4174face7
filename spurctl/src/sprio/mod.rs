//! `sprio`: the terms of pending jobs' multifactor priority (Slurm 22.05
//! `src/sprio/`). The command line, its checks and the round trip live
//! here; the report is spur-report's.

pub mod args;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use spur_proto::PriorityQuery;
use spur_report::sprio::{default_format, render, Format, Options};

use self::args::SprioArgs;
use crate::controller::{Api, Live};

/// The options sprio accepts and does not act on: spur answers for its
/// own cluster, which is in no federation.
pub const NOT_ACTED: &[&str] = &["cluster", "federation"];

/// What the command line asks, checked: the controller's query, and how
/// to print the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The jobs, users and partitions asked for.
    pub query: PriorityQuery,
    /// A job list was given (an empty answer is then reported).
    pub jobs_named: bool,
    /// `-o`, else `SPRIO_FORMAT` (None: the default for the weights).
    pub format: Option<String>,
    /// `-S`, else sprio's default, by job id.
    pub sort: String,
    /// Complaints that do not stop sprio (users it does not know).
    pub errors: Vec<String>,
}

/// Reads the command line as sprio's parse_command_line does; `env` gives
/// the environment and `uid_of`/`job_id` turn names and ids into numbers.
/// Err: what sprio prints on stderr before it exits 1.
pub fn plan(
    a: &SprioArgs,
    env: &dyn Fn(&str) -> Option<String>,
    uid_of: &dyn Fn(&str) -> Option<u32>,
    job_id: &mut dyn FnMut(&str) -> Option<u32>,
) -> Result<Plan, String> {
    if a.long && a.format.is_some() {
        return Err(
            "sprio: fatal: Options -o(--format) and -l(--long) are mutually \
                    exclusive. Please remove one and retry.\n"
                .to_string(),
        );
    }
    let mut rest = a.rest.iter();
    let mut jobs = a.jobs.clone().filter(|j| !j.is_empty());
    if a.jobs.is_some() {
        if let Some(list) = rest.next() {
            jobs = Some(list.clone());
        }
    }
    if let Some(word) = rest.next() {
        return Err(format!(
            "sprio: error: Unrecognized option: {word}\n{}",
            args::USAGE
        ));
    }
    let mut query = PriorityQuery::default();
    for item in jobs
        .iter()
        .flat_map(|j| j.split(','))
        .filter(|i| !i.is_empty())
    {
        match job_id(item) {
            Some(id) if id > 0 => query.jobs.push(id),
            _ => return Err(format!("sprio: error: Invalid job id: {item}\n")),
        }
    }
    let mut errors = Vec::new();
    // Users named and none known: no job is listed, as in Slurm.
    query.users = a.user.as_ref().map(|_| Vec::new());
    for name in a.user.iter().flat_map(|u| spur_conf::comma_list(u)) {
        match uid_of(&name) {
            Some(uid) => query.users.get_or_insert_with(Vec::new).push(uid),
            // Slurm's message ends in a newline of its own.
            None => errors.push(format!("sprio: error: Invalid user: {name}\n\n")),
        }
    }
    query.partitions = a.partition.as_ref().map(|p| spur_conf::comma_list(p));
    let format = match (&a.format, a.long) {
        (Some(f), _) => Some(f.clone()),
        (None, true) => None,
        (None, false) => env("SPRIO_FORMAT"),
    };
    Ok(Plan {
        query,
        jobs_named: jobs.is_some(),
        format,
        sort: a.sort.clone().unwrap_or_else(|| "i".to_string()),
        errors,
    })
}

/// `-v`'s dump of the options, as sprio prints it.
fn options_dump(a: &SprioArgs, plan: &Plan) -> String {
    let or_null = |v: Option<&str>| v.unwrap_or("(null)").to_string();
    let jobs = (!plan.query.jobs.is_empty()).then(|| {
        let ids: Vec<String> = plan.query.jobs.iter().map(u32::to_string).collect();
        ids.join(",")
    });
    let mut out = format!(
        "-----------------------------\n\
         format     = {}\n\
         job_flag   = {}\n\
         jobs       = {}\n\
         partition  = {}\n\
         users      = {}\n\
         verbose    = {}\n",
        or_null(plan.format.as_deref()),
        u8::from(a.jobs.is_some()),
        or_null(jobs.as_deref()),
        or_null(a.partition.as_deref()),
        or_null(a.user.as_deref()),
        a.verbose
    );
    if a.verbose > 1 {
        for (i, id) in plan.query.jobs.iter().enumerate() {
            out.push_str(&format!("job_list[{i}] = {id}\n"));
        }
        for (i, uid) in plan.query.users.iter().flatten().enumerate() {
            out.push_str(&format!("user_list[{i}] = {uid}\n"));
        }
    }
    out.push_str("-----------------------------\n\n\n");
    out
}

/// Runs `sprio`.
pub fn run(argv: Vec<OsString>) -> ExitCode {
    let last = argv.last().cloned().unwrap_or_default();
    let a = match SprioArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            eprint!("{}", crate::getopt::error("sprio", &e, &last));
            return ExitCode::from(1);
        }
    };
    if a.help {
        print!("{}", args::HELP);
        return ExitCode::SUCCESS;
    }
    if a.usage {
        print!("{}", args::USAGE);
        return ExitCode::SUCCESS;
    }
    if a.version {
        println!("slurm {}", spur_proto::SLURM_COMPAT_VERSION);
        return ExitCode::SUCCESS;
    }
    if a.cluster.is_some() {
        eprintln!("sprio: warning: --cluster is not supported by spur; asking this cluster");
    }
    let env = |name: &str| std::env::var(name).ok();
    let mut job_id = |text: &str| Live.xlate_job_id(text);
    let plan = match plan(&a, &env, &spur_sys::users::uid_of, &mut job_id) {
        Ok(plan) => plan,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    for e in &plan.errors {
        eprint!("{e}");
    }
    if a.verbose > 0 {
        print!("{}", options_dump(&a, &plan));
    }
    let answer = match Live.priorities(plan.query.clone()) {
        Ok(answer) => answer,
        Err(e) => {
            eprintln!("Couldn't get priority factors from controller: {e}");
            return ExitCode::from(255);
        }
    };
    let Some(weights) = answer.weights else {
        eprint!(
            "You are not running a supported priority plugin\n(priority/basic).\n\
             Only 'priority/multifactor' is supported.\n"
        );
        return ExitCode::from(1);
    };
    let cluster_column = a.sibling && !a.local;
    let text = plan.format.clone().unwrap_or_else(|| {
        default_format(a.norm, a.long, cluster_column, a.user.is_some(), &weights)
    });
    let format = Format::parse(&text);
    for e in &format.errors {
        eprintln!("sprio: error: {e}");
    }
    if plan.jobs_named && answer.jobs.is_empty() {
        println!("Unable to find jobs matching user/id(s) specified");
        return ExitCode::SUCCESS;
    }
    let cluster = if format.shows('c') {
        crate::controller::cluster_name().unwrap_or_default()
    } else {
        String::new()
    };
    let options = Options {
        format: &format,
        sort: &plan.sort,
        no_header: a.noheader,
        weights: a.weights,
        cluster: &cluster,
    };
    let done = render(&answer, &weights, &options, &spur_sys::users::name_of);
    print!("{}", done.out);
    eprint!("{}", done.err);
    if done.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
