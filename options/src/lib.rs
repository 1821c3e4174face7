//! spur-options: Slurm's job options as slurm_opt.c has them, in one
//! place for every front end that takes options as text: one option table
//! for sbatch, salloc and srun (and the REST server's v0.0.38 job
//! properties, which slurmrestd reads as options); the command line, the
//! input variables and the `#SBATCH` directives, merged by source; the value
//! readers with Slurm's words; the options spur does not act on; and the one
//! builder from options to the `JobDesc` the controller checks. The
//! commands keep what is theirs (the script's loading, the submission, the
//! printing).

pub mod alloc;
pub mod args;
pub mod begin;
pub mod desc;
pub mod directive;
pub mod error;
pub mod fields;
pub mod getopt;
pub mod layer;
pub mod script;
pub mod unacted;
pub mod value;

use std::io::Write;

use args::SbatchArgs;

/// What a command reads from the machine it runs on.
#[derive(Debug, Clone)]
pub struct Host {
    /// The environment.
    pub env: Vec<(String, String)>,
    /// The working directory.
    pub cwd: String,
    /// The short host name.
    pub hostname: String,
    /// The time, Unix seconds.
    pub now: i64,
}

impl Host {
    /// This process's view.
    pub fn current() -> Host {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        Host {
            env: std::env::vars_os()
                .map(|(k, v)| {
                    (
                        k.to_string_lossy().into_owned(),
                        v.to_string_lossy().into_owned(),
                    )
                })
                .collect(),
            cwd: std::env::current_dir()
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "/".to_string()),
            hostname: spur_sys::short_hostname(),
            now,
        }
    }

    /// The variable `name`, the last one set if it is set twice.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `--help`, `--usage`, `--version` (command line only, as in Slurm's
/// first pass): what to print, and exit 0.
pub fn informational(first: &SbatchArgs, cmd: &clap::Command, out: &mut dyn Write) -> Option<u8> {
    let text = if first.help {
        cmd.clone().render_help().to_string()
    } else if first.usage {
        cmd.clone().render_usage().to_string()
    } else if first.version {
        format!("slurm {}", spur_proto::SLURM_COMPAT_VERSION)
    } else {
        return None;
    };
    let _ = writeln!(out, "{}", text.trim_end());
    Some(0)
}
