//! The published generated REST clients, unchanged, against spur's REST
//! server: each submits, lists, gets, updates and cancels a job, and the
//! commands confirm what the client did.

use crate::harness::{Cluster, Options};
use crate::http::Target;
use crate::text;
use crate::venv::{self, run_python};

/// slurmrestd 22.05's generated client (openapi/v0.0.38).
const V0038_CLIENT: &str = "openapi-slurm-0-0-38-client==1.0.0\n";

fn cluster_with_rest() -> (Cluster, String, String) {
    let mut c = Cluster::start(Options {
        nodes: 2,
        jwt: true,
        ..Options::default()
    });
    let Target::Tcp(addr) = c.start_rest(&[]) else {
        unreachable!("a TCP listener")
    };
    let token = c.token(&[]);
    (c, format!("http://{addr}"), token)
}

#[test]
fn the_v0038_generated_client_submits_lists_gets_updates_and_cancels() {
    let Some(python) = venv::python("rest-client-v0038", V0038_CLIENT) else {
        return;
    };
    let (c, url, token) = cluster_with_rest();
    let cwd = c.dir.path().display().to_string();
    let script = format!(
        r##"
import openapi_client as oc
from openapi_client.models import V0038JobSubmission, V0038JobProperties
cfg = oc.Configuration(host="{url}", api_key={{"user": "root", "token": "{token}"}})
api = oc.SlurmApi(oc.ApiClient(cfg))
assert api.slurm_v0038_ping().pings[0].ping == "UP"
job = V0038JobProperties(name="gen38", partition="batch", current_working_directory="{cwd}",
                         environment={{"PATH": "/bin:/usr/bin"}}, time_limit=5)
r = api.slurm_v0038_submit_job(V0038JobSubmission(script="#!/bin/bash\nsleep 300\n", job=job))
print("submitted", r.job_id)
listed = [j for j in api.slurm_v0038_get_jobs().jobs if j.job_id == r.job_id]
print("listed", listed[0].name, listed[0].partition)
got = api.slurm_v0038_get_job(str(r.job_id)).jobs[0]
print("got", got.job_id, got.time_limit)
api.slurm_v0038_update_job(str(r.job_id), V0038JobProperties(time_limit=3, environment={{}}))
print("updated", api.slurm_v0038_get_job(str(r.job_id)).jobs[0].time_limit)
api.slurm_v0038_cancel_job(str(r.job_id))
print("nodes", [n.name for n in api.slurm_v0038_get_nodes().nodes])
print("partitions", [p.name for p in api.slurm_v0038_get_partitions().partitions])
"##
    );
    let out = run_python(&c, &python, "client38.py", &script);
    let id: u32 = out
        .lines()
        .find_map(|l| l.strip_prefix("submitted "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a job id: {out}"));
    assert!(out.contains("listed gen38 batch"), "{out}");
    assert!(out.contains(&format!("got {id} 5")), "{out}");
    assert!(out.contains("updated 3"), "{out}");
    assert!(out.contains("nodes ['n01', 'n02']"), "{out}");
    assert!(out.contains("partitions ['batch', 'short']"), "{out}");
    c.wait_state(id, "CANCELLED");
    let show = c.run("scontrol", &["show", "job", &id.to_string()]);
    assert!(
        text(&show.stdout).contains("TimeLimit=00:03:00"),
        "{}",
        text(&show.stdout)
    );
}

/// The published generated client of Slurm 25.11 (its models for
/// v0.0.41 to v0.0.44).
const SLURMRESTAPI: &str = "slurmrestapi==25.11.4.0\n";

#[test]
fn the_slurmrestapi_client_submits_lists_gets_updates_and_cancels_in_every_version() {
    let Some(python) = venv::python("rest-client-slurmrestapi", SLURMRESTAPI) else {
        return;
    };
    let (c, url, token) = cluster_with_rest();
    let cwd = c.dir.path().display().to_string();
    for v in ["v0041", "v0042", "v0043", "v0044"] {
        let class = format!("V{}", &v[1..]);
        let script = format!(
            r##"
import slurmrestapi as sr
import slurmrestapi.models as M
v, V = "{v}", "{class}"
cfg = sr.Configuration(host="{url}")
client = sr.ApiClient(cfg)
client.default_headers["X-SLURM-USER-TOKEN"] = "{token}"
api = sr.SlurmApi(client)
call = lambda name: getattr(api, f"slurm_{{v}}_{{name}}")
model = lambda name: getattr(M, V + name)
def minutes(n):
    if v == "v0041":
        return M.V0041JobDescMsgTimeLimit(set=True, number=n)
    return model("Uint32NoValStruct")(set=True, number=n)
assert call("get_ping")().pings[0].hostname
job = model("JobDescMsg")(name="gen-" + v, partition="batch", current_working_directory="{cwd}",
                          environment=["PATH=/bin:/usr/bin"], time_limit=minutes(5))
r = call("post_job_submit")(model("JobSubmitReq")(script="#!/bin/bash\nsleep 300\n", job=job))
print("submitted", r.job_id)
listed = [j for j in call("get_jobs")().jobs if j.job_id == r.job_id][0]
print("listed", listed.name, listed.partition, listed.job_state)
got = call("get_job")(str(r.job_id)).jobs[0]
print("got", got.job_id, got.time_limit.number)
u = call("post_job")(str(r.job_id), model("JobDescMsg")(time_limit=minutes(3)))
print("updated", u.results[0].error_code, call("get_job")(str(r.job_id)).jobs[0].time_limit.number)
call("delete_job")(str(r.job_id))
print("nodes", [n.name for n in call("get_nodes")().nodes])
print("partitions", [p.name for p in call("get_partitions")().partitions])
"##
        );
        let out = run_python(&c, &python, &format!("client-{v}.py"), &script);
        let id: u32 = out
            .lines()
            .find_map(|l| l.strip_prefix("submitted "))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{v}: a job id: {out}"));
        assert!(
            out.contains(&format!("listed gen-{v} batch ['RUNNING']"))
                || out.contains(&format!("listed gen-{v} batch ['PENDING']")),
            "{v}: {out}"
        );
        assert!(out.contains(&format!("got {id} 5")), "{v}: {out}");
        assert!(out.contains("updated 0 3"), "{v}: {out}");
        assert!(out.contains("nodes ['n01', 'n02']"), "{v}: {out}");
        assert!(out.contains("partitions ['batch', 'short']"), "{v}: {out}");
        c.wait_state(id, "CANCELLED");
        let show = c.run("scontrol", &["show", "job", &id.to_string()]);
        assert!(
            text(&show.stdout).contains("TimeLimit=00:03:00"),
            "{v}: {}",
            text(&show.stdout)
        );
    }
}
