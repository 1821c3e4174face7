//! Lays squeue's rows out as text: the header, one line per job (one per
//! task of a pending array with `-r`), each cell padded, cut and justified
//! as Slurm's `_print_str` does. Pure: rows in, text out; which rows and in
//! which order is decided before (filter.rs, sort.rs).

use spur_proto::JobInfo;
use spur_slurm::job_ref::task_ids_lenient as task_ids;
use spur_slurm::print::print_str;

use super::field::{Ctx, Field};
use super::format::{Format, Item};

/// Writes squeue's lines in one format, a job at a time.
#[derive(Debug, Clone, Copy)]
pub struct Renderer<'f> {
    format: &'f Format,
    ctx: Ctx<'f>,
}

impl<'f> Renderer<'f> {
    /// Lines of `format`; `now` is the controller's clock, for run times.
    pub fn new(format: &'f Format, now: u64) -> Renderer<'f> {
        let ctx = Ctx {
            now,
            no_convert: format.no_convert,
            cluster: format.cluster.as_deref(),
        };
        Renderer { format, ctx }
    }

    /// The header line, unless `--noheader`.
    pub fn header(&self, out: &mut String) {
        if !self.format.no_header {
            line(out, &self.format.items, None, &self.ctx);
        }
    }

    /// `job`'s line: one per task of a pending array with `-r`.
    pub fn job(&self, out: &mut String, job: &JobInfo) {
        match (&job.array_task_str, self.format.expand_arrays) {
            (Some(tasks), true) => {
                for task in task_ids(tasks) {
                    let mut one = job.clone();
                    one.array_task_str = None;
                    one.array_task_id = Some(task);
                    one.array_job_id = Some(job.array_job_id.unwrap_or(job.job_id));
                    line(out, &self.format.items, Some(&one), &self.ctx);
                }
            }
            _ => line(out, &self.format.items, Some(job), &self.ctx),
        }
    }
}

/// One line: the header when `job` is None.
fn line(out: &mut String, items: &[Item], job: Option<&JobInfo>, ctx: &Ctx) {
    for item in items {
        let spec = match item {
            Item::Text(text) => {
                out.push_str(text);
                continue;
            }
            Item::Field(spec) => spec,
        };
        if spec.field != Field::Invalid {
            match job {
                None => {
                    let header = Some(spec.field.header());
                    print_str(out, header, spec.width, spec.right, spec.field.header_cut());
                }
                Some(job) => {
                    let cell = spec.field.cell(job, ctx);
                    print_str(out, cell.text.as_deref(), spec.width, spec.right, cell.cut);
                }
            }
        }
        out.push_str(&spec.suffix);
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: Option<&str>, width: usize, right: bool, cut: bool) -> String {
        let mut out = String::new();
        print_str(&mut out, text, width, right, cut);
        out
    }

    #[test]
    fn cells_pad_and_cut_as_printf_does() {
        assert_eq!(shown(Some("whole-cluster"), 8, true, true), "whole-cl");
        assert_eq!(shown(Some("wrap"), 8, true, true), "    wrap");
        assert_eq!(shown(Some("gb[001-002]"), 4, true, false), "gb[001-002]");
        assert_eq!(shown(Some("TIME_LIMIT"), 9, true, true), "TIME_LIMI");
        assert_eq!(shown(Some("wrap"), 8, false, true), "wrap    ");
        assert_eq!(shown(Some("whole-cluster"), 8, false, false), "whole-cl");
        assert_eq!(shown(Some("x"), 0, true, true), "x");
    }

    #[test]
    fn null_prints_as_glibc_prints_it() {
        assert_eq!(shown(None, 0, false, true), "(null)");
        assert_eq!(shown(None, 20, false, false), "(null)              ");
        assert_eq!(shown(None, 4, false, true), "    ");
        assert_eq!(shown(None, 8, true, true), "  (null)");
    }

    #[test]
    fn task_strings_expand_to_ids() {
        assert_eq!(task_ids("2-9%2"), vec![2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(task_ids("1,3,5-7"), vec![1, 3, 5, 6, 7]);
        assert_eq!(task_ids("0-15:4"), vec![0, 4, 8, 12]);
        assert!(task_ids("").is_empty());
    }
}
