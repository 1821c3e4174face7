//! Everything that stops sbatch. Each error displays exactly what Slurm's
//! sbatch writes on stderr (prefixes included, one or more lines) and maps to
//! Slurm's exit code through [`SbatchError::exit_code`].

use std::fmt;

use spur_proto::ExitCode;

use spur_client::RequestError;

/// getopt's complaints about the words of a command line or a directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetoptProblem {
    /// `--bogus` (the word as given, `=value` included).
    UnrecognizedLong(String),
    /// `-j`.
    InvalidShort(char),
    /// `--no` matches several options.
    Ambiguous {
        /// The word as given.
        given: String,
        /// The long names it could mean.
        candidates: Vec<String>,
    },
    /// `--time` at the end of the line.
    MissingLong(String),
    /// `-t` at the end of the line.
    MissingShort(char),
    /// `--hold=yes`.
    NoArgumentAllowed(String),
}

impl fmt::Display for GetoptProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnrecognizedLong(word) => write!(f, "sbatch: unrecognized option '{word}'"),
            Self::InvalidShort(c) => write!(f, "sbatch: invalid option -- '{c}'"),
            Self::Ambiguous { given, candidates } => {
                write!(f, "sbatch: option '{given}' is ambiguous; possibilities:")?;
                candidates.iter().try_for_each(|c| write!(f, " '--{c}'"))
            }
            Self::MissingLong(name) => write!(f, "sbatch: option '--{name}' requires an argument"),
            Self::MissingShort(c) => write!(f, "sbatch: option requires an argument -- '{c}'"),
            Self::NoArgumentAllowed(name) => {
                write!(f, "sbatch: option '--{name}' doesn't allow an argument")
            }
        }?;
        write!(f, "\nTry \"sbatch --help\" for more information")
    }
}

/// An option value Slurm refuses while reading the options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueError {
    /// `Invalid --time specification` and the like (exit 255).
    Spec(&'static str),
    /// parse_int: `Invalid numeric value "x" for --ntasks.` (exit 1).
    NotNumeric {
        /// The option, e.g. `--ntasks`.
        option: &'static str,
        /// The text given.
        value: String,
    },
    /// parse_int: `Numeric argument (N) too large for --ntasks.` (exit 1).
    TooLarge {
        /// The option.
        option: &'static str,
        /// The number given.
        value: i64,
    },
    /// `"x" is not a valid node count` (exit 255).
    NodeCount(String),
    /// `Maximum node count 2 is less than minimum node count 4` (exit 255).
    NodeRange {
        /// The minimum.
        min: i64,
        /// The maximum.
        max: i64,
    },
    /// `--nice` beyond +/- 2147483645 (exit 255).
    NiceRange,
    /// A negative `--priority` (exit 255).
    PriorityNegative,
    /// A `--priority` of NO_VAL or more (exit 255).
    PriorityTooLarge,
    /// `--deadline` before `--begin` (exit 1).
    BeginAfterDeadline,
    /// A `--begin` or `--deadline` time parse_time cannot read: it prints
    /// where it stopped (no position when the text names no time at all).
    Time {
        /// The option (`--begin`).
        option: &'static str,
        /// The offset parse_time stopped at.
        pos: Option<usize>,
        /// The text given.
        text: String,
    },
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Spec(option) => write!(f, "sbatch: error: Invalid {option} specification"),
            Self::NotNumeric { option, value } => {
                write!(
                    f,
                    "sbatch: error: Invalid numeric value \"{value}\" for {option}."
                )
            }
            Self::TooLarge { option, value } => {
                write!(
                    f,
                    "sbatch: error: Numeric argument ({value}) too large for {option}."
                )
            }
            Self::NodeCount(text) => {
                write!(f, "sbatch: error: \"{text}\" is not a valid node count")
            }
            Self::NodeRange { min, max } => write!(
                f,
                "sbatch: error: Maximum node count {max} is less than minimum node count {min}"
            ),
            Self::NiceRange => write!(
                f,
                "sbatch: error: Invalid --nice value, out of range (+/- {})",
                spur_slurm::limits::NICE_LIMIT
            ),
            Self::PriorityNegative => write!(f, "sbatch: error: Priority must be >= 0"),
            Self::PriorityTooLarge => write!(f, "sbatch: error: Priority must be < 4294967294"),
            Self::BeginAfterDeadline => write!(
                f,
                "sbatch: error: Incompatible begin and deadline time specification"
            ),
            Self::Time { option, pos, text } => {
                if let Some(pos) = pos {
                    writeln!(f, "Invalid time specification (pos={pos}): {text}")?;
                }
                write!(f, "sbatch: error: Invalid {option} specification")
            }
        }
    }
}

impl ValueError {
    fn exit_code(&self) -> ExitCode {
        match self {
            Self::NotNumeric { .. } | Self::TooLarge { .. } | Self::BeginAfterDeadline => {
                ExitCode::Failure
            }
            _ => ExitCode::Usage,
        }
    }
}

/// Problems with the batch script itself (sbatch.c `_get_script_buffer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptProblem {
    /// The file could not be read.
    Unreadable(String),
    /// Zero bytes.
    Empty,
    /// Nothing but whitespace.
    Whitespace,
    /// No `#!` at the start.
    NoShebang,
    /// A NUL byte.
    NulCharacter,
    /// `\r\n` line ends.
    DosLineBreaks,
    /// Bytes that are not UTF-8: spur stores scripts as text.
    NotUtf8,
}

impl fmt::Display for ScriptProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const E: &str = "sbatch: error: ";
        match self {
            Self::Unreadable(path) => write!(f, "{E}Unable to open file {path}"),
            Self::Empty => write!(f, "{E}Batch script is empty!"),
            Self::Whitespace => write!(f, "{E}Batch script contains only whitespace!"),
            Self::NoShebang => write!(
                f,
                "{E}This does not look like a batch script.  The first\n\
                 {E}line must start with #! followed by the path to an interpreter.\n\
                 {E}For instance: #!/bin/sh"
            ),
            Self::NulCharacter => write!(
                f,
                "{E}The Slurm controller does not allow scripts that\n\
                 {E}contain a NULL character '\\0'."
            ),
            Self::DosLineBreaks => write!(
                f,
                "{E}Batch script contains DOS line breaks (\\r\\n)\n\
                 {E}instead of expected UNIX line breaks (\\n)."
            ),
            Self::NotUtf8 => write!(
                f,
                "{E}Batch script is not UTF-8 text, which spur cannot store yet"
            ),
        }
    }
}

/// What Slurm stops on with `fatal()` (exit 1): options that cannot go
/// together, and malformed node lists or directive lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fatal {
    /// Two of --mem, --mem-per-cpu, --mem-per-gpu given.
    Memory,
    /// Two of the SBATCH_MEM_* variables set.
    MemoryEnv,
    /// --exclusive with --oversubscribe.
    ExclusiveOversubscribe,
    /// --gpus-per-node with --gres=gpu.
    GresGpusPerNode,
    /// --cpus-per-task with --cpus-per-gpu.
    CpusPerTaskGpu,
    /// A node count that segments of this size cannot divide.
    Segment {
        /// --segment.
        segment: u32,
        /// The node count.
        nodes: u32,
    },
    /// A -w/-x hostlist that does not parse.
    NodeList,
    /// A directive word starting with `:` (a hetjob separator).
    UnexpectedColon {
        /// The script's file name (`stdin`).
        file: String,
        /// The line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A directive line with an unmatched quote.
    UnmatchedQuote {
        /// The script's file name (`stdin`).
        file: String,
        /// The line number.
        line: usize,
        /// The quote character.
        quote: char,
        /// The line.
        text: String,
    },
}

impl fmt::Display for Fatal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sbatch: fatal: ")?;
        match self {
            Self::Memory => write!(f, "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."),
            Self::MemoryEnv => write!(
                f,
                "SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive."
            ),
            Self::ExclusiveOversubscribe => {
                write!(f, "--exclusive and --oversubscribe options are mutually exclusive")
            }
            Self::GresGpusPerNode => write!(f, "--gpus-per-node and --gres=gpu are mutually exclusive."),
            Self::CpusPerTaskGpu => write!(
                f,
                "--cpus-per-task, --tres-per-task=cpu:#, and --cpus-per-gpu are mutually exclusive"
            ),
            Self::Segment { segment, nodes } => write!(
                f,
                "--segment={segment} does not fit the job size ({nodes}): node count must be evenly divisible by segment size"
            ),
            Self::NodeList => write!(f, "Invalid node list specified"),
            Self::UnexpectedColon { file, line, text } => {
                write!(f, "{file}: line {line}: Unexpected `:` in [{text}]")
            }
            Self::UnmatchedQuote { file, line, quote, text } => {
                write!(f, "{file}: line {line}: Unmatched `{quote}` in [{text}]")
            }
        }
    }
}

/// Why sbatch stopped.
#[derive(Debug)]
pub enum SbatchError {
    /// A word of the command line, a directive or a variable is not an
    /// option sbatch knows, or lacks its value.
    Getopt(GetoptProblem),
    /// An option's value is invalid.
    Value(ValueError),
    /// A `#SBATCH` line holds a word that is not an option.
    InvalidDirective(String),
    /// The batch script cannot be used.
    Script(ScriptProblem),
    /// `sbatch --wrap=cmd script`.
    ScriptArgsWithWrap,
    /// Options that cannot go together, or a malformed directive.
    Fatal(Fatal),
    /// -F names a file that holds no hostlist.
    NodeFile,
    /// A --gres/--gpus request that names something other than GPUs, or is
    /// malformed.
    Gres,
    /// GPU requests naming two different GPU types.
    GpuTypes,
    /// An option whose effect spur does not have yet and cannot ignore.
    NotSupported(&'static str),
    /// --export-file names a file that cannot be read.
    ExportFile(String),
    /// -M names a cluster this controller is not.
    Cluster(String),
    /// The controller refused the job or could not be reached; `detail` is
    /// the explanation Slurm's controller prints before the error.
    Submit {
        /// Lines printed before the error (`invalid partition specified: x`).
        detail: Option<String>,
        /// The failure.
        error: RequestError,
    },
    /// `--test-only` failed.
    WillRun(RequestError),
}

impl fmt::Display for SbatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const E: &str = "sbatch: error: ";
        match self {
            Self::Getopt(p) => write!(f, "{p}"),
            Self::Value(v) => write!(f, "{v}"),
            Self::InvalidDirective(word) => {
                write!(f, "{E}Invalid directive found in batch script: {word}")
            }
            Self::Script(p) => write!(f, "{p}"),
            Self::ScriptArgsWithWrap => {
                write!(f, "{E}Script arguments not permitted with --wrap option")
            }
            Self::Fatal(c) => write!(f, "{c}"),
            Self::NodeFile => write!(f, "{E}Invalid --nodefile node file"),
            Self::Gres => write!(f, "{E}Invalid generic resource (gres) specification"),
            Self::GpuTypes => write!(
                f,
                "{E}GPU requests naming more than one GPU type are not supported yet"
            ),
            Self::NotSupported(what) => write!(f, "{E}{what} is not supported yet"),
            Self::ExportFile(path) => write!(f, "{E}Could not open user environment file {path}"),
            Self::Cluster(name) => write!(
                f,
                "{E}'{name}' can't be reached now, or it is an invalid entry for --cluster.  \
                 Use 'sacctmgr list clusters' to see available clusters."
            ),
            Self::Submit { detail, error } => {
                if let Some(d) = detail {
                    writeln!(f, "{E}{d}")?;
                }
                write!(f, "{E}Batch job submission failed: {error}")
            }
            Self::WillRun(error) => write!(f, "allocation failure: {error}"),
        }
    }
}

impl From<ValueError> for SbatchError {
    fn from(e: ValueError) -> Self {
        SbatchError::Value(e)
    }
}

impl From<Fatal> for SbatchError {
    fn from(c: Fatal) -> Self {
        SbatchError::Fatal(c)
    }
}

impl From<ScriptProblem> for SbatchError {
    fn from(p: ScriptProblem) -> Self {
        SbatchError::Script(p)
    }
}

impl SbatchError {
    /// Slurm's exit code: 255 for what getopt and the option parsers
    /// refuse, 1 (SLURM_EXIT_ERROR) for the rest.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Getopt(_) | Self::InvalidDirective(_) | Self::NodeFile => ExitCode::Usage,
            Self::Value(v) => v.exit_code(),
            _ => ExitCode::Failure,
        }
    }
}
