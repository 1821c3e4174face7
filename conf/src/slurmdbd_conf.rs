//! slurmdbd.conf, read only for what spur's own job history uses: how long
//! job and step records are kept (`PurgeJobAfter`, `PurgeStepAfter`). A site
//! migrating from Slurm keeps its retention. Every other key belongs to
//! slurmdbd and its database and is ignored here without a warning.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{ConfError, Parsed, Warning};
use crate::file::ConfFile;
use crate::line::{self, Loader};

/// The unit of a purge period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PurgeUnit {
    /// `hours`.
    Hours,
    /// `days`.
    Days,
    /// `months` (the default when no unit is written).
    Months,
}

/// A `Purge*After` value: records older than `count` units are removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurgeAfter {
    /// How many units.
    pub count: u32,
    /// Which unit.
    pub unit: PurgeUnit,
}

impl PurgeAfter {
    /// Parses a value as slurmdbd's `slurmdb_parse_purge` does: digits, then
    /// an optional unit that may be any prefix of `hours`, `days` or
    /// `months`, in any case (`12months`, `30days`, `720h`, `6`). None when
    /// there are no digits or the unit is unknown.
    pub fn parse(text: &str) -> Option<PurgeAfter> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let count = text[..digits].parse().ok()?;
        let unit = &text[digits..];
        let is =
            |word: &str| unit.len() <= word.len() && word[..unit.len()].eq_ignore_ascii_case(unit);
        let unit = if unit.is_empty() || is("months") {
            PurgeUnit::Months
        } else if is("hours") {
            PurgeUnit::Hours
        } else if is("days") {
            PurgeUnit::Days
        } else {
            return None;
        };
        Some(PurgeAfter { count, unit })
    }
}

/// The part of slurmdbd.conf spur reads. None: keep forever (slurmdbd's
/// default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmdbdConf {
    /// `PurgeJobAfter`.
    pub purge_job_after: Option<PurgeAfter>,
    /// `PurgeStepAfter`.
    pub purge_step_after: Option<PurgeAfter>,
}

impl SlurmdbdConf {
    /// The slurmdbd.conf that sits beside `slurm_conf`, as Slurm keeps them.
    pub fn path_beside(slurm_conf: &Path) -> PathBuf {
        slurm_conf
            .parent()
            .unwrap_or(Path::new("."))
            .join("slurmdbd.conf")
    }
}

impl ConfFile for SlurmdbdConf {
    /// Parses `text`. A purge value slurmdbd would reject is a warning and
    /// leaves that history unpurged, as slurmdbd does.
    fn parse_with(
        text: &str,
        file: &Path,
        loader: &mut dyn FnMut(&Path) -> io::Result<String>,
    ) -> Result<Parsed<Self>, ConfError> {
        let loader: &mut Loader<'_> = loader;
        let mut warnings = Vec::new();
        let lines = line::read_lines(text, file, loader, &mut warnings)?;
        let mut conf = SlurmdbdConf::default();
        for l in &lines {
            for pair in &l.pairs {
                let slot = if pair.is("PurgeJobAfter") {
                    &mut conf.purge_job_after
                } else if pair.is("PurgeStepAfter") {
                    &mut conf.purge_step_after
                } else {
                    continue;
                };
                *slot = PurgeAfter::parse(&pair.value);
                if slot.is_none() {
                    warnings.push(Warning::at(
                        &l.origin,
                        format!(
                            "invalid {} \"{}\" (valid units are hours, days, or months); \
                             those records are kept",
                            pair.key, pair.value
                        ),
                    ));
                }
            }
        }
        Ok(Parsed {
            value: conf,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parsed<SlurmdbdConf> {
        SlurmdbdConf::parse(text, Path::new("/etc/slurm/slurmdbd.conf")).expect("parses")
    }

    #[test]
    fn purge_values_read_as_slurmdbd_reads_them() {
        let p = |count, unit| Some(PurgeAfter { count, unit });
        assert_eq!(PurgeAfter::parse("12months"), p(12, PurgeUnit::Months));
        assert_eq!(PurgeAfter::parse("12"), p(12, PurgeUnit::Months));
        assert_eq!(PurgeAfter::parse("30days"), p(30, PurgeUnit::Days));
        assert_eq!(PurgeAfter::parse("720hours"), p(720, PurgeUnit::Hours));
        assert_eq!(PurgeAfter::parse("720h"), p(720, PurgeUnit::Hours));
        assert_eq!(PurgeAfter::parse("2D"), p(2, PurgeUnit::Days));
        assert_eq!(PurgeAfter::parse("1m"), p(1, PurgeUnit::Months));
        assert_eq!(PurgeAfter::parse("days"), None);
        assert_eq!(PurgeAfter::parse("3weeks"), None);
        assert_eq!(PurgeAfter::parse("3hoursx"), None);
    }

    #[test]
    fn only_the_purge_keys_are_read_and_bad_values_warn() {
        let parsed = parse(
            "# slurmdbd.conf\nDbdHost=db1\nStorageType=accounting_storage/mysql\n\
             PurgeJobAfter=12months\npurgestepafter=30days\nPurgeEventAfter=1month\n",
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(
            parsed.value,
            SlurmdbdConf {
                purge_job_after: Some(PurgeAfter {
                    count: 12,
                    unit: PurgeUnit::Months
                }),
                purge_step_after: Some(PurgeAfter {
                    count: 30,
                    unit: PurgeUnit::Days
                }),
            }
        );
        let parsed = parse("PurgeJobAfter=soon\n");
        assert_eq!(parsed.value, SlurmdbdConf::default());
        assert_eq!(parsed.warnings.len(), 1);
        assert!(parsed.warnings[0].message.contains("PurgeJobAfter"));
        assert_eq!(
            SlurmdbdConf::path_beside(Path::new("/etc/slurm/slurm.conf")),
            PathBuf::from("/etc/slurm/slurmdbd.conf")
        );
    }
}
