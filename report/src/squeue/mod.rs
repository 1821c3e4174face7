//! squeue's report of jobs: each field's header and cell (`field`), the
//! `-o`/`-O` formats (`format`), the row order (`sort`), the text table
//! (`render`) and the `--json` document (`json`), as Slurm 22.05's
//! `src/squeue/` computes them. Which jobs are asked for is squeue's.

pub mod field;
pub mod format;
pub mod json;
pub mod render;
pub mod sort;

pub use format::Format;
pub use render::Renderer;
