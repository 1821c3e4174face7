//! `/spur/v1/mesh`: the WireGuard mesh's members as the controller's
//! interface sees them (each one's public key, endpoint, latest handshake
//! and bytes moved), as `spurd mesh status` shows them; `"mesh": null`
//! where the mesh is off. Node names are in it, so PrivateData=nodes keeps
//! it from those it keeps the node listing from.

use std::sync::Arc;

use axum::extract::{Extension, State as AxState};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use base64::Engine as _;
use serde_json::{json, Value};

use spur_client::Api;
use spur_proto::MeshStatus;

use crate::auth::Caller;
use crate::State;

/// The mesh's path, behind the usual checks.
pub fn routes() -> Router<Arc<State>> {
    Router::new().route("/spur/v1/mesh", get(mesh))
}

async fn mesh(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    match ask!(state.ask(&caller, |c| c.mesh()).await) {
        Ok(status) => state.settings.style.json(
            StatusCode::OK,
            &json!({ "mesh": status.as_ref().map(render), "errors": [] }),
        ),
        Err(e) => state.settings.style.json(
            crate::reply::Version::V0044.status_of(e.code()),
            &json!({ "mesh": null, "errors": [{"error": e.to_string(), "error_number": e.errno()}] }),
        ),
    }
}

/// The status as the path answers it: keys in base64 as WireGuard's tools
/// print them, the latest handshake in seconds since the epoch (0: none
/// yet).
pub fn render(status: &MeshStatus) -> Value {
    let key = |k: &[u8; 32]| base64::engine::general_purpose::STANDARD.encode(k);
    json!({
        "interface": status.interface,
        "address": status.address.to_string(),
        "port": status.port,
        "public_key": key(&status.public_key),
        "peers": status.peers.iter().map(|p| json!({
            "name": p.name,
            "address": p.address.to_string(),
            "public_key": key(&p.public_key),
            "endpoint": p.endpoint.map(|e| e.to_string()).unwrap_or_default(),
            "last_handshake": p.last_handshake.unwrap_or(0),
            "received_bytes": p.rx_bytes,
            "sent_bytes": p.tx_bytes,
        })).collect::<Vec<_>>(),
    })
}
