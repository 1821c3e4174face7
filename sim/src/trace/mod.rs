//! Job traces for the simulator: parses normalized `jobs.csv`, raw SWF and the
//! Alibaba openb pod and node lists into one [`Trace`] shape, and reshapes a trace
//! (arrival-time compression, replication) before a run.
//! It only turns files into plain job records: it must not know about the
//! scheduler or the cluster model, and it never panics on malformed input.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// One job (or Alibaba pod) of a trace, with the fields the simulator replays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceJob {
    /// Job id, unique within the trace (Alibaba pods: 0-based row index).
    pub id: u64,
    /// Submit time in seconds, relative to the earliest job of the trace.
    pub submit_s: u64,
    /// Run time in seconds; `0` with [`TraceJob::runs_forever`] means unknown.
    pub runtime_s: u64,
    /// True when the source gives no end for the job (Alibaba pods without a
    /// scheduled or deletion time): it holds its resources until the run ends.
    pub runs_forever: bool,
    /// Requested wall-time limit in seconds; `None` when unknown or `0`.
    pub walltime_s: Option<u64>,
    /// Number of nodes, always at least 1.
    pub nodes: u32,
    /// Total GPUs of the job over all its nodes; `None` when unknown.
    pub gpus: Option<u32>,
    /// GPUs on each node; `None` when unknown.
    pub gpus_per_node: Option<u32>,
    /// Numeric user id; `None` when unknown.
    pub user: Option<u32>,
    /// CPU request in thousandths of a core (Alibaba pods only).
    pub cpu_milli: Option<u32>,
    /// Memory request in MiB (Alibaba pods only).
    pub mem_mib: Option<u64>,
    /// Share of each GPU for fractional pods, `1000` = a whole GPU (Alibaba only).
    pub gpu_milli: Option<u32>,
}

/// A parsed trace: its jobs sorted by `(submit_s, id)` plus what was dropped.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// The jobs, sorted by `(submit_s, id)`.
    pub jobs: Vec<TraceJob>,
    /// Rows that were well-formed but not replayable (no nodes, negative run
    /// or submit time), so were left out.
    pub skipped: usize,
    /// Where the trace came from (the file path, or the name given to `parse_*`).
    pub source: String,
    /// Cluster size from an SWF `; MaxNodes:` header line, when present and > 0.
    pub max_nodes_hint: Option<u32>,
}

/// One GPU node of the Alibaba openb node list (`sn,cpu_milli,memory_mib,gpu,model`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlibabaNode {
    /// Node serial name (`sn`).
    pub name: String,
    /// CPU capacity in thousandths of a core.
    pub cpu_milli: u32,
    /// Memory capacity in MiB.
    pub mem_mib: u64,
    /// Number of GPUs on the node.
    pub gpus: u32,
    /// GPU model (`P100`, `T4`, `V100M16`, ...).
    pub model: String,
}

/// Why a trace could not be loaded or reshaped.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file could not be read (missing, unreadable or not UTF-8).
    #[error("cannot read trace file {}", path.display())]
    Read {
        /// The file that was being read.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// [`load`] could not tell which trace format a file is in.
    #[error(
        "{file}: unknown trace format (expected an .swf file, a `job_id,` header \
         or a `name,cpu_milli` header)"
    )]
    UnknownFormat {
        /// The file.
        file: String,
    },
    /// A line of the file is malformed.
    #[error("{file}:{line}: {problem}")]
    Malformed {
        /// The file (the trace source).
        file: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong with the line.
        problem: LineProblem,
    },
    /// The CSV reader rejected a record.
    #[error("{file}:{line}: malformed csv record")]
    Csv {
        /// The file (the trace source).
        file: String,
        /// 1-based line number.
        line: u64,
        /// The CSV reader's error.
        #[source]
        source: csv::Error,
    },
    /// [`Trace::compress`] was given a factor that is not a positive number.
    #[error("compression factor must be finite and greater than 0, got {k}")]
    BadCompression {
        /// The rejected factor.
        k: f64,
    },
}

/// What is wrong with one line of a trace file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LineProblem {
    /// The file has no header line.
    #[error("file is empty, expected a header line")]
    MissingHeader,
    /// The header lacks a column the format needs.
    #[error("header lacks column `{column}`")]
    MissingColumn {
        /// The missing column.
        column: &'static str,
    },
    /// The line has the wrong number of fields.
    #[error("expected {expected} fields, found {found}")]
    FieldCount {
        /// Fields the header (or format) has.
        expected: usize,
        /// Fields on this line.
        found: usize,
    },
    /// A required field is empty.
    #[error("`{column}` is empty")]
    Empty {
        /// The field.
        column: &'static str,
    },
    /// A field is not a finite number.
    #[error("`{column}` is not a number: {value:?}")]
    NotANumber {
        /// The field.
        column: &'static str,
        /// Its text.
        value: String,
    },
    /// A count field has a fractional part.
    #[error("`{column}` must be a whole number, got {value}")]
    NotWhole {
        /// The field.
        column: &'static str,
        /// Its text.
        value: String,
    },
    /// A field is negative where that has no meaning (`-1` is "unknown" in
    /// `jobs.csv` and SWF wherever a field may be unknown).
    #[error("`{column}` is negative: {value}")]
    Negative {
        /// The field.
        column: &'static str,
        /// Its value.
        value: i64,
    },
    /// A field is larger than its type or its domain allows.
    #[error("`{column}` is {value}, above the maximum {max}")]
    TooLarge {
        /// The field.
        column: &'static str,
        /// Its value (rounded).
        value: i64,
        /// The largest accepted value.
        max: u64,
    },
    /// Two rows have the same job id.
    #[error("duplicate job id {id} (first on line {first_line})")]
    DuplicateId {
        /// The repeated id.
        id: u64,
        /// Line of its first occurrence.
        first_line: u64,
    },
    /// An Alibaba pod was deleted before it was scheduled.
    #[error("deletion_time {deletion} is before scheduled_time {scheduled}")]
    EndsBeforeStart {
        /// `scheduled_time`.
        scheduled: u64,
        /// `deletion_time`.
        deletion: u64,
    },
}

/// Loads a trace file, detecting its format: a `.swf` extension, a first
/// non-empty line starting with `;` or made of 18 numbers means SWF; a header
/// starting with `job_id,` means normalized `jobs.csv`; one starting with
/// `name,cpu_milli` means an Alibaba openb pod list.
pub fn load(path: &Path) -> Result<Trace, TraceError> {
    let text = read(path)?;
    let source = path.display().to_string();
    match detect(path, &text) {
        Some(Format::Swf) => parse_swf(&text, &source),
        Some(Format::JobsCsv) => parse_jobs_csv(&text, &source),
        Some(Format::AlibabaPods) => parse_alibaba_pods(&text, &source),
        None => Err(TraceError::UnknownFormat { file: source }),
    }
}

/// Loads an Alibaba openb node list (`sn,cpu_milli,memory_mib,gpu,model`).
pub fn load_alibaba_nodes(path: &Path) -> Result<Vec<AlibabaNode>, TraceError> {
    let text = read(path)?;
    parse_alibaba_nodes(&text, &path.display().to_string())
}

/// Parses a normalized `jobs.csv`
/// (`job_id,submit_s,runtime_s,req_walltime_s,nodes,gpus,user,orig_wait_s[,...]`).
///
/// Columns are found by name; extra columns are ignored except `gpus_per_node`.
/// Without that column, `gpus_per_node` is `gpus / nodes` when that divides
/// evenly. `-1` means unknown (`None`); a wall time of `0` is also `None`.
/// Rows with `nodes <= 0`, a negative `runtime_s` or a negative `submit_s`
/// are skipped and counted. Whole-number columns accept `8.0`; time columns
/// round to the nearest second. `orig_wait_s` is never read.
pub fn parse_jobs_csv(text: &str, source: &str) -> Result<Trace, TraceError> {
    let table = read_table(text, source)?;
    let cols = JobsCsvColumns {
        id: table.column("job_id", source)?,
        submit: table.column("submit_s", source)?,
        runtime: table.column("runtime_s", source)?,
        walltime: table.column("req_walltime_s", source)?,
        nodes: table.column("nodes", source)?,
        gpus: table.column("gpus", source)?,
        user: table.column("user", source)?,
        gpus_per_node: table.find("gpus_per_node"),
    };
    let mut trace = Trace::empty(source);
    let mut ids = IdSet::default();
    for row in &table.rows {
        let at = |problem| malformed(source, row.line, problem);
        match jobs_csv_row(&cols, &row.fields).map_err(at)? {
            Some(job) => {
                ids.insert(job.id, row.line).map_err(at)?;
                trace.jobs.push(job);
            }
            None => trace.skipped += 1,
        }
    }
    trace.sort();
    Ok(trace)
}

/// Parses a Standard Workload Format log (18 whitespace-separated fields per
/// job, `;` comment lines; `; MaxNodes: N` sets [`Trace::max_nodes_hint`]).
///
/// The node count is the requested processors (field 8) when > 0, else the
/// allocated ones (field 5): logs such as Theta's put nodes there. Submit
/// times are made relative to the earliest kept job. Jobs with a negative run
/// or submit time or a size <= 0 are skipped and counted. Requested time
/// (field 9) <= 0 and user (field 12) < 0 mean unknown. Every field must be a
/// number; fractional values are rounded.
pub fn parse_swf(text: &str, source: &str) -> Result<Trace, TraceError> {
    let mut trace = Trace::empty(source);
    let mut ids = IdSet::default();
    for (index, line) in strip_bom(text).lines().enumerate() {
        let line_no = index as u64 + 1;
        let at = |problem| malformed(source, line_no, problem);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix(';') {
            if let Some(max) = swf_max_nodes(comment).map_err(at)? {
                trace.max_nodes_hint = Some(max);
            }
            continue;
        }
        match swf_row(line).map_err(at)? {
            Some(job) => {
                ids.insert(job.id, line_no).map_err(at)?;
                trace.jobs.push(job);
            }
            None => trace.skipped += 1,
        }
    }
    // `swf_row` leaves absolute submit times; rebase on the earliest kept job.
    let first = trace.jobs.iter().map(|j| j.submit_s).min().unwrap_or(0);
    for job in &mut trace.jobs {
        job.submit_s -= first;
    }
    trace.sort();
    Ok(trace)
}

/// Parses an Alibaba openb pod list
/// (`name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,
/// creation_time,deletion_time,scheduled_time]`).
///
/// Each pod is a one-node job with `gpus = gpus_per_node = num_gpu`, ids are
/// 0-based row indices. With a `creation_time` column, `submit_s` is the
/// creation time relative to the earliest pod; without one, pods arrive one
/// per second in file order (`submit_s` = row index). `runtime_s` is
/// `deletion_time - scheduled_time` when both are present; otherwise (pending
/// pods, or files without times) the pod has `runs_forever` set and
/// `runtime_s = 0`. No pod is skipped; negative values are errors.
pub fn parse_alibaba_pods(text: &str, source: &str) -> Result<Trace, TraceError> {
    let table = read_table(text, source)?;
    let cols = PodColumns {
        cpu: table.column("cpu_milli", source)?,
        mem: table.column("memory_mib", source)?,
        num_gpu: table.column("num_gpu", source)?,
        gpu_milli: table.column("gpu_milli", source)?,
        creation: table.find("creation_time"),
        deletion: table.find("deletion_time"),
        scheduled: table.find("scheduled_time"),
    };
    let mut trace = Trace::empty(source);
    let mut created = Vec::with_capacity(table.rows.len());
    for (index, row) in table.rows.iter().enumerate() {
        let (job, creation) = pod_row(&cols, &row.fields, index as u64)
            .map_err(|problem| malformed(source, row.line, problem))?;
        trace.jobs.push(job);
        created.push(creation);
    }
    let first = created.iter().flatten().copied().min().unwrap_or(0);
    for (job, creation) in trace.jobs.iter_mut().zip(created) {
        if let Some(creation) = creation {
            job.submit_s = creation - first;
        }
    }
    trace.sort();
    Ok(trace)
}

/// Parses an Alibaba openb node list (`sn,cpu_milli,memory_mib,gpu,model`),
/// keeping file order. Negative capacities are errors.
pub fn parse_alibaba_nodes(text: &str, source: &str) -> Result<Vec<AlibabaNode>, TraceError> {
    let table = read_table(text, source)?;
    let name = table.column("sn", source)?;
    let cpu = table.column("cpu_milli", source)?;
    let mem = table.column("memory_mib", source)?;
    let gpus = table.column("gpu", source)?;
    let model = table.column("model", source)?;
    let mut nodes = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let node = node_row([name, cpu, mem, gpus, model], &row.fields)
            .map_err(|problem| malformed(source, row.line, problem))?;
        nodes.push(node);
    }
    Ok(nodes)
}

impl Trace {
    fn empty(source: &str) -> Self {
        Trace {
            source: source.to_owned(),
            ..Trace::default()
        }
    }

    /// Compresses arrivals by `k`: every `submit_s` becomes
    /// `round(submit_s / k)`, raising the offered load `k` times. Run times are
    /// unchanged. `k` must be finite and > 0.
    pub fn compress(&mut self, k: f64) -> Result<(), TraceError> {
        if !(k.is_finite() && k > 0.0) {
            return Err(TraceError::BadCompression { k });
        }
        for job in &mut self.jobs {
            // `as` saturates, so even k close to 0 cannot wrap.
            job.submit_s = (job.submit_s as f64 / k).round() as u64;
        }
        self.sort();
        Ok(())
    }

    /// Replaces every job by `copies` copies with the same submit time; copy
    /// `i` (0-based) of job `id` gets id `id * copies + i`, so ids stay unique
    /// and `id / copies` recovers the original. `copies = 1` changes nothing
    /// and `copies = 0` empties the trace. If some `id * copies` would
    /// overflow (never for ids from the parsers of this module, only for
    /// hand-made ids near `u64::MAX`), ids are first renumbered `0..n` in
    /// `(submit_s, id)` order. The result is sorted by `(submit_s, id)`.
    pub fn replicate(&mut self, copies: u32) {
        let copies = u64::from(copies);
        if copies == 0 {
            self.jobs.clear();
            return;
        }
        self.sort();
        let fits = |id: u64| {
            id.checked_mul(copies)
                .and_then(|v| v.checked_add(copies - 1))
        };
        if self.jobs.iter().any(|job| fits(job.id).is_none()) {
            for (index, job) in self.jobs.iter_mut().enumerate() {
                job.id = index as u64;
            }
        }
        let mut out = Vec::new();
        for job in &self.jobs {
            for i in 0..copies {
                out.push(TraceJob {
                    id: job.id * copies + i,
                    ..job.clone()
                });
            }
        }
        self.jobs = out;
        self.sort();
    }

    /// Sorts the jobs by `(submit_s, id)`, the replay order.
    pub fn sort(&mut self) {
        self.jobs.sort_by_key(|job| (job.submit_s, job.id));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Swf,
    JobsCsv,
    AlibabaPods,
}

fn detect(path: &Path, text: &str) -> Option<Format> {
    if path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("swf"))
    {
        return Some(Format::Swf);
    }
    let first = strip_bom(text)
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())?;
    let is_swf_record = {
        let fields: Vec<&str> = first.split_whitespace().collect();
        fields.len() == SWF_FIELDS.len() && fields.iter().all(|f| f.parse::<f64>().is_ok())
    };
    if first.starts_with(';') || is_swf_record {
        Some(Format::Swf)
    } else if first.starts_with("job_id,") {
        Some(Format::JobsCsv)
    } else if first.starts_with("name,cpu_milli") {
        Some(Format::AlibabaPods)
    } else {
        None
    }
}

fn read(path: &Path) -> Result<String, TraceError> {
    std::fs::read_to_string(path).map_err(|source| TraceError::Read {
        path: path.to_owned(),
        source,
    })
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn malformed(file: &str, line: u64, problem: LineProblem) -> TraceError {
    TraceError::Malformed {
        file: file.to_owned(),
        line,
        problem,
    }
}

/// Job ids seen so far, with the line of each, to reject duplicates.
#[derive(Default)]
struct IdSet(BTreeMap<u64, u64>);

impl IdSet {
    fn insert(&mut self, id: u64, line: u64) -> Result<(), LineProblem> {
        match self.0.entry(id) {
            Entry::Vacant(entry) => {
                entry.insert(line);
                Ok(())
            }
            Entry::Occupied(entry) => Err(LineProblem::DuplicateId {
                id,
                first_line: *entry.get(),
            }),
        }
    }
}

/// A CSV file read whole: trimmed header names and the records after it, each
/// with its 1-based line, all checked to have as many fields as the header.
struct Table {
    header: Vec<String>,
    header_line: u64,
    rows: Vec<Row>,
}

struct Row {
    line: u64,
    fields: csv::StringRecord,
}

impl Table {
    fn find(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    fn column(&self, name: &'static str, file: &str) -> Result<usize, TraceError> {
        self.find(name).ok_or_else(|| {
            malformed(
                file,
                self.header_line,
                LineProblem::MissingColumn { column: name },
            )
        })
    }
}

fn read_table(text: &str, file: &str) -> Result<Table, TraceError> {
    let text = strip_bom(text);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut header: Option<(Vec<String>, u64)> = None;
    let mut rows = Vec::new();
    loop {
        let mut record = csv::StringRecord::new();
        let start = reader.position().clone();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(source) => {
                let (file, line) = (file.to_owned(), record_line(text, &start));
                return Err(TraceError::Csv { file, line, source });
            }
        }
        let line = record_line(text, record.position().unwrap_or(&start));
        if record.len() == 1 && record[0].is_empty() {
            continue; // a line of blanks only
        }
        match &header {
            None => header = Some((record.iter().map(str::to_owned).collect(), line)),
            Some((names, _)) if record.len() != names.len() => {
                let (expected, found) = (names.len(), record.len());
                return Err(malformed(
                    file,
                    line,
                    LineProblem::FieldCount { expected, found },
                ));
            }
            Some(_) => rows.push(Row {
                line,
                fields: record,
            }),
        }
    }
    let (header, header_line) =
        header.ok_or_else(|| malformed(file, 1, LineProblem::MissingHeader))?;
    Ok(Table {
        header,
        header_line,
        rows,
    })
}

/// The 1-based line a record starts on. The reader reports the position where
/// it began reading, before the empty lines it skips, so step over those.
fn record_line(text: &str, start: &csv::Position) -> u64 {
    let mut line = start.line();
    let mut rest = usize::try_from(start.byte())
        .ok()
        .and_then(|byte| text.get(byte..))
        .unwrap_or("");
    while let Some(after) = rest
        .strip_prefix('\n')
        .or_else(|| rest.strip_prefix("\r\n"))
    {
        line += 1;
        rest = after;
    }
    line
}

fn cell(record: &csv::StringRecord, index: usize) -> &str {
    // `read_table` checked that every record is as wide as the header.
    record.get(index).unwrap_or("")
}

/// How a numeric field that is written as a float (`8.0`, `12.6`) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Round {
    /// Counts and ids: the fractional part must be zero.
    Whole,
    /// Times and other measures: round to the nearest integer.
    Nearest,
}

fn number(column: &'static str, raw: &str, round: Round) -> Result<i64, LineProblem> {
    if raw.is_empty() {
        return Err(LineProblem::Empty { column });
    }
    if let Ok(value) = raw.parse::<i64>() {
        return Ok(value);
    }
    let value = raw
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| LineProblem::NotANumber {
            column,
            value: raw.to_owned(),
        })?;
    let value = match round {
        Round::Nearest => value.round(),
        Round::Whole if value.fract() == 0.0 => value,
        Round::Whole => {
            let value = raw.to_owned();
            return Err(LineProblem::NotWhole { column, value });
        }
    };
    // Beyond this the cast to i64 would saturate; no real trace gets near it.
    const LIMIT: f64 = 9.0e18;
    if value.abs() >= LIMIT {
        let value = if value > 0.0 { i64::MAX } else { i64::MIN };
        return Err(LineProblem::TooLarge {
            column,
            value,
            max: LIMIT as u64,
        });
    }
    Ok(value as i64)
}

fn to_u64(column: &'static str, value: i64) -> Result<u64, LineProblem> {
    u64::try_from(value).map_err(|_| LineProblem::Negative { column, value })
}

fn to_u32(column: &'static str, value: i64) -> Result<u32, LineProblem> {
    let max = u64::from(u32::MAX);
    u32::try_from(to_u64(column, value)?).map_err(|_| LineProblem::TooLarge { column, value, max })
}

/// `-1` is "unknown" in `jobs.csv` and SWF; other negatives are errors.
fn unknown_or<T>(
    value: i64,
    convert: impl FnOnce(i64) -> Result<T, LineProblem>,
) -> Result<Option<T>, LineProblem> {
    if value == -1 {
        Ok(None)
    } else {
        convert(value).map(Some)
    }
}

struct JobsCsvColumns {
    id: usize,
    submit: usize,
    runtime: usize,
    walltime: usize,
    nodes: usize,
    gpus: usize,
    user: usize,
    gpus_per_node: Option<usize>,
}

/// One `jobs.csv` record; `Ok(None)` when the job is well-formed but skipped.
fn jobs_csv_row(
    cols: &JobsCsvColumns,
    record: &csv::StringRecord,
) -> Result<Option<TraceJob>, LineProblem> {
    let get = |i| cell(record, i);
    let id = to_u64("job_id", number("job_id", get(cols.id), Round::Whole)?)?;
    let submit = number("submit_s", get(cols.submit), Round::Nearest)?;
    let runtime = number("runtime_s", get(cols.runtime), Round::Nearest)?;
    let walltime = number("req_walltime_s", get(cols.walltime), Round::Nearest)?;
    let walltime = unknown_or(walltime, |v| to_u64("req_walltime_s", v))?.filter(|&w| w > 0);
    let nodes = number("nodes", get(cols.nodes), Round::Whole)?;
    let gpus = number("gpus", get(cols.gpus), Round::Whole)?;
    let gpus = unknown_or(gpus, |v| to_u32("gpus", v))?;
    let user = number("user", get(cols.user), Round::Whole)?;
    let user = unknown_or(user, |v| to_u32("user", v))?;
    let gpus_per_node = match cols.gpus_per_node {
        Some(i) => {
            let value = number("gpus_per_node", get(i), Round::Whole)?;
            unknown_or(value, |v| to_u32("gpus_per_node", v))?
        }
        None => None,
    };
    if nodes <= 0 || runtime < 0 || submit < 0 {
        return Ok(None);
    }
    let nodes = to_u32("nodes", nodes)?;
    let gpus_per_node = match (cols.gpus_per_node, gpus) {
        (None, Some(total)) if total % nodes == 0 => Some(total / nodes),
        _ => gpus_per_node,
    };
    Ok(Some(TraceJob {
        id,
        submit_s: to_u64("submit_s", submit)?,
        runtime_s: to_u64("runtime_s", runtime)?,
        runs_forever: false,
        walltime_s: walltime,
        nodes,
        gpus,
        gpus_per_node,
        user,
        cpu_milli: None,
        mem_mib: None,
        gpu_milli: None,
    }))
}

/// SWF field names as they appear in errors, in field order.
const SWF_FIELDS: [&str; 18] = [
    "field 1 (job id)",
    "field 2 (submit time)",
    "field 3 (wait time)",
    "field 4 (run time)",
    "field 5 (allocated processors)",
    "field 6 (average cpu time)",
    "field 7 (used memory)",
    "field 8 (requested processors)",
    "field 9 (requested time)",
    "field 10 (requested memory)",
    "field 11 (status)",
    "field 12 (user id)",
    "field 13 (group id)",
    "field 14 (executable)",
    "field 15 (queue)",
    "field 16 (partition)",
    "field 17 (preceding job)",
    "field 18 (think time)",
];

/// The value of a `; MaxNodes: N` header comment; `None` for other comments
/// and for `N <= 0`.
fn swf_max_nodes(comment: &str) -> Result<Option<u32>, LineProblem> {
    const COLUMN: &str = "MaxNodes header";
    match comment.split_once(':') {
        Some((key, value)) if key.trim().eq_ignore_ascii_case("maxnodes") => {
            let value = number(COLUMN, value.trim(), Round::Whole)?;
            if value <= 0 {
                Ok(None)
            } else {
                to_u32(COLUMN, value).map(Some)
            }
        }
        _ => Ok(None),
    }
}

/// One SWF record with its absolute submit time; `Ok(None)` when skipped.
fn swf_row(line: &str) -> Result<Option<TraceJob>, LineProblem> {
    let raw: Vec<&str> = line.split_whitespace().collect();
    if raw.len() != SWF_FIELDS.len() {
        let (expected, found) = (SWF_FIELDS.len(), raw.len());
        return Err(LineProblem::FieldCount { expected, found });
    }
    let mut values = [0i64; 18];
    for (i, (value, text)) in values.iter_mut().zip(&raw).enumerate() {
        let round = if i == 0 { Round::Whole } else { Round::Nearest };
        *value = number(SWF_FIELDS[i], text, round)?;
    }
    let id = to_u64(SWF_FIELDS[0], values[0])?;
    let (submit, runtime) = (values[1], values[3]);
    let size = if values[7] > 0 { values[7] } else { values[4] };
    if submit < 0 || runtime < 0 || size <= 0 {
        return Ok(None);
    }
    let size_field = if values[7] > 0 { 7 } else { 4 };
    let user = values[11];
    Ok(Some(TraceJob {
        id,
        submit_s: to_u64(SWF_FIELDS[1], submit)?,
        runtime_s: to_u64(SWF_FIELDS[3], runtime)?,
        runs_forever: false,
        walltime_s: u64::try_from(values[8]).ok().filter(|&w| w > 0),
        nodes: to_u32(SWF_FIELDS[size_field], size)?,
        gpus: None,
        gpus_per_node: None,
        user: if user < 0 {
            None
        } else {
            Some(to_u32(SWF_FIELDS[11], user)?)
        },
        cpu_milli: None,
        mem_mib: None,
        gpu_milli: None,
    }))
}

/// One node-list record; `cols` are the `sn,cpu_milli,memory_mib,gpu,model` indices.
fn node_row(cols: [usize; 5], record: &csv::StringRecord) -> Result<AlibabaNode, LineProblem> {
    let [name, cpu, mem, gpus, model] = cols.map(|i| cell(record, i));
    if name.is_empty() {
        return Err(LineProblem::Empty { column: "sn" });
    }
    Ok(AlibabaNode {
        name: name.to_owned(),
        cpu_milli: to_u32("cpu_milli", number("cpu_milli", cpu, Round::Whole)?)?,
        mem_mib: to_u64("memory_mib", number("memory_mib", mem, Round::Whole)?)?,
        gpus: to_u32("gpu", number("gpu", gpus, Round::Whole)?)?,
        model: model.to_owned(),
    })
}

struct PodColumns {
    cpu: usize,
    mem: usize,
    num_gpu: usize,
    gpu_milli: usize,
    creation: Option<usize>,
    deletion: Option<usize>,
    scheduled: Option<usize>,
}

/// One pod record, with `submit_s` = `index` and its creation time if any.
fn pod_row(
    cols: &PodColumns,
    record: &csv::StringRecord,
    index: u64,
) -> Result<(TraceJob, Option<u64>), LineProblem> {
    let get = |i| cell(record, i);
    let whole = |column, i| to_u64(column, number(column, get(i), Round::Whole)?);
    let cpu_milli = to_u32(
        "cpu_milli",
        number("cpu_milli", get(cols.cpu), Round::Whole)?,
    )?;
    let num_gpu = to_u32(
        "num_gpu",
        number("num_gpu", get(cols.num_gpu), Round::Whole)?,
    )?;
    let gpu_milli = to_u32(
        "gpu_milli",
        number("gpu_milli", get(cols.gpu_milli), Round::Whole)?,
    )?;
    if gpu_milli > 1000 {
        let (column, value, max) = ("gpu_milli", i64::from(gpu_milli), 1000);
        return Err(LineProblem::TooLarge { column, value, max });
    }
    let creation = cols
        .creation
        .map(|i| whole("creation_time", i))
        .transpose()?;
    // An empty scheduled or deletion time (a pending pod) means no known end.
    let time = |column, i: Option<usize>| match i {
        Some(i) if !get(i).is_empty() => whole(column, i).map(Some),
        _ => Ok(None),
    };
    let scheduled = time("scheduled_time", cols.scheduled)?;
    let deletion = time("deletion_time", cols.deletion)?;
    let runtime = match (scheduled, deletion) {
        (Some(scheduled), Some(deletion)) if deletion < scheduled => {
            return Err(LineProblem::EndsBeforeStart {
                scheduled,
                deletion,
            });
        }
        (Some(scheduled), Some(deletion)) => Some(deletion - scheduled),
        _ => None,
    };
    let job = TraceJob {
        id: index,
        submit_s: index,
        runtime_s: runtime.unwrap_or(0),
        runs_forever: runtime.is_none(),
        walltime_s: None,
        nodes: 1,
        gpus: Some(num_gpu),
        gpus_per_node: Some(num_gpu),
        user: None,
        cpu_milli: Some(cpu_milli),
        mem_mib: Some(whole("memory_mib", cols.mem)?),
        gpu_milli: Some(gpu_milli),
    };
    Ok((job, creation))
}

#[cfg(test)]
mod tests;
