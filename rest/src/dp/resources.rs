//! `resources/{job_id}` (v0.0.44 and later): where a running job's
//! resources are, node by node: its memory and its GPUs by index (the
//! NVLink domain placement shows here). spur counts a job's CPUs per node
//! without binding it to particular cores or sockets, so the layout names
//! no cores; the schema asks only for the node.

use std::sync::Arc;

use axum::extract::{Path, State as AxState};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Extension;
use serde_json::{json, Value};

use spur_client::{Api, RequestError};
use spur_proto::{ErrorCode, JobFields, JobInfo, JobStateName, ProtoError};

use super::{invalid_job, job::node_memory, version, Doc};
use crate::auth::Caller;
use crate::reply::{plain, text, Version};
use crate::State;

/// Each node of `j` with what the job holds there.
fn layout(j: &JobInfo) -> Vec<Value> {
    let names = spur_conf::hostlist::expand(&j.nodes).unwrap_or_default();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let gpus = j.gpus_per_node_idx.get(i).cloned().unwrap_or_default();
            let gres: Vec<Value> = if gpus.is_empty() {
                Vec::new()
            } else {
                vec![json!({
                    "name": "gpu",
                    "type": "",
                    "count": gpus.len(),
                    "index": spur_slurm::print::bit_fmt(&gpus),
                })]
            };
            json!({"node": name, "mem_alloc": node_memory(j, i), "gres": gres})
        })
        .collect()
}

pub(super) async fn resources(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, id)): Path<(String, String)>,
) -> Response {
    let Some(v) = version(&tag).filter(|v| *v >= Version::V0044) else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let doc = Doc::new(v).put("nodes", json!([]));
    let Some((job_id, None)) = crate::target::job_ref(&id) else {
        return doc
            .error(
                &invalid_job(),
                format!("Unable to find JobId={id}"),
                "slurm_job_step_layout_get",
            )
            .answer(&state);
    };
    let answer = ask!(
        state
            .ask(&caller, move |c| c.jobs(
                vec![job_id],
                JobFields::ALL,
                false
            ))
            .await
    );
    let job = match answer {
        Ok(listing) => listing.items.into_iter().find(|j| j.job_id == job_id),
        Err(e) => {
            return doc
                .error(&e, format!("Unable to query JobId={id}"), "slurm_load_job")
                .answer(&state)
        }
    };
    let Some(job) = job else {
        return doc
            .error(
                &invalid_job(),
                format!("Unable to query JobId={id}"),
                "slurm_load_job",
            )
            .answer(&state);
    };
    if !matches!(job.state, JobStateName::Running | JobStateName::Completing)
        || job.nodes.is_empty()
    {
        let code = if job.state == JobStateName::Pending {
            ErrorCode::JobPending
        } else {
            ErrorCode::AlreadyDone
        };
        let e = RequestError::Refused(ProtoError::new(code));
        return doc
            .error(
                &e,
                format!("JobId={id} holds no resources"),
                "slurm_job_step_layout_get",
            )
            .answer(&state);
    }
    doc.put("nodes", Value::Array(layout(&job))).answer(&state)
}
