//! The fan-out index, like the watch cache's: streams are filed by resource, then by the most
//! selective exact field they ask for (the resource's trigger field, `spec.nodeName` for the
//! kubelets' pod watches; `metadata.name`), else by namespace, else in the resource-wide bucket. A change is offered only
//! to the buckets it can match, so it costs O(matching streams), not O(all streams).

use super::filter::{Change, Filter};
use crate::api::resource::trigger_value;
use crate::api::Kind;
use crate::hash::FixedHashMap;
use std::collections::{BTreeMap, BTreeSet};
use watchlab_apimachinery::client::WatchId;

/// Where one stream is filed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    All,
    Namespace(String),
    /// The resource's [`crate::api::ResourceInfo::trigger_field`] (a pod's `spec.nodeName`).
    Trigger(String),
    Name(String),
}

fn slot(filter: &Filter) -> Slot {
    if let Some(field) = filter.kind.resource().trigger_field {
        if let Some(value) = filter.fields.exact_value(field) {
            return Slot::Trigger(value.to_string());
        }
    }
    if let Some(name) = filter.fields.exact_value("metadata.name") {
        return Slot::Name(name.to_string());
    }
    match &filter.namespace {
        Some(ns) => Slot::Namespace(ns.clone()),
        None => Slot::All,
    }
}

/// The streams of one resource. The sub-buckets are found by hash (5,000 kubelets' pod
/// watches are 5,000 node names, looked up for every pod change); [`WatchIndex::candidates`]
/// sorts what it gathers, so no map order is ever seen.
#[derive(Debug, Default)]
struct Bucket {
    all: BTreeSet<WatchId>,
    by_namespace: Slots,
    by_trigger: Slots,
    by_name: Slots,
}

type Slots = FixedHashMap<String, BTreeSet<WatchId>>;

fn add(map: &mut Slots, key: String, id: WatchId) {
    map.entry(key).or_default().insert(id);
}

fn remove(map: &mut Slots, key: &str, id: WatchId) {
    if let Some(set) = map.get_mut(key) {
        set.remove(&id);
        if set.is_empty() {
            map.remove(key);
        }
    }
}

/// Streams by resource and slot.
#[derive(Debug, Default)]
pub struct WatchIndex {
    buckets: BTreeMap<Kind, Bucket>,
}

impl WatchIndex {
    pub fn insert(&mut self, id: WatchId, filter: &Filter) {
        let b = self.buckets.entry(filter.kind).or_default();
        match slot(filter) {
            Slot::All => {
                b.all.insert(id);
            }
            Slot::Namespace(ns) => add(&mut b.by_namespace, ns, id),
            Slot::Trigger(n) => add(&mut b.by_trigger, n, id),
            Slot::Name(n) => add(&mut b.by_name, n, id),
        }
    }

    pub fn remove(&mut self, id: WatchId, filter: &Filter) {
        let Some(b) = self.buckets.get_mut(&filter.kind) else {
            return;
        };
        match slot(filter) {
            Slot::All => {
                b.all.remove(&id);
            }
            Slot::Namespace(ns) => remove(&mut b.by_namespace, &ns, id),
            Slot::Trigger(n) => remove(&mut b.by_trigger, &n, id),
            Slot::Name(n) => remove(&mut b.by_name, &n, id),
        }
    }

    /// The streams that may care about `change`, ascending and without duplicates. A pod moving
    /// between nodes is offered to the watchers of both its old and its new node.
    pub fn candidates(&self, change: &Change) -> Vec<WatchId> {
        let Some(b) = self.buckets.get(&change.kind) else {
            return Vec::new();
        };
        let mut out: Vec<WatchId> = b.all.iter().copied().collect();
        let mut extend = |set: Option<&BTreeSet<WatchId>>| {
            if let Some(s) = set {
                out.extend(s.iter().copied());
            }
        };
        extend(b.by_namespace.get(change.namespace()));
        extend(b.by_name.get(change.name()));
        let prev_node = change.prev.as_deref().and_then(trigger_value);
        let cur_node = change.object_for().map(|o| &**o).and_then(trigger_value);
        extend(prev_node.and_then(|n| b.by_trigger.get(n)));
        if cur_node != prev_node {
            extend(cur_node.and_then(|n| b.by_trigger.get(n)));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
