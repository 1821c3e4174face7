//! The data_parser's number wrappers: `{"set", "infinite", "number"}` for
//! the numbers Slurm holds with NO_VAL (unset) and INFINITE, written as
//! slurmrestd writes them and read in every form it takes (a bare number,
//! a numeric string, `"INFINITE"`, or the wrapper itself).

use serde::Serialize;
use serde_json::{json, Number, Value};

/// A wrapped number: unset, infinite, or a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoVal {
    /// NO_VAL: not given.
    Unset,
    /// INFINITE.
    Infinite,
    /// A value.
    Number(f64),
}

impl NoVal {
    /// The value as an unsigned integer, if it is one.
    pub fn as_u64(self) -> Option<u64> {
        match self {
            NoVal::Number(n) if n >= 0.0 && n.fract() == 0.0 && n <= u64::MAX as f64 => {
                Some(n as u64)
            }
            _ => None,
        }
    }
}

/// A wrapped number as written: serialized in place, without building a
/// JSON tree (a job listing writes thirty of them per job).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wrapped {
    /// Whether a value is set.
    pub set: bool,
    /// INFINITE.
    pub infinite: bool,
    /// The value (0 when unset or infinite).
    pub number: Number,
}

impl Wrapped {
    /// A value.
    pub fn of(n: impl Into<Number>) -> Wrapped {
        Wrapped {
            set: true,
            infinite: false,
            number: n.into(),
        }
    }

    /// A floating-point value.
    pub fn float(f: f64) -> Wrapped {
        Wrapped::of(0).with_number(Number::from_f64(f).unwrap_or_else(|| Number::from(0)))
    }

    fn with_number(mut self, number: Number) -> Wrapped {
        self.number = number;
        self
    }

    /// NO_VAL.
    pub fn unset() -> Wrapped {
        Wrapped {
            set: false,
            infinite: false,
            number: Number::from(0),
        }
    }

    /// NO_VAL of a floating-point field (its number written as 0.0).
    pub fn unset_float() -> Wrapped {
        Wrapped {
            set: false,
            infinite: false,
            number: Number::from_f64(0.0).unwrap_or_else(|| Number::from(0)),
        }
    }

    /// INFINITE.
    pub fn infinite() -> Wrapped {
        Wrapped {
            set: false,
            infinite: true,
            number: Number::from(0),
        }
    }

    /// A value that may be unset.
    pub fn maybe(n: Option<u64>) -> Wrapped {
        n.map_or_else(Wrapped::unset, Wrapped::of)
    }

    /// A limit: None is INFINITE.
    pub fn limit(n: Option<u64>) -> Wrapped {
        n.map_or_else(Wrapped::infinite, Wrapped::of)
    }
}

impl From<Wrapped> for Value {
    fn from(w: Wrapped) -> Value {
        json!({"set": w.set, "infinite": w.infinite, "number": w.number})
    }
}

/// Why a wrapped number could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a number, \"INFINITE\" or {{set, infinite, number}} but got {0}")]
pub struct NotANumber(pub String);

/// The name of a JSON value's type, as slurmrestd's parser words it.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "dictionary",
    }
}

/// Reads a wrapped number in any form slurmrestd takes.
pub fn read(v: &Value) -> Result<NoVal, NotANumber> {
    match v {
        Value::Null => Ok(NoVal::Unset),
        Value::Number(n) => n
            .as_f64()
            .map(NoVal::Number)
            .ok_or_else(|| NotANumber(kind(v).to_string())),
        Value::String(s) => {
            let s = s.trim();
            if s.eq_ignore_ascii_case("INFINITE") || s.eq_ignore_ascii_case("UNLIMITED") {
                Ok(NoVal::Infinite)
            } else if s.is_empty() {
                Ok(NoVal::Unset)
            } else {
                s.parse::<f64>()
                    .map(NoVal::Number)
                    .map_err(|_| NotANumber(format!("string \"{s}\"")))
            }
        }
        Value::Object(m) => {
            let flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
            if flag("infinite") {
                return Ok(NoVal::Infinite);
            }
            // A wrapper without "set" holding a number means it is set.
            let set = m.get("set").and_then(Value::as_bool);
            match (set, m.get("number").and_then(Value::as_f64)) {
                (Some(false), _) | (None, None) => Ok(NoVal::Unset),
                (_, Some(n)) => Ok(NoVal::Number(n)),
                (Some(true), None) => Err(NotANumber("a set wrapper without a number".into())),
            }
        }
        other => Err(NotANumber(kind(other).to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_numbers_read_in_every_form() {
        assert_eq!(read(&json!(5)), Ok(NoVal::Number(5.0)));
        assert_eq!(read(&json!("7")), Ok(NoVal::Number(7.0)));
        assert_eq!(read(&json!("infinite")), Ok(NoVal::Infinite));
        assert_eq!(
            read(&json!({"set": true, "number": 9})),
            Ok(NoVal::Number(9.0))
        );
        assert_eq!(read(&json!({"number": 9})), Ok(NoVal::Number(9.0)));
        assert_eq!(read(&json!({"set": false, "number": 9})), Ok(NoVal::Unset));
        assert_eq!(read(&json!({"infinite": true})), Ok(NoVal::Infinite));
        assert!(read(&json!([1])).is_err());
        assert!(read(&json!("x")).is_err());
        assert_eq!(
            Value::from(Wrapped::of(3)),
            json!({"set": true, "infinite": false, "number": 3})
        );
        assert_eq!(
            Value::from(Wrapped::limit(None)),
            json!({"set": false, "infinite": true, "number": 0})
        );
    }
}
