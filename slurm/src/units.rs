//! Numbers with a unit as Slurm prints them: `convert_num_unit` with
//! CONVERT_NUM_UNIT_EXACT, which moves to the next unit of 1024 while that
//! loses nothing but a half (`4096` MiB is `4G`, `1536` MiB `1.50G`,
//! `1000` MiB stays `1000M`).

/// The units, from none up; `?` past the largest, as Slurm's table ends.
const UNITS: [&str; 7] = ["", "K", "M", "G", "T", "P", "?"];

/// The unit a value starts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A plain count.
    None = 0,
    /// Kibi.
    Kilo = 1,
    /// Mebi: memory sizes, which Slurm keeps in MiB.
    Mega = 2,
}

/// `value` in `unit`, in the largest exact unit, or as it is with
/// `no_convert` (`--noconvert`).
pub fn convert_num_unit(value: u64, unit: Unit, no_convert: bool) -> String {
    convert_num_unit_f64(value as f64, unit, no_convert)
}

/// [`convert_num_unit`] of a fraction (Slurm converts doubles): the
/// whole part decides whether a step up is exact.
pub fn convert_num_unit_f64(value: f64, unit: Unit, no_convert: bool) -> String {
    if value as i64 == 0 {
        return "0".to_string();
    }
    let mut num = value;
    let mut at = unit as usize;
    if !no_convert {
        while num >= 1024.0 && (num as u64).is_multiple_of(512) && at + 1 < UNITS.len() {
            num /= 1024.0;
            at += 1;
        }
    }
    let suffix = UNITS[at];
    if num.fract() == 0.0 {
        format!("{}{suffix}", num as u64)
    } else {
        format!("{num:.2}{suffix}")
    }
}

/// A memory size in MiB: `8G`, `880000M`, `3437.50G`.
pub fn memory(mib: u64, no_convert: bool) -> String {
    convert_num_unit(mib, Unit::Mega, no_convert)
}

/// Memory in MiB as Slurm's TRES strings print it: whole gibibytes as
/// `8G`, anything else in MiB (`880000M`, `1536M`).
pub fn tres_memory(mib: u64) -> String {
    if mib > 0 && mib.is_multiple_of(1024) {
        format!("{}G", mib / 1024)
    } else {
        format!("{mib}M")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_take_the_largest_exact_unit() {
        assert_eq!(memory(4096, false), "4G");
        assert_eq!(memory(32_768, false), "32G");
        assert_eq!(memory(880_000, false), "880000M");
        assert_eq!(memory(1536, false), "1.50G");
        assert_eq!(memory(1000, false), "1000M");
        assert_eq!(memory(1_048_576, false), "1T");
        assert_eq!(memory(3_520_000, false), "3437.50G");
        assert_eq!(memory(63_360_000, false), "61875G");
        assert_eq!(memory(4096, true), "4096M");
        assert_eq!(memory(0, false), "0");
        assert_eq!(convert_num_unit(144, Unit::None, false), "144");
        assert_eq!(convert_num_unit(2048, Unit::None, false), "2K");
        assert_eq!(convert_num_unit(1536, Unit::None, false), "1.50K");
    }

    #[test]
    fn tres_memory_is_whole_gibibytes_or_mebibytes() {
        assert_eq!(tres_memory(8192), "8G");
        assert_eq!(tres_memory(1_048_576), "1024G");
        assert_eq!(tres_memory(1536), "1536M");
        assert_eq!(tres_memory(0), "0M");
    }
}
