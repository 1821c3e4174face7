//! `scontrol show step [id]`: the running steps (printed by
//! [`render_step`]), and scontrol_print_step's reading of the id and its
//! messages when nothing matches.

use spur_proto::show::step::render_step;
use spur_proto::{StepId, StepInfo};

use super::session::Session;
use crate::controller::Api;

/// What `show step`'s argument names, as scontrol_print_step reads it:
/// the job (strtol), then `_task` or `.step` (strtol: `batch` reads as 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StepArg {
    job: u32,
    task: Option<u32>,
    step: Option<u32>,
}

fn parse_arg(text: &str) -> StepArg {
    let (job, rest) = spur_slurm::number::strtol_or_zero(text);
    let mut arg = StepArg {
        job: job.max(0) as u32,
        task: None,
        step: None,
    };
    if let Some(r) = rest.strip_prefix('_') {
        arg.task = Some(spur_slurm::number::strtol_or_zero(r).0 as u32);
    } else if let Some(r) = rest.strip_prefix('.') {
        arg.step = Some(spur_slurm::number::strtol_or_zero(r).0 as u32);
    }
    arg
}

/// The number slurmctld gives a step, batch steps included.
fn number(step: &StepInfo) -> u32 {
    match step.step {
        StepId::Numbered(n) => n,
        _ => 0xffff_fffb,
    }
}

/// `show step [id]`.
pub fn show_step(s: &mut Session<'_>, val: Option<&str>) {
    let arg = val.map(parse_arg);
    let jobs = arg.filter(|a| a.job != 0).map(|a| vec![a.job]);
    let steps = match s.ask.steps(jobs.unwrap_or_default()) {
        Ok(listing) => listing.items,
        Err(e) => return s.perror("slurm_get_job_steps error", &e),
    };
    let shown: Vec<&StepInfo> = steps
        .iter()
        .filter(|st| match arg {
            None => true,
            Some(a) => {
                a.step.is_none_or(|n| n == number(st))
                    && a.task.is_none_or(|t| st.array.is_some_and(|x| x.1 == t))
            }
        })
        .collect();
    for step in &shown {
        let text = render_step(step, s.show_opts(), &s.locale);
        s.out.push_str(&text);
    }
    if !shown.is_empty() {
        return;
    }
    let Some(a) = arg else {
        if s.quiet != 1 {
            s.out.push_str("No job steps in the system\n");
        }
        return;
    };
    s.exit_code = 1;
    if s.quiet == 1 {
        return;
    }
    let step = match (a.job, a.step) {
        (0, _) => "Invalid".to_string(),
        (_, Some(n)) => n.to_string(),
        (_, None) => String::new(),
    };
    let text = match a.task {
        Some(t) => format!("Job step {}_{t}.{step} not found\n", a.job),
        None => format!("Job step {}.{step} not found\n", a.job),
    };
    s.out.push_str(&text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argument_reads_as_scontrol_reads_it() {
        let a = |text| parse_arg(text);
        assert_eq!(
            a("37.1"),
            StepArg {
                job: 37,
                task: None,
                step: Some(1)
            }
        );
        assert_eq!(a("37.batch").step, Some(0));
        assert_eq!(a("39_3.0").task, Some(3));
        assert_eq!(a("39_3.0").step, None);
        assert_eq!(a("abc").job, 0);
    }
}
