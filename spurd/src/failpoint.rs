//! Failpoints for the fault harness (`bench/chaos`): the process kills
//! itself with SIGKILL at a named point, as if killed from outside at that
//! very moment. `SPUR_FAILPOINTS=commit:3,answer:1` arms them: the third
//! time the controller reaches the middle of a commit (every row written,
//! the transaction not yet committed) it dies, and so on. Compiled in only
//! in builds with debug assertions (the tests') or with the `failpoints`
//! feature; any other build warns that it ignores the setting.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// A point where the process may be made to die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// Inside a commit: every row of the turn written, nothing committed.
    Commit,
    /// After a commit, before the turn's answers and messages leave.
    Answer,
}

impl Point {
    fn name(self) -> &'static str {
        match self {
            Point::Commit => "commit",
            Point::Answer => "answer",
        }
    }

    fn parse(name: &str) -> Option<Point> {
        [Point::Commit, Point::Answer]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// The variable that arms failpoints.
pub const VARIABLE: &str = "SPUR_FAILPOINTS";

/// Whether this build has failpoints.
pub const COMPILED_IN: bool = cfg!(any(debug_assertions, feature = "failpoints"));

/// Armed points and how many more passes each lets through.
static ARMED: OnceLock<Vec<(Point, AtomicU64)>> = OnceLock::new();

/// Reads [`VARIABLE`] once, at the start. Returns what is wrong with it.
pub fn arm_from_env() -> Result<(), String> {
    let Ok(spec) = std::env::var(VARIABLE) else {
        return Ok(());
    };
    if !COMPILED_IN {
        tracing::warn!(
            variable = VARIABLE,
            "this build has no failpoints (build with the `failpoints` feature); ignored"
        );
        return Ok(());
    }
    let points = parse(&spec)?;
    for (point, after) in &points {
        tracing::warn!(
            point = point.name(),
            passes = after.load(Ordering::Relaxed),
            "failpoint armed: the process will kill itself there"
        );
    }
    let _ = ARMED.set(points);
    Ok(())
}

fn parse(spec: &str) -> Result<Vec<(Point, AtomicU64)>, String> {
    spec.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|item| {
            let (name, count) = item.trim().split_once(':').unwrap_or((item.trim(), "1"));
            let point = Point::parse(name)
                .ok_or_else(|| format!("{VARIABLE}: unknown failpoint `{name}`"))?;
            let nth: u64 = count
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{VARIABLE}: `{count}` is not a count from 1"))?;
            Ok((point, AtomicU64::new(nth - 1)))
        })
        .collect()
}

/// Passes `point`: the process dies here if the point is armed and its
/// count has run out.
#[inline]
pub fn pass(point: Point) {
    if !COMPILED_IN {
        return;
    }
    let Some(armed) = ARMED.get() else { return };
    for (p, left) in armed {
        if *p == point
            && left
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_err()
        {
            // SAFETY: signalling this very process.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read() {
        let points = parse("commit:3, answer").expect("fine");
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].0, Point::Commit);
        assert_eq!(points[0].1.load(Ordering::Relaxed), 2);
        assert_eq!(points[1].0, Point::Answer);
        assert_eq!(points[1].1.load(Ordering::Relaxed), 0);
        assert!(parse("sometime:1").is_err());
        assert!(parse("commit:0").is_err());
    }
}
