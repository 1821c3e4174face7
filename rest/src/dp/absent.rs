//! The paths of what spur does not have, answered in their schemas' shapes
//! with errors that say so, never faked: reservations (there are none, so
//! none can be found or deleted, and spur makes none), dynamic nodes
//! (`new/node`; every node comes from slurm.conf) and partitions made or
//! deleted at run time (v0.0.45's `partitions` and `partition/{name}`),
//! which scontrol's `create`, `update` and `delete` refuse too.

use std::sync::Arc;

use axum::extract::{Path, State as AxState};
use axum::response::Response;
use axum::Extension;
use serde_json::json;

use spur_client::{Api, RequestError};
use spur_proto::{ErrorCode, ProtoError};

use super::{now, unparsable, value, version, Doc, PARTITIONS};
use crate::auth::Caller;
use crate::reply::{plain, text, Version};
use crate::State;

fn refusal(code: ErrorCode, detail: impl Into<String>) -> RequestError {
    RequestError::Refused(ProtoError::with_detail(code, detail.into()))
}

/// Whether a body is JSON (slurmrestd answers 400 to one that is not).
fn is_json(body: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
}

/// A path's version, where that version has the operation: Slurm binds
/// an operation only to the data_parser versions that can read its request
/// (reservation descriptions from v0.0.43, node lines from v0.0.44,
/// partition descriptions from v0.0.45).
fn since(tag: &str, first: Version) -> Option<Version> {
    version(tag).filter(|&v| v >= first)
}

/// The paths' version, or slurmrestd's "no such path".
macro_rules! or_404 {
    ($v:expr) => {
        match $v {
            Some(v) => v,
            None => return plain(axum::http::StatusCode::NOT_FOUND, text::UNKNOWN_PATH),
        }
    };
}

/// `GET reservation/{name}`: no reservation exists, so none has the name.
pub(super) async fn reservation(
    AxState(state): AxState<Arc<State>>,
    Path((tag, name)): Path<(String, String)>,
) -> Response {
    let v = or_404!(version(&tag));
    Doc::new(v)
        .put("reservations", json!([]))
        .put("last_update", value::Wrapped::of(now()))
        .error(
            &refusal(ErrorCode::ReservationInvalid, name.clone()),
            format!("Unable to find reservation {name}"),
            "slurm_load_reservations",
        )
        .answer(&state)
}

/// `DELETE reservation/{name}`: there is none to delete.
pub(super) async fn delete_reservation(
    AxState(state): AxState<Arc<State>>,
    Path((tag, name)): Path<(String, String)>,
) -> Response {
    let v = or_404!(version(&tag));
    Doc::new(v)
        .error(
            &refusal(ErrorCode::ReservationInvalid, name.clone()),
            format!("Error deleting reservation {name}"),
            "slurm_delete_reservation",
        )
        .answer(&state)
}

/// A change spur cannot make, asked of it with a JSON body: the
/// operation's answer (with `empty` keys) and the refusal saying why.
struct Unmade {
    /// The first version whose data_parser reads the request.
    since: Version,
    /// Keys the answer's schema requires, empty.
    empty: &'static [&'static str],
    why: &'static str,
    description: &'static str,
    source: &'static str,
}

impl Unmade {
    fn answer(&self, state: &State, tag: &str, body: &[u8]) -> Response {
        let v = or_404!(since(tag, self.since));
        if !is_json(body) {
            return unparsable();
        }
        let doc = (self.empty.iter()).fold(Doc::new(v), |doc, key| doc.put(key, json!([])));
        doc.error(
            &refusal(ErrorCode::NotSupported, self.why),
            self.description,
            self.source,
        )
        .answer(state)
    }
}

/// `POST reservation` and `POST reservations`: creating or updating a
/// reservation, which spur cannot hold.
pub(super) async fn change_reservations(
    AxState(state): AxState<Arc<State>>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    Unmade {
        since: Version::V0043,
        empty: &["reservations"],
        why: "spur has no reservations; they cannot be created or updated",
        description: "Error creating reservation",
        source: "slurm_create_reservation",
    }
    .answer(&state, &tag, &body)
}

/// `POST new/node`: a dynamic node, which spur cannot add.
pub(super) async fn new_node(
    AxState(state): AxState<Arc<State>>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    Unmade {
        since: Version::V0044,
        empty: &[],
        why: "dynamic nodes are not supported by spur; nodes come from slurm.conf",
        description: "Unable to create node",
        source: "slurm_create_node",
    }
    .answer(&state, &tag, &body)
}

/// `POST partitions` (v0.0.45): partitions come from slurm.conf and are
/// neither created nor changed at run time.
pub(super) async fn change_partitions(
    AxState(state): AxState<Arc<State>>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    Unmade {
        since: Version::V0045,
        empty: &[],
        why: "partitions come from slurm.conf; spur does not create or update them at run time",
        description: "Unable to update partitions",
        source: "slurm_update_partition",
    }
    .answer(&state, &tag, &body)
}

/// `DELETE partition/{name}` (v0.0.45): a name that matches none is 404,
/// as slurmctld answers; an existing partition stays, as it is slurm.conf's.
pub(super) async fn delete_partition(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, name)): Path<(String, String)>,
) -> Response {
    let v = or_404!(since(&tag, Version::V0045));
    let description = format!("Unable to delete partition {name}");
    let source = "slurm_delete_partition";
    let doc = Doc::new(v);
    let doc = match ask!(state.ask(&caller, |c| c.partitions()).await) {
        Err(e) => doc.error(&e, description, source),
        Ok(parts) if !parts.iter().any(|p| p.name == name) => doc.error(
            &refusal(PARTITIONS.unknown, name.clone()),
            description,
            source,
        ),
        Ok(_) => doc.error(
            &refusal(
                ErrorCode::NotSupported,
                "partitions come from slurm.conf; spur does not delete them at run time",
            ),
            description,
            source,
        ),
    };
    doc.answer(&state)
}
