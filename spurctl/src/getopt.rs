//! What a command prints when clap rejects its command line: the text
//! getopt_long gives (Slurm's commands parse with it), then Slurm's
//! `Try "cmd --help"` line. Shared by every command except sbatch, whose
//! errors carry more (directives, environment) in their own type.

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
