//! Job folders kept for the next job. A batch job's folder holds its
//! launch file and its script: making the three and deleting them again
//! for every job costs three inodes a job, and an ext4 without a journal
//! scans past every inode freed lately for each one it hands out, so that
//! a node whose jobs delete files near its spool pays more for each
//! launch (an agent took 0.95-1.01 ms of CPU a job after 20,000 files
//! were deleted beside its spool, against 0.38-0.43 ms with folders
//! kept). An ended job's folder instead moves to `spare/` in the spool,
//! and the next job's folder is made ready there, its launch written over
//! the last one, and renamed into place whole.
//!
//! A script file is kept only for the next job of the user who owns it:
//! its processes may still hold it open, and no other user's job may be
//! handed a file they could write into. A folder a process still holds
//! the job's lock in, or one holding anything but the launch and the
//! script (a step's folder), is deleted as before.

use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tracing::debug;

use spur_supervise::{LAUNCH_FILE, SCRIPT_FILE};

/// The most folders kept: as many as the node's short jobs run at once,
/// in practice; one more beyond these is deleted.
const MOST_KEPT: usize = 128;

/// The spool's spare job folders.
pub struct Spares {
    /// `spare/` in the spool: root's alone, so a folder in it is private
    /// until it is renamed into place.
    dir: PathBuf,
    free: Vec<Spare>,
    /// The next spare folder's name.
    next: u64,
}

/// A kept folder.
struct Spare {
    path: PathBuf,
    /// The owner of the script left in it, if one is.
    script_owner: Option<u32>,
}

impl Spares {
    /// The spare folders of the spool at `spool`, as a previous agent left
    /// them; `spare/` is made if missing.
    pub fn open(spool: &Path) -> Result<Spares> {
        let mut spares = Spares {
            dir: super::private_folder(spool, "spare")?,
            free: Vec::new(),
            next: 0,
        };
        for entry in std::fs::read_dir(&spares.dir)?.flatten() {
            let path = entry.path();
            let number = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u64>().ok());
            match number {
                Some(n) if spares.free.len() < MOST_KEPT => {
                    spares.next = spares.next.max(n + 1);
                    let script_owner = script_owner(&path);
                    spares.free.push(Spare { path, script_owner });
                }
                _ => remove(&path),
            }
        }
        Ok(spares)
    }

    /// A private folder for a job of `uid` and group `gid`, handed to the
    /// job ([`hand_to_group`]): a spare one (with the script of an earlier
    /// job of `uid`, or none), else a new one. The caller fills it and
    /// renames it into place.
    pub fn take(&mut self, uid: u32, gid: u32) -> Result<PathBuf> {
        while let Some(spare) = self.pick(uid) {
            let stale_script = spare.script_owner.is_some_and(|owner| owner != uid);
            let ready = hand_to_group(&spare.path, gid).and_then(|()| {
                if stale_script {
                    std::fs::remove_file(spare.path.join(SCRIPT_FILE))?;
                }
                Ok(())
            });
            match ready {
                Ok(()) => return Ok(spare.path),
                // Removed from under the agent, or not ours to hand over:
                // forgotten.
                Err(_) => remove(&spare.path),
            }
        }
        let path = self.dir.join(self.next.to_string());
        self.next += 1;
        std::fs::create_dir(&path).with_context(|| format!("while creating {}", path.display()))?;
        if let Err(e) = hand_to_group(&path, gid) {
            remove(&path);
            return Err(e);
        }
        Ok(path)
    }

    /// The spare best for a job of `uid`, out of the pool: one with its
    /// script, else one without a script, else any.
    fn pick(&mut self, uid: u32) -> Option<Spare> {
        let at = (self.free.iter().position(|s| s.script_owner == Some(uid)))
            .or_else(|| self.free.iter().position(|s| s.script_owner.is_none()))
            .or_else(|| self.free.len().checked_sub(1))?;
        Some(self.free.swap_remove(at))
    }

    /// Gives back `folder`, a folder from [`Spares::take`] that did not
    /// become a job's.
    pub fn give_back(&mut self, folder: &Path) {
        remove(folder);
    }

    /// The folder `dir` of a job whose end the controller has
    /// acknowledged: kept for a later job where it can be, else deleted.
    pub fn keep(&mut self, dir: &Path) {
        if self.free.len() >= MOST_KEPT {
            return remove(dir);
        }
        match self.empty(dir) {
            Some(script_owner) => {
                let path = self.dir.join(self.next.to_string());
                self.next += 1;
                match std::fs::rename(dir, &path) {
                    Ok(()) => self.free.push(Spare { path, script_owner }),
                    Err(_) => remove(dir),
                }
            }
            None => remove(dir),
        }
    }

    /// Empties the ended job's folder `dir` for reuse: everything but the
    /// launch and the script deleted; the script's owner, if it has one.
    /// The launch file keeps the ended job's launch, root's alone in
    /// `spare/`, until the next job's is written over it: emptying it now
    /// would make ext4 write it out to disk when it is next closed.
    /// None where the folder cannot be kept: a process of the job still
    /// holds its lock, or it holds a folder (a step's, still ending).
    fn empty(&self, dir: &Path) -> Option<Option<u32>> {
        let launch = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(dir.join(LAUNCH_FILE))
            .ok()?;
        if !super::lock_is_free(&launch) {
            debug!(folder = %dir.display(), "a process of the ended job holds its lock");
            return None;
        }
        let mut script_owner = None;
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let name = entry.file_name();
            let kind = entry.file_type().ok()?;
            if name == LAUNCH_FILE && kind.is_file() {
                continue;
            }
            if name == SCRIPT_FILE && kind.is_file() {
                script_owner = Some(entry.metadata().ok()?.uid());
                continue;
            }
            if kind.is_dir() {
                return None;
            }
            std::fs::remove_file(entry.path()).ok()?;
        }
        Some(script_owner)
    }
}

/// The owner of the script in the spare folder `folder`, if it has one.
fn script_owner(folder: &Path) -> Option<u32> {
    let meta = std::fs::symlink_metadata(folder.join(SCRIPT_FILE)).ok()?;
    meta.is_file().then(|| meta.uid())
}

/// Deletes a folder that is not kept.
fn remove(path: &Path) {
    let _ = std::fs::remove_dir_all(path);
}

/// Makes `folder` the folder of a job of group `gid`: root's, as slurmd's
/// is, the job's group allowed to enter it (to run the script), nobody
/// else to write in it.
fn hand_to_group(folder: &Path, gid: u32) -> Result<()> {
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o750))?;
    std::os::unix::fs::chown(folder, None, Some(gid))
        .or_else(|e| {
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                Ok(())
            } else {
                Err(e)
            }
        })
        .context("while handing the job folder to its group")
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;

    use super::*;

    fn uid() -> u32 {
        // SAFETY: getuid has no preconditions.
        unsafe { libc::getuid() }
    }

    fn gid() -> u32 {
        // SAFETY: getgid has no preconditions.
        unsafe { libc::getgid() }
    }

    /// A job folder in `spool` as an ended job leaves it.
    fn ended_job(spool: &Path, name: &str, extra: &[&str]) -> PathBuf {
        let dir = spool.join(name);
        std::fs::create_dir(&dir).expect("job folder");
        std::fs::write(dir.join(LAUNCH_FILE), b"the job's environment").expect("launch");
        std::fs::write(dir.join(SCRIPT_FILE), b"#!/bin/sh\ntrue\n").expect("script");
        for name in extra {
            std::fs::write(dir.join(name), b"x").expect("extra file");
        }
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("lists")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_ended_jobs_folder_is_cleared_and_taken_by_the_next_job_of_its_user() {
        let spool = tempfile::tempdir().expect("temp dir");
        let mut spares = Spares::open(spool.path()).expect("opens");
        let dir = ended_job(spool.path(), "job0000000001", &["notice", "cgroup"]);
        let launch_inode = std::fs::metadata(dir.join(LAUNCH_FILE))
            .expect("stat")
            .ino();
        spares.keep(&dir);
        assert!(!dir.exists(), "moved out of the spool");
        let taken = spares.take(uid(), gid()).expect("a folder");
        assert!(taken.starts_with(spool.path().join("spare")), "private");
        assert_eq!(names(&taken), [LAUNCH_FILE, SCRIPT_FILE]);
        let launch = std::fs::metadata(taken.join(LAUNCH_FILE)).expect("stat");
        assert_eq!(
            launch.ino(),
            launch_inode,
            "the same file, to be written over"
        );
        // None left: the next is new.
        let new = spares.take(uid(), gid()).expect("a folder");
        assert_ne!(new, taken);
        assert!(names(&new).is_empty());
    }

    #[test]
    fn another_users_job_never_gets_the_script() {
        let spool = tempfile::tempdir().expect("temp dir");
        let mut spares = Spares::open(spool.path()).expect("opens");
        spares.keep(&ended_job(spool.path(), "job0000000001", &[]));
        let taken = spares.take(uid() + 1, gid()).expect("a folder");
        assert_eq!(names(&taken), [LAUNCH_FILE]);
    }

    #[test]
    fn a_spare_folder_removed_from_under_the_agent_is_passed_over() {
        let spool = tempfile::tempdir().expect("temp dir");
        let mut spares = Spares::open(spool.path()).expect("opens");
        spares.keep(&ended_job(spool.path(), "job0000000001", &[]));
        std::fs::remove_dir_all(spool.path().join("spare/0")).expect("removed");
        let taken = spares.take(uid(), gid()).expect("a folder");
        assert_eq!(taken, spool.path().join("spare/1"));
        assert!(taken.is_dir() && names(&taken).is_empty());
    }

    #[test]
    fn a_folder_still_locked_or_holding_a_step_is_deleted() {
        let spool = tempfile::tempdir().expect("temp dir");
        let mut spares = Spares::open(spool.path()).expect("opens");
        let locked = ended_job(spool.path(), "job0000000001", &[]);
        let lock = std::fs::File::open(locked.join(LAUNCH_FILE)).expect("opens");
        // SAFETY: flock on a descriptor we own.
        assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
        spares.keep(&locked);
        let with_step = ended_job(spool.path(), "job0000000002", &[]);
        std::fs::create_dir(with_step.join("step0")).expect("step folder");
        spares.keep(&with_step);
        assert!(!locked.exists() && !with_step.exists());
        assert!(names(&spool.path().join("spare")).is_empty());
    }

    #[test]
    fn a_restarted_agent_finds_the_spare_folders_and_numbers_after_them() {
        let spool = tempfile::tempdir().expect("temp dir");
        let mut spares = Spares::open(spool.path()).expect("opens");
        spares.keep(&ended_job(spool.path(), "job0000000001", &[]));
        spares.keep(&ended_job(spool.path(), "job0000000002", &[]));
        drop(spares);
        std::fs::create_dir(spool.path().join("spare/stray")).expect("stray");
        let mut again = Spares::open(spool.path()).expect("opens");
        assert_eq!(names(&spool.path().join("spare")), ["0", "1"]);
        let a = again.take(uid(), gid()).expect("a folder");
        let b = again.take(uid(), gid()).expect("a folder");
        assert_eq!(names(&a), [LAUNCH_FILE, SCRIPT_FILE]);
        assert_eq!(names(&b), [LAUNCH_FILE, SCRIPT_FILE]);
        let c = again.take(uid(), gid()).expect("a folder");
        assert_eq!(c, spool.path().join("spare/2"));
    }
}
