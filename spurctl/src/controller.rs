//! One round trip to the controller for a command, with Slurm's wording when
//! the controller cannot be reached.

use spur_client::{Client, ClientError};
use spur_proto::{ClientRequest, ClientResponse, ProtoError};

/// Why a command's request failed.
#[derive(Debug)]
pub enum RequestError {
    /// The controller could not be reached or the connection broke.
    Unreachable(ClientError),
    /// The controller refused.
    Refused(ProtoError),
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::Unreachable(e) => write!(f, "{e}"),
            RequestError::Refused(e) => write!(f, "{e}"),
        }
    }
}

/// Sends `req` to the controller named by SLURM_CONF and returns its answer;
/// an error answer becomes `Refused`.
pub fn request(req: &ClientRequest) -> Result<ClientResponse, RequestError> {
    let mut client = Client::connect_default().map_err(RequestError::Unreachable)?;
    match client.request(req).map_err(RequestError::Unreachable)? {
        ClientResponse::Error(e) => Err(RequestError::Refused(e)),
        other => Ok(other),
    }
}
