//! Framing: every message is a 4-byte big-endian length followed by its
//! bincode encoding. Owns the limits on frame size; knows nothing of what the
//! messages mean.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest frame accepted (scripts are limited well below this).
pub const MAX_FRAME: u32 = 256 << 20;

/// A frame that could not be read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The socket failed or closed.
    #[error("connection failed")]
    Io(#[from] std::io::Error),
    /// The peer announced a frame above [`MAX_FRAME`].
    #[error("frame of {0} bytes exceeds the limit")]
    TooLarge(u32),
    /// The bytes are not a message of the expected type.
    #[error("malformed message")]
    Decode(#[source] bincode::Error),
    /// A job listing's block does not decode.
    #[error("malformed message")]
    Listing(#[from] crate::listing::ListingError),
    /// A message could not be encoded.
    #[error("message cannot be encoded")]
    Encode(#[source] bincode::Error),
}

impl FrameError {
    /// Whether the peer simply closed the connection.
    pub fn is_eof(&self) -> bool {
        matches!(self, FrameError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof)
    }
}

/// Encodes one message as a frame (length prefix included).
pub fn encode<T: Serialize>(msg: &T) -> Result<Vec<u8>, FrameError> {
    let len = bincode::serialized_size(msg).map_err(FrameError::Encode)?;
    let len = u32::try_from(len)
        .ok()
        .filter(|&l| l <= MAX_FRAME)
        .ok_or(FrameError::TooLarge(u32::MAX))?;
    let mut buf = Vec::with_capacity(4 + len as usize);
    buf.extend_from_slice(&len.to_be_bytes());
    bincode::serialize_into(&mut buf, msg).map_err(FrameError::Encode)?;
    Ok(buf)
}

/// A listing of at least this many jobs is encoded on two threads: its
/// caller waits on it, and a second thread costs less than a millisecond's
/// work.
pub const SPLIT_LISTING_FROM: usize = 4096;

/// How many items before its turn [`encode_jobs`] announces an item: far
/// enough that its memory arrives while the ones before it are written.
pub const LOOK_AHEAD: usize = 8;

/// Encodes `ClientResponse::Jobs { now, jobs }` as a frame from `items`,
/// each job carrying `fields` written by `fill` over one reused value in
/// turn, so that a listing of many jobs is never built as `JobInfo`s nor
/// allocated job by job (the bytes equal those of [`encode`]). `fill`
/// returns false for an item that is not listed: choosing is part of the
/// work shared out. `ahead` is told of each item [`LOOK_AHEAD`] items
/// before it is filled, to bring what filling it reads into the cache.
/// From [`SPLIT_LISTING_FROM`] items on, the listing goes in two runs, the
/// second written on a thread of its own (and read on one by the client).
pub fn encode_jobs<T: Sync>(
    now: u64,
    fields: crate::JobFields,
    items: &[T],
    ahead: impl Fn(&T) + Sync,
    fill: impl Fn(&T, &mut crate::job::JobInfo) -> bool + Sync,
) -> Result<Vec<u8>, FrameError> {
    use crate::listing::{header_len, put_header, BlockWriter, Run};
    // The empty response ends with its block: the block's length (a u64)
    // and the block's header (of one empty run). Keep what comes before
    // and write the rest.
    let empty = crate::message::ClientResponse::Jobs {
        now,
        jobs: crate::JobList::new(fields, Vec::new()),
    };
    let mut buf = encode(&empty)?;
    buf.truncate(buf.len() - 8 - header_len(1));
    let block_len_at = buf.len();
    buf.extend_from_slice(&0u64.to_le_bytes());
    let block_start = buf.len();
    // A large listing goes in two runs, written on two threads here and
    // read on two by the client.
    let parts: Vec<&[T]> = if items.len() >= SPLIT_LISTING_FROM {
        let (first, second) = items.split_at(items.len() / 2);
        vec![first, second]
    } else {
        vec![items]
    };
    buf.resize(block_start + header_len(parts.len()), 0);
    let jobs_start = buf.len();
    let writer = BlockWriter::new(fields);
    // Writes the listed items of `part`, and says how many there were;
    // `then` more items' bytes will be added to `out` after them.
    let write = |part: &[T], out: &mut Vec<u8>, then: usize| {
        let mut job = crate::job::JobInfo::default();
        let mut count = 0;
        for (i, item) in part.iter().enumerate() {
            if let Some(next) = part.get(i + LOOK_AHEAD) {
                ahead(next);
            }
            if !fill(item, &mut job) {
                continue;
            }
            let before = out.len();
            writer.push(out, &job);
            if count == 0 {
                // Room for every job left the size of the first, so the
                // buffer is not copied as it grows.
                let each = out.len() - before;
                out.reserve((part.len() - i + then).saturating_mul(each + each / 4));
            }
            count += 1;
        }
        count
    };
    let runs = match parts[..] {
        [first, second] => {
            // The second half into a buffer of its own, then after the first.
            let write_second = || {
                let mut tail = Vec::new();
                let count = write(second, &mut tail, 0);
                (count, tail)
            };
            let (first_count, (second_count, tail)) = std::thread::scope(|scope| {
                let helper = spur_sys::spawn_apart(scope, "listing", write_second);
                let count = write(first, &mut buf, second.len());
                let second = match helper {
                    Ok(helper) => helper
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e)),
                    // No thread to be had: the second half here too.
                    Err(_) => write_second(),
                };
                (count, second)
            });
            let first = Run {
                count: first_count,
                len: buf.len() - jobs_start,
            };
            buf.extend_from_slice(&tail);
            let second = Run {
                count: second_count,
                len: tail.len(),
            };
            vec![first, second]
        }
        _ => {
            let count = write(items, &mut buf, 0);
            vec![Run {
                count,
                len: buf.len() - jobs_start,
            }]
        }
    };
    let mut header = Vec::with_capacity(header_len(runs.len()));
    put_header(&mut header, fields, &runs);
    buf[block_start..jobs_start].copy_from_slice(&header);
    let block_len = (buf.len() - block_start) as u64;
    buf[block_len_at..block_start].copy_from_slice(&block_len.to_le_bytes());
    let len = u32::try_from(buf.len() - 4)
        .ok()
        .filter(|&l| l <= MAX_FRAME)
        .ok_or(FrameError::TooLarge(u32::MAX))?;
    buf[..4].copy_from_slice(&len.to_be_bytes());
    Ok(buf)
}

/// Decodes a frame's payload (without the length prefix).
pub fn decode<T: DeserializeOwned>(payload: &[u8]) -> Result<T, FrameError> {
    bincode::deserialize(payload).map_err(FrameError::Decode)
}

std::thread_local! {
    /// The payload [`decode_owned`] is decoding on this thread, as the
    /// pointer its `Arc` gives (null when none). A pointer, not an `Arc`:
    /// a thread-local that needs dropping registers a destructor at its
    /// first use, and in a static musl command that first call into the C
    /// library's allocator costs six system calls and two page faults.
    static DECODING: std::cell::Cell<*const Vec<u8>> =
        const { std::cell::Cell::new(std::ptr::null()) };
}

/// Decodes a payload that was read into `payload`: what keeps a large
/// part of it as bytes (a job listing) shares the payload instead of
/// copying its part out ([`shared`]).
fn decode_owned<T: DeserializeOwned>(payload: Vec<u8>) -> Result<T, FrameError> {
    /// Puts back what was being decoded before, also if decoding panics.
    struct Restore(*const Vec<u8>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DECODING.with(|d| d.set(self.0));
        }
    }
    let payload = Arc::new(payload);
    let _restore = Restore(DECODING.with(|d| d.replace(Arc::as_ptr(&payload))));
    decode(&payload)
}

/// `bytes`, as a part of the payload being decoded on this thread, where
/// they are one: the payload, shared, and where they lie in it.
pub(crate) fn shared(bytes: &[u8]) -> Option<(Arc<Vec<u8>>, std::ops::Range<usize>)> {
    let current = DECODING.with(std::cell::Cell::get);
    if current.is_null() {
        return None;
    }
    // SAFETY: a pointer set in DECODING is an Arc's, which the
    // decode_owned below this call on the same thread holds until it puts
    // the pointer back: the count is at least one, and one more is taken
    // here for the Arc made from it.
    let payload = unsafe {
        Arc::increment_strong_count(current);
        Arc::from_raw(current)
    };
    let start = (bytes.as_ptr() as usize).checked_sub(payload.as_ptr() as usize)?;
    let end = start.checked_add(bytes.len())?;
    (end <= payload.len()).then_some((payload, start..end))
}

/// Writes one message.
pub async fn write<T: Serialize, W: AsyncWrite + Unpin>(
    w: &mut W,
    msg: &T,
) -> Result<(), FrameError> {
    let buf = encode(msg)?;
    w.write_all(&buf).await?;
    w.flush().await?;
    Ok(())
}

/// Reads one message.
pub async fn read<T: DeserializeOwned, R: AsyncRead + Unpin>(r: &mut R) -> Result<T, FrameError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).await?;
    let len = u32::from_be_bytes(len);
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    // Grown as the bytes arrive: a length prefix alone, from a peer that
    // then sends nothing, costs no memory.
    let mut payload = Vec::with_capacity((len as usize).min(PRESIZE_BYTES));
    let got = (&mut *r)
        .take(u64::from(len))
        .read_to_end(&mut payload)
        .await?;
    if got < len as usize {
        return Err(FrameError::Io(std::io::ErrorKind::UnexpectedEof.into()));
    }
    decode_owned(payload)
}

/// The most a frame's buffer holds before its bytes have arrived.
const PRESIZE_BYTES: usize = 64 << 10;

/// Writes one message on a blocking stream (the supervisor's and the
/// commands' synchronous paths).
pub fn write_sync<T: Serialize, W: std::io::Write>(w: &mut W, msg: &T) -> Result<(), FrameError> {
    let buf = encode(msg)?;
    w.write_all(&buf)?;
    w.flush()?;
    Ok(())
}

/// Reads one message from a blocking stream.
pub fn read_sync<T: DeserializeOwned, R: std::io::Read>(r: &mut R) -> Result<T, FrameError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len);
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    // The bytes first, read as they arrive (a length alone reserves little),
    // then decoded from memory: a slice decodes several times faster than a
    // stream, and a listing's bytes are a fraction of its decoded values.
    let mut payload = Vec::with_capacity((len as usize).min(PRESIZE_BYTES));
    let got = std::io::Read::read_to_end(
        &mut std::io::Read::take(&mut *r, u64::from(len)),
        &mut payload,
    )?;
    if got < len as usize {
        return Err(FrameError::Io(std::io::ErrorKind::UnexpectedEof.into()));
    }
    decode_owned(payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ClientRequest, ClientResponse};

    #[test]
    fn a_length_inside_a_frame_cannot_claim_more_than_the_frame() {
        // A Submit whose first string (the name) claims a terabyte.
        let mut payload = Vec::new();
        payload.extend_from_slice(&1u32.to_le_bytes()); // the Submit variant
        payload.push(1); // Some(name)
        payload.extend_from_slice(&(1u64 << 40).to_le_bytes());
        payload.extend_from_slice(b"seed");
        let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&payload);
        let read = read_sync::<ClientRequest, _>(&mut &frame[..]);
        assert!(matches!(read, Err(FrameError::Decode(_))), "{read:?}");
    }

    /// A reader that hands out at most 1,000 bytes a read, as a socket may.
    struct Trickle<'a>(&'a [u8]);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(1000);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_frame_larger_than_the_first_read_arrives_whole_or_not_at_all() {
        let big = ClientResponse::Pong {
            host: "h".repeat(3 * PRESIZE_BYTES + 17),
        };
        let mut frame = Vec::new();
        write_sync(&mut frame, &big).expect("writes");
        let got: ClientResponse = read_sync(&mut Trickle(&frame)).expect("reads");
        assert!(
            matches!(got, ClientResponse::Pong { host } if host.len() == 3 * PRESIZE_BYTES + 17)
        );
        for cut in [PRESIZE_BYTES, PRESIZE_BYTES + 4, frame.len() - 1] {
            let got = read_sync::<ClientResponse, _>(&mut Trickle(&frame[..cut]));
            assert!(
                matches!(&got, Err(FrameError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof),
                "cut at {cut}: {got:?}"
            );
        }
    }

    #[tokio::test]
    async fn a_message_survives_the_round_trip() {
        let (mut a, mut b) = tokio::io::duplex(1 << 16);
        write(&mut a, &ClientRequest::Ping).await.expect("writes");
        let got: ClientRequest = read(&mut b).await.expect("reads");
        assert!(matches!(got, ClientRequest::Ping));
    }

    #[tokio::test]
    async fn an_oversize_length_is_refused_before_allocating() {
        let (mut a, mut b) = tokio::io::duplex(64);
        tokio::io::AsyncWriteExt::write_all(&mut a, &u32::MAX.to_be_bytes())
            .await
            .expect("writes");
        let got = read::<ClientResponse, _>(&mut b).await;
        assert!(matches!(got, Err(FrameError::TooLarge(u32::MAX))));
    }

    #[test]
    fn a_streamed_job_listing_decodes_like_a_collected_one() {
        use crate::job::{ExclusiveMode, JobInfo, JobStateName, MemSpec};
        let job = |id: u32| JobInfo {
            job_id: id,
            name: format!("job{id}"),
            user_id: 1000,
            user_name: "alice".into(),
            group_id: 1000,
            group_name: "alice".into(),
            state: JobStateName::Pending,
            reason: "Priority".into(),
            priority: 1,
            nice: 0,
            account: None,
            qos: "normal".into(),
            partition: "batch".into(),
            time_limit: Some(60),
            time_min: None,
            submit_time: 5,
            eligible_time: 5,
            start_time: None,
            end_time: None,
            nodes: String::new(),
            sched_nodes: None,
            num_nodes: 1,
            num_cpus: 1,
            num_tasks: 1,
            cpus_per_task: 1,
            ntasks_per_node: 0,
            cpus_per_node: vec![],
            batch_host: None,
            req_nodes: None,
            exc_nodes: None,
            features: None,
            mem: MemSpec::Default,
            tres: None,
            tres_per_node: None,
            tres_per_job: None,
            tres_per_task: None,
            gpus_per_node_idx: vec![vec![0, 1]],
            work_dir: "/tmp".into(),
            stdout: String::new(),
            stderr: String::new(),
            stdin: String::new(),
            command: None,
            comment: None,
            exit_code: 0,
            exit_signal: 0,
            restarts: 0,
            requeue: true,
            batch: true,
            deadline: None,
            exclusive: ExclusiveMode::No,
            contiguous: false,
            submit_host: "h".into(),
            dependency: None,
            array_job_id: None,
            array_task_id: None,
            array_task_str: None,
            array_task_throttle: 0,
            last_sched_eval: None,
            unacted: vec![],
        };
        let some = crate::JobFields::of(&[crate::JobField::JobId, crate::JobField::Nodes]);
        // Few jobs, written on one thread; and enough to be split in two,
        // with an odd count and jobs of unequal sizes.
        for count in [3, SPLIT_LISTING_FROM + 1] {
            let jobs: Vec<JobInfo> = (1..=count as u32)
                .map(|i| JobInfo {
                    nodes: "n".repeat(i as usize % 7),
                    ..job(i)
                })
                .collect();
            for fields in [crate::JobFields::ALL, some] {
                // The jobs `listed` keeps, encoded as the controller does.
                let listing = |listed: &(dyn Fn(&JobInfo) -> bool + Sync)| {
                    encode_jobs(
                        42,
                        fields,
                        &jobs,
                        |_| {},
                        |j, out| {
                            out.clone_from(j);
                            listed(j)
                        },
                    )
                    .expect("encodes")
                };
                let streamed = listing(&|_| true);
                let held = crate::JobList::new(fields, jobs.clone());
                let collected = encode(&ClientResponse::Jobs {
                    now: 42,
                    jobs: held,
                })
                .expect("encodes");
                let Ok(ClientResponse::Jobs { now: 42, jobs: got }) = decode(&streamed[4..]) else {
                    panic!("{count} jobs do not decode as a listing");
                };
                assert_eq!(got, crate::JobList::sent(fields, &jobs), "{count} jobs");
                let runs = got.parts().expect("runs cover the bytes").len();
                if count < SPLIT_LISTING_FROM {
                    assert_eq!(streamed, collected, "{count} jobs");
                    assert_eq!(runs, 1);
                } else {
                    assert_eq!(runs, 2);
                }
                // Items left out by `fill` are not listed, in either run.
                let chosen =
                    |j: &JobInfo| !j.job_id.is_multiple_of(3) && j.job_id < 3 * count as u32 / 4;
                let some_listed = listing(&chosen);
                let Ok(ClientResponse::Jobs { jobs: got, .. }) = decode(&some_listed[4..]) else {
                    panic!("{count} jobs, some listed, do not decode as a listing");
                };
                let kept: Vec<JobInfo> = jobs.iter().filter(|j| chosen(j)).cloned().collect();
                assert_eq!(got.len(), kept.len(), "{count} jobs, some listed");
                assert_eq!(got, crate::JobList::sent(fields, &kept), "{count} jobs");
            }
        }
    }

    #[test]
    fn garbage_is_a_decode_error() {
        let got = decode::<ClientRequest>(&[0xff, 0xff, 0xff, 0xff, 9]);
        assert!(matches!(got, Err(FrameError::Decode(_))));
    }
}
