//! sinfo's report of nodes and partitions: the `-t` states (`state`), the
//! `-o`/`-O` formats (`format`), rows grouped and sorted as
//! `src/sinfo/sinfo.c` groups them (`row`), their columns (`render`) and
//! the `--json` document (`json`).

pub mod format;
pub mod json;
pub mod render;
pub mod row;
pub mod state;
