//! spur-fuzz: one function per fuzz target, each feeding arbitrary bytes
//! to a parser or decoder that reads what spur does not control (wire
//! frames, the site's configuration files, hostlists, `#SBATCH` lines,
//! TRES and GRES strings, time strings, REST bodies). A target must never
//! panic, hang or allocate without bound; an input is fine whether it is
//! accepted or refused. `tests/corpus.rs` runs every target over its
//! corpus (`corpus/<target>/`); `bench/fuzz` runs them under cargo-fuzz
//! (`cargo-fuzz/`), which adds what it finds to the corpora.

use std::path::Path;

/// A target: it takes any bytes.
pub type Target = fn(&[u8]);

/// Every target: its name (its corpus folder) and its function.
pub const TARGETS: &[(&str, Target)] = &[
    ("frame", frame),
    ("slurm_conf", slurm_conf),
    ("gres_conf", gres_conf),
    ("topology_conf", topology_conf),
    ("hostlist", hostlist),
    ("sbatch_directives", sbatch_directives),
    ("tres_gres", tres_gres),
    ("time_strings", time_strings),
    ("rest_json", rest_json),
];

/// The bytes as text, the way a reader of a text file or argument would
/// get them.
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// A wire frame as the controller, an agent or a step reads it: a length
/// prefix and a bincode payload, as every message type spur decodes.
pub fn frame(data: &[u8]) {
    use spur_proto::frame;
    use spur_proto::{ClientRequest, ClientResponse, FromAgent, FromStep, Hello, ToAgent, ToStep};
    let _ = frame::read_sync::<ClientRequest, _>(&mut &data[..]);
    let _ = frame::decode::<Hello>(data);
    let _ = frame::decode::<ClientRequest>(data);
    let _ = frame::decode::<ClientResponse>(data);
    let _ = frame::decode::<FromAgent>(data);
    let _ = frame::decode::<ToAgent>(data);
    let _ = frame::decode::<FromStep>(data);
    let _ = frame::decode::<ToStep>(data);
}

/// No `Include`d file is read: each names a file that is not there.
fn no_includes(path: &Path) -> std::io::Result<String> {
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        path.display().to_string(),
    ))
}

/// slurm.conf as the daemons and commands read it.
pub fn slurm_conf(data: &[u8]) {
    use spur_conf::{ConfFile, SlurmConf};
    let _ = SlurmConf::parse_with(&text(data), Path::new("slurm.conf"), &mut no_includes);
}

/// gres.conf.
pub fn gres_conf(data: &[u8]) {
    use spur_conf::{ConfFile, GresConf};
    let _ = GresConf::parse_with(&text(data), Path::new("gres.conf"), &mut no_includes);
}

/// topology.conf.
pub fn topology_conf(data: &[u8]) {
    use spur_conf::{ConfFile, TopologyConf};
    let _ = TopologyConf::parse_with(&text(data), Path::new("topology.conf"), &mut no_includes);
}

/// A hostlist expression (`-w`, NodeName=, Nodes=): expanded within its
/// bounds, and what expands compresses and expands again to the same names
/// when no name holds a separator or bracket.
pub fn hostlist(data: &[u8]) {
    use spur_conf::hostlist;
    let expr = text(data);
    let Ok(names) = hostlist::expand(&expr) else {
        return;
    };
    let compressed = hostlist::compress(&names);
    let plain = names
        .iter()
        .all(|n| !n.is_empty() && !n.contains([',', ' ', '[', ']', '\t', '\n', '\r']));
    if plain {
        let again = hostlist::expand(&compressed).expect("a compressed hostlist expands");
        assert_eq!(again, names, "compress then expand of {expr:?}");
    }
}

/// A batch script's `#SBATCH` lines, read as sbatch reads them.
pub fn sbatch_directives(data: &[u8]) {
    let script = text(data);
    let _ = spur_options::script::check(data.to_vec());
    let _ = spur_options::directive::extract("job.sh", &script);
}

/// GRES and GPU counts (`--gres`, `--gpus`), memory sizes and node counts.
pub fn tres_gres(data: &[u8]) {
    let t = text(data);
    let _ = spur_slurm::gres::gres(&t);
    let _ = spur_slurm::gres::gpu_count(&t);
    let _ = spur_conf::parse_memory_mb(&t);
    let _ = spur_conf::parse_count(&t);
    let _ = spur_options::value::memory("--mem", &t);
    let _ = spur_options::value::node_count(&t);
    let _ = spur_options::value::switches(&t);
    let _ = spur_options::value::signal(&t);
}

/// Time strings: limits (`-t`), begin times and deadlines, sacct's
/// windows, slurm.conf's minutes.
pub fn time_strings(data: &[u8]) {
    let t = text(data);
    let now = 1_790_000_000;
    let _ = spur_conf::parse_time_limit(&t);
    let _ = spur_conf::parse_time_minutes(&t);
    let _ = spur_options::value::time("--time", &t);
    let _ = spur_options::begin::parse_begin(&t, now);
    let _ = spur_options::begin::parse_deadline(&t, now);
    let _ = spur_slurm::parse_time::parse_past(&t, now);
    let _ = spur_slurm::parse_time::parse_future(&t, now);
}

/// A REST submission's body: the job description as the data_parser
/// versions and v0.0.38 read it.
pub fn rest_json(data: &[u8]) {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let job = body.get("job").unwrap_or(&body);
    let _ = spur_rest::dp::desc::read(job, "job");
    let _ = spur_rest::v0038::props::read(job);
}
