//! sshare's report of the fair-share tree (`src/sshare/process.c` of
//! Slurm 22.05): its fields and their widths, its default formats (Fair
//! Tree's, Slurm's default algorithm), `--format` read as sshare reads it,
//! the tree's indented account names, and print_fields' columns or `-p`/`-P`.

use crate::print_fields::Style;
use crate::shares::ShareRow;

/// One field sshare can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `Account`.
    Account,
    /// `Cluster`.
    Cluster,
    /// `EffectvUsage`.
    EffectvUsage,
    /// `FairShare`.
    FairShare,
    /// `GrpTRESMins`.
    GrpTresMins,
    /// `GrpTRESRaw`.
    GrpTresRaw,
    /// `ID`.
    Id,
    /// `LevelFS`.
    LevelFs,
    /// `NormShares`.
    NormShares,
    /// `NormUsage`.
    NormUsage,
    /// `Partition`.
    Partition,
    /// `RawShares`.
    RawShares,
    /// `RawUsage`.
    RawUsage,
    /// `TRESRunMins`.
    TresRunMins,
    /// `User`.
    User,
}

/// Every field with its name and default width, in sshare's table order
/// (which `--format` prefixes are matched against, and `-e` lists).
pub const FIELDS: [(Field, &str, i32); 15] = [
    (Field::Account, "Account", -20),
    (Field::Cluster, "Cluster", 10),
    (Field::EffectvUsage, "EffectvUsage", 13),
    (Field::FairShare, "FairShare", 10),
    (Field::GrpTresMins, "GrpTRESMins", 30),
    (Field::GrpTresRaw, "GrpTRESRaw", 30),
    (Field::Id, "ID", 6),
    (Field::LevelFs, "LevelFS", 10),
    (Field::NormShares, "NormShares", 11),
    (Field::NormUsage, "NormUsage", 11),
    (Field::Partition, "Partition", 12),
    (Field::RawShares, "RawShares", 10),
    (Field::RawUsage, "RawUsage", 11),
    (Field::TresRunMins, "TRESRunMins", 30),
    (Field::User, "User", 10),
];

/// A column: the field, its header and its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The field.
    pub field: Field,
    /// Its header.
    pub name: &'static str,
    /// Its width (negative: left-aligned).
    pub width: i32,
}

/// sshare's default format (Fair Tree's): `-l` adds the normalized usage,
/// the level fair-share and the TRES minutes, `-m` the partition.
pub fn default_format(long: bool, partitions: bool) -> String {
    let part = if partitions { "P," } else { "" };
    if long {
        format!(
            "A,User,{part}RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,LevelFS,\
             GrpTRESMins,TRESRunMins"
        )
    } else {
        format!("A,User,{part}RawShares,NormShares,RawUsage,Eff,Fairshare")
    }
}

/// Reads a comma-separated field list as sshare does: each item a
/// case-insensitive prefix of a field's name (the first in table order),
/// with an optional `%width`. Err: sshare's complaint about an item.
pub fn parse_format(list: &str) -> Result<Vec<Column>, String> {
    let mut columns = Vec::new();
    for item in list.split(',').filter(|i| !i.is_empty()) {
        let (&(field, full, _), width) =
            crate::print_fields::format_item(item, &FIELDS, |f| f.1, |f| f.2)
                .map_err(|name| format!("sshare: error: Invalid field requested: \"{name}\"\n"))?;
        columns.push(Column {
            field,
            name: full,
            width,
        });
    }
    Ok(columns)
}

/// What else a report needs.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The columns.
    pub columns: &'a [Column],
    /// `-n`/`-h`: no header.
    pub no_header: bool,
    /// `-U`: user rows only.
    pub users_only: bool,
    /// `-p`/`-P`.
    pub style: Style<'a>,
    /// The cluster's name (`Cluster`).
    pub cluster: &'a str,
}

/// sshare's text for `rows` (the root first, then users).
pub fn render(rows: &[ShareRow], o: &Options<'_>) -> String {
    let mut out = String::new();
    if !o.no_header {
        o.style
            .header(&mut out, o.columns.iter().map(|c| (c.name, c.width)));
    }
    let count = o.columns.len();
    for row in rows {
        if o.users_only && !row.user {
            continue;
        }
        for (i, c) in o.columns.iter().enumerate() {
            let last = i + 1 == count;
            let s = &o.style;
            let w = c.width;
            match c.field {
                // A user's row names its account, one space deeper than
                // the account's own row.
                Field::Account if row.user => {
                    s.text(&mut out, w, Some(&format!(" {}", row.parent)), last)
                }
                Field::Account => s.text(&mut out, w, Some(&row.name), last),
                Field::Cluster => s.text(&mut out, w, Some(o.cluster), last),
                Field::EffectvUsage => s.double(&mut out, w, Some(row.usage_efctv), last),
                // Fair Tree shows a factor for users only.
                Field::FairShare => s.double(&mut out, w, row.fs_factor.filter(|_| row.user), last),
                // No TRES limits or per-TRES usage are kept.
                Field::GrpTresMins | Field::GrpTresRaw | Field::TresRunMins => {
                    s.text(&mut out, w, Some(""), last)
                }
                Field::Id => s.uint(&mut out, w, Some(u64::from(row.id)), last),
                // The tree is one level: no level fair-share is kept.
                Field::LevelFs => s.double(&mut out, w, None, last),
                Field::NormShares => s.double(&mut out, w, Some(row.shares_norm), last),
                Field::NormUsage => s.double(&mut out, w, Some(row.usage_norm), last),
                Field::Partition => s.text(&mut out, w, None, last),
                Field::RawShares => s.uint(&mut out, w, row.shares_raw.map(u64::from), last),
                Field::RawUsage => s.uint(&mut out, w, Some(row.usage_raw as u64), last),
                Field::User if row.user => s.text(&mut out, w, Some(&row.name), last),
                Field::User => s.text(&mut out, w, None, last),
            }
        }
        out.push('\n');
    }
    out
}

/// `sshare -e`: the field names, four to a line.
pub fn help_format() -> String {
    crate::print_fields::help_format(FIELDS.iter().map(|f| f.1), 17)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print_fields::Parsable;
    use spur_proto::{Shares, UserShare};

    fn tree() -> Vec<ShareRow> {
        let shares = Shares::of_all(
            vec![
                UserShare {
                    uid: 0,
                    name: "root".into(),
                    usage: 300.0,
                    factor: 0.25,
                },
                UserShare {
                    uid: 1001,
                    name: "alice".into(),
                    usage: 100.0,
                    factor: 0.75,
                },
            ],
            0,
        );
        crate::shares::rows(&shares, None)
    }

    fn report(format: &str, users_only: bool, parsable: Parsable) -> String {
        let columns = parse_format(format).expect("a format");
        let o = Options {
            columns: &columns,
            no_header: false,
            users_only,
            style: Style {
                parsable,
                delimiter: None,
            },
            cluster: "c1",
        };
        render(&tree(), &o)
    }

    #[test]
    fn the_default_report_is_the_root_then_each_user() {
        assert_eq!(
            report(&default_format(false, false), false, Parsable::No),
            "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare \n\
             -------------------- ---------- ---------- ----------- ----------- ------------- ---------- \n\
             root                                          1.000000         400      1.000000            \n\
             \x20root                      root          1    0.500000         300      0.750000   0.250000 \n\
             \x20root                     alice          1    0.500000         100      0.250000   0.750000 \n"
        );
    }

    #[test]
    fn formats_take_prefixes_widths_and_parsable_output() {
        assert_eq!(
            report("u%-6,id,fair", true, Parsable::NoEnding),
            "User|ID|FairShare\nroot|0|0.250000\nalice|1001|0.750000\n"
        );
        assert_eq!(
            parse_format("nosuch").unwrap_err(),
            "sshare: error: Invalid field requested: \"nosuch\"\n"
        );
        let columns = parse_format("A%30,RawU").unwrap();
        assert_eq!((columns[0].width, columns[1].name), (30, "RawUsage"));
    }

    #[test]
    fn help_format_lists_four_names_a_line() {
        let text = help_format();
        assert_eq!(text.lines().count(), 4);
        assert!(text.starts_with(
            "Account           Cluster           EffectvUsage      FairShare        \n"
        ));
    }
}
