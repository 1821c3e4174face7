//! Errors, warnings and source positions shared by every config file parser.
//! An error stops the parse and names the file, the 1-based line and the
//! problem (`slurm.conf:12: invalid value "abc" for CPUs`); a warning is
//! something spur handles (an unknown key, a value Slurm would reset).

use std::fmt;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::hostlist::HostlistError;

/// Where a config item was written: a file and its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Origin {
    /// The file as it was named to the parser (or resolved from `Include`).
    pub file: PathBuf,
    /// The 1-based line; a continued line reports its first line.
    pub line: usize,
}

impl Origin {
    pub(crate) fn new(file: impl Into<PathBuf>, line: usize) -> Self {
        Self {
            file: file.into(),
            line,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// Something a parser accepted but an operator should hear about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// The file the line is in.
    pub file: PathBuf,
    /// The 1-based line.
    pub line: usize,
    /// What was noticed, lowercase.
    pub message: String,
}

impl Warning {
    pub(crate) fn at(origin: &Origin, message: impl Into<String>) -> Self {
        Self {
            file: origin.file.clone(),
            line: origin.line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

/// A parsed value together with the warnings found on the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parsed<T> {
    /// The typed configuration.
    pub value: T,
    /// Accepted oddities, in file order.
    pub warnings: Vec<Warning>,
}

/// A config file that cannot be used.
#[non_exhaustive]
#[derive(Debug, Error)]
pub enum ConfError {
    /// The file itself could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A file named by an `Include` line could not be read.
    #[error("{origin}: cannot read included file {}", path.display())]
    IncludeRead {
        /// The `Include` line.
        origin: Origin,
        /// The resolved path of the included file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A problem at one place in a file.
    #[error("{origin}: {kind}")]
    At {
        /// Where.
        origin: Origin,
        /// What (boxed to keep `Result<_, ConfError>` small).
        kind: Box<ErrorKind>,
    },
    /// Validation found several problems; each is an [`ConfError::At`].
    #[error("{}", join_lines(errors))]
    Several {
        /// Every problem, in file order.
        errors: Vec<ConfError>,
    },
}

fn join_lines(errors: &[ConfError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

impl ConfError {
    pub(crate) fn at(origin: &Origin, kind: ErrorKind) -> Self {
        Self::At {
            origin: origin.clone(),
            kind: Box::new(kind),
        }
    }

    /// Collapses a list of validation errors: none, one, or several.
    pub(crate) fn from_list(mut errors: Vec<ConfError>) -> Result<(), ConfError> {
        match errors.len() {
            0 => Ok(()),
            1 => Err(errors.remove(0)),
            _ => Err(Self::Several { errors }),
        }
    }

    /// The problem, when this error is one problem at one place.
    pub fn kind(&self) -> Option<&ErrorKind> {
        match self {
            Self::At { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// Every `(origin, kind)` in this error, flattening [`ConfError::Several`].
    pub fn problems(&self) -> Vec<(&Origin, &ErrorKind)> {
        match self {
            Self::At { origin, kind } => vec![(origin, &**kind)],
            Self::Several { errors } => errors.iter().flat_map(Self::problems).collect(),
            Self::Read { .. } | Self::IncludeRead { .. } => Vec::new(),
        }
    }
}

/// What is wrong at one place of a config file.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    /// Text that is not `Key=Value`.
    #[error("cannot parse \"{text}\" (expected Key=Value)")]
    Syntax {
        /// The text left over.
        text: String,
    },
    /// A value that does not fit its key.
    #[error("invalid value \"{value}\" for {key}")]
    InvalidValue {
        /// The key as written.
        key: String,
        /// The value as written.
        value: String,
    },
    /// A hostlist that cannot be expanded.
    #[error("{key}: {error}")]
    InvalidHostlist {
        /// The key as written.
        key: String,
        /// Why the hostlist is bad.
        error: HostlistError,
    },
    /// A key that may not appear in this kind of line.
    #[error("{key} is not allowed with {context}")]
    NotAllowed {
        /// The key as written.
        key: String,
        /// Where it was found, e.g. `NodeName=DEFAULT`.
        context: String,
    },
    /// Two keys that exclude each other.
    #[error("{first} and {second} cannot be used together")]
    Conflict {
        /// One key.
        first: String,
        /// The other key.
        second: String,
    },
    /// A reserved word used as a name.
    #[error("\"{name}\" is a reserved word and cannot be used with {key}")]
    ReservedName {
        /// The key as written.
        key: String,
        /// The name.
        name: String,
    },
    /// A per-node list (NodeAddr, NodeHostname, Port) of the wrong length.
    #[error("{key} names {count} entries but NodeName names {nodes} (they must match, or {key} must name one)")]
    CountMismatch {
        /// The key as written.
        key: String,
        /// How many entries it has.
        count: usize,
        /// How many nodes the line defines.
        nodes: usize,
    },
    /// A node defined twice.
    #[error("node {node} is already defined at {first}")]
    DuplicateNode {
        /// The node.
        node: String,
        /// Where it was defined first.
        first: Origin,
    },
    /// A name defined twice (partition, switch, block, node set).
    #[error("{what} {name} is already defined at {first}")]
    DuplicateName {
        /// `partition`, `switch`, `block` or `node set`.
        what: &'static str,
        /// The name.
        name: String,
        /// Where it was defined first.
        first: Origin,
    },
    /// A reference to a node that slurm.conf does not define.
    #[error("{what} {name} names unknown node {node}")]
    UnknownNode {
        /// `partition`, `block`, ...
        what: &'static str,
        /// The referring item.
        name: String,
        /// The unknown node.
        node: String,
    },
    /// A switch naming a child switch that is not defined.
    #[error("switch {switch} names unknown switch {child}")]
    UnknownSwitch {
        /// The parent switch.
        switch: String,
        /// The missing child.
        child: String,
    },
    /// A switch that is its own ancestor.
    #[error("switch {switch} is part of a cycle")]
    SwitchCycle {
        /// One switch on the cycle.
        switch: String,
    },
    /// A node placed in two blocks.
    #[error("node {node} is in block {block} and already in block {first_block} ({first})")]
    NodeInTwoBlocks {
        /// The node.
        node: String,
        /// The block on this line.
        block: String,
        /// The block that holds it already.
        first_block: String,
        /// Where that block is defined.
        first: Origin,
    },
    /// A node under two leaf switches.
    #[error(
        "node {node} is under switch {switch} and already under switch {first_switch} ({first})"
    )]
    NodeUnderTwoSwitches {
        /// The node.
        node: String,
        /// The switch on this line.
        switch: String,
        /// The switch that holds it already.
        first_switch: String,
        /// Where that switch is defined.
        first: Origin,
    },
    /// topology.conf mixing topology/tree and topology/block lines.
    #[error("BlockName and SwitchName cannot be mixed in one topology.conf (first {first_key} at {first})")]
    MixedTopology {
        /// The key of the first topology line.
        first_key: String,
        /// Where it is.
        first: Origin,
    },
    /// A `BlockSizes` list that Slurm would refuse.
    #[error("invalid BlockSizes \"{value}\": {problem}")]
    BlockSizes {
        /// The value as written.
        value: String,
        /// Why.
        problem: BlockSizesProblem,
    },
    /// A record line without its name (`NodeName=` with nothing after it).
    #[error("{key} needs a name")]
    MissingName {
        /// The key as written.
        key: String,
    },
    /// `Include` nested too deeply or forming a cycle.
    #[error("include of {} nests too deeply or forms a cycle", path.display())]
    IncludeLoop {
        /// The file that would be included again.
        path: PathBuf,
    },
}

/// Why a `BlockSizes` list is refused.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockSizesProblem {
    /// A size that is not a positive number.
    NotANumber(String),
    /// A size that is not the base size times a power of two.
    NotPowerOfTwoMultiple {
        /// The size.
        size: u32,
        /// The planning base block size (the first entry).
        base: u32,
    },
    /// Sizes that do not grow.
    NotAscending {
        /// The size that is not larger than the one before it.
        size: u32,
    },
    /// More than 16 levels (Slurm's `MAX_BLOCK_LEVELS`).
    TooLarge {
        /// The size.
        size: u32,
    },
}

impl fmt::Display for BlockSizesProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotANumber(s) => write!(f, "\"{s}\" is not a positive number"),
            Self::NotPowerOfTwoMultiple { size, base } => write!(
                f,
                "{size} is not a power-of-two multiple of the base block size {base}"
            ),
            Self::NotAscending { size } => {
                write!(f, "{size} is not larger than the size before it")
            }
            Self::TooLarge { size } => {
                write!(f, "{size} is more than 2^15 times the base block size")
            }
        }
    }
}
