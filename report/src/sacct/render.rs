//! sacct's text output, as Slurm's print_fields routines write it: a
//! header and a dashed line, then one line per job or step with every
//! field in its column (text cut with `+`, numbers right-aligned unless the
//! width is negative), or `-p`/`-P` delimited fields. Pure.

use super::field::{self, Cell, Ctx, Line, Stamp};
use super::format::{Column, Layout, Parsable};
use crate::print_fields::{aligned, Style};

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

/// How the layout's fields are written.
fn style(layout: &Layout) -> Style<'_> {
    Style {
        parsable: layout.parsable,
        delimiter: layout.delimiter.as_deref(),
    }
}

fn header(out: &mut String, layout: &Layout) {
    let columns = layout.columns.iter().map(|c| (c.field.name, c.width));
    style(layout).header(out, columns);
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
        if let Some(d) = style(layout).delimiter(last) {
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
