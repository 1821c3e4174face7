//! spurd's log: stderr, a log file (slurm.conf's SlurmctldLogFile or
//! SlurmdLogFile, or `-L`), or both, at the level SPUR_LOG (or the
//! daemon's Slurm level and `-v`) sets; and syslog at a level of its own
//! (SlurmctldSyslogDebug, SlurmdSyslogDebug). The file is opened for
//! appending and reopened on request (SIGUSR2, as Slurm's daemons do), so
//! that logrotate can move it away.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tracing::Level;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

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

/// Where and how much a daemon logs.
#[derive(Debug, Clone, Copy)]
pub struct LogSpec<'a> {
    /// The filter of the file and stderr (SPUR_LOG overrides it).
    pub level: &'a str,
    /// The log file, if any.
    pub file: Option<&'a Path>,
    /// Whether lines go to stderr too.
    pub stderr: bool,
    /// syslog's name for the daemon and the level it takes (None: no
    /// syslog).
    pub syslog: Option<(&'static str, LevelFilter)>,
}

/// Starts logging as `spec` says. The log file, to reopen.
pub fn init(spec: LogSpec<'_>) -> std::io::Result<Option<LogFile>> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SPUR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(spec.level));
    let log = match spec.file {
        Some(path) => Some(LogFile {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(LogFile::open(path)?)),
        }),
        None => None,
    };
    let sinks = Sinks {
        file: log.as_ref().map(|l| l.file.clone()),
        stderr: spec.stderr,
    };
    // Colours only for a person watching, never in a log file.
    let ansi =
        spec.file.is_none() && spec.stderr && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let main = tracing_subscriber::fmt::layer()
        .with_writer(sinks)
        .with_ansi(ansi)
        .with_filter(filter);
    let syslog = spec.syslog.map(|(ident, level)| {
        tracing_subscriber::fmt::layer()
            .with_writer(Syslog::open(ident))
            .with_ansi(false)
            .without_time()
            .with_filter(level)
    });
    tracing_subscriber::registry()
        .with(main)
        .with(syslog)
        .init();
    Ok(log)
}

/// A Slurm log level (`quiet`, `fatal`, `error`, `info`, `verbose`,
/// `debug`, `debug2`..`debug5`, or its number 0-9) as its index.
pub fn slurm_level(text: &str) -> Option<u8> {
    const NAMES: [&str; 10] = [
        "quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3", "debug4",
        "debug5",
    ];
    let t = text.trim().to_ascii_lowercase();
    NAMES
        .iter()
        .position(|n| *n == t)
        .map(|i| i as u8)
        .or_else(|| t.parse::<u8>().ok().filter(|&n| n <= 9))
}

/// What a Slurm level index lets through.
pub fn level_filter(index: u8) -> LevelFilter {
    match index {
        0 => LevelFilter::OFF,
        1 | 2 => LevelFilter::ERROR,
        // Slurm's info carries the warnings.
        3 | 4 => LevelFilter::INFO,
        5 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    }
}

/// syslog(3), the daemon facility, each event at its level's priority.
#[derive(Clone, Copy)]
struct Syslog;

impl Syslog {
    fn open(ident: &'static str) -> Syslog {
        // openlog keeps the pointer: the name lives as long as the process.
        let name: &'static std::ffi::CStr = Box::leak(
            std::ffi::CString::new(ident)
                .unwrap_or_default()
                .into_boxed_c_str(),
        );
        // SAFETY: `name` is NUL-terminated and never freed.
        unsafe { libc::openlog(name.as_ptr(), libc::LOG_PID, libc::LOG_DAEMON) };
        Syslog
    }
}

/// One event's line for syslog at `priority`.
struct SyslogLine {
    priority: libc::c_int,
    buf: Vec<u8>,
}

impl Write for SyslogLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for SyslogLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.buf);
        let line = text.trim_end().replace('\0', " ");
        if let Ok(c) = std::ffi::CString::new(line) {
            // SAFETY: a constant format and a NUL-terminated argument.
            unsafe { libc::syslog(self.priority, c"%s".as_ptr(), c.as_ptr()) };
        }
    }
}

impl<'a> MakeWriter<'a> for Syslog {
    type Writer = SyslogLine;

    fn make_writer(&'a self) -> Self::Writer {
        SyslogLine {
            priority: libc::LOG_INFO,
            buf: Vec::new(),
        }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Self::Writer {
        let priority = match *meta.level() {
            Level::ERROR => libc::LOG_ERR,
            Level::WARN => libc::LOG_WARNING,
            Level::INFO => libc::LOG_INFO,
            Level::DEBUG | Level::TRACE => libc::LOG_DEBUG,
        };
        SyslogLine {
            priority,
            buf: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurms_levels_read_by_name_or_number() {
        assert_eq!(slurm_level("info"), Some(3));
        assert_eq!(slurm_level("Debug2"), Some(6));
        assert_eq!(slurm_level("7"), Some(7));
        assert_eq!(slurm_level("loud"), None);
        assert_eq!(level_filter(0), LevelFilter::OFF);
        assert_eq!(level_filter(3), LevelFilter::INFO);
        assert_eq!(level_filter(5), LevelFilter::DEBUG);
        assert_eq!(level_filter(9), LevelFilter::TRACE);
    }

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
