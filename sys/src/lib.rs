//! spur-sys: this host's facts as libc gives them, in one place for the
//! daemon and every front end: users and groups from the passwd and group
//! databases, the host's short name, a peer's host name, this process's
//! umask, random bytes from the kernel, the calling thread's scheduling
//! priority, helper threads kept off their caller's CPU, how the C
//! allocator gives back large blocks, a hint to bring memory into the
//! CPU's caches, an allocator that gives large blocks huge pages, and, for
//! a static musl program, a faster allocator and copy than musl's own; and
//! a file's rewrite in place that spares ext4 a flush.

pub mod apart;
pub mod hardware;
pub mod large_pages;
pub mod musl;
pub mod users;

pub use apart::spawn_apart;
pub use large_pages::LargePages;

/// `buf` filled with random bytes from the kernel (getrandom(2), which
/// needs no /dev: it works in a bare chroot too).
pub fn random_bytes(buf: &mut [u8]) -> std::io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let rest = &mut buf[filled..];
        // SAFETY: rest is valid for writes of its length.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(())
}

/// Makes the C allocator give every block of `bytes` or more a mapping of
/// its own, unmapped when freed. glibc starts so at 128 KiB but raises
/// that bound to the largest block freed, after which large short-lived
/// blocks (a listing of 10,000 jobs is a megabyte) come from, and stay in,
/// the heap of the thread that made them: a daemon's memory grows by its
/// largest answer per thread. Setting the bound keeps it fixed. False
/// when the allocator refused it; without glibc (musl), nothing to do.
pub fn unmap_blocks_from(bytes: usize) -> bool {
    #[cfg(target_env = "gnu")]
    {
        let bytes = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only sets the allocator's parameter; a value it
        // does not take is refused by its return (0).
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, bytes) == 1 }
    }
    #[cfg(not(target_env = "gnu"))]
    {
        let _ = bytes;
        true
    }
}

/// Asks the CPU to bring `value` into its caches, every cache line of it,
/// ahead of its use: for a walk over values scattered in memory (a job
/// and its metadata, boxed apart), whose reads would otherwise wait for
/// memory one at a time. A hint only: nothing is read, nothing can fault.
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64;
        let start = (value as *const T).cast::<i8>();
        for offset in (0..std::mem::size_of::<T>()).step_by(LINE) {
            // SAFETY: a prefetch never faults nor reads into the program;
            // the address is inside `value`.
            #[allow(unused_unsafe)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset))
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Lowers the calling thread (not its process) to the lowest scheduling
/// priority (nice 19): for background work that must not slow the
/// threads that answer.
pub fn background_thread() -> std::io::Result<()> {
    // SAFETY: gettid has no preconditions; setpriority with a thread id
    // changes that thread's nice value on Linux.
    let rc = unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The short host name (gethostname, cut at the first dot);
/// `localhost` when the name cannot be read.
pub fn short_hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is valid for its length; gethostname NUL-terminates
    // within it or truncates.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    match name.split('.').next() {
        Some(short) if rc == 0 && !short.is_empty() => short.to_string(),
        _ => "localhost".into(),
    }
}

/// The host name of `ip` as the hosts database or DNS gives it
/// (getnameinfo with NI_NAMEREQD); None when it has none.
pub fn host_name_of(ip: std::net::IpAddr) -> Option<String> {
    let mut host = [0u8; 1025];
    let rc = match ip {
        std::net::IpAddr::V4(v4) => {
            let sa = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: 0,
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(v4.octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sa is a valid sockaddr_in of the length given, and
            // host is valid for its length; getnameinfo NUL-terminates.
            unsafe {
                libc::getnameinfo(
                    (&sa as *const libc::sockaddr_in).cast(),
                    std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                    host.as_mut_ptr().cast(),
                    host.len() as libc::socklen_t,
                    std::ptr::null_mut(),
                    0,
                    libc::NI_NAMEREQD,
                )
            }
        }
        std::net::IpAddr::V6(v6) => {
            // SAFETY: a zeroed sockaddr_in6 is valid; its fields are set below.
            let mut sa: libc::sockaddr_in6 = unsafe { std::mem::zeroed() };
            sa.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sa.sin6_addr = libc::in6_addr {
                s6_addr: v6.octets(),
            };
            // SAFETY: as above, for a sockaddr_in6.
            unsafe {
                libc::getnameinfo(
                    (&sa as *const libc::sockaddr_in6).cast(),
                    std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
                    host.as_mut_ptr().cast(),
                    host.len() as libc::socklen_t,
                    std::ptr::null_mut(),
                    0,
                    libc::NI_NAMEREQD,
                )
            }
        }
    };
    if rc != 0 {
        return None;
    }
    let end = host.iter().position(|&b| b == 0).unwrap_or(host.len());
    Some(String::from_utf8_lossy(&host[..end]).into_owned())
}

/// This process's file mode creation mask.
pub fn umask() -> u32 {
    // SAFETY: umask cannot fail; it is set back at once to what it was.
    unsafe {
        let mask = libc::umask(0o022);
        libc::umask(mask);
        mask as u32
    }
}

/// Writes `bytes` over what the open `file` holds, from its start, and
/// cuts off whatever it held beyond them, without ever emptying it first
/// (as opening it with `O_TRUNC` would). ext4 writes a file out to disk
/// at once when it is closed after being cut to nothing (its
/// `auto_da_alloc` guard against a lost rewrite) and, mounted with
/// `discard`, waits for the disk to discard the blocks it freed: a write
/// a file kept for reuse need not pay each time.
pub fn rewrite(file: &std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, 0)?;
    let len = bytes.len() as u64;
    if file.metadata()?.len() > len {
        file.set_len(len)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_is_rewritten_in_place_and_cut_to_its_new_length() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("f");
        std::fs::write(&path, "a longer first text").expect("writes");
        let inode = std::fs::metadata(&path).expect("is there").ino();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opens");
        super::rewrite(&file, b"short").expect("rewrites");
        assert_eq!(std::fs::read(&path).expect("reads"), b"short");
        super::rewrite(&file, b"longer than before").expect("rewrites");
        assert_eq!(std::fs::read(&path).expect("reads"), b"longer than before");
        assert_eq!(std::fs::metadata(&path).expect("is there").ino(), inode);
    }

    #[test]
    fn the_short_host_name_has_no_dot() {
        let name = super::short_hostname();
        assert!(!name.is_empty() && !name.contains('.'), "{name}");
    }

    #[test]
    fn loopback_has_a_name_in_the_hosts_database() {
        let name = super::host_name_of("127.0.0.1".parse().expect("an address"));
        assert_eq!(name.as_deref(), Some("localhost"));
    }

    #[test]
    fn a_background_thread_is_lowered_alone() {
        let nice = || {
            // SAFETY: as in background_thread.
            unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
        };
        let before = nice();
        let lowered = std::thread::spawn(move || {
            super::background_thread().expect("lowers");
            nice()
        })
        .join()
        .expect("joins");
        assert_eq!(lowered, 19);
        assert_eq!(nice(), before, "the calling thread keeps its priority");
    }
}
