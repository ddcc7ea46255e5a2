//! The registry strategies' object rules (`PrepareForCreate`, `PrepareForUpdate`, generation):
//! which parts of an object the main resource may change, which the status subresource may,
//! and what the server sets on its own (a new pod is Pending with a QoS class). The generic
//! steps live here; each kind's own part is its registry module's [`super::resource::Rules`].

use super::pod::PodSpec;
use super::{Kind, Object};

/// Kinds whose `metadata.generation` counts spec changes (apps workloads).
pub fn has_generation(kind: Kind) -> bool {
    kind.resource().has_generation
}

/// Kinds with a `status` the main resource must not change (status subresource).
pub fn has_status(kind: Kind) -> bool {
    kind.resource().has_subresource("status")
}

/// `PrepareForCreate`: server-owned state of a new object.
pub fn prepare_for_create(obj: &mut Object) {
    let kind = obj.kind();
    if has_generation(kind) {
        obj.meta_mut().generation = Some(1);
    }
    kind.resource().rules.prepare_for_create(obj);
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
    new.kind().resource().rules.keep_status(new, old);
}

/// Status-subresource update: everything but the status stays as stored
/// (`ResetObjectMetaForStatus` + spec reset).
pub fn status_update(new: &Object, old: &Object) -> Object {
    old.kind().resource().rules.status_update(new, old)
}

/// Whether the spec differs (what bumps `generation`).
pub fn spec_changed(new: &Object, old: &Object) -> bool {
    new.kind().resource().rules.spec_changed(new, old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::{Container, Pod};
    use watchlab_apimachinery::quantity::Quantity;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap_or_default()
    }

    #[test]
    fn qos_classes() {
        let mut spec = PodSpec {
            containers: vec![Container::default()].into(),
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
        assert_eq!(o.as_pod().map(|p| &*p.status.phase), Some("Pending"));
    }
}
