//! The JSON documents of Slurm 22.05's OpenAPI v0.0.38 (slurmrestd's
//! `openapi/v0.0.38`, which `sinfo --json` and `squeue --json` print too, and
//! `openapi/dbv0.0.38`, which `sacct --json` prints), as typed shapes:
//! each struct's fields in the order Slurm writes its keys, so that serde's
//! pretty printer gives Slurm's text. Values, not I/O: a front end fills
//! them from what the controller sent. `meta` is common to both; each
//! plugin's documents are in their own module.

use serde::Serialize;

pub mod dbv0038;
pub mod v0038;

/// A document as Slurm writes it: pretty JSON, two spaces a level, and a
/// newline at the end.
pub fn document_text(doc: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(doc).expect("plain data serializes");
    text.push('\n');
    text
}

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
        Meta::new("openapi/v0.0.38", "Slurm OpenAPI v0.0.38", release)
    }

    /// The `meta` of a dbv0.0.38 (slurmdbd) document.
    pub fn dbv0038(release: &str) -> Meta {
        Meta::new("openapi/dbv0.0.38", "Slurm OpenAPI DB v0.0.38", release)
    }

    fn new(kind: &str, name: &str, release: &str) -> Meta {
        let mut parts = release.split('.').map(|p| p.parse::<i64>().unwrap_or(0));
        let mut next = || parts.next().unwrap_or(0);
        let (major, minor, micro) = (next(), next(), next());
        Meta {
            plugin: Plugin {
                kind: kind.into(),
                name: name.into(),
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
