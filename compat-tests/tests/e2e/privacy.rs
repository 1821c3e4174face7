//! slurm.conf's `PrivateData=jobs,nodes,usage`: a user who is no operator
//! sees only their own jobs and steps (squeue, scontrol, sacct, REST), is
//! refused the node listing as slurmctld refuses it, and sees only their
//! own fair-share usage; root sees everything.

use std::os::unix::process::CommandExt;
use std::process::Output;

use crate::harness::{Cluster, Options};
use crate::http::request;
use crate::text;

#[test]
fn private_data_hides_other_users_jobs_nodes_and_usage_from_them_but_not_from_root() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        jwt: true,
        extra_conf: "PrivateData=jobs,nodes,usage\n",
        ..Options::default()
    });
    let roots = c.submit(&["-t", "10"], "#!/bin/sh\nsleep 300\n");
    c.wait_state(roots, "RUNNING");
    let home = c.dir.path().join("nobody");
    std::fs::create_dir(&home).expect("mkdir");
    std::os::unix::fs::chown(&home, Some(65534), Some(65534)).expect("chown");
    let as_nobody = |cmd: &str, args: &[&str]| -> Output {
        c.command(cmd, args)
            .uid(65534)
            .gid(65534)
            .current_dir(&home)
            .output()
            .expect("runs")
    };
    let out = as_nobody("sbatch", &["--parsable", "-t", "10", "--wrap", "sleep 300"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let theirs: u32 = text(&out.stdout).trim().parse().expect("an id");
    c.wait_state(theirs, "RUNNING");
    let (roots, theirs) = (roots.to_string(), theirs.to_string());

    // squeue and scontrol.
    let listed = text(&as_nobody("squeue", &["-h", "-o", "%i"]).stdout);
    assert_eq!(listed.trim(), theirs, "nobody's squeue");
    let out = as_nobody("scontrol", &["show", "job", &roots]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("Invalid job id specified"),
        "{}",
        text(&out.stderr)
    );
    let steps = text(&as_nobody("squeue", &["-h", "--steps", "-o", "%i"]).stdout);
    assert!(!steps.contains(&roots), "{steps}");
    let all = text(&c.run("squeue", &["-h", "-o", "%i"]).stdout);
    assert_eq!(all.lines().count(), 2, "root's squeue: {all}");

    // sacct, from the history.
    let acct = text(&as_nobody("sacct", &["-n", "-X", "-o", "JobID"]).stdout);
    assert_eq!(
        acct.split_whitespace().collect::<Vec<_>>(),
        [theirs.as_str()]
    );
    let acct = text(&as_nobody("sacct", &["-n", "-X", "-j", &roots, "-o", "JobID"]).stdout);
    assert_eq!(acct.trim(), "", "root's job through sacct -j");
    let acct = text(&as_nobody("sacct", &["-n", "-X", "-u", "root", "-o", "JobID"]).stdout);
    assert_eq!(acct.trim(), "", "root's jobs through sacct -u root");
    let acct = text(&c.run("sacct", &["-n", "-X", "-a", "-o", "JobID"]).stdout);
    assert_eq!(acct.split_whitespace().count(), 2, "root's sacct: {acct}");

    // Nodes: refused to the user, shown to root.
    let out = as_nobody("sinfo", &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("Access/permission denied"),
        "{}",
        text(&out.stderr)
    );
    assert!(c.run("sinfo", &[]).status.success());

    // REST, with nobody's token: the same.
    let t = c.start_rest(&[]);
    let token = c.token(&["username=nobody"]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let jobs = request(&t, "GET", "/slurm/v0.0.44/jobs", &auth, None).json();
    let ids: Vec<String> = jobs["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| j["job_id"].to_string())
        .collect();
    assert_eq!(ids, [theirs.as_str()]);
    let a = request(
        &t,
        "GET",
        &format!("/slurm/v0.0.44/job/{roots}"),
        &auth,
        None,
    );
    assert_ne!(a.status, 200, "{}", a.body);
    let a = request(&t, "GET", "/slurm/v0.0.44/nodes", &auth, None);
    assert_ne!(a.status, 200, "{}", a.body);
    assert!(a.body.contains("Access/permission denied"), "{}", a.body);
    // Usage, once both jobs have run a while and ended.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(c.run("scancel", &[&roots, &theirs]).status.success());
    for job in [&roots, &theirs] {
        c.wait_state(job.parse().expect("an id"), "CANCELLED");
    }
    // The users under the association tree's root in a shares answer.
    let users = |auth: &[(&str, &str)]| -> Vec<String> {
        let a = request(&t, "GET", "/slurm/v0.0.44/shares", auth, None);
        (a.json()["shares"]["shares"]
            .as_array()
            .expect("shares")
            .iter())
        .filter(|s| s["parent"] == "root")
        .map(|s| s["name"].as_str().expect("a name").to_string())
        .collect()
    };
    assert_eq!(users(&auth), ["nobody"]);
    let root_token = c.token(&[]);
    let root_auth = [("X-SLURM-USER-TOKEN", root_token.as_str())];
    let everyone = users(&root_auth);
    assert!(everyone.iter().any(|u| u == "root"), "{everyone:?}");
}
