//! The error a client sees from the API server: the HTTP code and `Status.reason` decide what the
//! machinery does next (relist on `410 Expired`, retry on `409 Conflict`, back off on `429`), so
//! they are kept as data rather than folded into a message.

use std::fmt;

/// An API error as a client receives it (the fields of a `metav1.Status` that matter here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    /// The HTTP status code (`Status.code`).
    pub code: u16,
    /// The machine-readable `Status.reason` (`Expired`, `Gone`, `Conflict`, ...).
    pub reason: String,
    /// The human-readable `Status.message`.
    pub message: String,
}

impl ClientError {
    pub fn new(code: u16, reason: &str, message: impl Into<String>) -> Self {
        ClientError {
            code,
            reason: reason.to_string(),
            message: message.into(),
        }
    }

    /// `410 Expired`, what a watch from a resourceVersion older than the watch cache's window
    /// receives: `too old resource version: 5 (10)`.
    pub fn expired(message: impl Into<String>) -> Self {
        ClientError::new(410, "Expired", message)
    }

    /// `409 Conflict`, a write against a stale resourceVersion.
    pub fn conflict(message: impl Into<String>) -> Self {
        ClientError::new(409, "Conflict", message)
    }

    /// `429 TooManyRequests`.
    pub fn too_many_requests(message: impl Into<String>) -> Self {
        ClientError::new(429, "TooManyRequests", message)
    }

    /// `500 InternalError`.
    pub fn internal(message: impl Into<String>) -> Self {
        ClientError::new(500, "InternalError", message)
    }

    /// `504 Timeout`.
    pub fn timeout(message: impl Into<String>) -> Self {
        ClientError::new(504, "Timeout", message)
    }

    /// The reflector's `isExpiredError`: `apierrors.IsResourceExpired || apierrors.IsGone`
    /// (both carry HTTP 410).
    pub fn is_expired(&self) -> bool {
        self.code == 410 || self.reason == "Expired" || self.reason == "Gone"
    }

    /// `apierrors.IsConflict`.
    pub fn is_conflict(&self) -> bool {
        self.code == 409 || self.reason == "Conflict"
    }

    /// `apierrors.IsTooManyRequests`.
    pub fn is_too_many_requests(&self) -> bool {
        self.code == 429 || self.reason == "TooManyRequests"
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ClientError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_follows_code_and_reason() {
        assert!(ClientError::expired("too old resource version: 5 (10)").is_expired());
        assert!(ClientError::new(410, "Gone", "gone").is_expired());
        assert!(!ClientError::internal("x").is_expired());
        assert!(ClientError::conflict("x").is_conflict());
        assert!(!ClientError::conflict("x").is_expired());
        assert!(ClientError::too_many_requests("x").is_too_many_requests());
        assert_eq!(
            ClientError::timeout("etcdserver: request timed out").to_string(),
            "etcdserver: request timed out"
        );
    }
}
