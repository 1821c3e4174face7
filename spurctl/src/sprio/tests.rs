//! sprio's command line, read as Slurm's sprio reads it.

use clap::Parser;

use super::args::SprioArgs;
use super::{plan, Plan};

fn args(argv: &[&str]) -> Result<SprioArgs, clap::Error> {
    SprioArgs::try_parse_from(std::iter::once("sprio").chain(argv.iter().copied()))
}

fn planned(argv: &[&str], env: Option<&str>) -> Result<Plan, String> {
    let a = args(argv).expect("parses");
    let env = |name: &str| {
        (name == "SPRIO_FORMAT")
            .then(|| env.map(str::to_string))
            .flatten()
    };
    let uid_of = |name: &str| match name {
        "alice" => Some(1001),
        "root" => Some(0),
        _ => None,
    };
    let mut job_id = |text: &str| text.parse::<u32>().ok();
    plan(&a, &env, &uid_of, &mut job_id)
}

#[test]
fn jobs_come_with_j_or_after_it() {
    assert_eq!(planned(&["-j12,14"], None).unwrap().query.jobs, [12, 14]);
    assert_eq!(planned(&["--jobs=12"], None).unwrap().query.jobs, [12]);
    // getopt's optional argument: `-j 12` leaves 12 as a word, which
    // sprio takes as the list because -j came.
    let p = planned(&["-j", "12,13"], None).unwrap();
    assert_eq!((p.query.jobs, p.jobs_named), (vec![12, 13], true));
    let p = planned(&[], None).unwrap();
    assert!(p.query.jobs.is_empty() && !p.jobs_named);
    assert_eq!(
        planned(&["12"], None).unwrap_err(),
        format!(
            "sprio: error: Unrecognized option: 12\n{}",
            super::args::USAGE
        )
    );
    assert_eq!(
        planned(&["-j", "1x"], None).unwrap_err(),
        "sprio: error: Invalid job id: 1x\n"
    );
}

#[test]
fn users_partitions_and_formats() {
    let p = planned(&["-u", "alice,nobody-here,root", "-p", "a,b"], None).unwrap();
    assert_eq!(p.query.users, Some(vec![1001, 0]));
    assert_eq!(
        p.query.partitions,
        Some(vec!["a".to_string(), "b".to_string()])
    );
    // Named users none of whom this host knows select no job.
    let p = planned(&["-u", "nobody-here"], None).unwrap();
    assert_eq!(p.query.users, Some(vec![]));
    assert_eq!(planned(&[], None).unwrap().query.users, None);
    assert_eq!(p.errors, ["sprio: error: Invalid user: nobody-here\n\n"]);
    assert_eq!(p.sort, "i");
    assert_eq!(
        planned(&[], Some("%i %Y")).unwrap().format.as_deref(),
        Some("%i %Y")
    );
    let from_o = planned(&["-o", "%i"], Some("%i %Y")).unwrap();
    assert_eq!(from_o.format.as_deref(), Some("%i"));
    assert_eq!(planned(&["-l"], Some("%i %Y")).unwrap().format, None);
    assert!(planned(&["-l", "-o", "%i"], None)
        .unwrap_err()
        .contains("mutually exclusive"));
    assert_eq!(planned(&["-S", "-y"], None).unwrap().sort, "-y");
}

#[test]
fn unknown_options_get_getopts_words() {
    let e = args(&["-x"]).unwrap_err();
    assert_eq!(
        crate::getopt::error("sprio", &e, "-x".as_ref()),
        "sprio: invalid option -- 'x'\nTry \"sprio --help\" for more information\n"
    );
}
