//! Slurm 22.05's `openapi/v0.0.37` and `openapi/v0.0.36` (and their
//! `dbv0.0.37`, `dbv0.0.36`): the operations of v0.0.38, in the shapes
//! 22.05's document gives the older plugins. A request is read and
//! answered by v0.0.38's handlers ([`super`]) and the answer written in
//! the older shape: no `meta`, errors as `{error, errno}`, the keys a
//! version lacks left out; v0.0.36's job properties take its own names.
//! What only v0.0.38 serves (licenses; reservations in v0.0.36) is not
//! found, as 22.05 answers it.

use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State as AxState};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use serde_json::{Map, Value};
use tower::ServiceExt;

use crate::auth::{Caller, Peer};
use crate::reply::{plain, text};
use crate::State;

/// One of the older plugins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Older {
    V0036,
    V0037,
}

impl Older {
    fn tag(self) -> &'static str {
        match self {
            Older::V0036 => "v0.0.36",
            Older::V0037 => "v0.0.37",
        }
    }

    /// Whether the version serves `rest` (the path after the version) of
    /// `plugin` (`slurm` or `slurmdb`).
    fn serves(self, plugin: &str, rest: &str) -> bool {
        let first = rest.split('/').find(|s| !s.is_empty()).unwrap_or("");
        match (plugin, first) {
            ("slurm", "licenses") => false,
            ("slurm", "reservations" | "reservation") => self == Older::V0037,
            // dbv0.0.38 has no ping either.
            ("slurmdb", "ping") => false,
            _ => true,
        }
    }

    /// v0.0.38's job properties this version does not know, and the
    /// names it knows them by where they differ.
    fn renamed(self) -> &'static [(&'static str, Option<&'static str>)] {
        match self {
            Older::V0037 => &[
                ("container", None),
                ("oversubscribe", None),
                ("prefer", None),
            ],
            Older::V0036 => &[
                ("container", None),
                ("oversubscribe", None),
                ("prefer", None),
                ("account_gather_frequency", None),
                ("cluster_constraint", None),
                ("standard_input", None),
                ("standard_output", None),
                ("account_gather_freqency", Some("account_gather_frequency")),
                ("cluster_constraints", Some("cluster_constraint")),
                ("standard_in", Some("standard_input")),
                ("standard_out", Some("standard_output")),
            ],
        }
    }
}

/// The name 22.05's `version` (`v0.0.36`) gives v0.0.38's job property
/// `key`, or None when that version has no such property; versions other
/// than v0.0.36 and v0.0.37 name it as v0.0.38 does.
pub fn job_property_name(version: &str, key: &'static str) -> Option<&'static str> {
    let older = match version {
        "v0.0.36" => Older::V0036,
        "v0.0.37" => Older::V0037,
        _ => return Some(key),
    };
    let table = older.renamed();
    if let Some((old, _)) = table.iter().find(|(_, new)| *new == Some(key)) {
        return Some(old);
    }
    if table.iter().any(|(k, new)| *k == key && new.is_none()) {
        return None;
    }
    Some(key)
}

/// The older versions' routes, answered through `inner` (v0.0.38's
/// routes, with their state).
pub fn routes(inner: Router) -> Router<Arc<State>> {
    let mut r = Router::new();
    for older in [Older::V0036, Older::V0037] {
        for plugin in ["slurm", "slurmdb"] {
            let inner = inner.clone();
            let path = format!("/{plugin}/{}/{{*rest}}", older.tag());
            r = r.route(
                &path,
                any(move |state: AxState<Arc<State>>, req: Request| {
                    forward(state, inner.clone(), older, plugin, req)
                }),
            );
        }
    }
    r
}

/// The request's job properties in v0.0.38's names; a property the
/// version does not know is refused as v0.0.38 refuses an unknown key.
fn job_in_v0038_names(older: Older, body: &mut Value) -> Result<(), String> {
    // A submission holds the properties under `job`; an update is them.
    let job = if body.get("job").is_some_and(Value::is_object) {
        &mut body["job"]
    } else {
        body
    };
    let Value::Object(job) = job else {
        return Ok(());
    };
    let keys: Vec<String> = job.keys().cloned().collect();
    for key in keys {
        let lower = key.to_ascii_lowercase();
        match older.renamed().iter().find(|(k, _)| *k == lower) {
            Some((_, None)) => return Err(lower),
            Some((_, Some(name))) => {
                let value = job.remove(&key).expect("listed");
                job.insert((*name).to_string(), value);
            }
            None => {}
        }
    }
    Ok(())
}

async fn forward(
    AxState(state): AxState<Arc<State>>,
    inner: Router,
    older: Older,
    plugin: &'static str,
    req: Request,
) -> Response {
    let prefix = format!("/{plugin}/{}", older.tag());
    let path = req.uri().path().to_string();
    let rest = path.strip_prefix(&prefix).unwrap_or("");
    if !older.serves(plugin, rest) {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    }
    let (mut parts, body) = req.into_parts();
    let query = parts
        .uri
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    let Ok(uri) = format!("/{plugin}/v0.0.38{rest}{query}").parse::<Uri>() else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    parts.uri = uri;
    let Ok(bytes) = to_bytes(body, state.settings.max_body).await else {
        // Over the limit (the outer router's limit answers first), or the
        // connection failed while the body came.
        return plain(StatusCode::BAD_REQUEST, text::BAD_QUERY);
    };
    let mut body = Body::from(bytes.clone());
    let is_job = plugin == "slurm" && rest.trim_start_matches('/').starts_with("job/");
    if is_job && !bytes.is_empty() {
        if let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) {
            if let Err(key) = job_in_v0038_names(older, &mut value) {
                // Refused as v0.0.38 refuses a key it does not know.
                let why = super::props::PropError::Unknown(key).to_string();
                let refused = if rest.trim_start_matches('/') == "job/submit" {
                    super::parse_failure(&state, 9001, &why)
                } else {
                    let e = spur_client::RequestError::Refused(spur_proto::ProtoError::new(
                        spur_proto::ErrorCode::NotSupported,
                    ));
                    let entry = super::entry(&why, &e, "_parse_job_list");
                    super::failed(&state, vec![entry], Map::new())
                };
                return older_answer(older, plugin, refused).await;
            }
            body = Body::from(value.to_string());
            parts.headers.remove(header::CONTENT_LENGTH);
        }
    }
    // A fresh request: the outer route's path parameters stay behind.
    let mut fresh = Request::new(body);
    *fresh.method_mut() = parts.method;
    *fresh.uri_mut() = parts.uri;
    *fresh.headers_mut() = parts.headers;
    if let Some(caller) = parts.extensions.remove::<Caller>() {
        fresh.extensions_mut().insert(caller);
    }
    if let Some(peer) = parts.extensions.remove::<Peer>() {
        fresh.extensions_mut().insert(peer);
    }
    let answer = match inner.oneshot(fresh).await {
        Ok(answer) => answer,
        Err(never) => match never {},
    };
    older_answer(older, plugin, answer).await
}

/// v0.0.38's answer in the older version's shape.
async fn older_answer(older: Older, plugin: &str, answer: Response) -> Response {
    let (parts, body) = answer.into_parts();
    let is_json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let doc = if is_json {
        serde_json::from_slice::<Value>(&bytes).ok()
    } else {
        None
    };
    let Some(mut doc) = doc else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    reshape(older, plugin, &mut doc);
    let pretty = bytes.starts_with(b"{\n");
    let text = if pretty {
        serde_json::to_vec_pretty(&doc)
    } else {
        serde_json::to_vec(&doc)
    };
    let mut parts = parts;
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(text.unwrap_or_default()))
}

/// Removes `keys` from each object of the list at `list`.
fn without(doc: &mut Value, list: &str, keys: &[&str]) {
    if let Some(Value::Array(items)) = doc.get_mut(list) {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            for key in keys {
                item.remove(*key);
            }
        }
    }
}

/// Rewrites v0.0.38's answer `doc` in the older version's shape.
fn reshape(older: Older, plugin: &str, doc: &mut Value) {
    let Some(top) = doc.as_object_mut() else {
        return;
    };
    top.remove("meta");
    if let Some(Value::Array(errors)) = top.get_mut("errors") {
        for e in errors.iter_mut() {
            let text = e
                .get("error")
                .cloned()
                .unwrap_or(Value::String(String::new()));
            let errno = e
                .get("error_number")
                .or_else(|| e.get("error_code"))
                .cloned()
                .unwrap_or(Value::from(0));
            let mut entry = Map::new();
            entry.insert("error".into(), text);
            entry.insert("errno".into(), errno);
            *e = Value::Object(entry);
        }
    }
    without(doc, "jobs", &["container"]);
    if plugin == "slurm" {
        without(
            doc,
            "partitions",
            &["default_memory_per_node", "maximum_memory_per_cpu"],
        );
        if let Some(Value::Array(jobs)) = doc.get_mut("jobs") {
            for job in jobs {
                let nodes = job.pointer_mut("/job_resources/allocated_nodes");
                if let Some(Value::Array(nodes)) = nodes {
                    for node in nodes.iter_mut().filter_map(Value::as_object_mut) {
                        node.remove("nodename");
                    }
                }
            }
        }
        if let Some(Value::Object(stats)) = doc.get_mut("statistics") {
            for key in [
                "rpcs_by_message_type",
                "rpcs_by_user",
                "bf_table_size",
                "bf_table_size_mean",
            ] {
                stats.remove(key);
            }
        }
    } else if let Some(Value::Array(jobs)) = doc.get_mut("jobs") {
        for job in jobs {
            if let Some(Value::Object(state)) = job.get_mut("state") {
                state.remove("reason");
            }
        }
    }
    if older == Older::V0036 {
        without(
            doc,
            "nodes",
            &[
                "alloc_cpus",
                "alloc_memory",
                "idle_cpus",
                "next_state_after_reboot_flags",
                "partitions",
                "state_flags",
                "tres_used",
                "tres_weighted",
            ],
        );
        without(doc, "partitions", &["state"]);
        // dbv0.0.36's diag keeps its statistics at the top.
        if plugin == "slurmdb" {
            if let Some(Value::Object(stats)) =
                doc.as_object_mut().and_then(|t| t.remove("statistics"))
            {
                if let Some(top) = doc.as_object_mut() {
                    top.extend(stats);
                }
            }
        }
    }
}
