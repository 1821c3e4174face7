//! Fragmentation-aware node choice for jobs that share nodes, after
//! Fragmentation Gradient Descent (Weng et al., USENIX ATC'23): the core
//! keeps the mix of per-node demands jobs ask for, and a shared job goes to
//! the node where it leaves the fewest free GPUs that the mix could not use.

use crate::resources::Resources;

/// Demand classes kept: the most common per-node demands.
const MAX_CLASSES: usize = 64;

/// The mix of per-node demands of submitted shared jobs.
#[derive(Debug, Clone, Default)]
pub struct Workload {
    /// (demand, how often seen), most common first once `classes` is built.
    counts: Vec<(Resources, u64)>,
    /// The top classes with their share of all submissions seen.
    classes: Vec<(Resources, f64)>,
    seen: u64,
}

impl Workload {
    /// Records one job's per-node demand.
    pub fn record(&mut self, demand: Resources) {
        self.seen += 1;
        match self.counts.iter_mut().find(|(d, _)| *d == demand) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((demand, 1)),
        }
        // Keep the table small: fold rare demands away once it grows.
        if self.counts.len() > 4 * MAX_CLASSES {
            self.counts
                .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| key(&a.0).cmp(&key(&b.0))));
            self.counts.truncate(2 * MAX_CLASSES);
        }
        let mut top = self.counts.clone();
        top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| key(&a.0).cmp(&key(&b.0))));
        top.truncate(MAX_CLASSES);
        let total: u64 = top.iter().map(|(_, n)| n).sum();
        self.classes = top
            .into_iter()
            .map(|(d, n)| (d, n as f64 / total.max(1) as f64))
            .collect();
    }

    /// Whether any demand has been seen.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Expected free GPUs of a node with `free` resources that a job drawn
    /// from the mix could not use.
    pub fn fragmentation(&self, free: &Resources) -> f64 {
        if free.gpus == 0 {
            return 0.0;
        }
        self.classes
            .iter()
            .filter(|(d, _)| !free.covers(d) || d.gpus == 0)
            .map(|(_, share)| share * f64::from(free.gpus))
            .sum()
    }

    /// How placing `demand` on a node with `free` changes its
    /// fragmentation (negative: it gets better).
    pub fn delta(&self, free: &Resources, demand: &Resources) -> f64 {
        self.fragmentation(&free.saturating_sub(demand)) - self.fragmentation(free)
    }
}

fn key(r: &Resources) -> (u32, u32, u64) {
    (r.gpus, r.cpus, r.mem_mb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(gpus: u32, cpus: u32) -> Resources {
        Resources {
            cpus,
            mem_mb: 0,
            gpus,
        }
    }

    #[test]
    fn leaving_gpus_without_cpus_is_fragmentation() {
        let mut w = Workload::default();
        for _ in 0..10 {
            w.record(res(1, 8));
        }
        // A node left with 2 GPUs but 4 CPUs cannot take a 1-GPU/8-CPU job.
        assert_eq!(w.fragmentation(&res(2, 4)), 2.0);
        assert_eq!(w.fragmentation(&res(2, 16)), 0.0);
        // Taking 8 CPUs from the CPU-poor node strands its GPUs; the
        // CPU-rich node stays usable.
        let job = res(0, 8);
        assert!(w.delta(&res(2, 12), &job) > w.delta(&res(2, 32), &job));
    }
}
