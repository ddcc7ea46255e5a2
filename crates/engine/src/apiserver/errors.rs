//! Server-side error answers that are not plain apimachinery constructors: the etcd-unavailable
//! write failure, the optimistic-lock conflict, "too large resource version", and the
//! generic non-Status error the real server turns into a reason-less 500.

use crate::api::ResourceInfo;
use watchlab_apimachinery::status::{Status, StatusCause, StatusReason};

/// What etcd's client returns for a request no leader could carry out through a majority; the
/// apiserver passes it through as a reason-less 500, which kubectl prints as
/// `Error from server: etcdserver: request timed out`.
pub fn etcd_unavailable() -> Status {
    unknown(crate::etcd::REQUEST_TIMED_OUT)
}

/// A 500 with no reason (`responsewriters.ErrorToAPIStatus` of a non-Status error).
pub fn unknown(msg: &str) -> Status {
    Status::failure(500, StatusReason::Unknown, msg, None)
}

/// 409 `Operation cannot be fulfilled on pods "x": the object has been modified; ...`.
pub fn optimistic_lock(r: &ResourceInfo, name: &str) -> Status {
    Status::conflict(&r.group_resource(), name, Status::OPTIMISTIC_LOCK_ERROR_MSG)
}

/// 504 `Timeout: Too large resource version: 200, current: 150` (the watch cache's answer for
/// a resourceVersion it has not reached).
pub fn too_large_resource_version(requested: u64, current: u64) -> Status {
    let mut s = Status::timeout(
        &format!("Too large resource version: {requested}, current: {current}"),
        1,
    );
    if let Some(d) = s.details.as_mut() {
        d.causes.push(StatusCause {
            reason: "ResourceVersionTooLarge".into(),
            message: "Too large resource version".into(),
            field: String::new(),
        });
    }
    s
}

/// 400 for a resourceVersion that is not a number.
pub fn invalid_resource_version(rv: &str) -> Status {
    Status::bad_request(&format!(
        "invalid resource version: strconv.ParseUint: parsing {rv:?}: invalid syntax"
    ))
}

/// 403 Forbidden with the admission plugins' `<resource> "<name>" is forbidden: <why>` text.
pub fn forbidden(r: &ResourceInfo, name: &str, why: &str) -> Status {
    let mut s = Status::failure(
        403,
        StatusReason::Forbidden,
        format!("{} {name:?} is forbidden: {why}", r.group_resource()),
        None,
    );
    s.details = Some(Box::new(watchlab_apimachinery::status::StatusDetails {
        name: name.to_string(),
        group: r.group.to_string(),
        kind: r.plural.to_string(),
        ..Default::default()
    }));
    s
}

/// Parses a resourceVersion parameter.
pub fn parse_rv(rv: &str) -> Result<u64, Status> {
    rv.parse::<u64>().map_err(|_| invalid_resource_version(rv))
}
