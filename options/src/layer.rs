//! The three places options come from (the command line, the `SBATCH_*`
//! variables, the `#SBATCH` directives), each parsed by the same clap
//! command and merged by `ArgMatches::value_source`: command line over
//! environment over directives, as in Slurm. clap's errors become getopt's
//! words, which tools and users recognise.

use std::ffi::OsString;
use std::sync::Arc;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, Command};

use crate::args::{takes, Takes};
use crate::error::{GetoptProblem, SbatchError};

/// The input variables and the option each stands for (sbatch(1) INPUT
/// ENVIRONMENT VARIABLES, in Slurm's processing order: a later variable for
/// the same option wins). SBATCH_DEBUG and SBATCH_WAIT4SWITCH are special.
const ENV_OPTIONS: &[(&str, &str)] = &[
    ("SBATCH_IGNORE_PBS", "ignore-pbs"),
    ("SBATCH_ACCOUNT", "account"),
    ("SBATCH_ARRAY_INX", "array"),
    ("SBATCH_ACCTG_FREQ", "acctg-freq"),
    ("SBATCH_BATCH", "batch"),
    ("SBATCH_BURST_BUFFER", "bb"),
    ("SBATCH_CLUSTER_CONSTRAINT", "cluster-constraint"),
    ("SBATCH_CLUSTERS", "clusters"),
    ("SLURM_CLUSTERS", "clusters"),
    ("SBATCH_CONSOLIDATE_SEGMENTS", "consolidate-segments"),
    ("SBATCH_CONTAINER", "container"),
    ("SBATCH_CONTAINER_ID", "container-id"),
    ("SBATCH_RUNTIME", "runtime"),
    ("SBATCH_CONSTRAINT", "constraint"),
    ("SBATCH_CORE_SPEC", "core-spec"),
    ("SBATCH_CPU_FREQ_REQ", "cpu-freq"),
    ("SBATCH_CPUS_PER_GPU", "cpus-per-gpu"),
    ("SBATCH_DELAY_BOOT", "delay-boot"),
    ("SBATCH_DISTRIBUTION", "distribution"),
    ("SBATCH_EXCLUSIVE", "exclusive"),
    ("SBATCH_EXPORT", "export"),
    ("SBATCH_GET_USER_ENV", "get-user-env"),
    ("SBATCH_GRES", "gres"),
    ("SBATCH_GRES_FLAGS", "gres-flags"),
    ("SBATCH_GPUS", "gpus"),
    ("SBATCH_GPU_BIND", "gpu-bind"),
    ("SBATCH_GPU_FREQ", "gpu-freq"),
    ("SBATCH_GPUS_PER_NODE", "gpus-per-node"),
    ("SBATCH_GPUS_PER_SOCKET", "gpus-per-socket"),
    ("SBATCH_GPUS_PER_TASK", "gpus-per-task"),
    ("SLURM_HINT", "hint"),
    ("SBATCH_HINT", "hint"),
    ("SBATCH_JOB_NAME", "job-name"),
    ("SBATCH_MEM_BIND", "mem-bind"),
    ("SBATCH_MEM_PER_CPU", "mem-per-cpu"),
    ("SBATCH_MEM_PER_GPU", "mem-per-gpu"),
    ("SBATCH_MEM_PER_NODE", "mem"),
    ("SBATCH_NETWORK", "network"),
    ("SBATCH_NO_KILL", "no-kill"),
    ("SBATCH_NO_REQUEUE", "no-requeue"),
    ("SBATCH_OPEN_MODE", "open-mode"),
    ("SBATCH_OVERCOMMIT", "overcommit"),
    ("SBATCH_PARTITION", "partition"),
    ("SBATCH_POWER", "power"),
    ("SBATCH_PROFILE", "profile"),
    ("SBATCH_QOS", "qos"),
    ("SBATCH_REQ_SWITCH", "switches"),
    ("SBATCH_REQUEUE", "requeue"),
    ("SBATCH_RESERVATION", "reservation"),
    ("SBATCH_SEGMENT_SIZE", "segment"),
    ("SBATCH_SIGNAL", "signal"),
    ("SBATCH_SPREAD_JOB", "spread-job"),
    ("SBATCH_SPREAD_SEGMENTS", "spread-segments"),
    ("SBATCH_THREAD_SPEC", "thread-spec"),
    ("SBATCH_THREADS_PER_CORE", "threads-per-core"),
    ("SBATCH_TIMELIMIT", "time"),
    ("SBATCH_TRES_BIND", "tres-bind"),
    ("SBATCH_TRES_PER_TASK", "tres-per-task"),
    ("SBATCH_USE_MIN_NODES", "use-min-nodes"),
    ("SBATCH_WAIT", "wait"),
    ("SBATCH_WAIT_ALL_NODES", "wait-all-nodes"),
    ("SBATCH_WCKEY", "wckey"),
    ("SBATCH_ERROR", "error"),
    ("SBATCH_INPUT", "input"),
    ("SBATCH_OUTPUT", "output"),
];

/// The options of the three sources, each parsed on its own.
#[derive(Debug, Clone)]
pub struct Layers {
    /// `#SBATCH` lines.
    pub directives: Arc<ArgMatches>,
    /// `SBATCH_*` variables.
    pub env: Arc<ArgMatches>,
    /// The command line.
    pub cmdline: Arc<ArgMatches>,
}

/// Whether option `id` was given in `m` (not merely defaulted).
pub fn given(m: &ArgMatches, id: &str) -> bool {
    m.value_source(id) == Some(ValueSource::CommandLine)
}

impl Layers {
    /// Given on the command line or in a directive (Slurm's "set by cli":
    /// directives count as command line for its conflict checks).
    pub fn by_cli(&self, id: &str) -> bool {
        given(&self.cmdline, id) || given(&self.directives, id)
    }

    /// Given by an input variable.
    pub fn by_env(&self, id: &str) -> bool {
        given(&self.env, id)
    }

    /// One command line holding, for each option, the value of the source
    /// that wins it (command line > environment > directives). Options are
    /// written source by source from the weakest, so that pairs that
    /// override each other (`--requeue`/`--no-requeue`) end with the
    /// strongest source's choice.
    pub fn merged_words(&self, cmd: &Command) -> Vec<OsString> {
        let sources = [&self.directives, &self.env, &self.cmdline];
        // What each source gives, found once: the table holds hundreds of
        // options, a source gives a few.
        let given_by: Vec<Vec<&str>> = sources
            .iter()
            .map(|m| {
                m.ids()
                    .map(|id| id.as_str())
                    .filter(|id| given(m, id))
                    .collect()
            })
            .collect();
        let mut words = vec![OsString::from("sbatch")];
        for (rank, m) in sources.iter().enumerate() {
            if given_by[rank].is_empty() {
                continue;
            }
            for arg in cmd.get_arguments().filter(|a| !a.is_positional()) {
                let id = arg.get_id().as_str();
                let strongest = given_by.iter().rposition(|ids| ids.contains(&id));
                if strongest == Some(rank) {
                    words.extend(rewrite(arg, m).into_iter().map(OsString::from));
                }
            }
        }
        words
    }
}

/// Option `arg` as it was given in `m`, written `--long[=value]`.
pub fn rewrite(arg: &clap::Arg, m: &ArgMatches) -> Vec<String> {
    let id = arg.get_id().as_str();
    let long = arg.get_long().expect("every sbatch option has a long name");
    let last = || {
        m.get_raw(id)
            .and_then(|mut v| v.next_back())
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    match takes(arg) {
        Takes::Nothing if matches!(arg.get_action(), ArgAction::Count) => {
            vec![format!("--{long}"); usize::from(m.get_count(id))]
        }
        Takes::Nothing => vec![format!("--{long}")],
        Takes::Optional if last().is_empty() => vec![format!("--{long}")],
        Takes::Optional | Takes::Value => vec![format!("--{long}={}", last())],
    }
}

/// sbatch's option table and the parses a command makes with it: each in
/// place (a copy of the table per parse cost more than the parse), and the
/// parse of no options made once, for every source that gives none.
#[derive(Debug)]
pub struct Table {
    cmd: Command,
    none: Option<Arc<ArgMatches>>,
}

impl Table {
    /// The table of `cmd` (sbatch's [`command`](crate::args::command), or
    /// one made from it).
    pub fn new(cmd: Command) -> Table {
        Table { cmd, none: None }
    }

    /// The clap command.
    pub fn command(&self) -> &Command {
        &self.cmd
    }

    /// Parses `words` (the program name first), turning clap's refusals
    /// into getopt's.
    pub fn parse(&mut self, words: &[OsString]) -> Result<ArgMatches, SbatchError> {
        match self.cmd.try_get_matches_from_mut(words) {
            Ok(m) => Ok(m),
            Err(e) => Err(SbatchError::Getopt(getopt_problem(&self.cmd, &e, words))),
        }
    }

    /// The matches of a source that gives no options.
    pub fn none(&mut self) -> Result<Arc<ArgMatches>, SbatchError> {
        if let Some(none) = &self.none {
            return Ok(none.clone());
        }
        let name = OsString::from(self.cmd.get_name());
        let none = Arc::new(self.parse(&[name])?);
        self.none = Some(none.clone());
        Ok(none)
    }

    /// A source's words (the program name first), parsed.
    pub fn source(&mut self, words: &[OsString]) -> Result<Arc<ArgMatches>, SbatchError> {
        if words.len() <= 1 {
            return self.none();
        }
        self.parse(words).map(Arc::new)
    }

    /// Parses directive words; a word that is not an option is an invalid
    /// directive.
    pub fn directives(&mut self, words: &[String]) -> Result<Arc<ArgMatches>, SbatchError> {
        if words.is_empty() {
            return self.none();
        }
        let argv: Vec<OsString> = std::iter::once(self.cmd.get_name())
            .chain(words.iter().map(String::as_str))
            .map(OsString::from)
            .collect();
        let m = self.parse(&argv)?;
        if let Some(first) = m.get_raw("script").and_then(|mut v| v.next()) {
            let word = first.to_string_lossy().into_owned();
            return Err(SbatchError::InvalidDirective(word));
        }
        Ok(Arc::new(m))
    }

    /// The options of `layers` merged ([`Layers::merged_words`]), parsed.
    pub fn merge(&mut self, layers: &Layers) -> Result<ArgMatches, SbatchError> {
        let words = layers.merged_words(&self.cmd);
        self.parse(&words)
    }
}

/// The command line the input variables stand for.
pub fn env_words(cmd: &Command, env: &[(String, String)]) -> Vec<OsString> {
    let get = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let mut words = vec![OsString::from("sbatch")];
    if let Some(level) = get("SBATCH_DEBUG") {
        let n = level.trim().parse::<usize>().unwrap_or(1);
        words.extend(std::iter::repeat_n(OsString::from("--verbose"), n.min(10)));
    }
    for (var, long) in ENV_OPTIONS {
        let Some(mut value) = get(var).map(str::to_string) else {
            continue;
        };
        if *var == "SBATCH_REQ_SWITCH" {
            if let Some(wait) = get("SBATCH_WAIT4SWITCH") {
                value = format!("{value}@{wait}");
            }
        }
        let Some(arg) = cmd.get_arguments().find(|a| a.get_long() == Some(long)) else {
            continue;
        };
        let word = match takes(arg) {
            Takes::Nothing => format!("--{long}"),
            Takes::Optional if is_plain_switch(&value) => format!("--{long}"),
            Takes::Optional | Takes::Value => format!("--{long}={value}"),
        };
        words.push(OsString::from(word));
    }
    words
}

/// A variable set just to turn an option on (`SBATCH_EXCLUSIVE=1`).
fn is_plain_switch(value: &str) -> bool {
    ["", "1", "yes", "true", "y"]
        .iter()
        .any(|w| value.trim().eq_ignore_ascii_case(w))
}

/// What getopt would have said about the words clap refused.
fn getopt_problem(cmd: &Command, err: &clap::Error, words: &[OsString]) -> GetoptProblem {
    let invalid_arg = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    // "--time <time>" -> "--time"
    let flag = invalid_arg
        .split(' ')
        .next()
        .unwrap_or_default()
        .to_string();
    match err.kind() {
        ErrorKind::InvalidValue | ErrorKind::WrongNumberOfValues => {
            missing_value(cmd, &flag, words)
        }
        ErrorKind::TooManyValues | ErrorKind::NoEquals => {
            GetoptProblem::NoArgumentAllowed(flag.trim_start_matches('-').to_string())
        }
        _ => unknown(cmd, &flag, words),
    }
}

/// `--time` or `-t` given last, without its value.
fn missing_value(cmd: &Command, flag: &str, words: &[OsString]) -> GetoptProblem {
    let long = flag.trim_start_matches('-');
    let arg = cmd.get_arguments().find(|a| a.get_long() == Some(long));
    let last = words
        .last()
        .map(|w| w.to_string_lossy())
        .unwrap_or_default();
    match arg.and_then(|a| a.get_short()) {
        Some(short) if !last.starts_with("--") => GetoptProblem::MissingShort(short),
        _ => GetoptProblem::MissingLong(long.to_string()),
    }
}

/// An unknown short option, or a long one that is unknown or ambiguous.
fn unknown(cmd: &Command, flag: &str, words: &[OsString]) -> GetoptProblem {
    let Some(name) = flag.strip_prefix("--") else {
        let c = flag.trim_start_matches('-').chars().next().unwrap_or('?');
        return GetoptProblem::InvalidShort(c);
    };
    let as_given = words
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .find(|w| w == flag || w.starts_with(&format!("{flag}=")))
        .unwrap_or_else(|| flag.to_string());
    let mut candidates: Vec<String> = cmd
        .get_arguments()
        .flat_map(|a| a.get_long_and_visible_aliases().unwrap_or_default())
        .chain(
            cmd.get_arguments()
                .flat_map(|a| a.get_all_aliases().unwrap_or_default()),
        )
        .filter(|l| l.starts_with(name))
        .map(str::to_string)
        .collect();
    candidates.sort();
    candidates.dedup();
    if candidates.len() > 1 && !name.is_empty() {
        GetoptProblem::Ambiguous {
            given: as_given,
            candidates,
        }
    } else {
        GetoptProblem::UnrecognizedLong(as_given)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::command;

    fn strings(words: &[OsString]) -> Vec<String> {
        words
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn every_input_variable_names_an_option() {
        let cmd = command();
        for (var, long) in ENV_OPTIONS {
            let found = cmd.get_arguments().any(|a| a.get_long() == Some(long));
            assert!(found, "{var} -> --{long}");
        }
    }

    #[test]
    fn variables_become_options_by_kind() {
        let cmd = command();
        let env: Vec<(String, String)> = [
            ("SBATCH_DEBUG", "2"),
            ("SBATCH_WAIT", "0"),
            ("SBATCH_EXCLUSIVE", "1"),
            ("SBATCH_REQUEUE", "expedite"),
            ("SBATCH_TIMELIMIT", "-1"),
            ("SBATCH_REQ_SWITCH", "2"),
            ("SBATCH_WAIT4SWITCH", "10:00"),
            ("SLURM_HINT", "compute_bound"),
            ("SBATCH_HINT", "nomultithread"),
            ("UNRELATED", "x"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(
            strings(&env_words(&cmd, &env)),
            [
                "sbatch",
                "--verbose",
                "--verbose",
                "--exclusive",
                "--hint=compute_bound",
                "--hint=nomultithread",
                "--switches=2@10:00",
                "--requeue=expedite",
                "--time=-1",
                "--wait"
            ]
        );
        let m = Table::new(cmd.clone())
            .parse(&env_words(&cmd, &env))
            .unwrap();
        assert_eq!(
            m.get_one::<String>("hint").map(String::as_str),
            Some("nomultithread")
        );
    }

    #[test]
    fn merge_takes_each_option_from_its_strongest_source() {
        let mut table = Table::new(command());
        let words = |w: &[&str]| -> Vec<OsString> {
            std::iter::once("sbatch")
                .chain(w.iter().copied())
                .map(OsString::from)
                .collect()
        };
        let layers = Layers {
            directives: table
                .directives(&["-J".into(), "dir".into(), "-N2".into()])
                .unwrap(),
            env: table
                .source(&words(&["--job-name=env", "--partition=envp"]))
                .unwrap(),
            cmdline: table.source(&words(&["-J", "cli", "--wrap=x"])).unwrap(),
        };
        assert!(layers.by_cli("nodes") && !layers.by_env("nodes"));
        assert!(layers.by_env("partition") && !layers.by_cli("partition"));
        assert_eq!(
            strings(&layers.merged_words(table.command())),
            [
                "sbatch",
                "--nodes=2",
                "--partition=envp",
                "--job-name=cli",
                "--wrap=x"
            ]
        );
        let merged = table.merge(&layers).unwrap();
        assert_eq!(
            merged.get_one::<String>("job_name").map(String::as_str),
            Some("cli")
        );
    }

    #[test]
    fn sources_that_give_nothing_share_one_parse() {
        let mut table = Table::new(command());
        let a = table.source(&[OsString::from("sbatch")]).unwrap();
        let b = table.directives(&[]).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!given(&a, "job_name"));
        let c = table.directives(&["-J".into(), "x".into()]).unwrap();
        assert!(given(&c, "job_name") && !Arc::ptr_eq(&a, &c));
        assert!(matches!(
            table.directives(&["stray".into()]),
            Err(SbatchError::InvalidDirective(w)) if w == "stray"
        ));
    }
}
