//! `scontrol show step`'s record: a running step as Slurm 22.05's
//! `slurm_sprint_job_step_info` (`src/api/job_step_info.c`) lays it out.
//! Pure.

use spur_slurm::locale::Locale;

use super::ShowOpts;
use spur_proto::StepInfo;

/// A step's record.
pub fn render_step(step: &StepInfo, opts: ShowOpts, locale: &Locale) -> String {
    let end = opts.line_end();
    let mut out = String::new();
    let mut line = |text: String, last: bool| {
        out.push_str(&text);
        if !last {
            out.push_str(end);
        }
    };
    let id = match step.array {
        Some((array, task)) => format!("{array}_{task}.{}", step.step),
        None => format!("{}.{}", step.job_id, step.step),
    };
    line(
        format!(
            "StepId={id} UserId={} StartTime={} TimeLimit={}",
            step.user_id,
            locale.time_or_unknown(step.start_time),
            spur_slurm::time::limit_full(step.time_limit)
        ),
        false,
    );
    let nodes = spur_conf::hostlist::expand(&step.nodes)
        .map(|n| spur_conf::hostlist::compress_unique(&n))
        .unwrap_or_else(|_| step.nodes.clone());
    line(
        format!(
            "State=RUNNING Partition={} NodeList={nodes}",
            step.partition
        ),
        false,
    );
    line(
        format!(
            "Nodes={} CPUs={} Tasks={} Name={} Network=(null)",
            step.node_count, step.num_cpus, step.num_tasks, step.name
        ),
        false,
    );
    line(
        format!(
            "TRES={}",
            step.tres
                .map_or_else(|| "(null)".to_string(), |t| t.step_text())
        ),
        false,
    );
    line("ResvPorts=(null)".to_string(), false);
    let dist = step
        .dist
        .as_deref()
        .map(|d| format!(" Dist={d}"))
        .unwrap_or_default();
    line(format!("CPUFreqReq=Default{dist}"), false);
    let optional: Vec<String> = [
        ("TresPerStep", &step.tres_per_step),
        ("TresPerNode", &step.tres_per_node),
        ("TresPerTask", &step.tres_per_task),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={v}")))
    .collect();
    let srun = match &step.srun {
        Some((host, pid)) => format!("SrunHost:Pid={host}:{pid}"),
        None => "SrunHost:Pid=(null):0".to_string(),
    };
    line(srun, optional.is_empty());
    let n = optional.len();
    for (i, text) in optional.into_iter().enumerate() {
        line(text, i + 1 == n);
    }
    out.push_str(opts.record_end());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_proto::StepId;

    fn step(id: StepId) -> StepInfo {
        StepInfo {
            job_id: 37,
            step: id,
            array: None,
            name: "named".into(),
            user_id: 2001,
            user_name: "anchor".into(),
            partition: "batch".into(),
            start_time: 1_800_000_000,
            time_limit: None,
            nodes: "gb001".into(),
            node_count: 1,
            num_tasks: 1,
            num_cpus: 1,
            tres: spur_proto::Tres::parse("cpu=1,mem=4G,node=1"),
            tres_per_step: None,
            tres_per_node: None,
            tres_per_task: None,
            dist: Some("Cyclic".into()),
            srun: Some(("vm".into(), 3269)),
            usage: None,
        }
    }

    #[test]
    fn a_step_prints_as_slurm_prints_it() {
        // ../shared/slurm-reference: scontrol show step of 22.05.8.
        let locale = spur_slurm::locale::utc::locale();
        let opts = ShowOpts::default();
        assert_eq!(
            render_step(&step(StepId::Numbered(0)), opts, &locale),
            "StepId=37.0 UserId=2001 StartTime=2027-01-15T08:00:00 TimeLimit=UNLIMITED\n   \
             State=RUNNING Partition=batch NodeList=gb001\n   \
             Nodes=1 CPUs=1 Tasks=1 Name=named Network=(null)\n   \
             TRES=cpu=1,mem=4G,node=1\n   \
             ResvPorts=(null)\n   \
             CPUFreqReq=Default Dist=Cyclic\n   \
             SrunHost:Pid=vm:3269\n\n"
        );
        let batch = StepInfo {
            name: "batch".into(),
            num_cpus: 0,
            tres: None,
            dist: None,
            srun: None,
            ..step(StepId::Batch)
        };
        let one = ShowOpts {
            one_liner: true,
            ..ShowOpts::default()
        };
        assert_eq!(
            render_step(&batch, one, &locale),
            "StepId=37.batch UserId=2001 StartTime=2027-01-15T08:00:00 TimeLimit=UNLIMITED \
             State=RUNNING Partition=batch NodeList=gb001 Nodes=1 CPUs=0 Tasks=1 Name=batch \
             Network=(null) TRES=(null) ResvPorts=(null) CPUFreqReq=Default \
             SrunHost:Pid=(null):0\n"
        );
        let gpus = StepInfo {
            time_limit: Some(120),
            tres_per_node: Some("gres:gpu:2".into()),
            array: Some((29, 1)),
            ..step(StepId::Numbered(0))
        };
        let text = render_step(&gpus, opts, &locale);
        assert!(
            text.starts_with(
                "StepId=29_1.0 UserId=2001 StartTime=2027-01-15T08:00:00 TimeLimit=00:02:00\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("SrunHost:Pid=vm:3269\n   TresPerNode=gres:gpu:2\n\n"),
            "{text}"
        );
    }
}
