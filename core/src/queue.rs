//! Queue policy: job priority (priority/basic and priority/multifactor with
//! fair share) and the order a scheduling pass considers jobs in. Knows
//! nothing of topology or placement.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::id::Uid;
use crate::job::Job;
use crate::partition::{Partition, Qos};
use crate::resources::Time;

/// slurm.conf's PriorityWeight* and related settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PriorityWeights {
    /// PriorityWeightAge.
    pub age: u32,
    /// PriorityWeightFairshare.
    pub fairshare: u32,
    /// PriorityWeightJobSize.
    pub job_size: u32,
    /// PriorityWeightPartition.
    pub partition: u32,
    /// PriorityWeightQOS.
    pub qos: u32,
    /// PriorityMaxAge in seconds (Slurm's default: 7 days).
    pub max_age: u64,
    /// PriorityFavorSmall.
    pub favor_small: bool,
    /// PriorityDecayHalfLife in seconds (Slurm's default: 7 days); 0: no
    /// decay.
    pub decay_half_life: u64,
}

impl Default for PriorityWeights {
    fn default() -> Self {
        PriorityWeights {
            age: 0,
            fairshare: 0,
            job_size: 0,
            partition: 0,
            qos: 0,
            max_age: 7 * 86_400,
            favor_small: false,
            decay_half_life: 7 * 86_400,
        }
    }
}

/// PriorityType.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum PriorityType {
    /// priority/basic: first come, first served.
    Basic,
    /// priority/multifactor.
    Multifactor(PriorityWeights),
}

/// Decayed past usage per user, for the fair-share factor (Slurm's classic
/// formula: 2^(-usage share / fair share), every user an equal share).
#[derive(Debug, Clone, Default)]
pub struct FairShare {
    usage: BTreeMap<Uid, (f64, Time)>,
}

impl FairShare {
    fn decayed(value: f64, from: Time, to: Time, half_life: u64) -> f64 {
        if half_life == 0 || to <= from {
            return value;
        }
        value * 0.5f64.powf((to - from) as f64 / half_life as f64)
    }

    /// Adds `amount` (GPU- or CPU-seconds) to `user`'s usage at `now`.
    pub fn charge(&mut self, user: Uid, amount: f64, now: Time, half_life: u64) {
        let entry = self.usage.entry(user).or_insert((0.0, now));
        entry.0 = Self::decayed(entry.0, entry.1, now, half_life) + amount;
        entry.1 = now;
    }

    /// Each user's usage as kept: the amount, and the time it was decayed
    /// to when last charged.
    pub fn kept(&self, user: Uid) -> Option<(f64, Time)> {
        self.usage.get(&user).copied()
    }

    /// Puts back usage kept from before (a restart).
    pub fn restore(&mut self, user: Uid, usage: f64, at: Time) {
        self.usage.insert(user, (usage, at));
    }

    /// Each user's usage decayed to `now`, by uid.
    pub fn usage(&self, now: Time, half_life: u64) -> Vec<(Uid, f64)> {
        self.usage
            .iter()
            .map(|(&user, &(u, at))| (user, Self::decayed(u, at, now, half_life)))
            .collect()
    }

    /// Each user's usage decayed to `now` and fair-share factor, by uid:
    /// [`FairShare::factor`] of every user, each usage decayed once.
    pub fn factors(&self, now: Time, half_life: u64) -> Vec<(Uid, f64, f64)> {
        let usage = self.usage(now, half_life);
        let total: f64 = usage.iter().map(|(_, u)| u).sum();
        let share = 1.0 / usage.len().max(1) as f64;
        usage
            .into_iter()
            .map(|(user, u)| {
                let factor = if total <= 0.0 {
                    1.0
                } else {
                    2f64.powf(-(u / total) / share)
                };
                (user, u, factor)
            })
            .collect()
    }

    /// The fair-share factor of `user` at `now`, in [0, 1].
    pub fn factor(&self, user: Uid, now: Time, half_life: u64) -> f64 {
        if self.usage.is_empty() {
            return 1.0;
        }
        let total: f64 = self
            .usage
            .values()
            .map(|&(u, at)| Self::decayed(u, at, now, half_life))
            .sum();
        if total <= 0.0 {
            return 1.0;
        }
        let mine = self
            .usage
            .get(&user)
            .map_or(0.0, |&(u, at)| Self::decayed(u, at, now, half_life));
        let share = 1.0 / self.usage.len().max(1) as f64;
        2f64.powf(-(mine / total) / share)
    }
}

/// What a priority computation may look at besides the job.
#[derive(Debug, Clone, Copy)]
pub struct PriorityContext<'a> {
    /// The pass's time.
    pub now: Time,
    /// Nodes in the cluster.
    pub total_nodes: u32,
    /// Partitions, indexed by id.
    pub partitions: &'a [Partition],
    /// QOS, indexed by id.
    pub qos: &'a [Qos],
    /// Past usage.
    pub fairshare: &'a FairShare,
}

/// Computes a pending job's priority. Implementations are pure.
pub trait QueuePolicy: std::fmt::Debug + Send {
    /// The job's priority now (higher runs first); 0 only for held jobs.
    fn priority(&self, job: &Job, ctx: &PriorityContext<'_>) -> u32;
}

/// The base of priority/basic: the first job gets this minus one, each
/// later one one less (as slurmctld numbers them).
const BASIC_TOP: u32 = 0xFFFF_0000;

impl QueuePolicy for PriorityType {
    fn priority(&self, job: &Job, ctx: &PriorityContext<'_>) -> u32 {
        if let Some(fixed) = job.spec.priority {
            return fixed;
        }
        match self {
            PriorityType::Basic => BASIC_TOP.saturating_sub(job.seq).max(1),
            PriorityType::Multifactor(w) => multifactor(w, job, ctx),
        }
    }
}

/// The weighted terms of a job's multifactor priority, each its factor in
/// [0, 1] times its weight: what sprio shows of a pending job.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PriorityFactors {
    /// Time waited since the job became eligible, up to PriorityMaxAge.
    pub age: f64,
    /// The user's fair-share.
    pub fairshare: f64,
    /// The job's size against the cluster's.
    pub job_size: f64,
    /// The partition's PriorityJobFactor against the highest.
    pub partition: f64,
    /// The QOS's priority against the highest.
    pub qos: f64,
    /// The job's nice, taken off the sum.
    pub nice: i32,
}

impl PriorityFactors {
    /// `job`'s terms under weights `w`.
    pub fn of(w: &PriorityWeights, job: &Job, ctx: &PriorityContext<'_>) -> PriorityFactors {
        let age = ctx.now.saturating_sub(job.eligible_time).min(w.max_age) as f64
            / w.max_age.max(1) as f64;
        let nodes = f64::from(job.shape.nodes_min);
        let total = f64::from(ctx.total_nodes.max(1));
        let size = if w.favor_small {
            1.0 - (nodes - 1.0) / total
        } else {
            nodes / total
        };
        let max_part = ctx
            .partitions
            .iter()
            .map(|p| p.priority_job_factor)
            .max()
            .unwrap_or(1)
            .max(1);
        let part = f64::from(ctx.partitions[job.partition.index()].priority_job_factor)
            / f64::from(max_part);
        let max_qos = ctx.qos.iter().map(|q| q.priority).max().unwrap_or(0);
        let qos = match job.qos {
            Some(q) if max_qos > 0 => f64::from(ctx.qos[q.index()].priority) / f64::from(max_qos),
            _ => 0.0,
        };
        let fs = ctx
            .fairshare
            .factor(job.spec.user, ctx.now, w.decay_half_life);
        PriorityFactors {
            age: f64::from(w.age) * age,
            fairshare: f64::from(w.fairshare) * fs,
            job_size: f64::from(w.job_size) * size,
            partition: f64::from(w.partition) * part,
            qos: f64::from(w.qos) * qos,
            nice: job.spec.nice,
        }
    }

    /// Their sum less the nice, as slurmctld adds them.
    pub fn sum(&self) -> f64 {
        self.age + self.fairshare + self.job_size + self.partition + self.qos - f64::from(self.nice)
    }

    /// The priority the terms give: their sum, at least 1 (0 is a held
    /// job's), its fraction dropped, as slurmctld's multifactor plugin
    /// makes it.
    pub fn priority(&self) -> u32 {
        self.sum().clamp(1.0, f64::from(u32::MAX)) as u32
    }
}

fn multifactor(w: &PriorityWeights, job: &Job, ctx: &PriorityContext<'_>) -> u32 {
    PriorityFactors::of(w, job, ctx).priority()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_users_factor_at_once_is_each_users_factor() {
        let mut fs = FairShare::default();
        fs.charge(Uid(1), 300.0, 10, 100);
        fs.charge(Uid(2), 100.0, 50, 100);
        fs.charge(Uid(3), 0.0, 60, 100);
        let all = fs.factors(90, 100);
        assert_eq!(all.len(), 3);
        for (user, usage, factor) in all {
            assert!(
                (factor - fs.factor(user, 90, 100)).abs() < 1e-12,
                "{user:?}"
            );
            let (kept, at) = fs.kept(user).expect("kept");
            assert!(usage <= kept && at <= 90);
        }
        let mut back = FairShare::default();
        for user in [Uid(1), Uid(2), Uid(3)] {
            let (u, at) = fs.kept(user).expect("kept");
            back.restore(user, u, at);
        }
        assert_eq!(back.factors(90, 100), fs.factors(90, 100));
    }

    #[test]
    fn fair_share_favours_light_users_and_decays() {
        let mut fs = FairShare::default();
        let day = 86_400;
        fs.charge(Uid(1), 1000.0, 0, day);
        fs.charge(Uid(2), 10.0, 0, day);
        assert!(fs.factor(Uid(2), 0, day) > fs.factor(Uid(1), 0, day));
        assert!(fs.factor(Uid(3), 0, day) > fs.factor(Uid(2), 0, day));
        // Decay keeps the ratio between users but the factor stays in [0, 1].
        let later = fs.factor(Uid(1), 10 * day, day);
        assert!((0.0..=1.0).contains(&later));
    }
}
