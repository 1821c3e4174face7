//! Signal names as Slurm reads and writes them (`sig_name2num` and
//! `sig_num2name` in `src/common/proc_args.c`): its own short table, names
//! with or without `SIG`, any case; and C's descriptions of signals.

/// The signals Slurm knows by name (`signals_mapping`).
pub const SIGNALS: &[(&str, i32)] = &[
    ("HUP", libc::SIGHUP),
    ("INT", libc::SIGINT),
    ("QUIT", libc::SIGQUIT),
    ("ABRT", libc::SIGABRT),
    ("KILL", libc::SIGKILL),
    ("ALRM", libc::SIGALRM),
    ("TERM", libc::SIGTERM),
    ("USR1", libc::SIGUSR1),
    ("USR2", libc::SIGUSR2),
    ("URG", libc::SIGURG),
    ("CONT", libc::SIGCONT),
    ("STOP", libc::SIGSTOP),
    ("TSTP", libc::SIGTSTP),
    ("TTIN", libc::SIGTTIN),
    ("TTOU", libc::SIGTTOU),
    ("XCPU", libc::SIGXCPU),
];

/// `sig_name2num`: a number (blanks after it allowed), or a name of
/// [`SIGNALS`] with or without `SIG`, any case, blanks around it allowed.
/// None where Slurm's answer is 0: unknown, or a number followed by more.
pub fn name2num(text: &str) -> Option<i32> {
    if let Some((n, rest)) = crate::number::strtol(text) {
        return if rest.trim().is_empty() {
            i32::try_from(n).ok().filter(|&n| n != 0)
        } else {
            None
        };
    }
    let s = text.trim_start();
    let s = match s.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("SIG") => &s[3..],
        _ => s,
    };
    SIGNALS
        .iter()
        .find(|(name, _)| {
            s.get(..name.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(name))
                && s[name.len()..].trim().is_empty()
        })
        .map(|&(_, num)| num)
}

/// `sig_num2name`: the name Slurm gives signal `num` (`USR1`), or the
/// number itself for one outside its table.
pub fn num2name(num: i32) -> String {
    SIGNALS
        .iter()
        .find(|&&(_, n)| n == num)
        .map_or_else(|| num.to_string(), |(name, _)| (*name).to_string())
}

/// C's `strsignal`: the text of signal `num` (`Killed`, `User defined
/// signal 1`), as srun and slurmrestd print it.
pub fn description(num: i32) -> String {
    // SAFETY: strsignal returns a pointer to a static or thread-local
    // NUL-terminated string (or null), read at once.
    let ptr = unsafe { libc::strsignal(num) };
    if ptr.is_null() {
        return format!("Unknown signal {num}");
    }
    // SAFETY: non-null and NUL-terminated, valid until the next call.
    unsafe { std::ffi::CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_read_as_sig_name2num() {
        assert_eq!(name2num("USR1"), Some(10));
        assert_eq!(name2num("SIGUSR1"), Some(10));
        assert_eq!(name2num(" sigterm "), Some(15));
        assert_eq!(name2num("10"), Some(10));
        assert_eq!(name2num(" 2 "), Some(2));
        assert_eq!(name2num("USR3"), None);
        assert_eq!(name2num("10x"), None);
        assert_eq!(name2num("0"), None);
        assert_eq!(name2num("USR1x"), None);
        // Not in Slurm's table, though the kernel has them.
        assert_eq!(name2num("PIPE"), None);
        assert_eq!(name2num("CHLD"), None);
        assert_eq!(name2num(""), None);
    }

    #[test]
    fn numbers_are_named_as_sig_num2name() {
        assert_eq!(num2name(10), "USR1");
        assert_eq!(num2name(9), "KILL");
        assert_eq!(num2name(13), "13");
    }

    #[test]
    fn descriptions_are_strsignal_s() {
        assert_eq!(description(libc::SIGKILL), "Killed");
        assert_eq!(description(libc::SIGUSR1), "User defined signal 1");
    }
}
