//! Preemption (preempt/partition_prio and preempt/qos): which running jobs
//! a pending job may preempt, and the victims that free what it needs with
//! the least work lost. Victims are asked to end (CANCEL or REQUEUE, after
//! GraceTime); their nodes are held for the preemptor meanwhile.

use std::collections::BTreeMap;

use crate::backfill::{Profile, NEVER};
use crate::core::{Core, PreemptType};
use crate::effects::{Effect, Effects};
use crate::id::{JobId, NodeId};
use crate::job::{Job, KillCause};
use crate::partition::PreemptMode;
use crate::reason::Reason;
use crate::resources::{Resources, Time};
use crate::sched::{Scratch, Want};

/// Resources a preemption would free, per node: what, and whether the node
/// would then be idle.
pub(crate) type Overlay = BTreeMap<NodeId, (Resources, bool)>;

impl Core {
    /// Preemption: if `id` may preempt running jobs, choose victims that free
    /// what it needs with the least work lost, ask for their end, and hold
    /// their nodes for it. Returns whether victims were chosen (or already
    /// are being ended for it).
    pub(crate) fn try_preempt(
        &mut self,
        id: JobId,
        now: Time,
        profile: &mut Profile,
        scratch: &mut Scratch,
        effects: &mut impl Effects,
    ) -> bool {
        if self.preempting.contains_key(&id) {
            return true;
        }
        let job = &self.jobs[&id];
        let d = job.time_limit.unwrap_or(NEVER);
        let mut candidates: Vec<(u32, u32, u64, JobId, PreemptMode, u64)> = self
            .running
            .iter()
            .filter_map(|&v| {
                let victim = &self.jobs[&v];
                if victim.kill.is_some() {
                    return None;
                }
                let (rank, mode, grace) = self.preemptable(job, victim)?;
                let nodes = victim.alloc.len() as u32;
                let lost = now.saturating_sub(victim.start_time.unwrap_or(now)) * u64::from(nodes);
                Some((rank, nodes, lost, v, mode, grace))
            })
            .collect();
        if candidates.is_empty() {
            return false;
        }
        candidates.sort_unstable_by_key(|c| (c.0, c.1, c.2, c.3));
        let want = Want::of_job(job, now, self.config.block_wait);
        let mut overlay = Overlay::new();
        let mut chosen: Vec<usize> = Vec::new();
        let mut fits = false;
        for (i, c) in candidates.iter().enumerate() {
            self.add_to_overlay(&mut overlay, c.3, true);
            chosen.push(i);
            if self
                .place_alternatives(&want, profile, now, d, Some(&overlay), scratch)
                .is_ok()
            {
                fits = true;
                break;
            }
        }
        if !fits {
            return false;
        }
        // Drop victims the placement does not need, latest first.
        for pos in (0..chosen.len()).rev() {
            let victim = candidates[chosen[pos]].3;
            self.add_to_overlay(&mut overlay, victim, false);
            if self
                .place_alternatives(&want, profile, now, d, Some(&overlay), scratch)
                .is_ok()
            {
                chosen.remove(pos);
            } else {
                self.add_to_overlay(&mut overlay, victim, true);
            }
        }
        let Ok(alloc) = self.place_alternatives(&want, profile, now, d, Some(&overlay), scratch)
        else {
            return false;
        };
        let victims: Vec<JobId> = chosen.iter().map(|&i| candidates[i].3).collect();
        for &i in &chosen {
            let (_, _, _, victim, mode, grace) = candidates[i];
            let cause = match mode {
                PreemptMode::Requeue if self.jobs[&victim].spec.requeue != Some(false) => {
                    KillCause::PreemptRequeue
                }
                _ => KillCause::PreemptCancel,
            };
            if let Some(v) = self.jobs.get_mut(&victim) {
                if v.mark_kill(cause).is_ok() {
                    effects.emit(Effect::KillJob {
                        job: victim,
                        cause,
                        grace,
                    });
                }
            }
        }
        profile.reserve(&alloc, now, now.saturating_add(d));
        self.preempting.insert(id, victims);
        self.set_reason(id, Reason::Resources);
        true
    }

    /// Whether `job` may preempt `victim`: the victim's rank (lower goes
    /// first), its preempt mode and grace time.
    fn preemptable(&self, job: &Job, victim: &Job) -> Option<(u32, PreemptMode, u64)> {
        match self.config.preempt {
            PreemptType::None => None,
            PreemptType::PartitionPrio => {
                let mine = &self.partitions[job.partition.index()];
                let theirs = &self.partitions[victim.partition.index()];
                let shares = self.partitions_share(job.partition, victim.partition);
                (theirs.priority_tier < mine.priority_tier
                    && theirs.preempt_mode != PreemptMode::Off
                    && shares)
                    .then_some((theirs.priority_tier, theirs.preempt_mode, theirs.grace_time))
            }
            PreemptType::Qos => {
                let mine = &self.qos[job.qos?.index()];
                let theirs = &self.qos[victim.qos?.index()];
                let mode = match theirs.preempt_mode {
                    PreemptMode::Off => self.partitions[victim.partition.index()].preempt_mode,
                    m => m,
                };
                (mine.preempt.contains(&theirs.name) && mode != PreemptMode::Off).then_some((
                    theirs.priority,
                    mode,
                    theirs.grace_time,
                ))
            }
        }
    }

    /// Adds (or takes back) a victim's resources to what preemption frees;
    /// a node is idle once everything used on it would be freed.
    fn add_to_overlay(&self, overlay: &mut Overlay, victim: JobId, add: bool) {
        for a in &self.jobs[&victim].alloc {
            let used = self.nodes[a.node.index()].used();
            let entry = overlay.entry(a.node).or_insert((Resources::ZERO, false));
            entry.0 = if add {
                entry.0.add(&a.res)
            } else {
                entry.0.saturating_sub(&a.res)
            };
            entry.1 = entry.0.covers(&used);
        }
    }
}
