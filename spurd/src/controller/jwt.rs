//! JSON Web Tokens as Slurm's auth/jwt plugin knows them (slurm.conf
//! `AuthAltTypes=auth/jwt`): the keys named by `AuthAltParameters`
//! (`jwt_key=` for HS256, by default `jwt_hs256.key` in StateSaveLocation;
//! `jwks=` for RS256 keys chosen by `kid`), checking a token (signature,
//! `exp`, the user in `sun` or `username`), and making one for
//! `scontrol token` (HS256, claims `iat`, `exp`, `sun`). Tokens with any
//! other algorithm, `none` included, are refused.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use jsonwebtoken::jwk::{JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use spur_conf::SlurmConf;

/// A token's lifetime when `scontrol token` names none
/// (`DEFAULT_AUTH_TOKEN_LIFESPAN`).
pub const DEFAULT_LIFESPAN: u32 = 1800;

/// Why the keys could not be loaded (the controller does not start).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key file could not be read.
    #[error("cannot read the {what} file {path}")]
    Read {
        /// `jwt_key`, `jwks` or `cluster key`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The key file's mode lets other users at it.
    #[error("the {what} file {path} has mode {mode:04o}, which {problem}; chmod it to 0600")]
    Exposed {
        /// `jwt_key`, `jwks` or `cluster key`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
        /// What the mode allows that it must not.
        problem: &'static str,
    },
    /// The jwks file is not a JSON Web Key Set.
    #[error("the jwks file {path} is not a JSON Web Key Set")]
    Jwks {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A key of the jwks file cannot verify RS256 signatures.
    #[error("the jwks file {path} has an RS256 key {kid:?} without a usable modulus and exponent")]
    JwksKey {
        /// The file.
        path: PathBuf,
        /// The key's id.
        kid: String,
    },
    /// The HS256 key is empty.
    #[error("the jwt_key file {path} is empty")]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// Why a token was refused. Each is logged; the caller only hears that
/// the credential is invalid, as Slurm tells it.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not a JWT, or its signature does not verify.
    #[error("token does not verify: {0}")]
    Invalid(String),
    /// An algorithm other than HS256 and RS256, or one the controller
    /// holds no key for.
    #[error("no key for alg={0}")]
    Algorithm(String),
    /// An RS256 token whose `kid` the jwks file does not hold.
    #[error("no jwks key with kid {0:?}")]
    UnknownKid(Option<String>),
    /// `exp` has passed.
    #[error("token expired")]
    Expired,
    /// Neither `sun` nor `username`.
    #[error("token names no user")]
    NoUser,
    /// Token creation is off (`disable_token_creation`), or no HS256 key.
    #[error("token creation is disabled")]
    CreationDisabled,
}

/// The claims spur reads and writes.
#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iat: Option<i64>,
    exp: i64,
    /// "[s]lurm [u]ser[n]ame".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sun: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    username: Option<String>,
}

/// The keys of auth/jwt, loaded once at start as slurmctld loads them.
pub struct JwtKeys {
    hs256: Option<(EncodingKey, DecodingKey)>,
    rs256: Vec<(String, DecodingKey)>,
    /// `max_token_lifespan=`.
    max_lifespan: Option<u32>,
    /// `disable_token_creation`.
    creation_disabled: bool,
}

impl std::fmt::Debug for JwtKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtKeys")
            .field("hs256", &self.hs256.is_some())
            .field(
                "rs256",
                &self.rs256.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("max_lifespan", &self.max_lifespan)
            .field("creation_disabled", &self.creation_disabled)
            .finish()
    }
}

/// `name=value` of a comma-separated parameter list (Slurm finds the
/// first `name=` anywhere and takes up to the next comma).
fn parameter<'a>(params: &'a str, name: &str) -> Option<&'a str> {
    let at = params.find(name)?;
    let rest = &params[at + name.len()..];
    Some(rest.split(',').next().unwrap_or(rest))
}

/// Reads a secret key file (the cluster key, `jwt_key`), refusing one
/// that other users can read or write, as munge refuses its key.
pub(crate) fn read_secret(path: &Path, what: &'static str) -> Result<Vec<u8>, KeyError> {
    check_mode(path, what, 0o007)?;
    read(path, what)
}

fn check_mode(path: &Path, what: &'static str, forbidden: u32) -> Result<(), KeyError> {
    let meta = std::fs::metadata(path).map_err(|source| KeyError::Read {
        what,
        path: path.to_owned(),
        source,
    })?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & forbidden != 0 {
        let problem = if forbidden == 0o007 {
            "lets other users at it"
        } else {
            "lets other users write it"
        };
        return Err(KeyError::Exposed {
            what,
            path: path.to_owned(),
            mode,
            problem,
        });
    }
    Ok(())
}

fn read(path: &Path, what: &'static str) -> Result<Vec<u8>, KeyError> {
    std::fs::read(path).map_err(|source| KeyError::Read {
        what,
        path: path.to_owned(),
        source,
    })
}

/// Whether slurm.conf's `AuthAltTypes` lists auth/jwt.
pub fn enabled(conf: &SlurmConf) -> bool {
    let types = conf.other.get("authalttypes").map_or("", String::as_str);
    types.split(',').any(|t| t.trim() == "auth/jwt")
}

impl JwtKeys {
    /// The keys slurm.conf names, or None when `AuthAltTypes` does not
    /// list auth/jwt. A key file that others may read (or, for jwks,
    /// write) is refused, as is one that cannot be read.
    pub fn load(conf: &SlurmConf) -> Result<Option<JwtKeys>, KeyError> {
        if !enabled(conf) {
            return Ok(None);
        }
        let params = conf
            .other
            .get("authaltparameters")
            .map_or("", String::as_str);
        let mut rs256 = Vec::new();
        if let Some(file) = parameter(params, "jwks=") {
            rs256 = load_jwks(Path::new(file))?;
        }
        let hs256_file = match parameter(params, "jwt_key=") {
            Some(file) => Some(PathBuf::from(file)),
            // With jwks and no jwt_key, Slurm makes no HS256 tokens.
            None if rs256.is_empty() => {
                Some(Path::new(&conf.state_save_location).join("jwt_hs256.key"))
            }
            None => None,
        };
        let hs256 = match hs256_file {
            Some(path) => {
                check_mode(&path, "jwt_key", 0o007)?;
                let secret = read(&path, "jwt_key")?;
                if secret.is_empty() {
                    return Err(KeyError::Empty { path });
                }
                Some((
                    EncodingKey::from_secret(&secret),
                    DecodingKey::from_secret(&secret),
                ))
            }
            None => None,
        };
        let max_lifespan = parameter(params, "max_token_lifespan=")
            .map(|v| spur_conf::number::strtol_or_zero(v).0)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n >= 1);
        Ok(Some(JwtKeys {
            hs256,
            rs256,
            max_lifespan,
            creation_disabled: params.contains("disable_token_creation"),
        }))
    }

    /// The user a token names, when it verifies and has not expired at
    /// `now` (Unix seconds).
    pub fn verify(&self, token: &str, now: u64) -> Result<String, TokenError> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|e| TokenError::Invalid(e.to_string()))?;
        let key = match header.alg {
            Algorithm::HS256 => match &self.hs256 {
                Some((_, key)) => key,
                None => return Err(TokenError::Algorithm("HS256".into())),
            },
            Algorithm::RS256 => {
                let kid = header.kid.clone();
                match self.rs256.iter().find(|(k, _)| Some(k) == kid.as_ref()) {
                    Some((_, key)) => key,
                    None => return Err(TokenError::UnknownKid(kid)),
                }
            }
            other => return Err(TokenError::Algorithm(format!("{other:?}"))),
        };
        let mut validation = Validation::new(header.alg);
        // Expiry is checked below against the caller's clock, exactly as
        // Slurm checks it (no leeway).
        validation.validate_exp = false;
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        let data = jsonwebtoken::decode::<Claims>(token, key, &validation)
            .map_err(|e| TokenError::Invalid(e.to_string()))?;
        let claims = data.claims;
        if claims.exp < i64::try_from(now).unwrap_or(i64::MAX) {
            return Err(TokenError::Expired);
        }
        claims
            .sun
            .or(claims.username)
            .filter(|u| !u.is_empty())
            .ok_or(TokenError::NoUser)
    }

    /// The lifespan a token asked for gets: the request's, else the
    /// default (no longer than `max_token_lifespan`). An operator may ask
    /// for any; anyone else no longer than `max_token_lifespan`.
    pub fn lifespan(&self, asked: Option<u32>, operator: bool) -> Result<u32, u32> {
        let lifespan = match (asked.filter(|&l| l > 0), self.max_lifespan) {
            (Some(l), _) => l,
            (None, Some(max)) => DEFAULT_LIFESPAN.min(max),
            (None, None) => DEFAULT_LIFESPAN,
        };
        match self.max_lifespan {
            Some(max) if !operator && lifespan > max => Err(max),
            _ => Ok(lifespan),
        }
    }

    /// Whether tokens may be made for a caller (`disable_token_creation`
    /// leaves it to operators).
    pub fn may_create(&self, operator: bool) -> bool {
        operator || !self.creation_disabled
    }

    /// A token for `user`, valid for `lifespan` seconds from `now`.
    pub fn issue(&self, user: &str, lifespan: u32, now: u64) -> Result<String, TokenError> {
        let Some((key, _)) = &self.hs256 else {
            return Err(TokenError::CreationDisabled);
        };
        let now = i64::try_from(now).unwrap_or(i64::MAX);
        let claims = Claims {
            iat: Some(now),
            exp: now.saturating_add(i64::from(lifespan)),
            sun: Some(user.to_string()),
            username: None,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, key)
            .map_err(|e| TokenError::Invalid(e.to_string()))
    }
}

/// The RS256 keys of a jwks file, by `kid` (other algorithms are skipped,
/// as Slurm skips them).
fn load_jwks(path: &Path) -> Result<Vec<(String, DecodingKey)>, KeyError> {
    check_mode(path, "jwks", 0o002)?;
    let text = read(path, "jwks")?;
    let set: JwkSet = serde_json::from_slice(&text).map_err(|source| KeyError::Jwks {
        path: path.to_owned(),
        source,
    })?;
    let mut keys = Vec::new();
    for jwk in &set.keys {
        if jwk.common.key_algorithm != Some(KeyAlgorithm::RS256) {
            continue;
        }
        let kid = jwk.common.key_id.clone().unwrap_or_default();
        let key = DecodingKey::from_jwk(jwk).map_err(|_| KeyError::JwksKey {
            path: path.to_owned(),
            kid: kid.clone(),
        })?;
        keys.push((kid, key));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests;
