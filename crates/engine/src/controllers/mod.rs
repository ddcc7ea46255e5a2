//! The controllers: every component of the control plane as a loop that reads the ledger,
//! computes the difference and writes the ledger — never talking to another component directly.
//! The scheduler, one kubelet per node, the node lifecycle controller (with taint-based
//! eviction), the ReplicaSet and the Deployment controllers, the namespace controller, the
//! disruption controller (PodDisruptionBudgets) and the garbage
//! collector each own their work queue, read informers (kube-controller-manager's controllers
//! share one per kind, [`shared_informer`]) and act only through API requests; the watch
//! broadcast passes the baton between them.
//! An example operator (`website.rs`) reconciles a custom resource the same way, once its
//! CustomResourceDefinition is established.
//!
//! A driver (the [`harness::Harness`] here, the cluster façade elsewhere) owns the
//! [`crate::apiserver::ApiServer`] and calls every [`Controller::step`] in a fixed order whenever
//! virtual time advances, jumping to the earliest wake-up any of them asked for.

pub mod adapter;
pub mod container_lifecycle;
pub mod control_plane;
pub mod cronjob;
pub mod daemonset;
pub mod deployment;
pub mod disruption;
pub mod endpoints;
pub mod endpointslice;
pub mod event_spam;
pub mod events;
pub mod garbage_collector;
pub mod harness;
pub mod history;
pub mod job;
pub mod kube_proxy;
pub mod kubelet;
pub mod leader_election;
pub mod lru;
pub mod namespace;
pub mod node_addresses;
pub mod node_lifecycle;
pub mod parking;
pub mod pod_tally;
pub mod podutil;
pub mod profile;
pub mod replica;
pub mod replicaset;
pub mod runtime;
pub mod scheduler;
pub mod scheduler_cache;
pub mod service_members;
pub mod shared_informer;
pub mod statefulset;
pub mod ttl_after_finished;
pub mod volume;
pub mod website;

pub use adapter::{ApiInformer, ApiListerWatcher};
pub use control_plane::{ControlPlane, Settling};
pub use deployment::DeploymentController;
pub use endpoints::EndpointsController;
pub use endpointslice::EndpointSliceController;
pub use events::EventRecorder;
pub use garbage_collector::GarbageCollector;
pub use harness::Harness;
pub use kube_proxy::{KubeProxy, ProxyRule};
pub use kubelet::Kubelet;
pub use namespace::NamespaceController;
pub use node_lifecycle::NodeLifecycleController;
pub use profile::Profile;
pub use replicaset::ReplicaSetController;
pub use runtime::{Action, Reconciler, Runner};
pub use scheduler::Scheduler;
pub use shared_informer::{InformerRef, SharedInformer, SharedInformers};
pub use website::WebsiteOperator;

use std::any::Any;

use crate::apiserver::ApiServer;
use crate::clock::Timestamp;

/// A sync that stopped before its work was done — a write was refused (a newer version, etcd
/// without quorum, an object the cache has not shown yet) — so its key goes back on the work
/// queue with back-off, as client-go's controllers `AddRateLimited` a key whose sync returned
/// an error. Which write failed does not matter: the retry reads everything again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requeue;

/// `Any` for every controller, so the [`ControlPlane`] can hand out a typed one
/// ([`ControlPlane::controller`], [`ControlPlane::reconciler`]).
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// One control loop of the cluster.
pub trait Controller: AsAny {
    /// The user agent its requests carry (`kube-scheduler`, `kubelet/node-a`, ...).
    fn name(&self) -> &str;

    /// Pumps its informers, processes its work queue and issues its requests at `now`; returns
    /// when it next needs a step on its own (a delivery, a delayed key, a periodic timer). It
    /// also needs a step whenever the server has committed new writes (its watches must be
    /// polled), which the driver detects from the store revision.
    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp>;

    /// [`Controller::step`] that may stop part-way when `stop` says so (a browser frame's
    /// budget), for a controller whose one step can be long (the scheduler binding a burst of
    /// 500 pods, the ReplicaSet controller creating one). Called again at the same instant with nothing else run in between, it goes on
    /// where it stopped, so the writes are those of one uncut step. By default the step is whole.
    fn step_until(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        _stop: &mut dyn FnMut() -> bool,
    ) -> Stepped {
        Stepped::Done(self.step(now, api))
    }

    /// `Some(wake)` when a step at `now` would do nothing but return `wake` (nothing due, no
    /// stream with news), so a settle may skip it: at a thousand nodes most kubelets are idle at
    /// any instant, and stepping each of them every round was most of the work. `None`: step it.
    ///
    /// The answer may depend only on the controller itself, on `now`, and on its
    /// [`Controller::informers`]' watch streams (which must then all be open): a settle parks an
    /// idle controller ([`parking`]) and does not ask again, with the same answer assumed, until
    /// one of those streams gets news, `wake` comes due, or the controller is changed from
    /// outside ([`ControlPlane::kubelet_mut`]).
    fn idle(&self, _now: Timestamp, _api: &ApiServer) -> Option<Option<Timestamp>> {
        None
    }

    /// Its informers (its own and the shared ones it reads), so the UI can show each cache's
    /// revision against the ledger's.
    fn informers(&self) -> Vec<InformerRef<'_>> {
        Vec::new()
    }

    /// The controller's type (a [`Runner`]'s: its reconciler's), so a test can tell that the
    /// control plane runs every controller type there is.
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// How a [`Controller::step_until`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stepped {
    /// The step is complete; its wake-up as [`Controller::step`] returns it.
    Done(Option<Timestamp>),
    /// It stopped with work left at this instant: step it again to go on.
    Stopped,
}

/// The [`Controller::step`] of a controller whose step can stop part-way: its
/// [`Controller::step_until`] never asked to stop.
pub(crate) fn whole_step<C: Controller + ?Sized>(
    c: &mut C,
    now: Timestamp,
    api: &mut ApiServer,
) -> Option<Timestamp> {
    match c.step_until(now, api, &mut || false) {
        Stepped::Done(wake) => wake,
        Stepped::Stopped => Some(now),
    }
}

/// The earliest of several optional wake-ups.
pub(crate) fn earliest(times: impl IntoIterator<Item = Option<Timestamp>>) -> Option<Timestamp> {
    times.into_iter().flatten().min()
}
