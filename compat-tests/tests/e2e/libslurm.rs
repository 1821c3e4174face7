//! spur's libslurm.so.38 (spur-ffi) under C programs built against
//! Debian's `slurm/slurm.h`, found first by the dynamic loader, against a
//! running cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{bin_dir, Cluster, Options};
use crate::text;

const HEADER: &str = "/usr/include/slurm/slurm.h";

/// A folder where the dynamic loader finds spur's library as
/// `libslurm.so.38` (and the linker as `libslurm.so`).
fn library_dir(inside: &Path) -> PathBuf {
    // `cargo build` puts the library in target/<profile>, `cargo test` in
    // its deps folder: the newer one is this tree's.
    let profile = bin_dir();
    let built = [
        profile.join("libslurm.so"),
        profile.join("deps/libslurm.so"),
    ]
    .into_iter()
    .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
    .max()
    .map(|(_, p)| p)
    .expect("libslurm.so is built (cargo build -p spur-ffi)");
    let dir = inside.join("lib");
    std::fs::create_dir_all(&dir).expect("lib folder");
    for name in ["libslurm.so.38", "libslurm.so"] {
        std::os::unix::fs::symlink(&built, dir.join(name)).expect("link");
    }
    dir
}

/// Whether Debian's slurm.h is there to build against (else the test
/// says it skips).
fn header_installed() -> bool {
    let there = Path::new(HEADER).exists();
    if !there {
        eprintln!("skipped: {HEADER} is not installed (libslurm-dev)");
    }
    there
}

/// A one-node cluster, the folder of spur's library, and `source` built
/// against it in the cluster's folder.
fn on_one_node(name: &str, source: &str) -> (Cluster, PathBuf, PathBuf) {
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let lib = library_dir(c.dir.path());
    let program = compile(c.dir.path(), &lib, name, source);
    (c, lib, program)
}

/// `program` on spur's library, with the cluster's slurm.conf.
fn on_cluster(program: &Path, lib: &Path, c: &Cluster) -> Command {
    let mut run = Command::new(program);
    run.env("LD_LIBRARY_PATH", lib).env("SLURM_CONF", &c.conf);
    run
}

/// Runs a program that must succeed; its output.
fn run_ok(run: &mut Command) -> std::process::Output {
    let out = run.output().expect("the program runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    out
}

/// `source` compiled against slurm.h and linked with `-lslurm` from `lib`.
fn compile(dir: &Path, lib: &Path, name: &str, source: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    let program = dir.join(name);
    std::fs::write(&c, source).expect("source written");
    let built = Command::new("cc")
        .arg(&c)
        .arg("-o")
        .arg(&program)
        .arg(format!("-L{}", lib.display()))
        .arg("-lslurm")
        .output()
        .expect("cc runs");
    assert!(built.status.success(), "{}", text(&built.stderr));
    program
}

const BASICS: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(void) {
    Dl_info where;
    dladdr((void *) slurm_ping, &where);
    printf("library %s\n", where.dli_fname);
    long v = slurm_api_version();
    printf("api %ld.%ld.%ld\n", SLURM_VERSION_MAJOR(v), SLURM_VERSION_MINOR(v), SLURM_VERSION_MICRO(v));
    slurm_init(NULL);
    printf("ping %d\n", slurm_ping(0));
    int rc = slurm_ping(1);
    printf("backup %d %s\n", rc, slurm_strerror(slurm_get_errno()));
    reserve_info_msg_t *resv = NULL;
    rc = slurm_load_reservations(0, &resv);
    printf("reservations %d %d %s %s\n", rc, slurm_get_errno(), resv ? "set" : "NULL",
           slurm_strerror(slurm_get_errno()));
    printf("strerror %s | %s | %s\n", slurm_strerror(ESLURM_INVALID_PARTITION_NAME),
           slurm_strerror(SLURM_ERROR), slurm_strerror(2));
    slurm_seterrno(ESLURM_INVALID_JOB_ID);
    slurm_perror("probe");
    slurm_fini();
    return 0;
}
"#;

#[test]
fn a_c_program_built_against_slurm_h_runs_on_spurs_library() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("basics", BASICS);
    let out = run_ok(&mut on_cluster(&program, &lib, &c));
    let lines = text(&out.stdout);
    let lines: Vec<&str> = lines.lines().collect();
    let loaded = lines[0].strip_prefix("library ").expect("library line");
    assert!(
        Path::new(loaded).starts_with(&lib),
        "the loader took {loaded}, not spur's in {}",
        lib.display()
    );
    assert_eq!(
        lines[1..],
        [
            "api 38.0.0",
            "ping 0",
            "backup -1 Communication connection failure",
            "reservations -1 2036 NULL Requested operation not supported on this system",
            "strerror Invalid partition name specified | Unspecified error | No such file or directory",
        ]
    );
    assert_eq!(text(&out.stderr), "probe: Invalid job id specified\n");
}

const HELPERS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>

/* Not in slurm.h; the Perl module and pyslurm declare them so. */
extern void slurm_xfree(void **);
extern char *slurm_job_state_string(uint32_t);
extern char *slurm_job_state_string_compact(uint32_t);
extern uint32_t slurm_job_state_num(const char *);
extern char *slurm_job_reason_string(int);

int main(void) {
    hostlist_t hl = slurm_hostlist_create("n[01-03],m1");
    printf("hosts %d, n02 at %d, zz at %d\n", slurm_hostlist_count(hl),
           slurm_hostlist_find(hl, "n02"), slurm_hostlist_find(hl, "zz"));
    int pushed = slurm_hostlist_push(hl, "n04,n01");
    int one = slurm_hostlist_push_host(hl, "a[1-2]");
    printf("pushed %d then %d\n", pushed, one);
    char buf[64];
    ssize_t n = slurm_hostlist_ranged_string(hl, sizeof buf, buf);
    printf("ranged %zd %s\n", n, buf);
    char small[4];
    printf("too small %zd\n", slurm_hostlist_ranged_string(hl, sizeof small, small));
    char *first = slurm_hostlist_shift(hl);
    printf("shifted %s\n", first);
    free(first);
    slurm_hostlist_uniq(hl);
    char *x = slurm_hostlist_ranged_string_xmalloc(hl);
    printf("unique %s (%d)\n", x, slurm_hostlist_count(hl));
    slurm_xfree((void **) &x);
    printf("freed to %s\n", x ? "a pointer" : "NULL");
    slurm_hostlist_destroy(hl);
    hostlist_t empty = slurm_hostlist_create(NULL);
    printf("empty %d %s\n", slurm_hostlist_count(empty), slurm_hostlist_shift(empty) ? "host" : "NULL");
    slurm_hostlist_destroy(empty);
    printf("states %s %s %u %s %s\n", slurm_job_state_string(JOB_RUNNING | JOB_COMPLETING),
           slurm_job_state_string_compact(JOB_PENDING), slurm_job_state_num("cg"),
           slurm_job_reason_string(WAIT_RESOURCES), slurm_job_reason_string(5000));
    return 0;
}
"#;

/// What Slurm 22.05's own library printed for [`HELPERS`].
const HELPERS_OUT: &str = "hosts 4, n02 at 1, zz at -1
pushed 2 then 1
ranged 27 n[01-03],m1,n[04,01],a[1-2]
too small -1
shifted n01
unique a[1-2],m1,n[01-04] (6)
freed to NULL
empty 0 NULL
states COMPLETING PD 32768 Resources 5000
";

#[test]
fn hostlists_and_state_words_are_as_slurms_library_gives_them() {
    if !header_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = library_dir(dir.path());
    let program = compile(dir.path(), &lib, "helpers", HELPERS);
    let spurs = Command::new(&program)
        .env("LD_LIBRARY_PATH", &lib)
        .output()
        .expect("runs");
    assert!(spurs.status.success(), "{}", text(&spurs.stderr));
    assert_eq!(text(&spurs.stdout), HELPERS_OUT);
    assert_valgrind_clean(Command::new(&program).env("LD_LIBRARY_PATH", &lib));
    // Where Debian's library is installed, the same program on it (the
    // loader's default) prints the same.
    if Path::new("/usr/lib/x86_64-linux-gnu/libslurm.so.38").exists() {
        let slurms = Command::new(&program)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .expect("runs");
        assert_eq!(
            text(&slurms.stdout),
            HELPERS_OUT,
            "{}",
            text(&slurms.stderr)
        );
    }
}

const JOBS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

extern char *slurm_job_state_string(uint32_t);
extern char *slurm_job_reason_string(int);

static void show(job_info_msg_t *msg) {
    for (uint32_t i = 0; i < msg->record_count; i++) {
        slurm_job_info_t *j = &msg->job_array[i];
        printf("%u %s %u %s %s %s %u %u %s\n", j->job_id, j->name, j->user_id,
               slurm_job_state_string(j->job_state), slurm_job_reason_string(j->state_reason),
               j->partition, j->num_nodes, j->time_limit, j->work_dir ? "cwd" : "none");
    }
}

int main(int argc, char **argv) {
    job_info_msg_t *msg = NULL;
    if (slurm_load_jobs(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
        slurm_perror("slurm_load_jobs");
        return 1;
    }
    printf("jobs %u\n", msg->record_count);
    show(msg);
    slurm_free_job_info_msg(msg);
    msg = NULL;
    if (slurm_load_job(&msg, (uint32_t) atoi(argv[1]), SHOW_DETAIL) != SLURM_SUCCESS)
        return 2;
    printf("one %u\n", msg->record_count);
    show(msg);
    slurm_free_job_info_msg(msg);
    msg = NULL;
    int rc = slurm_load_job(&msg, 999999, 0);
    printf("missing %d %s %s\n", rc, slurm_strerror(slurm_get_errno()), msg ? "set" : "NULL");
    rc = slurm_load_job_user(&msg, 424242, 0);
    printf("nobody's %d %u\n", rc, msg->record_count);
    slurm_free_job_info_msg(msg);
    return 0;
}
"#;

#[test]
fn jobs_load_as_squeue_lists_them() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("jobs", JOBS);
    let held = c.submit(&["--hold", "-J", "held", "-t", "10", "--wrap", "true"], "");
    let other = c.submit(
        &["-J", "second", "-p", "short", "--hold", "--wrap", "true"],
        "",
    );
    let out = run_ok(on_cluster(&program, &lib, &c).arg(held.to_string()));
    let squeue = c.run("squeue", &["-h", "-o", "%i %j %U %T %r %P %D"]);
    let listed: Vec<String> = text(&squeue.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .collect();
    let uid = unsafe { libc::getuid() };
    assert_eq!(
        listed,
        [
            format!("{held} held {uid} PENDING JobHeldUser batch 1"),
            format!("{other} second {uid} PENDING JobHeldUser short 1"),
        ]
    );
    assert_eq!(
        text(&out.stdout),
        format!(
            "jobs 2\n{held} held {uid} PENDING JobHeldUser batch 1 10 cwd\n\
             {other} second {uid} PENDING JobHeldUser short 1 1 cwd\n\
             one 1\n{held} held {uid} PENDING JobHeldUser batch 1 10 cwd\n\
             missing -1 Invalid job id specified NULL\nnobody's 0 0\n"
        )
    );
    // Under valgrind, where it is installed: no invalid access, and
    // nothing lost once the messages are freed.
    assert_valgrind_clean(on_cluster(&program, &lib, &c).arg(held.to_string()));
}

/// Where valgrind is installed, `run` under it makes no invalid access
/// and loses nothing (what the library hands out, its frees free).
fn assert_valgrind_clean(run: &mut Command) {
    let valgrind = "/usr/bin/valgrind";
    if !Path::new(valgrind).exists() {
        eprintln!("valgrind is not installed: the memory check skips");
        return;
    }
    let mut checked = Command::new(valgrind);
    checked
        .args(["-q", "--error-exitcode=9", "--leak-check=full"])
        .args(["--errors-for-leak-kinds=definite,indirect"])
        .arg(run.get_program())
        .args(run.get_args());
    for (key, value) in run.get_envs() {
        if let Some(value) = value {
            checked.env(key, value);
        }
    }
    let out = checked.output().expect("valgrind runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

const SUBMIT: &str = r##"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static int submit(const char *name, const char *partition, uint32_t priority, const char *out) {
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    char *env[] = {"PATH=/usr/bin:/bin", "GREETING=hello from libslurm"};
    char cwd[4096];
    d.name = (char *) name;
    d.partition = (char *) partition;
    d.priority = priority;
    d.script = "#!/bin/sh\necho \"$GREETING $SLURM_JOB_NAME\"\n";
    d.environment = env;
    d.env_size = 2;
    d.work_dir = getcwd(cwd, sizeof cwd);
    d.std_out = (char *) out;
    d.min_nodes = 1;
    d.time_limit = 5;
    d.user_id = getuid();
    d.group_id = getgid();
    submit_response_msg_t *resp = NULL;
    if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
        printf("refused %d %s\n", slurm_get_errno(), slurm_strerror(slurm_get_errno()));
        return -1;
    }
    int id = (int) resp->job_id;
    printf("submitted %s %s\n", name, resp->step_id == SLURM_BATCH_SCRIPT ? "batch" : "?");
    slurm_free_submit_response_response_msg(resp);
    return id;
}

int main(void) {
    int ran = submit("runs", NULL, NO_VAL, "runs.out");
    int held = submit("held", NULL, 0, "held.out");
    submit("nowhere", "nosuch", NO_VAL, "nowhere.out");
    printf("kill %d\n", slurm_kill_job((uint32_t) held, SIGKILL, 0));
    int again = slurm_kill_job((uint32_t) held, SIGKILL, 0);
    printf("kill again %d %d\n", again, slurm_get_errno());
    printf("ids %d %d\n", ran, held);
    return 0;
}
"##;

#[test]
fn jobs_are_submitted_and_cancelled_through_the_library_as_sbatch_and_scancel_do() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("submit", SUBMIT);
    let out = run_ok(on_cluster(&program, &lib, &c).current_dir(c.dir.path()));
    let stdout = text(&out.stdout);
    let ids = stdout
        .lines()
        .find_map(|l| l.strip_prefix("ids "))
        .expect("ids line");
    let (ran, held) = ids.split_once(' ').expect("two ids");
    let (ran, held): (u32, u32) = (ran.parse().expect("id"), held.parse().expect("id"));
    assert_eq!(
        stdout,
        format!(
            "submitted runs batch\nsubmitted held batch\n\
             refused 2000 Invalid partition name specified\n\
             kill 0\nkill again -1 2021\nids {ran} {held}\n"
        )
    );
    c.wait_state(ran, "COMPLETED");
    let written = std::fs::read_to_string(c.dir.path().join("runs.out")).expect("output");
    assert_eq!(written, "hello from libslurm runs\n");
    assert_eq!(c.state(held).as_deref(), Some("CANCELLED"));
}
