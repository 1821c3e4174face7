//! `sinfo --json`: the nodes as Slurm 22.05 prints them (slurmrestd's
//! openapi/v0.0.38 `/nodes/` document, keys in Slurm's order, two-space
//! pretty printing). Pure: nodes in, text out.

use spur_proto::NodeInfo;

use super::locale::Locale;
use super::render::gres_used;
use super::row;
use super::state;

/// A JSON value that keeps its keys in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// An integer.
    Int(i64),
    /// A number printed with at least one decimal (`5.0`).
    Float(f64),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Json>),
    /// An object, in key order as given.
    Object(Vec<(&'static str, Json)>),
}

impl Json {
    /// Pretty text, two spaces per level, as Slurm's JSON serializer writes.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        let indent = |out: &mut String, d: usize| out.push_str(&"  ".repeat(d));
        match self {
            Json::Null => out.push_str("null"),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::Float(f) if f.fract() == 0.0 && f.is_finite() => {
                out.push_str(&format!("{f:.1}"));
            }
            Json::Float(f) => out.push_str(&f.to_string()),
            Json::Str(s) => out.push_str(&quote(s)),
            Json::List(items) if items.is_empty() => out.push_str("[]"),
            Json::List(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    indent(out, depth + 1);
                    item.write(out, depth + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                indent(out, depth);
                out.push(']');
            }
            Json::Object(pairs) if pairs.is_empty() => out.push_str("{}"),
            Json::Object(pairs) => {
                out.push_str("{\n");
                for (i, (key, value)) in pairs.iter().enumerate() {
                    indent(out, depth + 1);
                    out.push_str(&quote(key));
                    out.push_str(": ");
                    value.write(out, depth + 1);
                    out.push_str(if i + 1 < pairs.len() { ",\n" } else { "\n" });
                }
                indent(out, depth);
                out.push('}');
            }
        }
    }
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn text(s: impl Into<String>) -> Json {
    Json::Str(s.into())
}

fn int(n: impl Into<i64>) -> Json {
    Json::Int(n.into())
}

fn opt_text(s: Option<&String>) -> Json {
    s.map_or(Json::Null, |s| text(s.clone()))
}

/// The `meta` object for Slurm `version` (`22.05.8`).
pub fn meta(version: &str) -> Json {
    let mut parts = version.split('.').map(|p| p.parse::<i64>().unwrap_or(0));
    let (major, minor, micro) = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    Json::Object(vec![
        (
            "plugin",
            Json::Object(vec![
                ("type", text("openapi/v0.0.38")),
                ("name", text("Slurm OpenAPI v0.0.38")),
            ]),
        ),
        (
            "Slurm",
            Json::Object(vec![
                (
                    "version",
                    Json::Object(vec![
                        ("major", int(major)),
                        ("micro", int(micro)),
                        ("minor", int(minor)),
                    ]),
                ),
                ("release", text(version)),
            ]),
        ),
    ])
}

/// The whole `sinfo --json` document.
pub fn render(nodes: &[NodeInfo], locale: &Locale) -> String {
    Json::Object(vec![
        ("meta", meta(spur_proto::SLURM_COMPAT_VERSION)),
        ("errors", Json::List(Vec::new())),
        (
            "nodes",
            Json::List(nodes.iter().map(|n| node(n, locale)).collect()),
        ),
    ])
    .pretty()
}

/// One node, as `_dump_node` in openapi/v0.0.38 writes it.
pub fn node(n: &NodeInfo, locale: &Locale) -> Json {
    let word = n.state_word();
    let features = n.features.join(",");
    let mut pairs = vec![
        ("architecture", opt_text(n.arch.as_ref())),
        ("burstbuffer_network_address", text("")),
        ("boards", int(n.boards)),
        ("boot_time", int(n.boot_time.unwrap_or(0) as i64)),
        ("comment", text("")),
        ("cores", int(n.cores_per_socket)),
        ("cpu_binding", int(0)),
        (
            "cpu_load",
            int(n.cpu_load.map_or(0, |_| row::load_hundredths(n))),
        ),
        ("extra", text("")),
        ("free_memory", int(n.free_mem.unwrap_or(0) as i64)),
        ("cpus", int(n.cpus)),
        ("last_busy", int(n.last_busy.unwrap_or(0) as i64)),
        ("features", text(features.clone())),
        ("active_features", text(features)),
        ("gres", text(n.gres.clone())),
        ("gres_drained", text("N/A")),
        ("gres_used", text(gres_used(n))),
        ("mcs_label", text("")),
        ("name", text(n.name.clone())),
        ("next_state_after_reboot", text("invalid")),
        ("address", text(n.addr.clone())),
        ("hostname", text(n.hostname.clone())),
        ("state", text(state::base_name(word).to_lowercase())),
        (
            "state_flags",
            Json::List(state::flag_names(word).into_iter().map(text).collect()),
        ),
        ("next_state_after_reboot_flags", Json::List(Vec::new())),
        ("operating_system", opt_text(n.os.as_ref())),
        ("owner", Json::Null),
        (
            "partitions",
            Json::List(n.partitions.iter().map(|p| text(p.clone())).collect()),
        ),
        ("port", int(n.port)),
        ("real_memory", int(n.real_memory as i64)),
    ];
    pairs.extend(reason_and_usage(n, locale));
    Json::Object(pairs)
}

fn reason_and_usage(n: &NodeInfo, locale: &Locale) -> Vec<(&'static str, Json)> {
    let alloc_tres = alloc_tres(n);
    vec![
        ("reason", text(n.reason.clone().unwrap_or_default())),
        ("reason_changed_at", int(row::reason_time(n) as i64)),
        (
            "reason_set_by_user",
            n.reason_set
                .map_or(Json::Null, |(uid, _)| text((locale.user_name)(uid))),
        ),
        (
            "slurmd_start_time",
            int(n.agent_start_time.unwrap_or(0) as i64),
        ),
        ("sockets", int(n.sockets)),
        ("threads", int(n.threads_per_core)),
        ("temporary_disk", int(n.tmp_disk as i64)),
        ("weight", int(n.weight)),
        ("tres", text(cfg_tres(n))),
        ("slurmd_version", opt_text(n.version.as_ref())),
        ("alloc_memory", int(n.alloc_mem as i64)),
        ("alloc_cpus", int(n.cpus_alloc)),
        (
            "idle_cpus",
            int(i64::from(n.cpus) - i64::from(n.cpus_alloc)),
        ),
        (
            "tres_used",
            if alloc_tres.is_empty() {
                Json::Null
            } else {
                text(alloc_tres)
            },
        ),
        ("tres_weighted", Json::Float(f64::from(n.cpus_alloc))),
    ]
}

/// The GPU part of a TRES string: `gres/gpu=4` (and `gres/gpu:h100=4` for
/// a typed GRES).
fn gpu_tres(gres: &str, count: usize) -> Vec<String> {
    let mut parts = gres.split(':');
    let name = parts.next().unwrap_or("gpu");
    let rest: Vec<&str> = parts.collect();
    let mut out = vec![format!("gres/{name}={count}")];
    if rest.len() >= 2 {
        out.push(format!("gres/{name}:{}={count}", rest[0]));
    }
    out
}

/// CfgTRES: `cpu=144,mem=880000M,billing=144,gres/gpu=4`.
pub fn cfg_tres(n: &NodeInfo) -> String {
    let mut parts = vec![
        format!("cpu={}", n.cpus),
        format!("mem={}", spur_slurm::units::memory(n.real_memory, false)),
        format!("billing={}", n.cpus),
    ];
    if n.gpus > 0 && !n.gres.is_empty() {
        parts.extend(gpu_tres(&n.gres, n.gpus as usize));
    }
    parts.join(",")
}

/// AllocTRES: `cpu=5,mem=20G,gres/gpu=4`; empty when nothing is in use.
pub fn alloc_tres(n: &NodeInfo) -> String {
    let mut parts = Vec::new();
    if n.cpus_alloc > 0 {
        parts.push(format!("cpu={}", n.cpus_alloc));
    }
    if n.alloc_mem > 0 {
        parts.push(format!(
            "mem={}",
            spur_slurm::units::memory(n.alloc_mem, false)
        ));
    }
    if !n.gpus_alloc.is_empty() && !n.gres.is_empty() {
        parts.extend(gpu_tres(&n.gres, n.gpus_alloc.len()));
    }
    parts.join(",")
}
