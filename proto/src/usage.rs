//! What a step's tasks used (Slurm's jobacct_gather records): per
//! trackable resource the largest and smallest task's reading, each with
//! the node and task it came from, and the total over the tasks. Agents
//! fold their tasks into one record per node; the controller folds the
//! nodes' records into the step's with the same [`Usage::merge`], as
//! slurmstepd and slurmctld aggregate theirs. sacct, sstat and seff read
//! the result.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A resource whose use is measured, in the order Slurm prints them
/// (its usage strings are sorted by text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum UsageTres {
    /// CPU time, milliseconds.
    Cpu,
    /// Energy, joules (spur measures none: always 0).
    Energy,
    /// Bytes read (in) or written (out) by the tasks' system calls.
    FsDisk,
    /// GPU memory the tasks' processes hold, bytes (NVML).
    GpuMem,
    /// SM utilisation of the tasks' processes, percent summed over GPUs
    /// (NVML).
    GpuUtil,
    /// Resident memory, bytes.
    Mem,
    /// Major page faults.
    Pages,
    /// Virtual memory, bytes.
    Vmem,
}

impl UsageTres {
    /// Every one, in printing order.
    pub const ALL: [UsageTres; 8] = [
        UsageTres::Cpu,
        UsageTres::Energy,
        UsageTres::FsDisk,
        UsageTres::GpuMem,
        UsageTres::GpuUtil,
        UsageTres::Mem,
        UsageTres::Pages,
        UsageTres::Vmem,
    ];

    /// The name in Slurm's TRES strings.
    pub fn name(self) -> &'static str {
        match self {
            UsageTres::Cpu => "cpu",
            UsageTres::Energy => "energy",
            UsageTres::FsDisk => "fs/disk",
            UsageTres::GpuMem => "gres/gpumem",
            UsageTres::GpuUtil => "gres/gpuutil",
            UsageTres::Mem => "mem",
            UsageTres::Pages => "pages",
            UsageTres::Vmem => "vmem",
        }
    }
}

/// The largest (or smallest) reading and where it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extreme {
    /// The value.
    pub value: u64,
    /// The node, as an index into the step's node list.
    pub node: u32,
    /// The task (global task id); None for energy, which Slurm keeps per
    /// node only.
    pub task: Option<u32>,
}

/// One resource over a step's tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TresUsage {
    /// The task that used the most.
    pub max: Extreme,
    /// The task that used the least.
    pub min: Extreme,
    /// The sum over the tasks.
    pub tot: u64,
}

impl TresUsage {
    /// One task's reading.
    pub fn one(value: u64, node: u32, task: Option<u32>) -> TresUsage {
        let at = Extreme { value, node, task };
        TresUsage {
            max: at,
            min: at,
            tot: value,
        }
    }

    /// Folds `other` in: the larger maximum and the smaller minimum keep
    /// their node and task (the first on a tie), totals add.
    pub fn merge(&mut self, other: &TresUsage) {
        if other.max.value > self.max.value {
            self.max = other.max;
        }
        if other.min.value < self.min.value {
            self.min = other.min;
        }
        self.tot = self.tot.saturating_add(other.tot);
    }
}

/// What a step's tasks (on one node, or on all of its nodes) used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tasks folded in.
    pub tasks: u32,
    /// What the tasks took in: CPU, memory, bytes read, GPU use.
    pub input: BTreeMap<UsageTres, TresUsage>,
    /// What they put out: bytes written (and energy, 0).
    pub output: BTreeMap<UsageTres, TresUsage>,
    /// User CPU time, microseconds.
    pub user_cpu_us: u64,
    /// System CPU time, microseconds.
    pub system_cpu_us: u64,
}

impl Usage {
    /// Folds `other` (more tasks of the same step) in.
    pub fn merge(&mut self, other: &Usage) {
        self.tasks += other.tasks;
        for (mine, theirs) in [
            (&mut self.input, &other.input),
            (&mut self.output, &other.output),
        ] {
            for (tres, u) in theirs {
                mine.entry(*tres).and_modify(|m| m.merge(u)).or_insert(*u);
            }
        }
        self.user_cpu_us = self.user_cpu_us.saturating_add(other.user_cpu_us);
        self.system_cpu_us = self.system_cpu_us.saturating_add(other.system_cpu_us);
    }

    /// Whether any reading was taken.
    pub fn measured(&self) -> bool {
        !self.input.is_empty() || !self.output.is_empty()
    }

    /// The per-task mean of a total: Slurm's Ave, a whole-number
    /// division by the task count.
    pub fn ave(&self, tot: u64) -> u64 {
        tot / u64::from(self.tasks.max(1))
    }
}

/// A running step's usage on one node, as an agent last sampled it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveUsage {
    /// The job.
    pub job_id: u32,
    /// The step ([`crate::BATCH_STEP`] for the batch script).
    pub step_id: u32,
    /// What its tasks here have used so far.
    pub usage: Usage,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node_usage(node: u32, tasks: &[(u32, u64, u64)]) -> Usage {
        let mut u = Usage::default();
        for &(task, cpu, mem) in tasks {
            let mut one = Usage {
                tasks: 1,
                ..Usage::default()
            };
            one.input
                .insert(UsageTres::Cpu, TresUsage::one(cpu, node, Some(task)));
            one.input
                .insert(UsageTres::Mem, TresUsage::one(mem, node, Some(task)));
            one.input
                .insert(UsageTres::Energy, TresUsage::one(0, node, None));
            u.merge(&one);
        }
        u
    }

    #[test]
    fn merging_keeps_where_the_extremes_were_and_sums_totals() {
        let mut step = node_usage(0, &[(0, 500, 100), (1, 700, 300)]);
        step.merge(&node_usage(1, &[(2, 200, 900), (3, 700, 50)]));
        assert_eq!(step.tasks, 4);
        let cpu = step.input[&UsageTres::Cpu];
        assert_eq!(
            cpu.max,
            Extreme {
                value: 700,
                node: 0,
                task: Some(1)
            },
            "a tie keeps the first"
        );
        assert_eq!(
            (cpu.min.value, cpu.min.node, cpu.min.task),
            (200, 1, Some(2))
        );
        assert_eq!(cpu.tot, 2100);
        assert_eq!(step.ave(cpu.tot), 525);
        let mem = step.input[&UsageTres::Mem];
        assert_eq!(
            (mem.max.value, mem.max.node, mem.max.task),
            (900, 1, Some(2))
        );
        assert_eq!((mem.min.value, mem.min.task), (50, Some(3)));
        let energy = step.input[&UsageTres::Energy];
        assert_eq!((energy.max.node, energy.max.task), (0, None));
        assert!(step.measured());
        assert!(!Usage::default().measured());
    }

    #[test]
    fn resources_sort_as_slurm_prints_them() {
        let mut names: Vec<&str> = UsageTres::ALL.iter().map(|t| t.name()).collect();
        let printed = names.clone();
        names.sort_unstable();
        assert_eq!(names, printed);
    }
}
