//! Job listings that carry only what the caller reads: [`JobField`] names
//! each field of a [`JobInfo`], [`JobFields`] is a set of them, and a
//! [`JobList`] travels as one block of bytes holding, for each job, just the
//! fields of its set. squeue's default format reads a dozen of the sixty:
//! the controller writes a dozen per job and the command decodes a dozen,
//! instead of building, sending and parsing every field of every job.
//!
//! The block: the set (u64 LE), the count (u32 LE), then each job's fields
//! in declaration order, integers little-endian, strings and lists as a u32
//! length and their items, options as a 0/1 byte and the value. Fields
//! outside the set keep their defaults on the receiving side.

use std::fmt;
use std::ops::{BitOr, Range};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::history::Tres;
use crate::job::{ExclusiveMode, JobInfo, JobStateName, MemSpec};

/// A block of listing bytes that does not decode.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListingError {
    /// The bytes end inside a job.
    #[error("job listing ends inside a job")]
    Truncated,
    /// A string is not UTF-8.
    #[error("job listing holds a string that is not UTF-8")]
    NotUtf8,
    /// An option's tag or an enum's value is out of range.
    #[error("job listing holds an invalid value")]
    Invalid,
    /// Bytes follow the last job.
    #[error("job listing has bytes after its last job")]
    Trailing,
}

/// A value as a listing writes it.
trait Wire: Sized {
    fn put(&self, out: &mut Vec<u8>);
    fn take(input: &mut &[u8]) -> Result<Self, ListingError>;
    /// Reads into `self`, reusing what it holds (a string's buffer).
    fn take_into(&mut self, input: &mut &[u8]) -> Result<(), ListingError> {
        *self = Self::take(input)?;
        Ok(())
    }
}

fn take_bytes<'a>(input: &mut &'a [u8], n: usize) -> Result<&'a [u8], ListingError> {
    if input.len() < n {
        return Err(ListingError::Truncated);
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

macro_rules! wire_int {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn take(input: &mut &[u8]) -> Result<Self, ListingError> {
                let bytes = take_bytes(input, std::mem::size_of::<$t>())?;
                Ok(<$t>::from_le_bytes(bytes.try_into().expect("sized")))
            }
        }
    )*};
}
wire_int!(u32, i32, u64);

impl Wire for bool {
    fn put(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn take(input: &mut &[u8]) -> Result<Self, ListingError> {
        match take_bytes(input, 1)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(ListingError::Invalid),
        }
    }
}

fn put_len(len: usize, out: &mut Vec<u8>) {
    // A frame is far below 4 GiB, and so is every length inside one.
    (len as u32).put(out);
}

impl Wire for String {
    fn put(&self, out: &mut Vec<u8>) {
        put_len(self.len(), out);
        out.extend_from_slice(self.as_bytes());
    }
    fn take(input: &mut &[u8]) -> Result<Self, ListingError> {
        let len = u32::take(input)? as usize;
        let bytes = take_bytes(input, len)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| ListingError::NotUtf8)
    }
    fn take_into(&mut self, input: &mut &[u8]) -> Result<(), ListingError> {
        let len = u32::take(input)? as usize;
        let bytes = take_bytes(input, len)?;
        let text = std::str::from_utf8(bytes).map_err(|_| ListingError::NotUtf8)?;
        self.clear();
        self.push_str(text);
        Ok(())
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.put(out);
            }
        }
    }
    fn take(input: &mut &[u8]) -> Result<Self, ListingError> {
        match take_bytes(input, 1)?[0] {
            0 => Ok(None),
            1 => T::take(input).map(Some),
            _ => Err(ListingError::Invalid),
        }
    }
    fn take_into(&mut self, input: &mut &[u8]) -> Result<(), ListingError> {
        match (take_bytes(input, 1)?[0], self.as_mut()) {
            (0, _) => *self = None,
            (1, Some(value)) => value.take_into(input)?,
            (1, None) => *self = Some(T::take(input)?),
            _ => return Err(ListingError::Invalid),
        }
        Ok(())
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        put_len(self.len(), out);
        for item in self {
            item.put(out);
        }
    }
    fn take(input: &mut &[u8]) -> Result<Self, ListingError> {
        let len = u32::take(input)? as usize;
        // Every item takes at least a byte: a length cannot claim more
        // items than there are bytes left.
        if len > input.len() {
            return Err(ListingError::Truncated);
        }
        (0..len).map(|_| T::take(input)).collect()
    }
}

/// The few enums and structs of a job travel in their bincode form: they
/// are small and rarely asked for.
macro_rules! wire_bincode {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, out: &mut Vec<u8>) {
                bincode::serialize_into(out, self).expect("plain data encodes");
            }
            fn take(input: &mut &[u8]) -> Result<Self, ListingError> {
                bincode::deserialize_from(input).map_err(|_| ListingError::Invalid)
            }
        }
    )*};
}
wire_bincode!(JobStateName, MemSpec, ExclusiveMode, Tres);

macro_rules! job_fields {
    ($($(#[$doc:meta])* $variant:ident: $field:ident,)*) => {
        /// A field of [`JobInfo`], named as the struct names it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum JobField {
            $($(#[$doc])* $variant,)*
        }

        impl JobField {
            /// Every field, in declaration order.
            pub const ALL: &'static [JobField] = &[$(JobField::$variant,)*];
        }

        /// `job`'s fields of `fields`, appended to `out`.
        fn put_job(job: &JobInfo, fields: JobFields, out: &mut Vec<u8>) {
            // Naming every field here makes a field added to `JobInfo`
            // without a `JobField` fail to compile.
            let JobInfo { $($field,)* } = job;
            for field in fields.iter() {
                match field {
                    $(JobField::$variant => $field.put(out),)*
                }
            }
        }

        /// `fields` of a job read from `input` into `job`.
        fn take_job(
            input: &mut &[u8],
            fields: JobFields,
            job: &mut JobInfo,
        ) -> Result<(), ListingError> {
            for field in fields.iter() {
                match field {
                    $(JobField::$variant => job.$field.take_into(input)?,)*
                }
            }
            Ok(())
        }

        /// `job` with only `fields` kept, the rest default.
        fn project_job(job: &JobInfo, fields: JobFields) -> JobInfo {
            let mut kept = JobInfo::default();
            $(if fields.has(JobField::$variant) {
                kept.$field = job.$field.clone();
            })*
            kept
        }
    };
}

job_fields! {
    /// `job_id`.
    JobId: job_id,
    /// `name`.
    Name: name,
    /// `user_id`.
    UserId: user_id,
    /// `user_name`.
    UserName: user_name,
    /// `group_id`.
    GroupId: group_id,
    /// `group_name`.
    GroupName: group_name,
    /// `state`.
    State: state,
    /// `reason`.
    Reason: reason,
    /// `priority`.
    Priority: priority,
    /// `nice`.
    Nice: nice,
    /// `account`.
    Account: account,
    /// `qos`.
    Qos: qos,
    /// `partition`.
    Partition: partition,
    /// `time_limit`.
    TimeLimit: time_limit,
    /// `time_min`.
    TimeMin: time_min,
    /// `submit_time`.
    SubmitTime: submit_time,
    /// `eligible_time`.
    EligibleTime: eligible_time,
    /// `start_time`.
    StartTime: start_time,
    /// `end_time`.
    EndTime: end_time,
    /// `nodes`.
    Nodes: nodes,
    /// `sched_nodes`.
    SchedNodes: sched_nodes,
    /// `num_nodes`.
    NumNodes: num_nodes,
    /// `num_cpus`.
    NumCpus: num_cpus,
    /// `num_tasks`.
    NumTasks: num_tasks,
    /// `cpus_per_task`.
    CpusPerTask: cpus_per_task,
    /// `ntasks_per_node`.
    NtasksPerNode: ntasks_per_node,
    /// `cpus_per_node`.
    CpusPerNode: cpus_per_node,
    /// `batch_host`.
    BatchHost: batch_host,
    /// `req_nodes`.
    ReqNodes: req_nodes,
    /// `exc_nodes`.
    ExcNodes: exc_nodes,
    /// `features`.
    Features: features,
    /// `mem`.
    Mem: mem,
    /// `tres`.
    Tres: tres,
    /// `tres_per_node`.
    TresPerNode: tres_per_node,
    /// `tres_per_job`.
    TresPerJob: tres_per_job,
    /// `tres_per_task`.
    TresPerTask: tres_per_task,
    /// `gpus_per_node_idx`.
    GpusPerNodeIdx: gpus_per_node_idx,
    /// `work_dir`.
    WorkDir: work_dir,
    /// `stdout`.
    StdOut: stdout,
    /// `stderr`.
    StdErr: stderr,
    /// `stdin`.
    StdIn: stdin,
    /// `command`.
    Command: command,
    /// `comment`.
    Comment: comment,
    /// `exit_code`.
    ExitCode: exit_code,
    /// `exit_signal`.
    ExitSignal: exit_signal,
    /// `restarts`.
    Restarts: restarts,
    /// `requeue`.
    Requeue: requeue,
    /// `batch`.
    Batch: batch,
    /// `deadline`.
    Deadline: deadline,
    /// `exclusive`.
    Exclusive: exclusive,
    /// `contiguous`.
    Contiguous: contiguous,
    /// `submit_host`.
    SubmitHost: submit_host,
    /// `dependency`.
    Dependency: dependency,
    /// `array_job_id`.
    ArrayJobId: array_job_id,
    /// `array_task_id`.
    ArrayTaskId: array_task_id,
    /// `array_task_str`.
    ArrayTaskStr: array_task_str,
    /// `array_task_throttle`.
    ArrayTaskThrottle: array_task_throttle,
    /// `last_sched_eval`.
    LastSchedEval: last_sched_eval,
    /// `unacted`.
    Unacted: unacted,
}

/// A set of [`JobField`]s.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct JobFields(u64);

impl JobFields {
    /// No field.
    pub const NONE: JobFields = JobFields(0);
    /// Every field.
    pub const ALL: JobFields = JobFields(u64::MAX >> (64 - JobField::ALL.len()));

    /// The fields few listings print (files, working directory, command,
    /// comment, TRES, submit host, options not acted on): the ones that
    /// cost the controller most to fill.
    pub const DETAIL: JobFields = JobFields::of(&[
        JobField::StdOut,
        JobField::StdErr,
        JobField::StdIn,
        JobField::WorkDir,
        JobField::Command,
        JobField::Comment,
        JobField::Tres,
        JobField::SubmitHost,
        JobField::Unacted,
    ]);
    /// Every field but [`JobFields::DETAIL`].
    pub const SUMMARY: JobFields = JobFields(JobFields::ALL.0 & !JobFields::DETAIL.0);

    /// The set of `fields`.
    pub const fn of(fields: &[JobField]) -> JobFields {
        let mut set = 0u64;
        let mut i = 0;
        while i < fields.len() {
            set |= 1 << fields[i] as u8;
            i += 1;
        }
        JobFields(set)
    }

    /// This set and `field`.
    pub const fn with(self, field: JobField) -> JobFields {
        JobFields(self.0 | 1 << field as u8)
    }

    /// Whether `field` is in the set.
    pub const fn has(self, field: JobField) -> bool {
        self.0 & (1 << field as u8) != 0
    }

    /// Whether the set holds every field.
    pub const fn is_all(self) -> bool {
        self.0 & JobFields::ALL.0 == JobFields::ALL.0
    }

    /// The fields of the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = JobField> {
        let mut left = self.0 & JobFields::ALL.0;
        std::iter::from_fn(move || {
            let next = left.trailing_zeros() as usize;
            left &= left.wrapping_sub(1);
            JobField::ALL.get(next).copied()
        })
    }

    /// `job` with only this set's fields kept, the others default: what a
    /// listing of this set delivers.
    pub fn project(self, job: &JobInfo) -> JobInfo {
        project_job(job, self)
    }
}

impl BitOr for JobFields {
    type Output = JobFields;
    fn bitor(self, other: JobFields) -> JobFields {
        JobFields(self.0 | other.0)
    }
}

impl From<JobField> for JobFields {
    fn from(field: JobField) -> JobFields {
        JobFields::NONE.with(field)
    }
}

impl fmt::Debug for JobFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_all() {
            return f.write_str("JobFields(ALL)");
        }
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Jobs as a listing delivers them: the fields of [`JobList::fields`]
/// filled, the others default. A list made here holds its jobs; a list
/// received holds the bytes it came as and decodes them as they are read,
/// one job at a time into one [`JobInfo`], so that a command reading each
/// job once (squeue) never holds them all: 10,000 decoded jobs are 9 MB of
/// fresh memory, their bytes a tenth of that.
#[derive(Clone, Default)]
pub struct JobList {
    fields: JobFields,
    jobs: Jobs,
}

#[derive(Clone)]
enum Jobs {
    Held(Vec<JobInfo>),
    /// The jobs' bytes, as the block holds them after its header, in
    /// `runs`: not yet checked past the header.
    Encoded {
        runs: Vec<Run>,
        bytes: Received,
    },
}

/// A received listing's bytes: a part of the frame they came in, shared
/// with it, where they were decoded as one was read (a listing of 10,000
/// jobs is most of a megabyte, not copied again), else a copy of their own.
#[derive(Clone)]
struct Received {
    frame: Arc<Vec<u8>>,
    range: Range<usize>,
}

impl Received {
    fn of(bytes: &[u8]) -> Received {
        let (frame, range) = crate::frame::shared(bytes)
            .unwrap_or_else(|| (Arc::new(bytes.to_vec()), 0..bytes.len()));
        Received { frame, range }
    }
}

impl std::ops::Deref for Received {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.frame[self.range.clone()]
    }
}

/// A run of a block's jobs, which decodes on its own: how many jobs, and
/// the length of their bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// How many jobs.
    pub count: usize,
    /// The length of their bytes.
    pub len: usize,
}

/// Part of a listing's jobs that is read on its own ([`JobList::parts`]):
/// a large listing is read on more than one thread.
#[derive(Debug, Clone, Copy)]
pub struct Part<'a> {
    fields: JobFields,
    jobs: PartJobs<'a>,
}

#[derive(Debug, Clone, Copy)]
enum PartJobs<'a> {
    Held(&'a [JobInfo]),
    Encoded { count: usize, bytes: &'a [u8] },
}

impl Part<'_> {
    /// How many jobs.
    pub fn len(&self) -> usize {
        match self.jobs {
            PartJobs::Held(jobs) => jobs.len(),
            PartJobs::Encoded { count, .. } => count,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands each job to `f` in order, as [`JobList::for_each`] does.
    pub fn for_each(&self, f: impl FnMut(&JobInfo)) -> Result<(), ListingError> {
        match self.jobs {
            PartJobs::Held(jobs) => {
                jobs.iter().for_each(f);
                Ok(())
            }
            PartJobs::Encoded { count, bytes } => each_job(self.fields, count, bytes, f),
        }
    }
}

impl Default for Jobs {
    fn default() -> Jobs {
        Jobs::Held(Vec::new())
    }
}

impl JobList {
    /// `jobs` as a listing of `fields` (each job sent with those fields
    /// only).
    pub fn new(fields: JobFields, jobs: Vec<JobInfo>) -> JobList {
        JobList {
            fields,
            jobs: Jobs::Held(jobs),
        }
    }

    /// `jobs` as a client receives them from a controller asked for
    /// `fields`: only those fields, decoded as they are read (for stand-ins
    /// of the controller).
    pub fn sent(fields: JobFields, jobs: &[JobInfo]) -> JobList {
        let block = write_block(fields, jobs);
        split_block(&block).expect("a block just written")
    }

    /// Every field of `jobs`.
    pub fn full(jobs: Vec<JobInfo>) -> JobList {
        JobList::new(JobFields::ALL, jobs)
    }

    /// The fields each job carries.
    pub fn fields(&self) -> JobFields {
        self.fields
    }

    /// How many jobs.
    pub fn len(&self) -> usize {
        match &self.jobs {
            Jobs::Held(jobs) => jobs.len(),
            Jobs::Encoded { runs, .. } => runs.iter().map(|r| r.count).sum(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands each job to `f` in order. A received list decodes each into
    /// the same [`JobInfo`], each exactly as [`JobList::into_vec`] would
    /// give it; a damaged block is an error when its damage is reached.
    pub fn for_each(&self, mut f: impl FnMut(&JobInfo)) -> Result<(), ListingError> {
        for part in self.parts()? {
            part.for_each(&mut f)?;
        }
        Ok(())
    }

    /// The jobs in parts that are read on their own, in order: a received
    /// list in the runs it was sent in (a controller sends a large listing
    /// in two), a held one as one part. An error when the runs do not
    /// cover the bytes.
    pub fn parts(&self) -> Result<Vec<Part<'_>>, ListingError> {
        let fields = self.fields;
        let (runs, mut bytes) = match &self.jobs {
            Jobs::Held(jobs) => {
                let jobs = PartJobs::Held(jobs);
                return Ok(vec![Part { fields, jobs }]);
            }
            Jobs::Encoded { runs, bytes, .. } => (runs, &bytes[..]),
        };
        let mut parts = Vec::with_capacity(runs.len());
        for run in runs {
            let (these, rest) = bytes.split_at(run.len.min(bytes.len()));
            let jobs = PartJobs::Encoded {
                count: run.count,
                bytes: these,
            };
            parts.push(Part { fields, jobs });
            bytes = rest;
        }
        if !bytes.is_empty() {
            return Err(ListingError::Trailing);
        }
        Ok(parts)
    }

    /// The jobs.
    pub fn into_vec(self) -> Result<Vec<JobInfo>, ListingError> {
        match self.jobs {
            Jobs::Held(jobs) => Ok(jobs),
            Jobs::Encoded { .. } => self.to_vec(),
        }
    }

    /// The jobs, copied or decoded.
    pub fn to_vec(&self) -> Result<Vec<JobInfo>, ListingError> {
        let mut jobs = Vec::with_capacity(self.len());
        self.for_each(|job| jobs.push(job.clone()))?;
        Ok(jobs)
    }
}

impl From<Vec<JobInfo>> for JobList {
    fn from(jobs: Vec<JobInfo>) -> JobList {
        JobList::full(jobs)
    }
}

impl FromIterator<JobInfo> for JobList {
    fn from_iter<I: IntoIterator<Item = JobInfo>>(jobs: I) -> JobList {
        JobList::full(jobs.into_iter().collect())
    }
}

/// Two lists are equal when they carry the same fields and decode to the
/// same jobs (a damaged block equals nothing).
impl PartialEq for JobList {
    fn eq(&self, other: &JobList) -> bool {
        let jobs = JobList::to_vec;
        self.fields == other.fields && matches!((jobs(self), jobs(other)), (Ok(a), Ok(b)) if a == b)
    }
}

impl fmt::Debug for JobList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("JobList");
        d.field("fields", &self.fields);
        match &self.jobs {
            Jobs::Held(jobs) => d.field("jobs", jobs),
            Jobs::Encoded { runs, bytes } => d
                .field("count", &self.len())
                .field("runs", &runs.len())
                .field("bytes", &bytes.len()),
        };
        d.finish()
    }
}

/// Writes a listing's jobs as they come, one at a time, after a header
/// written by [`put_header`].
pub struct BlockWriter {
    fields: JobFields,
}

impl BlockWriter {
    /// Writes jobs of `fields`.
    pub fn new(fields: JobFields) -> BlockWriter {
        BlockWriter { fields }
    }

    /// Appends one job.
    pub fn push(&self, out: &mut Vec<u8>, job: &JobInfo) {
        put_job(job, self.fields, out);
    }
}

/// The length of a block's header of `runs` runs.
pub fn header_len(runs: usize) -> usize {
    8 + 4 + 4 + 8 * runs
}

/// Writes a block's header: its fields, its count of jobs, and its runs.
/// Their jobs follow, run after run.
pub fn put_header(out: &mut Vec<u8>, fields: JobFields, runs: &[Run]) {
    fields.0.put(out);
    put_len(runs.iter().map(|r| r.count).sum(), out);
    put_len(runs.len(), out);
    for run in runs {
        put_len(run.count, out);
        put_len(run.len, out);
    }
}

/// A block as a received list, read as far as its header (its fields, its
/// count and its runs): the jobs' bytes are checked as they are read.
fn split_block(mut input: &[u8]) -> Result<JobList, ListingError> {
    let fields = JobFields(u64::take(&mut input)?);
    if fields.0 & !JobFields::ALL.0 != 0 {
        return Err(ListingError::Invalid);
    }
    let count = u32::take(&mut input)? as usize;
    let n = u32::take(&mut input)? as usize;
    // A run's entry takes eight bytes: a count cannot claim more runs than
    // the header has room for.
    if n > input.len() / 8 {
        return Err(ListingError::Truncated);
    }
    let mut runs = Vec::with_capacity(n);
    for _ in 0..n {
        let count = u32::take(&mut input)? as usize;
        let len = u32::take(&mut input)? as usize;
        runs.push(Run { count, len });
    }
    if runs.iter().map(|r| r.count).sum::<usize>() != count {
        return Err(ListingError::Invalid);
    }
    // Every field takes a byte at least, so a count cannot claim more jobs
    // than there are bytes (nor any job when it has no fields).
    let least = if fields == JobFields::NONE {
        0
    } else {
        input.len()
    };
    if count > least {
        return Err(ListingError::Truncated);
    }
    let jobs = Jobs::Encoded {
        runs,
        bytes: Received::of(input),
    };
    Ok(JobList { fields, jobs })
}

/// Hands `f` each of the `count` jobs of `fields` in `bytes` (a block's
/// jobs), decoded in turn into one [`JobInfo`].
fn each_job(
    fields: JobFields,
    count: usize,
    mut input: &[u8],
    mut f: impl FnMut(&JobInfo),
) -> Result<(), ListingError> {
    let mut job = JobInfo::default();
    for _ in 0..count {
        take_job(&mut input, fields, &mut job)?;
        f(&job);
    }
    if input.is_empty() {
        Ok(())
    } else {
        Err(ListingError::Trailing)
    }
}

/// The block of `jobs`, each with `fields`, in one run.
fn write_block(fields: JobFields, jobs: &[JobInfo]) -> Vec<u8> {
    let writer = BlockWriter::new(fields);
    let mut bytes = Vec::new();
    for job in jobs {
        writer.push(&mut bytes, job);
    }
    let run = Run {
        count: jobs.len(),
        len: bytes.len(),
    };
    let mut block = Vec::with_capacity(header_len(1) + bytes.len());
    put_header(&mut block, fields, &[run]);
    block.extend_from_slice(&bytes);
    block
}

impl Serialize for JobList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.jobs {
            Jobs::Held(jobs) => s.serialize_bytes(&write_block(self.fields, jobs)),
            Jobs::Encoded { runs, bytes, .. } => {
                let mut block = Vec::with_capacity(header_len(runs.len()) + bytes.len());
                put_header(&mut block, self.fields, runs);
                block.extend_from_slice(bytes);
                s.serialize_bytes(&block)
            }
        }
    }
}

impl<'de> Deserialize<'de> for JobList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<JobList, D::Error> {
        struct Listing;
        impl serde::de::Visitor<'_> for Listing {
            type Value = JobList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a job listing")
            }
            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<JobList, E> {
                split_block(bytes).map_err(E::custom)
            }
        }
        d.deserialize_bytes(Listing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job whose every field differs from its default.
    pub(crate) fn every_field_set() -> JobInfo {
        JobInfo {
            job_id: 7,
            name: "train".into(),
            user_id: 1000,
            user_name: "alice".into(),
            group_id: 100,
            group_name: "users".into(),
            state: JobStateName::Running,
            reason: "None".into(),
            priority: 4_294_901_000,
            nice: -5,
            account: Some("ml".into()),
            qos: "high".into(),
            partition: "gpu".into(),
            time_limit: Some(3600),
            time_min: Some(60),
            submit_time: 1_700_000_000,
            eligible_time: 1_700_000_001,
            start_time: Some(1_700_000_002),
            end_time: Some(1_700_003_602),
            nodes: "gb[001-002]".into(),
            sched_nodes: Some("gb003".into()),
            num_nodes: 2,
            num_cpus: 288,
            num_tasks: 8,
            cpus_per_task: 36,
            ntasks_per_node: 4,
            cpus_per_node: vec![144, 144],
            batch_host: Some("gb001".into()),
            req_nodes: Some("gb001".into()),
            exc_nodes: Some("gb009".into()),
            features: Some("nvl72".into()),
            mem: MemSpec::PerCpu(2048),
            tres: Some(Tres {
                cpus: 288,
                mem_mb: 1 << 20,
                nodes: 2,
                billing: 288,
                gpus: 8,
            }),
            tres_per_node: Some("gres:gpu:4".into()),
            tres_per_job: Some("gres:gpu:8".into()),
            tres_per_task: Some("gres:gpu:1".into()),
            gpus_per_node_idx: vec![vec![0, 1, 2, 3], vec![0, 1, 2, 3]],
            work_dir: "/home/alice".into(),
            stdout: "/home/alice/out".into(),
            stderr: "/home/alice/err".into(),
            stdin: "/dev/null".into(),
            command: Some("/home/alice/run.sh".into()),
            comment: Some("résumé".into()),
            exit_code: 3,
            exit_signal: 9,
            restarts: 1,
            requeue: true,
            batch: true,
            deadline: Some(1_800_000_000),
            exclusive: ExclusiveMode::User,
            contiguous: true,
            submit_host: "login1".into(),
            dependency: Some("afterok:6".into()),
            array_job_id: Some(5),
            array_task_id: Some(2),
            array_task_str: Some("3-9%2".into()),
            array_task_throttle: 2,
            last_sched_eval: Some(1_700_000_003),
            unacted: vec!["--mail-type=END".into()],
        }
    }

    /// Every job of a block.
    fn decode_block(input: &[u8]) -> Result<Vec<JobInfo>, ListingError> {
        split_block(input)?.to_vec()
    }

    fn round_trip(list: &JobList) -> JobList {
        let bytes = bincode::serialize(list).expect("encodes");
        bincode::deserialize(&bytes).expect("decodes")
    }

    #[test]
    fn every_field_travels() {
        let list = JobList::full(vec![every_field_set(), JobInfo::default()]);
        assert_eq!(round_trip(&list), list);
    }

    #[test]
    fn each_field_travels_alone_and_the_rest_stay_default() {
        let job = every_field_set();
        for &field in JobField::ALL {
            let fields = JobFields::from(field);
            let got = round_trip(&JobList::new(fields, vec![job.clone()]));
            let kept = fields.project(&job);
            assert_eq!(got.into_vec(), Ok(vec![kept.clone()]), "{field:?}");
            assert_ne!(kept, JobInfo::default(), "{field:?} is projected");
        }
    }

    #[test]
    fn a_list_read_from_a_frame_keeps_the_frames_bytes_and_one_decoded_alone_a_copy() {
        let jobs = vec![every_field_set(), JobInfo::default(), every_field_set()];
        let answer = crate::message::ClientResponse::Jobs {
            now: 7,
            jobs: JobList::full(jobs.clone()),
        };
        let frame = crate::frame::encode(&answer).expect("encodes");
        let read: crate::message::ClientResponse =
            crate::frame::read_sync(&mut &frame[..]).expect("reads");
        let crate::message::ClientResponse::Jobs { now: 7, jobs: list } = read else {
            panic!("not the listing sent: {read:?}");
        };
        let Jobs::Encoded { bytes, .. } = &list.jobs else {
            panic!("a received list holds bytes");
        };
        // The payload, shared: the listing's bytes lie inside it, after
        // the answer's variant and clock.
        assert_eq!(bytes.frame.len(), frame.len() - 4);
        assert!(bytes.range.start > 0 && bytes.range.end <= bytes.frame.len());
        assert_eq!(list.clone().into_vec(), Ok(jobs.clone()));

        // Decoded from bytes that were not read as a frame: a copy.
        let copied = round_trip(&JobList::full(jobs.clone()));
        let Jobs::Encoded { bytes, .. } = &copied.jobs else {
            panic!("a received list holds bytes");
        };
        assert_eq!(bytes.range, 0..bytes.frame.len());
        assert_eq!(copied.into_vec(), Ok(jobs));
    }

    #[test]
    fn a_received_list_reads_each_job_as_sent_whatever_came_before() {
        // Jobs whose values differ in kind and length from one to the next,
        // read one after another into the same value: nothing of a job
        // stays for the next.
        let full = every_field_set();
        let mut short = JobInfo {
            job_id: 2,
            name: "x".into(),
            ..JobInfo::default()
        };
        short.account = None;
        let jobs = vec![full.clone(), short, JobInfo::default(), full];
        for fields in [JobFields::ALL, JobFields::SUMMARY, JobFields::DETAIL] {
            let list = round_trip(&JobList::new(fields, jobs.clone()));
            let mut read = Vec::new();
            list.for_each(|job| read.push(job.clone()))
                .expect("decodes");
            let sent: Vec<JobInfo> = jobs.iter().map(|j| fields.project(j)).collect();
            assert_eq!(read, sent, "{fields:?}");
            assert_eq!(list.len(), 4);
            assert_eq!(list.into_vec(), Ok(sent));
        }
    }

    #[test]
    fn a_damaged_list_is_an_error_when_read() {
        let list = JobList::full(vec![every_field_set(), every_field_set()]);
        let bytes = bincode::serialize(&list).expect("encodes");
        // The block's length (8 bytes), its header (24), then the jobs.
        for cut in [40, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes[..cut].to_vec();
            damaged[..8].copy_from_slice(&((cut - 8) as u64).to_le_bytes());
            let got: JobList = bincode::deserialize(&damaged).expect("the header holds");
            let mut seen = 0;
            assert!(got.for_each(|_| seen += 1).is_err(), "cut at {cut}");
            assert!(seen < 2);
            assert!(got.into_vec().is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        longer[..8].copy_from_slice(&((bytes.len() - 7) as u64).to_le_bytes());
        let got: JobList = bincode::deserialize(&longer).expect("the header holds");
        assert_eq!(got.for_each(|_| {}), Err(ListingError::Trailing));
    }

    #[test]
    fn a_small_set_is_small() {
        let fields = JobFields::of(&[JobField::JobId, JobField::State]);
        let list = JobList::new(fields, vec![every_field_set(); 100]);
        // The block's length, the set, the count, one run, and per job a
        // u32 and the state's u32.
        assert_eq!(
            bincode::serialize(&list).expect("encodes").len(),
            8 + 8 + 4 + 4 + 8 + 800
        );
    }

    #[test]
    fn damaged_blocks_are_errors_not_panics() {
        let block = write_block(JobFields::ALL, &[every_field_set()]);
        for cut in 0..block.len() {
            assert!(decode_block(&block[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = block.clone();
        long.push(0);
        assert_eq!(decode_block(&long), Err(ListingError::Trailing));
        let mut unknown = block.clone();
        unknown[7] = 0xff;
        assert_eq!(decode_block(&unknown), Err(ListingError::Invalid));
        // Four billion jobs or runs claimed in a few bytes allocate
        // nothing.
        let run = Run {
            count: u32::MAX as usize,
            len: 0,
        };
        for fields in [JobFields::NONE, JobFields::ALL] {
            let mut huge = Vec::new();
            put_header(&mut huge, fields, &[run]);
            assert_eq!(decode_block(&huge), Err(ListingError::Truncated));
        }
        let mut runs = Vec::new();
        put_header(&mut runs, JobFields::ALL, &[]);
        runs[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode_block(&runs), Err(ListingError::Truncated));
    }

    /// A block of `jobs` in runs of `sizes` jobs each.
    fn block_in_runs(fields: JobFields, jobs: &[JobInfo], sizes: &[usize]) -> Vec<u8> {
        let writer = BlockWriter::new(fields);
        let (mut runs, mut bytes, mut at) = (Vec::new(), Vec::new(), 0);
        for &n in sizes {
            let before = bytes.len();
            for job in &jobs[at..at + n] {
                writer.push(&mut bytes, job);
            }
            runs.push(Run {
                count: n,
                len: bytes.len() - before,
            });
            at += n;
        }
        let mut block = Vec::new();
        put_header(&mut block, fields, &runs);
        block.extend_from_slice(&bytes);
        block
    }

    #[test]
    fn runs_are_read_apart_and_as_one_list() {
        let jobs: Vec<JobInfo> = (0..7)
            .map(|i| JobInfo {
                job_id: i,
                name: "x".repeat(i as usize),
                ..every_field_set()
            })
            .collect();
        let fields = JobFields::SUMMARY;
        let sent: Vec<JobInfo> = jobs.iter().map(|j| fields.project(j)).collect();
        let block = block_in_runs(fields, &jobs, &[3, 0, 4]);
        let list = split_block(&block).expect("decodes");
        assert_eq!(list.len(), 7);
        assert_eq!(list.to_vec(), Ok(sent.clone()));
        let parts = list.parts().expect("runs cover the bytes");
        assert_eq!(parts.iter().map(Part::len).collect::<Vec<_>>(), [3, 0, 4]);
        let mut apart = Vec::new();
        std::thread::scope(|s| {
            let read: Vec<_> = parts
                .iter()
                .map(|p| {
                    s.spawn(move || {
                        let mut got = Vec::new();
                        p.for_each(|j| got.push(j.clone())).map(|()| got)
                    })
                })
                .collect();
            for r in read {
                apart.extend(r.join().unwrap().unwrap());
            }
        });
        assert_eq!(apart, sent);
        // It goes out as it came.
        assert_eq!(round_trip(&list), list);
        // Runs that miscount the jobs, or leave bytes over, are errors.
        let mut miscounted = block.clone();
        miscounted[8..12].copy_from_slice(&8u32.to_le_bytes());
        assert_eq!(decode_block(&miscounted), Err(ListingError::Invalid));
        let mut over = block.clone();
        over.push(0);
        assert_eq!(decode_block(&over), Err(ListingError::Trailing));
        let mut short = block;
        let last_len = header_len(3) - 4;
        short[last_len..last_len + 4].copy_from_slice(&1u32.to_le_bytes());
        assert!(decode_block(&short).is_err());
    }
}
