//! `scontrol show topology` and `ping` text, as Slurm 22.05 prints them
//! (`src/api/topo_info.c`, `src/scontrol/scontrol.c`); `show config`'s
//! record is spur-report's. Pure.

use std::collections::BTreeSet;

use spur_conf::TopologyConf;

/// `scontrol ping`'s lines: `Slurmctld(primary) at <host> is UP`, one per
/// controller, each `Some(true)` when it answered.
pub fn render_ping(hosts: &[(String, bool)]) -> String {
    let mut out = String::new();
    for (i, (host, up)) in hosts.iter().enumerate() {
        let mode = match i {
            0 => "primary".to_string(),
            1 if hosts.len() == 2 => "backup".to_string(),
            n => format!("backup{n}"),
        };
        let state = if *up { "UP" } else { "DOWN" };
        out.push_str(&format!("Slurmctld({mode}) at {host} is {state}\n"));
    }
    out
}

/// The banner scontrol adds for root when a controller is down.
pub const RESTORE_BANNER: &str = "*****************************************\n\
** RESTORE SLURMCTLD DAEMON TO SERVICE **\n\
*****************************************\n";

/// One topology record, as the topology plugin reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopoRecord {
    /// The line printed.
    pub line: String,
    /// The nodes under it (to find the records above a node).
    pub nodes: Vec<String>,
    /// SwitchName or BlockName.
    pub name: String,
}

/// The records of a topology/tree or topology/block configuration.
pub fn topology_records(topo: &TopologyConf) -> Vec<TopoRecord> {
    if topo.is_block() {
        block_records(topo)
    } else {
        switch_records(topo)
    }
}

fn switch_records(topo: &TopologyConf) -> Vec<TopoRecord> {
    topo.switches
        .iter()
        .map(|sw| {
            let nodes = switch_nodes(topo, &sw.name, 0);
            let mut line = format!(
                "SwitchName={} Level={} LinkSpeed={}",
                sw.name,
                switch_level(topo, &sw.name, 0),
                sw.link_speed.unwrap_or(1)
            );
            if !nodes.is_empty() {
                let list = if sw.nodes.is_empty() {
                    spur_conf::hostlist::compress_sorted(&nodes)
                } else {
                    spur_conf::hostlist::compress(&sw.nodes)
                };
                line.push_str(&format!(" Nodes={list}"));
            }
            if !sw.switches.is_empty() {
                let list = spur_conf::hostlist::compress(&sw.switches);
                line.push_str(&format!(" Switches={list}"));
            }
            TopoRecord {
                line,
                nodes,
                name: sw.name.clone(),
            }
        })
        .collect()
}

/// A leaf is level 0; a switch above others is one more than its highest
/// child. `depth` stops a cycle (the conf crate rejects them anyway).
fn switch_level(topo: &TopologyConf, name: &str, depth: usize) -> u32 {
    let Some(sw) = topo.switches.iter().find(|s| s.name == name) else {
        return 0;
    };
    if sw.switches.is_empty() || depth > topo.switches.len() {
        return 0;
    }
    1 + sw
        .switches
        .iter()
        .map(|c| switch_level(topo, c, depth + 1))
        .max()
        .unwrap_or(0)
}

/// Every node under a switch, each once.
fn switch_nodes(topo: &TopologyConf, name: &str, depth: usize) -> Vec<String> {
    let Some(sw) = topo.switches.iter().find(|s| s.name == name) else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut add = |n: &String| {
        if seen.insert(n.clone()) {
            out.push(n.clone());
        }
    };
    sw.nodes.iter().for_each(&mut add);
    if depth <= topo.switches.len() {
        for child in &sw.switches {
            switch_nodes(topo, child, depth + 1)
                .iter()
                .for_each(&mut add);
        }
    }
    out
}

/// topology/block's base blocks (Slurm 23.11+ `BlockName=... BlockIndex=...
/// Nodes=... BlockSize=...`); aggregated blocks are not listed.
fn block_records(topo: &TopologyConf) -> Vec<TopoRecord> {
    let size = topo.planning_block_sizes().first().copied().unwrap_or(0);
    topo.blocks
        .iter()
        .enumerate()
        .map(|(i, b)| TopoRecord {
            line: format!(
                "BlockName={} BlockIndex={i} Nodes={} BlockSize={size}",
                b.name,
                spur_conf::hostlist::compress(&b.nodes)
            ),
            nodes: b.nodes.clone(),
            name: b.name.clone(),
        })
        .collect()
}

/// `show topology [name]`: all records, the switch named, or the switches
/// above a node. Err is the text for stderr.
pub fn render_topology(records: &[TopoRecord], filter: Option<&str>) -> Result<String, String> {
    if records.is_empty() {
        return Err("scontrol: error: No topology information available\n".to_string());
    }
    let lines = |rs: Vec<&TopoRecord>| rs.iter().map(|r| format!("{}\n", r.line)).collect();
    let Some(name) = filter.filter(|n| !n.is_empty()) else {
        return Ok(lines(records.iter().collect()));
    };
    if let Some(r) = records.iter().find(|r| r.name == name) {
        return Ok(lines(vec![r]));
    }
    let wanted = spur_conf::hostlist::expand(name).unwrap_or_default();
    let matched: Vec<&TopoRecord> = records
        .iter()
        .filter(|r| !wanted.is_empty() && wanted.iter().all(|w| r.nodes.contains(w)))
        .collect();
    if matched.is_empty() {
        return Err(format!(
            "scontrol: error: Topology information contains no switch or node named {name}\n"
        ));
    }
    Ok(lines(matched))
}
