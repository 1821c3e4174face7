//! The process session against a stand-in controller on a real unix
//! socket: one connection for many requests, a new one when the controller
//! has closed the old, and no SIGPIPE on the way.

use std::os::unix::net::UnixListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use spur_client::{load_conf, Session};
use spur_conf::SlurmConf;
use spur_proto::frame;
use spur_proto::{ClientRequest, ClientResponse, Hello, Role, PROTOCOL_VERSION};

/// A controller that answers Ping with Pong, counts its connections, and
/// closes each connection after `per_conn` requests.
fn stand_in(listener: UnixListener, per_conn: usize) -> Arc<AtomicUsize> {
    let conns = Arc::new(AtomicUsize::new(0));
    let counted = conns.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            counted.fetch_add(1, Ordering::SeqCst);
            let _: Hello = frame::read_sync(&mut stream).expect("hello");
            let hello = Hello {
                version: PROTOCOL_VERSION,
                role: Role::Client,
            };
            frame::write_sync(&mut stream, &hello).expect("hello back");
            for _ in 0..per_conn {
                let Ok(req) = frame::read_sync::<ClientRequest, _>(&mut stream) else {
                    break;
                };
                assert!(matches!(req, ClientRequest::Ping));
                let pong = ClientResponse::Pong { host: "ctl".into() };
                frame::write_sync(&mut stream, &pong).expect("answer");
            }
        }
    });
    conns
}

/// A cluster's slurm.conf in a folder of its own, and the listener on
/// its controller's socket, for a stand-in to serve.
fn cluster() -> (tempfile::TempDir, SlurmConf, UnixListener) {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    std::fs::create_dir(&state).expect("state folder");
    let conf = dir.path().join("slurm.conf");
    std::fs::write(
        &conf,
        format!(
            "ClusterName=t\nSlurmctldHost=ctl\nStateSaveLocation={}\n\
             NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1 Default=YES\n",
            state.display()
        ),
    )
    .expect("slurm.conf");
    let conf = load_conf(&conf).expect("loads");
    let listener = UnixListener::bind(spur_client::socket_path(&conf)).expect("binds");
    (dir, conf, listener)
}

fn session(per_conn: usize) -> (tempfile::TempDir, Session, Arc<AtomicUsize>) {
    let (dir, conf, listener) = cluster();
    let conns = stand_in(listener, per_conn);
    (dir, Session::new(conf), conns)
}

#[test]
fn one_connection_carries_every_request() {
    let (_dir, mut s, conns) = session(usize::MAX);
    for _ in 0..5 {
        let answer = s.request(&ClientRequest::Ping).expect("answered");
        assert!(matches!(answer, ClientResponse::Pong { .. }), "{answer:?}");
    }
    assert_eq!(conns.load(Ordering::SeqCst), 1);
}

#[test]
fn a_connection_the_controller_closed_is_replaced_without_a_sigpipe() {
    // SIGPIPE's default action, as the commands run: a write to the closed
    // connection would end this test process.
    // SAFETY: setting a disposition at the start of a test.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let (_dir, mut s, conns) = session(1);
    for _ in 0..4 {
        // The stand-in closes after each answer; let it.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let answer = s.request(&ClientRequest::Ping).expect("answered");
        assert!(matches!(answer, ClientResponse::Pong { .. }), "{answer:?}");
    }
    assert_eq!(conns.load(Ordering::SeqCst), 4);
}

/// A controller that reads each request and, for the first `drop_first`
/// connections, hangs up without answering (as one killed between its
/// commit and its answer does); then answers every submission with job 7.
/// Returns the requests it read.
fn loses_answers(
    listener: UnixListener,
    drop_first: usize,
) -> Arc<std::sync::Mutex<Vec<ClientRequest>>> {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { return };
            let _: Hello = frame::read_sync(&mut stream).expect("hello");
            let hello = Hello {
                version: PROTOCOL_VERSION,
                role: Role::Client,
            };
            frame::write_sync(&mut stream, &hello).expect("hello back");
            while let Ok(req) = frame::read_sync::<ClientRequest, _>(&mut stream) {
                kept.lock().unwrap().push(req);
                if n < drop_first {
                    break;
                }
                let answer = ClientResponse::Submitted {
                    job_id: 7,
                    cluster: "t".into(),
                };
                frame::write_sync(&mut stream, &answer).expect("answer");
            }
        }
    });
    seen
}

fn key_of(req: &ClientRequest) -> Option<String> {
    match req {
        ClientRequest::Submit(desc) => desc.submit_key.clone(),
        _ => None,
    }
}

#[test]
fn a_submission_whose_answer_was_lost_is_sent_again_with_its_key() {
    use spur_client::Api;
    let (_dir, conf, listener) = cluster();
    let seen = loses_answers(listener, 2);
    let mut s = Session::new(conf);
    let submitted = s
        .submit(spur_proto::JobDesc::default())
        .expect("the third try is answered");
    assert_eq!(submitted.job_id, 7);
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 3, "{seen:?}");
        let key = key_of(&seen[0]).expect("a submission carries a key");
        assert!(seen
            .iter()
            .all(|r| key_of(r).as_deref() == Some(key.as_str())));
    }
    // The next submission is another one: a key of its own.
    s.submit(spur_proto::JobDesc::default()).expect("answered");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    assert_ne!(key_of(&seen[3]), key_of(&seen[0]));
}

#[test]
fn a_request_that_may_have_acted_is_not_sent_again() {
    let (_dir, conf, listener) = cluster();
    let seen = loses_answers(listener, 1);
    let mut s = Session::new(conf);
    let hold = ClientRequest::Release { jobs: vec![3] };
    let answer = s.request(&hold);
    assert!(
        matches!(answer, Err(spur_client::ClientError::Frame(_))),
        "{answer:?}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
}

/// A fresh session on the stand-in that `serve` runs on each connection.
fn session_serving(
    serve: impl Fn(std::os::unix::net::UnixStream) + Send + 'static,
) -> (tempfile::TempDir, Session) {
    let (dir, conf, listener) = cluster();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            serve(stream);
        }
    });
    (dir, Session::new(conf))
}

#[test]
fn the_request_follows_the_hello_without_waiting_for_the_controllers() {
    // This controller answers its hello only once the request is in: a
    // command that waited for it first would wait until its read timeout.
    let (_dir, mut s) = session_serving(|mut stream| {
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .expect("timeout");
        let _: Hello = frame::read_sync(&mut stream).expect("hello");
        let req: ClientRequest = frame::read_sync(&mut stream).expect("the request, unasked");
        assert!(matches!(req, ClientRequest::Ping));
        let hello = Hello {
            version: PROTOCOL_VERSION,
            role: Role::Client,
        };
        frame::write_sync(&mut stream, &hello).expect("hello back");
        let pong = ClientResponse::Pong { host: "ctl".into() };
        frame::write_sync(&mut stream, &pong).expect("answer");
    });
    let started = std::time::Instant::now();
    let answer = s.request(&ClientRequest::Ping).expect("answered");
    assert!(matches!(answer, ClientResponse::Pong { .. }), "{answer:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
}

#[test]
fn a_controller_of_another_version_is_named_as_such() {
    // As spurd does: its own hello, then the connection closed unread.
    let (_dir, mut s) = session_serving(|mut stream| {
        let _: Hello = frame::read_sync(&mut stream).expect("hello");
        let hello = Hello {
            version: PROTOCOL_VERSION + 1,
            role: Role::Client,
        };
        frame::write_sync(&mut stream, &hello).expect("hello back");
    });
    let answer = s.request(&ClientRequest::Ping);
    assert!(
        matches!(answer, Err(spur_client::ClientError::Version { theirs }) if theirs == PROTOCOL_VERSION + 1),
        "{answer:?}"
    );
}
