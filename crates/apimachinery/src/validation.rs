//! Name, label and annotation validation (`k8s.io/apimachinery/pkg/util/validation`,
//! `.../util/validation/field` and `.../api/validation`), with the exact Kubernetes texts.
//!
//! The API server refuses `Bad_Name` with a 422 whose message learners copy into search engines,
//! so every message here (the regex quoted in it, the double space between examples, the
//! `name part` prefixes) is the one the real validators produce. The regular expressions are
//! hand-written matchers: they are small, and the crate stays free of a regex engine. Labels and
//! annotations arrive as plain string maps, so this module needs nothing from `labels` (which
//! validates selector keys and values with it).

use crate::quote::quote;
use std::collections::BTreeMap;
use std::fmt;

/// Longest DNS-1123 label (`DNS1123LabelMaxLength`).
pub const DNS1123_LABEL_MAX_LENGTH: usize = 63;
/// Longest DNS-1123 subdomain (`DNS1123SubdomainMaxLength`).
pub const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
/// Longest name part of a qualified name (`qualifiedNameMaxLength`).
pub const QUALIFIED_NAME_MAX_LENGTH: usize = 63;
/// Longest label value (`LabelValueMaxLength`).
pub const LABEL_VALUE_MAX_LENGTH: usize = 63;
/// Total size of all annotation keys and values (`TotalAnnotationSizeLimitB`, 256 KiB).
pub const TOTAL_ANNOTATION_SIZE_LIMIT_B: usize = 256 * (1 << 10);

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_ERR_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// `MaxLenError`.
pub fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

/// `EmptyError`.
pub fn empty_error() -> String {
    "must be non-empty".to_string()
}

/// `RegexError`: the message, the examples and the regex, punctuated exactly as Kubernetes
/// does (including the double space before each `or`).
pub fn regex_error(msg: &str, regex: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{regex}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, example) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(example);
        out.push_str("', ");
    }
    out.push_str("regex used for validation is '");
    out.push_str(regex);
    out.push_str("')");
    out
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn matches_dns1123_label(v: &str) -> bool {
    let b = v.as_bytes();
    let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(&first), Some(&last)) => {
            edge(first) && edge(last) && b.iter().all(|&c| edge(c) || c == b'-')
        }
        _ => false,
    }
}

/// `label(\.label)*`
fn matches_dns1123_subdomain(v: &str) -> bool {
    v.split('.').all(matches_dns1123_label)
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn matches_qualified_name(v: &str) -> bool {
    let b = v.as_bytes();
    match (b.first(), b.last()) {
        (Some(&first), Some(&last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && b.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `IsDNS1123Label`: empty when `v` is valid, else the reasons.
pub fn is_dns1123_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !matches_dns1123_label(v) {
        if matches_dns1123_subdomain(v) {
            // A valid subdomain but not a label: the length is checked already, so it is dots.
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1123Subdomain`: empty when `v` is valid, else the reasons.
pub fn is_dns1123_subdomain(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !matches_dns1123_subdomain(v) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsQualifiedName`: label and annotation keys, `[prefix/]name` with a DNS subdomain prefix.
pub fn is_qualified_name(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = v.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push(format!("prefix part {}", empty_error()));
            } else {
                errs.extend(
                    is_dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR_MSG,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push(format!("name part {}", empty_error()));
    } else if name.len() > QUALIFIED_NAME_MAX_LENGTH {
        errs.push(format!(
            "name part {}",
            max_len_error(QUALIFIED_NAME_MAX_LENGTH)
        ));
    }
    if !matches_qualified_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`: empty or a qualified-name-like value of at most 63 characters.
pub fn is_valid_label_value(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(max_len_error(LABEL_VALUE_MAX_LENGTH));
    }
    if !(v.is_empty() || matches_qualified_name(v)) {
        errs.push(regex_error(
            LABEL_VALUE_ERR_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// The kind of a field error (`field.ErrorType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldErrorKind {
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    Internal,
    TypeInvalid,
}

impl FieldErrorKind {
    /// The machine-readable reason, used as a `StatusCause` reason (`FieldValueInvalid`...).
    pub fn reason(self) -> &'static str {
        match self {
            FieldErrorKind::NotFound => "FieldValueNotFound",
            FieldErrorKind::Required => "FieldValueRequired",
            FieldErrorKind::Duplicate => "FieldValueDuplicate",
            FieldErrorKind::Invalid => "FieldValueInvalid",
            FieldErrorKind::NotSupported => "FieldValueNotSupported",
            FieldErrorKind::Forbidden => "FieldValueForbidden",
            FieldErrorKind::TooLong => "FieldValueTooLong",
            FieldErrorKind::TooMany => "FieldValueTooMany",
            FieldErrorKind::Internal => "InternalError",
            FieldErrorKind::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// The human-readable text (`ErrorType.String()`): `Invalid value`, `Required value`...
    pub fn text(self) -> &'static str {
        match self {
            FieldErrorKind::NotFound => "Not found",
            FieldErrorKind::Required => "Required value",
            FieldErrorKind::Duplicate => "Duplicate value",
            FieldErrorKind::Invalid | FieldErrorKind::TypeInvalid => "Invalid value",
            FieldErrorKind::NotSupported => "Unsupported value",
            FieldErrorKind::Forbidden => "Forbidden",
            FieldErrorKind::TooLong => "Too long",
            FieldErrorKind::TooMany => "Too many",
            FieldErrorKind::Internal => "Internal error",
        }
    }
}

/// The offending value of a field error, rendered the way Go's `ErrorBody` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadValue {
    /// A string: printed quoted (`"Bad_Name"`).
    Str(String),
    /// An integer: printed bare (`5`).
    Int(i64),
    /// Printed verbatim, e.g. Go's `%#v` of a slice: `[]string{"a", "b"}`.
    Verbatim(String),
}

impl From<&str> for BadValue {
    fn from(s: &str) -> Self {
        BadValue::Str(s.to_string())
    }
}

impl From<String> for BadValue {
    fn from(s: String) -> Self {
        BadValue::Str(s)
    }
}

impl From<&String> for BadValue {
    fn from(s: &String) -> Self {
        BadValue::Str(s.clone())
    }
}

impl From<i64> for BadValue {
    fn from(i: i64) -> Self {
        BadValue::Int(i)
    }
}

impl BadValue {
    /// Go's `%#v` of a `[]string`: `[]string{"a", "b"}` (`[]string{}` when empty).
    pub fn string_slice(values: &[String]) -> BadValue {
        let items: Vec<String> = values.iter().map(|v| quote(v)).collect();
        BadValue::Verbatim(format!("[]string{{{}}}", items.join(", ")))
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::Str(s) => f.write_str(&quote(s)),
            BadValue::Int(i) => write!(f, "{i}"),
            BadValue::Verbatim(s) => f.write_str(s),
        }
    }
}

/// One validation failure of one field (`field.Error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub kind: FieldErrorKind,
    /// The field path, e.g. `metadata.name` or `spec.containers[0].image`.
    pub field: String,
    /// `None` when the value is not shown (Go's `omitValue`).
    pub bad_value: Option<BadValue>,
    pub detail: String,
}

impl FieldError {
    fn new(
        kind: FieldErrorKind,
        field: &str,
        bad_value: Option<BadValue>,
        detail: impl Into<String>,
    ) -> Self {
        FieldError {
            kind,
            field: field.to_string(),
            bad_value,
            detail: detail.into(),
        }
    }

    /// `field.Invalid`.
    pub fn invalid(field: &str, value: impl Into<BadValue>, detail: &str) -> Self {
        Self::new(FieldErrorKind::Invalid, field, Some(value.into()), detail)
    }

    /// `field.Required`.
    pub fn required(field: &str, detail: &str) -> Self {
        Self::new(FieldErrorKind::Required, field, None, detail)
    }

    /// `field.NotFound`.
    pub fn not_found(field: &str, value: impl Into<BadValue>) -> Self {
        Self::new(FieldErrorKind::NotFound, field, Some(value.into()), "")
    }

    /// `field.Duplicate`.
    pub fn duplicate(field: &str, value: impl Into<BadValue>) -> Self {
        Self::new(FieldErrorKind::Duplicate, field, Some(value.into()), "")
    }

    /// `field.NotSupported`: detail `supported values: "a", "b"`.
    pub fn not_supported(field: &str, value: impl Into<BadValue>, supported: &[&str]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(
            FieldErrorKind::NotSupported,
            field,
            Some(value.into()),
            detail,
        )
    }

    /// `field.Forbidden`.
    pub fn forbidden(field: &str, detail: &str) -> Self {
        Self::new(FieldErrorKind::Forbidden, field, None, detail)
    }

    /// `field.TooLong`: `may not be more than N bytes` (the value is never shown).
    pub fn too_long(field: &str, max_length: usize) -> Self {
        Self::new(
            FieldErrorKind::TooLong,
            field,
            None,
            format!("may not be more than {max_length} bytes"),
        )
    }

    /// `field.TooMany`: `must have at most N items`.
    pub fn too_many(field: &str, actual: usize, max: usize) -> Self {
        Self::new(
            FieldErrorKind::TooMany,
            field,
            Some(BadValue::Int(i64::try_from(actual).unwrap_or(i64::MAX))),
            format!("must have at most {max} items"),
        )
    }

    /// `field.InternalError`.
    pub fn internal(field: &str, detail: &str) -> Self {
        Self::new(FieldErrorKind::Internal, field, None, detail)
    }

    /// `ErrorBody()`: the message without the field, e.g. `Invalid value: "x": detail`.
    pub fn body(&self) -> String {
        let mut s = match (&self.kind, &self.bad_value) {
            (
                FieldErrorKind::Required
                | FieldErrorKind::Forbidden
                | FieldErrorKind::TooLong
                | FieldErrorKind::Internal,
                _,
            )
            | (_, None) => self.kind.text().to_string(),
            (_, Some(value)) => format!("{}: {value}", self.kind.text()),
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// `Error()`: `metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 ...`.
    pub fn message(&self) -> String {
        format!("{}: {}", self.field, self.body())
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for FieldError {}

/// An `ErrorList` aggregated into one message the way `ToAggregate().Error()` does: duplicates
/// dropped, one message bare, several as `[a, b]`. Empty for no errors.
pub fn aggregate_message(errs: &[FieldError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        let m = e.message();
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    match seen.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `ValidateObjectMeta`'s name check: `Required value: name or generateName is required` when
/// empty, else one `Invalid value` per failed rule. `subdomain` picks `NameIsDNSSubdomain`
/// (pods, deployments...) over `NameIsDNSLabel` (namespaces, services).
pub fn validate_object_name(name: &str, field: &str, subdomain: bool) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![FieldError::required(
            field,
            "name or generateName is required",
        )];
    }
    let msgs = if subdomain {
        is_dns1123_subdomain(name)
    } else {
        is_dns1123_label(name)
    };
    msgs.iter()
        .map(|m| FieldError::invalid(field, name, m))
        .collect()
}

/// `ValidateLabels`: keys must be qualified names, values valid label values.
pub fn validate_labels(labels: &BTreeMap<String, String>, field: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        errs.extend(
            is_qualified_name(k)
                .iter()
                .map(|m| FieldError::invalid(field, k, m)),
        );
        errs.extend(
            is_valid_label_value(v)
                .iter()
                .map(|m| FieldError::invalid(field, v, m)),
        );
    }
    errs
}

/// `ValidateAnnotations`: keys are qualified names (case-insensitively) and all keys and values
/// together stay within 256 KiB.
pub fn validate_annotations(
    annotations: &BTreeMap<String, String>,
    field: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for k in annotations.keys() {
        errs.extend(
            is_qualified_name(&k.to_lowercase())
                .iter()
                .map(|m| FieldError::invalid(field, k, m)),
        );
    }
    let total: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_B {
        errs.push(FieldError::too_long(field, TOTAL_ANNOTATION_SIZE_LIMIT_B));
    }
    errs
}

/// `IsValidPortNum` (`InclusiveRangeError(1, 65535)`).
pub fn is_valid_port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec!["must be between 1 and 65535, inclusive".to_string()]
    }
}

/// `IsValidPortName`: an IANA_SVC_NAME (at most 15 lowercase alphanumerics and hyphens, at
/// least one letter, no `--`, no hyphen at either end).
pub fn is_valid_port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push(max_len_error(15));
    }
    if port.is_empty()
        || !port
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !port.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".into());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".into());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".into());
    }
    errs
}

/// `IsConfigMapKey`: a ConfigMap or Secret data key.
pub fn is_config_map_key(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if key.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if key.is_empty()
        || !key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'))
    {
        errs.push(regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            "[-._a-zA-Z0-9]+",
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    // `hasChDirPrefix`
    if key == "." {
        errs.push("must not be '.'".into());
    } else if key == ".." {
        errs.push("must not be '..'".into());
    } else if key.starts_with("..") {
        errs.push("must not start with '..'".into());
    }
    errs
}

/// `IsValidIP`'s message for anything that is not an IP address.
pub const INVALID_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    const NAME_PART_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

    #[test]
    fn dns1123_subdomains() {
        for ok in [
            "a",
            "nginx",
            "orders-api",
            "a.b.c",
            "1-2",
            "web-7d4b9c8f5-x2x9z",
            &"a".repeat(253),
        ] {
            assert!(is_dns1123_subdomain(ok).is_empty(), "{ok}");
        }
        for bad in ["Bad_Name", "-a", "a-", "", "a..b", ".a", "A", "a_b", "ü"] {
            assert_eq!(
                is_dns1123_subdomain(bad),
                vec![SUBDOMAIN_MSG.to_string()],
                "{bad}"
            );
        }
        assert_eq!(
            is_dns1123_subdomain(&"a".repeat(254)),
            vec!["must be no more than 253 characters".to_string()]
        );
        assert_eq!(
            is_dns1123_subdomain(&format!("{}_", "a".repeat(254))),
            vec![
                "must be no more than 253 characters".to_string(),
                SUBDOMAIN_MSG.to_string()
            ]
        );
    }

    #[test]
    fn dns1123_labels() {
        assert!(is_dns1123_label("production").is_empty());
        assert!(is_dns1123_label(&"a".repeat(63)).is_empty());
        assert_eq!(is_dns1123_label("Bad_Name"), vec![LABEL_MSG.to_string()]);
        assert_eq!(
            is_dns1123_label("a.b"),
            vec!["must not contain dots".to_string()]
        );
        assert_eq!(
            is_dns1123_label(&"a".repeat(64)),
            vec!["must be no more than 63 characters".to_string()]
        );
    }

    #[test]
    fn qualified_names() {
        for ok in [
            "app",
            "App",
            "app.kubernetes.io/name",
            "a_b",
            "a-b.c",
            "x/Y",
            &"a".repeat(63),
        ] {
            assert!(is_qualified_name(ok).is_empty(), "{ok}");
        }
        assert_eq!(is_qualified_name("-app"), vec![NAME_PART_MSG.to_string()]);
        assert_eq!(
            is_qualified_name(""),
            vec![
                "name part must be non-empty".to_string(),
                NAME_PART_MSG.to_string()
            ]
        );
        assert_eq!(
            is_qualified_name("/a"),
            vec!["prefix part must be non-empty".to_string()]
        );
        assert_eq!(
            is_qualified_name("Example.com/a"),
            vec![format!("prefix part {SUBDOMAIN_MSG}")]
        );
        assert_eq!(
            is_qualified_name(&"a".repeat(64)),
            vec!["name part must be no more than 63 characters".to_string()]
        );
        assert_eq!(
            is_qualified_name("a/b/c"),
            vec!["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".to_string()]
        );
    }

    #[test]
    fn label_values() {
        for ok in ["", "nginx", "v1.2_3", "A", &"a".repeat(63)] {
            assert!(is_valid_label_value(ok).is_empty(), "{ok:?}");
        }
        assert_eq!(is_valid_label_value("-x"), vec![VALUE_MSG.to_string()]);
        assert_eq!(is_valid_label_value("a b"), vec![VALUE_MSG.to_string()]);
        assert_eq!(
            is_valid_label_value(&"a".repeat(64)),
            vec!["must be no more than 63 characters".to_string()]
        );
    }

    #[test]
    fn field_error_messages() {
        let e = &validate_object_name("Bad_Name", "metadata.name", true)[0];
        assert_eq!(
            e.message(),
            format!("metadata.name: Invalid value: \"Bad_Name\": {SUBDOMAIN_MSG}")
        );
        assert_eq!(e.kind.reason(), "FieldValueInvalid");
        assert_eq!(
            validate_object_name("", "metadata.name", true)[0].message(),
            "metadata.name: Required value: name or generateName is required"
        );
        assert_eq!(
            FieldError::not_supported("spec.restartPolicy", "Sometimes", &["Always", "OnFailure", "Never"]).message(),
            "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""
        );
        assert_eq!(
            FieldError::forbidden("spec", "pod updates may not change fields other than `spec.containers[*].image`").message(),
            "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"
        );
        assert_eq!(
            FieldError::invalid("spec.replicas", -1i64, "must be greater than or equal to 0")
                .message(),
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
        assert_eq!(
            FieldError::duplicate("spec.containers[1].name", "web").message(),
            "spec.containers[1].name: Duplicate value: \"web\""
        );
        assert_eq!(
            FieldError::too_many("spec.containers", 5, 1).message(),
            "spec.containers: Too many: 5: must have at most 1 items"
        );
        assert_eq!(
            FieldError::not_found("spec.nodeName", "node-z").message(),
            "spec.nodeName: Not found: \"node-z\""
        );
    }

    #[test]
    fn aggregates_like_to_aggregate() {
        let a = FieldError::required("metadata.name", "name or generateName is required");
        let b = FieldError::invalid("metadata.namespace", "Bad", "x");
        assert_eq!(aggregate_message(&[]), "");
        assert_eq!(aggregate_message(std::slice::from_ref(&a)), a.message());
        assert_eq!(
            aggregate_message(&[a.clone(), b.clone(), a.clone()]),
            format!("[{}, {}]", a.message(), b.message())
        );
    }

    #[test]
    fn labels_and_annotations() {
        let mut labels = BTreeMap::new();
        labels.insert("app".into(), "nginx".into());
        assert!(validate_labels(&labels, "metadata.labels").is_empty());
        labels.insert("-bad".into(), "a b".into());
        let msgs: Vec<String> = validate_labels(&labels, "metadata.labels")
            .iter()
            .map(FieldError::message)
            .collect();
        assert_eq!(
            msgs,
            vec![
                format!("metadata.labels: Invalid value: \"-bad\": {NAME_PART_MSG}"),
                format!("metadata.labels: Invalid value: \"a b\": {VALUE_MSG}"),
            ]
        );

        let mut ann = BTreeMap::new();
        ann.insert("Kubernetes.io/Change-Cause".into(), "kubectl apply".into());
        assert!(validate_annotations(&ann, "metadata.annotations").is_empty());
        ann.insert("big".into(), "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_B));
        assert_eq!(
            validate_annotations(&ann, "metadata.annotations")
                .iter()
                .map(FieldError::message)
                .collect::<Vec<_>>(),
            vec!["metadata.annotations: Too long: may not be more than 262144 bytes".to_string()]
        );
    }

    proptest! {
        #[test]
        fn matchers_agree_with_the_grammar(s in "[a-z0-9.\\-]{0,12}") {
            let label_ok = !s.is_empty()
                && !s.starts_with('-') && !s.ends_with('-') && !s.contains('.');
            prop_assert_eq!(matches_dns1123_label(&s), label_ok);
            let subdomain_ok = s.split('.').all(|p| !p.is_empty() && !p.starts_with('-') && !p.ends_with('-'));
            prop_assert_eq!(matches_dns1123_subdomain(&s), subdomain_ok);
        }

        #[test]
        fn validators_never_panic(s in "\\PC*") {
            let _ = is_qualified_name(&s);
            let _ = is_valid_label_value(&s);
            let _ = is_dns1123_label(&s);
            let _ = validate_object_name(&s, "metadata.name", true);
        }
    }

    #[test]
    fn port_names_numbers_and_config_keys() {
        assert!(is_valid_port_num(80).is_empty());
        assert_eq!(
            is_valid_port_num(0),
            ["must be between 1 and 65535, inclusive"]
        );
        assert!(is_valid_port_name("http-alt").is_empty());
        assert_eq!(
            is_valid_port_name("8080"),
            ["must contain at least one letter (a-z)"]
        );
        assert_eq!(
            is_valid_port_name("a--b"),
            ["must not contain consecutive hyphens"]
        );
        assert!(is_config_map_key("KEY_name.1-x").is_empty());
        assert_eq!(is_config_map_key("..x"), ["must not start with '..'"]);
        assert_eq!(is_config_map_key("a b").len(), 1);
    }
}
