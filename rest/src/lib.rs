//! spur-rest: slurmrestd's REST API on axum. It keeps no state and holds no
//! trust: each request is authenticated as slurmrestd's rest_auth plugins
//! do ([`auth`]), then asked of the controller through spur-client's one
//! typed API with the caller's credential, which the controller checks.
//! Answers take Slurm's shapes for each API version: Slurm 22.05's
//! `openapi/v0.0.38` ([`v0038`], with v0.0.37 and v0.0.36 in their older
//! shapes) and the data_parser versions ([`dp`]);
//! job history under `/slurmdb/` ([`slurmdb`]); spur's own OpenAPI
//! document ([`document`]).

// The diag documents are single json! literals of some sixty keys.
#![recursion_limit = "256"]

/// The controller's answer to `State::ask`, or the handler returns 401
/// when the controller refused the caller's credential.
macro_rules! ask {
    ($call:expr) => {
        match $call {
            Ok(answer) => answer,
            Err(unauthorized) => return axum::response::IntoResponse::into_response(unauthorized),
        }
    };
}

pub mod auth;
pub mod document;
pub mod dp;
pub mod listen;
pub mod listing;
pub mod mesh;
pub mod reply;
mod server;
pub mod slurmdb;
pub mod target;
pub mod ui;
pub mod v0038;

/// The request header that names a submission (`Idempotency-Key`, as the
/// IETF's httpapi draft spells it): a client that sends a submission again
/// with the same key, because the answer to the first was lost, gets the
/// job the first one made. Without the header each submission gets a key
/// of its own, which covers the server's own retries.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The submission key a request carries, if any (the controller checks its
/// length).
pub(crate) fn submit_key(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get(IDEMPOTENCY_KEY)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
}

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use spur_client::{Controller, Pool, RequestError, WithCredential};
use spur_conf::SlurmConf;
use spur_proto::{Credential, ErrorCode};

pub use server::{router, serve};

use auth::{Caller, OwnIdentity, Plugin};
use reply::Style;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The authentication plugins, in the order they are tried.
    pub plugins: Vec<Plugin>,
    /// How the server itself reaches the controller.
    pub own: OwnIdentity,
    /// How answers are written.
    pub style: Style,
    /// The largest request body taken, in bytes.
    pub max_body: usize,
    /// Connections to the controller kept open between requests.
    pub connections: usize,
}

/// What every request handler shares.
#[derive(Debug)]
pub struct State {
    /// How the server runs.
    pub settings: Settings,
    /// Sessions with the controller.
    pub pool: Pool,
    /// The cluster's name (slurm.conf's ClusterName).
    pub cluster: String,
}

impl State {
    /// The state for the cluster of `conf`.
    pub fn new(conf: SlurmConf, settings: Settings) -> Arc<State> {
        let cluster = conf
            .cluster_name
            .clone()
            .unwrap_or_else(|| "cluster".into());
        let keep = settings.connections;
        Arc::new(State {
            settings,
            pool: Pool::new(conf, keep),
            cluster,
        })
    }

    /// The controller's host as a ping names it: SlurmctldHost's name,
    /// else the one the controller `answered`.
    pub fn controller_host(&self, answered: Option<&str>) -> String {
        let conf = self.pool.conf().slurmctld_hosts.first();
        conf.map(|h| h.name.clone())
            .or_else(|| answered.map(str::to_string))
            .unwrap_or_default()
    }

    /// Runs `f` against the controller as `caller`, off the async
    /// threads (the client blocks). A credential the controller refused
    /// ends the request as a missing one would: [`Unauthorized`].
    pub async fn ask<T: Send + 'static>(
        self: &Arc<Self>,
        caller: &Caller,
        f: impl FnOnce(&mut dyn Controller) -> Result<T, RequestError> + Send + 'static,
    ) -> Result<Result<T, RequestError>, Unauthorized> {
        let state = self.clone();
        let credential: Option<Credential> = caller.credential.clone();
        let run = move || {
            state.pool.with(|session| match &credential {
                Some(credential) => f(&mut WithCredential {
                    controller: session,
                    credential,
                }),
                None => f(session),
            })
        };
        // On a multi-threaded runtime the call blocks this worker in place
        // (its other tasks move to another), so that the answer needs no
        // hand-off between threads; elsewhere it goes to the blocking pool.
        let multi = tokio::runtime::Handle::current().runtime_flavor()
            == tokio::runtime::RuntimeFlavor::MultiThread;
        let outcome = if multi {
            Ok(tokio::task::block_in_place(run))
        } else {
            tokio::task::spawn_blocking(run).await
        };
        match outcome {
            Err(e) if !e.is_panic() => {
                Ok(Err(RequestError::Refused(ErrorCode::Unspecified.into())))
            }
            Ok(Err(e)) if e.code() == ErrorCode::AuthCredInvalid => {
                tracing::info!(error = ?e, "the controller refused the caller's credential");
                Err(Unauthorized)
            }
            Ok(out) => Ok(out),
            // The closure panicked: let the connection's task fail with it
            // (hyper answers 500 and the server stays up).
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
}

/// A caller no authentication plugin took, or whose credential the
/// controller refused: 401 with slurmrestd's "Authentication failure".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unauthorized;

impl IntoResponse for Unauthorized {
    fn into_response(self) -> Response {
        reply::plain(StatusCode::UNAUTHORIZED, reply::text::AUTH_FAILURE)
    }
}
