//! Long listings sent while they are written: a document whose first or
//! last key holds thousands of records (GET jobs at 10,000 jobs is some
//! 80 MB of pretty JSON) goes out a megabyte at a time, each record
//! written through serde as it is reached, with a formatter that starts
//! at the records' depth. The bytes are exactly what serializing the whole
//! document at once gives; the whole is never in memory.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};

use crate::reply::Style;

/// serde_json's pretty layout (two spaces a level) starting `level`
/// levels deep, so that a piece serialized apart fits its place.
struct Indented {
    level: usize,
    has_value: bool,
}

fn indent<W: ?Sized + Write>(w: &mut W, level: usize) -> io::Result<()> {
    for _ in 0..level {
        w.write_all(b"  ")?;
    }
    Ok(())
}

impl Formatter for Indented {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.level)?;
        }
        w.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.level)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.level)?;
        }
        w.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.level)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Bytes gathered before a piece of the answer is sent.
const PIECE: usize = 1 << 20;

/// Writes one record as it appears inside the list (`first` is the list's
/// first).
fn item<T: Serialize>(style: Style, out: &mut Vec<u8>, record: &T, first: bool) -> io::Result<()> {
    if style.pretty {
        out.write_all(if first { b"\n    " } else { b",\n    " })?;
        let f = Indented {
            level: 2,
            has_value: false,
        };
        record.serialize(&mut serde_json::Serializer::with_formatter(&mut *out, f))?;
    } else {
        if !first {
            out.write_all(b",")?;
        }
        record.serialize(&mut serde_json::Serializer::with_formatter(
            &mut *out,
            CompactFormatter,
        ))?;
    }
    Ok(())
}

/// Where the list is among the document's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The first key (the data_parser versions' answers).
    First,
    /// The last key (v0.0.38's answers).
    Last,
}

/// `head` (whose first or last key is `key`, holding an empty list) cut
/// around that list: what comes up to its `[`, and what follows its `]`.
fn split(
    style: Style,
    head: &impl Serialize,
    key: &str,
    place: Place,
) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let rest = if style.pretty {
        serde_json::to_vec_pretty(head)?
    } else {
        serde_json::to_vec(head)?
    };
    // The empty list as the whole document writes it, at the top level.
    let empty = match (style.pretty, place) {
        (true, Place::First) => format!("{{\n  \"{key}\": []"),
        (true, Place::Last) => format!("\n  \"{key}\": []\n}}"),
        (false, Place::First) => format!("{{\"{key}\":[]"),
        (false, Place::Last) => format!("\"{key}\":[]}}"),
    };
    let at = match place {
        Place::First => rest.starts_with(empty.as_bytes()).then_some(0),
        Place::Last => rest
            .ends_with(empty.as_bytes())
            .then(|| rest.len() - empty.len()),
    };
    let Some(at) = at else {
        return Err(io::Error::other(format!(
            "the document's {place:?} key is not an empty {key:?}"
        )));
    };
    let open = at + empty.find('[').expect("the pattern holds a list");
    Ok((rest[..=open].to_vec(), rest[open + 2..].to_vec()))
}

/// The records of a listing, written one by one.
pub trait Records: Send + 'static {
    /// How many there are.
    fn count(&self) -> usize;
    /// Writes record `i` through `w`.
    fn write(&self, i: usize, w: &mut Writer<'_>) -> io::Result<()>;
}

/// Where a record goes.
pub struct Writer<'a> {
    style: Style,
    out: &'a mut Vec<u8>,
    first: bool,
}

impl Writer<'_> {
    /// Writes the record.
    pub fn record<T: Serialize>(&mut self, r: &T) -> io::Result<()> {
        item(self.style, self.out, r, self.first)
    }
}

/// Writes the document piece by piece, handing each piece of about a
/// megabyte to `send` (false from `send` stops: the client is gone).
pub fn write(
    style: Style,
    head: &impl Serialize,
    key: &str,
    place: Place,
    records: &impl Records,
    mut send: impl FnMut(Vec<u8>) -> bool,
) -> io::Result<()> {
    let (before, after) = split(style, head, key, place)?;
    let count = records.count();
    let mut out = before;
    for i in 0..count {
        let mut w = Writer {
            style,
            out: &mut out,
            first: i == 0,
        };
        records.write(i, &mut w)?;
        if out.len() >= PIECE {
            let piece = std::mem::replace(&mut out, Vec::with_capacity(PIECE + PIECE / 4));
            if !send(piece) {
                return Ok(());
            }
        }
    }
    if count > 0 && style.pretty {
        out.write_all(b"\n  ]")?;
    } else {
        out.write_all(b"]")?;
    }
    out.extend_from_slice(&after);
    send(out);
    Ok(())
}

/// The document as an HTTP body sent while it is written (off the async
/// threads, a megabyte at a time), so that a long listing is on the wire
/// while its end is still being written and never whole in memory.
pub fn body<H: Serialize + Send + 'static>(
    style: Style,
    head: H,
    key: &'static str,
    place: Place,
    records: impl Records,
) -> axum::body::Body {
    let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(2);
    tokio::task::spawn_blocking(move || {
        let sent = write(style, &head, key, place, &records, |piece| {
            tx.blocking_send(piece).is_ok()
        });
        if let Err(e) = sent {
            tracing::error!(error = %e, "cannot write a listing");
        }
    });
    let pieces = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|piece| (Ok::<_, io::Error>(bytes::Bytes::from(piece)), rx))
    });
    axum::body::Body::from_stream(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize)]
    struct Doc<'a, T> {
        jobs: &'a [T],
        meta: serde_json::Value,
        errors: [(); 0],
    }

    #[derive(Serialize)]
    struct Last<'a, T> {
        meta: serde_json::Value,
        errors: [(); 0],
        jobs: &'a [T],
    }

    struct Values(Vec<serde_json::Value>);

    impl Records for Values {
        fn count(&self) -> usize {
            self.0.len()
        }
        fn write(&self, i: usize, w: &mut Writer<'_>) -> io::Result<()> {
            w.record(&self.0[i])
        }
    }

    /// The pieces `write` hands out, joined.
    fn whole_of(
        style: Style,
        head: &impl Serialize,
        place: Place,
        items: &[serde_json::Value],
    ) -> Vec<u8> {
        let mut all = Vec::new();
        let records = Values(items.to_vec());
        write(style, head, "jobs", place, &records, |p| {
            all.extend_from_slice(&p);
            true
        })
        .expect("writes");
        all
    }

    #[test]
    fn pieces_written_apart_are_the_whole_document_byte_for_byte() {
        let items: Vec<serde_json::Value> = (0..9000)
            .map(|i| {
                json!({"id": i, "name": format!("job \"{i}\"\n"), "nested": {"a": [1, {"b": []}], "c": {}},
                       "list": [], "obj": {}})
            })
            .collect();
        for pretty in [true, false] {
            let style = Style { pretty };
            for n in [0, 1, 2, 513, 2000, 9000] {
                let whole = Doc {
                    jobs: &items[..n],
                    meta: json!({"plugin": {"name": "x"}}),
                    errors: [],
                };
                let want = if pretty {
                    serde_json::to_vec_pretty(&whole).expect("serializes")
                } else {
                    serde_json::to_vec(&whole).expect("serializes")
                };
                let head = Doc::<serde_json::Value> {
                    jobs: &[],
                    meta: json!({"plugin": {"name": "x"}}),
                    errors: [],
                };
                let got = whole_of(style, &head, Place::First, &items[..n]);
                assert_eq!(
                    String::from_utf8(got).expect("utf-8"),
                    String::from_utf8(want).expect("utf-8"),
                    "pretty={pretty} n={n}"
                );
                let whole = Last {
                    meta: json!({"plugin": {"name": "x"}}),
                    errors: [],
                    jobs: &items[..n],
                };
                let want = if pretty {
                    serde_json::to_vec_pretty(&whole).expect("serializes")
                } else {
                    serde_json::to_vec(&whole).expect("serializes")
                };
                let head = Last::<serde_json::Value> {
                    meta: json!({"plugin": {"name": "x"}}),
                    errors: [],
                    jobs: &[],
                };
                let got = whole_of(style, &head, Place::Last, &items[..n]);
                assert_eq!(
                    String::from_utf8(got).expect("utf-8"),
                    String::from_utf8(want).expect("utf-8"),
                    "last, pretty={pretty} n={n}"
                );
            }
        }
    }
}
