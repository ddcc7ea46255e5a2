//! A resource's description, what the registry holds for each served kind: what it is called in
//! URLs (`pods`, `po`), which group and version serve it, whether it is namespaced, its
//! subresources, its etcd key prefix (the real ones, `/registry/minions/` for nodes included),
//! the field selectors it supports, and — through [`Rules`] — its decoding, defaulting,
//! validation, update strategy, strategic-merge keys and Table columns and cells. The built-in
//! kinds declare theirs in [`super::kinds`]; a custom resource's is built from its
//! CustomResourceDefinition.
//!
//! Also here, as it is the description's other face: [`Kind`], a cheap, copyable handle on one
//! description. It is not a closed enum, so a resource defined at run time (a
//! CustomResourceDefinition's) is a `Kind` like `Kind::Pod`: every generic part of the API
//! server — keys, routing, discovery, watch, strategy — works on the handle and asks its
//! description, never a list of variants. The built-in kinds' handles (`Kind::Pod`, `Kind::ALL`)
//! are declared with their registry modules, in [`super::kinds`].

use super::field_set::FieldSet;
use super::printer;
use super::Object;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::request::resource_path;
use watchlab_apimachinery::status::{GroupResource, Status};
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::validation::FieldError;

/// The rank of every custom resource (they order after the built-in kinds).
pub const CUSTOM_RANK: u16 = u16::MAX;

/// One served resource.
#[derive(Debug)]
pub struct ResourceInfo {
    /// Position in discovery order for built-in kinds; [`CUSTOM_RANK`] for custom resources.
    pub rank: u16,
    /// `Pod`.
    pub kind_name: &'static str,
    /// `PodList`.
    pub list_kind: &'static str,
    /// Go type name in decode errors (`v1.Pod`).
    pub go_type: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    /// `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    /// `v1` or `apps/v1`.
    pub api_version: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    /// Discovery categories (`all` for what `kubectl get all` lists).
    pub categories: &'static [&'static str],
    /// `status`, `scale`, `binding`.
    pub subresources: &'static [&'static str],
    /// The etcd key segment after `/registry/` (`minions`, or `<group>/<plural>` for a custom
    /// resource).
    pub registry: &'static str,
    /// Field selector labels the real conversion functions accept.
    pub field_labels: &'static [&'static str],
    /// Whether names are DNS labels (namespaces) rather than DNS subdomains (everything else).
    pub dns_label_names: bool,
    /// Whether `metadata.generation` counts spec changes.
    pub has_generation: bool,
    /// The strategy's `AllowCreateOnUpdate` (a PUT of a missing object creates it).
    pub create_on_update: bool,
    /// `ReturnDeletedObject`: a finished DELETE answers the object rather than a Status.
    pub returns_deleted_object: bool,
    /// Whether DELETE on the collection is served (the `deletecollection` verb): every kind but
    /// namespaces, whose storage has no `CollectionDeleter` (`pkg/registry/core/namespace/storage`).
    pub delete_collection: bool,
    /// The kinds whose objects may be this kind's controller owner (the garbage collector's
    /// owner relations: a ReplicaSet's pods, a Deployment's ReplicaSets).
    pub controller_owners: &'static [Kind],
    /// The root type of the kind's field schema (`fieldValidation`'s unknown-field check,
    /// [`super::field_schema`]): its OpenAPI definition as the official Python client names the
    /// model (`V1Pod`, `CoreV1Event`). `scripts/gen-field-schema.py` reads these from the kind
    /// modules and generates the schema from them. Empty for a custom resource (pruned by its
    /// own `openAPIV3Schema` instead).
    pub schema_root: &'static str,
    /// The fields, as names from the object's root (list items skipped), that hold a map the
    /// field manager owns as a whole: every `LabelSelector` the typed object keeps
    /// (`+structType=atomic`, `x-kubernetes-map-type: atomic` in the OpenAPI), so a selector
    /// is replaced, not merged key by key (structured-merge-diff's `atomic` element
    /// relationship). `kinds::tests` checks that none is missing.
    pub atomic_maps: &'static [&'static [&'static str]],
    /// The registry store's `TTLFunc`: objects are written with the `--event-ttl` lease and
    /// expire with it (Events).
    pub event_ttl: bool,
    /// The field label the watch cache files this resource's watchers by (the registry's
    /// `TriggerFunc`, `pod.NodeNameTriggerFunc`: `spec.nodeName` for pods, so a pod change is
    /// offered to its node's kubelet watch alone); an object's value is
    /// [`Rules::trigger_value`].
    pub trigger_field: Option<&'static str>,
    /// Everything kind-specific that needs the typed object.
    pub rules: &'static dyn Rules,
}

impl std::fmt::Debug for dyn Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rules")
    }
}

/// What a kind's registry module implements over its typed object; each method receives only
/// objects of its own kind (the API server decoded them with [`Rules::decode`]).
///
/// Four methods have no default: every kind decodes, builds its empty object, validates and
/// says what counts as a spec change. The others default to what a kind without a `status`
/// subresource and without kind-specific fields does (ConfigMap, Secret, Event, Lease, …): no
/// field labels beyond metadata's, no defaults, no update rules, no server-owned state, and
/// ObjectMeta's merge keys only. A kind that serves `status` must override
/// [`Rules::prepare_for_create`], [`Rules::keep_status`] and [`Rules::status_update`]
/// (`kinds::tests::every_status_subresource_moves_the_status` checks that it does).
pub trait Rules: Sync {
    /// The typed object from its JSON (without `apiVersion`/`kind`, already checked).
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error>;
    /// An empty object (what a BOOKMARK event carries besides its resourceVersion).
    fn empty(&self) -> Object;
    /// Everything wrong with the object's own fields (metadata is checked generically).
    fn validate(&self, obj: &Object) -> Vec<FieldError>;
    /// Whether the spec differs (what bumps `generation`).
    fn spec_changed(&self, new: &Object, old: &Object) -> bool;

    /// The value of a supported field label beyond `metadata.name`/`metadata.namespace`.
    fn field_value(&self, _obj: &Object, _field: &str) -> Option<String> {
        None
    }
    /// `SetObjectDefaults_*`: the values the server fills in when a client leaves them out.
    fn default(&self, _obj: &mut Object) {}
    /// [`Rules::default`] of the new version of an updated object; a kind may pass over what
    /// the update left shared with the stored version, which was defaulted when it was stored.
    fn default_update(&self, new: &mut Object, _old: &Object) {
        self.default(new);
    }
    /// [`Rules::validate`] of the new version of an updated object; a kind may pass over what
    /// the update left shared with the stored version, which was valid when it was stored (as
    /// the real status strategies validate the status, not the spec they copied).
    fn validate_changed(&self, new: &Object, _old: &Object) -> Vec<FieldError> {
        self.validate(new)
    }
    /// The fields an update from `old` to `new` sets, when the kind can tell from the typed
    /// objects (nothing removed; an empty set for "no change"): the field manager's comparison
    /// without converting both versions to JSON, for a kind written often and alike (a lease
    /// renewal). `None`: compare the JSON. An answer must be the one the JSON comparison gives
    /// (`kinds::lease`'s tests check it).
    fn set_fields(&self, _new: &Object, _old: &Object) -> Option<FieldSet> {
        None
    }
    /// The object's value of [`ResourceInfo::trigger_field`] (`pod.NodeNameTriggerFunc`), for
    /// the watch cache's index; `None` without one.
    fn trigger_value<'a>(&self, _obj: &'a Object) -> Option<&'a str> {
        None
    }
    /// What an update may not change (beyond [`Rules::validate`] of the new object).
    fn validate_update(&self, _new: &Object, _old: &Object) -> Vec<FieldError> {
        Vec::new()
    }
    /// `PrepareForCreate`: server-owned state of a new object (its status, if it has one).
    fn prepare_for_create(&self, _obj: &mut Object) {}
    /// Main-resource update of a kind with a status subresource: the status stays as stored.
    fn keep_status(&self, _new: &mut Object, _old: &Object) {}
    /// Status-subresource update: `old` with `new`'s status. Without a status subresource
    /// nothing is taken from `new` (the API server never routes one here).
    fn status_update(&self, _new: &Object, old: &Object) -> Object {
        old.clone()
    }
    /// The strategic-merge key of the list at `path` (field names from the object's root,
    /// list elements skipped: `["spec", "containers", "ports"]`), the `patchMergeKey` tags of
    /// the real API types. `None`: the list is replaced.
    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        meta_merge_key(path)
    }
    /// The columns of this kind's Table, as its printer in `pkg/printers/internalversion`
    /// registers them. Default: the generic server's `Name` and `Created At`
    /// ([`printer::DEFAULT_COLUMNS`]).
    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&printer::DEFAULT_COLUMNS)
    }
    /// One object's cells in [`Rules::columns`] order, from its JSON at `now_unix_ms` (AGE
    /// columns count from it): strings, and numbers for `integer` columns.
    fn row(&self, obj: &serde_json::Value, now_unix_ms: i64) -> Vec<serde_json::Value> {
        let _ = now_unix_ms;
        printer::default_row(obj)
    }
    /// A custom resource's `openAPIV3Schema` (of its storage version), which its group's
    /// OpenAPI v3 document publishes. `None` for a built-in kind: the document generates its
    /// schema from [`ResourceInfo::schema_root`] (`apiserver::openapi`).
    fn openapi_schema(&self) -> Option<&serde_json::Value> {
        None
    }
}

/// The merge keys every kind shares (ObjectMeta's `patchMergeKey` tags).
pub fn meta_merge_key(path: &[&str]) -> Option<&'static str> {
    match path {
        ["metadata", "ownerReferences"] => Some("uid"),
        _ => None,
    }
}

/// Where kube-apiserver keeps objects in etcd (`--etcd-prefix`, default `/registry`).
pub const REGISTRY: &str = "/registry/";

const META_FIELDS: &[&str] = &["metadata.name", "metadata.namespace"];

/// The field labels every kind supports.
pub const fn meta_fields() -> &'static [&'static str] {
    META_FIELDS
}

impl ResourceInfo {
    /// Whether this resource serves `sub` (`status`, `scale`, `binding`).
    pub fn has_subresource(&self, sub: &str) -> bool {
        self.subresources.contains(&sub)
    }

    /// Whether a kubectl resource argument names this resource: plural, singular, short
    /// name, kind (any case), optionally qualified by group (`deployments.apps`) or by version
    /// and group (`deployments.v1.apps`), case-insensitive like kubectl's RESTMapper.
    pub fn is_named(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        let (base, qualifier) = match lower.split_once('.') {
            Some((b, q)) => (b, Some(q)),
            None => (lower.as_str(), None),
        };
        let name_matches = self.plural == base
            || self.singular == base
            || self.short_names.contains(&base)
            || self.kind_name.eq_ignore_ascii_case(base);
        name_matches
            && match qualifier {
                None => true,
                Some(q) => {
                    q == self.group
                        || q.strip_prefix(self.version)
                            .and_then(|rest| rest.strip_prefix('.'))
                            == Some(self.group)
                }
            }
    }
    /// `pods`, `deployments.apps` (as errors name it).
    pub fn group_resource(&self) -> GroupResource {
        GroupResource {
            group: self.group.to_string(),
            resource: self.plural.to_string(),
        }
    }

    /// The etcd key of one object: `/registry/pods/default/web`, `/registry/minions/node-a`.
    pub fn key(&self, namespace: &str, name: &str) -> String {
        // Joined by hand: every read and write builds a key, and `format!` costs several
        // times a few appends (~3% of a whole cluster's work).
        let namespace = if self.namespaced { namespace } else { "" };
        let mut key = String::with_capacity(
            REGISTRY.len() + self.registry.len() + namespace.len() + name.len() + 2,
        );
        key.push_str(REGISTRY);
        key.push_str(self.registry);
        key.push('/');
        if self.namespaced {
            key.push_str(namespace);
            key.push('/');
        }
        key.push_str(name);
        key
    }

    /// The prefix every key of this resource (in `namespace`, if given and namespaced) starts with.
    pub fn prefix(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced => format!("/registry/{}/{ns}/", self.registry),
            _ => format!("/registry/{}/", self.registry),
        }
    }

    /// The URL path of one object or of the collection (`/apis/apps/v1/namespaces/x/deployments`).
    pub fn path(&self, namespace: Option<&str>, name: Option<&str>) -> String {
        let namespace = namespace.filter(|_| self.namespaced);
        resource_path(self.api_version, namespace, self.plural, name)
    }

    /// Refuses field selectors on labels this resource does not support, with the real
    /// 400 text `field label not supported: x`.
    pub fn check_field_selector(&self, selector: &FieldSelector) -> Result<(), Status> {
        match selector
            .requirements()
            .iter()
            .find(|r| !self.field_labels.contains(&r.field.as_str()))
        {
            Some(r) => Err(Status::bad_request(&format!(
                "field label not supported: {}",
                r.field
            ))),
            None => Ok(()),
        }
    }
}

/// The value of a supported field label on `obj` (what field selectors compare against).
pub fn field_value(obj: &Object, field: &str) -> Option<String> {
    let meta = obj.meta();
    match field {
        "metadata.name" => Some(meta.name.clone()),
        "metadata.namespace" => Some(meta.namespace.clone()),
        _ => obj.kind().resource().rules.field_value(obj, field),
    }
}

/// A served kind. Two handles are equal when they name the same resource
/// (group, version, plural); built-in kinds compare by their rank alone.
#[derive(Clone, Copy)]
pub struct Kind(&'static ResourceInfo);

impl Kind {
    /// The handle of a description (a built-in's static, or a custom resource's).
    pub const fn of(resource: &'static ResourceInfo) -> Kind {
        Kind(resource)
    }

    /// Everything the registry knows about this kind.
    pub fn resource(self) -> &'static ResourceInfo {
        self.0
    }

    /// The key of `namespace/name` of this kind.
    pub fn key(self, namespace: &str, name: &str) -> String {
        self.resource().key(namespace, name)
    }

    /// Whether this kind is defined at run time (by a CustomResourceDefinition).
    pub fn is_custom(self) -> bool {
        self.0.rank == CUSTOM_RANK
    }

    fn identity(&self) -> (u16, &'static str, &'static str, &'static str) {
        let r = self.0;
        (r.rank, r.group, r.plural, r.version)
    }
}

impl PartialEq for Kind {
    fn eq(&self, other: &Kind) -> bool {
        std::ptr::eq(self.0, other.0)
            || (self.0.rank == other.0.rank
                && self.0.rank == CUSTOM_RANK
                && self.identity() == other.identity())
    }
}

impl Eq for Kind {}

impl Hash for Kind {
    fn hash<H: Hasher>(&self, state: &mut H) {
        if self.is_custom() {
            self.identity().hash(state)
        } else {
            self.0.rank.hash(state)
        }
    }
}

impl PartialOrd for Kind {
    fn partial_cmp(&self, other: &Kind) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Built-in kinds in registry order, then custom ones by group and plural.
impl Ord for Kind {
    fn cmp(&self, other: &Kind) -> Ordering {
        // Built-in kinds (the watch index's hot path) compare by rank alone.
        match self.0.rank.cmp(&other.0.rank) {
            Ordering::Equal if self.is_custom() => self.identity().cmp(&other.identity()),
            o => o,
        }
    }
}

/// The kind's name (`Pod`), as the former enum printed it.
impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.kind_name)
    }
}

/// The object's value of its resource's [`ResourceInfo::trigger_field`] (the watch fan-out files
/// the kubelets' pod watchers by `spec.nodeName`).
pub fn trigger_value(obj: &Object) -> Option<&str> {
    obj.kind().resource().rules.trigger_value(obj)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::Pod;

    #[test]
    fn handles_compare_and_order_like_the_registry() {
        assert_eq!(Kind::Pod, Kind::of(Kind::Pod.resource()));
        assert_ne!(Kind::Pod, Kind::Node);
        assert!(Kind::Namespace < Kind::Node && Kind::Deployment < Kind::Lease);
        assert_eq!(format!("{:?}", Kind::ReplicaSet), "ReplicaSet");
        assert_eq!(std::mem::size_of::<Kind>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn keys_follow_the_real_registry_layout() {
        let (pod, node) = (Kind::Pod.resource(), Kind::Node.resource());
        assert_eq!(pod.key("default", "web"), "/registry/pods/default/web");
        assert_eq!(node.key("", "node-a"), "/registry/minions/node-a");
        // A cluster-scoped kind has no namespace in its key, whatever the caller passes.
        assert_eq!(node.key("default", "node-a"), "/registry/minions/node-a");
        assert_eq!(
            Kind::Deployment.resource().key("prod", "api"),
            "/registry/deployments/prod/api"
        );
        assert_eq!(
            Kind::Namespace.resource().prefix(Some("x")),
            "/registry/namespaces/"
        );
        assert_eq!(pod.prefix(Some("a")), "/registry/pods/a/");
        assert_eq!(
            Kind::Deployment.resource().path(Some("p"), Some("d")),
            "/apis/apps/v1/namespaces/p/deployments/d"
        );
        assert_eq!(node.path(Some("p"), None), "/api/v1/nodes");
    }

    #[test]
    fn every_name_kubectl_accepts() {
        let deploy = Kind::Deployment.resource();
        for name in [
            "deployments",
            "deployment",
            "deploy",
            "Deployment",
            "deployments.apps",
        ] {
            assert!(deploy.is_named(name), "{name}");
        }
        assert!(deploy.is_named("deployments.v1.apps"));
        assert!(!deploy.is_named("deployments.v2.apps"));
        assert!(!Kind::Pod.resource().is_named("pods.apps"));
        assert!(Kind::Lease.resource().is_named("lease.coordination.k8s.io"));
    }

    #[test]
    fn pod_fields_have_values() {
        let mut p = Pod::default();
        p.spec_mut().node_name = "node-a".into();
        let o = Object::Pod(p);
        assert_eq!(field_value(&o, "spec.nodeName").as_deref(), Some("node-a"));
        assert_eq!(
            field_value(&o, "spec.hostNetwork").as_deref(),
            Some("false")
        );
        assert_eq!(field_value(&o, "spec.bogus"), None);
        for kind in Kind::ALL {
            let empty = kind.resource().rules.empty();
            for f in kind.resource().field_labels {
                assert!(field_value(&empty, f).is_some(), "{kind:?} {f}");
            }
        }
    }
}
