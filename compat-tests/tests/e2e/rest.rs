//! The REST server (`spurd rest`, as slurmrestd) against a real cluster:
//! authentication as slurmrestd and auth/jwt do it, and v0.0.38's paths
//! agreeing with what the commands say of the same jobs.

use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::harness::{Cluster, Options};
use crate::http::{request, Answer, Target};
use crate::text;

fn jwt_cluster() -> Cluster {
    Cluster::start(Options {
        nodes: 2,
        jwt: true,
        ..Options::default()
    })
}

/// Job `id` of a listing's `jobs` (the test fails, saying `what`, if it
/// is not there).
fn listed_job<'a>(doc: &'a Value, id: u32, what: &str) -> &'a Value {
    doc["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .find(|j| j["job_id"] == id)
        .expect(what)
}

fn get(t: &Target, path: &str, headers: &[(&str, &str)]) -> Answer {
    request(t, "GET", path, headers, None)
}

/// An HS256 token made as a site's own tooling makes one.
fn site_token(key: &[u8], header: &str, claims: &str) -> String {
    let signing = format!(
        "{}.{}",
        B64.encode(header.as_bytes()),
        B64.encode(claims.as_bytes())
    );
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
    mac.update(signing.as_bytes());
    format!("{signing}.{}", B64.encode(mac.finalize().into_bytes()))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

fn assert_refused(a: &Answer, what: &str) {
    assert_eq!(
        (a.status, a.body.as_str()),
        (401, "Authentication failure"),
        "{what}"
    );
}

#[test]
fn rest_authenticates_as_slurmrestd_and_auth_jwt_do() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let ping = "/slurm/v0.0.38/ping";
    assert_refused(&get(&t, ping, &[]), "no credentials");
    // Authentication comes before the path is looked at.
    assert_refused(
        &get(&t, "/slurm/v0.0.99/ping", &[]),
        "unknown path, no credentials",
    );

    let token = c.token(&[]);
    let a = get(
        &t,
        ping,
        &[
            ("X-SLURM-USER-NAME", "root"),
            ("X-SLURM-USER-TOKEN", &token),
        ],
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.header("content-type"), Some("application/json"));
    assert_eq!(a.json()["pings"][0]["ping"], "UP");
    let bearer = format!("Bearer {token}");
    let a = get(&t, ping, &[("Authorization", &bearer)]);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_refused(
        &get(
            &t,
            ping,
            &[("X-SLURM-USER-TOKEN", &token), ("Authorization", &bearer)],
        ),
        "both token headers",
    );
    assert_refused(
        &get(&t, ping, &[("X-SLURM-USER-NAME", "root")]),
        "a name alone",
    );
    assert_refused(
        &get(&t, ping, &[("X-SLURM-USER-TOKEN", "garbage")]),
        "garbage",
    );

    // A token the site's own tooling made with the cluster's key works;
    // one made with another key, or unsigned, does not.
    let key = std::fs::read(c.dir.path().join("jwt.key")).expect("key");
    let claims = format!(r#"{{"iat":{},"exp":{},"sun":"root"}}"#, now(), now() + 300);
    let site = site_token(&key, r#"{"alg":"HS256","typ":"JWT"}"#, &claims);
    assert_eq!(get(&t, ping, &[("X-SLURM-USER-TOKEN", &site)]).status, 200);
    let other = site_token(
        b"not the cluster's key",
        r#"{"alg":"HS256","typ":"JWT"}"#,
        &claims,
    );
    assert_refused(
        &get(&t, ping, &[("X-SLURM-USER-TOKEN", &other)]),
        "another key",
    );
    let none = format!(
        "{}.{}.",
        B64.encode(br#"{"alg":"none","typ":"JWT"}"#),
        B64.encode(claims.as_bytes())
    );
    assert_refused(&get(&t, ping, &[("X-SLURM-USER-TOKEN", &none)]), "alg none");
    let old = format!(
        r#"{{"iat":{},"exp":{},"sun":"root"}}"#,
        now() - 600,
        now() - 300
    );
    let expired = site_token(&key, r#"{"alg":"HS256","typ":"JWT"}"#, &old);
    assert_refused(
        &get(&t, ping, &[("X-SLURM-USER-TOKEN", &expired)]),
        "expired",
    );
    let short = c.token(&["lifespan=1"]);
    std::thread::sleep(Duration::from_millis(2100));
    assert_refused(
        &get(&t, ping, &[("X-SLURM-USER-TOKEN", &short)]),
        "lifespan=1, 2 s later",
    );

    // A user's token cannot act as someone else; root's can.
    let nobody = c.token(&["username=nobody"]);
    assert_eq!(
        get(&t, ping, &[("X-SLURM-USER-TOKEN", &nobody)]).status,
        200
    );
    assert_refused(
        &get(
            &t,
            ping,
            &[
                ("X-SLURM-USER-NAME", "root"),
                ("X-SLURM-USER-TOKEN", &nobody),
            ],
        ),
        "nobody's token as root",
    );
    let a = get(
        &t,
        ping,
        &[
            ("X-SLURM-USER-NAME", "nobody"),
            ("X-SLURM-USER-TOKEN", &token),
        ],
    );
    assert_eq!(a.status, 200, "root's token as nobody: {}", a.body);

    // The router's own refusals, with a credential.
    let a = get(&t, "/slurm/v0.0.99/ping", &[("X-SLURM-USER-TOKEN", &token)]);
    assert_eq!(a.status, 404);
    assert_eq!(
        a.body,
        "Unable find requested URL. Please view /openapi/v3 for API reference."
    );
    let a = request(
        &t,
        "PUT",
        ping,
        &[("X-SLURM-USER-TOKEN", &token)],
        Some("{}"),
    );
    assert_eq!(a.status, 405, "{}", a.body);
    let a = request(
        &t,
        "DELETE",
        "/slurm/v0.0.38/job/1",
        &[("X-SLURM-USER-TOKEN", &token)],
        Some("x"),
    );
    assert_eq!(
        (a.status, a.body.as_str()),
        (400, "Unexpected http body provided for non-POST method")
    );
}

#[test]
fn scontrol_token_is_for_oneself_unless_root_or_slurmuser() {
    let c = jwt_cluster();
    let token = c.token(&["lifespan=600"]);
    assert_eq!(token.split('.').count(), 3, "{token}");
    // root may have a token made for anyone.
    assert_eq!(c.token(&["username=nobody"]).split('.').count(), 3);
    let out = c.run("scontrol", &["token", "bogus=1"]);
    assert_eq!(text(&out.stderr), "Invalid option: `bogus=1`\n");
    assert!(!out.status.success());
    // An ordinary user may not (run as nobody where the test can).
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        eprintln!("skipped the unprivileged half: the test does not run as root");
        return;
    }
    use std::os::unix::process::CommandExt;
    let out = c
        .command("scontrol", &["token", "username=root"])
        .uid(65534)
        .gid(65534)
        .current_dir("/")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.ends_with("Error fetching token\n"), "{err}");
    assert!(err.contains("Invalid user id"), "{err}");
    let out = c
        .command("scontrol", &["token"])
        .uid(65534)
        .gid(65534)
        .current_dir("/")
        .output()
        .expect("runs");
    assert!(
        text(&out.stdout).starts_with("SLURM_JWT="),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_jwt_key_other_users_can_read_stops_the_controller_at_start() {
    let mut c = jwt_cluster();
    let key = c.dir.path().join("jwt.key");
    c.kill_controller();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = std::process::Command::new(crate::harness::bin_dir().join("spurd"))
        .arg("controller")
        .env("SLURM_CONF", &c.conf)
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("has mode 0644"), "{err}");
    assert!(err.contains("chmod it to 0600"), "{err}");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    c.start_controller();
}

#[test]
fn rest_auth_local_acts_as_the_server_on_its_unix_socket_only() {
    let mut c = jwt_cluster();
    let unix = c.start_rest_unix(&["-a", "rest_auth/local"]);
    let a = get(&unix, "/slurm/v0.0.38/ping", &[]);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.json()["pings"][0]["ping"], "UP");
    // Over TCP the local plugin takes nothing.
    let tcp = c.start_rest(&["-a", "rest_auth/local"]);
    assert_refused(&get(&tcp, "/slurm/v0.0.38/ping", &[]), "local over TCP");
}

fn submit_body(job: Value) -> String {
    serde_json::json!({"job": job, "script": "#!/bin/bash\nsleep 300\n"}).to_string()
}

#[test]
fn v0038_jobs_submit_list_update_and_cancel_as_the_commands_see_them() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [
        ("X-SLURM-USER-NAME", "root"),
        ("X-SLURM-USER-TOKEN", token.as_str()),
    ];
    let cwd = c.dir.path().display().to_string();
    let body = submit_body(serde_json::json!({
        "name": "rest-job", "partition": "batch", "gpus_per_node": "1", "time_limit": 10,
        "current_working_directory": cwd, "environment": {"PATH": "/usr/bin:/bin"},
    }));
    let a = request(&t, "POST", "/slurm/v0.0.38/job/submit", &auth, Some(&body));
    assert_eq!(a.status, 200, "{}", a.body);
    let doc = a.json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    assert_eq!(doc["step_id"], "BATCH");
    let id = doc["job_id"].as_u64().expect("a job id") as u32;
    c.wait_state(id, "RUNNING");
    let out = c.run(
        "squeue",
        &["-h", "-j", &id.to_string(), "-o", "%j %P %l %b"],
    );
    assert_eq!(text(&out.stdout).trim(), "rest-job batch 10:00 gres:gpu:1");

    let a = get(&t, "/slurm/v0.0.38/jobs", &auth);
    assert_eq!(a.status, 200);
    let jobs = a.json();
    let job = listed_job(&jobs, id, "the job is listed").clone();
    assert_eq!(job["name"], "rest-job");
    assert_eq!(job["job_state"], "RUNNING");
    assert_eq!(job["time_limit"], 10);
    // The listing is squeue --json's document.
    let squeue: Value =
        serde_json::from_str(&text(&c.run("squeue", &["--json"]).stdout)).expect("json");
    let from_squeue = listed_job(&squeue, id, "squeue lists it");
    assert_eq!(from_squeue["nodes"], job["nodes"]);
    assert_eq!(from_squeue["tres_req_str"], job["tres_req_str"]);

    let a = get(&t, &format!("/slurm/v0.0.38/job/{id}"), &auth);
    assert_eq!(a.json()["jobs"][0]["job_id"], id);

    let a = request(
        &t,
        "POST",
        &format!("/slurm/v0.0.38/job/{id}"),
        &auth,
        Some(r#"{"time_limit":5,"environment":{}}"#),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let out = c.run("scontrol", &["show", "job", &id.to_string()]);
    assert!(
        text(&out.stdout).contains("TimeLimit=00:05:00"),
        "{}",
        text(&out.stdout)
    );

    // Another user's job is not theirs to cancel.
    let nobody = c.token(&["username=nobody"]);
    let a = request(
        &t,
        "DELETE",
        &format!("/slurm/v0.0.38/job/{id}"),
        &[("X-SLURM-USER-TOKEN", &nobody)],
        None,
    );
    assert_eq!(a.status, 500, "{}", a.body);
    assert_eq!(a.json()["errors"][0]["error_number"], 2002, "{}", a.body);
    assert_eq!(c.state(id).as_deref(), Some("RUNNING"));

    let a = request(
        &t,
        "DELETE",
        &format!("/slurm/v0.0.38/job/{id}?signal=KILL"),
        &auth,
        None,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    c.wait_state(id, "CANCELLED");

    let a = get(&t, "/slurm/v0.0.38/job/999999", &auth);
    assert_eq!(a.status, 500);
    let e = &a.json()["errors"][0];
    assert_eq!(e["description"], "Unable to find JobId=999999");
    assert_eq!(e["error_number"], 2017);
    assert_eq!(e["error"], "Invalid job id specified");
    assert_eq!(e["source"], "slurm_load_job");
}

#[test]
fn shares_show_each_users_decayed_usage_and_factor() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    // Nothing has run: the root alone.
    let a = get(&t, "/slurm/v0.0.44/shares", &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    let list = a.json()["shares"]["shares"].clone();
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list[0]["name"], "root");

    // A job that ran two seconds on two CPUs is charged to its user.
    let id = c.submit(&["-c", "2", "--wrap", "sleep 2"], "");
    c.wait_state(id, "COMPLETED");
    let a = get(&t, "/slurm/v0.0.45/shares?users=root", &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    let msg = a.json()["shares"].clone();
    assert_eq!(msg["total_shares"], 1, "{msg}");
    let root_user = msg["shares"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|e| e["type"] == serde_json::json!(["USER"]))
        .expect("root's entry")
        .clone();
    assert_eq!(root_user["name"], "root");
    assert_eq!(root_user["id"], 0);
    let usage = root_user["usage"].as_u64().expect("usage");
    assert!((4..=16).contains(&usage), "{root_user}");
    // One user holds all the usage of an equal share: 2^-1.
    assert_eq!(root_user["usage_normalized"]["number"], 1.0, "{root_user}");
    assert_eq!(
        root_user["fairshare"]["factor"]["number"], 0.5,
        "{root_user}"
    );
    // The usage survives a restart of the controller.
    c.kill_controller();
    c.start_controller();
    c.wait_for(Duration::from_secs(30), "the controller back", |c| {
        c.run("squeue", &["-h"]).status.success()
    });
    let a = get(&t, "/slurm/v0.0.44/shares?users=root", &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    let kept = a.json()["shares"]["shares"][1].clone();
    assert_eq!(kept["name"], "root", "{kept}");
    assert_eq!(kept["usage"], usage, "{kept}");
    // Others named, or accounts asked for, select no user.
    let a = get(&t, "/slurm/v0.0.44/shares?users=nobody", &auth);
    assert_eq!(
        a.json()["shares"]["shares"].as_array().map(Vec::len),
        Some(1)
    );
    let a = get(&t, "/slurm/v0.0.44/shares?accounts=physics", &auth);
    assert_eq!(
        a.json()["shares"]["shares"].as_array().map(Vec::len),
        Some(1)
    );
    assert_ne!(a.json()["warnings"], serde_json::json!([]), "{}", a.body);
}

#[test]
fn v0036_and_v0037_answer_v0038s_operations_in_their_own_shapes() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let cwd = c.dir.path().display().to_string();
    // v0.0.36 names the output file `standard_out`.
    let body = submit_body(serde_json::json!({
        "name": "old-client", "current_working_directory": cwd,
        "environment": {"PATH": "/usr/bin:/bin"}, "standard_out": "old-%j.out",
    }));
    let a = request(&t, "POST", "/slurm/v0.0.36/job/submit", &auth, Some(&body));
    assert_eq!(a.status, 200, "{}", a.body);
    let doc = a.json();
    assert!(doc.get("meta").is_none(), "{}", a.body);
    let id = doc["job_id"].as_u64().expect("a job id") as u32;
    c.wait_state(id, "RUNNING");
    let out = c.run("scontrol", &["show", "job", &id.to_string()]);
    let shown = text(&out.stdout);
    assert!(
        shown.contains(&format!("StdOut={cwd}/old-{id}.out")),
        "{shown}"
    );

    // v0.0.37 lists it as squeue does, without `container`.
    let a = get(&t, "/slurm/v0.0.37/jobs", &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    let listed = a.json();
    let job = listed_job(&listed, id, "the job is listed").clone();
    assert_eq!(job["name"], "old-client");
    assert_eq!(job["job_state"], "RUNNING");
    assert!(job.get("container").is_none(), "{job}");
    assert!(listed.get("meta").is_none());

    // What a version does not know is refused as an unknown key.
    let body = submit_body(serde_json::json!({
        "name": "x", "current_working_directory": cwd,
        "environment": {"PATH": "/bin"}, "standard_output": "x.out",
    }));
    let a = request(&t, "POST", "/slurm/v0.0.36/job/submit", &auth, Some(&body));
    assert_eq!(a.status, 400, "{}", a.body);
    let errors = a.json()["errors"].clone();
    assert_eq!(
        errors[0]["error"], "Unknown key \"standard_output\"",
        "{errors}"
    );
    assert_eq!(errors[0]["errno"], 9001, "{errors}");
    assert!(errors[0].get("error_number").is_none(), "{errors}");
    let body = submit_body(serde_json::json!({
        "name": "x", "current_working_directory": cwd,
        "environment": {"PATH": "/bin"}, "container": "/oci/bundle",
    }));
    let a = request(&t, "POST", "/slurm/v0.0.37/job/submit", &auth, Some(&body));
    assert_eq!(a.status, 400, "{}", a.body);
    // An update is refused as v0.0.38 refuses an update's unknown key.
    let a = request(
        &t,
        "POST",
        &format!("/slurm/v0.0.37/job/{id}"),
        &auth,
        Some(r#"{"prefer":"fast","time_limit":3}"#),
    );
    assert_eq!(a.status, 500, "{}", a.body);
    let shown = text(&c.run("scontrol", &["show", "job", &id.to_string()]).stdout);
    assert!(!shown.contains("TimeLimit=00:03:00"), "{shown}");

    // Errors are `{error, errno}`; what only newer versions serve is
    // not found.
    let a = get(&t, "/slurm/v0.0.37/job/999999", &auth);
    assert_eq!(a.status, 500);
    assert_eq!(
        a.json()["errors"][0],
        serde_json::json!({"error": "Invalid job id specified", "errno": 2017})
    );
    assert_eq!(get(&t, "/slurm/v0.0.37/licenses", &auth).status, 404);
    assert_eq!(get(&t, "/slurm/v0.0.36/reservations", &auth).status, 404);
    assert_eq!(get(&t, "/slurm/v0.0.37/reservations", &auth).status, 200);

    let a = request(
        &t,
        "DELETE",
        &format!("/slurm/v0.0.37/job/{id}?signal=KILL"),
        &auth,
        None,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    c.wait_state(id, "CANCELLED");
    let a = get(&t, &format!("/slurmdb/v0.0.36/job/{id}"), &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.json()["jobs"][0]["state"]["current"],
        "CANCELLED",
        "{}",
        a.body
    );
}

#[test]
fn v0038_refuses_bad_submissions_as_slurmrestd_2205_does() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let submit = |body: &str| request(&t, "POST", "/slurm/v0.0.38/job/submit", &auth, Some(body));

    let a = submit(&submit_body(serde_json::json!({
        "partition": "nosuch", "current_working_directory": "/tmp", "environment": {"PATH": "/bin"},
    })));
    assert_eq!(a.status, 500, "{}", a.body);
    assert_eq!(
        a.json()["errors"],
        serde_json::json!([{"error_code": 2000, "error": "Invalid partition name specified"}])
    );

    let a = submit(&submit_body(
        serde_json::json!({"current_working_directory": "/tmp"}),
    ));
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(
        a.json()["errors"],
        serde_json::json!([
            {"error": "environment must be set", "error_code": 2127},
            {"error_code": 9001, "error": "Failure during parsing"}
        ])
    );

    let a = submit(r#"{"job": {"#);
    assert_eq!((a.status, a.body.as_str()), (400, "Unable to parse query."));

    let a = submit(&submit_body(
        serde_json::json!({"environment": {"A": "1"}, "bogus": 1}),
    ));
    assert_eq!(a.status, 400);
    assert_eq!(a.json()["errors"][0]["error"], "Unknown key \"bogus\"");

    let a = submit(&submit_body(
        serde_json::json!({"environment": {"A": "1"}, "time_limit": "abc"}),
    ));
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.json()["errors"][1]["error_code"], 9001);

    // Nothing was submitted by any of them.
    let out = c.run("squeue", &["-h", "-t", "all"]);
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn v0038_nodes_and_partitions_agree_with_sinfo() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let a = get(&t, "/slurm/v0.0.38/nodes", &auth);
    assert_eq!(a.status, 200);
    let names: Vec<String> = a.json()["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["name"].as_str().expect("name").to_string())
        .collect();
    assert_eq!(names, ["n01", "n02"]);
    let sinfo: Value =
        serde_json::from_str(&text(&c.run("sinfo", &["--json"]).stdout)).expect("json");
    assert_eq!(sinfo["nodes"][0]["tres"], a.json()["nodes"][0]["tres"]);
    let a = get(&t, "/slurm/v0.0.38/node/n02", &auth);
    assert_eq!(a.json()["nodes"][0]["name"], "n02");
    let a = get(&t, "/slurm/v0.0.38/node/nosuch", &auth);
    assert_eq!(a.status, 500);

    let a = get(&t, "/slurm/v0.0.38/partitions", &auth);
    let parts = a.json();
    let batch = &parts["partitions"][0];
    assert_eq!(batch["name"], "batch");
    assert_eq!(batch["nodes"], "n[01-02]");
    assert_eq!(batch["flags"], serde_json::json!(["default"]));
    assert_eq!(batch["total_cpus"], 16);
    let out = c.run("scontrol", &["show", "partition", "batch"]);
    let tres = text(&out.stdout)
        .split_whitespace()
        .find_map(|w| w.strip_prefix("TRES=").map(str::to_string))
        .expect("a TRES line");
    assert_eq!(batch["tres"], tres);
    let a = get(&t, "/slurm/v0.0.38/partition/short", &auth);
    assert_eq!(a.json()["partitions"][0]["max_time_limit"], 1);
    let a = get(&t, "/slurm/v0.0.38/licenses", &auth);
    assert_eq!(a.json()["licenses"], serde_json::json!([]));
}

#[test]
fn diag_counts_what_the_controller_did() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let done = c.submit(&["--wrap", "true"], "");
    let cancelled = c.submit(&["--hold", "--wrap", "true"], "");
    let failed = c.submit(&["--wrap", "exit 3"], "");
    c.submit(&["--hold", "--wrap", "true"], "");
    c.wait_state(done, "COMPLETED");
    c.wait_state(failed, "FAILED");
    assert!(c.run("scancel", &[&cancelled.to_string()]).status.success());
    c.wait_state(cancelled, "CANCELLED");
    for path in ["/slurm/v0.0.38/diag", "/slurm/v0.0.44/diag/"] {
        let a = get(&t, path, &auth);
        assert_eq!(a.status, 200, "{path}: {}", a.body);
        let s = a.json()["statistics"].clone();
        assert_eq!(s["jobs_submitted"], 4, "{path}: {s}");
        assert_eq!(s["jobs_started"], 2, "{path}: {s}");
        assert_eq!(s["jobs_completed"], 1, "{path}: {s}");
        assert_eq!(s["jobs_canceled"], 1, "{path}: {s}");
        assert_eq!(s["jobs_failed"], 1, "{path}: {s}");
        assert_eq!(s["jobs_pending"], 1, "{path}: {s}");
        assert_eq!(s["jobs_running"], 0, "{path}: {s}");
        assert!(
            s["schedule_cycle_total"].as_u64().unwrap_or(0) >= 1,
            "{path}: {s}"
        );
        let submits = s["rpcs_by_message_type"]
            .as_array()
            .expect("a list")
            .iter()
            .find(|r| r["message_type"] == "REQUEST_SUBMIT_BATCH_JOB")
            .expect("submissions are counted")
            .clone();
        assert_eq!(submits["type_id"], 4003);
        assert_eq!(submits["count"], 4);
        let root = s["rpcs_by_user"]
            .as_array()
            .expect("a list")
            .iter()
            .find(|u| u["user"] == "root")
            .expect("root's requests are counted")
            .clone();
        assert!(root["count"].as_u64().unwrap_or(0) >= 4, "{root}");
    }
}

#[test]
fn bad_input_gets_slurmrestds_refusals_and_submits_nothing() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&["--max-body", "65536"]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let with = |extra: (&'static str, &'static str)| {
        let mut h = auth.to_vec();
        h.push(extra);
        h
    };
    let ok_job = r##"{"job":{"environment":["PATH=/bin"],"current_working_directory":"/tmp"},"script":"#!/bin/sh\ntrue\n"}"##;
    let submit = |path: &str, headers: &[(&str, &str)], body: &str| {
        request(&t, "POST", path, headers, Some(body))
    };
    let dp = "/slurm/v0.0.44/job/submit";
    // The wrong content type: the body is not read as JSON.
    let a = submit(dp, &with(("Content-Type", "text/plain")), ok_job);
    assert_eq!((a.status, a.body.as_str()), (400, "Unable to parse query."));
    // An Accept spur cannot answer.
    let a = submit(dp, &with(("Accept", "application/yaml")), ok_job);
    assert_eq!(
        (a.status, a.body.as_str()),
        (415, "Accept content type is unknown")
    );
    // Malformed JSON, deep nesting, wrong types, huge numbers.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    for (body, what) in [
        (r#"{"job": {"#.to_string(), "malformed"),
        (deep.clone(), "deep nesting"),
        (r#"{"job": 5}"#.to_string(), "a job that is a number"),
        (
            r#"{"job": {"tasks": "many"}}"#.to_string(),
            "a count that is a word",
        ),
        (
            r#"{"job": {"tasks": 1e400}}"#.to_string(),
            "a number beyond f64",
        ),
        (
            r#"{"job": {"time_limit": 18446744073709551616}}"#.to_string(),
            "a limit beyond u64",
        ),
        (
            r#"{"job": {"nice": -1e30}}"#.to_string(),
            "a nice beyond i32",
        ),
    ] {
        for path in [dp, "/slurm/v0.0.38/job/submit"] {
            let a = submit(path, &auth, &body);
            assert!(
                (400..500).contains(&a.status),
                "{what} at {path}: {} {}",
                a.status,
                &a.body[..a.body.len().min(300)]
            );
        }
    }
    // Unknown fields are warnings, as slurmrestd's parser makes them.
    let a = submit(
        dp,
        &auth,
        r##"{"job":{"environment":["PATH=/bin"],"current_working_directory":"/tmp","frobnicate":1},"script":"#!/bin/sh\ntrue\n"}"##,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let warned = a.json()["warnings"].to_string();
    assert!(
        warned.contains("Ignoring unknown field \\\"frobnicate\\\""),
        "{warned}"
    );
    // A body over the limit is refused before it is read whole.
    let big = format!(r#"{{"job":{{"comment":"{}"}}}}"#, "x".repeat(100_000));
    let a = submit(dp, &auth, &big);
    assert_eq!(a.status, 413, "{}", a.body);
    // The server is still up, and only the one good job exists.
    assert_eq!(get(&t, "/slurm/v0.0.44/ping/", &auth).status, 200);
    let out = c.run("squeue", &["-h", "-t", "all", "-o", "%i"]);
    assert_eq!(
        text(&out.stdout).lines().count(),
        1,
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn slurmdb_jobs_come_from_spurs_history_as_sacct_shows_them() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let id = c.submit(&["-J", "hist", "--wrap", "srun true; exit 3"], "");
    c.wait_state(id, "FAILED");

    // v0.0.38 answers with the document sacct --json prints.
    let a = get(&t, &format!("/slurmdb/v0.0.38/job/{id}"), &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    let rest = a.json();
    assert_eq!(rest["meta"]["plugin"]["type"], "openapi/dbv0.0.38");
    let sacct: Value = serde_json::from_str(&text(
        &c.run("sacct", &["--json", "-j", &id.to_string()]).stdout,
    ))
    .expect("sacct --json");
    assert_eq!(rest["jobs"], sacct["jobs"]);
    assert_eq!(rest["jobs"][0]["steps"].as_array().map(Vec::len), Some(2));

    // The data_parser versions: the same job in their shape.
    let a = get(&t, &format!("/slurmdb/v0.0.44/job/{id}"), &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    let job = &a.json()["jobs"][0];
    assert_eq!(job["job_id"], id);
    assert_eq!(job["name"], "hist");
    assert_eq!(job["state"]["current"], serde_json::json!(["FAILED"]));
    assert_eq!(job["exit_code"]["return_code"]["number"], 3);
    assert_eq!(job["exit_code"]["status"], serde_json::json!(["ERROR"]));
    let steps: Vec<&str> = job["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["step"]["id"].as_str().expect("a step id"))
        .collect();
    assert_eq!(steps, [format!("{id}.batch"), format!("{id}.0")]);

    // Queries select as sacct's options do.
    let listed = |query: &str| -> Vec<u64> {
        let a = get(&t, &format!("/slurmdb/v0.0.44/jobs?{query}"), &auth);
        assert_eq!(a.status, 200, "{query}: {}", a.body);
        a.json()["jobs"]
            .as_array()
            .expect("jobs")
            .iter()
            .map(|j| j["job_id"].as_u64().expect("an id"))
            .collect()
    };
    let hour_ago = now() - 3600;
    let soon = now() + 60;
    assert_eq!(
        listed(&format!(
            "state=FAILED&start_time={hour_ago}&end_time={soon}"
        )),
        [u64::from(id)]
    );
    assert_eq!(
        listed(&format!(
            "state=FAILED&start_time={hour_ago}&end_time={}",
            hour_ago + 60
        )),
        Vec::<u64>::new(),
        "it failed after that window"
    );
    assert_eq!(
        listed(&format!(
            "state=COMPLETED&start_time={hour_ago}&end_time={soon}"
        )),
        Vec::<u64>::new()
    );
    // A window of the last hour (the default starts at midnight).
    let since = format!("start_time={hour_ago}");
    assert_eq!(listed(&format!("job_name=hist&{since}")), [u64::from(id)]);
    assert_eq!(
        listed(&format!("job_name=other&{since}")),
        Vec::<u64>::new()
    );
    assert_eq!(listed(&format!("users=nobody&{since}")), Vec::<u64>::new());
    assert_eq!(
        listed(&format!("cluster=elsewhere&{since}")),
        Vec::<u64>::new()
    );
    assert_eq!(listed(&format!("node=n[01-02]&{since}")), [u64::from(id)]);
    assert_eq!(listed(&format!("node=n09&{since}")), Vec::<u64>::new());
    assert_eq!(listed(&format!("step={id}")), [u64::from(id)]);
    let a = get(
        &t,
        &format!("/slurmdb/v0.0.44/jobs?skip_steps=true&job_name=hist&{since}"),
        &auth,
    );
    assert_eq!(a.json()["jobs"][0]["steps"], serde_json::json!([]));
    let a = get(&t, "/slurmdb/v0.0.44/jobs?wckey=x&job_name=hist", &auth);
    assert_eq!(
        a.json()["warnings"][0]["description"],
        "wckey is accepted for compatibility; spur does not act on it"
    );
    let a = get(&t, "/slurmdb/v0.0.44/jobs?state=SIDEWAYS", &auth);
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.json()["errors"][0]["error_number"], 9000);
    let a = get(
        &t,
        &format!(
            "/slurmdb/v0.0.44/jobs?start_time={}&end_time={hour_ago}",
            hour_ago + 60
        ),
        &auth,
    );
    assert_eq!(a.status, 400, "a start after the end: {}", a.body);
    let a = get(
        &t,
        "/slurmdb/v0.0.44/jobs?start_time=18446744073709551615&end_time=18446744073709551615",
        &auth,
    );
    assert_eq!(a.status, 200, "the largest times: {}", a.body);

    // The accounting database's objects are not kept, and say so.
    for path in [
        "/slurmdb/v0.0.44/accounts/",
        "/slurmdb/v0.0.44/user/root",
        "/slurmdb/v0.0.41/associations",
        "/slurmdb/v0.0.38/qos",
    ] {
        let a = get(&t, path, &auth);
        assert_eq!(a.status, 404, "{path}: {}", a.body);
        let e = &a.json()["errors"][0];
        assert_eq!(e["error_number"], 2036, "{path}");
        assert!(
            e["description"]
                .as_str()
                .is_some_and(|d| d.contains("no accounting database")),
            "{path}: {e}"
        );
    }

    let a = get(&t, "/slurmdb/v0.0.44/ping/", &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.json()["pings"][0]["responding"], true);
    let a = get(&t, "/slurmdb/v0.0.44/diag/", &auth);
    let rpcs = &a.json()["statistics"]["RPCs"];
    let history = rpcs
        .as_array()
        .expect("RPCs")
        .iter()
        .find(|r| r["rpc"] == "DBD_GET_JOBS_COND")
        .expect("history requests are counted");
    assert!(history["count"].as_u64().unwrap_or(0) >= 10, "{rpcs}");
}

#[test]
fn bulk_cancel_and_requeue_act_on_what_they_select_and_no_one_elses() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let bulk: Vec<u32> = (0..3)
        .map(|_| c.submit(&["-J", "bulk", "--hold", "--wrap", "true"], ""))
        .collect();
    let other = c.submit(&["-J", "other", "--hold", "--wrap", "true"], "");

    // Another user selects root's jobs by id: each is refused, none goes.
    let nobody = c.token(&["username=nobody"]);
    let body = format!(r#"{{"jobs":["{other}"]}}"#);
    let a = request(
        &t,
        "DELETE",
        "/slurm/v0.0.44/jobs",
        &[("X-SLURM-USER-TOKEN", &nobody)],
        Some(&body),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let status = &a.json()["status"];
    assert_eq!(status[0]["job_id"]["number"], other, "{status}");
    assert_eq!(status[0]["error"]["code"], 2002, "{status}");
    assert_eq!(c.state(other).as_deref(), Some("PENDING"));

    // By name: the three jobs, and only them.
    let a = request(
        &t,
        "DELETE",
        "/slurm/v0.0.44/jobs/",
        &auth,
        Some(r#"{"job_name":"bulk","flags":["HURRY"]}"#),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let doc = a.json();
    let mut ids: Vec<u64> = doc["status"]
        .as_array()
        .expect("status")
        .iter()
        .map(|s| {
            assert_eq!(s["error"]["code"], 0, "{s}");
            s["job_id"]["number"].as_u64().expect("an id")
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, bulk.iter().map(|&i| u64::from(i)).collect::<Vec<_>>());
    assert_eq!(
        doc["warnings"][0]["description"],
        "flags=HURRY is accepted for compatibility; spur does not act on it"
    );
    for id in &bulk {
        c.wait_state(*id, "CANCELLED");
    }
    assert_eq!(c.state(other).as_deref(), Some("PENDING"));
    // Nothing selected is a refusal, not "everything".
    let a = request(&t, "DELETE", "/slurm/v0.0.44/jobs", &auth, Some("{}"));
    assert_eq!(a.status, 400, "{}", a.body);

    // v0.0.45's requeue: a running job back to pending, held.
    let running = c.submit(&["--wrap", "sleep 300"], "");
    c.wait_state(running, "RUNNING");
    let a = get(&t, &format!("/slurm/v0.0.44/job/{running}/requeue"), &auth);
    assert_eq!(a.status, 404, "v0.0.44 has no requeue path");
    let a = get(
        &t,
        &format!("/slurm/v0.0.45/job/{running}/requeue?Hold"),
        &auth,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.json()["status"][0]["error_code"], 0, "{}", a.body);
    c.wait_state(running, "PENDING");
    let reason = c.run("squeue", &["-h", "-j", &running.to_string(), "-o", "%r"]);
    assert_eq!(text(&reason.stdout).trim(), "job requeued in held state");
    let body = format!(r#"{{"jobs":["{running}"],"flags":["Sideways"]}}"#);
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.45/jobs/requeue",
        &auth,
        Some(&body),
    );
    assert_eq!(a.status, 400, "{}", a.body);
    let body = format!(r#"{{"jobs":["{other}"]}}"#);
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.45/jobs/requeue",
        &auth,
        Some(&body),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    // A pending job cannot be requeued: Slurm's error, in its entry.
    let code = a.json()["status"][0][0]["error_code"].as_i64();
    assert!(code.is_some_and(|c| c != 0), "{}", a.body);
}

#[test]
fn an_allocation_over_rest_is_held_until_released_and_runs_steps() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let cwd = c.dir.path().display().to_string();
    let body = serde_json::json!({
        "job": {"name": "alloc", "nodes": "2", "current_working_directory": cwd,
                "environment": ["PATH=/usr/bin:/bin"], "time_limit": 5},
    })
    .to_string();
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.44/job/allocate",
        &auth,
        Some(&body),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let doc = a.json();
    assert_eq!(doc["errors"], serde_json::json!([]), "{}", a.body);
    assert!(
        doc.get("step_id").is_none(),
        "an allocation has no batch step"
    );
    let id = doc["job_id"].as_u64().expect("a job id") as u32;
    c.wait_state(id, "RUNNING");
    let out = c.run("squeue", &["-h", "-j", &id.to_string(), "-o", "%j %D %l"]);
    assert_eq!(text(&out.stdout).trim(), "alloc 2 5:00");
    // A step runs inside it, as inside salloc's.
    let out = c.run("srun", &["--jobid", &id.to_string(), "-N", "2", "hostname"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 2);
    assert_eq!(
        c.state(id).as_deref(),
        Some("RUNNING"),
        "the allocation outlives its step"
    );
    let a = request(
        &t,
        "DELETE",
        &format!("/slurm/v0.0.44/job/{id}"),
        &auth,
        None,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    c.wait_state(id, "CANCELLED");

    // Heterogeneous allocations are refused as salloc refuses them.
    let het = r#"{"hetjob":[{"name":"a"},{"name":"b"}]}"#;
    let a = request(&t, "POST", "/slurm/v0.0.44/job/allocate", &auth, Some(het));
    assert_eq!(a.json()["errors"][0]["error_number"], 2036, "{}", a.body);
}

#[test]
fn nodes_drain_and_resume_over_rest_as_scontrol_does_it() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    // Each node once (sinfo -N lists a node in each of its partitions).
    let sinfo = |c: &Cluster| {
        let out = c.run("sinfo", &["-h", "-N", "-o", "%N %t %E"]);
        let mut lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
        lines.dedup();
        lines.join("\n")
    };
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.44/node/n01",
        &auth,
        Some(r#"{"state":["DRAIN"],"reason":"disk swap","weight":{"set":true,"number":5}}"#),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.json()["warnings"][0]["description"],
        "weight is accepted for compatibility; spur does not act on it"
    );
    assert_eq!(sinfo(&c), "n01 drain disk swap\nn02 idle none");

    // POST nodes names them in the body.
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.45/nodes/",
        &auth,
        Some(r#"{"name":["n01","n02"],"state":["DRAIN"],"reason":"rack move"}"#),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(sinfo(&c), "n01 drain rack move\nn02 drain rack move");
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.44/nodes",
        &auth,
        Some(r#"{"name":"n[01-02]","state":["RESUME"]}"#),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(sinfo(&c), "n01 idle none\nn02 idle none");

    // What names no node, or no state spur knows, changes nothing.
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.44/nodes",
        &auth,
        Some(r#"{"state":["DRAIN"]}"#),
    );
    assert_eq!(a.status, 400, "{}", a.body);
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.44/nodes",
        &auth,
        Some(r#"{"name":["n01","zz9"],"state":["DRAIN"],"reason":"x"}"#),
    );
    assert_ne!(a.json()["errors"], serde_json::json!([]), "{}", a.body);
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.44/node/n02",
        &auth,
        Some(r#"{"state":["SIDEWAYS"]}"#),
    );
    assert_ne!(a.json()["errors"], serde_json::json!([]), "{}", a.body);
    assert_eq!(sinfo(&c), "n01 idle none\nn02 idle none");

    // Only an administrator changes nodes.
    let nobody = c.token(&["username=nobody"]);
    let a = request(
        &t,
        "POST",
        "/slurm/v0.0.44/node/n01",
        &[("X-SLURM-USER-TOKEN", &nobody)],
        Some(r#"{"state":["DRAIN"],"reason":"mine"}"#),
    );
    assert_eq!(a.json()["errors"][0]["error_number"], 2002, "{}", a.body);
    assert_eq!(sinfo(&c), "n01 idle none\nn02 idle none");

    // Nodes from slurm.conf are not deleted (Slurm deletes dynamic nodes
    // only); a name that matches none is not found.
    let a = request(&t, "DELETE", "/slurm/v0.0.44/node/n01", &auth, None);
    assert_eq!(a.status, 400, "{}", a.body);
    let error = &a.json()["errors"][0];
    assert_eq!(error["error_number"], 2028, "{}", a.body);
    assert!(
        error["description"]
            .as_str()
            .is_some_and(|d| d.ends_with("Can't delete non-dynamic node 'n01'.")),
        "{}",
        a.body
    );
    let a = request(&t, "DELETE", "/slurm/v0.0.45/node/n[01-03]", &auth, None);
    assert_eq!(a.status, 404, "{}", a.body);
    assert_eq!(sinfo(&c), "n01 idle none\nn02 idle none");
}

#[test]
fn conf_is_scontrols_configuration_and_what_spur_lacks_is_refused_in_shape() {
    let mut c = jwt_cluster();
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let job = c.submit(&["--hold", "--wrap", "true"], "");

    // v0.0.45's conf types the values scontrol prints.
    let a = get(&t, "/slurm/v0.0.45/conf", &auth);
    assert_eq!(a.status, 200, "{}", a.body);
    let doc = a.json();
    let conf = &doc["slurm_conf"];
    let shown = text(&c.run("scontrol", &["show", "config"]).stdout);
    let shown = |key: &str| -> String {
        shown
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(" = ")?;
                (k.trim() == key).then(|| v.trim().to_string())
            })
            .unwrap_or_else(|| panic!("scontrol shows no {key}"))
    };
    assert_eq!(conf["ClusterName"], shown("ClusterName"), "{}", a.body);
    assert_eq!(
        conf["SlurmctldPort"].to_string(),
        shown("SlurmctldPort"),
        "{}",
        a.body
    );
    assert_eq!(
        format!("{} sec", conf["MessageTimeout"]),
        shown("MessageTimeout")
    );
    assert_eq!(conf["AuthAltTypes"], serde_json::json!(["auth/jwt"]));
    assert_eq!(doc["slurm_conf_meta"]["NEXT_JOB_ID"]["number"], job + 1);
    assert_eq!(get(&t, "/slurm/v0.0.44/conf", &auth).status, 404);

    // There are no reservations: none is found, made or deleted.
    for v in ["v0.0.41", "v0.0.45"] {
        let a = get(&t, &format!("/slurm/{v}/reservation/maint"), &auth);
        assert_eq!(a.status, 404, "{}", a.body);
        assert_eq!(a.json()["errors"][0]["error_number"], 2053, "{}", a.body);
        assert_eq!(a.json()["reservations"], serde_json::json!([]));
    }
    let resv = r#"{"name":"maint","partition":"batch","users":["root"]}"#;
    let a = request(&t, "POST", "/slurm/v0.0.44/reservation", &auth, Some(resv));
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.json()["errors"][0]["error_number"], 2036, "{}", a.body);
    let a = request(&t, "POST", "/slurm/v0.0.41/reservation", &auth, Some(resv));
    assert_eq!(a.status, 404, "v0.0.41 reads no reservation: {}", a.body);
    let a = request(
        &t,
        "DELETE",
        "/slurm/v0.0.44/reservation/maint",
        &auth,
        None,
    );
    assert_eq!(a.status, 404, "{}", a.body);
    let a = get(&t, "/slurm/v0.0.44/reservations", &auth);
    assert_eq!(a.json()["reservations"], serde_json::json!([]));

    // Nodes and partitions come from slurm.conf: none is added or deleted.
    let line = r#"{"node_conf":"NodeName=n9 CPUs=4 State=CLOUD"}"#;
    let a = request(&t, "POST", "/slurm/v0.0.44/new/node/", &auth, Some(line));
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.json()["errors"][0]["error_number"], 2036, "{}", a.body);
    let a = request(&t, "POST", "/slurm/v0.0.44/new/node/", &auth, Some("{"));
    assert_eq!(a.status, 400, "{}", a.body);
    let parts = r#"{"partitions":[{"name":"extra"}]}"#;
    let a = request(&t, "POST", "/slurm/v0.0.45/partitions/", &auth, Some(parts));
    assert_eq!(a.json()["errors"][0]["error_number"], 2036, "{}", a.body);
    let a = request(&t, "DELETE", "/slurm/v0.0.45/partition/batch", &auth, None);
    assert_eq!(a.json()["errors"][0]["error_number"], 2036, "{}", a.body);
    let a = request(&t, "DELETE", "/slurm/v0.0.45/partition/nx", &auth, None);
    assert_eq!(a.status, 404, "{}", a.body);
    let a = request(&t, "DELETE", "/slurm/v0.0.44/partition/batch", &auth, None);
    assert_eq!(a.status, 404, "v0.0.44 deletes no partition: {}", a.body);
    let out = c.run("sinfo", &["-h", "-N", "-o", "%N %P"]);
    assert_eq!(text(&out.stdout), "n01 short\nn01 batch*\nn02 batch*\n");
}
