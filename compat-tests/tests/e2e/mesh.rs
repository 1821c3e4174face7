//! The WireGuard mesh (spur.conf `MeshType=wireguard`) on wireguard-go: a
//! controller and three agents in network namespaces join it, a 3-node
//! job's srun runs over it and only WireGuard's UDP crosses a node's link,
//! a cut link heals and jobs carry on, the membership outlives a
//! controller restart, and an agent that did not join cannot register.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::harness::{missing_program, netns_unavailable, Cluster, Options};
use crate::text;

/// Why this machine cannot run the test, if it cannot.
fn unavailable() -> Option<String> {
    if let Some(why) = netns_unavailable() {
        return Some(why);
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Some("no /dev/net/tun".into());
    }
    missing_program(&["wireguard-go", "tcpdump"]).map(|tool| format!("{tool} is not installed"))
}

/// A capture of what crosses a link, from when it is made until it is
/// read.
struct Capture {
    tcpdump: std::process::Child,
    file: std::path::PathBuf,
}

impl Capture {
    fn start(link: &str, file: std::path::PathBuf) -> Capture {
        let mut tcpdump = Command::new("tcpdump")
            .args([
                "-Z",
                "root",
                "--immediate-mode",
                "-U",
                "-n",
                "-i",
                link,
                "-w",
            ])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts tcpdump");
        let mut said = String::new();
        let mut err = std::io::BufReader::new(tcpdump.stderr.take().expect("stderr"));
        err.read_line(&mut said).expect("tcpdump's first words");
        assert!(said.contains("listening on"), "tcpdump: {said}");
        Capture { tcpdump, file }
    }

    /// The IPv4 packets seen, one line each as tcpdump prints them.
    fn stop(mut self) -> Vec<String> {
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.tcpdump.id() as i32, libc::SIGTERM) };
        self.tcpdump.wait().expect("tcpdump ends");
        let read = Command::new("tcpdump")
            .args(["-n", "-r"])
            .arg(&self.file)
            .output()
            .expect("reads the capture");
        text(&read.stdout)
            .lines()
            .filter(|l| l.contains(" IP "))
            .map(str::to_string)
            .collect()
    }
}

/// What `spurd mesh status` prints.
fn mesh_status(conf: &std::path::Path) -> String {
    let out = Command::new(crate::harness::bin_dir().join("spurd"))
        .args(["mesh", "status"])
        .env("SLURM_CONF", conf)
        .output()
        .expect("runs spurd mesh status");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// A 3-node job whose srun runs a task on every node; its output shown
/// where it does not complete.
fn job_on_every_node(c: &Cluster) {
    let out = c.dir.path().join("job-%j.out");
    let id = c.submit(
        &["-N3", "-o", out.to_str().unwrap()],
        "#!/bin/sh\nsrun -l hostname\n",
    );
    c.wait_for(Duration::from_secs(30), "the job to end", |c| {
        c.state(id)
            .is_some_and(|s| s != "PENDING" && s != "RUNNING")
    });
    let out = std::fs::read_to_string(c.dir.path().join(format!("job-{id}.out")));
    assert_eq!(c.state(id).as_deref(), Some("COMPLETED"), "{out:?}");
}

#[test]
fn agents_join_the_mesh_and_every_job_byte_crosses_it() {
    if let Some(why) = unavailable() {
        eprintln!("the mesh test skips: {why}");
        return;
    }
    let mut c = Cluster::start(Options {
        nodes: 3,
        netns: true,
        mesh: true,
        extra_conf: "MetricsType=metrics/openmetrics\n",
        jwt: true,
        ..Options::default()
    });
    let mesh = c.mesh.clone().expect("the mesh is on");

    // Each node made its own key, readable by root alone.
    for node in ["n01", "n02", "n03"] {
        let key = c.dir.path().join(format!("spool/{node}/mesh.key"));
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&key).expect("a mesh key").permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{}", key.display());
    }
    // They registered over the mesh: the controller heard them from
    // their mesh addresses.
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).unwrap();
    assert_eq!(log.matches("mesh member admitted").count(), 3, "{log}");

    // Everything a job sends crosses node 1's link as WireGuard's UDP.
    let capture = Capture::start(&c.node_link(0), c.dir.path().join("n01.pcap"));
    let id = c.submit(
        &[
            "-N3",
            "-o",
            &format!("{}/job-%j.out", c.dir.path().display()),
        ],
        "#!/bin/sh\nsrun -l hostname | sort\n",
    );
    c.wait_state(id, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join(format!("job-{id}.out"))).unwrap();
    assert_eq!(out.lines().count(), 3, "{out}");
    let seen = capture.stop();
    eprintln!(
        "node 1's link during the job: {} packets, e.g. {}",
        seen.len(),
        seen.first().map_or("", String::as_str)
    );
    assert!(!seen.is_empty(), "nothing crossed node 1's link");
    let udp = format!(".{}: UDP", mesh.port);
    for line in &seen {
        assert!(
            line.contains(&udp),
            "not WireGuard's UDP on node 1's link: {line}"
        );
    }

    // `spurd mesh status`: each member's key, endpoint, handshake, bytes.
    let status = mesh_status(&c.conf);
    eprintln!("spurd mesh status:\n{status}");
    assert!(
        status.starts_with(&format!("interface: {}\n", mesh.interface)),
        "{status}"
    );
    let members: Vec<&str> = status.lines().filter(|l| l.starts_with('n')).collect();
    assert_eq!(members.len(), 3, "{status}");
    for (i, line) in members.iter().enumerate() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols[0], format!("n0{}", i + 1), "{status}");
        assert!(cols[1].starts_with(&mesh.prefix), "{status}");
        assert_eq!(cols[2].len(), 44, "a public key: {status}");
        assert!(cols[3].ends_with(&format!(":{}", mesh.port)), "{status}");
        assert!(line.contains(" s ago "), "a handshake: {status}");
        let (rx, tx): (u64, u64) = (
            cols[cols.len() - 2].parse().unwrap(),
            cols[cols.len() - 1].parse().unwrap(),
        );
        assert!(rx > 0 && tx > 0, "bytes moved: {status}");
    }

    // The metrics say the same, per member.
    let scraped = crate::metrics::get(&crate::metrics::controller(&c), "/metrics/nodes", &[]);
    assert_eq!(scraped.status, 200, "{}", scraped.body);
    for family in [
        "spur_mesh_peer_received_bytes",
        "spur_mesh_peer_sent_bytes",
        "spur_mesh_peer_last_handshake_timestamp_seconds",
    ] {
        for node in ["n01", "n02", "n03"] {
            let prefix = format!("{family}{{node=\"{node}\"}} ");
            let value = scraped
                .body
                .lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .unwrap_or_else(|| panic!("{prefix} in {}", scraped.body));
            assert!(value.parse::<u64>().unwrap() > 0, "{prefix}{value}");
        }
    }
    crate::metrics::promtool_passes(&scraped.body);

    // And the REST server's /spur/v1/mesh.
    let rest = c.start_rest(&[]);
    let token = c.token(&[]);
    let answer = crate::http::request(
        &rest,
        "GET",
        "/spur/v1/mesh",
        &[("X-SLURM-USER-TOKEN", token.as_str())],
        None,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let answer = answer.json();
    assert_eq!(
        answer["mesh"]["interface"],
        mesh.interface.as_str(),
        "{answer}"
    );
    let peers = answer["mesh"]["peers"].as_array().expect("peers");
    assert_eq!(peers.len(), 3, "{answer}");
    for (i, p) in peers.iter().enumerate() {
        assert_eq!(p["name"], format!("n0{}", i + 1), "{answer}");
        assert_eq!(p["public_key"].as_str().map(str::len), Some(44), "{answer}");
        assert!(p["endpoint"]
            .as_str()
            .unwrap()
            .ends_with(&format!(":{}", mesh.port)));
        assert!(p["last_handshake"].as_u64().unwrap() > 0, "{answer}");
        assert!(p["received_bytes"].as_u64().unwrap() > 0, "{answer}");
        assert!(p["sent_bytes"].as_u64().unwrap() > 0, "{answer}");
    }

    // While a job runs across the nodes, node 2's link is cut and heals,
    // and keys rotate, a node's and the controller's: the job carries on,
    // and the members use the new keys.
    let before = mesh_status(&c.conf);
    let out = c.dir.path().join("long-%j.out");
    let long = c.submit(
        &["-N3", "-o", out.to_str().unwrap()],
        "#!/bin/sh\nsrun -l sh -c 'sleep 8; hostname'\n",
    );
    c.wait_state(long, "RUNNING");
    std::thread::sleep(Duration::from_secs(1));
    c.cut_node(1);
    std::thread::sleep(Duration::from_secs(2));
    c.heal_node(1);
    let on_node = c.conf_away_from_controller("slurm-on-n02.conf");
    for (conf, node) in [(&on_node, "n02"), (&c.conf, "")] {
        let rotated = Command::new(crate::harness::bin_dir().join("spurd"))
            .args(["mesh", "rotate"])
            .env("SLURM_CONF", conf)
            .env("SPUR_NODE", node)
            .output()
            .expect("runs spurd mesh rotate");
        assert!(rotated.status.success(), "{}", text(&rotated.stderr));
    }
    c.wait_state(long, "COMPLETED");
    let out = std::fs::read_to_string(c.dir.path().join(format!("long-{long}.out"))).unwrap();
    assert_eq!(out.lines().count(), 3, "{out}");
    let after = mesh_status(&c.conf);
    // The third word of the line that starts with `what`: the key, in
    // "  public key: KEY" as in "n02  ADDRESS  KEY ...".
    let key_of = |status: &str, what: &str| {
        status
            .lines()
            .find(|l| l.trim_start().starts_with(what))
            .and_then(|l| l.split_whitespace().nth(2))
            .unwrap_or_default()
            .to_string()
    };
    assert_ne!(
        key_of(&before, "public"),
        key_of(&after, "public"),
        "the controller's key"
    );
    assert_ne!(key_of(&before, "n02"), key_of(&after, "n02"), "n02's key");
    assert_eq!(key_of(&before, "n01"), key_of(&after, "n01"), "n01's key");
    job_on_every_node(&c);

    // The membership outlives the controller: restarted, it comes up
    // with three members and the agents find it again.
    c.kill_controller();
    c.start_controller();
    c.wait_for(Duration::from_secs(30), "the nodes back", |c| {
        let out = c.run("sinfo", &["-h", "-N", "-o", "%t"]);
        let states = text(&out.stdout);
        !states.is_empty()
            && states
                .lines()
                .all(|l| !matches!(l.trim(), "unk" | "unk*" | "down*" | "idle*"))
    });
    let log = std::fs::read_to_string(c.dir.path().join("controller.log")).unwrap();
    assert!(log.contains("members=3"), "{log}");
    job_on_every_node(&c);

    // From outside the mesh a node's agent takes no step: a connection to
    // its plain address is closed unread.
    let mut plain = std::net::TcpStream::connect((c.node_addr(1).as_str(), 6818))
        .expect("the node's port answers");
    plain
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut byte = [0u8; 1];
    assert_eq!(std::io::Read::read(&mut plain, &mut byte).unwrap_or(0), 0);
    c.wait_for(Duration::from_secs(10), "the launch refused", |c| {
        std::fs::read_to_string(c.dir.path().join("agent-n02.log"))
            .unwrap()
            .contains("not over the mesh")
    });

    // A node taken out of slurm.conf leaves the mesh.
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    let without = conf
        .lines()
        .filter(|l| !l.starts_with("NodeName=n03"))
        .map(|l| l.replace("n[01-03]", "n[01-02]") + "\n")
        .collect::<String>();
    std::fs::write(&c.conf, &without).unwrap();
    let topology = c.dir.path().join("topology.conf");
    let blocks = std::fs::read_to_string(&topology).unwrap();
    std::fs::write(&topology, blocks.replace("n[01-03]", "n[01-02]")).unwrap();
    let reconfigured = c.run("scontrol", &["reconfigure"]);
    assert!(
        reconfigured.status.success(),
        "{}",
        text(&reconfigured.stderr)
    );
    let status = mesh_status(&c.conf);
    let members: Vec<&str> = status.lines().filter(|l| l.starts_with('n')).collect();
    assert_eq!(members.len(), 2, "{status}");
    assert!(!status.contains("n03"), "{status}");
    std::fs::write(&c.conf, &conf).unwrap();
    std::fs::write(&topology, blocks).unwrap();
    let reconfigured = c.run("scontrol", &["reconfigure"]);
    assert!(
        reconfigured.status.success(),
        "{}",
        text(&reconfigured.stderr)
    );

    // An agent that does not join (no spur.conf beside its slurm.conf)
    // cannot register on the plain network.
    let apart = c.dir.path().join("apart");
    std::fs::create_dir_all(&apart).unwrap();
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    std::fs::write(apart.join("slurm.conf"), conf).unwrap();
    std::fs::copy(c.dir.path().join("spur.key"), apart.join("spur.key")).unwrap();
    c.kill_agent(2);
    c.start_agent_with_conf(2, &apart.join("slurm.conf"));
    c.wait_for(Duration::from_secs(20), "the plain agent refused", |c| {
        std::fs::read_to_string(c.dir.path().join("controller.log"))
            .unwrap()
            .contains("agent n03 connected over the plain network")
    });
}
