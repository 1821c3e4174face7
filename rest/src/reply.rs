//! What every answer is wrapped in: the API version's `meta`, the
//! `errors` and `warnings` lists, the HTTP status slurmrestd gives an error
//! (22.05's rules for v0.0.38, 25.11's for v0.0.41 and later), and the
//! plain-text refusals of slurmrestd's router. JSON is written by serde,
//! pretty (slurmrestd's default) or compact (`SLURMRESTD_JSON=compact`).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{json, Value};

use spur_client::RequestError;
use spur_proto::ErrorCode;

/// An API version spur serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// Slurm 22.05's `openapi/v0.0.38`.
    V0038,
    /// `data_parser/v0.0.41` (Slurm 24.05 to 25.11).
    V0041,
    /// `data_parser/v0.0.42`.
    V0042,
    /// `data_parser/v0.0.43`.
    V0043,
    /// `data_parser/v0.0.44` (Slurm 25.11, 26.05).
    V0044,
    /// `data_parser/v0.0.45` (Slurm 26.05).
    V0045,
}

impl Version {
    /// The versions of the data_parser family, oldest first.
    pub const PARSERS: [Version; 5] = [
        Version::V0041,
        Version::V0042,
        Version::V0043,
        Version::V0044,
        Version::V0045,
    ];

    /// The data_parser version `tag` (`v0.0.44`) names, if spur serves it.
    pub fn parser(tag: &str) -> Option<Version> {
        Version::PARSERS.into_iter().find(|v| v.tag() == tag)
    }

    /// `v0.0.44`.
    pub fn tag(self) -> &'static str {
        match self {
            Version::V0038 => "v0.0.38",
            Version::V0041 => "v0.0.41",
            Version::V0042 => "v0.0.42",
            Version::V0043 => "v0.0.43",
            Version::V0044 => "v0.0.44",
            Version::V0045 => "v0.0.45",
        }
    }

    /// The `meta` of an answer from the slurmctld paths of a cluster
    /// named `cluster`: v0.0.38's is `squeue --json`'s
    /// ([`spur_slurm::openapi::Meta`]).
    pub fn meta(self, cluster: &str) -> Value {
        if self == Version::V0038 {
            let meta = spur_slurm::openapi::Meta::v0038(spur_proto::SLURM_COMPAT_VERSION);
            return serde_json::to_value(meta).expect("plain data serializes");
        }
        self.parser_meta(cluster, "openapi/slurmctld", "Slurm OpenAPI slurmctld")
    }

    /// The `meta` of an answer from the `/slurmdb/` paths: v0.0.38's is
    /// `sacct --json`'s.
    pub fn db_meta(self, cluster: &str) -> Value {
        if self == Version::V0038 {
            let meta = spur_slurm::openapi::Meta::dbv0038(spur_proto::SLURM_COMPAT_VERSION);
            return serde_json::to_value(meta).expect("plain data serializes");
        }
        self.parser_meta(cluster, "openapi/slurmdbd", "Slurm OpenAPI slurmdbd")
    }

    fn parser_meta(self, cluster: &str, plugin: &str, name: &str) -> Value {
        let release = spur_proto::SLURM_COMPAT_VERSION;
        let mut parts = release.split('.');
        let mut next = || parts.next().unwrap_or("0").to_string();
        let (major, minor, micro) = (next(), next(), next());
        json!({
            "plugin": {
                "type": plugin,
                "name": name,
                "data_parser": format!("data_parser/{}", self.tag()),
                "accounting_storage": "",
            },
            "client": {"source": "spur"},
            "command": [],
            "slurm": {
                "version": {"major": major, "micro": micro, "minor": minor},
                "release": release,
                "cluster": cluster,
            }
        })
    }

    /// The HTTP status of an answer whose error is `code`: slurmrestd
    /// 22.05 answers 500 for every failure of an operation. The data_parser
    /// versions tell the client's mistakes from the server's: what names
    /// nothing is 404, what the caller may not do 403, a refused credential
    /// 401, any other refusal of what was asked 400; only the controller's
    /// own failures are 5xx (502 when it cannot be reached, 503 when it
    /// asks to be tried again).
    pub fn status_of(self, code: ErrorCode) -> StatusCode {
        if self == Version::V0038 {
            return StatusCode::INTERNAL_SERVER_ERROR;
        }
        match code {
            ErrorCode::InvalidJobId
            | ErrorCode::InvalidNodeName
            | ErrorCode::InvalidPartitionName
            | ErrorCode::ReservationInvalid => StatusCode::NOT_FOUND,
            ErrorCode::AccessDenied | ErrorCode::UserIdMissing | ErrorCode::PrioResetFail => {
                StatusCode::FORBIDDEN
            }
            ErrorCode::AuthCredInvalid => StatusCode::UNAUTHORIZED,
            ErrorCode::ControllerUnreachable | ErrorCode::ConnectionLost => StatusCode::BAD_GATEWAY,
            ErrorCode::TryAgain => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::StateStore
            | ErrorCode::ProtocolVersion
            | ErrorCode::Malformed
            | ErrorCode::Unspecified => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

/// slurmrestd's error numbers of its own (`slurm_errno.h`).
pub mod rest_errno {
    /// ESLURM_REST_INVALID_QUERY.
    pub const INVALID_QUERY: i32 = 9000;
    /// ESLURM_REST_FAIL_PARSING: "Failure during parsing".
    pub const FAIL_PARSING: i32 = 9001;
    /// ESLURM_REST_INVALID_JOBS_DESC.
    pub const INVALID_JOBS_DESC: i32 = 9002;
    /// ESLURM_REST_EMPTY_RESULT.
    pub const EMPTY_RESULT: i32 = 9003;
    /// ESLURM_DATA_PATH_NOT_FOUND.
    pub const DATA_PATH_NOT_FOUND: i32 = 9200;
    /// ESLURM_DATA_CONV_FAILED.
    pub const DATA_CONV_FAILED: i32 = 9202;
}

/// The text of one of slurmrestd's own error numbers.
pub fn rest_error_text(errno: i32) -> &'static str {
    match errno {
        rest_errno::INVALID_QUERY => "Query empty or not RFC7320 compliant",
        rest_errno::FAIL_PARSING => "Failure during parsing",
        rest_errno::INVALID_JOBS_DESC => {
            "Jobs description entry not found, empty or not dictionary or list"
        }
        rest_errno::EMPTY_RESULT => "Nothing found with query",
        rest_errno::DATA_PATH_NOT_FOUND => "Unable to resolve path",
        rest_errno::DATA_CONV_FAILED => "Unable to convert Data type",
        _ => "Unspecified error",
    }
}

/// One entry of `errors`, as slurmrestd's `resp_error` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorEntry {
    /// `description`: what failed, in detail.
    pub description: String,
    /// `error_number`.
    pub errno: i32,
    /// `error`: the error number's text.
    pub text: String,
    /// `source`: the function that failed.
    pub source: String,
}

impl ErrorEntry {
    /// The entry for a request the controller refused or could not take.
    pub fn of(e: &RequestError, description: impl Into<String>, source: &str) -> ErrorEntry {
        ErrorEntry {
            description: description.into(),
            errno: e.errno(),
            text: e.to_string(),
            source: source.to_string(),
        }
    }

    /// An entry of one of slurmrestd's own numbers.
    pub fn rest(errno: i32, description: impl Into<String>, source: &str) -> ErrorEntry {
        ErrorEntry {
            description: description.into(),
            errno,
            text: rest_error_text(errno).to_string(),
            source: source.to_string(),
        }
    }

    /// The entry as JSON, keys in slurmrestd's order.
    pub fn to_value(&self) -> Value {
        json!({
            "description": self.description,
            "error_number": self.errno,
            "error": self.text,
            "source": self.source,
        })
    }
}

/// One entry of `warnings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// `description`.
    pub description: String,
    /// `source`.
    pub source: String,
}

impl Warning {
    /// The entry as JSON.
    pub fn to_value(&self) -> Value {
        json!({"description": self.description, "source": self.source})
    }
}

/// How answers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Pretty JSON (slurmrestd's default) or compact.
    pub pretty: bool,
}

impl Style {
    /// A JSON answer with `status`.
    pub fn json(self, status: StatusCode, body: &impl Serialize) -> Response {
        let text = if self.pretty {
            serde_json::to_vec_pretty(body)
        } else {
            serde_json::to_vec(body)
        };
        match text {
            Ok(bytes) => self.body(status, bytes.into()),
            Err(e) => {
                tracing::error!(error = %e, "answer does not serialize");
                plain(StatusCode::INTERNAL_SERVER_ERROR, "Internal error")
            }
        }
    }

    /// A JSON answer whose body is sent as it is written.
    pub fn body(self, status: StatusCode, body: axum::body::Body) -> Response {
        (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response()
    }
}

/// One of slurmrestd's plain-text refusals (`_operations_router_reject`).
pub fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"))],
        text,
    )
        .into_response()
}

/// The router's texts, as slurmrestd writes them.
pub mod text {
    /// No authentication plugin took the request.
    pub const AUTH_FAILURE: &str = "Authentication failure";
    /// No path matches.
    pub const UNKNOWN_PATH: &str =
        "Unable find requested URL. Please view /openapi/v3 for API reference.";
    /// The path has no such method.
    pub const UNKNOWN_METHOD: &str =
        "Requested REST method is not defined at URL. Please view /openapi/v3 for API reference.";
    /// The body (or query) is not the content type it claims.
    pub const BAD_QUERY: &str = "Unable to parse query.";
    /// A body on a method that takes none.
    pub const UNEXPECTED_BODY: &str = "Unexpected http body provided for non-POST method";
    /// An `Accept` that is not JSON.
    pub const UNKNOWN_ACCEPT: &str = "Accept content type is unknown";
}
