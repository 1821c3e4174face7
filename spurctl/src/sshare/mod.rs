//! `sshare`: the fair-share tree (Slurm 22.05 `src/sshare/`): the root,
//! then each user's row. The command line and the round trip live here;
//! the rows and the report are spur-report's.

pub mod args;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use spur_report::print_fields::{Parsable, Style};
use spur_report::sshare::{default_format, help_format, parse_format, render, Options};

use self::args::SshareArgs;
use crate::controller::{Api, Live};

/// The options sshare accepts and does not act on: spur answers for its
/// own cluster and keeps no accounts.
pub const NOT_ACTED: &[&str] = &["cluster"];

/// Which users' rows: None for every user's.
pub fn wanted_users(a: &SshareArgs, me: &dyn Fn() -> String) -> Option<Vec<String>> {
    if a.all || a.users.as_deref() == Some("-1") {
        return None;
    }
    let named: Vec<String> = a
        .users
        .iter()
        .flat_map(|u| spur_conf::comma_list(u))
        .collect();
    Some(if named.is_empty() { vec![me()] } else { named })
}

/// Runs `sshare`.
pub fn run(argv: Vec<OsString>) -> ExitCode {
    let last = argv.last().cloned().unwrap_or_default();
    let a = match SshareArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            eprint!("{}", crate::getopt::error("sshare", &e, &last));
            return ExitCode::from(1);
        }
    };
    if a.help || a.usage {
        print!("{}", args::USAGE);
        return ExitCode::SUCCESS;
    }
    if a.version {
        println!("slurm {}", spur_proto::SLURM_COMPAT_VERSION);
        return ExitCode::SUCCESS;
    }
    if a.helpformat {
        print!("{}", help_format());
        return ExitCode::SUCCESS;
    }
    if a.cluster.is_some() {
        eprintln!("sshare: warning: --cluster is not supported by spur; asking this cluster");
    }
    let format = if a.format.is_empty() {
        default_format(a.long, a.partition)
    } else {
        a.format.join(",")
    };
    let columns = match parse_format(&format) {
        Ok(c) => c,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    let me = || spur_sys::users::name_of(spur_sys::users::current_uid());
    let mut wanted = wanted_users(&a, &me);
    if !a.accounts.is_empty() {
        eprintln!("sshare: warning: spur keeps no accounts; no user is under one");
        wanted = Some(Vec::new());
    }
    let shares = match Live.shares() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Couldn't get shares from controller: {e}");
            return ExitCode::from(255);
        }
    };
    let cluster = if columns
        .iter()
        .any(|c| c.field == spur_report::sshare::Field::Cluster)
    {
        crate::controller::cluster_name().unwrap_or_default()
    } else {
        String::new()
    };
    let parsable = if a.parsable2 {
        Parsable::NoEnding
    } else if a.parsable {
        Parsable::Ending
    } else {
        Parsable::No
    };
    let rows = spur_report::shares::rows(&shares, wanted.as_deref());
    let options = Options {
        columns: &columns,
        no_header: a.noheader || a.no_header_h,
        users_only: a.users_only,
        style: Style {
            parsable,
            delimiter: None,
        },
        cluster: &cluster,
    };
    print!("{}", render(&rows, &options));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(argv: &[&str]) -> SshareArgs {
        SshareArgs::try_parse_from(std::iter::once("sshare").chain(argv.iter().copied()))
            .expect("parses")
    }

    #[test]
    fn users_are_the_callers_unless_named_or_all() {
        let me = || "alice".to_string();
        assert_eq!(wanted_users(&args(&[]), &me), Some(vec!["alice".into()]));
        assert_eq!(wanted_users(&args(&["-a"]), &me), None);
        assert_eq!(wanted_users(&args(&["-u", "-1"]), &me), None);
        assert_eq!(
            wanted_users(&args(&["-u", "bob,carol"]), &me),
            Some(vec!["bob".into(), "carol".into()])
        );
        let a = args(&["-o", "User", "--format=ID", "-hP"]);
        assert_eq!(a.format, ["User", "ID"]);
        assert!(a.no_header_h && a.parsable2);
    }
}
