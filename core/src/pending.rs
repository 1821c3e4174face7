//! The pending jobs, and the two parts of them a scheduling pass walks on
//! their own: those not held (what it orders and tries to start) and those
//! with a dependency (what it evaluates). A queue of many held jobs then
//! costs a pass nothing: it never looks them up. Also the jobs filed since
//! the last full pass ordered the queue, which a head pass may not pass.

use std::collections::BTreeSet;

use crate::id::JobId;
use crate::job::Job;

/// Every pending job by id, with its unheld and dependent subsets.
#[derive(Debug, Default)]
pub(crate) struct PendingJobs {
    all: BTreeSet<JobId>,
    unheld: BTreeSet<JobId>,
    dependent: BTreeSet<JobId>,
    /// Jobs filed not held since [`PendingJobs::clear_filed`], in the order
    /// they were (an id may come more than once).
    filed: Vec<JobId>,
}

impl PendingJobs {
    /// Files a pending `job`, or files it again after its hold, its
    /// dependency or its priority changed.
    pub fn file(&mut self, job: &Job) {
        self.all.insert(job.id);
        place(&mut self.unheld, job.id, job.hold.is_none());
        place(&mut self.dependent, job.id, job.dependency.is_some());
        if job.hold.is_none() {
            self.filed.push(job.id);
        }
    }

    /// The jobs filed not held since [`PendingJobs::clear_filed`], oldest
    /// first; some may have left the queue since.
    pub fn filed(&self) -> &[JobId] {
        &self.filed
    }

    /// Forgets which jobs were filed: a full pass has ordered them all.
    pub fn clear_filed(&mut self) {
        self.filed.clear();
    }

    /// Takes a job out: it started or ended.
    pub fn remove(&mut self, id: JobId) {
        self.all.remove(&id);
        self.unheld.remove(&id);
        self.dependent.remove(&id);
    }

    pub fn contains(&self, id: &JobId) -> bool {
        self.all.contains(id)
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// Every pending job, by id.
    pub fn iter(&self) -> std::collections::btree_set::Iter<'_, JobId> {
        self.all.iter()
    }

    /// The pending jobs not held, by id.
    pub fn unheld(&self) -> &BTreeSet<JobId> {
        &self.unheld
    }

    /// The pending jobs that have a dependency, by id.
    pub fn dependent(&self) -> &BTreeSet<JobId> {
        &self.dependent
    }

    /// Whether `job` is filed as its state, hold and dependency say (the
    /// sanity check's question); the name of the set that is wrong if not.
    pub fn misfiled(&self, job: &Job) -> Option<&'static str> {
        let pending = job.state() == crate::job::JobState::Pending;
        if self.all.contains(&job.id) != pending {
            return Some("pending set");
        }
        if self.unheld.contains(&job.id) != (pending && job.hold.is_none()) {
            return Some("unheld pending set");
        }
        if self.dependent.contains(&job.id) != (pending && job.dependency.is_some()) {
            return Some("dependent pending set");
        }
        None
    }

    /// An id filed here that `known` says is no job.
    pub fn stray(&self, known: impl Fn(JobId) -> bool) -> Option<JobId> {
        let mut ids = self.all.iter().chain(&self.unheld).chain(&self.dependent);
        ids.find(|&&id| !known(id)).copied()
    }
}

fn place(set: &mut BTreeSet<JobId>, id: JobId, member: bool) {
    if member {
        set.insert(id);
    } else {
        set.remove(&id);
    }
}
