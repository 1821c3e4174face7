//! `scontrol show config`'s record, as Slurm 22.05's
//! `slurm_print_ctl_conf` (`src/api/config_info.c`) prints it and
//! libslurm's print function does: the configuration's key pairs from
//! [`spur_slurm::config::entries`]. Pure.

use spur_proto::ConfigInfo;
use spur_slurm::locale::Locale;

/// The configuration's key pairs, in Slurm 22.05's order
/// (`slurm_ctl_conf_2_key_pairs`): `BOOT_TIME` is the controller's start,
/// `conf.loaded_at`, in this client's time format, as libslurm formats it.
pub fn key_pairs(conf: &ConfigInfo, locale: &Locale) -> Vec<(String, String)> {
    let mut pairs = spur_slurm::config::entries(&conf.conf, &conf.facts);
    for (key, value) in &mut pairs {
        if key == "BOOT_TIME" {
            *value = locale.time_or_unknown(conf.loaded_at);
        }
    }
    pairs
}

/// `Configuration data as of <as_of>` and the `Key = Value` lines (keys
/// padded to 23 columns, as `slurm_print_key_pairs` does).
pub fn render_config(conf: &ConfigInfo, as_of: u64, locale: &Locale) -> String {
    let mut out = format!(
        "Configuration data as of {}\n",
        locale.time_or_unknown(as_of)
    );
    for (key, value) in key_pairs(conf, locale) {
        out.push_str(&format!("{key:<23} = {value}\n"));
    }
    out
}
