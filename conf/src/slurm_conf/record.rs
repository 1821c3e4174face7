//! A record line of slurm.conf (`NodeName=...`, `PartitionName=...`) with
//! the `DEFAULT` pairs it inherits, and typed getters that turn a bad
//! value into an error naming the file, line and key.

use crate::error::{ConfError, ErrorKind, Origin};
use crate::hostlist;
use crate::line::Pair;
use crate::value;

/// One record line and the defaults in force when it was read.
pub(crate) struct Record<'a> {
    /// The line's pairs; the first is the record key and its name.
    pub pairs: &'a [Pair],
    /// The merged `...=DEFAULT` pairs (later ones win).
    pub defaults: &'a [Pair],
    pub origin: &'a Origin,
}

impl<'a> Record<'a> {
    /// The record's name (the value of its first pair).
    pub fn name(&self) -> &'a str {
        self.pairs.first().map_or("", |p| p.value.as_str())
    }

    /// The last value of `key` on the line itself.
    pub fn own(&self, key: &str) -> Option<&'a Pair> {
        self.pairs.iter().skip(1).rev().find(|p| p.is(key))
    }

    /// The last value of `key` on the line, else from the defaults.
    pub fn get(&self, key: &str) -> Option<&'a Pair> {
        self.own(key)
            .or_else(|| self.defaults.iter().rev().find(|p| p.is(key)))
    }

    pub fn invalid(&self, pair: &Pair) -> ConfError {
        ConfError::at(
            self.origin,
            ErrorKind::InvalidValue {
                key: pair.key.clone(),
                value: pair.value.clone(),
            },
        )
    }

    /// A count no larger than `max` (Slurm's uint16/uint32 keys).
    pub fn count(&self, key: &str, max: u64) -> Result<Option<u64>, ConfError> {
        self.get(key).map(|p| self.count_of(p, max)).transpose()
    }

    pub fn count_of(&self, pair: &Pair, max: u64) -> Result<u64, ConfError> {
        match value::parse_count(&pair.value) {
            Some(Some(n)) if n <= max => Ok(n),
            _ => Err(self.invalid(pair)),
        }
    }

    pub fn flag(&self, pair: &Pair) -> Result<bool, ConfError> {
        value::parse_bool(&pair.value).ok_or_else(|| self.invalid(pair))
    }

    pub fn hostlist(&self, pair: &Pair) -> Result<Vec<String>, ConfError> {
        hostlist::expand(&pair.value).map_err(|error| {
            ConfError::at(
                self.origin,
                ErrorKind::InvalidHostlist {
                    key: pair.key.clone(),
                    error,
                },
            )
        })
    }
}

pub(crate) use crate::value::comma_list;
