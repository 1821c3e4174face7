//! schemathesis, unchanged, against spur's REST server: for every
//! operation spur serves in each published slurmrestd document it has
//! (v0.0.44 and v0.0.45 in `../shared/slurm-openapi/`, others through
//! `SPUR_OPENAPI_DIR`), it sends the documented examples and generated
//! requests, good and bad, and checks that no answer is a server error and
//! every answer matches its documented schema; then the same against
//! spur's own document, as `/openapi/v3` serves it.

use std::path::Path;

use serde_json::Value;

use crate::harness::{Cluster, Options};
use crate::http::Target;
use crate::{text, venv};

const SCHEMATHESIS: &str = "schemathesis==4.32.5\n";

/// Slurm's documents list nested keys as required with a path
/// (`error/code`), which JSON Schema reads as a key of that name no
/// answer of slurmrestd's has either; they are taken out, the rest of the
/// document is used as published.
fn without_path_requirements(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Array(required)) = map.get_mut("required") {
                required.retain(|r| !r.as_str().is_some_and(|r| r.contains('/')));
            }
            map.values_mut().for_each(without_path_requirements);
        }
        Value::Array(items) => items.iter_mut().for_each(without_path_requirements),
        _ => {}
    }
}

/// The operations spur serves in `version`, as a regular expression of
/// their operation ids.
fn served(version: &str) -> String {
    let tag = version.replace("v0.0.", "v00");
    let mut get = vec![
        "reconfigure",
        "diag",
        "ping",
        "licenses",
        "jobs",
        "jobs_state",
        "job",
        "nodes",
        "node",
        "partitions",
        "partition",
        "reservations",
        "shares",
    ];
    if version >= "v0.0.44" {
        get.push("resources");
    }
    let mut util = String::new();
    if version >= "v0.0.44" {
        util = format!("|util_{tag}_post_(hostnames|hostlist)");
    }
    let requeue = if version >= "v0.0.45" {
        format!("|slurm_{tag}_get_job_requeue|slurm_{tag}_post_jobs_requeue")
    } else {
        String::new()
    };
    format!(
        "^(slurm_{tag}_(get_({})|post_(job_submit|job_allocate|job|nodes|node)|delete_(jobs|job))\
         |slurmdb_{tag}_get_(job|jobs|diag|ping){util}{requeue})$",
        get.join("|")
    )
}

/// Runs schemathesis with the operations of `doc` that `ops` selects.
fn run(python: &Path, c: &Cluster, t: &Target, doc: &Path, ops: &str, version: &str, token: &str) {
    let Target::Tcp(addr) = t else {
        panic!("a TCP server")
    };
    let cli = python.parent().expect("venv bin").join("st");
    let header = format!("X-SLURM-USER-TOKEN: {token}");
    let out = venv::client(
        c,
        python,
        &cli,
        &[
            "run",
            doc.to_str().expect("utf-8 path"),
            "--url",
            &format!("http://{addr}"),
            "--header",
            &header,
            "--include-operation-id-regex",
            ops,
            "--checks",
            "not_a_server_error,response_schema_conformance",
            "--phases",
            "examples,fuzzing",
            "--max-examples",
            "15",
            "--seed",
            "20261202",
            "--workers",
            "1",
            "--max-failures",
            "50",
        ],
    )
    .output()
    .expect("schemathesis runs");
    let report = text(&out.stdout);
    assert!(
        out.status.success(),
        "{version}: schemathesis found problems:\n{report}\n{}",
        text(&out.stderr)
    );
    // Every operation selected was tested, and there were some.
    let count = |label: &str| {
        report
            .lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .and_then(|n| n.trim().split('/').next())
            .and_then(|n| n.trim().parse::<u32>().ok())
    };
    let (selected, tested) = (count("Selected:"), count("Tested:"));
    assert!(
        selected.is_some_and(|n| n > 10) && selected == tested,
        "{version}: {selected:?} selected, {tested:?} tested:\n{report}"
    );
}

#[test]
fn schemathesis_finds_no_server_error_and_no_answer_off_its_schema() {
    let versions: Vec<(&str, Value)> = ["v0.0.41", "v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"]
        .into_iter()
        .filter_map(|v| crate::openapi::document(v).map(|d| (v, d)))
        .collect();
    if versions.is_empty() {
        eprintln!("skipped: no published OpenAPI document found (../shared/slurm-openapi)");
        return;
    }
    let Some(python) = venv::python("schemathesis", SCHEMATHESIS) else {
        return;
    };
    let mut c = Cluster::start(Options {
        nodes: 2,
        jwt: true,
        ..Options::default()
    });
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    for (version, mut doc) in versions {
        without_path_requirements(&mut doc);
        let path = c.dir.path().join(format!("openapi-{version}.json"));
        std::fs::write(&path, doc.to_string()).expect("write the document");
        run(&python, &c, &t, &path, &served(version), version, &token);
    }
    // spur's own document, as it serves it; v0.0.38 answers an error with
    // 500 as slurmrestd 22.05 does, so its operations are left out.
    let ours = crate::http::request(
        &t,
        "GET",
        "/openapi/v3",
        &[("X-SLURM-USER-TOKEN", token.as_str())],
        None,
    );
    assert_eq!(ours.status, 200);
    let path = c.dir.path().join("openapi-spur.json");
    std::fs::write(&path, &ours.body).expect("write the document");
    let ops = "^(slurm|slurmdb|util)_v004";
    run(&python, &c, &t, &path, ops, "spur's document", &token);
}
