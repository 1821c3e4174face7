//! GPU discovery behind a trait: NVML on real hardware (a later `nvml`
//! feature), the configured count for emulated nodes and tests.

/// Finds a node's GPUs.
pub trait GpuDiscovery: Send + Sync {
    /// GPU indices and their type, lowest index first.
    fn discover(&self) -> Vec<(u32, Option<String>)>;
}

/// The GPUs slurm.conf (Gres=gpu[:type]:N) and gres.conf say the node has;
/// what an emulated node reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredGpus {
    /// How many.
    pub count: u32,
    /// Their type.
    pub type_name: Option<String>,
}

impl ConfiguredGpus {
    /// The GPUs gres.conf gives node `node` (lines with `Name=gpu` whose
    /// NodeName includes it, or that name no node); None when it gives
    /// none, so that slurm.conf's `Gres=` applies. AutoDetect=nvml needs
    /// NVML, which this build does not have: the configured count is used.
    pub fn from_gres_conf(gres: &spur_conf::GresConf, node: &str) -> Option<ConfiguredGpus> {
        let lines: Vec<&spur_conf::GresLine> = gres
            .lines
            .iter()
            .filter(|l| l.name.as_deref() == Some("gpu"))
            .filter(|l| l.nodes.as_ref().is_none_or(|n| n.iter().any(|n| n == node)))
            .collect();
        if lines.is_empty() {
            return None;
        }
        Some(ConfiguredGpus {
            count: lines.iter().map(|l| l.count() as u32).sum(),
            type_name: lines.iter().find_map(|l| l.type_name.clone()),
        })
    }
}

impl GpuDiscovery for ConfiguredGpus {
    fn discover(&self) -> Vec<(u32, Option<String>)> {
        (0..self.count)
            .map(|i| (i, self.type_name.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use spur_conf::ConfFile;

    use super::*;

    #[test]
    fn gres_conf_lines_for_the_node_give_its_gpus() {
        let text = "NodeName=gb[001-002] Name=gpu Type=gb200 File=/dev/nvidia[0-3]\n\
                    NodeName=gb003 Name=gpu Count=2\nName=nic Count=1\n";
        let gres = spur_conf::GresConf::parse(text, std::path::Path::new("gres.conf"))
            .expect("parses")
            .value;
        assert_eq!(
            ConfiguredGpus::from_gres_conf(&gres, "gb002"),
            Some(ConfiguredGpus {
                count: 4,
                type_name: Some("gb200".into())
            })
        );
        assert_eq!(
            ConfiguredGpus::from_gres_conf(&gres, "gb003").map(|g| g.count),
            Some(2)
        );
        assert_eq!(ConfiguredGpus::from_gres_conf(&gres, "gb004"), None);
        let gpus = ConfiguredGpus::from_gres_conf(&gres, "gb001").expect("has gpus");
        assert_eq!(gpus.discover().len(), 4);
    }
}
