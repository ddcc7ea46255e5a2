//! How a failed command reports itself, with kubectl's exact wording: cobra's flag errors
//! (`Error: unknown flag: --foo` + `See 'kubectl get --help' for usage.`), kubectl's own
//! `error: ...` lines, and server errors decoded from a `Status` body and printed the way
//! `cmdutil.CheckErr` prints them (`Error from server (NotFound): pods "x" not found`; an
//! invalid object as `The Service "bad" is invalid: spec.ports[0].port: ...`).

use crate::flags::FlagError;
use serde_json::Value;
use watchlab_apimachinery::client::ApiResponse;
use watchlab_apimachinery::status::{Status, StatusReason};

/// A failed command: what goes to stderr, and the exit code (kubectl exits 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdError {
    pub stderr: String,
    pub exit_code: i32,
}

impl CmdError {
    /// `error: <msg>`, kubectl's usual failure line.
    pub fn msg(msg: impl AsRef<str>) -> CmdError {
        CmdError::raw(format!("error: {}\n", msg.as_ref()))
    }

    /// Exactly `text` on stderr.
    pub fn raw(text: impl Into<String>) -> CmdError {
        CmdError {
            stderr: text.into(),
            exit_code: 1,
        }
    }

    /// `error: <msg>` followed by `See 'kubectl <cmd> -h' for help and examples`.
    pub fn usage(cmd: &str, msg: impl AsRef<str>) -> CmdError {
        CmdError::raw(format!(
            "error: {}\nSee 'kubectl {cmd} -h' for help and examples\n",
            msg.as_ref()
        ))
    }

    /// A pflag/cobra parse error for `kubectl <cmd>`.
    pub fn flag(cmd: &str, err: &FlagError) -> CmdError {
        CmdError::raw(format!(
            "Error: {err}\nSee 'kubectl {cmd} --help' for usage.\n"
        ))
    }

    /// cobra's missing required flag (kubectl v1.32 logs it through klog; the console prints
    /// the message the way older kubectl did).
    pub fn required_flag(name: &str) -> CmdError {
        CmdError::msg(format!("required flag(s) \"{name}\" not set"))
    }

    /// A non-2xx answer from the API server.
    pub fn server(resp: &ApiResponse) -> CmdError {
        CmdError::raw(format!("{}\n", server_error_text(resp)))
    }
}

/// The server error, as kubectl prints it (without the trailing newline).
pub fn server_error_text(resp: &ApiResponse) -> String {
    match decode_status(resp) {
        Some(status) => {
            let message = status.message();
            match status.reason() {
                StatusReason::Invalid => invalid_text(&status),
                StatusReason::Unknown => format!("Error from server: {message}"),
                reason => format!("Error from server ({}): {message}", reason.as_str()),
            }
        }
        None => {
            let (reason, text) = reason_for_code(resp.code);
            let body = resp.body.trim();
            if body.is_empty() {
                format!("Error from server ({reason}): {text}")
            } else {
                format!("Error from server ({reason}): {text} ({body:?})")
            }
        }
    }
}

/// A successful response's JSON body, or the server error.
pub fn json_body(resp: &ApiResponse) -> Result<Value, CmdError> {
    if !resp.is_success() {
        return Err(CmdError::server(resp));
    }
    serde_json::from_str(&resp.body)
        .map_err(|e| CmdError::msg(format!("unable to decode the server's response: {e}")))
}

/// `checkErr` for an `Invalid` status: `The Kind "name" is invalid` (or `The request is
/// invalid` without either) and its causes as `field: message` — one on the same line, several
/// each on a `* ` line — duplicates dropped (`statusCausesToAggrError`); the bare message when
/// the status has no details.
fn invalid_text(status: &Status) -> String {
    let Some(d) = status.details.as_deref() else {
        return status.message().to_string();
    };
    let head = if d.kind.is_empty() && d.name.is_empty() {
        "The request is invalid".to_string()
    } else {
        format!(
            "The {} {} is invalid",
            d.kind,
            watchlab_apimachinery::gofmt::go_quote(&d.name)
        )
    };
    let mut causes: Vec<String> = Vec::new();
    for c in &d.causes {
        let line = format!("{}: {}", c.field, c.message);
        if !causes.contains(&line) {
            causes.push(line);
        }
    }
    match causes.as_slice() {
        [] => head,
        [one] => format!("{head}: {one}"),
        many => format!("{head}: \n* {}", many.join("\n* ")),
    }
}

/// The `Status` in an error body, if it is one.
pub fn decode_status(resp: &ApiResponse) -> Option<Status> {
    let status: Status = serde_json::from_str(&resp.body).ok()?;
    (status.kind == "Status").then_some(status)
}

/// The reason and generic text client-go's `NewGenericServerResponse` gives a bare status code.
fn reason_for_code(code: u16) -> (&'static str, &'static str) {
    match code {
        400 => ("BadRequest", "the server rejected our request for an unknown reason"),
        401 => ("Unauthorized", "the server has asked for the client to provide credentials"),
        403 => ("Forbidden", "the server does not allow access to the requested resource"),
        404 => ("NotFound", "the server could not find the requested resource"),
        405 => ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
        409 => ("Conflict", "the server reported a conflict"),
        410 => ("Expired", "the server could not find the requested resource"),
        422 => ("Invalid", "the server rejected our request due to an error in our request"),
        429 => ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
        503 => ("ServiceUnavailable", "the server is currently unable to handle the request"),
        504 => ("Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"),
        _ => ("InternalError", "an error on the server has prevented the request from succeeding"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use watchlab_apimachinery::status::GroupResource;
    use watchlab_apimachinery::validation::FieldError;

    fn resp(status: &Status) -> ApiResponse {
        ApiResponse {
            code: status.code(),
            body: status.to_json(),
        }
    }

    #[test]
    fn server_errors_print_like_kubectl() {
        let nf = Status::not_found(&GroupResource::new("", "pods"), "x");
        assert_eq!(
            server_error_text(&resp(&nf)),
            "Error from server (NotFound): pods \"x\" not found"
        );
        let conflict = Status::conflict(
            &GroupResource::new("apps", "deployments"),
            "orders-api",
            Status::OPTIMISTIC_LOCK_ERROR_MSG,
        );
        assert_eq!(
            server_error_text(&resp(&conflict)),
            "Error from server (Conflict): Operation cannot be fulfilled on deployments.apps \"orders-api\": the object has been modified; please apply your changes to the latest version and try again"
        );
        let bare = ApiResponse {
            code: 503,
            body: String::new(),
        };
        assert_eq!(
            server_error_text(&bare),
            "Error from server (ServiceUnavailable): the server is currently unable to handle the request"
        );
    }

    #[test]
    fn invalid_objects_print_their_causes_like_kubectl() {
        let range = "must be between 1 and 65535, inclusive";
        let port = FieldError::invalid("spec.ports[0].port", 70000i64, range);
        let target = FieldError::invalid("spec.ports[0].targetPort", 70000i64, range);
        let one = Status::invalid("Service", "", "bad", std::slice::from_ref(&port));
        assert_eq!(
            server_error_text(&resp(&one)),
            "The Service \"bad\" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"
        );
        let two = Status::invalid(
            "Service",
            "",
            "bad",
            &[port.clone(), target.clone(), target],
        );
        assert_eq!(
            server_error_text(&resp(&two)),
            "The Service \"bad\" is invalid: \n* spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n* spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive"
        );
        let anonymous = Status::invalid("", "", "", &[port]);
        assert!(server_error_text(&resp(&anonymous))
            .starts_with("The request is invalid: spec.ports[0].port: "));
    }

    #[test]
    fn cobra_texts() {
        let e = CmdError::flag("get", &FlagError::Unknown("foo".into()));
        assert_eq!(
            e.stderr,
            "Error: unknown flag: --foo\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            CmdError::required_flag("image").stderr,
            "error: required flag(s) \"image\" not set\n"
        );
    }
}
