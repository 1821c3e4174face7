//! This host's processors and memory as `slurmd -C` reports them: CPUs,
//! sockets, cores per socket and threads per core from the kernel's CPU
//! topology in sysfs, memory from /proc/meminfo, and the time since boot.

use std::collections::BTreeSet;
use std::path::Path;

/// The host's hardware, in slurm.conf's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hardware {
    /// Logical CPUs online.
    pub cpus: u32,
    /// Boards (always 1: Linux shows none).
    pub boards: u32,
    /// Sockets (physical packages).
    pub sockets: u32,
    /// Cores per socket.
    pub cores_per_socket: u32,
    /// Hardware threads per core.
    pub threads_per_core: u32,
    /// Memory in MiB.
    pub real_memory_mb: u64,
}

/// One logical CPU's place: (package, core).
type Place = (u32, u32);

impl Hardware {
    /// This host's, read from /sys and /proc.
    pub fn detect() -> Hardware {
        let places = cpu_places(Path::new("/sys/devices/system/cpu"));
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        Hardware::of(&places, mem_total_mb(&meminfo))
    }

    /// The hardware of logical CPUs at `places` with `real_memory_mb`. With
    /// no topology (a container hiding sysfs), every CPU is a core of one
    /// socket, from what the scheduler lets this process run on.
    pub fn of(places: &[Place], real_memory_mb: u64) -> Hardware {
        if places.is_empty() {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            return Hardware {
                cpus,
                boards: 1,
                sockets: 1,
                cores_per_socket: cpus,
                threads_per_core: 1,
                real_memory_mb,
            };
        }
        let cpus = places.len() as u32;
        let sockets = places.iter().map(|p| p.0).collect::<BTreeSet<_>>().len() as u32;
        let cores = places.iter().collect::<BTreeSet<_>>().len() as u32;
        Hardware {
            cpus,
            boards: 1,
            sockets,
            cores_per_socket: cores / sockets.max(1),
            threads_per_core: cpus / cores.max(1),
            real_memory_mb,
        }
    }
}

/// Each online logical CPU's (package, core), from sysfs's topology.
fn cpu_places(sys_cpu: &Path) -> Vec<Place> {
    let online = std::fs::read_to_string(sys_cpu.join("online")).unwrap_or_default();
    let mut places = Vec::new();
    for cpu in cpu_list(online.trim()) {
        let topo = sys_cpu.join(format!("cpu{cpu}/topology"));
        let read = |name: &str| -> Option<u32> {
            std::fs::read_to_string(topo.join(name))
                .ok()?
                .trim()
                .parse::<i64>()
                .ok()
                .map(|v| v.max(0) as u32)
        };
        if let (Some(package), Some(core)) = (read("physical_package_id"), read("core_id")) {
            places.push((package, core));
        }
    }
    places
}

/// A kernel CPU list (`0-3,8,10-11`) as its numbers.
pub fn cpu_list(text: &str) -> Vec<u32> {
    let mut cpus = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    cpus.extend(a..=b);
                }
            }
            None => cpus.extend(part.parse::<u32>().ok()),
        }
    }
    cpus
}

/// MemTotal of /proc/meminfo in MiB (0 if missing).
pub fn mem_total_mb(meminfo: &str) -> u64 {
    meminfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("MemTotal:")?
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib / 1024)
}

/// Seconds since boot (/proc/uptime).
pub fn uptime_secs() -> u64 {
    std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0, |s| s as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topology_counts_sockets_cores_and_threads() {
        // Two sockets of two cores with two threads each.
        let places = [
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
        ];
        assert_eq!(
            Hardware::of(&places, 15_885),
            Hardware {
                cpus: 8,
                boards: 1,
                sockets: 2,
                cores_per_socket: 2,
                threads_per_core: 2,
                real_memory_mb: 15_885
            }
        );
        assert_eq!(cpu_list("0-3,8,10-11"), [0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(cpu_list(""), Vec::<u32>::new());
        assert_eq!(
            mem_total_mb("MemTotal:       16266564 kB\nMemFree: 1 kB\n"),
            15_885
        );
    }

    #[test]
    fn this_host_has_at_least_one_cpu_and_some_memory() {
        let hw = Hardware::detect();
        assert!(hw.cpus >= 1 && hw.sockets >= 1, "{hw:?}");
        assert_eq!(
            hw.sockets * hw.cores_per_socket * hw.threads_per_core,
            hw.cpus,
            "{hw:?}"
        );
        assert!(hw.real_memory_mb > 0);
    }
}
