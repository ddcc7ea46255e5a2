//! Typed objects with the real Kubernetes JSON shapes (the watchlab counterpart of k8s.io/api
//! plus each kind's registry: names, scope, strategy, validation, printing). The API server
//! stores `Arc<Object>`, so controllers read fields directly instead of paying JSON per event;
//! JSON appears only at the HTTP-shaped edge (kubectl, the UI's raw watch view).
//!
//! A crate of its own, apart from the engine, for the page's size: most of its code is the
//! kinds' serde, validation and printing, which a write or a controller's loop does not run hot,
//! so it is compiled for size while the engine is compiled for speed (the release profile in the
//! workspace's Cargo.toml). What is hot here is small and `#[inline]`, so it is compiled into
//! the engine's code at the engine's level. The virtual clock and the fixed hasher live here too,
//! as the kinds' timestamps and interner need them; the engine re-exports all three.

pub mod clock;
pub mod hash;

pub mod apiextensions;
pub mod apps;
pub mod batch;
pub mod behaviour;
pub mod binding;
pub mod config;
pub mod container_env;
pub mod cron_schedule;
pub mod custom;
pub mod custom_table;
pub mod defaults;
pub mod endpoint_slice;
pub mod endpoints;
pub mod ephemeral_containers;
pub mod event;
pub mod field_diff;
pub mod field_set;
#[rustfmt::skip]
pub mod field_schema;
pub mod intstr;
pub mod kinds;
pub mod lease;
pub mod managed_fields;
pub mod meta;
pub mod namespace;
pub mod node;
pub mod pod;
pub mod policy;
pub mod printer;
pub mod registry;
pub mod resource;
pub mod resource_list;
pub mod scale;
pub mod schema;
pub mod service;
pub mod shared;
pub mod storage;
pub mod strategy;
pub mod time;
#[rustfmt::skip]
pub mod time_zone_table;
pub mod validation;

pub use apiextensions::CustomResourceDefinition;
pub use apps::{ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet};
pub use batch::{CronJob, Job};
pub use binding::Binding;
pub use config::{ConfigMap, Secret};
pub use custom::CustomObject;
pub use endpoint_slice::EndpointSlice;
pub use endpoints::Endpoints;
pub use event::Event;
pub use lease::Lease;
pub use meta::ObjectMeta;
pub use namespace::Namespace;
pub use node::Node;
pub use pod::Pod;
pub use policy::PodDisruptionBudget;
pub use registry::Registry;
pub use resource::{Kind, ResourceInfo};
pub use service::Service;
pub use storage::{PersistentVolume, PersistentVolumeClaim, StorageClass};

use serde::Serialize;
use watchlab_apimachinery::status::Status;

/// Any stored object. The workload variants are boxed so the enum is the size of a Pod (the
/// kind a large cluster holds most of): 744 bytes instead of 1,000.
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    Namespace(Namespace),
    Node(Node),
    Pod(Pod),
    ReplicaSet(Box<ReplicaSet>),
    Deployment(Box<Deployment>),
    Event(Event),
    Lease(Lease),
    CustomResourceDefinition(Box<CustomResourceDefinition>),
    Service(Box<Service>),
    Endpoints(Endpoints),
    EndpointSlice(EndpointSlice),
    ConfigMap(ConfigMap),
    Secret(Secret),
    PodDisruptionBudget(Box<PodDisruptionBudget>),
    Job(Box<Job>),
    CronJob(Box<CronJob>),
    DaemonSet(Box<DaemonSet>),
    ControllerRevision(Box<ControllerRevision>),
    StatefulSet(Box<StatefulSet>),
    PersistentVolumeClaim(Box<PersistentVolumeClaim>),
    PersistentVolume(Box<PersistentVolume>),
    StorageClass(Box<StorageClass>),
    /// An object of a custom resource (a CRD's): typed metadata, the rest as JSON.
    Custom(Box<CustomObject>),
}

/// Runs `$body` with `$o` bound to the inner typed object, whatever the variant.
macro_rules! each_kind {
    ($obj:expr, $o:ident => $body:expr) => {
        match $obj {
            Object::Namespace($o) => $body,
            Object::Node($o) => $body,
            Object::Pod($o) => $body,
            Object::ReplicaSet($o) => $body,
            Object::Deployment($o) => $body,
            Object::Event($o) => $body,
            Object::Lease($o) => $body,
            Object::CustomResourceDefinition($o) => $body,
            Object::Service($o) => $body,
            Object::Endpoints($o) => $body,
            Object::EndpointSlice($o) => $body,
            Object::ConfigMap($o) => $body,
            Object::Secret($o) => $body,
            Object::PodDisruptionBudget($o) => $body,
            Object::Job($o) => $body,
            Object::CronJob($o) => $body,
            Object::DaemonSet($o) => $body,
            Object::ControllerRevision($o) => $body,
            Object::StatefulSet($o) => $body,
            Object::PersistentVolumeClaim($o) => $body,
            Object::PersistentVolume($o) => $body,
            Object::StorageClass($o) => $body,
            Object::Custom($o) => $body,
        }
    };
}

/// The JSON envelope: `kind` and `apiVersion` first, then the object's own fields.
#[derive(Serialize)]
struct Typed<'a, T> {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    #[serde(flatten)]
    object: &'a T,
}

impl Serialize for Object {
    /// The object's JSON, its `managedFields` resolved first ([`managed_fields::ManagedFields`]).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.managed_fields();
        self.untracked().serialize(s)
    }
}

/// An object serialized as it stands, `managedFields` not resolved.
pub struct Untracked<'a>(&'a Object);

impl Serialize for Untracked<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0.kind().resource();
        each_kind!(self.0, o => Typed { kind: r.kind_name, api_version: r.api_version, object: o }.serialize(s))
    }
}

impl Object {
    pub fn kind(&self) -> Kind {
        match self {
            Object::Namespace(_) => Kind::Namespace,
            Object::Node(_) => Kind::Node,
            Object::Pod(_) => Kind::Pod,
            Object::ReplicaSet(_) => Kind::ReplicaSet,
            Object::Deployment(_) => Kind::Deployment,
            Object::Event(_) => Kind::Event,
            Object::Lease(_) => Kind::Lease,
            Object::CustomResourceDefinition(_) => Kind::CustomResourceDefinition,
            Object::Service(_) => Kind::Service,
            Object::Endpoints(_) => Kind::Endpoints,
            Object::EndpointSlice(_) => Kind::EndpointSlice,
            Object::ConfigMap(_) => Kind::ConfigMap,
            Object::Secret(_) => Kind::Secret,
            Object::PodDisruptionBudget(_) => Kind::PodDisruptionBudget,
            Object::Job(_) => Kind::Job,
            Object::CronJob(_) => Kind::CronJob,
            Object::DaemonSet(_) => Kind::DaemonSet,
            Object::ControllerRevision(_) => Kind::ControllerRevision,
            Object::StatefulSet(_) => Kind::StatefulSet,
            Object::PersistentVolumeClaim(_) => Kind::PersistentVolumeClaim,
            Object::PersistentVolume(_) => Kind::PersistentVolume,
            Object::StorageClass(_) => Kind::StorageClass,
            Object::Custom(c) => c.kind,
        }
    }

    /// `apiVersion`, e.g. `v1` or `apps/v1`.
    pub fn api_version(&self) -> &'static str {
        self.kind().resource().api_version
    }

    /// Serializes without resolving `managedFields`.
    pub fn untracked(&self) -> Untracked<'_> {
        Untracked(self)
    }

    pub fn meta(&self) -> &ObjectMeta {
        each_kind!(self, o => &o.metadata)
    }

    pub fn meta_mut(&mut self) -> &mut ObjectMeta {
        each_kind!(self, o => &mut o.metadata)
    }

    pub fn name(&self) -> &str {
        &self.meta().name
    }

    pub fn namespace(&self) -> &str {
        &self.meta().namespace
    }

    /// `metadata.resourceVersion` as a number (0 when unset or not a number).
    pub fn resource_version(&self) -> u64 {
        self.meta().resource_version.parse().unwrap_or(0)
    }

    /// An empty object of `kind` (what a BOOKMARK event carries besides its resourceVersion).
    pub fn empty(kind: Kind) -> Object {
        kind.resource().rules.empty()
    }

    pub fn as_pod(&self) -> Option<&Pod> {
        match self {
            Object::Pod(p) => Some(p),
            _ => None,
        }
    }

    pub fn as_node(&self) -> Option<&Node> {
        match self {
            Object::Node(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_replica_set(&self) -> Option<&ReplicaSet> {
        match self {
            Object::ReplicaSet(r) => Some(r),
            _ => None,
        }
    }

    pub fn as_pod_disruption_budget(&self) -> Option<&PodDisruptionBudget> {
        match self {
            Object::PodDisruptionBudget(p) => Some(p),
            _ => None,
        }
    }

    pub fn as_job(&self) -> Option<&Job> {
        match self {
            Object::Job(j) => Some(j),
            _ => None,
        }
    }

    pub fn as_cron_job(&self) -> Option<&CronJob> {
        match self {
            Object::CronJob(c) => Some(c),
            _ => None,
        }
    }

    pub fn as_daemon_set(&self) -> Option<&DaemonSet> {
        match self {
            Object::DaemonSet(d) => Some(d),
            _ => None,
        }
    }

    pub fn as_controller_revision(&self) -> Option<&ControllerRevision> {
        match self {
            Object::ControllerRevision(r) => Some(r),
            _ => None,
        }
    }

    pub fn as_stateful_set(&self) -> Option<&StatefulSet> {
        match self {
            Object::StatefulSet(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_persistent_volume_claim(&self) -> Option<&PersistentVolumeClaim> {
        match self {
            Object::PersistentVolumeClaim(c) => Some(c),
            _ => None,
        }
    }

    pub fn as_persistent_volume(&self) -> Option<&PersistentVolume> {
        match self {
            Object::PersistentVolume(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_storage_class(&self) -> Option<&StorageClass> {
        match self {
            Object::StorageClass(c) => Some(c),
            _ => None,
        }
    }

    pub fn as_service(&self) -> Option<&Service> {
        match self {
            Object::Service(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_endpoint_slice(&self) -> Option<&EndpointSlice> {
        match self {
            Object::EndpointSlice(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_deployment(&self) -> Option<&Deployment> {
        match self {
            Object::Deployment(d) => Some(d),
            _ => None,
        }
    }

    /// The JSON text, as `kubectl get -o json` shows it (compact).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The JSON etcd holds for it, as `etcdctl get` shows it from a cluster started with
    /// `--storage-media-type=application/json`: without `resourceVersion`, which the etcd3
    /// store clears before writing (`storage/etcd3/store.go`; the key's `mod_revision` is it).
    pub fn to_stored_json(&self) -> String {
        if self.meta().resource_version.is_empty() {
            return self.to_json();
        }
        let mut stored = self.clone();
        stored.meta_mut().resource_version.clear();
        stored.to_json()
    }

    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// Decodes a request body for the resource `kind` (the URL's), checking `apiVersion`/`kind`
    /// like the real decoder; missing ones default to the URL's. Unknown fields are dropped.
    pub fn decode(kind: Kind, body: &str) -> Result<Object, Status> {
        let value: serde_json::Value = serde_json::from_str(body).map_err(|e| {
            Status::bad_request(&format!("couldn't get version/kind; json parse error: {e}"))
        })?;
        Object::from_value(kind, value)
    }

    /// [`Object::decode`] from an already parsed JSON value.
    pub fn from_value(kind: Kind, mut value: serde_json::Value) -> Result<Object, Status> {
        let r = kind.resource();
        let map = value.as_object_mut().ok_or_else(|| {
            Status::bad_request(&format!(
                "{} in version {:?} cannot be handled as a {}: json: cannot unmarshal non-object into Go value of type {}",
                r.kind_name, r.version, r.kind_name, r.go_type
            ))
        })?;
        let body_version = map.remove("apiVersion");
        let body_kind = map.remove("kind");
        let body_version = body_version
            .as_ref()
            .and_then(|v| v.as_str())
            .unwrap_or(r.api_version);
        let body_kind = body_kind
            .as_ref()
            .and_then(|v| v.as_str())
            .unwrap_or(r.kind_name);
        if body_version != r.api_version {
            return Err(Status::bad_request(&format!(
                "the API version in the data ({body_version}) does not match the expected API version ({})",
                r.api_version
            )));
        }
        if body_kind != r.kind_name {
            return Err(Status::bad_request(&format!(
                "{body_kind} in version {:?} cannot be handled as a {}: the object provided is unrecognized (must be of type {})",
                r.version, r.kind_name, r.kind_name
            )));
        }
        let bad = |e: serde_json::Error| {
            Status::bad_request(&format!(
                "{} in version {:?} cannot be handled as a {}: {e}",
                r.kind_name, r.version, r.kind_name
            ))
        };
        r.rules.decode(value).map_err(bad)
    }

    /// Decodes any built-in object from its own `apiVersion` and `kind` (for clients and the UI).
    pub fn from_json(text: &str) -> Result<Object, Status> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Status::bad_request(&format!("couldn't get version/kind; json parse error: {e}"))
        })?;
        let kind_name = value
            .get("kind")
            .and_then(|k| k.as_str())
            .unwrap_or_default();
        let api_version = value
            .get("apiVersion")
            .and_then(|k| k.as_str())
            .unwrap_or_default();
        let r = Registry::default()
            .by_kind(api_version, kind_name)
            .ok_or_else(|| {
                Status::bad_request(&format!(
                    "no kind {kind_name:?} is registered for version {api_version:?}"
                ))
            })?;
        Object::from_value(r.kind(), value)
    }
}

macro_rules! into_object {
    ($($t:ident),*) => {$(
        impl From<$t> for Object {
            fn from(o: $t) -> Object {
                Object::$t(o)
            }
        }
    )*};
}
into_object!(
    Namespace,
    Node,
    Pod,
    Event,
    Lease,
    Endpoints,
    EndpointSlice,
    ConfigMap,
    Secret
);

macro_rules! into_boxed_object {
    ($($t:ident),*) => {$(
        impl From<$t> for Object {
            fn from(o: $t) -> Object {
                Object::$t(Box::new(o))
            }
        }
    )*};
}
into_boxed_object!(
    ReplicaSet,
    Deployment,
    CustomResourceDefinition,
    Service,
    PodDisruptionBudget,
    Job,
    CronJob,
    DaemonSet,
    ControllerRevision,
    StatefulSet,
    PersistentVolumeClaim,
    PersistentVolume,
    StorageClass
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_costs_no_more_than_a_pod_and_its_tag() {
        // The large or rare kinds are boxed; the most written ones (pods, events, nodes) are
        // not, and are kept no larger than a pod (a pod's spec, an event's involved object
        // and a node's system info are behind pointers), since every stored version of every
        // object is an `Object`.
        let pod = std::mem::size_of::<Pod>();
        assert!(std::mem::size_of::<Event>() <= pod);
        assert!(std::mem::size_of::<Node>() <= pod);
        assert!(std::mem::size_of::<Object>() <= pod + 8);
        // A container keeps its rare probes boxed. Its lists (command, args, env, envFrom,
        // ports, mounts) are inline: a ReplicaSet's pods share their template's containers
        // (`Containers` is shared), so a container's size is paid per template, not per pod.
        let container = std::mem::size_of::<pod::Container>();
        assert!(container <= 384, "{container}");
        let rs = ReplicaSet::default();
        assert_eq!(Object::from(rs.clone()).as_replica_set(), Some(&rs));
    }
}
