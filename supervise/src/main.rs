//! `spur-supervise DIR`: runs the batch script of the job whose folder is
//! DIR (started by the agent; see the library).

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: spur_supervise::arena::Arena = spur_supervise::arena::Arena::new();

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    match (args.next(), args.next()) {
        (Some(dir), None) => spur_supervise::run(std::path::Path::new(&dir)),
        _ => {
            eprintln!("usage: spur-supervise DIR (started by spurd's agent)");
            ExitCode::from(2)
        }
    }
}
