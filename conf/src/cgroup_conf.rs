//! cgroup.conf, read for what spur's agents act on: which cgroup version
//! to use, where the hierarchies are mounted, and whether (and how far) a
//! job's memory is confined (`ConstrainRAMSpace`, `ConstrainSwapSpace` and
//! their percentages). The agent confines memory only when slurm.conf's
//! `TaskPlugin` names `task/cgroup` too, as slurmd does. Keys that ask for
//! confinement spur does not do (cores, devices, kernel memory) are kept
//! and warned about; a value Slurm would reject is an error, as it is
//! fatal to slurmd.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{ConfError, ErrorKind, Parsed, Warning};
use crate::file::ConfFile;
use crate::line::{self, Loader, Pair};
use crate::value::parse_bool;

/// `CgroupPlugin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CgroupPlugin {
    /// `autodetect` (the default): v2 where the unified hierarchy holds the
    /// memory controller, else v1.
    #[default]
    Autodetect,
    /// `cgroup/v1`.
    V1,
    /// `cgroup/v2`.
    V2,
}

/// The part of cgroup.conf spur reads, with Slurm 22.05's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CgroupConf {
    /// `CgroupPlugin`.
    pub plugin: CgroupPlugin,
    /// `CgroupMountpoint` (`/sys/fs/cgroup`).
    pub mountpoint: PathBuf,
    /// `ConstrainRAMSpace`: confine each job's memory to what it was given.
    pub constrain_ram_space: bool,
    /// `AllowedRAMSpace`: the share of its allocation a job may use, in
    /// percent (100).
    pub allowed_ram_space: f64,
    /// `MaxRAMPercent`: the most of a node's memory one job may use, in
    /// percent (100).
    pub max_ram_percent: f64,
    /// `MinRAMSpace`: the least memory a job is confined to, in MiB (30).
    pub min_ram_space: u64,
    /// `ConstrainSwapSpace`: confine memory plus swap too.
    pub constrain_swap_space: bool,
    /// `AllowedSwapSpace`: swap beyond the allocation, in percent of it (0).
    pub allowed_swap_space: f64,
    /// `MaxSwapPercent`: the most of a node's memory one job's swap
    /// allowance may be, in percent (100).
    pub max_swap_percent: f64,
    /// `MemorySwappiness` (v1 only; None: the kernel's).
    pub memory_swappiness: Option<u64>,
}

impl Default for CgroupConf {
    fn default() -> Self {
        CgroupConf {
            plugin: CgroupPlugin::Autodetect,
            mountpoint: PathBuf::from("/sys/fs/cgroup"),
            constrain_ram_space: false,
            allowed_ram_space: 100.0,
            max_ram_percent: 100.0,
            min_ram_space: 30,
            constrain_swap_space: false,
            allowed_swap_space: 0.0,
            max_swap_percent: 100.0,
            memory_swappiness: None,
        }
    }
}

/// What a job's memory is confined to on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryLimits {
    /// The hard limit on memory, in bytes.
    pub ram: u64,
    /// The soft limit (v1 `memory.soft_limit_in_bytes`), in bytes: the
    /// allocation itself.
    pub soft: u64,
    /// The limit on memory plus swap, in bytes, when swap is confined.
    pub ram_and_swap: Option<u64>,
}

impl CgroupConf {
    /// The cgroup.conf that sits beside `slurm_conf`, as Slurm keeps them.
    pub fn path_beside(slurm_conf: &Path) -> PathBuf {
        slurm_conf
            .parent()
            .unwrap_or(Path::new("."))
            .join("cgroup.conf")
    }

    /// The limits for a job given `allocated_mib` on a node of
    /// `node_mib`, as task/cgroup computes them: the allocation scaled by
    /// AllowedRAMSpace (an allocation of 0, no memory counted, is the
    /// node's whole memory), raised to MinRAMSpace, then held to
    /// MaxRAMPercent of the node. Swap, when confined, adds
    /// AllowedSwapSpace of the allocation, the sum held to MaxRAMPercent
    /// plus MaxSwapPercent of the node.
    pub fn memory_limits(&self, allocated_mib: u64, node_mib: u64) -> MemoryLimits {
        const MIB: u64 = 1024 * 1024;
        let percent = |of: u64, p: f64| (of as f64 * p / 100.0) as u64;
        let node = node_mib.saturating_mul(MIB);
        let alloc = allocated_mib.saturating_mul(MIB);
        let min = self.min_ram_space.saturating_mul(MIB);
        let bound = |v: u64, max: u64| if v < min { min } else { v.min(max) };
        let max_ram = percent(node, self.max_ram_percent);
        let (ram, soft) = if alloc == 0 {
            (node, node)
        } else {
            (percent(alloc, self.allowed_ram_space), alloc)
        };
        let ram = bound(ram, max_ram);
        let ram_and_swap = self.constrain_swap_space.then(|| {
            let swap = percent(
                if alloc == 0 { node } else { alloc },
                self.allowed_swap_space,
            );
            bound(ram + swap, max_ram + percent(node, self.max_swap_percent))
        });
        MemoryLimits {
            ram,
            soft: bound(soft, max_ram),
            ram_and_swap,
        }
    }
}

impl ConfFile for CgroupConf {
    fn parse_with(
        text: &str,
        file: &Path,
        loader: &mut dyn FnMut(&Path) -> io::Result<String>,
    ) -> Result<Parsed<Self>, ConfError> {
        let loader: &mut Loader<'_> = loader;
        let mut warnings = Vec::new();
        let lines = line::read_lines(text, file, loader, &mut warnings)?;
        let mut conf = CgroupConf::default();
        for l in &lines {
            for pair in &l.pairs {
                let bad = || {
                    ConfError::at(
                        &l.origin,
                        ErrorKind::InvalidValue {
                            key: pair.key.clone(),
                            value: pair.value.clone(),
                        },
                    )
                };
                match read_pair(&mut conf, pair) {
                    Read::Used => {}
                    Read::Bad => return Err(bad()),
                    Read::NotDone(what) => warnings.push(Warning::at(
                        &l.origin,
                        format!("{}={}: spur does not {what}", pair.key, pair.value),
                    )),
                    Read::Unknown => {
                        warnings.push(Warning::at(&l.origin, format!("unknown key {}", pair.key)))
                    }
                }
            }
        }
        Ok(Parsed {
            value: conf,
            warnings,
        })
    }
}

/// What became of one pair.
enum Read {
    Used,
    Bad,
    /// A real key asking for what spur does not do.
    NotDone(&'static str),
    Unknown,
}

fn read_pair(conf: &mut CgroupConf, pair: &Pair) -> Read {
    let v = pair.value.as_str();
    let flag = |slot: &mut bool| match parse_bool(v) {
        Some(b) => {
            *slot = b;
            Read::Used
        }
        None => Read::Bad,
    };
    let percent = |slot: &mut f64| match v.trim().parse::<f64>() {
        Ok(p) if p >= 0.0 && p.is_finite() => {
            *slot = p;
            Read::Used
        }
        _ => Read::Bad,
    };
    let key = |k: &str| pair.is(k);
    if key("CgroupPlugin") {
        conf.plugin = match v {
            "autodetect" => CgroupPlugin::Autodetect,
            "cgroup/v1" => CgroupPlugin::V1,
            "cgroup/v2" => CgroupPlugin::V2,
            _ => return Read::Bad,
        };
        Read::Used
    } else if key("CgroupMountpoint") {
        conf.mountpoint = PathBuf::from(v.trim_end_matches('/'));
        Read::Used
    } else if key("ConstrainRAMSpace") {
        flag(&mut conf.constrain_ram_space)
    } else if key("AllowedRAMSpace") {
        percent(&mut conf.allowed_ram_space)
    } else if key("MaxRAMPercent") {
        percent(&mut conf.max_ram_percent)
    } else if key("MinRAMSpace") {
        match v.trim().parse() {
            Ok(n) => {
                conf.min_ram_space = n;
                Read::Used
            }
            Err(_) => Read::Bad,
        }
    } else if key("ConstrainSwapSpace") {
        flag(&mut conf.constrain_swap_space)
    } else if key("AllowedSwapSpace") {
        percent(&mut conf.allowed_swap_space)
    } else if key("MaxSwapPercent") {
        percent(&mut conf.max_swap_percent)
    } else if key("MemorySwappiness") {
        match v.trim().parse() {
            Ok(n) if n <= 100 => {
                conf.memory_swappiness = Some(n);
                Read::Used
            }
            _ => Read::Bad,
        }
    } else if key("ConstrainCores") || key("ConstrainDevices") || key("ConstrainKmemSpace") {
        match parse_bool(v) {
            Some(false) => Read::Used,
            Some(true) => Read::NotDone(
                "confine cores, devices or kernel memory with cgroups; \
                 jobs see their GPUs through CUDA_VISIBLE_DEVICES only",
            ),
            None => Read::Bad,
        }
    } else if key("CgroupAutomount")
        || key("CgroupReleaseAgentDir")
        || key("IgnoreSystemd")
        || key("IgnoreSystemdOnFailure")
    {
        // Mounting and systemd scopes: spur uses the hierarchies mounted
        // and never asks systemd for a scope, whatever these say.
        Read::Used
    } else if key("AllowedKmemSpace")
        || key("MaxKmemPercent")
        || key("MinKmemSpace")
        || key("AllowedDevicesFile")
        || key("MemoryLimitEnforcement")
        || key("MemoryLimitThreshold")
    {
        Read::NotDone("act on it")
    } else {
        Read::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Parsed<CgroupConf>, ConfError> {
        CgroupConf::parse(text, Path::new("/etc/slurm/cgroup.conf"))
    }

    #[test]
    fn no_file_means_slurms_defaults() {
        let parsed = parse("").expect("parses");
        assert_eq!(parsed.value, CgroupConf::default());
        assert!(!parsed.value.constrain_ram_space);
        assert_eq!(parsed.value.min_ram_space, 30);
    }

    #[test]
    fn memory_keys_are_read_in_any_case() {
        let parsed = parse(
            "CgroupPlugin=cgroup/v2\nconstrainramspace=yes\nAllowedRAMSpace=110.5\n\
             MaxRAMPercent=90 MinRAMSpace=64\nConstrainSwapSpace=true AllowedSwapSpace=20\n\
             CgroupMountpoint=/cg/\nMemorySwappiness=10\nConstrainCores=no\nIgnoreSystemd=yes\n",
        )
        .expect("parses");
        let c = parsed.value;
        assert_eq!(c.plugin, CgroupPlugin::V2);
        assert!(c.constrain_ram_space && c.constrain_swap_space);
        assert_eq!(
            (c.allowed_ram_space, c.max_ram_percent, c.min_ram_space),
            (110.5, 90.0, 64)
        );
        assert_eq!(c.allowed_swap_space, 20.0);
        assert_eq!(c.mountpoint, PathBuf::from("/cg"));
        assert_eq!(c.memory_swappiness, Some(10));
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    }

    #[test]
    fn confinement_spur_does_not_do_warns_and_bad_values_are_errors() {
        let parsed =
            parse("ConstrainDevices=yes\nMaxKmemPercent=50\nNoSuchKey=1\n").expect("parses");
        let lines: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].starts_with("/etc/slurm/cgroup.conf:1: ConstrainDevices=yes: spur does not")
        );
        assert!(lines[1].contains("MaxKmemPercent=50: spur does not act on it"));
        assert!(lines[2].ends_with("unknown key NoSuchKey"));
        for bad in [
            "ConstrainRAMSpace=maybe",
            "AllowedRAMSpace=-1",
            "CgroupPlugin=cgroup/v3",
            "MinRAMSpace=lots",
        ] {
            let e = parse(bad).expect_err(bad).to_string();
            assert!(
                e.starts_with("/etc/slurm/cgroup.conf:1: invalid value"),
                "{e}"
            );
        }
    }

    #[test]
    fn limits_follow_task_cgroup() {
        const MIB: u64 = 1024 * 1024;
        let mut c = CgroupConf::default();
        // The allocation, within the node.
        let l = c.memory_limits(2000, 8000);
        assert_eq!(
            (l.ram, l.soft, l.ram_and_swap),
            (2000 * MIB, 2000 * MIB, None)
        );
        // Nothing counted: the whole node.
        assert_eq!(c.memory_limits(0, 8000).ram, 8000 * MIB);
        // Never under MinRAMSpace.
        assert_eq!(c.memory_limits(1, 8000).ram, 30 * MIB);
        c.allowed_ram_space = 150.0;
        c.max_ram_percent = 50.0;
        assert_eq!(c.memory_limits(2000, 8000).ram, 3000 * MIB);
        assert_eq!(c.memory_limits(3000, 8000).ram, 4000 * MIB);
        c.constrain_swap_space = true;
        c.allowed_swap_space = 10.0;
        assert_eq!(
            c.memory_limits(2000, 8000).ram_and_swap,
            Some(3000 * MIB + 200 * MIB)
        );
        // Memory and swap together stay within MaxRAMPercent plus
        // MaxSwapPercent of the node: 4000 + 400 MiB here.
        c.allowed_swap_space = 100.0;
        c.max_swap_percent = 5.0;
        assert_eq!(c.memory_limits(2000, 8000).ram_and_swap, Some(4400 * MIB));
        c.max_swap_percent = 40.0;
        assert_eq!(c.memory_limits(2000, 8000).ram_and_swap, Some(5000 * MIB));
    }
}
