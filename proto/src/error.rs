//! Errors as they cross the wire: a code every front end can map (to Slurm's
//! text for the CLIs, to errno for libslurm, to HTTP for REST) and the exit
//! codes the commands return.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What went wrong, in Slurm's terms. The text is Slurm's `slurm_strerror`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ErrorCode {
    /// ESLURM_INVALID_PARTITION_NAME.
    InvalidPartitionName,
    /// ESLURM_DEFAULT_PARTITION_NOT_SET.
    DefaultPartitionNotSet,
    /// ESLURM_PARTITION_NOT_AVAIL: the partition takes no new jobs.
    PartitionNotAvailable,
    /// ESLURM_JOB_HELD: a held job's priority cannot be set.
    JobHeld,
    /// ESLURM_PRIO_RESET_FAIL: only operators may fix a job's priority.
    PrioResetFail,
    /// ESLURM_ACCESS_DENIED.
    AccessDenied,
    /// ESLURM_INVALID_NODE_COUNT.
    InvalidNodeCount,
    /// ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE.
    NodeConfigUnavailable,
    /// ESLURM_REQUESTED_TOPO_CONFIG_UNAVAILABLE.
    TopoConfigUnavailable,
    /// ESLURM_INVALID_JOB_ID.
    InvalidJobId,
    /// ESLURM_INVALID_NODE_NAME.
    InvalidNodeName,
    /// ESLURM_ALREADY_DONE.
    AlreadyDone,
    /// ESLURM_JOB_PENDING.
    JobPending,
    /// ESLURM_BAD_TASK_COUNT.
    BadTaskCount,
    /// ESLURM_TOO_MANY_REQUESTED_CPUS.
    TooManyCpus,
    /// ESLURM_NODES_BUSY: a step waits for the job's other steps.
    NodesBusy,
    /// ESLURM_INVALID_ARRAY: a bad `--array`.
    InvalidArray,
    /// ESLURM_DEPENDENCY: a bad `--dependency` or `Dependency=`.
    Dependency,
    /// ESLURM_CIRCULAR_DEPENDENCY.
    CircularDependency,
    /// ESLURM_JOB_FINISHED.
    JobFinished,
    /// ESLURM_INVALID_FEATURE.
    InvalidFeature,
    /// ESLURM_INVALID_ACCOUNT.
    InvalidAccount,
    /// ESLURM_INVALID_TIME_LIMIT.
    InvalidTimeLimit,
    /// ESLURM_INVALID_QOS.
    InvalidQos,
    /// ESLURM_INVALID_GRES.
    InvalidGres,
    /// ESLURM_TRANSITION_STATE_NO_UPDATE.
    TransitionStateNoUpdate,
    /// ESLURM_JOB_NOT_PENDING.
    JobNotPending,
    /// ESLURM_JOB_NOT_RUNNING.
    JobNotRunning,
    /// ESLURM_DISABLED: the job cannot be requeued.
    Disabled,
    /// EAGAIN / MaxJobCount reached.
    TryAgain,
    /// An empty or malformed batch script.
    BatchScriptInvalid,
    /// ESLURM_BATCH_ONLY: requeue of an allocation held by salloc or srun.
    BatchOnly,
    /// ESLURM_JOB_SCRIPT_MISSING.
    ScriptMissing,
    /// ESLURM_INVALID_NODE_STATE.
    InvalidNodeState,
    /// ESLURM_PATHNAME_TOO_LONG and friends: a path the job cannot use.
    BadPath,
    /// ESLURM_NOT_SUPPORTED.
    NotSupported,
    /// The controller's state store failed; nothing was changed.
    StateStore,
    /// The peer speaks another protocol version.
    ProtocolVersion,
    /// The request was malformed.
    Malformed,
    /// SLURM_ERROR: a failure Slurm gives no more specific code for (a
    /// configuration a reconfigure cannot apply).
    Unspecified,
    /// SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR: a relay could not reach
    /// the controller; the request was not sent on.
    ControllerUnreachable,
    /// SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT: the controller took the
    /// request and went away before answering; it may have been acted on.
    ConnectionLost,
    /// ESLURM_INVALID_CLUSTER_NAME: `-M` names a cluster this controller
    /// is not.
    InvalidClusterName,
    /// A negative `--nice` from an ordinary user, or one out of range.
    InvalidNice,
    /// `--time-min` beyond what the job's limits or deadline allow.
    InvalidTimeMinLimit,
    /// A time that cannot be met (`--begin` after `--deadline`).
    InvalidTimeValue,
    /// A batch job without an environment.
    EnvironmentMissing,
    /// A value no option can take (a signal number that is no signal, a
    /// NUL in a path).
    InvalidArgument,
    /// ESLURM_AUTH_CRED_INVALID: a token that is missing, expired, badly
    /// signed or signed with a key the controller does not hold, or a
    /// request that must carry one and does not.
    AuthCredInvalid,
    /// ESLURM_USER_ID_MISSING: a user name the controller's host does not
    /// know, or a token asked for another user by someone who may not.
    UserIdMissing,
    /// ESLURM_RESERVATION_INVALID: a reservation name that names none.
    ReservationInvalid,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidPartitionName,
        ErrorCode::DefaultPartitionNotSet,
        ErrorCode::PartitionNotAvailable,
        ErrorCode::JobHeld,
        ErrorCode::PrioResetFail,
        ErrorCode::AccessDenied,
        ErrorCode::InvalidNodeCount,
        ErrorCode::NodeConfigUnavailable,
        ErrorCode::TopoConfigUnavailable,
        ErrorCode::InvalidJobId,
        ErrorCode::InvalidNodeName,
        ErrorCode::AlreadyDone,
        ErrorCode::JobPending,
        ErrorCode::BadTaskCount,
        ErrorCode::TooManyCpus,
        ErrorCode::NodesBusy,
        ErrorCode::InvalidArray,
        ErrorCode::Dependency,
        ErrorCode::CircularDependency,
        ErrorCode::JobFinished,
        ErrorCode::InvalidFeature,
        ErrorCode::InvalidAccount,
        ErrorCode::InvalidTimeLimit,
        ErrorCode::InvalidQos,
        ErrorCode::InvalidGres,
        ErrorCode::TransitionStateNoUpdate,
        ErrorCode::JobNotPending,
        ErrorCode::JobNotRunning,
        ErrorCode::Disabled,
        ErrorCode::TryAgain,
        ErrorCode::BatchScriptInvalid,
        ErrorCode::BatchOnly,
        ErrorCode::ScriptMissing,
        ErrorCode::InvalidNodeState,
        ErrorCode::BadPath,
        ErrorCode::NotSupported,
        ErrorCode::StateStore,
        ErrorCode::ProtocolVersion,
        ErrorCode::Malformed,
        ErrorCode::Unspecified,
        ErrorCode::ControllerUnreachable,
        ErrorCode::ConnectionLost,
        ErrorCode::InvalidClusterName,
        ErrorCode::InvalidNice,
        ErrorCode::InvalidTimeMinLimit,
        ErrorCode::InvalidTimeValue,
        ErrorCode::EnvironmentMissing,
        ErrorCode::InvalidArgument,
        ErrorCode::AuthCredInvalid,
        ErrorCode::UserIdMissing,
        ErrorCode::ReservationInvalid,
    ];

    /// Slurm's error number for the code (`slurm_get_errno()`, REST's
    /// `error_number`), as Slurm 22.05's `slurm_errno.h` numbers it.
    pub fn errno(self) -> i32 {
        self.slurm_errno().1
    }

    /// The name and number of the code's error in Slurm 22.05's
    /// `slurm_errno.h` (or `errno.h`). A code that header has no error of
    /// its own for takes the nearest one it has.
    pub fn slurm_errno(self) -> (&'static str, i32) {
        match self {
            ErrorCode::InvalidPartitionName => ("ESLURM_INVALID_PARTITION_NAME", 2000),
            ErrorCode::DefaultPartitionNotSet => ("ESLURM_DEFAULT_PARTITION_NOT_SET", 2001),
            ErrorCode::AccessDenied => ("ESLURM_ACCESS_DENIED", 2002),
            ErrorCode::TooManyCpus => ("ESLURM_TOO_MANY_REQUESTED_CPUS", 2005),
            ErrorCode::InvalidNodeCount => ("ESLURM_INVALID_NODE_COUNT", 2006),
            ErrorCode::ScriptMissing => ("ESLURM_JOB_SCRIPT_MISSING", 2009),
            ErrorCode::BadPath => ("ESLURM_PATHNAME_TOO_LONG", 2012),
            // 22.05 has no ESLURM_REQUESTED_TOPO_CONFIG_UNAVAILABLE.
            ErrorCode::NodeConfigUnavailable | ErrorCode::TopoConfigUnavailable => {
                ("ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE", 2014)
            }
            ErrorCode::NodesBusy => ("ESLURM_NODES_BUSY", 2016),
            ErrorCode::InvalidJobId => ("ESLURM_INVALID_JOB_ID", 2017),
            ErrorCode::InvalidNodeName => ("ESLURM_INVALID_NODE_NAME", 2018),
            ErrorCode::StateStore => ("ESLURM_WRITING_TO_FILE", 2019),
            ErrorCode::TransitionStateNoUpdate => ("ESLURM_TRANSITION_STATE_NO_UPDATE", 2020),
            ErrorCode::AlreadyDone => ("ESLURM_ALREADY_DONE", 2021),
            ErrorCode::JobPending => ("ESLURM_JOB_PENDING", 2024),
            ErrorCode::BadTaskCount => ("ESLURM_BAD_TASK_COUNT", 2025),
            ErrorCode::InvalidNodeState => ("ESLURM_INVALID_NODE_STATE", 2028),
            ErrorCode::InvalidFeature => ("ESLURM_INVALID_FEATURE", 2029),
            ErrorCode::NotSupported => ("ESLURM_NOT_SUPPORTED", 2036),
            ErrorCode::Disabled => ("ESLURM_DISABLED", 2037),
            ErrorCode::Dependency => ("ESLURM_DEPENDENCY", 2038),
            ErrorCode::BatchOnly => ("ESLURM_BATCH_ONLY", 2039),
            ErrorCode::JobHeld => ("ESLURM_JOB_HELD", 2042),
            ErrorCode::InvalidAccount => ("ESLURM_INVALID_ACCOUNT", 2045),
            ErrorCode::InvalidTimeLimit => ("ESLURM_INVALID_TIME_LIMIT", 2051),
            ErrorCode::InvalidQos => ("ESLURM_INVALID_QOS", 2066),
            ErrorCode::PartitionNotAvailable => ("ESLURM_PARTITION_NOT_AVAIL", 2070),
            ErrorCode::CircularDependency => ("ESLURM_CIRCULAR_DEPENDENCY", 2071),
            ErrorCode::InvalidGres => ("ESLURM_INVALID_GRES", 2072),
            ErrorCode::JobNotPending => ("ESLURM_JOB_NOT_PENDING", 2073),
            ErrorCode::InvalidArray => ("ESLURM_INVALID_ARRAY", 2081),
            ErrorCode::JobFinished => ("ESLURM_JOB_FINISHED", 2084),
            ErrorCode::JobNotRunning => ("ESLURM_JOB_NOT_RUNNING", 2085),
            ErrorCode::PrioResetFail => ("ESLURM_PRIO_RESET_FAIL", 2095),
            ErrorCode::TryAgain => ("EAGAIN", 11),
            ErrorCode::Malformed => ("SLURM_UNEXPECTED_MSG_ERROR", 1000),
            ErrorCode::ProtocolVersion => ("SLURM_PROTOCOL_VERSION_ERROR", 1005),
            ErrorCode::ControllerUnreachable => ("SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR", 1800),
            ErrorCode::ConnectionLost => ("SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT", 5005),
            ErrorCode::InvalidClusterName => ("ESLURM_INVALID_CLUSTER_NAME", 7104),
            ErrorCode::InvalidNice => ("ESLURM_INVALID_NICE", 2123),
            ErrorCode::InvalidTimeMinLimit => ("ESLURM_INVALID_TIME_MIN_LIMIT", 2124),
            ErrorCode::InvalidTimeValue => ("ESLURM_INVALID_TIME_VALUE", 2054),
            ErrorCode::EnvironmentMissing => ("ESLURM_ENVIRONMENT_MISSING", 2127),
            ErrorCode::InvalidArgument => ("EINVAL", 22),
            ErrorCode::AuthCredInvalid => ("ESLURM_AUTH_CRED_INVALID", 6000),
            ErrorCode::UserIdMissing => ("ESLURM_USER_ID_MISSING", 2010),
            ErrorCode::ReservationInvalid => ("ESLURM_RESERVATION_INVALID", 2053),
            ErrorCode::BatchScriptInvalid | ErrorCode::Unspecified => ("SLURM_ERROR", -1),
        }
    }

    /// The code's text: `slurm_strerror`'s for its number, except where
    /// spur's code is narrower than the number it shares (a script or
    /// state store failure, a topology request) or than 22.05's wording.
    pub fn text(self) -> &'static str {
        match self {
            ErrorCode::TopoConfigUnavailable => "Requested topology configuration is not available",
            ErrorCode::TransitionStateNoUpdate => {
                "Requested operation not presently supported on job in this state"
            }
            ErrorCode::TryAgain => "Resource temporarily unavailable",
            ErrorCode::BatchScriptInvalid => "Batch script is invalid",
            ErrorCode::ScriptMissing => "Batch script is missing",
            ErrorCode::StateStore => "Unable to save state, nothing was changed",
            ErrorCode::ProtocolVersion => "Protocol version has changed, re-link your code",
            ErrorCode::InvalidArgument => "Invalid argument",
            code => spur_slurm::errno::text(code.slurm_errno().1).unwrap_or("Unknown error"),
        }
    }
}

/// An error reply: the code and, where useful, detail for logs and verbose
/// output (never shown in place of Slurm's text).
#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize, Deserialize)]
#[error("{}", code.text())]
pub struct ProtoError {
    /// The code.
    pub code: ErrorCode,
    /// Detail, e.g. the partition name that does not exist.
    pub detail: Option<String>,
}

impl ProtoError {
    /// An error with no detail.
    pub fn new(code: ErrorCode) -> ProtoError {
        ProtoError { code, detail: None }
    }

    /// An error with detail.
    pub fn with_detail(code: ErrorCode, detail: impl Into<String>) -> ProtoError {
        ProtoError {
            code,
            detail: Some(detail.into()),
        }
    }
}

impl From<ErrorCode> for ProtoError {
    fn from(code: ErrorCode) -> ProtoError {
        ProtoError::new(code)
    }
}

/// Exit codes of the commands, as Slurm's commands return them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Success.
    Success = 0,
    /// The request failed at the controller (Slurm's `exit 1`).
    Failure = 1,
    /// The command line or a directive was invalid (Slurm's `exit 255`,
    /// e.g. `sbatch -t abc`).
    Usage = 255,
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> std::process::ExitCode {
        std::process::ExitCode::from(code as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_place_in_the_list() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(*code), "{code:?} twice");
        }
        // Every variant the wire knows is in the list: the numbers' match
        // is exhaustive, the list is not, so count the variants by their
        // wire index (bincode writes a variant as its u32 index).
        let variants = (0u32..)
            .take_while(|i| bincode::deserialize::<ErrorCode>(&i.to_le_bytes()).is_ok())
            .count();
        assert_eq!(ErrorCode::ALL.len(), variants);
        assert_eq!(variants, 51);
    }

    /// Where Slurm 22.05's header and a C compiler are installed
    /// (libslurm-dev), the numbers are the header's own.
    #[test]
    fn numbers_are_those_of_slurm_errno_h() {
        let header = std::path::Path::new("/usr/include/slurm/slurm_errno.h");
        if !header.exists() {
            eprintln!("skipped: {} is not installed", header.display());
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c = String::from(
            "#include <stdio.h>\n#include <errno.h>\n#include <slurm/slurm_errno.h>\n\
             int main(void) {\n",
        );
        for code in ErrorCode::ALL {
            let name = code.slurm_errno().0;
            c.push_str(&format!("printf(\"%s %d\\n\", \"{name}\", {name});\n"));
        }
        c.push_str("return 0;\n}\n");
        let source = dir.path().join("errno.c");
        let program = dir.path().join("errno");
        std::fs::write(&source, c).expect("writes");
        let built = std::process::Command::new("cc")
            .arg(&source)
            .arg("-o")
            .arg(&program)
            .output()
            .expect("cc runs");
        assert!(built.status.success(), "{built:?}");
        let out = std::process::Command::new(&program).output().expect("runs");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        for (code, line) in ErrorCode::ALL.iter().zip(text.lines()) {
            let (name, number) = code.slurm_errno();
            assert_eq!(line, format!("{name} {number}"), "{code:?}");
        }
        assert_eq!(text.lines().count(), ErrorCode::ALL.len());
    }
}
