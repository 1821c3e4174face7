//! `scontrol show <entity>`: asks the controller (or slurm.conf and
//! topology.conf, or nothing for hostlists) and writes Slurm's text into the
//! session, with Slurm's messages for unknown ids and unreachable
//! controllers (`_show_it`, `scontrol_print_job`, `scontrol_print_node`).

use spur_conf::{ConfFile, TopologyConf};
use spur_proto::{JobFields, JobInfo};

use super::args::abbrev;
use super::config::{render_topology, topology_records};
use super::session::Session;
use super::{act, args};
use crate::controller::Api;
use spur_report::show::config::render_config;
use spur_report::show::job::render_job;
use spur_report::show::node::{render_node, render_partition, NodeView};
use spur_slurm::job_ref::task_ids;

/// `show <entity> [<id>]` (`words[0]` is `show`).
pub fn show(s: &mut Session<'_>, words: &[String]) {
    let keyword = &words[0];
    if words.len() < 2 {
        s.fail(&format!("too few arguments for keyword:{keyword}\n"));
        return;
    }
    if words.len() > 3 {
        s.fail(&format!("too many arguments for keyword:{keyword}\n"));
        return;
    }
    let (tag, val) = match words[1].split_once('=') {
        Some((t, v)) => (t, Some(v.to_string())),
        None => (words[1].as_str(), words.get(2).cloned()),
    };
    let val = val.as_deref();
    let entity = ENTITIES
        .iter()
        .find(|(name, min, _)| abbrev(tag, name, *min))
        .map(|(_, _, e)| *e);
    match entity {
        Some(Entity::Config) => show_config(s),
        Some(Entity::Hostnames) => show_hostnames(s, val),
        Some(Entity::Hostlist) => show_hostlist(s, val, false),
        Some(Entity::HostlistSorted) => show_hostlist(s, val, true),
        Some(Entity::Job) => show_job(s, val),
        Some(Entity::Node) => show_node(s, val),
        Some(Entity::Partition) => show_partition(s, val),
        Some(Entity::Reservation) => s.out.push_str("No reservations in the system\n"),
        Some(Entity::Step) => super::step::show_step(s, val),
        Some(Entity::Topology) => show_topology(s, val),
        Some(Entity::Unsupported) => not_supported(s, tag),
        None => s.fail(&format!("invalid entity:{tag} for keyword:{keyword} \n")),
    }
}

/// What `show` can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entity {
    Config,
    Hostnames,
    Hostlist,
    HostlistSorted,
    Job,
    Node,
    Partition,
    Reservation,
    Step,
    Topology,
    /// An entity Slurm has and spur does not.
    Unsupported,
}

/// `_show_it`'s entities in its order, with the shortest abbreviation.
const ENTITIES: [(&str, usize, Entity); 24] = [
    ("aliases", 1, Entity::Unsupported),
    ("bbstat", 2, Entity::Unsupported),
    ("dwstat", 2, Entity::Unsupported),
    ("burstbuffer", 2, Entity::Unsupported),
    ("assoc_mgr", 2, Entity::Unsupported),
    ("cache", 2, Entity::Unsupported),
    ("config", 1, Entity::Config),
    ("daemons", 1, Entity::Unsupported),
    ("Federations", 1, Entity::Unsupported),
    ("FrontendName", 1, Entity::Unsupported),
    ("hostnames", 5, Entity::Hostnames),
    ("hostlist", 5, Entity::Hostlist),
    ("hostlistsorted", 9, Entity::HostlistSorted),
    ("jobs", 1, Entity::Job),
    ("jobid", 1, Entity::Job),
    ("licenses", 2, Entity::Unsupported),
    ("nodes", 1, Entity::Node),
    ("partitions", 2, Entity::Partition),
    ("partitionname", 2, Entity::Partition),
    ("reservations", 1, Entity::Reservation),
    ("reservationname", 1, Entity::Reservation),
    ("slurmd", 2, Entity::Unsupported),
    ("steps", 2, Entity::Step),
    ("topology", 1, Entity::Topology),
];

fn not_supported(s: &mut Session<'_>, tag: &str) {
    s.fail(&format!(
        "scontrol: error: show {tag} is not supported by spur\n"
    ));
}

/// Writes `text` to stdout unless quiet and marks the run failed (Slurm's
/// "not found" messages go to stdout).
fn not_found(s: &mut Session<'_>, text: &str) {
    s.exit_code = 1;
    if s.quiet != 1 {
        s.out.push_str(text);
    }
}

pub use spur_slurm::step_ref::{show_job_id as parse_show_id, ShowId};

/// Whether a record is (or holds) the task asked for.
fn has_task(job: &JobInfo, task: Option<u32>) -> bool {
    let Some(t) = task else { return true };
    job.array_task_id == Some(t)
        || job
            .array_task_str
            .as_deref()
            .and_then(task_ids)
            .is_some_and(|ids| ids.contains(&t))
}

/// `show job [id]`.
pub fn show_job(s: &mut Session<'_>, val: Option<&str>) {
    let id = match val {
        None => None,
        Some(v) => match parse_show_id(v) {
            Some(id) => Some(id),
            None => {
                s.fail("scontrol_print_job error: Invalid job id specified\n");
                return;
            }
        },
    };
    let ids = id.map(|i| vec![i.job]).unwrap_or_default();
    let (now, jobs) = match s.ask.jobs(ids, JobFields::ALL, false) {
        Ok(listing) => (listing.now, listing.items),
        Err(e) => return s.perror("slurm_load_jobs error", &e),
    };
    let Some(id) = id else {
        if jobs.is_empty() && s.quiet != 1 {
            s.out.push_str("No jobs in the system\n");
        }
        for job in &jobs {
            s.out
                .push_str(&render_job(job, now, s.show_opts(), None, &s.locale));
        }
        return;
    };
    let mine: Vec<&JobInfo> = jobs
        .iter()
        .filter(|j| j.job_id == id.job || j.array_job_id == Some(id.job))
        .collect();
    if mine.is_empty() {
        s.fail("slurm_load_jobs error: Invalid job id specified\n");
        return;
    }
    let shown: Vec<&&JobInfo> = mine.iter().filter(|j| has_task(j, id.task)).collect();
    for job in &shown {
        let task = id.task.filter(|_| job.array_task_str.is_some());
        s.out
            .push_str(&render_job(job, now, s.show_opts(), task, &s.locale));
    }
    if shown.is_empty() {
        let name = match (id.task, id.het) {
            (Some(t), _) => format!("{}_{t}", id.job),
            (None, Some(h)) => format!("{}+{h}", id.job),
            (None, None) => id.job.to_string(),
        };
        not_found(s, &format!("Job {name} not found\n"));
    }
}

/// `show node [hostlist]`.
pub fn show_node(s: &mut Session<'_>, val: Option<&str>) {
    let nodes = match s.ask.nodes() {
        Ok(listing) => listing.items,
        Err(e) => return s.perror("slurm_load_node error", &e),
    };
    let locale = s.locale;
    let view = NodeView {
        slurmd_port: s.site.slurmd_port,
        locale: &locale,
    };
    let opts = s.show_opts();
    let Some(list) = val else {
        if nodes.is_empty() && s.quiet != 1 {
            s.out.push_str("No nodes in the system\n");
        }
        let text: String = nodes.iter().map(|n| render_node(n, opts, view)).collect();
        s.out.push_str(&text);
        return;
    };
    let Ok(names) = spur_conf::hostlist::expand(list) else {
        s.fail(&format!("unable to parse node list {list}\n"));
        return;
    };
    for name in names {
        match nodes.iter().find(|n| n.name == name) {
            Some(node) => {
                let text = render_node(node, opts, view);
                s.out.push_str(&text);
            }
            None => not_found(s, &format!("Node {name} not found\n")),
        }
    }
}

/// `show partition [name]`.
pub fn show_partition(s: &mut Session<'_>, val: Option<&str>) {
    let parts = match s.ask.partitions() {
        Ok(p) => p,
        Err(e) => return s.perror("slurm_load_partitions error", &e),
    };
    let nodes = match s.ask.nodes() {
        Ok(listing) => listing.items,
        Err(e) => return s.perror("slurm_load_node error", &e),
    };
    let opts = s.show_opts();
    let shown: Vec<_> = parts
        .iter()
        .filter(|p| val.is_none_or(|v| p.name == v))
        .collect();
    for p in &shown {
        s.out.push_str(&render_partition(p, &nodes, opts));
    }
    match (val, shown.is_empty()) {
        (Some(name), true) => not_found(s, &format!("Partition {name} not found\n")),
        (None, true) if s.quiet != 1 => s.out.push_str("No partitions in the system\n"),
        _ => {}
    }
}

/// `show config`: the configuration, a blank line, then `ping`'s lines.
pub fn show_config(s: &mut Session<'_>) {
    match s.ask.config() {
        Ok(conf) => {
            let text = render_config(&conf, s.now, &s.locale);
            s.out.push_str(&text);
            s.out.push('\n');
            act::ping(s);
        }
        Err(e) => s.perror("slurm_load_ctl_conf error", &e),
    }
}

/// `show hostnames [hostlist]` (default `$SLURM_NODELIST`).
pub fn show_hostnames(s: &mut Session<'_>, val: Option<&str>) {
    let env = std::env::var("SLURM_NODELIST").ok();
    let Some(list) = val.or(env.as_deref()) else {
        s.err.push_str("scontrol: error: host list is empty\n");
        return;
    };
    match spur_conf::hostlist::expand(list) {
        Ok(names) => names.iter().for_each(|n| {
            s.out.push_str(n);
            s.out.push('\n');
        }),
        // Slurm prints this without failing the command.
        Err(_) => s.err.push_str(&format!("Invalid hostlist: {list}\n")),
    }
}

/// `show hostlist <names>` / `show hostlistsorted <names>`; a path starting
/// with `/` names a file of host names.
pub fn show_hostlist(s: &mut Session<'_>, val: Option<&str>, sorted: bool) {
    let Some(val) = val else {
        s.fail("invalid encode argument\n");
        s.out.push_str(args::HELP);
        return;
    };
    let list = if val.starts_with('/') {
        match std::fs::read_to_string(val) {
            Ok(text) => text
                .split('\n')
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(","),
            Err(_) => return s.fail(&format!("Can not open {val}\n")),
        }
    } else {
        val.to_string()
    };
    match spur_conf::hostlist::expand(&list) {
        Ok(names) if sorted => s
            .out
            .push_str(&spur_conf::hostlist::compress_sorted(&names)),
        Ok(names) => s.out.push_str(&spur_conf::hostlist::compress(&names)),
        Err(_) => return s.fail(&format!("Invalid hostlist: {list}\n")),
    }
    s.out.push('\n');
}

/// `show topology [switch|node]`, from topology.conf next to slurm.conf
/// (spur's controller has no topology request; the commands read the same
/// file it reads).
pub fn show_topology(s: &mut Session<'_>, val: Option<&str>) {
    let plugin = s.site.topology_plugin.as_str();
    let records = if plugin == "topology/tree" || plugin == "topology/block" {
        let Some(path) = s.site.topology_file.clone() else {
            return s
                .err
                .push_str("scontrol: error: No topology information available\n");
        };
        match TopologyConf::load(&path) {
            Ok(parsed) => topology_records(&parsed.value),
            Err(e) => return s.fail(&format!("slurm_load_topo error: {e}\n")),
        }
    } else {
        Vec::new()
    };
    match render_topology(&records, val) {
        Ok(text) => s.out.push_str(&text),
        // scontrol reports these with error(), leaving the exit code alone.
        Err(text) => s.err.push_str(&text),
    }
}
