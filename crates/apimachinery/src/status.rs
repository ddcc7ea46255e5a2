//! `metav1.Status` and the constructors of `k8s.io/apimachinery/pkg/api/errors`.
//!
//! Every failed request is answered with a `Status` object; kubectl prints its reason and
//! message (`Error from server (NotFound): pods "x" not found`) and clients branch on its code
//! (409 → re-read and retry, 410 → relist). The JSON and the message texts here are the ones
//! the real API server writes, so what a learner sees in the page matches what a cluster says.

use crate::quote::quote;
use crate::validation::{aggregate_message, FieldError};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A resource with its API group, as errors name it (`schema.GroupResource`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GroupResource {
    pub group: String,
    pub resource: String,
}

impl GroupResource {
    pub fn new(group: &str, resource: &str) -> Self {
        GroupResource {
            group: group.to_string(),
            resource: resource.to_string(),
        }
    }
}

impl fmt::Display for GroupResource {
    /// `pods` for the core group, `deployments.apps` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.group.is_empty() {
            f.write_str(&self.resource)
        } else {
            write!(f, "{}.{}", self.resource, self.group)
        }
    }
}

/// `metav1.StatusReason`. `Unknown` is the empty reason (omitted from the JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StatusReason {
    NotFound,
    AlreadyExists,
    Conflict,
    Invalid,
    BadRequest,
    Expired,
    Gone,
    MethodNotAllowed,
    NotAcceptable,
    UnsupportedMediaType,
    RequestEntityTooLarge,
    TooManyRequests,
    Timeout,
    ServerTimeout,
    ServiceUnavailable,
    InternalError,
    Forbidden,
    Unauthorized,
    #[default]
    Unknown,
}

const REASONS: [(StatusReason, &str); 18] = [
    (StatusReason::NotFound, "NotFound"),
    (StatusReason::AlreadyExists, "AlreadyExists"),
    (StatusReason::Conflict, "Conflict"),
    (StatusReason::Invalid, "Invalid"),
    (StatusReason::BadRequest, "BadRequest"),
    (StatusReason::Expired, "Expired"),
    (StatusReason::Gone, "Gone"),
    (StatusReason::MethodNotAllowed, "MethodNotAllowed"),
    (StatusReason::NotAcceptable, "NotAcceptable"),
    (StatusReason::UnsupportedMediaType, "UnsupportedMediaType"),
    (StatusReason::RequestEntityTooLarge, "RequestEntityTooLarge"),
    (StatusReason::TooManyRequests, "TooManyRequests"),
    (StatusReason::Timeout, "Timeout"),
    (StatusReason::ServerTimeout, "ServerTimeout"),
    (StatusReason::ServiceUnavailable, "ServiceUnavailable"),
    (StatusReason::InternalError, "InternalError"),
    (StatusReason::Forbidden, "Forbidden"),
    (StatusReason::Unauthorized, "Unauthorized"),
];

impl StatusReason {
    /// The JSON string (`""` for `Unknown`).
    pub fn as_str(self) -> &'static str {
        REASONS
            .iter()
            .find(|(r, _)| *r == self)
            .map_or("", |(_, s)| s)
    }

    /// The reason for a JSON string; unrecognised strings are `Unknown`.
    pub fn from_str_lossy(s: &str) -> StatusReason {
        REASONS
            .iter()
            .find(|(_, name)| *name == s)
            .map_or(StatusReason::Unknown, |(r, _)| *r)
    }

    fn is_unknown(&self) -> bool {
        *self == StatusReason::Unknown
    }
}

impl fmt::Display for StatusReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StatusReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StatusReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(StatusReason::from_str_lossy(&s))
    }
}

/// One cause of a failure (`metav1.StatusCause`); `reason` is the cause type
/// (`FieldValueInvalid`...).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StatusCause {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub field: String,
}

/// `metav1.StatusDetails`: what the failure is about. `kind` holds the resource for most
/// errors (`pods`), as the real constructors fill it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusDetails {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<StatusCause>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retry_after_seconds: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The `metadata` of a `Status`: a `ListMeta`, written as `{}` except for the one error that
/// fills it, an expired `continue`, which carries a fresh token (`handleCompactedErrorForPaging`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StatusMetadata {
    /// Boxed: a `Status` stays small enough to travel in every `Result`.
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_token: Option<Box<String>>,
}

fn status_kind() -> String {
    "Status".to_string()
}

fn status_api_version() -> String {
    "v1".to_string()
}

/// `metav1.Status`, field for field and in the real JSON order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    #[serde(default = "status_kind")]
    pub kind: String,
    #[serde(default = "status_api_version")]
    pub api_version: String,
    #[serde(default)]
    pub metadata: StatusMetadata,
    /// `Failure` or `Success`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub status: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "StatusReason::is_unknown")]
    pub reason: StatusReason,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<StatusDetails>>,
    #[serde(default, skip_serializing_if = "is_zero_u16")]
    pub code: u16,
}

fn is_zero_u16(n: &u16) -> bool {
    *n == 0
}

/// Details naming a resource and an object, as `NewNotFound` & co fill them.
fn details_for(gr: &GroupResource, name: &str) -> Option<StatusDetails> {
    Some(StatusDetails {
        name: name.to_string(),
        group: gr.group.clone(),
        kind: gr.resource.clone(),
        ..StatusDetails::default()
    })
}

impl Status {
    /// The conflict message of a failed optimistic-concurrency update (`OptimisticLockErrorMsg`).
    pub const OPTIMISTIC_LOCK_ERROR_MSG: &'static str =
        "the object has been modified; please apply your changes to the latest version and try again";

    /// A `Failure` status.
    pub fn failure(
        code: u16,
        reason: StatusReason,
        message: impl Into<String>,
        details: Option<StatusDetails>,
    ) -> Status {
        Status {
            kind: status_kind(),
            api_version: status_api_version(),
            metadata: StatusMetadata::default(),
            status: "Failure".to_string(),
            message: message.into(),
            reason,
            details: details.map(Box::new),
            code,
        }
    }

    pub fn code(&self) -> u16 {
        self.code
    }

    pub fn reason(&self) -> StatusReason {
        self.reason
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// `NewNotFound`: 404 `pods "x" not found`.
    pub fn not_found(gr: &GroupResource, name: &str) -> Status {
        Status::failure(
            404,
            StatusReason::NotFound,
            format!("{gr} {} not found", quote(name)),
            details_for(gr, name),
        )
    }

    /// The 404 for a path no handler serves: `the server could not find the requested resource`.
    pub fn path_not_found() -> Status {
        Status::failure(
            404,
            StatusReason::NotFound,
            "the server could not find the requested resource",
            Some(StatusDetails::default()),
        )
    }

    /// `NewAlreadyExists`: 409 `pods "x" already exists`.
    pub fn already_exists(gr: &GroupResource, name: &str) -> Status {
        Status::failure(
            409,
            StatusReason::AlreadyExists,
            format!("{gr} {} already exists", quote(name)),
            details_for(gr, name),
        )
    }

    /// `NewConflict`: 409 `Operation cannot be fulfilled on pods "x": <err>`.
    pub fn conflict(gr: &GroupResource, name: &str, err: &str) -> Status {
        Status::failure(
            409,
            StatusReason::Conflict,
            format!(
                "Operation cannot be fulfilled on {gr} {}: {err}",
                quote(name)
            ),
            details_for(gr, name),
        )
    }

    /// `NewInvalid`: 422 `Pod "Bad_Name" is invalid: metadata.name: Invalid value: ...`, one
    /// cause per field error. `kind` is the kind (`Pod`), `group` its API group (`""`, `apps`).
    pub fn invalid(kind: &str, group: &str, name: &str, errs: &[FieldError]) -> Status {
        let qualified_kind = if group.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}.{group}")
        };
        let causes = errs
            .iter()
            .map(|e| StatusCause {
                reason: e.kind.reason().to_string(),
                message: e.body(),
                field: e.field.clone(),
            })
            .collect();
        let aggregated = aggregate_message(errs);
        let message = if aggregated.is_empty() {
            format!("{qualified_kind} {} is invalid", quote(name))
        } else {
            format!("{qualified_kind} {} is invalid: {aggregated}", quote(name))
        };
        Status::failure(
            422,
            StatusReason::Invalid,
            message,
            Some(StatusDetails {
                name: name.to_string(),
                group: group.to_string(),
                kind: kind.to_string(),
                causes,
                ..StatusDetails::default()
            }),
        )
    }

    /// `NewBadRequest`: 400.
    pub fn bad_request(msg: &str) -> Status {
        Status::failure(400, StatusReason::BadRequest, msg, None)
    }

    /// 405 with the given message. The generic text is
    /// `the server does not allow this method on the requested resource`.
    pub fn method_not_allowed(msg: &str) -> Status {
        Status::failure(405, StatusReason::MethodNotAllowed, msg, None)
    }

    /// `NewMethodNotSupported`: 405 `create is not supported on resources of kind "pods/log"`.
    pub fn method_not_supported(gr: &GroupResource, action: &str) -> Status {
        Status::failure(
            405,
            StatusReason::MethodNotAllowed,
            format!(
                "{action} is not supported on resources of kind {}",
                quote(&gr.to_string())
            ),
            details_for(gr, ""),
        )
    }

    /// `NewGone`: 410, reason Gone.
    pub fn gone(msg: &str) -> Status {
        Status::failure(410, StatusReason::Gone, msg, None)
    }

    /// `NewResourceExpired`: 410, reason Expired (`too old resource version: 5 (10)`).
    pub fn resource_expired(msg: &str) -> Status {
        Status::failure(410, StatusReason::Expired, msg, None)
    }

    /// This status with `metadata.continue` set (the 410 for an expired `continue` token).
    pub fn with_continue(mut self, token: String) -> Status {
        self.metadata.continue_token = Some(Box::new(token));
        self
    }

    /// `NewTimeoutError`: 504 `Timeout: <msg>`, with a retry hint.
    pub fn timeout(msg: &str, retry_after: u32) -> Status {
        Status::failure(
            504,
            StatusReason::Timeout,
            format!("Timeout: {msg}"),
            Some(StatusDetails {
                retry_after_seconds: retry_after,
                ..StatusDetails::default()
            }),
        )
    }

    /// `NewServerTimeout`: 500 `The get operation against pods could not be completed at this
    /// time, please try again.`
    pub fn server_timeout(gr: &GroupResource, operation: &str, retry_after: u32) -> Status {
        Status::failure(
            500,
            StatusReason::ServerTimeout,
            format!(
                "The {operation} operation against {gr} could not be completed at this time, please try again."
            ),
            Some(StatusDetails {
                group: gr.group.clone(),
                kind: gr.resource.clone(),
                retry_after_seconds: retry_after,
                ..StatusDetails::default()
            }),
        )
    }

    /// `NewInternalError`: 500 `Internal error occurred: <msg>`, the error as the one cause.
    pub fn internal_error(msg: &str) -> Status {
        Status::failure(
            500,
            StatusReason::InternalError,
            format!("Internal error occurred: {msg}"),
            Some(StatusDetails {
                causes: vec![StatusCause {
                    message: msg.to_string(),
                    ..StatusCause::default()
                }],
                ..StatusDetails::default()
            }),
        )
    }

    /// What the API server writes for an error that is not a `Status` (`ErrorToAPIStatus`):
    /// the given code, no reason, the raw message. This is how etcd's own errors reach clients,
    /// e.g. `Status::unknown(500, "etcdserver: request timed out")` when etcd has lost quorum
    /// (kubectl: `Error from server: etcdserver: request timed out`).
    pub fn unknown(code: u16, msg: &str) -> Status {
        Status::failure(code, StatusReason::Unknown, msg, None)
    }

    /// `NewServiceUnavailable`: 503.
    pub fn service_unavailable(msg: &str) -> Status {
        Status::failure(503, StatusReason::ServiceUnavailable, msg, None)
    }

    /// 406 (`only the following media types are accepted: ...`).
    pub fn not_acceptable(msg: &str) -> Status {
        Status::failure(406, StatusReason::NotAcceptable, msg, None)
    }

    /// 415 (`the body of the request was in an unknown format - accepted media types include: ...`).
    pub fn unsupported_media_type(msg: &str) -> Status {
        Status::failure(415, StatusReason::UnsupportedMediaType, msg, None)
    }

    /// `NewRequestEntityTooLargeError`: 413 `Request entity too large: <msg>`.
    pub fn request_entity_too_large(msg: &str) -> Status {
        Status::failure(
            413,
            StatusReason::RequestEntityTooLarge,
            format!("Request entity too large: {msg}"),
            None,
        )
    }

    /// `NewTooManyRequests`: 429 with a retry hint.
    pub fn too_many_requests(msg: &str, retry_after: u32) -> Status {
        Status::failure(
            429,
            StatusReason::TooManyRequests,
            msg,
            Some(StatusDetails {
                retry_after_seconds: retry_after,
                ..StatusDetails::default()
            }),
        )
    }

    /// `NewForbidden`: 403 `pods "x" is forbidden: <err>`.
    pub fn forbidden(gr: &GroupResource, name: &str, err: &str) -> Status {
        let message = if gr.resource.is_empty() && gr.group.is_empty() {
            format!("forbidden: {err}")
        } else if name.is_empty() {
            format!("{gr} is forbidden: {err}")
        } else {
            format!("{gr} {} is forbidden: {err}", quote(name))
        };
        Status::failure(403, StatusReason::Forbidden, message, details_for(gr, name))
    }

    /// `NewUnauthorized`: 401 (`Unauthorized` when no reason is given).
    pub fn unauthorized(msg: &str) -> Status {
        let message = if msg.is_empty() { "Unauthorized" } else { msg };
        Status::failure(401, StatusReason::Unauthorized, message, None)
    }

    /// `{"status":"Success","code":200}`, what a delete answers when there is no object to
    /// return.
    pub fn success() -> Status {
        Status {
            status: "Success".to_string(),
            message: String::new(),
            details: None,
            code: 200,
            ..Status::failure(200, StatusReason::Unknown, "", None)
        }
    }

    /// The same status with details (e.g. the deleted object's name, kind and uid).
    pub fn with_details(mut self, details: StatusDetails) -> Status {
        self.details = Some(Box::new(details));
        self
    }

    pub fn is_success(&self) -> bool {
        self.status == "Success"
    }

    /// The JSON the API server writes, compact.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a `Status` from a response body; `None` if it is not one.
    pub fn from_json(body: &str) -> Option<Status> {
        let status: Status = serde_json::from_str(body).ok()?;
        (status.kind == "Status").then_some(status)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Status {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::validate_object_name;

    fn pods() -> GroupResource {
        GroupResource::new("", "pods")
    }

    #[test]
    fn group_resources_print_like_kubernetes() {
        assert_eq!(pods().to_string(), "pods");
        assert_eq!(
            GroupResource::new("apps", "deployments").to_string(),
            "deployments.apps"
        );
    }

    #[test]
    fn not_found_json() {
        let s = Status::not_found(&pods(), "x");
        assert_eq!(s.code(), 404);
        assert_eq!(s.reason(), StatusReason::NotFound);
        assert_eq!(
            s.to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}"#
        );
        let d = Status::not_found(&GroupResource::new("apps", "deployments"), "orders-api");
        assert_eq!(
            d.to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"orders-api\" not found","reason":"NotFound","details":{"name":"orders-api","group":"apps","kind":"deployments"},"code":404}"#
        );
    }

    #[test]
    fn conflict_json() {
        let s = Status::conflict(&pods(), "web", Status::OPTIMISTIC_LOCK_ERROR_MSG);
        assert_eq!(
            s.to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"web","kind":"pods"},"code":409}"#
        );
        let a = Status::already_exists(&pods(), "web");
        assert_eq!(a.code(), 409);
        assert_eq!(a.message(), "pods \"web\" already exists");
        assert_eq!(a.reason(), StatusReason::AlreadyExists);
    }

    #[test]
    fn invalid_json() {
        let errs = validate_object_name("Bad_Name", "metadata.name", true);
        let s = Status::invalid("Pod", "", "Bad_Name", &errs);
        assert_eq!(
            s.to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')","reason":"Invalid","details":{"name":"Bad_Name","kind":"Pod","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')","field":"metadata.name"}]},"code":422}"#
        );
        let two = [
            FieldError::required("spec.containers", ""),
            FieldError::invalid("spec.replicas", -1i64, "must be greater than or equal to 0"),
        ];
        let d = Status::invalid("Deployment", "apps", "web", &two);
        assert_eq!(
            d.message(),
            "Deployment.apps \"web\" is invalid: [spec.containers: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]"
        );
        assert_eq!(d.details.as_ref().map(|x| x.causes.len()), Some(2));
        assert_eq!(
            Status::invalid("Pod", "", "x", &[]).message(),
            "Pod \"x\" is invalid"
        );
    }

    #[test]
    fn other_constructors() {
        let cases = [
            (Status::bad_request("bad"), 400, StatusReason::BadRequest, "bad"),
            (Status::gone("The resourceVersion for the provided list is too old."), 410, StatusReason::Gone, "The resourceVersion for the provided list is too old."),
            (Status::resource_expired("too old resource version: 5 (10)"), 410, StatusReason::Expired, "too old resource version: 5 (10)"),
            (Status::timeout("request did not complete within requested timeout - context deadline exceeded", 0), 504, StatusReason::Timeout, "Timeout: request did not complete within requested timeout - context deadline exceeded"),
            (Status::internal_error("boom"), 500, StatusReason::InternalError, "Internal error occurred: boom"),
            (Status::unknown(500, "etcdserver: request timed out"), 500, StatusReason::Unknown, "etcdserver: request timed out"),
            (Status::service_unavailable("etcd is down"), 503, StatusReason::ServiceUnavailable, "etcd is down"),
            (Status::too_many_requests("slow down", 1), 429, StatusReason::TooManyRequests, "slow down"),
            (Status::request_entity_too_large("limit is 3145728"), 413, StatusReason::RequestEntityTooLarge, "Request entity too large: limit is 3145728"),
            (Status::method_not_supported(&GroupResource::new("", "pods/log"), "create"), 405, StatusReason::MethodNotAllowed, "create is not supported on resources of kind \"pods/log\""),
            (Status::server_timeout(&pods(), "get", 2), 500, StatusReason::ServerTimeout, "The get operation against pods could not be completed at this time, please try again."),
            (Status::forbidden(&pods(), "web", "no"), 403, StatusReason::Forbidden, "pods \"web\" is forbidden: no"),
            (Status::unauthorized(""), 401, StatusReason::Unauthorized, "Unauthorized"),
        ];
        for (s, code, reason, message) in cases {
            assert_eq!((s.code(), s.reason(), s.message()), (code, reason, message));
            assert_eq!(s.to_string(), message);
        }
        assert_eq!(
            Status::unknown(500, "etcdserver: request timed out").to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request timed out","code":500}"#
        );
        assert_eq!(
            Status::timeout("x", 3).to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: x","reason":"Timeout","details":{"retryAfterSeconds":3},"code":504}"#
        );
        assert_eq!(
            Status::internal_error("boom").to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}"#
        );
    }

    #[test]
    fn success_json() {
        assert_eq!(
            Status::success().to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":200}"#
        );
        let deleted = Status::success().with_details(StatusDetails {
            name: "web".into(),
            kind: "pods".into(),
            uid: "1234".into(),
            ..StatusDetails::default()
        });
        assert_eq!(
            deleted.to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"web","kind":"pods","uid":"1234"},"code":200}"#
        );
        assert!(deleted.is_success());
    }

    #[test]
    fn json_round_trips() {
        let errs = validate_object_name("Bad_Name", "metadata.name", true);
        for s in [
            Status::not_found(&pods(), "x"),
            Status::invalid("Pod", "", "Bad_Name", &errs),
            Status::timeout("x", 3),
            Status::unknown(500, "etcdserver: request timed out"),
            Status::success(),
        ] {
            assert_eq!(Status::from_json(&s.to_json()), Some(s));
        }
        assert_eq!(Status::from_json(r#"{"kind":"Pod"}"#), None);
        assert_eq!(Status::from_json("not json"), None);
        let odd =
            Status::from_json(r#"{"kind":"Status","reason":"SomethingNew","code":418}"#).unwrap();
        assert_eq!((odd.reason(), odd.code()), (StatusReason::Unknown, 418));
    }
}
