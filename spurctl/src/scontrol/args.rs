//! scontrol's command line: the global options (clap), the command words
//! after them (getopt_long permutes, so `scontrol show job -d 5` works), and
//! Slurm's way of matching abbreviated keywords.

use clap::{ArgAction, Parser};

/// `scontrol [OPTIONS] [COMMAND]`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "scontrol",
    about = "view or change the state of jobs, nodes and partitions",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct ScontrolArgs {
    /// Show all partitions, hidden ones included.
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Cluster to ask (accepted; spur answers for its own cluster).
    #[arg(short = 'M', long = "clusters", alias = "cluster", value_name = "NAME")]
    pub clusters: Option<String>,
    /// More detail (`show job` adds the per-node allocation).
    #[arg(short = 'd', long = "details")]
    pub details: bool,
    /// Federation view (accepted).
    #[arg(long = "federation")]
    pub federation: bool,
    /// Show FUTURE nodes (accepted).
    #[arg(short = 'F', long = "future")]
    pub future: bool,
    /// Print the help text.
    #[arg(short = 'h', long = "help", alias = "usage")]
    pub help: bool,
    /// Hide hidden partitions and details.
    #[arg(long = "hide")]
    pub hide: bool,
    /// This cluster only (accepted).
    #[arg(long = "local")]
    pub local: bool,
    /// One line per record.
    #[arg(short = 'o', long = "oneliner")]
    pub oneliner: bool,
    /// No error messages.
    #[arg(short = 'Q', long = "quiet")]
    pub quiet: bool,
    /// Sibling jobs of a federation (accepted).
    #[arg(long = "sibling")]
    pub sibling: bool,
    /// Act as this user (operators only; accepted).
    #[arg(short = 'u', long = "uid", value_name = "UID")]
    pub uid: Option<String>,
    /// More messages.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// The command and its words (after `--`, see [`permute`]).
    pub command: Vec<String>,
}

/// Options that take a value as the next word.
const VALUE_SHORT: [char; 2] = ['M', 'u'];
const VALUE_LONG: [&str; 3] = ["--clusters", "--cluster", "--uid"];

/// Moves options ahead of the command words as GNU getopt does, so clap
/// sees `prog [options] -- words`. Option scanning stops at `--` and at a
/// `setdebugflags` command (its `-flag` words are not options).
pub fn permute(argv: &[String]) -> Vec<String> {
    let mut opts = Vec::new();
    let mut words = Vec::new();
    let mut iter = argv.iter().skip(1);
    while let Some(arg) = iter.next() {
        if arg == "--" {
            words.extend(iter.by_ref().cloned());
            break;
        }
        if words.is_empty() && arg.len() >= 8 && arg[..8].eq_ignore_ascii_case("setdebug") {
            words.push(arg.clone());
            words.extend(iter.by_ref().cloned());
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            words.push(arg.clone());
            continue;
        }
        opts.push(arg.clone());
        if takes_next(arg) {
            if let Some(v) = iter.next() {
                opts.push(v.clone());
            }
        }
    }
    let mut out = Vec::with_capacity(argv.len() + 1);
    out.push(
        argv.first()
            .cloned()
            .unwrap_or_else(|| "scontrol".to_string()),
    );
    out.extend(opts);
    out.push("--".to_string());
    out.extend(words);
    out
}

fn takes_next(arg: &str) -> bool {
    if let Some(long) = arg.strip_prefix("--") {
        // A unique prefix of --clusters or --uid without `=value` (`--u`
        // alone is ambiguous with --usage).
        let name = format!("--{long}");
        return !long.contains('=')
            && name != "--u"
            && VALUE_LONG.iter().any(|v| v.starts_with(name.as_str()));
    }
    // A short cluster such as `-vM`: the value follows when the letter
    // taking it ends the word.
    let letters: Vec<char> = arg[1..].chars().collect();
    match letters.iter().position(|c| VALUE_SHORT.contains(c)) {
        Some(at) => at + 1 == letters.len(),
        None => false,
    }
}

/// Slurm's `xstrncasecmp(tag, name, MAX(strlen(tag), min)) == 0`: `tag` is
/// an abbreviation of `name` at least `min` long (or all of it).
pub fn abbrev(tag: &str, name: &str, min: usize) -> bool {
    tag.len() >= min.min(name.len())
        && tag.len() <= name.len()
        && name.as_bytes()[..tag.len()].eq_ignore_ascii_case(tag.as_bytes())
}

/// `xstrncasecmp(tag, name, n) == 0` for a fixed `n`: the first `n`
/// characters match.
pub fn starts_with_ci(tag: &str, name: &str) -> bool {
    tag.len() >= name.len() && tag.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
}

/// Splits `Tag=value` (value None when there is no `=`).
pub fn tag_value(word: &str) -> (&str, Option<&str>) {
    match word.split_once('=') {
        Some((t, v)) => (t, Some(v)),
        None => (word, None),
    }
}

/// Splits a command line typed at the `scontrol:` prompt into words, with
/// quotes kept inside words as Slurm's `_get_command` keeps them.
pub fn split_line(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let (mut dq, mut sq) = (false, false);
    for c in line.chars() {
        match c {
            '"' if !sq => dq = !dq,
            '\'' if !dq => sq = !sq,
            c if c.is_whitespace() && !dq && !sq => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// `scontrol --help` (abridged to what spur acts on; the full command list
/// is in scontrol(1)).
pub const HELP: &str = "\
scontrol [<OPTION>] [<COMMAND>]
    Valid <OPTION> values are:
     -a or --all: equivalent to \"all\" command
     -d or --details: equivalent to \"details\" command
     -h or --help: equivalent to \"help\" command
     --hide: equivalent to \"hide\" command
     -M or --cluster: equivalent to \"cluster\" command
     -o or --oneliner: equivalent to \"oneliner\" command
     -Q or --quiet: equivalent to \"quiet\" command
     -v or --verbose: equivalent to \"verbose\" command
     -V or --version: equivalent to \"version\" command

  <keyword> may be omitted from the execute line and scontrol will execute
  in interactive mode. It will process commands as entered until explicitly
  terminated.

    Valid <COMMAND> values are:
     all                      display information about all partitions,
     details                  evaluate batch script, show job details
     exit                     terminate scontrol
     help                     print this description of use.
     hold <job_list>          prevent specified job from starting. <job_list>
                              is either a space separate list of job IDs or
                              job names
     hide                     do not display information about hidden
                              partitions or details
     oneliner                 report output one record per line.
     ping                     print status of slurmctld daemons.
     quiet                    print no messages other than error messages.
     quit                     terminate this command.
     reconfigure              re-read configuration files.
     release <job_list>       permit specified job to start (see hold)
     requeue <job_id>         re-queue a batch job
     show <ENTITY> [<ID>]     display state of identified entity, default
                              is all records.
     uhold <job_list>         place user hold on specified job (see hold)
     update <SPECIFICATIONS>  update job or node configuration.
     verbose                  enable detailed logging.
     version                  display tool version number.

  <ENTITY> may be \"config\", \"hostnames\", \"hostlist\", \"hostlistsorted\",
       \"job\", \"node\", \"partition\" or \"topology\".
";
