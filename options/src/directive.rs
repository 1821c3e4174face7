//! `#SBATCH` directives: the words of the `#SBATCH` (and old `#SLURM`) lines
//! before the script's first command, split as Slurm's get_argument splits
//! them (quotes, backslash escapes, `#` comments). Parsing the words is the
//! clap command's job, as for the command line.

use crate::error::{Fatal, SbatchError};

/// The words of a script's directives, and what Slurm prints on the way.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// The words, in order.
    pub words: Vec<String>,
    /// Lines for stderr (the `#SLURM` notice).
    pub notices: Vec<String>,
}

/// Collects the directives of `script`; `file` names it in errors.
pub fn extract(file: &str, script: &str) -> Result<Directives, SbatchError> {
    let mut out = Directives::default();
    for (index, line) in script.split('\n').enumerate() {
        let rest = if let Some(rest) = line.strip_prefix("#SBATCH") {
            rest
        } else if let Some(rest) = line.strip_prefix("#SLURM") {
            if out.notices.is_empty() {
                out.notices.push(
                    "sbatch: error: Change from #SLURM to #SBATCH in your script and verify \
                     the options are valid in sbatch"
                        .to_string(),
                );
            }
            rest
        } else if is_command(line) {
            break;
        } else {
            continue;
        };
        let rest = rest.trim_start();
        if is_component_separator(rest) {
            return Err(SbatchError::NotSupported("#SBATCH hetjob"));
        }
        out.words.extend(split(file, index + 1, line, rest)?);
    }
    Ok(out)
}

/// Whether a line is a command (its first non-blank character is not `#`).
fn is_command(line: &str) -> bool {
    line.trim_start().chars().next().is_some_and(|c| c != '#')
}

/// `hetjob` (or the old `packjob`) starts the next job component.
fn is_component_separator(rest: &str) -> bool {
    ["hetjob", "packjob"].iter().any(|w| {
        rest.get(..w.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(w))
            && rest[w.len()..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace)
    })
}

/// Splits the rest of a directive line into words (Slurm's get_argument,
/// applied until it finds no more). A word starting with `:` and an
/// unmatched quote are fatal, as in Slurm.
fn split(file: &str, lineno: usize, line: &str, rest: &str) -> Result<Vec<String>, SbatchError> {
    let chars: Vec<char> = rest.chars().collect();
    let mut words = Vec::new();
    let mut i = 0;
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        match chars.get(i) {
            None => break,
            Some(':') => {
                return Err(SbatchError::Fatal(Fatal::UnexpectedColon {
                    file: file.to_string(),
                    line: lineno,
                    text: line.to_string(),
                }))
            }
            Some(_) => {}
        }
        let (word, next, comment) = one_word(&chars, i).map_err(|quote| {
            SbatchError::Fatal(Fatal::UnmatchedQuote {
                file: file.to_string(),
                line: lineno,
                quote,
                text: line.to_string(),
            })
        })?;
        // get_argument returns nothing for a word with no characters (`""`
        // or a comment), which ends the line for Slurm.
        let Some(word) = word else { break };
        words.push(word);
        if comment {
            break;
        }
        i = next;
    }
    Ok(words)
}

/// One word starting at `i`: the word (None if it has no characters), where
/// the next one may start, and whether a `#` comment ended it. Err(quote)
/// for an unmatched quote.
fn one_word(chars: &[char], mut i: usize) -> Result<(Option<String>, usize, bool), char> {
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut comment = false;
    while let Some(&c) = chars.get(i) {
        if (quote.is_none() && c.is_whitespace()) || c == '\n' {
            break;
        }
        if escaped {
            escaped = false;
        } else if c == '\\' {
            i += 1;
            if chars.get(i) == Some(&' ') {
                word.get_or_insert_with(String::new).push(' ');
                i += 1;
            } else {
                escaped = true;
            }
            continue;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
                i += 1;
                continue;
            }
        } else if c == '"' || c == '\'' {
            quote = Some(c);
            i += 1;
            continue;
        } else if c == '#' {
            comment = true;
            break;
        }
        word.get_or_insert_with(String::new).push(c);
        i += 1;
    }
    match quote {
        Some(q) => Err(q),
        None => Ok((word, i, comment)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(script: &str) -> Vec<String> {
        extract("job.sh", script).unwrap().words
    }

    #[test]
    fn directives_stop_at_the_first_command() {
        let script = "#!/bin/bash\n#SBATCH -J envjob\n\n# a comment\n#SBATCH -N 2 --time=5\n\
                      echo hi\n#SBATCH -p late\n";
        assert_eq!(words(script), ["-J", "envjob", "-N", "2", "--time=5"]);
    }

    #[test]
    fn quotes_escapes_and_comments() {
        let script = "#!/bin/sh\n#SBATCH --comment=\"two words\" -J 'a b'\n\
                      #SBATCH --wrap=a\\ b -o x # trailing comment\n\
                      #SBATCH --mail-user=me@x.org#not-a-comment\n\
                      #SBATCH   --export=ALL,X=\\\"q\\\"\n";
        assert_eq!(
            words(script),
            [
                "--comment=two words",
                "-J",
                "a b",
                "--wrap=a b",
                "-o",
                "x",
                "--mail-user=me@x.org",
                "--export=ALL,X=\"q\""
            ]
        );
    }

    #[test]
    fn slurm_prefix_is_read_with_a_notice() {
        let d = extract("job.sh", "#!/bin/sh\n#SLURM -J old\n#SLURM -N 1\n").unwrap();
        assert_eq!(d.words, ["-J", "old", "-N", "1"]);
        assert_eq!(
            d.notices,
            ["sbatch: error: Change from #SLURM to #SBATCH in your script and verify the options are valid in sbatch"]
        );
    }

    #[test]
    fn malformed_lines_are_fatal() {
        let err = extract("job.sh", "#!/bin/sh\n#SBATCH -J \"open\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "sbatch: fatal: job.sh: line 2: Unmatched `\"` in [#SBATCH -J \"open]"
        );
        let err = extract("stdin", "#!/bin/sh\n#SBATCH : -N 1\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "sbatch: fatal: stdin: line 2: Unexpected `:` in [#SBATCH : -N 1]"
        );
        let err = extract("job.sh", "#!/bin/sh\n#SBATCH -N 1\n#SBATCH hetjob\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "sbatch: error: #SBATCH hetjob is not supported yet"
        );
    }
}
