//! Slurm 22.05's job states and reasons as numbers (`enum job_states`,
//! the `JOB_*` state flags and `enum job_state_reason` of `slurm.h`) and
//! the words `slurm_job_state_string`, `slurm_job_state_string_compact`
//! and `slurm_job_reason_string` give them, as recorded from Debian 12's
//! libslurm.so.38 (a test compares them where it is installed).

/// The base states, by number (`JOB_PENDING` = 0 ...): name, compact name.
pub const BASE_STATES: [(&str, &str); 12] = [
    ("PENDING", "PD"),
    ("RUNNING", "R"),
    ("SUSPENDED", "S"),
    ("COMPLETED", "CD"),
    ("CANCELLED", "CA"),
    ("FAILED", "F"),
    ("TIMEOUT", "TO"),
    ("NODE_FAIL", "NF"),
    ("PREEMPTED", "PR"),
    ("BOOT_FAIL", "BF"),
    ("DEADLINE", "DL"),
    ("OUT_OF_MEMORY", "OOM"),
];

/// The bits of the state above the base (`JOB_STATE_BASE`).
pub const STATE_BASE: u32 = 0xff;

/// The state flags that name a state, in the order Slurm tries them (the
/// first set names the state): bit, name, compact name.
pub const STATE_FLAGS: [(u32, &str, &str); 12] = [
    (0x8000, "COMPLETING", "CG"),
    (0x800000, "STAGE_OUT", "SO"),
    (0x4000, "CONFIGURING", "CF"),
    (0x2000, "RESIZING", "RS"),
    (0x400, "REQUEUED", "RQ"),
    (0x100000, "REQUEUE_FED", "RF"),
    (0x800, "REQUEUE_HOLD", "RH"),
    (0x1000, "SPECIAL_EXIT", "SE"),
    (0x10000, "STOPPED", "ST"),
    (0x80000, "REVOKED", "RV"),
    (0x200000, "RESV_DEL_HOLD", "RD"),
    (0x400000, "SIGNALING", "SI"),
];

/// `slurm_job_state_string`: the name of a state with its flags.
pub fn state_name(state: u32) -> &'static str {
    named(state).map_or("?", |(name, _)| name)
}

/// `slurm_job_state_string_compact`.
pub fn state_compact(state: u32) -> &'static str {
    named(state).map_or("?", |(_, compact)| compact)
}

fn named(state: u32) -> Option<(&'static str, &'static str)> {
    if let Some(&(_, name, compact)) = STATE_FLAGS.iter().find(|(bit, _, _)| state & bit != 0) {
        return Some((name, compact));
    }
    BASE_STATES.get((state & STATE_BASE) as usize).copied()
}

/// `slurm_job_state_num`: the state a name (or compact name) names, in
/// any case.
pub fn state_number(text: &str) -> Option<u32> {
    let is = |(name, compact): (&str, &str)| {
        name.eq_ignore_ascii_case(text) || compact.eq_ignore_ascii_case(text)
    };
    if let Some(i) = BASE_STATES.iter().position(|&pair| is(pair)) {
        return u32::try_from(i).ok();
    }
    STATE_FLAGS
        .iter()
        .find(|&&(_, name, compact)| is((name, compact)))
        .map(|&(bit, _, _)| bit)
}

/// `slurm_job_reason_string`'s words, by `enum job_state_reason` number.
pub const REASONS: [&str; 199] = [
    "None",
    "Priority",
    "Dependency",
    "Resources",
    "PartitionNodeLimit",
    "PartitionTimeLimit",
    "PartitionDown",
    "PartitionInactive",
    "JobHeldAdmin",
    "BeginTime",
    "Licenses",
    "AssociationJobLimit",
    "AssociationResourceLimit",
    "AssociationTimeLimit",
    "Reservation",
    "ReqNodeNotAvail",
    "JobHeldUser",
    "FrontEndDown",
    "SchedDefer",
    "PartitionDown",
    "NodeDown",
    "BadConstraints",
    "SystemFailure",
    "JobLaunchFailure",
    "NonZeroExitCode",
    "TimeLimit",
    "InactiveLimit",
    "InvalidAccount",
    "InvalidQOS",
    "QOSUsageThreshold",
    "QOSJobLimit",
    "QOSResourceLimit",
    "QOSTimeLimit",
    "BlockMaxError",
    "BlockFreeAction",
    "Cleaning",
    "Prolog",
    "QOSNotAllowed",
    "AccountNotAllowed",
    "DependencyNeverSatisfied",
    "QOSGrpCpuLimit",
    "QOSGrpCPUMinutesLimit",
    "QOSGrpCPURunMinutesLimit",
    "QOSGrpJobsLimit",
    "QOSGrpMemLimit",
    "QOSGrpNodeLimit",
    "QOSGrpSubmitJobsLimit",
    "QOSGrpWallLimit",
    "QOSMaxCpuPerJobLimit",
    "QOSMaxCpuMinutesPerJobLimit",
    "QOSMaxNodePerJobLimit",
    "QOSMaxWallDurationPerJobLimit",
    "QOSMaxCpuPerUserLimit",
    "QOSMaxJobsPerUserLimit",
    "QOSMaxNodePerUserLimit",
    "QOSMaxSubmitJobPerUserLimit",
    "QOSMinCpuNotSatisfied",
    "AssocGrpCpuLimit",
    "AssocGrpCPUMinutesLimit",
    "AssocGrpCPURunMinutesLimit",
    "AssocGrpJobsLimit",
    "AssocGrpMemLimit",
    "AssocGrpNodeLimit",
    "AssocGrpSubmitJobsLimit",
    "AssocGrpWallLimit",
    "AssocMaxJobsLimit",
    "AssocMaxCpuPerJobLimit",
    "AssocMaxCpuMinutesPerJobLimit",
    "AssocMaxNodePerJobLimit",
    "AssocMaxWallDurationPerJobLimit",
    "AssocMaxSubmitJobLimit",
    "JobHoldMaxRequeue",
    "JobArrayTaskLimit",
    "BurstBufferResources",
    "BurstBufferStageIn",
    "BurstBufferOperation",
    "PowerNotAvail",
    "PowerReserved",
    "AssocGrpUnknown",
    "AssocGrpUnknownMinutes",
    "AssocGrpUnknownRunMinutes",
    "AssocMaxUnknownPerJob",
    "AssocMaxUnknownPerNode",
    "AssocMaxUnknownMinutesPerJob",
    "AssocMaxCpuPerNode",
    "AssocGrpMemMinutes",
    "AssocGrpMemRunMinutes",
    "AssocMaxMemPerJob",
    "AssocMaxMemPerNode",
    "AssocMaxMemMinutesPerJob",
    "AssocGrpNodeMinutes",
    "AssocGrpNodeRunMinutes",
    "AssocMaxNodeMinutesPerJob",
    "AssocGrpEnergy",
    "AssocGrpEnergyMinutes",
    "AssocGrpEnergyRunMinutes",
    "AssocMaxEnergyPerJob",
    "AssocMaxEnergyPerNode",
    "AssocMaxEnergyMinutesPerJob",
    "AssocGrpGRES",
    "AssocGrpGRESMinutes",
    "AssocGrpGRESRunMinutes",
    "AssocMaxGRESPerJob",
    "AssocMaxGRESPerNode",
    "AssocMaxGRESMinutesPerJob",
    "AssocGrpLicense",
    "AssocGrpLicenseMinutes",
    "AssocGrpLicenseRunMinutes",
    "AssocMaxLicensePerJob",
    "AssocMaxLicenseMinutesPerJob",
    "AssocGrpBB",
    "AssocGrpBBMinutes",
    "AssocGrpBBRunMinutes",
    "AssocMaxBBPerJob",
    "AssocMaxBBPerNode",
    "AssocMaxBBMinutesPerJob",
    "QOSGrpUnknown",
    "QOSGrpUnknownMinutes",
    "QOSGrpUnknownRunMinutes",
    "QOSMaxUnknownPerJob",
    "QOSMaxUnknownPerNode",
    "QOSMaxUnknownPerUser",
    "QOSMaxUnknownMinutesPerJob",
    "QOSMinUnknown",
    "QOSMaxCpuPerNode",
    "QOSGrpMemoryMinutes",
    "QOSGrpMemoryRunMinutes",
    "QOSMaxMemoryMinutesPerJob",
    "QOSMaxMemoryPerJob",
    "QOSMaxMemoryPerNode",
    "QOSMaxMemoryPerUser",
    "QOSMinMemory",
    "QOSGrpEnergy",
    "QOSGrpEnergyMinutes",
    "QOSGrpEnergyRunMinutes",
    "QOSMaxEnergyPerJob",
    "QOSMaxEnergyPerNode",
    "QOSMaxEnergyPerUser",
    "QOSMaxEnergyMinutesPerJob",
    "QOSMinEnergy",
    "QOSGrpNodeMinutes",
    "QOSGrpNodeRunMinutes",
    "QOSMaxNodeMinutesPerJob",
    "QOSMinNode",
    "QOSGrpGRES",
    "QOSGrpGRESMinutes",
    "QOSGrpGRESRunMinutes",
    "QOSMaxGRESPerJob",
    "QOSMaxGRESPerNode",
    "QOSMaxGRESPerUser",
    "QOSMaxGRESMinutesPerJob",
    "QOSMinGRES",
    "QOSGrpLicense",
    "QOSGrpLicenseMinutes",
    "QOSGrpLicenseRunMinutes",
    "QOSMaxLicensePerJob",
    "QOSMaxLicensePerUser",
    "QOSMaxLicenseMinutesPerJob",
    "QOSMinLicense",
    "QOSGrpBB",
    "QOSGrpBBMinutes",
    "QOSGrpBBRunMinutes",
    "QOSMaxBBPerJob",
    "QOSMaxBBPerNode",
    "QOSMaxBBPerUser",
    "AssocMaxBBMinutesPerJob",
    "QOSMinBB",
    "DeadLine",
    "MaxBBPerAccount",
    "MaxCpuPerAccount",
    "MaxEnergyPerAccount",
    "MaxGRESPerAccount",
    "MaxNodePerAccount",
    "MaxLicensePerAccount",
    "MaxMemoryPerAccount",
    "MaxUnknownPerAccount",
    "MaxJobsPerAccount",
    "MaxSubmitJobsPerAccount",
    "PartitionConfig",
    "AccountingPolicy",
    "FedJobLock",
    "OutOfMemory",
    "MaxMemPerLimit",
    "AssocGrpBilling",
    "AssocGrpBillingMinutes",
    "AssocGrpBillingRunMinutes",
    "AssocMaxBillingPerJob",
    "AssocMaxBillingPerNode",
    "AssocMaxBillingMinutesPerJob",
    "QOSGrpBilling",
    "QOSGrpBillingMinutes",
    "QOSGrpBillingRunMinutes",
    "QOSMaxBillingPerJob",
    "QOSMaxBillingPerNode",
    "QOSMaxBillingPerUser",
    "QOSMaxBillingMinutesPerJob",
    "MaxBillingPerAccount",
    "QOSMinBilling",
    "ReservationDeleted",
];

/// `slurm_job_reason_string`'s word for a reason number.
pub fn reason_text(number: u32) -> Option<&'static str> {
    REASONS.get(usize::try_from(number).ok()?).copied()
}

/// The number of a reason as squeue and `scontrol show job` name it.
pub fn reason_number(text: &str) -> Option<u32> {
    REASONS
        .iter()
        .position(|r| *r == text)
        .and_then(|i| u32::try_from(i).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_named_by_their_first_flag_else_their_base() {
        assert_eq!(state_name(1), "RUNNING");
        assert_eq!(state_name(1 | 0x8000), "COMPLETING");
        assert_eq!(state_compact(3 | 0x8000 | 0x400), "CG");
        assert_eq!(state_number("cg"), Some(0x8000));
        assert_eq!(state_number("OOM"), Some(11));
        assert_eq!(state_number("bogus"), None);
        assert_eq!(reason_number("Resources"), Some(3));
    }

    /// Where Debian's libslurm.so.38 is installed, every word is the one
    /// its functions give.
    #[test]
    fn words_are_those_of_slurms_own_library() {
        let Some(lib) = crate::slurm_lib::SlurmLib::open() else {
            return;
        };
        type Name = extern "C" fn(u32) -> *const libc::c_char;
        // SAFETY: each function takes a number and returns a static
        // NUL-terminated string.
        unsafe {
            let (full, compact, reason): (Name, Name, Name) = (
                lib.get(c"slurm_job_state_string"),
                lib.get(c"slurm_job_state_string_compact"),
                lib.get(c"slurm_job_reason_string"),
            );
            let text = |p| crate::slurm_lib::text(p);
            for base in 0..12u32 {
                for flags in (8..32)
                    .map(|b| 1u32 << b)
                    .chain([0, 0x8000 | 0x400, 0x800 | 0x1000])
                {
                    let state = base | flags;
                    assert_eq!(state_name(state), text(full(state)), "{state:#x}");
                    assert_eq!(state_compact(state), text(compact(state)), "{state:#x}");
                }
            }
            for (i, ours) in REASONS.iter().enumerate() {
                assert_eq!(*ours, text(reason(i as u32)), "reason {i}");
            }
        }
    }
}
