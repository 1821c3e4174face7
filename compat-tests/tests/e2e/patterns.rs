//! File name patterns (`%%`, `%A`, `%a`, `%J`, `%j`, `%N`, `%n`, `%s`,
//! `%t`, `%u`, `%x` and zero-padded widths) in batch scripts, srun inside a
//! batch job and an array task, and srun outside an allocation, plus srun's
//! `-i`/`-o` modes. The names are those real Slurm 22.05 wrote for the same
//! commands.

use std::collections::BTreeSet;

use crate::harness::{Cluster, Options};
use crate::text;

const P: &str = "%%-A%A-a%a-J%J-j%j-N%N-n%n-s%s-t%t-u%u-x%x-5j%5j-3a%3a-2t%2t-3n%3n";
const NO_VAL: &str = "4294967294";

fn short_hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes.
    unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    name.split('.').next().unwrap_or_default().to_string()
}

/// `JobIDRaw` of each task of array `array`, by task id.
fn task_ids(c: &Cluster, array: u32) -> Vec<(u32, u32)> {
    let out = c.run(
        "sacct",
        &[
            "-X",
            "-n",
            "-P",
            "-o",
            "JobIDRaw,JobID",
            "-j",
            &array.to_string(),
        ],
    );
    text(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (raw, id) = l.split_once('|')?;
            let task = id.split_once('_')?.1.parse().ok()?;
            Some((task, raw.parse().ok()?))
        })
        .collect()
}

#[test]
fn every_pattern_expands_as_slurm_expands_it_in_batch_srun_and_arrays() {
    let c = Cluster::start(Options {
        nodes: 2,
        ..Options::default()
    });
    let dir = c.dir.path().join("pat");
    std::fs::create_dir(&dir).expect("pattern folder");
    let script = format!(
        "#!/bin/bash\n\
         srun -n2 -o 's-{P}.out' -e 'se-{P}.err' bash -c 'echo out $SLURM_PROCID; echo err >&2'\n\
         if [ -z \"$SLURM_ARRAY_TASK_ID\" ]; then\n\
         echo in0 > in-0.txt; echo in1 > in-1.txt\n\
         srun -n2 -i 'in-%t.txt' -o 'cat-%t.out' cat\n\
         echo one | srun -n2 -l -i 1 cat\n\
         srun -n2 -o none echo hidden\n\
         srun -n2 -l -o 0 sh -c 'echo only $SLURM_PROCID'\n\
         fi\n"
    );
    let submit = |args: &[&str]| {
        // On n01, so that srun's %N is known.
        let mut all = vec!["--parsable", "-w", "n01", "-D"];
        all.push(dir.to_str().expect("utf-8 path"));
        all.extend_from_slice(args);
        let out = c.run_with_input("sbatch", &all, &script);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout).trim().parse::<u32>().expect("job id")
    };
    let batch_out = format!("b-{P}.out");
    let plain = submit(&["-n2", "-J", "bj", "-o", &batch_out]);
    let array = submit(&["-n2", "-J", "aj", "--array=1-2", "-o", &batch_out]);
    let out = c
        .command(
            "srun",
            &[
                "-n2",
                "-w",
                "n01",
                "-J",
                "dj",
                "-o",
                &format!("d-{P}.out"),
                "true",
            ],
        )
        .current_dir(&dir)
        .output()
        .expect("srun runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_state(plain, "COMPLETED");
    c.wait_for(std::time::Duration::from_secs(30), "the array", |c| {
        let out = c.run(
            "sacct",
            &["-X", "-n", "-P", "-o", "State", "-j", &array.to_string()],
        );
        text(&out.stdout) == "COMPLETED\nCOMPLETED\n"
    });
    let tasks = task_ids(&c, array);
    assert_eq!(tasks.len(), 2, "{tasks:?}");
    // srun's own job: the one that is neither the batch job nor a task (an
    // array task takes its id when it starts, which may be after srun's).
    let ids = c.run("sacct", &["-X", "-n", "-P", "-a", "-o", "JobIDRaw"]);
    let direct: Vec<u32> = text(&ids.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .filter(|id| *id != plain && tasks.iter().all(|t| t.1 != *id))
        .collect();
    assert_eq!(direct.len(), 1, "{}", text(&ids.stdout));
    let direct = direct[0];
    let host = short_hostname();
    let user = "root";
    let mut want = BTreeSet::new();
    let batch = |id: u32, a: u32, task: &str, x: &str| {
        let a3 = if task == NO_VAL {
            NO_VAL.to_string()
        } else {
            format!("{:03}", task.parse::<u32>().unwrap_or(0))
        };
        format!(
            "b-%-A{a}-a{task}-J{id}-j{id}-N{host}-n0-sbatch-t0-u{user}-x{x}-5j{id:05}-3a{a3}-2t00-3n000.out"
        )
    };
    let step = |prefix: &str, ext: &str, id: u32, a: u32, task: &str, x: &str, t: u32| {
        let a3 = if task == NO_VAL {
            NO_VAL.to_string()
        } else {
            format!("{:03}", task.parse::<u32>().unwrap_or(0))
        };
        format!(
            "{prefix}-%-A{a}-a{task}-J{id}.0-j{id}-Nn01-n0-s0-t{t}-u{user}-x{x}-5j{id:05}-3a{a3}-2t{t:02}-3n000.{ext}"
        )
    };
    want.insert(batch(plain, plain, NO_VAL, "bj"));
    for t in 0..2 {
        want.insert(step("s", "out", plain, plain, NO_VAL, "bj", t));
        want.insert(step("se", "err", plain, plain, NO_VAL, "bj", t));
        want.insert(step("d", "out", direct, direct, NO_VAL, "dj", t));
    }
    for &(task, id) in &tasks {
        let task = task.to_string();
        want.insert(batch(id, array, &task, "aj"));
        for t in 0..2 {
            want.insert(step("s", "out", id, array, &task, "aj", t));
            want.insert(step("se", "err", id, array, &task, "aj", t));
        }
    }
    for name in ["cat-0.out", "cat-1.out", "in-0.txt", "in-1.txt"] {
        want.insert(name.to_string());
    }
    let got: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("pattern folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    assert_eq!(got, want);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    // -i 'in-%t.txt': each task reads its own file, opened on its node.
    assert_eq!(read("cat-0.out"), "in0\n");
    assert_eq!(read("cat-1.out"), "in1\n");
    assert_eq!(
        read(&step("s", "out", plain, plain, NO_VAL, "bj", 1)),
        "out 1\n"
    );
    assert_eq!(
        read(&step("se", "err", plain, plain, NO_VAL, "bj", 1)),
        "err\n"
    );
    // -i 1 feeds task 1 alone; -o none shows nothing; -o 0 task 0 alone.
    assert_eq!(
        read(&batch(plain, plain, NO_VAL, "bj")),
        "1: one\n0: only 0\n"
    );
}
