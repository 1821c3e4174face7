//! Users and groups from the passwd and group databases: names for uids,
//! primary groups, and the supplementary groups a job runs with.

use std::ffi::{CStr, CString};

/// A user as the passwd database knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The uid.
    pub uid: u32,
    /// The primary gid (the uid when the user is unknown).
    pub gid: u32,
    /// The name (the uid as text when unknown).
    pub name: String,
    /// The home directory.
    pub home: String,
}

/// The user with `uid`; an unknown uid gets its number as name.
pub fn user(uid: u32) -> User {
    let mut buf = vec![0u8; 16 * 1024];
    // SAFETY: a zeroed passwd is a valid out-parameter for getpwuid_r.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call and buf outlives its use.
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            &mut pwd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut result,
        )
    };
    if rc != 0 || result.is_null() {
        return User {
            uid,
            gid: uid,
            name: uid.to_string(),
            home: "/".into(),
        };
    }
    // SAFETY: on success the strings point into buf, NUL-terminated.
    let (name, home) = unsafe {
        (
            CStr::from_ptr(pwd.pw_name).to_string_lossy().into_owned(),
            CStr::from_ptr(pwd.pw_dir).to_string_lossy().into_owned(),
        )
    };
    User {
        uid,
        gid: pwd.pw_gid,
        name,
        home,
    }
}

/// The uid of user `name`.
pub fn uid_of(name: &str) -> Option<u32> {
    if let Ok(uid) = name.parse() {
        return Some(uid);
    }
    let cname = CString::new(name).ok()?;
    let mut buf = vec![0u8; 16 * 1024];
    // SAFETY: a zeroed passwd is a valid out-parameter for getpwnam_r.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call and buf outlives its use.
    let rc = unsafe {
        libc::getpwnam_r(
            cname.as_ptr(),
            &mut pwd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut result,
        )
    };
    (rc == 0 && !result.is_null()).then_some(pwd.pw_uid)
}

/// The name of group `gid` (the number as text when unknown).
pub fn group_name(gid: u32) -> String {
    let mut buf = vec![0u8; 64 * 1024];
    // SAFETY: a zeroed group is a valid out-parameter for getgrgid_r.
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::group = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call and buf outlives its use.
    let rc = unsafe {
        libc::getgrgid_r(
            gid,
            &mut grp,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut result,
        )
    };
    if rc != 0 || result.is_null() {
        return gid.to_string();
    }
    // SAFETY: on success gr_name points into buf, NUL-terminated.
    unsafe { CStr::from_ptr(grp.gr_name) }
        .to_string_lossy()
        .into_owned()
}

/// The short host name of this machine.
pub fn short_hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is valid for its length; gethostname NUL-terminates on
    // success when the name fits.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    name.split('.').next().unwrap_or("localhost").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_resolves() {
        let root = user(0);
        assert_eq!(root.name, "root");
        assert_eq!(root.gid, 0);
        assert_eq!(uid_of("root"), Some(0));
        assert_eq!(group_name(0), "root");
        assert_eq!(user(4_000_000).name, "4000000");
    }
}
