//! The bridge between the informer machinery (`crate::client`, generic over its object type and
//! its I/O) and the API server's typed in-process interface: [`ApiListerWatcher`] implements the
//! client's `ListerWatcher` for one resource of the [`ApiServer`] with `K = Arc<Object>`, so a
//! watch event's object is the very `Arc` the server broadcast (never deep-cloned), and
//! [`ApiInformer`] bundles an informer with what it watches, for controllers.

use std::sync::Arc;

use crate::api::endpoint_slice::LABEL_SERVICE_NAME;
use crate::api::{Kind, Object};
use crate::apiserver::time_travel::TimeTravel;
use crate::apiserver::{ApiServer, WatchEventType};
use crate::client::{
    ClientError, IndexFunc, IndexValues, Informer, InformerConfig, ListParams, ListerWatcher,
    Notification, ObjectList, ReflectorPhase, Resource, StreamId, WatchEvent, WatchParams,
};
use crate::clock::Timestamp;
use crate::rng::SimRng;
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::request::ListOptions;
use watchlab_apimachinery::status::Status;

impl Resource for Arc<Object> {
    fn namespace(&self) -> Option<&str> {
        let ns = Object::namespace(self);
        (!ns.is_empty()).then_some(ns)
    }
    fn name(&self) -> &str {
        Object::name(self)
    }
    fn resource_version(&self) -> u64 {
        Object::resource_version(self)
    }
    fn uid(&self) -> &str {
        &self.meta().uid
    }
}

/// A server answer as the client machinery classifies it (code + reason + message).
pub fn client_error(status: &Status) -> ClientError {
    ClientError::new(status.code(), status.reason().as_str(), status.message())
}

/// List and watch one resource (optionally one namespace) of the API server as `user`.
pub struct ApiListerWatcher<'a> {
    pub api: &'a mut ApiServer,
    pub user: &'a str,
    pub kind: Kind,
    pub namespace: Option<&'a str>,
    /// Whether the next list is the informer's first: only a first list can go back in time
    /// (a relist asks for NotOlderThan the informer's last revision).
    pub first_list: bool,
    /// Set when a list went back in time ([`crate::apiserver::time_travel`]).
    pub went_back: Option<TimeTravel>,
}

impl ApiListerWatcher<'_> {
    fn options(
        label_selector: Option<&str>,
        field_selector: Option<&str>,
    ) -> Result<ListOptions, ClientError> {
        let bad = |e: String| ClientError::new(400, "BadRequest", e);
        Ok(ListOptions {
            label_selector: match label_selector {
                Some(s) => LabelSelector::parse(s).map_err(bad)?,
                None => LabelSelector::everything(),
            },
            field_selector: match field_selector {
                Some(s) => FieldSelector::parse(s).map_err(bad)?,
                None => FieldSelector::everything(),
            },
            ..Default::default()
        })
    }
}

impl ListerWatcher<Arc<Object>> for ApiListerWatcher<'_> {
    fn list(&mut self, params: &ListParams) -> Result<ObjectList<Arc<Object>>, ClientError> {
        let mut opts = Self::options(
            params.label_selector.as_deref(),
            params.field_selector.as_deref(),
        )?;
        opts.resource_version = params.resource_version.as_query();
        let list = self
            .api
            .list(self.kind, self.namespace, &opts)
            .map_err(|s| client_error(&s))?;
        let flag = self.api.note_informer_listed(
            self.user,
            self.kind,
            list.resource_version,
            &list.items,
            self.first_list,
        );
        self.first_list = false;
        if flag.is_some() {
            self.went_back = flag;
        }
        Ok(ObjectList {
            items: list.items,
            resource_version: list.resource_version,
        })
    }

    fn watch(&mut self, params: &WatchParams) -> Result<StreamId, ClientError> {
        let mut opts = Self::options(
            params.label_selector.as_deref(),
            params.field_selector.as_deref(),
        )?;
        opts.resource_version = Some(params.resource_version.to_string());
        opts.allow_watch_bookmarks = params.allow_watch_bookmarks;
        opts.timeout_seconds = params.timeout_seconds;
        self.api
            .watch(self.user, self.kind, self.namespace, &opts)
            .map_err(|s| client_error(&s))
    }

    fn poll(&mut self, id: StreamId) -> Option<Vec<WatchEvent<Arc<Object>>>> {
        let events = self.api.poll(id)?;
        // A stream's revisions only grow: its last event's (an error has none) is its highest.
        let last = events
            .iter()
            .rev()
            .find(|e| e.event_type != WatchEventType::Error);
        if let Some(rv) = last.map(|e| e.resource_version) {
            self.api.note_informer_reached(self.user, self.kind, rv);
        }
        Some(
            events
                .iter()
                .filter_map(|e| {
                    let object = e.object().cloned();
                    Some(match (e.event_type, object) {
                        (WatchEventType::Added, Some(o)) => WatchEvent::Added(o),
                        (WatchEventType::Modified, Some(o)) => WatchEvent::Modified(o),
                        (WatchEventType::Deleted, Some(o)) => WatchEvent::Deleted(o),
                        (WatchEventType::Bookmark, _) => WatchEvent::Bookmark {
                            resource_version: e.resource_version,
                        },
                        (WatchEventType::Error, _) => {
                            let status = match &e.object {
                                crate::apiserver::watch::WatchObject::Status(s) => client_error(s),
                                crate::apiserver::watch::WatchObject::Object(_) => {
                                    ClientError::internal("watch error without a status")
                                }
                            };
                            WatchEvent::Error(status)
                        }
                        _ => return None,
                    })
                })
                .collect(),
        )
    }

    fn stop(&mut self, id: StreamId) {
        self.api.stop_watch(id);
    }
}

/// An informer on one resource of the API server, with what it watches.
pub struct ApiInformer {
    informer: Informer<Arc<Object>>,
    kind: Kind,
    namespace: Option<String>,
    /// Its last list that went back in time, if one did.
    went_back: Option<TimeTravel>,
}

impl ApiInformer {
    pub fn new(
        kind: Kind,
        namespace: Option<&str>,
        config: InformerConfig,
        indexers: Vec<(String, IndexFunc<Arc<Object>>)>,
        rng: SimRng,
    ) -> Self {
        ApiInformer {
            informer: Informer::new(config, indexers, rng),
            kind,
            namespace: namespace.map(str::to_string),
            went_back: None,
        }
    }

    /// Lists/watches as `user` and returns the handler notifications due at `now`.
    pub fn step(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        user: &str,
    ) -> Vec<Notification<Arc<Object>>> {
        let mut lw = ApiListerWatcher {
            api,
            user,
            kind: self.kind,
            namespace: self.namespace.as_deref(),
            first_list: self.informer.reflector_stats().lists == 0,
            went_back: None,
        };
        let notes = self.informer.step(now, &mut lw);
        if lw.went_back.is_some() {
            self.went_back = lw.went_back;
        }
        notes
    }

    /// Its last list that went back in time: below a resourceVersion its component's informers
    /// of this kind had reached ([`crate::apiserver::time_travel`]).
    pub fn went_back(&self) -> Option<&TimeTravel> {
        self.went_back.as_ref()
    }

    /// Closes the watch (a stopped component); the cache stays readable.
    pub fn stop(&mut self, api: &mut ApiServer, user: &str) {
        let mut lw = ApiListerWatcher {
            api,
            user,
            kind: self.kind,
            namespace: self.namespace.as_deref(),
            first_list: false,
            went_back: None,
        };
        self.informer.stop(&mut lw);
    }

    pub fn store(&self) -> crate::client::Store<Arc<Object>> {
        self.informer.store()
    }

    pub fn has_synced(&self) -> bool {
        self.informer.has_synced()
    }

    /// The kind it lists and watches.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn informer(&self) -> &Informer<Arc<Object>> {
        &self.informer
    }

    pub fn next_wakeup(&self) -> Option<Timestamp> {
        self.informer.next_wakeup()
    }

    /// Whether a step at `now` would neither read nor deliver anything: its watch is open and
    /// without news, and nothing of its own (a delivery, a resync, a backoff) is due. Its
    /// component may then skip the step ([`super::Controller::idle`]).
    pub fn is_quiet(&self, now: Timestamp, api: &ApiServer) -> bool {
        let Some(stream) = self.watch_stream() else {
            return false;
        };
        !api.stream_has_news(stream) && self.next_wakeup().is_none_or(|t| t > now)
    }

    /// The watch stream it reads, while one is open.
    pub fn watch_stream(&self) -> Option<StreamId> {
        match self.informer.reflector().phase() {
            ReflectorPhase::Watching { stream, .. } => Some(stream),
            _ => None,
        }
    }
}

/// The index of pods by `spec.nodeName` (empty for unscheduled pods).
pub const NODE_NAME_INDEX: &str = "spec.nodeName";
/// The index of objects by their controller owner's uid.
pub const CONTROLLER_UID_INDEX: &str = "controllerUID";

/// Files pods under their `spec.nodeName`.
pub fn node_name_index() -> (String, IndexFunc<Arc<Object>>) {
    let f: IndexFunc<Arc<Object>> = std::rc::Rc::new(|o: &Arc<Object>| {
        o.as_pod()
            .map(|p| IndexValues::one(p.spec.node_name.as_str()))
            .unwrap_or_default()
    });
    (NODE_NAME_INDEX.to_string(), f)
}

/// Files objects under the uid of their controller owner reference.
pub fn controller_uid_index() -> (String, IndexFunc<Arc<Object>>) {
    let f: IndexFunc<Arc<Object>> = std::rc::Rc::new(|o: &Arc<Object>| {
        o.meta()
            .controller_ref()
            .map(|r| IndexValues::one(r.uid.as_str()))
            .unwrap_or_default()
    });
    (CONTROLLER_UID_INDEX.to_string(), f)
}

/// The index of EndpointSlices by `<namespace>/<kubernetes.io/service-name>`.
pub const SERVICE_NAME_INDEX: &str = "service";

/// Files EndpointSlices under the Service their `kubernetes.io/service-name` label names.
pub fn service_name_index() -> (String, IndexFunc<Arc<Object>>) {
    let f: IndexFunc<Arc<Object>> = std::rc::Rc::new(|o: &Arc<Object>| {
        let m = o.meta();
        m.labels
            .get(LABEL_SERVICE_NAME)
            .map(|svc| IndexValues::one(format!("{}/{svc}", m.namespace)))
            .unwrap_or_default()
    });
    (SERVICE_NAME_INDEX.to_string(), f)
}

/// kube-controller-manager's `controller.PodControllerUIDIndex`: pods by their controller's uid,
/// orphans under [`orphan_pod_index_key`] of their namespace, so a ReplicaSet sync reads its own
/// pods and the orphans it might adopt, not its whole namespace.
pub const POD_CONTROLLER_UID_INDEX: &str = "podControllerUID";
/// `controller.OrphanPodIndexKey`.
pub const ORPHAN_POD_INDEX_KEY: &str = "_ORPHAN_POD";

/// `controller.OrphanPodIndexKeyForNamespace`: where orphan pods of `namespace` are filed.
pub fn orphan_pod_index_key(namespace: &str) -> String {
    format!("{ORPHAN_POD_INDEX_KEY}/{namespace}")
}

/// Files pods under their controller's uid, orphans under their namespace's orphan key.
pub fn pod_controller_uid_index() -> (String, IndexFunc<Arc<Object>>) {
    let f: IndexFunc<Arc<Object>> = std::rc::Rc::new(|o: &Arc<Object>| {
        if o.as_pod().is_none() {
            return IndexValues::None;
        }
        let meta = o.meta();
        match meta.controller_ref() {
            Some(r) => IndexValues::one(r.uid.as_str()),
            None => IndexValues::one(orphan_pod_index_key(&meta.namespace)),
        }
    });
    (POD_CONTROLLER_UID_INDEX.to_string(), f)
}
