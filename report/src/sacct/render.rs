//! sacct's text output, as Slurm's print_fields routines write it: a
//! header and a dashed line, then one line per job or step with every
//! field in its column (text cut with `+`, numbers right-aligned unless the
//! width is negative), or `-p`/`-P` delimited fields. Pure.

use std::fmt::Write as _;

use super::field::{self, Cell, Ctx, Line, Stamp};
use super::format::{Column, Layout, Parsable};

/// The report: header (unless `-n`) and `lines`.
pub fn render(lines: &[Line<'_>], layout: &Layout, ctx: &Ctx) -> String {
    let mut out = String::with_capacity(64 * (lines.len() + 2));
    if layout.header {
        header(&mut out, layout);
    }
    for line in lines {
        let count = layout.columns.len();
        for (i, col) in layout.columns.iter().enumerate() {
            let cell = field::cell(col.field.id, *line, ctx);
            put(&mut out, col, &cell, i + 1 == count, layout);
        }
        out.push('\n');
    }
    out
}

/// The delimiter after a parsable field (None: nothing, the last of -P).
fn delimiter(layout: &Layout, last: bool) -> Option<&str> {
    match layout.parsable {
        Parsable::NoEnding if last => None,
        _ => Some(layout.delimiter.as_deref().unwrap_or("|")),
    }
}

fn header(out: &mut String, layout: &Layout) {
    let count = layout.columns.len();
    if layout.parsable != Parsable::No {
        for (i, col) in layout.columns.iter().enumerate() {
            out.push_str(col.field.name);
            if let Some(d) = delimiter(layout, i + 1 == count) {
                out.push_str(d);
            }
        }
        out.push('\n');
        return;
    }
    for col in &layout.columns {
        let cut: String = col
            .field
            .name
            .chars()
            .take(col.width.unsigned_abs() as usize)
            .collect();
        aligned(out, col.width, &cut);
        out.push(' ');
    }
    out.push('\n');
    for col in &layout.columns {
        for _ in 0..col.width.unsigned_abs() {
            out.push('-');
        }
        out.push(' ');
    }
    out.push('\n');
}

/// `text` padded to the column: right-aligned for a positive width.
fn aligned(out: &mut String, width: i32, text: &str) {
    let w = width.unsigned_abs() as usize;
    if width >= 0 {
        let _ = write!(out, "{text:>w$}");
    } else {
        let _ = write!(out, "{text:<w$}");
    }
}

/// The text of a cell: Unknown/None for times, "" when unset.
fn plain(cell: &Cell) -> String {
    match cell {
        Cell::Str(v) => v.clone().unwrap_or_default(),
        Cell::Num(v) => v.map(|n| n.to_string()).unwrap_or_default(),
        Cell::Date(Stamp::Unknown) => "Unknown".into(),
        Cell::Date(Stamp::Never) => "None".into(),
        Cell::Date(Stamp::At(t)) => spur_slurm::time::timestamp(*t),
        Cell::Secs(v) => v.map(spur_slurm::time::duration_full).unwrap_or_default(),
    }
}

fn put(out: &mut String, col: &Column, cell: &Cell, last: bool, layout: &Layout) {
    if layout.parsable != Parsable::No {
        out.push_str(&plain(cell));
        if let Some(d) = delimiter(layout, last) {
            out.push_str(d);
        }
        return;
    }
    let abs = col.width.unsigned_abs() as usize;
    let text = match cell {
        // An unset value is a blank column.
        Cell::Str(None) | Cell::Num(None) | Cell::Secs(None) => String::new(),
        // Text too wide loses its end to a `+`.
        Cell::Str(Some(s)) if s.chars().count() > abs => {
            let mut cut: String = s.chars().take(abs.saturating_sub(1)).collect();
            if abs > 0 {
                cut.push('+');
            }
            cut
        }
        // Times are cut without a mark.
        Cell::Date(_) => plain(cell).chars().take(abs).collect(),
        _ => plain(cell),
    };
    aligned(out, col.width, &text);
    out.push(' ');
}
