//! The registry strategies' object rules (`PrepareForCreate`, `PrepareForUpdate`, generation):
//! which parts of an object the main resource may change, which the status subresource may,
//! and what the server sets on its own (a new pod is Pending with a QoS class).

use super::pod::PodSpec;
use super::{Kind, Object};

/// Kinds whose `metadata.generation` counts spec changes (apps workloads).
pub fn has_generation(kind: Kind) -> bool {
    matches!(kind, Kind::ReplicaSet | Kind::Deployment)
}

/// Kinds with a `status` the main resource must not change (status subresource).
pub fn has_status(kind: Kind) -> bool {
    kind.resource().subresources.contains(&"status")
}

/// `PrepareForCreate`: server-owned state of a new object.
pub fn prepare_for_create(obj: &mut Object) {
    if has_generation(obj.kind()) {
        obj.meta_mut().generation = Some(1);
    }
    match obj {
        Object::Pod(p) => {
            p.status = Default::default();
            p.status.phase = "Pending".into();
            p.status.qos_class = qos_class(&p.spec).into();
        }
        Object::ReplicaSet(rs) => rs.status = Default::default(),
        Object::Deployment(d) => d.status = Default::default(),
        Object::Namespace(ns) => ns.status.phase = "Active".into(),
        Object::Node(_) | Object::Event(_) | Object::Lease(_) => {}
    }
}

/// `qos.GetPodQOS`: Guaranteed when every container limits cpu and memory with equal requests,
/// BestEffort when nothing is requested or limited, Burstable otherwise.
pub fn qos_class(spec: &PodSpec) -> &'static str {
    let resources = ["cpu", "memory"];
    let any = spec.containers.iter().any(|c| {
        resources
            .iter()
            .any(|r| c.resources.requests.contains_key(*r) || c.resources.limits.contains_key(*r))
    });
    if !any {
        return "BestEffort";
    }
    let guaranteed = spec.containers.iter().all(|c| {
        resources.iter().all(
            |r| match (c.resources.limits.get(*r), c.resources.requests.get(*r)) {
                (Some(l), Some(q)) => l == q,
                (Some(_), None) => true,
                _ => false,
            },
        )
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// Main-resource update: the status stays as stored.
pub fn keep_status(new: &mut Object, old: &Object) {
    match (new, old) {
        (Object::Pod(n), Object::Pod(o)) => n.status.clone_from(&o.status),
        (Object::Node(n), Object::Node(o)) => n.status.clone_from(&o.status),
        (Object::Namespace(n), Object::Namespace(o)) => n.status.clone_from(&o.status),
        (Object::ReplicaSet(n), Object::ReplicaSet(o)) => n.status.clone_from(&o.status),
        (Object::Deployment(n), Object::Deployment(o)) => n.status.clone_from(&o.status),
        _ => {}
    }
}

/// Status-subresource update: everything but the status stays as stored
/// (`ResetObjectMetaForStatus` + spec reset).
pub fn status_update(new: &Object, old: &Object) -> Object {
    let mut out = old.clone();
    match (&mut out, new) {
        (Object::Pod(o), Object::Pod(n)) => o.status.clone_from(&n.status),
        (Object::Node(o), Object::Node(n)) => o.status.clone_from(&n.status),
        (Object::Namespace(o), Object::Namespace(n)) => o.status.clone_from(&n.status),
        (Object::ReplicaSet(o), Object::ReplicaSet(n)) => o.status.clone_from(&n.status),
        (Object::Deployment(o), Object::Deployment(n)) => o.status.clone_from(&n.status),
        _ => {}
    }
    out
}

/// Whether the spec differs (what bumps `generation`).
pub fn spec_changed(new: &Object, old: &Object) -> bool {
    match (new, old) {
        (Object::ReplicaSet(n), Object::ReplicaSet(o)) => n.spec != o.spec,
        (Object::Deployment(n), Object::Deployment(o)) => n.spec != o.spec,
        (Object::Pod(n), Object::Pod(o)) => n.spec != o.spec,
        (Object::Node(n), Object::Node(o)) => n.spec != o.spec,
        (Object::Namespace(n), Object::Namespace(o)) => n.spec != o.spec,
        (Object::Lease(n), Object::Lease(o)) => n.spec != o.spec,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pod::{Container, Pod};
    use watchlab_apimachinery::quantity::Quantity;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap_or_default()
    }

    #[test]
    fn qos_classes() {
        let mut spec = PodSpec {
            containers: vec![Container::default()],
            ..Default::default()
        };
        assert_eq!(qos_class(&spec), "BestEffort");
        spec.containers[0]
            .resources
            .requests
            .insert("cpu".into(), q("100m"));
        assert_eq!(qos_class(&spec), "Burstable");
        for r in ["cpu", "memory"] {
            spec.containers[0].resources.limits.insert(r.into(), q("1"));
            spec.containers[0]
                .resources
                .requests
                .insert(r.into(), q("1"));
        }
        assert_eq!(qos_class(&spec), "Guaranteed");
    }

    #[test]
    fn new_pods_are_pending() {
        let mut o = Object::Pod(Pod::default());
        prepare_for_create(&mut o);
        assert_eq!(o.as_pod().map(|p| p.status.phase.as_str()), Some("Pending"));
    }
}
