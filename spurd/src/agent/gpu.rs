//! GPU discovery behind a trait: NVML on real hardware (a later `nvml`
//! feature), the configured count for emulated nodes and tests.

/// Finds a node's GPUs.
pub trait GpuDiscovery: Send + Sync {
    /// GPU indices and their type, lowest index first.
    fn discover(&self) -> Vec<(u32, Option<String>)>;
}

/// The GPUs slurm.conf (Gres=gpu[:type]:N) and gres.conf say the node has;
/// what an emulated node reports.
#[derive(Debug, Clone)]
pub struct ConfiguredGpus {
    /// How many.
    pub count: u32,
    /// Their type.
    pub type_name: Option<String>,
}

impl GpuDiscovery for ConfiguredGpus {
    fn discover(&self) -> Vec<(u32, Option<String>)> {
        (0..self.count)
            .map(|i| (i, self.type_name.clone()))
            .collect()
    }
}
