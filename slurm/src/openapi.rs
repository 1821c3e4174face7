//! The JSON documents of Slurm 22.05's OpenAPI v0.0.38 (slurmrestd's
//! `openapi/v0.0.38`, which `sinfo --json` prints too), as typed shapes:
//! each struct's fields in the order Slurm writes its keys, so that serde's
//! pretty printer gives Slurm's text. Values, not I/O: a front end fills
//! them from what the controller sent.

use serde::Serialize;

/// `meta`: which plugin and which Slurm wrote the document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Meta {
    /// `plugin`.
    pub plugin: Plugin,
    /// `Slurm`.
    #[serde(rename = "Slurm")]
    pub slurm: SlurmVersion,
}

/// `meta.plugin`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plugin {
    /// `openapi/v0.0.38`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `Slurm OpenAPI v0.0.38`.
    pub name: String,
}

/// `meta.Slurm`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlurmVersion {
    /// The numbers.
    pub version: Version,
    /// `22.05.8`.
    pub release: String,
}

/// `meta.Slurm.version` (Slurm writes micro before minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Version {
    /// 22.
    pub major: i64,
    /// 8.
    pub micro: i64,
    /// 5.
    pub minor: i64,
}

impl Meta {
    /// The `meta` of a v0.0.38 document written by Slurm `release`
    /// (`22.05.8`).
    pub fn v0038(release: &str) -> Meta {
        let mut parts = release.split('.').map(|p| p.parse::<i64>().unwrap_or(0));
        let mut next = || parts.next().unwrap_or(0);
        let (major, minor, micro) = (next(), next(), next());
        Meta {
            plugin: Plugin {
                kind: "openapi/v0.0.38".into(),
                name: "Slurm OpenAPI v0.0.38".into(),
            },
            slurm: SlurmVersion {
                version: Version {
                    major,
                    micro,
                    minor,
                },
                release: release.into(),
            },
        }
    }
}

/// The `/nodes/` document (and `sinfo --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Nodes {
    /// `meta`.
    pub meta: Meta,
    /// `errors` (none when the document is written).
    pub errors: Vec<String>,
    /// `nodes`.
    pub nodes: Vec<Node>,
}

/// One node, as `_dump_node` in openapi/v0.0.38 writes it; each field is
/// the key of the same name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    pub architecture: Option<String>,
    pub burstbuffer_network_address: String,
    pub boards: i64,
    pub boot_time: i64,
    pub comment: String,
    pub cores: i64,
    pub cpu_binding: i64,
    pub cpu_load: i64,
    pub extra: String,
    pub free_memory: i64,
    pub cpus: i64,
    pub last_busy: i64,
    pub features: String,
    pub active_features: String,
    pub gres: String,
    pub gres_drained: String,
    pub gres_used: String,
    pub mcs_label: String,
    pub name: String,
    pub next_state_after_reboot: String,
    pub address: String,
    pub hostname: String,
    pub state: String,
    pub state_flags: Vec<String>,
    pub next_state_after_reboot_flags: Vec<String>,
    pub operating_system: Option<String>,
    pub owner: Option<String>,
    pub partitions: Vec<String>,
    pub port: i64,
    pub real_memory: i64,
    pub reason: String,
    pub reason_changed_at: i64,
    pub reason_set_by_user: Option<String>,
    pub slurmd_start_time: i64,
    pub sockets: i64,
    pub threads: i64,
    pub temporary_disk: i64,
    pub weight: i64,
    pub tres: String,
    pub slurmd_version: Option<String>,
    pub alloc_memory: i64,
    pub alloc_cpus: i64,
    pub idle_cpus: i64,
    pub tres_used: Option<String>,
    pub tres_weighted: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_written_in_slurms_key_order() {
        let text = serde_json::to_string(&Meta::v0038("22.05.8")).expect("serializes");
        assert_eq!(
            text,
            r#"{"plugin":{"type":"openapi/v0.0.38","name":"Slurm OpenAPI v0.0.38"},"Slurm":{"version":{"major":22,"micro":8,"minor":5},"release":"22.05.8"}}"#
        );
    }
}
