//! Two hosts in network namespaces joined by a veth pair, each with a mesh
//! interface on wireguard-go: TCP between their mesh addresses crosses the
//! veth as WireGuard's UDP only, both see the handshake and the bytes, a
//! link taken down and up heals, peers told again keep their session, and
//! a host whose key its peer was never given gets nothing through.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use spur_mesh::{Link, MeshBackend, MeshKey, Peer};

const PORT: u16 = 51820;

/// Why this machine cannot run the test, if it cannot.
fn unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root".into());
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Some("no /dev/net/tun".into());
    }
    for tool in ["ip", "wireguard-go", "tcpdump"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            return Some(format!(
                "{tool} is not installed (iproute2, wireguard-go, tcpdump)"
            ));
        }
    }
    None
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("runs ip");
    assert!(
        out.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two namespaces, `<tag>a` at 192.168.77.1 and `<tag>b` at .2, joined by
/// a veth pair; removed (with every interface in them) when dropped.
struct Pair {
    tag: String,
}

impl Pair {
    fn make() -> Pair {
        let tag = format!("smt{}", std::process::id() % 100_000);
        let pair = Pair { tag };
        for side in ["a", "b"] {
            ip(&["netns", "add", &pair.ns(side)]);
            ip(&["-n", &pair.ns(side), "link", "set", "lo", "up"]);
        }
        ip(&[
            "link",
            "add",
            &pair.veth("a"),
            "netns",
            &pair.ns("a"),
            "type",
            "veth",
            "peer",
            "name",
            &pair.veth("b"),
            "netns",
            &pair.ns("b"),
        ]);
        for (side, addr) in [("a", "192.168.77.1/24"), ("b", "192.168.77.2/24")] {
            ip(&[
                "-n",
                &pair.ns(side),
                "addr",
                "add",
                addr,
                "dev",
                &pair.veth(side),
            ]);
            ip(&["-n", &pair.ns(side), "link", "set", &pair.veth(side), "up"]);
        }
        pair
    }

    fn ns(&self, side: &str) -> String {
        format!("{}{side}", self.tag)
    }

    fn veth(&self, side: &str) -> String {
        format!("{}v{side}", self.tag)
    }

    /// The mesh interface's name on `side` (their control sockets share
    /// /var/run/wireguard, so the names differ).
    fn mesh(&self, side: &str) -> String {
        format!("{}w{side}", self.tag)
    }

    /// Runs `f` on a thread inside `side`'s namespace.
    fn inside<T: Send + 'static>(
        &self,
        side: &str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::thread::JoinHandle<T> {
        let path = format!("/var/run/netns/{}", self.ns(side));
        std::thread::spawn(move || {
            let ns = std::fs::File::open(&path).expect("namespace file");
            // SAFETY: a valid namespace fd; setns changes only this thread.
            let entered = unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) };
            assert_eq!(entered, 0, "setns: {}", std::io::Error::last_os_error());
            f()
        })
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        for side in ["a", "b"] {
            let _ = Command::new("ip")
                .args(["netns", "del", &self.ns(side)])
                .status();
            let _ = std::fs::remove_file(format!("/var/run/wireguard/{}.sock", self.mesh(side)));
        }
    }
}

fn mesh_addr(side: &str) -> Ipv4Addr {
    if side == "a" {
        Ipv4Addr::new(10, 99, 0, 1)
    } else {
        Ipv4Addr::new(10, 99, 0, 2)
    }
}

fn endpoint(side: &str) -> SocketAddr {
    let host = if side == "a" { 1 } else { 2 };
    SocketAddr::from((Ipv4Addr::new(192, 168, 77, host), PORT))
}

/// One line sent from `a` to `b`'s mesh address and echoed back, within
/// `limit`; false where it does not get through.
fn echo(pair: &Pair, limit: Duration) -> bool {
    let listener = pair
        .inside("b", || {
            TcpListener::bind((mesh_addr("b"), 0)).expect("binds")
        })
        .join()
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        if let Ok((mut conn, _)) = listener.accept() {
            let mut buf = [0u8; 6];
            if conn.read_exact(&mut buf).is_ok() {
                let _ = conn.write_all(&buf);
            }
        }
    });
    pair.inside("a", move || {
        let to = SocketAddr::from((mesh_addr("b"), port));
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            let Ok(mut conn) = TcpStream::connect_timeout(&to, Duration::from_secs(2)) else {
                std::thread::sleep(Duration::from_millis(200));
                continue;
            };
            conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut back = [0u8; 6];
            if conn.write_all(b"hello\n").is_ok() && conn.read_exact(&mut back).is_ok() {
                return &back == b"hello\n";
            }
        }
        false
    })
    .join()
    .unwrap()
}

#[test]
fn two_hosts_talk_over_the_mesh_as_udp_only_and_heal_after_a_cut() {
    if let Some(why) = unavailable() {
        eprintln!("the mesh link test skips: {why}");
        return;
    }
    let pair = Pair::make();
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<MeshKey> = ["a", "b"]
        .iter()
        .map(|s| MeshKey::load_or_make(&dir.path().join(format!("{s}.key"))).unwrap())
        .collect();
    let links: Vec<Link> = ["a", "b"]
        .iter()
        .zip(&keys)
        .map(|(side, key)| {
            let (name, key, addr) = (pair.mesh(side), key.clone(), mesh_addr(side));
            pair.inside(side, move || {
                Link::up(&name, MeshBackend::Auto, &key, PORT, addr, 24).expect("link up")
            })
            .join()
            .unwrap()
        })
        .collect();
    assert!(
        links[0].is_userspace(),
        "this kernel has no WireGuard: wireguard-go serves"
    );
    let peer = |side: &str, key: &MeshKey| Peer {
        key: key.public().clone(),
        endpoint: Some(endpoint(side)),
        address: mesh_addr(side),
    };
    links[0].set_peers(&[peer("b", &keys[1])]).unwrap();
    links[1].set_peers(&[peer("a", &keys[0])]).unwrap();

    // Everything on the wire between them while they talk.
    let capture = dir.path().join("veth.pcap");
    let mut tcpdump = Command::new("ip")
        .args([
            "netns",
            "exec",
            &pair.ns("a"),
            "tcpdump",
            "-Z",
            "root",
            "--immediate-mode",
            "-U",
            "-n",
            "-i",
        ])
        .arg(pair.veth("a"))
        .arg("-w")
        .arg(&capture)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts tcpdump");
    // It says "listening on ..." once it captures.
    let mut said = std::io::BufReader::new(tcpdump.stderr.take().expect("stderr"));
    let mut line = String::new();
    std::io::BufRead::read_line(&mut said, &mut line).expect("tcpdump's first words");
    assert!(line.contains("listening on"), "tcpdump: {line}");
    assert!(echo(&pair, Duration::from_secs(20)), "TCP over the mesh");
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill has no memory preconditions.
    unsafe { libc::kill(tcpdump.id() as i32, libc::SIGTERM) };
    tcpdump.wait().unwrap();
    let read = Command::new("tcpdump")
        .args(["-n", "-r"])
        .arg(&capture)
        .output()
        .expect("reads the capture");
    let seen = String::from_utf8_lossy(&read.stdout).into_owned();
    let packets: Vec<&str> = seen.lines().filter(|l| l.contains(" IP ")).collect();
    assert!(!packets.is_empty(), "nothing captured: {seen}");
    for line in &packets {
        assert!(
            line.contains(&format!(".{PORT}: UDP")) || line.contains(&format!(".{PORT} > ")),
            "not WireGuard's UDP on the veth: {line}"
        );
    }

    // Both sides see the other: its key, endpoint, a handshake, bytes.
    for (link, (other_side, other_key)) in links.iter().zip([("b", &keys[1]), ("a", &keys[0])]) {
        let peers = link.peers().unwrap();
        assert_eq!(peers.len(), 1);
        assert_eq!(&peers[0].key, other_key.public());
        assert_eq!(peers[0].endpoint, Some(endpoint(other_side)));
        assert!(peers[0].last_handshake.is_some());
        assert!(
            peers[0].rx_bytes > 0 && peers[0].tx_bytes > 0,
            "{:?}",
            peers[0]
        );
    }

    // The veth down: nothing gets through; up again: the mesh heals.
    ip(&["-n", &pair.ns("a"), "link", "set", &pair.veth("a"), "down"]);
    assert!(!echo(&pair, Duration::from_secs(3)), "through a cut link");
    ip(&["-n", &pair.ns("a"), "link", "set", &pair.veth("a"), "up"]);
    assert!(echo(&pair, Duration::from_secs(30)), "healed after the cut");

    // b is told the same peer again, as every member is when it joins
    // again after a controller restart: the session stands (the same
    // handshake, the bytes counted on), and a's traffic gets through on
    // it at once.
    let before = links[1].peers().unwrap();
    links[1].set_peers(&[peer("a", &keys[0])]).unwrap();
    let after = links[1].peers().unwrap();
    assert_eq!(after.len(), 1);
    assert!(before[0].last_handshake.is_some());
    assert_eq!(
        after[0].last_handshake, before[0].last_handshake,
        "{after:?}"
    );
    assert!(after[0].rx_bytes >= before[0].rx_bytes, "{after:?}");
    assert!(
        echo(&pair, Duration::from_secs(2)),
        "on the session kept through the peers told again"
    );

    // b forgets a's key: a stranger now, it gets nothing through.
    links[1].set_peers(&[]).unwrap();
    assert!(
        !echo(&pair, Duration::from_secs(3)),
        "from a key b does not know"
    );

    for (link, side) in links.into_iter().zip(["a", "b"]) {
        pair.inside(side, move || link.remove().unwrap())
            .join()
            .unwrap();
    }
}
