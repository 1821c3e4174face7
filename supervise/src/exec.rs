//! What a job's process takes on before it runs the user's program: the
//! job's user with the groups the agent resolved, the submitter's umask,
//! and an environment with each name once.

use std::collections::HashMap;

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
    fn the_same_user_needs_no_change() {
        // SAFETY: getuid and getgid have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        assert_eq!(become_user(uid, gid, &[]), Ok(()));
    }
}
