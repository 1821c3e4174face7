//! The cluster map in the browser: one page (`/ui`), self-contained (its
//! script and styles inline, nothing fetched from elsewhere), that signs
//! in with a token from `scontrol token` and reads the REST API with it,
//! so PrivateData applies to what it shows as to any client; and spur's
//! one path the page needs beside Slurm's, `/spur/v1/domains`: the NVLink
//! domains with their nodes and GPUs (allocated, idle, stranded). The page
//! itself holds no data, so it is served to anyone; the data paths ask for
//! credentials as every path does.

use std::sync::Arc;

use axum::extract::{Extension, State as AxState};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::json;

use spur_client::Api;

use crate::auth::Caller;
use crate::State;

/// The page, as built.
const PAGE: &str = include_str!("ui/index.html");

/// The page's Content-Security-Policy: its one inline script by its
/// digest, its inline styles, requests to this server only; nothing may
/// frame it, and it loads nothing from elsewhere.
static POLICY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    use base64::Engine as _;
    use sha2::Digest as _;
    let script = PAGE
        .split_once("<script>")
        .and_then(|(_, rest)| rest.split_once("</script>"))
        .map_or("", |(script, _)| script);
    let digest = sha2::Sha256::digest(script.as_bytes());
    let hash = base64::engine::general_purpose::STANDARD.encode(digest);
    format!(
        "default-src 'none'; script-src 'sha256-{hash}'; style-src 'unsafe-inline'; \
         connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'none'"
    )
});

/// The page's route, served without credentials.
pub fn page_routes() -> Router<Arc<State>> {
    Router::new().route("/ui", get(page))
}

/// The data paths the page reads beside Slurm's, behind the usual checks.
pub fn routes() -> Router<Arc<State>> {
    Router::new().route("/spur/v1/domains", get(domains))
}

async fn page() -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, POLICY.as_str()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        PAGE,
    )
        .into_response()
}

async fn domains(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    match ask!(state.ask(&caller, |c| c.domains()).await) {
        Ok(domains) => state
            .settings
            .style
            .json(StatusCode::OK, &json!({ "domains": domains })),
        Err(e) => state.settings.style.json(
            crate::reply::Version::V0044.status_of(e.code()),
            &json!({ "domains": [], "errors": [{"error": e.to_string(), "error_number": e.errno()}] }),
        ),
    }
}
