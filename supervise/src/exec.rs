//! What a job's process takes on before it runs the user's program: the
//! job's user with the groups the agent resolved, the submitter's umask,
//! and an environment with each name once; and the program's exec, made
//! ready before the fork ([`Image`]).

use std::collections::HashMap;
use std::ffi::{CStr, CString};

/// The signals a per-job process ignores: the agent signals the job's
/// processes, never it, and a hangup or Ctrl-C meant for the agent must
/// not reach it. Ignored signals stay ignored across exec, so its children
/// set these back to the default before they exec.
pub const IGNORED_SIGNALS: [libc::c_int; 4] =
    [libc::SIGHUP, libc::SIGINT, libc::SIGTERM, libc::SIGPIPE];

/// Ignores [`IGNORED_SIGNALS`]; called first thing by a per-job process.
pub fn ignore_signals() {
    for sig in IGNORED_SIGNALS {
        // SAFETY: setting a disposition to SIG_IGN is always sound.
        unsafe { libc::signal(sig, libc::SIG_IGN) };
    }
}

/// Drops to `uid`/`gid` with supplementary `groups` (a no-op when already
/// that user). The groups come resolved ([`spur_sys::users::group_list`],
/// by whoever may read the user databases), so that this process needs
/// none.
pub fn become_user(uid: u32, gid: u32, groups: &[u32]) -> Result<(), String> {
    // SAFETY: getuid has no preconditions.
    let me = unsafe { libc::getuid() };
    if me == uid {
        return Ok(());
    }
    if me != 0 {
        return Err(format!(
            "the agent runs as uid {me} and cannot start a job of uid {uid}"
        ));
    }
    // SAFETY: plain system calls on valid arguments (`groups` holds its
    // length of entries); order matters: groups and gid while still root,
    // uid last.
    let ok = unsafe { libc::setgroups(groups.len(), groups.as_ptr()) } == 0
        && unsafe { libc::setgid(gid) } == 0
        && unsafe { libc::setuid(uid) } == 0;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "cannot become uid {uid} gid {gid}: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Sets the umask SLURM_UMASK in `env` names (the submitter's), if any.
pub fn apply_umask(env: &[(String, String)]) {
    let umask = env
        .iter()
        .find(|(k, _)| k == "SLURM_UMASK")
        .and_then(|(_, v)| u32::from_str_radix(v, 8).ok());
    if let Some(mask) = umask {
        // SAFETY: umask has no preconditions.
        unsafe { libc::umask((mask & 0o777) as libc::mode_t) };
    }
}

/// An environment with each name once: where a name repeats, the last
/// value wins and takes the place of the first (what Slurm's
/// env_array_overwrite does, one variable at a time).
pub fn last_wins(env: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<(String, String)> = Vec::with_capacity(env.len());
    for (k, v) in env {
        match at.get(&k) {
            Some(&i) => out[i].1 = v,
            None => {
                at.insert(k.clone(), out.len());
                out.push((k, v));
            }
        }
    }
    out
}

/// `s` as a C string; an error where it holds a NUL byte.
pub fn cstring(s: impl AsRef<[u8]>) -> Result<CString, String> {
    CString::new(s.as_ref()).map_err(|_| "an argument or variable holds a NUL byte".to_string())
}

/// A program's exec, made ready before a fork so that the child allocates
/// nothing: its path, its arguments, and its environment with each name
/// once ([`last_wins`]) and `SLURM_TASK_PID` last, which the child fills in
/// with its own pid.
pub struct Image {
    path: CString,
    argv: Vec<*const libc::c_char>,
    env: Vec<*const libc::c_char>,
    /// The strings `argv` and `env` point into.
    _strings: Vec<CString>,
    /// slurmstepd's line for a failed exec, up to the reason.
    failed: String,
}

/// Room for `SLURM_TASK_PID=`, a pid and a NUL.
const TASK_PID_BYTES: usize = 32;

impl Image {
    /// The exec of the program at `path` with `argv` (its name first) and
    /// `env`; `shown` names it in the line said if the exec fails.
    pub fn new(
        path: &[u8],
        argv: &[impl AsRef<[u8]>],
        env: &[(String, String)],
        shown: &str,
    ) -> Result<Image, String> {
        let args: Vec<CString> = argv.iter().map(cstring).collect::<Result<_, _>>()?;
        let vars: Vec<CString> = last_wins(env.to_vec())
            .iter()
            .filter(|(k, _)| k != "SLURM_TASK_PID")
            .map(|(k, v)| cstring(format!("{k}={v}")))
            .collect::<Result<_, _>>()?;
        let pointers = |strings: &[CString]| -> Vec<*const libc::c_char> {
            strings.iter().map(|s| s.as_ptr()).collect()
        };
        let mut argv = pointers(&args);
        argv.push(std::ptr::null());
        let mut env = pointers(&vars);
        // The pid's slot, then the end.
        env.extend([std::ptr::null(), std::ptr::null()]);
        Ok(Image {
            path: cstring(path)?,
            argv,
            env,
            _strings: args.into_iter().chain(vars).collect(),
            failed: format!("slurmstepd: error: execve(): {shown}: "),
        })
    }

    /// Starts the program in a new process and returns its pid. The child
    /// runs `setup` first (its process group, its stdio), then the exec
    /// ([`Image::exec`]; `code` if that fails), with the signals this
    /// process ignores ([`IGNORED_SIGNALS`], and SIGCHLD) back at their
    /// defaults and none blocked.
    ///
    /// The child shares this process's memory until its exec (clone with
    /// CLONE_VM and CLONE_VFORK, as posix_spawn starts one), and this
    /// thread waits meanwhile: none of this process's pages is copied for
    /// the child, or torn down again at its exec, as a fork's are. It
    /// runs on a stack of its own, with every signal blocked until it is
    /// ready to exec, so that no handler of this process runs in it.
    ///
    /// # Safety
    ///
    /// `setup` runs in the child, in this process's memory: it may only
    /// make async-signal-safe calls, allocate nothing, and not panic.
    pub unsafe fn spawn<F: FnMut()>(
        &mut self,
        code: i32,
        setup: F,
    ) -> std::io::Result<libc::pid_t> {
        /// Room for the child's calls before its exec.
        const STACK: usize = 64 << 10;
        struct Child<'a, S> {
            image: &'a mut Image,
            code: i32,
            setup: S,
        }
        extern "C" fn start<S: FnMut()>(arg: *mut libc::c_void) -> libc::c_int {
            // SAFETY: `arg` is the Child below, which outlives the child's
            // life in this memory (the parent waits for its exec); the
            // calls are async-signal-safe, on an initialised set.
            unsafe {
                let child = &mut *arg.cast::<Child<'_, S>>();
                for sig in IGNORED_SIGNALS.into_iter().chain([libc::SIGCHLD]) {
                    libc::signal(sig, libc::SIG_DFL);
                }
                (child.setup)();
                let mut none: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut none);
                libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
                child.image.exec(child.code)
            }
        }
        let mut stack: Vec<u8> = Vec::with_capacity(STACK);
        // The stack grows down from its end, aligned as the ABI asks.
        let top = stack.as_mut_ptr().wrapping_add(STACK).map_addr(|a| a & !15);
        let mut child = Child {
            image: self,
            code,
            setup,
        };
        // SAFETY: sets are initialised before use; the clone runs `start`
        // on the stack above with `child`, both alive until it returns,
        // which is after the child's exec or exit (CLONE_VFORK); this
        // thread's mask is put back whatever the clone gave.
        unsafe {
            let (mut all, mut before): (libc::sigset_t, libc::sigset_t) =
                (std::mem::zeroed(), std::mem::zeroed());
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before);
            let pid = libc::clone(
                start::<F>,
                top.cast(),
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                std::ptr::from_mut(&mut child).cast(),
            );
            let failed = std::io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
            if pid < 0 {
                return Err(failed);
            }
            Ok(pid)
        }
    }

    /// Runs the program in place of this process, with `SLURM_TASK_PID`
    /// its pid; if it cannot, says why on stderr as slurmstepd does and
    /// exits with `code`.
    ///
    /// # Safety
    ///
    /// Only in a new process that owns the image until this exec (the
    /// child of a fork, or of [`Image::spawn`]): it calls only
    /// async-signal-safe functions and allocates nothing.
    pub unsafe fn exec(&mut self, code: i32) -> ! {
        let mut task_pid = [0u8; TASK_PID_BYTES];
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { libc::getpid() };
        let slot = self.env.len() - 2;
        self.env[slot] = task_pid_variable(&mut task_pid, pid).as_ptr();
        // SAFETY: the path and both arrays are NUL-terminated and point
        // at strings this image owns; the errno location is this thread's;
        // strerror's text lives as long as the process.
        unsafe {
            libc::execve(self.path.as_ptr(), self.argv.as_ptr(), self.env.as_ptr());
            let why = CStr::from_ptr(libc::strerror(*libc::__errno_location()));
            libc::write(2, self.failed.as_ptr().cast(), self.failed.len());
            libc::write(2, why.as_ptr().cast(), why.count_bytes());
            libc::write(2, c"\n".as_ptr().cast(), 1);
            libc::_exit(code)
        }
    }
}

/// `SLURM_TASK_PID=<pid>` written into `buf`, allocating nothing.
fn task_pid_variable(buf: &mut [u8; TASK_PID_BYTES], pid: libc::pid_t) -> &CStr {
    const NAME: &[u8] = b"SLURM_TASK_PID=";
    buf[..NAME.len()].copy_from_slice(NAME);
    let mut digits = [0u8; 10];
    let (mut n, mut len) = (pid.unsigned_abs(), 0);
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for (i, d) in digits[..len].iter().rev().enumerate() {
        buf[NAME.len() + i] = *d;
    }
    buf[NAME.len() + len] = 0;
    CStr::from_bytes_until_nul(&buf[..]).expect("a NUL was just written")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_value_of_a_name_takes_the_first_ones_place() {
        let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            last_wins(env(&[("A", "1"), ("B", "2"), ("A", "3")])),
            env(&[("A", "3"), ("B", "2")])
        );
    }

    #[test]
    fn the_task_pid_variable_is_written_in_place() {
        let mut buf = [0xffu8; TASK_PID_BYTES];
        assert_eq!(
            task_pid_variable(&mut buf, 4_294_967).to_bytes(),
            b"SLURM_TASK_PID=4294967"
        );
        assert_eq!(
            task_pid_variable(&mut buf, 7).to_bytes(),
            b"SLURM_TASK_PID=7"
        );
    }

    /// Starts `argv` with its stdout and stderr on a pipe; what it wrote
    /// and its pid and wait status.
    fn run(argv: &[&str]) -> (String, libc::pid_t, i32) {
        use std::io::Read;
        use std::os::fd::AsRawFd;
        let (mut read, write) = std::io::pipe().expect("a pipe");
        let mut image = Image::new(argv[0].as_bytes(), argv, &[], argv[0]).expect("an image");
        let fd = write.as_raw_fd();
        // SAFETY: the setup makes system calls only.
        let pid = unsafe {
            image.spawn(127, || {
                libc::dup2(fd, 1);
                libc::dup2(fd, 2);
            })
        }
        .expect("starts");
        drop(write);
        let mut out = String::new();
        read.read_to_string(&mut out).expect("reads");
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        (out, pid, status)
    }

    #[test]
    fn a_spawned_program_runs_with_its_stdio_and_no_signal_blocked() {
        // SAFETY: blocking a signal in this test's own thread, on an
        // initialised set; put back below.
        let mut usr1: libc::sigset_t = unsafe { std::mem::zeroed() };
        unsafe {
            libc::sigemptyset(&mut usr1);
            libc::sigaddset(&mut usr1, libc::SIGUSR1);
            libc::pthread_sigmask(libc::SIG_BLOCK, &usr1, std::ptr::null_mut());
        }
        // grep, not a shell: a shell clears its mask as it starts.
        let (out, pid, status) = run(&["/bin/grep", "-E", "^(Pid|SigBlk):", "/proc/self/status"]);
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &usr1, std::ptr::null_mut()) };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "{status}"
        );
        assert_eq!(out, format!("Pid:\t{pid}\nSigBlk:\t0000000000000000\n"));
    }

    #[test]
    fn a_program_that_cannot_start_says_why_and_exits_with_the_code_given() {
        let (out, _, status) = run(&["/nonexistent/program"]);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 127,
            "{status}"
        );
        assert_eq!(
            out,
            "slurmstepd: error: execve(): /nonexistent/program: No such file or directory\n"
        );
    }

    #[test]
    fn the_same_user_needs_no_change() {
        // SAFETY: getuid and getgid have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        assert_eq!(become_user(uid, gid, &[]), Ok(()));
    }
}
