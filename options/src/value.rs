//! Option values read as Slurm reads them (slurm_opt.c, proc_args.c): node
//! counts, positive integers, memory sizes, time limits, --signal,
//! --exclusive, --nice, --priority, --switches, ... Each refusal carries
//! Slurm's exact message. Pure functions.

use spur_proto::{ExclusiveMode, JobSignal, OpenMode};
use spur_slurm::number::strtol;

use crate::error::ValueError;

use spur_slurm::limits::{NICE_LIMIT, NO_VAL};

/// A time limit: a number of seconds, or UNLIMITED (`-t 0` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeValue {
    /// Seconds, rounded up to whole minutes as Slurm stores limits.
    Secs(u64),
    /// `UNLIMITED`, `INFINITE`, `-1` or `0`.
    Unlimited,
}

/// `-t` / `--time-min`: Slurm's time_str2mins; a bad value is
/// `Invalid --time specification`.
pub fn time(option: &'static str, text: &str) -> Result<TimeValue, ValueError> {
    match spur_conf::parse_time_minutes(text) {
        Ok(Some(0)) | Ok(None) => Ok(TimeValue::Unlimited),
        Ok(Some(mins)) => Ok(TimeValue::Secs(mins * 60)),
        Err(_) => Err(ValueError::Spec(option)),
    }
}

/// Slurm's parse_int(name, value, positive = true): a whole number above 0
/// and below INT_MAX.
pub fn positive_int(option: &'static str, text: &str) -> Result<u32, ValueError> {
    let not_numeric = || ValueError::NotNumeric {
        option,
        value: text.to_string(),
    };
    let (value, rest) = strtol(text).unwrap_or((0, text));
    if !rest.is_empty() || value <= 0 {
        return Err(not_numeric());
    }
    if value >= i64::from(i32::MAX) {
        return Err(ValueError::TooLarge { option, value });
    }
    u32::try_from(value).map_err(|_| not_numeric())
}

/// `-N`: `min[-max]`, or a list of allowed sizes (`1,4,8`, `2-8:2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeCount {
    /// The fewest nodes.
    pub min: u32,
    /// The most nodes (None: only a minimum was given).
    pub max: Option<u32>,
    /// Whether a list of sizes was given (spur keeps only its bounds).
    pub is_list: bool,
}

/// Slurm's str_to_nodes: a number with an optional k/m suffix; None when
/// malformed. Negative numbers come back as -1.
fn str_to_nodes(text: &str) -> Option<i64> {
    let Some((mut n, mut rest)) = strtol(text) else {
        return text.trim().is_empty().then_some(-1);
    };
    if let Some(r) = rest.strip_prefix(['k', 'K']) {
        n = n.saturating_mul(1024);
        rest = r;
    }
    if let Some(r) = rest.strip_prefix(['m', 'M']) {
        n = n.saturating_mul(1024 * 1024);
        rest = r;
    }
    if !rest.trim().is_empty() {
        return None;
    }
    Some(if n < 0 || n > i64::from(i32::MAX) {
        -1
    } else {
        n
    })
}

/// `-N` as Slurm's verify_node_count reads it.
pub fn node_count(text: &str) -> Result<NodeCount, ValueError> {
    let bad = |t: &str| ValueError::NodeCount(t.to_string());
    if text.contains([',', ':']) {
        let numbers = text
            .split([',', '-', ':'])
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<u32>().map_err(|_| bad(t)))
            .collect::<Result<Vec<_>, _>>()?;
        let min = numbers.iter().copied().min().ok_or_else(|| bad(text))?;
        let max = numbers.iter().copied().max().ok_or_else(|| bad(text))?;
        return Ok(NodeCount {
            min,
            max: Some(max),
            is_list: true,
        });
    }
    let (min, max) = match text.split_once('-') {
        Some((lo, hi)) => {
            let min = str_to_nodes(lo).ok_or_else(|| bad(lo))?.max(1);
            let max = str_to_nodes(hi).ok_or_else(|| bad(hi))?;
            (min, Some(max))
        }
        None => match str_to_nodes(text) {
            Some(n) if n >= 0 => (n, None),
            _ => return Err(bad(text)),
        },
    };
    if let Some(max) = max.filter(|&m| m != 0 && m < min) {
        return Err(ValueError::NodeRange { min, max });
    }
    let to_u32 = |n: i64| u32::try_from(n).map_err(|_| bad(text));
    Ok(NodeCount {
        min: to_u32(min)?,
        max: max.filter(|&m| m > 0).map(to_u32).transpose()?,
        is_list: false,
    })
}

/// `--mem`, `--mem-per-cpu`, `--mem-per-gpu` in MiB.
pub fn memory(option: &'static str, text: &str) -> Result<u64, ValueError> {
    spur_conf::parse_memory_mb(text).map_err(|_| ValueError::Spec(option))
}

/// Slurm's sig_name2num: a number, or a name with or without `SIG`, any
/// case; 0 when unknown.
pub fn signal_number(text: &str) -> i32 {
    spur_slurm::signal::name2num(text).unwrap_or(0)
}

/// `--signal=[{R|B}:]sig[@time]`: the signal, and whether the `R`
/// (reservation) flag was given, which spur does not act on.
pub fn signal(text: &str) -> Result<(JobSignal, bool), ValueError> {
    let bad = || ValueError::Spec("--signal");
    let mut rest = text;
    let flag = |letter: char, rest: &mut &str| {
        let hit = rest
            .chars()
            .next()
            .is_some_and(|c| c.eq_ignore_ascii_case(&letter));
        if hit {
            *rest = &rest[1..];
        }
        hit
    };
    let mut reservation = flag('R', &mut rest);
    let batch_only = flag('B', &mut rest);
    reservation |= flag('R', &mut rest);
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let (name, at) = match rest.split_once('@') {
        Some((n, t)) => (n, Some(t)),
        None => (rest, None),
    };
    let signal = signal_number(name);
    if !(1..=0xffff).contains(&signal) {
        return Err(bad());
    }
    let before = match at {
        None => 60,
        Some(t) => match strtol(t) {
            Some((n, "")) if (0..=0xffff).contains(&n) => n as u64,
            _ => return Err(bad()),
        },
    };
    let sig = JobSignal {
        signal,
        before,
        batch_only,
    };
    Ok((sig, reservation))
}

/// What `--exclusive[=mode]` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclusive {
    /// A mode spur has.
    Mode(ExclusiveMode),
    /// `mcs`: spur has no MCS labels; treated as whole nodes.
    Mcs,
    /// `oversubscribe`: the opposite, sharing allowed.
    Oversubscribe,
}

/// `--exclusive[=exclusive|allocation|oversubscribe|user|mcs|topo]`; `""`
/// is the bare flag.
pub fn exclusive(text: &str) -> Result<Exclusive, ValueError> {
    let is = |w: &str| text.eq_ignore_ascii_case(w);
    Ok(if text.is_empty() || is("exclusive") || is("allocation") {
        Exclusive::Mode(ExclusiveMode::Node)
    } else if is("user") {
        Exclusive::Mode(ExclusiveMode::User)
    } else if is("topo") {
        Exclusive::Mode(ExclusiveMode::Topo)
    } else if is("mcs") {
        Exclusive::Mcs
    } else if is("oversubscribe") {
        Exclusive::Oversubscribe
    } else {
        return Err(ValueError::Spec("--exclusive"));
    })
}

/// `--open-mode`: Slurm looks at the first letter only.
pub fn open_mode(text: &str) -> Result<OpenMode, ValueError> {
    match text.chars().next() {
        Some('a' | 'A') => Ok(OpenMode::Append),
        Some('t' | 'T') => Ok(OpenMode::Truncate),
        _ => Err(ValueError::Spec("--open-mode")),
    }
}

/// `--nice[=adj]`: 100 without a value; strtoll's leniency kept.
pub fn nice(text: &str) -> Result<i32, ValueError> {
    let n = if text.is_empty() {
        100
    } else {
        strtol(text).map_or(0, |(n, _)| n)
    };
    if n.abs() > i64::from(NICE_LIMIT) {
        return Err(ValueError::NiceRange);
    }
    i32::try_from(n).map_err(|_| ValueError::NiceRange)
}

/// `--priority=value|TOP` (TOP is NO_VAL - 1, as in Slurm).
pub fn priority(text: &str) -> Result<u32, ValueError> {
    if text.eq_ignore_ascii_case("TOP") {
        return Ok(NO_VAL - 1);
    }
    let n = strtol(text).map_or(0, |(n, _)| n);
    if n < 0 {
        return Err(ValueError::PriorityNegative);
    }
    if n >= i64::from(NO_VAL) {
        return Err(ValueError::PriorityTooLarge);
    }
    u32::try_from(n).map_err(|_| ValueError::PriorityTooLarge)
}

/// `--segment=size` (a uint16).
pub fn segment(text: &str) -> Result<u32, ValueError> {
    text.trim()
        .parse::<u16>()
        .map(u32::from)
        .map_err(|_| ValueError::Spec("--segment"))
}

/// `--switches=count[@max-time]`: a wait Slurm cannot read is dropped, as
/// Slurm drops it.
pub fn switches(text: &str) -> Result<(u32, Option<u64>), ValueError> {
    let (count, wait) = match text.split_once('@') {
        Some((c, w)) => (c, Some(w)),
        None => (text, None),
    };
    let count = positive_int("--switches", count)?;
    let wait = wait.and_then(|w| spur_conf::parse_time_limit(w).ok().flatten());
    Ok((count, wait))
}

/// `--requeue[=expedite]`: whether `expedite` was given.
pub fn requeue(text: &str) -> Result<bool, ValueError> {
    if text.is_empty() {
        Ok(false)
    } else if text.eq_ignore_ascii_case("expedite") {
        Ok(true)
    } else {
        Err(ValueError::Spec("--requeue"))
    }
}

/// `--kill-on-invalid-dep=yes|no` (any case).
pub fn kill_on_invalid_dep(text: &str) -> Result<bool, ValueError> {
    if text.eq_ignore_ascii_case("yes") {
        Ok(true)
    } else if text.eq_ignore_ascii_case("no") {
        Ok(false)
    } else {
        Err(ValueError::Spec("--kill-on-invalid-dep"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits_round_up_to_minutes_and_zero_is_unlimited() {
        assert_eq!(time("--time", "10"), Ok(TimeValue::Secs(600)));
        assert_eq!(time("--time", "30:15"), Ok(TimeValue::Secs(31 * 60)));
        assert_eq!(time("--time", "1-00:00:00"), Ok(TimeValue::Secs(86_400)));
        assert_eq!(time("--time", "0"), Ok(TimeValue::Unlimited));
        assert_eq!(time("--time", "UNLIMITED"), Ok(TimeValue::Unlimited));
        let err = time("--time", "abc").unwrap_err();
        assert_eq!(
            err.to_string(),
            "sbatch: error: Invalid --time specification"
        );
        let err = time("--time-min", "1:2:3:4").unwrap_err();
        assert_eq!(
            err.to_string(),
            "sbatch: error: Invalid --time-min specification"
        );
    }

    #[test]
    fn positive_ints_follow_parse_int() {
        assert_eq!(positive_int("--ntasks", "4"), Ok(4));
        assert_eq!(positive_int("--ntasks", " +4"), Ok(4));
        for bad in ["0", "-3", "abc", "4x", ""] {
            let err = positive_int("--ntasks", bad).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("sbatch: error: Invalid numeric value \"{bad}\" for --ntasks.")
            );
        }
        let err = positive_int("--ntasks", "99999999999").unwrap_err();
        assert_eq!(
            err.to_string(),
            "sbatch: error: Numeric argument (99999999999) too large for --ntasks."
        );
    }

    #[test]
    fn node_counts() {
        let nc = |min, max| NodeCount {
            min,
            max,
            is_list: false,
        };
        assert_eq!(node_count("2"), Ok(nc(2, None)));
        assert_eq!(node_count("2-4"), Ok(nc(2, Some(4))));
        assert_eq!(node_count("-3"), Ok(nc(1, Some(3))));
        assert_eq!(
            node_count("2-").unwrap_err().to_string(),
            "sbatch: error: Maximum node count -1 is less than minimum node count 2"
        );
        assert_eq!(node_count("1k"), Ok(nc(1024, None)));
        let list = node_count("1,4,8").unwrap();
        assert_eq!((list.min, list.max, list.is_list), (1, Some(8), true));
        assert_eq!(
            node_count("abc").unwrap_err().to_string(),
            "sbatch: error: \"abc\" is not a valid node count"
        );
        assert_eq!(
            node_count("4-2").unwrap_err().to_string(),
            "sbatch: error: Maximum node count 2 is less than minimum node count 4"
        );
    }

    #[test]
    fn signals_by_number_and_name_with_flags_and_time() {
        let (s, r) = signal("USR1").unwrap();
        assert_eq!(
            (s.signal, s.before, s.batch_only, r),
            (libc::SIGUSR1, 60, false, false)
        );
        let (s, _) = signal("B:SIGTERM@120").unwrap();
        assert_eq!(
            (s.signal, s.before, s.batch_only),
            (libc::SIGTERM, 120, true)
        );
        let (s, r) = signal("R:10@30").unwrap();
        assert_eq!((s.signal, s.before, s.batch_only, r), (10, 30, false, true));
        let (s, r) = signal("BR:usr2").unwrap();
        assert_eq!((s.signal, s.batch_only, r), (libc::SIGUSR2, true, true));
        for bad in ["", "NOPE", "0", "USR1@", "USR1@x", "USR1@-5", "70000"] {
            assert_eq!(
                signal(bad).unwrap_err().to_string(),
                "sbatch: error: Invalid --signal specification",
                "{bad}"
            );
        }
    }

    #[test]
    fn exclusive_open_mode_nice_priority() {
        assert_eq!(exclusive(""), Ok(Exclusive::Mode(ExclusiveMode::Node)));
        assert_eq!(exclusive("USER"), Ok(Exclusive::Mode(ExclusiveMode::User)));
        assert_eq!(exclusive("topo"), Ok(Exclusive::Mode(ExclusiveMode::Topo)));
        assert_eq!(exclusive("mcs"), Ok(Exclusive::Mcs));
        assert!(exclusive("bogus").is_err());
        assert_eq!(open_mode("append"), Ok(OpenMode::Append));
        assert_eq!(open_mode("T"), Ok(OpenMode::Truncate));
        assert!(open_mode("x").is_err());
        assert_eq!(nice(""), Ok(100));
        assert_eq!(nice("-5"), Ok(-5));
        assert_eq!(
            nice("3000000000").unwrap_err().to_string(),
            "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)"
        );
        assert_eq!(priority("TOP"), Ok(0xffff_fffd));
        assert_eq!(priority("42"), Ok(42));
        assert_eq!(
            priority("-1").unwrap_err().to_string(),
            "sbatch: error: Priority must be >= 0"
        );
    }

    #[test]
    fn switches_segment_requeue_memory() {
        assert_eq!(switches("2@10:00"), Ok((2, Some(600))));
        assert_eq!(switches("1"), Ok((1, None)));
        assert!(switches("x").is_err());
        assert_eq!(segment("18"), Ok(18));
        assert!(segment("-1").is_err());
        assert_eq!(requeue(""), Ok(false));
        assert_eq!(requeue("expedite"), Ok(true));
        assert!(requeue("now").is_err());
        assert_eq!(memory("--mem", "2G"), Ok(2048));
        assert_eq!(
            memory("--mem-per-cpu", "lots").unwrap_err().to_string(),
            "sbatch: error: Invalid --mem-per-cpu specification"
        );
    }
}
