//! Requests made as someone other than the connection's caller: what a
//! REST server passes on. It holds no trust of its own: a token is checked
//! by the controller, and acting as another user by name is allowed only
//! to callers the controller already trusts with it (root and SlurmUser),
//! as Slurm's auth/jwt and slurmrestd's rest_auth/local allow it.

use serde::{Deserialize, Serialize};

use crate::message::ClientRequest;

/// Who a request is made as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Credential {
    /// A JSON Web Token (`X-SLURM-USER-TOKEN`, `Authorization: Bearer`,
    /// `SLURM_JWT`), with the user name given beside it
    /// (`X-SLURM-USER-NAME`), if any. The request is made as the name the
    /// token carries (`sun`, else `username`); a name beside it that
    /// differs is honoured only when the token is root's or SlurmUser's.
    Token {
        /// The token, as given.
        token: String,
        /// The user name given beside it.
        user_name: Option<String>,
    },
    /// The connection's caller acts as this user: root and SlurmUser may
    /// (slurmrestd's rest_auth/local on a socket root connected to);
    /// anyone else gets the request refused.
    As {
        /// The user name.
        user_name: String,
    },
}

/// A request and the credential it is made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Authenticated {
    /// Who makes it.
    pub credential: Credential,
    /// The request.
    pub request: ClientRequest,
}

/// `scontrol token`: what is asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRequest {
    /// `username=`: the token's user (root and SlurmUser only, unless it is
    /// the caller's own name); None is the caller.
    pub user_name: Option<String>,
    /// `lifespan=` in seconds; None takes the default (1800 s, or the
    /// smaller `max_token_lifespan` of AuthAltParameters).
    pub lifespan: Option<u32>,
}
