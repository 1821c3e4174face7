//! sacct's report of spur's job history: the field table and each field's
//! value for a job or step line (`field`), the columns a field list makes
//! (`format`), which records show (`select`), the text table (`render`)
//! and the `--json` document (`json`), as Slurm 22.05's sacct prints them.

pub mod field;
pub mod format;
pub mod json;
pub mod render;
pub mod select;
