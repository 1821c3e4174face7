//! A network link that loses packets at random, for kernels without
//! sch_netem: a tun device in this namespace and one in a node's, joined
//! by a thread that copies each IP packet across unless a draw says to
//! drop it, as `tc qdisc add ... netem loss P%` would.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// `_IOW('T', 202, int)`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

/// One link: its loss rate is set while it runs.
pub struct LossyLink {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    /// Packets dropped per million.
    loss_ppm: AtomicU32,
    dropped: AtomicU64,
    stop: AtomicBool,
}

impl LossyLink {
    /// Makes tun device `here` in this namespace and `there` in network
    /// namespace `ns` (made by `ip netns add`), joined; they lose nothing
    /// until [`LossyLink::set_loss`]. Addresses and routes are the
    /// caller's, as on a veth pair.
    pub fn make(here: &str, ns: &str, there: &str) -> Result<LossyLink, String> {
        let near = open_tun(here).map_err(|e| format!("tun {here}: {e}"))?;
        let far = open_tun_in(ns, there).map_err(|e| format!("tun {there} in {ns}: {e}"))?;
        let shared = Arc::new(Shared {
            loss_ppm: AtomicU32::new(0),
            dropped: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let copier = Arc::clone(&shared);
        let thread = std::thread::spawn(move || copy_both_ways(&near, &far, &copier));
        Ok(LossyLink {
            shared,
            thread: Some(thread),
        })
    }

    /// Drops `percent` of the packets each way from now on.
    pub fn set_loss(&self, percent: f64) {
        let ppm = (percent.clamp(0.0, 100.0) * 10_000.0) as u32;
        self.shared.loss_ppm.store(ppm, Ordering::Relaxed);
    }

    /// Packets dropped so far, both ways.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for LossyLink {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A tun device named `name` (IP packets, no header), in this thread's
/// network namespace; it lives while the file is open.
fn open_tun(name: &str) -> std::io::Result<File> {
    let file = File::options()
        .read(true)
        .write(true)
        .open("/dev/net/tun")?;
    // struct ifreq: the name (16 bytes), then the flags (a short).
    let mut req = [0u8; 40];
    let bytes = name.as_bytes();
    if bytes.len() >= 16 {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    req[..bytes.len()].copy_from_slice(bytes);
    let flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    req[16..18].copy_from_slice(&flags.to_ne_bytes());
    // SAFETY: req is a zeroed ifreq-sized buffer that outlives the call.
    if unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF, req.as_mut_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

/// [`open_tun`] in namespace `ns`, from a thread that enters it for this
/// alone.
fn open_tun_in(ns: &str, name: &str) -> std::io::Result<File> {
    let path = format!("/run/netns/{ns}");
    std::thread::scope(|s| {
        s.spawn(|| {
            let target = File::open(&path)?;
            // SAFETY: setns on an open namespace file; it changes this
            // thread's network namespace only.
            if unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            open_tun(name)
        })
        .join()
        .expect("the namespace thread ends")
    })
}

/// Copies packets between `a` and `b` until told to stop or a device goes
/// away, dropping each with the link's chance.
fn copy_both_ways(a: &File, b: &File, shared: &Shared) {
    let mut buf = vec![0u8; 65_536];
    let mut draw = Draw::new();
    while !shared.stop.load(Ordering::Relaxed) {
        let mut fds = [a, b].map(|f| libc::pollfd {
            fd: f.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        // SAFETY: fds is an array of two pollfds that outlives the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, 100) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        for (fd, (mut from, mut to)) in fds.iter().zip([(a, b), (b, a)]) {
            if fd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                return;
            }
            if fd.revents & libc::POLLIN == 0 {
                continue;
            }
            let Ok(n) = from.read(&mut buf) else {
                return;
            };
            if draw.below(shared.loss_ppm.load(Ordering::Relaxed)) {
                shared.dropped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            // A device that is down refuses the packet: lost, as on a cut
            // wire.
            let _ = to.write(&buf[..n]);
        }
    }
}

/// xorshift64*: draws enough for a coin, seeded from the clock.
struct Draw(u64);

impl Draw {
    fn new() -> Draw {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Draw(nanos | 1)
    }

    /// True with a chance of `ppm` in a million.
    fn below(&mut self, ppm: u32) -> bool {
        if ppm == 0 {
            return false;
        }
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 32) % 1_000_000 < u64::from(ppm)
    }
}
