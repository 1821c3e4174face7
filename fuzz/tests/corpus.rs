//! Every fuzz target over every input of its corpus (`corpus/<target>/`):
//! what cargo-fuzz once found stays a test, without a fuzzing toolchain.
//! Each input runs in this process; a panic fails the test naming the
//! file.

use std::path::Path;

#[test]
fn every_target_takes_every_input_of_its_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut ran = 0;
    for (name, target) in spur_fuzz::TARGETS {
        let dir = root.join(name);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a corpus entry").path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{} has no inputs", dir.display());
        for input in inputs {
            let data = std::fs::read(&input).expect("reads");
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(outcome.is_ok(), "{name} panicked on {}", input.display());
            ran += 1;
        }
    }
    assert!(ran >= spur_fuzz::TARGETS.len());
}

/// Mutations of the corpus, the same every run (a fixed seed): flipped
/// bits, bytes inserted, removed or replaced by ones parsers care about,
/// and inputs spliced together, a few thousand per target. A small fuzzer
/// of its own, so that CI explores beyond the corpus without libFuzzer.
#[test]
fn every_target_takes_mutations_of_its_corpus() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    const INTERESTING: &[u8] = b"[]-,:=#\n\r\0 9\xff+{}\"%";
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut rng = StdRng::seed_from_u64(0x5b0_2026);
    for (name, target) in spur_fuzz::TARGETS {
        let seeds: Vec<Vec<u8>> = std::fs::read_dir(root.join(name))
            .expect("a corpus folder")
            .map(|e| std::fs::read(e.expect("an entry").path()).expect("reads"))
            .collect();
        for _ in 0..3000 {
            let mut data = seeds[rng.gen_range(0..seeds.len())].clone();
            for _ in 0..rng.gen_range(1..8) {
                let at = rng.gen_range(0..=data.len());
                match rng.gen_range(0..5) {
                    0 if at < data.len() => data[at] ^= 1 << rng.gen_range(0..8),
                    1 => data.insert(at, INTERESTING[rng.gen_range(0..INTERESTING.len())]),
                    2 if at < data.len() => {
                        data.remove(at);
                    }
                    3 => {
                        let other = &seeds[rng.gen_range(0..seeds.len())];
                        let from = rng.gen_range(0..=other.len());
                        data.splice(at..at, other[from..].iter().copied().take(64));
                    }
                    _ => data.insert(at, rng.gen()),
                }
            }
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(
                outcome.is_ok(),
                "{name} panicked on {:?}",
                String::from_utf8_lossy(&data)
            );
        }
    }
}

#[test]
fn every_target_has_a_cargo_fuzz_entry() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cargo-fuzz/fuzz_targets");
    for (name, _) in spur_fuzz::TARGETS {
        let file = dir.join(format!("{name}.rs"));
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(
            text.contains(&format!("spur_fuzz::{name}(data)")),
            "{} does not run spur_fuzz::{name}",
            file.display()
        );
    }
}

/// Writes the frame target's seeds: messages as the wire carries them.
#[test]
#[ignore = "writes corpus/frame's seeds; run with --ignored"]
fn write_frame_seeds() {
    use spur_proto::{
        frame, ClientRequest, ClientResponse, Hello, JobDesc, JobField, JobFields, JobInfo,
        JobList, Role, PROTOCOL_VERSION,
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/frame");
    let submit = ClientRequest::Submit(Box::new(JobDesc {
        name: Some("seed".into()),
        script: Some("#!/bin/sh\ntrue\n".into()),
        env: vec![("PATH".into(), "/bin".into())],
        submit_key: Some("0123456789abcdef".into()),
        ..JobDesc::default()
    }));
    let hello = Hello {
        version: PROTOCOL_VERSION,
        role: Role::Client,
    };
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        (
            "ping",
            frame::encode(&ClientRequest::Ping).expect("encodes"),
        ),
        ("submit", frame::encode(&submit).expect("encodes")),
        ("hello", frame::encode(&hello).expect("encodes")),
        (
            "jobs",
            frame::encode(&ClientRequest::Jobs {
                ids: vec![1, 2, 3],
                fields: JobFields::ALL,
                active_only: false,
            })
            .expect("encodes"),
        ),
        (
            // A listing's payload, as `decode::<ClientResponse>` reads it.
            "listing",
            frame::encode(&ClientResponse::Jobs {
                now: 1,
                jobs: JobList::new(
                    JobFields::of(&[JobField::JobId, JobField::Name, JobField::Account]),
                    vec![JobInfo {
                        job_id: 3,
                        name: "seed".into(),
                        account: Some("a".into()),
                        ..JobInfo::default()
                    }],
                ),
            })
            .expect("encodes")[4..]
                .to_vec(),
        ),
        ("huge-length", vec![0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
        ("string-claims-a-terabyte", {
            // A Submit whose name claims 2^40 bytes, inside a small frame.
            let mut payload = 1u32.to_le_bytes().to_vec();
            payload.push(1);
            payload.extend_from_slice(&(1u64 << 40).to_le_bytes());
            payload.extend_from_slice(b"seed");
            let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
            frame.extend_from_slice(&payload);
            frame
        }),
    ];
    for (name, bytes) in seeds {
        std::fs::write(dir.join(name), bytes).expect("writes");
    }
}
