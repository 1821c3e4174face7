//! Nodes and partitions as libslurm hands them out: `slurm_load_node`,
//! `slurm_load_node_single` and `slurm_load_partitions` fill
//! `node_info_msg_t` and `partition_info_msg_t` from the controller's
//! listings (the ones sinfo and `scontrol show` read), their
//! `slurm_free_*` functions free them, and `slurm_get_select_nodeinfo`
//! answers what a node has allocated (CPUs, memory, TRES), which Slurm
//! keeps in its select plugin's opaque per-node data. The records are
//! also read back ([`node_of`], [`partition_of`]) for the print functions,
//! which print what a record says, wherever it came from.

use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

use spur_client::{Api, Process};
use spur_proto::{NodeBaseState, NodeInfo, PartitionInfo};
use spur_slurm::{flags, node_state};

use crate::bindings::{
    acct_gather_energy_t, dynamic_plugin_data_t, ext_sensors_data_t, node_info, node_info_msg_t,
    partition_info, partition_info_msg_t, select_nodedata_type, slurmdb_cluster_rec_t, time_t,
    ESLURM_INVALID_CLUSTER_NAME, ESLURM_INVALID_NODE_NAME, INFINITE, MEM_PER_CPU,
    NODE_STATE_ALLOCATED, NO_VAL, NO_VAL16, PARTITION_DOWN, PARTITION_DRAIN, PARTITION_INACTIVE,
    PARTITION_UP, PART_FLAG_DEFAULT, SELECT_NODEDATA_MEM_ALLOC, SELECT_NODEDATA_SUBCNT,
    SELECT_NODEDATA_TRES_ALLOC_FMT_STR, SELECT_NODEDATA_TRES_ALLOC_WEIGHTED, SHARED_FORCE,
    SLURM_ERROR, SLURM_SUCCESS,
};
use crate::call::{guarded, hand_out, refused, set_errno};
use crate::memory::{c_message, c_records, c_string, free_records};

/// A string field: NULL when empty.
fn text(s: &str) -> *mut c_char {
    if s.is_empty() {
        std::ptr::null_mut()
    } else {
        c_string(s)
    }
}

/// A record's string, "" for NULL.
///
/// # Safety
/// `p` is NULL or NUL-terminated.
pub(crate) unsafe fn read(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: as the caller promises.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// A record's string, None for NULL.
///
/// # Safety
/// `p` is NULL or NUL-terminated.
pub(crate) unsafe fn read_opt(p: *const c_char) -> Option<String> {
    // SAFETY: as the caller promises.
    (!p.is_null()).then(|| unsafe { read(p) })
}

/// NO_VAL64 (which slurm.h defines in a form bindgen cannot type).
const NO_VAL64: u64 = 0xffff_ffff_ffff_fffe;

fn time(t: Option<u64>) -> time_t {
    t.map_or(0, |t| time_t::try_from(t).unwrap_or(time_t::MAX))
}

fn from_time(t: time_t) -> Option<u64> {
    u64::try_from(t).ok().filter(|&t| t > 0)
}

fn u16_of(n: u32) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Frees a string field and clears it.
///
/// # Safety
/// `*s` is NULL or the C allocator's.
unsafe fn free_string(s: &mut *mut c_char) {
    // SAFETY: as the caller promises.
    unsafe { libc::free(s.cast()) };
    *s = std::ptr::null_mut();
}

// ---- what a node has allocated (the select plugin's data) ----

/// The `plugin_id` this library's per-node data carries (`spur` in ASCII).
const SPUR_NODEINFO: u32 = 0x7370_7572;

/// What `slurm_get_select_nodeinfo` answers for one node.
struct Allocated {
    cpus: u16,
    mem: u64,
    tres: String,
    weighted: f64,
}

fn select_nodeinfo(node: &NodeInfo) -> *mut dynamic_plugin_data_t {
    let data = Box::into_raw(Box::new(Allocated {
        cpus: u16_of(node.cpus_alloc),
        mem: node.alloc_mem,
        tres: node.alloc_tres(),
        weighted: f64::from(node.cpus_alloc),
    }));
    Box::into_raw(Box::new(dynamic_plugin_data_t {
        data: data.cast(),
        plugin_id: SPUR_NODEINFO,
    }))
}

/// This library's data behind a node's `select_nodeinfo`, if it is ours.
///
/// # Safety
/// `p` is NULL or a `dynamic_plugin_data_t`.
unsafe fn allocated<'a>(p: *const dynamic_plugin_data_t) -> Option<&'a Allocated> {
    // SAFETY: as the caller promises; ours point to an `Allocated`.
    unsafe {
        let d = p.as_ref()?;
        (d.plugin_id == SPUR_NODEINFO && !d.data.is_null()).then(|| &*d.data.cast::<Allocated>())
    }
}

/// Frees a node's `select_nodeinfo` if it is this library's.
///
/// # Safety
/// `p` is NULL or a `dynamic_plugin_data_t`, not used again if ours.
unsafe fn free_select_nodeinfo(p: *mut dynamic_plugin_data_t) {
    // SAFETY: as the caller promises.
    if unsafe { allocated(p) }.is_some() {
        // SAFETY: both boxes were made by select_nodeinfo.
        unsafe {
            drop(Box::from_raw((*p).data.cast::<Allocated>()));
            drop(Box::from_raw(p));
        }
    }
}

/// `slurm_get_select_nodeinfo`: a node's allocated CPUs
/// (`SELECT_NODEDATA_SUBCNT` with state ALLOCATED, a `uint16_t`), memory
/// (`SELECT_NODEDATA_MEM_ALLOC`, `uint64_t`), TRES
/// (`SELECT_NODEDATA_TRES_ALLOC_FMT_STR`, a `char *` the caller frees)
/// or weighted TRES (`SELECT_NODEDATA_TRES_ALLOC_WEIGHTED`, `double`).
///
/// # Safety
/// `nodeinfo` is NULL or a node's `select_nodeinfo`; `data` points to the
/// type the request names.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_select_nodeinfo(
    nodeinfo: *mut dynamic_plugin_data_t,
    data_type: select_nodedata_type,
    state: u32,
    data: *mut c_void,
) -> c_int {
    // SAFETY: as the caller promises.
    let Some(a) = (unsafe { allocated(nodeinfo) }) else {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    };
    if data.is_null() {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    }
    // SAFETY: `data` points to the type `data_type` names.
    unsafe {
        match data_type {
            SELECT_NODEDATA_SUBCNT => {
                *data.cast::<u16>() = if state == NODE_STATE_ALLOCATED {
                    a.cpus
                } else {
                    0
                };
            }
            SELECT_NODEDATA_MEM_ALLOC => *data.cast::<u64>() = a.mem,
            SELECT_NODEDATA_TRES_ALLOC_FMT_STR => *data.cast::<*mut c_char>() = text(&a.tres),
            SELECT_NODEDATA_TRES_ALLOC_WEIGHTED => *data.cast::<f64>() = a.weighted,
            _ => {
                set_errno(libc::EINVAL);
                return SLURM_ERROR;
            }
        }
    }
    SLURM_SUCCESS as c_int
}

// ---- nodes ----

/// `value` in a C allocation (NULL if memory ran out).
fn boxed_c<T>(value: T) -> *mut T {
    // SAFETY: a checked allocation of one T, written whole.
    unsafe {
        let p = libc::malloc(size_of::<T>()).cast::<T>();
        if !p.is_null() {
            p.write(value);
        }
        p
    }
}

/// One node's record, its strings and data the library's. Its energy and
/// external sensor readings are there and unset, as slurmctld sends them
/// for a node without those plugins (programs read them unchecked).
fn node_record(n: &NodeInfo) -> node_info {
    let gres_used = n.gres_used();
    let (reason_uid, reason_time) = n.reason_set.unwrap_or((NO_VAL, 0));
    node_info {
        arch: text(n.arch.as_deref().unwrap_or_default()),
        boards: u16_of(n.boards),
        boot_time: time(n.boot_time),
        cores: u16_of(n.cores_per_socket),
        cpu_load: n.cpu_load.map_or(NO_VAL, |l| (l * 100.0).round() as u32),
        free_mem: n.free_mem.unwrap_or(NO_VAL64),
        cpus: u16_of(n.cpus),
        cpus_efctv: u16_of(n.cpus),
        features: text(&n.features.join(",")),
        features_act: text(&n.features.join(",")),
        gres: text(&n.gres),
        gres_used: if n.gres.is_empty() {
            std::ptr::null_mut()
        } else {
            c_string(&gres_used)
        },
        last_busy: time(n.last_busy),
        name: c_string(&n.name),
        next_state: NO_VAL,
        node_addr: text(&n.addr),
        node_hostname: text(&n.hostname),
        node_state: n.state_word(),
        os: text(n.os.as_deref().unwrap_or_default()),
        owner: NO_VAL,
        partitions: text(&n.partitions.join(",")),
        port: n.port,
        real_memory: n.real_memory,
        reason: text(n.reason.as_deref().unwrap_or_default()),
        reason_time: time(Some(reason_time)),
        reason_uid,
        select_nodeinfo: select_nodeinfo(n),
        energy: boxed_c(acct_gather_energy_t::default()),
        ext_sensors: boxed_c(ext_sensors_data_t {
            consumed_energy: NO_VAL64,
            temperature: NO_VAL,
            ..ext_sensors_data_t::default()
        }),
        slurmd_start_time: time(n.agent_start_time),
        sockets: u16_of(n.sockets),
        threads: u16_of(n.threads_per_core),
        tmp_disk: u32::try_from(n.tmp_disk).unwrap_or(u32::MAX),
        weight: n.weight,
        tres_fmt_str: c_string(&n.cfg_tres()),
        version: text(n.version.as_deref().unwrap_or_default()),
        ..node_info::default()
    }
}

/// The GPUs a `Gres=` string counts: `gpu:4`, `gpu:h100:8(S:0-1)`.
fn gpu_count(gres: &str) -> u32 {
    gres.split(',')
        .filter(|g| g.starts_with("gpu"))
        .filter_map(|g| g.split('(').next()?.rsplit(':').next()?.parse::<u32>().ok())
        .sum()
}

/// A node record read back.
///
/// # Safety
/// `r`'s strings are NULL or NUL-terminated; its `select_nodeinfo` is NULL
/// or a `dynamic_plugin_data_t`.
pub unsafe fn node_of(r: &node_info) -> NodeInfo {
    // SAFETY: as the caller promises, for every field read below.
    unsafe {
        let word = r.node_state;
        let alloc = allocated(r.select_nodeinfo);
        let gres = read(r.gres);
        let gpus_used = gpu_count(&read(r.gres_used));
        let reason = read_opt(r.reason).filter(|s| !s.is_empty());
        NodeInfo {
            name: read(r.name),
            addr: read(r.node_addr),
            hostname: read(r.node_hostname),
            port: r.port,
            state: match word & node_state::BASE {
                node_state::DOWN => NodeBaseState::Down,
                node_state::IDLE => NodeBaseState::Idle,
                node_state::ALLOCATED => NodeBaseState::Allocated,
                node_state::MIXED => NodeBaseState::Mixed,
                _ => NodeBaseState::Unknown,
            },
            drain: word & node_state::DRAIN != 0,
            completing: word & node_state::COMPLETING != 0,
            not_responding: word & node_state::NO_RESPOND != 0,
            cpus: r.cpus.into(),
            cpus_alloc: alloc.map_or(0, |a| a.cpus.into()),
            boards: r.boards.into(),
            sockets: r.sockets.into(),
            cores_per_socket: r.cores.into(),
            threads_per_core: r.threads.into(),
            real_memory: r.real_memory,
            alloc_mem: alloc.map_or(0, |a| a.mem),
            free_mem: (r.free_mem != NO_VAL64).then_some(r.free_mem),
            cpu_load: (r.cpu_load != NO_VAL).then(|| f64::from(r.cpu_load) / 100.0),
            tmp_disk: r.tmp_disk.into(),
            gpus: gpu_count(&gres),
            gres,
            gpus_alloc: (0..gpus_used).collect(),
            features: read(r.features)
                .split(',')
                .filter(|f| !f.is_empty())
                .map(String::from)
                .collect(),
            partitions: read(r.partitions)
                .split(',')
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect(),
            reason_set: reason
                .is_some()
                .then_some((r.reason_uid, from_time(r.reason_time).unwrap_or(0))),
            reason,
            weight: r.weight,
            arch: read_opt(r.arch),
            os: read_opt(r.os),
            version: read_opt(r.version),
            boot_time: from_time(r.boot_time),
            agent_start_time: from_time(r.slurmd_start_time),
            last_busy: from_time(r.last_busy),
            topology_addr: None,
        }
    }
}

/// Frees what a node record holds (`slurm_free_node_info_members`).
///
/// # Safety
/// `r`'s strings are NULL or the C allocator's; not used again.
unsafe fn free_node(r: &mut node_info) {
    let strings = [
        &mut r.arch,
        &mut r.bcast_address,
        &mut r.cluster_name,
        &mut r.cpu_spec_list,
        &mut r.extra,
        &mut r.features,
        &mut r.features_act,
        &mut r.gres,
        &mut r.gres_drain,
        &mut r.gres_used,
        &mut r.mcs_label,
        &mut r.name,
        &mut r.node_addr,
        &mut r.node_hostname,
        &mut r.os,
        &mut r.partitions,
        &mut r.comment,
        &mut r.reason,
        &mut r.tres_fmt_str,
        &mut r.version,
    ];
    for s in strings {
        // SAFETY: as the caller promises.
        unsafe { free_string(s) };
    }
    // SAFETY: as the caller promises.
    unsafe {
        free_select_nodeinfo(r.select_nodeinfo);
        libc::free(r.energy.cast());
        libc::free(r.ext_sensors.cast());
    }
    r.select_nodeinfo = std::ptr::null_mut();
    r.energy = std::ptr::null_mut();
    r.ext_sensors = std::ptr::null_mut();
}

/// A message of `nodes`, the C allocator's.
fn node_message(nodes: &[NodeInfo], now: u64) -> *mut node_info_msg_t {
    let array = c_records(nodes, node_record);
    let count = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
    // SAFETY: count records of ours.
    unsafe {
        c_message(array, count, free_node, |m: &mut node_info_msg_t| {
            m.last_update = time(Some(now));
            m.record_count = count;
            m.node_array = array;
        })
    }
}

/// Answers a node load: the message in `*out`, or errno and SLURM_ERROR.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn load_nodes(out: *mut *mut node_info_msg_t, only: Option<String>) -> c_int {
    if out.is_null() {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    }
    match Process.nodes() {
        Ok(listing) => {
            let nodes: Vec<NodeInfo> = listing
                .items
                .into_iter()
                .filter(|n| only.as_ref().is_none_or(|name| &n.name == name))
                .collect();
            if only.is_some() && nodes.is_empty() {
                set_errno(ESLURM_INVALID_NODE_NAME as c_int);
                return SLURM_ERROR;
            }
            // SAFETY: the caller's pointer.
            unsafe { hand_out(out, node_message(&nodes, listing.now)) }
        }
        Err(e) => refused(&e),
    }
}

/// `slurm_load_node`: every node. Every node is listed whatever
/// `update_time` says.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node(
    _update_time: time_t,
    resp: *mut *mut node_info_msg_t,
    _show_flags: u16,
) -> c_int {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { load_nodes(resp, None) })
}

/// `slurm_load_node_single`: the node named.
///
/// # Safety
/// `resp` is NULL or writable; `node_name` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node_single(
    resp: *mut *mut node_info_msg_t,
    node_name: *mut c_char,
    _show_flags: u16,
) -> c_int {
    if node_name.is_null() {
        set_errno(ESLURM_INVALID_NODE_NAME as c_int);
        return SLURM_ERROR;
    }
    // SAFETY: as the caller promises.
    let name = unsafe { read(node_name) };
    // SAFETY: as the caller promises.
    guarded(|| unsafe { load_nodes(resp, Some(name)) })
}

/// `slurm_free_node_info_members`: frees what one record holds.
///
/// # Safety
/// `node` is NULL or a record this library filled.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_node_info_members(node: *mut node_info) {
    // SAFETY: as the caller promises.
    if let Some(node) = unsafe { node.as_mut() } {
        // SAFETY: its members are this library's.
        unsafe { free_node(node) };
    }
}

/// `slurm_free_node_info_msg`: frees a loaded message and its records.
///
/// # Safety
/// `msg` is NULL or a message this library loaded, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_node_info_msg(msg: *mut node_info_msg_t) {
    if msg.is_null() {
        return;
    }
    // SAFETY: a message from node_message: record_count records.
    unsafe {
        free_records((*msg).node_array, (*msg).record_count, free_node);
        libc::free(msg.cast());
    }
}

// ---- partitions ----

fn partition_state(state: &str) -> u16 {
    (match state {
        "UP" => PARTITION_UP,
        "DOWN" => PARTITION_DOWN,
        "DRAIN" => PARTITION_DRAIN,
        _ => PARTITION_INACTIVE,
    }) as u16
}

fn partition_state_name(state: u16) -> &'static str {
    match u32::from(state) {
        PARTITION_UP => "UP",
        PARTITION_DOWN => "DOWN",
        PARTITION_DRAIN => "DRAIN",
        PARTITION_INACTIVE => "INACTIVE",
        _ => "UNKNOWN",
    }
}

/// OverSubscribe as `max_share`: 0 EXCLUSIVE, 1 NO, N for YES:N, with
/// SHARED_FORCE for FORCE:N.
fn max_share(oversubscribe: &str) -> u16 {
    let (word, count) = oversubscribe
        .split_once(':')
        .map_or((oversubscribe, None), |(w, n)| (w, n.parse::<u16>().ok()));
    match word {
        "EXCLUSIVE" => 0,
        "NO" => 1,
        "YES" => count.unwrap_or(4),
        "FORCE" => count.unwrap_or(4) | SHARED_FORCE as u16,
        _ => 1,
    }
}

fn oversubscribe(max_share: u16) -> String {
    let force = SHARED_FORCE as u16;
    if max_share & force != 0 {
        format!("FORCE:{}", max_share & !force)
    } else if max_share == 0 {
        "EXCLUSIVE".to_string()
    } else if max_share > 1 {
        format!("YES:{max_share}")
    } else {
        "NO".to_string()
    }
}

fn minutes(secs: Option<u64>, none: u32) -> u32 {
    secs.map_or(none, |s| u32::try_from(s / 60).unwrap_or(INFINITE))
}

fn from_minutes(m: u32) -> Option<u64> {
    (m != INFINITE && m != NO_VAL).then(|| u64::from(m) * 60)
}

/// The node table: each node's index, in slurm.conf's order (the order
/// the controller lists them in).
pub(crate) fn node_table() -> HashMap<String, usize> {
    spur_client::with_conf(|c, _| {
        (c.nodes.iter().enumerate())
            .map(|(i, n)| (n.name.clone(), i))
            .collect()
    })
    .unwrap_or_default()
}

/// A `*_node_inx` array: start and end indices into the node table of
/// each run of the nodes a hostlist names, ending with -1 (as Slurm sends
/// them; the Perl module reads them unconditionally).
pub(crate) fn node_index(hostlist: Option<&str>, table: &HashMap<String, usize>) -> *mut i32 {
    let names = hostlist
        .and_then(|h| spur_conf::hostlist::expand(h).ok())
        .unwrap_or_default();
    let mut indices: Vec<i32> = (names.iter())
        .filter_map(|n| table.get(n))
        .map(|&i| i32::try_from(i).unwrap_or(i32::MAX))
        .collect();
    indices.sort_unstable();
    indices.dedup();
    let mut out = Vec::new();
    for i in indices {
        match out.last_mut() {
            Some(end) if *end + 1 == i => *end = i,
            _ => out.extend([i, i]),
        }
    }
    out.push(-1);
    c_records(&out, |v| *v)
}

/// One partition's record; `nodes` are all nodes (for its TRES), `table`
/// the node table.
fn partition_record(
    p: &PartitionInfo,
    nodes: &[NodeInfo],
    table: &HashMap<String, usize>,
) -> partition_info {
    let list = |v: &Option<Vec<String>>| {
        v.as_ref()
            .map_or(std::ptr::null_mut(), |l| c_string(&l.join(",")))
    };
    partition_info {
        allow_accounts: list(&p.allow_accounts),
        allow_groups: list(&p.allow_groups),
        allow_alloc_nodes: std::ptr::null_mut(),
        def_mem_per_cpu: p.def_mem_per_cpu.map_or(0, |m| m | MEM_PER_CPU as u64),
        default_time: minutes(p.default_time, NO_VAL),
        flags: if p.is_default {
            PART_FLAG_DEFAULT as u16
        } else {
            0
        },
        max_cpus_per_node: INFINITE,
        max_mem_per_cpu: p.max_mem_per_node.unwrap_or(0),
        max_nodes: p.max_nodes.unwrap_or(INFINITE),
        max_share: max_share(&p.oversubscribe),
        max_time: minutes(p.max_time, INFINITE),
        min_nodes: p.min_nodes,
        name: c_string(&p.name),
        node_inx: node_index(Some(&p.nodes), table),
        nodes: text(&p.nodes),
        over_time_limit: NO_VAL as u16,
        preempt_mode: flags::preempt_mode_num(Some(&p.preempt_mode)),
        priority_job_factor: u16_of(p.priority_job_factor),
        priority_tier: u16_of(p.priority_tier),
        state_up: partition_state(&p.state),
        total_cpus: p.total_cpus,
        total_nodes: p.total_nodes,
        tres_fmt_str: c_string(&spur_report::show::node::partition_tres(p, nodes)),
        ..partition_info::default()
    }
}

/// A partition record read back, and its TRES string.
///
/// # Safety
/// `r`'s strings are NULL or NUL-terminated.
pub unsafe fn partition_of(r: &partition_info) -> (PartitionInfo, String) {
    // SAFETY: as the caller promises, for every string read below.
    unsafe {
        let list = |p: *const c_char| read_opt(p).map(|s| s.split(',').map(String::from).collect());
        let part = PartitionInfo {
            name: read(r.name),
            nodes: read(r.nodes),
            is_default: u32::from(r.flags) & PART_FLAG_DEFAULT != 0,
            max_time: from_minutes(r.max_time),
            default_time: from_minutes(r.default_time),
            max_nodes: (r.max_nodes != INFINITE).then_some(r.max_nodes),
            min_nodes: r.min_nodes,
            state: partition_state_name(r.state_up).to_string(),
            priority_tier: r.priority_tier.into(),
            priority_job_factor: r.priority_job_factor.into(),
            oversubscribe: oversubscribe(r.max_share),
            allow_accounts: list(r.allow_accounts),
            allow_groups: list(r.allow_groups),
            total_cpus: r.total_cpus,
            total_nodes: r.total_nodes,
            preempt_mode: flags::preempt_mode_string(r.preempt_mode).to_string(),
            def_mem_per_cpu: (r.def_mem_per_cpu & MEM_PER_CPU as u64 != 0)
                .then_some(r.def_mem_per_cpu & !(MEM_PER_CPU as u64)),
            max_mem_per_node: (r.max_mem_per_cpu != 0
                && r.max_mem_per_cpu & MEM_PER_CPU as u64 == 0)
                .then_some(r.max_mem_per_cpu),
        };
        (part, read(r.tres_fmt_str))
    }
}

/// Frees what a partition record holds.
///
/// # Safety
/// `r`'s strings and `node_inx` are NULL or the C allocator's; not used
/// again.
unsafe fn free_partition(r: &mut partition_info) {
    let strings = [
        &mut r.allow_alloc_nodes,
        &mut r.allow_accounts,
        &mut r.allow_groups,
        &mut r.allow_qos,
        &mut r.alternate,
        &mut r.billing_weights_str,
        &mut r.cluster_name,
        &mut r.deny_accounts,
        &mut r.deny_qos,
        &mut r.job_defaults_str,
        &mut r.name,
        &mut r.nodes,
        &mut r.nodesets,
        &mut r.qos_char,
        &mut r.tres_fmt_str,
    ];
    for s in strings {
        // SAFETY: as the caller promises.
        unsafe { free_string(s) };
    }
    // SAFETY: as the caller promises.
    unsafe {
        libc::free(r.node_inx.cast());
        crate::list::slurm_list_destroy(r.job_defaults_list);
    }
    r.node_inx = std::ptr::null_mut();
    r.job_defaults_list = std::ptr::null_mut();
}

/// `slurm_load_partitions`: every partition. Every partition is listed
/// whatever `update_time` says.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_partitions(
    _update_time: time_t,
    resp: *mut *mut partition_info_msg_t,
    _show_flags: u16,
) -> c_int {
    guarded(|| {
        if resp.is_null() {
            set_errno(libc::EINVAL);
            return SLURM_ERROR;
        }
        let parts = match Process.partitions() {
            Ok(p) => p,
            Err(e) => return refused(&e),
        };
        let nodes = match Process.nodes() {
            Ok(listing) => listing,
            Err(e) => return refused(&e),
        };
        let table = node_table();
        let array = c_records(&parts, |p| partition_record(p, &nodes.items, &table));
        let count = u32::try_from(parts.len()).unwrap_or(u32::MAX);
        // SAFETY: count records of ours; the caller's pointer.
        unsafe {
            let msg = c_message(
                array,
                count,
                free_partition,
                |m: &mut partition_info_msg_t| {
                    m.last_update = time(Some(nodes.now));
                    m.record_count = count;
                    m.partition_array = array;
                },
            );
            hand_out(resp, msg)
        }
    })
}

/// `slurm_free_partition_info_members`: frees what one record holds.
///
/// # Safety
/// `part` is NULL or a record this library filled.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_partition_info_members(part: *mut partition_info) {
    // SAFETY: as the caller promises.
    if let Some(part) = unsafe { part.as_mut() } {
        // SAFETY: its members are this library's.
        unsafe { free_partition(part) };
    }
}

/// `slurm_free_partition_info_msg`: frees a loaded message and its
/// records.
///
/// # Safety
/// `msg` is NULL or a message this library loaded, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_partition_info_msg(msg: *mut partition_info_msg_t) {
    if msg.is_null() {
        return;
    }
    // SAFETY: a message from slurm_load_partitions.
    unsafe {
        free_records((*msg).partition_array, (*msg).record_count, free_partition);
        libc::free(msg.cast());
    }
}

/// Whether `cluster` names a cluster other than this one (NULL: this
/// one); if so, errno ESLURM_INVALID_CLUSTER_NAME: spur runs one cluster
/// and reads no other's records.
///
/// # Safety
/// `cluster` is NULL or a cluster record.
unsafe fn another_cluster(cluster: *const slurmdb_cluster_rec_t) -> bool {
    // SAFETY: as the caller promises.
    let Some(name) = (unsafe { cluster.as_ref() }).and_then(|c| unsafe { read_opt(c.name) }) else {
        return false;
    };
    let ours = spur_client::with_conf(|c, _| c.cluster_name.clone())
        .ok()
        .flatten();
    let other = ours.is_none_or(|ours| ours != name);
    if other {
        set_errno(ESLURM_INVALID_CLUSTER_NAME as c_int);
    }
    other
}

/// `slurm_load_node2`: `slurm_load_node` of one cluster, this one.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node2(
    update_time: time_t,
    resp: *mut *mut node_info_msg_t,
    show_flags: u16,
    cluster: *mut slurmdb_cluster_rec_t,
) -> c_int {
    // SAFETY: as the caller promises.
    if unsafe { another_cluster(cluster) } {
        return SLURM_ERROR;
    }
    // SAFETY: as the caller promises.
    unsafe { slurm_load_node(update_time, resp, show_flags) }
}

/// `slurm_load_node_single2`: `slurm_load_node_single` of one cluster,
/// this one.
///
/// # Safety
/// `resp` is NULL or writable; `node_name` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node_single2(
    resp: *mut *mut node_info_msg_t,
    node_name: *mut c_char,
    show_flags: u16,
    cluster: *mut slurmdb_cluster_rec_t,
) -> c_int {
    // SAFETY: as the caller promises.
    if unsafe { another_cluster(cluster) } {
        return SLURM_ERROR;
    }
    // SAFETY: as the caller promises.
    unsafe { slurm_load_node_single(resp, node_name, show_flags) }
}

/// `slurm_load_partitions2`: `slurm_load_partitions` of one cluster, this
/// one.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_partitions2(
    update_time: time_t,
    resp: *mut *mut partition_info_msg_t,
    show_flags: u16,
    cluster: *mut slurmdb_cluster_rec_t,
) -> c_int {
    // SAFETY: as the caller promises.
    if unsafe { another_cluster(cluster) } {
        return SLURM_ERROR;
    }
    // SAFETY: as the caller promises.
    unsafe { slurm_load_partitions(update_time, resp, show_flags) }
}

/// `slurm_populate_node_partitions`: each node's `partitions` made again
/// from the partitions' node indices.
///
/// # Safety
/// Both are NULL or messages this library loaded.
#[no_mangle]
pub unsafe extern "C" fn slurm_populate_node_partitions(
    nodes: *mut node_info_msg_t,
    parts: *mut partition_info_msg_t,
) {
    // SAFETY: as the caller promises.
    let (Some(nodes), Some(parts)) = (unsafe { nodes.as_mut() }, unsafe { parts.as_ref() }) else {
        return;
    };
    if nodes.node_array.is_null() || parts.partition_array.is_null() {
        return;
    }
    guarded(|| {
        let count = nodes.record_count as usize;
        let mut names: Vec<Vec<String>> = vec![Vec::new(); count];
        for p in 0..parts.record_count as usize {
            // SAFETY: record_count records, each with a -1 ended index.
            let (name, inx) = unsafe {
                let part = &*parts.partition_array.add(p);
                (read(part.name), part.node_inx)
            };
            if inx.is_null() {
                continue;
            }
            let mut i = 0;
            // SAFETY: pairs of indices up to the -1.
            while unsafe { *inx.add(i) } != -1 {
                let (first, last) = unsafe { (*inx.add(i), *inx.add(i + 1)) };
                for j in first.max(0)..=last {
                    if let Some(list) = names.get_mut(j as usize) {
                        list.push(name.clone());
                    }
                }
                i += 2;
            }
        }
        for (n, list) in names.iter().enumerate() {
            // SAFETY: record_count records of this library's.
            unsafe {
                let node = &mut *nodes.node_array.add(n);
                free_string(&mut node.partitions);
                if !list.is_empty() {
                    node.partitions = c_string(&list.join(","));
                }
            }
        }
    })
}

/// `slurm_init_part_desc_msg`: a partition description with nothing set.
///
/// # Safety
/// `msg` is NULL or points to an `update_part_msg_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_part_desc_msg(msg: *mut crate::bindings::update_part_msg_t) {
    // SAFETY: as the caller promises.
    if let Some(m) = unsafe { msg.as_mut() } {
        let (v16, v32) = (NO_VAL16 as u16, NO_VAL);
        *m = crate::bindings::update_part_msg_t {
            default_time: v32,
            def_mem_per_cpu: NO_VAL64,
            grace_time: v32,
            max_cpus_per_node: v32,
            max_mem_per_cpu: NO_VAL64,
            max_nodes: v32,
            max_share: v16,
            min_nodes: v32,
            max_time: v32,
            over_time_limit: v16,
            preempt_mode: v16,
            priority_job_factor: v16,
            priority_tier: v16,
            state_up: v16,
            ..Default::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversubscribe_round_trips_through_max_share() {
        for word in ["NO", "EXCLUSIVE", "YES:4", "FORCE:2"] {
            assert_eq!(oversubscribe(max_share(word)), word);
        }
    }

    #[test]
    fn gpu_counts_read_gres_strings() {
        assert_eq!(gpu_count("gpu:4"), 4);
        assert_eq!(gpu_count("gpu:h100:8(S:0-1)"), 8);
        assert_eq!(gpu_count(""), 0);
    }
}
