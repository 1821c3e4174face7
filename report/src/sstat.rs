//! sstat's report (Slurm 22.05 `src/sstat/`): its field table (names,
//! widths, print routines, in its order, which `--helpformat` lists and
//! `-o` prefixes match), and one line per running step from what its
//! nodes' agents last sampled. Figures are the ones sacct prints
//! ([`crate::usage`]), except that bytes read and written stay bytes.

use spur_proto::{StepId, StepInfo, UsageTres};

use crate::print_fields::Style;
use crate::usage::{DiskUnit, Figure, Part, Pick, View};

/// Which field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// AveCPUFreq (spur reads no CPU frequency: 0).
    AveCpuFreq,
    /// ConsumedEnergy (spur measures none: 0).
    ConsumedEnergy,
    /// ConsumedEnergyRaw.
    ConsumedEnergyRaw,
    /// JobID: `J.S`.
    JobId,
    /// One figure of the usage.
    Figure(Figure),
    /// Nodelist.
    Nodelist,
    /// NTasks.
    NTasks,
    /// Pids (spur does not report them).
    Pids,
    /// ReqCPUFreq, ...Min, ...Max, ...Gov.
    ReqCpuFreq,
    /// A TRES usage string.
    Tres {
        /// Written rather than read.
        output: bool,
        /// Which figure.
        pick: Pick,
        /// Which part of it.
        part: Part,
    },
}

/// How a field prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Str,
    Uint,
}

/// One entry of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// The name.
    pub name: &'static str,
    /// The default width; negative is left-aligned.
    pub width: i32,
    kind: Kind,
    /// Which field.
    pub field: Field,
}

const fn d(width: i32, name: &'static str, kind: Kind, field: Field) -> FieldDef {
    FieldDef {
        name,
        width,
        kind,
        field,
    }
}

const fn fig(tres: UsageTres, output: bool, pick: Pick, part: Part) -> Field {
    Field::Figure(Figure {
        tres,
        output,
        pick,
        part,
    })
}

const fn tres(output: bool, pick: Pick, part: Part) -> Field {
    Field::Tres { output, pick, part }
}

use Kind::{Str, Uint};
use Part::{Node, Task, Value};
use Pick::{Ave, Max, Min, Tot};
use UsageTres::{Cpu, FsDisk, Mem, Pages, Vmem};

/// Slurm 22.05's sstat field table, in its order.
pub const FIELDS: &[FieldDef] = &[
    d(10, "AveCPU", Str, fig(Cpu, false, Ave, Value)),
    d(10, "AveCPUFreq", Str, Field::AveCpuFreq),
    d(12, "AveDiskRead", Str, fig(FsDisk, false, Ave, Value)),
    d(12, "AveDiskWrite", Str, fig(FsDisk, true, Ave, Value)),
    d(10, "AvePages", Str, fig(Pages, false, Ave, Value)),
    d(10, "AveRSS", Str, fig(Mem, false, Ave, Value)),
    d(10, "AveVMSize", Str, fig(Vmem, false, Ave, Value)),
    d(14, "ConsumedEnergy", Str, Field::ConsumedEnergy),
    d(17, "ConsumedEnergyRaw", Uint, Field::ConsumedEnergyRaw),
    d(-12, "JobID", Str, Field::JobId),
    d(12, "MaxDiskRead", Str, fig(FsDisk, false, Max, Value)),
    d(15, "MaxDiskReadNode", Str, fig(FsDisk, false, Max, Node)),
    d(15, "MaxDiskReadTask", Uint, fig(FsDisk, false, Max, Task)),
    d(12, "MaxDiskWrite", Str, fig(FsDisk, true, Max, Value)),
    d(16, "MaxDiskWriteNode", Str, fig(FsDisk, true, Max, Node)),
    d(16, "MaxDiskWriteTask", Uint, fig(FsDisk, true, Max, Task)),
    d(8, "MaxPages", Str, fig(Pages, false, Max, Value)),
    d(12, "MaxPagesNode", Str, fig(Pages, false, Max, Node)),
    d(14, "MaxPagesTask", Uint, fig(Pages, false, Max, Task)),
    d(10, "MaxRSS", Str, fig(Mem, false, Max, Value)),
    d(10, "MaxRSSNode", Str, fig(Mem, false, Max, Node)),
    d(10, "MaxRSSTask", Uint, fig(Mem, false, Max, Task)),
    d(10, "MaxVMSize", Str, fig(Vmem, false, Max, Value)),
    d(14, "MaxVMSizeNode", Str, fig(Vmem, false, Max, Node)),
    d(14, "MaxVMSizeTask", Uint, fig(Vmem, false, Max, Task)),
    d(10, "MinCPU", Str, fig(Cpu, false, Min, Value)),
    d(10, "MinCPUNode", Str, fig(Cpu, false, Min, Node)),
    d(10, "MinCPUTask", Uint, fig(Cpu, false, Min, Task)),
    d(20, "Nodelist", Str, Field::Nodelist),
    d(8, "NTasks", Uint, Field::NTasks),
    d(20, "Pids", Str, Field::Pids),
    d(10, "ReqCPUFreq", Str, Field::ReqCpuFreq),
    d(13, "ReqCPUFreqMin", Str, Field::ReqCpuFreq),
    d(13, "ReqCPUFreqMax", Str, Field::ReqCpuFreq),
    d(13, "ReqCPUFreqGov", Str, Field::ReqCpuFreq),
    d(14, "TRESUsageInAve", Str, tres(false, Ave, Value)),
    d(14, "TRESUsageInMax", Str, tres(false, Max, Value)),
    d(18, "TRESUsageInMaxNode", Str, tres(false, Max, Node)),
    d(18, "TRESUsageInMaxTask", Str, tres(false, Max, Task)),
    d(14, "TRESUsageInMin", Str, tres(false, Min, Value)),
    d(18, "TRESUsageInMinNode", Str, tres(false, Min, Node)),
    d(18, "TRESUsageInMinTask", Str, tres(false, Min, Task)),
    d(14, "TRESUsageInTot", Str, tres(false, Tot, Value)),
    d(15, "TRESUsageOutAve", Str, tres(true, Ave, Value)),
    d(15, "TRESUsageOutMax", Str, tres(true, Max, Value)),
    d(19, "TRESUsageOutMaxNode", Str, tres(true, Max, Node)),
    d(19, "TRESUsageOutMaxTask", Str, tres(true, Max, Task)),
    d(15, "TRESUsageOutMin", Str, tres(true, Min, Value)),
    d(19, "TRESUsageOutMinNode", Str, tres(true, Min, Node)),
    d(19, "TRESUsageOutMinTask", Str, tres(true, Min, Task)),
    d(15, "TRESUsageOutTot", Str, tres(true, Tot, Value)),
];

/// The fields sstat prints by default (Slurm's STAT_FIELDS).
pub const DEFAULT_FORMAT: &str = "jobid,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,\
maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,\
mincputask,avecpu,ntasks,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,consumedenergy,\
maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,\
maxdiskwritetask,avediskwrite,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,\
tresusageinmin,tresusageinminn,tresusageinmint,tresusageintot,tresusageoutave,\
tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,tresusageoutmin,tresusageoutminn,\
tresusageoutmint,tresusageouttot";

/// A chosen field and its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The field.
    pub def: &'static FieldDef,
    /// Its width (`name%width`, else the default).
    pub width: i32,
}

/// `-o`'s list: each name a case-insensitive prefix of a field, the first
/// in table order, with an optional `%width`. The error is sstat's.
pub fn parse_format(list: &str) -> Result<Vec<Column>, String> {
    let mut columns = Vec::new();
    for item in list.split(',').filter(|i| !i.is_empty()) {
        let (def, width) = crate::print_fields::format_item(item, FIELDS, |f| f.name, |f| f.width)
            .map_err(|name| format!("sstat: error: Invalid field requested: \"{name}\"\n"))?;
        columns.push(Column { def, width });
    }
    Ok(columns)
}

/// `sstat --helpformat`: the names, four to a line, 19 wide.
pub fn help_format() -> String {
    crate::print_fields::help_format(FIELDS.iter().map(|f| f.name), 19)
}

/// The header (none with `-n`), printed before any job is looked at.
pub fn header(columns: &[Column], style: Style<'_>) -> String {
    let mut out = String::new();
    style.header(&mut out, columns.iter().map(|c| (c.def.name, c.width)));
    out
}

/// One step's line.
pub fn line(step: &StepInfo, columns: &[Column], style: Style<'_>, noconvert: bool) -> String {
    let empty = spur_proto::Usage::default();
    let view = View::of_step(
        step.usage.as_ref().unwrap_or(&empty),
        &step.nodes,
        noconvert,
    );
    let mut out = String::new();
    for (i, c) in columns.iter().enumerate() {
        let last = i + 1 == columns.len();
        let text: Option<String> = match c.def.field {
            Field::AveCpuFreq | Field::ConsumedEnergy => Some("0".into()),
            Field::ConsumedEnergyRaw => Some("0".into()),
            Field::JobId => Some(format!("{}.{}", step.job_id, step.step)),
            Field::Figure(f) => view.figure(f, DiskUnit::Bytes),
            Field::Nodelist => Some(step.nodes.clone()),
            // The tasks the nodes' samples cover (Slurm's sum over the
            // nodes that answered), else the step's.
            Field::NTasks => Some(
                step.usage
                    .as_ref()
                    .map_or(step.num_tasks, |u| u.tasks)
                    .to_string(),
            ),
            Field::Pids => None,
            // The batch step asks for no frequency (0); srun steps leave
            // it unset.
            Field::ReqCpuFreq => Some(
                if step.step == StepId::Batch {
                    "0"
                } else {
                    "Unknown"
                }
                .into(),
            ),
            Field::Tres { output, pick, part } => {
                Some(view.tres(output, pick, part)).filter(|t| !t.is_empty())
            }
        };
        match c.def.kind {
            Kind::Uint => style.uint(&mut out, c.width, text.and_then(|t| t.parse().ok()), last),
            Kind::Str => style.text(&mut out, c.width, text.as_deref(), last),
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use spur_proto::{TresUsage, Usage};

    use super::*;
    use crate::print_fields::Parsable;

    fn running_step() -> StepInfo {
        let mut usage = Usage {
            tasks: 2,
            ..Usage::default()
        };
        usage.input.insert(
            UsageTres::Mem,
            TresUsage {
                max: spur_proto::Extreme {
                    value: 2 << 20,
                    node: 1,
                    task: Some(1),
                },
                min: spur_proto::Extreme {
                    value: 1 << 20,
                    node: 0,
                    task: Some(0),
                },
                tot: 3 << 20,
            },
        );
        usage
            .input
            .insert(UsageTres::Cpu, TresUsage::one(61_000, 0, Some(0)));
        usage
            .input
            .insert(UsageTres::FsDisk, TresUsage::one(87_613, 0, Some(0)));
        StepInfo {
            job_id: 12,
            step: StepId::Numbered(0),
            array: None,
            name: "bash".into(),
            user_id: 0,
            user_name: "root".into(),
            partition: "batch".into(),
            start_time: 0,
            time_limit: None,
            nodes: "gb[001-002]".into(),
            node_count: 2,
            num_tasks: 2,
            num_cpus: 2,
            tres: None,
            tres_per_step: None,
            tres_per_node: None,
            tres_per_task: None,
            dist: None,
            srun: None,
            usage: Some(usage),
        }
    }

    #[test]
    fn a_line_shows_the_samples_with_bytes_left_as_bytes() {
        let columns = parse_format(
            "JobID,MaxRSS,MaxRSSNode,maxrsst,AveRSS,MinCPU,AveCPU,NTasks,MaxDiskRead,\
             ReqCPUFreqMin,TRESUsageInMaxN,ConsumedEnergy,Pids",
        )
        .expect("fields");
        let style = Style {
            parsable: Parsable::NoEnding,
            delimiter: None,
        };
        assert_eq!(
            header(&columns, style),
            "JobID|MaxRSS|MaxRSSNode|MaxRSSTask|AveRSS|MinCPU|AveCPU|NTasks|MaxDiskRead|\
             ReqCPUFreqMin|TRESUsageInMaxNode|ConsumedEnergy|Pids\n"
        );
        assert_eq!(
            line(&running_step(), &columns, style, false),
            "12.0|2M|gb002|1|1.50M|00:01:01|00:00:30|2|87613|Unknown|cpu=gb001,fs/disk=gb001,\
             mem=gb002|0|\n"
        );
    }

    #[test]
    fn the_default_format_names_47_fields_and_unknown_ones_are_refused() {
        let columns = parse_format(DEFAULT_FORMAT).expect("fields");
        assert_eq!(columns.len(), 47);
        assert_eq!(columns[0].def.name, "JobID");
        assert_eq!(columns[34].def.name, "TRESUsageInMaxTask");
        let text = header(&columns, Style::default());
        assert!(text.starts_with("JobID         MaxVMSize  MaxVMSizeNode  MaxVMSizeTask "));
        assert_eq!(
            parse_format("MaxRSS,bogus"),
            Err("sstat: error: Invalid field requested: \"bogus\"\n".into())
        );
        assert_eq!(parse_format("maxrss%4").expect("ok")[0].width, 4);
        assert_eq!(
            parse_format("maxrss%0").expect("ok")[0].width,
            10,
            "atoi's 0: the default"
        );
        assert_eq!(parse_format("maxrss%x").expect("ok")[0].width, 10);
        assert_eq!(help_format().lines().count(), FIELDS.len().div_ceil(4));
    }
}
