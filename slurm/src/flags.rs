//! Slurm's flag words as numbers and names: preemption modes
//! (`preempt_mode_string`, `preempt_mode_num`), PrivateData
//! (`private_data_string`), AccountingStorageEnforce
//! (`accounting_enforce_string`), reservation flags
//! (`reservation_flags_string`), a job's sharing (`job_share_string`),
//! CPU binding (`slurm_sprint_cpu_bind_type`) and task distribution
//! (`slurm_step_layout_type_name`), as Slurm 22.05's `src/common` names
//! them. A test compares them with Debian's libslurm.so.38 where it is
//! installed.

/// PREEMPT_MODE_OFF.
pub const PREEMPT_OFF: u16 = 0;
/// PREEMPT_MODE_SUSPEND.
pub const PREEMPT_SUSPEND: u16 = 1;
/// PREEMPT_MODE_REQUEUE.
pub const PREEMPT_REQUEUE: u16 = 2;
/// PREEMPT_MODE_CANCEL.
pub const PREEMPT_CANCEL: u16 = 8;
/// PREEMPT_MODE_WITHIN.
pub const PREEMPT_WITHIN: u16 = 1 << 14;
/// PREEMPT_MODE_GANG.
pub const PREEMPT_GANG: u16 = 1 << 15;
/// What `preempt_mode_num` answers for a value it cannot read (NO_VAL16).
pub const PREEMPT_INVALID: u16 = 0xfffe;

/// `preempt_mode_string`: `OFF`, `CANCEL`, `GANG,SUSPEND`, ... or
/// `UNKNOWN` (`GANG,UNKNOWN`) for a number no mode has.
pub fn preempt_mode_string(mode: u16) -> &'static str {
    let base = |m: u16| match m {
        PREEMPT_CANCEL => Some("CANCEL"),
        PREEMPT_REQUEUE => Some("REQUEUE"),
        PREEMPT_SUSPEND => Some("SUSPEND"),
        _ => None,
    };
    match mode {
        PREEMPT_OFF => "OFF",
        PREEMPT_GANG => "GANG",
        PREEMPT_WITHIN => "WITHIN",
        m if m & PREEMPT_GANG != 0 => match base(m & !PREEMPT_GANG) {
            Some("CANCEL") => "GANG,CANCEL",
            Some("REQUEUE") => "GANG,REQUEUE",
            Some(_) => "GANG,SUSPEND",
            None => "GANG,UNKNOWN",
        },
        m if m & PREEMPT_WITHIN != 0 => match base(m & !PREEMPT_WITHIN) {
            Some("CANCEL") => "WITHIN,CANCEL",
            Some("REQUEUE") => "WITHIN,REQUEUE",
            Some(_) => "WITHIN,SUSPEND",
            None => "WITHIN,UNKNOWN",
        },
        m => base(m).unwrap_or("UNKNOWN"),
    }
}

/// `preempt_mode_num`: a comma list of one mode (`OFF`/`CLUSTER`,
/// `CANCEL`, `REQUEUE`, `SUSPEND`/`ON`) and `GANG` or `WITHIN`, any case;
/// [`PREEMPT_INVALID`] for anything else (two modes, GANG with WITHIN, an
/// unknown word). None is 0, as Slurm's NULL.
pub fn preempt_mode_num(text: Option<&str>) -> u16 {
    let Some(text) = text else {
        return PREEMPT_OFF;
    };
    let mut mode = 0u16;
    let mut modes = 0;
    for word in text.split(',').filter(|w| !w.is_empty()) {
        let is = |w: &str| word.eq_ignore_ascii_case(w);
        if is("gang") {
            mode |= PREEMPT_GANG;
            continue;
        }
        if is("within") {
            mode |= PREEMPT_WITHIN;
            continue;
        }
        let base = if is("off") || is("cluster") {
            PREEMPT_OFF
        } else if is("cancel") {
            PREEMPT_CANCEL
        } else if is("requeue") {
            PREEMPT_REQUEUE
        } else if is("on") || is("suspend") {
            PREEMPT_SUSPEND
        } else {
            return PREEMPT_INVALID;
        };
        mode = mode.wrapping_add(base);
        modes += 1;
    }
    if modes > 1 || (mode & PREEMPT_GANG != 0 && mode & PREEMPT_WITHIN != 0) {
        return PREEMPT_INVALID;
    }
    mode
}

/// The names of the bits set in `bits`, joined by commas, in the order
/// of `table`.
fn names(bits: u64, table: &[(u64, &str)]) -> String {
    let set: Vec<&str> = (table.iter())
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    set.join(",")
}

/// PRIVATE_DATA_* bits and their names, in the order Slurm prints them.
pub const PRIVATE_DATA: [(u64, &str); 9] = [
    (1 << 5, "accounts"),
    (1 << 7, "cloud"),
    (1 << 8, "events"),
    (1 << 0, "jobs"),
    (1 << 1, "nodes"),
    (1 << 2, "partitions"),
    (1 << 6, "reservations"),
    (1 << 3, "usage"),
    (1 << 4, "users"),
];

/// `private_data_string`: `jobs,nodes` or `none`.
pub fn private_data_string(bits: u16) -> String {
    let out = names(bits.into(), &PRIVATE_DATA);
    if out.is_empty() {
        "none".to_string()
    } else {
        out
    }
}

/// ACCOUNTING_ENFORCE_* bits (`src/common/read_config.h`) and their
/// names, in the order Slurm prints them.
pub const ACCOUNTING_ENFORCE: [(u64, &str); 7] = [
    (1 << 0, "associations"),
    (1 << 1, "limits"),
    (1 << 5, "nojobs"),
    (1 << 6, "nosteps"),
    (1 << 3, "qos"),
    (1 << 4, "safe"),
    (1 << 2, "wckeys"),
];

/// `accounting_enforce_string`: `associations,limits` or `none`.
pub fn accounting_enforce_string(bits: u16) -> String {
    let out = names(bits.into(), &ACCOUNTING_ENFORCE);
    if out.is_empty() {
        "none".to_string()
    } else {
        out
    }
}

/// RESERVE_FLAG_PURGE_COMP.
pub const RESERVE_PURGE_COMP: u64 = 1 << 20;

/// RESERVE_FLAG_* bits and their names, in the order Slurm prints them
/// (PURGE_COMP is placed by [`reservation_flags_string`]).
const RESERVATION_BEFORE_PURGE: [(u64, &str); 25] = [
    (1 << 0, "MAINT"),
    (1 << 1, "NO_MAINT"),
    (1 << 25, "FLEX"),
    (1 << 14, "OVERLAP"),
    (1 << 6, "IGNORE_JOBS"),
    (1 << 35, "HOURLY"),
    (1 << 36, "NO_HOURLY"),
    (1 << 2, "DAILY"),
    (1 << 3, "NO_DAILY"),
    (1 << 21, "WEEKDAY"),
    (1 << 23, "WEEKEND"),
    (1 << 4, "WEEKLY"),
    (1 << 5, "NO_WEEKLY"),
    (1 << 15, "SPEC_NODES"),
    (1 << 19, "ALL_NODES"),
    (1 << 8, "ANY_NODES"),
    (1 << 9, "NO_ANY_NODES"),
    (1 << 10, "STATIC"),
    (1 << 11, "NO_STATIC"),
    (1 << 12, "PART_NODES"),
    (1 << 13, "NO_PART_NODES"),
    (1 << 16, "FIRST_CORES"),
    (1 << 17, "TIME_FLOAT"),
    (1 << 18, "REPLACE"),
    (1 << 30, "REPLACE_DOWN"),
];

const RESERVATION_AFTER_PURGE: [(u64, &str); 3] = [
    (1 << 29, "NO_HOLD_JOBS_AFTER_END"),
    (1 << 32, "MAGNETIC"),
    (1 << 33, "NO_MAGNETIC"),
];

/// `reservation_flags_string`: `MAINT,IGNORE_JOBS`, with
/// `PURGE_COMP=HH:MM:SS` when a purge time is set; empty for none.
pub fn reservation_flags_string(flags: u64, purge_comp_secs: u32) -> String {
    let mut parts = vec![names(flags, &RESERVATION_BEFORE_PURGE)];
    if flags & RESERVE_PURGE_COMP != 0 {
        parts.push(if purge_comp_secs > 0 {
            format!("PURGE_COMP={}", secs2time_str(purge_comp_secs.into()))
        } else {
            "PURGE_COMP".to_string()
        });
    }
    parts.push(names(flags, &RESERVATION_AFTER_PURGE));
    parts.retain(|p| !p.is_empty());
    parts.join(",")
}

/// `secs2time_str`: `HH:MM:SS` or `D-HH:MM:SS`, `UNLIMITED` for INFINITE,
/// `INVALID` below 0.
pub fn secs2time_str(secs: i64) -> String {
    if secs == i64::from(u32::MAX) {
        "UNLIMITED".to_string()
    } else if secs < 0 {
        "INVALID".to_string()
    } else {
        crate::time::duration_full(secs.unsigned_abs())
    }
}

/// `job_share_string`: a job's `shared` value.
pub fn job_share_string(shared: u16) -> &'static str {
    match shared {
        0 => "NO",
        1 => "YES",
        2 => "USER",
        3 => "MCS",
        _ => "OK",
    }
}

/// CPU_BIND_* bits and their names, in the order Slurm prints them.
const CPU_BIND: [(u32, &str); 17] = [
    (0x0001, "verbose"),
    (0x0002, "threads"),
    (0x0004, "cores"),
    (0x0008, "sockets"),
    (0x0010, "ldoms"),
    (0x0020, "none"),
    (0x0040, "rank"),
    (0x0080, "map_cpu"),
    (0x0100, "mask_cpu"),
    (0x0200, "rank_ldom"),
    (0x0400, "map_ldom"),
    (0x0800, "mask_ldom"),
    (0x2000, "one_thread"),
    (0x4000, "autobind=threads"),
    (0x1_0000, "autobind=cores"),
    (0x2_0000, "autobind=sockets"),
    (0x8_0000, "off"),
];

/// `slurm_sprint_cpu_bind_type`: `verbose,cores` or `(null type)`.
pub fn cpu_bind_string(bits: u32) -> String {
    let out = names(bits.into(), &CPU_BIND.map(|(b, n)| (u64::from(b), n)));
    if out.is_empty() {
        "(null type)".to_string()
    } else {
        out
    }
}

/// SLURM_DIST_* base distributions and their names (`layout_type_names`).
const TASK_DIST: [(u32, &str); 28] = [
    (1, "Cyclic"),
    (2, "Block"),
    (3, "arbitrary task distribution"),
    (4, "Plane"),
    (17, "CCyclic"),
    (33, "CBlock"),
    (18, "BCyclic"),
    (34, "BBlock"),
    (49, "CFCyclic"),
    (50, "BFCyclic"),
    (273, "CCyclicCyclic"),
    (529, "CCyclicBlock"),
    (785, "CCyclicFCyclic"),
    (289, "CBlockCyclic"),
    (545, "CBlockBlock"),
    // Slurm 22.05 names CYCLIC_BLOCK_CFULL so too.
    (801, "CCyclicFCyclic"),
    (305, "CFCyclicCyclic"),
    (561, "CFCyclicBlock"),
    (817, "CFCyclicFCyclic"),
    (274, "BCyclicCyclic"),
    (530, "BCyclicBlock"),
    (786, "BCyclicFCyclic"),
    (290, "BBlockCyclic"),
    (546, "BBlockBlock"),
    (802, "BBlockFCyclic"),
    (306, "BFCyclicCyclic"),
    (562, "BFCyclicBlock"),
    (818, "BFCyclicFCyclic"),
];

/// `slurm_step_layout_type_name`: `Block`, `Cyclic,Pack`, `Unknown`.
pub fn task_dist_name(dist: u32) -> String {
    let base = dist & 0xffff;
    let mut name = (TASK_DIST.iter())
        .find(|(d, _)| *d == base)
        .map_or("Unknown", |(_, n)| *n)
        .to_string();
    if dist & 0x80_0000 != 0 {
        name.push_str(",Pack");
    }
    if dist & 0x40_0000 != 0 {
        name.push_str(",NoPack");
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preempt_modes_read_and_print_as_slurm_does() {
        assert_eq!(preempt_mode_num(Some("gang,suspend")), PREEMPT_GANG | 1);
        assert_eq!(preempt_mode_string(PREEMPT_GANG | 1), "GANG,SUSPEND");
        assert_eq!(preempt_mode_num(Some("REQUEUE")), PREEMPT_REQUEUE);
        assert_eq!(preempt_mode_num(Some("cancel,requeue")), PREEMPT_INVALID);
        assert_eq!(preempt_mode_num(Some("gang,within")), PREEMPT_INVALID);
        assert_eq!(preempt_mode_num(Some("bogus")), PREEMPT_INVALID);
        assert_eq!(preempt_mode_num(None), 0);
        assert_eq!(preempt_mode_string(3), "UNKNOWN");
        assert_eq!(preempt_mode_string(PREEMPT_WITHIN | 3), "WITHIN,UNKNOWN");
    }

    #[test]
    fn flag_words_name_their_bits_in_slurms_order() {
        assert_eq!(private_data_string(0), "none");
        assert_eq!(private_data_string(1 | 32), "accounts,jobs");
        assert_eq!(accounting_enforce_string(3), "associations,limits");
        assert_eq!(
            reservation_flags_string(1 | (1 << 6) | RESERVE_PURGE_COMP | (1 << 32), 90),
            "MAINT,IGNORE_JOBS,PURGE_COMP=00:01:30,MAGNETIC"
        );
        assert_eq!(reservation_flags_string(0, 0), "");
    }

    /// Where Debian's libslurm.so.38 is installed, every word is the one
    /// it prints.
    #[test]
    fn words_agree_with_slurms_library() {
        use std::os::raw::{c_char, c_int};
        let Some(lib) = crate::slurm_lib::SlurmLib::open() else {
            return;
        };
        // SAFETY: each symbol has the type its header declares and is
        // called as that header says.
        unsafe {
            let mode_string: extern "C" fn(u16) -> *const c_char =
                lib.get(c"slurm_preempt_mode_string");
            let mode_num: extern "C" fn(*const c_char) -> u16 = lib.get(c"slurm_preempt_mode_num");
            let private: extern "C" fn(u16, *mut c_char, c_int) =
                lib.get(c"slurm_private_data_string");
            let enforce: extern "C" fn(u16, *mut c_char, c_int) =
                lib.get(c"slurm_accounting_enforce_string");
            let share: extern "C" fn(u16) -> *const c_char = lib.get(c"slurm_job_share_string");
            let cpu_bind: extern "C" fn(*mut c_char, u32) = lib.get(c"slurm_sprint_cpu_bind_type");
            let dist: extern "C" fn(u32) -> *mut c_char = lib.get(c"slurm_step_layout_type_name");
            let xfree: extern "C" fn(*mut *mut c_char) = lib.get(c"slurm_xfree");
            let text = |p| crate::slurm_lib::text(p);
            for s in 0..8u16 {
                assert_eq!(text(share(s)), job_share_string(s), "share {s}");
            }
            let mut long = [0 as c_char; 512];
            for bit in 0..21 {
                for extra in [0u32, 1, 0x8_0000] {
                    let bits = (1u32 << bit) | extra;
                    cpu_bind(long.as_mut_ptr(), bits);
                    assert_eq!(
                        text(long.as_ptr()),
                        cpu_bind_string(bits),
                        "cpu bind {bits:#x}"
                    );
                }
            }
            cpu_bind(long.as_mut_ptr(), 0);
            assert_eq!(text(long.as_ptr()), cpu_bind_string(0));
            let mut dists: Vec<u32> = TASK_DIST.iter().map(|(d, _)| *d).collect();
            dists.extend([0, 5, 8192, 2 | 0x80_0000, 1 | 0x40_0000, 0xC0_0004]);
            for d in dists {
                let mut name = dist(d);
                assert_eq!(text(name), task_dist_name(d), "dist {d}");
                xfree(&mut name);
            }
            let mut modes: Vec<u16> = (0..20).collect();
            modes.extend([
                PREEMPT_GANG,
                PREEMPT_WITHIN,
                PREEMPT_GANG | 8,
                PREEMPT_WITHIN | 2,
            ]);
            for m in modes {
                assert_eq!(text(mode_string(m)), preempt_mode_string(m), "mode {m}");
            }
            for t in [
                "off",
                "CLUSTER",
                "gang",
                "Gang,Suspend",
                "on",
                "within,cancel",
                "requeue",
                "cancel,requeue",
                "gang,within",
                "x",
                "",
                ",,",
            ] {
                let c = std::ffi::CString::new(t).unwrap();
                assert_eq!(mode_num(c.as_ptr()), preempt_mode_num(Some(t)), "{t:?}");
            }
            let mut buf = [0 as c_char; 128];
            for bits in 0..512u16 {
                private(bits, buf.as_mut_ptr(), 128);
                assert_eq!(
                    text(buf.as_ptr()),
                    private_data_string(bits),
                    "private {bits}"
                );
            }
            for bits in 0..128u16 {
                enforce(bits, buf.as_mut_ptr(), 128);
                assert_eq!(
                    text(buf.as_ptr()),
                    accounting_enforce_string(bits),
                    "enforce {bits}"
                );
            }
        }
    }
}
