//! Running steps listed as Slurm lists them: `squeue --steps` (default and
//! `-o`/`-O` formats, `-s` lists) and `scontrol show step`, with two
//! concurrent background steps of one batch job and its batch step; and
//! one step signalled or cancelled by `scancel N.S` while its job goes on.

use crate::harness::{Cluster, Options};
use crate::text;

#[test]
fn squeue_steps_and_scontrol_show_step_list_the_running_steps() {
    let c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let id = c.submit(
        &[
            "-N2",
            "-n4",
            "--gpus-per-node=2",
            "-J",
            "stepper",
            "-o",
            "/dev/null",
        ],
        "#!/bin/sh\n\
         srun -n2 -N1 --exact --gpus=1 sleep 60 &\n\
         srun -n1 -N1 --exact -J named -t 2 --gpus=1 sleep 60 &\n\
         wait\n",
    );
    c.wait_state(id, "RUNNING");
    c.wait_for(std::time::Duration::from_secs(30), "both steps", |c| {
        let out = c.run("squeue", &["-s", "-h", "-o", "%i"]);
        text(&out.stdout).lines().count() == 3
    });
    // Which srun got which step number depends on who asked first.
    let out = c.run("squeue", &["-s", "-h", "-o", "%i|%j|%P|%u|%N|%A|%l|%b"]);
    let rows = text(&out.stdout);
    let mut named = None;
    for line in rows.lines() {
        let f: Vec<&str> = line.split('|').collect();
        match f[1] {
            "batch" => assert_eq!(
                f,
                [
                    &format!("{id}.batch"),
                    "batch",
                    "batch",
                    "root",
                    "n01",
                    "1",
                    "UNLIMITED",
                    "(null)"
                ],
                "{rows}"
            ),
            "named" => {
                assert_eq!(
                    &f[2..],
                    ["batch", "root", f[4], "1", "2:00", "(null)"],
                    "{rows}"
                );
                named = Some(f[0].to_string());
            }
            "sleep" => assert_eq!(
                &f[2..],
                ["batch", "root", f[4], "2", "UNLIMITED", "(null)"],
                "{rows}"
            ),
            other => panic!("unexpected step {other}: {rows}"),
        }
    }
    let named = named.expect("the named step is listed");
    // Steps come after their number, the batch step last (sort P,i).
    let order: Vec<String> = rows
        .lines()
        .map(|l| l.split('|').next().unwrap_or("").to_string())
        .collect();
    assert_eq!(order.last(), Some(&format!("{id}.batch")), "{rows}");
    let out = c.run("squeue", &["-s"]);
    let listing = text(&out.stdout);
    assert!(
        listing.starts_with("         STEPID     NAME PARTITION     USER      TIME NODELIST\n"),
        "{listing}"
    );
    assert!(
        listing.contains(&format!(
            "{:>15}    batch     batch     root",
            format!("{id}.batch")
        )),
        "{listing}"
    );
    let out = c.run("squeue", &["--steps", &named, "-h", "-o", "%i %j"]);
    assert_eq!(text(&out.stdout), format!("{named} named\n"));
    let out = c.run("squeue", &["-s", "-O", "StepId,NodeList,NumTasks", "-h"]);
    assert_eq!(
        text(&out.stderr),
        "squeue: error: Invalid job step format specification: NodeList\n"
    );
    assert_eq!(text(&out.stdout).lines().count(), 3);
    // --json lists the jobs, -s or not, as squeue's dump_data does.
    let out = c.run("squeue", &["-s", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["jobs"][0]["job_id"], id);
    let out = c.run("squeue", &["-s", "99999"]);
    assert_eq!(
        (text(&out.stderr).as_str(), out.status.code()),
        ("squeue: error: Invalid job_step id: 99999.??\n", Some(1))
    );
    // scontrol show step: the step's record, Slurm's keys in order.
    let out = c.run("scontrol", &["show", "step", &named]);
    let record = text(&out.stdout);
    let lines: Vec<&str> = record.lines().collect();
    assert!(
        lines[0].starts_with(&format!("StepId={named} UserId=0 StartTime=")),
        "{record}"
    );
    assert!(lines[0].ends_with(" TimeLimit=00:02:00"), "{record}");
    assert!(
        lines[1].starts_with("   State=RUNNING Partition=batch NodeList=n0"),
        "{record}"
    );
    assert_eq!(
        lines[2], "   Nodes=1 CPUs=1 Tasks=1 Name=named Network=(null)",
        "{record}"
    );
    assert_eq!(
        lines[3], "   TRES=cpu=1,gres/gpu=1,mem=1000M,node=1",
        "{record}"
    );
    assert_eq!(lines[4], "   ResvPorts=(null)");
    assert_eq!(lines[5], "   CPUFreqReq=Default Dist=Cyclic");
    assert!(lines[6].starts_with("   SrunHost:Pid="), "{record}");
    assert_eq!(lines[7], "   TresPerStep=gres:gpu:1");
    assert!(record.ends_with("\n\n"), "{record}");
    // `N.batch` reads as step 0, as scontrol's strtol reads it.
    let out = c.run("scontrol", &["-o", "show", "step", &format!("{id}.batch")]);
    assert!(
        text(&out.stdout).starts_with(&format!("StepId={id}.0 ")),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(text(&out.stdout).lines().count(), 1);
    let out = c.run("scontrol", &["show", "step", &id.to_string()]);
    assert_eq!(text(&out.stdout).matches("StepId=").count(), 3);
    let out = c.run("scontrol", &["show", "step", &format!("{id}.7")]);
    assert_eq!(
        (text(&out.stdout), out.status.code()),
        (format!("Job step {id}.7 not found\n"), Some(1))
    );
    let out = c.run("scontrol", &["show", "step", "99999.0"]);
    assert_eq!(
        (text(&out.stderr).as_str(), out.status.code()),
        (
            "slurm_get_job_steps error: Invalid job id specified\n",
            Some(1)
        )
    );
    let _ = c.run("scancel", &[&id.to_string()]);
}

#[test]
fn scancel_signals_and_ends_one_step_while_its_job_goes_on() {
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let out = c.dir.path().join("steps.out");
    let id = c.submit(
        &["-o", &out.display().to_string()],
        "#!/bin/sh\n\
         srun sh -c 'trap \"echo got usr1\" USR1; sleep 60 & wait; sleep 60 & wait'\n\
         echo \"step ended: $?\"\n",
    );
    c.wait_for(std::time::Duration::from_secs(30), "the step", |c| {
        text(&c.run("squeue", &["-h", "-s", "-j", &id.to_string()]).stdout)
            .contains(&format!("{id}.0"))
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    let signalled = c.run("scancel", &["-v", "-s", "USR1", &format!("{id}.0")]);
    assert!(signalled.status.success(), "{}", text(&signalled.stderr));
    assert!(
        text(&signalled.stderr).contains(&format!("scancel: Signal 10 to step {id}.0\n")),
        "{}",
        text(&signalled.stderr)
    );
    let missing = c.run("scancel", &[&format!("{id}.7")]);
    assert_eq!(
        text(&missing.stderr),
        format!("scancel: error: Kill job error on job step id {id}: Invalid job id specified\n")
    );
    assert!(!missing.status.success());
    std::thread::sleep(std::time::Duration::from_millis(500));
    let ended = c.run("scancel", &[&format!("{id}.0")]);
    assert!(ended.status.success(), "{}", text(&ended.stderr));
    assert_eq!(text(&ended.stderr), "");
    c.wait_state_within(id, "COMPLETED", std::time::Duration::from_secs(30));
    let written = std::fs::read_to_string(&out).expect("the job's output");
    assert!(written.contains("got usr1"), "{written}");
    assert!(written.contains("step ended: "), "{written}");
}
