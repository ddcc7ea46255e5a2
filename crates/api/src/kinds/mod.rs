//! The built-in kinds, one registry module each: every module declares its kind's
//! [`ResourceInfo`](super::resource::ResourceInfo) (names, group/version, scope, subresources,
//! etcd prefix, field selectors, strategy flags, garbage-collector owners, field-schema root,
//! atomic maps, event TTL, watch trigger) and implements its [`Rules`](super::resource::Rules)
//! over the typed object (decoding, field values, defaulting, validation, the spec/status split,
//! strategic-merge keys, Table columns). The generic API server reads only these.
//!
//! Adding a built-in kind takes, besides the typed object itself (its own module in `api/`,
//! re-exported from `api/mod.rs`):
//! 1. In `api/mod.rs`, what Rust's enum needs: an [`Object`](super::Object) variant (boxed if
//!    it is larger than a Pod), its arms in `each_kind!` and [`Object::kind`](super::Object::kind)
//!    (the compiler names any missing one), its `From` in `into_object!` or
//!    `into_boxed_object!`, and an `as_…` accessor if generic code reads it.
//! 2. A registry module here declaring `pub static RESOURCE` and its `Rules`, and its `pub mod`
//!    line. Every field of the entry is required, so none is forgotten silently; the ones that
//!    other places used to hard-code:
//!    - `schema_root`: the root model of its field schema (`V1Pod`); then run
//!      `scripts/gen-field-schema.py` (it reads the roots from these modules) so `fieldValidation`
//!      knows its fields;
//!    - `atomic_maps`: every `LabelSelector` the typed object keeps (`spec.selector`), which the
//!      field manager owns as a whole;
//!    - `event_ttl` (written with the `--event-ttl` lease, Events) and `trigger_field` (the watch
//!      cache's index, with [`Rules::trigger_value`](super::resource::Rules::trigger_value)).
//! 3. Its handle `Kind::X` in the `impl Kind` block below and its place in [`BUILT_IN`] (its
//!    `rank` is its index there, the discovery order).
//! 4. If it serves `status`, a sample status in `tests::status_sample`.
//!
//! `tests::every_kind_declares_its_schema_root_and_atomic_selectors` fails while the generated
//! schema lacks the root or a kept `LabelSelector` is not listed; the other tests here and
//! `every_row_fills_its_columns_even_from_garbage` walk every kind too. Optional, elsewhere: a
//! protobuf schema at the HTTP edge (`apiserver-http`'s `protobuf.rs`; without one a protobuf
//! body is refused with 415), a `kubectl describe` text (`kubectl`'s `describe`), and the API
//! server's own admission or storage steps that need server state (pods' default tolerations,
//! services' IP allocation): those stay in the API server, keyed by the kind.

pub mod configmap;
pub mod controllerrevision;
pub mod cronjob;
pub mod customresourcedefinition;
pub mod daemonset;
pub mod deployment;
pub mod endpoints;
pub mod endpointslice;
pub mod event;
pub mod events_v1;
pub mod job;
pub mod lease;
pub mod namespace;
pub mod node;
pub mod persistentvolume;
pub mod persistentvolumeclaim;
pub mod pod;
pub mod poddisruptionbudget;
pub mod replicaset;
pub mod secret;
pub mod service;
pub mod statefulset;
pub mod storageclass;

use super::resource::{meta_merge_key, ResourceInfo};
use super::Kind;

/// The built-in kinds, in discovery order (each one's `rank` is its index here).
pub const BUILT_IN: [Kind; 22] = [
    Kind::Namespace,
    Kind::Node,
    Kind::Pod,
    Kind::ReplicaSet,
    Kind::Deployment,
    Kind::Event,
    Kind::Lease,
    Kind::CustomResourceDefinition,
    Kind::Service,
    Kind::Endpoints,
    Kind::EndpointSlice,
    Kind::ConfigMap,
    Kind::Secret,
    Kind::PodDisruptionBudget,
    Kind::Job,
    Kind::CronJob,
    Kind::DaemonSet,
    Kind::ControllerRevision,
    Kind::StatefulSet,
    Kind::PersistentVolumeClaim,
    Kind::PersistentVolume,
    Kind::StorageClass,
];

/// Versions served besides the stored ones, each over the storage of a built-in kind and
/// converted to and from it on the way in and out (kube-apiserver serves `events.k8s.io/v1`
/// Events from the core Events' storage): (the served resource, the kind it stores). A served
/// version is routed, discovered and named like a kind, but its [`ResourceInfo::kind`] is the
/// stored kind's, so it has no store, watch cache or etcd keys of its own.
///
/// [`ResourceInfo::kind`]: super::resource::ResourceInfo::kind
pub const OTHER_VERSIONS: [(&ResourceInfo, Kind); 1] = [(&events_v1::RESOURCE, Kind::Event)];

/// The kind `r` stores, if it is one of the [`OTHER_VERSIONS`].
pub fn stored_kind(r: &ResourceInfo) -> Option<Kind> {
    OTHER_VERSIONS
        .iter()
        .find(|(served, _)| std::ptr::eq(*served, r))
        .map(|(_, kind)| *kind)
}

/// Which kind a resource stores (here, beside [`OTHER_VERSIONS`], so that the resource
/// description need not know the kinds).
impl ResourceInfo {
    /// The handle of the kind this resource stores: its own, or for a version served over
    /// another kind's storage (`events.k8s.io/v1` events, [`OTHER_VERSIONS`]) the
    /// stored kind's (`Kind::Event`).
    pub fn kind(&'static self) -> Kind {
        stored_kind(self).unwrap_or(Kind::of(self))
    }

    /// Whether this resource is a version served over another one's storage, so its requests
    /// and answers are converted ([`ResourceInfo::kind`] names the stored kind).
    pub fn is_converted(&'static self) -> bool {
        !std::ptr::eq(self, self.kind().resource())
    }
}

/// The built-in kinds' handles, each on its registry module's static (named like the former
/// enum's variants, so `Kind::Pod` reads as it always did).
#[allow(non_upper_case_globals)]
impl Kind {
    pub const Namespace: Kind = Kind::of(&namespace::RESOURCE);
    pub const Node: Kind = Kind::of(&node::RESOURCE);
    pub const Pod: Kind = Kind::of(&pod::RESOURCE);
    pub const ReplicaSet: Kind = Kind::of(&replicaset::RESOURCE);
    pub const Deployment: Kind = Kind::of(&deployment::RESOURCE);
    pub const Event: Kind = Kind::of(&event::RESOURCE);
    pub const Lease: Kind = Kind::of(&lease::RESOURCE);
    pub const CustomResourceDefinition: Kind = Kind::of(&customresourcedefinition::RESOURCE);
    pub const Service: Kind = Kind::of(&service::RESOURCE);
    pub const Endpoints: Kind = Kind::of(&endpoints::RESOURCE);
    pub const EndpointSlice: Kind = Kind::of(&endpointslice::RESOURCE);
    pub const ConfigMap: Kind = Kind::of(&configmap::RESOURCE);
    pub const Secret: Kind = Kind::of(&secret::RESOURCE);
    pub const PodDisruptionBudget: Kind = Kind::of(&poddisruptionbudget::RESOURCE);
    pub const Job: Kind = Kind::of(&job::RESOURCE);
    pub const CronJob: Kind = Kind::of(&cronjob::RESOURCE);
    pub const DaemonSet: Kind = Kind::of(&daemonset::RESOURCE);
    pub const ControllerRevision: Kind = Kind::of(&controllerrevision::RESOURCE);
    pub const StatefulSet: Kind = Kind::of(&statefulset::RESOURCE);
    pub const PersistentVolumeClaim: Kind = Kind::of(&persistentvolumeclaim::RESOURCE);
    pub const PersistentVolume: Kind = Kind::of(&persistentvolume::RESOURCE);
    pub const StorageClass: Kind = Kind::of(&storageclass::RESOURCE);

    /// The built-in kinds, in discovery order ([`BUILT_IN`]).
    pub const ALL: [Kind; BUILT_IN.len()] = BUILT_IN;
}

/// A boolean field as field selectors compare it.
fn bool_text(b: bool) -> String {
    if b { "true" } else { "false" }.to_string()
}

/// Merge keys of a `status.conditions` list keyed by `type` (pods, nodes, workloads,
/// namespaces), besides ObjectMeta's.
fn conditions_merge_key(path: &[&str]) -> Option<&'static str> {
    match path {
        ["status", "conditions"] => Some("type"),
        _ => meta_merge_key(path),
    }
}

/// `PodSpec`'s merge keys, `path` relative to the spec (pods, and workload templates).
fn pod_spec_merge_key(path: &[&str]) -> Option<&'static str> {
    Some(match path {
        ["containers" | "initContainers" | "ephemeralContainers"]
        | ["volumes" | "imagePullSecrets" | "resourceClaims" | "schedulingGates"] => "name",
        ["containers" | "initContainers" | "ephemeralContainers", container] => match *container {
            "env" => "name",
            "ports" => "containerPort",
            "volumeMounts" => "mountPath",
            "volumeDevices" => "devicePath",
            _ => return None,
        },
        ["hostAliases"] => "ip",
        ["topologySpreadConstraints"] => "topologyKey",
        _ => return None,
    })
}

/// A workload's merge keys: its pod template's spec, its conditions, ObjectMeta's.
fn workload_merge_key(path: &[&str]) -> Option<&'static str> {
    match path {
        ["spec", "template", "spec", rest @ ..] => pod_spec_merge_key(rest),
        _ => conditions_merge_key(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{field_schema, Object};

    #[test]
    fn merge_keys_are_looked_up_by_path_not_by_bare_name() {
        let pod = Kind::Pod.resource().rules;
        assert_eq!(pod.merge_key(&["spec", "containers"]), Some("name"));
        assert_eq!(
            pod.merge_key(&["spec", "containers", "ports"]),
            Some("containerPort")
        );
        assert_eq!(pod.merge_key(&["metadata", "ownerReferences"]), Some("uid"));
        let deploy = Kind::Deployment.resource().rules;
        assert_eq!(
            deploy.merge_key(&["spec", "template", "spec", "containers", "env"]),
            Some("name")
        );
        // A list named like a keyed one elsewhere is replaced.
        assert_eq!(deploy.merge_key(&["spec", "ports"]), None);
        assert_eq!(
            Kind::Lease
                .resource()
                .rules
                .merge_key(&["spec", "containers"]),
            None
        );
        let node = Kind::Node.resource().rules;
        assert_eq!(node.merge_key(&["spec", "taints"]), Some("key"));
        assert_eq!(node.merge_key(&["status", "addresses"]), Some("type"));
    }

    #[test]
    fn every_kind_decodes_its_own_empty_object() {
        for (rank, kind) in BUILT_IN.iter().enumerate() {
            let r = kind.resource();
            assert_eq!(usize::from(r.rank), rank);
            let empty = r.rules.empty();
            assert_eq!(empty.kind(), *kind);
            let mut json = empty.to_json_value();
            if let Some(m) = json.as_object_mut() {
                m.remove("kind");
                m.remove("apiVersion");
            }
            assert_eq!(r.rules.decode(json).ok(), Some(empty), "{kind:?}");
        }
    }

    /// The fields of schema type `ty` ([`field_schema::TYPES`]).
    fn schema_fields(ty: &str) -> &'static [(&'static str, &'static str)] {
        field_schema::TYPES
            .iter()
            .find(|(name, _)| *name == ty)
            .map_or(&[], |(_, fields)| *fields)
    }

    /// A step of a schema path: a field name, and whether it holds a list of objects.
    type Step = (&'static str, bool);

    /// Every path from schema type `ty` to a `LabelSelector` field (a type already on the path
    /// is not entered again: the schema is recursive in places).
    fn label_selectors(
        ty: &str,
        path: &mut Vec<Step>,
        on_path: &mut Vec<String>,
    ) -> Vec<Vec<Step>> {
        let mut out = Vec::new();
        for (name, held) in schema_fields(ty) {
            let (list, inner) = match held.strip_prefix("[]") {
                Some(inner) => (true, inner),
                None => (false, *held),
            };
            if inner.is_empty() || on_path.iter().any(|t| t == inner) {
                continue;
            }
            path.push((name, list));
            if inner == "V1LabelSelector" {
                out.push(path.clone());
            } else {
                on_path.push(inner.to_string());
                out.extend(label_selectors(inner, path, on_path));
                on_path.pop();
            }
            path.pop();
        }
        out
    }

    /// The value at `path` in `doc` (a list's first item), made if `make`.
    fn at_path<'a>(
        doc: &'a mut serde_json::Value,
        path: &[Step],
        make: bool,
    ) -> Option<&'a mut serde_json::Value> {
        let mut here = doc;
        for (name, list) in path {
            let obj = here.as_object_mut()?;
            if make && !obj.contains_key(*name) {
                let empty = if *list {
                    serde_json::json!([{}])
                } else {
                    serde_json::json!({})
                };
                obj.insert(name.to_string(), empty);
            }
            here = obj.get_mut(*name)?;
            if *list {
                let items = here.as_array_mut()?;
                if make && items.is_empty() {
                    items.push(serde_json::json!({}));
                }
                here = items.first_mut()?;
            }
        }
        Some(here)
    }

    /// A kind lives in its module: every built-in kind declares the root of its field schema
    /// (and the generated schema has it: `scripts/gen-field-schema.py` reads the roots from
    /// these modules), and lists as an atomic map every `LabelSelector` its typed object keeps
    /// (found by writing a selector at each `LabelSelector` field of the schema and decoding:
    /// the ones that survive are the object's).
    #[test]
    fn every_kind_declares_its_schema_root_and_atomic_selectors() {
        for kind in BUILT_IN {
            let r = kind.resource();
            assert!(
                !r.schema_root.is_empty() && !schema_fields(r.schema_root).is_empty(),
                "{kind:?}: schema_root {:?} is not in the generated field schema \
                 (declare it in the kind's module and run scripts/gen-field-schema.py)",
                r.schema_root
            );
            let selectors = label_selectors(r.schema_root, &mut Vec::new(), &mut Vec::new());
            let names = |path: &[Step]| path.iter().map(|(n, _)| *n).collect::<Vec<_>>();
            for atomic in r.atomic_maps {
                assert!(
                    selectors.iter().any(|p| names(p) == *atomic),
                    "{kind:?}: atomic map {atomic:?} is no LabelSelector of {}",
                    r.schema_root
                );
            }
            for path in &selectors {
                let mut doc = r.rules.empty().to_json_value();
                if let Some(m) = doc.as_object_mut() {
                    m.remove("kind");
                    m.remove("apiVersion");
                }
                let probe = serde_json::json!({"matchLabels": {"probe": "probe"}});
                *at_path(&mut doc, path, true).expect("a path into an object") = probe.clone();
                let decoded = r.rules.decode(doc);
                let mut decoded = decoded.expect("the probe decodes").to_json_value();
                let kept = at_path(&mut decoded, path, false).is_some_and(|v| *v == probe);
                assert!(
                    !kept || r.atomic_maps.contains(&names(path).as_slice()),
                    "{kind:?} keeps the LabelSelector {:?}: list it in its atomic_maps",
                    names(path)
                );
            }
        }
    }

    /// A status unlike the empty object's and unlike what `prepare_for_create` sets.
    fn status_sample(kind: Kind) -> serde_json::Value {
        match kind.resource().kind_name {
            "Namespace" => serde_json::json!({"phase": "Terminating"}),
            "Node" => serde_json::json!({"nodeInfo": {"kubeletVersion": "v1.32.0"}}),
            "Pod" => serde_json::json!({"phase": "Running"}),
            "ReplicaSet" | "Deployment" => serde_json::json!({"replicas": 3}),
            "CustomResourceDefinition" => {
                serde_json::json!({"acceptedNames": {"kind": "Greeter", "plural": "greeters"}})
            }
            "Service" => serde_json::json!({"loadBalancer": {"ingress": [{"ip": "10.0.0.9"}]}}),
            "PodDisruptionBudget" => serde_json::json!({"currentHealthy": 2}),
            "Job" => serde_json::json!({"active": 1}),
            "CronJob" => serde_json::json!({"lastScheduleTime": "2026-01-01T00:01:00Z"}),
            "DaemonSet" => serde_json::json!({"numberReady": 3}),
            "StatefulSet" => serde_json::json!({"replicas": 3}),
            "PersistentVolumeClaim" | "PersistentVolume" => serde_json::json!({"phase": "Bound"}),
            other => panic!("{other} serves status: add a sample status here"),
        }
    }

    /// The `Rules` defaults take nothing from a status-subresource write and keep nothing on a
    /// main-resource write; a kind that serves `status` has to override both.
    #[test]
    fn every_status_subresource_moves_the_status() {
        let status = |o: &Object| o.to_json_value().get("status").cloned();
        for kind in BUILT_IN
            .iter()
            .filter(|k| k.resource().has_subresource("status"))
        {
            let rules = kind.resource().rules;
            let old = rules.empty();
            let mut json = old.to_json_value();
            if let Some(m) = json.as_object_mut() {
                m.remove("kind");
                m.remove("apiVersion");
                m.insert("status".into(), status_sample(*kind));
            }
            let new = rules.decode(json).expect("the sample decodes");
            assert_ne!(
                status(&new),
                status(&old),
                "{kind:?}: the sample is not empty"
            );
            let written = rules.status_update(&new, &old);
            assert_eq!(status(&written), status(&new), "{kind:?} status_update");
            let mut updated = new.clone();
            rules.keep_status(&mut updated, &old);
            assert_eq!(status(&updated), status(&old), "{kind:?} keep_status");
        }
    }
}

/// The kinds' printers through [`Rules::row`](super::resource::Rules::row), as
/// `pkg/printers/internalversion` computes the cells.
#[cfg(test)]
mod printer_tests {
    use super::*;
    use serde_json::{json, Value};
    use watchlab_apimachinery::client::virtual_now_unix_ms;

    fn cells(kind: Kind, obj: &Value, now_ms: u64) -> Vec<Value> {
        kind.resource().rules.row(obj, virtual_now_unix_ms(now_ms))
    }

    fn pod(status: Value) -> Value {
        json!({
            "metadata": {"name": "debug-tools", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "c", "image": "debug-tools:1.0"}]},
            "status": status,
        })
    }

    /// STATUS, READY, RESTARTS of a pod at 5 s.
    fn pod_status(p: &Value) -> [String; 3] {
        let c = cells(Kind::Pod, p, 5000);
        let text = |i: usize| c.get(i).and_then(Value::as_str).unwrap_or("?").to_string();
        [text(2), text(1), text(3)]
    }

    #[test]
    fn pod_status_like_print_pod() {
        let t = |a: &str, b: &str, c: &str| [a.to_string(), b.to_string(), c.to_string()];
        assert_eq!(
            pod_status(&pod(json!({"phase": "Pending"}))),
            t("Pending", "0/1", "0")
        );
        assert_eq!(
            pod_status(&pod(json!({"phase": "Pending", "containerStatuses": [
                {"name": "c", "ready": false, "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}
            ]}))),
            t("ContainerCreating", "0/1", "0")
        );
        assert_eq!(
            pod_status(&pod(json!({"phase": "Running", "containerStatuses": [
                {"name": "c", "ready": true, "restartCount": 2, "state": {"running": {}},
                 "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:00:03Z"}}}
            ]}))),
            t("Running", "1/1", "2 (2s ago)")
        );
        assert_eq!(
            pod_status(&pod(json!({"phase": "Succeeded", "containerStatuses": [
                {"name": "c", "ready": false, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
            ]}))),
            t("Completed", "0/1", "0")
        );
        let mut terminating = pod(json!({"phase": "Running"}));
        terminating["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:04Z");
        assert_eq!(pod_status(&terminating)[0], "Terminating");
        let mut init = pod(json!({"phase": "Pending", "initContainerStatuses": [
            {"name": "i", "state": {"waiting": {"reason": "PodInitializing"}}}
        ]}));
        init["spec"]["initContainers"] = json!([{"name": "i"}]);
        assert_eq!(pod_status(&init)[0], "Init:0/1");
        let mut crashing_init = init.clone();
        crashing_init["status"]["initContainerStatuses"][0]["state"] =
            json!({"terminated": {"exitCode": 2}});
        assert_eq!(pod_status(&crashing_init)[0], "Init:ExitCode:2");
        let mut gated = pod(json!({"phase": "Pending"}));
        gated["spec"]["schedulingGates"] = json!([{"name": "wait"}]);
        assert_eq!(pod_status(&gated)[0], "SchedulingGated");
        assert_eq!(pod_status(&json!(null)), t("", "0/0", "0"));
        assert_eq!(cells(Kind::Pod, &pod(json!({})), 0)[5], "<none>");
    }

    #[test]
    fn node_status_and_roles() {
        let node = json!({
            "metadata": {"name": "node-c", "labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "Unknown"}], "nodeInfo": {"kubeletVersion": "v1.32.0"}}
        });
        let c = cells(Kind::Node, &node, 0);
        assert_eq!(
            c[..5],
            [
                json!("node-c"),
                json!("NotReady,SchedulingDisabled"),
                json!("control-plane"),
                json!("<unknown>"),
                json!("v1.32.0")
            ]
        );
        assert_eq!(c[5], "<none>");
        assert_eq!(cells(Kind::Node, &json!({}), 0)[1], "Unknown");
    }

    #[test]
    fn workloads_and_events() {
        let d = json!({
            "metadata": {"name": "orders-api", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "orders-api"}},
                     "template": {"spec": {"containers": [{"name": "api", "image": "orders:1"}]}}},
            "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}
        });
        let now = 3 * 3600 * 1000;
        assert_eq!(
            cells(Kind::Deployment, &d, now),
            [
                json!("orders-api"),
                json!("2/3"),
                json!(3),
                json!(2),
                json!("3h"),
                json!("api"),
                json!("orders:1"),
                json!("app=orders-api")
            ]
        );
        assert_eq!(
            cells(Kind::ReplicaSet, &d, now)[1..4],
            [json!(3), json!(0), json!(2)]
        );
        let ev = json!({
            "metadata": {"name": "node-c.1"}, "type": "Normal", "reason": "NodeNotReady",
            "involvedObject": {"kind": "Node", "name": "node-c"},
            "source": {"component": "node-controller"},
            "lastTimestamp": "2026-01-01T02:59:00Z", "message": "Node node-c status is now: NodeNotReady\n"
        });
        assert_eq!(
            cells(Kind::Event, &ev, now),
            [
                json!("60s"),
                json!("Normal"),
                json!("NodeNotReady"),
                json!("node/node-c"),
                json!(""),
                json!("node-controller"),
                json!("Node node-c status is now: NodeNotReady"),
                json!("<unknown>"),
                json!(1),
                json!("node-c.1")
            ]
        );
    }

    #[test]
    fn services_endpoints_and_data() {
        let svc = json!({"metadata": {"name": "web"}, "spec": {"type": "NodePort", "clusterIP": "10.96.4.2", "clusterIPs": ["10.96.4.2"], "selector": {"app": "web", "tier": "fe"}, "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080}, {"port": 53, "protocol": "UDP"}]}});
        let c = cells(Kind::Service, &svc, 0);
        assert_eq!(
            c[1..5],
            [
                json!("NodePort"),
                json!("10.96.4.2"),
                json!("<none>"),
                json!("80:30080/TCP,53/UDP")
            ]
        );
        assert_eq!(c[6], "app=web,tier=fe");
        let lb = json!({"spec": {"type": "LoadBalancer", "clusterIP": "None"}});
        assert_eq!(
            cells(Kind::Service, &lb, 0)[2..5],
            [json!("None"), json!("<pending>"), json!("<none>")]
        );
        let ep = json!({"metadata": {"name": "web"}, "subsets": [{"addresses": [{"ip": "10.244.0.1"}, {"ip": "10.244.0.2"}, {"ip": "10.244.1.1"}, {"ip": "10.244.1.2"}], "notReadyAddresses": [{"ip": "10.244.2.1"}], "ports": [{"port": 8080}]}]});
        assert_eq!(
            cells(Kind::Endpoints, &ep, 0)[1],
            "10.244.0.1:8080,10.244.0.2:8080,10.244.1.1:8080 + 1 more..."
        );
        assert_eq!(cells(Kind::Endpoints, &json!({}), 0)[1], "<none>");
        let slice = json!({"metadata": {"name": "web-abcde"}, "addressType": "IPv4", "ports": [{"port": 8080}], "endpoints": [{"addresses": ["10.244.0.1"]}, {"addresses": ["fd00::1"]}]});
        assert_eq!(
            cells(Kind::EndpointSlice, &slice, 0)[1..4],
            [json!("IPv4"), json!("8080"), json!("10.244.0.1,fd00::1")]
        );
        let empty = json!({"addressType": "IPv4", "ports": [], "endpoints": []});
        assert_eq!(
            cells(Kind::EndpointSlice, &empty, 0)[2..4],
            [json!("<unset>"), json!("<unset>")]
        );
        let s = json!({"type": "Opaque", "data": {"a": "eA==", "b": "eQ=="}});
        assert_eq!(
            cells(Kind::Secret, &s, 0)[1..3],
            [json!("Opaque"), json!("2")]
        );
        let cm = json!({"data": {"a": "1"}, "binaryData": {"b": "eQ=="}});
        assert_eq!(cells(Kind::ConfigMap, &cm, 0)[1], "2");
        let lease = json!({"metadata": {"name": "node-a"}, "spec": {"holderIdentity": "node-a"}});
        assert_eq!(cells(Kind::Lease, &lease, 0)[1], "node-a");
        let ns = json!({"metadata": {"name": "production"}, "status": {"phase": "Active"}});
        assert_eq!(cells(Kind::Namespace, &ns, 0)[1], "Active");
    }

    #[test]
    fn every_row_fills_its_columns_even_from_garbage() {
        for kind in BUILT_IN {
            let rules = kind.resource().rules;
            let width = rules.columns().len();
            for obj in [json!(null), json!({}), json!({"metadata": 5, "spec": []})] {
                assert_eq!(rules.row(&obj, 0).len(), width, "{kind:?} {obj}");
            }
        }
    }
}
