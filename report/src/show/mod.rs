//! Slurm's records of the wire types as text: what `scontrol show job`,
//! `show node`, `show partition` and `show step` print, and libslurm's
//! `slurm_sprint_*` functions return, laid out as Slurm 22.05's
//! `src/api/*_info.c` do. Pure: a record, the time and a
//! [`spur_slurm::locale::Locale`] in, text out. They live beside the types
//! they print, below every front end that prints them.

pub mod config;
pub mod job;
pub mod node;
pub mod step;

/// How `show` prints a record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShowOpts {
    /// `-o`: one line per record.
    pub one_liner: bool,
    /// `-d`: details (per-node allocation of a job).
    pub details: bool,
}

impl ShowOpts {
    /// What separates fields that Slurm puts on separate lines.
    pub fn line_end(self) -> &'static str {
        if self.one_liner {
            " "
        } else {
            "\n   "
        }
    }

    /// What ends a record.
    pub fn record_end(self) -> &'static str {
        if self.one_liner {
            "\n"
        } else {
            "\n\n"
        }
    }
}
