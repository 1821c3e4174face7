//! Memory confinement with cgroups, task/cgroup's memory part: with
//! `TaskPlugin=task/cgroup` in slurm.conf and `ConstrainRAMSpace=yes` in
//! cgroup.conf, each job gets a memory cgroup on each of its nodes, limited
//! to its allocation there, and each step (the batch script included) a
//! cgroup inside it. The agent makes and removes them; the supervisor and
//! the step process move themselves in before they fork the job's
//! processes, and count the step's oom-kill events when those end.
//!
//! Layout: `<the agent's own cgroup>/spur_<node>/job_<id>/step_<step>`,
//! in the v1 memory hierarchy or the v2 unified one. Under v2 the agent's
//! own cgroup may hold no processes once it hands the memory controller
//! down, so the agent first moves itself into `<own>/spurd`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use spur_conf::{CgroupConf, CgroupPlugin};
use thiserror::Error;
use tracing::{info, warn};

pub use spur_supervise::cgroup::CGROUP_FILE;

/// Why memory cannot be confined as configured.
#[derive(Debug, Error)]
pub enum CgroupError {
    /// No usable memory hierarchy.
    #[error("ConstrainRAMSpace=yes, but {0}")]
    Unavailable(String),
    /// A cgroup file could not be written or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> CgroupError + '_ {
    move |source| CgroupError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The cgroup version in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The v1 memory hierarchy.
    V1,
    /// The v2 unified hierarchy.
    V2,
}

/// One node's memory confinement.
#[derive(Debug)]
pub struct Memcg {
    version: Version,
    /// `.../spur_<node>`: the job cgroups are made here.
    base: PathBuf,
    conf: CgroupConf,
    /// The node's RealMemory (MiB).
    node_mib: u64,
    /// Making and removing cgroups are never interleaved, so a job's last
    /// step ending cannot remove the job's cgroup under a step starting.
    lock: Mutex<()>,
}

impl Memcg {
    /// The confinement slurm.conf's `task_plugin` and `conf` ask for on
    /// node `node` of `node_mib`: None when they ask for none.
    pub fn setup(
        conf: &CgroupConf,
        task_plugin: Option<&str>,
        node: &str,
        node_mib: u64,
    ) -> Result<Option<Memcg>, CgroupError> {
        let task_cgroup =
            task_plugin.is_some_and(|p| p.split(',').any(|p| p.trim() == "task/cgroup"));
        if !task_cgroup || !conf.constrain_ram_space {
            return Ok(None);
        }
        let own = fs::read_to_string("/proc/self/cgroup")
            .map_err(io_at(Path::new("/proc/self/cgroup")))?;
        let version = match conf.plugin {
            CgroupPlugin::V1 => Version::V1,
            CgroupPlugin::V2 => Version::V2,
            // As Slurm's autodetect: v2 when the mount point is the
            // unified hierarchy's root.
            CgroupPlugin::Autodetect if conf.mountpoint.join("cgroup.controllers").exists() => {
                Version::V2
            }
            CgroupPlugin::Autodetect => Version::V1,
        };
        let base = match version {
            Version::V1 => {
                let hierarchy = conf.mountpoint.join("memory");
                if !hierarchy.join("memory.limit_in_bytes").exists() {
                    return Err(CgroupError::Unavailable(format!(
                        "{} is no cgroup v1 memory hierarchy",
                        hierarchy.display()
                    )));
                }
                let path = own_path(&own, Version::V1).ok_or_else(|| {
                    CgroupError::Unavailable("this process is in no v1 memory cgroup".into())
                })?;
                hierarchy.join(path.trim_start_matches('/'))
            }
            Version::V2 => {
                let path = own_path(&own, Version::V2).ok_or_else(|| {
                    CgroupError::Unavailable("this process is in no v2 cgroup".into())
                })?;
                // An agent of a process that another agent already moved
                // into its leaf shares that agent's parent.
                let path = path.strip_suffix("/spurd").unwrap_or(&path);
                let own = conf.mountpoint.join(path.trim_start_matches('/'));
                delegate_v2(&own)?;
                own
            }
        }
        .join(format!("spur_{node}"));
        make_dir(&base)?;
        if version == Version::V2 {
            enable_memory(&base)?;
        }
        info!(version = ?version, base = %base.display(), "job memory is confined with cgroups");
        Ok(Some(Memcg {
            version,
            base,
            conf: conf.clone(),
            node_mib,
            lock: Mutex::new(()),
        }))
    }

    /// Makes (or keeps) job `job`'s cgroup, limited to `allocated_mib` on
    /// this node, and step `step`'s inside it (`batch` or a number).
    /// Returns the step's cgroup, which the process that forks the step's
    /// processes joins.
    pub fn prepare(
        &self,
        job: u32,
        step: &str,
        allocated_mib: u64,
    ) -> Result<PathBuf, CgroupError> {
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let job_cg = self.base.join(format!("job_{job}"));
        make_dir(&job_cg)?;
        let limits = self.conf.memory_limits(allocated_mib, self.node_mib);
        match self.version {
            Version::V1 => {
                // The limit binds the steps' cgroups inside it.
                let _ = write(&job_cg, "memory.use_hierarchy", "1");
                // memsw may never be below the limit: lift it first, as a
                // cgroup kept from an earlier step may hold a lower one.
                let memsw = job_cg.join("memory.memsw.limit_in_bytes").exists();
                if memsw {
                    write(&job_cg, "memory.memsw.limit_in_bytes", "-1")?;
                }
                let soft = limits.soft.to_string();
                write(&job_cg, "memory.limit_in_bytes", &limits.ram.to_string())?;
                write(&job_cg, "memory.soft_limit_in_bytes", &soft)?;
                if let Some(both) = limits.ram_and_swap.filter(|_| memsw) {
                    write(&job_cg, "memory.memsw.limit_in_bytes", &both.to_string())?;
                    if let Some(s) = self.conf.memory_swappiness {
                        write(&job_cg, "memory.swappiness", &s.to_string())?;
                    }
                }
            }
            Version::V2 => {
                write(&job_cg, "memory.max", &limits.ram.to_string())?;
                if let Some(both) = limits.ram_and_swap {
                    let swap = both.saturating_sub(limits.ram);
                    write(&job_cg, "memory.swap.max", &swap.to_string())?;
                }
                enable_memory(&job_cg)?;
            }
        }
        // A cgroup left from an earlier run of the step (a requeued job)
        // would bring its oom-kill count along: start afresh.
        let step_cg = job_cg.join(format!("step_{step}"));
        if step_cg.exists() {
            kill_all(&step_cg);
            let _ = fs::remove_dir(&step_cg);
        }
        make_dir(&step_cg)?;
        Ok(step_cg)
    }

    /// A step ended: kills what is left of its processes (those that left
    /// its process group), removes its cgroup, and the job's once it holds
    /// no step.
    pub fn release(&self, job: u32, step: &str) {
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let job_cg = self.base.join(format!("job_{job}"));
        let step_cg = job_cg.join(format!("step_{step}"));
        if step_cg.exists() {
            kill_all(&step_cg);
            if let Err(e) = fs::remove_dir(&step_cg) {
                warn!(job, step, error = %e, "cannot remove the step's cgroup");
            }
        }
        // Fails while another step's cgroup is inside: that step's end
        // removes it.
        let _ = fs::remove_dir(&job_cg);
    }
}

/// The cgroup of this process in `version`'s hierarchy, from the text of
/// /proc/self/cgroup.
fn own_path(text: &str, version: Version) -> Option<String> {
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let ours = match version {
            Version::V1 => controllers.split(',').any(|c| c == "memory"),
            Version::V2 => controllers.is_empty(),
        };
        ours.then(|| path.to_string())
    })
}

/// Makes `own` (this process's v2 cgroup) able to hand the memory
/// controller to children: the process moves into `own/spurd`, a leaf,
/// unless `own` is the root, which may hold processes.
fn delegate_v2(own: &Path) -> Result<(), CgroupError> {
    let controllers = read(own, "cgroup.controllers")?;
    if !controllers.split_whitespace().any(|c| c == "memory") {
        return Err(CgroupError::Unavailable(format!(
            "the memory controller is not available in {} (cgroup.controllers: {})",
            own.display(),
            controllers.trim()
        )));
    }
    let is_root = !own.join("cgroup.type").exists();
    if is_root {
        return enable_memory(own);
    }
    let delegated = read(own, "cgroup.subtree_control")?
        .split_whitespace()
        .any(|c| c == "memory");
    if !delegated {
        let leaf = own.join("spurd");
        make_dir(&leaf)?;
        write(&leaf, "cgroup.procs", &std::process::id().to_string())?;
        enable_memory(own).map_err(|e| {
            CgroupError::Unavailable(format!(
                "{e}: {} holds other processes than spurd; start spurd in a cgroup of \
                 its own (systemd: Delegate=yes)",
                own.display()
            ))
        })?;
    }
    Ok(())
}

/// Hands the memory controller to `cg`'s children (v2).
fn enable_memory(cg: &Path) -> Result<(), CgroupError> {
    if read(cg, "cgroup.subtree_control")?
        .split_whitespace()
        .any(|c| c == "memory")
    {
        return Ok(());
    }
    write(cg, "cgroup.subtree_control", "+memory")
}

fn make_dir(path: &Path) -> Result<(), CgroupError> {
    match fs::create_dir(path) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(io_at(path)(e)),
        _ => Ok(()),
    }
}

fn write(cg: &Path, file: &str, value: &str) -> Result<(), CgroupError> {
    let path = cg.join(file);
    fs::write(&path, value).map_err(io_at(&path))
}

fn read(cg: &Path, file: &str) -> Result<String, CgroupError> {
    let path = cg.join(file);
    fs::read_to_string(&path).map_err(io_at(&path))
}

/// The processes in `cg`.
fn members(cg: &Path) -> Vec<i32> {
    fs::read_to_string(cg.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// SIGKILLs every process in `cg` until none is left (a second at most).
fn kill_all(cg: &Path) {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let pids = members(cg);
        if pids.is_empty() || Instant::now() > deadline {
            return;
        }
        for pid in pids {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_supervise::cgroup::{oom_kills, oom_message};

    #[test]
    fn the_own_cgroup_is_read_per_version() {
        let text = "12:pids:/a\n4:memory:/process_api/x\n1:cpu,cpuacct:/b\n0::/system.slice/spurd.service\n";
        assert_eq!(
            own_path(text, Version::V1).as_deref(),
            Some("/process_api/x")
        );
        assert_eq!(
            own_path(text, Version::V2).as_deref(),
            Some("/system.slice/spurd.service")
        );
        assert_eq!(own_path("4:memory:/\n", Version::V2), None);
        assert_eq!(own_path("1:name=systemd:/\n", Version::V1), None);
    }

    #[test]
    fn oom_kills_are_read_from_either_version_s_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(oom_kills(dir.path()), 0);
        fs::write(
            dir.path().join("memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
        )
        .unwrap();
        assert_eq!(oom_kills(dir.path()), 2);
        fs::write(
            dir.path().join("memory.events"),
            "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\noom_group_kill 0\n",
        )
        .unwrap();
        assert_eq!(oom_kills(dir.path()), 1);
    }

    #[test]
    fn confinement_needs_both_the_task_plugin_and_constrain_ram_space() {
        let mut conf = CgroupConf::default();
        assert!(Memcg::setup(&conf, Some("task/cgroup"), "n1", 1000)
            .unwrap()
            .is_none());
        conf.constrain_ram_space = true;
        assert!(Memcg::setup(&conf, Some("task/affinity"), "n1", 1000)
            .unwrap()
            .is_none());
        assert!(Memcg::setup(&conf, None, "n1", 1000).unwrap().is_none());
        // Asked for where there is no hierarchy: an error, not silence.
        conf.mountpoint = PathBuf::from("/nonexistent");
        conf.plugin = CgroupPlugin::V1;
        let e = Memcg::setup(&conf, Some("task/affinity,task/cgroup"), "n1", 1000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ConstrainRAMSpace=yes, but /nonexistent/memory is no cgroup v1 memory hierarchy"
        );
    }

    #[test]
    fn the_slurmstepd_line_names_the_step() {
        assert_eq!(
            oom_message(1, "StepId=7.batch"),
            "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=7.batch. Some of \
             your processes may have been killed by the cgroup out-of-memory handler."
        );
    }
}
