//! spur's Debian packages, built by `packaging/deb/build` from the tested
//! binaries, in a fresh Debian 12 root that mmdebstrap makes for the test:
//! apt installs them, the installed unit files' command lines start the
//! daemons, a job runs; then Debian's Slurm packages install beside them,
//! removing `spur-slurm` gives Slurm back its names whole, and installing
//! it again gives them to spur. Each command runs chrooted in a mount
//! namespace of its own, so nothing mounted for it outlives it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use crate::harness::{bin_dir, free_port_on, missing_program};
use crate::text;

/// Why this machine cannot run the test, if it cannot.
fn unavailable() -> Option<String> {
    if !is_root() {
        return Some("not root".into());
    }
    missing_program(&["mmdebstrap", "dpkg-deb", "dpkg-shlibdeps", "unshare"])
        .map(|tool| format!("{tool} is not installed (mmdebstrap, dpkg-dev)"))
}

fn is_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}

/// A fresh Debian root and the daemons started in it.
struct Root {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

impl Root {
    /// Debian 12 with apt, from this machine's apt sources, its package
    /// lists kept so that apt installs without an update.
    fn make() -> Root {
        let dir = tempfile::Builder::new()
            .prefix("spur-deb-root")
            .tempdir_in(std::env::temp_dir())
            .expect("temp dir");
        let mut sources: Vec<PathBuf> = vec![];
        if std::fs::metadata("/etc/apt/sources.list").is_ok_and(|m| m.len() > 0) {
            sources.push("/etc/apt/sources.list".into());
        }
        if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
            let mut more: Vec<PathBuf> = dir
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "sources" || e == "list"))
                .collect();
            more.sort();
            sources.extend(more);
        }
        let out = Command::new("mmdebstrap")
            .args([
                "--variant=apt",
                "--skip=cleanup/apt/lists",
                "--quiet",
                "bookworm",
            ])
            .arg(dir.path().join("root"))
            .args(&sources)
            .output()
            .expect("runs mmdebstrap");
        assert!(
            out.status.success(),
            "mmdebstrap failed: {}",
            text(&out.stderr)
        );
        Root {
            dir,
            daemons: vec![],
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    /// `args` run in the root: chrooted, with /proc and /sys mounted in a
    /// mount namespace of the command's own, and a login's environment.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("unshare");
        cmd.args(["--mount", "--propagation", "private", "--", "sh", "-c"])
            .arg(concat!(
                r#"root=$1; shift; mount -t proc proc "$root/proc" && "#,
                r#"mount -t sysfs sysfs "$root/sys" && exec chroot "$root" "$@""#,
            ))
            .arg("sh")
            .arg(self.path())
            .args(args)
            .env_clear()
            .env(
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            )
            .env("HOME", "/root")
            .env("LANG", "C.UTF-8")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .current_dir("/");
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("runs in the root")
    }

    /// `args`' standard output, failing the test when it fails.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?} failed in the root: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.path().join(path.trim_start_matches('/')))
            .unwrap_or_else(|e| panic!("{path} in the root: {e}"))
    }

    fn write(&self, path: &str, body: &str) {
        let path = self.path().join(path.trim_start_matches('/'));
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(path, body).expect("write");
    }

    fn link(&self, path: &str) -> Option<String> {
        std::fs::read_link(self.path().join(path.trim_start_matches('/')))
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }

    /// Starts the service as systemd would: the installed unit's
    /// `ExecStart=`, its `$X_OPTIONS` taken from /etc/default/X.
    fn start(&mut self, unit: &str) {
        let service = self.read(&format!("/lib/systemd/system/{unit}.service"));
        let line = service
            .lines()
            .find_map(|l| l.strip_prefix("ExecStart="))
            .unwrap_or_else(|| panic!("{unit}.service has no ExecStart"));
        let defaults = std::fs::read_to_string(self.path().join(format!("etc/default/{unit}")))
            .unwrap_or_default();
        let mut args: Vec<String> = vec![];
        for word in line.split_whitespace() {
            match word.strip_prefix('$') {
                Some(var) => {
                    let value = defaults
                        .lines()
                        .find_map(|l| l.trim().strip_prefix(&format!("{var}=")))
                        .unwrap_or("")
                        .trim_matches('"');
                    args.extend(value.split_whitespace().map(str::to_string));
                }
                None => args.push(word.to_string()),
            }
        }
        let log =
            std::fs::File::create(self.dir.path().join(format!("{unit}.out"))).expect("log file");
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = self
            .command(&words)
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .spawn()
            .expect("starts the daemon");
        self.daemons.push(child);
    }

    fn log(&self, unit: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{unit}.out"))).unwrap_or_default()
    }

    /// Waits up to 60 s for `check`, then fails with `what` and the daemons'
    /// logs.
    fn wait(&self, what: &str, check: impl Fn(&Root) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !check(self) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}\nslurmctld: {}\nslurmd: {}",
                self.log("slurmctld"),
                self.log("slurmd")
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Submits `script` as root and waits for it to end; its output.
    fn job(&self, id: u32, script: &str) -> String {
        let out = self.ok(&["sbatch", "-o", "/tmp/job-%j.out", "--wrap", script]);
        assert_eq!(out, format!("Submitted batch job {id}\n"));
        let job = id.to_string();
        self.wait(&format!("job {id} to complete"), |r| {
            r.ok(&["sacct", "-n", "-X", "-P", "-j", &job, "-o", "State"])
                .trim()
                == "COMPLETED"
        });
        self.read(&format!("/tmp/job-{id}.out"))
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        for child in &mut self.daemons {
            // SAFETY: kill has no memory preconditions.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        }
        for child in &mut self.daemons {
            let _ = child.wait();
        }
    }
}

/// The two packages, built from the binaries under test.
fn build_packages(out: &Path) -> (PathBuf, PathBuf) {
    let bins = bin_dir();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace");
    let profile = bins
        .file_name()
        .expect("target/<profile>")
        .to_string_lossy()
        .into_owned();
    let built = Command::new(workspace.join("packaging/deb/build"))
        .args(["--profile", &profile, "--no-build", "--out"])
        .arg(out)
        .env("CARGO_TARGET_DIR", bins.parent().expect("target"))
        .output()
        .expect("runs packaging/deb/build");
    assert!(built.status.success(), "{}", text(&built.stderr));
    let debs: Vec<PathBuf> = text(&built.stdout).lines().map(PathBuf::from).collect();
    let named = |name: &str| {
        debs.iter()
            .find(|d| {
                d.file_name()
                    .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{name}_")))
            })
            .unwrap_or_else(|| panic!("no {name} package in {debs:?}"))
            .clone()
    };
    (named("spur"), named("spur-slurm"))
}

#[test]
fn the_packages_install_in_a_fresh_root_run_a_job_and_swap_with_debians_slurm() {
    if let Some(why) = unavailable() {
        eprintln!("the package test skips: {why}");
        return;
    }
    let mut root = Root::make();
    let (spur, names) = build_packages(root.dir.path());
    for deb in [&spur, &names] {
        std::fs::copy(
            deb,
            root.path()
                .join("tmp")
                .join(deb.file_name().expect("a name")),
        )
        .expect("copies the package into the root");
    }
    let spur_deb = format!("/tmp/{}", spur.file_name().unwrap().to_string_lossy());
    let names_deb = format!("/tmp/{}", names.file_name().unwrap().to_string_lossy());
    // No init system in the root: maintainer scripts start no service.
    root.write("/usr/sbin/policy-rc.d", "#!/bin/sh\nexit 101\n");
    root.ok(&["chmod", "0755", "/usr/sbin/policy-rc.d"]);

    // Installed with apt, as a site would.
    let installed = root.ok(&["apt-get", "install", "-y", "-q", &spur_deb, &names_deb]);
    assert!(installed.contains("made a cluster key"), "{installed}");
    assert_eq!(root.ok(&["sbatch", "--version"]), "slurm 22.05.8\n");
    assert_eq!(
        root.link("/usr/bin/sbatch").as_deref(),
        Some("../libexec/spur/sbatch")
    );
    assert_eq!(root.link("/usr/bin/squeue").as_deref(), Some("spurctl"));
    assert_eq!(
        root.link("/etc/alternatives/slurmctld").as_deref(),
        Some("/usr/sbin/spurd")
    );
    let key = std::fs::metadata(root.path().join("etc/slurm/spur.key")).expect("a cluster key");
    assert_eq!(
        (
            key.len(),
            std::os::unix::fs::PermissionsExt::mode(&key.permissions()) & 0o777
        ),
        (32, 0o600)
    );
    assert!(root.path().join("usr/share/man/man1/sbatch.1.gz").exists());
    assert!(root
        .path()
        .join("usr/share/bash-completion/completions/squeue")
        .exists());

    // A one-node cluster on the installed unit files.
    let (ctld_port, slurmd_port) = (free_port_on("127.0.0.1"), free_port_on("127.0.0.1"));
    root.write(
        "/etc/slurm/slurm.conf",
        &format!(
            "ClusterName=pkg\nSlurmctldHost=ctl(127.0.0.1)\nSlurmctldPort={ctld_port}\n\
             SlurmdPort={slurmd_port}\nStateSaveLocation=/var/spool/slurmctld\n\
             SlurmdSpoolDir=/var/spool/slurmd\n\
             NodeName=n1 NodeAddr=127.0.0.1 CPUs=1 RealMemory=1000 State=UNKNOWN\n\
             PartitionName=debug Nodes=n1 Default=YES MaxTime=INFINITE State=UP\n"
        ),
    );
    root.write("/etc/default/slurmd", "SLURMD_OPTIONS=\"-N n1\"\n");
    root.start("slurmctld");
    root.wait("the controller's pid file", |r| {
        r.path().join("run/slurmctld.pid").exists()
    });
    root.start("slurmd");
    root.wait("node n1 to be idle", |r| {
        r.run(&["sinfo", "-h", "-N", "-o", "%N %t"]).stdout == b"n1 idle\n"
    });
    assert_eq!(
        root.job(1, "echo hello from $SLURMD_NODENAME"),
        "hello from n1\n"
    );

    // Debian's Slurm beside it: its files are diverted, spur keeps the
    // names, and spurd outranks slurmctld-wlm and slurmd-wlm.
    // (Keeping the /etc/default/slurmd written above over the package's.)
    root.ok(&[
        "apt-get",
        "install",
        "-y",
        "-q",
        "-o",
        "Dpkg::Options::=--force-confold",
        "slurm-client",
        "slurmctld",
        "slurmd",
    ]);
    assert_eq!(
        root.link("/usr/bin/sbatch").as_deref(),
        Some("../libexec/spur/sbatch")
    );
    assert_eq!(
        root.link("/etc/alternatives/slurmd").as_deref(),
        Some("/usr/sbin/spurd")
    );
    let diversions = root.ok(&["dpkg-divert", "--list", "spur-slurm"]);
    assert!(
        diversions.contains("diversion of /usr/bin/sbatch to /usr/bin/sbatch.slurm by spur-slurm"),
        "{diversions}"
    );
    assert!(root.path().join("usr/bin/sbatch.slurm").is_file());
    assert_eq!(root.job(2, "echo beside slurm"), "beside slurm\n");

    // Removing spur-slurm swaps back: Slurm's own files, Slurm's daemons.
    root.ok(&["apt-get", "remove", "-y", "-q", "spur-slurm"]);
    assert_eq!(root.link("/usr/bin/sbatch"), None, "sbatch is a file again");
    assert_eq!(
        root.ok(&["dpkg", "-S", "/usr/bin/sbatch"]),
        "slurm-client: /usr/bin/sbatch\n"
    );
    // (Debian's build names itself slurm-wlm; spur answers as upstream.)
    assert_eq!(root.ok(&["sbatch", "--version"]), "slurm-wlm 22.05.8\n");
    assert_eq!(
        root.link("/etc/alternatives/slurmctld").as_deref(),
        Some("/usr/sbin/slurmctld-wlm")
    );
    assert_eq!(root.ok(&["dpkg-divert", "--list", "spur-slurm"]), "");
    assert!(!root.path().join("usr/bin/sbatch.slurm").exists());
    // spur itself stays, under its own names.
    assert_eq!(
        root.ok(&["spurctl", "squeue", "-h", "-t", "all", "-o", "%i"]),
        "1\n2\n"
    );

    // And installing it again swaps to spur once more.
    root.ok(&["apt-get", "install", "-y", "-q", &names_deb]);
    assert_eq!(
        root.link("/usr/bin/sbatch").as_deref(),
        Some("../libexec/spur/sbatch")
    );
    assert_eq!(root.job(3, "echo swapped again"), "swapped again\n");
    assert_eq!(root.ok(&["dpkg", "--audit"]), "");
}
