//! The cluster map (`/ui` on the REST server) in headless Chromium against
//! a running dev cluster of two NVLink domains: signed in with a token, it
//! shows each running job's GPUs in the domain its nodes are in, the
//! stranded GPUs, and the queue with each waiting job's reason; a
//! screenshot goes to the test's output folder.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Debian's chromium, if installed.
fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// Chromium's headless run of `url` with `args`, given time for the page's
/// requests.
fn headless(chromium: &Path, profile: &Path, args: &[&str], url: &str) -> std::process::Output {
    Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs")
}

/// The value of attribute `name` in tag text `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

/// Every opening tag of the DOM whose text starts with `start`.
fn tags<'a>(dom: &'a str, start: &str) -> Vec<&'a str> {
    dom.match_indices(start)
        .filter_map(|(i, _)| dom[i..].split_once('>').map(|(t, _)| t))
        .collect()
}

#[test]
fn the_map_shows_jobs_in_their_domains_stranded_gpus_and_the_queue() {
    let Some(chromium) = chromium() else {
        eprintln!("chromium is not installed (Debian's chromium): the map test skips");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("cluster");
    let (_dev, banner) = crate::dev::start(&folder, 36);
    let export = |name: &str| -> String {
        banner
            .iter()
            .find_map(|l| l.trim().strip_prefix(&format!("export {name}=")))
            .expect("an export line")
            .replace(&format!(":${name}"), "")
    };
    let map = banner
        .iter()
        .find_map(|l| l.strip_prefix("Cluster map at "))
        .and_then(|l| l.split_whitespace().next())
        .expect("spurd dev prints where the map is")
        .to_string();
    let (path, conf) = (export("PATH"), export("SLURM_CONF"));
    let run = |cmd: &str, args: &[&str]| -> String {
        let out = Command::new(cmd)
            .args(args)
            .env("PATH", format!("{path}:/usr/bin:/bin"))
            .env("SLURM_CONF", &conf)
            .current_dir(dir.path())
            .output()
            .expect("runs");
        assert!(out.status.success(), "{cmd} {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // A whole domain, two nodes of the other, and a job of a domain's size
    // that can only wait: the other domain's free GPUs are stranded.
    // The whole domain's job has a limit, so the waiting one has a
    // planned start: when that limit is up.
    let whole = run(
        "sbatch",
        &[
            "--parsable",
            "-N18",
            "--gres=gpu:4",
            "-t",
            "30",
            "--wrap",
            "sleep 600",
        ],
    );
    let pair = run(
        "sbatch",
        &["--parsable", "-N2", "--gres=gpu:3", "--wrap", "sleep 600"],
    );
    let waiting = run(
        "sbatch",
        &["--parsable", "-N18", "--gres=gpu:4", "--wrap", "sleep 600"],
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let states = run(
            "squeue",
            &[
                "-h",
                "-o",
                "%i %T %r",
                "-j",
                &format!("{whole},{pair},{waiting}"),
            ],
        );
        let running = states.lines().filter(|l| l.contains(" RUNNING ")).count();
        if running == 2 && states.contains(&format!("{waiting} PENDING Resources")) {
            break;
        }
        assert!(Instant::now() < deadline, "jobs not placed: {states}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let domain_of = |job: &str| -> String {
        let nodes = run("squeue", &["-h", "-o", "%N", "-j", job]);
        let first: u32 = nodes
            .trim_start_matches("gb")
            .trim_start_matches('[')
            .get(..3)
            .and_then(|n| n.parse().ok())
            .expect("a gbNNN node");
        if first <= 18 { "nvl01" } else { "nvl02" }.to_string()
    };
    let (whole_domain, pair_domain) = (domain_of(&whole), domain_of(&pair));
    assert_ne!(whole_domain, pair_domain);
    // A drained node of the pair's domain that the pair does not hold:
    // marked, and its GPUs no longer idle there.
    let pair_nodes = run("squeue", &["-h", "-o", "%N", "-j", &pair]);
    let pair_nodes = run("scontrol", &["show", "hostnames", &pair_nodes]);
    let first = if pair_domain == "nvl01" { 1 } else { 19 };
    let drained = (first..first + 18)
        .map(|n| format!("gb{n:03}"))
        .find(|node| !pair_nodes.lines().any(|held| held == node))
        .expect("a node of the pair's domain that the pair does not hold");
    let drained = drained.as_str();
    run(
        "scontrol",
        &[
            "update",
            &format!("NodeName={drained}"),
            "State=DRAIN",
            "Reason=maintenance",
        ],
    );
    let token = run("scontrol", &["token"]);
    let token = token.strip_prefix("SLURM_JWT=").expect("SLURM_JWT=...");
    let url = format!("{map}#token={token}&job={whole}");

    let profile = dir.path().join("chromium");
    let out = headless(&chromium, &profile, &["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("data-domain=\"nvl01\"") && dom.contains("data-domain=\"nvl02\""),
        "{dom}"
    );
    assert!(dom.contains("signed in as root"), "{dom}");
    let gpus: Vec<&str> = tags(&dom, "<div class=\"gpu")
        .into_iter()
        .filter(|t| t.contains(" data-gpu="))
        .collect();
    assert_eq!(gpus.len(), 36 * 4, "every GPU drawn: {dom}");
    let held_by = |job: &str| -> Vec<&str> {
        gpus.iter()
            .copied()
            .filter(|g| attr(g, "data-job") == Some(job))
            .collect()
    };
    let whole_gpus = held_by(&whole);
    assert_eq!(whole_gpus.len(), 72, "{dom}");
    assert!(whole_gpus
        .iter()
        .all(|g| attr(g, "data-domain") == Some(whole_domain.as_str())));
    let pair_gpus = held_by(&pair);
    assert_eq!(pair_gpus.len(), 6, "{dom}");
    assert!(pair_gpus
        .iter()
        .all(|g| attr(g, "data-domain") == Some(pair_domain.as_str())));
    // The job that waits cannot take part in the pair's domain: its idle
    // GPUs there are stranded (15 open nodes' 4 and the pair's nodes' 1
    // each; the drained node takes no work).
    let stranded: Vec<&str> = gpus
        .iter()
        .copied()
        .filter(|g| g.contains("gpu stranded"))
        .collect();
    assert_eq!(stranded.len(), 62, "{dom}");
    assert!(stranded
        .iter()
        .all(|g| attr(g, "data-domain") == Some(pair_domain.as_str())));
    assert!(dom.contains("62 stranded"), "{dom}");
    let node = tags(&dom, "<div class=\"node")
        .into_iter()
        .find(|t| attr(t, "data-node") == Some(drained))
        .expect("the drained node is drawn");
    assert!(node.starts_with("<div class=\"node drain\""), "{node}");
    // Live: within the 15 s Chromium gives the page, it read the API and
    // drew the map again every two seconds, without a reload.
    let refreshes: u32 = dom
        .split_once("data-refreshes=\"")
        .and_then(|(_, rest)| rest.split('"').next()?.parse().ok())
        .expect("the map counts its refreshes");
    assert!(refreshes >= 2, "drawn {refreshes} times");
    // The job named in the address is shown in detail.
    assert!(
        dom.contains(&format!("data-detail=\"job:{whole}\"")),
        "{dom}"
    );
    let queued = tags(&dom, "<tr class=\"job\"");
    assert_eq!(queued.len(), 1, "{dom}");
    assert_eq!(attr(queued[0], "data-job"), Some(waiting.as_str()));
    assert_eq!(attr(queued[0], "data-reason"), Some("Resources"));
    let start: u64 = attr(queued[0], "data-start")
        .and_then(|s| s.parse().ok())
        .expect("an expected start");
    let planned = run("squeue", &["-h", "--start", "-o", "%S", "-j", &waiting]);
    assert!(
        planned.contains('T'),
        "squeue --start plans it too: {planned}"
    );
    assert!(start > 0);

    // Someone PrivateData=jobs hides the jobs from sees GPUs in use, by
    // no job they are shown, and no queue.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&conf)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"PrivateData=jobs\n"))
        .expect("slurm.conf");
    run("scontrol", &["reconfigure"]);
    let theirs = run("scontrol", &["token", "username=nobody"]);
    let theirs = theirs.strip_prefix("SLURM_JWT=").expect("SLURM_JWT=...");
    let hidden = headless(
        &chromium,
        &profile.with_extension("nobody"),
        &["--dump-dom"],
        &format!("{map}#token={theirs}"),
    );
    let hidden = String::from_utf8_lossy(&hidden.stdout).into_owned();
    assert!(hidden.contains("signed in as nobody"), "{hidden}");
    assert!(!hidden.contains("data-job="), "{hidden}");
    assert_eq!(
        hidden.matches("class=\"gpu hidden\"").count(),
        78,
        "{hidden}"
    );
    assert!(hidden.contains("No job waits."), "{hidden}");

    // Without a token the page asks for one and shows nothing.
    let bare = headless(
        &chromium,
        &profile.with_extension("bare"),
        &["--dump-dom"],
        &map,
    );
    let bare = String::from_utf8_lossy(&bare.stdout).into_owned();
    assert!(
        !bare.contains("data-job=") && bare.contains("<form class=\"login\" id=\"login\">"),
        "{bare}"
    );

    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui");
    std::fs::create_dir_all(&shots).expect("output folder");
    let png = shots.join("cluster-map.png");
    let _ = std::fs::remove_file(&png);
    let shot = headless(
        &chromium,
        &profile,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1600,1000",
        ],
        &url,
    );
    let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("no screenshot ({e}): {shot:?}"));
    assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
    eprintln!("screenshot: {}", png.display());
    run("scancel", &[&whole, &pair, &waiting]);
}
