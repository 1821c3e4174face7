//! Helper threads that run beside the thread that starts them, on another
//! CPU. Work split in two (a listing written or read in two halves) is
//! only faster when the halves run at once; some kernels, a virtual
//! machine's that packs its threads onto few vCPUs among them, leave a new
//! thread queued on its parent's CPU until the parent stops, and the two
//! halves then run one after the other, the thread's start paid for
//! nothing. Measured on a two-vCPU machine: the two halves of a
//! 10,000-job listing overlapped in one squeue run of three and in no
//! controller answer of eight; kept apart, in every one.

use std::io;
use std::thread::{Builder, Scope, ScopedJoinHandle};

/// Spawns `f` on a thread of `scope` named `name`, kept off the CPU the
/// caller runs on now when the process may run on another, so that the
/// caller's own work and `f` run side by side. The caller then yields
/// once: on a kernel that queued the new thread behind it, the thread
/// runs at once, long enough to move away.
pub fn spawn_apart<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    name: &str,
    f: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    // SAFETY: sched_getcpu has no preconditions; -1 is an error.
    let caller = usize::try_from(unsafe { libc::sched_getcpu() }).ok();
    spawn_off(scope, name, caller, f)
}

/// [`spawn_apart`] from a caller on `cpu`.
fn spawn_off<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    name: &str,
    cpu: Option<usize>,
    f: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let thread = Builder::new()
        .name(name.into())
        .spawn_scoped(scope, move || {
            if let Some(cpu) = cpu {
                // Advice only: where the mask cannot be changed the work is
                // done all the same.
                let _ = leave_cpu(cpu);
            }
            f()
        })?;
    // SAFETY: sched_yield has no preconditions and cannot fail on Linux.
    unsafe { libc::sched_yield() };
    Ok(thread)
}

/// Takes `cpu` out of the calling thread's CPUs, unless it is the only one
/// (or not one of them). True when the mask changed.
fn leave_cpu(cpu: usize) -> io::Result<bool> {
    let mut set = cpus()?;
    if !holds(&set, cpu) || count(&set) < 2 {
        return Ok(false);
    }
    // SAFETY: cpu is below CPU_SETSIZE (holds), inside the set's bits.
    unsafe { libc::CPU_CLR(cpu, &mut set) };
    // SAFETY: set is a valid cpu_set_t of the size given; pid 0 is the
    // calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if rc == 0 {
        Ok(true)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The calling thread's CPUs.
fn cpus() -> io::Result<libc::cpu_set_t> {
    // SAFETY: an all-zero cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: set is a valid cpu_set_t of the size given; pid 0 is the
    // calling thread.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    if rc == 0 {
        Ok(set)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// How many CPUs `set` holds.
fn count(set: &libc::cpu_set_t) -> usize {
    // SAFETY: CPU_COUNT reads the set's bits only.
    unsafe { libc::CPU_COUNT(set) as usize }
}

/// Whether `set` holds `cpu`.
fn holds(set: &libc::cpu_set_t, cpu: usize) -> bool {
    // SAFETY: CPU_ISSET reads the bit of a cpu below CPU_SETSIZE only.
    cpu < libc::CPU_SETSIZE as usize && unsafe { libc::CPU_ISSET(cpu, set) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on a thread of its own, so that a test's CPU mask stays
    /// its own.
    fn on_a_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
        std::thread::scope(|s| s.spawn(f).join().expect("no panic"))
    }

    fn set_cpus(cpus: &[usize]) {
        // SAFETY: as in cpus().
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in cpus {
            // SAFETY: a CPU of this machine, below CPU_SETSIZE.
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        // SAFETY: as in leave_cpu().
        let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
        assert_eq!(rc, 0, "{}", io::Error::last_os_error());
    }

    fn members(set: &libc::cpu_set_t) -> Vec<usize> {
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| holds(set, c))
            .collect()
    }

    #[test]
    fn the_helper_leaves_the_callers_cpu_and_keeps_the_others() {
        let mine = members(&cpus().expect("mask"));
        if mine.len() < 2 {
            eprintln!("one CPU here: nothing to keep apart");
            return;
        }
        let caller = mine[0];
        let (left, at) = std::thread::scope(|s| {
            let helper = spawn_off(s, "apart", Some(caller), || {
                // SAFETY: as in spawn_apart.
                let at = unsafe { libc::sched_getcpu() } as usize;
                (members(&cpus().expect("mask")), at)
            });
            helper.expect("spawns").join().expect("runs")
        });
        assert_eq!(left, mine[1..]);
        assert_ne!(at, caller);
        // Spawned by a thread allowed on one CPU, the helper inherits that
        // mask and stays: its work is done there.
        let stayed = on_a_thread(|| {
            set_cpus(&[caller]);
            std::thread::scope(|s| {
                let helper = spawn_apart(s, "alone", || members(&cpus().expect("mask")));
                helper.expect("spawns").join().expect("runs")
            })
        });
        assert_eq!(stayed, [caller]);
    }

    #[test]
    fn a_cpu_not_in_the_mask_or_the_last_one_is_not_left() {
        let mine = members(&cpus().expect("mask"));
        on_a_thread(|| {
            set_cpus(&[mine[0]]);
            assert!(!leave_cpu(mine[0]).expect("reads the mask"));
            assert_eq!(members(&cpus().expect("mask")), [mine[0]]);
        });
        if mine.len() >= 2 {
            on_a_thread(|| {
                set_cpus(&mine[..2]);
                assert!(!leave_cpu(libc::CPU_SETSIZE as usize + 5).expect("reads"));
                assert!(leave_cpu(mine[1]).expect("leaves"));
                assert_eq!(members(&cpus().expect("mask")), [mine[0]]);
            });
        }
    }
}
