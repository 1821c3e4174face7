//! The multi-call binary: `squeue`, `scancel`, ... are links to it, and the
//! name it was started under picks the command (`spurctl sbatch ...` works
//! too; sbatch is also a program of its own, `src/bin/sbatch.rs`).
//! `spurctl --install-docs DIR` writes their man pages and completions;
//! `spurctl --list` prints the names, one a line, for the scripts and
//! packages that link them; `spurctl --own-programs` the commands among
//! them whose names lead to programs of their own beside spurctl.

use std::ffi::OsString;
use std::process::ExitCode;

// A listing of many jobs is decoded into one large block: huge pages fill
// it with a fault per 2 MiB.
#[global_allocator]
static ALLOCATOR: spur_sys::LargePages = spur_sys::LargePages;

fn main() -> ExitCode {
    spurctl::reset_sigpipe();
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let argv0 = args.first().cloned().unwrap_or_default();
    let mut name = spurctl::command_name(&argv0);
    if name == "spurctl" {
        if args.len() < 2 {
            eprintln!(
                "usage: spurctl <command> [options] | spurctl --install-docs DIR | spurctl --list | spurctl --own-programs"
            );
            eprintln!("commands: {}", spurctl::COMMANDS.join(", "));
            return ExitCode::from(1);
        }
        if args[1] == "--install-docs" {
            return install_docs(args.get(2));
        }
        if args[1] == "--list" {
            println!("{}", spurctl::COMMANDS.join("\n"));
            return ExitCode::SUCCESS;
        }
        if args[1] == "--own-programs" {
            println!("{}", spur_slurm::OWN_PROGRAMS.join("\n"));
            return ExitCode::SUCCESS;
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

/// `spurctl --install-docs DIR`: the commands' man pages and shell
/// completions under DIR (DIR/man/man1, DIR/bash-completion, DIR/zsh,
/// DIR/fish), as a `share` folder holds them.
fn install_docs(dir: Option<&OsString>) -> ExitCode {
    let Some(dir) = dir else {
        eprintln!("usage: spurctl --install-docs DIR");
        return ExitCode::from(1);
    };
    match spur_man::install(std::path::Path::new(dir), &spurctl::docs::commands()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "spurctl: cannot write the pages into {}: {e}",
                dir.to_string_lossy()
            );
            ExitCode::from(1)
        }
    }
}
