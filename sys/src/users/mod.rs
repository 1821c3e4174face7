//! Users and groups from the passwd and group databases: names for ids and
//! ids for names, primary groups and home folders. What is found is
//! remembered for a minute ([`REMEMBERED`]), as nscd would: a daemon asks
//! for the same few users with every request, and each lookup reads the
//! databases anew (files, or a directory service over the network).
//! A statically linked program reads them through [`files`] instead of the
//! C library's name service switch.

mod files;

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::hash::Hash;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// How long a user or group found is remembered; a change to the
/// databases is seen within this time. What is not found is not
/// remembered, so that a user added a moment ago is found at once.
pub const REMEMBERED: Duration = Duration::from_secs(60);

/// Entries remembered at most of each kind (all are forgotten when more
/// would be).
const MOST: usize = 4096;

/// Whether this program is linked statically, and so must not use the C
/// library's name service switch (see [`files`]).
const STATIC: bool = cfg!(target_feature = "crt-static");

/// Lookups of one kind, remembered.
struct Remembered<K, V>(OnceLock<Mutex<HashMap<K, (Instant, V)>>>);

impl<K: Hash + Eq, V: Clone> Remembered<K, V> {
    const fn new() -> Self {
        Remembered(OnceLock::new())
    }

    /// The remembered value of `key`, else what `look` finds (remembered
    /// when found).
    fn get(&self, key: K, look: impl FnOnce(&K) -> Option<V>) -> Option<V> {
        let map = self.0.get_or_init(Mutex::default);
        let lock = || map.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((at, v)) = lock().get(&key) {
            if at.elapsed() < REMEMBERED {
                return Some(v.clone());
            }
        }
        let found = look(&key)?;
        let mut m = lock();
        if m.len() >= MOST {
            m.clear();
        }
        m.insert(key, (Instant::now(), found.clone()));
        Some(found)
    }
}

static USERS: Remembered<u32, User> = Remembered::new();
static UIDS: Remembered<String, u32> = Remembered::new();
static GROUPS: Remembered<u32, String> = Remembered::new();
static GIDS: Remembered<String, u32> = Remembered::new();

/// A user as the passwd database knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The uid.
    pub uid: u32,
    /// The primary gid (the uid when the user is unknown).
    pub gid: u32,
    /// The name (the uid as text when unknown).
    pub name: String,
    /// The home directory (`/` when unknown).
    pub home: String,
}

/// The real uid of this process.
pub fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The user with `uid`; an unknown uid gets its number as name.
pub fn user(uid: u32) -> User {
    USERS
        .get(uid, |&uid| passwd_by_uid(uid))
        .unwrap_or_else(|| User {
            uid,
            gid: uid,
            name: uid.to_string(),
            home: "/".into(),
        })
}

fn passwd_by_uid(uid: u32) -> Option<User> {
    if STATIC {
        return files::passwd_by_uid(uid);
    }
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
        return None;
    }
    // SAFETY: on success the strings point into buf, NUL-terminated.
    let (name, home) = unsafe {
        (
            CStr::from_ptr(pwd.pw_name).to_string_lossy().into_owned(),
            CStr::from_ptr(pwd.pw_dir).to_string_lossy().into_owned(),
        )
    };
    Some(User {
        uid,
        gid: pwd.pw_gid,
        name,
        home,
    })
}

/// The name of uid `uid`, or the number as text if it has none.
pub fn name_of(uid: u32) -> String {
    user(uid).name
}

/// The uid of user `name`, or of a numeric uid given as text.
pub fn uid_of(name: &str) -> Option<u32> {
    if let Ok(uid) = name.parse::<u32>() {
        return Some(uid);
    }
    UIDS.get(name.to_string(), |name| passwd_by_name(name))
}

fn passwd_by_name(name: &str) -> Option<u32> {
    if STATIC {
        return files::passwd_by_name(name);
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

/// The gid of group `name`, or of a numeric gid given as text.
pub fn gid_of(name: &str) -> Option<u32> {
    if let Ok(gid) = name.parse::<u32>() {
        return Some(gid);
    }
    GIDS.get(name.to_string(), |name| group_by_name(name))
}

fn group_by_name(name: &str) -> Option<u32> {
    if STATIC {
        return files::group_by_name(name);
    }
    let cname = CString::new(name).ok()?;
    let mut buf = vec![0u8; 64 * 1024];
    // SAFETY: a zeroed group is a valid out-parameter for getgrnam_r.
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::group = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call and buf outlives its use.
    let rc = unsafe {
        libc::getgrnam_r(
            cname.as_ptr(),
            &mut grp,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut result,
        )
    };
    (rc == 0 && !result.is_null()).then_some(grp.gr_gid)
}

/// The groups of user `name` whose primary group is `gid`, `gid` among
/// them (initgroups' list, read here so that a process started later can
/// take it with setgroups without reading the databases itself). Empty
/// when the lookup fails (an unknown user gets `gid` alone).
pub fn group_list(name: &str, gid: u32) -> Vec<u32> {
    if STATIC {
        return files::group_list(name, gid);
    }
    let Ok(cname) = CString::new(name) else {
        return Vec::new();
    };
    let mut groups: Vec<libc::gid_t> = vec![0; 64];
    loop {
        let mut n = groups.len() as libc::c_int;
        // SAFETY: `groups` holds `n` entries; getgrouplist writes at most
        // that many and sets `n` to how many there are.
        let rc = unsafe { libc::getgrouplist(cname.as_ptr(), gid, groups.as_mut_ptr(), &mut n) };
        if rc >= 0 {
            groups.truncate(n.max(0) as usize);
            return groups;
        }
        if n as usize <= groups.len() {
            // No bigger list was asked for: the lookup failed.
            return Vec::new();
        }
        groups.resize(n as usize, 0);
    }
}

/// The name of group `gid` (the number as text when unknown).
pub fn group_name(gid: u32) -> String {
    GROUPS
        .get(gid, |&gid| group_by_gid(gid))
        .unwrap_or_else(|| gid.to_string())
}

fn group_by_gid(gid: u32) -> Option<String> {
    if STATIC {
        return files::group_by_gid(gid);
    }
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
        return None;
    }
    // SAFETY: on success gr_name points into buf, NUL-terminated.
    let name = unsafe { CStr::from_ptr(grp.gr_name) };
    Some(name.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_found_every_way() {
        let root = user(0);
        assert_eq!((root.name.as_str(), root.gid), ("root", 0));
        assert_eq!(name_of(0), "root");
        assert_eq!(uid_of("root"), Some(0));
        assert_eq!(uid_of("1234"), Some(1234));
        assert_eq!(uid_of("no-such-user-here"), None);
        assert_eq!(gid_of("root"), Some(0));
        assert_eq!(gid_of("no-such-group-here"), None);
        assert_eq!(group_name(0), "root");
    }

    #[test]
    fn unknown_ids_are_their_numbers() {
        let nobody = user(4_000_000_123);
        assert_eq!(
            (nobody.name.as_str(), nobody.gid),
            ("4000000123", 4_000_000_123)
        );
        assert_eq!(group_name(4_000_000_123), "4000000123");
    }

    #[test]
    fn what_is_found_is_remembered_and_what_is_not_is_looked_for_again() {
        let kept: Remembered<u32, String> = Remembered::new();
        let looks = std::cell::Cell::new(0);
        let look = |found: bool| {
            let looks = &looks;
            move |k: &u32| {
                looks.set(looks.get() + 1);
                found.then(|| k.to_string())
            }
        };
        assert_eq!(kept.get(7, look(false)), None);
        assert_eq!(kept.get(7, look(false)), None);
        assert_eq!(looks.get(), 2);
        assert_eq!(kept.get(7, look(true)).as_deref(), Some("7"));
        assert_eq!(kept.get(7, look(true)).as_deref(), Some("7"));
        assert_eq!(looks.get(), 3);
    }
}
