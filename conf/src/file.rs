//! What every configuration file of this crate shares: reading it from disk
//! or from text, with `Include`d files read through a loader that tests can
//! replace with in-memory files.

use std::fs;
use std::io;
use std::path::Path;

use crate::error::{ConfError, Parsed};

/// A configuration file format (slurm.conf, topology.conf, gres.conf).
pub trait ConfFile: Sized {
    /// Parses `text`, the contents of `file`, reading `Include`d files
    /// through `loader`.
    fn parse_with(
        text: &str,
        file: &Path,
        loader: &mut dyn FnMut(&Path) -> io::Result<String>,
    ) -> Result<Parsed<Self>, ConfError>;

    /// Parses `text`, the contents of `file`; `Include` lines read files from
    /// disk.
    fn parse(text: &str, file: &Path) -> Result<Parsed<Self>, ConfError> {
        Self::parse_with(text, file, &mut |p: &Path| fs::read_to_string(p))
    }

    /// Reads and parses the file at `path`.
    fn load(path: &Path) -> Result<Parsed<Self>, ConfError> {
        Self::parse(&read(path)?, path)
    }
}

/// The text of the file at `path`.
pub(crate) fn read(path: &Path) -> Result<String, ConfError> {
    fs::read_to_string(path).map_err(|source| ConfError::Read {
        path: path.to_path_buf(),
        source,
    })
}
