//! topology.conf as Slurm 23.11-26.05 define it, read into [`TopologyConf`]:
//! topology/tree `SwitchName` lines or topology/block `BlockName` and
//! `BlockSizes` lines, checked on their own (names, cycles, overlaps,
//! block sizes). [`TopologyConf::check_nodes`] checks node names against
//! slurm.conf. topology.yaml (Slurm 25.05+) is not read: that reader is absent.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{BlockSizesProblem, ConfError, ErrorKind, Origin, Parsed, Warning};
use crate::file::ConfFile;
use crate::hostlist;
use crate::line::{self, Line, Loader, Pair};
use crate::slurm_conf::SlurmConf;

/// Slurm's `MAX_BLOCK_LEVELS`: block sizes go up to base x 2^15.
const MAX_BLOCK_LEVEL: u32 = 15;

/// Block levels Slurm plans with when `BlockSizes` is not set: base x 1..16.
const DEFAULT_BLOCK_LEVELS: u32 = 4;

/// A topology.conf: either switches (topology/tree) or blocks
/// (topology/block), never both.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopologyConf {
    /// `SwitchName` lines, in file order.
    pub switches: Vec<SwitchConf>,
    /// `BlockName` lines, in file order.
    pub blocks: Vec<BlockConf>,
    /// `BlockSizes` in nodes: the planning base block size first, then
    /// larger power-of-two multiples of it.
    pub block_sizes: Option<Vec<u32>>,
    /// The `BlockSizes` line.
    pub block_sizes_origin: Option<Origin>,
}

/// A topology/tree switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchConf {
    /// `SwitchName`.
    pub name: String,
    /// `Switches`: child switches, expanded.
    pub switches: Vec<String>,
    /// `Nodes`: child nodes (a leaf switch), expanded.
    pub nodes: Vec<String>,
    /// `LinkSpeed` (arbitrary units; Slurm does not use it either).
    pub link_speed: Option<u32>,
    /// The line.
    pub origin: Origin,
}

/// A topology/block block (for spur: one NVLink domain).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockConf {
    /// `BlockName`.
    pub name: String,
    /// `Nodes`, expanded. A block may hold fewer nodes than the base size.
    pub nodes: Vec<String>,
    /// The line.
    pub origin: Origin,
}

impl ConfFile for TopologyConf {
    /// Parses `text`, reading `Include`d files through `loader`.
    fn parse_with(
        text: &str,
        file: &Path,
        loader: &mut dyn FnMut(&Path) -> io::Result<String>,
    ) -> Result<Parsed<Self>, ConfError> {
        let loader: &mut Loader<'_> = loader;
        let mut warnings = Vec::new();
        let lines = line::read_lines(text, file, loader, &mut warnings)?;
        let mut conf = Self::default();
        let mut first_kind: Option<(String, Origin)> = None;
        for line in &lines {
            conf.on_line(line, &mut first_kind, &mut warnings)?;
        }
        conf.validate()?;
        Ok(Parsed {
            value: conf,
            warnings,
        })
    }
}

impl TopologyConf {
    /// Whether this is a topology/block file.
    pub fn is_block(&self) -> bool {
        !self.blocks.is_empty() || self.block_sizes.is_some()
    }

    /// The block sizes, in nodes, that Slurm's topology/block plans with:
    /// `BlockSizes` if set, else the first non-empty block's node count
    /// times 1, 2, 4, 8 and 16; levels stop at the first one that spans all
    /// blocks (as `block_record_validate` does). Empty without blocks.
    pub fn planning_block_sizes(&self) -> Vec<u32> {
        let Some(base) = self.base_block_size() else {
            return Vec::new();
        };
        let levels: Vec<u32> = match &self.block_sizes {
            Some(sizes) => sizes.iter().map(|s| (s / base).trailing_zeros()).collect(),
            None => (0..=DEFAULT_BLOCK_LEVELS).collect(),
        };
        let block_count = self.blocks.len() as u64;
        let mut out = Vec::new();
        for level in levels {
            let factor = 1u64 << level;
            out.push(base.saturating_mul(factor as u32));
            if factor >= block_count {
                break;
            }
        }
        out
    }

    /// The planning base block size: the first `BlockSizes` entry, else the
    /// node count of the first block that has nodes.
    pub fn base_block_size(&self) -> Option<u32> {
        match &self.block_sizes {
            Some(sizes) => sizes.first().copied(),
            None => self
                .blocks
                .iter()
                .map(|b| b.nodes.len())
                .find(|&n| n > 0)
                .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        }
    }

    /// Checks that every node named here is a node of `conf`; reports
    /// every unknown node with the line that names it.
    pub fn check_nodes(&self, conf: &SlurmConf) -> Result<(), ConfError> {
        let known: std::collections::BTreeSet<&str> =
            conf.nodes.iter().map(|n| n.name.as_str()).collect();
        let mut errors = Vec::new();
        let items = self
            .switches
            .iter()
            .map(|s| ("switch", &s.name, &s.nodes, &s.origin))
            .chain(
                self.blocks
                    .iter()
                    .map(|b| ("block", &b.name, &b.nodes, &b.origin)),
            );
        for (what, name, nodes, origin) in items {
            for node in nodes.iter().filter(|n| !known.contains(n.as_str())) {
                errors.push(ConfError::at(
                    origin,
                    ErrorKind::UnknownNode {
                        what,
                        name: name.clone(),
                        node: node.clone(),
                    },
                ));
            }
        }
        ConfError::from_list(errors)
    }

    fn on_line(
        &mut self,
        line: &Line,
        first_kind: &mut Option<(String, Origin)>,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), ConfError> {
        let origin = &line.origin;
        for (i, pair) in line.pairs.iter().enumerate() {
            let kind = if pair.is("SwitchName") {
                "SwitchName"
            } else if pair.is("BlockName") || pair.is("BlockSizes") {
                "BlockName"
            } else {
                warnings.push(Warning::at(
                    origin,
                    format!("unknown topology.conf key {}, ignored", pair.key),
                ));
                continue;
            };
            match first_kind {
                Some((first, at)) if first != kind => {
                    return Err(ConfError::at(
                        origin,
                        ErrorKind::MixedTopology {
                            first_key: first.clone(),
                            first: at.clone(),
                        },
                    ));
                }
                Some(_) => {}
                None => *first_kind = Some((kind.to_string(), origin.clone())),
            }
            if pair.is("BlockSizes") {
                if self.block_sizes_origin.is_some() {
                    warnings.push(Warning::at(
                        origin,
                        "BlockSizes specified more than once, latest value used",
                    ));
                }
                self.block_sizes = Some(parse_block_sizes(pair, origin)?);
                self.block_sizes_origin = Some(origin.clone());
                continue;
            }
            // A record key takes the rest of the line.
            let rest = &line.pairs[i..];
            if pair.value.trim().is_empty() {
                return Err(ConfError::at(
                    origin,
                    ErrorKind::MissingName {
                        key: pair.key.clone(),
                    },
                ));
            }
            if kind == "SwitchName" {
                self.switches.push(switch(rest, origin, warnings)?);
            } else {
                self.blocks.push(block(rest, origin, warnings)?);
            }
            return Ok(());
        }
        Ok(())
    }

    /// Every structural problem, each naming its line.
    fn validate(&self) -> Result<(), ConfError> {
        let mut errors = Vec::new();
        let named = self
            .switches
            .iter()
            .map(|s| ("switch", &s.name, &s.origin))
            .chain(self.blocks.iter().map(|b| ("block", &b.name, &b.origin)));
        let mut names: BTreeMap<(&str, &str), &Origin> = BTreeMap::new();
        for (what, name, origin) in named {
            if let Some(first) = names.insert((what, name.as_str()), origin) {
                errors.push(ConfError::at(
                    origin,
                    ErrorKind::DuplicateName {
                        what,
                        name: name.clone(),
                        first: (*first).clone(),
                    },
                ));
                names.insert((what, name.as_str()), first);
            }
        }
        let mut holder: BTreeMap<&str, (&str, &Origin)> = BTreeMap::new();
        for b in &self.blocks {
            for node in &b.nodes {
                match holder.get(node.as_str()) {
                    Some(&(first_block, first)) => errors.push(ConfError::at(
                        &b.origin,
                        ErrorKind::NodeInTwoBlocks {
                            node: node.clone(),
                            block: b.name.clone(),
                            first_block: first_block.to_string(),
                            first: first.clone(),
                        },
                    )),
                    None => {
                        holder.insert(node, (&b.name, &b.origin));
                    }
                }
            }
        }
        holder.clear();
        for s in &self.switches {
            for node in &s.nodes {
                match holder.get(node.as_str()) {
                    Some(&(first_switch, first)) if first_switch != s.name => {
                        errors.push(ConfError::at(
                            &s.origin,
                            ErrorKind::NodeUnderTwoSwitches {
                                node: node.clone(),
                                switch: s.name.clone(),
                                first_switch: first_switch.to_string(),
                                first: first.clone(),
                            },
                        ))
                    }
                    Some(_) => {}
                    None => {
                        holder.insert(node, (&s.name, &s.origin));
                    }
                }
            }
        }
        self.validate_switch_graph(&mut errors);
        ConfError::from_list(errors)
    }

    /// Unknown child switches and cycles.
    fn validate_switch_graph(&self, errors: &mut Vec<ConfError>) {
        let index: BTreeMap<&str, usize> = self
            .switches
            .iter()
            .enumerate()
            .rev()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        let mut children: Vec<Vec<usize>> = Vec::with_capacity(self.switches.len());
        for s in &self.switches {
            let mut kids = Vec::new();
            for child in &s.switches {
                match index.get(child.as_str()) {
                    Some(&i) => kids.push(i),
                    None => errors.push(ConfError::at(
                        &s.origin,
                        ErrorKind::UnknownSwitch {
                            switch: s.name.clone(),
                            child: child.clone(),
                        },
                    )),
                }
            }
            children.push(kids);
        }
        // Iterative DFS: 0 = unseen, 1 = on the stack, 2 = done.
        let mut color = vec![0u8; self.switches.len()];
        for root in 0..self.switches.len() {
            if color[root] != 0 {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            color[root] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(&child) = children[node].get(*next) {
                    *next += 1;
                    match color[child] {
                        0 => {
                            color[child] = 1;
                            stack.push((child, 0));
                        }
                        1 => {
                            let s = &self.switches[child];
                            errors.push(ConfError::at(
                                &s.origin,
                                ErrorKind::SwitchCycle {
                                    switch: s.name.clone(),
                                },
                            ));
                        }
                        _ => {}
                    }
                } else {
                    color[node] = 2;
                    stack.pop();
                }
            }
        }
    }
}

fn expand(pair: &Pair, origin: &Origin) -> Result<Vec<String>, ConfError> {
    hostlist::expand(&pair.value).map_err(|error| {
        ConfError::at(
            origin,
            ErrorKind::InvalidHostlist {
                key: pair.key.clone(),
                error,
            },
        )
    })
}

fn invalid(pair: &Pair, origin: &Origin) -> ConfError {
    ConfError::at(
        origin,
        ErrorKind::InvalidValue {
            key: pair.key.clone(),
            value: pair.value.clone(),
        },
    )
}

fn unknown_key(pair: &Pair, record: &str, origin: &Origin, warnings: &mut Vec<Warning>) {
    warnings.push(Warning::at(
        origin,
        format!("unknown {record} key {}, ignored", pair.key),
    ));
}

fn switch(
    pairs: &[Pair],
    origin: &Origin,
    warnings: &mut Vec<Warning>,
) -> Result<SwitchConf, ConfError> {
    let mut s = SwitchConf {
        name: pairs[0].value.clone(),
        switches: Vec::new(),
        nodes: Vec::new(),
        link_speed: None,
        origin: origin.clone(),
    };
    for p in &pairs[1..] {
        if p.is("Switches") {
            s.switches = expand(p, origin)?;
        } else if p.is("Nodes") {
            s.nodes = expand(p, origin)?;
        } else if p.is("LinkSpeed") {
            s.link_speed = Some(p.value.trim().parse().map_err(|_| invalid(p, origin))?);
        } else {
            unknown_key(p, "SwitchName", origin, warnings);
        }
    }
    Ok(s)
}

fn block(
    pairs: &[Pair],
    origin: &Origin,
    warnings: &mut Vec<Warning>,
) -> Result<BlockConf, ConfError> {
    let mut b = BlockConf {
        name: pairs[0].value.clone(),
        nodes: Vec::new(),
        origin: origin.clone(),
    };
    for p in &pairs[1..] {
        if p.is("Nodes") {
            b.nodes = expand(p, origin)?;
        } else {
            unknown_key(p, "BlockName", origin, warnings);
        }
    }
    Ok(b)
}

/// `BlockSizes=18,36,72`: a base size, then ascending power-of-two
/// multiples of it, at most 2^15 times the base.
fn parse_block_sizes(pair: &Pair, origin: &Origin) -> Result<Vec<u32>, ConfError> {
    let fail = |problem| {
        ConfError::at(
            origin,
            ErrorKind::BlockSizes {
                value: pair.value.clone(),
                problem,
            },
        )
    };
    let mut sizes: Vec<u32> = Vec::new();
    for tok in pair.value.split(',') {
        let tok = tok.trim();
        let size = tok
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| fail(BlockSizesProblem::NotANumber(tok.to_string())))?;
        if let Some(&base) = sizes.first() {
            if size % base != 0 || !(size / base).is_power_of_two() {
                return Err(fail(BlockSizesProblem::NotPowerOfTwoMultiple {
                    size,
                    base,
                }));
            }
            if (size / base).trailing_zeros() > MAX_BLOCK_LEVEL {
                return Err(fail(BlockSizesProblem::TooLarge { size }));
            }
        }
        if sizes.last().is_some_and(|&prev| size <= prev) {
            return Err(fail(BlockSizesProblem::NotAscending { size }));
        }
        sizes.push(size);
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn parse(text: &str) -> Result<Parsed<TopologyConf>, ConfError> {
        TopologyConf::parse_with(text, Path::new("topology.conf"), &mut |_: &Path| {
            Err(io::Error::new(io::ErrorKind::NotFound, "no includes here"))
        })
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn tree_switches() {
        // slurm-reference/conf/topology.conf
        let t = parse(
            "# comment\nSwitchName=nvl01 Nodes=gb[001-018]\nSwitchName=nvl02 Nodes=gb[019-036] LinkSpeed=100\n\
             SwitchName=spine Switches=nvl[01-02]\n",
        )
        .unwrap()
        .value;
        assert!(!t.is_block());
        assert_eq!(t.switches.len(), 3);
        assert_eq!(t.switches[0].nodes.len(), 18);
        assert_eq!(t.switches[1].link_speed, Some(100));
        assert_eq!(t.switches[2].switches, ["nvl01", "nvl02"]);
        assert_eq!(t.switches[2].origin, Origin::new("topology.conf", 4));
        assert!(t.planning_block_sizes().is_empty());
    }

    #[test]
    fn blocks_and_block_sizes() {
        let t = parse(
            "blockname=b1 nodes=node[1-18]\nBlockName=b2 Nodes=node[19-36]\nBlockName=b3 Nodes=node[37-40]\n\
             BlockSizes=18,36,72\n",
        )
        .unwrap()
        .value;
        assert!(t.is_block());
        assert_eq!(
            t.blocks[2].nodes.len(),
            4,
            "a block may be smaller than the base"
        );
        assert_eq!(t.block_sizes, Some(vec![18, 36, 72]));
        assert_eq!(t.block_sizes_origin.as_ref().map(|o| o.line), Some(4));
        assert_eq!(t.base_block_size(), Some(18));
        assert_eq!(t.planning_block_sizes(), [18, 36, 72]);
    }

    #[test]
    fn default_block_levels_follow_slurm() {
        let mut text = String::new();
        for i in 0..4 {
            text.push_str(&format!(
                "BlockName=b{i} Nodes=n[{}-{}]\n",
                i * 18,
                i * 18 + 17
            ));
        }
        let t = parse(&text).unwrap().value;
        assert_eq!(t.block_sizes, None);
        // Levels 1, 2, 4 blocks: the last spans all four blocks.
        assert_eq!(t.planning_block_sizes(), [18, 36, 72]);
    }

    #[test]
    fn bad_block_sizes_name_the_line() {
        assert_eq!(
            err("BlockName=b Nodes=n[1-18]\nBlockSizes=18,30\n"),
            "topology.conf:2: invalid BlockSizes \"18,30\": 30 is not a power-of-two multiple of the base block size 18"
        );
        assert_eq!(
            err("BlockSizes=18,54\n"),
            "topology.conf:1: invalid BlockSizes \"18,54\": 54 is not a power-of-two multiple of the base block size 18"
        );
        assert_eq!(
            err("BlockSizes=36,18\n"),
            "topology.conf:1: invalid BlockSizes \"36,18\": 18 is not a power-of-two multiple of the base block size 36"
        );
        assert_eq!(
            err("BlockSizes=18,72,36\n"),
            "topology.conf:1: invalid BlockSizes \"18,72,36\": 36 is not larger than the size before it"
        );
        assert_eq!(
            err("BlockSizes=18,18\n"),
            "topology.conf:1: invalid BlockSizes \"18,18\": 18 is not larger than the size before it"
        );
        assert!(err("BlockSizes=0\n").contains("is not a positive number"));
        assert!(err("BlockSizes=1,65536\n").contains("more than 2^15"));
        assert!(parse("BlockSizes=1,32768\n").is_ok());
    }

    #[test]
    fn structural_errors_name_the_place() {
        assert_eq!(
            err("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[4-6]\n"),
            "topology.conf:2: node n4 is in block b2 and already in block b1 (topology.conf:1)"
        );
        assert_eq!(
            err("SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[4-6]\n"),
            "topology.conf:2: node n4 is under switch s2 and already under switch s1 (topology.conf:1)"
        );
        assert_eq!(
            err("SwitchName=top Switches=s[1-2]\nSwitchName=s1 Nodes=n1\n"),
            "topology.conf:1: switch top names unknown switch s2"
        );
        assert_eq!(
            err("SwitchName=a Switches=b\nSwitchName=b Switches=c\nSwitchName=c Switches=a\n"),
            "topology.conf:1: switch a is part of a cycle"
        );
        assert_eq!(
            err("SwitchName=a Switches=a\n"),
            "topology.conf:1: switch a is part of a cycle"
        );
        assert_eq!(
            err("BlockName=b Nodes=n1\nBlockName=b Nodes=n2\n"),
            "topology.conf:2: block b is already defined at topology.conf:1"
        );
        assert_eq!(
            err("SwitchName=s Nodes=n1\nSwitchName=s Nodes=n2\n"),
            "topology.conf:2: switch s is already defined at topology.conf:1"
        );
        assert_eq!(
            err("SwitchName=s Nodes=n1\nBlockName=b Nodes=n2\n"),
            "topology.conf:2: BlockName and SwitchName cannot be mixed in one topology.conf (first SwitchName at topology.conf:1)"
        );
        assert_eq!(
            err("SwitchName=s Nodes=n[2-1]\n"),
            "topology.conf:1: Nodes: invalid hostlist \"n[2-1]\": range \"2-1\" is descending"
        );
        assert_eq!(
            err("SwitchName=s LinkSpeed=fast\n"),
            "topology.conf:1: invalid value \"fast\" for LinkSpeed"
        );
        assert_eq!(
            err("BlockName=\"\"\n"),
            "topology.conf:1: BlockName needs a name"
        );
        let e = parse("BlockName=b Nodes=n1\nBlockName=b Nodes=n1\n").unwrap_err();
        assert_eq!(e.problems().len(), 2, "duplicate name and duplicate node");
    }

    #[test]
    fn a_diamond_is_not_a_cycle() {
        let t = parse(
            "SwitchName=top Switches=l,r\nSwitchName=l Switches=leaf\nSwitchName=r Switches=leaf\nSwitchName=leaf Nodes=n1\n",
        );
        assert!(t.is_ok());
    }

    #[test]
    fn unknown_keys_warn() {
        let parsed = parse("BlockName=b Nodes=n1 Speed=3\nRingName=r Nodes=n2\n").unwrap();
        let messages: Vec<&str> = parsed.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unknown BlockName key Speed, ignored",
                "unknown topology.conf key RingName, ignored",
                "unknown topology.conf key Nodes, ignored"
            ]
        );
    }

    #[test]
    fn check_nodes_against_slurm_conf() {
        let conf = SlurmConf::parse_with(
            "NodeName=n[1-2]\n",
            Path::new("slurm.conf"),
            &mut |_: &Path| Err(io::Error::other("none")),
        )
        .unwrap()
        .value;
        let t = parse("BlockName=b Nodes=n[1-3]\n").unwrap().value;
        assert_eq!(
            t.check_nodes(&conf).unwrap_err().to_string(),
            "topology.conf:1: block b names unknown node n3"
        );
        let t = parse("BlockName=b Nodes=n[1-2]\n").unwrap().value;
        assert!(t.check_nodes(&conf).is_ok());
    }

    proptest! {
        #[test]
        fn random_text_never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }

        #[test]
        fn random_topologies_never_panic(
            lines in prop::collection::vec(
                (prop::sample::select(vec!["SwitchName", "BlockName", "BlockSizes", "Nodes", "Switches"]),
                 "[a-c0-9\\[\\],\\-]{0,8}",
                 prop::sample::select(vec!["Nodes", "Switches", "LinkSpeed", "X"]),
                 "[a-c0-9\\[\\],\\-]{0,8}"),
                0..8)
        ) {
            let text: String = lines
                .iter()
                .map(|(k, v, k2, v2)| format!("{k}={v} {k2}={v2}\n"))
                .collect();
            let _ = parse(&text).map(|p| p.value.planning_block_sizes());
        }
    }
}
