//! spur's libslurm.so.38 (spur-ffi) under C programs built against
//! Debian's `slurm/slurm.h`, found first by the dynamic loader, against a
//! running cluster.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::harness::{bin_dir, Cluster, Options};
use crate::text;

const HEADER: &str = "/usr/include/slurm/slurm.h";

/// A folder where the dynamic loader finds spur's library as
/// `libslurm.so.38` (and the linker as `libslurm.so`).
pub(crate) fn library_dir(inside: &Path) -> PathBuf {
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
pub(crate) fn header_installed() -> bool {
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
    assert!(
        out.status.success(),
        "{}\n{}{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// `source` compiled against slurm.h and linked with `-lslurm` from `lib`.
pub(crate) fn compile(dir: &Path, lib: &Path, name: &str, source: &str) -> PathBuf {
    compile_with(dir, lib, name, source, &[])
}

/// As [`compile`], with more compiler flags.
fn compile_with(dir: &Path, lib: &Path, name: &str, source: &str, flags: &[&str]) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    let program = dir.join(name);
    std::fs::write(&c, source).expect("source written");
    let built = Command::new("cc")
        .args(flags)
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
    assert_valgrind_clean(&mut on_cluster(&program, &lib, &c));
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
    if let Some(dir) = run.get_current_dir() {
        checked.current_dir(dir);
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
    assert_valgrind_clean(on_cluster(&program, &lib, &c).current_dir(c.dir.path()));
}

const RECORDS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

extern void slurm_xfree(void **);
extern char *slurm_node_state_string(uint32_t);

int main(int argc, char **argv) {
    job_info_msg_t *jobs = NULL;
    node_info_msg_t *nodes = NULL;
    partition_info_msg_t *parts = NULL;
    if (slurm_load_job(&jobs, (uint32_t) atoi(argv[1]), 0) || slurm_load_node(0, &nodes, SHOW_ALL)
        || slurm_load_partitions(0, &parts, SHOW_ALL)) {
        slurm_perror("load");
        return 1;
    }
    char *text = slurm_sprint_job_info(&jobs->job_array[0], 0);
    printf("%s", text);
    slurm_xfree((void **) &text);
    for (uint32_t i = 0; i < nodes->record_count; i++) {
        node_info_t *n = &nodes->node_array[i];
        uint16_t alloc = 0;
        slurm_get_select_nodeinfo(n->select_nodeinfo, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED, &alloc);
        fprintf(stderr, "node %s %s cpus %u alloc %u\n", n->name, slurm_node_state_string(n->node_state),
                n->cpus, alloc);
        text = slurm_sprint_node_table(n, 0);
        printf("%s", text);
        slurm_xfree((void **) &text);
    }
    for (uint32_t i = 0; i < parts->record_count; i++) {
        partition_info_t *p = &parts->partition_array[i];
        fprintf(stderr, "partition %s nodes %s total %u first index %d\n", p->name, p->nodes,
                p->total_nodes, p->node_inx[0]);
        slurm_print_partition_info(stdout, p, 0);
    }
    node_info_msg_t *one = NULL;
    int rc = slurm_load_node_single(&one, "nosuch", 0);
    fprintf(stderr, "single %d %s\n", rc, slurm_strerror(slurm_get_errno()));
    slurm_free_job_info_msg(jobs);
    slurm_free_node_info_msg(nodes);
    slurm_free_partition_info_msg(parts);
    return 0;
}
"#;

#[test]
fn records_print_as_scontrol_shows_them() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("records", RECORDS);
    let job = c.submit(&["-J", "busy", "-t", "5", "--wrap", "sleep 60"], "");
    c.wait_state(job, "RUNNING");
    let out = run_ok(on_cluster(&program, &lib, &c).arg(job.to_string()));
    let mut scontrol = String::new();
    for what in [
        &["show", "job", &job.to_string()][..],
        &["show", "node"],
        &["show", "partition"],
    ] {
        let shown = c.run("scontrol", what);
        assert!(shown.status.success(), "{}", text(&shown.stderr));
        scontrol.push_str(&text(&shown.stdout));
    }
    assert_eq!(text(&out.stdout), scontrol);
    let notes = text(&out.stderr);
    assert_eq!(
        notes,
        "node n01 MIXED cpus 8 alloc 1\n\
         partition batch nodes n01 total 1 first index 0\n\
         partition short nodes n01 total 1 first index 0\n\
         single -1 Invalid node name specified\n"
    );
    assert_valgrind_clean(on_cluster(&program, &lib, &c).arg(job.to_string()));
    c.run("scancel", &[&job.to_string()]);
}

/// Debian's Perl `Slurm` module (libslurm-perl), as site scripts use it.
const PERL_MODULE: &str = "/usr/lib/x86_64-linux-gnu/perl5/5.36/Slurm.pm";

const PERL: &str = r##"
use strict;
use warnings;
use Cwd;
use Slurm qw(:constant);

my $slurm = Slurm::new() or die "Slurm::new";
my $resp = $slurm->submit_batch_job({
    name => "from-perl",
    script => "#!/bin/sh\nsleep 60\n",
    environment => { PATH => "/usr/bin:/bin", FROM => "perl" },
    work_dir => getcwd(),
    std_out => "perl.out",
    min_nodes => 1,
    time_limit => 5,
    user_id => $<,
    group_id => $( + 0,
}) or die "submit: " . $slurm->strerror();
my $id = $resp->{job_id};
print "submitted $id\n";
# Until the job runs.
for (1 .. 100) {
    my $one = $slurm->load_job($id) or die "load_job";
    last if $slurm->job_state_string($one->{job_array}[0]{job_state}) eq "RUNNING";
    select(undef, undef, undef, 0.1);
}

my $jobs = $slurm->load_jobs() or die "load_jobs: " . $slurm->strerror();
for my $j (@{$jobs->{job_array}}) {
    printf "job %d %s %s %s %s %d\n", $j->{job_id}, $j->{name},
        $slurm->job_state_string($j->{job_state}), $j->{partition}, $j->{nodes}, $j->{num_cpus};
    print "JOB\n", $slurm->sprint_job_info($j);
}
my $nodes = $slurm->load_node() or die "load_node: " . $slurm->strerror();
for my $n (@{$nodes->{node_array}}) {
    printf "node %s %s %d %d\n", $n->{name}, $slurm->node_state_string($n->{node_state}),
        $n->{cpus}, $n->{alloc_cpus};
    print "NODE\n", $slurm->sprint_node_table($n);
}
my $parts = $slurm->load_partitions() or die "load_partitions: " . $slurm->strerror();
for my $p (@{$parts->{partition_array}}) {
    printf "partition %s %s %d %d\n", $p->{name}, $p->{nodes}, $p->{total_nodes}, $p->{max_time};
    print "PARTITION\n", $slurm->sprint_partition_info($p);
}
"##;

const PERL_CANCEL: &str = r##"
use Slurm qw(:constant);
my $slurm = Slurm::new();
$slurm->kill_job($ARGV[0], 9) == SLURM_SUCCESS or die "kill_job: " . $slurm->strerror();
print "cancelled $ARGV[0]\n";
defined $slurm->load_job(999999) and die "a job that is not there";
printf "missing %s\n", $slurm->strerror();
"##;

/// The lines of `text` that begin (after indentation) with one of `keys`.
fn lines_with(text: &str, keys: &[&str]) -> Vec<String> {
    text.lines()
        .filter(|l| keys.iter().any(|k| l.trim_start().starts_with(k)))
        .map(String::from)
        .collect()
}

#[test]
fn the_perl_slurm_module_submits_lists_and_cancels_on_spurs_library() {
    if !Path::new(PERL_MODULE).exists() {
        eprintln!("skipped: {PERL_MODULE} is not installed (libslurm-perl)");
        return;
    }
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let lib = library_dir(c.dir.path());
    let perl = |source: &str, args: &[&str]| {
        let script = c.dir.path().join("script.pl");
        std::fs::write(&script, source).expect("script written");
        let out = run_ok(
            Command::new("perl")
                .arg(&script)
                .args(args)
                .env("LD_LIBRARY_PATH", &lib)
                .env("SLURM_CONF", &c.conf)
                .current_dir(c.dir.path()),
        );
        text(&out.stdout)
    };
    let stdout = perl(PERL, &[]);
    let id: u32 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("submitted "))
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no job id in {stdout}"));
    let show = |what: &[&str]| text(&c.run("scontrol", what).stdout);
    let records = |name: &str| -> String {
        let marker = format!("{name}\n");
        stdout
            .split(marker.as_str())
            .skip(1)
            .map(|s| s.split_once("\n\n").map_or(s, |(record, _)| record))
            .map(|record| format!("{record}\n\n"))
            .collect()
    };
    // The values the module read are those scontrol shows.
    assert!(
        stdout.contains(&format!("job {id} from-perl RUNNING batch n01 1\n")),
        "{stdout}"
    );
    assert!(stdout.contains("node n01 MIXED 8 1\n"), "{stdout}");
    assert!(
        stdout.contains("partition batch n01 1 4294967295\n"),
        "{stdout}"
    );
    assert!(stdout.contains("partition short n01 1 1\n"), "{stdout}");
    // Its records print as scontrol prints them, in every field the
    // module's hashes carry (they carry no TRES, addresses or task counts,
    // with Slurm's library too).
    let job_keys = [
        "JobId=",
        "UserId=",
        "Priority=",
        "JobState=",
        "Requeue=",
        "SubmitTime=",
        "StartTime=",
        "Partition=",
        "NodeList=",
        "MinCPUsNode=",
        "WorkDir=",
        "StdOut=",
    ];
    let scontrol_job = show(&["show", "job", &id.to_string()]);
    assert_eq!(
        lines_with(&records("JOB"), &job_keys),
        lines_with(&scontrol_job, &job_keys)
    );
    let node_keys = [
        "NodeName=",
        "AvailableFeatures=",
        "ActiveFeatures=",
        "Gres=",
        "State=",
        "BootTime=",
    ];
    assert_eq!(
        lines_with(&records("NODE"), &node_keys),
        lines_with(&show(&["show", "node"]), &node_keys)
    );
    let partitions = show(&["show", "partition"]);
    let without_tres = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("TRES="))
            .map(String::from)
            .collect()
    };
    assert_eq!(
        without_tres(&records("PARTITION")),
        without_tres(&partitions)
    );

    assert_eq!(
        perl(PERL_CANCEL, &[&id.to_string()]),
        format!("cancelled {id}\nmissing Invalid job id specified\n")
    );
    c.wait_for(Duration::from_secs(20), "the job cancelled", |c| {
        c.state(id).as_deref().is_none_or(|s| s == "CANCELLED")
    });
}

/// slurm-wlm-torque's `qsub`, `qstat`, `qdel` and `pbsnodes`: Perl
/// scripts on the `Slurm` module (qsub runs the `sbatch` beside it, so it
/// is copied, unchanged, next to spur's commands, as an install puts it).
#[test]
fn torques_commands_run_unchanged_on_spurs_library() {
    let torque = Path::new("/usr/bin/qsub");
    if !torque.exists() || !Path::new(PERL_MODULE).exists() {
        eprintln!("skipped: slurm-wlm-torque or libslurm-perl is not installed");
        return;
    }
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let lib = library_dir(c.dir.path());
    let bin = c.dir.path().join("bin");
    std::fs::copy(torque, bin.join("qsub")).expect("qsub copied");
    let run = |cmd: &str, args: &[&str]| {
        let program = if cmd == "qsub" {
            bin.join(cmd)
        } else {
            Path::new("/usr/bin").join(cmd)
        };
        Command::new(program)
            .args(args)
            .env("LD_LIBRARY_PATH", &lib)
            .env("SLURM_CONF", &c.conf)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .current_dir(c.dir.path())
            .output()
            .expect("runs")
    };
    std::fs::write(c.dir.path().join("job.sh"), "#!/bin/sh\nsleep 60\n").expect("script");
    let out = run("qsub", &["-N", "fromq", "job.sh"]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let id: u32 = text(&out.stdout)
        .trim()
        .parse()
        .expect("qsub prints the job id");
    c.wait_state(id, "RUNNING");

    let out = run("qstat", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    let user = user_name();
    let row = listed
        .lines()
        .find(|l| l.starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("{listed}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[..2], [id.to_string().as_str(), "fromq"], "{row}");
    assert_eq!(cells[2], user, "{row}");
    assert_eq!(cells[4..], ["R", "batch"], "{row}");

    let out = run("pbsnodes", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let nodes = text(&out.stdout);
    for line in [
        "n01\n",
        "    np = 8\n",
        "    properties = nvl01\n",
        "    gpus = 4\n",
    ] {
        assert!(nodes.contains(line), "{line:?} in {nodes}");
    }

    let out = run("qdel", &[&id.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    c.wait_for(Duration::from_secs(20), "the job cancelled", |c| {
        c.state(id).as_deref().is_none_or(|s| s == "CANCELLED")
    });
    let out = run("qdel", &["999999"]);
    assert!(!out.status.success());
}

/// The name of the user running the tests.
fn user_name() -> String {
    let out = Command::new("id").arg("-un").output().expect("id runs");
    text(&out.stdout).trim().to_string()
}

const UPDATES: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

extern char *slurm_job_state_string(uint32_t);

/* The job's state and reason once `state` is reached (or after 10 s). */
static void await(uint32_t id, uint32_t state) {
    for (int i = 0; i < 200; i++) {
        job_info_msg_t *msg = NULL;
        if (slurm_load_job(&msg, id, 0) == SLURM_SUCCESS) {
            uint32_t now = msg->job_array[0].job_state & JOB_STATE_BASE;
            slurm_free_job_info_msg(msg);
            if (now == state)
                break;
        }
        usleep(50000);
    }
}

int main(int argc, char **argv) {
    uint32_t id = (uint32_t) atoi(argv[1]);
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.time_limit = 7;
    d.name = "renamed";
    d.comment = "changed from C";
    printf("update %d\n", slurm_update_job(&d));

    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.min_nodes = 2;
    int rc = slurm_update_job(&d);
    printf("nodes %d %s\n", rc, slurm_strerror(slurm_get_errno()));

    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.priority = INFINITE;
    printf("release %d\n", slurm_update_job(&d));
    await(id, JOB_RUNNING);
    printf("requeue %d\n", slurm_requeue(id, JOB_REQUEUE_HOLD));
    await(id, JOB_PENDING);

    update_node_msg_t u;
    slurm_init_update_node_msg(&u);
    u.node_names = "n01";
    u.node_state = NODE_STATE_DRAIN;
    u.reason = "drained from C";
    printf("drain %d\n", slurm_update_node(&u));
    u.node_state = NODE_STATE_FUTURE;
    rc = slurm_update_node(&u);
    printf("future %d %s\n", rc, slurm_strerror(slurm_get_errno()));
    slurm_init_update_node_msg(&u);
    u.node_names = "n99";
    u.node_state = NODE_RESUME;
    rc = slurm_update_node(&u);
    printf("unknown node %d %s\n", rc, slurm_strerror(slurm_get_errno()));
    return 0;
}
"#;

#[test]
fn jobs_and_nodes_change_through_the_library_as_scontrol_changes_them() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("updates", UPDATES);
    let job = c.submit(&["--hold", "-J", "first", "--wrap", "sleep 60"], "");
    let out = run_ok(on_cluster(&program, &lib, &c).arg(job.to_string()));
    assert_eq!(
        text(&out.stdout),
        "update 0\n\
         nodes -1 Requested operation not supported on this system\n\
         release 0\nrequeue 0\ndrain 0\n\
         future -1 Invalid node state specified\n\
         unknown node -1 Invalid node name specified\n"
    );
    let shown = text(&c.run("scontrol", &["show", "job", &job.to_string()]).stdout);
    for field in [
        "JobName=renamed",
        "TimeLimit=00:07:00",
        "Comment=changed from C",
        "JobState=PENDING",
        "Restarts=1",
    ] {
        assert!(shown.contains(field), "{field} in {shown}");
    }
    let held = text(
        &c.run("squeue", &["-h", "-j", &job.to_string(), "-o", "%r"])
            .stdout,
    );
    assert_eq!(held.trim(), "job requeued in held state");
    let node = text(&c.run("sinfo", &["-h", "-n", "n01", "-o", "%T %E"]).stdout);
    assert_eq!(node.trim(), "drained drained from C");
    // Again under valgrind (the changes are made again or refused).
    assert_valgrind_clean(on_cluster(&program, &lib, &c).arg(job.to_string()));
    c.run("scancel", &[&job.to_string()]);
}

const PYSLURM: &str = r#"
import sys
import pyslurm

print("version", pyslurm.version())
print("cluster", pyslurm.settings.LOCAL_CLUSTER)
conf = pyslurm.config()
# Keys and values come as bytes; a value Slurm leaves NULL as None.
for key, value in sorted(conf.key_pairs().items()):
    print("pair", key.decode(), "=", "(null)" if value is None else value.decode())
c = conf.get()
print("config", c["cluster_name"], c["slurmctld_port"], c["state_save_location"],
      c["select_type"], c["max_job_cnt"], c["kill_wait"], c["min_job_age"])
for jid, j in sorted(pyslurm.job().get().items()):
    print("job", jid, j["name"], j["job_state"], j["partition"], j["nodes"], j["num_cpus"],
          j["time_limit_str"], j["user_id"])
for name, n in sorted(pyslurm.node().get().items()):
    print("node", name, n["state"], n["cpus"], n["alloc_cpus"], n["real_memory"],
          ",".join(n["gres"]))
for name, p in sorted(pyslurm.partition().get().items()):
    print("partition", name, p["nodes"], p["total_nodes"], p["total_cpus"], p["state"])
for j in pyslurm.Jobs.load().values():
    print("Job", j.id, j.name, j.state, j.partition, j.cpus)
for n in pyslurm.Nodes.load().values():
    print("Node", n.name, n.state, n.total_cpus, n.allocated_cpus)
"#;

/// pyslurm 22.5.x, built from its source against Debian's headers
/// (`compat-tests/pyslurm/build`), named by SPUR_PYSLURM.
#[test]
fn pyslurm_imports_and_reads_jobs_nodes_and_config_as_scontrol_shows_them() {
    let Some(tree) = std::env::var_os("SPUR_PYSLURM").map(PathBuf::from) else {
        eprintln!(
            "skipped: SPUR_PYSLURM names no pyslurm 22.5.x tree (build one with \
             compat-tests/pyslurm/build)"
        );
        return;
    };
    let python = [tree.join(".venv/bin/python")]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("python3"));
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let lib = library_dir(c.dir.path());
    let job = c.submit(&["-J", "for-python", "-t", "9", "--wrap", "sleep 60"], "");
    c.wait_state(job, "RUNNING");
    let out = run_ok(
        Command::new(python)
            .args(["-c", PYSLURM])
            .env("LD_LIBRARY_PATH", &lib)
            .env("SLURM_CONF", &c.conf)
            .env("PYTHONPATH", &tree)
            .current_dir(c.dir.path()),
    );
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[..2], ["version 22.5.3", "cluster e2e"], "{stdout}");

    // Every key pair is scontrol's.
    let shown = text(&c.run("scontrol", &["show", "config"]).stdout);
    let mut expected: Vec<String> = shown
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| format!("pair {} = {v}", k.trim_end()))
        .collect();
    expected.sort();
    let pairs: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("pair "))
        .map(|l| l.to_string())
        .collect();
    assert_eq!(pairs, expected);
    let value = |key: &str| {
        shown
            .lines()
            .find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix("= "))
            .map(|v| v.trim_end_matches(" sec").to_string())
            .unwrap_or_default()
    };
    let config = format!(
        "config e2e {} {} select/cons_tres {} {} {}",
        value("SlurmctldPort"),
        value("StateSaveLocation"),
        value("MaxJobCount"),
        value("KillWait"),
        value("MinJobAge")
    );
    assert!(lines.contains(&config.as_str()), "{config} in {stdout}");

    let uid = unsafe { libc::getuid() };
    for line in [
        // pyslurm writes the limit with its own mins2time_str.
        format!("job {job} for-python RUNNING batch n01 1 0-00:09:00 {uid}"),
        "node n01 MIXED 8 1 16000 gpu:4".to_string(),
        "partition batch n01 1 8 UP".to_string(),
        "partition short n01 1 8 UP".to_string(),
        format!("Job {job} for-python RUNNING batch 1"),
        "Node n01 MIXED 8 1".to_string(),
    ] {
        assert!(lines.contains(&line.as_str()), "{line:?} in {stdout}");
    }
    // What scontrol shows of the same job and node.
    let job_text = text(&c.run("scontrol", &["show", "job", &job.to_string()]).stdout);
    assert!(job_text.contains("JobName=for-python"), "{job_text}");
    assert!(job_text.contains("TimeLimit=00:09:00"), "{job_text}");
    let node_text = text(&c.run("scontrol", &["show", "node", "n01"]).stdout);
    assert!(
        node_text.contains("CPUAlloc=1 CPUEfctv=8 CPUTot=8"),
        "{node_text}"
    );
    assert!(node_text.contains("State=MIXED"), "{node_text}");
    c.run("scancel", &[&job.to_string()]);
}

const CONFIG_AND_STEPS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

extern slurm_conf_t slurm_conf;
/* read_config.h's lookups, which libslurm exports. */
extern char *slurm_conf_get_hostname(const char *);
extern char *slurm_conf_get_nodeaddr(const char *);
extern char *slurm_conf_get_nodename(const char *);
extern uint16_t slurm_conf_get_port(const char *);
extern void slurm_xfree(void **);

int main(int argc, char **argv) {
    slurm_init(NULL);
    fprintf(stderr, "global %s %u %s\n", slurm_conf.cluster_name, slurm_conf.slurmctld_port,
            slurm_conf.select_type);
    char *host = slurm_conf_get_hostname("n01"), *addr = slurm_conf_get_nodeaddr("n01");
    char *name = slurm_conf_get_nodename("n01"), *none = slurm_conf_get_hostname("n99");
    fprintf(stderr, "node %s %s %s %u %s\n", host, addr, name, slurm_conf_get_port("n01"),
            none ? none : "NULL");
    slurm_xfree((void **) &host);
    slurm_xfree((void **) &addr);
    slurm_xfree((void **) &name);
    slurm_conf_t *conf = NULL;
    if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) {
        slurm_perror("slurm_load_ctl_conf");
        return 1;
    }
    slurm_print_ctl_conf(stdout, conf);
    fprintf(stderr, "loaded %s %u %s %u %u %u\n", conf->cluster_name, conf->slurmctld_port,
            conf->control_machine[0], conf->control_cnt, conf->kill_wait, conf->max_job_cnt);
    List pairs = slurm_ctl_conf_2_key_pairs(conf);
    fprintf(stderr, "pairs %s\n", slurm_list_count(pairs) > 150 ? "all" : "few");
    slurm_list_destroy(pairs);
    slurm_free_ctl_conf(conf);

    job_step_info_response_msg_t *steps = NULL;
    if (slurm_get_job_steps(0, (uint32_t) atoi(argv[1]), NO_VAL, &steps, 0) != SLURM_SUCCESS) {
        slurm_perror("slurm_get_job_steps");
        return 1;
    }
    for (uint32_t i = 0; i < steps->job_step_count; i++)
        slurm_print_job_step_info(stdout, &steps->job_steps[i], 0);
    slurm_free_job_step_info_response_msg(steps);
    slurm_fini();
    return 0;
}
"#;

#[test]
fn configuration_and_steps_print_as_scontrol_shows_them() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("config", CONFIG_AND_STEPS);
    let job = c.submit(&["-J", "steps", "--wrap", "srun sleep 60"], "");
    c.wait_for(Duration::from_secs(20), "the job's step", |c| {
        text(
            &c.run("squeue", &["-h", "-s", "-j", &job.to_string()])
                .stdout,
        )
        .contains(&format!("{job}.0"))
    });
    let out = run_ok(on_cluster(&program, &lib, &c).arg(job.to_string()));
    let config = text(&c.run("scontrol", &["show", "config"]).stdout);
    // scontrol prints the configuration, then a blank line and the ping
    // lines; "as of" is when each was asked.
    let (record, _) = config.split_once("\n\n").expect("a blank line");
    let steps = text(&c.run("scontrol", &["show", "step"]).stdout);
    let body = |t: &str| t.lines().skip(1).map(String::from).collect::<Vec<_>>();
    let stdout = text(&out.stdout);
    let (printed_config, printed_steps) = stdout
        .split_once("\nStepId=")
        .map(|(a, b)| (format!("{a}\n"), format!("StepId={b}")))
        .unwrap_or_else(|| panic!("no steps in {stdout}"));
    assert_eq!(body(&printed_config), body(&format!("{record}\n")));
    assert_eq!(printed_steps, steps);
    let port = config
        .lines()
        .find_map(|l| l.strip_prefix("SlurmctldPort"))
        .and_then(|l| l.split('=').nth(1))
        .map(str::trim)
        .expect("SlurmctldPort");
    let conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    let node_line = conf
        .lines()
        .find(|l| l.starts_with("NodeName=n01 "))
        .expect("n01's line");
    let field = |key: &str| {
        node_line
            .split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .expect("a field")
            .to_string()
    };
    let (addr, node_port) = (field("NodeAddr="), field("Port="));
    assert_eq!(
        text(&out.stderr),
        format!(
            "global e2e {port} select/cons_tres\nnode n01 {addr} n01 {node_port} NULL\n\
             loaded e2e {port} ctl 1 2 10000\npairs all\n"
        )
    );
    assert_valgrind_clean(on_cluster(&program, &lib, &c).arg(job.to_string()));
    c.run("scancel", &[&job.to_string()]);
}

const ALLOCATE: &str = r#"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static void pending(uint32_t job_id) { fprintf(stderr, "pending %u\n", job_id); }

static void describe(job_desc_msg_t *d, char *name) {
    slurm_init_job_desc_msg(d);
    d->name = name;
    d->min_nodes = 1;
    d->time_limit = 5;
    d->user_id = getuid();
    d->group_id = getgid();
}

int main(void) {
    job_desc_msg_t d;
    describe(&d, "granted");
    resource_allocation_response_msg_t *r = slurm_allocate_resources_blocking(&d, 20, pending);
    if (!r) {
        slurm_perror("blocking");
        return 1;
    }
    uint32_t id = r->job_id;
    printf("granted %s %u cpus %u x %u\n", r->node_list, r->node_cnt, r->cpus_per_node[0],
           r->cpu_count_reps[0]);
    slurm_free_resource_allocation_response_msg(r);
    r = NULL;
    printf("lookup %d", slurm_allocation_lookup(id, &r));
    printf(" %s\n", r->node_list);
    slurm_free_resource_allocation_response_msg(r);
    printf("complete %d\n", slurm_complete_job(id, 0));

    describe(&d, "never");
    d.priority = 0;
    r = slurm_allocate_resources_blocking(&d, 1, pending);
    printf("held %s %s\n", r ? "granted" : "NULL", errno == ETIMEDOUT ? "ETIMEDOUT" : "other");

    describe(&d, "at-once");
    r = NULL;
    printf("asked %d", slurm_allocate_resources(&d, &r));
    printf(" %s\n", r && r->job_id > id ? "with an id" : "without");
    printf("withdrawn %d\n", slurm_complete_job(r->job_id, 0));
    slurm_free_resource_allocation_response_msg(r);
    return 0;
}
"#;

#[test]
fn allocations_are_granted_looked_up_and_given_back_as_salloc_holds_them() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("allocate", ALLOCATE);
    let out = run_ok(&mut on_cluster(&program, &lib, &c));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout,
        "granted n01 1 cpus 1 x 1\nlookup 0 n01\ncomplete 0\nheld NULL ETIMEDOUT\n\
         asked 0 with an id\nwithdrawn 0\n"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.lines().filter(|l| l.starts_with("pending ")).count() == 1,
        "{stderr}"
    );
    let states = text(
        &c.run("sacct", &["-n", "-X", "-o", "JobName%12,State%12"])
            .stdout,
    );
    let states: Vec<String> = states
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    // The request answered at once is given back granted (COMPLETED) or
    // withdrawn before the scheduler's turn granted it (CANCELLED).
    assert_eq!(states[..2], ["granted COMPLETED", "never CANCELLED"]);
    assert!(
        ["at-once COMPLETED", "at-once CANCELLED"].contains(&states[2].as_str()),
        "{states:?}"
    );
    assert_valgrind_clean(&mut on_cluster(&program, &lib, &c));
}

const THREADS: &str = r#"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static uint32_t expected_jobs;

static void *work(void *arg) {
    long n = (long) arg;
    long bad = 0;
    for (int i = 0; i < 25; i++) {
        job_info_msg_t *jobs = NULL;
        node_info_msg_t *nodes = NULL;
        if (slurm_load_jobs(0, &jobs, 0) || jobs->record_count != expected_jobs)
            bad++;
        slurm_free_job_info_msg(jobs);
        if (slurm_load_node(0, &nodes, 0) || nodes->record_count != 1)
            bad++;
        slurm_free_node_info_msg(nodes);
        /* Each thread its own errno. */
        slurm_seterrno(ESLURM_INVALID_JOB_ID + (int) n);
        hostlist_t hl = slurm_hostlist_create("t[1-100]");
        if (slurm_hostlist_count(hl) != 100)
            bad++;
        slurm_hostlist_destroy(hl);
        if (slurm_get_errno() != ESLURM_INVALID_JOB_ID + (int) n)
            bad++;
        if (strcmp(slurm_strerror(ESLURM_INVALID_JOB_ID), "Invalid job id specified"))
            bad++;
    }
    return (void *) bad;
}

int main(int argc, char **argv) {
    expected_jobs = (uint32_t) atoi(argv[1]);
    pthread_t t[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, work, (void *) i);
    long bad = 0;
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (long) r;
    }
    printf("8 threads, %ld wrong answers\n", bad);
    return bad != 0;
}
"#;

#[test]
fn calls_from_several_threads_at_once_are_answered_right() {
    if !header_installed() {
        return;
    }
    let c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let lib = library_dir(c.dir.path());
    let program = compile_with(c.dir.path(), &lib, "threads", THREADS, &["-pthread"]);
    for _ in 0..3 {
        c.submit(&["--hold", "--wrap", "true"], "");
    }
    let out = run_ok(on_cluster(&program, &lib, &c).arg("3"));
    assert_eq!(text(&out.stdout), "8 threads, 0 wrong answers\n");
    assert_valgrind_clean(on_cluster(&program, &lib, &c).arg("3"));
}

const STEP_SIGNALS: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv) {
    uint32_t id = (uint32_t) atoi(argv[1]);
    int rc = slurm_kill_job_step(id, 7, SIGKILL);
    printf("no such step %d %s\n", rc, slurm_strerror(slurm_get_errno()));
    printf("usr1 %d\n", slurm_signal_job_step(id, 0, SIGUSR1));
    fflush(stdout);
    /* The step's shell runs its trap before it is ended. */
    usleep(500000);
    printf("terminate %d\n", slurm_terminate_job_step(id, 0));
    return 0;
}
"#;

#[test]
fn one_step_is_signalled_and_ended_while_its_job_goes_on() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("steps", STEP_SIGNALS);
    // The step reports SIGUSR1 and keeps going; SIGKILL ends it, and the
    // script goes on after it.
    let script = "#!/bin/sh\n\
                  srun sh -c 'trap \"echo got usr1\" USR1; sleep 60 & wait; sleep 60 & wait'\n\
                  echo \"step ended: $?\"\n";
    let job = c.submit(&["-o", "steps.out"], script);
    c.wait_for(Duration::from_secs(20), "the job's step", |c| {
        text(
            &c.run("squeue", &["-h", "-s", "-j", &job.to_string()])
                .stdout,
        )
        .contains(&format!("{job}.0"))
    });
    // The step's tasks are in place before the signal.
    std::thread::sleep(Duration::from_millis(300));
    let out = run_ok(on_cluster(&program, &lib, &c).arg(job.to_string()));
    assert_eq!(
        text(&out.stdout),
        "no such step -1 Invalid job id specified\nusr1 0\nterminate 0\n"
    );
    c.wait_state_within(job, "COMPLETED", Duration::from_secs(30));
    let output = std::fs::read_to_string(c.dir.path().join("steps.out")).expect("output");
    assert!(output.contains("got usr1"), "{output}");
    assert!(output.contains("step ended: "), "{output}");
    // Again under valgrind, with the step gone.
    assert_valgrind_clean(on_cluster(&program, &lib, &c).arg(job.to_string()));
}

const ASK: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

int main(int argc, char **argv) {
    uint32_t array = (uint32_t) atoi(argv[1]);
    char name[32];
    snprintf(name, sizeof name, "%u_2", array);
    uint32_t task = slurm_xlate_job_id(name);
    snprintf(name, sizeof name, "%u", array);
    printf("xlate %s %s %u\n", task ? "task" : "none",
           slurm_xlate_job_id(name) == array ? "same" : "other", slurm_xlate_job_id("x1"));
    time_t end = 0;
    int rc = slurm_get_end_time(task, &end);
    long left = slurm_get_rem_time(task);
    printf("end %d %s %s\n", rc, end > time(NULL) ? "later" : "past",
           left > 200 && left <= 300 ? "about 5 min left" : "other");
    printf("ready %d %d\n", slurm_job_node_ready(task), slurm_job_node_ready(999999));
    job_info_msg_t *jobs = NULL;
    slurm_load_job(&jobs, task, 0);
    char out[4096];
    slurm_get_job_stdout(out, sizeof out, &jobs->job_array[0]);
    printf("stdout %s\n", strrchr(out, '/') + 1);
    slurm_get_job_stdin(out, sizeof out, &jobs->job_array[0]);
    printf("stdin %s\n", out);
    slurm_free_job_info_msg(jobs);

    node_info_msg_t *nodes = NULL;
    partition_info_msg_t *parts = NULL;
    slurm_load_node2(0, &nodes, 0, NULL);
    slurm_load_partitions2(0, &parts, 0, NULL);
    free(nodes->node_array[0].partitions);
    nodes->node_array[0].partitions = NULL;
    slurm_populate_node_partitions(nodes, parts);
    printf("partitions %s\n", nodes->node_array[0].partitions);
    slurm_free_node_info_msg(nodes);
    slurm_free_partition_info_msg(parts);
    slurmdb_cluster_rec_t other = {0};
    other.name = "other";
    parts = NULL;
    rc = slurm_load_partitions2(0, &parts, 0, &other);
    printf("other cluster %d %s %s\n", rc, slurm_strerror(slurm_get_errno()), parts ? "set" : "NULL");

    snprintf(name, sizeof name, "%u_2", array);
    rc = slurm_kill_job2(name, SIGKILL, 0, "other");
    printf("sibling %d %s\n", rc, slurm_strerror(slurm_get_errno()));
    printf("kill2 %d\n", slurm_kill_job2(name, SIGKILL, 0, NULL));
    printf("reconfigure %d\n", slurm_reconfigure());
    return 0;
}
"#;

#[test]
fn questions_about_one_job_are_answered_as_slurms_library_answers_them() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("ask", ASK);
    let array = c.submit(
        &[
            "--array=1-2",
            "-t",
            "5",
            "-o",
            "ask-%A_%a.out",
            "--wrap",
            "sleep 60",
        ],
        "",
    );
    c.wait_for(Duration::from_secs(20), "both tasks running", |c| {
        text(&c.run("squeue", &["-h", "-t", "R", "-o", "%i"]).stdout)
            .lines()
            .count()
            == 2
    });
    let out = run_ok(on_cluster(&program, &lib, &c).arg(array.to_string()));
    assert_eq!(
        text(&out.stdout),
        format!(
            "xlate task same 0\nend 0 later about 5 min left\nready 7 -2\n\
             stdout ask-{array}_2.out\nstdin /dev/null\npartitions batch,short\n\
             other cluster -1 Invalid cluster name NULL\n\
             sibling -1 Requested operation not supported on this system\n\
             kill2 0\nreconfigure 0\n"
        )
    );
    c.wait_for(Duration::from_secs(20), "task 2 cancelled", |c| {
        text(&c.run("squeue", &["-h", "-o", "%i"]).stdout).trim() == format!("{array}_1")
    });
    assert_valgrind_clean(on_cluster(&program, &lib, &c).arg(array.to_string()));
}

const STATISTICS: &str = r#"
#include <stdio.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static int show(const char *when) {
    stats_info_request_msg_t req = {.command_id = STAT_COMMAND_GET};
    stats_info_response_msg_t *buf = NULL;
    if (slurm_get_statistics(&buf, &req) != SLURM_SUCCESS) {
        slurm_perror("slurm_get_statistics");
        return 1;
    }
    printf("%s submitted %u started %u pending %u running %u backfilled %u\n", when,
           buf->jobs_submitted, buf->jobs_started, buf->jobs_pending, buf->jobs_running,
           buf->bf_backfilled_jobs);
    printf("%s cycles %s since %s\n", when, buf->schedule_cycle_counter > 0 ? "some" : "none",
           buf->req_time_start <= buf->req_time ? "before" : "after");
    for (uint32_t i = 0; i < buf->rpc_type_size; i++)
        if (buf->rpc_type_id[i] == 4003)
            printf("%s submissions %u\n", when, buf->rpc_type_cnt[i]);
    for (uint32_t i = 0; i < buf->rpc_user_size; i++)
        if (buf->rpc_user_id[i] == 0)
            printf("%s root %s\n", when, buf->rpc_user_cnt[i] > 0 ? "counted" : "none");
    slurm_free_stats_response_msg(buf);
    return 0;
}

int main(void) {
    slurm_init(NULL);
    if (show("before"))
        return 1;
    stats_info_request_msg_t req = {.command_id = STAT_COMMAND_RESET};
    if (slurm_reset_statistics(&req) != SLURM_SUCCESS) {
        printf("reset refused %s\n", slurm_strerror(slurm_get_errno()));
        return 0;
    }
    int rc = show("after");
    slurm_fini();
    return rc;
}
"#;

#[test]
fn statistics_read_and_reset_through_the_library_as_sdiag_does() {
    if !header_installed() {
        return;
    }
    let (c, lib, program) = on_one_node("statistics", STATISTICS);
    let job = c.submit(&["-t", "5"], "#!/bin/sh\nsleep 60\n");
    c.wait_state(job, "RUNNING");
    c.submit(&["--hold"], "#!/bin/sh\ntrue\n");
    let out = run_ok(&mut on_cluster(&program, &lib, &c));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout,
        "before submitted 2 started 1 pending 1 running 1 backfilled 0\n\
         before cycles some since before\n\
         before submissions 2\n\
         before root counted\n\
         after submitted 0 started 0 pending 1 running 1 backfilled 0\n\
         after cycles none since before\n\
         after root counted\n",
        "{}",
        text(&out.stderr)
    );
    // What sdiag prints of the same counters.
    let report = text(&c.run("sdiag", &[]).stdout);
    assert!(report.contains("\nJobs running:   1\n"), "{report}");
    // A user who is no operator may read them, not reset them.
    let mut as_nobody = on_cluster(&program, &lib, &c);
    std::os::unix::process::CommandExt::uid(&mut as_nobody, 65534);
    std::os::unix::process::CommandExt::gid(&mut as_nobody, 65534);
    let out = run_ok(as_nobody.current_dir("/"));
    let stdout = text(&out.stdout);
    assert!(
        stdout.ends_with("reset refused Access/permission denied\n"),
        "{stdout}"
    );
    // Nothing the library handed out is lost once freed.
    assert_valgrind_clean(&mut on_cluster(&program, &lib, &c));
    c.run("scancel", &[&job.to_string()]);
}
