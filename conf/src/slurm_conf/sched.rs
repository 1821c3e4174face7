//! Scheduling, priority and preemption settings of slurm.conf:
//! `SchedulerParameters` (the backfill knobs spur acts on, plus the raw
//! list), the `Priority*` keys and `PreemptMode`.

use serde::{Deserialize, Serialize};

/// One entry of `SchedulerParameters`: `key` or `key=value`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulerParam {
    /// The key, lowercased (Slurm matches these case-insensitively).
    pub key: String,
    /// The value after `=`, if any.
    pub value: Option<String>,
}

/// `SchedulerParameters`, with the backfill settings spur uses typed and
/// Slurm's defaults where unset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulerParameters {
    /// `bf_window`: how far ahead backfill plans, in minutes (1440).
    pub bf_window_minutes: u32,
    /// `bf_resolution`: backfill time granularity, in seconds (60).
    pub bf_resolution_secs: u32,
    /// `bf_max_job_test`: jobs backfill considers per cycle (500).
    pub bf_max_job_test: u32,
    /// `bf_continue`: continue backfill after releasing locks.
    pub bf_continue: bool,
    /// `bf_interval`: seconds between backfill cycles (30).
    pub bf_interval_secs: u32,
    /// `default_queue_depth`: jobs the main scheduler tests per cycle (100).
    pub default_queue_depth: u32,
    /// `max_switch_wait`: the most a job may wait for `--switches`, in
    /// seconds (300).
    pub max_switch_wait_secs: u32,
    /// Every entry as written, in order.
    pub raw: Vec<SchedulerParam>,
}

impl Default for SchedulerParameters {
    fn default() -> Self {
        Self {
            bf_window_minutes: 1440,
            bf_resolution_secs: 60,
            bf_max_job_test: 500,
            bf_continue: false,
            bf_interval_secs: 30,
            default_queue_depth: 100,
            max_switch_wait_secs: 300,
            raw: Vec::new(),
        }
    }
}

impl SchedulerParameters {
    /// Parses the comma list. Like Slurm, a bad value for a known knob
    /// keeps its default; each such problem is returned as a message.
    pub fn parse(value: &str) -> (Self, Vec<String>) {
        let mut out = Self::default();
        let mut problems = Vec::new();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, val) = match item.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v.trim().to_string())),
                None => (item.to_ascii_lowercase(), None),
            };
            let slot = match key.as_str() {
                "bf_window" => Some(&mut out.bf_window_minutes),
                "bf_resolution" => Some(&mut out.bf_resolution_secs),
                "bf_max_job_test" => Some(&mut out.bf_max_job_test),
                "bf_interval" => Some(&mut out.bf_interval_secs),
                "default_queue_depth" => Some(&mut out.default_queue_depth),
                "max_switch_wait" => Some(&mut out.max_switch_wait_secs),
                _ => None,
            };
            if let Some(slot) = slot {
                match val.as_deref().map(str::parse::<u32>) {
                    Some(Ok(n)) => *slot = n,
                    _ => problems.push(format!(
                        "invalid SchedulerParameters entry \"{item}\", default kept"
                    )),
                }
            } else if key == "bf_continue" {
                out.bf_continue = true;
            }
            out.raw.push(SchedulerParam { key, value: val });
        }
        (out, problems)
    }

    /// Whether `key` was given (`Some(None)` for a bare flag); the last
    /// occurrence wins.
    pub fn get(&self, key: &str) -> Option<Option<&str>> {
        self.raw
            .iter()
            .rev()
            .find(|p| p.key.eq_ignore_ascii_case(key))
            .map(|p| p.value.as_deref())
    }
}

/// The `Priority*` keys of slurm.conf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityConf {
    /// `PriorityType` (default `priority/basic`, as in Slurm 22.05).
    pub priority_type: String,
    /// `PriorityWeightAge`.
    pub weight_age: u32,
    /// `PriorityWeightFairshare`.
    pub weight_fairshare: u32,
    /// `PriorityWeightJobSize`.
    pub weight_job_size: u32,
    /// `PriorityWeightPartition`.
    pub weight_partition: u32,
    /// `PriorityWeightQOS`.
    pub weight_qos: u32,
    /// `PriorityMaxAge` in seconds, whole minutes (default 7 days).
    pub max_age_secs: u64,
    /// `PriorityDecayHalfLife` in seconds, whole minutes (default 7 days;
    /// 0 disables decay).
    pub decay_half_life_secs: u64,
    /// `PriorityFavorSmall`.
    pub favor_small: bool,
}

impl Default for PriorityConf {
    fn default() -> Self {
        Self {
            priority_type: "priority/basic".into(),
            weight_age: 0,
            weight_fairshare: 0,
            weight_job_size: 0,
            weight_partition: 0,
            weight_qos: 0,
            max_age_secs: 7 * 86_400,
            decay_half_life_secs: 7 * 86_400,
            favor_small: false,
        }
    }
}

/// The one preemption action of a `PreemptMode`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PreemptModeBase {
    /// `OFF` (or `CLUSTER` on a partition): no preemption.
    #[default]
    Off,
    /// `CANCEL`.
    Cancel,
    /// `REQUEUE`.
    Requeue,
    /// `SUSPEND` (or `ON`).
    Suspend,
}

/// A `PreemptMode` value: one action plus the `GANG`, `WITHIN` and
/// `PRIORITY` flags (Slurm's `preempt_mode_num`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PreemptMode {
    /// The action.
    pub base: PreemptModeBase,
    /// `GANG`: time-slice jobs.
    pub gang: bool,
    /// `WITHIN`: preempt within a QOS.
    pub within: bool,
    /// `PRIORITY`.
    pub priority: bool,
}

impl PreemptMode {
    /// Parses a comma list such as `SUSPEND,GANG`; `None` when invalid
    /// (unknown word, two actions, `GANG` with `WITHIN` or `PRIORITY`).
    pub fn parse(value: &str) -> Option<Self> {
        let mut mode = Self::default();
        let mut actions = 0;
        for tok in value.split(',').filter(|t| !t.is_empty()) {
            let is = |w: &str| tok.eq_ignore_ascii_case(w);
            if is("gang") {
                mode.gang = true;
            } else if is("within") {
                mode.within = true;
            } else if is("priority") {
                mode.priority = true;
            } else {
                mode.base = if is("off") || is("cluster") {
                    PreemptModeBase::Off
                } else if is("cancel") {
                    PreemptModeBase::Cancel
                } else if is("requeue") {
                    PreemptModeBase::Requeue
                } else if is("on") || is("suspend") {
                    PreemptModeBase::Suspend
                } else {
                    return None;
                };
                actions += 1;
            }
        }
        let valid = actions <= 1 && !(mode.gang && (mode.within || mode.priority));
        valid.then_some(mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_parameters_typed_and_raw() {
        let (p, problems) = SchedulerParameters::parse(
            "bf_window=2880,bf_continue,bf_resolution=120,bf_max_job_test=1000,Default_Queue_Depth=50,max_switch_wait=600,bf_interval=45,nohold_on_prolog_fail",
        );
        assert!(problems.is_empty());
        assert_eq!(p.bf_window_minutes, 2880);
        assert!(p.bf_continue);
        assert_eq!(p.bf_resolution_secs, 120);
        assert_eq!(p.bf_max_job_test, 1000);
        assert_eq!(p.default_queue_depth, 50);
        assert_eq!(p.max_switch_wait_secs, 600);
        assert_eq!(p.bf_interval_secs, 45);
        assert_eq!(p.raw.len(), 8);
        assert_eq!(p.get("nohold_on_prolog_fail"), Some(None));
        assert_eq!(p.get("bf_window"), Some(Some("2880")));
        assert_eq!(p.get("absent"), None);
    }

    #[test]
    fn scheduler_parameters_defaults_and_bad_values() {
        assert_eq!(
            SchedulerParameters::parse("").0,
            SchedulerParameters::default()
        );
        let (p, problems) = SchedulerParameters::parse("bf_window=soon");
        assert_eq!(p.bf_window_minutes, 1440);
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn preempt_modes() {
        let m = PreemptMode::parse("SUSPEND,GANG").unwrap();
        assert_eq!(m.base, PreemptModeBase::Suspend);
        assert!(m.gang);
        assert_eq!(
            PreemptMode::parse("requeue").unwrap().base,
            PreemptModeBase::Requeue
        );
        assert_eq!(PreemptMode::parse("OFF"), Some(PreemptMode::default()));
        assert_eq!(PreemptMode::parse("CANCEL,REQUEUE"), None);
        assert_eq!(PreemptMode::parse("GANG,WITHIN"), None);
        assert_eq!(PreemptMode::parse("sometimes"), None);
    }
}
