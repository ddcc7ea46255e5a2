//! A container's environment, `v1.EnvVar` and `v1.EnvFromSource`: the variables a manifest sets
//! by value, from the pod's own fields (the downward API's `fieldRef`, `resourceFieldRef`), from
//! one key of a ConfigMap or Secret, or all keys of one (`envFrom`). Trainers' manifests carry
//! them everywhere (`env: [{name: MODE, value: prod}]`, a `configMapKeyRef`), so the API server
//! keeps them as sent, defaults a `fieldRef`'s `apiVersion` to `v1`
//! (`SetDefaults_ObjectFieldSelector`), and refuses what v1.32's `ValidateEnv`,
//! `validateEnvVarValueFrom` and `ValidateEnvFrom` refuse (`pkg/apis/core/validation`), with
//! their messages. Names follow `RelaxedEnvironmentVariableValidation`, beta and on by default
//! in v1.32: any printable ASCII but `=`.

use serde::{Deserialize, Serialize};
use watchlab_apimachinery::validation::{
    is_config_map_key, is_dns1123_subdomain, is_qualified_name, FieldError,
};

/// `v1.EnvVar`: a name and either a value or where the value comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvVar {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_from: Option<Box<EnvVarSource>>,
}

/// `v1.EnvVarSource`: exactly one of its fields.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvVarSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_ref: Option<ObjectFieldSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_field_ref: Option<ResourceFieldSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map_key_ref: Option<KeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key_ref: Option<KeySelector>,
}

/// `v1.ObjectFieldSelector`: a field of the pod (`metadata.name`, `status.podIP`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectFieldSelector {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default)]
    pub field_path: String,
}

/// `v1.ResourceFieldSelector`: a container's request or limit (`limits.memory`). The divisor
/// is kept as sent.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFieldSelector {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub container_name: String,
    #[serde(default)]
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divisor: Option<serde_json::Value>,
}

/// `v1.ConfigMapKeySelector` and `v1.SecretKeySelector` (the same fields): one key of one
/// object in the pod's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeySelector {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// `v1.EnvFromSource`: every key of a ConfigMap or a Secret, each name with `prefix`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvFromSource {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map_ref: Option<ObjectRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<ObjectRef>,
}

/// `v1.ConfigMapEnvSource` and `v1.SecretEnvSource`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// `validEnvDownwardAPIFieldPathExpressions` of v1.32 (sorted: the NotSupported list).
const FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// The labels `ConvertDownwardAPIFieldLabel` knows for `v1` pods: a path outside these fails
/// conversion; one inside but not in [`FIELD_PATHS`] is NotSupported.
const CONVERTIBLE_FIELD_PATHS: &[&str] = &[
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.phase",
    "status.podIP",
    "status.podIPs",
];

/// `validContainerResourceFieldPathExpressions`.
const RESOURCE_FIELDS: &[&str] = &[
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
];

const RELAXED_NAME_MESSAGE: &str =
    "a valid environment variable name must consist only of printable ASCII characters other than '='";

/// `SetDefaults_ObjectFieldSelector`: a `fieldRef` without `apiVersion` reads a `v1` pod.
pub fn default_env(env: &mut [EnvVar]) {
    for field_ref in env
        .iter_mut()
        .filter_map(|e| e.value_from.as_mut()?.field_ref.as_mut())
    {
        if field_ref.api_version.is_empty() {
            field_ref.api_version = "v1".into();
        }
    }
}

/// `IsRelaxedEnvVarName`.
fn name_errors(name: &str) -> Vec<String> {
    if name
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'=')
    {
        Vec::new()
    } else {
        vec![RELAXED_NAME_MESSAGE.to_string()]
    }
}

/// `field` holding `value`: Required when empty, else Invalid with each of `check`'s messages.
fn required_and(field: &str, value: &str, check: fn(&str) -> Vec<String>) -> Vec<FieldError> {
    if value.is_empty() {
        return vec![FieldError::required(field, "")];
    }
    check(value)
        .iter()
        .map(|m| FieldError::invalid(field, value, m))
        .collect()
}

/// `ValidateEnv`: each variable's name, and its `valueFrom`.
pub fn validate_env(env: &[EnvVar], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, e) in env.iter().enumerate() {
        let f = format!("{path}[{i}]");
        errs.extend(required_and(&format!("{f}.name"), &e.name, name_errors));
        if let Some(from) = &e.value_from {
            errs.extend(value_from(
                from,
                !e.value.is_empty(),
                &format!("{f}.valueFrom"),
            ));
        }
    }
    errs
}

/// `validateEnvVarValueFrom`: each source's own rules, then exactly one source and no value.
fn value_from(from: &EnvVarSource, has_value: bool, f: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut sources = 0;
    if let Some(s) = &from.field_ref {
        sources += 1;
        errs.extend(field_selector(s, &format!("{f}.fieldRef")));
    }
    if let Some(s) = &from.resource_field_ref {
        sources += 1;
        let f = format!("{f}.resourceFieldRef.resource");
        if s.resource.is_empty() {
            errs.push(FieldError::required(&f, ""));
        } else if !RESOURCE_FIELDS.contains(&s.resource.as_str()) {
            errs.push(FieldError::not_supported(&f, &s.resource, RESOURCE_FIELDS));
        }
    }
    if let Some(s) = &from.config_map_key_ref {
        sources += 1;
        errs.extend(key_selector(s, &format!("{f}.configMapKeyRef")));
    }
    if let Some(s) = &from.secret_key_ref {
        sources += 1;
        errs.extend(key_selector(s, &format!("{f}.secretKeyRef")));
    }
    let problem = match sources {
        0 => Some("must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"),
        _ if has_value => Some("may not be specified when `value` is not empty"),
        1 => None,
        _ => Some("may not have more than one field specified at a time"),
    };
    errs.extend(problem.map(|m| FieldError::invalid(f, "", m)));
    errs
}

/// `validateObjectFieldSelector`: apiVersion and fieldPath required, the path convertible
/// (`ConvertDownwardAPIFieldLabel`), a subscript only on labels or annotations, the rest one of
/// [`FIELD_PATHS`].
fn field_selector(s: &ObjectFieldSelector, f: &str) -> Vec<FieldError> {
    if s.api_version.is_empty() {
        return vec![FieldError::required(&format!("{f}.apiVersion"), "")];
    }
    if s.field_path.is_empty() {
        return vec![FieldError::required(&format!("{f}.fieldPath"), "")];
    }
    let fp = format!("{f}.fieldPath");
    let (path, subscript) = match s.field_path.split_once('[') {
        Some((path, rest)) => (path, rest.strip_suffix(']')),
        None => (s.field_path.as_str(), None),
    };
    let conversion = if s.api_version != "v1" {
        Some(format!("unsupported pod version: {}", s.api_version))
    } else if !CONVERTIBLE_FIELD_PATHS.contains(&path) {
        Some(format!("field label not supported: {path}"))
    } else {
        None
    };
    if let Some(why) = conversion {
        let detail = format!("error converting fieldPath: {why}");
        return vec![FieldError::invalid(&fp, &s.field_path, &detail)];
    }
    match subscript {
        Some(key) if matches!(path, "metadata.labels" | "metadata.annotations") => {
            let key = key.trim_matches(|c| c == '\'' || c == '"');
            is_qualified_name(&key.to_lowercase())
                .iter()
                .map(|m| FieldError::invalid(f, key, m))
                .collect()
        }
        Some(_) => vec![FieldError::invalid(f, path, "does not support subscript")],
        None if !FIELD_PATHS.contains(&path) => {
            vec![FieldError::not_supported(&fp, path, FIELD_PATHS)]
        }
        None => Vec::new(),
    }
}

/// `validateConfigMapKeySelector` / `validateSecretKeySelector`: a DNS subdomain name and a
/// valid key.
fn key_selector(s: &KeySelector, f: &str) -> Vec<FieldError> {
    let name = format!("{f}.name");
    let mut errs: Vec<FieldError> = is_dns1123_subdomain(&s.name)
        .iter()
        .map(|m| FieldError::invalid(&name, &s.name, m))
        .collect();
    errs.extend(required_and(&format!("{f}.key"), &s.key, is_config_map_key));
    errs
}

/// `ValidateEnvFrom`: the prefix a valid name, exactly one source (reported on the list's own
/// path, as upstream does), its name required and a DNS subdomain.
pub fn validate_env_from(sources: &[EnvFromSource], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let f = format!("{path}[{i}]");
        if !s.prefix.is_empty() {
            let prefix = format!("{f}.prefix");
            errs.extend(
                name_errors(&s.prefix)
                    .iter()
                    .map(|m| FieldError::invalid(&prefix, &s.prefix, m)),
            );
        }
        let refs = [
            s.config_map_ref.as_ref().map(|r| (r, "configMapRef")),
            s.secret_ref.as_ref().map(|r| (r, "secretRef")),
        ];
        for (r, field) in refs.iter().flatten() {
            let name = format!("{f}.{field}.name");
            errs.extend(required_and(&name, &r.name, is_dns1123_subdomain));
        }
        match refs.iter().flatten().count() {
            0 => errs.push(FieldError::invalid(
                path,
                "",
                "must specify one of: `configMapRef` or `secretRef`",
            )),
            1 => {}
            _ => errs.push(FieldError::invalid(
                path,
                "",
                "may not have more than one field specified at a time",
            )),
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(json: serde_json::Value) -> EnvVar {
        serde_json::from_value(json).unwrap()
    }

    fn messages(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn names_are_printable_ascii_without_an_equals_sign() {
        let env = [
            var(serde_json::json!({"name": "MY.var-1 ok", "value": "x"})),
            var(serde_json::json!({"name": "KEY=1", "value": "x"})),
            var(serde_json::json!({"value": "x"})),
        ];
        assert_eq!(
            messages(&validate_env(&env, "spec.containers[0].env")),
            [
                "spec.containers[0].env[1].name: Invalid value: \"KEY=1\": a valid environment variable name must consist only of printable ASCII characters other than '='",
                "spec.containers[0].env[2].name: Required value",
            ]
        );
    }

    #[test]
    fn value_from_takes_exactly_one_source_and_no_value() {
        let f = "spec.containers[0].env";
        let none = var(serde_json::json!({"name": "A", "valueFrom": {}}));
        let both = var(serde_json::json!({"name": "A", "valueFrom": {
            "configMapKeyRef": {"name": "cfg", "key": "mode"},
            "secretKeyRef": {"name": "pw", "key": "password"}}}));
        let with_value = var(serde_json::json!({"name": "A", "value": "x", "valueFrom": {
            "configMapKeyRef": {"name": "cfg", "key": "mode"}}}));
        assert_eq!(
            messages(&validate_env(&[none, both, with_value], f)),
            [
                "spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
                "spec.containers[0].env[1].valueFrom: Invalid value: \"\": may not have more than one field specified at a time",
                "spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
            ]
        );
    }

    #[test]
    fn field_refs_name_a_field_the_downward_api_exposes() {
        let mut env = vec![
            var(
                serde_json::json!({"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}),
            ),
            var(
                serde_json::json!({"name": "PHASE", "valueFrom": {"fieldRef": {"fieldPath": "status.phase"}}}),
            ),
            var(
                serde_json::json!({"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "spec.foo"}}}),
            ),
            var(
                serde_json::json!({"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}}),
            ),
            var(
                serde_json::json!({"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name['x']"}}}),
            ),
        ];
        let f = "spec.containers[0].env";
        assert_eq!(
            messages(&validate_env(&env, f))[0],
            "spec.containers[0].env[0].valueFrom.fieldRef.apiVersion: Required value"
        );
        default_env(&mut env);
        assert_eq!(
            env[0]
                .value_from
                .as_ref()
                .unwrap()
                .field_ref
                .as_ref()
                .unwrap()
                .api_version,
            "v1"
        );
        assert_eq!(
            messages(&validate_env(&env, f)),
            [
                "spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Unsupported value: \"status.phase\": supported values: \"metadata.name\", \"metadata.namespace\", \"metadata.uid\", \"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", \"status.hostIPs\", \"status.podIP\", \"status.podIPs\"",
                "spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.foo\": error converting fieldPath: field label not supported: spec.foo",
                "spec.containers[0].env[4].valueFrom.fieldRef: Invalid value: \"metadata.name\": does not support subscript",
            ]
        );
    }

    #[test]
    fn key_refs_need_a_name_and_a_valid_key() {
        let env = [
            var(
                serde_json::json!({"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cfg"}}}),
            ),
            var(
                serde_json::json!({"name": "B", "valueFrom": {"secretKeyRef": {"name": "Pw", "key": "a/b"}}}),
            ),
            var(
                serde_json::json!({"name": "C", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}}),
            ),
        ];
        let got = messages(&validate_env(&env, "env"));
        assert_eq!(
            got[0],
            "env[0].valueFrom.configMapKeyRef.key: Required value"
        );
        assert!(got[1].starts_with("env[1].valueFrom.secretKeyRef.name: Invalid value: \"Pw\": a lowercase RFC 1123 subdomain"), "{got:?}");
        assert!(
            got[2].starts_with(
                "env[1].valueFrom.secretKeyRef.key: Invalid value: \"a/b\": a valid config key"
            ),
            "{got:?}"
        );
        assert!(
            got[3].starts_with(
                "env[2].valueFrom.resourceFieldRef.resource: Unsupported value: \"limits.gpu\""
            ),
            "{got:?}"
        );
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn env_from_names_one_source_with_a_valid_prefix() {
        let sources: Vec<EnvFromSource> = serde_json::from_value(serde_json::json!([
            {"configMapRef": {"name": "cfg"}, "prefix": "CFG_"},
            {"prefix": "A=B"},
            {"configMapRef": {"name": "cfg"}, "secretRef": {"name": ""}},
        ]))
        .unwrap();
        assert_eq!(
            messages(&validate_env_from(&sources, "spec.containers[0].envFrom")),
            [
                "spec.containers[0].envFrom[1].prefix: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
                "spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`",
                "spec.containers[0].envFrom[2].secretRef.name: Required value",
                "spec.containers[0].envFrom: Invalid value: \"\": may not have more than one field specified at a time",
            ]
        );
    }

    #[test]
    fn what_is_sent_is_what_is_kept() {
        let sent = serde_json::json!({"name": "MEM", "valueFrom": {"resourceFieldRef": {
            "containerName": "app", "resource": "limits.memory", "divisor": "1Mi"}}});
        assert_eq!(serde_json::to_value(var(sent.clone())).unwrap(), sent);
    }
}
