//! Every function `slurm.h` declares that spur does not serve yet: each
//! sets errno `ESLURM_NOT_SUPPORTED` and returns its type's failure value.
//! Made by `tests/absent.rs` from `bindings.rs` and the functions the other
//! modules export; `SPUR_BLESS=1 cargo test -p spur-ffi --test absent`
//! remakes it.

use crate::bindings::*;
use crate::call::unsupported;

#[no_mangle]
pub extern "C" fn slurm_allocate_resources(_: *mut job_desc_msg_t, _: *mut *mut resource_allocation_response_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_allocate_resources_blocking(_: *const job_desc_msg_t, _: time_t, _: ::std::option::Option<unsafe extern "C" fn(job_id: u32)>) -> *mut resource_allocation_response_msg_t {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_resource_allocation_response_msg(_: *mut resource_allocation_response_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_allocate_het_job_blocking(_: List, _: time_t, _: ::std::option::Option<unsafe extern "C" fn(job_id: u32)>) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_allocation_lookup(_: u32, _: *mut *mut resource_allocation_response_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_het_job_lookup(_: u32, _: *mut List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_read_hostfile(_: *const ::std::os::raw::c_char, _: ::std::os::raw::c_int) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_allocation_msg_thr_create(_: *mut u16, _: *const slurm_allocation_callbacks_t) -> *mut allocation_msg_thread_t {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_allocation_msg_thr_destroy(_: *mut allocation_msg_thread_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_submit_batch_het_job(_: List, _: *mut *mut submit_response_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_batch_script(_: *mut FILE, _: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_will_run(_: *mut job_desc_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_het_job_will_run(_: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_will_run2(_: *mut job_desc_msg_t, _: *mut *mut will_run_response_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_sbcast_lookup(_: *mut slurm_selected_step_t, _: *mut *mut job_sbcast_cred_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_sbcast_cred_msg(_: *mut job_sbcast_cred_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_licenses(_: time_t, _: *mut *mut license_info_msg_t, _: u16) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_license_info_msg(_: *mut license_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_assoc_mgr_info(_: *mut assoc_mgr_info_request_msg_t, _: *mut *mut assoc_mgr_info_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_assoc_mgr_info_msg(_: *mut assoc_mgr_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_assoc_mgr_info_request_members(_: *mut assoc_mgr_info_request_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_assoc_mgr_info_request_msg(_: *mut assoc_mgr_info_request_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_kill_job_step(_: u32, _: u32, _: u16) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_kill_job2(_: *const ::std::os::raw::c_char, _: u16, _: u16, _: *const ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_signal_job_step(_: u32, _: u32, _: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_complete_job(_: u32, _: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_terminate_job_step(_: u32, _: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch_params_t_init(_: *mut slurm_step_launch_params_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch(_: *mut slurm_step_ctx_t, _: *const slurm_step_launch_params_t, _: *const slurm_step_launch_callbacks_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch_add(_: *mut slurm_step_ctx_t, _: *mut slurm_step_ctx_t, _: *const slurm_step_launch_params_t, _: *mut ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch_wait_start(_: *mut slurm_step_ctx_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch_wait_finish(_: *mut slurm_step_ctx_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch_abort(_: *mut slurm_step_ctx_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch_fwd_signal(_: *mut slurm_step_ctx_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_step_launch_fwd_wake(_: *mut slurm_step_ctx_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_ctl_conf(_: time_t, _: *mut *mut slurm_conf_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_ctl_conf(_: *mut slurm_conf_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_ctl_conf(_: *mut FILE, _: *mut slurm_conf_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_write_ctl_conf(_: *mut slurm_conf_t, _: *mut node_info_msg_t, _: *mut partition_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_ctl_conf_2_key_pairs(_: *mut slurm_conf_t) -> *mut ::std::os::raw::c_void {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_key_pairs(_: *mut FILE, _: *mut ::std::os::raw::c_void, _: *mut ::std::os::raw::c_char) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_slurmd_status(_: *mut *mut slurmd_status_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_slurmd_status(_: *mut slurmd_status_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_slurmd_status(_: *mut FILE, _: *mut slurmd_status_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_init_update_step_msg(_: *mut step_update_request_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_statistics(_: *mut *mut stats_info_response_msg_t, _: *mut stats_info_request_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_reset_statistics(_: *mut stats_info_request_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_cpus_allocated_on_node_id(_: *mut job_resources_t, _: ::std::os::raw::c_int) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_cpus_allocated_on_node(_: *mut job_resources_t, _: *const ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_cpus_allocated_str_on_node_id(_: *mut ::std::os::raw::c_char, _: usize, _: *mut job_resources_t, _: ::std::os::raw::c_int) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_cpus_allocated_str_on_node(_: *mut ::std::os::raw::c_char, _: usize, _: *mut job_resources_t, _: *const ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_priority_factors_response_msg(_: *mut priority_factors_response_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_end_time(_: u32, _: *mut time_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_job_stderr(_: *mut ::std::os::raw::c_char, _: ::std::os::raw::c_int, _: *mut job_info_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_job_stdin(_: *mut ::std::os::raw::c_char, _: ::std::os::raw::c_int, _: *mut job_info_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_job_stdout(_: *mut ::std::os::raw::c_char, _: ::std::os::raw::c_int, _: *mut job_info_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_rem_time(_: u32) -> ::std::os::raw::c_long {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_node_ready(_: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_job_prio(_: *mut *mut priority_factors_response_msg_t, _: List, _: *mut ::std::os::raw::c_char, _: List, _: u16) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_notify_job(_: u32, _: *mut ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_pid2jobid(_: pid_t, _: *mut u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_update_job2(_: *mut job_desc_msg_t, _: *mut *mut job_array_resp_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_xlate_job_id(_: *mut ::std::os::raw::c_char) -> u32 {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_job_steps(_: time_t, _: u32, _: u32, _: *mut *mut job_step_info_response_msg_t, _: u16) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_job_step_info_response_msg(_: *mut job_step_info_response_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_job_step_info_msg(_: *mut FILE, _: *mut job_step_info_response_msg_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_job_step_info(_: *mut FILE, _: *mut job_step_info_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_layout_get(_: *mut slurm_step_id_t) -> *mut slurm_step_layout_t {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_sprint_job_step_info(_: *mut job_step_info_t, _: ::std::os::raw::c_int) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_stat(_: *mut slurm_step_id_t, _: *mut ::std::os::raw::c_char, _: u16, _: *mut *mut job_step_stat_response_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_get_pids(_: *mut slurm_step_id_t, _: *mut ::std::os::raw::c_char, _: *mut *mut job_step_pids_response_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_layout_free(_: *mut slurm_step_layout_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_pids_free(_: *mut job_step_pids_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_pids_response_msg_free(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_stat_free(_: *mut job_step_stat_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_job_step_stat_response_msg_free(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_update_step(_: *mut step_update_request_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_destroy_selected_step(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_node2(_: time_t, _: *mut *mut node_info_msg_t, _: u16, _: *mut slurmdb_cluster_rec_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_node_single2(_: *mut *mut node_info_msg_t, _: *mut ::std::os::raw::c_char, _: u16, _: *mut slurmdb_cluster_rec_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_populate_node_partitions(_: *mut node_info_msg_t, _: *mut partition_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_node_energy(_: *mut ::std::os::raw::c_char, _: u16, _: u16, _: *mut u16, _: *mut *mut acct_gather_energy_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_create_node(_: *mut update_node_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_delete_node(_: *mut update_node_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_front_end(_: time_t, _: *mut *mut front_end_info_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_front_end_info_msg(_: *mut front_end_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_front_end_info_msg(_: *mut FILE, _: *mut front_end_info_msg_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_front_end_table(_: *mut FILE, _: *mut front_end_info_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_sprint_front_end_table(_: *mut front_end_info_t, _: ::std::os::raw::c_int) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_init_update_front_end_msg(_: *mut update_front_end_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_update_front_end(_: *mut update_front_end_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_topo(_: *mut *mut topo_info_response_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_topo_info_msg(_: *mut topo_info_response_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_topo_info_msg(_: *mut FILE, _: *mut topo_info_response_msg_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_topo_record(_: *mut FILE, _: *mut topo_info_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_init_part_desc_msg(_: *mut update_part_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_partitions2(_: time_t, _: *mut *mut partition_info_msg_t, _: u16, _: *mut slurmdb_cluster_rec_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_create_partition(_: *mut update_part_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_update_partition(_: *mut update_part_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_delete_partition(_: *mut delete_part_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_init_resv_desc_msg(_: *mut resv_desc_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_create_reservation(_: *mut resv_desc_msg_t) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_update_reservation(_: *mut resv_desc_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_delete_reservation(_: *mut reservation_name_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_reservations(_: time_t, _: *mut *mut reserve_info_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_reservation_info_msg(_: *mut FILE, _: *mut reserve_info_msg_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_reservation_info(_: *mut FILE, _: *mut reserve_info_t, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_sprint_reservation_info(_: *mut reserve_info_t, _: ::std::os::raw::c_int) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_reservation_info_msg(_: *mut reserve_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_reconfigure() -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_shutdown(_: u16) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_takeover(_: ::std::os::raw::c_int) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_set_debugflags(_: u64, _: u64) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_set_debug_level(_: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_set_schedlog_level(_: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_set_fs_dampeningfactor(_: u16) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_suspend(_: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_suspend2(_: *mut ::std::os::raw::c_char, _: *mut *mut job_array_resp_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_resume(_: u32) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_resume2(_: *mut ::std::os::raw::c_char, _: *mut *mut job_array_resp_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_job_array_resp(_: *mut job_array_resp_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_requeue2(_: *mut ::std::os::raw::c_char, _: u32, _: *mut *mut job_array_resp_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_set_trigger(_: *mut trigger_info_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_clear_trigger(_: *mut trigger_info_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_get_triggers(_: *mut *mut trigger_info_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_pull_trigger(_: *mut trigger_info_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_trigger_msg(_: *mut trigger_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_init_trigger_msg(_: *mut trigger_info_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_burst_buffer_state_string(_: u16) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_burst_buffer_stat(_: ::std::os::raw::c_int, _: *mut *mut ::std::os::raw::c_char, _: *mut *mut ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_burst_buffer_info(_: *mut *mut burst_buffer_info_msg_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_free_burst_buffer_info_msg(_: *mut burst_buffer_info_msg_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_burst_buffer_info_msg(_: *mut FILE, _: *mut burst_buffer_info_msg_t, _: ::std::os::raw::c_int, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_burst_buffer_record(_: *mut FILE, _: *mut burst_buffer_info_t, _: ::std::os::raw::c_int, _: ::std::os::raw::c_int) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_network_callerid(_: network_callerid_msg_t, _: *mut u32, _: *mut ::std::os::raw::c_char, _: ::std::os::raw::c_int) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_top_job(_: *mut ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_fetch_token(_: *mut ::std::os::raw::c_char, _: ::std::os::raw::c_int) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_load_federation(_: *mut *mut ::std::os::raw::c_void) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_print_federation(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_destroy_federation_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_request_crontab(_: uid_t, _: *mut *mut ::std::os::raw::c_char, _: *mut *mut ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_update_crontab(_: uid_t, _: gid_t, _: *mut ::std::os::raw::c_char, _: List) -> *mut crontab_update_response_msg_t {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurm_remove_crontab(_: uid_t, _: gid_t) -> ::std::os::raw::c_int {
    unsupported()
}
