//! A spur cluster for one test: its own folder, slurm.conf on free loopback
//! ports, a controller and one agent per node as separate `spurd`
//! processes (each with its own log file), and the real commands run as
//! subprocesses. Teardown fails the test if a daemon died on its own.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The folder holding the workspace's binaries.
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/<profile>/deps/<test> -> target/<profile>
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// Options for a test cluster.
pub struct Options {
    pub nodes: u32,
    pub slurmd_timeout: u32,
    pub kill_wait: u32,
    pub min_job_age: u32,
    pub gres_conf: Option<&'static str>,
    /// cgroup.conf's text, if there is one.
    pub cgroup_conf: Option<&'static str>,
    /// A memory cgroup (v1) the daemons start in, made for this cluster
    /// inside this one, so that clusters running side by side, whose
    /// nodes share names, never share job cgroups.
    pub memory_cgroup_in: Option<PathBuf>,
    /// slurm.conf's InactiveLimit (0: none).
    pub inactive_limit: u32,
    /// slurm.conf's ReturnToService (1 here, as most sites set it; Slurm's
    /// default is 0).
    pub return_to_service: u8,
    /// More slurm.conf lines, appended as written.
    pub extra_conf: &'static str,
    /// auth/jwt on, with an HS256 key (mode 0600) in the cluster folder,
    /// `jwt.key`.
    pub jwt: bool,
    /// StateSaveLocation on a filesystem of its own of this many KiB (a
    /// tmpfs the test mounts, and unmounts at teardown), so that it can be
    /// filled up.
    pub state_fs_kib: Option<u64>,
    /// Each node's agent in a network namespace of its own, joined to
    /// this one by a veth pair that the test may cut, heal or slow down
    /// ([`Cluster::cut_node`]); the controller on an address of this
    /// namespace's loopback. Needs root: see [`netns_unavailable`].
    pub netns: bool,
    /// With `netns`, each node's link is a pair of tun devices joined in
    /// user space, which can lose packets at random
    /// ([`Cluster::lose_packets`]), instead of a veth pair.
    pub lossy_links: bool,
    /// With `netns`, the WireGuard mesh on (spur.conf, wireguard-go): each
    /// agent keeps wireguard-go's control sockets in a folder of its own
    /// (mounted on /run/wireguard in its mount namespace), so that nodes
    /// whose interfaces share a name do not share sockets.
    pub mesh: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            nodes: 4,
            slurmd_timeout: 300,
            kill_wait: 2,
            min_job_age: 300,
            gres_conf: None,
            cgroup_conf: None,
            memory_cgroup_in: None,
            inactive_limit: 0,
            return_to_service: 1,
            extra_conf: "",
            jwt: false,
            state_fs_kib: None,
            netns: false,
            lossy_links: false,
            mesh: false,
        }
    }
}

/// A running test cluster.
pub struct Cluster {
    pub dir: tempfile::TempDir,
    pub conf: PathBuf,
    bin: PathBuf,
    controller: Option<Child>,
    agents: Vec<(String, Option<Child>)>,
    others: Vec<(String, Child)>,
    /// The cluster's own memory cgroup, if it has one.
    pub memory_cgroup: Option<PathBuf>,
    /// StateSaveLocation is a tmpfs of the test's.
    state_fs: bool,
    /// The nodes' network namespaces, if they have them.
    netns: Option<Netns>,
    /// The mesh's settings, where it is on.
    pub mesh: Option<MeshSettings>,
}

/// A test cluster's mesh (spur.conf).
#[derive(Debug, Clone)]
pub struct MeshSettings {
    /// MeshInterface, the same on every host.
    pub interface: String,
    /// MeshPort.
    pub port: u16,
    /// MeshNetwork's first three octets (a /24).
    pub prefix: String,
}

/// Runs `ip` with `args`.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Why this process cannot give nodes network namespaces, if it cannot
/// (not root, no `ip`, no namespaces).
pub fn netns_unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root".into());
    }
    let probe = format!("spur-probe-{}", std::process::id());
    let made = ip(&["netns", "add", &probe]);
    let _ = ip(&["netns", "del", &probe]);
    made.err()
}

/// The network namespaces of a cluster's nodes: node `i` in `spur-TAG-i`,
/// at `10.R.S.(4i+2)`, joined by a veth pair (`svTAGn<i>` on this side, at
/// `.(4i+1)`), or by a lossy pair of tun devices of the same names, to
/// this namespace, where the controller listens at `10.R.S.1` on the
/// loopback.
struct Netns {
    tag: String,
    prefix: String,
    nodes: usize,
    /// Node `i`'s link at `i - 1`, where the links are lossy.
    lossy: Vec<crate::lossy::LossyLink>,
}

impl Netns {
    fn make(nodes: usize, lossy: bool) -> Netns {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        let n = h.finish();
        let mut net = Netns {
            tag: format!("{:04x}", n & 0xffff),
            prefix: format!("10.{}.{}", 100 + (n >> 16) % 100, (n >> 24) % 256),
            nodes,
            lossy: Vec::new(),
        };
        let made = (|| {
            ip(&[
                "addr",
                "add",
                &format!("{}/32", net.controller()),
                "dev",
                "lo",
            ])?;
            for i in 1..=nodes {
                let (ns, veth) = (net.ns(i), net.veth(i));
                ip(&["netns", "add", &ns])?;
                if lossy {
                    net.lossy
                        .push(crate::lossy::LossyLink::make(&veth, &ns, "eth0")?);
                } else {
                    ip(&[
                        "link", "add", &veth, "type", "veth", "peer", "name", "eth0", "netns", &ns,
                    ])?;
                }
                ip(&[
                    "addr",
                    "add",
                    &format!("{}/30", net.host_side(i)),
                    "dev",
                    &veth,
                ])?;
                ip(&["link", "set", &veth, "up"])?;
                // Nodes reach each other (srun inside a job) through this
                // namespace: it forwards what arrives on their links, and
                // on those alone.
                let forwarding = format!("/proc/sys/net/ipv4/conf/{veth}/forwarding");
                std::fs::write(&forwarding, "1").map_err(|e| format!("{forwarding}: {e}"))?;
                let node = format!("{}/30", net.node_addr(i));
                ip(&["-n", &ns, "addr", "add", &node, "dev", "eth0"])?;
                ip(&["-n", &ns, "link", "set", "eth0", "up"])?;
                ip(&["-n", &ns, "link", "set", "lo", "up"])?;
                ip(&[
                    "-n",
                    &ns,
                    "route",
                    "add",
                    "default",
                    "via",
                    &net.host_side(i),
                ])?;
            }
            Ok::<(), String>(())
        })();
        if let Err(e) = made {
            net.remove();
            panic!("cannot give the nodes network namespaces: {e}");
        }
        net
    }

    fn ns(&self, i: usize) -> String {
        format!("spur-{}-{i}", self.tag)
    }

    fn veth(&self, i: usize) -> String {
        format!("sv{}n{i}", self.tag)
    }

    fn controller(&self) -> String {
        format!("{}.1", self.prefix)
    }

    fn host_side(&self, i: usize) -> String {
        format!("{}.{}", self.prefix, 4 * i + 1)
    }

    fn node_addr(&self, i: usize) -> String {
        format!("{}.{}", self.prefix, 4 * i + 2)
    }

    fn remove(&self) {
        for i in 1..=self.nodes {
            let _ = ip(&["netns", "del", &self.ns(i)]);
        }
        let _ = ip(&[
            "addr",
            "del",
            &format!("{}/32", self.controller()),
            "dev",
            "lo",
        ]);
    }
}

/// The first of `programs` not on PATH, if one is not.
pub fn missing_program<'a>(programs: &[&'a str]) -> Option<&'a str> {
    programs.iter().copied().find(|program| {
        !Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// libfaketime, where Debian's `faketime` package put it.
pub fn faketime_library() -> Option<PathBuf> {
    [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib",
    ]
    .iter()
    .map(|dir| Path::new(dir).join("faketime/libfaketime.so.1"))
    .find(|lib| lib.exists())
}

fn free_port() -> u16 {
    free_port_on("127.0.0.1")
}

/// A port nothing listens on at `ip` now.
pub fn free_port_on(ip: &str) -> u16 {
    std::net::TcpListener::bind((ip, 0))
        .expect("binds an ephemeral port")
        .local_addr()
        .expect("has an address")
        .port()
}

/// A loopback network of the cluster's own, `127.a.b.0/24`: the controller
/// at `.1` and node `i` at `.(i + 1)`. Clusters of tests running side by
/// side (threads or processes) never share an address, so a port picked
/// for one and taken by another before it is bound cannot make two
/// clusters meet.
fn own_network() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u64(MADE.fetch_add(1, Ordering::Relaxed));
    let n = h.finish();
    // 127.0.x is left to what binds 127.0.0.1 (the REST servers, relays).
    format!("127.{}.{}", 1 + n % 254, (n >> 8) % 256)
}

impl Cluster {
    /// Writes the configuration and starts the controller and agents.
    pub fn start(opts: Options) -> Cluster {
        let dir = tempfile::Builder::new()
            .prefix("spur-e2e-")
            .tempdir()
            .expect("temp dir");
        // Jobs may run as another user: let them reach the folder.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).expect("bin dir");
        // As a site has them: spurctl, or a command's own program.
        for cmd in spur_slurm::COMMANDS {
            let program = bin_dir().join(spur_slurm::program_of(cmd));
            std::os::unix::fs::symlink(program, bin.join(cmd)).expect("link");
        }
        let net = own_network();
        let netns = opts
            .netns
            .then(|| Netns::make(opts.nodes as usize, opts.lossy_links));
        let ctld = netns
            .as_ref()
            .map_or_else(|| format!("{net}.1"), Netns::controller);
        let port = free_port_on(&ctld);
        let d = dir.path().display();
        let n = opts.nodes;
        let mut conf = format!(
            "ClusterName=e2e\nSlurmctldHost=ctl({ctld})\nSlurmctldPort={port}\n\
             SlurmUser=root\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool/%n\n\
             SlurmdTimeout={}\nMinJobAge={}\nKillWait={}\nDefMemPerCPU=1000\n\
             GresTypes=gpu\nTopologyPlugin=topology/block\nSelectType=select/cons_tres\n\
             InactiveLimit={}\nReturnToService={}\n",
            opts.slurmd_timeout,
            opts.min_job_age,
            opts.kill_wait,
            opts.inactive_limit,
            opts.return_to_service
        );
        conf.push_str(opts.extra_conf);
        if opts.jwt {
            let key = dir.path().join("jwt.key");
            std::fs::write(&key, b"an HS256 key for this test cluster only").expect("jwt key");
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
            conf.push_str(&format!(
                "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={}\n",
                key.display()
            ));
        }
        for i in 1..=n {
            // Each node its own address and port, as several slurmds on one
            // host have; the port is ephemeral so that clusters never meet
            // (a namespace's address is the cluster's alone).
            let (addr, port) = match &netns {
                Some(ns) => (ns.node_addr(i as usize), 6818),
                None => {
                    let addr = format!("{net}.{}", i + 1);
                    let port = free_port_on(&addr);
                    (addr, port)
                }
            };
            conf.push_str(&format!(
                "NodeName=n{i:02} NodeAddr={addr} Port={port} CPUs=8 RealMemory=16000 Gres=gpu:4 Feature=nvl01\n",
            ));
        }
        conf.push_str(&format!(
            "PartitionName=batch Nodes=n[01-{n:02}] Default=YES MaxTime=INFINITE State=UP\n\
             PartitionName=short Nodes=n01 MaxTime=00:01:00 State=UP\n"
        ));
        let conf_path = dir.path().join("slurm.conf");
        std::fs::write(&conf_path, conf).expect("slurm.conf");
        std::fs::write(
            dir.path().join("topology.conf"),
            format!("BlockName=nvl01 Nodes=n[01-{n:02}]\n"),
        )
        .expect("topology.conf");
        if let Some(gres) = opts.gres_conf {
            std::fs::write(dir.path().join("gres.conf"), gres).expect("gres.conf");
        }
        if let Some(cgroup) = opts.cgroup_conf {
            std::fs::write(dir.path().join("cgroup.conf"), cgroup).expect("cgroup.conf");
        }
        let mesh = opts.mesh.then(|| {
            let ns = netns.as_ref().expect("the mesh needs Options::netns");
            let port = std::net::UdpSocket::bind(("0.0.0.0", 0))
                .and_then(|s| s.local_addr())
                .expect("a free UDP port")
                .port();
            let n = u16::from_str_radix(&ns.tag, 16).expect("a hex tag");
            let mesh = MeshSettings {
                interface: format!("sm{}", ns.tag),
                port,
                prefix: format!("172.{}.{}", 16 + n % 16, n >> 8),
            };
            std::fs::write(
                dir.path().join("spur.conf"),
                format!(
                    "MeshType=wireguard\nMeshInterface={}\nMeshPort={}\nMeshNetwork={}.0/24\n\
                     MeshBackend=userspace\n",
                    mesh.interface, mesh.port, mesh.prefix
                ),
            )
            .expect("spur.conf");
            mesh
        });
        let key = dir.path().join("spur.key");
        std::fs::write(&key, b"0123456789abcdef0123456789abcdef").expect("key");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let memory_cgroup = opts.memory_cgroup_in.map(|parent| {
            let name = dir
                .path()
                .file_name()
                .expect("named")
                .to_string_lossy()
                .into_owned();
            let cg = parent.join(name);
            std::fs::create_dir(&cg).expect("the cluster's memory cgroup");
            cg
        });
        if let Some(kib) = opts.state_fs_kib {
            let state = dir.path().join("state");
            std::fs::create_dir_all(&state).expect("state folder");
            let mounted = Command::new("mount")
                .args([
                    "-t",
                    "tmpfs",
                    "-o",
                    &format!("size={kib}k,mode=0755"),
                    "tmpfs",
                ])
                .arg(&state)
                .status()
                .is_ok_and(|s| s.success());
            assert!(mounted, "cannot mount a tmpfs on {}", state.display());
        }
        let mut c = Cluster {
            netns,
            mesh,
            state_fs: opts.state_fs_kib.is_some(),
            memory_cgroup,
            conf: conf_path,
            bin,
            controller: None,
            agents: (1..=n).map(|i| (format!("n{i:02}"), None)).collect(),
            others: Vec::new(),
            dir,
        };
        c.start_controller();
        for i in 0..c.agents.len() {
            c.start_agent(i);
        }
        c.wait_for(Duration::from_secs(20), "every node registered", |c| {
            let out = c.run("sinfo", &["-h", "-N", "-o", "%t"]);
            out.status.success()
                && String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .all(|l| !matches!(l.trim(), "unk" | "unk*" | "down*"))
                && !out.stdout.is_empty()
        });
        c
    }

    fn log(&self, name: &str) -> std::fs::File {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(format!("{name}.log")))
            .expect("log file")
    }

    fn spurd(&self, args: &[&str], log: &str) -> Child {
        self.spurd_with(args, log, &self.conf)
    }

    fn spurd_with(&self, args: &[&str], log: &str, conf: &Path) -> Child {
        self.spurd_in(None, args, log, conf, &[])
    }

    /// `spurd args` in network namespace `ns` (None: this one), with `env`
    /// added to its environment.
    fn spurd_in(
        &self,
        ns: Option<&str>,
        args: &[&str],
        log: &str,
        conf: &Path,
        env: &[(&str, &str)],
    ) -> Child {
        let log = self.log(log);
        let spurd = bin_dir().join("spurd");
        let mut cmd = match ns {
            Some(ns) if self.mesh.is_some() => {
                // wireguard-go's sockets in a folder of this node's, seen
                // as /run/wireguard in the mount namespace ip gives it.
                let sockets = self.dir.path().join(format!("wireguard-{ns}"));
                std::fs::create_dir_all(&sockets).expect("a sockets folder");
                std::fs::create_dir_all("/run/wireguard").expect("/run/wireguard");
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns, "sh", "-c"])
                    .arg(r#"mount --bind "$0" /run/wireguard && exec "$@""#)
                    .arg(&sockets)
                    .arg(spurd);
                c
            }
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns]).arg(spurd);
                c
            }
            None => Command::new(spurd),
        };
        cmd.args(args)
            .env("SLURM_CONF", conf)
            .env("SPUR_LOG", "info")
            .envs(env.iter().copied())
            .stdout(log.try_clone().expect("dup log"))
            .stderr(log);
        if let Some(cg) = &self.memory_cgroup {
            use std::os::unix::ffi::OsStrExt;
            use std::os::unix::process::CommandExt;
            let procs = std::ffi::CString::new(cg.join("cgroup.procs").as_os_str().as_bytes())
                .expect("no NUL in a path");
            // SAFETY: between fork and exec the closure calls only open,
            // write and close, which are async-signal-safe.
            unsafe {
                cmd.pre_exec(move || {
                    let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                    if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    libc::close(fd);
                    Ok(())
                });
            }
        }
        cmd.spawn().expect("spurd starts")
    }

    /// Starts (or restarts) the controller.
    pub fn start_controller(&mut self) {
        self.controller = Some(self.spurd(&["controller"], "controller"));
    }

    /// The cluster's slurm.conf as a host without the controller sees it
    /// (its StateSaveLocation, where the controller's socket is, is not
    /// there), written to `name` in the cluster folder.
    pub fn conf_away_from_controller(&self, name: &str) -> PathBuf {
        let conf = std::fs::read_to_string(&self.conf).expect("slurm.conf");
        let state = format!("StateSaveLocation={}/state", self.dir.path().display());
        let moved = conf.replace(&state, "StateSaveLocation=/nonexistent/spur-state");
        assert_ne!(conf, moved, "slurm.conf names the state folder");
        let path = self.dir.path().join(name);
        std::fs::write(&path, moved).expect("writes");
        path
    }

    /// Starts a REST server (`spurd rest`, as slurmrestd) with `args`
    /// before its listen address, on a free loopback port; returns where
    /// it listens, once it answers.
    pub fn start_rest(&mut self, args: &[&str]) -> crate::http::Target {
        let addr = format!("127.0.0.1:{}", free_port());
        let mut all = vec!["rest"];
        all.extend_from_slice(args);
        all.push(&addr);
        let child = self.spurd(&all, "rest");
        self.others.push(("rest".into(), child));
        let target = crate::http::Target::Tcp(addr.clone());
        self.wait_for(Duration::from_secs(20), "the REST server", |_| {
            std::net::TcpStream::connect(&addr).is_ok()
        });
        target
    }

    /// Starts a REST server on a unix socket in the cluster folder with
    /// `args` before it; returns the socket once it answers.
    pub fn start_rest_unix(&mut self, args: &[&str]) -> crate::http::Target {
        let path = self.dir.path().join("rest.sock");
        let spec = format!("unix:{}", path.display());
        let mut all = vec!["rest"];
        all.extend_from_slice(args);
        all.push(&spec);
        let child = self.spurd(&all, "rest-unix");
        self.others.push(("rest-unix".into(), child));
        self.wait_for(Duration::from_secs(20), "the REST server's socket", |_| {
            std::os::unix::net::UnixStream::connect(&path).is_ok()
        });
        crate::http::Target::Unix(path)
    }

    /// `scontrol token` with `args`: the token.
    pub fn token(&self, args: &[&str]) -> String {
        let mut all = vec!["token"];
        all.extend_from_slice(args);
        let out = self.run("scontrol", &all);
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(
            out.status.success() && text.starts_with("SLURM_JWT="),
            "scontrol token: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        text["SLURM_JWT=".len()..].to_string()
    }

    /// Starts `spurd relay` listening on `socket`.
    pub fn start_relay(&mut self, socket: &Path) {
        let socket = socket.to_str().expect("utf-8 path");
        let child = self.spurd(&["relay", "--socket", socket], "relay");
        self.others.push(("relay".into(), child));
    }

    /// The controller's process id, while it runs.
    pub fn controller_pid(&self) -> Option<u32> {
        self.controller.as_ref().map(Child::id)
    }

    /// Kills the controller with SIGKILL.
    pub fn kill_controller(&mut self) {
        if let Some(mut c) = self.controller.take() {
            c.kill().expect("kill -9");
            c.wait().expect("reaped");
        }
    }

    /// Starts (or restarts) agent `i`.
    pub fn start_agent(&mut self, i: usize) {
        self.start_agent_with_env(i, &[]);
    }

    /// Starts (or restarts) agent `i` with `env` added to its environment.
    pub fn start_agent_with_env(&mut self, i: usize, env: &[(&str, &str)]) {
        let name = self.agents[i].0.clone();
        let ns = self.netns.as_ref().map(|n| n.ns(i + 1));
        let args = ["agent", "--node", &name];
        let log = format!("agent-{name}");
        let child = self.spurd_in(ns.as_deref(), &args, &log, &self.conf, env);
        self.agents[i].1 = Some(child);
    }

    /// Restarts agent `i` with its clock (the wall clock only; the
    /// monotonic clock runs true) off by `offset` (faketime's words:
    /// `+10m`, `-10m`), through libfaketime. None where libfaketime is
    /// not installed.
    pub fn restart_agent_skewed(&mut self, i: usize, offset: &str) -> Option<()> {
        let lib = faketime_library()?;
        self.kill_agent(i);
        let lib = lib.to_str().expect("utf-8 path");
        self.start_agent_with_env(
            i,
            &[
                ("LD_PRELOAD", lib),
                ("FAKETIME", offset),
                ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
            ],
        );
        Some(())
    }

    /// Node `i`'s NodeAddr (Options::netns).
    pub fn node_addr(&self, i: usize) -> String {
        self.netns
            .as_ref()
            .expect("nodes in namespaces")
            .node_addr(i + 1)
    }

    /// The name, in this namespace, of node `i`'s link (Options::netns).
    pub fn node_link(&self, i: usize) -> String {
        self.netns
            .as_ref()
            .expect("nodes in namespaces")
            .veth(i + 1)
    }

    /// Cuts node `i`'s link (Options::netns): nothing passes either way,
    /// and connections stay open, as in a partition.
    pub fn cut_node(&self, i: usize) {
        let ns = self.netns.as_ref().expect("nodes in namespaces");
        ip(&["link", "set", &ns.veth(i + 1), "down"]).expect("link down");
    }

    /// Heals node `i`'s link.
    pub fn heal_node(&self, i: usize) {
        let ns = self.netns.as_ref().expect("nodes in namespaces");
        ip(&["link", "set", &ns.veth(i + 1), "up"]).expect("link up");
    }

    /// Holds node `i`'s link to `rate` (tc's words, `256kbit`) both ways,
    /// queueing up to two seconds of traffic.
    pub fn slow_node(&self, i: usize, rate: &str) {
        let ns = self.netns.as_ref().expect("nodes in namespaces");
        let tbf = [
            "root", "tbf", "rate", rate, "burst", "16kbit", "latency", "2s",
        ];
        let inside = ["ip", "netns", "exec", &ns.ns(i + 1), "tc"];
        for (tc, dev) in [(&["tc"][..], ns.veth(i + 1)), (&inside[..], "eth0".into())] {
            let ok = Command::new(tc[0])
                .args(&tc[1..])
                .args(["qdisc", "add", "dev", &dev])
                .args(tbf)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "tc qdisc add dev {dev} {tbf:?}");
        }
    }

    /// Drops `percent` of node `i`'s packets each way, at random
    /// (Options::lossy_links).
    pub fn lose_packets(&self, i: usize, percent: f64) {
        let ns = self.netns.as_ref().expect("nodes in namespaces");
        ns.lossy[i].set_loss(percent);
    }

    /// Packets node `i`'s lossy link has dropped, both ways.
    pub fn packets_lost(&self, i: usize) -> u64 {
        let ns = self.netns.as_ref().expect("nodes in namespaces");
        ns.lossy[i].dropped()
    }

    /// Starts (or restarts) agent `i` with its own slurm.conf.
    pub fn start_agent_with_conf(&mut self, i: usize, conf: &Path) {
        let name = self.agents[i].0.clone();
        let ns = self.netns.as_ref().map(|n| n.ns(i + 1));
        let args = ["agent", "--node", &name];
        let child = self.spurd_in(ns.as_deref(), &args, &format!("agent-{name}"), conf, &[]);
        self.agents[i].1 = Some(child);
    }

    /// Starts `spurd relay` listening on `socket`, with its own slurm.conf.
    pub fn start_relay_with_conf(&mut self, socket: &Path, conf: &Path) {
        let socket = socket.to_str().expect("utf-8 path");
        let child = self.spurd_with(&["relay", "--socket", socket], "relay", conf);
        self.others.push(("relay".into(), child));
    }

    /// Stops agent `i` with SIGSTOP: it holds its connection and reads
    /// nothing until it is killed.
    pub fn pause_agent(&mut self, i: usize) {
        if let Some(c) = &self.agents[i].1 {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(c.id() as i32, libc::SIGSTOP) };
        }
    }

    /// Kills agent `i` with SIGKILL.
    pub fn kill_agent(&mut self, i: usize) {
        if let Some(mut c) = self.agents[i].1.take() {
            c.kill().expect("kill -9");
            c.wait().expect("reaped");
        }
    }

    /// Runs a command with the cluster's environment, in the cluster folder.
    pub fn command(&self, cmd: &str, args: &[&str]) -> Command {
        use std::os::unix::process::CommandExt;
        let mut c = Command::new(self.bin.join(cmd));
        c.args(args)
            .env("SLURM_CONF", &self.conf)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .current_dir(self.dir.path());
        // salloc ends its command with SIGHUP when the allocation is
        // revoked, as Slurm's does: under a test run started by nohup the
        // command would inherit it ignored and outlive its allocation.
        // SAFETY: signal() is async-signal-safe, fit to run between fork
        // and exec.
        unsafe {
            c.pre_exec(|| {
                libc::signal(libc::SIGHUP, libc::SIG_DFL);
                Ok(())
            });
        }
        c
    }

    /// Runs a command and returns its output.
    pub fn run(&self, cmd: &str, args: &[&str]) -> Output {
        self.command(cmd, args).output().expect("command runs")
    }

    /// Runs a command with `stdin` as input.
    pub fn run_with_input(&self, cmd: &str, args: &[&str], stdin: &str) -> Output {
        let mut child = self
            .command(cmd, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("command runs");
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(stdin.as_bytes())
            .expect("writes stdin");
        child.wait_with_output().expect("command ends")
    }

    /// Submits a script given as text; returns the job id.
    pub fn submit(&self, args: &[&str], script: &str) -> u32 {
        let mut all = vec!["--parsable"];
        all.extend_from_slice(args);
        let out = self.run_with_input("sbatch", &all, script);
        assert!(
            out.status.success(),
            "sbatch failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("sbatch --parsable prints the id")
    }

    /// The ids of every job squeue lists (pending, running or ended),
    /// sorted.
    pub fn job_ids(&self) -> Vec<u32> {
        let out = self.run("squeue", &["-h", "-t", "all", "-o", "%i"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut ids: Vec<u32> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim().parse().expect("a job id"))
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The job's state as `squeue -o %T` prints it (None once gone).
    pub fn state(&self, job: u32) -> Option<String> {
        let out = self.run(
            "squeue",
            &["-h", "-j", &job.to_string(), "-o", "%T", "-t", "all"],
        );
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !text.is_empty()).then_some(text)
    }

    /// Waits until `check` holds, failing with `what` after `limit`.
    pub fn wait_for(&self, limit: Duration, what: &str, mut check: impl FnMut(&Cluster) -> bool) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if check(self) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("timed out waiting for {what}\n{}", self.logs());
    }

    /// Waits until the job reaches `state`.
    pub fn wait_state(&self, job: u32, state: &str) {
        self.wait_state_within(job, state, Duration::from_secs(30));
    }

    /// Waits until the job reaches `state`, at most `limit`.
    pub fn wait_state_within(&self, job: u32, state: &str, limit: Duration) {
        self.wait_for(limit, &format!("job {job} {state}"), |c| {
            c.state(job).as_deref() == Some(state)
        });
    }

    /// Every daemon's log, for failure messages: its warnings and errors
    /// (the last 20), then its last 15 lines.
    pub fn logs(&self) -> String {
        let mut all = String::new();
        let Ok(entries) = std::fs::read_dir(self.dir.path()) else {
            return all;
        };
        let mut logs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        logs.sort();
        for log in logs {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let last =
                |lines: Vec<&str>, n: usize| lines[lines.len().saturating_sub(n)..].join("\n");
            let warnings: Vec<&str> = text
                .lines()
                .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
                .collect();
            all.push_str(&format!("--- {}\n", log.display()));
            if !warnings.is_empty() {
                all.push_str(&format!(
                    "(its warnings and errors)\n{}\n(its end)\n",
                    last(warnings, 20)
                ));
            }
            all.push_str(&last(text.lines().collect(), 15));
            all.push('\n');
        }
        all
    }
}

impl Cluster {
    /// Jobs outlive their agents by design; a finished test kills what its
    /// jobs left running (every script's process group, from the spool).
    fn kill_jobs(&self) {
        let Ok(nodes) = std::fs::read_dir(self.dir.path().join("spool")) else {
            return;
        };
        for node in nodes.flatten() {
            let Ok(jobs) = std::fs::read_dir(node.path()) else {
                continue;
            };
            for job in jobs.flatten() {
                // The batch script's group, and each step's (stopped ones
                // too: SIGKILL ends a stopped process).
                let steps = std::fs::read_dir(job.path())
                    .into_iter()
                    .flatten()
                    .flatten();
                let script = spur_supervise::script_pid(&job.path());
                let steps = steps.filter_map(|s| {
                    let pgid = std::fs::read_to_string(s.path().join("pgid")).ok()?;
                    pgid.lines().next()?.trim().parse::<i32>().ok()
                });
                for pid in script.into_iter().chain(steps).filter(|&p| p > 1) {
                    // SAFETY: signalling a process group this test created.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
            }
        }
    }
}

/// Removes a cgroup and those inside it, once their processes are gone.
fn remove_cgroup(cg: &Path) {
    if let Ok(entries) = std::fs::read_dir(cg) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_cgroup(&e.path());
            }
        }
    }
    for _ in 0..100 {
        if std::fs::remove_dir(cg).is_ok() || !cg.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // A failed test leaves its cluster's folder (logs, state, job
        // output) to be read.
        if std::thread::panicking() {
            self.dir.disable_cleanup(true);
            eprintln!(
                "the failed test's cluster is kept in {}; its logs end:\n{}",
                self.dir.path().display(),
                self.logs()
            );
        }
        let mut crashed = Vec::new();
        let mut children: Vec<(String, Child)> = Vec::new();
        if let Some(c) = self.controller.take() {
            children.push(("controller".into(), c));
        }
        for (name, c) in &mut self.agents {
            if let Some(c) = c.take() {
                children.push((name.clone(), c));
            }
        }
        children.append(&mut self.others);
        // Jobs first: a node may hold stopped ones its agent waits for.
        self.kill_jobs();
        for (name, mut c) in children {
            if let Ok(Some(status)) = c.try_wait() {
                crashed.push(format!("{name} exited on its own: {status}"));
            }
            // SAFETY: signalling our own child process.
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            let _ = c.wait();
        }
        self.kill_jobs();
        if let Some(ns) = &self.netns {
            ns.remove();
        }
        // The controller's mesh interface outlives it (wireguard-go keeps
        // it, so that a restart finds it): it goes with the cluster.
        if let Some(mesh) = &self.mesh {
            let _ = ip(&["link", "del", &mesh.interface]);
        }
        if let Some(cg) = &self.memory_cgroup {
            remove_cgroup(cg);
        }
        if self.state_fs {
            let _ = Command::new("umount")
                .arg(self.dir.path().join("state"))
                .status();
        }
        if !crashed.is_empty() && !std::thread::panicking() {
            panic!("daemons died during the test: {crashed:?}\n{}", self.logs());
        }
    }
}
