//! The EndpointSlice controller (user agent `endpointslice-controller`, as in
//! kube-controller-manager): for every Service with a selector, the pods it selects become
//! endpoints in `discovery.k8s.io/v1` slices of at most `--max-endpoints-per-slice` (100)
//! endpoints, labelled `kubernetes.io/service-name` and managed-by
//! `endpointslice-controller.k8s.io`, named `<service>-<5 chars>` and owned by the Service
//! (the garbage collector removes them with it). Each endpoint carries the pod's IP, node,
//! reference and conditions: `serving` is the pod's Ready condition, `terminating` its
//! deletionTimestamp, `ready` serving and not terminating. Pods whose named target ports
//! resolve differently land in different slices. An endpoint stays in the slice it is in
//! (the reconciler fills existing slices before creating new ones), a slice is written only
//! when its content changes, and a Service without endpoints keeps one empty placeholder
//! slice. Work is a coalescing queue keyed by Service, fed by Service, Pod and slice events
//! through [`ServiceMembers`]; after writing, a Service is not synced again until the cache
//! has seen its writes (the `endpointSliceTracker`'s staleness check).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::adapter::SERVICE_NAME_INDEX;
use super::replicaset::EXPECTATIONS_TIMEOUT_MS;
use super::runtime::{Action, Reconciled, Reconciler};
use super::service_members::{
    is_serving, selector, should_be_in_endpoints, target_port, ServiceMembers,
};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::endpoint_slice::{
    Endpoint, EndpointConditions, EndpointPort, EndpointSlice, LABEL_MANAGED_BY,
    LABEL_SERVICE_NAME, MANAGED_BY_CONTROLLER,
};
use crate::api::meta::{ObjectReference, OwnerReference};
use crate::api::pod::Pod;
use crate::api::service::Service;
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use watchlab_apimachinery::sort;

pub const USER_AGENT: &str = "endpointslice-controller";
/// `--max-endpoints-per-slice` (kube-controller-manager default 100).
pub const MAX_ENDPOINTS_PER_SLICE: usize = 100;
/// How soon a Service whose cache is behind its writes is looked at again.
const STALE_RETRY_MS: u64 = 1000;

/// A slice's port list; pods resolving a Service's ports to the same numbers share slices.
type Ports = Vec<EndpointPort>;

/// Writes a sync leaves unobserved: slice name → the resourceVersion written (`None`: deleted).
struct Pending {
    slices: BTreeMap<String, Option<u64>>,
    set_at: Timestamp,
}

/// `finalize` in the real reconciler (pkg/controller/endpointslice reconciler.go): when one sync
/// would both create and delete slices, each create becomes an update of a slice that would be
/// deleted (same address type, owned by this Service). So the placeholder a Service gets before
/// its pods have IPs is filled in place, keeping its name, and watchers see one MODIFIED rather
/// than an ADDED and a DELETED.
fn reuse_deleted_slices(
    svc: &Service,
    existing: &[Arc<Object>],
    writes: Vec<SliceWrite>,
) -> Vec<SliceWrite> {
    let owned_by_svc = |s: &EndpointSlice| {
        s.metadata
            .owner_references
            .iter()
            .any(|o| o.uid == svc.metadata.uid)
    };
    let (mut creates, others): (Vec<SliceWrite>, Vec<SliceWrite>) = writes
        .into_iter()
        .partition(|w| matches!(w, SliceWrite::Create(_)));
    let mut result = Vec::with_capacity(creates.len() + others.len());
    let mut deletes = Vec::new();
    for w in others {
        match w {
            SliceWrite::Delete(name) => deletes.push(name),
            w => result.push(w),
        }
    }
    for name in deletes {
        let reusable = existing
            .iter()
            .filter_map(|o| o.as_endpoint_slice())
            .find(|s| s.metadata.name == name && owned_by_svc(s));
        let create = match (reusable, creates.last()) {
            (Some(old), Some(SliceWrite::Create(new))) if old.address_type == new.address_type => {
                creates.pop()
            }
            _ => None,
        };
        match (reusable, create) {
            (Some(old), Some(SliceWrite::Create(new))) => {
                let mut updated = old.clone();
                updated.metadata.labels = new.metadata.labels;
                updated.endpoints = new.endpoints;
                updated.ports = new.ports;
                result.push(SliceWrite::Update(updated));
            }
            _ => result.push(SliceWrite::Delete(name)),
        }
    }
    result.extend(creates);
    result
}

/// The EndpointSlice controller.
pub struct EndpointSliceController {
    members: ServiceMembers,
    slices: SharedInformer,
    pending: BTreeMap<ObjectKey, Pending>,
    max_endpoints: usize,
}

/// Whether a slice is this controller's (`endpointslice.kubernetes.io/managed-by`).
fn managed_by_us(meta: &ObjectMeta) -> bool {
    meta.labels.get(LABEL_MANAGED_BY).map(String::as_str) == Some(MANAGED_BY_CONTROLLER)
}

/// `v1` owner reference to a Service (controller, blocking its foreground deletion).
pub fn service_owner(svc: &Service) -> OwnerReference {
    OwnerReference {
        api_version: "v1".into(),
        kind: "Service".into(),
        name: svc.metadata.name.clone(),
        uid: svc.metadata.uid.clone(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// `v1` reference to a pod (an endpoint's `targetRef`).
pub fn pod_reference(pod: &Pod) -> ObjectReference {
    ObjectReference {
        kind: "Pod".into(),
        namespace: pod.metadata.namespace.clone(),
        name: pod.metadata.name.clone(),
        uid: pod.metadata.uid.clone(),
        ..Default::default()
    }
}

/// The slice ports a pod resolves for the Service's ports (unresolvable named ports left out).
fn ports_for(svc: &Service, pod: &Pod) -> Ports {
    svc.spec
        .ports
        .iter()
        .filter_map(|p| {
            Some(EndpointPort {
                name: Some(p.name.clone()),
                protocol: Some(p.protocol.clone()),
                port: Some(target_port(pod, p)?),
                app_protocol: p.app_protocol.clone(),
            })
        })
        .collect()
}

/// `podToEndpoint`: `serving` is the pod's Ready condition, `terminating` its deletion mark,
/// and `ready` serving and not terminating unless the Service publishes not-ready addresses.
fn endpoint_for(svc: &Service, pod: &Pod) -> Endpoint {
    let serving = is_serving(pod);
    let terminating = pod.metadata.deletion_timestamp.is_some();
    let ready = svc.spec.publish_not_ready_addresses == Some(true) || (serving && !terminating);
    Endpoint {
        addresses: vec![pod.status.pod_ip.clone()],
        conditions: EndpointConditions {
            ready: Some(ready),
            serving: Some(serving),
            terminating: Some(terminating),
        },
        hostname: should_set_hostname(pod, svc).then(|| pod.spec.hostname.clone()),
        node_name: (!pod.spec.node_name.is_empty()).then(|| pod.spec.node_name.clone()),
        target_ref: Some(pod_reference(pod)),
        ..Default::default()
    }
}

/// `endpointutil.ShouldSetHostname`: a pod with a host name whose subdomain is the Service
/// (a StatefulSet's pods under its headless Service) is published by name, so
/// `web-0.nginx.default.svc` resolves to it.
pub fn should_set_hostname(pod: &Pod, svc: &Service) -> bool {
    !pod.spec.hostname.is_empty()
        && pod.spec.subdomain == svc.metadata.name
        && pod.metadata.namespace == svc.metadata.namespace
}

fn pod_name(e: &Endpoint) -> &str {
    e.target_ref.as_ref().map_or("", |r| r.name.as_str())
}

/// One write a sync decided on.
enum SliceWrite {
    Create(EndpointSlice),
    Update(EndpointSlice),
    Delete(String),
}

impl EndpointSliceController {
    pub fn new(informers: &SharedInformers) -> Self {
        EndpointSliceController {
            members: ServiceMembers::new(
                informers.reader(Kind::Service),
                informers.reader(Kind::Pod),
            ),
            slices: informers.reader(Kind::EndpointSlice),
            pending: BTreeMap::new(),
            max_endpoints: MAX_ENDPOINTS_PER_SLICE,
        }
    }

    /// The same with another `--max-endpoints-per-slice` (tests).
    pub fn with_max_endpoints(mut self, max: usize) -> Self {
        self.max_endpoints = max.max(1);
        self
    }

    /// The cached slices of a Service managed by this controller, by name.
    fn slices_of(&self, key: &ObjectKey) -> Vec<Arc<Object>> {
        let mut slices = self
            .slices
            .store()
            .by_index(SERVICE_NAME_INDEX, key.as_str())
            .unwrap_or_default();
        slices.retain(|s| managed_by_us(s.meta()));
        sort::sort_by(&mut slices, |a, b| a.name().cmp(b.name()));
        slices
    }

    fn on_slice(&mut self, note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let obj = match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => o,
            Notification::Delete(d) => d.object(),
        };
        let m = obj.meta();
        if !managed_by_us(m) {
            return;
        }
        let Some(svc) = m.labels.get(LABEL_SERVICE_NAME) else {
            return;
        };
        let key = ObjectKey::new(Some(&m.namespace), svc);
        if let Some(p) = self.pending.get_mut(&key) {
            let seen = match note {
                Notification::Delete(_) => true,
                _ => p
                    .slices
                    .get(obj.name())
                    .is_some_and(|rv| rv.is_some_and(|rv| obj.resource_version() >= rv)),
            };
            if seen {
                p.slices.remove(obj.name());
            }
            if p.slices.is_empty() {
                self.pending.remove(&key);
            }
        }
        queue.add(key);
    }

    /// Whether the cache still lacks writes of the last sync of `key`.
    fn is_stale(&mut self, key: &ObjectKey, now: Timestamp) -> bool {
        match self.pending.get(key) {
            Some(p) if now.millis_since(p.set_at) < EXPECTATIONS_TIMEOUT_MS => true,
            Some(_) => {
                self.pending.remove(key);
                false
            }
            None => false,
        }
    }

    /// The desired endpoints of a Service, grouped by the ports they resolve, by pod name.
    fn desired(
        &self,
        key: &ObjectKey,
        svc: &Service,
    ) -> BTreeMap<Ports, BTreeMap<String, Endpoint>> {
        let mut groups: BTreeMap<Ports, BTreeMap<String, Endpoint>> = BTreeMap::new();
        for obj in self.members.pods_of(key) {
            let Some(pod) = obj.as_pod() else { continue };
            if !should_be_in_endpoints(pod, true) {
                continue;
            }
            groups
                .entry(ports_for(svc, pod))
                .or_default()
                .insert(pod.metadata.name.clone(), endpoint_for(svc, pod));
        }
        groups
    }

    /// `reconcile`: the writes that bring the Service's slices to `desired`.
    fn plan(
        &self,
        svc: &Service,
        existing: &[Arc<Object>],
        desired: BTreeMap<Ports, BTreeMap<String, Endpoint>>,
    ) -> Vec<SliceWrite> {
        let mut writes = Vec::new();
        let mut kept = vec![false; existing.len()];
        let mut placeholder_ok = false;
        for (ports, mut remaining) in desired {
            let mut filled: Vec<(usize, Vec<Endpoint>)> = Vec::new();
            for (i, obj) in existing.iter().enumerate() {
                let Some(s) = obj.as_endpoint_slice().filter(|s| s.ports == ports) else {
                    continue;
                };
                let eps = s
                    .endpoints
                    .iter()
                    .filter_map(|e| remaining.remove(pod_name(e)))
                    .collect();
                filled.push((i, eps));
            }
            for (_, eps) in &mut filled {
                while eps.len() < self.max_endpoints {
                    let Some((_, e)) = remaining.pop_first() else {
                        break;
                    };
                    eps.push(e);
                }
            }
            for (i, eps) in filled {
                let Some(obj) = existing.get(i) else { continue };
                let Some(s) = obj.as_endpoint_slice() else {
                    continue;
                };
                if eps.is_empty() {
                    continue;
                }
                kept[i] = true;
                if s.endpoints != eps {
                    let mut updated = s.clone();
                    updated.endpoints = eps;
                    writes.push(SliceWrite::Update(updated));
                }
            }
            let rest: Vec<Endpoint> = remaining.into_values().collect();
            for chunk in rest.chunks(self.max_endpoints) {
                writes.push(SliceWrite::Create(self.new_slice(
                    svc,
                    ports.clone(),
                    chunk.to_vec(),
                )));
            }
            placeholder_ok = true;
        }
        if !placeholder_ok {
            // No endpoints at all: one empty placeholder slice.
            let reuse = existing
                .iter()
                .position(|o| {
                    o.as_endpoint_slice()
                        .is_some_and(|s| s.endpoints.is_empty() && s.ports.is_empty())
                })
                .or(if existing.is_empty() { None } else { Some(0) });
            match reuse.and_then(|i| Some((i, existing.get(i)?.as_endpoint_slice()?))) {
                Some((i, s)) => {
                    kept[i] = true;
                    if !s.endpoints.is_empty() || !s.ports.is_empty() {
                        let mut empty = s.clone();
                        empty.endpoints.clear();
                        empty.ports.clear();
                        writes.push(SliceWrite::Update(empty));
                    }
                }
                None => writes.push(SliceWrite::Create(self.new_slice(
                    svc,
                    Vec::new(),
                    Vec::new(),
                ))),
            }
        }
        for (i, obj) in existing.iter().enumerate() {
            if !kept.get(i).copied().unwrap_or(true) {
                writes.push(SliceWrite::Delete(obj.name().to_string()));
            }
        }
        reuse_deleted_slices(svc, existing, writes)
    }

    fn new_slice(&self, svc: &Service, ports: Ports, endpoints: Vec<Endpoint>) -> EndpointSlice {
        let mut meta = ObjectMeta::named(&svc.metadata.namespace, "");
        meta.generate_name = format!("{}-", svc.metadata.name).into();
        meta.labels = svc.metadata.labels.clone();
        meta.labels
            .insert(LABEL_SERVICE_NAME.into(), svc.metadata.name.clone());
        meta.labels
            .insert(LABEL_MANAGED_BY.into(), MANAGED_BY_CONTROLLER.into());
        meta.owner_references = vec![service_owner(svc)].into();
        EndpointSlice {
            metadata: meta,
            address_type: "IPv4".into(),
            endpoints,
            ports,
        }
    }

    /// `syncService` (`pkg/controller/endpointslice/endpointslice_controller.go`): Err when a
    /// write failed (the key is retried with back-off).
    fn sync(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let Some(obj) = self.members.service(key) else {
            // Gone: its slices are the garbage collector's (they are owned by it).
            self.pending.remove(key);
            return Ok(Action::Done);
        };
        let Some(svc) = obj.as_service() else {
            return Ok(Action::Done);
        };
        if selector(svc).is_none() || obj.meta().deletion_timestamp.is_some() {
            return Ok(Action::Done);
        }
        if self.is_stale(key, now) {
            // Its slice events requeue it; this is the safety net should one never come.
            return Ok(Action::RequeueAfter(STALE_RETRY_MS));
        }
        let existing = self.slices_of(key);
        let desired = self.desired(key, svc);
        let writes = self.plan(svc, &existing, desired);
        let mut pending = BTreeMap::new();
        let mut failed = false;
        for w in writes {
            let result = match w {
                SliceWrite::Create(s) => api.create(USER_AGENT, s.into()).map(Some),
                SliceWrite::Update(s) => api.update(USER_AGENT, s.into()).map(Some),
                SliceWrite::Delete(name) => {
                    let deleted = api.delete(
                        USER_AGENT,
                        Kind::EndpointSlice,
                        Some(obj.namespace()),
                        &name,
                        &DeleteOptions::default(),
                    );
                    match deleted {
                        Ok(_) => {
                            pending.insert(name, None);
                            Ok(None)
                        }
                        Err(e) if e.code() == 404 => Ok(None),
                        Err(e) => Err(e),
                    }
                }
            };
            match result {
                Ok(Some(written)) => {
                    pending.insert(written.name().to_string(), Some(written.resource_version()));
                }
                Ok(None) => {}
                Err(_) => failed = true,
            }
        }
        if !pending.is_empty() {
            self.pending.insert(
                key.clone(),
                Pending {
                    slices: pending,
                    set_at: now,
                },
            );
        }
        if failed {
            Err(Requeue)
        } else {
            Ok(Action::Done)
        }
    }
}

impl Reconciler for EndpointSliceController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        let mut all = self.members.informers();
        all.push((&self.slices).into());
        all
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        for key in self.members.step(now, api) {
            queue.add(key);
        }
        for note in self.slices.step(now, api) {
            self.on_slice(&note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.members.has_synced() && self.slices.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(now, api, key)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.members.services.next_wakeup(),
            self.members.pods.next_wakeup(),
            self.slices.next_wakeup(),
        ])
    }
}
