//! GPU discovery behind a trait: NVML on real hardware when gres.conf says
//! `AutoDetect=nvml` (see [`super::nvml`]), the configured count for
//! emulated nodes, tests, and when NVML fails. Which one a node uses is
//! decided once, when the agent starts ([`select_discovery`]).

use tracing::{info, warn};

use spur_conf::AutoDetect;

use super::nvml::{self, NvmlError, NvmlGpus};

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
    /// none, so that slurm.conf's `Gres=` applies. With `AutoDetect=nvml`
    /// these are what the agent falls back to when NVML fails
    /// ([`select_discovery`]).
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

/// Whether gres.conf has node `node` find its GPUs through NVML
/// (`AutoDetect=nvml`, or `full`: NVML is the only mechanism spur has).
pub fn uses_nvml(gres: &spur_conf::GresConf, node: &str) -> bool {
    matches!(
        gres.auto_detect_for(node),
        Some(AutoDetect::Nvml | AutoDetect::Full)
    )
}

/// How node `node` finds its GPUs, given gres.conf and `configured` (what
/// gres.conf and slurm.conf say it has). With the `AutoDetect` in force on
/// the node `nvml` (or `full`: NVML is the only mechanism spur has), NVML,
/// unless it cannot be loaded or fails: then a warning and `configured`,
/// as Slurm's slurmd falls back to gres.conf when its gpu plugin fails.
/// Other mechanisms (`rsmi`, `oneapi`, ...) warn and keep `configured`.
/// Loading NVML blocks for as long as it takes to initialise (seconds on
/// a big node); it happens once, before the agent first connects.
pub fn select_discovery(
    gres: &spur_conf::GresConf,
    node: &str,
    configured: Box<dyn GpuDiscovery>,
) -> Box<dyn GpuDiscovery> {
    select_discovery_with(gres, node, configured, NvmlGpus::load)
}

/// [`select_discovery`], loading NVML with `load`.
fn select_discovery_with(
    gres: &spur_conf::GresConf,
    node: &str,
    configured: Box<dyn GpuDiscovery>,
    load: impl FnOnce() -> Result<NvmlGpus, NvmlError>,
) -> Box<dyn GpuDiscovery> {
    match gres.auto_detect_for(node) {
        None | Some(AutoDetect::Off) => configured,
        Some(AutoDetect::Nvml | AutoDetect::Full) => match load() {
            Ok(found) => {
                on_nvml_found(&found, node, configured.discover().len());
                Box::new(found)
            }
            Err(error) => {
                warn!(
                    node,
                    %error,
                    library = nvml::DEFAULT_LIBRARY,
                    "AutoDetect=nvml: NVML discovery failed; using the configured GPUs"
                );
                configured
            }
        },
        Some(other) => {
            let auto_detect = format!("{other:?}").to_ascii_lowercase();
            warn!(
                node,
                auto_detect, "only AutoDetect=nvml is supported; using the configured GPUs"
            );
            configured
        }
    }
}

/// Logs what NVML found, and whether it is what the configuration says.
fn on_nvml_found(found: &NvmlGpus, node: &str, configured: usize) {
    for gpu in found.gpus() {
        info!(
            node,
            index = gpu.index,
            name = %gpu.name,
            device = %gpu.device_file(),
            "NVML found a GPU"
        );
    }
    if found.gpus().len() != configured {
        warn!(
            node,
            found = found.gpus().len(),
            configured,
            "NVML found a different number of GPUs than the configuration gives"
        );
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

    fn gres(text: &str) -> spur_conf::GresConf {
        spur_conf::GresConf::parse(text, std::path::Path::new("gres.conf"))
            .expect("parses")
            .value
    }

    fn four_gb200s() -> Box<dyn GpuDiscovery> {
        Box::new(ConfiguredGpus {
            count: 4,
            type_name: Some("gb200".into()),
        })
    }

    #[test]
    fn autodetect_nvml_uses_what_nvml_finds() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lib = nvml::tests::fake_nvml(dir.path(), &[]);
        let gres = gres("AutoDetect=nvml\nName=gpu Type=gb200 Count=4\n");
        let gpus = select_discovery_with(&gres, "gb001", four_gb200s(), || {
            NvmlGpus::load_from(lib.as_os_str())
        });
        let h200 = Some("h200".to_string());
        assert_eq!(gpus.discover(), [(0, h200.clone()), (1, h200)]);
    }

    #[test]
    fn autodetect_nvml_falls_back_to_the_configured_gpus_when_nvml_fails() {
        let dir = tempfile::tempdir().expect("temp dir");
        let failing = nvml::tests::fake_nvml(dir.path(), &["FAKE_INIT_FAILS"]);
        let missing = dir.path().join("libnvidia-ml.so.1");
        let gres = gres("AutoDetect=nvml\n");
        for lib in [failing, missing] {
            let gpus = select_discovery_with(&gres, "gb001", four_gb200s(), || {
                NvmlGpus::load_from(lib.as_os_str())
            });
            assert_eq!(
                gpus.discover(),
                four_gb200s().discover(),
                "{}",
                lib.display()
            );
        }
    }

    #[test]
    fn the_nodes_own_autodetect_decides_and_only_nvml_loads_nvml() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lib = nvml::tests::fake_nvml(dir.path(), &[]);
        let gres = gres(
            "AutoDetect=off\nNodeName=gb001 AutoDetect=nvml\n\
             NodeName=gb002 AutoDetect=rsmi\nNodeName=gb003 AutoDetect=oneapi\n",
        );
        let gpus = select_discovery_with(&gres, "gb001", four_gb200s(), || {
            NvmlGpus::load_from(lib.as_os_str())
        });
        assert_eq!(gpus.discover().len(), 2);
        for node in ["gb002", "gb003", "gb004"] {
            let gpus = select_discovery_with(&gres, node, four_gb200s(), || {
                panic!("{node} must not load NVML")
            });
            assert_eq!(gpus.discover(), four_gb200s().discover(), "{node}");
        }
        let gpus = select_discovery_with(
            &spur_conf::GresConf::default(),
            "gb001",
            four_gb200s(),
            || panic!("no AutoDetect must not load NVML"),
        );
        assert_eq!(gpus.discover().len(), 4);
    }
}
