//! A lost answer is not a second job: a submission sent again with its
//! idempotency key gets the job the first one made, through the controller
//! API, across a controller restart, and through the REST API's
//! `Idempotency-Key` header; keys are each user's own.

use spur_client::{load_conf, Session};
use spur_proto::{ClientRequest, ClientResponse, JobDesc};

use crate::harness::{Cluster, Options};
use crate::http::request;

fn job(dir: &std::path::Path, key: &str) -> JobDesc {
    JobDesc {
        script: Some("#!/bin/sh\nsleep 300\n".into()),
        work_dir: dir.display().to_string(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        submit_key: Some(key.into()),
        ..JobDesc::default()
    }
}

fn job_id(answer: ClientResponse) -> u32 {
    match answer {
        ClientResponse::Submitted { job_id, .. } => job_id,
        other => panic!("not taken: {other:?}"),
    }
}

#[test]
fn a_repeated_key_gets_the_first_job_across_a_restart_and_over_rest() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        jwt: true,
        ..Options::default()
    });
    let dir = c.dir.path().to_path_buf();
    let mut s = Session::new(load_conf(&c.conf).expect("slurm.conf"));
    let submit = |s: &mut Session, key: &str| {
        job_id(
            s.request(&ClientRequest::Submit(Box::new(job(&dir, key))))
                .expect("answered"),
        )
    };
    let first = submit(&mut s, "retry-me");
    assert_eq!(submit(&mut s, "retry-me"), first);
    let other = submit(&mut s, "another");
    assert_ne!(other, first);
    assert_eq!(c.job_ids(), vec![first, other]);
    // A key is refused when it is empty or too long, and nothing is made.
    let too_long = "k".repeat(spur_proto::SUBMIT_KEY_MAX + 1);
    for key in ["", too_long.as_str()] {
        let answer = s
            .request(&ClientRequest::Submit(Box::new(job(&dir, key))))
            .expect("answered");
        assert!(
            matches!(&answer, ClientResponse::Error(e) if e.code == spur_proto::ErrorCode::InvalidArgument),
            "{answer:?}"
        );
    }

    // The key is kept with the job: a retry after a restart finds it.
    c.kill_controller();
    c.start_controller();
    assert_eq!(submit(&mut s, "retry-me"), first);
    assert_eq!(c.job_ids(), vec![first, other]);

    // REST: the client's Idempotency-Key header, both API families.
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let cwd = dir.display().to_string();
    let body = serde_json::json!({
        "job": {"name": "keyed", "current_working_directory": cwd,
                "environment": ["PATH=/usr/bin:/bin"]},
        "script": "#!/bin/sh\nsleep 300\n",
    })
    .to_string();
    let post = |path: &str, token: &str, key: Option<&str>, body: &str| {
        let mut headers = vec![("X-SLURM-USER-TOKEN", token)];
        if let Some(key) = key {
            headers.push(("Idempotency-Key", key));
        }
        let a = request(&t, "POST", path, &headers, Some(body));
        assert_eq!(a.status, 200, "{}", a.body);
        a.json()["job_id"].as_u64().expect("a job id") as u32
    };
    let dp = "/slurm/v0.0.44/job/submit";
    let by_rest = post(dp, &token, Some("rest-1"), &body);
    assert_eq!(post(dp, &token, Some("rest-1"), &body), by_rest);
    // Without the header each submission is a job of its own.
    let unkeyed = post(dp, &token, None, &body);
    assert_ne!(post(dp, &token, None, &body), unkeyed);
    // v0.0.38 reads the same header.
    let body38 = serde_json::json!({
        "job": {"name": "keyed", "current_working_directory": cwd,
                "environment": {"PATH": "/usr/bin:/bin"}},
        "script": "#!/bin/sh\nsleep 300\n",
    })
    .to_string();
    let old = post(
        "/slurm/v0.0.38/job/submit",
        &token,
        Some("rest-38"),
        &body38,
    );
    assert_eq!(
        post(
            "/slurm/v0.0.38/job/submit",
            &token,
            Some("rest-38"),
            &body38
        ),
        old
    );
    // The same key from another user names another submission.
    let nobody = c.token(&["username=nobody"]);
    let theirs = post(dp, &nobody, Some("rest-1"), &body);
    assert_ne!(theirs, by_rest);
    assert_eq!(c.job_ids().len(), 7, "{:?}", c.job_ids());
}
