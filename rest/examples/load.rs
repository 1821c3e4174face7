//! A bounded HTTP/1.1 load loop for `bench/rest`: exactly `-n` requests
//! over `-c` keep-alive connections (one thread each), loopback targets
//! only. Prints one line of JSON: n, ok (2xx), errors, seconds,
//! req_per_s, p50_ms, p90_ms, p99_ms, max_ms, bytes (mean body size).
//!
//! ```text
//! load --url http://127.0.0.1:6820/slurm/v0.0.44/jobs/ -n 200 -c 8 \
//!      -H 'X-SLURM-USER-TOKEN: ...' [--method POST --body-file job.json]
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Args {
    addr: SocketAddr,
    host: String,
    path: String,
    n: usize,
    c: usize,
    method: String,
    headers: Vec<String>,
    body: Vec<u8>,
}

fn usage(why: &str) -> ! {
    eprintln!("load: {why}\nusage: load --url URL [-n N] [-c C] [-H 'K: V']... [--method M] [--body-file F]");
    std::process::exit(2)
}

fn parse() -> Args {
    let mut url = None;
    let (mut n, mut c) = (100, 1);
    let mut method = "GET".to_string();
    let mut headers = Vec::new();
    let mut body = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--url" => url = Some(value()),
            "-n" => {
                n = value()
                    .parse()
                    .unwrap_or_else(|_| usage("-n takes a number"))
            }
            "-c" => {
                c = value()
                    .parse()
                    .unwrap_or_else(|_| usage("-c takes a number"))
            }
            "-H" => headers.push(value()),
            "--method" => method = value(),
            "--body-file" => {
                let f = value();
                body = std::fs::read(&f).unwrap_or_else(|e| usage(&format!("{f}: {e}")));
            }
            other => usage(&format!("unknown argument {other}")),
        }
    }
    let url = url.unwrap_or_else(|| usage("--url is required"));
    let rest = url
        .strip_prefix("http://")
        .unwrap_or_else(|| usage("only http:// URLs"));
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    let addr = host
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .unwrap_or_else(|| usage(&format!("cannot resolve {host}")));
    if !addr.ip().is_loopback() {
        usage(&format!("refusing {addr}: loopback targets only"));
    }
    Args {
        addr,
        host: host.to_string(),
        path,
        n,
        c: c.max(1),
        method,
        headers,
        body,
    }
}

/// One request's bytes.
fn request(a: &Args) -> Vec<u8> {
    let mut head = format!("{} {} HTTP/1.1\r\nHost: {}\r\n", a.method, a.path, a.host);
    for h in &a.headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    if !a.body.is_empty() {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            a.body.len()
        ));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&a.body);
    bytes
}

/// Reads one answer: (status, body length, whether the server closes).
fn answer(r: &mut BufReader<TcpStream>) -> std::io::Result<(u16, usize, bool)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let (mut length, mut close, mut chunked) = (0usize, false, false);
    loop {
        line.clear();
        r.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').unwrap_or((l, ""));
        let v = v.trim();
        match k.to_ascii_lowercase().as_str() {
            "content-length" => length = v.parse().unwrap_or(0),
            "connection" => close = v.eq_ignore_ascii_case("close"),
            "transfer-encoding" => chunked = v.contains("chunked"),
            _ => {}
        }
    }
    if chunked {
        let mut total = 0;
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim(), 16).unwrap_or(0);
            std::io::copy(&mut r.by_ref().take(size as u64 + 2), &mut std::io::sink())?;
            if size == 0 {
                break;
            }
            total += size;
        }
        return Ok((status, total, close));
    }
    // The body is counted, not kept.
    let got = std::io::copy(&mut r.by_ref().take(length as u64), &mut std::io::sink())?;
    if got != length as u64 {
        return Err(std::io::Error::other("the answer ended early"));
    }
    Ok((status, length, close))
}

fn main() {
    let a = Arc::new(parse());
    let req = Arc::new(request(&a));
    let left = Arc::new(AtomicUsize::new(a.n));
    let results = Arc::new(Mutex::new(Vec::<(Duration, u16, usize)>::with_capacity(
        a.n,
    )));
    let errors = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let threads: Vec<_> = (0..a.c)
        .map(|_| {
            let (a, req, left, results, errors) = (
                a.clone(),
                req.clone(),
                left.clone(),
                results.clone(),
                errors.clone(),
            );
            std::thread::spawn(move || {
                let mut conn: Option<(TcpStream, BufReader<TcpStream>)> = None;
                let mut mine = Vec::new();
                while left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
                {
                    let t0 = Instant::now();
                    let mut done = None;
                    for _ in 0..2 {
                        if conn.is_none() {
                            let s = match TcpStream::connect(a.addr) {
                                Ok(s) => s,
                                Err(_) => continue,
                            };
                            let _ = s.set_nodelay(true);
                            let reader =
                                BufReader::with_capacity(1 << 18, s.try_clone().expect("clone"));
                            conn = Some((s, reader));
                        }
                        let (s, r) = conn.as_mut().expect("connected");
                        match s.write_all(&req).and_then(|()| answer(r)) {
                            Ok((status, size, close)) => {
                                if close {
                                    conn = None;
                                }
                                done = Some((status, size));
                                break;
                            }
                            Err(_) => conn = None,
                        }
                    }
                    match done {
                        Some((status, size)) => mine.push((t0.elapsed(), status, size)),
                        None => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                results.lock().expect("no panics").extend(mine);
            })
        })
        .collect();
    for t in threads {
        t.join().expect("worker ends");
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut r = std::mem::take(&mut *results.lock().expect("no panics"));
    r.sort_by_key(|(d, _, _)| *d);
    let pct = |p: f64| -> f64 {
        if r.is_empty() {
            return 0.0;
        }
        let i = ((r.len() as f64 - 1.0) * p).round() as usize;
        r[i].0.as_secs_f64() * 1000.0
    };
    let ok = r.iter().filter(|(_, s, _)| (200..300).contains(s)).count();
    let bytes = if r.is_empty() {
        0
    } else {
        r.iter().map(|(_, _, b)| b).sum::<usize>() / r.len()
    };
    println!(
        "{{\"n\": {}, \"ok\": {ok}, \"errors\": {}, \"seconds\": {seconds:.3}, \"req_per_s\": {:.1}, \
         \"p50_ms\": {:.2}, \"p90_ms\": {:.2}, \"p99_ms\": {:.2}, \"max_ms\": {:.2}, \"bytes\": {bytes}}}",
        a.n,
        errors.load(Ordering::Relaxed) + (r.len() - ok),
        r.len() as f64 / seconds,
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0)
    );
}
