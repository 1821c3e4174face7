//! squeue's output formats: the `-o` %-code and `-O` field-name
//! specifications parsed into a [`Format`], with Slurm's defaults and its
//! rules for widths, justification, prefixes, suffixes and unknown codes.
//! Computing the cells is `field.rs`'s business, printing is `render.rs`'s.

use spur_proto::{JobField, JobFields};

use super::field::Field;

/// `squeue`'s default format.
pub const DEFAULT_FORMAT: &str = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
/// `squeue -l`.
pub const LONG_FORMAT: &str = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
/// `squeue --start`.
pub const START_FORMAT: &str = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
/// `squeue --only-job-state`.
pub const ONLY_STATE_FORMAT: &str = "%.18i %.2t";
/// `squeue --steps`.
pub const STEP_FORMAT: &str = "%.15i %.8j %.9P %.8u %.9M %N";

/// The fields of one kind of report (jobs, or steps with `-s`): how `-o`
/// codes and `-O` names map to them.
pub trait Column: Sized {
    /// The field of a `-o` code.
    fn from_code(code: char) -> Option<Self>;
    /// The field of an `-O` name.
    fn from_name(name: &str) -> Option<Self>;
    /// The column an unknown code or name leaves (it prints nothing).
    fn invalid() -> Self;
    /// The report's word in Slurm's complaint (`job`, `job step`).
    const KIND: &'static str;
}

impl Column for Field {
    fn from_code(code: char) -> Option<Field> {
        Field::from_code(code)
    }
    fn from_name(name: &str) -> Option<Field> {
        Field::from_name(name)
    }
    fn invalid() -> Field {
        Field::Invalid
    }
    const KIND: &'static str = "job";
}

/// One printed column, or text printed as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<F = Field> {
    /// Text before the first `%` of a `-o` format.
    Text(String),
    /// A field.
    Field(Spec<F>),
}

impl Format {
    /// The fields of a job the columns read (with `-r`, also those that
    /// split a pending array into its tasks).
    pub fn reads(&self) -> JobFields {
        let mut fields = JobFields::NONE;
        for item in &self.items {
            if let Item::Field(spec) = item {
                fields = fields | spec.field.reads();
            }
        }
        if self.expand_arrays {
            fields = fields
                | JobFields::of(&[
                    JobField::JobId,
                    JobField::ArrayJobId,
                    JobField::ArrayTaskId,
                    JobField::ArrayTaskStr,
                ]);
        }
        fields
    }
}

/// A field with its layout: `%.10l` is right-justified, width 10.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec<F = Field> {
    /// What is printed.
    pub field: F,
    /// The column width; 0 prints the value as it is.
    pub width: usize,
    /// `.`: right-justify.
    pub right: bool,
    /// Text printed after the column (for an unknown code, the code itself).
    pub suffix: String,
}

/// A parsed output format plus the switches that change how rows print.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Format {
    /// The columns, in order.
    pub items: Vec<Item>,
    /// `-h`: no header line.
    pub no_header: bool,
    /// `-r`: one line per task of a pending job array.
    pub expand_arrays: bool,
    /// `--noconvert`: memory as given, not in the largest exact unit.
    pub no_convert: bool,
    /// The cluster's name, for the `Cluster` field.
    pub cluster: Option<String>,
}

/// The result of parsing a format: the format, and the error lines Slurm
/// prints on stderr for unknown fields (it goes on regardless).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<F = Field> {
    /// The items.
    pub items: Vec<Item<F>>,
    /// `Invalid job format specification: X`, once per unknown field.
    pub errors: Vec<String>,
}

/// Parses an `-o` format of the job report.
pub fn parse_format(format: &str) -> Parsed {
    parse_codes(format)
}

/// Parses an `-O` format of the job report.
pub fn parse_format_long(format: &str) -> Parsed {
    parse_names(format)
}

/// Parses an `-o` format (`%[.][size]code` items; text before the first `%`
/// is a prefix; `%all` is every code separated by `|`).
pub fn parse_codes<F: Column>(format: &str) -> Parsed<F> {
    let mut out = Parsed {
        items: Vec::new(),
        errors: Vec::new(),
    };
    let all = format.eq_ignore_ascii_case("%all");
    let expanded;
    let body = if all {
        let codes: Vec<String> = ('a'..='z')
            .chain('A'..='Z')
            .map(|c| format!("%{c}"))
            .collect();
        expanded = codes.join("|");
        expanded.as_str()
    } else {
        let (prefix, _) = spur_slurm::print::code_tokens(format);
        if !prefix.is_empty() {
            out.items.push(Item::Text(prefix.to_string()));
        }
        &format[prefix.len()..]
    };
    for token in spur_slurm::print::code_tokens(body).1 {
        let spur_slurm::print::CodeSpec {
            right,
            width,
            code,
            suffix,
        } = spur_slurm::print::CodeSpec::parse(token);
        match code.and_then(F::from_code) {
            Some(field) => out.items.push(Item::Field(Spec {
                field,
                width,
                right,
                suffix: suffix.to_string(),
            })),
            None if all => {}
            None => {
                out.items.push(Item::Field(Spec {
                    field: F::invalid(),
                    width,
                    right,
                    suffix: format!("%{token}"),
                }));
                let c = code.map(String::from).unwrap_or_default();
                out.errors
                    .push(format!("Invalid {} format specification: {c}", F::KIND));
            }
        }
    }
    out
}

/// Parses an `-O` format: comma separated `name[:[.][size][suffix]]`; a
/// field without a size is 20 wide.
pub fn parse_names<F: Column>(format: &str) -> Parsed<F> {
    let mut out = Parsed {
        items: Vec::new(),
        errors: Vec::new(),
    };
    for token in format.split(',').filter(|t| !t.is_empty()) {
        let spur_slurm::print::NameSpec {
            name,
            right,
            width,
            suffix,
        } = spur_slurm::print::NameSpec::parse(token);
        let suffix = suffix.to_string();
        let field = F::from_name(name).unwrap_or_else(|| {
            out.errors
                .push(format!("Invalid {} format specification: {name}", F::KIND));
            F::invalid()
        });
        out.items.push(Item::Field(Spec {
            field,
            width,
            right,
            suffix,
        }));
    }
    out
}

/// The `--helpformat` listing: each %-code and its field name.
pub fn help_format() -> String {
    let mut out = String::new();
    for (i, (code, name)) in Field::codes().iter().enumerate() {
        out.push_str(&format!("%{code:<2}{name:<20}"));
        out.push(if i % 4 == 3 { '\n' } else { ' ' });
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The `--helpFormat` listing: every -O field name.
pub fn help_format_long() -> String {
    let mut out = String::new();
    for (i, name) in Field::names().iter().enumerate() {
        out.push_str(&format!("{name:<20}"));
        out.push(if i % 4 == 3 { '\n' } else { ' ' });
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(field: Field, width: usize, right: bool, suffix: &str) -> Item {
        Item::Field(Spec {
            field,
            width,
            right,
            suffix: suffix.to_string(),
        })
    }

    #[test]
    fn percent_codes_carry_justification_width_and_suffix() {
        let p = parse_format("%.10i %9P|%j");
        assert!(p.errors.is_empty());
        assert_eq!(
            p.items,
            vec![
                spec(Field::JobArrayId, 10, true, " "),
                spec(Field::Partition, 9, false, "|"),
                spec(Field::Name, 0, false, ""),
            ]
        );
    }

    #[test]
    fn text_before_the_first_code_is_a_prefix() {
        let p = parse_format("id=%i");
        assert_eq!(
            p.items,
            vec![
                Item::Text("id=".into()),
                spec(Field::JobArrayId, 0, false, "")
            ]
        );
        let p = parse_format("no codes");
        assert_eq!(p.items, vec![Item::Text("no codes".into())]);
    }

    #[test]
    fn unknown_codes_print_themselves_and_are_reported() {
        let p = parse_format("%i %.5! x");
        assert_eq!(p.items[1], spec(Field::Invalid, 5, true, "%.5! x"));
        assert_eq!(p.errors, vec!["Invalid job format specification: !"]);
    }

    #[test]
    fn consecutive_percent_signs_collapse_like_strtok() {
        let p = parse_format("%%i");
        assert_eq!(p.items, vec![spec(Field::JobArrayId, 0, false, "")]);
    }

    #[test]
    fn all_is_every_known_code() {
        let p = parse_format("%all");
        assert!(p.errors.is_empty());
        assert_eq!(p.items.len(), 52);
        assert_eq!(p.items[0], spec(Field::Account, 0, false, "|"));
    }

    #[test]
    fn long_names_take_size_justification_and_suffix() {
        let p = parse_format_long("JobID,Name:20,state:.8|,reasonlist:0,TresPerNode");
        assert_eq!(
            p.errors,
            vec!["Invalid job format specification: TresPerNode"]
        );
        assert_eq!(
            p.items,
            vec![
                spec(Field::JobId, 20, false, ""),
                spec(Field::Name, 20, false, ""),
                spec(Field::State, 8, true, "|"),
                spec(Field::ReasonList, 0, false, ""),
                spec(Field::Invalid, 20, false, ""),
            ]
        );
    }

    #[test]
    fn numtasks_matches_by_prefix_as_slurm_does() {
        let p = parse_format_long("NumTasksAnything");
        assert!(p.errors.is_empty());
        assert_eq!(p.items, vec![spec(Field::NumTasks, 20, false, "")]);
    }
}
