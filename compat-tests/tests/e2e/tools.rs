//! The call patterns of real tools that drive Slurm's commands: the batch
//! scripts submitit and Parsl write, and the srun lines they and
//! snakemake's job step plugin run, checked against spur.

use crate::harness::{Cluster, Options};
use crate::text;

/// submitit's script: `#SBATCH` lines after a comment, `--signal=USR2@90`,
/// `--open-mode=append`, `--wckey`, and an srun that writes one output
/// file per task with `%j_%t`.
#[test]
fn a_submitit_script_runs_and_writes_one_log_per_task() {
    let c = Cluster::start(Options::default());
    let logs = c.dir.path().join("logs");
    std::fs::create_dir_all(&logs).expect("logs folder");
    let l = logs.display();
    let script = format!(
        "#!/bin/bash\n\n# Parameters\n\
         #SBATCH --error={l}/%j_0_log.err\n\
         #SBATCH --job-name=submitit\n\
         #SBATCH --nodes=2\n\
         #SBATCH --ntasks-per-node=2\n\
         #SBATCH --open-mode=append\n\
         #SBATCH --output={l}/%j_0_log.out\n\
         #SBATCH --signal=USR2@90\n\
         #SBATCH --time=5\n\
         #SBATCH --wckey=submitit\n\n\
         # command\n\
         export SUBMITIT_EXECUTOR=slurm\n\
         srun --unbuffered --output {l}/%j_%t_log.out --error {l}/%j_%t_log.err \
         sh -c 'echo task $SLURM_PROCID of $SLURM_NTASKS on $SLURM_NODEID $SUBMITIT_EXECUTOR; echo err $SLURM_LOCALID >&2'\n"
    );
    let out = c.run_with_input("sbatch", &[], &script);
    let said = text(&out.stdout);
    // submitit reads the id with `job (?P<id>[0-9]+)`.
    let id: u32 = said
        .strip_prefix("Submitted batch job ")
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("sbatch said {said:?}, {}", text(&out.stderr)));
    c.wait_state(id, "COMPLETED");
    for task in 0..4 {
        let log =
            std::fs::read_to_string(logs.join(format!("{id}_{task}_log.out"))).unwrap_or_default();
        assert_eq!(log, format!("task {task} of 4 on {} slurm\n", task / 2));
        let err =
            std::fs::read_to_string(logs.join(format!("{id}_{task}_log.err"))).unwrap_or_default();
        assert_eq!(err, format!("err {}\n", task % 2));
    }
}

/// Parsl's SrunLauncher (`srun --ntasks N -l bash cmd_$SLURM_JOB_NAME.sh`,
/// two spaces included) and its HTEX MPI prefix (`--ntasks-per-node`,
/// `--nodelist`, `--nodes`), and snakemake's job step
/// (`srun -n1 --cpu-bind=q  --cpus-per-task=1  sh -s`, the script on stdin).
#[test]
fn parsl_and_snakemake_srun_lines_run_their_tasks() {
    let c = Cluster::start(Options::default());
    let script = "#!/bin/bash\n\n\
         #SBATCH --job-name=parsl.htex.block-0.1723456789.123456\n\
         #SBATCH --output=parsl.stdout\n\
         #SBATCH --error=parsl.stderr\n\
         #SBATCH --nodes=2\n\
         #SBATCH --time=10\n\
         #SBATCH --ntasks-per-node=1\n\n\
         #SBATCH --exclusive\n\
         export CORES=$SLURM_CPUS_ON_NODE\n\
         export NODES=$SLURM_JOB_NUM_NODES\n\
         echo 'echo worker $SLURM_PROCID of $NODES' > cmd_$SLURM_JOB_NAME.sh\n\
         srun --ntasks 2 -l  bash cmd_$SLURM_JOB_NAME.sh\n\
         srun --ntasks 2 --ntasks-per-node 1 --nodelist $(scontrol show hostname $SLURM_NODELIST | paste -sd,) --nodes 2 hostname >/dev/null && echo mpi-prefix-ok\n\
         echo 'echo from-stdin $SLURM_PROCID' | srun -n1 --cpu-bind=q  --cpus-per-task=1  sh -s\n";
    let id = c.submit(&[], script);
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join("parsl.stdout")).expect("stdout");
    let mut workers: Vec<&str> = out.lines().filter(|l| l.contains("worker")).collect();
    workers.sort_unstable();
    assert_eq!(
        workers,
        vec!["0: worker 0 of 2", "1: worker 1 of 2"],
        "{out}"
    );
    assert!(out.contains("mpi-prefix-ok\n"), "{out}");
    assert!(out.contains("from-stdin 0\n"), "{out}");
}

/// How submitit, snakemake and Parsl poll: sacct and squeue lines they
/// run, byte for byte, and what they parse out of the answer; srun steps
/// show in sacct as N.0, N.1 beside N.batch.
#[test]
fn the_status_queries_of_submitit_snakemake_and_parsl_see_jobs_and_steps() {
    let c = Cluster::start(Options::default());
    let ok = c.submit(
        &["--job-name", "run-uuid-1", "-N", "2"],
        "#!/bin/sh\nsrun true\nsrun -n 1 sh -c 'exit 2'\nexit 0\n",
    );
    let failed = c.submit(&["--job-name", "run-uuid-1", "--wrap", "exit 7"], "");
    c.wait_state(ok, "COMPLETED");
    c.wait_state(failed, "FAILED");

    // submitit: `sacct -o JobID,State,NodeList --parsable2 -j A -j B`.
    let (a, b) = (ok.to_string(), failed.to_string());
    let out = c.run(
        "sacct",
        &[
            "-o",
            "JobID,State,NodeList",
            "--parsable2",
            "-j",
            &a,
            "-j",
            &b,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = text(&out.stdout);
    let rows: Vec<&str> = got.lines().collect();
    assert_eq!(rows[0], "JobID|State|NodeList", "{got}");
    for want in [
        format!("{ok}|COMPLETED|n[01-02]"),
        format!("{ok}.batch|COMPLETED|n01"),
        format!("{ok}.0|COMPLETED|n[01-02]"),
        format!("{ok}.1|FAILED|n01"),
        format!("{failed}|FAILED|n01"),
    ] {
        assert!(rows.contains(&want.as_str()), "missing {want:?} in\n{got}");
    }

    // snakemake: `sacct -X --parsable2 --clusters all --noheader
    // --format=JobIdRaw,State --starttime ... --endtime now --name <uuid>`.
    let out = c.run(
        "sacct",
        &[
            "-X",
            "--parsable2",
            "--clusters",
            "all",
            "--noheader",
            "--format=JobIdRaw,State",
            "--starttime",
            "2020-01-01T00:00",
            "--endtime",
            "now",
            "--name",
            "run-uuid-1",
        ],
    );
    assert_eq!(
        text(&out.stdout),
        format!("{ok}|COMPLETED\n{failed}|FAILED\n"),
        "{}",
        text(&out.stderr)
    );
    // snakemake's squeue fallback: `squeue --format=%i|%T --states=all
    // --noheader --name <uuid>`.
    let out = c.run(
        "squeue",
        &[
            "--format=%i|%T",
            "--states=all",
            "--noheader",
            "--name",
            "run-uuid-1",
        ],
    );
    let mut lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    lines.sort();
    let mut want = vec![format!("{ok}|COMPLETED"), format!("{failed}|FAILED")];
    want.sort();
    assert_eq!(lines, want);

    // Parsl: `sacct -X --noheader --format=jobid,state%20 --job 'a,b'`,
    // split on whitespace, and `squeue --noheader --format='%i %t' --job`.
    let both = format!("{ok},{failed}");
    let out = c.run(
        "sacct",
        &[
            "-X",
            "--noheader",
            "--format=jobid,state%20",
            "--job",
            &both,
        ],
    );
    let states: Vec<Vec<String>> = text(&out.stdout)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(
        states,
        vec![
            vec![a.clone(), "COMPLETED".into()],
            vec![b.clone(), "FAILED".into()]
        ]
    );
    let out = c.run("sacct", &["-X"]);
    assert!(out.status.success(), "Parsl's probe `sacct -X` must exit 0");
    let out = c.run(
        "squeue",
        &["--noheader", "--format=%i %t", "--job", &both, "-t", "all"],
    );
    let mut short: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    short.sort();
    let mut want = vec![format!("{ok} CD"), format!("{failed} F")];
    want.sort();
    assert_eq!(short, want);
}
