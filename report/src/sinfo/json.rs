//! `sinfo --json`: the nodes as Slurm 22.05 prints them, slurmrestd's
//! openapi/v0.0.38 `/nodes/` document (`spur_slurm::openapi`), written by
//! serde's pretty printer. Pure: nodes in, text out.

use spur_proto::NodeInfo;
use spur_slurm::openapi::{self, v0038};

use super::row;
use super::state;
use spur_slurm::locale::Locale;

/// The whole `sinfo --json` document's values.
pub fn document(nodes: &[NodeInfo], locale: &Locale) -> v0038::Nodes {
    v0038::Nodes {
        meta: openapi::Meta::v0038(spur_proto::SLURM_COMPAT_VERSION),
        errors: Vec::new(),
        nodes: nodes.iter().map(|n| node(n, locale)).collect(),
    }
}

/// The whole `sinfo --json` document.
pub fn render(nodes: &[NodeInfo], locale: &Locale) -> String {
    spur_slurm::openapi::document_text(&document(nodes, locale))
}

/// One node, as `_dump_node` in openapi/v0.0.38 writes it.
pub fn node(n: &NodeInfo, locale: &Locale) -> v0038::Node {
    let word = n.state_word();
    let features = n.features.join(",");
    let alloc_tres = n.alloc_tres();
    v0038::Node {
        architecture: n.arch.clone(),
        burstbuffer_network_address: String::new(),
        boards: n.boards.into(),
        boot_time: n.boot_time.unwrap_or(0) as i64,
        comment: String::new(),
        cores: n.cores_per_socket.into(),
        cpu_binding: 0,
        cpu_load: n.cpu_load.map_or(0, |_| row::load_hundredths(n)).into(),
        extra: String::new(),
        free_memory: n.free_mem.unwrap_or(0) as i64,
        cpus: n.cpus.into(),
        last_busy: n.last_busy.unwrap_or(0) as i64,
        features: features.clone(),
        active_features: features,
        gres: n.gres.clone(),
        gres_drained: "N/A".into(),
        gres_used: n.gres_used(),
        mcs_label: String::new(),
        name: n.name.clone(),
        next_state_after_reboot: "invalid".into(),
        address: n.addr.clone(),
        hostname: n.hostname.clone(),
        state: state::base_name(word).to_lowercase(),
        state_flags: state::flag_names(word)
            .into_iter()
            .map(str::to_string)
            .collect(),
        next_state_after_reboot_flags: Vec::new(),
        operating_system: n.os.clone(),
        owner: None,
        partitions: n.partitions.clone(),
        port: n.port.into(),
        real_memory: n.real_memory as i64,
        reason: n.reason.clone().unwrap_or_default(),
        reason_changed_at: row::reason_time(n) as i64,
        reason_set_by_user: n.reason_set.map(|(uid, _)| (locale.user_name)(uid)),
        slurmd_start_time: n.agent_start_time.unwrap_or(0) as i64,
        sockets: n.sockets.into(),
        threads: n.threads_per_core.into(),
        temporary_disk: n.tmp_disk as i64,
        weight: n.weight.into(),
        tres: n.cfg_tres(),
        slurmd_version: n.version.clone(),
        alloc_memory: n.alloc_mem as i64,
        alloc_cpus: n.cpus_alloc.into(),
        idle_cpus: i64::from(n.cpus) - i64::from(n.cpus_alloc),
        tres_used: (!alloc_tres.is_empty()).then_some(alloc_tres),
        tres_weighted: f64::from(n.cpus_alloc),
    }
}
