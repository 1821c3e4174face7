//! Who may act on a job: another user can neither cancel, signal, hold,
//! release, update nor requeue my job, nor start a step in it, through the
//! commands (over the controller's socket) or the REST API with their own
//! token; and a user named in a request body is ignored in favour of the
//! authenticated one. The job is untouched afterwards.

use std::os::unix::process::CommandExt;

use crate::harness::{Cluster, Options};
use crate::http::request;
use crate::text;

#[test]
fn another_user_cannot_act_on_my_job() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        jwt: true,
        ..Options::default()
    });
    let mine = c.submit(&["-N1", "-t", "10"], "#!/bin/sh\nsleep 300\n");
    c.wait_state(mine, "RUNNING");
    let id = mine.to_string();
    let as_nobody = |cmd: &str, args: &[&str]| {
        c.command(cmd, args)
            .uid(65534)
            .gid(65534)
            .current_dir("/")
            .output()
            .expect("runs")
    };
    let attempts: [(&str, &[&str]); 8] = [
        ("scancel", &[&id]),
        ("scancel", &["-s", "USR1", &id]),
        ("scontrol", &["hold", &id]),
        ("scontrol", &["release", &id]),
        (
            "scontrol",
            &["update", &format!("JobId={id}"), "TimeLimit=5"],
        ),
        ("scontrol", &["requeue", &id]),
        (
            "scontrol",
            &["update", &format!("JobId={id}"), "Comment=mine"],
        ),
        ("srun", &["--jobid", &id, "true"]),
    ];
    for (cmd, args) in attempts {
        let out = as_nobody(cmd, args);
        let err = text(&out.stderr);
        assert!(
            !out.status.success(),
            "{cmd} {args:?} was let through: {err}"
        );
        assert!(
            err.contains("Access/permission denied"),
            "{cmd} {args:?}: {err}"
        );
    }
    // The job is as it was.
    let shown = text(&c.run("scontrol", &["show", "job", &id]).stdout);
    assert!(shown.contains("JobState=RUNNING"), "{shown}");
    assert!(shown.contains("TimeLimit=00:10:00"), "{shown}");
    assert!(!shown.contains("Comment=mine"), "{shown}");

    // REST, with nobody's own token.
    let t = c.start_rest(&[]);
    let token = c.token(&["username=nobody"]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let path = format!("/slurm/v0.0.44/job/{id}");
    let a = request(&t, "DELETE", &path, &auth, None);
    assert_ne!(a.status, 200, "{}", a.body);
    assert!(a.body.contains("Access/permission denied"), "{}", a.body);
    let a = request(
        &t,
        "POST",
        &path,
        &auth,
        Some(r#"{"time_limit":{"set":true,"number":5}}"#),
    );
    assert!(a.body.contains("Access/permission denied"), "{}", a.body);
    let shown = text(&c.run("scontrol", &["show", "job", &id]).stdout);
    assert!(shown.contains("JobState=RUNNING"), "{shown}");
    assert!(shown.contains("TimeLimit=00:10:00"), "{shown}");

    // A body naming root submits as the token's user all the same.
    let body = serde_json::json!({
        "job": {"name": "claims-root", "user_id": "0", "user_name": "root",
                "current_working_directory": "/tmp", "environment": ["PATH=/bin"]},
        "script": "#!/bin/sh\nsleep 1\n",
    })
    .to_string();
    let a = request(&t, "POST", "/slurm/v0.0.44/job/submit", &auth, Some(&body));
    assert_eq!(a.status, 200, "{}", a.body);
    let theirs = a.json()["job_id"].as_u64().expect("a job id");
    let shown = text(
        &c.run("scontrol", &["show", "job", &theirs.to_string()])
            .stdout,
    );
    assert!(shown.contains("UserId=nobody(65534)"), "{shown}");
}
