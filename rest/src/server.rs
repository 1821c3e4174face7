//! The HTTP side: the routes of every version, the checks slurmrestd's
//! router makes before an operation runs (authentication first, then the
//! path, the method and the body), and the listeners served until
//! shutdown.

use std::sync::Arc;

use axum::extract::connect_info::Connected;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State as AxState};
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::IncomingStream;
use axum::Router;
use tokio::net::{TcpListener, UnixListener};
use tracing::{info, warn};

use crate::auth::{self, Peer};
use crate::listen::Listener;
use crate::reply::{plain, text};
use crate::{document, dp, slurmdb, ui, v0038, State, Unauthorized};

impl Connected<IncomingStream<'_, TcpListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, TcpListener>) -> Peer {
        Peer {
            uid: None,
            addr: Some(*stream.remote_addr()),
        }
    }
}

impl Connected<IncomingStream<'_, UnixListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, UnixListener>) -> Peer {
        Peer {
            uid: stream.io().peer_cred().ok().map(|c| c.uid()),
            addr: None,
        }
    }
}

/// Every path spur serves, behind slurmrestd's checks.
pub fn router(state: Arc<State>) -> Router {
    let max_body = state.settings.max_body;
    // 22.05's older plugins answer through v0.0.38's operations.
    let v0038_ops = Router::new()
        .merge(v0038::routes())
        .merge(slurmdb::routes())
        .fallback(unknown_path)
        .method_not_allowed_fallback(unknown_method)
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state.clone());
    Router::new()
        .merge(v0038::routes())
        .merge(v0038::older::routes(v0038_ops))
        .merge(dp::routes())
        .merge(slurmdb::routes())
        .merge(document::routes())
        .merge(ui::routes())
        .merge(crate::mesh::routes())
        .fallback(unknown_path)
        .method_not_allowed_fallback(unknown_method)
        .layer(middleware::from_fn_with_state(state.clone(), admit))
        // The map's page holds no data: it is served to anyone, and asks
        // for a token before it reads any.
        .merge(ui::page_routes())
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}

async fn unknown_path() -> Response {
    plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH)
}

async fn unknown_method() -> Response {
    plain(StatusCode::METHOD_NOT_ALLOWED, text::UNKNOWN_METHOD)
}

/// slurmrestd's checks before routing: who the caller is (a request no
/// plugin takes is refused before its path is looked at), and that a
/// method without a body carries none.
async fn admit(AxState(state): AxState<Arc<State>>, mut req: Request, next: Next) -> Response {
    let peer = req.extensions().get::<ConnectInfo<Peer>>().map_or(
        Peer {
            uid: None,
            addr: None,
        },
        |c| c.0,
    );
    let caller = match auth::authenticate(
        &state.settings.plugins,
        req.headers(),
        peer,
        &state.settings.own,
    ) {
        Ok(caller) => caller,
        Err(refusal) => {
            info!(path = %req.uri().path(), %refusal, "authentication failed");
            return Unauthorized.into_response();
        }
    };
    let has_body = req
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n > 0);
    // The data_parser versions take a body with DELETE (`DELETE jobs`);
    // 22.05's do not.
    let takes_body = match *req.method() {
        Method::POST | Method::PUT => true,
        Method::DELETE => !["/v0.0.36/", "/v0.0.37/", "/v0.0.38/"]
            .iter()
            .any(|v| req.uri().path().contains(v)),
        _ => false,
    };
    if has_body && !takes_body {
        return plain(StatusCode::BAD_REQUEST, text::UNEXPECTED_BODY);
    }
    if let Some(refusal) = content_types(req.headers(), has_body) {
        return refusal;
    }
    req.extensions_mut().insert(caller);
    req.extensions_mut().insert(peer);
    next.run(req).await
}

/// slurmrestd's refusals of what a request says of its types: an
/// `Accept` without JSON, a body that does not claim to be JSON (it reads
/// a body as the type it claims, URL-encoded when none; spur reads JSON
/// only).
fn content_types(headers: &axum::http::HeaderMap, has_body: bool) -> Option<Response> {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v: &axum::http::HeaderValue| v.to_str().ok())
            .map(str::to_ascii_lowercase)
    };
    if let Some(accept) = header(axum::http::header::ACCEPT) {
        if !accepts_json(&accept) {
            return Some(plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                text::UNKNOWN_ACCEPT,
            ));
        }
    }
    let json_body = header(axum::http::header::CONTENT_TYPE).is_some_and(|t| {
        let mime = t.split(';').next().unwrap_or("").trim();
        mime == "application/json" || mime.ends_with("+json")
    });
    (has_body && !json_body).then(|| plain(StatusCode::BAD_REQUEST, text::BAD_QUERY))
}

/// Whether an `Accept` list takes JSON (spur writes nothing else).
fn accepts_json(accept: &str) -> bool {
    accept.split(',').any(|entry| {
        let mime = entry.split(';').next().unwrap_or("").trim();
        matches!(mime, "application/json" | "application/*" | "*/*" | "") || mime.ends_with("+json")
    })
}

/// Serves `listeners` until `shutdown` resolves.
pub async fn serve(
    listeners: Vec<Listener>,
    state: Arc<State>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(state);
    let (stop, _) = tokio::sync::broadcast::channel::<()>(1);
    let mut tasks = Vec::new();
    for listener in listeners {
        info!(url = %listener.url(), "listening");
        let mut rx = stop.subscribe();
        let done = async move {
            let _ = rx.recv().await;
        };
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            match listener {
                Listener::Tcp(l) => {
                    axum::serve(l, app.into_make_service_with_connect_info::<Peer>())
                        .with_graceful_shutdown(done)
                        .await
                }
                Listener::Unix(l) => {
                    axum::serve(l, app.into_make_service_with_connect_info::<Peer>())
                        .with_graceful_shutdown(done)
                        .await
                }
            }
        }));
    }
    shutdown.await;
    let _ = stop.send(());
    for task in tasks {
        match task.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => warn!(error = %e, "listener failed"),
            Err(e) => warn!(error = %e, "listener task failed"),
        }
    }
    Ok(())
}
