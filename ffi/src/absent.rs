//! Every function `slurm.h` declares that spur does not serve yet: each
//! sets errno `ESLURM_NOT_SUPPORTED` and returns its type's failure value.
//! Made by `tests/absent.rs` from `bindings.rs` and the functions the other
//! modules export; `SPUR_BLESS=1 cargo test -p spur-ffi --test absent`
//! remakes it.

use crate::bindings::*;
use crate::call::unsupported;

#[no_mangle]
pub extern "C" fn slurm_allocate_het_job_blocking(_: List, _: time_t, _: ::std::option::Option<unsafe extern "C" fn(job_id: u32)>) -> List {
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
pub extern "C" fn slurm_write_ctl_conf(_: *mut slurm_conf_t, _: *mut node_info_msg_t, _: *mut partition_info_msg_t) {
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
pub extern "C" fn slurm_job_step_layout_get(_: *mut slurm_step_id_t) -> *mut slurm_step_layout_t {
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

#[no_mangle]
pub extern "C" fn slurmdb_accounts_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_accounts_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_account_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_accounts_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_account_cond_t, _: *mut slurmdb_account_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_accounts_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_account_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_archive(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_archive_cond_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_archive_load(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_archive_rec_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_associations_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_associations_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_assoc_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_associations_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_assoc_cond_t, _: *mut slurmdb_assoc_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_associations_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_assoc_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_clusters_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_clusters_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_cluster_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_clusters_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_cluster_cond_t, _: *mut slurmdb_cluster_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_clusters_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_cluster_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_cluster_account_by_user(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_assoc_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_cluster_user_by_account(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_assoc_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_cluster_wckey_by_user(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_wckey_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_cluster_user_by_wckey(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_wckey_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_job_sizes_grouped_by_account(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_job_cond_t, _: List, _: bool, _: bool) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_job_sizes_grouped_by_wckey(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_job_cond_t, _: List) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_job_sizes_grouped_by_account_then_wckey(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_job_cond_t, _: List, _: bool, _: bool) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_report_user_top_usage(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_user_cond_t, _: bool) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_connection_get(_: *mut u16) -> *mut ::std::os::raw::c_void {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_connection_close(_: *mut *mut ::std::os::raw::c_void) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_connection_commit(_: *mut ::std::os::raw::c_void, _: bool) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_coord_add(_: *mut ::std::os::raw::c_void, _: List, _: *mut slurmdb_user_cond_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_coord_remove(_: *mut ::std::os::raw::c_void, _: List, _: *mut slurmdb_user_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_federations_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_federations_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_federation_cond_t, _: *mut slurmdb_federation_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_federations_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_federation_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_federations_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_federation_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_job_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_job_cond_t, _: *mut slurmdb_job_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_jobs_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_job_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_jobs_fix_runaway(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_jobcomp_init(_: *mut ::std::os::raw::c_char) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_jobcomp_fini() -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_jobcomp_jobs_get(_: *mut slurmdb_job_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_reconfig(_: *mut ::std::os::raw::c_void) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_shutdown(_: *mut ::std::os::raw::c_void) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_clear_stats(_: *mut ::std::os::raw::c_void) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_get_stats(_: *mut ::std::os::raw::c_void, _: *mut *mut slurmdb_stats_rec_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_config_get(_: *mut ::std::os::raw::c_void) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_events_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_event_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_problems_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_assoc_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_reservations_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_reservation_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_txn_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_txn_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_get_info_cluster(_: *mut ::std::os::raw::c_char) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_get_first_avail_cluster(_: *mut job_desc_msg_t, _: *mut ::std::os::raw::c_char, _: *mut *mut slurmdb_cluster_rec_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_get_first_het_job_cluster(_: List, _: *mut ::std::os::raw::c_char, _: *mut *mut slurmdb_cluster_rec_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_assoc_usage(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_bf_usage(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_bf_usage_members(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_qos_usage(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_user_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_account_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_coord_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_clus_res_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_cluster_accounting_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_cluster_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_federation_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_accounting_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_free_assoc_mgr_state_msg(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_free_assoc_rec_members(_: *mut slurmdb_assoc_rec_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_assoc_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_event_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_job_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_free_qos_rec_members(_: *mut slurmdb_qos_rec_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_qos_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_reservation_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_step_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_res_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_txn_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_wckey_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_archive_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_tres_rec_noalloc(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_tres_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_report_assoc_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_report_user_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_report_cluster_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_user_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_account_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_cluster_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_federation_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_tres_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_assoc_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_event_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_job_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_qos_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_reservation_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_res_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_txn_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_wckey_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_archive_cond(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_update_object(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_used_limits(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_print_tree(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_hierarchical_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_report_job_grouping(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_report_acct_grouping(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_report_cluster_grouping(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_rpc_obj(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_rollup_stats(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_free_stats_rec_members(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_stats_rec(_: *mut ::std::os::raw::c_void) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_free_slurmdb_stats_members(_: *mut slurmdb_stats_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_destroy_slurmdb_stats(_: *mut slurmdb_stats_t) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_assoc_rec(_: *mut slurmdb_assoc_rec_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_clus_res_rec(_: *mut slurmdb_clus_res_rec_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_cluster_rec(_: *mut slurmdb_cluster_rec_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_federation_rec(_: *mut slurmdb_federation_rec_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_qos_rec(_: *mut slurmdb_qos_rec_t, _: bool, _: u32) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_res_rec(_: *mut slurmdb_res_rec_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_wckey_rec(_: *mut slurmdb_wckey_rec_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_tres_cond(_: *mut slurmdb_tres_cond_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_cluster_cond(_: *mut slurmdb_cluster_cond_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_federation_cond(_: *mut slurmdb_federation_cond_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_init_res_cond(_: *mut slurmdb_res_cond_t, _: bool) {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_get_hierarchical_sorted_assoc_list(_: List, _: bool) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_get_acct_hierarchical_rec_list(_: List) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_tree_name_get(_: *mut ::std::os::raw::c_char, _: *mut ::std::os::raw::c_char, _: List) -> *mut ::std::os::raw::c_char {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_res_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_res_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_res_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_res_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_res_cond_t, _: *mut slurmdb_res_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_res_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_res_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_qos_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_qos_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_qos_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_qos_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_qos_cond_t, _: *mut slurmdb_qos_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_qos_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_qos_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_tres_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_tres_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_tres_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_usage_get(_: *mut ::std::os::raw::c_void, _: *mut ::std::os::raw::c_void, _: ::std::os::raw::c_int, _: time_t, _: time_t) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_usage_roll(_: *mut ::std::os::raw::c_void, _: time_t, _: time_t, _: u16, _: *mut List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_users_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_users_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_user_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_users_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_user_cond_t, _: *mut slurmdb_user_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_users_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_user_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_wckeys_add(_: *mut ::std::os::raw::c_void, _: List) -> ::std::os::raw::c_int {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_wckeys_get(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_wckey_cond_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_wckeys_modify(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_wckey_cond_t, _: *mut slurmdb_wckey_rec_t) -> List {
    unsupported()
}

#[no_mangle]
pub extern "C" fn slurmdb_wckeys_remove(_: *mut ::std::os::raw::c_void, _: *mut slurmdb_wckey_cond_t) -> List {
    unsupported()
}
