//! sdiag's report against real Slurm's and its command line.

use spur_proto::{BackfillCounts, RpcCount, SchedCounts, Stats, UserCount};

use super::args::parse;
use super::{render, RpcOrder};

/// `sdiag` as root on real Slurm 22.05.8
/// (../shared/slurm-reference/49-sdiag.txt, command line and exit status
/// removed).
const RECORDED: &str = r#"*******************************************************
sdiag output at Sun Nov 29 23:05:03 2026 (1795993503)
Data since      Sun Nov 29 23:04:56 2026 (1795993496)
*******************************************************
Server thread count:  3
Agent queue size:     0
Agent count:          0
Agent thread count:   0
DBD Agent queue size: 2

Jobs submitted: 19
Jobs started:   8
Jobs completed: 1
Jobs canceled:  0
Jobs failed:    0

Job states ts:  Sun Nov 29 23:04:56 2026 (1795993496)
Jobs pending:   0
Jobs running:   0

Main schedule statistics (microseconds):
	Last cycle:   398
	Max cycle:    5756
	Total cycles: 2
	Mean cycle:   3077
	Mean depth cycle:  4
	Last queue length: 1

Backfilling stats
	Total backfilled jobs (since last slurm start): 0
	Total backfilled jobs (since last stats cycle start): 0
	Total backfilled heterogeneous job components: 0
	Total cycles: 0
	Last cycle when: N/A
	Last cycle: 0
	Max cycle:  0
	Last depth cycle: 0
	Last depth cycle (try sched): 0
	Last queue length: 0
	Last table size: 0

Latency for 1000 calls to gettimeofday(): 22 microseconds

Remote Procedure Call statistics by message type
	MESSAGE_NODE_REGISTRATION_STATUS        ( 1002) count:94     ave_time:936    total_time:88020
	REQUEST_PARTITION_INFO                  ( 2009) count:37     ave_time:191    total_time:7099
	REQUEST_FED_INFO                        ( 2049) count:22     ave_time:267    total_time:5874
	REQUEST_JOB_INFO_SINGLE                 ( 2021) count:18     ave_time:460    total_time:8289
	REQUEST_NODE_INFO                       ( 2007) count:15     ave_time:433    total_time:6500
	REQUEST_JOB_INFO                        ( 2003) count:11     ave_time:281    total_time:3095
	REQUEST_SUBMIT_BATCH_JOB                ( 4003) count:10     ave_time:946    total_time:9465
	REQUEST_PING                            ( 1008) count:5      ave_time:158    total_time:793
	REQUEST_UPDATE_JOB                      ( 3001) count:3      ave_time:319    total_time:959
	REQUEST_BUILD_INFO                      ( 2001) count:2      ave_time:245    total_time:491
	REQUEST_JOB_USER_INFO                   ( 2039) count:1      ave_time:267    total_time:267
	REQUEST_JOB_WILL_RUN                    ( 4012) count:1      ave_time:830    total_time:830
	REQUEST_TOPO_INFO                       ( 2028) count:1      ave_time:175    total_time:175
	REQUEST_COMPLETE_BATCH_SCRIPT           ( 5018) count:1      ave_time:2176   total_time:2176

Remote Procedure Call statistics by user
	root            (       0) count:136    ave_time:748    total_time:101752
	anchor          (    2001) count:85     ave_time:379    total_time:32281

Pending RPC statistics
	No pending RPCs
"#;

/// The counters behind [`RECORDED`].
fn recorded() -> Stats {
    let rpc = |type_id, name: &str, count, total_us| RpcCount {
        type_id,
        name: name.into(),
        count,
        total_us,
    };
    Stats {
        now: 1_795_993_503,
        since: 1_795_993_496,
        server_threads: 3,
        agent_queue: 0,
        agents: 0,
        jobs_submitted: 19,
        jobs_started: 8,
        jobs_completed: 1,
        jobs_canceled: 0,
        jobs_failed: 0,
        jobs_pending: 0,
        jobs_running: 0,
        sched: SchedCounts {
            cycles: 2,
            last_us: 398,
            max_us: 5756,
            sum_us: 6154,
            depth_sum: 8,
            last_queue_len: 1,
        },
        backfill: BackfillCounts::default(),
        clock_latency_us: 22,
        by_type: vec![
            rpc(1002, "MESSAGE_NODE_REGISTRATION_STATUS", 94, 88020),
            rpc(2009, "REQUEST_PARTITION_INFO", 37, 7099),
            rpc(2049, "REQUEST_FED_INFO", 22, 5874),
            rpc(2021, "REQUEST_JOB_INFO_SINGLE", 18, 8289),
            rpc(2007, "REQUEST_NODE_INFO", 15, 6500),
            rpc(2003, "REQUEST_JOB_INFO", 11, 3095),
            rpc(4003, "REQUEST_SUBMIT_BATCH_JOB", 10, 9465),
            rpc(1008, "REQUEST_PING", 5, 793),
            rpc(3001, "REQUEST_UPDATE_JOB", 3, 959),
            rpc(2001, "REQUEST_BUILD_INFO", 2, 491),
            rpc(2039, "REQUEST_JOB_USER_INFO", 1, 267),
            rpc(4012, "REQUEST_JOB_WILL_RUN", 1, 830),
            rpc(2028, "REQUEST_TOPO_INFO", 1, 175),
            rpc(5018, "REQUEST_COMPLETE_BATCH_SCRIPT", 1, 2176),
        ],
        by_user: vec![
            UserCount {
                uid: 0,
                count: 136,
                total_us: 101_752,
            },
            UserCount {
                uid: 2001,
                count: 85,
                total_us: 32_281,
            },
        ],
    }
}

fn user_name(uid: u32) -> String {
    match uid {
        0 => "root".into(),
        2001 => "anchor".into(),
        _ => uid.to_string(),
    }
}

/// The recording with its dates as this machine's time zone writes them,
/// and where spur differs on purpose: it has no slurmdbd to queue for, and
/// counts pending and running jobs when asked (slurmctld counts them now
/// and then, and says when).
fn recorded_here() -> String {
    let date = spur_slurm::time::ctime;
    RECORDED
        .replace("DBD Agent queue size: 2", "DBD Agent queue size: 0")
        .replace(
            "Job states ts:  Sun Nov 29 23:04:56 2026 (1795993496)",
            "Job states ts:  Sun Nov 29 23:05:03 2026 (1795993503)",
        )
        .replace("Sun Nov 29 23:05:03 2026", &date(1_795_993_503))
        .replace("Sun Nov 29 23:04:56 2026", &date(1_795_993_496))
}

#[test]
fn report_matches_slurm() {
    let text = render(&recorded(), RpcOrder::Count, &user_name);
    assert_eq!(text, recorded_here());
}

#[test]
fn means_and_backfill_cycles_print_once_there_are_cycles() {
    let mut stats = recorded();
    stats.since = stats.now - 600;
    stats.backfill = BackfillCounts {
        jobs_total: 7,
        jobs: 3,
        cycles: 4,
        last_when: stats.now - 5,
        last_us: 120,
        max_us: 900,
        sum_us: 1400,
        last_depth: 9,
        last_depth_try: 2,
        depth_sum: 30,
        depth_try_sum: 8,
        queue_len: 9,
        queue_len_sum: 32,
        table_size: 6,
        table_size_sum: 20,
    };
    let text = render(&stats, RpcOrder::Count, &user_name);
    let at = spur_slurm::time::ctime(stats.now - 5);
    let expected = format!(
        "\tCycles per minute: 0\n\tLast queue length: 1\n\n\
         Backfilling stats\n\
         \tTotal backfilled jobs (since last slurm start): 7\n\
         \tTotal backfilled jobs (since last stats cycle start): 3\n\
         \tTotal backfilled heterogeneous job components: 0\n\
         \tTotal cycles: 4\n\
         \tLast cycle when: {at} ({})\n\
         \tLast cycle: 120\n\tMax cycle:  900\n\tMean cycle: 350\n\
         \tLast depth cycle: 9\n\tLast depth cycle (try sched): 2\n\
         \tDepth Mean: 7\n\tDepth Mean (try depth): 2\n\
         \tLast queue length: 9\n\tQueue length mean: 8\n\
         \tLast table size: 6\n\tMean table size: 5\n\n",
        stats.now - 5
    );
    assert!(text.contains(&expected), "{text}");
}

#[test]
fn the_last_sort_letter_given_orders_the_tables() {
    let order = |argv: &[&str]| {
        let argv = std::iter::once("sdiag").chain(argv.iter().copied());
        parse(argv.map(Into::into).collect()).map(|(_, order)| order)
    };
    assert_eq!(order(&[]).unwrap(), RpcOrder::Count);
    assert_eq!(order(&["-t", "-i"]).unwrap(), RpcOrder::Id);
    assert_eq!(order(&["-i", "-T"]).unwrap(), RpcOrder::AverageTime);
    assert_eq!(order(&["-it"]).unwrap(), RpcOrder::Time);
    assert_eq!(
        order(&["--sort-by-time2", "-a"]).unwrap(),
        RpcOrder::AverageTime
    );
    assert!(order(&["-x"]).is_err());
    let reset = |argv: &[&str]| {
        let argv = std::iter::once("sdiag").chain(argv.iter().copied());
        parse(argv.map(Into::into).collect())
            .map(|(a, _)| a.reset)
            .unwrap()
    };
    assert!(reset(&["-r"]) && reset(&["-a", "-r"]));
    assert!(!reset(&["-r", "-a"]) && !reset(&[]));
}

#[test]
fn tables_sorted_by_id_and_by_time() {
    let by_id = render(&recorded(), RpcOrder::Id, &user_name);
    let first = by_id
        .lines()
        .skip_while(|l| !l.starts_with("Remote Procedure Call statistics by message"))
        .nth(1)
        .unwrap();
    assert_eq!(
        first,
        "\tMESSAGE_NODE_REGISTRATION_STATUS        ( 1002) count:94     ave_time:936    total_time:88020"
    );
    let by_time = render(&recorded(), RpcOrder::Time, &user_name);
    let rows: Vec<&str> = by_time
        .lines()
        .skip_while(|l| !l.starts_with("Remote Procedure Call statistics by message"))
        .skip(1)
        .take(3)
        .collect();
    assert!(rows[0].contains("( 1002)"), "{rows:?}");
    assert!(rows[1].contains("( 4003)"), "{rows:?}");
    assert!(rows[2].contains("( 2021)"), "{rows:?}");
}
