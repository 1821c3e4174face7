//! The multi-call binary: `sbatch`, `squeue`, ... are links to it, and the
//! name it was started under picks the command (`spurctl sbatch ...` works
//! too).

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    spurctl::reset_sigpipe();
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let argv0 = args.first().cloned().unwrap_or_default();
    let mut name = spurctl::command_name(&argv0);
    if name == "spurctl" {
        if args.len() < 2 {
            eprintln!("usage: spurctl <command> [options]");
            eprintln!("commands: {}", spurctl::COMMANDS.join(", "));
            return ExitCode::from(1);
        }
        args.remove(0);
        name = spurctl::command_name(&args[0]);
    }
    match spurctl::dispatch(&name, args) {
        Some(code) => code,
        None => {
            eprintln!("spurctl: unknown command '{name}'");
            eprintln!("commands: {}", spurctl::COMMANDS.join(", "));
            ExitCode::from(1)
        }
    }
}
