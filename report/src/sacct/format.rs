//! sacct's output layout: the columns (`-o`/`-b`/`-l`/SACCT_FORMAT, read as
//! sacct reads them: prefixes of field names, `%width`, `ALL`), their
//! widths and the parsable modes. Which fields exist is `field.rs`'s
//! business, printing is `render.rs`'s.

use super::field::{self, FieldDef};

pub use crate::print_fields::Parsable;

/// One output column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The field.
    pub field: &'static FieldDef,
    /// Its width (negative: left-aligned).
    pub width: i32,
}

/// How the report prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// `-p` / `-P`.
    pub parsable: Parsable,
    /// `--delimiter`.
    pub delimiter: Option<String>,
    /// Whether the header prints (`-n` turns it off).
    pub header: bool,
}

/// A field list sacct refuses, with its words (the command adds
/// `fatal:` or `error:` as [`FieldsError::is_fatal`] says).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldsError {
    /// A field Slurm removed, naming its successor.
    #[error("{removed} has been removed, please use {instead}")]
    Removed {
        /// The name given.
        removed: &'static str,
        /// The field to use instead.
        instead: &'static str,
    },
    /// A name that is no field's prefix.
    #[error("Invalid field requested: \"{0}\"")]
    Invalid(String),
}

impl FieldsError {
    /// Whether sacct reports it as `fatal` (else `error`).
    pub fn is_fatal(&self) -> bool {
        matches!(self, FieldsError::Removed { .. })
    }
}

/// The output columns from `-o`/`-b`/`-l`/SACCT_FORMAT, as sacct builds
/// them: prefixes of field names, `%width`, and `ALL`.
pub fn parse_fields(spec: &str) -> Result<Vec<Column>, FieldsError> {
    let mut picked: Vec<usize> = Vec::new();
    let mut widths: Vec<i32> = field::FIELDS.iter().map(|f| f.width).collect();
    for token in spec.split(',') {
        let token = token.trim_start();
        if token.is_empty() {
            continue;
        }
        let (name, width) = match token.split_once('%') {
            Some((name, w)) => (name, Some(spur_slurm::number::strtol_or_zero(w).0 as i32)),
            None => (token, None),
        };
        // Any prefix of ALL, even an empty one, is every field.
        if name.len() <= 3 && "ALL"[..name.len()].eq_ignore_ascii_case(name) {
            for (i, w) in widths.iter_mut().enumerate() {
                if let Some(width) = width {
                    *w = width;
                }
                picked.push(i);
            }
            continue;
        }
        let Some(i) = field::FIELDS.iter().position(|f| {
            f.name.len() >= name.len() && f.name[..name.len()].eq_ignore_ascii_case(name)
        }) else {
            for (removed, instead) in [("AllocGRES", "AllocTRES"), ("ReqGRES", "ReqTRES")] {
                if name.eq_ignore_ascii_case(removed) {
                    return Err(FieldsError::Removed { removed, instead });
                }
            }
            return Err(FieldsError::Invalid(name.to_string()));
        };
        if let Some(width) = width {
            // Slurm sets the width on the table entry: every use of the
            // field gets the last one given.
            widths[i] = width;
        }
        picked.push(i);
    }
    Ok(picked
        .into_iter()
        .map(|i| Column {
            field: &field::FIELDS[i],
            width: widths[i],
        })
        .collect())
}
