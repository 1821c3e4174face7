//! Requests built by hand, as the REST server and the C library will send
//! them, straight to the controller: the checks are the controller's, so
//! they get the same Slurm errors (and error numbers) as sbatch's.

use spur_client::{load_conf, Session};
use spur_proto::{ClientRequest, ClientResponse, ErrorCode, JobDesc, MemSpec, ProtoError};

use crate::harness::{Cluster, Options};

fn job(dir: &std::path::Path) -> JobDesc {
    JobDesc {
        script: Some("#!/bin/sh\ntrue\n".into()),
        work_dir: dir.display().to_string(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        ..JobDesc::default()
    }
}

fn refusal(answer: ClientResponse) -> ProtoError {
    match answer {
        ClientResponse::Error(e) => e,
        other => panic!("taken: {other:?}"),
    }
}

#[test]
fn hand_built_submissions_get_the_controllers_checks_and_slurms_numbers() {
    let c = Cluster::start(Options::default());
    let mut s = Session::new(load_conf(&c.conf).expect("slurm.conf"));
    let mut submit = |desc: JobDesc| {
        s.request(&ClientRequest::Submit(Box::new(desc)))
            .expect("answered")
    };
    let dir = c.dir.path();

    let e = refusal(submit(JobDesc {
        clusters: Some("other,elsewhere".into()),
        ..job(dir)
    }));
    assert_eq!(
        (e.code, e.code.errno()),
        (ErrorCode::InvalidClusterName, 7104)
    );
    assert_eq!(e.detail.as_deref(), Some("other,elsewhere"));

    let e = refusal(submit(JobDesc {
        mem: MemSpec::PerNode(2_000_000),
        ..job(dir)
    }));
    assert_eq!(
        (e.code, e.code.errno()),
        (ErrorCode::NodeConfigUnavailable, 2014)
    );
    assert_eq!(
        e.detail.as_deref(),
        Some("Memory specification can not be satisfied")
    );

    let e = refusal(submit(JobDesc {
        script: Some("echo no interpreter line\n".into()),
        ..job(dir)
    }));
    assert_eq!(e.code, ErrorCode::BatchScriptInvalid);

    // What slurmctld's validate_job_create_req refuses, with its numbers.
    let refused = |e: ProtoError| (e.code.errno(), e.code.text().to_string(), e.detail);
    let e = refusal(submit(JobDesc {
        env: Vec::new(),
        ..job(dir)
    }));
    assert_eq!(
        refused(e),
        (2127, "Environment is missing in job".into(), None)
    );
    let e = refusal(submit(JobDesc {
        name: Some("n".repeat(1025)),
        ..job(dir)
    }));
    assert_eq!(
        refused(e),
        (
            2012,
            "Pathname of a file, directory or other parameter too long".into(),
            Some("strlen(name) too big (1025 > 1024)".into())
        )
    );
    let e = refusal(submit(JobDesc {
        nice: i32::MIN,
        ..job(dir)
    }));
    assert_eq!(refused(e), (2123, "Invalid --nice value".into(), None));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let e = refusal(submit(JobDesc {
        deadline: Some(now + 60),
        time_min: Some(600),
        ..job(dir)
    }));
    assert_eq!(
        refused(e),
        (
            2124,
            "Invalid time-min specification (exceeds job's time or other limits)".into(),
            None
        )
    );
    let e = refusal(submit(JobDesc {
        begin: Some(now + 600),
        deadline: Some(now + 60),
        ..job(dir)
    }));
    assert_eq!(refused(e), (2054, "Invalid time specified".into(), None));
    let e = refusal(submit(JobDesc {
        stdout: Some(format!("{}/out\0.txt", dir.display())),
        ..job(dir)
    }));
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let e = refusal(submit(JobDesc {
        signal: Some(spur_proto::JobSignal {
            signal: 0,
            before: 60,
            batch_only: false,
        }),
        ..job(dir)
    }));
    assert_eq!(
        refused(e),
        (
            22,
            "Invalid argument".into(),
            Some("signal 0 is not a signal number".into())
        )
    );

    let e = refusal(submit(JobDesc {
        partitions: vec!["nosuch".into()],
        ..job(dir)
    }));
    assert_eq!(
        (e.code.errno(), e.code.text()),
        (2000, "Invalid partition name specified")
    );

    // Names compare as Slurm compares them; the answer names the cluster.
    match submit(JobDesc {
        clusters: Some("other,E2E".into()),
        ..job(dir)
    }) {
        ClientResponse::Submitted { cluster, .. } => assert_eq!(cluster, "e2e"),
        other => panic!("refused: {other:?}"),
    }
}

#[test]
fn sbatch_m_is_one_round_trip_checked_by_the_controller() {
    let c = Cluster::start(Options::default());
    let out = c.run("sbatch", &["--parsable", "-M", "all", "--wrap", "true"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.ends_with(";e2e\n"), "{text}");
    let out = c.run("sbatch", &["-M", "other", "--wrap", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sbatch: error: 'other' can't be reached now, or it is an invalid entry for --cluster.  \
         Use 'sacctmgr list clusters' to see available clusters.\n"
    );
    let out = c.run("sbatch", &["--mem=2000G", "--wrap", "true"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sbatch: error: Memory specification can not be satisfied\n\
         sbatch: error: Batch job submission failed: Requested node configuration is not available\n"
    );
}
