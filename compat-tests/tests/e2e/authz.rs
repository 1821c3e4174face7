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

/// Another user's calls, each printed as `name rc error`.
const OTHERS_CALLS: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static void said(const char *what, int rc) {
    printf("%s %d %s\n", what, rc, rc ? slurm_strerror(slurm_get_errno()) : "");
}

int main(int argc, char **argv) {
    uint32_t id = (uint32_t) atoi(argv[1]);
    slurm_init(NULL);
    said("kill", slurm_kill_job(id, SIGKILL, 0));
    said("signal", slurm_signal_job(id, SIGUSR1));
    said("requeue", slurm_requeue(id, 0));
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.time_limit = 5;
    said("update", slurm_update_job(&d));
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.priority = 0;
    said("hold", slurm_update_job(&d));
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.priority = INFINITE;
    said("release", slurm_update_job(&d));
    return 0;
}
"#;

#[test]
fn another_user_cannot_act_on_my_job_through_a_login_nodes_relay_or_the_library() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let mine = c.submit(&["-N1", "-t", "10"], "#!/bin/sh\nsleep 300\n");
    c.wait_state(mine, "RUNNING");
    let id = mine.to_string();

    // Through `spurd relay` on a login node, which vouches for the uid its
    // socket sees.
    let login = c.conf_away_from_controller("login.conf");
    let socket = c.dir.path().join("relay.sock");
    c.start_relay(&socket);
    c.wait_for(
        std::time::Duration::from_secs(10),
        "the relay socket",
        |_| socket.exists(),
    );
    let update = format!("JobId={id}");
    let attempts: [(&str, &[&str]); 7] = [
        ("scancel", &[&id]),
        ("scancel", &["-s", "USR1", &id]),
        ("scontrol", &["hold", &id]),
        ("scontrol", &["release", &id]),
        ("scontrol", &["requeue", &id]),
        ("scontrol", &["update", &update, "TimeLimit=5"]),
        ("srun", &["--jobid", &id, "true"]),
    ];
    for (cmd, args) in attempts {
        let out = c
            .command(cmd, args)
            .env("SLURM_CONF", &login)
            .env("SPUR_NODE", "login1")
            .env("SPUR_RELAY_SOCKET", &socket)
            .uid(65534)
            .gid(65534)
            .current_dir("/")
            .output()
            .expect("runs");
        let err = text(&out.stderr);
        assert!(
            !out.status.success(),
            "{cmd} {args:?} through the relay: {err}"
        );
        assert!(
            err.contains("Access/permission denied"),
            "{cmd} {args:?}: {err}"
        );
    }

    // Through libslurm, from a program nobody runs.
    if crate::libslurm::header_installed() {
        let lib = crate::libslurm::library_dir(c.dir.path());
        let program = crate::libslurm::compile(c.dir.path(), &lib, "others", OTHERS_CALLS);
        let out = std::process::Command::new(&program)
            .arg(&id)
            .env("LD_LIBRARY_PATH", &lib)
            .env("SLURM_CONF", &c.conf)
            .uid(65534)
            .gid(65534)
            .current_dir("/")
            .output()
            .expect("runs");
        let said = text(&out.stdout);
        for call in ["kill", "signal", "requeue", "update", "hold", "release"] {
            let line = said
                .lines()
                .find(|l| l.starts_with(&format!("{call} ")))
                .unwrap_or_else(|| panic!("{call}: {said}{}", text(&out.stderr)));
            assert_eq!(
                line,
                format!("{call} -1 Access/permission denied"),
                "{said}"
            );
        }
    }
    let shown = text(&c.run("scontrol", &["show", "job", &id]).stdout);
    assert!(shown.contains("JobState=RUNNING"), "{shown}");
    assert!(shown.contains("TimeLimit=00:10:00"), "{shown}");
    assert!(
        shown.contains("Priority=") && !shown.contains("Priority=0 "),
        "{shown}"
    );
}

#[test]
fn operators_are_root_and_slurm_user_and_no_one_else() {
    // daemon (uid 1) is SlurmUser; nobody is no one, even in group root.
    let c = Cluster::start(Options {
        nodes: 1,
        extra_conf: "SlurmUser=daemon\n",
        ..Options::default()
    });
    let mine = c.submit(&["-N1"], "#!/bin/sh\nsleep 300\n");
    c.wait_state(mine, "RUNNING");
    let id = mine.to_string();
    let as_user = |uid: u32, gid: u32, cmd: &str, args: &[&str]| {
        c.command(cmd, args)
            .uid(uid)
            .gid(gid)
            .current_dir("/")
            .output()
            .expect("runs")
    };
    let drain: &[&str] = &["update", "nodename=n01", "state=drain", "reason=fan"];
    let resume: &[&str] = &["update", "nodename=n01", "state=resume"];
    for (uid, gid) in [(65534, 65534), (65534, 0)] {
        for (cmd, args) in [
            ("scontrol", drain),
            ("scontrol", &["reconfigure"]),
            ("scancel", &[&id]),
        ] {
            let out = as_user(uid, gid, cmd, args);
            let err = text(&out.stderr);
            assert!(
                !out.status.success(),
                "{uid}:{gid} {cmd} {args:?} was let through"
            );
            assert!(
                err.contains("Access/permission denied"),
                "{cmd} {args:?}: {err}"
            );
        }
    }
    assert_eq!(c.state(mine).as_deref(), Some("RUNNING"));
    // SlurmUser drains and resumes a node and cancels root's job.
    for args in [drain, resume] {
        let out = as_user(1, 1, "scontrol", args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    let out = as_user(1, 1, "scancel", &[&id]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(mine, "CANCELLED");
}
