//! Bad input, from a user or from anything that can reach a socket: each
//! is refused with Slurm's error (or runs, where Slurm runs it), files
//! are opened as the job's user without following another user's
//! symlinks, and the daemons stay up with their memory bounded.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use crate::harness::{Cluster, Options};
use crate::http::request;
use crate::text;

const NOBODY: u32 = 65534;
/// A second unprivileged user (Debian's `daemon`), who plants links.
const DAEMON: u32 = 1;

/// A memory figure of process `pid` from its status file, in KiB.
fn memory_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a memory figure")
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    memory_kib(pid, "VmRSS:")
}

/// sbatch as `nobody`, in `dir`, with the script on stdin.
fn sbatch_as_nobody(c: &Cluster, dir: &Path, args: &[&str], script: &str) -> Output {
    let mut child = c
        .command("sbatch", args)
        .uid(NOBODY)
        .gid(NOBODY)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sbatch runs");
    let mut stdin = child.stdin.take().expect("piped");
    stdin.write_all(script.as_bytes()).expect("writes");
    drop(stdin);
    child.wait_with_output().expect("sbatch ends")
}

fn job_id(out: &Output) -> u32 {
    assert!(out.status.success(), "sbatch: {}", text(&out.stderr));
    text(&out.stdout)
        .trim()
        .parse()
        .expect("--parsable prints the id")
}

/// A job's final state and exit code, from sacct.
fn ended(c: &Cluster, job: u32) -> String {
    let id = job.to_string();
    c.wait_for(Duration::from_secs(30), &format!("job {id} to end"), |c| {
        c.state(job)
            .is_some_and(|s| !matches!(s.as_str(), "PENDING" | "RUNNING" | "COMPLETING"))
    });
    let out = c.run(
        "sacct",
        &["-n", "-X", "-P", "-j", &id, "-o", "State,ExitCode"],
    );
    text(&out.stdout).trim().to_string()
}

fn make_dir(path: &Path, owner: u32, mode: u32) {
    std::fs::create_dir_all(path).expect("mkdir");
    std::os::unix::fs::chown(path, Some(owner), Some(owner)).expect("chown");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn output_files_are_opened_as_the_jobs_user_and_never_through_anothers_symlink() {
    let c = Cluster::start(Options::default());
    let base = c.dir.path();
    let home = base.join("home-nobody");
    make_dir(&home, NOBODY, 0o755);
    let precious = home.join("precious");
    std::fs::write(&precious, "keep\n").expect("writes");
    std::os::unix::fs::chown(&precious, Some(NOBODY), Some(NOBODY)).expect("chown");
    // A folder both users may write in, without the sticky bit that would
    // bring the kernel's own symlink protection into play.
    let shared = base.join("shared");
    make_dir(&shared, 0, 0o777);
    let planted = shared.join("out.log");
    std::os::unix::fs::symlink(&precious, &planted).expect("symlink");
    std::os::unix::fs::lchown(&planted, Some(DAEMON), Some(DAEMON)).expect("lchown");
    let script = "#!/bin/sh\necho overwritten\n";
    let p = |s: &Path| s.to_str().expect("utf-8").to_string();

    // Another user's link: refused, the target untouched.
    let out = sbatch_as_nobody(&c, &home, &["--parsable", "-o", &p(&planted)], script);
    let job = job_id(&out);
    assert!(ended(&c, job).starts_with("FAILED|"));
    assert_eq!(std::fs::read_to_string(&precious).expect("reads"), "keep\n");
    let log = std::fs::read_to_string(base.join("agent-n01.log")).expect("agent log");
    assert!(
        log.contains("refusing to follow a symbolic link owned by uid 1, not the job's user"),
        "the agent says why\n{log}"
    );

    // The user's own link is followed, as Slurm follows it.
    let own = home.join("mine.log");
    let target = home.join("target.log");
    std::os::unix::fs::symlink(&target, &own).expect("symlink");
    std::os::unix::fs::lchown(&own, Some(NOBODY), Some(NOBODY)).expect("lchown");
    let job = job_id(&sbatch_as_nobody(
        &c,
        &home,
        &["--parsable", "-o", &p(&own)],
        "#!/bin/sh\necho through my link\n",
    ));
    assert_eq!(ended(&c, job), "COMPLETED|0:0");
    assert_eq!(
        std::fs::read_to_string(&target).expect("written through the link"),
        "through my link\n"
    );

    // Patterns and `..` that reach system folders, a working folder and an
    // input file the user may not use: each fails the job as the user
    // would fail, and nothing appears where root could have written.
    let etc_out = format!("{}/../../../../../../etc/spur-bad-input-%j.out", p(&home));
    for args in [
        vec!["-o", etc_out.as_str()],
        vec!["-e", "/etc/spur-bad-input-%j-%x.err"],
        vec!["-D", "/root"],
        vec!["-i", "/etc/shadow"],
    ] {
        let mut all = vec!["--parsable"];
        all.extend(args.iter().copied());
        let job = job_id(&sbatch_as_nobody(&c, &home, &all, script));
        let end = ended(&c, job);
        assert!(end.starts_with("FAILED|"), "{args:?}: {end}");
        let leaked = std::fs::read_dir("/etc")
            .expect("lists /etc")
            .flatten()
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("spur-bad-input-")
            });
        assert!(!leaked, "{args:?} wrote into /etc");
    }
    let shadow = std::fs::metadata("/etc/shadow").expect("stat");
    assert_ne!(shadow.len(), 0);
}

/// `out` is a refusal that says `why`.
#[track_caller]
fn refused(out: &Output, why: &str) {
    assert!(!out.status.success(), "accepted: {}", text(&out.stdout));
    assert!(text(&out.stderr).contains(why), "{}", text(&out.stderr));
}

#[test]
fn scripts_environments_names_and_times_out_of_bounds_are_refused_and_the_daemons_stay_up() {
    let mut c = Cluster::start(Options {
        jwt: true,
        ..Options::default()
    });
    let pid = c.controller_pid().expect("controller runs");
    let before = rss_kib(pid);
    let sbatch = |args: &[&str], script: &str| c.run_with_input("sbatch", args, script);

    // Scripts sbatch refuses with Slurm's words.
    refused(
        &sbatch(&[], "#!/bin/sh\necho a\0b\n"),
        "contain a NULL character '\\0'.",
    );
    refused(
        &sbatch(&[], "#!/bin/sh\r\necho a\r\n"),
        "Batch script contains DOS line breaks (\\r\\n)",
    );
    refused(
        &sbatch(&[], "echo no interpreter\n"),
        "line must start with #! followed by the path to an interpreter.",
    );

    // 100 MB: the controller refuses what slurmctld's max_script_size
    // refuses, three times, and its memory does not grow with each.
    let huge = format!("#!/bin/sh\n{}\ntrue\n", "#".repeat(100 << 20));
    let too_long = "Pathname of a file, directory or other parameter too long";
    refused(&sbatch(&[], &huge), too_long);
    let after_one = rss_kib(pid);
    refused(&sbatch(&[], &huge), too_long);
    refused(&sbatch(&[], &huge), too_long);
    let after_three = rss_kib(pid);
    assert!(
        after_three < after_one + 64 * 1024,
        "controller RSS {after_one} KiB after one 100 MB script, {after_three} KiB after three"
    );
    drop(huge);

    // 100,000 #SBATCH lines: read, the last of each option wins, and the
    // job runs.
    let mut many = String::from("#!/bin/sh\n");
    for i in 0..100_000 {
        many.push_str(&format!("#SBATCH --comment=c{i}\n"));
    }
    many.push_str("true\n");
    let job = c.submit(&[], &many);
    assert_eq!(ended(&c, job), "COMPLETED|0:0");
    let shown = text(&c.run("scontrol", &["show", "job", &job.to_string()]).stdout);
    assert!(shown.contains("Comment=c99999"), "{shown}");

    // 10,000 variables and a 100 KiB value reach the job.
    let out_file = c.dir.path().join("env.out");
    let mut cmd = c.command(
        "sbatch",
        &["--parsable", "-o", out_file.to_str().expect("utf-8")],
    );
    for i in 0..10_000 {
        cmd.env(format!("SPUR_V{i}"), format!("value{i}"));
    }
    cmd.env("SPUR_BIG", "x".repeat(100 << 10));
    let out = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .expect("piped")
                .write_all(b"#!/bin/sh\necho \"$SPUR_V9999 ${#SPUR_BIG}\"\n")?;
            child.wait_with_output()
        })
        .expect("sbatch runs");
    let job = job_id(&out);
    assert_eq!(ended(&c, job), "COMPLETED|0:0");
    assert_eq!(
        std::fs::read_to_string(&out_file).expect("output"),
        "value9999 102400\n"
    );

    // Names and comments of megabytes (in directives: an argument cannot
    // be that long), through sbatch and REST.
    let mb = "n".repeat(2 << 20);
    refused(
        &sbatch(&[], &format!("#!/bin/sh\n#SBATCH -J {mb}\ntrue\n")),
        too_long,
    );
    refused(
        &sbatch(&[], &format!("#!/bin/sh\n#SBATCH --comment={mb}\ntrue\n")),
        too_long,
    );

    // Hostlist bombs and times that overflow.
    for list in ["n[0-99999999]", "n[0-9999],m[0-9999],k[0-99999]"] {
        refused(
            &sbatch(&["-w", list], "#!/bin/sh\ntrue\n"),
            "Invalid node list specified",
        );
    }
    let hostnames = c.run("scontrol", &["show", "hostnames", "n[0-99999999]"]);
    assert!(
        text(&hostnames.stderr).contains("Invalid hostlist: n[0-99999999]"),
        "{}",
        text(&hostnames.stderr)
    );
    for t in ["99999999999999999999", "9999999999-00:00:00", "4294967294"] {
        refused(
            &sbatch(&["-t", t], "#!/bin/sh\ntrue\n"),
            "Invalid --time specification",
        );
    }
    refused(
        &sbatch(
            &["--begin", "now+99999999999999999999"],
            "#!/bin/sh\ntrue\n",
        ),
        "Invalid --begin specification",
    );

    // The same through REST, where no sbatch stands in front.
    let t = c.start_rest(&[]);
    let token = c.token(&[]);
    let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
    let submit = |job: serde_json::Value| {
        let body = serde_json::json!({ "job": job }).to_string();
        request(&t, "POST", "/slurm/v0.0.44/job/submit", &auth, Some(&body))
    };
    let base = || {
        serde_json::json!({
            "script": "#!/bin/sh\ntrue\n",
            "current_working_directory": "/tmp",
            "environment": ["PATH=/bin"],
        })
    };
    let mut cases: Vec<(serde_json::Value, &str)> = Vec::new();
    let mut v = base();
    v["script"] = "#!/bin/sh\necho a\u{0}b\n".into();
    cases.push((v, "Batch script is invalid"));
    let mut v = base();
    v["script"] = "echo no interpreter\n".into();
    cases.push((v, "Batch script is invalid"));
    let mut v = base();
    v["name"] = mb.as_str().into();
    cases.push((v, too_long));
    let mut v = base();
    v["comment"] = mb.as_str().into();
    cases.push((v, too_long));
    let mut v = base();
    v["required_nodes"] = serde_json::json!(["n[0-99999999]"]);
    cases.push((v, "node"));
    let mut v = base();
    v["time_limit"] = serde_json::json!({ "set": true, "number": 99_999_999_999u64 });
    cases.push((v, "is too large"));
    for (job, why) in cases {
        let shown = job.to_string();
        let shown = &shown[..shown.len().min(120)];
        let a = submit(job);
        assert_ne!(a.status, 200, "{shown}: {}", a.body);
        assert!(
            a.body.to_lowercase().contains(&why.to_lowercase()),
            "{shown}: {}",
            a.body
        );
    }

    // Frames of absurd length, and garbage, on both of the controller's
    // sockets: each connection is dropped, nothing else happens.
    let conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    let field = |key: &str| {
        conf.lines()
            .find_map(|l| l.strip_prefix(key))
            .expect("in slurm.conf")
            .to_string()
    };
    let host = field("SlurmctldHost=");
    let ip = &host[host.find('(').expect("(") + 1..host.len() - 1];
    let addr = format!("{ip}:{}", field("SlurmctldPort="));
    let socket = c.dir.path().join("state/spur.sock");
    let frames: [&[u8]; 4] = [
        &[0xff, 0xff, 0xff, 0xff],
        &[0x0f, 0xff, 0xff, 0xff, 1, 2, 3],
        &[0, 0, 0, 8, 0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef],
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    ];
    // And on node n01's agent, where srun launches tasks.
    let node = conf
        .lines()
        .find(|l| l.starts_with("NodeName=n01 "))
        .expect("n01");
    let word = |key: &str| {
        node.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .expect("in n01's line")
    };
    let agent = format!("{}:{}", word("NodeAddr="), word("Port="));
    for _ in 0..50 {
        for frame in frames {
            let mut sink = Vec::new();
            for to in [&addr, &agent] {
                let mut tcp = std::net::TcpStream::connect(to).expect("connects");
                tcp.write_all(frame).expect("writes");
                let _ = tcp.shutdown(std::net::Shutdown::Write);
                let _ = tcp.read_to_end(&mut sink);
            }
            let mut unix = std::os::unix::net::UnixStream::connect(&socket).expect("connects");
            unix.write_all(frame).expect("writes");
            let _ = unix.shutdown(std::net::Shutdown::Write);
            let _ = unix.read_to_end(&mut sink);
        }
    }
    // Many connections that announce 256 MB and send nothing hold no
    // memory for it, not even address space.
    let quiet = rss_kib(pid);
    let quiet_space = memory_kib(pid, "VmSize:");
    let held: Vec<std::net::TcpStream> = (0..200)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(&addr).expect("connects");
            s.write_all(&[0x10, 0, 0, 0]).expect("writes");
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let holding = rss_kib(pid);
    let holding_space = memory_kib(pid, "VmSize:");
    drop(held);

    // Still up, still right, memory bounded.
    assert!(
        c.controller_pid() == Some(pid) && Path::new(&format!("/proc/{pid}")).exists(),
        "the controller died"
    );
    let job = c.submit(&[], "#!/bin/sh\ntrue\n");
    assert_eq!(ended(&c, job), "COMPLETED|0:0");
    let step = c.run("srun", &["-w", "n01", "echo", "still here"]);
    assert_eq!(text(&step.stdout), "still here\n", "{}", text(&step.stderr));
    assert!(
        holding < quiet + 16 * 1024,
        "200 announced 256 MB frames took {} KiB",
        holding.saturating_sub(quiet)
    );
    assert!(
        holding_space < quiet_space + 256 * 1024,
        "200 announced 256 MB frames reserved {} KiB",
        holding_space.saturating_sub(quiet_space)
    );
    let end = rss_kib(pid);
    assert!(
        end < before + 512 * 1024,
        "controller RSS went from {before} KiB to {end} KiB"
    );
    c.kill_controller();
}
