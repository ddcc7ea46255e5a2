//! `authorization.k8s.io/v1`'s self reviews, answered as a kube-apiserver started with
//! `--authorization-mode=AlwaysAllow` answers them (watchlab has no authentication: every request
//! is an admin's). `SelfSubjectAccessReview` ("may I do this?", `kubectl auth can-i`) comes back
//! with `status.allowed: true` and no reason, as the AlwaysAllow authorizer's `Authorize` gives
//! none; `SelfSubjectRulesReview` ("what may I do?", `kubectl auth can-i --list`) with its
//! `RulesFor`: one resource rule `*` verbs on `*` groups and `*` resources, one non-resource rule
//! `*` on `*`, `incomplete: false` (k8s.io/apiserver `pkg/authorization/authorizerfactory/builtin.go`).
//!
//! Both are create-only and stored nowhere (the real registries' `REST` has only `Create`): a POST
//! on the collection answers 201 with the review, any other method 405 as go-restful's missing
//! route, any other path under the group 404. Nothing here reads or writes the store, so the
//! answers need no [`super::ApiServer`]; the registry does not list them (they are not objects).

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use watchlab_apimachinery::client::ApiResponse;
use watchlab_apimachinery::request::{parse_request, FieldValidation};
use watchlab_apimachinery::status::{Status, StatusReason};
use watchlab_apimachinery::validation::{BadValue, FieldError};

/// The group.
pub const GROUP: &str = "authorization.k8s.io";
/// Its one served version.
pub const VERSION: &str = "v1";
/// `apiVersion` of its objects.
pub const API_VERSION: &str = "authorization.k8s.io/v1";

/// One create-only review resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Review {
    pub plural: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
}

/// `selfsubjectaccessreviews`.
pub const SELF_SUBJECT_ACCESS_REVIEW: Review = Review {
    plural: "selfsubjectaccessreviews",
    singular: "selfsubjectaccessreview",
    kind: "SelfSubjectAccessReview",
};

/// `selfsubjectrulesreviews`.
pub const SELF_SUBJECT_RULES_REVIEW: Review = Review {
    plural: "selfsubjectrulesreviews",
    singular: "selfsubjectrulesreview",
    kind: "SelfSubjectRulesReview",
};

/// The served reviews, in the real server's discovery order.
pub const REVIEWS: [Review; 2] = [SELF_SUBJECT_ACCESS_REVIEW, SELF_SUBJECT_RULES_REVIEW];

/// The discovery entries of `/apis/authorization.k8s.io/v1`: cluster-scoped, `create` only.
pub fn discovery_resources() -> Vec<Value> {
    REVIEWS
        .iter()
        .map(|r| {
            json!({"name": r.plural, "singularName": r.singular, "namespaced": false,
                   "kind": r.kind, "verbs": ["create"]})
        })
        .collect()
}

/// What a request under the group got: the response and the warnings for its `Warning`
/// headers (`fieldValidation=Warn`'s unknown fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub response: ApiResponse,
    pub warnings: Vec<String>,
}

impl Answer {
    fn of(result: Result<(Value, Vec<String>), Status>) -> Answer {
        match result {
            Ok((review, warnings)) => Answer {
                response: ApiResponse {
                    code: 201,
                    body: review.to_string(),
                },
                warnings,
            },
            Err(s) => Answer {
                response: ApiResponse {
                    code: s.code(),
                    body: s.to_json(),
                },
                warnings: Vec::new(),
            },
        }
    }
}

/// The answer to a request under `/apis/authorization.k8s.io/`; `None` for any other path
/// (discovery documents are answered before this, by [`super::discovery`]).
pub fn answer(method: &str, path_and_query: &str, body: Option<&str>) -> Option<Answer> {
    let path = path_and_query.split(['?', '#']).next().unwrap_or_default();
    let rest = path.strip_prefix("/apis/")?.strip_prefix(GROUP)?;
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None; // `authorization.k8s.io.example.com`
    }
    let plural = rest
        .strip_prefix('/')
        .and_then(|r| r.strip_prefix(VERSION))
        .and_then(|r| r.strip_prefix('/'))
        .map(|r| r.trim_end_matches('/'));
    let Some(review) = plural.and_then(|p| REVIEWS.into_iter().find(|r| r.plural == p)) else {
        return Some(Answer::of(Err(Status::path_not_found())));
    };
    if !method.eq_ignore_ascii_case("POST") {
        // The storage registers only a POST route: go-restful's 405, as the generic server
        // renders it (`NewGenericServerResponse`).
        return Some(Answer::of(Err(Status::failure(
            405,
            StatusReason::MethodNotAllowed,
            "the server does not allow this method on the requested resource",
            Some(Default::default()),
        ))));
    }
    Some(Answer::of(create(review, path_and_query, body)))
}

/// A POST of `review`: decoded, checked and answered with its status filled.
fn create(
    review: Review,
    path_and_query: &str,
    body: Option<&str>,
) -> Result<(Value, Vec<String>), Status> {
    super::limits::check_body(body)?;
    let (_, query) = parse_request("POST", path_and_query)?;
    let body = body
        .filter(|b| !b.trim().is_empty())
        .ok_or_else(|| Status::bad_request("the body of the request was empty"))?;
    let value: Value = serde_json::from_str(body).map_err(|e| {
        Status::bad_request(&format!("couldn't get version/kind; json parse error: {e}"))
    })?;
    let kind = review.kind;
    let cannot = |what: &str| {
        Status::bad_request(&format!(
            "{kind} in version \"v1\" cannot be handled as a {kind}: {what}"
        ))
    };
    let Value::Object(map) = &value else {
        return Err(cannot(&format!(
            "json: cannot unmarshal non-object into Go value of type v1.{kind}"
        )));
    };
    let text = |k: &str| map.get(k).and_then(Value::as_str);
    let body_version = text("apiVersion").unwrap_or(API_VERSION);
    if body_version != API_VERSION {
        return Err(Status::bad_request(&format!(
            "the API version in the data ({body_version}) does not match the expected API version ({API_VERSION})"
        )));
    }
    let body_kind = text("kind").unwrap_or(kind);
    if body_kind != kind {
        return Err(Status::bad_request(&format!(
            "{body_kind} in version \"v1\" cannot be handled as a {kind}: the object provided is unrecognized (must be of type {kind})"
        )));
    }
    let root = if review == SELF_SUBJECT_ACCESS_REVIEW {
        &SSAR
    } else {
        &SSRR
    };
    let mut unknown = Vec::new();
    unknown_fields(&value, root, "", &mut unknown);
    let warnings = match query.field_validation {
        FieldValidation::Ignore => Vec::new(),
        FieldValidation::Strict if !unknown.is_empty() => {
            return Err(cannot(&format!(
                "strict decoding error: {}",
                unknown.join(", ")
            )))
        }
        _ => unknown,
    };
    let decoded: Body =
        serde_json::from_value(value.clone()).map_err(|e| cannot(&e.to_string()))?;
    let answered = if review == SELF_SUBJECT_ACCESS_REVIEW {
        access_review(decoded)?
    } else {
        rules_review(decoded)?
    };
    Ok((answered, warnings))
}

/// Both reviews' bodies: the fields either has (the other's are absent).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Body {
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    spec: Option<Spec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    #[serde(default)]
    resource_attributes: Option<ResourceAttributes>,
    #[serde(default)]
    non_resource_attributes: Option<NonResourceAttributes>,
    /// SelfSubjectRulesReview's.
    #[serde(default)]
    namespace: String,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceAttributes {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    namespace: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    verb: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    resource: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    subresource: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field_selector: Option<SelectorAttributes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label_selector: Option<SelectorAttributes>,
}

/// `FieldSelectorAttributes` / `LabelSelectorAttributes`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct SelectorAttributes {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    raw_selector: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    requirements: Vec<Value>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct NonResourceAttributes {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    path: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    verb: String,
}

/// The metadata a decoded review carries back: none (`metav1.ObjectMeta{}`, whose zero
/// `creationTimestamp` Go writes as `null`).
fn empty_metadata() -> Value {
    json!({"creationTimestamp": null})
}

/// `ValidateSelfSubjectAccessReview` in the errors' own words, then AlwaysAllow's decision.
fn access_review(body: Body) -> Result<Value, Status> {
    let spec = body.spec.unwrap_or_default();
    let mut errs = Vec::new();
    let (ra, nra) = (&spec.resource_attributes, &spec.non_resource_attributes);
    if ra.is_some() && nra.is_some() {
        errs.push(FieldError::invalid(
            "spec.nonResourceAttributes",
            BadValue::Verbatim(go_value(nra)),
            "cannot be specified in combination with resourceAttributes",
        ));
    }
    if ra.is_none() && nra.is_none() {
        errs.push(FieldError::invalid(
            "spec.resourceAttributes",
            "null",
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ));
    }
    errs.extend(metadata_errors(body.metadata.as_ref()));
    if !errs.is_empty() {
        return Err(Status::invalid(
            SELF_SUBJECT_ACCESS_REVIEW.kind,
            GROUP,
            "",
            &errs,
        ));
    }
    let mut out_spec = Map::new();
    if let Some(ra) = ra {
        out_spec.insert("resourceAttributes".into(), json!(ra));
    }
    if let Some(nra) = nra {
        out_spec.insert("nonResourceAttributes".into(), json!(nra));
    }
    Ok(json!({
        "kind": SELF_SUBJECT_ACCESS_REVIEW.kind,
        "apiVersion": API_VERSION,
        "metadata": empty_metadata(),
        "spec": out_spec,
        // AlwaysAllow: DecisionAllow, reason "" (omitted, as `denied: false`).
        "status": {"allowed": true},
    }))
}

/// The rules review's REST: a namespace is required; the answer carries AlwaysAllow's rules and
/// neither the metadata nor the spec it was sent (the real `Create` builds a new object).
fn rules_review(body: Body) -> Result<Value, Status> {
    if body.spec.unwrap_or_default().namespace.is_empty() {
        return Err(Status::bad_request("no namespace on request"));
    }
    Ok(json!({
        "kind": SELF_SUBJECT_RULES_REVIEW.kind,
        "apiVersion": API_VERSION,
        "metadata": empty_metadata(),
        "spec": {},
        "status": {
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": false,
        },
    }))
}

/// A value as Go's `%#v`-ish rendering in an error: here its JSON (see DIFFERENCES.md).
fn go_value<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// "metadata: must be empty": a review carries no metadata (`managedFields` aside).
fn metadata_errors(meta: Option<&Map<String, Value>>) -> Option<FieldError> {
    let meta = meta?;
    let set = meta.iter().any(|(k, v)| {
        k != "managedFields"
            && !matches!(v, Value::Null)
            && *v != json!("")
            && *v != json!({})
            && *v != json!([])
            && *v != json!(0)
    });
    set.then(|| {
        FieldError::invalid(
            "metadata",
            BadValue::Verbatim(go_value(meta)),
            "must be empty",
        )
    })
}

/// A message's fields for the unknown-field check: name and the schema of an object value
/// (`None`: a scalar, or a value not looked into).
struct Fields(&'static [(&'static str, Option<&'static Fields>)]);

static OBJECT_META: Fields = Fields(&[
    ("annotations", None),
    ("creationTimestamp", None),
    ("deletionGracePeriodSeconds", None),
    ("deletionTimestamp", None),
    ("finalizers", None),
    ("generateName", None),
    ("generation", None),
    ("labels", None),
    ("managedFields", None),
    ("name", None),
    ("namespace", None),
    ("ownerReferences", None),
    ("resourceVersion", None),
    ("selfLink", None),
    ("uid", None),
]);
static SELECTOR_ATTRIBUTES: Fields = Fields(&[("rawSelector", None), ("requirements", None)]);
static RESOURCE_ATTRIBUTES: Fields = Fields(&[
    ("fieldSelector", Some(&SELECTOR_ATTRIBUTES)),
    ("group", None),
    ("labelSelector", Some(&SELECTOR_ATTRIBUTES)),
    ("name", None),
    ("namespace", None),
    ("resource", None),
    ("subresource", None),
    ("verb", None),
    ("version", None),
]);
static NON_RESOURCE_ATTRIBUTES: Fields = Fields(&[("path", None), ("verb", None)]);
static SSAR_SPEC: Fields = Fields(&[
    ("nonResourceAttributes", Some(&NON_RESOURCE_ATTRIBUTES)),
    ("resourceAttributes", Some(&RESOURCE_ATTRIBUTES)),
]);
static ACCESS_STATUS: Fields = Fields(&[
    ("allowed", None),
    ("denied", None),
    ("evaluationError", None),
    ("reason", None),
]);
static SSAR: Fields = Fields(&[
    ("apiVersion", None),
    ("kind", None),
    ("metadata", Some(&OBJECT_META)),
    ("spec", Some(&SSAR_SPEC)),
    ("status", Some(&ACCESS_STATUS)),
]);
static SSRR_SPEC: Fields = Fields(&[("namespace", None)]);
static RULES_STATUS: Fields = Fields(&[
    ("evaluationError", None),
    ("incomplete", None),
    ("nonResourceRules", None),
    ("resourceRules", None),
]);
static SSRR: Fields = Fields(&[
    ("apiVersion", None),
    ("kind", None),
    ("metadata", Some(&OBJECT_META)),
    ("spec", Some(&SSRR_SPEC)),
    ("status", Some(&RULES_STATUS)),
]);

/// `unknown field "spec.foo"` for every key of `value` its schema lacks, by path.
fn unknown_fields(value: &Value, fields: &Fields, path: &str, out: &mut Vec<String>) {
    let Value::Object(map) = value else {
        return;
    };
    for (key, v) in map {
        let here = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        match fields.0.iter().find(|(name, _)| name == key) {
            None => out.push(format!("unknown field {here:?}")),
            Some((_, Some(inner))) => unknown_fields(v, inner, &here, out),
            Some((_, None)) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_groups_paths_are_answered() {
        assert!(answer("POST", "/api/v1/pods", None).is_none());
        assert!(answer("POST", "/apis/authorization.k8s.io.example.com/v1/x", None).is_none());
        let missing = answer(
            "POST",
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            None,
        );
        assert_eq!(missing.map(|a| a.response.code), Some(404));
    }

    #[test]
    fn unknown_fields_are_named_by_path() {
        let mut out = Vec::new();
        let body = json!({"spec": {"resourceAttributes": {"verb": "get", "colour": 1}, "x": 2},
                          "metadata": {"name": "", "bogus": 1}});
        unknown_fields(&body, &SSAR, "", &mut out);
        assert_eq!(
            out,
            [
                "unknown field \"metadata.bogus\"",
                "unknown field \"spec.resourceAttributes.colour\"",
                "unknown field \"spec.x\""
            ]
        );
    }
}
