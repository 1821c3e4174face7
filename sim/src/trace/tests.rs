//! Tests of the trace readers: inline samples of every format, malformed
//! lines, reshaping, and the real traces when the shared folder is there.
use super::*;

const JOBS_HEADER: &str = "job_id,submit_s,runtime_s,req_walltime_s,nodes,gpus,user,orig_wait_s";
const POD_HEADER: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,\
                          creation_time,deletion_time,scheduled_time";

fn line_of(err: TraceError) -> (u64, LineProblem) {
    match err {
        TraceError::Malformed { line, problem, .. } => (line, problem),
        other => panic!("expected a malformed-line error, got {other:?}"),
    }
}

fn job(id: u64, submit_s: u64) -> TraceJob {
    TraceJob {
        id,
        submit_s,
        runtime_s: 10,
        runs_forever: false,
        walltime_s: None,
        nodes: 1,
        gpus: None,
        gpus_per_node: None,
        user: None,
        cpu_milli: None,
        mem_mib: None,
        gpu_milli: None,
    }
}

#[test]
fn jobs_csv_maps_unknowns_skips_unreplayable_and_sorts() {
    let text = format!(
        "{JOBS_HEADER}\n\
         2,100,50,-1,8,-1,-1,-1\n\
         1,0,10849,10800,128,-1,7,52645\n\
         \n\
         3,5,10,60,0,-1,-1,-1\n\
         4,5,-1,60,2,-1,-1,-1\n"
    );
    let trace = parse_jobs_csv(&text, "t.csv").unwrap();
    assert_eq!(trace.skipped, 2);
    assert_eq!(trace.source, "t.csv");
    let ids: Vec<u64> = trace.jobs.iter().map(|j| j.id).collect();
    assert_eq!(ids, [1, 2]);
    let first = &trace.jobs[0];
    assert_eq!(
        (first.submit_s, first.runtime_s, first.nodes),
        (0, 10849, 128)
    );
    assert_eq!(
        (first.walltime_s, first.gpus, first.user),
        (Some(10800), None, Some(7))
    );
    assert_eq!(trace.jobs[1].walltime_s, None);
    assert_eq!(trace.jobs[1].user, None);
}

#[test]
fn jobs_csv_reads_kalos_extra_columns_and_float_counts() {
    let text = format!(
        "{JOBS_HEADER},gpus_per_node,gb200_nodes\n\
         0,0,104,-1,8,64,-1,-1,8.0,16\n\
         1,313.4,78.6,-1,1,2.0,-1,-1,2.0,1\n"
    );
    let trace = parse_jobs_csv(&text, "kalos").unwrap();
    let (a, b) = (&trace.jobs[0], &trace.jobs[1]);
    assert_eq!((a.nodes, a.gpus, a.gpus_per_node), (8, Some(64), Some(8)));
    assert_eq!((b.submit_s, b.runtime_s, b.gpus), (313, 79, Some(2)));
}

#[test]
fn jobs_csv_derives_gpus_per_node_only_when_it_divides() {
    let text = format!("{JOBS_HEADER}\n0,0,1,-1,4,32,-1,-1\n1,0,1,-1,3,8,-1,-1\n");
    let trace = parse_jobs_csv(&text, "t").unwrap();
    assert_eq!(trace.jobs[0].gpus_per_node, Some(8));
    assert_eq!(trace.jobs[1].gpus_per_node, None);
}

#[test]
fn jobs_csv_errors_name_file_line_and_problem() {
    let ok = "1,0,10,-1,1,-1,-1,-1";
    let cases = [
        (
            "2,0,10,-1,1,-1,-1",
            LineProblem::FieldCount {
                expected: 8,
                found: 7,
            },
        ),
        (
            "2,zero,10,-1,1,-1,-1,-1",
            LineProblem::NotANumber {
                column: "submit_s",
                value: "zero".into(),
            },
        ),
        (
            "2,0,10,-1,1.5,-1,-1,-1",
            LineProblem::NotWhole {
                column: "nodes",
                value: "1.5".into(),
            },
        ),
        (
            "2,0,10,-1,1,-4,-1,-1",
            LineProblem::Negative {
                column: "gpus",
                value: -4,
            },
        ),
        ("2,0,10,-1,1,-1,,-1", LineProblem::Empty { column: "user" }),
        (
            "1,0,10,-1,1,-1,-1,-1",
            LineProblem::DuplicateId {
                id: 1,
                first_line: 3,
            },
        ),
        (
            "2,0,10,-1,1,-1,-1,-1,9",
            LineProblem::FieldCount {
                expected: 8,
                found: 9,
            },
        ),
    ];
    for (bad, want) in cases {
        let text = format!("{JOBS_HEADER}\r\n\n{ok}\n  \n{bad}\n{ok}\n");
        let err = parse_jobs_csv(&text, "jobs.csv").unwrap_err();
        let message = err.to_string();
        assert_eq!(line_of(err), (5, want), "line {bad}");
        assert!(message.starts_with("jobs.csv:5: "), "{message}");
    }
    let err = parse_jobs_csv("job_id,submit_s\n", "j").unwrap_err();
    assert_eq!(
        line_of(err),
        (
            1,
            LineProblem::MissingColumn {
                column: "runtime_s"
            }
        )
    );
    assert_eq!(
        line_of(parse_jobs_csv("", "j").unwrap_err()),
        (1, LineProblem::MissingHeader)
    );
}

const SWF: &str = "; UnixStartTime: 0\n\
    ; MaxNodes: 4360\n\
    ;MaxProcs: 4360\n\
    2 1641022430 40859 12696 640 -1 -1 640 12600 -1 0 -1 -1 -1 -1 -1 -1 0\n\
    1 1641021254 52645 10849 128 -1 -1 -1 10800 -1 0 12 -1 -1 -1 -1 -1 0\n\
    3 1641023000 0 -1 128 -1 -1 128 600 -1 0 -1 -1 -1 -1 -1 -1 0\n\
    4 1641023000 0 20 0 -1 -1 -1 600 -1 0 -1 -1 -1 -1 -1 -1 0\n\
    5 1641023000 0 20.4 0 -1 -1 4 -1 -1 0 -1 -1 -1 -1 -1 -1 0\n";

#[test]
fn swf_uses_requested_size_rebases_submit_and_reads_max_nodes() {
    let trace = parse_swf(SWF, "theta.swf").unwrap();
    assert_eq!(trace.max_nodes_hint, Some(4360));
    assert_eq!(trace.skipped, 2, "negative run time and zero size");
    let rows: Vec<_> = trace
        .jobs
        .iter()
        .map(|j| (j.id, j.submit_s, j.runtime_s, j.nodes, j.walltime_s, j.user))
        .collect();
    assert_eq!(
        rows,
        [
            (1, 0, 10849, 128, Some(10800), Some(12)),
            (2, 1176, 12696, 640, Some(12600), None),
            (5, 1746, 20, 4, None, None),
        ]
    );
    assert!(trace.jobs.iter().all(|j| j.gpus.is_none()));
}

#[test]
fn swf_errors_carry_the_line_number() {
    let ok = "1 0 0 10 1 -1 -1 1 60 -1 0 -1 -1 -1 -1 -1 -1 0";
    let cases = [
        (
            "2 0 0 10 1 -1 -1 1 60",
            LineProblem::FieldCount {
                expected: 18,
                found: 9,
            },
        ),
        (
            "2 0 0 ten 1 -1 -1 1 60 -1 0 -1 -1 -1 -1 -1 -1 0",
            LineProblem::NotANumber {
                column: "field 4 (run time)",
                value: "ten".into(),
            },
        ),
        (
            "-2 0 0 10 1 -1 -1 1 60 -1 0 -1 -1 -1 -1 -1 -1 0",
            LineProblem::Negative {
                column: "field 1 (job id)",
                value: -2,
            },
        ),
        (
            "; MaxNodes: many",
            LineProblem::NotANumber {
                column: "MaxNodes header",
                value: "many".into(),
            },
        ),
    ];
    for (bad, want) in cases {
        let text = format!("; header\n{ok}\n{bad}\n");
        let err = parse_swf(&text, "x.swf").unwrap_err();
        assert!(err.to_string().starts_with("x.swf:3: "), "{err}");
        assert_eq!(line_of(err), (3, want));
    }
}

#[test]
fn alibaba_pods_with_times_use_creation_and_scheduled_to_deletion() {
    let text = format!(
        "{POD_HEADER}\n\
         openb-pod-0000,12000,16384,1,1000,,LS,Running,100,12537496,100\n\
         openb-pod-0001,6000,12288,1,460,,LS,Running,427161,12902960,427163\n\
         openb-pod-0002,11908,47104,0,0,,BE,Pending,150,10001403,\n"
    );
    let trace = parse_alibaba_pods(&text, "pods").unwrap();
    let ids: Vec<u64> = trace.jobs.iter().map(|j| j.id).collect();
    assert_eq!(ids, [0, 2, 1]);
    let pod = &trace.jobs[2];
    assert_eq!(
        (pod.submit_s, pod.runtime_s, pod.runs_forever),
        (427061, 12475797, false)
    );
    assert_eq!(
        (pod.nodes, pod.gpus, pod.gpus_per_node),
        (1, Some(1), Some(1))
    );
    assert_eq!(
        (pod.cpu_milli, pod.mem_mib, pod.gpu_milli),
        (Some(6000), Some(12288), Some(460))
    );
    let pending = &trace.jobs[1];
    assert_eq!(
        (pending.submit_s, pending.runtime_s, pending.runs_forever),
        (50, 0, true)
    );
    assert_eq!(pending.gpus, Some(0));
}

#[test]
fn alibaba_pods_without_times_arrive_one_per_second_and_run_forever() {
    let text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\
                openb-pod-0000,12000,16384,1,1000\n\
                openb-pod-0001,6000,12288,8,1000\n";
    let trace = parse_alibaba_pods(text, "pods").unwrap();
    let rows: Vec<_> = trace
        .jobs
        .iter()
        .map(|j| (j.id, j.submit_s, j.runs_forever))
        .collect();
    assert_eq!(rows, [(0, 0, true), (1, 1, true)]);
}

#[test]
fn alibaba_errors_carry_the_line_number() {
    let header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli";
    let cases = [
        (
            "p,-1,1,1,1000",
            LineProblem::Negative {
                column: "cpu_milli",
                value: -1,
            },
        ),
        (
            "p,1,1,1,1500",
            LineProblem::TooLarge {
                column: "gpu_milli",
                value: 1500,
                max: 1000,
            },
        ),
        (
            "p,1,1,1",
            LineProblem::FieldCount {
                expected: 5,
                found: 4,
            },
        ),
        (
            "p,1,1,x,1",
            LineProblem::NotANumber {
                column: "num_gpu",
                value: "x".into(),
            },
        ),
    ];
    for (bad, want) in cases {
        let text = format!("{header}\np,1,1,1,1000\n{bad}\n");
        assert_eq!(
            line_of(parse_alibaba_pods(&text, "p").unwrap_err()),
            (3, want)
        );
    }
    let text = format!("{POD_HEADER}\np,1,1,1,1000,,LS,Running,5,4,5\n");
    let want = LineProblem::EndsBeforeStart {
        scheduled: 5,
        deletion: 4,
    };
    assert_eq!(
        line_of(parse_alibaba_pods(&text, "p").unwrap_err()),
        (2, want)
    );
    let nodes = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,1,1,-2,T4\n";
    let want = LineProblem::Negative {
        column: "gpu",
        value: -2,
    };
    assert_eq!(
        line_of(parse_alibaba_nodes(nodes, "n").unwrap_err()),
        (3, want)
    );
}

#[test]
fn alibaba_nodes_parse_in_file_order() {
    let text = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,96000,786432,8,G2\n";
    let nodes = parse_alibaba_nodes(text, "n").unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(
        nodes[1],
        AlibabaNode {
            name: "n1".into(),
            cpu_milli: 96000,
            mem_mib: 786432,
            gpus: 8,
            model: "G2".into(),
        }
    );
}

#[test]
fn compress_divides_and_rounds_submit_times() {
    let mut trace = Trace {
        jobs: vec![job(1, 0), job(2, 5), job(3, 7), job(4, 100)],
        ..Trace::default()
    };
    trace.compress(2.0).unwrap();
    let submits: Vec<u64> = trace.jobs.iter().map(|j| j.submit_s).collect();
    assert_eq!(submits, [0, 3, 4, 50]);
    assert!(trace.jobs.iter().all(|j| j.runtime_s == 10));
    for k in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            trace.compress(k),
            Err(TraceError::BadCompression { .. })
        ));
    }
    assert_eq!(
        trace.jobs[3].submit_s, 50,
        "a rejected factor changes nothing"
    );
}

#[test]
fn replicate_gives_unique_ids_in_submit_order() {
    let mut trace = Trace {
        jobs: vec![job(7, 30), job(2, 10)],
        ..Trace::default()
    };
    trace.replicate(3);
    let rows: Vec<_> = trace.jobs.iter().map(|j| (j.submit_s, j.id)).collect();
    assert_eq!(
        rows,
        [(10, 6), (10, 7), (10, 8), (30, 21), (30, 22), (30, 23)]
    );
    trace.replicate(1);
    assert_eq!(trace.jobs.len(), 6);
    let mut huge = Trace {
        jobs: vec![job(u64::MAX, 5), job(3, 1)],
        ..Trace::default()
    };
    huge.replicate(2);
    let ids: Vec<u64> = huge.jobs.iter().map(|j| j.id).collect();
    assert_eq!(
        ids,
        [0, 1, 2, 3],
        "ids that would overflow are renumbered first"
    );
    huge.replicate(0);
    assert!(huge.jobs.is_empty());
}

#[test]
fn load_detects_formats_and_rejects_unknown_ones() {
    let dir = std::env::temp_dir().join(format!("spur-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let swf = load(&write(
        "log.txt",
        "1 0 0 10 1 -1 -1 1 60 -1 0 -1 -1 -1 -1 -1 -1 0\n",
    ))
    .unwrap();
    assert_eq!(swf.jobs.len(), 1);
    assert_eq!(load(&write("a.swf", "")).unwrap().jobs.len(), 0);
    let csv = load(&write(
        "jobs.csv",
        &format!("\u{feff}{JOBS_HEADER}\n1,0,1,-1,1,-1,-1,-1\n"),
    ))
    .unwrap();
    assert_eq!(csv.jobs.len(), 1);
    let pods = load(&write(
        "pods.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,1,500\n",
    ))
    .unwrap();
    assert_eq!(pods.jobs[0].gpu_milli, Some(500));
    let nodes = write(
        "nodes.csv",
        "sn,cpu_milli,memory_mib,gpu,model\nn,1,1,1,T4\n",
    );
    assert!(matches!(
        load(&nodes),
        Err(TraceError::UnknownFormat { .. })
    ));
    assert!(matches!(
        load(&dir.join("missing.csv")),
        Err(TraceError::Read { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn real_traces_match_their_readme_counts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces");
    if !root.is_dir() {
        eprintln!("skipping: {} does not exist", root.display());
        return;
    }
    let theta = load(&root.join("theta-2022/jobs.csv")).unwrap();
    assert_eq!((theta.jobs.len(), theta.skipped), (23_911, 0));
    let swf = load(&root.join("theta-2022/theta_2022.swf")).unwrap();
    assert_eq!(
        (swf.jobs.len(), swf.skipped, swf.max_nodes_hint),
        (23_911, 0, Some(4360))
    );
    assert_eq!(
        swf.jobs, theta.jobs,
        "the SWF and its normalized jobs.csv agree"
    );
    assert_eq!(theta.jobs.iter().map(|j| j.nodes).max(), Some(4048));

    let kalos = load(&root.join("acme-kalos-llm/jobs.csv")).unwrap();
    assert_eq!((kalos.jobs.len(), kalos.skipped), (319, 0));
    assert_eq!(kalos.jobs.iter().filter_map(|j| j.gpus).max(), Some(1024));
    assert!(kalos.jobs.iter().all(|j| j.gpus_per_node.is_some()));

    let alibaba = root.join("alibaba-gpu-v2023");
    let pods = load(&alibaba.join("openb_pod_list_default.csv")).unwrap();
    assert_eq!(pods.jobs.len(), 8_152);
    assert_eq!(
        pods.jobs.iter().filter(|j| j.gpus == Some(0)).count(),
        1_088
    );
    assert_eq!(
        pods.jobs.iter().filter(|j| j.runs_forever).count(),
        897,
        "pending pods"
    );
    let multi = load(&alibaba.join("openb_pod_list_multigpu50.csv")).unwrap();
    assert_eq!(multi.jobs.len(), 9_061);
    assert!(multi
        .jobs
        .iter()
        .all(|j| j.runs_forever && j.submit_s == j.id));
    let nodes = load_alibaba_nodes(&alibaba.join("openb_node_list_gpu_node.csv")).unwrap();
    assert_eq!(nodes.len(), 1_213);
    assert_eq!(nodes.iter().map(|n| n.gpus).sum::<u32>(), 6_212);
}
