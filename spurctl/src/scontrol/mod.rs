//! `scontrol`: show and change jobs, nodes and partitions as Slurm's
//! scontrol does (`src/scontrol/` of Slurm 22.05). This module reads the
//! command line and dispatches keywords as `_process_command` does; the
//! records are laid out by pure functions (`job`, `node`, `config`) and the
//! commands write into a `Session`, so tests need no controller.

pub mod act;
pub mod args;
pub mod config;
pub mod session;
pub mod show;
pub mod step;
pub mod update;

#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::Parser;

use self::args::{abbrev, starts_with_ci, ScontrolArgs};
use self::session::{Session, Site};
use crate::controller;
use spur_slurm::locale::Locale;
use spur_sys::users;

pub use spur_report::show::config::render_config;
pub use spur_report::show::job::render_job;
pub use spur_report::show::node::{render_node, render_partition};

/// What a command keyword does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmd {
    All,
    Details,
    Exit,
    Help,
    Hide,
    Oneliner,
    Ping,
    Quiet,
    Reconfigure,
    Requeue,
    RequeueHold,
    Hold,
    Show,
    Update,
    Verbose,
    Version,
    Token,
    Cluster,
    /// A Slurm command spur does not have.
    Unsupported,
}

/// Slurm's keywords in `_process_command`'s order, with the shortest
/// abbreviation each accepts.
const KEYWORDS: [(&str, usize, Cmd); 40] = [
    ("abort", 5, Cmd::Unsupported),
    ("all", 2, Cmd::All),
    ("cancel_reboot", 3, Cmd::Unsupported),
    ("completing", 2, Cmd::Unsupported),
    ("cluster", 2, Cmd::Cluster),
    ("create", 2, Cmd::Unsupported),
    ("details", 1, Cmd::Details),
    ("errnumstr", 2, Cmd::Unsupported),
    ("errnostr", 2, Cmd::Unsupported),
    ("exit", 2, Cmd::Exit),
    ("gethost", 7, Cmd::Unsupported),
    ("hash_file", 15, Cmd::Unsupported),
    ("hash", 9, Cmd::Unsupported),
    ("help", 2, Cmd::Help),
    ("hide", 2, Cmd::Hide),
    ("oneliner", 1, Cmd::Oneliner),
    ("pidinfo", 3, Cmd::Unsupported),
    ("ping", 3, Cmd::Ping),
    ("quiet", 4, Cmd::Quiet),
    ("quit", 4, Cmd::Exit),
    ("reboot_nodes", 3, Cmd::Unsupported),
    ("reconfigure", 3, Cmd::Reconfigure),
    ("requeue", 3, Cmd::Requeue),
    ("release", 3, Cmd::Hold),
    ("suspend", 2, Cmd::Unsupported),
    ("resume", 3, Cmd::Unsupported),
    ("top", 3, Cmd::Unsupported),
    ("token", 3, Cmd::Token),
    ("wait_job", 2, Cmd::Unsupported),
    ("setdebugflags", 9, Cmd::Unsupported),
    ("fsdampeningfactor", 3, Cmd::Unsupported),
    ("fairsharedampeningfactor", 3, Cmd::Unsupported),
    ("setdebug", 2, Cmd::Unsupported),
    ("schedloglevel", 3, Cmd::Unsupported),
    ("show", 3, Cmd::Show),
    ("write", 5, Cmd::Unsupported),
    ("takeover", 8, Cmd::Unsupported),
    ("shutdown", 8, Cmd::Unsupported),
    ("update", 1, Cmd::Update),
    ("delete", 1, Cmd::Unsupported),
];

/// Keywords after `delete`, tried last.
const LATE_KEYWORDS: [(&str, usize, Cmd); 6] = [
    ("verbose", 4, Cmd::Verbose),
    ("version", 4, Cmd::Version),
    ("listpids", 1, Cmd::Unsupported),
    ("getent", 6, Cmd::Unsupported),
    ("notify", 1, Cmd::Unsupported),
    ("callerid", 3, Cmd::Unsupported),
];

/// The command a keyword names, trying Slurm's special prefixes where
/// `_process_command` does (`\q`, `requeuehold`, `hold*`, `uhold`).
fn keyword(tag: &str) -> Option<Cmd> {
    let find = |table: &[(&str, usize, Cmd)]| {
        table
            .iter()
            .find(|(n, m, _)| abbrev(tag, n, *m))
            .map(|(_, _, c)| *c)
    };
    if starts_with_ci(tag, "\\q") {
        return Some(Cmd::Quiet);
    }
    let (early, late) = KEYWORDS.split_at(23);
    if let Some(c) = find(early) {
        return Some(c);
    }
    if starts_with_ci(tag, "requeuehold") {
        return Some(Cmd::RequeueHold);
    }
    if starts_with_ci(tag, "hold") || starts_with_ci(tag, "uhold") {
        return Some(Cmd::Hold);
    }
    find(late).or_else(|| find(&LATE_KEYWORDS))
}

/// Runs one command (`_process_command`).
pub fn process(s: &mut Session<'_>, words: &[String]) {
    let Some(tag) = words.first() else {
        s.exit_code = 1;
        if s.quiet == -1 {
            s.err.push_str("no input");
        }
        return;
    };
    let Some(cmd) = keyword(tag) else {
        s.fail(&format!("invalid keyword: {tag}\n"));
        return;
    };
    // Settings and exit take no arguments; they apply even with too many.
    let max_words = match cmd {
        Cmd::Details | Cmd::Exit | Cmd::Help | Cmd::Oneliner | Cmd::Quiet | Cmd::Ping => 1,
        Cmd::Reconfigure => 2,
        _ => usize::MAX,
    };
    let too_many = words.len() > max_words;
    if too_many {
        s.fail(&format!("too many arguments for keyword:{tag}\n"));
    }
    let too_few = words.len() < 2
        && matches!(
            cmd,
            Cmd::Requeue | Cmd::RequeueHold | Cmd::Hold | Cmd::Update
        );
    if too_few {
        let text = match cmd {
            Cmd::Update => format!("too few arguments for {tag} keyword\n"),
            _ => format!("too few arguments for keyword:{tag}\n"),
        };
        s.fail(&text);
        return;
    }
    match cmd {
        Cmd::Details if !too_many => s.details = true,
        Cmd::Exit => s.done = true,
        Cmd::Help => s.out.push_str(args::HELP),
        Cmd::Hide => s.details = false,
        Cmd::Oneliner => s.one_liner = true,
        Cmd::Quiet => s.quiet = 1,
        Cmd::Verbose => s.quiet = -1,
        Cmd::Ping if !too_many => act::ping(s),
        Cmd::Reconfigure => act::reconfigure(s),
        Cmd::Requeue => act::requeue(s, words, false),
        Cmd::RequeueHold => act::requeue(s, words, true),
        Cmd::Hold => act::hold(s, words),
        Cmd::Show => show::show(s, words),
        Cmd::Update => act::update(s, words),
        Cmd::Version => act::version(s),
        Cmd::Token => act::token(s, words),
        Cmd::Unsupported => s.fail(&format!(
            "scontrol: error: {tag} is not supported by spur\n"
        )),
        Cmd::All | Cmd::Cluster | Cmd::Details | Cmd::Ping => {}
    }
}

/// Runs `scontrol`.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let argv: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let parsed = match ScontrolArgs::try_parse_from(args::permute(&argv)) {
        Ok(p) => p,
        Err(e) => {
            let last = argv.last().map(String::as_str).unwrap_or_default();
            eprint!("{}", crate::getopt::error("scontrol", &e, last.as_ref()));
            return ExitCode::from(1);
        }
    };
    if parsed.help {
        print!("{}", args::HELP);
        return ExitCode::SUCCESS;
    }
    if parsed.version {
        println!("slurm {}", spur_proto::SLURM_COMPAT_VERSION);
        return ExitCode::SUCCESS;
    }
    if parsed.clusters.is_some() {
        eprintln!("scontrol: warning: --clusters is not supported by spur; using this cluster");
    }
    if parsed.uid.is_some() {
        eprintln!("scontrol: warning: --uid is not supported by spur; acting as yourself");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let ask = Box::new(controller::Live);
    let mut s = Session::new(
        Site::load(),
        Locale::local(spur_sys::users::name_of),
        now,
        users::current_uid(),
        ask,
    );
    apply_flags(&mut s, &parsed);
    if parsed.command.is_empty() {
        interactive(&mut s);
    } else {
        process(&mut s, &parsed.command);
        flush(&mut s);
    }
    ExitCode::from(s.exit_code)
}

/// The global options that set session flags.
pub fn apply_flags(s: &mut Session<'_>, parsed: &ScontrolArgs) {
    s.one_liner = parsed.oneliner;
    s.details = parsed.details && !parsed.hide;
    s.quiet = if parsed.verbose > 0 {
        -1
    } else {
        i8::from(parsed.quiet)
    };
}

/// Prints what the session has written so far.
fn flush(s: &mut Session<'_>) {
    let (out, err) = s.take_output();
    print!("{out}");
    eprint!("{err}");
    let _ = std::io::stdout().flush();
}

/// Commands read at the `scontrol: ` prompt until `exit`, `quit` or EOF.
fn interactive(s: &mut Session<'_>) {
    let stdin = std::io::stdin();
    let mut last: Vec<String> = Vec::new();
    loop {
        print!("scontrol: ");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => {
                println!();
                return;
            }
            Ok(_) => {}
        }
        let words = if line.trim() == "!!" {
            last.clone()
        } else {
            args::split_line(&line)
        };
        last = words.clone();
        process(s, &words);
        flush(s);
        if s.done {
            return;
        }
    }
}
