//! Slurm 22.05's error numbers (`slurm/slurm_errno.h`) with their names
//! and the texts `slurm_strerror` gives them, as recorded from Debian 12's
//! libslurm.so.38; a test compares them with that library where it is
//! installed. Numbers below 1000 are the C library's.

/// Every number of `slurm_err_t`: (number, name, text), by number.
pub const ERRORS: &[(i32, &str, &str)] = &[
    (1000, "SLURM_UNEXPECTED_MSG_ERROR", "Unexpected message received"),
    (1001, "SLURM_COMMUNICATIONS_CONNECTION_ERROR", "Communication connection failure"),
    (1002, "SLURM_COMMUNICATIONS_SEND_ERROR", "Message send failure"),
    (1003, "SLURM_COMMUNICATIONS_RECEIVE_ERROR", "Message receive failure"),
    (1004, "SLURM_COMMUNICATIONS_SHUTDOWN_ERROR", "Communication shutdown failure"),
    (1005, "SLURM_PROTOCOL_VERSION_ERROR", "Incompatible versions of client and server code"),
    (1006, "SLURM_PROTOCOL_IO_STREAM_VERSION_ERROR", "I/O stream version number error"),
    (1007, "SLURM_PROTOCOL_AUTHENTICATION_ERROR", "Protocol authentication error"),
    (1008, "SLURM_PROTOCOL_INSANE_MSG_LENGTH", "Insane message length"),
    (1009, "SLURM_MPI_PLUGIN_NAME_INVALID", "Invalid MPI plugin name"),
    (1010, "SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED", "MPI plugin's pre-launch setup failed"),
    (1011, "SLURM_PLUGIN_NAME_INVALID", "Plugin initialization failed"),
    (1012, "SLURM_UNKNOWN_FORWARD_ADDR", "Can't find an address, check slurm.conf"),
    (1013, "SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR", "Unexpected missing socket error"),
    (1800, "SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR", "Unable to contact slurm controller (connect failure)"),
    (1801, "SLURMCTLD_COMMUNICATIONS_SEND_ERROR", "Unable to contact slurm controller (send failure)"),
    (1802, "SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR", "Unable to contact slurm controller (receive failure)"),
    (1803, "SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR", "Unable to contact slurm controller (shutdown failure)"),
    (1900, "SLURM_NO_CHANGE_IN_DATA", "Data has not changed since time specified"),
    (2000, "ESLURM_INVALID_PARTITION_NAME", "Invalid partition name specified"),
    (2001, "ESLURM_DEFAULT_PARTITION_NOT_SET", "No partition specified or system default partition"),
    (2002, "ESLURM_ACCESS_DENIED", "Access/permission denied"),
    (2003, "ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP", "User's group not permitted to use this partition"),
    (2004, "ESLURM_REQUESTED_NODES_NOT_IN_PARTITION", "Requested nodes not in this partition"),
    (2005, "ESLURM_TOO_MANY_REQUESTED_CPUS", "More processors requested than permitted"),
    (2006, "ESLURM_INVALID_NODE_COUNT", "Node count specification invalid"),
    (2007, "ESLURM_ERROR_ON_DESC_TO_RECORD_COPY", "Unable to create job record, try again"),
    (2008, "ESLURM_JOB_MISSING_SIZE_SPECIFICATION", "Job size specification needs to be provided"),
    (2009, "ESLURM_JOB_SCRIPT_MISSING", "Job script not specified"),
    (2010, "ESLURM_USER_ID_MISSING", "Invalid user id"),
    (2011, "ESLURM_DUPLICATE_JOB_ID", "Duplicate job id"),
    (2012, "ESLURM_PATHNAME_TOO_LONG", "Pathname of a file, directory or other parameter too long"),
    (2013, "ESLURM_NOT_TOP_PRIORITY", "Immediate execution impossible, insufficient priority"),
    (2014, "ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE", "Requested node configuration is not available"),
    (2015, "ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE", "Requested partition configuration not available now"),
    (2016, "ESLURM_NODES_BUSY", "Requested nodes are busy"),
    (2017, "ESLURM_INVALID_JOB_ID", "Invalid job id specified"),
    (2018, "ESLURM_INVALID_NODE_NAME", "Invalid node name specified"),
    (2019, "ESLURM_WRITING_TO_FILE", "I/O error writing script/environment to file"),
    (2020, "ESLURM_TRANSITION_STATE_NO_UPDATE", "Job can not be altered now, try again later"),
    (2021, "ESLURM_ALREADY_DONE", "Job/step already completing or completed"),
    (2022, "ESLURM_INTERCONNECT_FAILURE", "Error configuring interconnect"),
    (2023, "ESLURM_BAD_DIST", "Task distribution specification invalid"),
    (2024, "ESLURM_JOB_PENDING", "Job is pending execution"),
    (2025, "ESLURM_BAD_TASK_COUNT", "Task count specification invalid"),
    (2026, "ESLURM_INVALID_JOB_CREDENTIAL", "Error generating job credential"),
    (2027, "ESLURM_IN_STANDBY_MODE", "Slurm backup controller in standby mode"),
    (2028, "ESLURM_INVALID_NODE_STATE", "Invalid node state specified"),
    (2029, "ESLURM_INVALID_FEATURE", "Invalid feature specification"),
    (2030, "ESLURM_INVALID_AUTHTYPE_CHANGE", "AuthType change requires restart of all Slurm daemons and commands to take effect"),
    (2031, "ESLURM_ACTIVE_FEATURE_NOT_SUBSET", "Active features not subset of available features"),
    (2032, "ESLURM_INVALID_SCHEDTYPE_CHANGE", "SchedulerType change requires restart of the slurmctld daemon to take effect"),
    (2033, "ESLURM_INVALID_SELECTTYPE_CHANGE", "SelectType change requires restart of the slurmctld daemon to take effect"),
    (2034, "ESLURM_INVALID_SWITCHTYPE_CHANGE", "SwitchType change requires restart of all Slurm daemons and jobs to take effect"),
    (2035, "ESLURM_FRAGMENTATION", "Immediate execution impossible, resources too fragmented for allocation"),
    (2036, "ESLURM_NOT_SUPPORTED", "Requested operation not supported on this system"),
    (2037, "ESLURM_DISABLED", "Requested operation is presently disabled"),
    (2038, "ESLURM_DEPENDENCY", "Job dependency problem"),
    (2039, "ESLURM_BATCH_ONLY", "Only batch jobs are accepted or processed"),
    (2040, "ESLURM_TASKDIST_ARBITRARY_UNSUPPORTED", "Current SwitchType does not permit arbitrary task distribution"),
    (2041, "ESLURM_TASKDIST_REQUIRES_OVERCOMMIT", "Requested more tasks than available processors"),
    (2042, "ESLURM_JOB_HELD", "Job is in held state, pending scheduler release"),
    (2043, "ESLURM_INVALID_CRED_TYPE_CHANGE", "CredType change requires restart of all Slurm daemons to take effect"),
    (2044, "ESLURM_INVALID_TASK_MEMORY", "Memory required by task is not available"),
    (2045, "ESLURM_INVALID_ACCOUNT", "Invalid account or account/partition combination specified"),
    (2046, "ESLURM_INVALID_PARENT_ACCOUNT", "Invalid parent account specified"),
    (2047, "ESLURM_SAME_PARENT_ACCOUNT", "Account already child of parent account specified"),
    (2048, "ESLURM_INVALID_LICENSES", "Invalid license specification"),
    (2049, "ESLURM_NEED_RESTART", "The node configuration changes that were made require restart of the slurmctld daemon to take effect"),
    (2050, "ESLURM_ACCOUNTING_POLICY", "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"),
    (2051, "ESLURM_INVALID_TIME_LIMIT", "Requested time limit is invalid (missing or exceeds some limit)"),
    (2052, "ESLURM_RESERVATION_ACCESS", "Access denied to requested reservation"),
    (2053, "ESLURM_RESERVATION_INVALID", "Requested reservation is invalid"),
    (2054, "ESLURM_INVALID_TIME_VALUE", "Invalid time specified"),
    (2055, "ESLURM_RESERVATION_BUSY", "Requested reservation is in use"),
    (2056, "ESLURM_RESERVATION_NOT_USABLE", "Requested reservation not usable now"),
    (2057, "ESLURM_INVALID_WCKEY", "Invalid wckey specification"),
    (2058, "ESLURM_RESERVATION_OVERLAP", "Requested reservation overlaps with another reservation"),
    (2059, "ESLURM_PORTS_BUSY", "Required ports are in use"),
    (2060, "ESLURM_PORTS_INVALID", "Requires more ports than can be reserved"),
    (2061, "ESLURM_PROLOG_RUNNING", "PrologSlurmctld is still running"),
    (2062, "ESLURM_NO_STEPS", "Job steps can not be run on this cluster"),
    (2063, "ESLURM_INVALID_BLOCK_STATE", "Invalid block state specified"),
    (2064, "ESLURM_INVALID_BLOCK_LAYOUT", "Functionality not available with current block layout mode"),
    (2065, "ESLURM_INVALID_BLOCK_NAME", "Invalid block name specified"),
    (2066, "ESLURM_INVALID_QOS", "Invalid qos specification"),
    (2067, "ESLURM_QOS_PREEMPTION_LOOP", "QOS Preemption loop detected"),
    (2068, "ESLURM_NODE_NOT_AVAIL", "Required node not available (down, drained or reserved)"),
    (2069, "ESLURM_INVALID_CPU_COUNT", "CPU count specification invalid"),
    (2070, "ESLURM_PARTITION_NOT_AVAIL", "Required partition not available (inactive or drain)"),
    (2071, "ESLURM_CIRCULAR_DEPENDENCY", "Circular job dependency"),
    (2072, "ESLURM_INVALID_GRES", "Invalid generic resource (gres) specification"),
    (2073, "ESLURM_JOB_NOT_PENDING", "Job is no longer pending execution"),
    (2074, "ESLURM_QOS_THRES", "Requested account has breached requested QOS usage threshold"),
    (2075, "ESLURM_PARTITION_IN_USE", "Partition is in use"),
    (2076, "ESLURM_STEP_LIMIT", "Step limit reached for this job"),
    (2077, "ESLURM_JOB_SUSPENDED", "Job is current suspended, requested operation disabled"),
    (2078, "ESLURM_CAN_NOT_START_IMMEDIATELY", "Job can not start immediately"),
    (2079, "ESLURM_INTERCONNECT_BUSY", "Switch resources currently not available"),
    (2080, "ESLURM_RESERVATION_EMPTY", "Reservation request lacks users, groups or accounts"),
    (2081, "ESLURM_INVALID_ARRAY", "Invalid job array specification"),
    (2082, "ESLURM_RESERVATION_NAME_DUP", "Duplicate reservation name"),
    (2083, "ESLURM_JOB_STARTED", "Job has already started"),
    (2084, "ESLURM_JOB_FINISHED", "Job has already finished"),
    (2085, "ESLURM_JOB_NOT_RUNNING", "Job is not running"),
    (2086, "ESLURM_JOB_NOT_PENDING_NOR_RUNNING", "Job is not pending nor running"),
    (2087, "ESLURM_JOB_NOT_SUSPENDED", "Job is not suspended"),
    (2088, "ESLURM_JOB_NOT_FINISHED", "Job is not finished"),
    (2089, "ESLURM_TRIGGER_DUP", "Duplicate event trigger"),
    (2090, "ESLURM_INTERNAL", "Slurm internal error, contact system administrator"),
    (2091, "ESLURM_INVALID_BURST_BUFFER_CHANGE", "BurstBufferType change requires restart of slurmctld daemon to take effect"),
    (2092, "ESLURM_BURST_BUFFER_PERMISSION", "Burst Buffer permission denied"),
    (2093, "ESLURM_BURST_BUFFER_LIMIT", "Burst Buffer resource limit exceeded"),
    (2094, "ESLURM_INVALID_BURST_BUFFER_REQUEST", "Burst Buffer request invalid"),
    (2095, "ESLURM_PRIO_RESET_FAIL", "Changes to job priority are not persistent, change nice instead"),
    (2096, "ESLURM_CANNOT_MODIFY_CRON_JOB", "Cannot modify scrontab jobs through scontrol"),
    (2099, "ESLURM_INVALID_MCS_LABEL", "Invalid mcs_label specified"),
    (2100, "ESLURM_BURST_BUFFER_WAIT", "Waiting for burst buffer"),
    (2101, "ESLURM_PARTITION_DOWN", "Partition in DOWN state"),
    (2102, "ESLURM_DUPLICATE_GRES", "Duplicate generic resource (gres) specification"),
    (2103, "ESLURM_JOB_SETTING_DB_INX", "Job update not available right now, the DB index is being set, try again in a bit"),
    (2104, "ESLURM_RSV_ALREADY_STARTED", "Reservation already started"),
    (2105, "ESLURM_SUBMISSIONS_DISABLED", "System submissions disabled"),
    (2106, "ESLURM_NOT_HET_JOB", "Job not heterogeneous job"),
    (2107, "ESLURM_NOT_HET_JOB_LEADER", "Job not heterogeneous job leader"),
    (2108, "ESLURM_NOT_WHOLE_HET_JOB", "Operation not permitted on individual component of heterogeneous job"),
    (2109, "ESLURM_CORE_RESERVATION_UPDATE", "Core-based reservation can not be updated"),
    (2110, "ESLURM_DUPLICATE_STEP_ID", "Duplicate job step id"),
    (2111, "ESLURM_INVALID_CORE_CNT", "Core count for reservation node list is not consistent!"),
    (2112, "ESLURM_X11_NOT_AVAIL", "X11 forwarding not available"),
    (2113, "ESLURM_GROUP_ID_MISSING", "Invalid group id"),
    (2114, "ESLURM_BATCH_CONSTRAINT", "Job --batch option is invalid or not a subset of --constraints"),
    (2115, "ESLURM_INVALID_TRES", "Invalid Trackable RESource (TRES) specification"),
    (2116, "ESLURM_INVALID_TRES_BILLING_WEIGHTS", "Invalid TRESBillingWeights specification"),
    (2117, "ESLURM_INVALID_JOB_DEFAULTS", "Invalid JobDefaults specification"),
    (2118, "ESLURM_RESERVATION_MAINT", "Job can not start due to maintenance reservation."),
    (2119, "ESLURM_INVALID_GRES_TYPE", "Invalid GRES specification (with and without type identification)"),
    (2120, "ESLURM_REBOOT_IN_PROGRESS", "Reboot already in progress"),
    (2121, "ESLURM_MULTI_KNL_CONSTRAINT", "Multiple KNL NUMA and/or MCDRAM constraints require use of a heterogeneous job"),
    (2122, "ESLURM_UNSUPPORTED_GRES", "Requested GRES option unsupported by configured SelectType plugin"),
    (2123, "ESLURM_INVALID_NICE", "Invalid --nice value"),
    (2124, "ESLURM_INVALID_TIME_MIN_LIMIT", "Invalid time-min specification (exceeds job's time or other limits)"),
    (2125, "ESLURM_DEFER", "Immediate execution impossible. Individual job submission scheduling attempts deferred"),
    (2126, "ESLURM_CONFIGLESS_DISABLED", "ConfigLess mode is disabled in slurm configuration."),
    (2127, "ESLURM_ENVIRONMENT_MISSING", "Environment is missing in job"),
    (2128, "ESLURM_RESERVATION_NO_SKIP", "Reservation given is not skipable, try deleting instead"),
    (2129, "ESLURM_RESERVATION_USER_GROUP", "Reservations can't have users and groups specified, only one or the other"),
    (2130, "ESLURM_PARTITION_ASSOC", "Multiple partition job request not supported when a partition is set in the association"),
    (2131, "ESLURM_IN_STANDBY_USE_BACKUP", "Controller is in standby mode, try a different controller"),
    (2132, "ESLURM_BAD_THREAD_PER_CORE", "Cannot request more threads per core than the job allocation"),
    (2133, "ESLURM_INVALID_PREFER", "Invalid preferred feature specification"),
    (2134, "ESLURM_INSUFFICIENT_GRES", "Insufficient GRES available in allocation"),
    (3000, "ESPANK_ERROR", "Generic error"),
    (3001, "ESPANK_BAD_ARG", "Bad argument"),
    (3002, "ESPANK_NOT_TASK", "Not in task context"),
    (3003, "ESPANK_ENV_EXISTS", "Environment variable exists"),
    (3004, "ESPANK_ENV_NOEXIST", "No such environment variable"),
    (3005, "ESPANK_NOSPACE", "Buffer too small"),
    (3006, "ESPANK_NOT_REMOTE", "Valid only in remote context"),
    (3007, "ESPANK_NOEXIST", "Id/PID does not exist on this node"),
    (3008, "ESPANK_NOT_EXECD", "Lookup by PID requested, but no tasks running"),
    (3009, "ESPANK_NOT_AVAIL", "Item not available from this callback"),
    (3010, "ESPANK_NOT_LOCAL", "Valid only in local or allocator context"),
    (4000, "ESLURMD_PIPE_ERROR_ON_TASK_SPAWN", "Pipe error on task spawn"),
    (4001, "ESLURMD_KILL_TASK_FAILED", "Kill task failed"),
    (4002, "ESLURMD_KILL_JOB_ALREADY_COMPLETE", "Unknown error 4002"),
    (4003, "ESLURMD_INVALID_ACCT_FREQ", "Invalid accounting frequency requested"),
    (4004, "ESLURMD_INVALID_JOB_CREDENTIAL", "Invalid job credential"),
    (4005, "ESLURMD_UID_NOT_FOUND", "User not found on host"),
    (4006, "ESLURMD_GID_NOT_FOUND", "Group ID not found on host"),
    (4007, "ESLURMD_CREDENTIAL_EXPIRED", "Job credential expired"),
    (4008, "ESLURMD_CREDENTIAL_REVOKED", "Job credential revoked"),
    (4009, "ESLURMD_CREDENTIAL_REPLAYED", "Job credential replayed"),
    (4010, "ESLURMD_CREATE_BATCH_DIR_ERROR", "Slurmd could not create a batch directory or file"),
    (4011, "ESLURMD_MODIFY_BATCH_DIR_ERROR", "Slurmd could not chown or chmod a batch directory"),
    (4012, "ESLURMD_CREATE_BATCH_SCRIPT_ERROR", "Slurmd could not create a batch script"),
    (4013, "ESLURMD_MODIFY_BATCH_SCRIPT_ERROR", "Slurmd could not chown or chmod a batch script"),
    (4014, "ESLURMD_SETUP_ENVIRONMENT_ERROR", "Slurmd could not set up environment for batch job"),
    (4015, "ESLURMD_SHARED_MEMORY_ERROR", "Slurmd shared memory error"),
    (4016, "ESLURMD_SET_UID_OR_GID_ERROR", "Slurmd could not set UID or GID"),
    (4017, "ESLURMD_SET_SID_ERROR", "Slurmd could not set session ID"),
    (4018, "ESLURMD_CANNOT_SPAWN_IO_THREAD", "Slurmd could not spawn I/O thread"),
    (4019, "ESLURMD_FORK_FAILED", "Slurmd could not fork job"),
    (4020, "ESLURMD_EXECVE_FAILED", "Slurmd could not execve job"),
    (4021, "ESLURMD_IO_ERROR", "Slurmd could not connect IO"),
    (4022, "ESLURMD_PROLOG_FAILED", "Job prolog failed"),
    (4023, "ESLURMD_EPILOG_FAILED", "Job epilog failed"),
    (4024, "ESLURMD_SESSION_KILLED", "Session manager killed"),
    (4025, "ESLURMD_TOOMANYSTEPS", "Too many job steps on node"),
    (4026, "ESLURMD_STEP_EXISTS", "Job step already exists"),
    (4027, "ESLURMD_JOB_NOTRUNNING", "Job step not running"),
    (4028, "ESLURMD_STEP_SUSPENDED", "Job step is suspended"),
    (4029, "ESLURMD_STEP_NOTSUSPENDED", "Job step is not currently suspended"),
    (4030, "ESLURMD_INVALID_SOCKET_NAME_LEN", "Unix socket name exceeded maximum length"),
    (4031, "ESLURMD_CONTAINER_RUNTIME_INVALID", "Container runtime not configured or invalid"),
    (4032, "ESLURMD_CPU_BIND_ERROR", "Unable to satisfy cpu bind request"),
    (4033, "ESLURMD_CPU_LAYOUT_ERROR", "Unable to layout tasks on given cpus"),
    (4100, "ESCRIPT_CHDIR_FAILED", "unable to change directory to work directory"),
    (4101, "ESCRIPT_OPEN_OUTPUT_FAILED", "could not open output file"),
    (4102, "ESCRIPT_NON_ZERO_RETURN", "Script terminated with non-zero exit code"),
    (5000, "SLURM_PROTOCOL_SOCKET_IMPL_ZERO_RECV_LENGTH", "Received zero length message"),
    (5001, "SLURM_PROTOCOL_SOCKET_IMPL_NEGATIVE_RECV_LENGTH", "Received message length < 0"),
    (5002, "SLURM_PROTOCOL_SOCKET_IMPL_NOT_ALL_DATA_SENT", "Failed to send entire message"),
    (5003, "ESLURM_PROTOCOL_INCOMPLETE_PACKET", "Header lengths are longer than data received"),
    (5004, "SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT", "Socket timed out on send/recv operation"),
    (5005, "SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT", "Zero Bytes were transmitted or received"),
    (6000, "ESLURM_AUTH_CRED_INVALID", "Invalid authentication credential"),
    (6001, "ESLURM_AUTH_FOPEN_ERROR", "Failed to open authentication public key"),
    (6002, "ESLURM_AUTH_NET_ERROR", "Failed to connect to authentication agent"),
    (6003, "ESLURM_AUTH_UNABLE_TO_SIGN", "Unknown error 6003"),
    (6004, "ESLURM_AUTH_BADARG", "Bad argument to plugin function"),
    (6005, "ESLURM_AUTH_MEMORY", "Memory management error"),
    (6006, "ESLURM_AUTH_INVALID", "Authentication credential invalid"),
    (6007, "ESLURM_AUTH_UNPACK", "Cannot unpack credential"),
    (6008, "ESLURM_AUTH_SKIP", "Authentication does not apply to request"),
    (7000, "ESLURM_DB_CONNECTION", "Unable to connect to database"),
    (7001, "ESLURM_JOBS_RUNNING_ON_ASSOC", "Job(s) active, cancel job(s) before remove"),
    (7002, "ESLURM_CLUSTER_DELETED", "Cluster deleted, commit/rollback immediately"),
    (7003, "ESLURM_ONE_CHANGE", "Can only change one at a time"),
    (7004, "ESLURM_BAD_NAME", "Unacceptable name given. (No '.' in name allowed)"),
    (7005, "ESLURM_OVER_ALLOCATE", "You can not allocate more than 100% of a resource"),
    (7006, "ESLURM_RESULT_TOO_LARGE", "Query result exceeds size limit"),
    (7007, "ESLURM_DB_QUERY_TOO_WIDE", "Too wide of a date range in query"),
    (7008, "ESLURM_DB_CONNECTION_INVALID", "Database connection reference is invalid"),
    (7009, "ESLURM_NO_REMOVE_DEFAULT_ACCOUNT", "You can not remove the default account of a user"),
    (7100, "ESLURM_FED_CLUSTER_MAX_CNT", "Too many clusters in federation"),
    (7101, "ESLURM_FED_CLUSTER_MULTIPLE_ASSIGNMENT", "Clusters can only be assigned to one federation"),
    (7102, "ESLURM_INVALID_CLUSTER_FEATURE", "Invalid cluster feature specification"),
    (7103, "ESLURM_JOB_NOT_FEDERATED", "Not a valid federated job"),
    (7104, "ESLURM_INVALID_CLUSTER_NAME", "Invalid cluster name"),
    (7105, "ESLURM_FED_JOB_LOCK", "Job locked by another sibling"),
    (7106, "ESLURM_FED_NO_VALID_CLUSTERS", "No eligible clusters for federated job"),
    (8000, "ESLURM_MISSING_TIME_LIMIT", "Time limit specification required, but not provided"),
    (8001, "ESLURM_INVALID_KNL", "Invalid KNL configuration (MCDRAM or NUMA option)"),
    (8002, "ESLURM_PLUGIN_INVALID", "Plugin has invalid format or unable to be loaded"),
    (8003, "ESLURM_PLUGIN_INCOMPLETE", "Plugin missing required symbol or function"),
    (9000, "ESLURM_REST_INVALID_QUERY", "Query empty or not RFC7320 compliant"),
    (9001, "ESLURM_REST_FAIL_PARSING", "Failure during parsing"),
    (9002, "ESLURM_REST_INVALID_JOBS_DESC", "Jobs description entry not found, empty or not dictionary or list"),
    (9003, "ESLURM_REST_EMPTY_RESULT", "Nothing found with query"),
    (9200, "ESLURM_DATA_PATH_NOT_FOUND", "Unable to resolve path"),
    (9201, "ESLURM_DATA_PTR_NULL", "Data pointer is NULL"),
    (9202, "ESLURM_DATA_CONV_FAILED", "Unable to convert Data type"),
    (9203, "ESLURM_DATA_REGEX_COMPILE", "Unable to compile regex"),
    (9204, "ESLURM_DATA_UNKNOWN_MIME_TYPE", "MIME type is unknown to any loaded plugins"),
    (9205, "ESLURM_DATA_TOO_LARGE", "DATA too large to handle"),
    (10000, "ESLURM_CONTAINER_NOT_CONFIGURED", "Container support is not configured"),
];

/// The entry of `number`, if Slurm names it.
pub fn entry(number: i32) -> Option<(&'static str, &'static str)> {
    ERRORS
        .binary_search_by_key(&number, |&(n, _, _)| n)
        .ok()
        .map(|i| (ERRORS[i].1, ERRORS[i].2))
}

/// Slurm's text for `number`, as `slurm_strerror` gives it; None where
/// Slurm gives the C library's (`strerror`).
pub fn text(number: i32) -> Option<&'static str> {
    match number {
        0 => Some("No error"),
        -1 => Some("Unspecified error"),
        n if n < 0 => Some("Unknown negative error number"),
        n => entry(n).map(|(_, text)| text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_in_order_and_each_named_once() {
        assert!(ERRORS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            text(2000),
            Some("Invalid partition name specified"),
            "ESLURM_INVALID_PARTITION_NAME"
        );
        assert_eq!(text(2), None, "the C library's");
    }

    /// Where Debian's libslurm.so.38 is installed, every text is the one
    /// its `slurm_strerror` gives.
    #[test]
    fn texts_are_those_of_slurms_own_library() {
        let path = c"/usr/lib/x86_64-linux-gnu/libslurm.so.38";
        // SAFETY: dlopen and dlsym of a C library whose slurm_strerror
        // takes an int and returns a static NUL-terminated string.
        unsafe {
            let lib = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            if lib.is_null() {
                eprintln!("skipped: Slurm's libslurm.so.38 is not installed");
                return;
            }
            let f = libc::dlsym(lib, c"slurm_strerror".as_ptr());
            assert!(!f.is_null());
            let strerror: extern "C" fn(libc::c_int) -> *const libc::c_char =
                std::mem::transmute(f);
            let theirs = |n: i32| {
                std::ffi::CStr::from_ptr(strerror(n))
                    .to_string_lossy()
                    .into_owned()
            };
            for &(number, name, ours) in ERRORS {
                assert_eq!(ours, theirs(number), "{name}");
            }
            for n in [0, -1, -7] {
                assert_eq!(text(n).map(str::to_string), Some(theirs(n)), "{n}");
            }
        }
    }
}
