//! `spurd step DIR`: the process that runs one node's part of a job step
//! (Slurm's slurmstepd). The agent starts it with srun's connection as
//! file descriptor 3 and the verified launch in DIR/launch.bin, in its own
//! session, so that it outlives an agent restart. It drops to the job's
//! user, forks the node's tasks into one process group (recorded in
//! DIR/pgid for the agent's kills), relays their output to srun and srun's
//! input to task 0, forwards srun's signals, reports each task's exit, and
//! kills the tasks if srun goes away. Single-threaded on purpose: it forks.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use spur_proto::{frame, FromStep, StepStdin, TaskLaunch, ToStep};
use spur_supervise::exec::{cstring, Image};
use spur_supervise::rusage::{self, TaskRusage};

/// The launch the agent verified, for the step process.
pub const LAUNCH_FILE: &str = "launch.bin";
/// The tasks' process group.
pub const PGID_FILE: &str = "pgid";
/// The node's tasks for the agent's samples: `node INDEX` (this node's
/// place among the step's), then a line `TASK_ID PID` each.
pub const TASKS_FILE: &str = "tasks";
/// What each task used, once all have ended: `TASK_ID` and
/// [`spur_supervise::rusage::TaskRusage::words`], a line each.
pub const USAGE_FILE: &str = "usage";
/// srun's connection, as the step process receives it.
pub const SRUN_FD: RawFd = 3;

/// The write end of the SIGCHLD self-pipe.
static CHILD_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_sigchld(_: libc::c_int) {
    let fd = CHILD_PIPE.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: write is async-signal-safe; the byte only wakes poll.
        unsafe { libc::write(fd, [0u8].as_ptr().cast(), 1) };
    }
}

/// One task on this node.
struct Task {
    /// Global task id.
    id: u32,
    pid: libc::pid_t,
    out: Option<RawFd>,
    err: Option<RawFd>,
    status: Option<(i32, i32)>,
    /// What it used, once reaped.
    usage: Option<TaskRusage>,
    reported: bool,
}

/// Runs the step whose launch is in `dir`, talking to srun on fd 3.
pub fn run(dir: &Path) -> ExitCode {
    // The tasks get the defaults back.
    spur_supervise::exec::ignore_signals();
    // SAFETY: the agent passes srun's socket as fd 3 and nothing else owns
    // it; the tasks must not inherit it.
    let mut srun = unsafe {
        libc::fcntl(SRUN_FD, libc::F_SETFD, libc::FD_CLOEXEC);
        TcpStream::from_raw_fd(SRUN_FD)
    };
    let launch = match std::fs::read(dir.join(LAUNCH_FILE))
        .map_err(|e| e.to_string())
        .and_then(|b| bincode::deserialize::<TaskLaunch>(&b).map_err(|e| e.to_string()))
    {
        Ok(l) => l,
        Err(e) => {
            let _ = frame::write_sync(
                &mut srun,
                &FromStep::Failed {
                    message: format!("malformed step launch: {e}"),
                },
            );
            return ExitCode::FAILURE;
        }
    };
    let code = match Step::start(&launch, dir, &mut srun) {
        Ok(mut step) => {
            step.relay(&mut srun);
            ExitCode::SUCCESS
        }
        Err(message) => {
            let _ = frame::write_sync(&mut srun, &FromStep::Failed { message });
            ExitCode::FAILURE
        }
    };
    // The launcher removes the step's folder (root's) once this ends.
    code
}

struct Step {
    tasks: Vec<Task>,
    pgid: libc::pid_t,
    /// The write ends of the pipes of the tasks that read srun's stdin.
    stdin: Vec<RawFd>,
    child_pipe: RawFd,
    deadline: Option<Instant>,
    killed: bool,
    label: String,
    node: String,
    /// The step's memory cgroup, if memory is confined.
    cgroup: Option<std::path::PathBuf>,
    /// Whether srun was told of the out-of-memory killer.
    oom_told: bool,
    /// Where the tasks' usage goes when they have all ended.
    usage_file: std::fs::File,
}

fn pipe() -> Result<(RawFd, RawFd), String> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    Ok((fds[0], fds[1]))
}

/// An error in strerror's words, as slurmstepd prints them (without Rust's
/// `(os error N)`).
fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    text.split(" (os error").next().unwrap_or(&text).to_string()
}

/// Opens a task's stdin file, as the step's user.
fn open_input(path: &str) -> Result<RawFd, String> {
    let c = cstring(path)?;
    // SAFETY: open of a NUL-terminated path; the descriptor is ours.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        let why = strerror(&std::io::Error::last_os_error());
        return Err(format!("Could not open stdin file {path}: {why}"));
    }
    Ok(fd)
}

fn close(fd: RawFd) {
    // SAFETY: closing a descriptor this process owns.
    unsafe { libc::close(fd) };
}

impl Step {
    fn start(launch: &TaskLaunch, dir: &Path, srun: &mut TcpStream) -> Result<Step, String> {
        let grant = &launch.grant;
        let index = launch.node_index as usize;
        let node = grant
            .nodes
            .get(index)
            .ok_or_else(|| "the launch names no node of its step".to_string())?;
        // Into the step's memory cgroup while still root; the tasks are
        // born there.
        let cgroup = spur_supervise::cgroup::join_from(&dir.join(super::cgroup::CGROUP_FILE))?;
        // The process group goes in the step's folder (root's), through a
        // file opened while still root.
        let root_file = |name: &str| {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(dir.join(name))
                .map_err(|e| format!("cannot open the step's {name} file: {e}"))
        };
        let pgid_file = root_file(PGID_FILE)?;
        let tasks_file = root_file(TASKS_FILE)?;
        let usage_file = root_file(USAGE_FILE)?;
        let groups = spur_sys::users::group_list(&grant.user_name, grant.gid);
        spur_supervise::exec::become_user(grant.uid, grant.gid, &groups)?;
        spur_supervise::exec::apply_umask(&launch.env);
        if let Err(e) = std::env::set_current_dir(&launch.cwd) {
            // strerror's words, as slurmstepd prints them.
            let why = strerror(&e);
            let text = format!(
                "slurmstepd: error: couldn't chdir to `{}': {why}: going to /tmp instead\n",
                launch.cwd
            );
            let _ = frame::write_sync(
                srun,
                &FromStep::Output {
                    task: node.tasks.first().copied().unwrap_or(0),
                    stderr: true,
                    data: text.into_bytes(),
                },
            );
            let _ = std::env::set_current_dir("/tmp");
        }
        // The environment: the user's (per --export), then the job's and
        // the step's from the controller, then this node's.
        let mut env: Vec<(String, String)> = launch
            .env
            .iter()
            .filter(|(k, _)| !crate::controller::env::is_step_gpu_binding(k))
            .cloned()
            .collect();
        env.extend(grant.env.iter().cloned());
        env.extend(node.env.iter().cloned());
        let gpus = node
            .gpus
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let mut set = |k: &str, v: String| env.push((k.to_string(), v));
        set("SLURMD_NODENAME", node.name.clone());
        set("SLURM_NODEID", index.to_string());
        set("SLURM_CPUS_ON_NODE", node.cpus.to_string());
        set(
            "SLURM_GTIDS",
            node.tasks
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        );
        if let Ok(peer) = srun.peer_addr() {
            // srun talks to the step over this connection: its address and
            // port are where the step reaches srun.
            set("SLURM_LAUNCH_NODE_IPADDR", peer.ip().to_string());
            set("SLURM_SRUN_COMM_HOST", peer.ip().to_string());
            set("SLURM_SRUN_COMM_PORT", peer.port().to_string());
            set("SLURM_STEP_LAUNCHER_PORT", peer.port().to_string());
        }
        if !node.gpus.is_empty() {
            for k in [
                "CUDA_VISIBLE_DEVICES",
                "GPU_DEVICE_ORDINAL",
                "ROCR_VISIBLE_DEVICES",
                "ZE_AFFINITY_MASK",
            ] {
                set(k, gpus.clone());
            }
            set("SLURM_STEP_GPUS", gpus);
            set("SLURM_GPUS_ON_NODE", node.gpus.len().to_string());
        }
        let label = format!("StepId={}.{}", grant.job_id, grant.step_id);

        let (child_read, child_write) = pipe()?;
        CHILD_PIPE.store(child_write, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: installing an async-signal-safe handler.
        unsafe { libc::signal(libc::SIGCHLD, on_sigchld as *const () as libc::sighandler_t) };

        // Every task's stdin file opens before any task starts, so that a
        // missing one fails the launch with nothing left running.
        let mut files = match &launch.stdin {
            StepStdin::Files(paths) => paths
                .iter()
                .map(|p| open_input(p))
                .collect::<Result<Vec<_>, _>>()?,
            _ => Vec::new(),
        }
        .into_iter();
        let mut stdin_write = Vec::new();
        let mut tasks = Vec::with_capacity(node.tasks.len());
        let mut pgid = 0;
        for (local, &id) in node.tasks.iter().enumerate() {
            let argv = multi_prog_command(&launch.multi_prog, id).unwrap_or(launch.argv.clone());
            let (out_r, out_w) = pipe()?;
            let (err_r, err_w) = pipe()?;
            let stdin_fd = match &launch.stdin {
                StepStdin::Srun(which) if which.is_none_or(|t| t == id) => {
                    let (r, w) = pipe()?;
                    stdin_write.push(w);
                    r
                }
                StepStdin::Files(_) => files.next().ok_or("no stdin file for a task")?,
                StepStdin::Srun(_) | StepStdin::Null => open_input("/dev/null")?,
            };
            let mut task_env = env.clone();
            task_env.push(("SLURM_PROCID".into(), id.to_string()));
            task_env.push(("SLURM_LOCALID".into(), local.to_string()));
            let pid = spawn(&argv, &task_env, [stdin_fd, out_w, err_w], pgid)?;
            if pgid == 0 {
                pgid = pid;
            }
            for fd in [stdin_fd, out_w, err_w] {
                close(fd);
            }
            tasks.push(Task {
                id,
                pid,
                out: Some(out_r),
                err: Some(err_r),
                status: None,
                usage: None,
                reported: false,
            });
        }
        let _ = (&pgid_file).write_all(format!("{pgid}\n").as_bytes());
        let listed: String = std::iter::once(format!("node {index}\n"))
            .chain(tasks.iter().map(|t| format!("{} {}\n", t.id, t.pid)))
            .collect();
        let _ = (&tasks_file).write_all(listed.as_bytes());
        let pids = tasks.iter().map(|t| t.pid as u32).collect();
        frame::write_sync(srun, &FromStep::Started { pids })
            .map_err(|e| format!("srun went away: {e}"))?;
        Ok(Step {
            tasks,
            pgid,
            stdin: stdin_write,
            child_pipe: child_read,
            deadline: grant
                .time_limit
                .map(|s| Instant::now() + Duration::from_secs(s)),
            killed: false,
            label,
            node: node.name.clone(),
            cgroup,
            oom_told: false,
            usage_file,
        })
    }

    fn signal(&self, sig: i32) {
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(-self.pgid, sig) };
    }

    /// Relays until every task has ended and been reported.
    fn relay(&mut self, srun: &mut TcpStream) {
        let sock = srun.as_raw_fd();
        let mut inbox: Vec<u8> = Vec::new();
        let mut srun_open = true;
        let mut buf = vec![0u8; 64 << 10];
        loop {
            self.reap();
            self.report(srun);
            if self.tasks.iter().all(|t| t.reported) {
                self.record_usage();
                return;
            }
            if let Some(deadline) = self.deadline {
                if Instant::now() >= deadline && !self.killed {
                    self.killed = true;
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs());
                    let entity = self.label.replace("StepId=", "STEP ");
                    let text =
                        spur_proto::KillNotice::TimeLimit.line(&entity, &self.node, now) + "\n";
                    let task = self.tasks.first().map_or(0, |t| t.id);
                    let _ = frame::write_sync(
                        srun,
                        &FromStep::Output {
                            task,
                            stderr: true,
                            data: text.into_bytes(),
                        },
                    );
                    self.signal(libc::SIGKILL);
                }
            }
            let mut fds = vec![libc::pollfd {
                fd: self.child_pipe,
                events: libc::POLLIN,
                revents: 0,
            }];
            if srun_open {
                fds.push(libc::pollfd {
                    fd: sock,
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            for t in &self.tasks {
                for fd in [t.out, t.err].into_iter().flatten() {
                    fds.push(libc::pollfd {
                        fd,
                        events: libc::POLLIN,
                        revents: 0,
                    });
                }
            }
            // SAFETY: fds is a valid array of pollfd.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 200) };
            if n <= 0 {
                continue;
            }
            for p in &fds {
                if p.revents == 0 {
                    continue;
                }
                if p.fd == self.child_pipe {
                    let mut drain = [0u8; 64];
                    // SAFETY: reading into a local buffer.
                    unsafe { libc::read(self.child_pipe, drain.as_mut_ptr().cast(), drain.len()) };
                } else if p.fd == sock {
                    match srun.read(&mut buf) {
                        Ok(0) | Err(_) => {
                            // srun is gone: so is the step.
                            srun_open = false;
                            self.signal(libc::SIGKILL);
                        }
                        Ok(k) => {
                            inbox.extend_from_slice(&buf[..k]);
                            while let Some(msg) = next_frame(&mut inbox) {
                                self.on_srun(msg);
                            }
                        }
                    }
                } else {
                    self.forward_output(p.fd, &mut buf, srun);
                }
            }
        }
    }

    fn on_srun(&mut self, msg: ToStep) {
        match msg {
            ToStep::Stdin(data) => {
                // A task that closed its stdin drops out; the others go on.
                self.stdin.retain(|&fd| {
                    let mut f = std::mem::ManuallyDrop::new(
                        // SAFETY: a borrowed view of our pipe; not closed here.
                        unsafe { std::fs::File::from_raw_fd(fd) },
                    );
                    let written = f.write_all(&data).is_ok();
                    if !written {
                        close(fd);
                    }
                    written
                });
            }
            ToStep::StdinEof => {
                for fd in self.stdin.drain(..) {
                    close(fd);
                }
            }
            ToStep::Signal(sig) => self.signal(sig),
            _ => {}
        }
    }

    fn forward_output(&mut self, fd: RawFd, buf: &mut [u8], srun: &mut TcpStream) {
        let Some(task) = self
            .tasks
            .iter_mut()
            .find(|t| t.out == Some(fd) || t.err == Some(fd))
        else {
            return;
        };
        let stderr = task.err == Some(fd);
        // SAFETY: reading into a buffer we own.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            close(fd);
            if stderr {
                task.err = None;
            } else {
                task.out = None;
            }
            return;
        }
        let msg = FromStep::Output {
            task: task.id,
            stderr,
            data: buf[..n as usize].to_vec(),
        };
        if frame::write_sync(srun, &msg).is_err() {
            self.signal(libc::SIGKILL);
        }
    }

    fn reap(&mut self) {
        while let Ok(Some((pid, status, usage))) = rusage::reap(-1) {
            if let Some(t) = self.tasks.iter_mut().find(|t| t.pid == pid) {
                t.status = Some(if libc::WIFEXITED(status) {
                    (libc::WEXITSTATUS(status), 0)
                } else if libc::WIFSIGNALED(status) {
                    (0, libc::WTERMSIG(status))
                } else {
                    (1, 0)
                });
                t.usage = Some(usage);
            }
        }
    }

    /// Leaves what each task used for the agent, in one write.
    fn record_usage(&mut self) {
        let text: String = self
            .tasks
            .iter()
            .filter_map(|t| Some(format!("{} {}\n", t.id, t.usage?.words())))
            .collect();
        let _ = self.usage_file.write_all(text.as_bytes());
    }

    /// Reports tasks that have ended and whose output is all sent. Once
    /// the out-of-memory killer has struck in the step, every task ends
    /// with slurmstepd's SIG_OOM, after its line.
    fn report(&mut self, srun: &mut TcpStream) {
        for t in &mut self.tasks {
            if t.reported || t.out.is_some() || t.err.is_some() {
                continue;
            }
            if let Some(mut status) = t.status {
                let kills = self
                    .cgroup
                    .as_deref()
                    .map_or(0, spur_supervise::cgroup::oom_kills);
                if kills > 0 {
                    if !self.oom_told {
                        self.oom_told = true;
                        let text = spur_supervise::cgroup::oom_message(kills, &self.label);
                        let _ = frame::write_sync(srun, &FromStep::Notice { text });
                    }
                    status = (0, spur_proto::SIG_OOM);
                }
                let (code, signal) = status;
                t.reported = true;
                let _ = frame::write_sync(
                    srun,
                    &FromStep::Exited {
                        task: t.id,
                        code,
                        signal,
                    },
                );
            }
        }
    }
}

/// Task `id`'s command from a `--multi-prog` table: its own line, else the
/// `*` line (listed as task u32::MAX) with `%t` and `%o` filled in.
fn multi_prog_command(table: &[(u32, Vec<String>)], id: u32) -> Option<Vec<String>> {
    if let Some((_, argv)) = table.iter().find(|(t, _)| *t == id) {
        return Some(argv.clone());
    }
    let (_, argv) = table.iter().find(|(t, _)| *t == u32::MAX)?;
    Some(
        argv.iter()
            .map(|w| {
                w.replace("%t", &id.to_string())
                    .replace("%o", &id.to_string())
            })
            .collect(),
    )
}

/// Takes one whole frame off the front of `inbox`, if there is one.
fn next_frame(inbox: &mut Vec<u8>) -> Option<ToStep> {
    if inbox.len() < 4 {
        return None;
    }
    let len = u32::from_be_bytes([inbox[0], inbox[1], inbox[2], inbox[3]]) as usize;
    if inbox.len() < 4 + len {
        return None;
    }
    let msg = frame::decode(&inbox[4..4 + len]).ok();
    inbox.drain(..4 + len);
    msg
}

/// Forks one task into process group `pgid` (0: its own, new group).
fn spawn(
    argv: &[String],
    env: &[(String, String)],
    stdio: [RawFd; 3],
    pgid: libc::pid_t,
) -> Result<libc::pid_t, String> {
    let program = argv
        .first()
        .ok_or_else(|| "no program to run".to_string())?;
    let path_var = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map_or("/usr/local/bin:/usr/bin:/bin", |(_, v)| v.as_str());
    let resolved = resolve(program, path_var);
    let mut image = Image::new(resolved.as_bytes(), argv, env, program)?;
    // SAFETY: the child makes system calls only: its process group, then
    // its stdio.
    let pid = unsafe {
        image.spawn(2, || {
            libc::setpgid(0, pgid);
            for (target, fd) in stdio.iter().enumerate() {
                libc::dup2(*fd, target as i32);
            }
        })
    }
    .map_err(|e| format!("starting a task: {e}"))?;
    // The parent sets the group too, so that a signal reaches it at once.
    // SAFETY: setpgid on our own child.
    unsafe { libc::setpgid(pid, if pgid == 0 { pid } else { pgid }) };
    Ok(pid)
}

/// The program's path: as given if it has a slash, else the first
/// executable file of that name on PATH (else the name, for execve's error).
fn resolve(program: &str, path_var: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    if program.contains('/') {
        return program.to_string();
    }
    for dir in path_var.split(':').filter(|d| !d.is_empty()) {
        let candidate = Path::new(dir).join(program);
        if candidate
            .metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        {
            return candidate.display().to_string();
        }
    }
    program.to_string()
}
