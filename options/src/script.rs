//! The batch script: found as Slurm's search_path finds it, read from a file
//! or stdin, checked as sbatch.c checks it (empty, whitespace only, no `#!`,
//! NUL bytes, DOS line ends), or built from `--wrap`.

use std::io::Read;
use std::path::Path;

use crate::error::ScriptProblem;

/// The script `--wrap=command` submits.
pub fn wrap(command: &str) -> String {
    format!("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{command}\n")
}

/// Where the script named `arg` is: a name without a leading `.` or `/` is
/// looked for in `cwd` and then in each `PATH` directory (Slurm's
/// search_path); otherwise, or when not found, `arg` as given.
pub fn locate(arg: &str, cwd: &str, path_var: Option<&str>) -> String {
    if arg.starts_with('.') || arg.starts_with('/') {
        return arg.to_string();
    }
    let dirs = std::iter::once(cwd.to_string()).chain(
        path_var
            .unwrap_or_default()
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| {
                if d.starts_with('.') {
                    format!("{cwd}/{d}")
                } else {
                    d.to_string()
                }
            }),
    );
    dirs.map(|d| format!("{d}/{arg}"))
        .find(|full| Path::new(full).exists())
        .unwrap_or_else(|| arg.to_string())
}

/// Reads the script from `path`, or from `stdin` when there is none.
pub fn read(path: Option<&str>, stdin: &mut dyn Read) -> Result<Vec<u8>, ScriptProblem> {
    let mut buf = Vec::new();
    match path {
        Some(p) => {
            let unreadable = |_| ScriptProblem::Unreadable(p.to_string());
            std::fs::File::open(p)
                .and_then(|mut f| f.read_to_end(&mut buf))
                .map_err(unreadable)?;
        }
        None => {
            // A closed or unreadable stdin is an empty script, as in Slurm.
            let _ = stdin.read_to_end(&mut buf);
        }
    }
    Ok(buf)
}

/// sbatch.c's checks on a script, in its order; then the text, which spur
/// stores as UTF-8.
pub fn check(body: Vec<u8>) -> Result<String, ScriptProblem> {
    if body.is_empty() {
        return Err(ScriptProblem::Empty);
    }
    // xstring_is_whitespace stops at the first NUL, like the C string it reads.
    let text_part = body.split(|&b| b == 0).next().unwrap_or_default();
    if text_part
        .iter()
        .all(|&b| b == b' ' || (b'\t'..=b'\r').contains(&b))
    {
        return Err(ScriptProblem::Whitespace);
    }
    if !body.starts_with(b"#!") {
        return Err(ScriptProblem::NoShebang);
    }
    if body.contains(&0) {
        return Err(ScriptProblem::NulCharacter);
    }
    if body.windows(2).any(|w| w == b"\r\n") {
        return Err(ScriptProblem::DosLineBreaks);
    }
    String::from_utf8(body).map_err(|_| ScriptProblem::NotUtf8)
}

/// The name errors about the script use: its file name, or `stdin`.
pub fn label(path: Option<&str>) -> String {
    path.map_or_else(|| "stdin".to_string(), |p| base_name(p).to_string())
}

/// The last component of a path (Slurm's base_name).
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_builds_slurms_script() {
        assert_eq!(
            wrap("sleep 600"),
            "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nsleep 600\n"
        );
    }

    #[test]
    fn checks_run_in_slurms_order_with_slurms_text() {
        let err = |b: &[u8]| check(b.to_vec()).unwrap_err().to_string();
        assert_eq!(err(b""), "sbatch: error: Batch script is empty!");
        assert_eq!(
            err(b"  \n\t"),
            "sbatch: error: Batch script contains only whitespace!"
        );
        assert_eq!(
            err(b"echo hi\n"),
            "sbatch: error: This does not look like a batch script.  The first\n\
             sbatch: error: line must start with #! followed by the path to an interpreter.\n\
             sbatch: error: For instance: #!/bin/sh"
        );
        assert_eq!(
            err(b"#!/bin/sh\necho\0hi\n"),
            "sbatch: error: The Slurm controller does not allow scripts that\n\
             sbatch: error: contain a NULL character '\\0'."
        );
        assert_eq!(
            err(b"#!/bin/sh\r\necho hi\r\n"),
            "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n\
             sbatch: error: instead of expected UNIX line breaks (\\n)."
        );
        // No shebang is reported before a NUL or CRLF.
        assert!(matches!(
            check(b"echo\0\r\n".to_vec()),
            Err(ScriptProblem::NoShebang)
        ));
        assert_eq!(
            check(b"#!/bin/sh\ntrue\n".to_vec()).unwrap(),
            "#!/bin/sh\ntrue\n"
        );
    }

    #[test]
    fn scripts_are_found_in_cwd_then_path() {
        let dir = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        let path_dir = bin.path().to_str().unwrap();
        std::fs::write(bin.path().join("job.sh"), "#!/bin/sh\n").unwrap();
        assert_eq!(
            locate("job.sh", cwd, Some(path_dir)),
            format!("{path_dir}/job.sh")
        );
        std::fs::write(dir.path().join("job.sh"), "#!/bin/sh\n").unwrap();
        assert_eq!(
            locate("job.sh", cwd, Some(path_dir)),
            format!("{cwd}/job.sh")
        );
        assert_eq!(locate("./job.sh", cwd, Some(path_dir)), "./job.sh");
        assert_eq!(locate("nosuch.sh", cwd, None), "nosuch.sh");
        let err = read(Some("/no/such/script"), &mut std::io::empty()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "sbatch: error: Unable to open file /no/such/script"
        );
    }
}
