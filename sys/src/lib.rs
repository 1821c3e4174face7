//! spur-sys: this host's facts as libc gives them, in one place for the
//! daemon and every front end: users and groups from the passwd and group
//! databases, the host's short name, and this process's umask.

pub mod users;

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

/// This process's file mode creation mask.
pub fn umask() -> u32 {
    // SAFETY: umask cannot fail; it is set back at once to what it was.
    unsafe {
        let mask = libc::umask(0o022);
        libc::umask(mask);
        mask as u32
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_short_host_name_has_no_dot() {
        let name = super::short_hostname();
        assert!(!name.is_empty() && !name.contains('.'), "{name}");
    }
}
