//! The kubelet of one node (user agent `kubelet/<node>`): registers its Node, renews its Lease
//! in `kube-node-lease`, posts node status (`node_status.rs`), and runs the pods bound to it
//! (informer with `spec.nodeName=<node>`). A new pod goes through separate status writes — each
//! its own revision, as `kubectl get pods -w` shows them — Pending/ContainerCreating, then
//! Running after a virtual image pull and start, with `Pulling`/`Pulled`/`Created`/`Started`
//! events (a pod whose volumes name claims first waits, ContainerCreating, until each claim is
//! bound to an existing volume); from then on its containers live as their simulated behaviour says — probes, exits,
//! restarts with the crash-loop back-off ([`super::container_lifecycle`]) — and every change is
//! one status write (phase, container states, Ready/ContainersReady). A pod being deleted has
//! its containers stopped (`Killing`) and is then deleted for good with `gracePeriodSeconds=0`.
//! A stopped kubelet (the node is down) does nothing at all; restarted, it re-lists and syncs:
//! pods it still runs are reported Running again.
//!
//! This module is the loop: the informer pump and the work queue, each pod's sync handed to the
//! pure transition of `pod_runtime.rs` and its effects applied here, in order (API writes,
//! Events, wake-ups, the runtime's new state). The statuses it writes are `pod_status.rs`'s.

mod container_config;
pub mod container_logs;
mod node_status;
mod pod_runtime;
mod pod_status;

pub use node_status::{
    EVICTION_HARD_MEMORY, KUBELET_VERSION, NODE_CPU, NODE_LEASE_NAMESPACE, NODE_MEMORY, NODE_PODS,
};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pod_runtime::ephemeral::EphemeralRun;
use pod_runtime::{Effect, Host, PodRuntime};

use super::adapter::ApiInformer;
use super::events::EventRecorder;
use super::node_addresses::{self, PodIps};
use super::profile::Profile;
use super::runtime::{Action, Worker};
use super::shared_informer::InformerRef;
use super::{earliest, Controller, Requeue};
use crate::api::pod::Pod;
use crate::api::{Kind, Object};
use crate::apiserver::{ApiServer, DeleteOptions, Preconditions};
use crate::client::{InformerConfig, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use crate::rng::SimRng;
use watchlab_apimachinery::status::StatusReason;

/// One node's kubelet.
pub struct Kubelet {
    /// The node's name (the Node, its Lease, the pods' `spec.nodeName`).
    node: String,
    /// The user agent it writes as, `kubelet/<node>`.
    user: String,
    /// The node's place in the cluster, from which its addresses and identities derive.
    ordinal: u32,
    /// `false` while the node is down: a step does nothing.
    running: bool,
    /// The cluster seed its informers' random sources derive from.
    seed: u64,
    /// How many pod informers it has started (one per start of the kubelet).
    starts: u32,
    /// The informer start whose first list the runtimes were last checked against. Pods
    /// deleted while no informer ran (a dead node) show only as absent from a new informer's
    /// first list; afterwards every deletion arrives as a Delete notification (a relist's
    /// included, as a tombstone), so one scan per informer start suffices.
    runtimes_checked_at_start: u32,
    /// The informer of the pods bound to the node; `None` while down and before the first step.
    pods: Option<ApiInformer>,
    /// The pods to sync, by key, and the loop over them (the pod workers').
    worker: Worker<ObjectKey>,
    /// What the runtime holds for each pod it runs, by key (the pod workers' states).
    runtime: BTreeMap<ObjectKey, PodRuntime>,
    /// The ephemeral containers it runs, by pod key (`kubectl debug`): a pod without any has
    /// no entry, so ordinary pods cost nothing here.
    ephemeral: BTreeMap<ObjectKey, Vec<EphemeralRun>>,
    /// The images on the node (pulled once, unless a container's pull policy is `Always`).
    images: BTreeSet<String>,
    /// host-local IPAM's pool of the node's pod CIDR.
    pod_ips: PodIps,
    /// The node's InternalIP, shared by its pods' `status.hostIP`.
    host_ip: Arc<str>,
    /// Whether its Node is registered (`registerWithAPIServer` succeeded).
    registered: bool,
    /// The node Lease as last read or written; `None`: read it again.
    lease: Option<Arc<Object>>,
    /// When the Lease is renewed next.
    next_lease: Timestamp,
    /// When node status is synced next (`nodeStatusUpdateFrequency`).
    next_status: Timestamp,
    /// When node status was last written (`nodeStatusReportFrequency` counts from it).
    last_report: Option<Timestamp>,
    /// The Events it records, source `{kubelet, <node>}`.
    recorder: EventRecorder,
    /// The random source of image pull times.
    rng: SimRng,
    /// The timings.
    profile: Profile,
}

impl Kubelet {
    /// The kubelet of `node`, the `ordinal`-th node (its addresses derive from it).
    pub fn new(node: &str, ordinal: u32, seed: u64, profile: &Profile) -> Self {
        let user = format!("kubelet/{node}");
        Kubelet {
            node: node.to_string(),
            recorder: EventRecorder::new(&user, "kubelet", node),
            user,
            ordinal,
            running: true,
            seed,
            starts: 0,
            runtimes_checked_at_start: 0,
            pods: None,
            worker: Worker::default(),
            runtime: BTreeMap::new(),
            ephemeral: BTreeMap::new(),
            images: BTreeSet::new(),
            pod_ips: PodIps::new(ordinal),
            host_ip: Arc::from(node_addresses::internal_ip(ordinal).to_string()),
            registered: false,
            lease: None,
            next_lease: Timestamp::ZERO,
            next_status: Timestamp::ZERO,
            last_report: None,
            rng: SimRng::child(seed, &format!("kubelet/{node}")),
            profile: profile.clone(),
        }
    }

    /// The node's name.
    pub fn node_name(&self) -> &str {
        &self.node
    }

    /// Whether the node is up.
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// Kills (`false`) or restores (`true`) the node. A killed kubelet's streams are closed on
    /// its next step; a restored one re-lists and posts its status at once.
    pub fn set_running(&mut self, running: bool) {
        if running && !self.running {
            self.next_lease = Timestamp::ZERO;
            self.next_status = Timestamp::ZERO;
            self.lease = None;
        }
        self.running = running;
    }

    /// Pods the runtime currently holds.
    pub fn running_pods(&self) -> usize {
        self.runtime.len()
    }

    /// The pod informer, created on first use and after a restart (a fresh list).
    fn informer(&mut self) -> &mut ApiInformer {
        let (seed, user, node, profile) = (self.seed, &self.user, &self.node, &self.profile);
        let starts = &mut self.starts;
        self.pods.get_or_insert_with(|| {
            *starts += 1;
            let config = InformerConfig {
                field_selector: Some(format!("spec.nodeName={node}")),
                ..profile.informer_config()
            };
            let rng = SimRng::child(seed, &format!("{user}/pods/{starts}"));
            ApiInformer::new(Kind::Pod, None, config, Vec::new(), rng)
        })
    }

    /// Runtime pods the informer's fresh first list no longer shows were deleted meanwhile
    /// (`HandlePodCleanups`).
    fn forget_runtimes_not_listed(&mut self) {
        if let Some(informer) = &self.pods {
            let listed = informer.store();
            self.runtime.retain(|key, _| listed.get(key).is_some());
            self.ephemeral.retain(|key, _| listed.get(key).is_some());
        }
    }

    /// Brings one pod's runtime and status in line with its spec: the pod's
    /// [`pod_runtime::transition`], its effects applied in order; `Err` = retry rate-limited.
    fn sync_pod(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        queue: &mut WorkQueue<ObjectKey>,
    ) -> Result<(), Requeue> {
        let Some(obj) = self.pods.as_ref().and_then(|i| i.store().get(key)) else {
            self.runtime.remove(key);
            self.ephemeral.remove(key);
            return Ok(());
        };
        let Some(pod) = obj.as_pod() else {
            return Ok(());
        };
        let runtimes = &self.runtime;
        // A pod the runtime does not run yet and whose volumes name claims: are they bound?
        let starting = runtimes
            .get(key)
            .is_none_or(|r| r.uid() != pod.metadata.uid);
        let unmounted = match starting && !pod.spec.volumes.is_empty() {
            true => unmounted_volumes(api, pod),
            false => Vec::new(),
        };
        // A pod whose containers are due to be created: can their configuration be made?
        let due = runtimes
            .get(key)
            .is_some_and(|r| r.creates_containers_by(now));
        let config_errors = match due {
            true => container_config::config_errors(api, pod),
            false => Vec::new(),
        };
        let host = Host {
            host_ip: &self.host_ip,
            profile: &self.profile,
            images: &self.images,
            pod_ips: &self.pod_ips,
            ip_in_use: &|ip| runtimes.iter().any(|(k, r)| r.ip() == ip && k != key),
            rng: &self.rng,
            unmounted: &unmounted,
            config_errors: &config_errors,
        };
        let ephemeral = self.ephemeral.get(key).map_or(&[][..], Vec::as_slice);
        let effects = pod_runtime::transition(runtimes.get(key), ephemeral, pod, now, &host);
        for effect in effects {
            self.apply(now, api, key, &obj, effect, queue)?;
        }
        Ok(())
    }

    /// Applies one effect of a pod's sync; `Err` when a write failed or the sync asked for a
    /// retry (the sync's later effects are not applied).
    fn apply(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &ObjectKey,
        obj: &Object,
        effect: Effect,
        queue: &mut WorkQueue<ObjectKey>,
    ) -> Result<(), Requeue> {
        let Some(pod) = obj.as_pod() else {
            return Ok(());
        };
        match effect {
            Effect::Runtime(Some(runtime)) => match self.runtime.get_mut(key) {
                Some(held) => *held = runtime,
                None => {
                    self.runtime.insert(key.clone(), runtime);
                }
            },
            Effect::Runtime(None) => {
                self.runtime.remove(key);
                self.ephemeral.remove(key);
            }
            Effect::Ephemeral(runs) if runs.is_empty() => {
                self.ephemeral.remove(key);
            }
            Effect::Ephemeral(runs) => {
                self.ephemeral.insert(key.clone(), runs);
            }
            Effect::PodIps(pod_ips) => self.pod_ips = pod_ips,
            Effect::Event {
                event_type,
                reason,
                message,
            } => self
                .recorder
                .record(api, now, obj, event_type, reason, &message),
            Effect::WriteStatus(status) => {
                let updated = Pod {
                    metadata: pod.metadata.clone(),
                    spec: pod.spec.clone(),
                    status,
                };
                api.update_status(&self.user, Object::Pod(updated))
                    .map_err(|_| Requeue)?;
            }
            Effect::ImagePulled(image) => {
                self.images.insert(image);
            }
            Effect::Rng(rng) => self.rng = *rng,
            Effect::SyncAfter(ms) => queue.add_after(key.clone(), ms, now),
            Effect::Delete => self.delete(api, pod)?,
            Effect::Retry => return Err(Requeue),
        }
        Ok(())
    }

    /// Deletes a stopped pod for good (the status manager's final delete): grace 0, its uid
    /// as precondition; gone already or replaced (NotFound, Conflict) counts as done.
    fn delete(&mut self, api: &mut ApiServer, pod: &Pod) -> Result<(), Requeue> {
        let opts = DeleteOptions {
            grace_period_seconds: Some(0),
            preconditions: Some(Preconditions {
                uid: Some(pod.metadata.uid.clone()),
                resource_version: None,
            }),
            ..Default::default()
        };
        match api.delete(
            &self.user,
            Kind::Pod,
            Some(&pod.metadata.namespace),
            &pod.metadata.name,
            &opts,
        ) {
            Ok(_) => Ok(()),
            Err(s) if matches!(s.reason(), StatusReason::NotFound | StatusReason::Conflict) => {
                Ok(())
            }
            Err(_) => Err(Requeue),
        }
    }
}

/// The volume manager's populator (`getPVCExtractPV`, `getPVSpec`): the pod's volumes whose
/// claim is missing, being deleted, not bound, or whose volume is missing — read with a GET each,
/// as the kubelet reads them.
fn unmounted_volumes(api: &ApiServer, pod: &Pod) -> Vec<String> {
    let ns = Some(pod.metadata.namespace.as_str());
    let mounted = |claim: &str| {
        let Ok(obj) = api.get(Kind::PersistentVolumeClaim, ns, claim) else {
            return false;
        };
        let Some(c) = obj.as_persistent_volume_claim() else {
            return false;
        };
        let bound = c.metadata.deletion_timestamp.is_none()
            && c.status.phase == "Bound"
            && !c.spec.volume_name.is_empty();
        bound
            && api
                .get(Kind::PersistentVolume, None, &c.spec.volume_name)
                .is_ok()
    };
    pod.spec
        .claim_volumes()
        .filter(|(_, claim)| !mounted(claim))
        .map(|(volume, _)| volume.to_string())
        .collect()
}

impl Kubelet {
    /// The earliest instant it needs a step on its own (what a step returns).
    fn next_wakeup(&self) -> Option<Timestamp> {
        earliest([
            Some(self.next_lease),
            Some(self.next_status),
            self.pods.as_ref().and_then(|i| i.next_wakeup()),
            self.worker.queue().next_ready_at(),
            self.recorder.next_retry(),
        ])
    }
}

impl Controller for Kubelet {
    fn informers(&self) -> Vec<InformerRef<'_>> {
        self.pods.iter().map(Into::into).collect()
    }

    fn name(&self) -> &str {
        &self.user
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        if !self.running {
            if let Some(mut informer) = self.pods.take() {
                informer.stop(api, &self.user);
            }
            return None;
        }
        self.recorder.flush(api, now);
        if !self.sync_node(now, api) {
            return Some(now.plus_secs(1));
        }
        self.informer();
        let notes = match self.pods.as_mut() {
            Some(informer) => informer.step(now, api, &self.user),
            None => Vec::new(),
        };
        for note in notes {
            self.worker.queue_mut().add(note.key());
        }
        if self.pods.as_ref().is_some_and(|i| i.has_synced()) {
            if self.runtimes_checked_at_start != self.starts {
                self.runtimes_checked_at_start = self.starts;
                self.forget_runtimes_not_listed();
            }
            if self.worker.queue().has_ready(now) {
                // The worker is taken out while it runs, so that a pod's sync can borrow the
                // kubelet and add the pod back to the worker's queue (a wake-up it asks for).
                let mut worker = std::mem::take(&mut self.worker);
                worker.drain(now, &mut || false, |key, queue, _| {
                    Some(self.sync_pod(now, api, key, queue).map(|()| Action::Done))
                });
                self.worker = worker;
            }
        }
        self.next_wakeup()
    }

    fn idle(&self, now: Timestamp, api: &ApiServer) -> Option<Option<Timestamp>> {
        let informer = self.pods.as_ref()?;
        let quiet = self.running
            && self.registered
            && self.runtimes_checked_at_start == self.starts
            && self.worker.queue().is_empty()
            && (self.recorder.pending() == 0
                || self.recorder.next_retry().is_some_and(|t| t > now))
            && informer.is_quiet(now, api);
        let wake = self.next_wakeup();
        (quiet && wake.is_none_or(|t| t > now)).then_some(wake)
    }
}
