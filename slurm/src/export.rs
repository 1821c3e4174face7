//! `--export` and `--export-file` as Slurm reads them (env.c,
//! sbatch's `_fill_job_desc_from_opts`, srun's `_setup_env_export`): the
//! environment a batch job gets (default: everything but SLURM_JWT; ALL;
//! NIL; NONE; `[ALL,]NAME[=value],...`; SLURM_GET_USER_ENV), and the one
//! srun's tasks get. The SLURM_* variables a job gets are the controller's
//! business. Reading the file is the caller's.

/// The environment, in order, one entry per name.
pub type Env = Vec<(String, String)>;

/// Sets `name`, replacing an earlier value in place (env_array_overwrite).
fn overwrite(env: &mut Env, name: &str, value: &str) {
    match env.iter_mut().find(|(k, _)| k == name) {
        Some(entry) => entry.1 = value.to_string(),
        None => env.push((name.to_string(), value.to_string())),
    }
}

/// Adds every variable of `from` (env_array_merge).
fn merge(env: &mut Env, from: &[(String, String)]) {
    for (k, v) in from {
        overwrite(env, k, v);
    }
}

/// Adds the SLURM* and SPANK option variables of `from`
/// (env_array_merge_slurm_spank).
fn merge_slurm(env: &mut Env, from: &[(String, String)]) {
    for (k, v) in from {
        if k.starts_with("SLURM") || k.starts_with("_SLURM_SPANK_OPTION_") {
            overwrite(env, k, v);
        }
    }
}

/// Splits an --export list at commas outside quotes; a token wholly in
/// quotes loses them (Slurm's find_quote_token).
fn tokens(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut single, mut double) = (false, false);
    let mut current = String::new();
    for c in list.chars() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            ',' if !single && !double => {
                out.push(unquote(&current));
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(unquote(&current));
    }
    out
}

fn unquote(token: &str) -> String {
    for q in ['\'', '"'] {
        if token.len() >= 2 && token.starts_with(q) && token.ends_with(q) {
            return token[1..token.len() - 1].to_string();
        }
    }
    token.to_string()
}

/// What the job's environment is built from.
#[derive(Debug, Clone, Copy)]
pub struct ExportInput<'a> {
    /// sbatch's own environment.
    pub process: &'a [(String, String)],
    /// `--export`.
    pub export: Option<&'a str>,
    /// The variables of `--export-file`, if given: they replace sbatch's
    /// own environment, which Slurm empties first.
    pub file: Option<&'a [(String, String)]>,
    /// `--get-user-env`.
    pub get_user_env: bool,
}

/// The job's environment.
pub fn job_environment(input: ExportInput<'_>) -> Env {
    let environ: &[(String, String)] = if input.file.is_some() {
        &[]
    } else {
        input.process
    };
    let mut env: Env = input.file.map(<[_]>::to_vec).unwrap_or_default();
    let mut get_user_env = input.get_user_env;
    match input.export {
        None => {
            let kept = environ.iter().filter(|(k, _)| k != "SLURM_JWT");
            merge(&mut env, &kept.cloned().collect::<Vec<_>>());
        }
        Some(all) if all.eq_ignore_ascii_case("ALL") => merge(&mut env, environ),
        Some(nil) if nil.eq_ignore_ascii_case("NIL") || nil.eq_ignore_ascii_case("NONE") => {
            env = Env::new();
            merge_slurm(&mut env, environ);
            get_user_env |= nil.eq_ignore_ascii_case("NONE");
        }
        Some(list) => {
            for token in tokens(list) {
                if token.eq_ignore_ascii_case("ALL") {
                    merge(&mut env, environ);
                } else if let Some((k, v)) = token.split_once('=') {
                    overwrite(&mut env, k, v);
                } else if let Some((k, v)) = environ.iter().find(|(k, _)| *k == token) {
                    overwrite(&mut env, k, v);
                }
            }
            merge_slurm(&mut env, environ);
            get_user_env = true;
        }
    }
    if get_user_env {
        overwrite(&mut env, "SLURM_GET_USER_ENV", "1");
    }
    env
}

/// The environment a step's tasks get from srun's own (srun's
/// `--export`): everything by default and with ALL; with NONE or NIL only
/// the SLURM* variables; with a list the variables it names or sets, the
/// SLURM* variables, and everything else too if it holds ALL.
pub fn step_environment(process: &[(String, String)], export: Option<&str>) -> Env {
    let Some(list) = export.filter(|e| !e.eq_ignore_ascii_case("ALL")) else {
        return process.to_vec();
    };
    let mut env = Env::new();
    if !(list.eq_ignore_ascii_case("NONE") || list.eq_ignore_ascii_case("NIL")) {
        for token in tokens(list) {
            if token.eq_ignore_ascii_case("ALL") {
                merge(&mut env, process);
            } else if let Some((k, v)) = token.split_once('=') {
                overwrite(&mut env, k, v);
            } else if let Some((k, v)) = process.iter().find(|(k, _)| *k == token) {
                overwrite(&mut env, k, v);
            }
        }
    }
    merge_slurm(&mut env, process);
    env
}

/// An `--export-file`'s contents: NUL-separated `NAME=value` entries
/// (newline-separated is taken too). DISPLAY, ENVIRONMENT and HOSTNAME are
/// dropped, as in Slurm.
pub fn export_file_entries(bytes: &[u8]) -> Env {
    let sep = if bytes.contains(&0) { 0 } else { b'\n' };
    let mut env = Env::new();
    for entry in bytes.split(|&b| b == sep) {
        let entry = String::from_utf8_lossy(entry);
        let Some((k, v)) = entry.split_once('=') else {
            continue;
        };
        if k.is_empty() || matches!(k, "DISPLAY" | "ENVIRONMENT" | "HOSTNAME") {
            continue;
        }
        overwrite(&mut env, k, v);
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn build(export: Option<&str>) -> Env {
        let process = env(&[
            ("PATH", "/bin"),
            ("HOME", "/home/u"),
            ("SLURM_JWT", "secret"),
            ("SLURM_CONF", "/etc/slurm.conf"),
        ]);
        job_environment(ExportInput {
            process: &process,
            export,
            file: None,
            get_user_env: false,
        })
    }

    #[test]
    fn default_exports_everything_but_the_jwt() {
        assert_eq!(
            build(None),
            env(&[
                ("PATH", "/bin"),
                ("HOME", "/home/u"),
                ("SLURM_CONF", "/etc/slurm.conf")
            ])
        );
        assert_eq!(build(Some("ALL")).len(), 4);
    }

    #[test]
    fn none_keeps_slurm_variables_and_asks_for_the_user_env() {
        assert_eq!(
            build(Some("NONE")),
            env(&[
                ("SLURM_JWT", "secret"),
                ("SLURM_CONF", "/etc/slurm.conf"),
                ("SLURM_GET_USER_ENV", "1")
            ])
        );
        assert_eq!(
            build(Some("NIL")),
            env(&[("SLURM_JWT", "secret"), ("SLURM_CONF", "/etc/slurm.conf")])
        );
    }

    #[test]
    fn lists_name_variables_and_set_values() {
        assert_eq!(
            build(Some("HOME,FOO=bar,'X=a,b',NOPE")),
            env(&[
                ("HOME", "/home/u"),
                ("FOO", "bar"),
                ("X", "a,b"),
                ("SLURM_JWT", "secret"),
                ("SLURM_CONF", "/etc/slurm.conf"),
                ("SLURM_GET_USER_ENV", "1")
            ])
        );
        let all = build(Some("ALL,FOO=bar"));
        assert_eq!(all[0], ("PATH".to_string(), "/bin".to_string()));
        assert!(all.contains(&("FOO".to_string(), "bar".to_string())));
    }

    #[test]
    fn a_steps_tasks_get_what_srun_exports() {
        let process = env(&[
            ("PATH", "/bin"),
            ("HOME", "/home/u"),
            ("SLURM_CONF", "/etc/slurm.conf"),
        ]);
        assert_eq!(step_environment(&process, None), process);
        assert_eq!(step_environment(&process, Some("ALL")), process);
        assert_eq!(
            step_environment(&process, Some("NONE")),
            env(&[("SLURM_CONF", "/etc/slurm.conf")])
        );
        assert_eq!(
            step_environment(&process, Some("HOME,X=1")),
            env(&[
                ("HOME", "/home/u"),
                ("X", "1"),
                ("SLURM_CONF", "/etc/slurm.conf")
            ])
        );
        let all = step_environment(&process, Some("ALL,X=1"));
        assert_eq!(all.len(), 4);
    }

    #[test]
    fn export_file_replaces_the_environment() {
        let file = export_file_entries(b"A=1\0HOSTNAME=x\0B=two=2\0");
        assert_eq!(file, env(&[("A", "1"), ("B", "two=2")]));
        assert_eq!(export_file_entries(b"A=1\nB=2\n").len(), 2);
        let process = env(&[("PATH", "/bin")]);
        let out = job_environment(ExportInput {
            process: &process,
            export: None,
            file: Some(&file),
            get_user_env: false,
        });
        assert_eq!(out, file);
    }
}
