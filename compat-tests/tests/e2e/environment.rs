//! The whole environment of a batch script, its srun tasks, an array task,
//! a salloc shell and its task, against the variable names real Slurm
//! 22.05.8 gave the same commands (recorded/env-*.txt). Slurm's jobs there
//! ran under an account association, which spur does not keep: without
//! `-A` they have no SLURM_JOB_ACCOUNT here. spur adds SPUR_CONF.

use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::text;

const BATCH: &str = "#!/bin/bash\n\
    #SBATCH -N2 --ntasks-per-node=2 --gpus-per-node=2 -t 5 -J envjob --open-mode=append\n\
    env | sort > batchA.env\n\
    srun -n1 -N1 env | sort > taskA.env\n\
    srun -n2 --gpus-per-task=1 bash -c 'env | sort > taskA2-$SLURM_PROCID.env'\n";
const ARRAY: &str = "#!/bin/bash\n\
    #SBATCH -n3 -c2 --mem=1G --array=1-2%1 -J envarr --comment=hi --requeue\n\
    env | sort > batchB-$SLURM_ARRAY_TASK_ID.env\n";

fn names(text: &str) -> Vec<String> {
    let slurmish = ["SLURM", "CUDA", "GPU", "ROCR", "ZE_", "ENVIRONMENT"];
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_once('=').map_or(l, |(k, _)| k))
        .filter(|k| slurmish.iter().any(|p| k.starts_with(p)))
        .filter(|&k| k != "SLURM_JOB_ACCOUNT")
        .map(str::to_string)
        .collect()
}

#[test]
fn batch_step_array_and_salloc_environments_hold_every_variable_slurm_sets() {
    let c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let a = c.submit(&["-o", "a.out"], BATCH);
    c.submit(&["-o", "b-%a.out"], ARRAY);
    let out = c
        .command(
            "salloc",
            &[
                "-N1",
                "-n2",
                "-J",
                "sal",
                "bash",
                "-c",
                "env | sort > salloc.env; srun -n1 env | sort > salloc-task.env",
            ],
        )
        .output()
        .expect("salloc runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(a, "COMPLETED");
    c.wait_for(Duration::from_secs(30), "the array's second task", |c| {
        c.dir.path().join("batchB-2.env").exists()
    });
    let recorded = |name: &str| {
        let path = format!(
            "{}/tests/e2e/recorded/env-{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        names(&std::fs::read_to_string(path).expect("recording"))
    };
    for name in [
        "batchA",
        "taskA",
        "taskA2-1",
        "batchB-2",
        "salloc",
        "salloc-task",
    ] {
        let got = std::fs::read_to_string(c.dir.path().join(format!("{name}.env")))
            .unwrap_or_else(|e| panic!("{name}.env: {e}"));
        assert_eq!(names(&got), recorded(name), "{name}:\n{got}");
    }
    let read = |name: &str| std::fs::read_to_string(c.dir.path().join(name)).unwrap_or_default();
    let value = |name: &str, key: &str| {
        read(name)
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_string))
    };
    // Values Slurm gave there that depend on nothing but the request.
    assert_eq!(value("batchA.env", "SLURM_OPEN_MODE").as_deref(), Some("a"));
    assert_eq!(
        value("batchA.env", "SLURM_JOB_GPUS").as_deref(),
        Some("0,1")
    );
    assert_eq!(
        value("taskA.env", "SLURM_NODELIST"),
        value("batchA.env", "SLURM_NODELIST")
    );
    assert_eq!(
        value("taskA.env", "SLURM_DISTRIBUTION").as_deref(),
        Some("cyclic")
    );
    assert_eq!(
        value("taskA.env", "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0").as_deref(),
        Some("2(x2)")
    );
    assert_eq!(value("taskA.env", "SLURM_OPEN_MODE").as_deref(), Some("a"));
    assert_eq!(
        value("salloc.env", "SLURM_TASKS_PER_NODE").as_deref(),
        Some("2")
    );
    assert_eq!(value("salloc.env", "SLURM_NTASKS").as_deref(), Some("2"));
    assert_eq!(
        value("salloc.env", "SLURM_CLUSTER_NAME").as_deref(),
        Some("e2e")
    );
    assert_eq!(
        value("batchB-2.env", "SLURM_ARRAY_TASK_COUNT").as_deref(),
        Some("2")
    );
    assert_eq!(
        value("batchB-2.env", "SLURM_CPUS_PER_TASK").as_deref(),
        Some("2")
    );
    assert_eq!(
        value("batchB-2.env", "SLURM_MEM_PER_NODE").as_deref(),
        Some("1024")
    );
}
