//! spurd's log: stderr, a log file (slurm.conf's SlurmctldLogFile or
//! SlurmdLogFile, or `-L`), or both, at the level SPUR_LOG (or `-v`)
//! sets. The file is opened for appending and reopened on request (SIGUSR2,
//! as Slurm's daemons do), so that logrotate can move it away.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tracing_subscriber::fmt::MakeWriter;

/// The log file, to reopen after it was moved away.
#[derive(Clone)]
pub struct LogFile {
    path: PathBuf,
    file: Arc<Mutex<File>>,
}

impl LogFile {
    /// Opens `path` for appending (created mode 0640).
    fn open(path: &Path) -> std::io::Result<File> {
        use std::os::unix::fs::OpenOptionsExt;
        OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o640)
            .open(path)
    }

    /// Closes the file and opens its path anew.
    pub fn reopen(&self) -> std::io::Result<()> {
        let fresh = Self::open(&self.path)?;
        *self.file.lock().unwrap_or_else(|p| p.into_inner()) = fresh;
        Ok(())
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Where log lines go.
#[derive(Clone)]
struct Sinks {
    file: Option<Arc<Mutex<File>>>,
    stderr: bool,
}

/// One line's writer: to the file, then to stderr.
struct SinkWriter<'a>(&'a Sinks);

impl Write for SinkWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(file) = &self.0.file {
            // A full disk loses log lines, never the daemon.
            let _ = file
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .write_all(buf);
        }
        if self.0.stderr {
            let _ = std::io::stderr().write_all(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Sinks {
    type Writer = SinkWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        SinkWriter(self)
    }
}

/// Starts logging at `default` (unless SPUR_LOG says otherwise) to `file`
/// (if any) and to stderr (if `stderr`). The log file, to reopen.
pub fn init(default: &str, file: Option<&Path>, stderr: bool) -> std::io::Result<Option<LogFile>> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SPUR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let log = match file {
        Some(path) => Some(LogFile {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(LogFile::open(path)?)),
        }),
        None => None,
    };
    let sinks = Sinks {
        file: log.as_ref().map(|l| l.file.clone()),
        stderr,
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(sinks)
        // Colours only for a person watching, never in a log file.
        .with_ansi(file.is_none() && stderr && std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_log_file_is_made_again_on_reopen() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("slurmctld.log");
        let log = LogFile {
            path: path.clone(),
            file: Arc::new(Mutex::new(LogFile::open(&path).expect("opens"))),
        };
        let sinks = Sinks {
            file: Some(log.file.clone()),
            stderr: false,
        };
        sinks.make_writer().write_all(b"one\n").expect("writes");
        std::fs::rename(&path, dir.path().join("slurmctld.log.1")).expect("moves");
        sinks.make_writer().write_all(b"two\n").expect("writes");
        log.reopen().expect("reopens");
        sinks.make_writer().write_all(b"three\n").expect("writes");
        let moved = std::fs::read_to_string(dir.path().join("slurmctld.log.1")).expect("reads");
        assert_eq!(moved, "one\ntwo\n");
        assert_eq!(std::fs::read_to_string(&path).expect("reads"), "three\n");
    }
}
