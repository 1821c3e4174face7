//! The line grammar shared by slurm.conf, topology.conf and gres.conf, as
//! Slurm's parse_config.c reads it: `#` comments, `\` continuations and
//! escapes, `Key=Value` pairs (quoted values may hold spaces) and `Include`
//! lines. It knows no keys: each file's module gives them their meaning.

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{ConfError, ErrorKind, Origin, Warning};

/// Reads an included file; tests pass in-memory text, `load` reads disk.
pub type Loader<'a> = dyn FnMut(&Path) -> io::Result<String> + 'a;

/// How deep `Include` may nest before it is taken for a loop.
const MAX_INCLUDE_DEPTH: usize = 16;

/// One `Key=Value` pair; the key keeps the case it was written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pair {
    pub key: String,
    pub value: String,
}

impl Pair {
    /// Whether the key is `name`, ignoring case as Slurm does.
    pub fn is(&self, name: &str) -> bool {
        self.key.eq_ignore_ascii_case(name)
    }
}

/// One logical line (continuations joined) that holds at least one pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub origin: Origin,
    pub pairs: Vec<Pair>,
}

/// Reads `text` (the contents of `file`) into lines, following `Include`
/// through `loader`. Relative include paths are resolved against the
/// directory of `file`, the top-level file, as Slurm's
/// `get_extra_conf_path` does (not against the including file).
pub(crate) fn read_lines(
    text: &str,
    file: &Path,
    loader: &mut Loader<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<Line>, ConfError> {
    read_lines_skipping(text, file, loader, warnings, &[])
}

/// As [`read_lines`], leaving out unparsed every line whose first key is
/// in `skip` (ignoring case): a reader that wants none of those records
/// does not pay for them.
pub(crate) fn read_lines_skipping(
    text: &str,
    file: &Path,
    loader: &mut Loader<'_>,
    warnings: &mut Vec<Warning>,
    skip: &[&str],
) -> Result<Vec<Line>, ConfError> {
    let mut reader = Reader {
        skip,
        loader,
        base_dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
        stack: vec![file.to_path_buf()],
        cluster_name: None,
        warnings,
        lines: Vec::new(),
    };
    reader.read_text(text, file)?;
    Ok(reader.lines)
}

struct Reader<'r, 'l> {
    /// First keys whose lines are left out.
    skip: &'r [&'r str],
    loader: &'r mut Loader<'l>,
    base_dir: PathBuf,
    stack: Vec<PathBuf>,
    /// `%c` in include paths is the cluster name, lowercased.
    cluster_name: Option<String>,
    warnings: &'r mut Vec<Warning>,
    lines: Vec<Line>,
}

impl Reader<'_, '_> {
    fn read_text(&mut self, text: &str, file: &Path) -> Result<(), ConfError> {
        for (number, logical) in logical_lines(text) {
            let line = strip_escapes(&logical);
            if line.trim_start_matches(is_c_space).is_empty() {
                continue;
            }
            let origin = Origin::new(file, number);
            if let Some(rest) = include_directive(&line) {
                self.include(rest, &origin)?;
                continue;
            }
            if self.skips(&line) {
                continue;
            }
            let pairs = parse_pairs(&line).map_err(|kind| ConfError::at(&origin, kind))?;
            if pairs.is_empty() {
                continue;
            }
            if let Some(p) = pairs.iter().rev().find(|p| p.is("ClusterName")) {
                self.cluster_name = Some(p.value.to_ascii_lowercase());
            }
            self.lines.push(Line { origin, pairs });
        }
        Ok(())
    }

    /// Whether `line` starts with a key whose lines are left out.
    fn skips(&self, line: &str) -> bool {
        if self.skip.is_empty() {
            return false;
        }
        let line = line.trim_start_matches(is_c_space);
        let key = &line[..line.find(|c| !is_key_char(c)).unwrap_or(line.len())];
        self.skip.iter().any(|k| k.eq_ignore_ascii_case(key))
    }

    fn include(&mut self, rest: &str, origin: &Origin) -> Result<(), ConfError> {
        let rest = rest.trim_start_matches(is_c_space);
        let end = rest.find(is_c_space).unwrap_or(rest.len());
        let (name, leftover) = rest.split_at(end);
        let invalid = || {
            ConfError::at(
                origin,
                ErrorKind::InvalidValue {
                    key: "Include".into(),
                    value: name.to_string(),
                },
            )
        };
        if name.is_empty() {
            return Err(invalid());
        }
        let name = if name.contains("%c") {
            let cluster = self.cluster_name.clone().ok_or_else(invalid)?;
            name.replace("%c", &cluster)
        } else {
            name.to_string()
        };
        if name.contains('*') {
            self.warnings.push(Warning::at(
                origin,
                format!("glob includes are not supported; {name} skipped"),
            ));
        } else {
            let path = if Path::new(&name).is_absolute() {
                PathBuf::from(&name)
            } else {
                self.base_dir.join(&name)
            };
            if self.stack.contains(&path) || self.stack.len() > MAX_INCLUDE_DEPTH {
                return Err(ConfError::at(origin, ErrorKind::IncludeLoop { path }));
            }
            let text = (self.loader)(&path).map_err(|source| ConfError::IncludeRead {
                origin: origin.clone(),
                path: path.clone(),
                source,
            })?;
            self.stack.push(path.clone());
            self.read_text(&text, &path)?;
            self.stack.pop();
        }
        let pairs = parse_pairs(leftover).map_err(|kind| ConfError::at(origin, kind))?;
        if !pairs.is_empty() {
            self.lines.push(Line {
                origin: origin.clone(),
                pairs,
            });
        }
        Ok(())
    }
}

/// C's `isspace` in the C locale.
pub(crate) fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// Joins continued lines and strips comments (Slurm's `_get_next_line`);
/// yields each logical line with the number of its first physical line.
fn logical_lines(text: &str) -> Vec<(usize, Cow<'_, str>)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let stripped = strip_comment(raw);
        let (content, continued) = strip_continuation(stripped);
        match (pending.as_mut(), continued) {
            // A line on its own is borrowed from the text.
            (None, false) => out.push((i + 1, Cow::Borrowed(content))),
            (None, true) => pending = Some((i + 1, content.to_string())),
            (Some(entry), _) => {
                entry.1.push_str(content);
                if !continued {
                    out.extend(pending.take().map(|(n, l)| (n, Cow::Owned(l))));
                }
            }
        }
    }
    out.extend(pending.map(|(n, l)| (n, Cow::Owned(l))));
    out
}

/// Cuts the line at the first `#` not escaped by an odd run of `\`.
fn strip_comment(line: &str) -> &str {
    let mut backslashes = 0usize;
    for (i, c) in line.char_indices() {
        match c {
            '#' if backslashes.is_multiple_of(2) => return &line[..i],
            '\\' => backslashes += 1,
            _ => backslashes = 0,
        }
    }
    line
}

/// An odd run of `\` at the end (trailing whitespace allowed after it)
/// continues the line: the last `\` and what follows it are dropped.
fn strip_continuation(line: &str) -> (&str, bool) {
    let body = line.trim_end_matches(is_c_space);
    let run = body.len() - body.trim_end_matches('\\').len();
    if run % 2 == 1 {
        (&body[..body.len() - 1], true)
    } else {
        (line, false)
    }
}

/// Drops each `\` and keeps the character after it (`\#` -> `#`,
/// `\\` -> `\`), as Slurm's `_strip_escapes` does.
fn strip_escapes(line: &str) -> Cow<'_, str> {
    if !line.contains('\\') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Returns the text after `Include` when the line is an include directive.
fn include_directive(line: &str) -> Option<&str> {
    let line = line.trim_start_matches(is_c_space);
    let head = line.get(..7)?;
    let rest = &line[7..];
    (head.eq_ignore_ascii_case("include") && rest.starts_with(is_c_space)).then_some(rest)
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Splits a line into pairs with Slurm's key/value pattern:
/// `key [op]= "quoted value"` or `key [op]= value-without-spaces`.
pub(crate) fn parse_pairs(line: &str) -> Result<Vec<Pair>, ErrorKind> {
    let mut pairs = Vec::new();
    let mut rest = line.trim_start_matches(is_c_space);
    while !rest.is_empty() {
        let syntax = || ErrorKind::Syntax {
            text: rest.trim_end_matches(is_c_space).to_string(),
        };
        let key_len = rest.find(|c| !is_key_char(c)).unwrap_or(rest.len());
        if key_len == 0 {
            return Err(syntax());
        }
        let key = &rest[..key_len];
        let mut after = rest[key_len..].trim_start_matches(is_c_space);
        // Slurm also accepts `+=`, `-=`, `*=` and `/=`; they mean `=` here.
        if let Some(op) = after.strip_prefix(['+', '-', '*', '/']) {
            if op.starts_with('=') {
                after = op;
            }
        }
        let Some(after_eq) = after.strip_prefix('=') else {
            return Err(syntax());
        };
        let after_eq = after_eq.trim_start_matches(is_c_space);
        let (value, remaining) = split_value(after_eq);
        pairs.push(Pair {
            key: key.to_string(),
            value: value.to_string(),
        });
        rest = remaining.trim_start_matches(is_c_space);
    }
    Ok(pairs)
}

/// A quoted value (quotes removed) when its closing quote ends the word,
/// else the run of non-space characters.
fn split_value(s: &str) -> (&str, &str) {
    if let Some(inner) = s.strip_prefix('"') {
        if let Some(close) = inner.find('"') {
            let after = &inner[close + 1..];
            if after.is_empty() || after.starts_with(is_c_space) {
                return (&inner[..close], after);
            }
        }
    }
    let end = s.find(is_c_space).unwrap_or(s.len());
    s.split_at(end)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn pairs(line: &str) -> Vec<(String, String)> {
        parse_pairs(line)
            .unwrap()
            .into_iter()
            .map(|p| (p.key, p.value))
            .collect()
    }

    fn kv(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn read(files: &[(&str, &str)]) -> Result<(Vec<Line>, Vec<Warning>), ConfError> {
        let map: BTreeMap<PathBuf, String> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        let mut loader = |p: &Path| {
            map.get(p)
                .cloned()
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
        };
        let mut warnings = Vec::new();
        let (main, text) = files[0];
        let lines = read_lines(text, Path::new(main), &mut loader, &mut warnings)?;
        Ok((lines, warnings))
    }

    #[test]
    fn several_pairs_quotes_and_spaces_around_equals() {
        assert_eq!(
            pairs("NodeName=a CPUs = 4 Reason=\"under repair\" Feature=x"),
            kv(&[
                ("NodeName", "a"),
                ("CPUs", "4"),
                ("Reason", "under repair"),
                ("Feature", "x")
            ])
        );
        assert_eq!(pairs("A=\"x\"y"), kv(&[("A", "\"x\"y")]));
        assert_eq!(pairs("Weight+=3"), kv(&[("Weight", "3")]));
        assert_eq!(pairs("Key="), kv(&[("Key", "")]));
    }

    #[test]
    fn text_that_is_not_key_value_is_an_error() {
        assert_eq!(
            parse_pairs("ClusterName=a junk"),
            Err(ErrorKind::Syntax {
                text: "junk".into()
            })
        );
        assert!(parse_pairs("=x").is_err());
    }

    #[test]
    fn comments_continuations_and_escapes() {
        let text = "# header\nA=1 # trailing\nB=2 \\\n  C=3\nD=x\\#y\n\nE=\"a b\" F=\\\\\n";
        let (lines, _) = read(&[("/etc/slurm/slurm.conf", text)]).unwrap();
        let got: Vec<(usize, Vec<(String, String)>)> = lines
            .into_iter()
            .map(|l| {
                (
                    l.origin.line,
                    l.pairs.into_iter().map(|p| (p.key, p.value)).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (2, kv(&[("A", "1")])),
                (3, kv(&[("B", "2"), ("C", "3")])),
                (5, kv(&[("D", "x#y")])),
                (7, kv(&[("E", "a b"), ("F", "\\")])),
            ]
        );
    }

    #[test]
    fn include_is_relative_to_the_top_level_directory() {
        let (lines, _) = read(&[
            (
                "/etc/slurm/slurm.conf",
                "ClusterName=Anchor\nInclude nodes.conf\ninclude /abs/%c.conf\nZ=9\n",
            ),
            ("/etc/slurm/nodes.conf", "NodeName=a\n"),
            ("/abs/anchor.conf", "\nPartitionName=p\n"),
        ])
        .unwrap();
        let got: Vec<String> = lines.iter().map(|l| l.origin.to_string()).collect();
        assert_eq!(
            got,
            [
                "/etc/slurm/slurm.conf:1",
                "/etc/slurm/nodes.conf:1",
                "/abs/anchor.conf:2",
                "/etc/slurm/slurm.conf:4"
            ]
        );
    }

    #[test]
    fn include_errors_name_the_line() {
        let err = read(&[("/c/slurm.conf", "A=1\nInclude missing.conf\n")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/c/slurm.conf:2: cannot read included file /c/missing.conf"
        );
        let err = read(&[
            ("/c/slurm.conf", "Include a.conf\n"),
            ("/c/a.conf", "Include slurm.conf\n"),
        ])
        .unwrap_err();
        assert!(matches!(err.kind(), Some(ErrorKind::IncludeLoop { .. })));
    }

    #[test]
    fn glob_includes_warn() {
        let (lines, warnings) = read(&[("/c/slurm.conf", "Include conf.d/*.conf\nA=1\n")]).unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, 1);
    }
}
