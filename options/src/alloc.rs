//! salloc's command line: the same options as sbatch (Slurm parses both
//! with slurm_opt.c), read the same way, into an interactive job: no batch
//! script, the command to run instead. Error texts are sbatch's with the
//! command's own name.

use std::ffi::OsString;

use clap::FromArgMatches;

use spur_proto::JobDesc;

use crate::args::{self, SbatchArgs};
use crate::layer::{self, Layers};
use crate::unacted;
use crate::{desc, informational, Host};

/// An allocation to ask for, and what to run in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// The job.
    pub desc: JobDesc,
    /// The command (empty: the user's shell).
    pub command: Vec<String>,
    /// `-Q`.
    pub quiet: bool,
    /// Lines for stderr before the request.
    pub warnings: Vec<String>,
}

/// The command's input variables under the names sbatch reads: salloc's
/// `SALLOC_ACCOUNT`, `SALLOC_PARTITION`, ... stand for the same options as
/// sbatch's `SBATCH_*` (salloc(1) INPUT ENVIRONMENT VARIABLES), and
/// sbatch's own are not salloc's.
fn input_variables(prog: &str, env: &[(String, String)]) -> Vec<(String, String)> {
    let prefix = format!("{}_", prog.to_uppercase());
    env.iter()
        .filter(|(k, _)| !k.starts_with("SBATCH_"))
        .map(|(k, v)| match k.strip_prefix(&prefix) {
            Some(rest) => (format!("SBATCH_{rest}"), v.clone()),
            None => (k.clone(), v.clone()),
        })
        .collect()
}

/// The command line of `prog` (salloc): sbatch's options, under its name.
pub fn command(prog: &'static str) -> clap::Command {
    args::command()
        .name(prog)
        .about("Obtain a job allocation (spur).")
        .override_usage(format!(
            "{prog} [OPTIONS(0)...] [ : [OPTIONS(N)...]] [command(0) [args(0)...]]"
        ))
}

/// What the command line asks for: an allocation, or text to print and
/// the exit status (`--help`, `--version`, or an error).
pub fn parse(
    prog: &'static str,
    words: &[OsString],
    host: &Host,
) -> Result<Allocation, (String, u8)> {
    let rename = |text: String| {
        text.replace("sbatch: ", &format!("{prog}: "))
            .replace("sbatch --", &format!("{prog} --"))
    };
    let fail = |e: crate::error::SbatchError| {
        let code = match e.exit_code() {
            spur_proto::ExitCode::Usage => 255,
            _ => 1,
        };
        (rename(format!("{e}\n")), code)
    };
    let mut table = layer::Table::new(command(prog));
    let mut words = words.to_vec();
    if words.is_empty() {
        words.push(OsString::from(prog));
    }
    let cmdline = table.parse(&words).map_err(fail)?;
    let first = SbatchArgs::from_arg_matches(&cmdline).expect("matches come from this command");
    let mut shown = Vec::new();
    if let Some(code) = informational(&first, table.command(), &mut shown) {
        return Err((rename(String::from_utf8_lossy(&shown).into_owned()), code));
    }
    let command: Vec<String> = first
        .script
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let env_words = layer::env_words(table.command(), &input_variables(prog, &host.env));
    let layers = Layers {
        directives: table.none().map_err(fail)?,
        env: table.source(&env_words).map_err(fail)?,
        cmdline: cmdline.into(),
    };
    let merged = table.merge(&layers).map_err(fail)?;
    let all = SbatchArgs::from_arg_matches(&merged).expect("matches come from this command");
    let ctx = desc::Context::without_script(host);
    let built =
        desc::build(&all, &layers, unacted::given(&merged, unacted::BATCH), &ctx).map_err(fail)?;
    let mut desc = built.desc;
    desc.script = None;
    desc.argv = Vec::new();
    desc.interactive = true;
    // Slurm names an salloc job "interactive" unless -J says otherwise.
    if all.job_name.is_none() {
        desc.name = Some("interactive".into());
    }
    Ok(Allocation {
        desc,
        command,
        quiet: first.quiet,
        warnings: built.warnings.into_iter().map(rename).collect(),
    })
}

/// The interactive job srun asks for when it runs outside an allocation:
/// sbatch's builder over `words`, sbatch's spelling of srun's job options
/// (the program name first). The warnings come in srun's words, without
/// the `srun: warning: ` srun prints before each.
pub fn srun_job(words: &[OsString], host: &Host) -> Result<(JobDesc, Vec<String>), String> {
    let text = |e: crate::error::SbatchError| {
        let text = e.to_string();
        text.strip_prefix("sbatch: error: ")
            .unwrap_or(&text)
            .replace("sbatch --", "srun --")
    };
    let mut table = layer::Table::new(args::command());
    let given = table.parse(words).map_err(text)?;
    let all = SbatchArgs::from_arg_matches(&given).expect("matches come from this command");
    let none = table.none().map_err(text)?;
    let layers = Layers {
        directives: none.clone(),
        env: none,
        cmdline: given.into(),
    };
    let ctx = desc::Context::without_script(host);
    let built = desc::build(&all, &layers, Vec::new(), &ctx).map_err(text)?;
    let mut desc = built.desc;
    // Nothing runs in the job but srun's steps, which bring their own
    // environment.
    desc.script = None;
    desc.env = Vec::new();
    desc.interactive = true;
    let warnings = built
        .warnings
        .iter()
        .map(|w| w.strip_prefix("sbatch: warning: ").unwrap_or(w).to_string())
        .collect();
    Ok((desc, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(env: &[(&str, &str)]) -> Host {
        Host {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            cwd: "/tmp".into(),
            hostname: "login".into(),
            now: 1_700_000_000,
        }
    }

    #[test]
    fn salloc_reads_its_own_input_variables_not_sbatchs() {
        let words = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
        let env = [
            ("SALLOC_PARTITION", "gpu"),
            ("SALLOC_TIMELIMIT", "30"),
            ("SBATCH_ACCOUNT", "ignored"),
        ];
        let a = parse("salloc", &words(&["salloc", "-N2", "true"]), &host(&env)).expect("parses");
        assert_eq!(a.desc.partitions, vec!["gpu".to_string()]);
        assert_eq!(a.desc.time_limit, Some(1800));
        assert_eq!(a.desc.account, None);
        assert_eq!(a.desc.min_nodes, Some(2));
        assert!(a.desc.interactive && a.desc.script.is_none());
        assert_eq!(a.command, vec!["true".to_string()]);
        // The command line wins over the environment.
        let a = parse(
            "salloc",
            &words(&["salloc", "-p", "cpu", "true"]),
            &host(&env),
        )
        .expect("parses");
        assert_eq!(a.desc.partitions, vec!["cpu".to_string()]);
    }
}
