//! `GET shares`: fair-share as sshare shows it (`shares_resp_msg`), the
//! rows spur-report's shares module makes (the root, then each user with
//! past usage; a user's entry carries its uid as `id`).

use std::sync::Arc;

use axum::extract::{Path, Query, State as AxState};
use axum::response::Response;
use axum::Extension;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use spur_client::Api;
use spur_proto::Shares;

use super::value::Wrapped as W;
use super::{version, Doc};
use crate::auth::Caller;
use crate::reply::{plain, text, Warning};
use crate::State;

/// `shares`' query: users and accounts, comma-separated.
#[derive(Debug, Deserialize)]
pub(super) struct SharesQuery {
    users: Option<String>,
    accounts: Option<String>,
}

/// One `assoc_shares_obj_wrap`, its keys in Slurm's order.
#[derive(Debug, Serialize)]
struct Entry<'a> {
    id: u32,
    cluster: &'a str,
    name: &'a str,
    parent: &'a str,
    partition: &'static str,
    shares_normalized: W,
    shares: W,
    tres: Value,
    effective_usage: W,
    usage_normalized: W,
    usage: u64,
    fairshare: Fairshare,
    #[serde(rename = "type")]
    kind: [&'static str; 1],
}

/// `assoc_shares_obj_wrap.fairshare`.
#[derive(Debug, Serialize)]
struct Fairshare {
    factor: W,
    level: W,
}

impl Entry<'_> {
    fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("plain data serializes")
    }
}

/// The `shares` object of `all`, keeping the users `wanted` names (all
/// when None).
pub(super) fn shares_msg(all: &Shares, cluster: &str, wanted: Option<&[String]>) -> Value {
    // spur keeps no per-TRES usage or limits: the lists are empty.
    let tres = json!({"run_seconds": [], "group_minutes": [], "usage": []});
    let list: Vec<Value> = spur_report::shares::rows(all, wanted)
        .iter()
        .map(|row| {
            Entry {
                id: row.id,
                cluster,
                name: &row.name,
                parent: row.parent,
                partition: "",
                shares_normalized: W::float(row.shares_norm),
                shares: row.shares_raw.map_or_else(W::unset, W::of),
                tres: tres.clone(),
                effective_usage: W::float(row.usage_efctv),
                usage_normalized: W::float(row.usage_norm),
                usage: row.usage_raw.round() as u64,
                fairshare: Fairshare {
                    factor: row.fs_factor.map_or_else(W::unset_float, W::float),
                    level: W::unset_float(),
                },
                kind: [if row.user { "USER" } else { "ASSOCIATION" }],
            }
            .to_value()
        })
        .collect();
    json!({"shares": list, "total_shares": all.user_count})
}

pub(super) async fn shares(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    Query(q): Query<SharesQuery>,
) -> Response {
    let Some(v) = version(&tag) else {
        return plain(axum::http::StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let mut doc = Doc::new(v);
    let names = |t: &str| -> Vec<String> {
        t.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    let accounts = q.accounts.as_deref().map(names).unwrap_or_default();
    if !accounts.is_empty() {
        doc.warnings.push(Warning {
            description: "accounts: spur keeps no accounts; no user is under one".into(),
            source: "slurm_associations_get_shares".into(),
        });
    }
    let users = q.users.as_deref().map(names).filter(|u| !u.is_empty());
    match ask!(state.ask(&caller, |c| c.shares()).await) {
        Ok(all) => {
            let mut msg = shares_msg(&all, &state.cluster, users.as_deref());
            if !accounts.is_empty() {
                // Only the root: no user is under an account.
                if let Some(Value::Array(list)) = msg.get_mut("shares") {
                    list.truncate(1);
                }
            }
            doc.put("shares", msg).answer(&state)
        }
        Err(e) => doc
            .put("shares", json!({"shares": [], "total_shares": 0}))
            .error(&e, "unable to get shares", "slurm_associations_get_shares")
            .answer(&state),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_proto::UserShare;

    #[test]
    fn each_user_is_an_equal_share_under_the_root() {
        let all = Shares::of_all(
            vec![
                UserShare {
                    uid: 1000,
                    name: "ann".into(),
                    usage: 300.0,
                    factor: 0.25,
                },
                UserShare {
                    uid: 1001,
                    name: "bob".into(),
                    usage: 100.0,
                    factor: 0.6,
                },
            ],
            0,
        );
        let msg = shares_msg(&all, "c", None);
        assert_eq!(msg["total_shares"], 2);
        let list = msg["shares"].as_array().expect("a list");
        assert_eq!(list.len(), 3);
        assert_eq!(list[0]["name"], "root");
        assert_eq!(list[0]["usage"], 400);
        assert_eq!(list[1]["name"], "ann");
        assert_eq!(list[1]["parent"], "root");
        assert_eq!(list[1]["shares_normalized"]["number"], 0.5);
        assert_eq!(list[1]["usage_normalized"]["number"], 0.75);
        assert_eq!(list[1]["fairshare"]["factor"]["number"], 0.25);
        assert_eq!(list[2]["type"], json!(["USER"]));
        let only = shares_msg(&all, "c", Some(&["bob".to_string()]));
        assert_eq!(only["shares"].as_array().map(Vec::len), Some(2));
    }
}
