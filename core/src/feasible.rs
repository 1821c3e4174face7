//! The verdicts of the feasibility check, kept per request. The check of
//! each submission (could this job ever run?) places it on the whole
//! cluster left empty, which takes time in proportion to the nodes: a
//! one-node job cost 2-4 us at 72 nodes and 88-170 us at 4,986. The verdict
//! depends only on what the job asks for and on the nodes' configuration,
//! which is fixed for a core's life (a reconfiguration makes a new core),
//! so a request asked before is answered from here: a shell loop of the
//! same `sbatch`, or a workload of a few job shapes, pays for one check a
//! shape. (Where the nodes differ, the placement's preference among them
//! learns the workload's mix, and a later check might choose other nodes;
//! the first verdict stands for the request.)

use std::collections::HashMap;
use std::sync::Mutex;

use crate::constraint::Constraint;
use crate::id::{NodeId, PartitionId};
use crate::job::Resolved;
use crate::spec::Shape;

/// The most requests kept; past it the verdicts start over, so that a
/// stream of requests all different keeps a bounded table.
const MOST_KEPT: usize = 4096;

/// What the check reads of a job's request: everything of [`Resolved`]
/// but its QOS and time limit, which the check does not look at.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Request {
    partition: PartitionId,
    shape: Shape,
    required: Vec<NodeId>,
    excluded: Vec<NodeId>,
    constraint: Option<Constraint>,
}

impl Request {
    fn of(r: &Resolved) -> Request {
        Request {
            partition: r.partition,
            shape: r.shape.clone(),
            required: r.required.clone(),
            excluded: r.excluded.clone(),
            constraint: r.constraint.clone(),
        }
    }
}

/// The verdicts given so far.
#[derive(Debug, Default)]
pub(crate) struct Verdicts {
    // A lock, not a cell: the core is read from several threads (a job
    // listing is filled on two), though only its owner submits.
    known: Mutex<HashMap<Request, bool>>,
}

impl Verdicts {
    /// Whether the request `r` could ever run: the verdict given before
    /// for the same request, else `check`'s, kept.
    pub(crate) fn get(&self, r: &Resolved, check: impl FnOnce() -> bool) -> bool {
        let request = Request::of(r);
        if let Some(&known) = self.lock().get(&request) {
            return known;
        }
        let verdict = check();
        let mut known = self.lock();
        if known.len() >= MOST_KEPT {
            known.clear();
        }
        known.insert(request, verdict);
        verdict
    }

    /// How many requests have a verdict kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Request, bool>> {
        // A panic while the table was held leaves at worst a verdict
        // missing, which the next check gives again.
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::QosId;
    use crate::spec::{resolve_shape, JobSpec};

    fn request(nodes: u32) -> Resolved {
        let spec = JobSpec {
            min_nodes: Some(nodes),
            ..Default::default()
        };
        Resolved {
            shape: resolve_shape(&spec, None, &Default::default()).expect("a plain shape"),
            partition: PartitionId(0),
            qos: None,
            required: vec![],
            excluded: vec![],
            constraint: None,
            time_limit: None,
        }
    }

    #[test]
    fn a_request_is_checked_once_and_every_part_the_check_reads_tells_requests_apart() {
        let verdicts = Verdicts::default();
        let mut checks = 0;
        let mut ask = |r: &Resolved, verdict: bool| {
            verdicts.get(r, || {
                checks += 1;
                verdict
            })
        };
        let base = request(2);
        assert!(ask(&base, true));
        // Asked again, the first verdict stands, unchecked.
        assert!(ask(&base, false));
        assert!(!ask(&request(3), false));
        assert!(!ask(&request(3), true));
        // What the check does not read is no new request.
        let mut other = request(2);
        other.time_limit = Some(60);
        other.qos = Some(QosId(1));
        assert!(ask(&other, false));
        let variants: [fn(&mut Resolved); 4] = [
            |r| r.partition = PartitionId(1),
            |r| r.required = vec![NodeId(3)],
            |r| r.excluded = vec![NodeId(3)],
            |r| r.constraint = Some(Constraint::Feature("nvl".into())),
        ];
        for (i, change) in variants.iter().enumerate() {
            let mut r = request(2);
            change(&mut r);
            assert!(!ask(&r, false), "variant {i} is a request of its own");
        }
        assert_eq!(checks, 6);
    }

    #[test]
    fn the_table_is_bounded() {
        let verdicts = Verdicts::default();
        for nodes in 0..=MOST_KEPT as u32 + 10 {
            verdicts.get(&request(nodes + 1), || true);
            assert!(verdicts.len() <= MOST_KEPT);
        }
        assert!(verdicts.len() > 0);
    }
}
