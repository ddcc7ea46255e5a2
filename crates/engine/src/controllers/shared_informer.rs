//! kube-controller-manager's shared informers (client-go's `SharedInformerFactory`): the
//! controllers of one process that read the same resource read one informer — one list and
//! watch, one cache carrying every index they need — and each gets every notification in a
//! queue of its own (client-go's `processorListener`). In the real process the ReplicaSet, node
//! lifecycle, Endpoints and EndpointSlice controllers and the garbage collector all hold the
//! factory's pod informer, so a pod write lands in one cache, not five; here too, and so for
//! every kind the process reads (the garbage collector reads them all). The scheduler, the
//! kubelets, the kube-proxies and the example operator are processes of their own, with their
//! own informers.
//!
//! The informer has no thread of its own: whichever reader steps first after news pumps it,
//! what it delivers goes to every reader's queue, and each reader takes its own on its step.
//! The controllers of kube-controller-manager are stepped in every settle round (none parks),
//! and the first of them pumps, so a notification pumped in a round reaches the readers stepped
//! later in that round at once and the earlier ones in the next — which there is, because news
//! on a watch means a write was committed during the round.

use std::cell::{Ref, RefCell};
use std::collections::BTreeMap;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use super::adapter::{
    controller_uid_index, node_name_index, pod_controller_uid_index, service_name_index,
    ApiInformer,
};
use super::profile::Profile;
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::store::namespace_index;
use crate::client::{IndexFunc, InformerConfig, Notification, Store};
use crate::clock::Timestamp;
use crate::rng::SimRng;

/// The user agent the factory's lists and watches carry (the real factory's client is
/// `kube-controller-manager/.../shared-informers`; its controllers write as themselves).
pub const USER_AGENT: &str = "kube-controller-manager";

type Note = Notification<Arc<Object>>;

/// One informer and its readers' queues.
struct Hub {
    informer: ApiInformer,
    /// Each reader's undelivered notifications; `None` for a reader of the cache alone, or
    /// one that has gone.
    queues: Vec<Option<Vec<Note>>>,
}

/// The factory: one informer per kind, made on first demand.
#[derive(Clone)]
pub struct SharedInformers(Rc<RefCell<Factory>>);

struct Factory {
    seed: u64,
    config: InformerConfig,
    hubs: BTreeMap<Kind, Rc<RefCell<Hub>>>,
}

/// The indexes a kind's shared informer keeps: the factory's namespace index for every kind,
/// plus for pods the ones kube-controller-manager's controllers add to it (the node lifecycle
/// controller's `spec.nodeName`, the ReplicaSet controller's `podControllerUID`).
fn indexers(kind: Kind) -> Vec<(String, IndexFunc<Arc<Object>>)> {
    let mut all = vec![namespace_index()];
    if kind == Kind::Pod {
        all.extend([node_name_index(), pod_controller_uid_index()]);
    } else if kind == Kind::ReplicaSet {
        all.push(controller_uid_index());
    } else if kind == Kind::EndpointSlice {
        all.push(service_name_index());
    }
    all
}

impl SharedInformers {
    /// A factory whose informers draw from `seed` and behave as `profile` says.
    pub fn new(seed: u64, profile: &Profile) -> Self {
        SharedInformers(Rc::new(RefCell::new(Factory {
            seed,
            config: profile.informer_config(),
            hubs: BTreeMap::new(),
        })))
    }

    /// A reader of `kind`'s informer that gets every notification.
    pub fn reader(&self, kind: Kind) -> SharedInformer {
        self.join(kind, true)
    }

    /// A reader of `kind`'s cache alone (it looks objects up, it handles no notifications).
    pub fn cache_reader(&self, kind: Kind) -> SharedInformer {
        self.join(kind, false)
    }

    fn join(&self, kind: Kind, notified: bool) -> SharedInformer {
        let mut factory = self.0.borrow_mut();
        let Factory { seed, config, hubs } = &mut *factory;
        let hub = hubs.entry(kind).or_insert_with(|| {
            let r = kind.resource();
            let name = if kind.is_custom() {
                format!("{USER_AGENT}/{}.{}", r.plural, r.group)
            } else {
                format!("{USER_AGENT}/{}", r.plural)
            };
            let informer = ApiInformer::new(
                kind,
                None,
                config.clone(),
                indexers(kind),
                SimRng::child(*seed, &name),
            );
            Rc::new(RefCell::new(Hub {
                informer,
                queues: Vec::new(),
            }))
        });
        let reader = {
            let mut h = hub.borrow_mut();
            h.queues.push(notified.then(Vec::new));
            h.queues.len() - 1
        };
        SharedInformer {
            hub: Rc::clone(hub),
            reader,
        }
    }
}

/// One controller's hold on a shared informer.
pub struct SharedInformer {
    hub: Rc<RefCell<Hub>>,
    reader: usize,
}

impl SharedInformer {
    /// Pumps the informer at `now` and returns this reader's notifications, oldest first.
    pub fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Vec<Note> {
        let mut hub = self.hub.borrow_mut();
        let Hub { informer, queues } = &mut *hub;
        let fresh = informer.step(now, api, USER_AGENT);
        let mut mine = Vec::new();
        for (reader, queue) in queues.iter_mut().enumerate() {
            let Some(queue) = queue else { continue };
            if reader == self.reader {
                mine = std::mem::take(queue);
            } else {
                queue.extend(fresh.iter().cloned());
            }
        }
        if queues.get(self.reader).is_some_and(Option::is_some) {
            mine.extend(fresh);
        }
        mine
    }

    /// The informer, to read (its cache, its reflector, its stream).
    pub fn informer(&self) -> Ref<'_, ApiInformer> {
        Ref::map(self.hub.borrow(), |h| &h.informer)
    }

    pub fn store(&self) -> Store<Arc<Object>> {
        self.hub.borrow().informer.store()
    }

    pub fn has_synced(&self) -> bool {
        self.hub.borrow().informer.has_synced()
    }

    pub fn next_wakeup(&self) -> Option<Timestamp> {
        self.hub.borrow().informer.next_wakeup()
    }
}

impl Drop for SharedInformer {
    /// A reader that goes gets no more notifications.
    fn drop(&mut self) {
        if let Ok(mut hub) = self.hub.try_borrow_mut() {
            if let Some(queue) = hub.queues.get_mut(self.reader) {
                *queue = None;
            }
        }
    }
}

/// An informer a controller reads, its own or a shared one, for the UI and the settle.
pub enum InformerRef<'a> {
    Own(&'a ApiInformer),
    Shared(Ref<'a, ApiInformer>),
}

impl Deref for InformerRef<'_> {
    type Target = ApiInformer;

    fn deref(&self) -> &ApiInformer {
        match self {
            InformerRef::Own(i) => i,
            InformerRef::Shared(i) => i,
        }
    }
}

impl<'a> From<&'a ApiInformer> for InformerRef<'a> {
    fn from(informer: &'a ApiInformer) -> Self {
        InformerRef::Own(informer)
    }
}

impl<'a> From<&'a SharedInformer> for InformerRef<'a> {
    fn from(shared: &'a SharedInformer) -> Self {
        InformerRef::Shared(shared.informer())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controllers::Harness;
    use serde_json::json;

    fn pod(name: &str) -> Object {
        Object::from_value(
            Kind::Pod,
            json!({"metadata": {"name": name, "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
        )
        .expect("a pod")
    }

    fn added(notes: &[Note]) -> Vec<String> {
        notes
            .iter()
            .map(|n| match n {
                Notification::Add(o) => format!("add {}", o.name()),
                Notification::Update { new, .. } => format!("update {}", new.name()),
                Notification::Delete(d) => format!("delete {}", d.object().name()),
            })
            .collect()
    }

    #[test]
    fn every_reader_gets_every_notification_once_through_one_watch_and_one_cache() {
        let mut api = ApiServer::new(1);
        let factory = SharedInformers::new(1, &Profile::training());
        let mut a = factory.reader(Kind::Pod);
        let mut b = factory.reader(Kind::Pod);
        let mut cache = factory.cache_reader(Kind::Pod);
        // Lists, watches; then `a` pumps the informer until the create is delivered.
        let pump_until_news = |a: &mut SharedInformer, api: &mut ApiServer, from: u64| {
            (from..from + 10)
                .map(|s| {
                    (
                        Timestamp::from_secs(s),
                        a.step(Timestamp::from_secs(s), api),
                    )
                })
                .find(|(_, notes)| !notes.is_empty())
                .expect("delivered within ten seconds")
        };
        for r in [&mut a, &mut b, &mut cache] {
            assert!(r.step(Timestamp::ZERO, &mut api).is_empty());
        }
        api.create("kubectl", pod("web-1")).expect("create");
        let (at, notes) = pump_until_news(&mut a, &mut api, 1);
        assert_eq!(added(&notes), ["add web-1"]);
        // `b` finds its copy waiting; `cache` reads the cache alone.
        assert_eq!(added(&b.step(at, &mut api)), ["add web-1"]);
        assert!(cache.step(at, &mut api).is_empty());
        assert!(a.step(at, &mut api).is_empty(), "delivered once");
        let key = crate::client::ObjectKey::new(Some("default"), "web-1");
        assert!(cache.store().get(&key).is_some());
        assert!(Rc::ptr_eq(&a.hub, &cache.hub), "one informer");
        let pod_watches = api
            .streams()
            .filter(|s| s.filter().kind == Kind::Pod)
            .map(|s| s.user().to_string())
            .collect::<Vec<_>>();
        assert_eq!(pod_watches, [USER_AGENT]);
        // A reader that has gone gets nothing more; the others go on.
        drop(b);
        api.create("kubectl", pod("web-2")).expect("create");
        let (_, notes) = pump_until_news(&mut a, &mut api, at.as_millis() / 1000 + 1);
        assert_eq!(added(&notes), ["add web-2"]);
        assert!(a.hub.borrow().queues.get(1).is_some_and(Option::is_none));
    }

    #[test]
    fn kube_controller_managers_controllers_read_one_pod_informer() {
        let mut h = Harness::new(1, &Profile::training(), &["node-a"]);
        h.run_for(5_000);
        let pod_watchers: Vec<String> = h
            .api
            .streams()
            .filter(|s| s.filter().kind == Kind::Pod)
            .map(|s| s.user().to_string())
            .collect();
        assert_eq!(
            pod_watchers,
            ["kubelet/node-a", "kube-scheduler", USER_AGENT],
            "the kubelet and the scheduler are processes of their own"
        );
        // Each controller still shows the pod informer it reads.
        let readers: Vec<String> = h
            .plane
            .all()
            .into_iter()
            .filter(|c| c.informers().iter().any(|i| i.kind() == Kind::Pod))
            .map(|c| c.name().to_string())
            .collect();
        assert_eq!(
            readers,
            [
                "kubelet/node-a",
                "kube-scheduler",
                "node-controller",
                "replicaset-controller",
                "endpointslice-controller",
                "endpoint-controller",
                "disruption-controller",
                "job-controller",
                "daemon-set-controller",
                "statefulset-controller",
                "persistent-volume-binder",
                "pvc-protection-controller",
                "generic-garbage-collector"
            ]
        );
    }
}
