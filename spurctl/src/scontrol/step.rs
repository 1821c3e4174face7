//! `scontrol show step [id]`: the running steps (printed by
//! [`render_step`]), and scontrol_print_step's reading of the id and its
//! messages when nothing matches.

use spur_proto::{StepId, StepInfo};
use spur_report::show::step::render_step;

use super::session::Session;
use crate::controller::Api;

use spur_slurm::step_ref::show_step_arg as parse_arg;

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
