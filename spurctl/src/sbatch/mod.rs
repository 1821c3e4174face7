//! `sbatch`: submits a batch script as Slurm's sbatch does. The options come
//! from the command line, the `SBATCH_*` variables and the script's
//! `#SBATCH` lines (one clap command for all three, merged by value
//! source); the result is one `JobDesc` for the controller. Texts and exit
//! codes are Slurm's. This module reads the world (arguments, environment,
//! clock, stdin) and hands everything else to pure functions.

mod submit;

pub use spur_options::Host;
pub(crate) use spur_options::{alloc, args, desc, directive, error, informational, layer, script};

#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::FromArgMatches;

use self::args::SbatchArgs;
use self::error::SbatchError;
use self::layer::Layers;
use self::submit::{Controller, Plan};
use crate::controller::Live;
use crate::unacted;

/// Runs `sbatch` with `args` (args[0] is the program name).
pub fn run(args: Vec<OsString>) -> ExitCode {
    let host = Host::current();
    let exit_error = slurm_exit_error(&host.env);
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr();
    let mut stdin = std::io::stdin().lock();
    let mut sleep = std::thread::sleep;
    match execute(
        &args, &host, &mut stdin, &mut Live, &mut out, &mut err, &mut sleep,
    ) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "{e}");
            match e.exit_code() {
                spur_proto::ExitCode::Failure => ExitCode::from(exit_error),
                code => code.into(),
            }
        }
    }
}

/// SLURM_EXIT_ERROR: the exit code for errors that exit 1 (not zero).
fn slurm_exit_error(env: &[(String, String)]) -> u8 {
    env.iter()
        .rev()
        .find(|(k, _)| k == "SLURM_EXIT_ERROR")
        .and_then(|(_, v)| v.trim().parse::<i32>().ok())
        .filter(|&n| n != 0)
        .map_or(1, |n| (n & 0xff) as u8)
}

/// sbatch from the command line to the controller's answer; returns the
/// exit status, or the error to print.
pub fn execute(
    words: &[OsString],
    host: &Host,
    stdin: &mut dyn Read,
    ctl: &mut dyn Controller,
    out: &mut dyn Write,
    err: &mut dyn Write,
    sleep: &mut dyn FnMut(Duration),
) -> Result<u8, SbatchError> {
    let mut table = layer::Table::new(args::command());
    let mut words = words.to_vec();
    if words.is_empty() {
        words.push(OsString::from("sbatch"));
    }
    let cmdline = table.parse(&words)?;
    let first = SbatchArgs::from_arg_matches(&cmdline).expect("matches come from this command");
    if let Some(code) = informational(&first, table.command(), out) {
        return Ok(code);
    }
    let loaded = load_script(&first, host, stdin)?;
    let label = script::label(loaded.path.as_deref());
    let directives = directive::extract(&label, &loaded.text)?;
    for notice in &directives.notices {
        let _ = writeln!(err, "{notice}");
    }
    let env_words = layer::env_words(table.command(), &host.env);
    let layers = Layers {
        directives: table.directives(&directives.words)?,
        env: table.source(&env_words)?,
        cmdline: cmdline.into(),
    };
    let merged = table.merge(&layers)?;
    let all = SbatchArgs::from_arg_matches(&merged).expect("matches come from this command");
    let ctx = desc::Context {
        script: loaded.text,
        script_path: loaded.path,
        wrap: first.wrap.is_some(),
        argv: loaded.argv,
        env: &host.env,
        cwd: host.cwd.clone(),
        hostname: host.hostname.clone(),
        now: host.now,
    };
    let built = desc::build(&all, &layers, unacted::given(&merged, unacted::BATCH), &ctx)?;
    if !first.quiet {
        for warning in &built.warnings {
            let _ = writeln!(err, "{warning}");
        }
    }
    let plan = Plan {
        desc: built.desc,
        parsable: all.parsable,
        quiet: first.quiet,
        test_only: all.test_only,
        wait: all.wait,
    };
    submit::submit(plan, ctl, out, err, sleep)
}

/// The script and where it came from.
struct Loaded {
    text: String,
    path: Option<String>,
    argv: Vec<String>,
}

/// The script: `--wrap`, the file named first after the options, or stdin.
fn load_script(
    first: &SbatchArgs,
    host: &Host,
    stdin: &mut dyn Read,
) -> Result<Loaded, SbatchError> {
    let words: Vec<String> = first
        .script
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    if words.first().is_some_and(|w| w == ":") {
        return Err(SbatchError::NotSupported(
            "\":\" (heterogeneous job components)",
        ));
    }
    if let Some(command) = &first.wrap {
        if !words.is_empty() {
            return Err(SbatchError::ScriptArgsWithWrap);
        }
        return Ok(Loaded {
            text: script::wrap(command),
            path: None,
            argv: Vec::new(),
        });
    }
    let path = words
        .first()
        .map(|w| script::locate(w, &host.cwd, host.var("PATH")));
    let text = script::check(script::read(path.as_deref(), stdin)?)?;
    Ok(Loaded {
        text,
        path,
        argv: words.iter().skip(1).cloned().collect(),
    })
}
