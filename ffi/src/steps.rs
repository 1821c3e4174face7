//! Running steps as libslurm hands them out: `slurm_get_job_steps` fills
//! a `job_step_info_response_msg_t` from the controller's listing (the one
//! `squeue -s` and `scontrol show step` read), its frees free it, and
//! `slurm_sprint_job_step_info` / `slurm_print_job_step_info*` print a
//! record as `scontrol show step` does.

use std::collections::HashMap;
use std::os::raw::{c_char, c_int};

use spur_client::{Api, Process};
use spur_proto::{StepId, StepInfo, Tres};
use spur_report::show::step::render_step;
use spur_report::show::ShowOpts;
use spur_slurm::flags;
use spur_slurm::locale::Locale;

use crate::bindings::{
    job_step_info_response_msg_t, job_step_info_t, slurm_step_id_t, time_t, FILE, INFINITE,
    JOB_RUNNING, NO_VAL, SLURM_BATCH_SCRIPT, SLURM_ERROR, SLURM_EXTERN_CONT,
    SLURM_INTERACTIVE_STEP,
};
use crate::call::{guarded, hand_out, refused, set_errno};
use crate::memory::{c_message, c_records, c_string, free_records};
use crate::nodes::{node_index, node_table, read, read_opt};

fn text(s: Option<&str>) -> *mut c_char {
    s.map_or(std::ptr::null_mut(), c_string)
}

fn step_number(id: StepId) -> u32 {
    match id {
        StepId::Batch => SLURM_BATCH_SCRIPT,
        StepId::Extern => SLURM_EXTERN_CONT,
        StepId::Interactive => SLURM_INTERACTIVE_STEP,
        StepId::Numbered(n) => n,
    }
}

fn step_of_number(n: u32) -> StepId {
    match n {
        SLURM_BATCH_SCRIPT => StepId::Batch,
        SLURM_EXTERN_CONT => StepId::Extern,
        SLURM_INTERACTIVE_STEP => StepId::Interactive,
        n => StepId::Numbered(n),
    }
}

/// The SLURM_DIST_* number of a layout's name (`Block`, `Cyclic`).
fn dist_number(name: &str) -> u32 {
    (1..=4)
        .find(|&d| flags::task_dist_name(d) == name)
        .unwrap_or(0)
}

/// One step's record, its strings the C allocator's.
fn record(s: &StepInfo, now: u64, table: &HashMap<String, usize>) -> job_step_info_t {
    let (array_job_id, array_task_id) = s.array.unwrap_or((0, NO_VAL));
    let (srun_host, srun_pid) = s
        .srun
        .as_ref()
        .map_or((None, 0), |(host, pid)| (Some(host.as_str()), *pid));
    job_step_info_t {
        array_job_id,
        array_task_id,
        cpu_freq_min: NO_VAL,
        cpu_freq_max: NO_VAL,
        cpu_freq_gov: NO_VAL,
        name: c_string(&s.name),
        nodes: c_string(&s.nodes),
        node_inx: node_index(Some(&s.nodes), table),
        num_cpus: s.num_cpus,
        num_tasks: s.num_tasks,
        partition: c_string(&s.partition),
        run_time: time_t::try_from(now.saturating_sub(s.start_time)).unwrap_or(0),
        srun_host: text(srun_host),
        srun_pid,
        start_time: time_t::try_from(s.start_time).unwrap_or(0),
        state: JOB_RUNNING,
        step_id: slurm_step_id_t {
            job_id: s.job_id,
            step_het_comp: NO_VAL,
            step_id: step_number(s.step),
        },
        task_dist: s.dist.as_deref().map_or(0, dist_number),
        time_limit: s
            .time_limit
            .map_or(INFINITE, |t| u32::try_from(t / 60).unwrap_or(INFINITE)),
        tres_alloc_str: text(s.tres.map(|t| t.step_text()).as_deref()),
        tres_per_step: text(s.tres_per_step.as_deref()),
        tres_per_node: text(s.tres_per_node.as_deref()),
        tres_per_task: text(s.tres_per_task.as_deref()),
        user_id: s.user_id,
        ..job_step_info_t::default()
    }
}

/// A step record read back.
///
/// # Safety
/// `r`'s strings are NULL or NUL-terminated.
unsafe fn step_of(r: &job_step_info_t) -> StepInfo {
    // SAFETY: as the caller promises, for each string read.
    unsafe {
        StepInfo {
            job_id: r.step_id.job_id,
            step: step_of_number(r.step_id.step_id),
            array: (r.array_job_id != 0).then_some((r.array_job_id, r.array_task_id)),
            name: read(r.name),
            user_id: r.user_id,
            user_name: spur_sys::users::name_of(r.user_id),
            partition: read(r.partition),
            start_time: u64::try_from(r.start_time).unwrap_or(0),
            time_limit: (r.time_limit != INFINITE && r.time_limit != NO_VAL)
                .then(|| u64::from(r.time_limit) * 60),
            nodes: read(r.nodes),
            node_count: spur_conf::hostlist::expand(&read(r.nodes))
                .map_or(0, |n| u32::try_from(n.len()).unwrap_or(u32::MAX)),
            num_tasks: r.num_tasks,
            num_cpus: r.num_cpus,
            tres: read_opt(r.tres_alloc_str).and_then(|t| Tres::parse(&t)),
            tres_per_step: read_opt(r.tres_per_step),
            tres_per_node: read_opt(r.tres_per_node),
            tres_per_task: read_opt(r.tres_per_task),
            dist: (r.task_dist != 0).then(|| flags::task_dist_name(r.task_dist)),
            srun: read_opt(r.srun_host).map(|h| (h, r.srun_pid)),
            // job_step_info_t carries no usage.
            usage: None,
        }
    }
}

/// Frees what a step record holds.
///
/// # Safety
/// Its strings and `node_inx` are NULL or the C allocator's; not used
/// again.
unsafe fn free_step(r: &mut job_step_info_t) {
    let strings = [
        &mut r.cluster,
        &mut r.container,
        &mut r.cpus_per_tres,
        &mut r.mem_per_tres,
        &mut r.name,
        &mut r.network,
        &mut r.nodes,
        &mut r.partition,
        &mut r.resv_ports,
        &mut r.srun_host,
        &mut r.submit_line,
        &mut r.tres_alloc_str,
        &mut r.tres_bind,
        &mut r.tres_freq,
        &mut r.tres_per_step,
        &mut r.tres_per_node,
        &mut r.tres_per_socket,
        &mut r.tres_per_task,
    ];
    for s in strings {
        // SAFETY: as the caller promises.
        unsafe { libc::free(s.cast()) };
        *s = std::ptr::null_mut();
    }
    // SAFETY: as the caller promises.
    unsafe { libc::free(r.node_inx.cast()) };
    r.node_inx = std::ptr::null_mut();
}

/// `slurm_get_job_steps`: the running steps of job `job_id` (NO_VAL:
/// every job), only step `step_id` unless it is NO_VAL.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_steps(
    _update_time: time_t,
    job_id: u32,
    step_id: u32,
    resp: *mut *mut job_step_info_response_msg_t,
    _show_flags: u16,
) -> c_int {
    guarded(|| {
        if resp.is_null() {
            set_errno(libc::EINVAL);
            return SLURM_ERROR;
        }
        let jobs = if job_id == NO_VAL {
            Vec::new()
        } else {
            vec![job_id]
        };
        let listing = match Process.steps(jobs) {
            Ok(l) => l,
            Err(e) => return refused(&e),
        };
        let steps: Vec<&StepInfo> = listing
            .items
            .iter()
            .filter(|s| step_id == NO_VAL || step_number(s.step) == step_id)
            .collect();
        let table = node_table();
        let array = c_records(&steps, |s| record(s, listing.now, &table));
        let count = u32::try_from(steps.len()).unwrap_or(u32::MAX);
        // SAFETY: count records of ours; the caller's pointer.
        unsafe {
            let msg = c_message(
                array,
                count,
                free_step,
                |m: &mut job_step_info_response_msg_t| {
                    m.last_update = time_t::try_from(listing.now).unwrap_or(0);
                    m.job_step_count = count;
                    m.job_steps = array;
                },
            );
            hand_out(resp, msg)
        }
    })
}

/// `slurm_free_job_step_info_members`: frees what one record holds.
///
/// # Safety
/// `step` is NULL or a record this library filled.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_step_info_members(step: *mut job_step_info_t) {
    // SAFETY: as the caller promises.
    if let Some(r) = unsafe { step.as_mut() } {
        // SAFETY: its members are this library's.
        unsafe { free_step(r) };
    }
}

/// `slurm_free_job_step_info_response_msg`: frees a loaded message.
///
/// # Safety
/// `msg` is NULL or a message this library loaded, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_step_info_response_msg(
    msg: *mut job_step_info_response_msg_t,
) {
    if msg.is_null() {
        return;
    }
    // SAFETY: a message from slurm_get_job_steps.
    unsafe {
        free_records((*msg).job_steps, (*msg).job_step_count, free_step);
        libc::free(msg.cast());
    }
}

fn step_text(r: &job_step_info_t, one_liner: c_int) -> String {
    // SAFETY: a record whose strings are NULL or NUL-terminated.
    let step = unsafe { step_of(r) };
    let opts = ShowOpts {
        one_liner: one_liner != 0,
        details: false,
    };
    render_step(&step, opts, &Locale::local(spur_sys::users::name_of))
}

/// `slurm_sprint_job_step_info`: the record as `scontrol show step`
/// prints it, the caller's to free.
///
/// # Safety
/// `step` is NULL or a step record.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_job_step_info(
    step: *mut job_step_info_t,
    one_liner: c_int,
) -> *mut c_char {
    // SAFETY: as the caller promises.
    let Some(r) = (unsafe { step.as_ref() }) else {
        return std::ptr::null_mut();
    };
    guarded(|| c_string(&step_text(r, one_liner)))
}

/// `slurm_print_job_step_info`: the record's text on `out`.
///
/// # Safety
/// `out` is NULL or an open stream; `step` is NULL or a step record.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_step_info(
    out: *mut FILE,
    step: *mut job_step_info_t,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    if let Some(r) = unsafe { step.as_ref() } {
        // SAFETY: as the caller promises.
        guarded(|| unsafe { crate::show::write(out, &step_text(r, one_liner)) });
    }
}

/// `slurm_print_job_step_info_msg`: `Job step data as of <time>, record
/// count <n>`, then each record.
///
/// # Safety
/// `out` is NULL or an open stream; `msg` is NULL or a loaded message.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_step_info_msg(
    out: *mut FILE,
    msg: *mut job_step_info_response_msg_t,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { msg.as_ref() }) else {
        return;
    };
    guarded(|| {
        let mut text = crate::show::header("Job step", m.last_update, m.job_step_count);
        if !m.job_steps.is_null() {
            // SAFETY: a message's records.
            let steps =
                unsafe { std::slice::from_raw_parts(m.job_steps, m.job_step_count as usize) };
            for r in steps {
                text.push_str(&step_text(r, one_liner));
            }
        }
        // SAFETY: as the caller promises.
        unsafe { crate::show::write(out, &text) }
    })
}
