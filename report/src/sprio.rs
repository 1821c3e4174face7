//! sprio's report of pending jobs' priority terms (`src/sprio/` of Slurm
//! 22.05): its default formats, its `%` format codes and their columns,
//! its sort letters, and the weights row of `-w`.

use std::cmp::Ordering;
use std::fmt::Write;

use spur_proto::{JobPriority, Priorities, PriorityWeights};

/// sprio's default format for these options: `-n` (normalized), `-l`
/// (long), `--sibling` without `--local` (a cluster column), `-u` given
/// (a user column), and the weights in force (a term whose weight is 0
/// has no column, unless long).
pub fn default_format(
    normalized: bool,
    long: bool,
    cluster: bool,
    users: bool,
    w: &PriorityWeights,
) -> String {
    let long_format = if normalized {
        "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
    } else {
        "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T"
    };
    if long {
        return long_format.to_string();
    }
    let mut f = String::from("%.15i %9r");
    if cluster {
        f.push_str(" %.8c");
    }
    if users {
        f.push_str(" %.8u");
    }
    f.push_str(if normalized { " %10y" } else { " %.10Y %.10S" });
    // Spur has no association or TRES terms: their weights are 0.
    let terms = [
        (w.age, "a"),
        (w.fairshare, "f"),
        (w.job_size, "j"),
        (w.partition, "p"),
        (w.qos, "q"),
    ];
    for (weight, letter) in terms {
        if weight > 0 {
            if normalized {
                let _ = write!(f, " %10{letter}");
            } else {
                let _ = write!(f, " %.10{}", letter.to_ascii_uppercase());
            }
        }
    }
    f
}

/// One column of a format: its code, width and side, and the text
/// printed after it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Column {
    code: char,
    width: usize,
    right: bool,
    suffix: String,
}

/// A parsed format: the text before the first column, the columns, and
/// sprio's complaints about codes it does not know (those columns are
/// left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    prefix: String,
    columns: Vec<Column>,
    /// `Invalid job format specification: x`, one per unknown code.
    pub errors: Vec<String>,
}

impl Format {
    /// Whether a column shows `code`.
    pub fn shows(&self, code: char) -> bool {
        self.columns.iter().any(|c| c.code == code)
    }

    /// Reads `format` as sprio's parse_format does.
    pub fn parse(format: &str) -> Format {
        let (prefix, rest) = match format.find('%') {
            Some(at) => format.split_at(at),
            None => (format, ""),
        };
        let mut columns = Vec::new();
        let mut errors = Vec::new();
        for token in rest.split('%').filter(|t| !t.is_empty()) {
            let right = token.starts_with('.');
            let token = token.strip_prefix('.').unwrap_or(token);
            let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let width = token[..digits].parse().unwrap_or(0);
            let mut rest = token[digits..].chars();
            let code = rest.next().unwrap_or('\0');
            if !"aAbBcfFijJNpPrSqQuyYtT".contains(code) || code == '\0' {
                errors.push(format!("Invalid job format specification: {code}"));
                continue;
            }
            columns.push(Column {
                code,
                width,
                right,
                suffix: rest.as_str().to_string(),
            });
        }
        Format {
            prefix: prefix.to_string(),
            columns,
            errors,
        }
    }
}

/// What sprio prints: stdout, stderr, and whether it exits 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Stdout.
    pub out: String,
    /// Stderr.
    pub err: String,
    /// False when sprio exits 1.
    pub ok: bool,
}

/// What else a report needs.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The format.
    pub format: &'a Format,
    /// `-S`'s letters (sprio's default: `i`, by job id).
    pub sort: &'a str,
    /// `-h`.
    pub no_header: bool,
    /// `-w`: the weights row instead of the jobs.
    pub weights: bool,
    /// The cluster's name (`%c`).
    pub cluster: &'a str,
}

/// sprio's report of `answer`, each user named by `user_name`.
pub fn render(
    answer: &Priorities,
    weights: &PriorityWeights,
    o: &Options<'_>,
    user_name: &dyn Fn(u32) -> String,
) -> Report {
    let mut out = String::new();
    let line = |out: &mut String, row: Row<'_>| {
        out.push_str(&o.format.prefix);
        for c in &o.format.columns {
            cell(out, &value(c.code, row, weights, o.cluster, user_name), c);
            out.push_str(&c.suffix);
        }
        out.push('\n');
    };
    if !o.no_header {
        line(&mut out, Row::Header);
    }
    if o.weights {
        line(&mut out, Row::Weights);
        return Report {
            out,
            err: String::new(),
            ok: true,
        };
    }
    let mut jobs: Vec<&JobPriority> = answer.jobs.iter().collect();
    if let Err(letter) = sort(&mut jobs, o.sort, user_name) {
        return Report {
            out,
            err: format!("sprio: error: Invalid sort specification: {letter}\n"),
            ok: false,
        };
    }
    for job in jobs {
        line(&mut out, Row::Job(job));
    }
    Report {
        out,
        err: String::new(),
        ok: true,
    }
}

/// A line of the report.
#[derive(Clone, Copy)]
enum Row<'a> {
    Header,
    Weights,
    Job(&'a JobPriority),
}

/// The text of column `code` in `row`.
fn value(
    code: char,
    row: Row<'_>,
    w: &PriorityWeights,
    cluster: &str,
    user_name: &dyn Fn(u32) -> String,
) -> String {
    let int = |x: f64| format!("{x:.0}");
    let norm = |x: f64| format!("{x:.7}");
    // A term's header, weight and weighted value, for the letter pairs.
    let term = |header: &str, weight: u32, get: fn(&JobPriority) -> f64, normalized: bool| match row
    {
        Row::Header => header.to_string(),
        Row::Weights => int(f64::from(weight)),
        Row::Job(j) if normalized => norm(if weight > 0 {
            get(j) / f64::from(weight)
        } else {
            0.0
        }),
        Row::Job(j) => int(get(j)),
    };
    let text = |header: &str, weights: &str, job: &dyn Fn(&JobPriority) -> String| match row {
        Row::Header => header.to_string(),
        Row::Weights => weights.to_string(),
        Row::Job(j) => job(j),
    };
    match code {
        'a' | 'A' => term("AGE", w.age, |j| j.age, code == 'a'),
        'b' | 'B' => term("ASSOC", 0, |_| 0.0, code == 'b'),
        'f' | 'F' => term("FAIRSHARE", w.fairshare, |j| j.fairshare, code == 'f'),
        'j' | 'J' => term("JOBSIZE", w.job_size, |j| j.job_size, code == 'j'),
        'p' | 'P' => term("PARTITION", w.partition, |j| j.partition_term, code == 'p'),
        'q' | 'Q' => term("QOS", w.qos, |j| j.qos, code == 'q'),
        'c' => text("CLUSTER", "", &|_| cluster.to_string()),
        'i' => text("JOBID", "Weights", &|j| j.job_id.to_string()),
        'N' => text("NICE", "", &|j| {
            int(if j.fixed { 0.0 } else { f64::from(j.nice) })
        }),
        'r' => text("PARTITION", "", &|j| j.partition.clone()),
        // No site factor: 0, and its weight 1, as slurmctld's.
        'S' => text("SITE", "1", &|_| "0".to_string()),
        'u' => text("USER", "", &|j| user_name(j.user_id)),
        'y' => text("PRIORITY", "", &|j| {
            let p = f64::from(j.priority);
            let p = if j.fixed { p } else { p / f64::from(u32::MAX) };
            format!("{p:16.14}")
        }),
        'Y' => text("PRIORITY", "", &|j| j.priority.to_string()),
        // No TRES terms; an unset PriorityWeightTRES prints as C's NULL.
        't' => text("TRES", "", &|_| String::new()),
        _ => text("TRES", "(null)", &|_| String::new()),
    }
}

/// `text` in `c`'s width: cut to it and padded on the column's side, as
/// sprio's _print_str does (a right-aligned text longer than its width
/// keeps its first characters).
fn cell(out: &mut String, text: &str, c: &Column) {
    if c.width == 0 {
        out.push_str(text);
        return;
    }
    let len = text.chars().count();
    if c.right && len < c.width {
        out.extend(std::iter::repeat_n(' ', c.width - len));
        out.push_str(text);
    } else {
        out.extend(text.chars().take(c.width));
        out.extend(std::iter::repeat_n(' ', c.width.saturating_sub(len)));
    }
}

/// Orders `jobs` by sprio's `-S` letters: stable sorts from the last
/// letter to the first, each descending when a `-` comes before it. Err:
/// a letter sprio does not know.
fn sort(
    jobs: &mut [&JobPriority],
    spec: &str,
    user_name: &dyn Fn(u32) -> String,
) -> Result<(), char> {
    let letters: Vec<char> = spec.chars().collect();
    for i in (0..letters.len()).rev() {
        let letter = letters[i];
        if matches!(letter, ',' | '-' | '+') {
            continue;
        }
        if !"ciNruAaFfJjPpQqTtYy".contains(letter) {
            return Err(letter);
        }
        let descend = i > 0 && letters[i - 1] == '-';
        jobs.sort_by(|a, b| {
            let (a, b) = if descend { (b, a) } else { (a, b) };
            compare(letter, a, b, user_name)
        });
    }
    Ok(())
}

/// How sprio's sort letter `letter` orders two jobs; terms are compared
/// to 0.00001, as Slurm's fuzzy_equal has them (rounded to it, so that the
/// order stays total).
fn compare(
    letter: char,
    a: &JobPriority,
    b: &JobPriority,
    user_name: &dyn Fn(u32) -> String,
) -> Ordering {
    let term = |get: fn(&JobPriority) -> f64| {
        let key = |j: &JobPriority| (get(j) * 100_000.0).round();
        key(a).total_cmp(&key(b))
    };
    match letter {
        'i' => a.job_id.cmp(&b.job_id),
        'N' => a.nice.cmp(&b.nice),
        'r' => a.partition.cmp(&b.partition),
        'u' => user_name(a.user_id).cmp(&user_name(b.user_id)),
        'A' | 'a' => term(|j| j.age),
        'F' | 'f' => term(|j| j.fairshare),
        'J' | 'j' => term(|j| j.job_size),
        'P' | 'p' => term(|j| j.partition_term),
        'Q' | 'q' => term(|j| j.qos),
        'Y' | 'y' => a.priority.cmp(&b.priority),
        // One cluster; no TRES terms.
        _ => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(job_id: u32, age: f64, nice: i32) -> JobPriority {
        JobPriority {
            job_id,
            user_id: 1000,
            partition: "batch".into(),
            priority: (age + 500.0) as u32 - nice as u32,
            fixed: false,
            age,
            fairshare: 0.0,
            job_size: 500.0,
            partition_term: 0.0,
            qos: 0.0,
            nice,
        }
    }

    fn weights() -> PriorityWeights {
        PriorityWeights {
            age: 1000,
            job_size: 1000,
            ..PriorityWeights::default()
        }
    }

    fn report(jobs: Vec<JobPriority>, format: &str, sort: &str, weights_row: bool) -> Report {
        let format = Format::parse(format);
        let o = Options {
            format: &format,
            sort,
            no_header: false,
            weights: weights_row,
            cluster: "c1",
        };
        let answer = Priorities {
            weights: Some(self::weights()),
            jobs,
        };
        render(&answer, &self::weights(), &o, &|_| "alice".to_string())
    }

    #[test]
    fn default_formats_show_the_weighted_terms() {
        let w = weights();
        assert_eq!(
            default_format(false, false, false, false, &w),
            "%.15i %9r %.10Y %.10S %.10A %.10J"
        );
        assert_eq!(
            default_format(true, false, true, true, &w),
            "%.15i %9r %.8c %.8u %10y %10a %10j"
        );
        let r = report(
            vec![job(7, 250.0, 0), job(3, 125.5, 10)],
            &default_format(false, false, false, false, &w),
            "i",
            false,
        );
        assert_eq!(
            r.out,
            "          JOBID PARTITION   PRIORITY       SITE        AGE    JOBSIZE\n\
             \x20             3 batch            615          0        126        500\n\
             \x20             7 batch            750          0        250        500\n"
        );
    }

    #[test]
    fn normalized_terms_and_the_weights_row() {
        let w = weights();
        let format = default_format(true, false, false, false, &w);
        let r = report(vec![job(7, 250.0, 0)], &format, "i", false);
        assert_eq!(
            r.out.lines().nth(1),
            Some("              7 batch     0.00000017 0.2500000  0.5000000 ")
        );
        let r = report(vec![job(7, 250.0, 0)], &format, "i", true);
        assert_eq!(
            r.out.lines().nth(1),
            Some("        Weights                      1000       1000      ")
        );
    }

    #[test]
    fn sort_letters_apply_last_first() {
        let jobs = vec![job(1, 100.0, 0), job(2, 300.0, 0), job(3, 300.0, 5)];
        let ids = |r: Report| -> Vec<String> {
            r.out
                .lines()
                .skip(1)
                .map(|l| l.trim().to_string())
                .collect()
        };
        assert_eq!(
            ids(report(jobs.clone(), "%i", "-a", false)),
            ["2", "3", "1"]
        );
        assert_eq!(
            ids(report(jobs.clone(), "%i", "-a,-N", false)),
            ["3", "2", "1"]
        );
        assert_eq!(
            ids(report(jobs.clone(), "%i", "-y", false)),
            ["2", "3", "1"]
        );
        let r = report(jobs, "%i", "z", false);
        assert!(!r.ok);
        assert_eq!(r.err, "sprio: error: Invalid sort specification: z\n");
        assert_eq!(r.out, "JOBID\n", "the header comes first");
    }

    #[test]
    fn formats_keep_their_text_and_refuse_unknown_codes() {
        let f = Format::parse("jobs:%5i|%.4u%%%k%Y");
        assert_eq!(f.errors, ["Invalid job format specification: k"]);
        let r = report(vec![job(42, 0.0, 0)], "jobs:%5i|%.4u%k%Y", "i", false);
        assert_eq!(r.out, "jobs:JOBID|USERPRIORITY\njobs:42   |alic500\n");
    }
}
