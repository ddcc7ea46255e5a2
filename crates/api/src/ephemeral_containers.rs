//! The rules of ephemeral containers (`kubectl debug POD`): what their list may hold, that only
//! the `pods/ephemeralcontainers` subresource may add to it, and that what it holds never
//! changes. Kept apart from `validation.rs` because these rules belong to one subresource and
//! its strategy, and read as one unit beside them.
//!
//! Upstream (v1.32): `pkg/apis/core/validation/validation.go` — `validateEphemeralContainers`
//! (names unique across every container list, `targetContainerName` a regular container, the
//! allow-list of fields, no `subPath`), `validateContainerOnlyForPod`, `ValidatePodCreate`
//! ("cannot be set on create"), `ValidatePodTemplateSpec` (not in templates) and
//! `ValidatePodEphemeralContainersUpdate` (existing ones neither removed nor changed);
//! `pkg/registry/core/pod/strategy.go` — `podEphemeralContainersStrategy.PrepareForUpdate`
//! (`dropNonEphemeralContainerUpdates`: everything but `spec.ephemeralContainers` is the
//! stored pod's).

use super::pod::{EphemeralContainer, PodSpec};
use super::Object;
use watchlab_apimachinery::validation::{is_dns1123_label, FieldError};

/// The detail of a field an ephemeral container may not set (`validateFieldAllowList`).
pub const NOT_FOR_EPHEMERAL: &str = "cannot be set for an Ephemeral Container";

/// `validateEphemeralContainers` for the spec at `path` (`spec`, or a template's spec).
pub(crate) fn validate_spec(spec: &PodSpec, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if spec.ephemeral_containers.is_empty() {
        // Every other pod: nothing to look at, nothing allocated.
        return errs;
    }
    let regular: Vec<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
    let mut all = regular.clone();
    for (i, ec) in spec.ephemeral_containers.iter().enumerate() {
        let f = format!("{path}.ephemeralContainers[{i}]");
        errs.extend(common(ec, &f));
        let name = ec.container.name.as_str();
        if all.contains(&name) {
            errs.push(FieldError::duplicate(&format!("{f}.name"), name));
        } else {
            all.push(name);
        }
        let target = ec.target_container_name.as_str();
        if !target.is_empty() && !regular.contains(&target) {
            errs.push(FieldError::not_found(
                &format!("{f}.targetContainerName"),
                target,
            ));
        }
        errs.extend(not_allowed(ec, &f));
    }
    errs
}

/// `validateContainerCommon` (the parts modelled: name, image, termination message policy)
/// and `validateContainerOnlyForPod` (no whitespace around the image).
fn common(ec: &EphemeralContainer, f: &str) -> Vec<FieldError> {
    let c = &ec.container;
    let mut errs = Vec::new();
    if c.name.is_empty() {
        errs.push(FieldError::required(&format!("{f}.name"), ""));
    } else {
        errs.extend(
            is_dns1123_label(&c.name)
                .iter()
                .map(|m| FieldError::invalid(&format!("{f}.name"), c.name.as_str(), m)),
        );
    }
    if c.image.is_empty() {
        errs.push(FieldError::required(&format!("{f}.image"), ""));
    }
    const POLICIES: [&str; 2] = ["File", "FallbackToLogsOnError"];
    if let Some(p) = c
        .termination_message_policy
        .as_deref()
        .filter(|p| !POLICIES.contains(p))
    {
        errs.push(FieldError::not_supported(
            &format!("{f}.terminationMessagePolicy"),
            p,
            &POLICIES,
        ));
    }
    if !c.image.is_empty() && c.image.trim() != c.image {
        errs.push(FieldError::invalid(
            &format!("{f}.image"),
            c.image.as_str(),
            "must not have leading or trailing whitespace",
        ));
    }
    errs
}

/// `validateFieldAllowList` over `EphemeralContainerCommon` (in its field order: ports,
/// resources, resizePolicy, restartPolicy, the probes, lifecycle), then the volume mounts'
/// `subPath` and `subPathExpr`.
fn not_allowed(ec: &EphemeralContainer, f: &str) -> Vec<FieldError> {
    let c = &ec.container;
    let set = [
        ("ports", !c.ports.is_empty()),
        (
            "resources",
            !c.resources.limits.is_empty() || !c.resources.requests.is_empty(),
        ),
        ("resizePolicy", ec.resize_policy.is_some()),
        ("restartPolicy", ec.restart_policy.is_some()),
        ("livenessProbe", c.liveness_probe.is_some()),
        ("readinessProbe", c.readiness_probe.is_some()),
        ("startupProbe", c.startup_probe.is_some()),
        ("lifecycle", ec.lifecycle.is_some()),
    ];
    let mut errs: Vec<FieldError> = set
        .iter()
        .filter(|(_, is_set)| *is_set)
        .map(|(name, _)| FieldError::forbidden(&format!("{f}.{name}"), NOT_FOR_EPHEMERAL))
        .collect();
    for (i, m) in c.volume_mounts.iter().enumerate() {
        for (name, value) in [("subPath", &m.sub_path), ("subPathExpr", &m.sub_path_expr)] {
            if !value.is_empty() {
                errs.push(FieldError::forbidden(
                    &format!("{f}.volumeMounts[{i}].{name}"),
                    NOT_FOR_EPHEMERAL,
                ));
            }
        }
    }
    errs
}

/// `ValidatePodCreate`: a new pod has no ephemeral containers.
pub(crate) fn on_create(obj: &Object) -> Vec<FieldError> {
    match obj.as_pod() {
        Some(p) if !p.spec.ephemeral_containers.is_empty() => vec![FieldError::forbidden(
            "spec.ephemeralContainers",
            "cannot be set on create",
        )],
        _ => Vec::new(),
    }
}

/// `ValidatePodTemplateSpec`: a workload's template has none either.
pub(crate) fn in_template(spec: &PodSpec, path: &str) -> Vec<FieldError> {
    if spec.ephemeral_containers.is_empty() {
        return Vec::new();
    }
    vec![FieldError::forbidden(
        &format!("{path}.ephemeralContainers"),
        "ephemeral containers not allowed in pod template",
    )]
}

/// `dropNonEphemeralContainerUpdates`: the stored pod `old` with the ephemeral containers
/// `sent` holds (its name, namespace and resourceVersion are the request's already).
pub fn prepare_for_update(sent: &Object, old: &Object) -> Object {
    let mut out = old.clone();
    if let (Object::Pod(o), Object::Pod(n)) = (&mut out, sent) {
        if o.spec.ephemeral_containers != n.spec.ephemeral_containers {
            o.spec_mut()
                .ephemeral_containers
                .clone_from(&n.spec.ephemeral_containers);
        }
    }
    out
}

/// The part of `ValidatePodEphemeralContainersUpdate` that is theirs alone: no existing
/// ephemeral container removed or changed (looked up by name: a patch may reorder them). The
/// real "may not be changed" text goes on with the containers' diff, left out here.
pub fn validate_kept(new: &Object, old: &Object) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (Some(n), Some(o)) = (new.as_pod(), old.as_pod()) else {
        return errs;
    };
    for was in o.spec.ephemeral_containers.iter() {
        let name = &was.container.name;
        let now = n
            .spec
            .ephemeral_containers
            .iter()
            .find(|e| &e.container.name == name);
        let verb = match now {
            None => "removed",
            Some(e) if e != was => "changed",
            Some(_) => continue,
        };
        errs.push(FieldError::forbidden(
            "spec.ephemeralContainers",
            &format!("existing ephemeral containers {name:?} may not be {verb}\n"),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::{Container, ContainerPort, Pod, Probe, VolumeMount};
    use crate::ObjectMeta;

    fn debugger(name: &str) -> EphemeralContainer {
        EphemeralContainer {
            container: Container {
                name: name.into(),
                image: "busybox".into(),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn pod(ephemeral: Vec<EphemeralContainer>) -> Object {
        Object::Pod(Pod {
            metadata: ObjectMeta::named("default", "web"),
            spec: PodSpec {
                containers: vec![Container {
                    name: "app".into(),
                    image: "nginx".into(),
                    ..Default::default()
                }]
                .into(),
                ephemeral_containers: ephemeral.into(),
                ..Default::default()
            }
            .into(),
            ..Default::default()
        })
    }

    fn messages(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(FieldError::message).collect()
    }

    #[test]
    fn names_are_unique_across_lists_and_targets_must_be_regular_containers() {
        let mut clash = debugger("app");
        clash.target_container_name = "nope".into();
        let Object::Pod(p) = pod(vec![debugger("d"), debugger("d"), clash]) else {
            unreachable!()
        };
        assert_eq!(
            messages(&validate_spec(&p.spec, "spec")),
            [
                "spec.ephemeralContainers[1].name: Duplicate value: \"d\"",
                "spec.ephemeralContainers[2].name: Duplicate value: \"app\"",
                "spec.ephemeralContainers[2].targetContainerName: Not found: \"nope\"",
            ]
        );
    }

    #[test]
    fn fields_outside_the_allow_list_are_forbidden_in_struct_order() {
        let mut d = debugger("d");
        d.container.ports = vec![ContainerPort {
            container_port: 80,
            ..Default::default()
        }];
        d.container.readiness_probe = Some(Box::new(Probe::default()));
        d.lifecycle = Some(serde_json::json!({"preStop": {}}));
        d.container.volume_mounts = vec![VolumeMount {
            name: "v".into(),
            mount_path: "/v".into(),
            sub_path: "x".into(),
            ..Default::default()
        }]
        .into();
        let Object::Pod(p) = pod(vec![d]) else {
            unreachable!()
        };
        let f = "spec.ephemeralContainers[0]";
        assert_eq!(
            messages(&validate_spec(&p.spec, "spec")),
            [
                format!("{f}.ports: Forbidden: {NOT_FOR_EPHEMERAL}"),
                format!("{f}.readinessProbe: Forbidden: {NOT_FOR_EPHEMERAL}"),
                format!("{f}.lifecycle: Forbidden: {NOT_FOR_EPHEMERAL}"),
                format!("{f}.volumeMounts[0].subPath: Forbidden: {NOT_FOR_EPHEMERAL}"),
            ]
        );
    }

    #[test]
    fn existing_ones_may_be_neither_removed_nor_changed() {
        let old = pod(vec![debugger("a"), debugger("b")]);
        let mut changed = debugger("b");
        changed.container.image = "alpine".into();
        let new = pod(vec![changed, debugger("c")]);
        assert_eq!(
            messages(&validate_kept(&new, &old)),
            [
                "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"a\" may not be removed\n",
                "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"b\" may not be changed\n",
            ]
        );
        let added = pod(vec![debugger("b"), debugger("a"), debugger("c")]);
        assert!(validate_kept(&added, &old).is_empty(), "reordered, added");
    }

    #[test]
    fn only_the_ephemeral_containers_of_a_sent_pod_are_taken() {
        let old = pod(vec![]);
        let Object::Pod(mut sent) = pod(vec![debugger("d")]) else {
            unreachable!()
        };
        sent.metadata.labels.insert("x".into(), "y".into());
        sent.spec_mut().node_name = "node-a".into();
        let Object::Pod(out) = prepare_for_update(&Object::Pod(sent), &old) else {
            unreachable!()
        };
        assert!(out.metadata.labels.is_empty());
        assert_eq!(out.spec.node_name, "");
        assert_eq!(out.spec.ephemeral_containers.len(), 1);
        assert_eq!(
            messages(&on_create(&pod(vec![debugger("d")]))),
            ["spec.ephemeralContainers: Forbidden: cannot be set on create"]
        );
    }
}
