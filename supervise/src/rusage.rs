//! What a task used by the time it was reaped (`wait4`'s `struct rusage`),
//! as the process that reaps it records it for the node agent: the
//! supervisor for a batch script, the step process for srun's tasks. The
//! agent's samples miss the last moments of a task and all of a short one;
//! this covers them.

/// One reaped task's totals, its waited-for descendants included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskRusage {
    /// User CPU time, microseconds.
    pub user_us: u64,
    /// System CPU time, microseconds.
    pub system_us: u64,
    /// The largest resident set of the task or one descendant, KiB.
    pub max_rss_kib: u64,
    /// Major page faults.
    pub major_faults: u64,
}

fn micros(t: libc::timeval) -> u64 {
    (t.tv_sec.max(0) as u64) * 1_000_000 + t.tv_usec.max(0) as u64
}

impl TaskRusage {
    /// From `wait4`'s answer.
    pub fn of(r: &libc::rusage) -> TaskRusage {
        TaskRusage {
            user_us: micros(r.ru_utime),
            system_us: micros(r.ru_stime),
            max_rss_kib: r.ru_maxrss.max(0) as u64,
            major_faults: r.ru_majflt.max(0) as u64,
        }
    }

    /// The four numbers, space-separated, as the record files keep them.
    pub fn words(&self) -> String {
        format!(
            "{} {} {} {}",
            self.user_us, self.system_us, self.max_rss_kib, self.major_faults
        )
    }

    /// Reads [`TaskRusage::words`] back from the next four words of `it`.
    pub fn parse<'a>(it: &mut impl Iterator<Item = &'a str>) -> Option<TaskRusage> {
        Some(TaskRusage {
            user_us: it.next()?.parse().ok()?,
            system_us: it.next()?.parse().ok()?,
            max_rss_kib: it.next()?.parse().ok()?,
            major_faults: it.next()?.parse().ok()?,
        })
    }
}

/// A reaped child: its pid, wait status and usage.
pub type Reaped = (libc::pid_t, i32, TaskRusage);

/// Reaps `pid` (-1: any child) without blocking: Ok(None) when none has
/// ended yet (or a signal interrupted), an error when there is none to wait
/// for (ECHILD).
pub fn reap(pid: libc::pid_t) -> std::io::Result<Option<Reaped>> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid out-parameter.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own children into valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
    match r {
        0 => Ok(None),
        r if r > 0 => Ok(Some((r, status, TaskRusage::of(&usage)))),
        _ => {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                Ok(None)
            } else {
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reaped_child_reports_its_cpu_and_memory() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .spawn()
            .expect("sh runs");
        let pid = child.id() as libc::pid_t;
        let (reaped, status, usage) = loop {
            if let Some(r) = reap(pid).expect("a child to wait for") {
                break r;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert_eq!(reaped, pid);
        assert!(libc::WIFEXITED(status));
        assert!(usage.user_us + usage.system_us > 0, "{usage:?}");
        assert!(usage.max_rss_kib > 0, "{usage:?}");
        let words = usage.words();
        assert_eq!(TaskRusage::parse(&mut words.split(' ')), Some(usage));
        assert_eq!(TaskRusage::parse(&mut "1 2".split(' ')), None);
        // std's handle would reap it again; it is already gone.
        std::mem::forget(child.stdin.take());
        let _ = child.try_wait();
    }
}
