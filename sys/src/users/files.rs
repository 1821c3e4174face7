//! The passwd and group databases without the C library's name service
//! switch, for a statically linked program: a static glibc cannot load the
//! modules that `nsswitch.conf` names (`systemd`, `sss`, `ldap`; loading
//! one crashes it). The files are read here, and what they lack is asked of
//! `getent`, a dynamically linked program that loads them all.

use std::process::{Command, Stdio};

use super::User;

/// The passwd file.
const PASSWD: &str = "/etc/passwd";
/// The group file.
const GROUP: &str = "/etc/group";

/// A passwd line's user (`name:password:uid:gid:gecos:home:shell`).
fn passwd_entry(line: &str) -> Option<User> {
    let f: Vec<&str> = line.split(':').collect();
    if f.len() < 7 {
        return None;
    }
    Some(User {
        name: f[0].to_string(),
        uid: f[2].parse().ok()?,
        gid: f[3].parse().ok()?,
        home: f[5].to_string(),
    })
}

/// A group line's name, gid and members (`name:password:gid:a,b`).
fn group_entry(line: &str) -> Option<(&str, u32, impl Iterator<Item = &str>)> {
    let f: Vec<&str> = line.splitn(4, ':').collect();
    if f.len() < 4 {
        return None;
    }
    let members = f[3].split(',').map(str::trim).filter(|m| !m.is_empty());
    Some((f[0], f[2].parse().ok()?, members))
}

/// The first entry of the file at `path` that `pick` takes.
fn in_file<T>(path: &str, pick: impl FnMut(&str) -> Option<T>) -> Option<T> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().find_map(pick)
}

/// What `getent DATABASE KEY` prints, when it finds the key.
fn getent(database: &str, key: &str) -> Option<String> {
    let out = Command::new("getent")
        .args([database, key])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()
}

/// The user with `uid`.
pub(super) fn passwd_by_uid(uid: u32) -> Option<User> {
    in_file(PASSWD, |l| passwd_entry(l).filter(|u| u.uid == uid))
        .or_else(|| passwd_entry(getent("passwd", &uid.to_string())?.trim_end()))
}

/// The uid of user `name`.
pub(super) fn passwd_by_name(name: &str) -> Option<u32> {
    let named = |l: &str| passwd_entry(l).filter(|u| u.name == name);
    in_file(PASSWD, named)
        .or_else(|| named(getent("passwd", name)?.trim_end()))
        .map(|u| u.uid)
}

/// The gid of group `name`.
pub(super) fn group_by_name(name: &str) -> Option<u32> {
    let named = |l: &str| group_entry(l).filter(|g| g.0 == name).map(|g| g.1);
    in_file(GROUP, named).or_else(|| named(getent("group", name)?.trim_end()))
}

/// The name of group `gid`.
pub(super) fn group_by_gid(gid: u32) -> Option<String> {
    let numbered = |l: &str| {
        group_entry(l)
            .filter(|g| g.1 == gid)
            .map(|g| g.0.to_string())
    };
    in_file(GROUP, numbered).or_else(|| numbered(getent("group", &gid.to_string())?.trim_end()))
}

/// The groups of user `name` with primary group `gid`: `getent initgroups`
/// (every source), else the group file's memberships.
pub(super) fn group_list(name: &str, gid: u32) -> Vec<u32> {
    let mut groups = vec![gid];
    match getent("initgroups", name) {
        // "name   gid gid ..."
        Some(line) => groups.extend(
            line.split_whitespace()
                .skip(1)
                .filter_map(|g| g.parse::<u32>().ok()),
        ),
        None => {
            let text = std::fs::read_to_string(GROUP).unwrap_or_default();
            for (_, g, mut members) in text.lines().filter_map(group_entry) {
                if members.any(|m| m == name) {
                    groups.push(g);
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    groups.retain(|g| seen.insert(*g));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_the_files_parse() {
        let u = passwd_entry("ann:x:1001:100:Ann A,,,:/home/ann:/bin/bash").unwrap();
        assert_eq!((u.name.as_str(), u.uid, u.gid), ("ann", 1001, 100));
        assert_eq!(u.home, "/home/ann");
        assert!(passwd_entry("broken:x:1").is_none());
        assert!(passwd_entry("bad:x:uid:100:::").is_none());
        let (name, gid, members) = group_entry("video:x:44:ann, bob").unwrap();
        assert_eq!((name, gid), ("video", 44));
        assert_eq!(members.collect::<Vec<_>>(), ["ann", "bob"]);
        let (_, _, members) = group_entry("empty:x:45:").unwrap();
        assert_eq!(members.count(), 0);
    }

    #[test]
    fn the_files_and_getent_agree_with_the_c_library() {
        assert_eq!(passwd_by_uid(0).map(|u| u.name).as_deref(), Some("root"));
        assert_eq!(passwd_by_name("root"), Some(0));
        assert_eq!(group_by_name("root"), Some(0));
        assert_eq!(group_by_gid(0).as_deref(), Some("root"));
        let asked = getent("passwd", "0").expect("getent knows root");
        assert_eq!(
            passwd_entry(asked.trim_end()).map(|u| u.name).as_deref(),
            Some("root")
        );
        assert_eq!(getent("passwd", "no-such-user-here"), None);
        assert_eq!(passwd_by_name("no-such-user-here"), None);
        assert_eq!(group_by_gid(4_000_000_123), None);
        let mine = group_list("root", 0);
        assert_eq!(mine.first(), Some(&0));
        assert_eq!(mine, super::super::group_list("root", 0));
    }
}
