//! getopt_long's ways, as Slurm's commands parse with it: how an option
//! takes its value, and what a command prints when clap rejects its
//! command line (getopt's text, then Slurm's `Try "cmd --help"` line;
//! sbatch's errors carry more, directives and environment, in their own
//! type).

use std::ffi::OsStr;

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The text getopt_long prints for a command line error, followed by the
/// hint Slurm's commands add (`Try "cmd --help" for more information`).
/// `last` is the last argument given: an option missing its value is it.
pub fn error(cmd: &str, err: &clap::Error, last: &OsStr) -> String {
    let last = last.to_string_lossy();
    let arg = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    // clap names an option as `--name <VALUE>` or `-n <VALUE>`.
    let flag = arg.split([' ', '=']).next().unwrap_or_default().to_string();
    let line = match err.kind() {
        ErrorKind::UnknownArgument if flag.starts_with("--") || flag.is_empty() => {
            format!("{cmd}: unrecognized option '{arg}'")
        }
        ErrorKind::UnknownArgument => {
            let c = flag.trim_start_matches('-').chars().next().unwrap_or('?');
            format!("{cmd}: invalid option -- '{c}'")
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals if last.starts_with("--") => {
            format!("{cmd}: option '{flag}' requires an argument")
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals => {
            let c = last.chars().last().unwrap_or('?');
            format!("{cmd}: option requires an argument -- '{c}'")
        }
        ErrorKind::TooManyValues => {
            format!("{cmd}: option '{flag}' doesn't allow an argument")
        }
        _ => {
            let text = err.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            format!("{cmd}: {}", first.trim_start_matches("error: "))
        }
    };
    format!("{line}\nTry \"{cmd} --help\" for more information\n")
}

/// Whether an option takes no value (`--hold`), an optional one
/// (`--exclusive[=mode]`) or a required one (`--time=t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// A flag.
    Nothing,
    /// `--opt` or `--opt=value`.
    Optional,
    /// `--opt value` or `--opt=value`.
    Value,
}

/// How `arg` takes its value.
pub fn takes(arg: &clap::Arg) -> Takes {
    let none = arg.get_num_args().is_some_and(|n| n.max_values() == 0);
    if none || !arg.get_action().takes_values() {
        Takes::Nothing
    } else if arg.get_num_args().is_some_and(|n| n.min_values() == 0) {
        Takes::Optional
    } else {
        Takes::Value
    }
}
