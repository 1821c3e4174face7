//! GPU requests as every front end gives them: `--gpus`,
//! `--gpus-per-node` and `--gpus-per-task` as `[type:]count`, and `--gres`
//! lists (also REST's and libslurm's `tres_per_node`), of which spur knows
//! the `gpu` GRES only; anything else is Slurm's "Invalid generic resource
//! (gres) specification", as on a cluster without that GRES.

/// Why a GPU request cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum GresError {
    /// Malformed, or a GRES other than `gpu` (ESLURM_INVALID_GRES).
    #[error("Invalid generic resource (gres) specification")]
    Invalid,
    /// Entries naming two GPU types: spur keeps one GPU type per job.
    #[error("GPU requests naming more than one GPU type are not supported yet")]
    GpuTypes,
}

/// One GPU request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuSpec {
    /// The GPU type (`a100`), if one was named.
    pub gpu_type: Option<String>,
    /// How many.
    pub count: u32,
}

/// A job's GPUs from its three requests (`--gpus`, `--gpus-per-node` or
/// `--gres`, `--gpus-per-task`): the counts given, zero counts dropped, and
/// the one GPU type they name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GpuRequest {
    /// The GPU type, if one was named.
    pub gpu_type: Option<String>,
    /// For the whole job.
    pub per_job: Option<u32>,
    /// Per node.
    pub per_node: Option<u32>,
    /// Per task.
    pub per_task: Option<u32>,
}

impl GpuRequest {
    /// Combines the requests; requests naming two GPU types are refused.
    pub fn of(
        per_job: Option<GpuSpec>,
        per_node: Option<GpuSpec>,
        per_task: Option<GpuSpec>,
    ) -> Result<GpuRequest, GresError> {
        let mut types: Vec<&String> = [&per_job, &per_node, &per_task]
            .into_iter()
            .flatten()
            .filter_map(|s| s.gpu_type.as_ref())
            .collect();
        types.dedup();
        if types.len() > 1 {
            return Err(GresError::GpuTypes);
        }
        let count = |s: &Option<GpuSpec>| s.as_ref().map(|s| s.count).filter(|&n| n > 0);
        Ok(GpuRequest {
            gpu_type: types.first().map(|t| t.to_string()),
            per_job: count(&per_job),
            per_node: count(&per_node),
            per_task: count(&per_task),
        })
    }
}

/// A GRES count: a number with an optional k/m/g suffix (x1024 each).
fn count(text: &str) -> Option<u32> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = text[..digits].parse().ok()?;
    let scale: u64 = match &text[digits..] {
        "" => 1,
        "k" | "K" => 1 << 10,
        "m" | "M" => 1 << 20,
        "g" | "G" => 1 << 30,
        _ => return None,
    };
    u32::try_from(n.checked_mul(scale)?).ok()
}

/// `[type:]count`, or a bare type meaning one GPU of it.
pub fn gpu_count(text: &str) -> Result<GpuSpec, GresError> {
    let text = text.strip_prefix("gpu:").unwrap_or(text);
    let spec = match text.rsplit_once(':') {
        Some((t, n)) => GpuSpec {
            gpu_type: Some(t.to_string()).filter(|t| !t.is_empty()),
            count: count(n).ok_or(GresError::Invalid)?,
        },
        None => match count(text) {
            Some(n) => GpuSpec {
                gpu_type: None,
                count: n,
            },
            None if !text.is_empty() => GpuSpec {
                gpu_type: Some(text.to_string()),
                count: 1,
            },
            None => return Err(GresError::Invalid),
        },
    };
    Ok(spec)
}

/// `--gres=name[[:type]:count][,...]`: the GPU request in it (None for
/// `none` or a list without one). Several GPU entries are refused: spur
/// keeps one GPU type per job.
pub fn gres(text: &str) -> Result<Option<GpuSpec>, GresError> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let mut found = None;
    for entry in text.split(',') {
        // "gpu:2(S:0-1)": the socket binding is not a count.
        let entry = entry.split('(').next().unwrap_or(entry);
        let entry = entry.strip_prefix("gres/").unwrap_or(entry);
        let (name, rest) = entry.split_once(':').unwrap_or((entry, ""));
        if !name.eq_ignore_ascii_case("gpu") {
            return Err(GresError::Invalid);
        }
        let spec = if rest.is_empty() {
            GpuSpec {
                gpu_type: None,
                count: 1,
            }
        } else {
            gpu_count(rest)?
        };
        if found.replace(spec).is_some() {
            return Err(GresError::GpuTypes);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(t: Option<&str>, n: u32) -> GpuSpec {
        GpuSpec {
            gpu_type: t.map(str::to_string),
            count: n,
        }
    }

    #[test]
    fn gpu_counts_with_and_without_type() {
        assert_eq!(gpu_count("4").unwrap(), spec(None, 4));
        assert_eq!(gpu_count("a100:4").unwrap(), spec(Some("a100"), 4));
        assert_eq!(gpu_count("h100").unwrap(), spec(Some("h100"), 1));
        assert_eq!(gpu_count("1g.10gb:2").unwrap(), spec(Some("1g.10gb"), 2));
        assert!(gpu_count("a100:x").is_err());
        assert!(gpu_count("").is_err());
    }

    #[test]
    fn gres_lists_know_only_gpus() {
        assert_eq!(gres("gpu:4").unwrap(), Some(spec(None, 4)));
        assert_eq!(gres("gpu").unwrap(), Some(spec(None, 1)));
        assert_eq!(gres("gpu:a100:2").unwrap(), Some(spec(Some("a100"), 2)));
        assert_eq!(gres("gres/gpu:2(S:0-1)").unwrap(), Some(spec(None, 2)));
        assert_eq!(gres("none").unwrap(), None);
        let err = gres("nic:1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid generic resource (gres) specification"
        );
        assert!(matches!(gres("gpu:1,nic:1"), Err(GresError::Invalid)));
        assert!(matches!(
            gres("gpu:a100:1,gpu:h100:1"),
            Err(GresError::GpuTypes)
        ));
    }
}
