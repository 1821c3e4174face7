//! spur-conf: Slurm's configuration files (slurm.conf, topology.conf,
//! gres.conf, cgroup.conf's memory keys, and slurmdbd.conf's retention
//! keys) and spur's own spur.conf read into typed structs, Slurm hostlists, and numbers as Slurm's C
//! code reads them (`number`, which spur-slurm re-exports). Pure parsing plus `load` functions that read files;
//! no daemon or scheduling logic.

pub mod cgroup_conf;
mod error;
mod file;
pub mod gres_conf;
pub mod hostlist;
mod line;
pub mod number;
pub mod slurm_conf;
pub mod slurmdbd_conf;
pub mod spur_conf;
pub mod topology_conf;
mod value;

pub use cgroup_conf::{CgroupConf, CgroupPlugin, MemoryLimits};
pub use error::{BlockSizesProblem, ConfError, ErrorKind, Origin, Parsed, Warning};
pub use file::ConfFile;
pub use gres_conf::{AutoDetect, GresConf, GresLine};
pub use hostlist::{HostlistError, HostlistProblem};
pub use slurm_conf::{slurm_conf_path, NodeConf, PartitionConf, PrivateData, SlurmConf};
pub use slurmdbd_conf::{PurgeAfter, PurgeUnit, SlurmdbdConf};
pub use spur_conf::{MeshBackend, MeshConf, MeshTraffic, SpurConf};
pub use topology_conf::{BlockConf, SwitchConf, TopologyConf};
pub use value::{
    comma_list, parse_bool, parse_count, parse_memory_mb, parse_time_limit, parse_time_minutes,
    MemoryFormatError, TimeFormatError, MAX_TIME_LIMIT_SECS,
};
