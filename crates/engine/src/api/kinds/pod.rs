//! `pods` (core/v1): the unit the scheduler binds and the kubelet runs.

use super::{bool_text, conditions_merge_key, pod_spec_merge_key};
use crate::api::resource::{ResourceInfo, Rules};
use crate::api::strategy::qos_class;
use crate::api::{defaults, validation, Kind, Object, Pod};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 2,
    kind_name: "Pod",
    list_kind: "PodList",
    go_type: "v1.Pod",
    plural: "pods",
    singular: "pod",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["po"],
    categories: &["all"],
    subresources: &["status", "binding"],
    registry: "pods",
    field_labels: &[
        "metadata.name",
        "metadata.namespace",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.podIPs",
        "status.nominatedNodeName",
    ],
    dns_label_names: false,
    has_generation: false,
    create_on_update: false,
    returns_deleted_object: true,
    delete_collection: true,
    controller_owners: &[Kind::ReplicaSet],
    printer_columns: &[],
    rules: &PodRules,
};

struct PodRules;

impl Rules for PodRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Pod)
    }

    fn empty(&self) -> Object {
        Object::Pod(Pod::default())
    }

    fn field_value(&self, obj: &Object, field: &str) -> Option<String> {
        let p = obj.as_pod()?;
        Some(match field {
            "spec.nodeName" => p.spec.node_name.clone(),
            "spec.restartPolicy" => p.spec.restart_policy.clone().unwrap_or_default(),
            "spec.schedulerName" => p.spec.scheduler_name.clone().unwrap_or_default(),
            "spec.serviceAccountName" => p.spec.service_account_name.clone(),
            "spec.hostNetwork" => bool_text(p.spec.host_network),
            "status.phase" => p.status.phase.clone(),
            "status.podIP" | "status.podIPs" => p.status.pod_ip.clone(),
            "status.nominatedNodeName" => p.status.nominated_node_name.clone(),
            _ => return None,
        })
    }

    fn default(&self, obj: &mut Object) {
        if let Object::Pod(p) = obj {
            defaults::pod_spec(&mut p.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        obj.as_pod()
            .map(|p| {
                let mut errs = validation::behaviour_annotation(&p.metadata);
                errs.extend(validation::pod_spec(&p.spec, "spec"));
                errs
            })
            .unwrap_or_default()
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (new.as_pod(), old.as_pod()) {
            (Some(n), Some(o)) if !validation::pod_spec_update_allowed(&n.spec, &o.spec) => {
                vec![FieldError::forbidden(
                    "spec",
                    validation::POD_UPDATE_FORBIDDEN,
                )]
            }
            _ => Vec::new(),
        }
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::Pod(p) = obj {
            p.status = Default::default();
            p.status.phase = "Pending".into();
            p.status.qos_class = qos_class(&p.spec).into();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::Pod(n), Object::Pod(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Pod(o), Object::Pod(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((new, old), (Object::Pod(n), Object::Pod(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        match path {
            ["spec", rest @ ..] => pod_spec_merge_key(rest),
            _ => conditions_merge_key(path),
        }
    }
}
