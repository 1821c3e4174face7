//! Node feature expressions (`-C`/`--constraint`): `a`, `a&b`, `a|b`,
//! parentheses, and the matching OR `[a|b]` (every node shares one of the
//! alternatives). Feature counts (`a*4`) are not supported yet and are
//! rejected with a clear error.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A parsed feature expression over feature names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Constraint {
    /// A node must have this feature.
    Feature(String),
    /// A node must satisfy both.
    And(Box<Constraint>, Box<Constraint>),
    /// A node must satisfy either.
    Or(Box<Constraint>, Box<Constraint>),
    /// All nodes of the job satisfy the same one of these alternatives.
    MatchingOr(Vec<Constraint>),
}

/// A feature expression that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConstraintError {
    /// Not an expression.
    #[error("invalid feature expression {text:?} at offset {offset}")]
    Syntax {
        /// The expression.
        text: String,
        /// Where parsing stopped.
        offset: usize,
    },
    /// `name*count` is valid Slurm but not supported by spur yet.
    #[error("feature counts (name*count) are not supported")]
    CountUnsupported,
}

impl Constraint {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Constraint, ConstraintError> {
        let mut parser = Parser { text, pos: 0 };
        let expr = parser.or()?;
        if parser.pos != text.len() {
            return Err(parser.error());
        }
        Ok(expr)
    }

    /// Whether a node whose features satisfy `has` matches. A matching OR
    /// is satisfied by a node matching any alternative; placement narrows it
    /// to one alternative for the whole job with [`Constraint::alternatives`].
    pub fn matches(&self, has: &impl Fn(&str) -> bool) -> bool {
        match self {
            Constraint::Feature(name) => has(name),
            Constraint::And(a, b) => a.matches(has) && b.matches(has),
            Constraint::Or(a, b) => a.matches(has) || b.matches(has),
            Constraint::MatchingOr(alts) => alts.iter().any(|alt| alt.matches(has)),
        }
    }

    /// The expressions to try one at a time: a top-level matching OR gives
    /// one per alternative, anything else itself.
    pub fn alternatives(&self) -> Vec<&Constraint> {
        match self {
            Constraint::MatchingOr(alts) => alts.iter().collect(),
            other => vec![other],
        }
    }

    /// Every feature name the expression mentions.
    pub fn features(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Constraint::Feature(name) => out.push(name),
            Constraint::And(a, b) | Constraint::Or(a, b) => {
                a.collect(out);
                b.collect(out);
            }
            Constraint::MatchingOr(alts) => alts.iter().for_each(|a| a.collect(out)),
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self) -> ConstraintError {
        ConstraintError::Syntax {
            text: self.text.to_string(),
            offset: self.pos,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn or(&mut self) -> Result<Constraint, ConstraintError> {
        let mut left = self.and()?;
        while self.peek() == Some(b'|') {
            self.pos += 1;
            let right = self.and()?;
            left = Constraint::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Constraint, ConstraintError> {
        let mut left = self.atom()?;
        while matches!(self.peek(), Some(b'&') | Some(b',')) {
            self.pos += 1;
            let right = self.atom()?;
            left = Constraint::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn atom(&mut self) -> Result<Constraint, ConstraintError> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let inner = self.or()?;
                self.expect(b')')?;
                Ok(inner)
            }
            Some(b'[') => {
                self.pos += 1;
                let mut alts = vec![self.and()?];
                while self.peek() == Some(b'|') {
                    self.pos += 1;
                    alts.push(self.and()?);
                }
                self.expect(b']')?;
                Ok(Constraint::MatchingOr(alts))
            }
            _ => {
                let start = self.pos;
                while let Some(c) = self.peek() {
                    if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':' | b'=') {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                if self.pos == start {
                    return Err(self.error());
                }
                if self.peek() == Some(b'*') {
                    return Err(ConstraintError::CountUnsupported);
                }
                Ok(Constraint::Feature(self.text[start..self.pos].to_string()))
            }
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), ConstraintError> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has<'a>(features: &'a [&'a str]) -> impl Fn(&str) -> bool + 'a {
        move |f| features.contains(&f)
    }

    #[test]
    fn and_or_and_parentheses() {
        let c = Constraint::parse("gb200&(nvl72|ib)").unwrap();
        assert!(c.matches(&has(&["gb200", "ib"])));
        assert!(!c.matches(&has(&["gb200"])));
        assert!(!c.matches(&has(&["ib"])));
    }

    #[test]
    fn matching_or_gives_alternatives() {
        let c = Constraint::parse("[rack1|rack2]").unwrap();
        assert_eq!(c.alternatives().len(), 2);
        assert_eq!(c.features(), vec!["rack1", "rack2"]);
    }

    #[test]
    fn bad_expressions_are_errors_not_panics() {
        for bad in ["", "&a", "a|", "(a", "[a|b", "a)"] {
            assert!(Constraint::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Constraint::parse("gpu*4").unwrap_err(),
            ConstraintError::CountUnsupported
        );
    }
}
