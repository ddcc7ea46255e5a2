//! Validation on create and update, as the real registry strategies run it (`ValidatePod`,
//! `ValidateDeployment`...): the field paths and messages of the 422 Invalid answers, and the
//! fields an update may not change.

use super::apps::{DeploymentSpec, IntOrString, PodTemplateSpec};
use super::behaviour::{self, Behaviour};
use super::container_env;
use super::meta::{go_string_map, LabelSelector, ObjectMeta};
use super::pod::ProbeKind;
use super::pod::{Container, PodSpec, Probe};
use super::policy::{PodDisruptionBudgetSpec, ALWAYS_ALLOW, IF_HEALTHY_BUDGET};
use super::{Kind, Object};
use watchlab_apimachinery::labels::LabelSelector as Selector;
use watchlab_apimachinery::validation::{
    is_dns1123_label, validate_annotations, validate_labels, validate_object_name, BadValue,
    FieldError,
};

const RESTART_POLICIES: &[&str] = &["Always", "OnFailure", "Never"];
pub(crate) const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];
pub(crate) const IMMUTABLE: &str = "field is immutable";

/// Everything wrong with a new object: its metadata, then its kind's own rules.
pub fn validate_create(obj: &Object) -> Vec<FieldError> {
    let r = obj.kind().resource();
    let mut errs = validate_meta(obj.kind(), obj.meta());
    errs.extend(r.rules.validate(obj));
    errs.extend(super::ephemeral_containers::on_create(obj));
    errs
}

/// Everything wrong with replacing `old` by `new` (the whole object, main resource).
pub fn validate_update(new: &Object, old: &Object) -> Vec<FieldError> {
    let rules = new.kind().resource().rules;
    let mut errs = validate_meta(new.kind(), new.meta());
    errs.extend(rules.validate_changed(new, old));
    errs.extend(rules.validate_update(new, old));
    errs
}

/// The real text of the pod spec update rule (`ValidatePodUpdate`).
pub const POD_UPDATE_FORBIDDEN: &str = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// `ValidatePodEphemeralContainersUpdate`: a write through `pods/ephemeralcontainers` is
/// validated as any pod write (metadata, spec), and its existing ephemeral containers are
/// kept as they were.
pub fn validate_ephemeral_containers_update(new: &Object, old: &Object) -> Vec<FieldError> {
    let mut errs = validate_meta(new.kind(), new.meta());
    errs.extend(new.kind().resource().rules.validate(new));
    errs.extend(super::ephemeral_containers::validate_kept(new, old));
    errs
}

pub(crate) fn validate_meta(kind: Kind, meta: &ObjectMeta) -> Vec<FieldError> {
    let mut errs = Vec::new();
    // Namespaces are DNS labels; every other kind here is a DNS subdomain.
    let subdomain = !kind.resource().dns_label_names;
    errs.extend(validate_object_name(&meta.name, "metadata.name", subdomain));
    if kind.resource().namespaced {
        if meta.namespace.is_empty() {
            errs.push(FieldError::required("metadata.namespace", ""));
        } else {
            errs.extend(
                is_dns1123_label(&meta.namespace)
                    .iter()
                    .map(|m| FieldError::invalid("metadata.namespace", &meta.namespace, m)),
            );
        }
    } else if !meta.namespace.is_empty() {
        errs.push(FieldError::forbidden(
            "metadata.namespace",
            "not allowed on this type",
        ));
    }
    errs.extend(validate_labels(&meta.labels, "metadata.labels"));
    errs.extend(validate_annotations(
        &meta.annotations,
        "metadata.annotations",
    ));
    errs
}

pub(crate) fn replicas(replicas: Option<i32>) -> Vec<FieldError> {
    match replicas {
        Some(r) if r < 0 => {
            vec![FieldError::invalid(
                "spec.replicas",
                i64::from(r),
                "must be greater than or equal to 0",
            )]
        }
        _ => vec![],
    }
}

fn selector_value(s: &LabelSelector) -> BadValue {
    BadValue::Verbatim(s.go_syntax())
}

/// `ValidateReplicaSetSpec`'s selector and template rules (shared with Deployments).
pub(crate) fn selector_and_template(
    selector: Option<&LabelSelector>,
    template: &PodTemplateSpec,
) -> Vec<FieldError> {
    workload_template(
        &WorkloadTemplate {
            spec: "spec",
            empty_selector_for: Some("deployment"),
            restart_policies: &["Always"],
        },
        selector,
        template,
    )
}

/// Where a workload keeps its selector and pod template and what it allows there.
pub(crate) struct WorkloadTemplate<'a> {
    /// The path of the spec holding `selector` and `template` (`spec`, or a CronJob's
    /// `spec.jobTemplate.spec`).
    pub spec: &'a str,
    /// The workload an empty selector is refused for, as the message names it (`deployment`,
    /// also for ReplicaSets as the real message does; `daemonset`); `None`: allowed (Jobs).
    pub empty_selector_for: Option<&'a str>,
    /// The pod `restartPolicy` values allowed (`Always`); empty when the caller checks it
    /// with its own texts (a Job's `OnFailure`, `Never`).
    pub restart_policies: &'a [&'a str],
}

/// A workload's selector (required, parsing, matching the template's labels) and its pod
/// template (labels, pod spec, restart policy), as `ValidateReplicaSetSpec`,
/// `ValidateDaemonSetSpec` and `validateJobSpec` check them.
pub(crate) fn workload_template(
    rules: &WorkloadTemplate,
    selector: Option<&LabelSelector>,
    template: &PodTemplateSpec,
) -> Vec<FieldError> {
    let spec = rules.spec;
    let mut errs = Vec::new();
    let parsed: Option<Selector> = match selector {
        None => {
            errs.push(FieldError::required(&format!("{spec}.selector"), ""));
            None
        }
        Some(s) => {
            if let Some(workload) = rules.empty_selector_for.filter(|_| s.is_empty()) {
                errs.push(FieldError::invalid(
                    &format!("{spec}.selector"),
                    selector_value(s),
                    &format!("empty selector is invalid for {workload}"),
                ));
            }
            match s.to_selector() {
                Ok(sel) => Some(sel),
                Err(_) => {
                    errs.push(FieldError::invalid(
                        &format!("{spec}.selector"),
                        selector_value(s),
                        "invalid label selector",
                    ));
                    None
                }
            }
        }
    };
    let labels_path = format!("{spec}.template.metadata.labels");
    if let Some(sel) = parsed {
        if !sel.is_empty() && !sel.matches(&template.metadata.labels) {
            errs.push(FieldError::invalid(
                &labels_path,
                BadValue::Verbatim(go_string_map(&template.metadata.labels)),
                "`selector` does not match template `labels`",
            ));
        }
    }
    errs.extend(validate_labels(&template.metadata.labels, &labels_path));
    let spec_path = format!("{spec}.template.spec");
    errs.extend(pod_spec(&template.spec, &spec_path));
    errs.extend(super::ephemeral_containers::in_template(
        &template.spec,
        &spec_path,
    ));
    let policy = template.spec.restart_policy.as_deref().unwrap_or("Always");
    if !rules.restart_policies.is_empty() && !rules.restart_policies.contains(&policy) {
        errs.push(FieldError::not_supported(
            &format!("{spec_path}.restartPolicy"),
            policy,
            rules.restart_policies,
        ));
    }
    errs
}

pub(crate) fn deployment_spec(spec: &DeploymentSpec) -> Vec<FieldError> {
    let mut errs = replicas(spec.replicas);
    errs.extend(selector_and_template(
        spec.selector.as_ref(),
        &spec.template,
    ));
    if let Some(strategy) = &spec.strategy {
        match strategy.type_.as_str() {
            "Recreate" => {
                if strategy.rolling_update.is_some() {
                    errs.push(FieldError::forbidden(
                        "spec.strategy.rollingUpdate",
                        "may not be specified when strategy `type` is 'Recreate'",
                    ));
                }
            }
            "RollingUpdate" => {
                if let Some(ru) = &strategy.rolling_update {
                    let f = "spec.strategy.rollingUpdate";
                    errs.extend(int_or_percent(
                        ru.max_surge.as_ref(),
                        &format!("{f}.maxSurge"),
                    ));
                    errs.extend(int_or_percent(
                        ru.max_unavailable.as_ref(),
                        &format!("{f}.maxUnavailable"),
                    ));
                    let zero = |v: &Option<IntOrString>| {
                        v.as_ref()
                            .is_none_or(|v| v.scaled_value(100, true) == Ok(0))
                    };
                    if zero(&ru.max_surge) && zero(&ru.max_unavailable) {
                        errs.push(FieldError::invalid(
                            &format!("{f}.maxUnavailable"),
                            int_or_string_value(ru.max_unavailable.as_ref()),
                            "may not be 0 when `maxSurge` is 0",
                        ));
                    }
                }
            }
            other => errs.push(FieldError::not_supported(
                "spec.strategy.type",
                other,
                &["Recreate", "RollingUpdate"],
            )),
        }
    }
    if let Some(r) = spec.revision_history_limit.filter(|r| *r < 0) {
        errs.push(FieldError::invalid(
            "spec.revisionHistoryLimit",
            i64::from(r),
            "must be greater than or equal to 0",
        ));
    }
    if let Some(p) = spec.progress_deadline_seconds {
        if p <= spec.min_ready_seconds.unwrap_or(0) {
            errs.push(FieldError::invalid(
                "spec.progressDeadlineSeconds",
                i64::from(p),
                "must be greater than minReadySeconds",
            ));
        }
    }
    errs
}

pub(crate) fn int_or_string_value(v: Option<&IntOrString>) -> BadValue {
    match v {
        Some(IntOrString::Int(i)) => BadValue::Int(i64::from(*i)),
        Some(IntOrString::String(s)) => BadValue::Str(s.clone()),
        None => BadValue::Int(0),
    }
}

pub(crate) fn int_or_percent(v: Option<&IntOrString>, field: &str) -> Vec<FieldError> {
    match v {
        Some(IntOrString::Int(i)) if *i < 0 => {
            vec![FieldError::invalid(field, i64::from(*i), "must be greater than or equal to 0")]
        }
        Some(IntOrString::String(s)) => match s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()) {
            None => vec![FieldError::invalid(field, s, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")],
            Some(p) if p > 100 => vec![FieldError::invalid(field, s, "must not be greater than 100%")],
            Some(_) => vec![],
        },
        _ => vec![],
    }
}

/// `ValidatePodDisruptionBudgetSpec` (pkg/apis/policy/validation): one bound at most, each a
/// non-negative number or a percentage up to 100%, a selector that parses, a known
/// `unhealthyPodEvictionPolicy`. (Both bounds set: the real value printed is the Go struct
/// with its pointers; this one names the two values.)
pub(crate) fn pod_disruption_budget_spec(spec: &PodDisruptionBudgetSpec) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let (Some(min), Some(max)) = (&spec.min_available, &spec.max_unavailable) {
        errs.push(FieldError::invalid(
            "spec",
            BadValue::Verbatim(format!(
                "policy.PodDisruptionBudgetSpec{{MinAvailable:{min}, MaxUnavailable:{max}}}"
            )),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    errs.extend(int_or_percent(
        spec.min_available.as_ref(),
        "spec.minAvailable",
    ));
    errs.extend(int_or_percent(
        spec.max_unavailable.as_ref(),
        "spec.maxUnavailable",
    ));
    if let Some(s) = &spec.selector {
        if s.to_selector().is_err() {
            errs.push(FieldError::invalid(
                "spec.selector",
                selector_value(s),
                "invalid label selector",
            ));
        }
    }
    let supported = [ALWAYS_ALLOW, IF_HEALTHY_BUDGET];
    if let Some(p) = spec
        .unhealthy_pod_eviction_policy
        .as_deref()
        .filter(|p| !supported.contains(p))
    {
        errs.push(FieldError::not_supported(
            "spec.unhealthyPodEvictionPolicy",
            p,
            &supported,
        ));
    }
    errs
}

pub(crate) fn pod_spec(spec: &PodSpec, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if spec.containers.is_empty() {
        errs.push(FieldError::required(&format!("{path}.containers"), ""));
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, c) in spec.containers.iter().enumerate() {
        let f = format!("{path}.containers[{i}]");
        errs.extend(container(c, &f));
        if !c.name.is_empty() {
            if seen.contains(&c.name.as_str()) {
                errs.push(FieldError::duplicate(&format!("{f}.name"), &c.name));
            }
            seen.push(&c.name);
        }
    }
    errs.extend(super::ephemeral_containers::validate_spec(spec, path));
    errs.extend(super::pod::validate_affinity(spec, path));
    if let Some(p) = spec
        .restart_policy
        .as_deref()
        .filter(|p| !RESTART_POLICIES.contains(p))
    {
        errs.push(FieldError::not_supported(
            &format!("{path}.restartPolicy"),
            p,
            RESTART_POLICIES,
        ));
    }
    errs
}

fn container(c: &Container, f: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if c.name.is_empty() {
        errs.push(FieldError::required(&format!("{f}.name"), ""));
    } else {
        errs.extend(
            is_dns1123_label(&c.name)
                .iter()
                .map(|m| FieldError::invalid(&format!("{f}.name"), &c.name, m)),
        );
    }
    if c.image.trim().is_empty() {
        errs.push(FieldError::required(&format!("{f}.image"), ""));
    }
    errs.extend(container_env::validate_env_from(
        &c.env_from,
        &format!("{f}.envFrom"),
    ));
    errs.extend(container_env::validate_env(&c.env, &format!("{f}.env")));
    for kind in ProbeKind::ALL {
        if let Some(probe) = c.probe(kind) {
            errs.extend(probe_errors(
                probe,
                kind,
                &format!("{f}.{}Probe", kind.lower()),
            ));
        }
    }
    for (name, req) in &c.resources.requests {
        if let Some(limit) = c.resources.limits.get(name) {
            if req > limit {
                errs.push(FieldError::invalid(
                    &format!("{f}.resources.requests"),
                    req.to_string(),
                    &format!("must be less than or equal to {name} limit of {limit}"),
                ));
            }
        }
    }
    errs
}

/// `validateProbe` + `validateHandler`: exactly one handler, non-negative numbers, a
/// liveness or startup probe's successThreshold of 1, ports 1–65535 or a port name.
fn probe_errors(p: &Probe, kind: ProbeKind, f: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let handlers = [
        p.exec.is_some(),
        p.http_get.is_some(),
        p.tcp_socket.is_some(),
        p.grpc.is_some(),
    ]
    .iter()
    .filter(|h| **h)
    .count();
    match handlers {
        0 => errs.push(FieldError::required(f, "must specify a handler type")),
        1 => {}
        _ => errs.push(FieldError::forbidden(
            f,
            "may not specify more than 1 handler type",
        )),
    }
    for (name, v) in [
        ("initialDelaySeconds", p.initial_delay_seconds),
        ("timeoutSeconds", p.timeout_seconds),
        ("periodSeconds", p.period_seconds),
        ("successThreshold", p.success_threshold),
        ("failureThreshold", p.failure_threshold),
    ] {
        if let Some(v) = v.filter(|v| *v < 0) {
            errs.push(FieldError::invalid(
                &format!("{f}.{name}"),
                BadValue::Int(i64::from(v)),
                "must be greater than or equal to 0",
            ));
        }
    }
    if kind != ProbeKind::Readiness {
        if let Some(v) = p.success_threshold.filter(|v| *v != 1) {
            errs.push(FieldError::invalid(
                &format!("{f}.successThreshold"),
                BadValue::Int(i64::from(v)),
                "must be 1",
            ));
        }
    }
    let ports = [
        p.http_get.as_ref().map(|h| (&h.port, "httpGet")),
        p.tcp_socket.as_ref().map(|t| (&t.port, "tcpSocket")),
    ];
    for (port, handler) in ports.into_iter().flatten() {
        let field = format!("{f}.{handler}.port");
        match port {
            IntOrString::Int(n) if !(1..=65535).contains(n) => errs.push(FieldError::invalid(
                &field,
                BadValue::Int(i64::from(*n)),
                "must be between 1 and 65535, inclusive",
            )),
            IntOrString::String(name) if name.is_empty() => {
                errs.push(FieldError::required(&field, ""))
            }
            _ => {}
        }
    }
    if let Some(g) = &p.grpc {
        if !(1..=65535).contains(&g.port) {
            errs.push(FieldError::invalid(
                &format!("{f}.grpc.port"),
                BadValue::Int(i64::from(g.port)),
                "must be between 1 and 65535, inclusive",
            ));
        }
    }
    errs
}

/// watchlab's own rule: the simulated behaviour annotation must parse (see
/// [`super::behaviour`]), so a typo is answered at once instead of silently ignored.
pub(crate) fn behaviour_annotation(meta: &ObjectMeta) -> Vec<FieldError> {
    match meta.annotations.get(behaviour::ANNOTATION) {
        Some(text) => match Behaviour::parse(text) {
            Ok(_) => Vec::new(),
            Err(why) => vec![FieldError::invalid(
                &format!("metadata.annotations[{}]", behaviour::ANNOTATION),
                text.as_str(),
                &why,
            )],
        },
        None => Vec::new(),
    }
}

/// `ValidatePodUpdate`: only images, tolerations (additions), and the grace period may change.
pub(crate) fn pod_spec_update_allowed(new: &PodSpec, old: &PodSpec) -> bool {
    if new.containers.len() != old.containers.len()
        || !new.tolerations.starts_with(&old.tolerations)
    {
        return false;
    }
    let mut mutated = new.clone();
    for (m, o) in mutated.containers.iter_mut().zip(&old.containers) {
        m.image.clone_from(&o.image);
    }
    mutated.tolerations.clone_from(&old.tolerations);
    mutated.termination_grace_period_seconds = old.termination_grace_period_seconds;
    mutated == *old
}

pub(crate) fn immutable_selector(
    new: Option<&LabelSelector>,
    old: Option<&LabelSelector>,
) -> Vec<FieldError> {
    match (new, old) {
        (Some(n), Some(o)) if n != o => vec![FieldError::invalid(
            "spec.selector",
            selector_value(n),
            IMMUTABLE,
        )],
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::{Deployment, ReplicaSet, ReplicaSetSpec};
    use crate::pod::Pod;

    fn pod(name: &str, containers: Vec<Container>) -> Object {
        Object::Pod(Pod {
            metadata: ObjectMeta::named("default", name),
            spec: PodSpec {
                containers: containers.into(),
                ..Default::default()
            }
            .into(),
            ..Default::default()
        })
    }

    fn messages(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(|e| e.message()).collect()
    }

    #[test]
    fn pod_requires_containers_with_name_and_image() {
        assert_eq!(
            messages(&validate_create(&pod("a", vec![]))),
            vec!["spec.containers: Required value"]
        );
        let c = Container::default();
        assert_eq!(
            messages(&validate_create(&pod("a", vec![c]))),
            vec![
                "spec.containers[0].name: Required value",
                "spec.containers[0].image: Required value"
            ]
        );
        let ok = Container {
            name: "web".into(),
            image: "nginx".into(),
            ..Default::default()
        };
        assert!(validate_create(&pod("a", vec![ok.clone()])).is_empty());
        let errs = validate_create(&pod("a", vec![ok.clone(), ok]));
        assert_eq!(
            messages(&errs),
            vec!["spec.containers[1].name: Duplicate value: \"web\""]
        );
    }

    #[test]
    fn pod_name_must_be_a_subdomain() {
        let ok = Container {
            name: "web".into(),
            image: "nginx".into(),
            ..Default::default()
        };
        let errs = validate_create(&pod("Bad_Name", vec![ok]));
        assert_eq!(errs.len(), 1);
        assert!(errs[0].message().starts_with(
            "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"
        ));
    }

    fn rs(selector: Option<LabelSelector>, labels: &[(&str, &str)]) -> Object {
        let mut t = PodTemplateSpec::default();
        t.metadata.labels = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        t.spec.containers = vec![Container {
            name: "web".into(),
            image: "nginx".into(),
            ..Default::default()
        }]
        .into();
        Object::ReplicaSet(Box::new(ReplicaSet {
            metadata: ObjectMeta::named("default", "web"),
            spec: ReplicaSetSpec {
                replicas: Some(-1),
                selector,
                template: t,
                ..Default::default()
            },
            ..Default::default()
        }))
    }

    #[test]
    fn workload_selector_must_match_template() {
        let sel = LabelSelector {
            match_labels: [("app".to_string(), "web".to_string())].into(),
            ..Default::default()
        };
        let errs = messages(&validate_create(&rs(Some(sel.clone()), &[("app", "db")])));
        assert_eq!(
            errs,
            vec![
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0".to_string(),
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"db\"}: `selector` does not match template `labels`".to_string(),
            ]
        );
        assert_eq!(
            messages(&validate_create(&rs(None, &[("app", "web")])))[1],
            "spec.selector: Required value"
        );
    }

    #[test]
    fn selector_is_immutable_and_pod_spec_mostly_too() {
        let sel = |v: &str| LabelSelector {
            match_labels: [("app".to_string(), v.to_string())].into(),
            ..Default::default()
        };
        let mut d1 = Deployment::default();
        d1.spec.selector = Some(sel("a"));
        let mut d2 = d1.clone();
        d2.spec.selector = Some(sel("b"));
        let errs = validate_update(
            &Object::Deployment(Box::new(d2)),
            &Object::Deployment(Box::new(d1)),
        );
        assert!(messages(&errs).iter().any(|m| m.starts_with("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"b\"}") && m.ends_with("field is immutable")), "{errs:?}");

        let c = Container {
            name: "web".into(),
            image: "nginx:1".into(),
            ..Default::default()
        };
        let old = pod("p", vec![c.clone()]);
        let mut image = c.clone();
        image.image = "nginx:2".into();
        assert!(validate_update(&pod("p", vec![image]), &old).is_empty());
        let mut renamed = c;
        renamed.name = "other".into();
        let errs = validate_update(&pod("p", vec![renamed]), &old);
        assert_eq!(
            messages(&errs),
            vec![format!("spec: Forbidden: {POD_UPDATE_FORBIDDEN}")]
        );
    }
}
