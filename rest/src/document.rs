//! spur's OpenAPI document, served at `/openapi/v3`, `/openapi.json` and
//! `/openapi` as slurmrestd serves its own: every path and method spur
//! serves, in every version, with the shapes of its answers and of the
//! requests it reads. The document is generated from spur itself: the
//! end-to-end suite drives every operation of every version on a real
//! cluster and describes what came back (job descriptions from
//! [`crate::dp::desc`]'s tables of what it reads); on every run it checks
//! each answer against the committed document and the document against
//! slurmrestd's published ones, schema by schema. Regenerate it with
//! `SPUR_BLESS=1 cargo nextest run -p spur-compat-tests -E
//! 'test(every_answer_matches)'`.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

use crate::State;

/// The document, as generated.
pub const DOCUMENT: &str = include_str!("../openapi.json");

/// The document's routes.
pub fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/openapi/v3", get(document))
        .route("/openapi.json", get(document))
        .route("/openapi", get(document))
}

async fn document() -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        DOCUMENT,
    )
        .into_response()
}
