//! Nodes and partitions as the data_parser versions write them (`node`,
//! `partition_info`), with the values sinfo and scontrol show for them.

use serde_json::{json, Map, Value};

use spur_proto::{NodeInfo, PartitionInfo};
use spur_slurm::node_state;

use super::value::Wrapped as W;
use crate::reply::Version;

/// A comma list as a `csv_string` (a list of strings).
fn csv(items: &[String]) -> Value {
    json!(items)
}

/// One node.
pub fn node(n: &NodeInfo, cluster: &str, v: Version, user_name: fn(u32) -> String) -> Value {
    let word = n.state_word();
    let mut state = vec![node_state::base_name(word)];
    state.extend(node_state::flag_names(word));
    let alloc_tres = n.alloc_tres();
    let mut m = Map::new();
    let mut put = |k: &str, val: Value| {
        m.insert(k.to_string(), val);
    };
    put("architecture", n.arch.clone().unwrap_or_default().into());
    put("burstbuffer_network_address", "".into());
    put("boards", n.boards.into());
    put("boot_time", W::of(n.boot_time.unwrap_or(0)).into());
    if v >= Version::V0043 {
        put("tls_cert_last_renewal", W::of(0).into());
        put("cert_flags", json!([]));
    }
    put("cluster_name", cluster.into());
    put("cores", n.cores_per_socket.into());
    put("specialized_cores", 0.into());
    put("cpu_binding", 0.into());
    let load = n.cpu_load.map_or(0, |l| (l * 100.0).round() as i64);
    put("cpu_load", load.into());
    put("free_mem", W::maybe(n.free_mem).into());
    put("cpus", n.cpus.into());
    put("effective_cpus", n.cpus.into());
    put("specialized_cpus", "".into());
    put(
        "energy",
        json!({
            "average_watts": 0, "base_consumed_energy": 0, "consumed_energy": 0,
            "current_watts": W::unset(), "previous_consumed_energy": 0, "last_collected": 0,
        }),
    );
    if v <= Version::V0044 {
        put("external_sensors", json!({}));
    }
    put("extra", "".into());
    if v <= Version::V0044 {
        put("power", json!({}));
    }
    put("features", csv(&n.features));
    put("active_features", csv(&n.features));
    put("gpu_spec", "".into());
    put("gres", n.gres.clone().into());
    put("gres_drained", "N/A".into());
    put("gres_used", n.gres_used().into());
    put("instance_id", "".into());
    put("instance_type", "".into());
    put("last_busy", W::of(n.last_busy.unwrap_or(0)).into());
    put("mcs_label", "".into());
    put("specialized_memory", 0.into());
    put("name", n.name.clone().into());
    put("next_state_after_reboot", json!(["INVALID"]));
    put("address", n.addr.clone().into());
    put("hostname", n.hostname.clone().into());
    put("state", json!(state));
    put("operating_system", n.os.clone().unwrap_or_default().into());
    put("owner", "".into());
    put("partitions", csv(&n.partitions));
    put("port", n.port.into());
    put("real_memory", n.real_memory.into());
    put("res_cores_per_gpu", 0.into());
    put("comment", "".into());
    put("reason", n.reason.clone().unwrap_or_default().into());
    let (reason_uid, reason_at) = n.reason_set.unwrap_or((0, 0));
    put("reason_changed_at", W::of(reason_at).into());
    put(
        "reason_set_by_user",
        if n.reason_set.is_some() {
            user_name(reason_uid)
        } else {
            String::new()
        }
        .into(),
    );
    put("resume_after", W::of(0).into());
    put("reservation", "".into());
    put("alloc_memory", n.alloc_mem.into());
    put("alloc_cpus", n.cpus_alloc.into());
    put(
        "alloc_idle_cpus",
        (n.cpus.saturating_sub(n.cpus_alloc)).into(),
    );
    put("tres_used", alloc_tres.into());
    if v <= Version::V0044 {
        put("tres_weighted", f64::from(n.cpus_alloc).into());
    }
    put(
        "slurmd_start_time",
        W::of(n.agent_start_time.unwrap_or(0)).into(),
    );
    put("sockets", n.sockets.into());
    put("threads", n.threads_per_core.into());
    put("temporary_disk", n.tmp_disk.into());
    put("weight", n.weight.into());
    if v >= Version::V0043 {
        put(
            "topology",
            n.topology_addr.clone().unwrap_or_default().into(),
        );
    }
    put("tres", n.cfg_tres().into());
    put("version", n.version.clone().unwrap_or_default().into());
    if v >= Version::V0045 {
        put("suspend_time", W::unset().into());
    }
    Value::Object(m)
}

/// One partition; `nodes` are all nodes (for its TRES).
pub fn partition(p: &PartitionInfo, nodes: &[NodeInfo], cluster: &str, v: Version) -> Value {
    let list = |l: &Option<Vec<String>>| l.as_ref().map_or(String::new(), |v| v.join(","));
    let minutes = |s: Option<u64>| s.map(|s| s / 60);
    let mut m = Map::new();
    let mut put = |k: &str, val: Value| {
        m.insert(k.to_string(), val);
    };
    put(
        "nodes",
        json!({"allowed_allocation": "", "configured": p.nodes, "total": p.total_nodes}),
    );
    put(
        "accounts",
        json!({"allowed": list(&p.allow_accounts), "deny": ""}),
    );
    put("groups", json!({"allowed": list(&p.allow_groups)}));
    put("qos", json!({"allowed": "", "deny": "", "assigned": ""}));
    put("alternate", "".into());
    put(
        "tres",
        json!({"billing_weights": "", "configured": spur_report::show::node::partition_tres(p, nodes)}),
    );
    put("cluster", cluster.into());
    if v >= Version::V0045 {
        put("select_type", json!(["CR_CORE_MEMORY"]));
        put("cpus", json!({"task_binding": [], "total": p.total_cpus}));
    } else {
        put("select_type", json!(["CORE", "MEMORY"]));
        put("cpus", json!({"task_binding": 0, "total": p.total_cpus}));
    }
    put(
        "defaults",
        json!({
            "memory_per_cpu": p.def_mem_per_cpu.unwrap_or(0),
            "partition_memory_per_cpu": W::maybe(p.def_mem_per_cpu),
            "partition_memory_per_node": W::unset(),
            "time": W::limit(minutes(p.default_time).or(minutes(p.max_time))),
            "job": "",
        }),
    );
    put("grace_time", 0.into());
    let (jobs, force) = oversubscribe(&p.oversubscribe);
    put(
        "maximums",
        json!({
            "cpus_per_node": W::limit(None),
            "cpus_per_socket": W::limit(None),
            "memory_per_cpu": 0,
            "partition_memory_per_cpu": W::unset(),
            "partition_memory_per_node": W::limit(p.max_mem_per_node),
            "nodes": W::limit(p.max_nodes.map(u64::from)),
            "shares": jobs,
            "oversubscribe": {"jobs": jobs, "flags": if force { json!(["force"]) } else { json!([]) }},
            "time": W::limit(minutes(p.max_time)),
            "over_time_limit": W::unset(),
        }),
    );
    put("minimums", json!({"nodes": p.min_nodes}));
    put("name", p.name.clone().into());
    put("node_sets", "".into());
    put(
        "priority",
        json!({"job_factor": p.priority_job_factor, "tier": p.priority_tier}),
    );
    put(
        "timeouts",
        json!({"resume": W::unset(), "suspend": W::unset()}),
    );
    if v >= Version::V0043 {
        put("topology", "".into());
    }
    if v >= Version::V0045 {
        let exclusive = if p.oversubscribe.eq_ignore_ascii_case("EXCLUSIVE") {
            "YES"
        } else {
            "NO"
        };
        put(
            "partition",
            json!({"exclusive": exclusive, "oversubscribe": p.oversubscribe, "state": [p.state]}),
        );
        put(
            "flags",
            if p.is_default {
                json!(["DEFAULT"])
            } else {
                json!([])
            },
        );
        put("preempt_mode", json!([preempt_mode(&p.preempt_mode)]));
    } else {
        put("partition", json!({"state": [p.state]}));
    }
    put("suspend_time", W::unset().into());
    Value::Object(m)
}

/// OverSubscribe's job count and whether it is FORCE (`NO` is 1 job).
fn oversubscribe(text: &str) -> (u32, bool) {
    let upper = text.to_ascii_uppercase();
    let count = |rest: &str| {
        rest.strip_prefix(':')
            .and_then(|n| n.parse().ok())
            .unwrap_or(4)
    };
    if let Some(rest) = upper.strip_prefix("FORCE") {
        (count(rest), true)
    } else if let Some(rest) = upper.strip_prefix("YES") {
        (count(rest), false)
    } else {
        (1, false)
    }
}

fn preempt_mode(mode: &str) -> &'static str {
    match mode.to_ascii_uppercase().as_str() {
        "SUSPEND" => "SUSPEND",
        "REQUEUE" => "REQUEUE",
        "CANCEL" => "CANCEL",
        "GANG" | "PRIORITY" => "PRIORITY",
        _ => "DISABLED",
    }
}
