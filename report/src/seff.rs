//! seff's efficiency report of one job (Slurm 22.05's
//! `contribs/seff/seff`): its CPU time against its cores' wall time, its
//! largest memory use against what it was given, from the job's history
//! record, and, where spur's agents sampled the GPUs through NVML, the
//! GPUs' use against those allocated (a spur addition; seff has none).

use std::fmt::Write as _;

use spur_proto::{HistoryJob, JobStateName, UsageTres};

// seff's `time2str` (`[D-]HH:MM:SS`) is scontrol's duration.
use spur_slurm::time::duration_full as time2str;

use crate::sacct::field::{job_cpus, job_elapsed, job_nodes};

/// seff's `kbytes2str`: `512.00 KB`, `1.46 MB`, `0.00 MB` for none.
pub fn kbytes2str(kib: f64) -> String {
    if kib == 0.0 {
        return "0.00 MB".to_string();
    }
    let exp = (kib.ln() / 1024f64.ln()).floor().max(0.0) as i32;
    let units = ["K", "M", "G", "T", "P", "E"];
    let unit = units.get(exp as usize).copied().unwrap_or("");
    format!("{:.2} {unit}B", kib / 1024f64.powi(exp))
}

/// The report of `job` (its steps with their usage), with `now` for a
/// running job's wall time and `debug` for `-d`'s raw figures first.
pub fn report(job: &HistoryJob, cluster: &str, now: u64, debug: bool) -> String {
    let ncpus = u64::from(job_cpus(job)).max(1);
    let nnodes = u64::from(job_nodes(job)).max(1);
    let (reqmem_kib, pernode) = if job.req_mem_per_cpu {
        (job.req_mem_mb * 1024 * ncpus, false)
    } else {
        (job.req_mem_mb * 1024 * nnodes, true)
    };
    let walltime = job_elapsed(job, now);
    let state = job.state.as_str();
    let array = job
        .array_job_id
        .zip(job.array_task_id)
        .map(|(a, t)| format!("{a}_{t}"));
    let (mut cpu_us, mut mem_kib, mut ntasks) = (0u64, 0f64, 0u64);
    let (mut gpu_util, mut gpu_mem, mut gpu_measured) = (0u64, 0u64, false);
    for step in &job.steps {
        cpu_us += step.user_cpu_us + step.system_cpu_us;
        let Some(usage) = step.usage.as_ref() else {
            continue;
        };
        if let Some(mem) = usage.input.get(&UsageTres::Mem) {
            let kib = mem.max.value as f64 / 1024.0;
            if mem_kib < kib {
                mem_kib = kib;
                ntasks = u64::from(step.ntasks);
            }
        }
        if let Some(util) = usage.input.get(&UsageTres::GpuUtil) {
            gpu_measured = true;
            gpu_util = gpu_util.max(util.tot);
        }
        if let Some(mem) = usage.input.get(&UsageTres::GpuMem) {
            gpu_mem = gpu_mem.max(mem.tot);
        }
    }
    // seff adds the seconds and the rounded microseconds apart.
    let cput = cpu_us / 1_000_000 + ((cpu_us % 1_000_000) as f64 / 1e6 + 0.5) as u64;
    let mem = mem_kib * ntasks as f64;
    let mut out = String::new();
    if debug {
        let _ = writeln!(
            out,
            "Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes Ntasks \
             Reqmem PerNode Cput Walltime Mem ExitStatus"
        );
        let _ = writeln!(
            out,
            "Slurm data: {} {} {} {} {state} {cluster} {ncpus} {nnodes} {ntasks} {reqmem_kib} {} \
             {cput} {walltime} {mem} {}\n",
            job.job_id,
            array.as_deref().unwrap_or(""),
            job.user_name,
            job.group_name,
            u8::from(pernode),
            job.exit_code
        );
    }
    let _ = writeln!(out, "Job ID: {}", job.job_id);
    if let Some(array) = &array {
        let _ = writeln!(out, "Array Job ID: {array}");
    }
    let _ = writeln!(out, "Cluster: {cluster}");
    let _ = writeln!(out, "User/Group: {}/{}", job.user_name, job.group_name);
    let pending = job.state == JobStateName::Pending;
    if pending || job.state == JobStateName::Running {
        let _ = writeln!(out, "State: {state}");
    } else {
        let _ = writeln!(out, "State: {state} (exit code {})", job.exit_code);
    }
    if ncpus == 1 {
        let _ = writeln!(out, "Cores: {ncpus}");
    } else {
        let _ = writeln!(out, "Nodes: {nnodes}");
        let _ = writeln!(out, "Cores per node: {}", ncpus / nnodes);
    }
    if pending {
        out.push_str("Efficiency not available for jobs in the PENDING state.\n");
        return out;
    }
    let corewalltime = walltime * ncpus;
    let cpu_eff = if corewalltime == 0 {
        0.0
    } else {
        cput as f64 / corewalltime as f64 * 100.0
    };
    let _ = writeln!(out, "CPU Utilized: {}", time2str(cput));
    let _ = writeln!(
        out,
        "CPU Efficiency: {cpu_eff:.2}% of {} core-walltime",
        time2str(corewalltime)
    );
    let _ = writeln!(out, "Job Wall-clock time: {}", time2str(walltime));
    let estimated = if ntasks == 1 {
        ""
    } else {
        " (estimated maximum)"
    };
    let _ = writeln!(out, "Memory Utilized: {}{estimated}", kbytes2str(mem));
    let reqmem = reqmem_kib as f64;
    let mem_eff = if reqmem_kib == 0 {
        0.0
    } else {
        mem / reqmem * 100.0
    };
    if ntasks == 1 {
        let _ = writeln!(
            out,
            "Memory Efficiency: {mem_eff:.2}% of {}",
            kbytes2str(reqmem)
        );
    } else if pernode {
        let _ = writeln!(
            out,
            "Memory Efficiency: {mem_eff:.2}% of {} ({}/node)",
            kbytes2str(reqmem),
            kbytes2str(reqmem / nnodes as f64)
        );
    } else {
        let _ = writeln!(
            out,
            "Memory Efficiency: {mem_eff:.2}% of {} ({}/core)",
            kbytes2str(reqmem),
            kbytes2str(reqmem / ncpus as f64)
        );
    }
    let gpus = job.allocated.map_or(job.requested.gpus, |a| a.gpus);
    if gpus > 0 {
        if gpu_measured {
            let _ = writeln!(
                out,
                "GPU Efficiency: {:.2}% of {gpus} GPUs (SM use at its sampled peak)",
                gpu_util as f64 / f64::from(gpus)
            );
            let _ = writeln!(
                out,
                "GPU Memory Utilized: {} (sampled peak)",
                kbytes2str(gpu_mem as f64 / 1024.0)
            );
        } else {
            let _ = writeln!(
                out,
                "GPU Efficiency: not measured ({gpus} GPUs; no GPU use was sampled on the job's nodes)"
            );
        }
    }
    if job.state == JobStateName::Running {
        let _ = writeln!(
            out,
            "WARNING: Efficiency statistics may be misleading for RUNNING jobs."
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use spur_proto::{HistoryStep, StepId, Tres, TresUsage, Usage};

    use super::*;

    #[test]
    fn sizes_and_times_print_as_seffs() {
        assert_eq!(kbytes2str(0.0), "0.00 MB");
        assert_eq!(kbytes2str(512.0), "512.00 KB");
        assert_eq!(kbytes2str(1500.0), "1.46 MB");
        assert_eq!(kbytes2str(32.0 * 1024.0 * 1024.0), "32.00 GB");
        assert_eq!(time2str(359), "00:05:59");
        assert_eq!(time2str(93_784), "1-02:03:04");
    }

    fn job(state: JobStateName) -> HistoryJob {
        let step = |step, ntasks, cpu_us: u64, mem: Option<u64>, gpu: Option<(u64, u64)>| {
            let usage = mem.map(|m| {
                let mut u = Usage {
                    tasks: ntasks,
                    ..Usage::default()
                };
                u.input
                    .insert(UsageTres::Mem, TresUsage::one(m, 0, Some(0)));
                if let Some((util, gmem)) = gpu {
                    u.input
                        .insert(UsageTres::GpuUtil, TresUsage::one(util, 0, Some(0)));
                    u.input
                        .insert(UsageTres::GpuMem, TresUsage::one(gmem, 0, Some(0)));
                }
                u
            });
            HistoryStep {
                step,
                name: String::new(),
                state,
                cancelled_by: None,
                exit_code: 0,
                exit_signal: 0,
                start_time: 100,
                end_time: Some(160),
                nodes: "gb001".into(),
                node_count: 1,
                ntasks,
                allocated: Tres::default(),
                layout: None,
                user_cpu_us: cpu_us,
                system_cpu_us: 0,
                usage,
            }
        };
        HistoryJob {
            job_id: 31,
            array_job_id: None,
            array_task_id: None,
            array_task_str: None,
            name: "train".into(),
            user_id: 1000,
            user_name: "alice".into(),
            group_id: 1000,
            group_name: "alice".into(),
            account: None,
            partition: "batch".into(),
            qos: "normal".into(),
            state,
            cancelled_by: None,
            reason: "None".into(),
            exit_code: 0,
            exit_signal: 0,
            derived_exit_code: 0,
            derived_exit_signal: 0,
            submit_time: 90,
            eligible_time: Some(90),
            start_time: Some(100),
            end_time: Some(160),
            time_limit: None,
            priority: 1,
            nodes: "gb001".into(),
            requested: Tres {
                cpus: 4,
                mem_mb: 4096,
                nodes: 1,
                billing: 4,
                gpus: 2,
            },
            req_mem_mb: 1024,
            req_mem_per_cpu: true,
            allocated: None,
            work_dir: "/tmp".into(),
            comment: None,
            constraints: None,
            steps: vec![
                step(StepId::Batch, 1, 30_000_000, Some(10 << 20), None),
                step(
                    StepId::Numbered(0),
                    2,
                    90_400_000,
                    Some(600 << 20),
                    Some((150, 3 << 30)),
                ),
            ],
        }
    }

    #[test]
    fn a_finished_job_reports_its_cpu_memory_and_gpus() {
        assert_eq!(
            report(&job(JobStateName::Completed), "e2e", 0, false),
            "Job ID: 31\n\
             Cluster: e2e\n\
             User/Group: alice/alice\n\
             State: COMPLETED (exit code 0)\n\
             Nodes: 1\n\
             Cores per node: 4\n\
             CPU Utilized: 00:02:00\n\
             CPU Efficiency: 50.00% of 00:04:00 core-walltime\n\
             Job Wall-clock time: 00:01:00\n\
             Memory Utilized: 1.17 GB (estimated maximum)\n\
             Memory Efficiency: 29.30% of 4.00 GB (1.00 GB/core)\n\
             GPU Efficiency: 75.00% of 2 GPUs (SM use at its sampled peak)\n\
             GPU Memory Utilized: 3.00 GB (sampled peak)\n"
        );
    }

    #[test]
    fn a_pending_job_has_no_efficiency() {
        let mut j = job(JobStateName::Pending);
        j.steps.clear();
        j.requested.cpus = 1;
        assert_eq!(
            report(&j, "e2e", 0, false),
            "Job ID: 31\nCluster: e2e\nUser/Group: alice/alice\nState: PENDING\nCores: 1\n\
             Efficiency not available for jobs in the PENDING state.\n"
        );
    }
}
