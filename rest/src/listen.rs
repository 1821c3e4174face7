//! Where slurmrestd listens: its command line's `[host]:port` and
//! `unix:/path` arguments (and `SLURMRESTD_LISTEN`), read as slurmrestd
//! reads them, and bound before anything else happens so that a port in
//! use stops the start.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use thiserror::Error;

/// One place to listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenSpec {
    /// A TCP address (`host:port`, `:port` for every interface,
    /// `[v6]:port`).
    Tcp {
        /// The host as given (empty: every interface).
        host: String,
        /// The port.
        port: u16,
    },
    /// A unix socket.
    Unix(PathBuf),
}

/// A listen argument slurmrestd would refuse, or one spur cannot serve.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListenError {
    /// Neither `host:port` nor `unix:/path`.
    #[error("Unable to parse {0}")]
    Syntax(String),
    /// `https://`: spur serves plain HTTP (put a TLS proxy in front).
    #[error("{0}: TLS is not supported by spur; listen on plain HTTP behind a TLS proxy")]
    Tls(String),
}

impl ListenSpec {
    /// Reads one argument.
    pub fn parse(text: &str) -> Result<ListenSpec, ListenError> {
        let syntax = || ListenError::Syntax(text.to_string());
        if text.starts_with("https://") {
            return Err(ListenError::Tls(text.to_string()));
        }
        if let Some(path) = text.strip_prefix("unix:") {
            // `unix:/p` and `unix:///p` both name /p.
            let path = path.trim_start_matches("//");
            if !path.starts_with('/') {
                return Err(syntax());
            }
            return Ok(ListenSpec::Unix(PathBuf::from(path)));
        }
        let text = text.strip_prefix("http://").unwrap_or(text);
        let (host, port) = text.rsplit_once(':').ok_or_else(syntax)?;
        let port: u16 = port.parse().map_err(|_| syntax())?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        Ok(ListenSpec::Tcp {
            host: host.to_string(),
            port,
        })
    }

    /// The addresses a TCP spec names (host names are looked up once, at
    /// start, as slurmrestd does).
    pub fn addrs(&self) -> std::io::Result<Vec<SocketAddr>> {
        match self {
            ListenSpec::Tcp { host, port } if host.is_empty() => {
                Ok(vec![SocketAddr::from(([0, 0, 0, 0], *port))])
            }
            ListenSpec::Tcp { host, port } => {
                Ok((host.as_str(), *port).to_socket_addrs()?.collect())
            }
            ListenSpec::Unix(_) => Ok(Vec::new()),
        }
    }
}

impl std::fmt::Display for ListenSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListenSpec::Tcp { host, port } if host.contains(':') => write!(f, "[{host}]:{port}"),
            ListenSpec::Tcp { host, port } => write!(f, "{host}:{port}"),
            ListenSpec::Unix(path) => write!(f, "unix:{}", path.display()),
        }
    }
}

/// A bound listener.
#[derive(Debug)]
pub enum Listener {
    /// TCP.
    Tcp(tokio::net::TcpListener),
    /// A unix socket.
    Unix(tokio::net::UnixListener),
}

impl Listener {
    /// Binds `spec` (a unix socket left by a dead server is replaced).
    pub async fn bind(spec: &ListenSpec) -> std::io::Result<Vec<Listener>> {
        match spec {
            ListenSpec::Unix(path) => {
                if std::os::unix::net::UnixStream::connect(path).is_err() {
                    let _ = std::fs::remove_file(path);
                }
                Ok(vec![Listener::Unix(tokio::net::UnixListener::bind(path)?)])
            }
            ListenSpec::Tcp { .. } => {
                let mut out = Vec::new();
                for addr in spec.addrs()? {
                    out.push(Listener::Tcp(tokio::net::TcpListener::bind(addr).await?));
                }
                Ok(out)
            }
        }
    }

    /// Where it listens, as a URL base (`http://127.0.0.1:6820`) or
    /// `unix:/path`.
    pub fn url(&self) -> String {
        match self {
            Listener::Tcp(l) => l
                .local_addr()
                .map_or_else(|_| "http://?".into(), |a| format!("http://{a}")),
            Listener::Unix(l) => l
                .local_addr()
                .ok()
                .and_then(|a| a.as_pathname().map(|p| format!("unix:{}", p.display())))
                .unwrap_or_else(|| "unix:?".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_arguments_read_as_slurmrestd_reads_them() {
        let tcp = |host: &str, port| ListenSpec::Tcp {
            host: host.into(),
            port,
        };
        assert_eq!(
            ListenSpec::parse("localhost:6820"),
            Ok(tcp("localhost", 6820))
        );
        assert_eq!(ListenSpec::parse(":6820"), Ok(tcp("", 6820)));
        assert_eq!(ListenSpec::parse("[::1]:6820"), Ok(tcp("::1", 6820)));
        assert_eq!(
            ListenSpec::parse("http://0.0.0.0:80"),
            Ok(tcp("0.0.0.0", 80))
        );
        assert_eq!(
            ListenSpec::parse("unix:/run/slurmrestd.sock"),
            Ok(ListenSpec::Unix("/run/slurmrestd.sock".into()))
        );
        assert_eq!(
            ListenSpec::parse("unix:///run/r.sock"),
            Ok(ListenSpec::Unix("/run/r.sock".into()))
        );
        assert!(ListenSpec::parse("6820").is_err());
        assert!(ListenSpec::parse("host:port").is_err());
        assert!(ListenSpec::parse("unix:relative").is_err());
        assert!(matches!(
            ListenSpec::parse("https://h:443"),
            Err(ListenError::Tls(_))
        ));
        assert_eq!(tcp("::1", 1).to_string(), "[::1]:1");
    }
}
