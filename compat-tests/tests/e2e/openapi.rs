//! spur's REST answers checked against slurmrestd's published OpenAPI
//! documents (`../shared/slurm-openapi/` beside the repository: v0.0.44
//! and v0.0.45; `SPUR_OPENAPI_DIR` may name a folder holding
//! `v0041.json` ... `v0045.json` for the others). Each answer must match
//! its path's schema: every key one the schema has, every value of the
//! schema's type, every enum value one the schema lists.

use std::path::PathBuf;

use serde_json::Value;

use crate::harness::{Cluster, Options};
use crate::http::{request, Target};

/// The published document of `version` (`v0.0.44`), if present.
pub fn document(version: &str) -> Option<Value> {
    let short = version.replace("v0.0.", "v00");
    let mut places = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/slurm-openapi")
        .join(format!("openapi_spec_{version}.json"))];
    if let Some(dir) = std::env::var_os("SPUR_OPENAPI_DIR") {
        places.push(PathBuf::from(dir).join(format!("{short}.json")));
    }
    places
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|text| serde_json::from_str(&text).expect("the document is JSON"))
}

/// Checks `value` against `schema` (resolving `$ref`s in `doc`), adding
/// each mismatch to `out` with its path.
fn check(doc: &Value, schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().expect("a ref names a schema");
        let target = &doc["components"]["schemas"][name];
        assert!(!target.is_null(), "unresolved {r}");
        return check(doc, target, value, at, out);
    }
    let Some(kind) = schema.get("type").and_then(Value::as_str) else {
        return;
    };
    let ok = match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        _ => true,
    };
    if !ok {
        out.push(format!("{at}: expected {kind}, got {value}"));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            out.push(format!("{at}: {value} is not one of the schema's values"));
        }
    }
    match value {
        Value::Object(map) => {
            let required = schema.get("required").and_then(Value::as_array);
            for key in required.into_iter().flatten().filter_map(Value::as_str) {
                // Nested names (`error/code`) name keys of inner objects.
                if !key.contains('/') && !map.contains_key(key) {
                    out.push(format!("{at}/{key}: required, missing"));
                }
            }
            let props = schema.get("properties").and_then(Value::as_object);
            for (k, v) in map {
                match props.and_then(|p| p.get(k)) {
                    Some(s) => check(doc, s, v, &format!("{at}/{k}"), out),
                    None if props.is_some() => out.push(format!("{at}/{k}: not in the schema")),
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    check(doc, s, v, &format!("{at}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// The 200 answer's schema of `method` at `template`.
fn answer_schema<'a>(doc: &'a Value, template: &str, method: &str) -> &'a Value {
    let s = &doc["paths"][template][method]["responses"]["200"]["content"]["application/json"]
        ["schema"];
    assert!(!s.is_null(), "no schema for {method} {template}");
    s
}

#[test]
fn every_answer_matches_the_published_schema_of_its_version() {
    let versions: Vec<(&str, Value)> = ["v0.0.41", "v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"]
        .into_iter()
        .filter_map(|v| document(v).map(|d| (v, d)))
        .collect();
    if versions.is_empty() {
        eprintln!("skipped: no published OpenAPI document found (../shared/slurm-openapi)");
        return;
    }
    let mut c = Cluster::start(Options {
        nodes: 2,
        jwt: true,
        ..Options::default()
    });
    let t: Target = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    // Something of each kind to show: a running job with GPUs, a
    // pending array, a drained node.
    let running = c.submit(&["-N", "2", "--gpus-per-node=2", "--wrap", "sleep 300"], "");
    c.submit(&["--array=0-3%1", "--hold", "--wrap", "true"], "");
    let finished = c.submit(&["--wrap", "srun true"], "");
    c.wait_state(running, "RUNNING");
    c.wait_state(finished, "COMPLETED");
    let drained = c.run(
        "scontrol",
        &["update", "NodeName=n02", "State=DRAIN", "Reason=maint"],
    );
    assert!(drained.status.success());
    let mut problems = Vec::new();
    for (version, doc) in &versions {
        let base = format!("/slurm/{version}");
        let cwd = c.dir.path().display().to_string();
        let submit = serde_json::json!({
            "script": "#!/bin/bash\ntrue\n",
            "job": {"name": "schema", "current_working_directory": cwd,
                    "environment": ["PATH=/bin"], "bogus_field": 1},
        })
        .to_string();
        let calls: Vec<(&str, String, String, Option<String>)> = vec![
            ("get", "/ping/".into(), format!("{base}/ping/"), None),
            ("get", "/jobs/".into(), format!("{base}/jobs/"), None),
            (
                "get",
                "/job/{job_id}".into(),
                format!("{base}/job/{running}"),
                None,
            ),
            (
                "get",
                "/job/{job_id}".into(),
                format!("{base}/job/999999"),
                None,
            ),
            (
                "post",
                "/job/submit".into(),
                format!("{base}/job/submit"),
                Some(submit),
            ),
            (
                "post",
                "/job/allocate".into(),
                format!("{base}/job/allocate"),
                Some(
                    serde_json::json!({"job": {"name": "alloc", "hold": true,
                        "current_working_directory": cwd, "environment": ["PATH=/bin"]}})
                    .to_string(),
                ),
            ),
            (
                "post",
                "/job/{job_id}".into(),
                format!("{base}/job/{running}"),
                Some(r#"{"comment":"checked"}"#.into()),
            ),
            ("get", "/nodes/".into(), format!("{base}/nodes/"), None),
            (
                "get",
                "/node/{node_name}".into(),
                format!("{base}/node/n02"),
                None,
            ),
            (
                "get",
                "/partitions/".into(),
                format!("{base}/partitions/"),
                None,
            ),
            (
                "get",
                "/partition/{partition_name}".into(),
                format!("{base}/partition/batch"),
                None,
            ),
            (
                "get",
                "/licenses/".into(),
                format!("{base}/licenses/"),
                None,
            ),
            ("get", "/diag/".into(), format!("{base}/diag/"), None),
            (
                "get",
                "/reconfigure/".into(),
                format!("{base}/reconfigure/"),
                None,
            ),
            (
                "get",
                "/reservations/".into(),
                format!("{base}/reservations/"),
                None,
            ),
        ];
        for (method, template, path, body) in calls {
            let a = request(&t, &method.to_uppercase(), &path, &auth, body.as_deref());
            assert!(
                a.status < 500 || path.ends_with("999999"),
                "{path}: {} {}",
                a.status,
                a.body
            );
            let schema = answer_schema(doc, &format!("{base}{template}"), method);
            check(
                doc,
                schema,
                &a.json(),
                &format!("{method} {path}"),
                &mut problems,
            );
        }
        if *version >= "v0.0.44" {
            let util = format!("/util/{version}");
            let names = request(
                &t,
                "POST",
                &format!("{util}/hostnames"),
                &auth,
                Some(r#"{"hostlist":"n[01-03],x9"}"#),
            );
            assert_eq!(
                names.json()["hostnames"],
                serde_json::json!(["n01", "n02", "n03", "x9"])
            );
            let schema = answer_schema(doc, &format!("{util}/hostnames"), "post");
            check(doc, schema, &names.json(), "post hostnames", &mut problems);
            let list = request(
                &t,
                "POST",
                &format!("{util}/hostlist"),
                &auth,
                Some(r#"{"hostnames":["n01","n02","n03","x9"]}"#),
            );
            assert_eq!(list.json()["hostlist"], "n[01-03],x9");
            let schema = answer_schema(doc, &format!("{util}/hostlist"), "post");
            check(doc, schema, &list.json(), "post hostlist", &mut problems);
        }
        let db = format!("/slurmdb/{version}");
        for (template, path) in [
            ("/jobs/", format!("{db}/jobs/")),
            ("/jobs/", format!("{db}/jobs/?users=root&skip_steps=false")),
            ("/job/{job_id}", format!("{db}/job/{finished}")),
            ("/job/{job_id}", format!("{db}/job/{running}")),
            ("/diag/", format!("{db}/diag/")),
            ("/ping/", format!("{db}/ping/")),
        ] {
            let a = request(&t, "GET", &path, &auth, None);
            assert_eq!(a.status, 200, "{path}: {}", a.body);
            let schema = answer_schema(doc, &format!("{db}{template}"), "get");
            check(
                doc,
                schema,
                &a.json(),
                &format!("get {path}"),
                &mut problems,
            );
        }
        if *version >= "v0.0.44" {
            let path = format!("{base}/resources/{running}");
            let a = request(&t, "GET", &path, &auth, None);
            assert_eq!(a.status, 200, "{}", a.body);
            let layout = a.json();
            let nodes = layout["nodes"].as_array().expect("nodes");
            assert_eq!(nodes.len(), 2, "{layout}");
            assert_eq!(nodes[0]["gres"][0]["count"], 2, "{layout}");
            let schema = answer_schema(doc, &format!("{base}/resources/{{job_id}}"), "get");
            check(doc, schema, &layout, &path, &mut problems);
        }
        let kill = request(
            &t,
            "DELETE",
            &format!("{base}/jobs/"),
            &auth,
            Some(r#"{"jobs":["999999"],"signal":"USR1"}"#),
        );
        assert_eq!(kill.status, 200, "{}", kill.body);
        let schema = answer_schema(doc, &format!("{base}/jobs/"), "delete");
        check(doc, schema, &kill.json(), "delete jobs", &mut problems);
        if *version >= "v0.0.45" {
            for (method, template, path, body) in [
                (
                    "get",
                    "/job/{job_id}/requeue",
                    format!("{base}/job/999999/requeue"),
                    None,
                ),
                (
                    "post",
                    "/jobs/requeue",
                    format!("{base}/jobs/requeue"),
                    Some(r#"{"jobs":["999999"]}"#),
                ),
            ] {
                let a = request(&t, &method.to_uppercase(), &path, &auth, body);
                assert_eq!(a.status, 200, "{path}: {}", a.body);
                let schema = answer_schema(doc, &format!("{base}{template}"), method);
                check(doc, schema, &a.json(), &path, &mut problems);
            }
        }
        let a = request(
            &t,
            "DELETE",
            &format!("{base}/job/{running}?signal=USR1"),
            &auth,
            None,
        );
        let schema = answer_schema(doc, &format!("{base}/job/{{job_id}}"), "delete");
        check(
            doc,
            schema,
            &a.json(),
            &format!("delete {version}"),
            &mut problems,
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
