//! slurmctld's HTTP endpoints on SlurmctldPort, as Slurm 26.05 serves them:
//! `/` and `/metrics` (indexes), `/livez`, `/healthz` and `/readyz`, and
//! the OpenMetrics families of `/metrics/jobs`, `/metrics/nodes`,
//! `/metrics/partitions`, `/metrics/jobs-users-accts` and
//! `/metrics/scheduler` (slurm.conf
//! `MetricsType=metrics/openmetrics`; without it they answer with no
//! body, as Slurm's do). A connection whose first byte is an ASCII capital
//! is HTTP: spur's frames start with a length far below any such byte.
//! The actor gathers an endpoint's families; the text is written here,
//! and a scrape within a second of the last of its endpoint gets the same
//! text.
//!
//! Access follows slurm.conf as slurmctld's does: open to all, unless
//! `MetricsAuthUsers` is set or PrivateData hides anything (and
//! `MetricsParameters=ignore_private_data` does not lift it); then a
//! request needs a token (`X-SLURM-USER-TOKEN` or `Authorization: Bearer`)
//! of root, SlurmUser or a user `MetricsAuthUsers` names.

pub mod families;

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tracing::debug;

use std::sync::mpsc::Sender;

use super::actor::Command;
use super::server::Gateway;

/// Whether a connection that starts with `first` speaks HTTP.
pub fn is_http(first: u8) -> bool {
    first.is_ascii_uppercase()
}

/// The data endpoints, each answered by the actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/metrics/jobs`.
    Jobs,
    /// `/metrics/nodes`.
    Nodes,
    /// `/metrics/jobs-users-accts`.
    UsersAccounts,
    /// `/metrics/scheduler`.
    Scheduler,
    /// `/metrics/partitions`.
    Partitions,
}

/// slurm.conf's metrics settings.
#[derive(Debug, Clone, Default)]
pub struct MetricsConf {
    /// `MetricsType=metrics/openmetrics`.
    pub enabled: bool,
    /// `MetricsAuthUsers`: who besides root and SlurmUser may read.
    pub auth_users: Option<Vec<String>>,
    /// `MetricsParameters=ignore_private_data`.
    pub ignore_private_data: bool,
}

impl MetricsConf {
    /// The settings of `conf`.
    pub fn of(conf: &spur_conf::SlurmConf) -> MetricsConf {
        let get = |key: &str| conf.other.get(key).map(String::as_str);
        MetricsConf {
            enabled: get("metricstype").is_some_and(|t| t == "metrics/openmetrics"),
            auth_users: get("metricsauthusers").map(spur_conf::comma_list),
            ignore_private_data: get("metricsparameters").is_some_and(|p| {
                spur_conf::comma_list(p)
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case("ignore_private_data"))
            }),
        }
    }

    /// Whether a request must show a token, with PrivateData's bits.
    fn needs_auth(&self, private_data: u16) -> bool {
        self.auth_users.is_some() || (private_data != 0 && !self.ignore_private_data)
    }
}

/// `GET /metrics`'s text.
const METRICS_INDEX: &str = "slurmctld index of metrics endpoints:\n  \
'/metrics/jobs': get job metrics\n  \
'/metrics/nodes': get node metrics\n  \
'/metrics/partitions': get partition metrics\n  \
'/metrics/jobs-users-accts': get user and account jobs metrics\n  \
'/metrics/scheduler': get scheduler metrics\n";

/// `GET /`'s text.
const ROOT_INDEX: &str = "slurmctld index of endpoints:\n  \
'/readyz': check slurmctld is servicing RPCs\n  \
'/livez': check slurmctld is running\n  \
'/healthz': check slurmctld is running\n  \
'/metrics': print available metric endpoints\n";

/// HTTP connections served at once; more are closed unanswered, so that
/// clients of the metrics cannot take the sockets agents need.
pub const HTTP_CONNECTIONS: usize = 64;

/// How long a client may take to send its request's head.
const HEAD_WAIT: Duration = Duration::from_secs(10);

/// How long one connection may last in all.
const CONNECTION_WAIT: Duration = Duration::from_secs(30);

/// Serves one HTTP connection (one request, then close, as slurmctld).
pub async fn serve(stream: TcpStream, gateway: Arc<Gateway>) -> anyhow::Result<()> {
    let Ok(_slot) = gateway.http_slots.clone().try_acquire_owned() else {
        anyhow::bail!("{HTTP_CONNECTIONS} HTTP connections are open already");
    };
    let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
        let gateway = gateway.clone();
        async move {
            Ok::<_, Infallible>(answer(&gateway, req.method(), req.uri(), req.headers()).await)
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_WAIT)
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    match tokio::time::timeout(CONNECTION_WAIT, connection).await {
        Ok(served) => Ok(served?),
        Err(_) => anyhow::bail!("HTTP connection open over {} s", CONNECTION_WAIT.as_secs()),
    }
}

/// A response of `status` with `body` as text/plain (none when empty).
fn reply(status: StatusCode, body: String) -> Response<Body> {
    let mut r = Response::builder()
        .status(status)
        .header(header::CONNECTION, "close");
    if !body.is_empty() {
        r = r.header(header::CONTENT_TYPE, "text/plain");
    }
    r.body(Body::from(body)).unwrap_or_default()
}

/// slurmctld's error text for a refused request.
fn refused(status: StatusCode, method: &str, path: &str, why: &str) -> Response<Body> {
    let body = format!("slurmctld HTTP server request for '{method} {path}':\nFailed: {why}\n");
    reply(status, body)
}

async fn answer(
    gateway: &Gateway,
    method: &axum::http::Method,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
) -> Response<Body> {
    let path = uri.path();
    debug!(%method, path, "HTTP request on SlurmctldPort");
    let not_found = || {
        refused(
            StatusCode::NOT_FOUND,
            method.as_str(),
            path,
            "Invalid or unknown URL path",
        )
    };
    if method != axum::http::Method::GET {
        return not_found();
    }
    let endpoint = match path {
        "/" => return reply(StatusCode::OK, ROOT_INDEX.to_string()),
        // The controller answers on this port: it runs and serves.
        "/livez" | "/healthz" | "/readyz" => return reply(StatusCode::NO_CONTENT, String::new()),
        "/metrics" => None,
        "/metrics/jobs" => Some(Endpoint::Jobs),
        "/metrics/nodes" => Some(Endpoint::Nodes),
        "/metrics/jobs-users-accts" => Some(Endpoint::UsersAccounts),
        "/metrics/scheduler" => Some(Endpoint::Scheduler),
        "/metrics/partitions" => Some(Endpoint::Partitions),
        _ => return not_found(),
    };
    if let Err(denied) = authorize(gateway, headers) {
        return refused(denied.0, method.as_str(), path, denied.1);
    }
    let Some(endpoint) = endpoint else {
        return reply(StatusCode::OK, METRICS_INDEX.to_string());
    };
    if !gateway.metrics.enabled {
        return reply(StatusCode::OK, String::new());
    }
    reply(
        StatusCode::OK,
        gateway
            .scrapes
            .text(endpoint, &gateway.actor)
            .await
            .to_string(),
    )
}

/// Each endpoint's last answer: a scrape within [`FRESH`] of the last one
/// of its endpoint gets the same text, and scrapes of one endpoint wait
/// for each other, so that clients cannot keep the controller's actor
/// busy walking its state.
#[derive(Debug, Default)]
pub struct Scrapes {
    last: [tokio::sync::Mutex<Option<Answer>>; ENDPOINTS],
}

/// A text and when it was made.
type Answer = (std::time::Instant, Arc<String>);

/// How many data endpoints there are.
const ENDPOINTS: usize = 5;

/// How long an answer is served again.
pub const FRESH: Duration = Duration::from_secs(1);

impl Endpoint {
    fn slot(self) -> usize {
        match self {
            Endpoint::Jobs => 0,
            Endpoint::Nodes => 1,
            Endpoint::UsersAccounts => 2,
            Endpoint::Scheduler => 3,
            Endpoint::Partitions => 4,
        }
    }
}

impl Scrapes {
    /// `endpoint`'s text: the last one if fresh, else the actor's families
    /// written out here, off the actor (empty when the controller stops).
    async fn text(&self, endpoint: Endpoint, actor: &Sender<Command>) -> Arc<String> {
        let mut last = self.last[endpoint.slot()].lock().await;
        if let Some((at, text)) = last.as_ref() {
            if at.elapsed() < FRESH {
                return text.clone();
            }
        }
        let (tx, rx) = oneshot::channel();
        if actor
            .send(Command::Metrics {
                endpoint,
                reply: tx,
            })
            .is_err()
        {
            return Arc::default();
        }
        let Ok(families) = rx.await else {
            return Arc::default();
        };
        let text = Arc::new(if families.is_empty() {
            String::new()
        } else {
            families.text()
        });
        *last = Some((std::time::Instant::now(), text.clone()));
        text
    }
}

/// Checks the request's token where slurm.conf asks for one.
fn authorize(gateway: &Gateway, headers: &HeaderMap) -> Result<(), (StatusCode, &'static str)> {
    let private = gateway.private_data.load(Ordering::Relaxed);
    let conf = &gateway.metrics;
    if !conf.needs_auth(private) {
        return Ok(());
    }
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let bearer = text("authorization").and_then(|v| v.strip_prefix("Bearer "));
    let token = match (text("x-slurm-user-token"), bearer) {
        (Some(t), None) | (None, Some(t)) => t,
        _ => {
            return Err((
                StatusCode::UNAUTHORIZED,
                "Invalid authentication credential",
            ))
        }
    };
    let uid = gateway
        .token_user(token, text("x-slurm-user-name"))
        .map_err(|_| {
            (
                StatusCode::UNAUTHORIZED,
                "Invalid authentication credential",
            )
        })?;
    let listed = conf.auth_users.as_ref().is_some_and(|users| {
        let name = spur_sys::users::name_of(uid);
        users.contains(&name)
    });
    if gateway.is_operator(uid) || listed {
        Ok(())
    } else {
        Err((StatusCode::FORBIDDEN, "Operation not permitted"))
    }
}
