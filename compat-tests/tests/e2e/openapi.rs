//! spur's REST answers checked against slurmrestd's published OpenAPI
//! documents (`../shared/slurm-openapi/` beside the repository: v0.0.44
//! and v0.0.45; `SPUR_OPENAPI_DIR` may name a folder holding
//! `v0041.json` ... `v0045.json` for the others). Each answer must match
//! its path's schema: every key one the schema has, every value of the
//! schema's type, every enum value one the schema lists.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::document::Sample;
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
    if value.is_null() && schema["nullable"] == true {
        return;
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

/// The schema of `method` at `template` for an answer of `status`.
fn answer_schema<'a>(
    doc: &'a Value,
    template: &str,
    method: &str,
    status: u16,
) -> Option<&'a Value> {
    let responses = &doc["paths"][template][method]["responses"];
    let s = if status == 200 {
        &responses["200"]
    } else {
        &responses["default"]
    };
    let s = &s["content"]["application/json"]["schema"];
    (!s.is_null()).then_some(s)
}

/// Drives every operation spur serves, in every version, and keeps what
/// it answered: the answers spur's document is generated from and
/// checked against.
fn drive(
    c: &Cluster,
    t: &Target,
    auth: &[(&str, &str)],
    running: u32,
    finished: u32,
) -> Vec<Sample> {
    let mut samples = Vec::new();
    let cwd = c.dir.path().display().to_string();
    let mut call = |method: &'static str, template: String, path: String, body: Option<Value>| {
        let text = body.as_ref().map(Value::to_string);
        let a = request(t, &method.to_uppercase(), &path, auth, text.as_deref());
        // 22.05's versions answer every failure with 500.
        let of_2205 = ["v0.0.36", "v0.0.37", "v0.0.38"]
            .iter()
            .any(|v| template.contains(v));
        assert!(
            a.status < 500 || a.status == 500 && of_2205,
            "{method} {path}: {} {}",
            a.status,
            a.body
        );
        samples.push(Sample {
            method,
            template,
            query: crate::document::query_keys(&path),
            request: body,
            status: a.status,
            answer: a.json(),
        });
        a
    };
    for version in ["v0.0.41", "v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"] {
        let base = format!("/slurm/{version}");
        let at = |suffix: &str| format!("{base}{suffix}");
        call("get", at("/ping/"), at("/ping/"), None);
        call(
            "get",
            at("/jobs/"),
            at("/jobs/?update_time=0&flags=DETAIL"),
            None,
        );
        call("get", at("/jobs/state/"), at("/jobs/state/"), None);
        call(
            "get",
            at("/job/{job_id}"),
            at(&format!("/job/{running}")),
            None,
        );
        call(
            "get",
            at("/job/{job_id}"),
            at(&format!("/job/{finished}")),
            None,
        );
        call("get", at("/job/{job_id}"), at("/job/999999"), None);
        let submit = json!({
            "script": "#!/bin/bash\ntrue\n",
            "job": {"name": "schema", "current_working_directory": cwd,
                    "environment": ["PATH=/bin"], "hold": true, "bogus_field": 1},
        });
        call("post", at("/job/submit"), at("/job/submit"), Some(submit));
        call(
            "post",
            at("/job/submit"),
            at("/job/submit"),
            Some(json!({"job": {"tasks": "x"}})),
        );
        let alloc = json!({"job": {"name": "alloc", "hold": true,
            "current_working_directory": cwd, "environment": ["PATH=/bin"]}});
        call(
            "post",
            at("/job/allocate"),
            at("/job/allocate"),
            Some(alloc),
        );
        call(
            "post",
            at("/job/{job_id}"),
            at(&format!("/job/{running}")),
            Some(json!({"comment": "checked"})),
        );
        call(
            "post",
            at("/job/{job_id}"),
            at("/job/999999"),
            Some(json!({"comment": "checked"})),
        );
        call(
            "post",
            at("/job/{job_id}"),
            at("/job/x1"),
            Some(json!({"comment": "checked"})),
        );
        call(
            "post",
            at("/job/{job_id}"),
            at(&format!("/job/{running}")),
            Some(json!({"account": "a"})),
        );
        call("get", at("/nodes/"), at("/nodes/"), None);
        call("get", at("/node/{node_name}"), at("/node/n02"), None);
        call("get", at("/node/{node_name}"), at("/node/nx"), None);
        let drain = json!({"state": ["DRAIN"], "reason": "maint"});
        call(
            "post",
            at("/node/{node_name}"),
            at("/node/n02"),
            Some(drain),
        );
        let drain = json!({"name": ["n02"], "state": ["DRAIN"], "reason": "maint"});
        call("post", at("/nodes/"), at("/nodes/"), Some(drain));
        call("delete", at("/node/{node_name}"), at("/node/n01"), None);
        call("delete", at("/node/{node_name}"), at("/node/nx"), None);
        call("get", at("/partitions/"), at("/partitions/"), None);
        call(
            "get",
            at("/partition/{partition_name}"),
            at("/partition/batch"),
            None,
        );
        call("get", at("/licenses/"), at("/licenses/"), None);
        call("get", at("/reservations/"), at("/reservations/"), None);
        let named = at("/reservation/{reservation_name}");
        call("get", named.clone(), at("/reservation/maint"), None);
        call("delete", named, at("/reservation/maint"), None);
        if version >= "v0.0.43" {
            let resv = json!({"name": "maint", "partition": "batch", "users": ["root"]});
            call(
                "post",
                at("/reservation"),
                at("/reservation"),
                Some(resv.clone()),
            );
            let resvs = json!({"reservations": [resv]});
            call(
                "post",
                at("/reservations/"),
                at("/reservations/"),
                Some(resvs),
            );
        }
        if version >= "v0.0.44" {
            let line = json!({"node_conf": "NodeName=n9 CPUs=4 State=CLOUD"});
            call("post", at("/new/node/"), at("/new/node/"), Some(line));
        }
        if version >= "v0.0.45" {
            let parts = json!({"partitions": [{"name": "extra"}]});
            call("post", at("/partitions/"), at("/partitions/"), Some(parts));
            let named = at("/partition/{partition_name}");
            call("delete", named.clone(), at("/partition/batch"), None);
            call("delete", named, at("/partition/nx"), None);
            call("get", at("/conf"), at("/conf"), None);
        }
        call("get", at("/reconfigure/"), at("/reconfigure/"), None);
        call("get", at("/shares"), at("/shares"), None);
        call(
            "get",
            at("/shares"),
            at("/shares?users=root,nobody&accounts=none"),
            None,
        );
        call("get", at("/diag/"), at("/diag/"), None);
        if version >= "v0.0.44" {
            call(
                "get",
                at("/resources/{job_id}"),
                at(&format!("/resources/{running}")),
                None,
            );
            let util = format!("/util/{version}");
            call(
                "post",
                format!("{util}/hostnames"),
                format!("{util}/hostnames"),
                Some(json!({"hostlist": "n[01-03],x9"})),
            );
            call(
                "post",
                format!("{util}/hostlist"),
                format!("{util}/hostlist"),
                Some(json!({"hostnames": ["n01", "n02", "n03", "x9"]})),
            );
        }
        let kill = json!({"jobs": ["999999"], "signal": "USR1", "flags": ["BATCH_JOB"],
            "job_name": "none", "user_name": "nobody", "partition": "batch",
            "account": "none", "qos": "normal", "reservation": "none", "nodes": "n01",
            "job_state": "PENDING", "user_id": "0", "wckey": "none"});
        call("delete", at("/jobs/"), at("/jobs/"), Some(kill));
        if version >= "v0.0.45" {
            call(
                "get",
                at("/job/{job_id}/requeue"),
                at("/job/999999/requeue?Incomplete=true&Hold=false&SpecialExit=false"),
                None,
            );
            call(
                "post",
                at("/jobs/requeue"),
                at("/jobs/requeue"),
                Some(json!({"jobs": ["999999"], "flags": ["Hold"]})),
            );
        }
        call(
            "delete",
            at("/job/{job_id}"),
            at("/job/999999?signal=USR1&flags=BATCH_JOB"),
            None,
        );
        let db = format!("/slurmdb/{version}");
        let dbat = |suffix: &str| format!("{db}{suffix}");
        call("get", dbat("/jobs/"), dbat("/jobs/"), None);
        call(
            "get",
            dbat("/jobs/"),
            dbat(
                "/jobs/?users=root&skip_steps=false&start_time=0\
            &end_time=now&state=COMPLETED&job_name=x&partition=batch&account=a&qos=q\
            &reason=r&constraints=c&node=n01&cluster=other&groups=root",
            ),
            None,
        );
        call(
            "get",
            dbat("/jobs/"),
            dbat("/jobs/?start_time=tomorrow&end_time=yesterday"),
            None,
        );
        call(
            "get",
            dbat("/job/{job_id}"),
            dbat(&format!("/job/{finished}")),
            None,
        );
        call(
            "get",
            dbat("/job/{job_id}"),
            dbat(&format!("/job/{running}")),
            None,
        );
        call("get", dbat("/diag/"), dbat("/diag/"), None);
        call("get", dbat("/ping/"), dbat("/ping/"), None);
    }
    for version in ["v0.0.36", "v0.0.37", "v0.0.38"] {
        let base = format!("/slurm/{version}");
        let at = |suffix: &str| format!("{base}{suffix}");
        call("get", at("/ping"), at("/ping"), None);
        call("get", at("/diag"), at("/diag"), None);
        call("get", at("/jobs"), at("/jobs"), None);
        call(
            "get",
            at("/job/{job_id}"),
            at(&format!("/job/{running}")),
            None,
        );
        call("get", at("/job/{job_id}"), at("/job/999999"), None);
        let submit = json!({
            "script": "#!/bin/bash\ntrue\n",
            "job": {"name": "schema", "current_working_directory": cwd,
                    "environment": {"PATH": "/bin"}, "hold": true},
        });
        call("post", at("/job/submit"), at("/job/submit"), Some(submit));
        call(
            "post",
            at("/job/{job_id}"),
            at(&format!("/job/{running}")),
            Some(json!({"comment": "checked"})),
        );
        call("get", at("/nodes"), at("/nodes"), None);
        call("get", at("/node/{node_name}"), at("/node/n02"), None);
        call("get", at("/partitions"), at("/partitions"), None);
        call(
            "get",
            at("/partition/{partition_name}"),
            at("/partition/batch"),
            None,
        );
        if version == "v0.0.38" {
            call("get", at("/licenses"), at("/licenses"), None);
        }
        if version != "v0.0.36" {
            call("get", at("/reservations"), at("/reservations"), None);
            call(
                "get",
                at("/reservation/{reservation_name}"),
                at("/reservation/none"),
                None,
            );
        }
        call(
            "delete",
            at("/job/{job_id}"),
            at("/job/999999?signal=USR1"),
            None,
        );
        let db = format!("/slurmdb/{version}");
        let dbat = |suffix: &str| format!("{db}{suffix}");
        call("get", dbat("/jobs"), dbat("/jobs"), None);
        call(
            "get",
            dbat("/jobs"),
            dbat(
                "/jobs?users=root&start_time=0&end_time=now\
            &state=COMPLETED&job_name=x&partition=batch&account=a&qos=q&reason=r\
            &constraints=c&node=n01&cluster=other&group=root&cpus_min=1&cpus_max=9\
            &nodes_min=1&nodes_max=9&skip_steps=false",
            ),
            None,
        );
        call(
            "get",
            dbat("/job/{job_id}"),
            dbat(&format!("/job/{finished}")),
            None,
        );
        call("get", dbat("/diag"), dbat("/diag"), None);
    }
    // spur's own paths beside Slurm's: the domains the cluster map reads,
    // and the mesh (off here: `"mesh": null`).
    call(
        "get",
        "/spur/v1/domains".into(),
        "/spur/v1/domains".into(),
        None,
    );
    call("get", "/spur/v1/mesh".into(), "/spur/v1/mesh".into(), None);
    // A mesh that is on, as the path renders it (the mesh's own e2e test
    // reads it from a cluster on WireGuard).
    let on = spur_proto::MeshStatus {
        interface: "spur0".into(),
        address: "10.77.0.1".parse().expect("an address"),
        port: 51820,
        public_key: [1; 32],
        peers: vec![spur_proto::MeshPeerStatus {
            name: "n01".into(),
            address: "10.77.0.2".parse().expect("an address"),
            public_key: [2; 32],
            endpoint: Some("192.168.1.11:51820".parse().expect("an endpoint")),
            last_handshake: Some(1_780_000_000),
            rx_bytes: 4_312,
            tx_bytes: 17_048,
        }],
    };
    samples.push(Sample {
        method: "get",
        template: "/spur/v1/mesh".into(),
        query: vec![],
        request: None,
        status: 200,
        answer: json!({ "mesh": spur_rest::mesh::render(&on), "errors": [] }),
    });
    samples
}

#[test]
fn every_answer_matches_spurs_document_and_the_published_one() {
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
    let samples = drive(&c, &t, &auth, running, finished);
    let layout = samples
        .iter()
        .find(|s| s.template.ends_with("/resources/{job_id}"))
        .map(|s| s.answer.clone())
        .expect("resources were asked for");
    let nodes = layout["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 2, "{layout}");
    assert_eq!(nodes[0]["gres"][0]["count"], 2, "{layout}");
    let names = samples
        .iter()
        .find(|s| s.template.ends_with("/hostnames"))
        .expect("hostnames were asked for");
    assert_eq!(
        names.answer["hostnames"],
        json!(["n01", "n02", "n03", "x9"])
    );
    let list = samples
        .iter()
        .find(|s| s.template.ends_with("/hostlist"))
        .expect("hostlist was asked for");
    assert_eq!(list.answer["hostlist"], "n[01-03],x9");
    // What should succeed did; a submission's unknown field is warned of.
    for s in &samples {
        let dp = !["v0.0.36", "v0.0.37", "v0.0.38"]
            .iter()
            .any(|v| s.template.contains(v));
        let must = (s.template.starts_with("/slurmdb/") && !s.template.ends_with("{job_id}"))
            || s.template.ends_with("/requeue")
            || (s.method == "delete" && s.template.ends_with("/jobs/"));
        let window_refused =
            s.query.contains(&"start_time".to_string()) && !s.query.contains(&"users".to_string());
        if dp && must && !window_refused {
            assert_eq!(s.status, 200, "{} {}: {}", s.method, s.template, s.answer);
        }
        if dp && s.template.ends_with("/job/submit") && s.status == 200 {
            let warned = s.answer["warnings"].to_string();
            assert!(warned.contains("bogus_field"), "{}", s.answer);
        }
    }

    let committed = crate::document::path();
    if std::env::var_os("SPUR_BLESS").is_some() {
        let doc = crate::document::generate(&samples);
        let text = serde_json::to_string_pretty(&doc).expect("serializes") + "\n";
        std::fs::write(&committed, text).expect("the document is written");
        eprintln!("wrote {}; rebuild spurd to serve it", committed.display());
    }
    let ours: Value =
        serde_json::from_str(&std::fs::read_to_string(&committed).expect("the committed document"))
            .expect("the committed document is JSON");
    let served = request(&t, "GET", "/openapi/v3", &auth, None);
    assert_eq!(served.status, 200, "{}", served.body);
    if std::env::var_os("SPUR_BLESS").is_none() {
        assert!(
            served.json() == ours,
            "the served document is not the committed one"
        );
    }

    let mut problems = Vec::new();
    for s in &samples {
        let at = format!("{} {} ({})", s.method, s.template, s.status);
        match answer_schema(&ours, &s.template, s.method, s.status) {
            Some(schema) => check(
                &ours,
                schema,
                &s.answer,
                &format!("spur's: {at}"),
                &mut problems,
            ),
            None => problems.push(format!("{at}: not in spur's document")),
        }
        let version = s.template.split('/').nth(2).expect("a version");
        if let Some(doc) = document(version) {
            if let Some(schema) = answer_schema(&doc, &s.template, s.method, s.status) {
                check(
                    &doc,
                    schema,
                    &s.answer,
                    &format!("published: {at}"),
                    &mut problems,
                );
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
