//! One step, from srun's side: a connection to each node's agent carrying
//! the signed grant, then one loop that takes the nodes' output and task
//! exits, srun's stdin, and the signals srun gets, and ends when every task
//! has ended.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use spur_proto::{
    frame, FromStep, Hello, OpenMode, PatternValues, Role, StepGrant, StepStdin, TaskLaunch,
    ToStep, PROTOCOL_VERSION,
};

use super::SrunArgs;

/// How a step ended, from srun's side.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// The step.
    pub step_id: u32,
    /// The highest task exit code.
    pub exit_code: i32,
    /// A signal that ended a task (0: none).
    pub signal: i32,
    /// srun's own exit status.
    pub status: u8,
}

enum Event {
    Node(usize, FromStep),
    Closed(usize, String),
    Stdin(Vec<u8>),
    StdinEof,
    Signal(i32),
}

/// The write end of the signal pipe, for the handler.
static SIGNAL_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    let fd = SIGNAL_PIPE.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        let byte = sig as u8;
        // SAFETY: write is async-signal-safe.
        unsafe { libc::write(fd, [byte].as_ptr().cast(), 1) };
    }
}

/// Sends srun's signals into the event loop.
fn catch_signals(tx: mpsc::Sender<Event>) {
    let mut fds = [0; 2];
    // SAFETY: pipe writes two descriptors into the array.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return;
    }
    SIGNAL_PIPE.store(fds[1], std::sync::atomic::Ordering::Relaxed);
    for sig in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ] {
        // SAFETY: installing an async-signal-safe handler.
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
    let read_fd = fds[0];
    std::thread::spawn(move || loop {
        let mut b = [0u8; 1];
        // SAFETY: reading into a local buffer.
        if unsafe { libc::read(read_fd, b.as_mut_ptr().cast(), 1) } != 1 {
            return;
        }
        if tx.send(Event::Signal(i32::from(b[0]))).is_err() {
            return;
        }
    });
}

/// Where one stream of one task goes.
struct Sink {
    dest: Dest,
    stderr: bool,
}

/// Where one task's stream ends up.
enum Dest {
    /// srun's own stdout or stderr.
    Terminal,
    /// Nowhere (`none`, or another task under `-o N`).
    Discard,
    /// A file of srun's `-o`/`-e` pattern.
    File(std::fs::File),
}

/// An `-o`, `-e` or `-i` value as srun's fname_create reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IoSpec {
    /// `all` or `-` (and nothing given): every task, srun's own streams.
    All,
    /// `none`: /dev/null.
    Null,
    /// A task id below the task count: that task only.
    One(u32),
    /// A file name pattern.
    File(String),
}

impl IoSpec {
    pub(crate) fn parse(text: Option<&str>, ntasks: u32) -> IoSpec {
        let Some(text) = text else {
            return IoSpec::All;
        };
        let all = text.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("all"));
        if all || text.starts_with('-') {
            return IoSpec::All;
        }
        if text.eq_ignore_ascii_case("none") {
            return IoSpec::Null;
        }
        match text.parse::<u32>() {
            Ok(task) if task < ntasks => IoSpec::One(task),
            _ => IoSpec::File(text.to_string()),
        }
    }
}

/// Output of all tasks: line-assembled, labelled with `-l`.
struct Output {
    label_width: Option<usize>,
    unbuffered: bool,
    partial: BTreeMap<(u32, bool), Vec<u8>>,
    sinks: BTreeMap<(u32, bool), Sink>,
}

impl Output {
    fn write(&mut self, task: u32, stderr: bool, data: &[u8]) {
        if self.unbuffered {
            // -u: as it comes (a label starts each piece, as in Slurm).
            self.emit(task, stderr, data);
            return;
        }
        let buf = self.partial.entry((task, stderr)).or_default();
        buf.extend_from_slice(data);
        let Some(end) = buf.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        let lines: Vec<u8> = buf.drain(..=end).collect();
        self.emit(task, stderr, &lines);
    }

    fn flush(&mut self, task: u32) {
        for stderr in [false, true] {
            if let Some(rest) = self.partial.remove(&(task, stderr)) {
                if !rest.is_empty() {
                    self.emit(task, stderr, &rest);
                }
            }
        }
    }

    fn emit(&mut self, task: u32, stderr: bool, text: &[u8]) {
        let mut out = Vec::with_capacity(text.len() + 8);
        match self.label_width {
            Some(w) => {
                for line in text.split_inclusive(|&b| b == b'\n') {
                    out.extend_from_slice(format!("{task:>w$}: ").as_bytes());
                    out.extend_from_slice(line);
                }
            }
            None => out.extend_from_slice(text),
        }
        let sink = self.sinks.get_mut(&(task, stderr));
        match sink {
            Some(Sink {
                dest: Dest::File(f),
                ..
            }) => {
                let _ = f.write_all(&out);
            }
            Some(Sink {
                dest: Dest::Discard,
                ..
            }) => {}
            Some(Sink { stderr: true, .. }) => {
                let _ = std::io::stderr().write_all(&out);
            }
            _ => {
                let mut o = std::io::stdout().lock();
                let _ = o.write_all(&out);
                let _ = o.flush();
            }
        }
    }
}

fn open_sink(
    path: &str,
    mode: OpenMode,
    opened: &mut BTreeMap<String, std::fs::File>,
    what: &str,
) -> Option<std::fs::File> {
    if let Some(f) = opened.get(path) {
        return f.try_clone().ok();
    }
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true);
    match mode {
        OpenMode::Append => o.append(true),
        OpenMode::Truncate => o.truncate(true),
    };
    match o.open(path) {
        Ok(f) => {
            let copy = f.try_clone().ok();
            opened.insert(path.to_string(), f);
            copy
        }
        Err(e) => {
            eprintln!("srun: error: Could not open {what} file {path}: {e}");
            None
        }
    }
}

/// The values of srun's file name patterns for `task` on node `index`.
fn pattern_values<'a>(
    opts: &'a SrunArgs,
    grant: &'a StepGrant,
    step: &'a str,
    index: usize,
    task: u32,
) -> PatternValues<'a> {
    let names = &opts.pattern_names;
    PatternValues {
        job_id: grant.job_id,
        array_job_id: names.array_job_id,
        array_task_id: names.array_task_id,
        step: Some(step),
        node: &grant.nodes[index].hostname,
        node_index: index as u32,
        task,
        user: &grant.user_name,
        job_name: &names.job_name,
    }
}

/// Where each task's streams go (`-o`, `-e`: all, none, one task, or a
/// pattern per task).
fn sinks(opts: &SrunArgs, grant: &StepGrant) -> BTreeMap<(u32, bool), Sink> {
    let ntasks = grant.ntasks();
    let out_spec = IoSpec::parse(opts.output.as_deref(), ntasks);
    // Without -e, stderr goes where stdout goes.
    let err_spec = match opts.error.as_deref() {
        Some(e) => IoSpec::parse(Some(e), ntasks),
        None => out_spec.clone(),
    };
    let mut opened = BTreeMap::new();
    let mut sinks = BTreeMap::new();
    let step = grant.step_id.to_string();
    for (index, node) in grant.nodes.iter().enumerate() {
        for &task in &node.tasks {
            let values = pattern_values(opts, grant, &step, index, task);
            let mut dest = |spec: &IoSpec, what: &str| match spec {
                IoSpec::All => Dest::Terminal,
                IoSpec::Null => Dest::Discard,
                IoSpec::One(t) if *t == task => Dest::Terminal,
                IoSpec::One(_) => Dest::Discard,
                IoSpec::File(p) => {
                    let path = spur_proto::pattern::expand(p, &values);
                    match open_sink(&path, opts.open_mode, &mut opened, what) {
                        Some(f) => Dest::File(f),
                        None => Dest::Discard,
                    }
                }
            };
            let out = dest(&out_spec, "stdout");
            let err = dest(&err_spec, "stderr");
            sinks.insert(
                (task, false),
                Sink {
                    dest: out,
                    stderr: false,
                },
            );
            sinks.insert(
                (task, true),
                Sink {
                    dest: err,
                    stderr: true,
                },
            );
        }
    }
    sinks
}

/// Each node's stdin for its tasks (`-i`): srun's stdin to all tasks or
/// one, nothing, or per task a file the node opens.
fn stdin_of(opts: &SrunArgs, grant: &StepGrant, index: usize) -> StepStdin {
    match IoSpec::parse(opts.input.as_deref(), grant.ntasks()) {
        IoSpec::All => StepStdin::Srun(None),
        IoSpec::Null => StepStdin::Null,
        IoSpec::One(task) if grant.nodes[index].tasks.contains(&task) => {
            StepStdin::Srun(Some(task))
        }
        IoSpec::One(_) => StepStdin::Null,
        IoSpec::File(pattern) => {
            let step = grant.step_id.to_string();
            let paths = grant.nodes[index]
                .tasks
                .iter()
                .map(|&t| {
                    let values = pattern_values(opts, grant, &step, index, t);
                    full_path(&spur_proto::pattern::expand(&pattern, &values), &opts.cwd)
                })
                .collect();
            StepStdin::Files(paths)
        }
    }
}

/// `path` made absolute against the step's working directory, where the
/// node opens it.
fn full_path(path: &str, cwd: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", cwd.trim_end_matches('/'))
    }
}

fn tasks_word(ids: &[u32]) -> String {
    if ids.len() == 1 {
        format!("task {}", ids[0])
    } else {
        format!("tasks {}", spur_slurm::print::bit_fmt(ids))
    }
}

/// The environment srun hands its tasks: its own (per `--export`), and,
/// inside an allocation it did not make, the layout variables srun sets
/// there (SLURM_DISTRIBUTION, and SLURM_JOB_CPUS_PER_NODE again for the
/// first component of a heterogeneous job).
fn task_env(opts: &SrunArgs, grant: &StepGrant) -> Vec<(String, String)> {
    let mut env = opts.env.clone();
    if opts.job_id.is_some() {
        let dist = if grant.ntasks() as usize <= grant.nodes.len() {
            "cyclic"
        } else {
            "block"
        };
        env.push(("SLURM_DISTRIBUTION".into(), dist.into()));
        let cpus = env
            .iter()
            .find(|(k, _)| k == "SLURM_JOB_CPUS_PER_NODE")
            .map(|(_, v)| v.clone());
        if let Some(cpus) = cpus {
            env.push(("SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0".into(), cpus));
        }
    }
    env
}

/// A connection to a node's agent, greeted. An agent that is not there
/// (restarting) is tried again until MessageTimeout has passed: nothing
/// has been asked of it yet, so trying again is safe.
fn greet_agent(addr: &str, port: u16) -> Result<TcpStream, String> {
    let patience = spur_client::with_conf(|conf, _| spur_client::message_timeout(conf))
        .unwrap_or(Duration::from_secs(10));
    let deadline = Instant::now() + patience;
    loop {
        let attempt = (|| {
            let mut stream = std::net::ToSocketAddrs::to_socket_addrs(&(addr, port))
                .map_err(|e| e.to_string())?
                .find_map(|a| TcpStream::connect_timeout(&a, Duration::from_secs(10)).ok())
                .ok_or_else(|| "Communication connection failure".to_string())?;
            let _ = stream.set_nodelay(true);
            let hello = Hello {
                version: PROTOCOL_VERSION,
                role: Role::Launcher,
            };
            frame::write_sync(&mut stream, &hello).map_err(|e| e.to_string())?;
            let _: Hello = frame::read_sync(&mut stream).map_err(|e| e.to_string())?;
            Ok::<_, String>(stream)
        })();
        match attempt {
            Ok(stream) => return Ok(stream),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Connects to node `index` and starts its tasks; its messages go to `tx`.
fn launch_node(
    opts: &SrunArgs,
    grant: &StepGrant,
    signature: &[u8],
    index: usize,
    tx: mpsc::Sender<Event>,
) -> Result<TcpStream, String> {
    let node = &grant.nodes[index];
    let mut stream = greet_agent(&node.addr, node.port)?;
    let stdin = stdin_of(opts, grant, index);
    let launch = TaskLaunch {
        grant: grant.clone(),
        signature: signature.to_vec(),
        node_index: index as u32,
        argv: opts.command.clone(),
        cwd: opts.cwd.clone(),
        env: task_env(opts, grant),
        stdin,
        multi_prog: opts.multi_prog.clone(),
    };
    frame::write_sync(&mut stream, &ToStep::Launch(Box::new(launch))).map_err(|e| e.to_string())?;
    let mut reader = stream.try_clone().map_err(|e| e.to_string())?;
    std::thread::spawn(move || loop {
        match frame::read_sync::<FromStep, _>(&mut reader) {
            Ok(msg) => {
                if tx.send(Event::Node(index, msg)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Event::Closed(index, e.to_string()));
                return;
            }
        }
    });
    Ok(stream)
}

/// Runs the step `grant` to its end.
pub fn run(opts: &SrunArgs, grant: StepGrant, signature: Vec<u8>) -> Outcome {
    let (tx, rx) = mpsc::channel();
    catch_signals(tx.clone());
    let ntasks = grant.ntasks();
    let label = format!("StepId={}.{}", grant.job_id, grant.step_id);
    let mut output = Output {
        label_width: opts
            .label
            .then(|| ntasks.saturating_sub(1).to_string().len()),
        unbuffered: opts.unbuffered,
        partial: BTreeMap::new(),
        sinks: sinks(opts, &grant),
    };
    // One thread per node connects, so a slow node does not hold the rest.
    let (conn_tx, conn_rx) = mpsc::channel();
    std::thread::scope(|s| {
        for index in 0..grant.nodes.len() {
            let (tx, conn_tx, grant, signature) = (tx.clone(), conn_tx.clone(), &grant, &signature);
            s.spawn(move || {
                let _ = conn_tx.send((index, launch_node(opts, grant, signature, index, tx)));
            });
        }
    });
    drop(conn_tx);
    let mut writers: Vec<Option<TcpStream>> = (0..grant.nodes.len()).map(|_| None).collect();
    let mut exits: BTreeMap<u32, (i32, i32)> = BTreeMap::new();
    for (index, result) in conn_rx {
        match result {
            Ok(stream) => writers[index] = Some(stream),
            Err(e) => {
                let node = &grant.nodes[index];
                eprintln!(
                    "srun: error: Task launch for {label} failed on node {}: {e}",
                    node.name
                );
                for &t in &node.tasks {
                    exits.insert(t, (1, 0));
                }
            }
        }
    }
    // The nodes whose tasks read srun's own stdin.
    let readers: Vec<usize> = (0..grant.nodes.len())
        .filter(|&i| matches!(stdin_of(opts, &grant, i), StepStdin::Srun(_)))
        .collect();
    if !readers.is_empty() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut src = std::io::stdin();
            let mut buf = vec![0u8; 64 << 10];
            loop {
                match src.read(&mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Event::StdinEof);
                        return;
                    }
                    Ok(n) => {
                        if tx.send(Event::Stdin(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
    drop(tx);
    let send_all = |writers: &mut Vec<Option<TcpStream>>, msg: &ToStep| {
        for w in writers.iter_mut().flatten() {
            let _ = frame::write_sync(w, msg);
        }
    };
    if !exits.is_empty() {
        // A node could not start its tasks: the step ends everywhere.
        send_all(&mut writers, &ToStep::Signal(libc::SIGKILL));
    }
    let mut last_interrupt: Option<Instant> = None;
    let mut first_exit: Option<Instant> = None;
    let mut killed = false;
    while exits.len() < ntasks as usize {
        let timeout = match (opts.wait, first_exit) {
            (Some(w), Some(t)) => Duration::from_secs(w).saturating_sub(t.elapsed()),
            _ => Duration::from_secs(3600),
        };
        let event = match rx.recv_timeout(timeout) {
            Ok(e) => e,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let (Some(w), false) = (opts.wait, killed) {
                    eprintln!("srun: error: First task exited {w}s ago");
                    killed = true;
                    send_all(&mut writers, &ToStep::Signal(libc::SIGKILL));
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match event {
            Event::Node(_, FromStep::Output { task, stderr, data }) => {
                output.write(task, stderr, &data);
            }
            Event::Node(_, FromStep::Exited { task, code, signal }) => {
                output.flush(task);
                exits.insert(task, (code, signal));
                first_exit.get_or_insert_with(Instant::now);
                if opts.kill_on_bad_exit && (code != 0 || signal != 0) && !killed {
                    killed = true;
                    send_all(&mut writers, &ToStep::Signal(libc::SIGKILL));
                }
            }
            Event::Node(index, FromStep::Failed { message }) => {
                let node = &grant.nodes[index];
                eprintln!(
                    "srun: error: Task launch for {label} failed on node {}: {message}",
                    node.name
                );
                for &t in &node.tasks {
                    exits.entry(t).or_insert((1, 0));
                }
                send_all(&mut writers, &ToStep::Signal(libc::SIGKILL));
            }
            Event::Node(_, FromStep::Notice { text }) => eprintln!("{text}"),
            Event::Node(_, _) => {}
            Event::Closed(index, why) => {
                let node = &grant.nodes[index];
                let lost: Vec<u32> = node
                    .tasks
                    .iter()
                    .copied()
                    .filter(|t| !exits.contains_key(t))
                    .collect();
                if !lost.is_empty() {
                    eprintln!(
                        "srun: error: {}: {}: connection to the node lost ({why})",
                        node.name,
                        tasks_word(&lost)
                    );
                    for t in lost {
                        exits.insert(t, (1, 0));
                    }
                }
            }
            Event::Stdin(data) => {
                let msg = ToStep::Stdin(data);
                for &i in &readers {
                    if let Some(w) = writers[i].as_mut() {
                        let _ = frame::write_sync(w, &msg);
                    }
                }
            }
            Event::StdinEof => {
                for &i in &readers {
                    if let Some(w) = writers[i].as_mut() {
                        let _ = frame::write_sync(w, &ToStep::StdinEof);
                    }
                }
            }
            Event::Signal(libc::SIGINT) => {
                if last_interrupt.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
                    eprintln!("srun: sending Ctrl-C to {label}");
                    eprintln!("srun: forcing job termination");
                    killed = true;
                    send_all(&mut writers, &ToStep::Signal(libc::SIGKILL));
                } else {
                    last_interrupt = Some(Instant::now());
                    eprintln!("srun: interrupt (one more within 1 sec to abort)");
                    let running: Vec<u32> =
                        (0..ntasks).filter(|t| !exits.contains_key(t)).collect();
                    let done: Vec<u32> = (0..ntasks).filter(|t| exits.contains_key(t)).collect();
                    if !running.is_empty() {
                        eprintln!("srun: {label} {}: running", tasks_word(&running));
                    }
                    if !done.is_empty() {
                        eprintln!("srun: {label} {}: exited", tasks_word(&done));
                    }
                }
            }
            Event::Signal(sig) => send_all(&mut writers, &ToStep::Signal(sig)),
        }
    }
    for t in 0..ntasks {
        output.flush(t);
    }
    report(&grant, &exits, opts.quiet, grant.step_id)
}

/// Slurm's lines for tasks that failed, and the outcome.
fn report(
    grant: &StepGrant,
    exits: &BTreeMap<u32, (i32, i32)>,
    quiet: bool,
    step_id: u32,
) -> Outcome {
    let mut exit_code = 0;
    let mut signal = 0;
    // srun names the out-of-memory end once, for the first tasks it hears
    // of (launch_slurm.c's oom_printed).
    let mut oom_told = false;
    for node in &grant.nodes {
        let mut groups: BTreeMap<(i32, i32), Vec<u32>> = BTreeMap::new();
        for t in &node.tasks {
            let status = exits.get(t).copied().unwrap_or((1, 0));
            exit_code = exit_code.max(status.0);
            // The out-of-memory end outweighs any signal, as in srun.
            if status.1 != 0 && signal != spur_proto::SIG_OOM {
                signal = status.1;
            }
            if status != (0, 0) {
                groups.entry(status).or_default().push(*t);
            }
        }
        if quiet {
            continue;
        }
        for ((code, sig), ids) in groups {
            if sig == spur_proto::SIG_OOM && std::mem::replace(&mut oom_told, true) {
                continue;
            }
            let what = if sig == spur_proto::SIG_OOM {
                "Out Of Memory".to_string()
            } else if sig != 0 {
                spur_slurm::signal::description(sig)
            } else {
                format!("Exited with exit code {code}")
            };
            eprintln!("srun: error: {}: {}: {what}", node.name, tasks_word(&ids));
        }
    }
    // srun's own exit when the out-of-memory killer struck is 1.
    let status = if signal == spur_proto::SIG_OOM {
        1
    } else if signal != 0 {
        (128 + signal).min(255) as u8
    } else {
        exit_code.clamp(0, 255) as u8
    };
    Outcome {
        step_id,
        exit_code,
        signal,
        status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_listed_as_ranges() {
        assert_eq!(tasks_word(&[3]), "task 3");
        assert_eq!(tasks_word(&[0, 1, 2, 5, 7, 8]), "tasks 0-2,5,7-8");
    }

    #[test]
    fn labelled_output_is_whole_lines_padded_to_the_widest_task() {
        let mut out = Output {
            label_width: Some(2),
            unbuffered: false,
            partial: BTreeMap::new(),
            sinks: BTreeMap::new(),
        };
        out.write(3, false, b"ab");
        assert_eq!(out.partial.get(&(3, false)).map(Vec::len), Some(2));
        out.write(3, false, b"c\nde");
        assert_eq!(
            out.partial.get(&(3, false)).map(Vec::as_slice),
            Some(&b"de"[..])
        );
    }
}
