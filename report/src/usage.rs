//! What a step used, as Slurm's accounting commands print it: the TRES
//! usage strings (`TRESUsageInMax`, ...: `cpu=00:01:02,mem=1104K,...`)
//! and the single figures (MaxRSS, AveCPU, MaxDiskRead, ...) with the node
//! and task they came from. Shared by sacct and sstat, which differ only
//! in how they print bytes read and written.

use spur_proto::{Usage, UsageTres};
use spur_slurm::units::{convert_num_unit, convert_num_unit_f64, Unit};

/// Which figure of each resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The task that used the most.
    Max,
    /// The task that used the least.
    Min,
    /// The mean over the tasks.
    Ave,
    /// The sum over the tasks.
    Tot,
}

/// What of the figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Its value.
    Value,
    /// The node it was taken on.
    Node,
    /// The task it was taken of.
    Task,
}

/// One usage figure: a resource, in or out, which figure, which part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figure {
    /// The resource.
    pub tres: UsageTres,
    /// Written rather than read (only bytes and energy have that side).
    pub output: bool,
    /// Which figure.
    pub pick: Pick,
    /// Which part of it.
    pub part: Part,
}

impl Figure {
    /// The figure of `tres` read in.
    pub const fn input(tres: UsageTres, pick: Pick, part: Part) -> Figure {
        Figure {
            tres,
            output: false,
            pick,
            part,
        }
    }

    /// The figure of `tres` written out.
    pub const fn output(tres: UsageTres, pick: Pick, part: Part) -> Figure {
        Figure {
            tres,
            output: true,
            pick,
            part,
        }
    }
}

/// How bytes read and written print: sacct turns them into MiB, sstat
/// leaves them bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskUnit {
    /// MiB, as sacct's MaxDiskRead and friends.
    Mebi,
    /// Bytes, as sstat's.
    Bytes,
}

/// A step's usage with what printing it needs.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The usage.
    pub usage: &'a Usage,
    /// The step's nodes, in the order node indices count.
    pub nodes: Vec<String>,
    /// `--noconvert`: sizes stay plain numbers.
    pub noconvert: bool,
}

impl<'a> View<'a> {
    /// `usage` of a step on the nodes of hostlist `nodes` (node indices
    /// count in its order, as the step's launch numbers them).
    pub fn of_step(usage: &'a Usage, nodes: &str, noconvert: bool) -> View<'a> {
        View {
            usage,
            nodes: spur_conf::hostlist::expand(nodes).unwrap_or_default(),
            noconvert,
        }
    }

    /// The raw number of a figure (a value, a node index or a task id).
    fn raw(&self, tres: UsageTres, output: bool, pick: Pick, part: Part) -> Option<u64> {
        let side = if output {
            &self.usage.output
        } else {
            &self.usage.input
        };
        let u = side.get(&tres)?;
        let at = match pick {
            Pick::Max => u.max,
            Pick::Min => u.min,
            Pick::Tot => return (part == Part::Value).then_some(u.tot),
            Pick::Ave => return (part == Part::Value).then(|| self.usage.ave(u.tot)),
        };
        match part {
            Part::Value => Some(at.value),
            Part::Node => Some(u64::from(at.node)),
            Part::Task => at.task.map(u64::from),
        }
    }

    /// The node named by index `i`.
    fn node_name(&self, i: u64) -> String {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.nodes.get(i))
            .cloned()
            .unwrap_or_default()
    }

    /// A TRES usage string (`TRESUsageInMax` and the like): every
    /// resource that has the figure, sorted as Slurm sorts them; empty
    /// when none has.
    pub fn tres(&self, output: bool, pick: Pick, part: Part) -> String {
        let mut items = Vec::new();
        for tres in UsageTres::ALL {
            let Some(raw) = self.raw(tres, output, pick, part) else {
                continue;
            };
            let value = match part {
                Part::Value => tres_value(tres, raw, self.noconvert),
                Part::Node => self.node_name(raw),
                Part::Task => raw.to_string(),
            };
            items.push(format!("{}={value}", tres.name()));
        }
        items.join(",")
    }

    /// One figure as sacct (`disk` Mebi) or sstat (`disk` Bytes) prints
    /// it; None when the usage lacks it.
    pub fn figure(&self, f: Figure, disk: DiskUnit) -> Option<String> {
        let raw = self.raw(f.tres, f.output, f.pick, f.part)?;
        Some(match f.part {
            Part::Node => self.node_name(raw),
            Part::Task => raw.to_string(),
            Part::Value => match f.tres {
                UsageTres::Cpu => spur_slurm::time::duration_full(raw / 1000),
                UsageTres::FsDisk => disk_text(raw, disk, self.noconvert),
                _ => convert_num_unit(raw, Unit::None, self.noconvert),
            },
        })
    }
}

/// A resource as accounting numbers it: (type, name, TRES id). The GPU
/// figures follow gres/gpu (1001), as slurmdbd adds them after it.
pub fn tres_id(tres: UsageTres) -> (&'static str, Option<&'static str>, i64) {
    match tres {
        UsageTres::Cpu => ("cpu", None, 1),
        UsageTres::Mem => ("mem", None, 2),
        UsageTres::Energy => ("energy", None, 3),
        UsageTres::FsDisk => ("fs", Some("disk"), 6),
        UsageTres::Vmem => ("vmem", None, 7),
        UsageTres::Pages => ("pages", None, 8),
        UsageTres::GpuMem => ("gres", Some("gpumem"), 1002),
        UsageTres::GpuUtil => ("gres", Some("gpuutil"), 1003),
    }
}

/// One figure of every resource that has it, raw (CPU in milliseconds,
/// sizes in bytes), in TRES id order: the lists of the JSON documents'
/// `tres.requested` (in) and `tres.consumed` (out).
pub fn tres_items(
    usage: &Usage,
    output: bool,
    pick: Pick,
) -> Vec<(&'static str, Option<&'static str>, i64, u64)> {
    let view = View {
        usage,
        nodes: Vec::new(),
        noconvert: true,
    };
    let mut items: Vec<_> = UsageTres::ALL
        .iter()
        .filter_map(|&t| {
            let raw = view.raw(t, output, pick, Part::Value)?;
            let (kind, name, id) = tres_id(t);
            Some((kind, name, id, raw))
        })
        .collect();
    items.sort_by_key(|i| i.2);
    items
}

/// A value in a TRES string: CPU as a time, GPU utilisation as it is,
/// the rest in the largest exact unit.
fn tres_value(tres: UsageTres, raw: u64, noconvert: bool) -> String {
    match tres {
        UsageTres::Cpu => spur_slurm::time::duration_full(raw / 1000),
        UsageTres::GpuUtil => raw.to_string(),
        _ => convert_num_unit(raw, Unit::None, noconvert),
    }
}

/// Bytes read or written as sacct's and sstat's `_print_small_double`:
/// `0`, a fraction of a MiB as `0.08M`, else the largest exact unit.
fn disk_text(bytes: u64, unit: DiskUnit, noconvert: bool) -> String {
    let (value, start) = match unit {
        DiskUnit::Mebi => (bytes as f64 / 1_048_576.0, Unit::Mega),
        DiskUnit::Bytes => (bytes as f64, Unit::None),
    };
    if value == 0.0 {
        "0".to_string()
    } else if value <= 1.0 {
        format!("{value:.2}M")
    } else {
        convert_num_unit_f64(value, start, noconvert)
    }
}

#[cfg(test)]
mod tests {
    use spur_proto::TresUsage;

    use super::*;

    /// Two tasks on two nodes, as Slurm's gres.shtml example has them.
    fn two_tasks() -> Usage {
        let mut all = Usage::default();
        for (node, task, mem, disk) in [
            (0, 0, 643_837_952u64, 87_613u64),
            (1, 1, 643_837_952, 87_614),
        ] {
            let mut one = Usage {
                tasks: 1,
                ..Usage::default()
            };
            let mut put = |tres, v| {
                one.input.insert(tres, TresUsage::one(v, node, Some(task)));
            };
            put(UsageTres::Cpu, 11_400);
            put(UsageTres::FsDisk, disk);
            put(UsageTres::GpuMem, 38_027_657_216);
            put(UsageTres::GpuUtil, 100);
            put(UsageTres::Mem, mem);
            put(UsageTres::Pages, 0);
            put(UsageTres::Vmem, 0);
            one.input
                .insert(UsageTres::Energy, TresUsage::one(0, node, None));
            one.output.insert(
                UsageTres::FsDisk,
                TresUsage::one(2_621_440, node, Some(task)),
            );
            all.merge(&one);
        }
        all
    }

    #[test]
    fn tres_strings_read_as_slurms() {
        let usage = two_tasks();
        let v = View::of_step(&usage, "gb[001-002]", false);
        assert_eq!(
            v.tres(false, Pick::Ave, Part::Value),
            "cpu=00:00:11,energy=0,fs/disk=87613,gres/gpumem=36266M,gres/gpuutil=100,\
             mem=628748K,pages=0,vmem=0"
        );
        assert_eq!(
            v.tres(false, Pick::Tot, Part::Value),
            "cpu=00:00:22,energy=0,fs/disk=175227,gres/gpumem=72532M,gres/gpuutil=200,\
             mem=1257496K,pages=0,vmem=0"
        );
        assert_eq!(
            v.tres(false, Pick::Max, Part::Node),
            "cpu=gb001,energy=gb001,fs/disk=gb002,gres/gpumem=gb001,gres/gpuutil=gb001,\
             mem=gb001,pages=gb001,vmem=gb001"
        );
        assert_eq!(
            v.tres(false, Pick::Max, Part::Task),
            "cpu=0,fs/disk=1,gres/gpumem=0,gres/gpuutil=0,mem=0,pages=0,vmem=0",
            "energy has no task"
        );
        assert_eq!(v.tres(true, Pick::Max, Part::Value), "fs/disk=2.50M");
        let figure = |f| v.figure(f, DiskUnit::Mebi);
        let max = |t| Figure::input(t, Pick::Max, Part::Value);
        assert_eq!(figure(max(UsageTres::Mem)).as_deref(), Some("628748K"));
        assert_eq!(
            figure(Figure::input(UsageTres::Cpu, Pick::Min, Part::Value)).as_deref(),
            Some("00:00:11")
        );
        assert_eq!(figure(max(UsageTres::FsDisk)).as_deref(), Some("0.08M"));
        assert_eq!(
            v.figure(max(UsageTres::FsDisk), DiskUnit::Bytes).as_deref(),
            Some("87614")
        );
        assert_eq!(
            figure(Figure::output(UsageTres::FsDisk, Pick::Max, Part::Value)).as_deref(),
            Some("2.50M")
        );
        assert_eq!(
            figure(Figure::input(UsageTres::Mem, Pick::Max, Part::Node)).as_deref(),
            Some("gb001")
        );
        assert_eq!(
            figure(Figure::input(UsageTres::Mem, Pick::Max, Part::Task)).as_deref(),
            Some("0")
        );
        let raw = View {
            noconvert: true,
            ..v.clone()
        };
        assert_eq!(
            raw.figure(max(UsageTres::Mem), DiskUnit::Mebi).as_deref(),
            Some("643837952")
        );
    }

    #[test]
    fn small_byte_counts_print_as_fractions_of_a_mebibyte() {
        assert_eq!(disk_text(0, DiskUnit::Mebi, false), "0");
        assert_eq!(disk_text(1_048_576, DiskUnit::Mebi, false), "1.00M");
        assert_eq!(disk_text(1_572_864, DiskUnit::Mebi, false), "1.50M");
        assert_eq!(disk_text(314_572_800, DiskUnit::Mebi, false), "300M");
        assert_eq!(disk_text(2 << 30, DiskUnit::Mebi, false), "2G");
        assert_eq!(disk_text(2 << 20, DiskUnit::Bytes, false), "2M");
    }
}
