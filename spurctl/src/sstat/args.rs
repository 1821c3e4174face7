//! sstat's command line (Slurm 22.05 `src/sstat/options.c`), parsed with
//! clap the way getopt_long reads it.

use clap::{ArgAction, Parser};

/// `sstat [OPTIONS] -j JOB[.STEP]`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "sstat",
    about = "Display the status information of a running job/step",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct SstatArgs {
    /// Every running step of a job named without a step.
    #[arg(short = 'a', long = "allsteps")]
    pub allsteps: bool,
    /// List the fields `--format` takes.
    #[arg(short = 'e', long = "helpformat")]
    pub helpformat: bool,
    /// Print the help text.
    #[arg(short = 'h', long = "help")]
    pub help: bool,
    /// Task pids per node (refused: spur's agents do not report pids).
    #[arg(short = 'i', long = "pidformat")]
    pub pidformat: bool,
    /// Jobs or steps: `J`, `J.S`, `J.batch`, `J_T`, comma separated.
    #[arg(short = 'j', long = "jobs", value_name = "JOB(.STEP)", action = ArgAction::Append)]
    pub jobs: Vec<String>,
    /// No header.
    #[arg(short = 'n', long = "noheader")]
    pub noheader: bool,
    /// Sizes as plain numbers.
    #[arg(long = "noconvert")]
    pub noconvert: bool,
    /// Fields to print (comma separated, `name%width`).
    #[arg(short = 'o', long = "format", alias = "fields", value_name = "FIELDS", action = ArgAction::Append)]
    pub format: Vec<String>,
    /// `|` after every field.
    #[arg(short = 'p', long = "parsable")]
    pub parsable: bool,
    /// `|` between fields.
    #[arg(short = 'P', long = "parsable2")]
    pub parsable2: bool,
    /// Print the short usage line.
    #[arg(long = "usage")]
    pub usage: bool,
    /// More detail on stderr.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// A job list after the options.
    #[arg(value_name = "JOB(.STEP)")]
    pub positional: Vec<String>,
}

/// `sstat --usage`.
pub const USAGE: &str = "Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n";

/// `sstat --help`.
pub const HELP: &str = concat!(
    "sstat [<OPTION>] -j <job(.stepid)>                                          \n",
    "    Valid <OPTION> values are:                                              \n",
    "      -a, --allsteps:                                                       \n",
    "                   Print all steps for the given job(s) when no step is     \n",
    "                   specified.                                               \n",
    "      -e, --helpformat:                                                     \n",
    "\t           Print a list of fields that can be specified with the    \n",
    "\t           '--format' option                                        \n",
    "     -h, --help:   Print this description of use.                           \n",
    "     -i, --pidformat:                                                       \n",
    "                   Predefined format to list the pids running for each      \n",
    "                   job step.  (JobId,Nodes,Pids)                            \n",
    "     -j, --jobs:                                                            \n",
    "\t           Format is <job(.step)>. Stat this job step               \n",
    "                   or comma-separated list of job steps. This option is     \n",
    "                   required.  The step portion will default to the lowest   \n",
    "                   numbered (not batch, extern, etc) step running if not    \n",
    "                   specified, unless the --allsteps flag is set where not   \n",
    "                   specifying a step will result in all running steps       \n",
    "                   to be displayed. A step id of 'batch' will display the   \n",
    "                   information about the batch step. A step id of 'extern'  \n",
    "                   will display the information about the extern step       \n",
    "                   when using PrologFlags=contain.                          \n",
    "     -n, --noheader:                                                        \n",
    "\t           No header will be added to the beginning of output.      \n",
    "                   The default is to print a header.                        \n",
    "     --noconvert:  Don't convert units from their original type             \n",
    "\t\t   (e.g. 2048M won't be converted to 2G).                   \n",
    "     -o, --format:                                                          \n",
    "\t           Comma separated list of fields. (use \"--helpformat\"    \n",
    "                   for a list of available fields).                         \n",
    "     -p, --parsable: output will be '|' delimited with a '|' at the end     \n",
    "     -P, --parsable2: output will be '|' delimited without a '|' at the end \n",
    "     --usage:      Display brief usage message.                             \n",
    "     -v, --verbose:                                                         \n",
    "\t           Primarily for debugging purposes, report the state of    \n",
    "                   various variables during processing.                     \n",
    "     -V, --version: Print version.                                          \n",
    "\n",
);
