//! Job dependencies (`--dependency`): Slurm's syntax parsed into a typed
//! value (`Dependency`), and the text Slurm shows for it
//! (`afterok:5_*(unfulfilled)`). How the core resolves job ids and
//! evaluates a dependency in each scheduling pass is in `eval`. Parsing and
//! rendering are pure; they follow slurmctld 22.05 (job_scheduler.c).

mod eval;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::array::strtol;
use crate::id::JobId;

/// A dependency Slurm refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DependencyError {
    /// ESLURM_DEPENDENCY: bad syntax, job id 0, a job depending on itself,
    /// `+0`.
    #[error("Job dependency problem")]
    Invalid,
    /// ESLURM_CIRCULAR_DEPENDENCY: the jobs it names depend, in turn, on
    /// this one.
    #[error("Circular job dependency")]
    Circular,
    /// ESLURM_NOT_SUPPORTED: `expand:` (only with
    /// SchedulerParameters=permit_job_expansion, which spur does not have).
    #[error("Requested operation not supported on this system")]
    NotSupported,
}

/// The condition of one part of a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DependencyKind {
    /// `after`: the job started (or was cancelled), plus `+time`.
    After,
    /// `afterany`: the job ended, in any state.
    AfterAny,
    /// `afterok`: the job completed with exit code 0.
    AfterOk,
    /// `afternotok`: the job ended in a failed state.
    AfterNotOk,
    /// `aftercorr`: task i of this array after task i of the other.
    AfterCorr,
    /// `afterburstbuffer`: the job ended and its burst buffer was staged
    /// out; without burst buffers the same as `afterany`.
    AfterBurstBuffer,
    /// `singleton`: no earlier job of the same user and name is pending or
    /// running.
    Singleton,
}

impl DependencyKind {
    /// The name Slurm writes.
    pub fn as_str(self) -> &'static str {
        match self {
            DependencyKind::After => "after",
            DependencyKind::AfterAny => "afterany",
            DependencyKind::AfterOk => "afterok",
            DependencyKind::AfterNotOk => "afternotok",
            DependencyKind::AfterCorr => "aftercorr",
            DependencyKind::AfterBurstBuffer => "afterburstbuffer",
            DependencyKind::Singleton => "singleton",
        }
    }
}

/// The job a dependency names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DependencyTarget {
    /// `N`: one job.
    Job(JobId),
    /// `N_i`: task i of array N.
    Task(JobId, u32),
    /// `N_*`, or `N` when N is an array: every task of array N.
    Array(JobId),
}

impl DependencyTarget {
    /// The job id written in the dependency (the array's id for tasks).
    pub fn job_id(self) -> JobId {
        match self {
            DependencyTarget::Job(id)
            | DependencyTarget::Task(id, _)
            | DependencyTarget::Array(id) => id,
        }
    }
}

/// Where one part of a dependency stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum DependencyState {
    /// Not met yet.
    #[default]
    Unfulfilled,
    /// Met; Slurm no longer shows it.
    Fulfilled,
    /// Can never be met (the job ended the wrong way).
    Failed,
}

impl DependencyState {
    /// The marker Slurm writes: `unfulfilled`, `fulfilled`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            DependencyState::Unfulfilled => "unfulfilled",
            DependencyState::Fulfilled => "fulfilled",
            DependencyState::Failed => "failed",
        }
    }
}

/// One part of a dependency: `afterok:5`, `after:7+10`, `singleton`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependencyItem {
    /// The condition.
    pub kind: DependencyKind,
    /// The job it names; None exactly for `singleton`.
    pub target: Option<DependencyTarget>,
    /// `+time` in minutes (0: none). slurmctld 22.05 acts on it only for
    /// `after`; for the others it is kept and shown.
    #[serde(default)]
    pub delay_minutes: u32,
    /// Where it stands.
    #[serde(default)]
    pub state: DependencyState,
}

/// A job's dependency: its parts, all of which must be met (`,`) or any of
/// which suffices (`?`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependency {
    /// The parts, in the order given, without repeats.
    pub items: Vec<DependencyItem>,
    /// `?`: any part suffices. Slurm makes every part of a list that has
    /// one `?` an alternative, so `,` and `?` do not mix.
    #[serde(default)]
    pub any: bool,
}

/// What a dependency means for its job now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DependencyStatus {
    /// Met: the job may run.
    Satisfied,
    /// Not met yet (reason `Dependency`).
    Waiting,
    /// Can never be met (reason `DependencyNeverSatisfied`).
    NeverSatisfied,
}

impl Dependency {
    /// Where the dependency stands, from its parts (slurmctld's
    /// test_job_dependency): with `?`, one met part satisfies it and all
    /// failed fail it; otherwise one failed part fails it and all met
    /// satisfy it.
    pub fn status(&self) -> DependencyStatus {
        let has = |s: DependencyState| self.items.iter().any(|i| i.state == s);
        if self.any {
            if has(DependencyState::Fulfilled) || self.items.is_empty() {
                DependencyStatus::Satisfied
            } else if has(DependencyState::Unfulfilled) {
                DependencyStatus::Waiting
            } else {
                DependencyStatus::NeverSatisfied
            }
        } else if has(DependencyState::Failed) {
            DependencyStatus::NeverSatisfied
        } else if has(DependencyState::Unfulfilled) {
            DependencyStatus::Waiting
        } else {
            DependencyStatus::Satisfied
        }
    }

    /// The dependency as squeue (`%E`) and `scontrol show job`
    /// (`Dependency=`) show it: the parts not yet met, each with its state,
    /// e.g. `afterok:5_*(unfulfilled)`, `afterany:3(failed)?singleton(unfulfilled)`.
    /// None when nothing is left to show (Slurm prints `(null)`).
    pub fn render(&self) -> Option<String> {
        let mut out = String::new();
        let sep = if self.any { "?" } else { "," };
        for item in &self.items {
            if item.state == DependencyState::Fulfilled {
                continue;
            }
            if !out.is_empty() {
                out.push_str(sep);
            }
            out.push_str(item.kind.as_str());
            match item.target {
                None => {}
                Some(DependencyTarget::Job(id)) => out.push_str(&format!(":{id}")),
                Some(DependencyTarget::Array(id)) => out.push_str(&format!(":{id}_*")),
                Some(DependencyTarget::Task(id, task)) => out.push_str(&format!(":{id}_{task}")),
            }
            if item.delay_minutes > 0 {
                out.push_str(&format!("+{}", item.delay_minutes));
            }
            out.push_str(&format!("({})", item.state.as_str()));
        }
        (!out.is_empty()).then_some(out)
    }
}

/// Parses a `--dependency` value as slurmctld does (its
/// update_job_dependency): `type:id[:id...]` lists joined by `,` or `?`,
/// types after, afterany, afterok, afternotok, aftercorr, afterburstbuffer
/// (case-insensitive), `singleton`, the old form (bare job ids, meaning
/// afterany), ids `N`, `N_i`, `N_*` and `N_[1-3,5]` (tasks below
/// `max_array_size`), `+minutes` after an id, and a `(failed)` state as
/// squeue prints it. `Ok(None)` for `""` and `"0"`, which clear a
/// dependency. The ids are not looked up here; see
/// [`crate::Core::submit_job`].
pub fn parse_dependency(
    text: &str,
    max_array_size: u32,
) -> Result<Option<Dependency>, DependencyError> {
    if text.is_empty() || text == "0" {
        return Ok(None);
    }
    let expanded = expand_task_lists(text, max_array_size)?;
    let mut tok: &str = &expanded;
    let mut dep = Dependency {
        items: Vec::new(),
        any: false,
    };
    loop {
        if tok.len() >= 9 && tok[..9].eq_ignore_ascii_case("singleton") {
            tok = &tok[9..];
            let state = parse_state(&mut tok)?;
            push(&mut dep, DependencyKind::Singleton, None, 0, state);
            match tok.as_bytes().first() {
                Some(b',') => tok = &tok[1..],
                Some(b'?') => {
                    dep.any = true;
                    tok = &tok[1..];
                }
                None => break,
                Some(_) => return Err(DependencyError::Invalid),
            }
            continue;
        }
        let Some(colon) = tok.find(':') else {
            if !tok.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(DependencyError::Invalid);
            }
            // The old form: a job id, meaning afterany.
            let (target, rest) = parse_target(tok)?;
            push(
                &mut dep,
                DependencyKind::AfterAny,
                Some(target),
                0,
                DependencyState::Unfulfilled,
            );
            match rest.as_bytes().first() {
                None => break,
                Some(b',') => {
                    tok = &rest[1..];
                    continue;
                }
                Some(_) => return Err(DependencyError::Invalid),
            }
        };
        let kind = kind_named(&tok[..colon])?;
        let rest = parse_ids(&mut dep, kind, &tok[colon + 1..])?;
        match rest.as_bytes().first() {
            Some(b',') => tok = &rest[1..],
            Some(b'?') => {
                dep.any = true;
                tok = &rest[1..];
            }
            // slurmctld ignores what follows a complete part.
            _ => break,
        }
    }
    Ok(Some(dep))
}

fn kind_named(name: &str) -> Result<DependencyKind, DependencyError> {
    let kinds = [
        DependencyKind::AfterNotOk,
        DependencyKind::AfterCorr,
        DependencyKind::AfterAny,
        DependencyKind::AfterOk,
        DependencyKind::AfterBurstBuffer,
        DependencyKind::After,
    ];
    if name.eq_ignore_ascii_case("expand") {
        return Err(DependencyError::NotSupported);
    }
    kinds
        .into_iter()
        .find(|k| k.as_str().eq_ignore_ascii_case(name))
        .ok_or(DependencyError::Invalid)
}

/// The ids of one `type:` part (`5:6_2+10:7_*`); returns what follows.
fn parse_ids<'a>(
    dep: &mut Dependency,
    kind: DependencyKind,
    mut rest: &'a str,
) -> Result<&'a str, DependencyError> {
    loop {
        let (target, mut after) = parse_target(rest)?;
        if !matches!(
            after.as_bytes().first(),
            None | Some(b',' | b'?' | b':' | b'+' | b'(')
        ) {
            return Err(DependencyError::Invalid);
        }
        let mut delay = 0;
        if let Some(time) = after.strip_prefix('+') {
            let (minutes, tail) = strtol(time);
            if minutes <= 0 {
                return Err(DependencyError::Invalid);
            }
            delay = u32::try_from(minutes).unwrap_or(u32::MAX);
            after = tail;
        }
        let state = parse_state(&mut after)?;
        push(dep, kind, Some(target), delay, state);
        match after.strip_prefix(':') {
            Some(next) => rest = next,
            None => return Ok(after),
        }
    }
}

/// `N`, `N_i` or `N_*`; returns what follows.
fn parse_target(text: &str) -> Result<(DependencyTarget, &str), DependencyError> {
    let (job, rest) = strtol(text);
    let job = u32::try_from(job)
        .ok()
        .filter(|&j| j != 0)
        .ok_or(DependencyError::Invalid)?;
    let Some(task) = rest.strip_prefix('_') else {
        return Ok((DependencyTarget::Job(JobId(job)), rest));
    };
    if let Some(rest) = task.strip_prefix('*') {
        return Ok((DependencyTarget::Array(JobId(job)), rest));
    }
    let (task, rest) = strtol(task);
    let task = u32::try_from(task).map_err(|_| DependencyError::Invalid)?;
    Ok((DependencyTarget::Task(JobId(job), task), rest))
}

/// A state written after an id: `(failed)` is kept; any other (Slurm does
/// not take `fulfilled` from a user) reads as unfulfilled.
fn parse_state(text: &mut &str) -> Result<DependencyState, DependencyError> {
    let Some(inner) = text.strip_prefix('(') else {
        return Ok(DependencyState::Unfulfilled);
    };
    let close = inner.find(')').ok_or(DependencyError::Invalid)?;
    let state = if inner[..close].eq_ignore_ascii_case("failed") {
        DependencyState::Failed
    } else {
        DependencyState::Unfulfilled
    };
    *text = &inner[close + 1..];
    Ok(state)
}

/// Adds a part unless the same condition on the same job is there.
pub(crate) fn push(
    dep: &mut Dependency,
    kind: DependencyKind,
    target: Option<DependencyTarget>,
    delay_minutes: u32,
    state: DependencyState,
) {
    if dep
        .items
        .iter()
        .any(|i| i.kind == kind && i.target == target)
    {
        return;
    }
    dep.items.push(DependencyItem {
        kind,
        target,
        delay_minutes,
        state,
    });
}

/// Rewrites `N_[1-3,5]` as `N_1:N_2:N_3:N_5` (slurmctld's
/// _xlate_array_dep); task ids must be below `max`.
fn expand_task_lists(text: &str, max: u32) -> Result<Cow<'_, str>, DependencyError> {
    if !text.contains("_[") {
        return Ok(Cow::Borrowed(text));
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() * 2);
    let mut job_start = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() {
            job_start.get_or_insert(i);
            out.push(char::from(c));
        } else if c == b'_' && bytes.get(i + 1) == Some(&b'[') && job_start.is_some() {
            let job = &text[job_start.take().unwrap_or(i)..i];
            let close = text[i + 2..].find(']').ok_or(DependencyError::Invalid)? + i + 2;
            let tasks: crate::array::TaskSet = text[i + 2..close]
                .parse()
                .map_err(|_| DependencyError::Invalid)?;
            if tasks.is_empty() || tasks.last().is_some_and(|t| t >= max) {
                return Err(DependencyError::Invalid);
            }
            for (n, t) in tasks.iter().enumerate() {
                if n == 0 {
                    out.push_str(&format!("_{t}"));
                } else {
                    out.push_str(&format!(":{job}_{t}"));
                }
            }
            i = close;
        } else {
            job_start = None;
            // Copy whole characters, not bytes.
            let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        i += 1;
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Dependency {
        parse_dependency(text, 1001)
            .expect("valid")
            .expect("a dependency")
    }

    fn item(kind: DependencyKind, target: DependencyTarget) -> DependencyItem {
        DependencyItem {
            kind,
            target: Some(target),
            delay_minutes: 0,
            state: DependencyState::Unfulfilled,
        }
    }

    #[test]
    fn types_ids_tasks_and_times() {
        use DependencyKind::*;
        use DependencyTarget::*;
        let dep = parse("afterok:20:21,afterany:23");
        assert!(!dep.any);
        assert_eq!(
            dep.items,
            vec![
                item(AfterOk, Job(JobId(20))),
                item(AfterOk, Job(JobId(21))),
                item(AfterAny, Job(JobId(23)))
            ]
        );
        let dep = parse("after:5+10:6_3,AfterNotOK:7_*,aftercorr:8,afterburstbuffer:9");
        assert_eq!(dep.items[0].delay_minutes, 10);
        assert_eq!(dep.items[1].target, Some(Task(JobId(6), 3)));
        assert_eq!(dep.items[1].delay_minutes, 0);
        assert_eq!(dep.items[2], item(AfterNotOk, Array(JobId(7))));
        assert_eq!(dep.items[3].kind, AfterCorr);
        assert_eq!(dep.items[4].kind, AfterBurstBuffer);
    }

    #[test]
    fn a_question_mark_makes_every_part_an_alternative() {
        let dep = parse("afterok:20:21?afterany:23");
        assert!(dep.any);
        assert_eq!(dep.items.len(), 3);
        let dep = parse("afterok:1,afterok:2?afterok:3");
        assert!(dep.any);
    }

    #[test]
    fn old_form_singleton_repeats_and_task_lists() {
        use DependencyKind::*;
        use DependencyTarget::*;
        let dep = parse("12,13_2");
        assert_eq!(
            dep.items,
            vec![
                item(AfterAny, Job(JobId(12))),
                item(AfterAny, Task(JobId(13), 2))
            ]
        );
        let dep = parse("singleton,afterok:4,afterok:4,SINGLETON");
        assert_eq!(dep.items.len(), 2);
        assert_eq!(dep.items[0].target, None);
        let dep = parse("afterok:123_[4-5,7]+2");
        let targets: Vec<_> = dep.items.iter().map(|i| i.target).collect();
        assert_eq!(
            targets,
            vec![
                Some(Task(JobId(123), 4)),
                Some(Task(JobId(123), 5)),
                Some(Task(JobId(123), 7))
            ]
        );
        assert_eq!(dep.items[2].delay_minutes, 2);
    }

    #[test]
    fn bad_dependencies_are_a_dependency_problem() {
        for bad in [
            "afterok",
            "afterok:",
            "afterok:0",
            "afterok:5,",
            "afterok:5x",
            "after:5+0",
            "after:5+x",
            "before:5",
            "afterok:5(failed",
            "singletons",
            "12;13",
            "abc",
            "afterok:7_[]",
            "afterok:7_[1-2000]",
            "afterok:-3",
        ] {
            assert_eq!(
                parse_dependency(bad, 1001),
                Err(DependencyError::Invalid),
                "{bad}"
            );
        }
        assert_eq!(
            parse_dependency("expand:5", 1001),
            Err(DependencyError::NotSupported)
        );
        assert_eq!(
            DependencyError::Invalid.to_string(),
            "Job dependency problem"
        );
        assert_eq!(
            DependencyError::Circular.to_string(),
            "Circular job dependency"
        );
    }

    #[test]
    fn empty_and_zero_clear_the_dependency() {
        assert_eq!(parse_dependency("", 1001), Ok(None));
        assert_eq!(parse_dependency("0", 1001), Ok(None));
    }

    #[test]
    fn rendering_shows_what_is_not_met_with_its_state() {
        let mut dep = parse("afterok:5_*,after:6+3,singleton");
        assert_eq!(
            dep.render().as_deref(),
            Some("afterok:5_*(unfulfilled),after:6+3(unfulfilled),singleton(unfulfilled)")
        );
        dep.items[1].state = DependencyState::Fulfilled;
        dep.items[0].state = DependencyState::Failed;
        assert_eq!(
            dep.render().as_deref(),
            Some("afterok:5_*(failed),singleton(unfulfilled)")
        );
        assert_eq!(dep.status(), DependencyStatus::NeverSatisfied);
        dep.items[0].state = DependencyState::Fulfilled;
        dep.items[2].state = DependencyState::Fulfilled;
        assert_eq!(dep.render(), None);
        assert_eq!(dep.status(), DependencyStatus::Satisfied);
        let dep = parse("afterok:1?afterok:2(failed)");
        assert_eq!(
            dep.render().as_deref(),
            Some("afterok:1(unfulfilled)?afterok:2(failed)")
        );
        assert_eq!(dep.status(), DependencyStatus::Waiting);
    }

    #[test]
    fn a_rendered_dependency_reads_back_the_same() {
        let dep = parse("afterok:5_*(unfulfilled),afternotok:6_2(failed),after:7+4");
        let again = parse(&dep.render().expect("something to show"));
        assert_eq!(dep, again);
    }
}
