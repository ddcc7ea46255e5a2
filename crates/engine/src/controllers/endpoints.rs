//! The Endpoints controller (user agent `endpoint-controller`, as in kube-controller-manager):
//! mirrors what the EndpointSlice controller computes into the old `v1.Endpoints` object named
//! like the Service, for clients that still read it (`kubectl get ep`): ready pods under
//! `addresses`, not-ready ones under `notReadyAddresses`, grouped into subsets by the ports
//! they resolve and sorted by IP (`RepackSubsets`); terminating pods are left out unless the
//! Service sets `publishNotReadyAddresses`. The object
//! is written only when it changes and deleted with its Service. Same informers and member
//! sets as the EndpointSlice controller ([`ServiceMembers`]), its own coalescing queue.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::endpointslice::{pod_reference, should_set_hostname};
use super::runtime::{Action, Reconciled, Reconciler};
use super::service_members::{
    is_serving, selector, should_be_in_endpoints, target_port, ServiceMembers,
};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::{earliest, Requeue};
use crate::api::endpoints::{EndpointAddress, EndpointPort, EndpointSubset, Endpoints};
use crate::api::pod::Pod;
use crate::api::service::Service;
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use watchlab_apimachinery::sort;

pub const USER_AGENT: &str = "endpoint-controller";

/// The Endpoints controller.
pub struct EndpointsController {
    members: ServiceMembers,
    endpoints: SharedInformer,
}

fn ports_for(svc: &Service, pod: &Pod) -> Vec<EndpointPort> {
    let mut ports: Vec<EndpointPort> = svc
        .spec
        .ports
        .iter()
        .filter_map(|p| {
            Some(EndpointPort {
                name: p.name.clone(),
                port: target_port(pod, p)?,
                protocol: p.protocol.clone(),
                app_protocol: p.app_protocol.clone(),
            })
        })
        .collect();
    sort::sort_by(&mut ports, |a, b| (&a.name, a.port).cmp(&(&b.name, b.port)));
    ports
}

/// The subsets of a Service's endpoints (`RepackSubsets`: by ports, addresses sorted by IP).
pub fn subsets(svc: &Service, pods: &[Arc<Object>]) -> Vec<EndpointSubset> {
    let mut by_ports: BTreeMap<Vec<EndpointPort>, EndpointSubset> = BTreeMap::new();
    let publish_not_ready = svc.spec.publish_not_ready_addresses == Some(true);
    for obj in pods {
        let Some(pod) = obj.as_pod() else { continue };
        if !should_be_in_endpoints(pod, publish_not_ready) {
            continue;
        }
        let hostname = match should_set_hostname(pod, svc) {
            true => pod.spec.hostname.clone(),
            false => String::new(),
        };
        let address = EndpointAddress {
            ip: pod.status.pod_ip.clone(),
            hostname,
            node_name: (!pod.spec.node_name.is_empty()).then(|| pod.spec.node_name.clone()),
            target_ref: Some(pod_reference(pod)),
        };
        let ports = ports_for(svc, pod);
        let subset = by_ports
            .entry(ports.clone())
            .or_insert_with(|| EndpointSubset {
                ports,
                ..Default::default()
            });
        if publish_not_ready || is_serving(pod) {
            subset.addresses.push(address);
        } else {
            subset.not_ready_addresses.push(address);
        }
    }
    let mut out: Vec<EndpointSubset> = by_ports.into_values().collect();
    for s in &mut out {
        sort::sort_by(&mut s.addresses, |a, b| a.ip.cmp(&b.ip));
        sort::sort_by(&mut s.not_ready_addresses, |a, b| a.ip.cmp(&b.ip));
    }
    out
}

impl EndpointsController {
    pub fn new(informers: &SharedInformers) -> Self {
        EndpointsController {
            members: ServiceMembers::new(
                informers.reader(Kind::Service),
                informers.reader(Kind::Pod),
            ),
            endpoints: informers.reader(Kind::Endpoints),
        }
    }

    /// `syncService` (`pkg/controller/endpoint/endpoints_controller.go`): Err when the write
    /// failed (retried with back-off).
    fn sync(&mut self, api: &mut ApiServer, key: &ObjectKey) -> Result<(), Requeue> {
        let (namespace, name) = key.split();
        let current = self.endpoints.store().get(key);
        let Some(obj) = self.members.service(key) else {
            // The Service is gone: so are its Endpoints.
            if current.is_some() {
                let deleted = api.delete(
                    USER_AGENT,
                    Kind::Endpoints,
                    namespace,
                    name,
                    &DeleteOptions::default(),
                );
                return match deleted {
                    Err(e) if e.code() != 404 => Err(Requeue),
                    _ => Ok(()),
                };
            }
            return Ok(());
        };
        let Some(svc) = obj.as_service() else {
            return Ok(());
        };
        if selector(svc).is_none() {
            return Ok(());
        }
        let subsets = subsets(svc, &self.members.pods_of(key));
        let result = match current.as_deref() {
            Some(Object::Endpoints(e)) => {
                if e.subsets == subsets && e.metadata.labels == svc.metadata.labels {
                    return Ok(());
                }
                let mut updated = e.clone();
                updated.subsets = subsets;
                updated.metadata.labels.clone_from(&svc.metadata.labels);
                api.update(USER_AGENT, updated.into())
            }
            _ => {
                let mut meta = ObjectMeta::named(obj.namespace(), obj.name());
                meta.labels.clone_from(&svc.metadata.labels);
                api.create(
                    USER_AGENT,
                    Endpoints {
                        metadata: meta,
                        subsets,
                    }
                    .into(),
                )
            }
        };
        result.map(|_| ()).map_err(|_| Requeue)
    }
}

impl Reconciler for EndpointsController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        let mut all = self.members.informers();
        all.push((&self.endpoints).into());
        all
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        for key in self.members.step(now, api) {
            queue.add(key);
        }
        for note in self.endpoints.step(now, api) {
            // Only a deletion requeues its Service (`onEndpointsDelete`): Endpoints written by
            // hand for a Service without a selector are not this controller's.
            if matches!(note, Notification::Delete(_)) {
                queue.add(note.key());
            }
        }
    }

    fn has_synced(&self) -> bool {
        self.members.has_synced() && self.endpoints.has_synced()
    }

    fn reconcile(&mut self, _now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(api, key).map(|()| Action::Done)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            self.members.services.next_wakeup(),
            self.members.pods.next_wakeup(),
            self.endpoints.next_wakeup(),
        ])
    }
}
