//! gres.conf read into [`GresConf`]: one [`GresLine`] per `Name=` or
//! `NodeName=` line (device files expanded with hostlist rules, lines
//! without `NodeName` applying to every node) and the global `AutoDetect`.
//! What a node's slurmd finds at run time is not this module's business.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ConfError, ErrorKind, Origin, Parsed, Warning};
use crate::file::ConfFile;
use crate::hostlist;
use crate::line::{self, Line, Loader, Pair};
use crate::value;

/// A gres.conf.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresConf {
    /// `AutoDetect` on a line of its own: the default for every node.
    pub auto_detect: Option<AutoDetect>,
    /// The GRES lines, in file order.
    pub lines: Vec<GresLine>,
}

/// One gres.conf line that names a GRES or a node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresLine {
    /// `NodeName`, expanded; `None` means every node.
    pub nodes: Option<Vec<String>>,
    /// `Name`: `gpu`, `mps`, `shard`, `nic`, ... (`None` on a line that
    /// only sets `AutoDetect` for some nodes).
    pub name: Option<String>,
    /// `Type`, e.g. `h100`.
    pub type_name: Option<String>,
    /// `File` (or `Files`), expanded: `/dev/nvidia[0-3]` gives four files.
    pub files: Vec<String>,
    /// `MultipleFiles`: the device files of one GRES (e.g. a MIG slice).
    pub multiple_files: Vec<String>,
    /// `Count` as written (K/M/G/T/P multiply by 1024); see [`GresLine::count`].
    pub count: Option<u64>,
    /// `Cores` (or the older `CPUs`): core indexes, ranges expanded.
    pub cores: Option<Vec<u32>>,
    /// `Links`, as written.
    pub links: Option<String>,
    /// `Flags`, split at commas.
    pub flags: Vec<String>,
    /// `AutoDetect` for these nodes, overriding the global one.
    pub auto_detect: Option<AutoDetect>,
    /// The line.
    pub origin: Origin,
}

impl GresLine {
    /// The number of GRES the line gives each node: `Count`, else the
    /// number of files, else 1.
    pub fn count(&self) -> u64 {
        self.count.unwrap_or(match self.files.len() {
            0 => 1,
            n => n as u64,
        })
    }

    /// Whether the line applies to `node`.
    pub fn applies_to(&self, node: &str) -> bool {
        self.nodes
            .as_ref()
            .is_none_or(|nodes| nodes.iter().any(|n| n == node))
    }
}

/// An `AutoDetect` mechanism.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AutoDetect {
    /// `off`: use only what gres.conf says.
    Off,
    /// `nvml`: NVIDIA GPUs through NVML.
    Nvml,
    /// `nvidia`: NVIDIA GPUs without NVML (Slurm 24.11+).
    Nvidia,
    /// `rsmi`: AMD GPUs.
    Rsmi,
    /// `oneapi`: Intel GPUs.
    Oneapi,
    /// `nrt`: AWS Trainium/Inferentia.
    Nrt,
    /// `full`: try every mechanism.
    Full,
}

impl AutoDetect {
    /// Parses a mechanism name, ignoring case.
    pub fn parse(value: &str) -> Option<Self> {
        let v = value.trim().to_ascii_lowercase();
        Some(match v.as_str() {
            "off" => Self::Off,
            "nvml" => Self::Nvml,
            "nvidia" => Self::Nvidia,
            "rsmi" => Self::Rsmi,
            "oneapi" => Self::Oneapi,
            "nrt" => Self::Nrt,
            "full" => Self::Full,
            _ => return None,
        })
    }
}

impl ConfFile for GresConf {
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
        for line in &lines {
            conf.on_line(line, &mut warnings)?;
        }
        Ok(Parsed {
            value: conf,
            warnings,
        })
    }
}

impl GresConf {
    /// The lines that apply to `node`, in file order.
    pub fn lines_for<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a GresLine> + 'a {
        self.lines.iter().filter(move |l| l.applies_to(node))
    }

    /// The `AutoDetect` in force on `node`: the last node-specific one,
    /// else the global one.
    pub fn auto_detect_for(&self, node: &str) -> Option<AutoDetect> {
        self.lines
            .iter()
            .rev()
            .filter(|l| l.nodes.is_some() && l.applies_to(node))
            .find_map(|l| l.auto_detect)
            .or(self.auto_detect)
    }

    fn on_line(&mut self, line: &Line, warnings: &mut Vec<Warning>) -> Result<(), ConfError> {
        let origin = &line.origin;
        let is_record = line.pairs.iter().any(|p| p.is("Name") || p.is("NodeName"));
        if !is_record {
            for p in &line.pairs {
                if p.is("AutoDetect") {
                    self.auto_detect = Some(auto_detect(p, origin)?);
                } else {
                    warnings.push(Warning::at(
                        origin,
                        format!("{} without Name or NodeName, ignored", p.key),
                    ));
                }
            }
            return Ok(());
        }
        let mut g = GresLine {
            nodes: None,
            name: None,
            type_name: None,
            files: Vec::new(),
            multiple_files: Vec::new(),
            count: None,
            cores: None,
            links: None,
            flags: Vec::new(),
            auto_detect: None,
            origin: origin.clone(),
        };
        for p in &line.pairs {
            let key = p.key.to_ascii_lowercase();
            match key.as_str() {
                "nodename" => g.nodes = Some(expand(p, origin)?),
                "name" => g.name = Some(non_empty(p, origin)?),
                "type" => g.type_name = Some(non_empty(p, origin)?),
                "file" | "files" => g.files = expand(p, origin)?,
                "multiplefiles" => g.multiple_files = expand(p, origin)?,
                "count" => {
                    g.count = Some(
                        value::parse_suffixed_count(&p.value).ok_or_else(|| invalid(p, origin))?,
                    );
                }
                "cores" | "cpus" => {
                    g.cores = Some(parse_cores(&p.value).ok_or_else(|| invalid(p, origin))?);
                }
                "link" | "links" => g.links = Some(p.value.clone()),
                "flags" => {
                    g.flags = p
                        .value
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect();
                }
                "autodetect" => g.auto_detect = Some(auto_detect(p, origin)?),
                _ => warnings.push(Warning::at(
                    origin,
                    format!("unknown gres.conf key {}, ignored", p.key),
                )),
            }
        }
        if !g.files.is_empty() && !g.multiple_files.is_empty() {
            return Err(ConfError::at(
                origin,
                ErrorKind::Conflict {
                    first: "File".into(),
                    second: "MultipleFiles".into(),
                },
            ));
        }
        if let Some(count) = g.count {
            if !g.files.is_empty() && count != g.files.len() as u64 {
                warnings.push(Warning::at(
                    origin,
                    format!(
                        "Count={count} does not match the {} files of File",
                        g.files.len()
                    ),
                ));
            }
        }
        self.lines.push(g);
        Ok(())
    }
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

fn non_empty(pair: &Pair, origin: &Origin) -> Result<String, ConfError> {
    let v = pair.value.trim();
    if v.is_empty() {
        Err(invalid(pair, origin))
    } else {
        Ok(v.to_string())
    }
}

fn auto_detect(pair: &Pair, origin: &Origin) -> Result<AutoDetect, ConfError> {
    AutoDetect::parse(&pair.value).ok_or_else(|| invalid(pair, origin))
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

/// `0-35,72-107` or `[0-3]`: core indexes, ranges expanded, in order.
fn parse_cores(value: &str) -> Option<Vec<u32>> {
    let v = value.trim();
    let v = v
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .unwrap_or(v);
    let mut out = Vec::new();
    for part in v.split(',') {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let n = part.trim().parse::<u32>().ok()?;
                (n, n)
            }
        };
        // A node has at most 64K cores (Slurm keeps CPU counts in uint16).
        if hi < lo || hi > u32::from(u16::MAX) {
            return None;
        }
        out.extend(lo..=hi);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn parse(text: &str) -> Result<Parsed<GresConf>, ConfError> {
        GresConf::parse_with(text, Path::new("gres.conf"), &mut |_: &Path| {
            Err(io::Error::new(io::ErrorKind::NotFound, "no includes here"))
        })
    }

    #[test]
    fn reference_gres_conf() {
        // slurm-reference/conf/gres.conf
        let g = parse(
            "# Generated\nAutoDetect=off\nNodeName=gb[001-072] Name=gpu File=/dev/fakegpu[0-3]\n",
        )
        .unwrap()
        .value;
        assert_eq!(g.auto_detect, Some(AutoDetect::Off));
        let line = &g.lines[0];
        assert_eq!(line.nodes.as_ref().map(Vec::len), Some(72));
        assert_eq!(line.name.as_deref(), Some("gpu"));
        assert_eq!(
            line.files,
            [
                "/dev/fakegpu0",
                "/dev/fakegpu1",
                "/dev/fakegpu2",
                "/dev/fakegpu3"
            ]
        );
        assert_eq!(line.count(), 4);
        assert!(line.applies_to("gb072"));
        assert!(!line.applies_to("gb073"));
        assert_eq!(g.lines_for("gb001").count(), 1);
        assert_eq!(line.origin, Origin::new("gres.conf", 3));
    }

    #[test]
    fn typed_fields_and_node_specific_autodetect() {
        let g = parse(
            "AutoDetect=nvml\n\
             Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-35,72-107 Links=-1,0,0,0 Flags=nvidia_gpu_env,amd_gpu_env\n\
             NodeName=tux3 AutoDetect=off Name=gpu File=/dev/nvidia[0-1]\n\
             Name=bandwidth Type=lustre Count=4G Flags=CountOnly\n\
             NodeName=mig1 Name=gpu MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap21\n",
        )
        .unwrap()
        .value;
        let all = &g.lines[0];
        assert_eq!(all.nodes, None);
        assert_eq!(all.type_name.as_deref(), Some("h100"));
        let cores = all.cores.as_ref().unwrap();
        assert_eq!((cores.len(), cores[35], cores[36]), (72, 35, 72));
        assert_eq!(all.links.as_deref(), Some("-1,0,0,0"));
        assert_eq!(all.flags, ["nvidia_gpu_env", "amd_gpu_env"]);
        assert_eq!(g.lines[2].count(), 4 << 30);
        assert_eq!(g.lines[3].multiple_files.len(), 2);
        assert_eq!(g.lines[3].count(), 1);
        assert_eq!(g.auto_detect_for("tux3"), Some(AutoDetect::Off));
        assert_eq!(g.auto_detect_for("tux4"), Some(AutoDetect::Nvml));
        assert_eq!(g.lines_for("tux3").count(), 3);
    }

    #[test]
    fn errors_and_warnings_name_the_line() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        assert_eq!(
            err("Name=gpu\nName=gpu Count=many\n"),
            "gres.conf:2: invalid value \"many\" for Count"
        );
        assert_eq!(
            err("AutoDetect=magic\n"),
            "gres.conf:1: invalid value \"magic\" for AutoDetect"
        );
        assert_eq!(
            err("Name=gpu Cores=5-2\n"),
            "gres.conf:1: invalid value \"5-2\" for Cores"
        );
        assert_eq!(
            err("NodeName=n[1-\n"),
            "gres.conf:1: NodeName: invalid hostlist \"n[1-\": missing ']'"
        );
        assert_eq!(
            err("Name=gpu File=/dev/a MultipleFiles=/dev/b\n"),
            "gres.conf:1: File and MultipleFiles cannot be used together"
        );
        let parsed = parse("Name=gpu File=/dev/nvidia[0-1] Count=4 Color=red\nType=x\n").unwrap();
        let messages: Vec<&str> = parsed.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unknown gres.conf key Color, ignored",
                "Count=4 does not match the 2 files of File",
                "Type without Name or NodeName, ignored"
            ]
        );
    }

    proptest! {
        #[test]
        fn random_text_never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }
    }
}
