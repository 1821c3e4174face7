//! sinfo tests: golden cases recorded from Slurm 22.05.8 (`golden/`), and
//! unit tests for the command line, formats, states and padding.

use clap::Parser;

use super::args::SinfoArgs;
use super::fixture::{self, golden, NOW};
use super::format::{self, Field, Item};
use super::json;
use super::render::num_unit;
use super::state::{self, StateFilter, StateSelector};
use super::{render, Options, SinfoEnv};
use serde_json::Value as Json;
use spur_slurm::locale::utc;

fn args(argv: &[&str]) -> SinfoArgs {
    SinfoArgs::try_parse_from(std::iter::once("sinfo").chain(argv.iter().copied()))
        .expect("valid sinfo arguments")
}

fn sinfo(argv: &[&str]) -> String {
    let opts = Options::from_args(&args(argv), &SinfoEnv::default()).expect("valid options");
    render(
        &fixture::nodes(),
        &fixture::partitions(),
        NOW,
        &opts,
        &utc::locale(),
    )
}

fn assert_golden(recorded: &str, actual: &str) {
    let (expected, code) = golden(recorded);
    assert_eq!(code, 0);
    assert_eq!(
        actual, expected,
        "\n--- actual ---\n{actual}--- expected ---\n{expected}"
    );
}

#[test]
fn default_output_matches_slurm() {
    assert_golden(include_str!("golden/20-sinfo-default.txt"), &sinfo(&[]));
}

#[test]
fn node_long_output_matches_slurm() {
    assert_golden(
        include_str!("golden/21-sinfo-N-l.txt"),
        &sinfo(&["-N", "-l"]),
    );
}

#[test]
fn custom_format_matches_slurm() {
    let out = sinfo(&["-o", "%P %a %l %D %t %N %G %f"]);
    assert_golden(include_str!("golden/22-sinfo-custom.txt"), &out);
}

#[test]
fn summarize_matches_slurm() {
    assert_golden(
        include_str!("golden/23-sinfo-summarize.txt"),
        &sinfo(&["-s"]),
    );
}

#[test]
fn node_format_with_node_filter_matches_slurm() {
    let out = sinfo(&["-N", "-o", "%N %G %T %C %e %m", "-n", "gb[001-006]"]);
    assert_golden(include_str!("golden/25-sinfo-Node-gres.txt"), &out);
}

#[test]
fn list_reasons_matches_slurm() {
    assert_golden(include_str!("golden/26-sinfo-R.txt"), &sinfo(&["-R"]));
}

/// What the recording's trimjson.py did: lists longer than 3 keep 2 items
/// and a note.
fn trim(value: Json) -> Json {
    match value {
        Json::Array(items) if items.len() > 3 => {
            let total = items.len();
            let mut kept: Vec<Json> = items.into_iter().take(2).map(trim).collect();
            kept.push(Json::String(format!(
                "... [trimmed: {total} items total, first 2 shown]"
            )));
            Json::Array(kept)
        }
        Json::Array(items) => Json::Array(items.into_iter().map(trim).collect()),
        Json::Object(pairs) => Json::Object(pairs.into_iter().map(|(k, v)| (k, trim(v))).collect()),
        other => other,
    }
}

#[test]
fn json_matches_slurm() {
    let locale = utc::locale();
    let nodes = fixture::nodes();
    let mut doc = json::document(&nodes, &locale);
    doc.meta = spur_slurm::openapi::Meta::v0038("22.05.8");
    let doc = serde_json::to_value(&doc).expect("serializes");
    assert_golden(
        include_str!("golden/24-sinfo-json.txt"),
        &spur_slurm::openapi::document_text(&trim(doc)),
    );
    let full = json::render(&nodes, &locale);
    let parsed: serde_json::Value = serde_json::from_str(&full).expect("valid JSON");
    assert_eq!(parsed["nodes"].as_array().map(Vec::len), Some(72));
}

#[test]
fn drained_and_down_nodes_show_in_reasons_and_states() {
    let mut nodes = fixture::nodes();
    nodes[9].drain = true;
    nodes[9].reason = Some("bad gpu".to_string());
    nodes[9].reason_set = Some((0, NOW - 60));
    nodes[10].state = spur_proto::NodeBaseState::Down;
    nodes[10].not_responding = true;
    nodes[10].reason = Some("Not responding".to_string());
    nodes[10].reason_set = Some((64030, NOW - 30));
    nodes[2].drain = true;
    let parts = fixture::partitions();
    let show = |argv: &[&str]| {
        let opts = Options::from_args(&args(argv), &SinfoEnv::default()).expect("options");
        render(&nodes, &parts, NOW, &opts, &utc::locale())
    };
    assert_eq!(
        show(&["-R"]),
        "REASON               USER      TIMESTAMP           NODELIST\n\
         Not responding       slurm     2026-11-29T23:04:33 gb011\n\
         bad gpu              root      2026-11-29T23:04:03 gb010\n\
         none                 Unknown   Unknown             gb003\n"
    );
    assert_eq!(
        show(&["-p", "debug", "-h"]),
        "debug        up      30:00      1   drng gb003\n\
         debug        up      30:00      2    mix gb[001-002]\n\
         debug        up      30:00      1   idle gb004\n"
    );
    assert_eq!(
        show(&["-t", "down,drain", "-o", "%N %T %D"]),
        // Rows merged across partitions keep the partition that made them:
        // gb003 came through debug, which is built first (fewer nodes).
        "NODELIST STATE NODES\ngb011 down* 1\ngb010 drained 1\ngb003 draining 1\n"
    );
    assert_eq!(show(&["-d", "-h", "-o", "%N"]), "gb011\n");
}

#[test]
fn partition_without_matching_nodes_prints_na() {
    let out = sinfo(&["-n", "gb050"]);
    assert_eq!(
        out,
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n\
         batch*       up   infinite      1   idle gb050\n\
         debug        up      30:00      0    n/a \n"
    );
}

#[test]
fn long_partition_output_has_date_and_all_columns() {
    let out = sinfo(&["-l", "-p", "debug"]);
    assert_eq!(
        out,
        "Sun Nov 29 23:05:03 2026\n\
         PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE NODELIST\n\
         debug        up      30:00 1-infinite   no       NO        all      3       mixed gb[001-003]\n\
         debug        up      30:00 1-infinite   no       NO        all      1        idle gb004\n"
    );
}

#[test]
fn long_format_fields_and_exact_grouping() {
    let mut nodes = fixture::nodes();
    nodes[71].cpus = 72;
    let parts = fixture::partitions();
    let show = |argv: &[&str]| {
        let opts = Options::from_args(&args(argv), &SinfoEnv::default()).expect("options");
        render(&nodes, &parts, NOW, &opts, &utc::locale())
    };
    assert_eq!(
        show(&[
            "-p",
            "batch",
            "-O",
            "partitionname:8,cpus:5,nodeaiot:.14 ,nodelist"
        ]),
        "PARTITIOCPUS NODES(A/I/O/T) NODELIST            \n\
         batch   72+       3/69/0/72 gb[001-072]         \n"
    );
    assert_eq!(
        show(&["-p", "batch", "-e", "-h", "-o", "%c %N"]),
        "144 gb[001-071]\n72 gb072\n"
    );
}

#[test]
fn option_errors_read_like_slurm() {
    let bad = |argv: &[&str]| {
        Options::from_args(&args(argv), &SinfoEnv::default()).expect_err("rejected")
    };
    assert_eq!(
        bad(&["-t", "bogus"]),
        format!(
            "sinfo: error: Bad state string: \"bogus\"\nsinfo: error: valid states: {}\n",
            state::VALID_STATES
        )
    );
    assert!(bad(&["-l", "-o", "%N"]).starts_with("sinfo: fatal: Options -o(--format) and -l"));
    assert!(bad(&["-a", "-p", "batch"]).contains("Conflicting options, -a and -p"));
    assert_eq!(
        bad(&["-n", "gb[1-"]),
        "sinfo: error: 'gb[1-' invalid entry for --nodes\n"
    );
    let err = SinfoArgs::try_parse_from(["sinfo", "--bogus"]).expect_err("unknown option");
    assert_eq!(
        crate::getopt::error("sinfo", &err, "--bogus".as_ref()),
        "sinfo: unrecognized option '--bogus'\nTry \"sinfo --help\" for more information\n"
    );
    let err = SinfoArgs::try_parse_from(["sinfo", "-q"]).expect_err("unknown option");
    assert_eq!(
        crate::getopt::error("sinfo", &err, "-q".as_ref()),
        "sinfo: invalid option -- 'q'\nTry \"sinfo --help\" for more information\n"
    );
}

#[test]
fn arguments_parse_like_getopt() {
    let a = args(&[
        "-Nl",
        "--part=debug",
        "-o%N",
        "-o",
        "%P",
        "--states",
        "idle",
        "-vv",
    ]);
    assert!(a.node && a.long);
    assert_eq!(a.partition.as_deref(), Some("debug"));
    assert_eq!(a.format.as_deref(), Some("%P"));
    assert_eq!(a.states.as_deref(), Some("idle"));
    assert_eq!(a.verbose, 2);
    let a = args(&[
        "--Format=nodelist",
        "--noheader",
        "--list-reasons",
        "--json",
    ]);
    assert_eq!(a.long_format.as_deref(), Some("nodelist"));
    assert!(a.noheader && a.list_reasons && a.json);
    let env = SinfoEnv {
        sort: Some("-N".to_string()),
        partition: Some("debug".to_string()),
        ..SinfoEnv::default()
    };
    let opts = Options::from_args(&args(&[]), &env).expect("options");
    assert_eq!(opts.sort, "-N");
    assert_eq!(opts.selection.partitions, Some(vec!["debug".to_string()]));
}

#[test]
fn short_formats_parse_widths_suffixes_and_prefixes() {
    let f = format::parse_short("x%.5a|%-3N%10P%q");
    assert_eq!(f.items[0], Item::Text("x".to_string()));
    assert_eq!(
        f.items[1],
        Item::Column {
            field: Field::Avail,
            width: 5,
            right: true,
            suffix: "|".to_string()
        }
    );
    assert_eq!(f.items[2], Item::Text("%-3N".to_string()));
    assert!(matches!(
        f.items[3],
        Item::Column {
            field: Field::Partition,
            width: 10,
            ..
        }
    ));
    assert_eq!(f.items[4], Item::Text("%q".to_string()));
    assert_eq!(
        f.warnings,
        vec![
            "Invalid node format specification: -".to_string(),
            "Invalid node format specification: q".to_string()
        ]
    );
    assert!(format::parse_short("%all").has(Field::Sct));
    let l = format::parse_long("NodeList:.12x,bogus,reason");
    assert!(
        matches!(&l.items[0], Item::Column { field: Field::NodeList, width: 12, right: true, suffix } if suffix == "x")
    );
    assert!(matches!(
        l.items[2],
        Item::Column {
            field: Field::Reason,
            width: 20,
            ..
        }
    ));
    assert_eq!(l.warnings.len(), 1);
}

#[test]
fn node_states_are_named_as_slurm_names_them() {
    let cases = [
        (state::IDLE, "IDLE", "IDLE", "IDLE"),
        (state::MIXED, "MIXED", "MIX", "MIXED"),
        (state::ALLOCATED, "ALLOCATED", "ALLOC", "ALLOCATED"),
        (state::IDLE | state::DRAIN, "DRAINED", "DRAIN", "IDLE+DRAIN"),
        (
            state::MIXED | state::DRAIN,
            "DRAINING",
            "DRNG",
            "MIXED+DRAIN",
        ),
        (
            state::DOWN | state::NO_RESPOND,
            "DOWN*",
            "DOWN*",
            "DOWN+NOT_RESPONDING",
        ),
        (
            state::IDLE | state::COMPLETING,
            "COMPLETING",
            "COMP",
            "IDLE+COMPLETING",
        ),
        (
            state::ALLOCATED | state::COMPLETING,
            "ALLOCATED+",
            "ALLOC+",
            "ALLOCATED+COMPLETING",
        ),
        (
            state::IDLE | state::NO_RESPOND,
            "IDLE*",
            "IDLE*",
            "IDLE+NOT_RESPONDING",
        ),
        (state::UNKNOWN, "UNKNOWN", "UNK", "UNKNOWN"),
    ];
    for (word, long, compact, complete) in cases {
        assert_eq!(state::long_name(word), long);
        assert_eq!(state::compact_name(word), compact);
        assert_eq!(state::complete_name(word), complete);
    }
}

#[test]
fn state_filters_read_prefixes_and_combinations() {
    assert_eq!(
        state::parse_selector("i"),
        Some(StateSelector::Base(state::IDLE))
    );
    assert_eq!(
        state::parse_selector("ALLOC"),
        Some(StateSelector::Allocated)
    );
    assert_eq!(state::parse_selector("drng"), Some(StateSelector::Draining));
    assert_eq!(state::parse_selector("dr"), Some(StateSelector::Drain));
    assert_eq!(state::parse_selector("nope"), None);
    let f = StateFilter::parse("mix&drain").expect("valid");
    assert!(f.all);
    assert!(f.matches(state::MIXED | state::DRAIN, 4));
    assert!(!f.matches(state::MIXED, 4));
    let alloc = StateFilter::parse("alloc").expect("valid");
    assert!(alloc.matches(state::MIXED, 1));
    assert!(!alloc.matches(state::IDLE, 0));
    assert!(StateFilter::parse("all")
        .expect("valid")
        .matches(state::DOWN, 0));
}

#[test]
fn utc_formatters_match_the_recording() {
    assert_eq!(utc::timestamp(fixture::BOOT), "2026-11-29T22:10:05");
    assert_eq!(utc::ctime(NOW), "Sun Nov 29 23:05:03 2026");
    assert_eq!(utc::ctime(0), "Thu Jan 01 00:00:00 1970");
}

#[test]
fn counts_convert_units_unless_noconvert() {
    let mut nodes = fixture::nodes();
    nodes.iter_mut().for_each(|n| n.cpus = 2048);
    let parts = fixture::partitions();
    let show = |argv: &[&str]| {
        let opts = Options::from_args(&args(argv), &SinfoEnv::default()).expect("options");
        render(&nodes, &parts, NOW, &opts, &utc::locale())
    };
    assert_eq!(show(&["-h", "-p", "debug", "-o", "%c"]), "2K\n");
    assert_eq!(
        show(&["-h", "-p", "debug", "-o", "%c", "--noconvert"]),
        "2048\n"
    );
}

#[test]
fn numbers_take_slurms_units() {
    // (Cell padding is spur-slurm's now: spur_slurm::print's tests.)
    assert_eq!(num_unit(144), "144");
    assert_eq!(num_unit(2048), "2K");
    assert_eq!(num_unit(1536), "1.50K");
    assert_eq!(spur_slurm::units::memory(880_000, false), "880000M");
    assert_eq!(spur_slurm::units::memory(3_520_000, false), "3437.50G");
    assert_eq!(spur_slurm::units::memory(63_360_000, false), "61875G");
    assert_eq!(spur_slurm::units::memory(8192, false), "8G");
    assert_eq!(spur_slurm::units::memory(0, false), "0");
}
