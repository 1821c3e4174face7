//! The configuration as libslurm hands it out: `slurm_load_ctl_conf` fills
//! a `slurm_conf_t` from the controller's running configuration (the one
//! `scontrol show config` prints), `slurm_free_ctl_conf` frees it, and
//! `slurm_ctl_conf_2_key_pairs`, `slurm_print_ctl_conf` and
//! `slurm_print_key_pairs` give its text. The library's own `slurm_conf`
//! (which `slurm_init` fills from slurm.conf, as Slurm's does) is filled
//! the same way.
//!
//! Each field takes its value from the key scontrol prints it under
//! (Slurm 22.05's `slurm_ctl_conf_2_key_pairs` names the pairs), read
//! back from spur-slurm's text: one reading of slurm.conf, one renderer.
//! Flag words spur prints but does not keep as bits (DebugFlags,
//! PrologFlags, ...) are left 0. The text functions answer for a
//! configuration this library loaded; one a caller built itself is not
//! theirs to print (ESLURM_NOT_SUPPORTED).

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Mutex;

use spur_client::{Api, Process};
use spur_proto::ConfigInfo;
use spur_report::show::config::{key_pairs, render_config};
use spur_slurm::config::{HostFacts, HostLookup, LOG_LEVELS};
use spur_slurm::flags;
use spur_slurm::locale::Locale;

use crate::bindings::{
    slurm_conf_t, time_t, ESLURM_NOT_SUPPORTED, FILE, INFINITE, MEM_PER_CPU, NO_VAL, SLURM_ERROR,
    SLURM_SUCCESS,
};
use crate::call::{guarded, now, refused, set_errno};
use crate::memory::c_string;

/// A string field from its text: NULL for `(null)`.
fn text(v: &str) -> *mut c_char {
    if v == "(null)" {
        std::ptr::null_mut()
    } else {
        c_string(v)
    }
}

/// A number field from its text (`300 sec`, `4 nodes/min`, `UNLIMITED`):
/// its leading number; INFINITE for UNLIMITED, 0 for none.
fn number(v: &str) -> u64 {
    if v.eq_ignore_ascii_case("UNLIMITED") || v.eq_ignore_ascii_case("INFINITE") {
        return INFINITE.into();
    }
    let digits = v.len() - v.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    v[..digits].parse().unwrap_or(0)
}

/// A duration field (`7-00:00:00`) in seconds.
fn seconds(v: &str) -> u32 {
    match spur_conf::parse_time_limit(v) {
        Ok(Some(s)) => u32::try_from(s).unwrap_or(INFINITE),
        Ok(None) => INFINITE,
        Err(_) => 0,
    }
}

/// A log level's number (`info` is 3), as Slurm's log.h counts them.
fn log_level(v: &str) -> u16 {
    (LOG_LEVELS.iter().position(|l| l.eq_ignore_ascii_case(v))).map_or(NO_VAL as u16, |n| n as u16)
}

/// The bits of a flag word from its names.
fn bits(v: &str, table: &[(u64, &str)]) -> u16 {
    v.split(',')
        .filter_map(|name| table.iter().find(|(_, n)| *n == name))
        .fold(0, |acc, (bit, _)| acc | *bit as u16)
}

/// `name(uid)`: the name and the uid.
fn user(v: &str) -> (*mut c_char, u32) {
    let (name, uid) = v.split_once('(').unwrap_or((v, ""));
    (
        text(name),
        uid.trim_end_matches(')').parse().unwrap_or(NO_VAL),
    )
}

/// What sets one field from its key's text.
type Setter = fn(&mut slurm_conf_t, &str);

macro_rules! table {
    (texts: { $($tkey:literal => $tfield:ident,)* } numbers: { $($nkey:literal => $nfield:ident,)* }) => {
        /// The fields each key's text sets.
        const FIELDS: &[(&str, Setter)] = &[
            $(($tkey, |c, v| c.$tfield = text(v)),)*
            $(($nkey, |c, v| c.$nfield = number(v).try_into().unwrap_or(!0)),)*
        ];

        /// Frees the string fields the keys set.
        ///
        /// # Safety
        /// Each is NULL or the C allocator's.
        unsafe fn free_texts(c: &mut slurm_conf_t) {
            $(
                // SAFETY: as the caller promises.
                unsafe { libc::free(c.$tfield.cast()) };
                c.$tfield = std::ptr::null_mut();
            )*
        }
    };
}

table! {
    texts: {
    "AccountingStorageBackupHost" => accounting_storage_backup_host,
    "AccountingStorageHost" => accounting_storage_host,
    "AccountingStorageExternalHost" => accounting_storage_ext_host,
    "AccountingStorageParameters" => accounting_storage_params,
    "AccountingStorageTRES" => accounting_storage_tres,
    "AccountingStorageType" => accounting_storage_type,
    "AccountingStorageUser" => accounting_storage_user,
    "AcctGatherEnergyType" => acct_gather_energy_type,
    "AcctGatherFilesystemType" => acct_gather_filesystem_type,
    "AcctGatherInterconnectType" => acct_gather_interconnect_type,
    "AcctGatherProfileType" => acct_gather_profile_type,
    "AuthAltTypes" => authalttypes,
    "AuthAltParameters" => authalt_params,
    "AuthInfo" => authinfo,
    "AuthType" => authtype,
    "BcastExclude" => bcast_exclude,
    "BcastParameters" => bcast_parameters,
    "BurstBufferType" => bb_type,
    "CliFilterPlugins" => cli_filter_plugins,
    "ClusterName" => cluster_name,
    "CommunicationParameters" => comm_params,
    "CoreSpecPlugin" => core_spec_plugin,
    "CredType" => cred_type,
    "EpilogSlurmctld" => epilog_slurmctld,
    "ExtSensorsType" => ext_sensors_type,
    "FederationParameters" => fed_params,
    "GresTypes" => gres_plugins,
    "GpuFreqDef" => gpu_freq_def,
    "HealthCheckProgram" => health_check_program,
    "InteractiveStepOptions" => interactive_step_opts,
    "JobAcctGatherFrequency" => job_acct_gather_freq,
    "JobAcctGatherType" => job_acct_gather_type,
    "JobAcctGatherParams" => job_acct_gather_params,
    "JobCompHost" => job_comp_host,
    "JobCompLoc" => job_comp_loc,
    "JobCompType" => job_comp_type,
    "JobCompUser" => job_comp_user,
    "JobContainerType" => job_container_plugin,
    "JobCredentialPublicCertificate" => job_credential_public_certificate,
    "JobSubmitPlugins" => job_submit_plugins,
    "LaunchParameters" => launch_params,
    "LaunchType" => launch_type,
    "Licenses" => licenses,
    "MailDomain" => mail_domain,
    "MailProg" => mail_prog,
    "MCSPlugin" => mcs_plugin,
    "MCSParameters" => mcs_plugin_params,
    "MpiDefault" => mpi_default,
    "MpiParams" => mpi_params,
    "NodeFeaturesPlugins" => node_features_plugins,
    "PluginDir" => plugindir,
    "PlugStackConfig" => plugstack,
    "PowerParameters" => power_parameters,
    "PowerPlugin" => power_plugin,
    "PreemptType" => preempt_type,
    "PrEpParameters" => prep_params,
    "PrEpPlugins" => prep_plugins,
    "PriorityParameters" => priority_params,
    "PrioritySiteFactorParameters" => site_factor_params,
    "PrioritySiteFactorPlugin" => site_factor_plugin,
    "PriorityType" => priority_type,
    "PriorityWeightTRES" => priority_weight_tres,
    "ProctrackType" => proctrack_type,
    "Prolog" => prolog,
    "PrologSlurmctld" => prolog_slurmctld,
    "PropagateResourceLimits" => propagate_rlimits,
    "RebootProgram" => reboot_program,
    "RequeueExit" => requeue_exit,
    "RequeueExitHold" => requeue_exit_hold,
    "ResumeFailProgram" => resume_fail_program,
    "ResumeProgram" => resume_program,
    "ResvEpilog" => resv_epilog,
    "ResvProlog" => resv_prolog,
    "RoutePlugin" => route_plugin,
    "SchedulerParameters" => sched_params,
    "SchedulerType" => schedtype,
    "ScronParameters" => scron_params,
    "SelectType" => select_type,
    "SlurmctldAddr" => slurmctld_addr,
    "SlurmctldLogFile" => slurmctld_logfile,
    "SlurmctldPrimaryOffProg" => slurmctld_primary_off_prog,
    "SlurmctldPrimaryOnProg" => slurmctld_primary_on_prog,
    "SlurmctldParameters" => slurmctld_params,
    "SlurmdLogFile" => slurmd_logfile,
    "SlurmdParameters" => slurmd_params,
    "SlurmdPidFile" => slurmd_pidfile,
    "SlurmdSpoolDir" => slurmd_spooldir,
    "SlurmSchedLogFile" => sched_logfile,
    "SlurmctldPidFile" => slurmctld_pidfile,
    "SlurmctldPlugstack" => slurmctld_plugstack,
    "SLURM_CONF" => slurm_conf,
    "SLURM_VERSION" => version,
    "SrunEpilog" => srun_epilog,
    "SrunProlog" => srun_prolog,
    "StateSaveLocation" => state_save_location,
    "SuspendExcNodes" => suspend_exc_nodes,
    "SuspendExcParts" => suspend_exc_parts,
    "SuspendProgram" => suspend_program,
    "SwitchParameters" => switch_param,
    "SwitchType" => switch_type,
    "TaskEpilog" => task_epilog,
    "TaskPlugin" => task_plugin,
    "TaskProlog" => task_prolog,
    "TmpFS" => tmp_fs,
    "TopologyParam" => topology_param,
    "TopologyPlugin" => topology_plugin,
    "UnkillableStepProgram" => unkillable_program,
    "X11Parameters" => x11_params,
    "DependencyParameters" => dependency_params,
    "Epilog" => epilog,
    }
    numbers: {
    "AccountingStoragePort" => accounting_storage_port,
    "AcctGatherNodeFreq" => acct_gather_node_freq,
    "BatchStartTimeout" => batch_start_timeout,
    "CompleteWait" => complete_wait,
    "EpilogMsgTime" => epilog_msg_time,
    "ExtSensorsFreq" => ext_sensors_freq,
    "FirstJobId" => first_job_id,
    "GetEnvTimeout" => get_env_timeout,
    "GroupUpdateForce" => group_force,
    "GroupUpdateTime" => group_time,
    "HealthCheckInterval" => health_check_interval,
    "InactiveLimit" => inactive_limit,
    "JobCompPort" => job_comp_port,
    "JobFileAppend" => job_file_append,
    "JobRequeue" => job_requeue,
    "KillWait" => kill_wait,
    "MaxArraySize" => max_array_sz,
    "MaxDBDMsgs" => max_dbd_msgs,
    "MaxJobCount" => max_job_cnt,
    "MaxJobId" => max_job_id,
    "MaxStepCount" => max_step_cnt,
    "MaxTasksPerNode" => max_tasks_per_node,
    "MessageTimeout" => msg_timeout,
    "MinJobAge" => min_job_age,
    "NEXT_JOB_ID" => next_job_id,
    "OverTimeLimit" => over_time_limit,
    "PriorityWeightAge" => priority_weight_age,
    "PriorityWeightAssoc" => priority_weight_assoc,
    "PriorityWeightFairShare" => priority_weight_fs,
    "PriorityWeightJobSize" => priority_weight_js,
    "PriorityWeightPartition" => priority_weight_part,
    "PriorityWeightQOS" => priority_weight_qos,
    "PrologEpilogTimeout" => prolog_epilog_timeout,
    "PropagatePrioProcess" => propagate_prio_process,
    "ResumeRate" => resume_rate,
    "ResumeTimeout" => resume_timeout,
    "ResvOverRun" => resv_over_run,
    "ReturnToService" => ret2service,
    "SchedulerTimeSlice" => sched_time_slice,
    "SlurmctldTimeout" => slurmctld_timeout,
    "SlurmdPort" => slurmd_port,
    "SlurmdTimeout" => slurmd_timeout,
    "SlurmSchedLogLevel" => sched_log_level,
    "SuspendRate" => suspend_rate,
    "SuspendTime" => suspend_time,
    "SuspendTimeout" => suspend_timeout,
    "TCPTimeout" => tcp_timeout,
    "TreeWidth" => tree_width,
    "UnkillableStepTimeout" => unkillable_timeout,
    "VSizeFactor" => vsize_factor,
    "WaitTime" => wait_time,
    "EioTimeout" => eio_timeout,
    "MaxNodeCount" => max_node_cnt,
    "FairShareDampeningFactor" => fs_dampening_factor,
    "KillOnBadExit" => kill_on_bad_exit,
    }
}

/// The keys whose text needs more than a string or a number.
fn set_special(c: &mut slurm_conf_t, key: &str, v: &str) {
    match key {
        "SlurmUser" => (c.slurm_user_name, c.slurm_user_id) = user(v),
        "SlurmdUser" => (c.slurmd_user_name, c.slurmd_user_id) = user(v),
        "SlurmctldPort" => {
            let (first, last) = v.split_once('-').unwrap_or((v, v));
            c.slurmctld_port = number(first).try_into().unwrap_or(0);
            let count = number(last).saturating_sub(number(first)) + 1;
            c.slurmctld_port_count = count.try_into().unwrap_or(1);
        }
        "PrivateData" => c.private_data = bits(v, &flags::PRIVATE_DATA),
        "AccountingStorageEnforce" => {
            c.accounting_storage_enforce = bits(v, &flags::ACCOUNTING_ENFORCE)
        }
        "PreemptMode" => c.preempt_mode = flags::preempt_mode_num(Some(v)),
        "DefMemPerCPU" => c.def_mem_per_cpu = number(v) | MEM_PER_CPU as u64,
        "DefMemPerNode" if v != "UNLIMITED" => c.def_mem_per_cpu = number(v),
        "MaxMemPerCPU" => c.max_mem_per_cpu = number(v) | MEM_PER_CPU as u64,
        "MaxMemPerNode" if v != "UNLIMITED" => c.max_mem_per_cpu = number(v),
        "PriorityDecayHalfLife" => c.priority_decay_hl = seconds(v),
        "PriorityCalcPeriod" => c.priority_calc_period = seconds(v) / 60,
        "PriorityMaxAge" => c.priority_max_age = seconds(v),
        "SlurmctldDebug" => c.slurmctld_debug = log_level(v),
        "SlurmdDebug" => c.slurmd_debug = log_level(v),
        "SlurmctldSyslogDebug" => c.slurmctld_syslog_debug = log_level(v),
        "SlurmdSyslogDebug" => c.slurmd_syslog_debug = log_level(v),
        _ => {}
    }
}

/// `control_machine` and `control_addr`: the `SlurmctldHost[i]` pairs
/// (`name(addr)` or `name`), as arrays of `control_cnt`.
fn set_controllers(c: &mut slurm_conf_t, pairs: &[(String, String)]) {
    let hosts: Vec<(&str, &str)> = pairs
        .iter()
        .filter(|(k, _)| k.starts_with("SlurmctldHost["))
        .map(|(_, v)| match v.split_once('(') {
            Some((name, addr)) => (name, addr.trim_end_matches(')')),
            None => (v.as_str(), v.as_str()),
        })
        .collect();
    let array = |names: Vec<&str>| {
        // SAFETY: a checked allocation of names.len() + 1 pointers.
        unsafe {
            let a = libc::calloc(names.len() + 1, size_of::<*mut c_char>()).cast::<*mut c_char>();
            if !a.is_null() {
                for (i, name) in names.iter().enumerate() {
                    *a.add(i) = c_string(name);
                }
            }
            a
        }
    };
    c.control_machine = array(hosts.iter().map(|h| h.0).collect());
    c.control_addr = array(hosts.iter().map(|h| h.1).collect());
    c.control_cnt = u32::try_from(hosts.len()).unwrap_or(0);
}

/// A configuration from its key pairs.
fn record(info: &ConfigInfo, now: u64) -> slurm_conf_t {
    let pairs = key_pairs(info, &locale());
    let mut c = slurm_conf_t::default();
    for (key, value) in &pairs {
        if let Some((_, set)) = FIELDS.iter().find(|(k, _)| k == key) {
            set(&mut c, value);
        } else {
            set_special(&mut c, key, value);
        }
    }
    set_controllers(&mut c, &pairs);
    c.boot_time = time_t::try_from(info.loaded_at).unwrap_or(0);
    c.last_update = time_t::try_from(now).unwrap_or(0);
    c
}

/// Frees what a configuration this library filled holds.
///
/// # Safety
/// Its strings and arrays are NULL or the C allocator's.
unsafe fn free_members(c: &mut slurm_conf_t) {
    // SAFETY: as the caller promises.
    unsafe {
        free_texts(c);
        libc::free(c.slurm_user_name.cast());
        libc::free(c.slurmd_user_name.cast());
        for array in [c.control_machine, c.control_addr] {
            if !array.is_null() {
                for i in 0..c.control_cnt as usize {
                    libc::free((*array.add(i)).cast());
                }
                libc::free(array.cast());
            }
        }
    }
    c.slurm_user_name = std::ptr::null_mut();
    c.slurmd_user_name = std::ptr::null_mut();
    c.control_machine = std::ptr::null_mut();
    c.control_addr = std::ptr::null_mut();
}

fn locale() -> Locale {
    Locale::local(spur_sys::users::name_of)
}

/// The configurations this library loaded, by address: what their text
/// is made from.
static LOADED: Mutex<Option<HashMap<usize, ConfigInfo>>> = Mutex::new(None);

fn loaded<T>(f: impl FnOnce(&mut HashMap<usize, ConfigInfo>) -> T) -> T {
    let mut map = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    f(map.get_or_insert_with(HashMap::new))
}

/// `slurm_load_ctl_conf`: the controller's running configuration (every
/// time, whatever `update_time` says), freed by `slurm_free_ctl_conf`.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_ctl_conf(
    _update_time: time_t,
    resp: *mut *mut slurm_conf_t,
) -> c_int {
    guarded(|| {
        if resp.is_null() {
            set_errno(libc::EINVAL);
            return SLURM_ERROR;
        }
        let info = match Process.config() {
            Ok(info) => info,
            Err(e) => return refused(&e),
        };
        let now = now();
        // SAFETY: a checked allocation, written whole.
        unsafe {
            let out = libc::malloc(size_of::<slurm_conf_t>()).cast::<slurm_conf_t>();
            if out.is_null() {
                set_errno(libc::ENOMEM);
                return SLURM_ERROR;
            }
            out.write(record(&info, now));
            loaded(|m| m.insert(out as usize, info));
            *resp = out;
        }
        SLURM_SUCCESS as c_int
    })
}

/// `slurm_free_ctl_conf`: frees a configuration `slurm_load_ctl_conf`
/// made.
///
/// # Safety
/// `conf` is NULL or such a configuration, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_ctl_conf(conf: *mut slurm_conf_t) {
    if conf.is_null() {
        return;
    }
    loaded(|m| m.remove(&(conf as usize)));
    // SAFETY: as the caller promises.
    unsafe {
        free_members(&mut *conf);
        libc::free(conf.cast());
    }
}

/// What a configuration this library loaded was made from.
fn info_of(conf: *const slurm_conf_t) -> Option<ConfigInfo> {
    let ours = loaded(|m| m.get(&(conf as usize)).cloned());
    if ours.is_none() {
        set_errno(ESLURM_NOT_SUPPORTED as c_int);
    }
    ours
}

/// One key pair as libslurm's lists hold them (`config_key_pair_t`).
#[repr(C)]
struct ConfigKeyPair {
    name: *mut c_char,
    value: *mut c_char,
}

unsafe extern "C" fn free_pair(p: *mut c_void) {
    let pair = p.cast::<ConfigKeyPair>();
    // SAFETY: a pair made by slurm_ctl_conf_2_key_pairs.
    unsafe {
        libc::free((*pair).name.cast());
        libc::free((*pair).value.cast());
        libc::free(p);
    }
}

/// `slurm_ctl_conf_2_key_pairs`: the configuration's key pairs, as a
/// `List` of `config_key_pair_t` (freed with `slurm_list_destroy`).
///
/// # Safety
/// `conf` is NULL or a configuration.
#[no_mangle]
pub unsafe extern "C" fn slurm_ctl_conf_2_key_pairs(conf: *mut slurm_conf_t) -> *mut c_void {
    guarded(|| {
        let Some(info) = info_of(conf) else {
            return std::ptr::null_mut();
        };
        let list = crate::list::new_list(Some(free_pair));
        for (key, value) in key_pairs(&info, &locale()) {
            // SAFETY: a checked allocation of one pair.
            unsafe {
                let pair = libc::malloc(size_of::<ConfigKeyPair>()).cast::<ConfigKeyPair>();
                if pair.is_null() {
                    continue;
                }
                pair.write(ConfigKeyPair {
                    name: c_string(&key),
                    value: text(&value),
                });
                crate::list::slurm_list_append(list, pair.cast());
            }
        }
        list.cast()
    })
}

/// `slurm_print_ctl_conf`: the configuration as `scontrol show config`
/// prints it.
///
/// # Safety
/// `out` is NULL or an open stream; `conf` is NULL or a configuration.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_ctl_conf(out: *mut FILE, conf: *mut slurm_conf_t) {
    guarded(|| {
        // SAFETY: as the caller promises.
        let Some(c) = (unsafe { conf.as_ref() }) else {
            return;
        };
        if let Some(info) = info_of(conf) {
            let as_of = u64::try_from(c.last_update).unwrap_or(0);
            // SAFETY: as the caller promises.
            unsafe { crate::show::write(out, &render_config(&info, as_of, &locale())) };
        }
    })
}

/// `slurm_print_key_pairs`: `title`, then each pair of a key-pair list as
/// `Key = Value`, keys padded to 23 columns; nothing for an empty list.
///
/// # Safety
/// `out` is NULL or an open stream; `pairs` is NULL or a list of
/// `config_key_pair_t`; `title` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_key_pairs(
    out: *mut FILE,
    pairs: *mut c_void,
    title: *mut c_char,
) {
    guarded(|| {
        let list = pairs.cast();
        // SAFETY: as the caller promises.
        if unsafe { crate::list::slurm_list_count(list) } == 0 {
            return;
        }
        // SAFETY: as the caller promises.
        let mut text = unsafe { crate::nodes::read(title) };
        // SAFETY: a list of pairs, walked once.
        unsafe {
            let it = crate::list::slurm_list_iterator_create(list);
            loop {
                let pair = crate::list::slurm_list_next(it).cast::<ConfigKeyPair>();
                let Some(pair) = pair.as_ref() else { break };
                let (key, value) = (
                    crate::nodes::read(pair.name),
                    crate::nodes::read_opt(pair.value),
                );
                text.push_str(&format!(
                    "{key:<23} = {}\n",
                    value.as_deref().unwrap_or("(null)")
                ));
            }
            crate::list::slurm_list_iterator_destroy(it);
            crate::show::write(out, &text);
        }
    })
}

/// The library's `slurm_conf`, as Slurm's exports it: the process's
/// slurm.conf, read by `slurm_init`.
#[repr(transparent)]
pub struct GlobalConf(UnsafeCell<MaybeUninit<slurm_conf_t>>);

// SAFETY: as Slurm's own global, it is written by slurm_init and
// slurm_fini only; programs read it after slurm_init.
unsafe impl Sync for GlobalConf {}

/// `slurm_conf`.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static slurm_conf: GlobalConf = GlobalConf(UnsafeCell::new(MaybeUninit::zeroed()));

/// Fills `slurm_conf` from the process's slurm.conf (what `slurm_init`
/// read); what only the controller knows (the next job id) is left 0.
pub fn fill_global() {
    let host = HostLookup {
        hostname: spur_sys::short_hostname(),
        uid_of: spur_sys::users::uid_of,
        exists: |path| std::path::Path::new(path).exists(),
    };
    let read = spur_client::with_conf(|conf, path| {
        let facts = HostFacts::debian(conf, path.display().to_string(), 0, &host);
        (conf.clone(), facts)
    });
    let Ok((conf, facts)) = read else {
        return;
    };
    let now = now();
    let info = ConfigInfo {
        loaded_at: now,
        conf: Box::new(conf),
        facts,
    };
    let filled = record(&info, now);
    // SAFETY: the global's only writers are slurm_init and slurm_fini;
    // what it held was filled here (or is zero).
    unsafe {
        let global = &mut *slurm_conf.0.get();
        free_members(global.assume_init_mut());
        global.write(filled);
    }
}

/// Empties `slurm_conf` (`slurm_fini`).
pub fn clear_global() {
    // SAFETY: as in fill_global.
    unsafe {
        let global = &mut *slurm_conf.0.get();
        free_members(global.assume_init_mut());
        global.write(slurm_conf_t::default());
    }
}

// ---- slurm.conf lookups (read_config.h), on the process's slurm.conf ----

/// The caller's string.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn arg(s: *const c_char) -> Option<String> {
    // SAFETY: as the caller promises.
    unsafe { crate::nodes::read_opt(s) }
}

/// A node of slurm.conf that `pick` finds, as a C string the caller
/// frees; NULL if none.
fn node_lookup(pick: impl FnOnce(&[spur_conf::NodeConf]) -> Option<String>) -> *mut c_char {
    spur_client::with_conf(|c, _| pick(&c.nodes))
        .ok()
        .flatten()
        .map_or(std::ptr::null_mut(), |v| c_string(&v))
}

/// `slurm_conf_init`: reads slurm.conf (`file`, else SLURM_CONF's) for
/// the calls that follow, as `slurm_init` does.
///
/// # Safety
/// `file` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_init(file: *const c_char) -> c_int {
    // SAFETY: as the caller promises.
    let file = unsafe { arg(file) };
    guarded(|| {
        let read = match &file {
            Some(path) => spur_client::use_conf(std::path::Path::new(path)).map(|_| ()),
            None => spur_client::with_conf(|_, _| ()),
        };
        match read {
            Ok(()) => {
                fill_global();
                SLURM_SUCCESS as c_int
            }
            Err(_) => {
                set_errno(libc::ENOENT);
                SLURM_ERROR
            }
        }
    })
}

/// `slurm_conf_reinit`: reads slurm.conf again.
///
/// # Safety
/// `file` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_reinit(file: *const c_char) -> c_int {
    guarded(spur_client::close);
    // SAFETY: as the caller promises.
    unsafe { slurm_conf_init(file) }
}

/// `slurm_conf_destroy`: forgets slurm.conf (and empties `slurm_conf`).
#[no_mangle]
pub extern "C" fn slurm_conf_destroy() -> c_int {
    guarded(|| {
        clear_global();
        spur_client::close();
        SLURM_SUCCESS as c_int
    })
}

/// `slurm_conf_lock`: the library's `slurm_conf`, filled on first use.
/// Nothing else writes it while programs read it, so the lock is the
/// structure itself.
#[no_mangle]
pub extern "C" fn slurm_conf_lock() -> *mut slurm_conf_t {
    // SAFETY: the global's cluster name is NULL or a C string of ours.
    let empty = unsafe {
        (*slurm_conf.0.get())
            .assume_init_ref()
            .cluster_name
            .is_null()
    };
    if empty {
        guarded(fill_global);
    }
    slurm_conf.0.get().cast()
}

/// `slurm_conf_unlock`.
#[no_mangle]
pub extern "C" fn slurm_conf_unlock() {}

/// `slurm_conf_get_hostname`: the NodeHostname of NodeName `node`.
///
/// # Safety
/// `node` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_hostname(node: *const c_char) -> *mut c_char {
    // SAFETY: as the caller promises.
    unsafe { field_of_node(node, |n| &n.hostname) }
}

/// A field of NodeName `node`, the caller's to free; NULL if no node.
///
/// # Safety
/// `node` is NULL or NUL-terminated.
unsafe fn field_of_node(
    node: *const c_char,
    field: fn(&spur_conf::NodeConf) -> &String,
) -> *mut c_char {
    // SAFETY: as the caller promises.
    let node = unsafe { arg(node) }.unwrap_or_default();
    guarded(|| {
        node_lookup(|nodes| {
            nodes
                .iter()
                .find(|n| n.name == node)
                .map(|n| field(n).clone())
        })
    })
}

/// `slurm_conf_get_address`: the NodeAddr of NodeName `node`.
///
/// # Safety
/// `node` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_address(node: *const c_char) -> *mut c_char {
    // SAFETY: as the caller promises.
    unsafe { field_of_node(node, |n| &n.addr) }
}

/// `slurm_conf_get_nodename`: the NodeName of NodeHostname `host` (or of
/// the node whose NodeName it is).
///
/// # Safety
/// `host` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_nodename(host: *const c_char) -> *mut c_char {
    // SAFETY: as the caller promises.
    let host = unsafe { arg(host) }.unwrap_or_default();
    guarded(|| {
        node_lookup(|nodes| {
            (nodes.iter())
                .find(|n| n.hostname == host)
                .or_else(|| nodes.iter().find(|n| n.name == host))
                .map(|n| n.name.clone())
        })
    })
}

/// `slurm_conf_get_nodeaddr`: the NodeAddr of NodeHostname `host`.
///
/// # Safety
/// `host` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_nodeaddr(host: *const c_char) -> *mut c_char {
    // SAFETY: as the caller promises.
    let host = unsafe { arg(host) }.unwrap_or_default();
    guarded(|| {
        node_lookup(|nodes| {
            (nodes.iter())
                .find(|n| n.hostname == host)
                .map(|n| n.addr.clone())
        })
    })
}

/// `slurm_conf_get_aliased_nodename`: the NodeName whose NodeHostname is
/// this host's name.
#[no_mangle]
pub extern "C" fn slurm_conf_get_aliased_nodename() -> *mut c_char {
    guarded(|| {
        let short = spur_sys::short_hostname();
        node_lookup(|nodes| {
            (nodes.iter())
                .find(|n| n.hostname == short || n.name == short)
                .map(|n| n.name.clone())
        })
    })
}

/// `slurm_conf_get_port`: the slurmd port of NodeName `node` (0 if there
/// is no such node).
///
/// # Safety
/// `node` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_port(node: *const c_char) -> u16 {
    // SAFETY: as the caller promises.
    let node = unsafe { arg(node) }.unwrap_or_default();
    guarded(|| {
        spur_client::with_conf(|c, _| {
            (c.nodes.iter()).find(|n| n.name == node).map_or(0, |n| {
                if n.port == 0 {
                    c.slurmd_port
                } else {
                    n.port
                }
            })
        })
        .unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_from_scontrols_text() {
        assert_eq!(number("300 sec"), 300);
        assert_eq!(number("UNLIMITED"), u64::from(INFINITE));
        assert_eq!(number("(null)"), 0);
        assert_eq!(log_level("debug2"), 6);
        let (name, uid) = user("slurm(64030)");
        // SAFETY: a string made above.
        assert_eq!(unsafe { crate::nodes::read(name) }, "slurm");
        // SAFETY: made by c_string.
        unsafe { libc::free(name.cast()) };
        assert_eq!(uid, 64030);
        assert_eq!(bits("jobs,nodes", &flags::PRIVATE_DATA), 3);
    }
}
