//! Who a request comes from, as slurmrestd's rest_auth plugins decide it.
//! `rest_auth/jwt`: a token in `X-SLURM-USER-TOKEN` or `Authorization:
//! Bearer`, with an optional `X-SLURM-USER-NAME`; it is passed on to the
//! controller, which checks it (this server holds no key). `rest_auth/local`:
//! on a unix socket, a peer of this server's own uid acts as this server
//! does; a root peer may name another user. The plugins are tried in the
//! order given; a request none of them takes is refused with
//! "Authentication failure".

use axum::http::HeaderMap;
use thiserror::Error;

use spur_proto::Credential;

/// The header of the user name.
pub const USER_NAME: &str = "x-slurm-user-name";
/// The header of the token.
pub const USER_TOKEN: &str = "x-slurm-user-token";

/// One of slurmrestd's authentication plugins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    /// `rest_auth/local`.
    Local,
    /// `rest_auth/jwt`.
    Jwt,
}

/// An `-a` list slurmrestd would refuse.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("Unable to find rest_auth plugin: {0}")]
pub struct UnknownPlugin(pub String);

impl Plugin {
    /// Every plugin, in slurmrestd's default order.
    pub const ALL: [Plugin; 2] = [Plugin::Local, Plugin::Jwt];

    /// Reads `-a`/`SLURMRESTD_AUTH_TYPES` (`rest_auth/jwt,local`; the
    /// prefix may be left off).
    pub fn list(text: &str) -> Result<Vec<Plugin>, UnknownPlugin> {
        text.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| match t.strip_prefix("rest_auth/").unwrap_or(t) {
                "local" => Ok(Plugin::Local),
                "jwt" => Ok(Plugin::Jwt),
                _ => Err(UnknownPlugin(t.to_string())),
            })
            .collect()
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Plugin::Local => "rest_auth/local",
            Plugin::Jwt => "rest_auth/jwt",
        }
    }
}

/// The connection a request came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The peer's uid on a unix socket (SO_PEERCRED); None over TCP.
    pub uid: Option<u32>,
    /// The peer's address over TCP.
    pub addr: Option<std::net::SocketAddr>,
}

impl Peer {
    /// The connection as slurmrestd names it in its errors: `[host]:port`,
    /// the host by name where it has one; `unix` on a unix socket.
    pub fn name(&self) -> String {
        match self.addr {
            Some(addr) => {
                let host =
                    spur_sys::host_name_of(addr.ip()).unwrap_or_else(|| addr.ip().to_string());
                format!("[{host}]:{}", addr.port())
            }
            None => "unix".into(),
        }
    }
}

/// How the server itself reaches the controller, for `rest_auth/local`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnIdentity {
    /// As its own uid (through the local socket, an agent or a relay).
    Uid(u32),
    /// With the token in `SLURM_JWT`.
    Token(String),
    /// `SLURM_JWT=daemon`: it has none, so `rest_auth/local` is off.
    None,
}

/// Who a request acts as: the credential passed to the controller, or
/// none (the server's own identity, `rest_auth/local`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The credential; None acts as the server itself.
    pub credential: Option<Credential>,
}

/// Why no plugin took the request (logged; the client hears
/// "Authentication failure").
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// No plugin found anything to go by.
    #[error("no credentials given")]
    Nothing,
    /// `X-SLURM-USER-NAME` without a token.
    #[error("missing header user token: X-SLURM-USER-TOKEN")]
    NameWithoutToken,
    /// Both token headers.
    #[error("mutually exclusive headers X-SLURM-USER-TOKEN and Authorization found")]
    TwoTokens,
    /// `Authorization` that is not a bearer token.
    #[error("unexpected format for Authorization header")]
    NotBearer,
    /// A header that is not text.
    #[error("header {0} is not text")]
    Garbled(&'static str),
    /// A unix peer of another uid.
    #[error("rejecting socket connection with uid:{0}")]
    OtherUid(u32),
}

fn header<'a>(headers: &'a HeaderMap, name: &'static str) -> Result<Option<&'a str>, Refusal> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v.to_str().map(Some).map_err(|_| Refusal::Garbled(name)),
    }
}

/// Decides who makes a request, trying `plugins` in order.
pub fn authenticate(
    plugins: &[Plugin],
    headers: &HeaderMap,
    peer: Peer,
    own: &OwnIdentity,
) -> Result<Caller, Refusal> {
    for plugin in plugins {
        let decided = match plugin {
            Plugin::Jwt => jwt(headers)?,
            Plugin::Local => local(headers, peer, own)?,
        };
        if let Some(caller) = decided {
            return Ok(caller);
        }
    }
    Err(Refusal::Nothing)
}

/// rest_auth/jwt: None when the request carries none of its headers.
fn jwt(headers: &HeaderMap) -> Result<Option<Caller>, Refusal> {
    let token = header(headers, USER_TOKEN)?;
    let name = header(headers, USER_NAME)?;
    let bearer = header(headers, "authorization")?;
    let token = match (token, bearer) {
        (None, None) if name.is_none() => return Ok(None),
        (None, None) => return Err(Refusal::NameWithoutToken),
        (Some(_), Some(_)) => return Err(Refusal::TwoTokens),
        (Some(t), None) => t,
        (None, Some(b)) => b.strip_prefix("Bearer ").ok_or(Refusal::NotBearer)?,
    };
    Ok(Some(Caller {
        credential: Some(Credential::Token {
            token: token.trim().to_string(),
            user_name: name.map(str::to_string),
        }),
    }))
}

/// rest_auth/local: None over TCP or without an identity of our own.
fn local(headers: &HeaderMap, peer: Peer, own: &OwnIdentity) -> Result<Option<Caller>, Refusal> {
    let Some(uid) = peer.uid else {
        return Ok(None);
    };
    let mine = match own {
        OwnIdentity::None => return Ok(None),
        OwnIdentity::Uid(mine) => *mine,
        OwnIdentity::Token(_) => spur_sys::users::current_uid(),
    };
    let own_credential = match own {
        OwnIdentity::Token(token) => Some(Credential::Token {
            token: token.clone(),
            user_name: None,
        }),
        _ => None,
    };
    if uid == 0 {
        // Root may be anyone; by default it is whoever this server is.
        if let Some(name) = header(headers, USER_NAME)? {
            return Ok(Some(Caller {
                credential: Some(Credential::As {
                    user_name: name.to_string(),
                }),
            }));
        }
        return Ok(Some(Caller {
            credential: own_credential,
        }));
    }
    if uid == mine {
        return Ok(Some(Caller {
            credential: own_credential,
        }));
    }
    Err(Refusal::OtherUid(uid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).expect("ascii"));
        }
        h
    }

    const TCP: Peer = Peer {
        uid: None,
        addr: None,
    };

    fn token(t: &str, name: Option<&str>) -> Caller {
        Caller {
            credential: Some(Credential::Token {
                token: t.into(),
                user_name: name.map(str::to_string),
            }),
        }
    }

    #[test]
    fn plugin_lists_read_with_or_without_prefix() {
        assert_eq!(
            Plugin::list("rest_auth/jwt,local"),
            Ok(vec![Plugin::Jwt, Plugin::Local])
        );
        assert!(Plugin::list("rest_auth/munge").is_err());
    }

    #[test]
    fn tokens_come_from_either_header_never_both() {
        let own = OwnIdentity::Uid(1000);
        let all = Plugin::ALL;
        let h = headers(&[(USER_NAME, "alice"), (USER_TOKEN, "t1")]);
        assert_eq!(
            authenticate(&all, &h, TCP, &own),
            Ok(token("t1", Some("alice")))
        );
        let h = headers(&[("authorization", "Bearer t2")]);
        assert_eq!(authenticate(&all, &h, TCP, &own), Ok(token("t2", None)));
        let h = headers(&[(USER_TOKEN, "t1"), ("authorization", "Bearer t2")]);
        assert_eq!(authenticate(&all, &h, TCP, &own), Err(Refusal::TwoTokens));
        let h = headers(&[(USER_NAME, "alice")]);
        assert_eq!(
            authenticate(&all, &h, TCP, &own),
            Err(Refusal::NameWithoutToken)
        );
        let h = headers(&[("authorization", "Basic x")]);
        assert_eq!(authenticate(&all, &h, TCP, &own), Err(Refusal::NotBearer));
        assert_eq!(
            authenticate(&all, &HeaderMap::new(), TCP, &own),
            Err(Refusal::Nothing)
        );
    }

    #[test]
    fn local_takes_only_unix_peers_of_our_uid_or_root() {
        let own = OwnIdentity::Uid(1000);
        let local = [Plugin::Local];
        let me = Peer {
            uid: Some(1000),
            addr: None,
        };
        let plain = Caller { credential: None };
        assert_eq!(
            authenticate(&local, &HeaderMap::new(), me, &own),
            Ok(plain.clone())
        );
        // A user's header changes nothing for a user peer.
        let h = headers(&[(USER_NAME, "root")]);
        assert_eq!(authenticate(&local, &h, me, &own), Ok(plain.clone()));
        let root = Peer {
            uid: Some(0),
            addr: None,
        };
        let h = headers(&[(USER_NAME, "alice")]);
        assert_eq!(
            authenticate(&local, &h, root, &own),
            Ok(Caller {
                credential: Some(Credential::As {
                    user_name: "alice".into()
                })
            })
        );
        let other = Peer {
            uid: Some(1001),
            addr: None,
        };
        assert_eq!(
            authenticate(&local, &HeaderMap::new(), other, &own),
            Err(Refusal::OtherUid(1001))
        );
        assert_eq!(
            authenticate(&local, &HeaderMap::new(), TCP, &own),
            Err(Refusal::Nothing)
        );
        // Without an identity of its own the server cannot act locally.
        assert_eq!(
            authenticate(&local, &HeaderMap::new(), me, &OwnIdentity::None),
            Err(Refusal::Nothing)
        );
    }
}
