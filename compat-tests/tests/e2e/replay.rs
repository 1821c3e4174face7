//! Captured messages replayed later: an agent's and a relay's opening to
//! the controller, and srun's step launch to a node, each recorded on the
//! wire by a forwarding proxy and sent again byte for byte, are refused,
//! and nothing runs twice. The key itself never crosses the wire.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::harness::{free_port_on, Cluster, Options};
use crate::text;

/// What each client of a [`forward`]er sent, one entry per connection.
type Sent = Arc<Mutex<Vec<Arc<Mutex<Vec<u8>>>>>>;

/// Forwards every connection on `listener` to `to`, recording what the
/// client sends.
fn forward(listener: TcpListener, to: String) -> Sent {
    let sent: Sent = Arc::default();
    let record = sent.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(&to) else {
                continue;
            };
            let bytes = Arc::new(Mutex::new(Vec::new()));
            record.lock().expect("lock").push(bytes.clone());
            let (mut c_rd, mut s_wr) = (
                client.try_clone().expect("dup"),
                server.try_clone().expect("dup"),
            );
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                while let Ok(n @ 1..) = c_rd.read(&mut buf) {
                    bytes.lock().expect("lock").extend_from_slice(&buf[..n]);
                    if s_wr.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = s_wr.shutdown(Shutdown::Write);
            });
            let (mut s_rd, mut c_wr) = (server, client);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s_rd, &mut c_wr);
                let _ = c_wr.shutdown(Shutdown::Write);
            });
        }
    });
    sent
}

/// Sends `bytes` to `to` on a new connection; what came back before the
/// other side hung up.
fn replay(to: &str, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(to).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    // The other side may hang up before it has read everything.
    let _ = s.write_all(bytes);
    let mut back = Vec::new();
    let _ = s.read_to_end(&mut back);
    back
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn captured_agent_relay_and_step_messages_replayed_later_are_refused() {
    let mut c = Cluster::start(Options {
        nodes: 1,
        ..Options::default()
    });
    let conf = std::fs::read_to_string(&c.conf).expect("slurm.conf");
    let value = |line: &str, key: &str| -> String {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .expect("in slurm.conf")
            .to_string()
    };
    let host = conf
        .lines()
        .find_map(|l| l.strip_prefix("SlurmctldHost="))
        .expect("SlurmctldHost");
    let ctl_ip = host[host.find('(').expect("(") + 1..host.len() - 1].to_string();
    let ctl_port = value(&conf, "SlurmctldPort=");
    let node_line = conf
        .lines()
        .find(|l| l.starts_with("NodeName=n01 "))
        .expect("n01")
        .to_string();
    let (node_ip, node_port) = (value(&node_line, "NodeAddr="), value(&node_line, "Port="));

    // The agent moves to another port behind a recording proxy where the
    // controller (and so srun) expects it, and reaches the controller
    // through another.
    c.kill_agent(0);
    let ctl_proxy_port = free_port_on(&ctl_ip);
    let to_ctl = forward(
        TcpListener::bind((ctl_ip.as_str(), ctl_proxy_port)).expect("binds"),
        format!("{ctl_ip}:{ctl_port}"),
    );
    let real_port = free_port_on(&node_ip);
    let to_node = forward(
        TcpListener::bind((node_ip.as_str(), node_port.parse().expect("port"))).expect("binds"),
        format!("{node_ip}:{real_port}"),
    );
    let behind = conf
        .replace(
            &format!("SlurmctldPort={ctl_port}\n"),
            &format!("SlurmctldPort={ctl_proxy_port}\n"),
        )
        .replace(
            &node_line,
            &node_line.replace(&format!("Port={node_port}"), &format!("Port={real_port}")),
        );
    let agent_conf = c.dir.path().join("behind-proxies.conf");
    std::fs::write(&agent_conf, &behind).expect("writes");
    c.start_agent_with_conf(0, &agent_conf);
    c.wait_for(Duration::from_secs(20), "n01 through the proxy", |c| {
        let states = text(&c.run("sinfo", &["-h", "-N", "-o", "%t"]).stdout);
        states.lines().all(|l| l.trim() == "idle") && !states.is_empty()
    });

    // A step runs once.
    let ran = c.dir.path().join("ran");
    std::fs::write(&ran, "").expect("writes");
    let append = format!("echo ran >> {}", ran.display());
    let out = c.run("srun", &["-w", "n01", "sh", "-c", &append]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&ran).expect("reads"), "ran\n");

    // srun's launch, sent to the node again: refused, and it did not run.
    let launch = to_node.lock().expect("lock")[0]
        .lock()
        .expect("lock")
        .clone();
    assert!(!launch.is_empty());
    let back = replay(&format!("{node_ip}:{real_port}"), &launch);
    assert!(
        contains(&back, "Job credential replayed"),
        "{}",
        String::from_utf8_lossy(&back)
    );
    assert_eq!(std::fs::read_to_string(&ran).expect("reads"), "ran\n");

    // The agent's opening, sent to the controller again: refused at its
    // proof, and the real agent is still the node's.
    let opening = to_ctl.lock().expect("lock")[0]
        .lock()
        .expect("lock")
        .clone();
    assert!(
        !contains(&opening, "0123456789abcdef0123456789abcdef"),
        "the key crossed the wire"
    );
    let _ = replay(&format!("{ctl_ip}:{ctl_port}"), &opening);
    let log_file = c.dir.path().join("controller.log");
    let log = || std::fs::read_to_string(&log_file).expect("log");
    c.wait_for(Duration::from_secs(5), "the agent's refusal", |_| {
        log().contains("agent n01 does not hold the cluster key")
    });
    let out = c.run("srun", &["-w", "n01", "echo", "still n01's"]);
    assert_eq!(text(&out.stdout), "still n01's\n", "{}", text(&out.stderr));

    // A relay on a login node, through the controller's proxy: it works,
    // and its opening and a relayed command, sent again, are refused.
    let login = c
        .conf_away_from_controller("login.conf")
        .to_str()
        .expect("utf-8")
        .to_string();
    let login_conf = std::fs::read_to_string(&login).expect("reads").replace(
        &format!("SlurmctldPort={ctl_port}\n"),
        &format!("SlurmctldPort={ctl_proxy_port}\n"),
    );
    std::fs::write(&login, login_conf).expect("writes");
    let before = to_ctl.lock().expect("lock").len();
    let socket = c.dir.path().join("relay.sock");
    c.start_relay_with_conf(&socket, std::path::Path::new(&login));
    c.wait_for(Duration::from_secs(10), "the relay socket", |_| {
        socket.exists()
    });
    let job = c.submit(&["-H"], "#!/bin/sh\ntrue\n").to_string();
    let set_comment = format!("JobId={job}");
    let out = c
        .command("scontrol", &["update", &set_comment, "Comment=relayed"])
        .env("SLURM_CONF", &login)
        .env("SPUR_NODE", "login1")
        .env("SPUR_RELAY_SOCKET", &socket)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let comment = |c: &Cluster| {
        let shown = text(&c.run("scontrol", &["show", "job", &job]).stdout);
        shown
            .split_whitespace()
            .find_map(|w| w.strip_prefix("Comment="))
            .map(str::to_string)
    };
    assert_eq!(comment(&c).as_deref(), Some("relayed"));
    let out = c.run("scontrol", &["update", &set_comment, "Comment=direct"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let relayed = to_ctl.lock().expect("lock")[before]
        .lock()
        .expect("lock")
        .clone();
    assert!(contains(&relayed, "relayed"), "the proxy saw the update");
    let _ = replay(&format!("{ctl_ip}:{ctl_port}"), &relayed);
    c.wait_for(Duration::from_secs(5), "the relay's refusal", |_| {
        log()
            .lines()
            .any(|l| l.contains("relay on ") && l.contains("does not hold the cluster key"))
    });
    assert_eq!(
        comment(&c).as_deref(),
        Some("direct"),
        "the replayed update was applied"
    );
}
