//! `spur-supervise DIR`: the process that runs one job's batch script. The
//! agent starts it in its own process group, so it outlives an agent
//! restart, with the job's lock as its standard input. It writes the
//! script into the job's folder DIR, drops to the job's user, opens the
//! output files as that user, forks the script in a new process group,
//! waits, and records the script's end in the launch file for whichever
//! agent is running then. Single-threaded on purpose: it forks.
//!
//! The job's folder on its node (`job0000000007`, as slurmd's) belongs to
//! root, with the job's group allowed to enter it and nobody else to write
//! in it: it holds the agent's files for the supervisor (the launch, the
//! cgroup to join, notices), the supervisor's record, the script (which
//! belongs to the job's user) and the job's steps on this node.

use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::process::ExitCode;

use spur_proto::{BatchLaunch, OpenMode, PatternValues};

use crate::cgroup;
use crate::exec::{apply_umask, become_user, Image};
use crate::rusage::{self, TaskRusage};

/// What the agent leaves for the supervisor in the job's folder: the
/// job and the groups it runs with ([`launch_bytes`]), then the
/// supervisor's record of the script, appended: its pid (its process
/// group) once forked, then `end CODE SIGNAL END_TIME` once it has ended
/// (or could not start), followed by what it used ([`TaskRusage::words`]).
/// The record is written through a descriptor opened while still root,
/// so the agent may believe it; one file for both is one file fewer to
/// make and remove per job. It is also the job's lock: the agent locks it
/// before it starts the supervisor, which holds the lock (and the script
/// after it) as long as it lives. Only root reads it: it holds the job's
/// environment.
pub const LAUNCH_FILE: &str = "launch.bin";
/// The batch script, as slurmd names it.
pub const SCRIPT_FILE: &str = "slurm_script";
/// A line of slurmstepd's for the script's stderr, left by the agent in
/// the job's folder.
pub const NOTICE_FILE: &str = "notice";

/// The launch file's contents: `job`, to run with supplementary `groups`
/// (resolved by the agent, which may read the user databases), encoded
/// after its length (8 bytes, little-endian), so that the record that
/// follows it is found without decoding it.
pub fn launch_bytes(job: &BatchLaunch, groups: &[u32]) -> Result<Vec<u8>, bincode::Error> {
    let body = bincode::serialize(&(job, groups))?;
    let mut bytes = Vec::with_capacity(LENGTH_BYTES + body.len());
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&body);
    Ok(bytes)
}

/// The launch's length, ahead of it in the launch file.
const LENGTH_BYTES: usize = 8;

/// Where the launch whose length is `header` ends in a launch file of
/// `size` bytes, and the record begins; None where it does not fit.
fn launch_end(header: [u8; LENGTH_BYTES], size: u64) -> Option<u64> {
    let end = u64::from_le_bytes(header).checked_add(LENGTH_BYTES as u64)?;
    (end <= size).then_some(end)
}

/// A launch file's two parts: the encoded launch and the record after it;
/// None where the length ahead of them does not fit the file.
fn split_launch(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let (header, _) = bytes.split_first_chunk::<LENGTH_BYTES>()?;
    let end = usize::try_from(launch_end(*header, bytes.len() as u64)?).ok()?;
    Some((&bytes[LENGTH_BYTES..end], &bytes[end..]))
}

/// The supervisor's record of the job in `dir`, as far as it has written
/// it; the launch ahead of it (the script, the environment) is skipped,
/// not read.
fn record(dir: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = fs::File::open(dir.join(LAUNCH_FILE)).ok()?;
    let mut header = [0; LENGTH_BYTES];
    file.read_exact(&mut header).ok()?;
    let end = launch_end(header, file.metadata().ok()?.len())?;
    file.seek(SeekFrom::Start(end)).ok()?;
    let mut record = Vec::new();
    file.read_to_end(&mut record).ok()?;
    Some(String::from_utf8_lossy(&record).into_owned())
}

/// Leaves `line` in the job's folder `dir` for the supervisor to write
/// into the script's stderr; it looks at least four times a second.
pub fn post_notice(dir: &Path, line: &str) {
    let tmp = dir.join("notice.tmp");
    let _ =
        fs::write(&tmp, format!("{line}\n")).and_then(|()| fs::rename(&tmp, dir.join(NOTICE_FILE)));
}

/// Writes the agent's notice into `stderr` the first time one is there.
fn take_notice(dir: &Path, stderr: &fs::File, told: &mut bool) {
    if *told {
        return;
    }
    if let Ok(line) = fs::read_to_string(dir.join(NOTICE_FILE)) {
        *told = true;
        let _ = (&*stderr).write_all(line.as_bytes());
    }
}

/// Runs the job whose launch file is in its folder `dir`.
pub fn run(dir: &Path) -> ExitCode {
    crate::exec::ignore_signals();
    // SAFETY: initialising a signal set and blocking it at startup.
    unsafe {
        // SIGCHLD is taken with sigtimedwait, so it must stay pending.
        let mut chld: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
        libc::sigprocmask(libc::SIG_BLOCK, &chld, std::ptr::null_mut());
    }
    let record = keep_lock().and_then(|()| {
        fs::OpenOptions::new()
            .append(true)
            .open(dir.join(LAUNCH_FILE))
    });
    // Nowhere to record anything: the agent finds no end, and reports the
    // job killed.
    let Ok(mut record) = record else {
        return ExitCode::FAILURE;
    };
    let (status, usage) = match launch(dir, &record) {
        Ok(started) => {
            let mut told = false;
            let (status, usage) =
                wait(started.pid, || take_notice(dir, &started.stderr, &mut told));
            take_notice(dir, &started.stderr, &mut told);
            (out_of_memory(&started).unwrap_or(status), usage)
        }
        Err(e) => {
            // One line, before the end.
            let line = format!("error {}\n", e.replace('\n', " "));
            let _ = record.write_all(line.as_bytes());
            ((1, 0), TaskRusage::default())
        }
    };
    let end = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // One write of one short line: a reader sees all of it or none.
    let line = format!("end {} {} {end} {}\n", status.0, status.1, usage.words());
    match record.write_all(line.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// The job's lock comes as standard input: it moves to a descriptor the
/// script inherits (so that the lock lives as long as either), and standard
/// input becomes /dev/null.
fn keep_lock() -> std::io::Result<()> {
    // SAFETY: F_DUPFD gives a new descriptor (without close-on-exec) for
    // one this process holds; dup2 replaces standard input with one it
    // opened.
    unsafe {
        if libc::fcntl(0, libc::F_DUPFD, 3) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let null = fs::File::open("/dev/null")?;
        if libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 0) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// What the supervisor of a job recorded, as far as it has written it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    /// The script's pid (its process group), once forked.
    pub pid: Option<i32>,
    /// Why the script could not be started, if it could not.
    pub error: Option<String>,
    /// How it ended: (code, signal, end time), once it has.
    pub end: Option<(i32, i32, u64)>,
    /// What it used, once it has ended (None from a supervisor that did
    /// not record it).
    pub usage: Option<TaskRusage>,
}

impl Record {
    fn parse(text: &str) -> Record {
        let pid = text.lines().next().and_then(|l| l.parse().ok());
        let error = text.lines().find_map(|l| l.strip_prefix("error "));
        let end = text.lines().find_map(|l| l.strip_prefix("end "));
        let status = |line: &str| {
            let mut it = line.split_whitespace();
            Some((
                it.next()?.parse().ok()?,
                it.next()?.parse().ok()?,
                it.next()?.parse().ok()?,
            ))
        };
        Record {
            pid: pid.filter(|&p: &i32| p > 1),
            error: error.map(str::to_string),
            end: end.and_then(status),
            usage: end.and_then(|l| TaskRusage::parse(&mut l.split_whitespace().skip(3))),
        }
    }
}

/// The record of the supervisor of the job in `dir`; None before there is
/// a whole launch file.
pub fn read_record(dir: &Path) -> Option<Record> {
    record(dir).map(|text| Record::parse(&text))
}

/// The end the supervisor of the job in `dir` recorded: (code, signal,
/// end time), once there is one.
pub fn read_status(dir: &Path) -> Option<(i32, i32, u64)> {
    read_record(dir)?.end
}

/// The script's pid (its process group) the supervisor of the job in
/// `dir` recorded, once forked.
pub fn script_pid(dir: &Path) -> Option<i32> {
    read_record(dir)?.pid
}

fn io_err(what: &str, e: std::io::Error) -> String {
    format!("{what}: {e}")
}

/// A script that started.
struct Started {
    pid: libc::pid_t,
    job_id: u32,
    /// The memory cgroup it runs in, if memory is confined.
    cgroup: Option<std::path::PathBuf>,
    /// Its stderr, for slurmstepd's own lines.
    stderr: fs::File,
}

/// The status of a script whose processes the out-of-memory killer took
/// (slurmstepd's SIG_OOM, whatever the script's own status), after
/// slurmstepd's line in its stderr.
fn out_of_memory(started: &Started) -> Option<(i32, i32)> {
    let kills = started.cgroup.as_deref().map_or(0, cgroup::oom_kills);
    if kills == 0 {
        return None;
    }
    let line = cgroup::oom_message(kills, &format!("StepId={}.batch", started.job_id));
    let _ = writeln!(&started.stderr, "{line}");
    Some((0, spur_proto::SIG_OOM))
}

fn launch(dir: &Path, record: &fs::File) -> Result<Started, String> {
    let bytes =
        fs::read(dir.join(LAUNCH_FILE)).map_err(|e| io_err("reading the launch file", e))?;
    let decoded = split_launch(&bytes)
        .ok_or_else(|| "its length does not fit the file".to_string())
        .and_then(|(launch, _)| bincode::deserialize(launch).map_err(|e| e.to_string()));
    let (mut job, groups): (BatchLaunch, Vec<u32>) = match decoded {
        Ok(decoded) => decoded,
        Err(e) => {
            // What follows would be no record the agent can find: the
            // file becomes the header of an empty launch, and the record
            // follows that.
            let header = 0u64.to_le_bytes();
            let _ = record.set_len(0).and_then(|()| {
                let mut f = record;
                f.write_all(&header)
            });
            return Err(format!("malformed launch file: {e}"));
        }
    };
    // Into the job's memory cgroup while still root; the script and all
    // it starts are born there.
    let cgroup = cgroup::join_from(&dir.join(cgroup::CGROUP_FILE))?;
    // The script, written while still root in root's folder, then handed
    // to the job's user, as slurmd does.
    let script = dir.join(SCRIPT_FILE);
    write_script(&script, &job)?;
    become_user(job.uid, job.gid, &groups)?;
    // Files the job creates, its output files first, get the submitter's
    // umask (SLURM_UMASK, set by sbatch); the batch script itself does
    // not see the variable, as slurmstepd's set_umask removes it.
    apply_umask(&job.env);
    job.env.retain(|(k, _)| k != "SLURM_UMASK");
    std::env::set_current_dir(&job.work_dir)
        .map_err(|e| io_err(&format!("entering {}", job.work_dir), e))?;
    let host = spur_sys::short_hostname();
    let values = PatternValues {
        job_id: job.job_id,
        array_job_id: job.array.map(|a| a.0),
        array_task_id: job.array.map(|a| a.1),
        node: &host,
        user: &job.user_name,
        job_name: &job.name,
        ..Default::default()
    };
    let stdout_path = spur_proto::pattern::expand(&job.stdout, &values);
    let stdout = open_output(&stdout_path, job.open_mode)?;
    let stderr = match &job.stderr {
        Some(p) => open_output(&spur_proto::pattern::expand(p, &values), job.open_mode)?,
        None => stdout
            .try_clone()
            .map_err(|e| io_err("duplicating stdout", e))?,
    };
    let stdin_path = spur_proto::pattern::expand(&job.stdin, &values);
    let stdin =
        fs::File::open(&stdin_path).map_err(|e| io_err(&format!("opening {stdin_path}"), e))?;
    let own_stderr = stderr
        .try_clone()
        .map_err(|e| io_err("duplicating stderr", e))?;
    let pid = spawn(&job, &script, [stdin, stdout, stderr], record)?;
    Ok(Started {
        pid,
        job_id: job.job_id,
        cgroup,
        stderr: own_stderr,
    })
}

/// Writes the batch script of `job` at `path`, executable by the job's
/// user alone, and gives it to that user. The agent may leave an earlier
/// job's script of the same user there to be written over (in place,
/// [`spur_sys::rewrite`]); one that a process of that job still runs is
/// replaced instead.
fn write_script(path: &Path, job: &BatchLaunch) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    let mut open = fs::OpenOptions::new();
    open.write(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o700);
    let file = match open.open(path) {
        Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => {
            fs::remove_file(path).and_then(|()| open.open(path))
        }
        opened => opened,
    }
    .map_err(|e| io_err("writing the script", e))?;
    spur_sys::rewrite(&file, job.script.as_bytes()).map_err(|e| io_err("writing the script", e))?;
    // The mode asked for, whatever the umask.
    file.set_permissions(fs::Permissions::from_mode(0o700))
        .map_err(|e| io_err("making the script executable", e))?;
    // SAFETY: fchown on a descriptor this process holds.
    if unsafe { libc::fchown(file.as_raw_fd(), job.uid, job.gid) } != 0 {
        let e = std::io::Error::last_os_error();
        // An agent that is not root runs its own user's jobs only.
        if e.raw_os_error() != Some(libc::EPERM) {
            return Err(io_err("giving the script to its user", e));
        }
    }
    Ok(())
}

/// How long an output file's folder may take to appear. spur starts a job
/// within milliseconds of its submission, sooner than slurmctld ever does,
/// and submitters that create the folder once sbatch has answered (submitit
/// names it after the job id) would otherwise lose that race.
const OUTPUT_FOLDER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Opens an output file, already as the job's user. A symlink at the path
/// is followed only when the job's user or root made it: one planted by
/// another user (in a shared or group-writable folder) would otherwise
/// aim the job's output, truncating or appending, at a file of the job's
/// user that the planter chose.
fn open_output(path: &str, mode: OpenMode) -> Result<fs::File, String> {
    let mut o = fs::OpenOptions::new();
    o.write(true).create(true).mode(0o644);
    match mode {
        OpenMode::Truncate => o.truncate(true),
        OpenMode::Append => o.append(true),
    };
    let mut unfollowed = o.clone();
    unfollowed.custom_flags(libc::O_NOFOLLOW);
    let since = std::time::Instant::now();
    loop {
        let opened = match unfollowed.open(path) {
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                trusted_symlink(path)?;
                o.open(path)
            }
            other => other,
        };
        match opened {
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    && since.elapsed() < OUTPUT_FOLDER_WAIT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            result => return result.map_err(|e| io_err(&format!("opening {path}"), e)),
        }
    }
}

/// Whether the symlink at `path` may be followed: the job's user (this
/// process, by now) or root owns it.
fn trusted_symlink(path: &str) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let link = fs::symlink_metadata(path).map_err(|e| io_err(&format!("opening {path}"), e))?;
    // SAFETY: getuid has no preconditions.
    let me = unsafe { libc::getuid() };
    if link.uid() == me || link.uid() == 0 {
        return Ok(());
    }
    Err(format!(
        "opening {path}: refusing to follow a symbolic link owned by uid {}, not the job's user",
        link.uid()
    ))
}

fn spawn(
    job: &BatchLaunch,
    script: &Path,
    stdio: [fs::File; 3],
    mut record: &fs::File,
) -> Result<libc::pid_t, String> {
    use std::os::fd::AsRawFd;
    let path = script.as_os_str().as_bytes();
    let argv: Vec<&[u8]> = std::iter::once(path)
        .chain(job.argv.iter().map(|a| a.as_bytes()))
        .collect();
    let mut image = Image::new(path, &argv, &job.env, &script.display().to_string())?;
    let fds = stdio.each_ref().map(|f| f.as_raw_fd());
    // SAFETY: the child makes system calls only: its own process group,
    // then its stdio.
    let pid = unsafe {
        image.spawn(127, || {
            libc::setpgid(0, 0);
            for (target, fd) in fds.iter().enumerate() {
                libc::dup2(*fd, target as i32);
            }
        })
    }
    .map_err(|e| io_err("starting the script", e))?;
    // The parent also sets the group, so the agent can signal it at once.
    // SAFETY: setpgid on our own child.
    unsafe { libc::setpgid(pid, pid) };
    // One write: a formatted write to a file is a write per piece.
    record
        .write_all(format!("{pid}\n").as_bytes())
        .map_err(|e| io_err("writing the pid", e))?;
    Ok(pid)
}

/// Waits for the script, calling `tick` at least four times a second
/// meanwhile (SIGCHLD, blocked, ends each nap at once); its status and
/// what it used.
fn wait(pid: libc::pid_t, mut tick: impl FnMut()) -> ((i32, i32), TaskRusage) {
    // SAFETY: an all-zero sigset_t is valid for sigemptyset to fill.
    let mut chld: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: initialising our own set.
    unsafe {
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
    }
    let nap = libc::timespec {
        tv_sec: 0,
        tv_nsec: 250_000_000,
    };
    let (status, usage) = loop {
        match rusage::reap(pid) {
            Ok(Some((_, status, usage))) => break (status, usage),
            Ok(None) => {}
            Err(_) => return ((1, 0), TaskRusage::default()),
        }
        tick();
        // SAFETY: the set is initialised; the info pointer may be null.
        unsafe { libc::sigtimedwait(&chld, std::ptr::null_mut(), &nap) };
    };
    let status = if libc::WIFEXITED(status) {
        (libc::WEXITSTATUS(status), 0)
    } else if libc::WIFSIGNALED(status) {
        (0, libc::WTERMSIG(status))
    } else {
        (1, 0)
    };
    (status, usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_read_as_far_as_it_is_written() {
        assert_eq!(Record::parse(""), Record::default());
        let started = Record::parse("4321\n");
        assert_eq!((started.pid, started.end), (Some(4321), None));
        let ended = Record::parse("4321\nend 3 0 1796588951 1100 20 1516 2\n");
        assert_eq!(ended.end, Some((3, 0, 1_796_588_951)));
        let usage = ended.usage.expect("what it used");
        assert_eq!((usage.user_us, usage.max_rss_kib), (1100, 1516));
        assert_eq!(ended.error, None);
        // A script that never started has no pid, and says why.
        let failed = Record::parse("error entering /gone: No such file\nend 1 0 17 0 0 0 0\n");
        assert_eq!(failed.pid, None);
        assert_eq!(
            failed.error.as_deref(),
            Some("entering /gone: No such file")
        );
        assert_eq!(failed.end.map(|e| e.0), Some(1));
    }

    #[test]
    fn a_launch_is_found_by_its_length_and_the_record_after_it() {
        let mut bytes = 3u64.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"abc4321\n");
        assert_eq!(split_launch(&bytes), Some((&b"abc"[..], &b"4321\n"[..])));
        // A length the file does not hold: no launch, and no record.
        assert_eq!(split_launch(&bytes[..9]), None);
        assert_eq!(split_launch(&[1, 2]), None);
    }
}
