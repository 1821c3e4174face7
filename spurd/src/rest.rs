//! `spurd rest`, also run as `slurmrestd`: slurmrestd's command line and
//! environment (`SLURMRESTD_LISTEN`, `SLURMRESTD_AUTH_TYPES`,
//! `SLURMRESTD_JSON`, `SLURM_JWT`), the listeners bound before anything
//! else (and `-u`/`-g` applied after), then spur-rest's server until
//! SIGINT or SIGTERM.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use tracing::{info, warn};

use spur_rest::auth::{OwnIdentity, Plugin};
use spur_rest::listen::{ListenSpec, Listener};
use spur_rest::reply::Style;
use spur_rest::Settings;

/// Connections to the controller kept open when `-t` names no count.
const DEFAULT_THREADS: usize = 20;
/// The largest request body taken when `--max-body` names no size.
const DEFAULT_MAX_BODY: usize = 64 << 20;

/// slurmrestd's options.
#[derive(Debug, Clone, clap::Args)]
pub struct RestOpts {
    /// Authentication plugins to accept, in order (rest_auth/local,
    /// rest_auth/jwt; default: both).
    #[arg(short = 'a', value_name = "plugins", env = "SLURMRESTD_AUTH_TYPES")]
    auth: Option<String>,
    /// data_parser plugins to load. Accepted for compatibility; spur does
    /// not act on it (every version spur has is served).
    #[arg(
        short = 'd',
        value_name = "plugins",
        env = "SLURMRESTD_DATA_PARSER_PLUGINS"
    )]
    data_parsers: Option<String>,
    /// slurm.conf (flag > SLURM_CONF > /etc/slurm/slurm.conf).
    #[arg(short = 'f', value_name = "file", env = "SLURM_CONF", default_value = spur_conf::slurm_conf::DEFAULT_SLURM_CONF)]
    conf: PathBuf,
    /// Change to this group (and drop supplementary groups) after the
    /// listeners are bound.
    #[arg(short = 'g', value_name = "group")]
    group: Option<String>,
    /// OpenAPI plugins to load. Accepted for compatibility; spur does not
    /// act on it (the slurm/ and slurmdb/ paths are always served).
    #[arg(
        short = 's',
        value_name = "plugins",
        env = "SLURMRESTD_OPENAPI_PLUGINS"
    )]
    openapi_plugins: Option<String>,
    /// Connections to the controller kept open for requests.
    #[arg(short = 't', value_name = "thread count", default_value_t = DEFAULT_THREADS)]
    threads: usize,
    /// Change to this user after the listeners are bound.
    #[arg(short = 'u', value_name = "user")]
    user: Option<String>,
    /// More logging (debug; twice: trace), unless SPUR_LOG says otherwise.
    #[arg(short = 'v', action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    /// The most connections served at once. Accepted for compatibility;
    /// spur does not act on it.
    #[arg(
        long = "max-connections",
        value_name = "count",
        env = "SLURMRESTD_MAX_CONNECTIONS"
    )]
    max_connections: Option<u32>,
    /// The largest request body taken, in bytes.
    #[arg(long = "max-body", value_name = "bytes", env = "SPUR_REST_MAX_BODY", default_value_t = DEFAULT_MAX_BODY)]
    max_body: usize,
    /// Where to listen: `[host]:port` or `unix:/path` (also
    /// SLURMRESTD_LISTEN, comma-separated).
    #[arg(value_name = "[host]:port | unix:/path")]
    listen: Vec<String>,
    /// Whether SLURMRESTD_LISTEN is ignored (a dev cluster's own server).
    #[arg(skip)]
    ignore_listen_env: bool,
}

impl RestOpts {
    /// A REST server on a loopback port of its own for the cluster of
    /// `conf` (`spurd dev`'s).
    pub fn loopback(conf: &std::path::Path) -> RestOpts {
        RestOpts {
            auth: None,
            data_parsers: None,
            conf: conf.to_owned(),
            group: None,
            openapi_plugins: None,
            threads: DEFAULT_THREADS,
            user: None,
            verbose: 0,
            max_connections: None,
            max_body: DEFAULT_MAX_BODY,
            listen: vec!["127.0.0.1:0".into()],
            ignore_listen_env: true,
        }
    }
}

/// The listen arguments, then SLURMRESTD_LISTEN's.
fn listen_specs(opts: &RestOpts) -> Result<Vec<ListenSpec>> {
    let mut words = opts.listen.clone();
    let env = std::env::var("SLURMRESTD_LISTEN")
        .ok()
        .filter(|_| !opts.ignore_listen_env);
    if let Some(env) = env {
        words.extend(env.split(',').filter(|w| !w.is_empty()).map(str::to_string));
    }
    if words.is_empty() {
        bail!("no listen address given: name [host]:port or unix:/path (or set SLURMRESTD_LISTEN)");
    }
    words
        .iter()
        .map(|w| ListenSpec::parse(w).map_err(anyhow::Error::from))
        .collect()
}

fn settings(opts: &RestOpts) -> Result<Settings> {
    let plugins = match &opts.auth {
        Some(list) if list == "list" => {
            bail!("rest_auth plugins: rest_auth/local rest_auth/jwt")
        }
        Some(list) => Plugin::list(list)?,
        None => Plugin::ALL.to_vec(),
    };
    let own = match std::env::var("SLURM_JWT") {
        Ok(t) if t == "daemon" || t.is_empty() => OwnIdentity::None,
        Ok(token) => OwnIdentity::Token(token),
        Err(_) => OwnIdentity::Uid(spur_sys::users::current_uid()),
    };
    if own == OwnIdentity::None && plugins.contains(&Plugin::Local) {
        warn!("SLURM_JWT=daemon: rest_auth/local has no identity to act with and refuses every request");
    }
    let pretty = match std::env::var("SLURMRESTD_JSON").or_else(|_| std::env::var("SLURM_JSON")) {
        Ok(v) if v.eq_ignore_ascii_case("compact") => false,
        Ok(v) if v.eq_ignore_ascii_case("pretty") => true,
        Ok(v) => bail!("Invalid SLURMRESTD_JSON={v}: compact or pretty"),
        Err(_) => true,
    };
    for (given, what) in [
        (opts.data_parsers.is_some(), "-d"),
        (opts.openapi_plugins.is_some(), "-s"),
        (opts.max_connections.is_some(), "--max-connections"),
    ] {
        if given {
            warn!(
                option = what,
                "accepted for compatibility; spur does not act on it"
            );
        }
    }
    Ok(Settings {
        plugins,
        own,
        style: Style { pretty },
        max_body: opts.max_body,
        connections: opts.threads.max(1),
    })
}

/// Drops to `-g` and `-u` (group first, while still allowed to).
fn drop_privileges(opts: &RestOpts) -> Result<()> {
    if let Some(group) = &opts.group {
        let gid =
            spur_sys::users::gid_of(group).with_context(|| format!("unknown group {group}"))?;
        // SAFETY: plain syscalls on integers; an empty list drops the
        // supplementary groups.
        let rc = unsafe { libc::setgroups(0, std::ptr::null()) | libc::setgid(gid) };
        if rc != 0 {
            bail!(
                "cannot change to group {group}: {}",
                std::io::Error::last_os_error()
            );
        }
    }
    if let Some(user) = &opts.user {
        let uid = spur_sys::users::uid_of(user).with_context(|| format!("unknown user {user}"))?;
        // SAFETY: a plain syscall on an integer.
        if unsafe { libc::setuid(uid) } != 0 {
            bail!(
                "cannot change to user {user}: {}",
                std::io::Error::last_os_error()
            );
        }
    }
    Ok(())
}

/// Binds the listeners; their URLs, for `spurd dev` and the log.
pub async fn bind(opts: &RestOpts) -> Result<Vec<Listener>> {
    let mut listeners = Vec::new();
    for spec in listen_specs(opts)? {
        let bound = Listener::bind(&spec)
            .await
            .with_context(|| format!("while listening on {spec}"))?;
        listeners.extend(bound);
    }
    Ok(listeners)
}

/// Runs the REST server on already bound listeners until `shutdown`.
pub async fn serve(
    opts: RestOpts,
    listeners: Vec<Listener>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let conf = <spur_conf::SlurmConf as spur_conf::ConfFile>::load(&opts.conf)
        .with_context(|| format!("while reading {}", opts.conf.display()))?
        .value;
    let settings = settings(&opts)?;
    drop_privileges(&opts)?;
    info!(
        plugins = ?settings.plugins.iter().map(|p| p.name()).collect::<Vec<_>>(),
        "REST server ready"
    );
    let state = spur_rest::State::new(conf, settings);
    spur_rest::serve(listeners, state, shutdown).await?;
    Ok(())
}

/// `spurd rest` / `slurmrestd`.
pub async fn run(
    opts: RestOpts,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let listeners = bind(&opts).await?;
    serve(opts, listeners, shutdown).await
}
