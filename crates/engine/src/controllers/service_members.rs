//! Which pods each Service selects, kept up to date from events rather than recomputed per
//! event: the EndpointSlice and Endpoints controllers each hold one. A pod event looks only
//! at the Services of the pod's namespace (`getPodServiceMemberships`) and moves the pod in or
//! out of their member sets; a Service whose selector changes is matched once against its
//! namespace's pods. A sync then reads its members, never the whole pod list. Also the
//! pod → endpoint rules both controllers share (`ShouldPodBeInEndpoints`, the target port a
//! pod resolves for a Service port).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::podutil::is_pod_ready;
use super::shared_informer::InformerRef;
use super::shared_informer::SharedInformer;
use crate::api::apps::IntOrString;
use crate::api::pod::Pod;
use crate::api::service::{Service, ServicePort};
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::client::store::NAMESPACE_INDEX;
use crate::client::{Notification, ObjectKey};
use crate::clock::Timestamp;
use watchlab_apimachinery::labels::LabelSelector;

/// The informers on Services and Pods and the member sets built from them.
pub struct ServiceMembers {
    pub services: SharedInformer,
    /// kube-controller-manager's shared pod informer.
    pub pods: SharedInformer,
    /// Service key → keys of the pods its selector matches.
    members: BTreeMap<ObjectKey, BTreeSet<ObjectKey>>,
}

/// The selector of a Service that selects pods (`nil` selector: someone else's endpoints).
pub fn selector(svc: &Service) -> Option<LabelSelector> {
    if svc.spec.selector.is_empty() {
        return None;
    }
    let text = svc
        .spec
        .selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    LabelSelector::parse(&text).ok()
}

/// `ShouldPodBeInEndpoints`: not finished (Succeeded/Failed), has an IP, and (unless
/// terminating pods are wanted) is not being deleted.
pub fn should_be_in_endpoints(pod: &Pod, include_terminating: bool) -> bool {
    let terminal = matches!(&*pod.status.phase, "Succeeded" | "Failed");
    !terminal
        && !pod.status.pod_ip.is_empty()
        && (include_terminating || pod.metadata.deletion_timestamp.is_none())
}

/// Whether the pod counts as ready (`serving`): its Ready condition.
pub fn is_serving(pod: &Pod) -> bool {
    is_pod_ready(pod)
}

/// `podutil.FindPort`: the pod's port a Service port targets (a number as is, a name through
/// the containers' named ports); `None` if the pod has no port of that name.
pub fn target_port(pod: &Pod, port: &ServicePort) -> Option<i32> {
    match &port.target_port {
        None => Some(port.port),
        Some(IntOrString::Int(n)) => Some(*n),
        Some(IntOrString::String(name)) => pod
            .spec
            .containers
            .iter()
            .flat_map(|c| c.ports.iter())
            .find(|p| &p.name == name && p.protocol.as_deref().unwrap_or("TCP") == port.protocol)
            .map(|p| p.container_port),
    }
}

fn service_of(obj: &Object) -> Option<&Service> {
    obj.as_service()
}

impl ServiceMembers {
    pub fn new(services: SharedInformer, pods: SharedInformer) -> Self {
        ServiceMembers {
            services,
            pods,
            members: BTreeMap::new(),
        }
    }

    pub fn has_synced(&self) -> bool {
        self.services.has_synced() && self.pods.has_synced()
    }

    /// The cached Service of `key`.
    pub fn service(&self, key: &ObjectKey) -> Option<Arc<Object>> {
        self.services.store().get(key)
    }

    /// The cached pods `key`'s Service selects, by name.
    pub fn pods_of(&self, key: &ObjectKey) -> Vec<Arc<Object>> {
        let store = self.pods.store();
        self.members
            .get(key)
            .into_iter()
            .flatten()
            .filter_map(|k| store.get(k))
            .collect()
    }

    /// A Service notification: its member set recomputed if it is new or its selector changed
    /// (dropped if it is gone). Returns the Service to sync.
    pub fn on_service(&mut self, note: &Notification<Arc<Object>>) -> ObjectKey {
        let key = note.key();
        match note {
            Notification::Delete(_) => {
                self.members.remove(&key);
            }
            Notification::Add(new) => self.rematch(&key, new),
            Notification::Update { old, new } => {
                let changed = service_of(old).map(|s| &s.spec.selector)
                    != service_of(new).map(|s| &s.spec.selector);
                if changed || !self.members.contains_key(&key) {
                    self.rematch(&key, new);
                }
            }
        }
        key
    }

    fn rematch(&mut self, key: &ObjectKey, obj: &Arc<Object>) {
        let Some(sel) = service_of(obj).and_then(selector) else {
            self.members.remove(key);
            return;
        };
        let pods = self
            .pods
            .store()
            .by_index(NAMESPACE_INDEX, obj.namespace())
            .unwrap_or_default();
        let set = pods
            .iter()
            .filter(|p| sel.matches(&p.meta().labels))
            .map(ObjectKey::of)
            .collect();
        self.members.insert(key.clone(), set);
    }

    /// A pod notification: the pod moved in or out of the member sets of its namespace's
    /// Services. Returns the Services whose endpoints may have changed (every Service that
    /// selected it before or after).
    pub fn on_pod(&mut self, note: &Notification<Arc<Object>>) -> Vec<ObjectKey> {
        let (old, new): (Option<&Arc<Object>>, Option<&Arc<Object>>) = match note {
            Notification::Add(o) => (None, Some(o)),
            Notification::Update { old, new } => (Some(old), Some(new)),
            Notification::Delete(d) => (Some(d.object()), None),
        };
        let Some(namespace) = new.or(old).map(|o| o.namespace()) else {
            return Vec::new();
        };
        let services = self
            .services
            .store()
            .by_index(NAMESPACE_INDEX, namespace)
            .unwrap_or_default();
        // The pod's key only once a Service with a selector needs it (a namespace's Services
        // are often selector-less, as `kubernetes` in `default`).
        let mut pod_key = None;
        let mut touched = Vec::new();
        for svc in &services {
            let Some(sel) = service_of(svc).and_then(selector) else {
                continue;
            };
            let pod_key = pod_key.get_or_insert_with(|| note.key());
            let key = ObjectKey::of(svc);
            let was = old.is_some_and(|o| sel.matches(&o.meta().labels));
            let is = new.is_some_and(|o| sel.matches(&o.meta().labels));
            let set = self.members.entry(key.clone()).or_default();
            if is {
                set.insert(pod_key.clone());
            } else {
                set.remove(pod_key);
            }
            if was || is {
                touched.push(key);
            }
        }
        touched
    }

    /// Steps both informers and applies what they delivered; returns the Services whose
    /// endpoints may have changed, in delivery order (a key can repeat: the queue coalesces it).
    pub fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Vec<ObjectKey> {
        let mut keys = Vec::new();
        for note in self.services.step(now, api) {
            keys.push(self.on_service(&note));
        }
        for note in self.pods.step(now, api) {
            keys.extend(self.on_pod(&note));
        }
        keys
    }

    /// Both informers, for the UI.
    pub fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.services).into(), (&self.pods).into()]
    }
}
