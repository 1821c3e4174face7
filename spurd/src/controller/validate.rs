//! The checks a submitted `JobDesc` passes before the core sees it, as
//! slurmctld's `validate_job_create_req` makes them: sizes of the texts it
//! stores, what only an operator may ask for, a batch job's script and
//! environment, and values the type allows but Slurm does not. Every front
//! end's request meets them here, so a request built by hand (REST, the C
//! library) gets the same Slurm error as one sbatch built. What depends on
//! the cluster (partitions, nodes, limits) is the core's to check.

use spur_proto::{ErrorCode, JobDesc, ProtoError};
use spur_slurm::limits::{
    MAX_ARRAY, MAX_DEPENDENCY, MAX_NAME, MAX_PATH, MAX_SCRIPT_BYTES, MAX_SIGNAL, NICE_LIMIT, NO_VAL,
};

/// Who is submitting, as far as the checks care.
#[derive(Debug, Clone, Copy)]
pub struct Submitter {
    /// root or SlurmUser.
    pub operator: bool,
}

/// Checks `desc` as slurmctld checks a job create request; `now` is the
/// controller's clock.
pub fn job_desc(desc: &JobDesc, who: Submitter, now: u64) -> Result<(), ProtoError> {
    lengths(desc)?;
    no_nul(desc)?;
    script(desc)?;
    environment(desc)?;
    if desc.nice.unsigned_abs() > NICE_LIMIT.unsigned_abs() || (desc.nice < 0 && !who.operator) {
        return Err(ErrorCode::InvalidNice.into());
    }
    if !desc.work_dir.starts_with('/') {
        return Err(ProtoError::with_detail(
            ErrorCode::BadPath,
            "working directory must be absolute",
        ));
    }
    if let Some(s) = desc.signal {
        if !(1..=MAX_SIGNAL).contains(&s.signal) {
            return Err(ProtoError::with_detail(
                ErrorCode::InvalidArgument,
                format!("signal {} is not a signal number", s.signal),
            ));
        }
    }
    if desc.priority.is_some_and(|p| p >= NO_VAL) {
        return Err(ProtoError::with_detail(
            ErrorCode::InvalidArgument,
            format!("priority must be below {NO_VAL}"),
        ));
    }
    if let (Some(cpt), Some(cpg), Some(gpt)) =
        (desc.cpus_per_task, desc.cpus_per_gpu, desc.gpus_per_task)
    {
        // gres.c: --cpus-per-gpu times --gpus-per-task must be -c.
        if u64::from(cpg) * u64::from(gpt) != u64::from(cpt) {
            return Err(ProtoError::with_detail(
                ErrorCode::InvalidGres,
                "--cpus-per-gpu and --gpus-per-task give another CPU count than --cpus-per-task",
            ));
        }
    }
    times(desc, now)
}

/// slurmctld's `_test_strlen` over the texts a job keeps.
fn lengths(desc: &JobDesc) -> Result<(), ProtoError> {
    let partitions = desc.partitions.join(",");
    let texts: [(&str, Option<&str>, usize); 12] = [
        ("account", desc.account.as_deref(), MAX_NAME),
        ("array_inx", desc.array.as_deref(), MAX_ARRAY),
        ("comment", desc.comment.as_deref(), MAX_NAME),
        ("dependency", desc.dependency.as_deref(), MAX_DEPENDENCY),
        ("features", desc.constraint.as_deref(), MAX_NAME),
        ("name", desc.name.as_deref(), MAX_NAME),
        ("partition", Some(&partitions), MAX_NAME),
        ("qos", desc.qos.as_deref(), MAX_NAME),
        ("std_err", desc.stderr.as_deref(), MAX_PATH),
        ("std_in", desc.stdin.as_deref(), MAX_PATH),
        ("std_out", desc.stdout.as_deref(), MAX_PATH),
        ("work_dir", Some(&desc.work_dir), MAX_PATH),
    ];
    let script = ("script", desc.script.as_deref(), MAX_SCRIPT_BYTES);
    for (field, text, max) in texts.into_iter().chain([script]) {
        let len = text.map_or(0, str::len);
        if len > max {
            return Err(ProtoError::with_detail(
                ErrorCode::BadPath,
                format!("strlen({field}) too big ({len} > {max})"),
            ));
        }
    }
    Ok(())
}

/// No text the job is run with may hold a NUL: C strings end there.
fn no_nul(desc: &JobDesc) -> Result<(), ProtoError> {
    let paths = [&desc.stdout, &desc.stderr, &desc.stdin, &desc.command];
    let has_nul = desc.work_dir.contains('\0')
        || paths
            .iter()
            .filter_map(|p| p.as_deref())
            .any(|p| p.contains('\0'))
        || desc.argv.iter().any(|a| a.contains('\0'));
    if has_nul {
        return Err(ProtoError::with_detail(
            ErrorCode::InvalidArgument,
            "a path or argument holds a NUL character",
        ));
    }
    Ok(())
}

/// A batch job has a script that starts with `#!` and holds no NUL; an
/// allocation (salloc, srun) has none.
fn script(desc: &JobDesc) -> Result<(), ProtoError> {
    match (&desc.script, desc.interactive) {
        (None, true) => Ok(()),
        (Some(s), false) if s.starts_with("#!") && !s.contains('\0') => Ok(()),
        (Some(_), false) => Err(ErrorCode::BatchScriptInvalid.into()),
        (Some(_), true) => Err(ProtoError::with_detail(
            ErrorCode::BatchScriptInvalid,
            "an interactive allocation has no batch script",
        )),
        (None, false) => Err(ErrorCode::ScriptMissing.into()),
    }
}

/// A batch job cannot run without an environment (slurmctld's
/// `_copy_job_desc_to_file`); every variable is `NAME=value` with a name.
fn environment(desc: &JobDesc) -> Result<(), ProtoError> {
    if !desc.interactive && desc.env.is_empty() {
        return Err(ErrorCode::EnvironmentMissing.into());
    }
    let bad = desc
        .env
        .iter()
        .find(|(k, v)| k.is_empty() || k.contains(['=', '\0']) || v.contains('\0'));
    match bad {
        Some((k, _)) => Err(ProtoError::with_detail(
            ErrorCode::InvalidArgument,
            format!("environment variable name {k:?} is not valid"),
        )),
        None => Ok(()),
    }
}

/// `--begin`, `--deadline` and the time limits against each other and the
/// clock (slurmctld's `job_limits_check` where it does not need the
/// partition).
fn times(desc: &JobDesc, now: u64) -> Result<(), ProtoError> {
    let storable = |t: Option<u64>| t.is_none_or(|t| t <= spur_conf::MAX_TIME_LIMIT_SECS);
    if !storable(desc.time_limit) || !storable(desc.time_min) {
        return Err(ErrorCode::InvalidTimeLimit.into());
    }
    let Some(deadline) = desc.deadline else {
        return Ok(());
    };
    if deadline < now {
        return Err(ErrorCode::InvalidTimeLimit.into());
    }
    if desc.begin.is_some_and(|b| b > deadline) {
        return Err(ErrorCode::InvalidTimeValue.into());
    }
    if desc.time_min.is_some_and(|m| m > 0 && deadline < now + m) {
        return Err(ErrorCode::InvalidTimeMinLimit.into());
    }
    // An explicit `--time-min=0` makes the time limit the run time that
    // must fit; without `--time-min` the job is ended if it misses.
    if desc.time_min == Some(0) && desc.time_limit.is_some_and(|t| deadline < now + t) {
        return Err(ErrorCode::InvalidTimeLimit.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_proto::JobSignal;

    const USER: Submitter = Submitter { operator: false };
    const ROOT: Submitter = Submitter { operator: true };
    const NOW: u64 = 1_700_000_000;

    fn batch() -> JobDesc {
        JobDesc {
            script: Some("#!/bin/sh\ntrue\n".into()),
            work_dir: "/tmp".into(),
            env: vec![("PATH".into(), "/bin".into())],
            ..JobDesc::default()
        }
    }

    fn code(desc: &JobDesc, who: Submitter) -> Option<ErrorCode> {
        job_desc(desc, who, NOW).err().map(|e| e.code)
    }

    #[test]
    fn a_plain_batch_job_and_an_allocation_pass() {
        assert_eq!(code(&batch(), USER), None);
        let alloc = JobDesc {
            script: None,
            interactive: true,
            env: Vec::new(),
            ..batch()
        };
        assert_eq!(code(&alloc, USER), None);
    }

    #[test]
    fn texts_longer_than_slurm_stores_are_refused_by_name() {
        let e = job_desc(
            &JobDesc {
                name: Some("x".repeat(1025)),
                ..batch()
            },
            USER,
            NOW,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::BadPath);
        assert_eq!(
            e.detail.as_deref(),
            Some("strlen(name) too big (1025 > 1024)")
        );
        let long_script = JobDesc {
            script: Some(format!("#!/bin/sh\n{}", "#".repeat(MAX_SCRIPT_BYTES))),
            ..batch()
        };
        assert_eq!(code(&long_script, USER), Some(ErrorCode::BadPath));
    }

    #[test]
    fn only_an_operator_may_lower_nice_and_no_one_past_the_limit() {
        let lower = JobDesc {
            nice: -5,
            ..batch()
        };
        assert_eq!(code(&lower, USER), Some(ErrorCode::InvalidNice));
        assert_eq!(code(&lower, ROOT), None);
        let past = JobDesc {
            nice: i32::MIN,
            ..batch()
        };
        assert_eq!(code(&past, ROOT), Some(ErrorCode::InvalidNice));
    }

    #[test]
    fn a_batch_job_needs_a_script_with_an_interpreter_and_an_environment() {
        let none = JobDesc {
            script: None,
            ..batch()
        };
        assert_eq!(code(&none, USER), Some(ErrorCode::ScriptMissing));
        let bare = JobDesc {
            script: Some("echo hi\n".into()),
            ..batch()
        };
        assert_eq!(code(&bare, USER), Some(ErrorCode::BatchScriptInvalid));
        let no_env = JobDesc {
            env: Vec::new(),
            ..batch()
        };
        assert_eq!(code(&no_env, USER), Some(ErrorCode::EnvironmentMissing));
        let bad_name = JobDesc {
            env: vec![("A=B".into(), "c".into())],
            ..batch()
        };
        assert_eq!(code(&bad_name, USER), Some(ErrorCode::InvalidArgument));
    }

    #[test]
    fn times_that_cannot_be_met_are_refused_as_slurmctld_does() {
        let with = |begin, deadline, time_min, time_limit| JobDesc {
            begin,
            deadline,
            time_min,
            time_limit,
            ..batch()
        };
        let code = |d: JobDesc| code(&d, USER);
        assert_eq!(
            code(with(None, Some(NOW - 1), None, None)),
            Some(ErrorCode::InvalidTimeLimit)
        );
        assert_eq!(
            code(with(Some(NOW + 100), Some(NOW + 50), None, None)),
            Some(ErrorCode::InvalidTimeValue)
        );
        assert_eq!(
            code(with(None, Some(NOW + 50), Some(60), Some(600))),
            Some(ErrorCode::InvalidTimeMinLimit)
        );
        assert_eq!(
            code(with(None, Some(NOW + 50), Some(0), Some(600))),
            Some(ErrorCode::InvalidTimeLimit)
        );
        assert_eq!(code(with(None, Some(NOW + 50), None, Some(600))), None);
        assert_eq!(code(with(None, Some(NOW + 700), None, Some(600))), None);
        // Past 32-bit minutes, with or without a deadline to add it to.
        let endless = Some(u64::MAX);
        assert_eq!(
            code(with(None, None, None, endless)),
            Some(ErrorCode::InvalidTimeLimit)
        );
        assert_eq!(
            code(with(None, Some(NOW + 50), endless, None)),
            Some(ErrorCode::InvalidTimeLimit)
        );
    }

    #[test]
    fn cpus_per_gpu_must_agree_with_cpus_per_task() {
        let with = |cpus_per_task| JobDesc {
            cpus_per_task,
            cpus_per_gpu: Some(4),
            gpus_per_task: Some(2),
            ..batch()
        };
        assert_eq!(code(&with(Some(8)), USER), None);
        assert_eq!(code(&with(None), USER), None);
        assert_eq!(code(&with(Some(3)), USER), Some(ErrorCode::InvalidGres));
    }

    #[test]
    fn a_signal_number_must_be_a_signal() {
        let with = |signal| JobDesc {
            signal: Some(JobSignal {
                signal,
                before: 60,
                batch_only: false,
            }),
            ..batch()
        };
        assert_eq!(code(&with(10), USER), None);
        assert_eq!(code(&with(0), USER), Some(ErrorCode::InvalidArgument));
        assert_eq!(code(&with(999), USER), Some(ErrorCode::InvalidArgument));
    }
}
