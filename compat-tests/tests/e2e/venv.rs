//! Python virtualenvs for the tests that run real clients unchanged: each
//! built once per pinned requirements under the target folder (shared by
//! the tests of one build, guarded by a lock), and the clients run in a
//! test cluster's folder and environment. Without the package registry a
//! test says so and returns.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::Cluster;
use crate::text;

/// A virtualenv's folder, beside the workspace's binaries.
fn venv_dir(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .join(name)
}

/// The python of virtualenv `name` holding `requirements` (pip's
/// format, pinned), built once per requirements; None (after saying
/// why) when it cannot be built, as without the registry.
pub fn python(name: &str, requirements: &str) -> Option<PathBuf> {
    let dir = venv_dir(name);
    std::fs::create_dir_all(dir.parent().expect("has a parent")).ok()?;
    let lock = std::fs::File::create(dir.with_extension("lock")).ok()?;
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor we own; released when `lock` drops.
    unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) };
    let python = dir.join("bin/python");
    let stamp = dir.join("requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(requirements) && python.exists() {
        return Some(python);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&dir)
        .output();
    if !made.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: python3 -m venv failed: {made:?}");
        return None;
    }
    let wanted = dir.join("wanted.txt");
    std::fs::write(&wanted, requirements).ok()?;
    let pip = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(&wanted)
        .output()
        .ok()?;
    if !pip.status.success() {
        eprintln!(
            "skipped: the package registry could not be reached to install the real clients:\n{}",
            text(&pip.stderr)
        );
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    std::fs::write(&stamp, requirements).ok()?;
    Some(python)
}

/// `program` of the clients' virtualenv with `args`, in the cluster's
/// folder and environment, the cluster's commands and the virtualenv's
/// first on PATH.
pub fn client(c: &Cluster, python: &Path, program: &Path, args: &[&str]) -> Command {
    let venv_bin = python.parent().expect("venv bin");
    let mut cmd = c.command(program.to_str().expect("utf-8 path"), args);
    cmd.env(
        "PATH",
        format!(
            "{}:{}:/usr/bin:/bin",
            c.dir.path().join("bin").display(),
            venv_bin.display()
        ),
    );
    cmd
}

/// Runs `script` with the clients' python in the cluster's folder and
/// environment; returns its stdout, failing the test on a non-zero exit.
pub fn run_python(c: &Cluster, python: &Path, name: &str, script: &str) -> String {
    let path = c.dir.path().join(name);
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(script.as_bytes()))
        .expect("script written");
    let out = client(c, python, python, &[path.to_str().expect("utf-8 path")])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{name} failed:\n{}\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr),
        c.logs()
    );
    text(&out.stdout)
}
