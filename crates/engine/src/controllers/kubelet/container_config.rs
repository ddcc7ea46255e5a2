//! Whether a container's configuration can be made: the part of `makeEnvironmentVariables`
//! (`pkg/kubelet/kubelet_pods.go`) that reads other objects. A container whose `envFrom` names
//! a ConfigMap or Secret that does not exist, or whose `env` takes a key from one that does not
//! exist or lacks the key, cannot be created — unless the reference is `optional` — and waits
//! in `CreateContainerConfigError` with the error as its message (`configmap "cfg" not found`,
//! `couldn't find key mode in ConfigMap default/cfg`), until the object appears. The objects
//! are read with a GET each, as the kubelet's ConfigMap and Secret managers serve them; a pod
//! that references none costs one scan of its containers' environment.

use crate::api::container_env::{KeySelector, ObjectRef};
use crate::api::pod::{Container, Pod};
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use watchlab_apimachinery::status::StatusReason;

/// Each container of `pod` (by name, in spec order) whose configuration fails, with the
/// kubelet's error text. Empty when all can be made.
pub(super) fn config_errors(api: &ApiServer, pod: &Pod) -> Vec<(String, String)> {
    pod.spec
        .containers
        .iter()
        .filter_map(|c| Some((c.name.clone(), container_error(api, pod, c)?)))
        .collect()
}

/// One object a container's environment reads: all of it (`envFrom`) or one key.
struct Reference<'a> {
    source: Source,
    name: &'a str,
    key: Option<&'a str>,
    optional: bool,
}

/// What `c`'s environment reads, in `makeEnvironmentVariables`' order: `envFrom`, then each
/// `env` entry (none, the common case, reads nothing from the API server).
fn references(c: &Container) -> Vec<Reference<'_>> {
    let from = c.env_from.iter().flat_map(|f| {
        [
            whole(f.config_map_ref.as_ref(), Source::ConfigMap),
            whole(f.secret_ref.as_ref(), Source::Secret),
        ]
    });
    let env = c
        .env
        .iter()
        .filter_map(|e| e.value_from.as_deref())
        .flat_map(|v| {
            [
                keyed(v.config_map_key_ref.as_ref(), Source::ConfigMap),
                keyed(v.secret_key_ref.as_ref(), Source::Secret),
            ]
        });
    from.chain(env).flatten().collect()
}

/// An `envFrom` source: the whole object.
fn whole(r: Option<&ObjectRef>, source: Source) -> Option<Reference<'_>> {
    r.map(|r| Reference {
        source,
        name: &r.name,
        key: None,
        optional: r.optional == Some(true),
    })
}

/// A `valueFrom` key selector: one key of the object.
fn keyed(r: Option<&KeySelector>, source: Source) -> Option<Reference<'_>> {
    r.map(|r| Reference {
        source,
        name: &r.name,
        key: Some(&r.key),
        optional: r.optional == Some(true),
    })
}

/// The first failure of `c`'s configuration. An optional reference is skipped when its object
/// or key is missing, not when the object cannot be read.
fn container_error(api: &ApiServer, pod: &Pod, c: &Container) -> Option<String> {
    let ns = pod.metadata.namespace.as_str();
    for r in references(c) {
        match r.source.keys(api, ns, r.name) {
            Err(why) => return Some(why),
            Ok(None) if !r.optional => return Some(r.source.not_found(r.name)),
            Ok(Some(keys)) if !r.optional => {
                if let Some(key) = r.key.filter(|k| !keys.iter().any(|have| have == k)) {
                    let (kind, name) = (r.source.kind_name(), r.name);
                    return Some(format!("couldn't find key {key} in {kind} {ns}/{name}"));
                }
            }
            Ok(_) => {}
        }
    }
    None
}

/// Where a value comes from.
#[derive(Clone, Copy)]
enum Source {
    ConfigMap,
    Secret,
}

impl Source {
    /// The object's keys; `Ok(None)` when it does not exist, `Err` with the API server's
    /// message when it could not be read (etcd without a majority: the kubelet retries).
    fn keys(self, api: &ApiServer, ns: &str, name: &str) -> Result<Option<Vec<String>>, String> {
        let kind = match self {
            Source::ConfigMap => Kind::ConfigMap,
            Source::Secret => Kind::Secret,
        };
        match api.get(kind, Some(ns), name) {
            Ok(obj) => Ok(match &*obj {
                Object::ConfigMap(m) => {
                    Some(m.data.keys().chain(m.binary_data.keys()).cloned().collect())
                }
                Object::Secret(s) => Some(s.data.keys().cloned().collect()),
                _ => None,
            }),
            Err(status) if status.reason == StatusReason::NotFound => Ok(None),
            Err(status) => Err(status.message),
        }
    }

    /// The managers' NotFound (`configmap "cfg" not found`: the resource's singular name).
    fn not_found(self, name: &str) -> String {
        let resource = match self {
            Source::ConfigMap => "configmap",
            Source::Secret => "secret",
        };
        format!("{resource} {name:?} not found")
    }

    fn kind_name(self) -> &'static str {
        match self {
            Source::ConfigMap => "ConfigMap",
            Source::Secret => "Secret",
        }
    }
}
