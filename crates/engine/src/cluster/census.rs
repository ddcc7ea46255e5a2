//! The cluster view's pod census (how many pods each node holds, how many have each STATUS)
//! and the pods bound to each node, kept from one read to the next by folding in the pods'
//! changes since from the store's history, as an informer folds in watch events. Counting
//! from a list of every pod at each redraw took ~100 ms natively at 150,000 pods, a long task
//! of several frames in the tab; a fold costs what changed. When the changes are gone
//! (compacted, or the census was never read) it counts from a list once.

use std::collections::{BTreeSet, HashMap};

use crate::api::pod::Pod;
use crate::api::Kind;
use crate::apiserver::ApiServer;
use crate::store::{EventType, Revision};

use super::views::{pod_status, pod_view, PodCensus, PodView};
use super::Cluster;

/// Adds one to `map[key]`, or takes one away and drops the key at zero (a recount lists only
/// keys with pods, so the fold must too).
macro_rules! tally {
    ($map:expr, $key:expr, $add:expr) => {
        match ($map.get_mut($key), $add) {
            (Some(n), true) => *n += 1,
            (None, true) => {
                $map.insert($key.to_string(), 1);
            }
            (Some(n), false) if *n > 1 => *n -= 1,
            (Some(_), false) => {
                $map.remove($key);
            }
            (None, false) => {}
        }
    };
}

/// The counts and the node index at one revision.
#[derive(Debug, Default)]
pub(super) struct Census {
    /// The revision folded in last (0: never counted).
    revision: Revision,
    counts: PodCensus,
    /// Each node's pods, as (namespace, name): the list order of the cluster view.
    on_node: HashMap<String, BTreeSet<(String, String)>>,
}

impl Census {
    /// Brings the census up to `api`'s revision.
    pub fn catch_up(&mut self, api: &ApiServer) {
        let now = api.revision();
        if self.revision == now {
            return;
        }
        let store = api.store();
        let prefix = Kind::Pod.resource().prefix(None);
        // The pods' changes since, oldest first (a creation before its binding), from the
        // store's history: gone only once compacted (five minutes), when a count starts over.
        let changes = match self.revision {
            0 => None,
            since => store.events_after(&prefix, since).ok(),
        };
        if let Some(changes) = changes {
            for change in changes {
                let before = store.prev_kv(change).map(|kv| &kv.value);
                if let Some(p) = before.and_then(|o| o.as_pod()) {
                    self.count(p, false);
                }
                if change.kind == EventType::Put {
                    if let Some(p) = change.kv.value.as_pod() {
                        self.count(p, true);
                    }
                }
            }
        } else {
            *self = Census::default();
            for p in api.peek_all(Kind::Pod).iter().filter_map(|o| o.as_pod()) {
                self.count(p, true);
            }
        }
        self.revision = now;
    }

    pub fn counts(&self) -> &PodCensus {
        &self.counts
    }

    /// The pods bound to `node`, as (namespace, name), in list order.
    pub fn on_node(&self, node: &str) -> impl Iterator<Item = &(String, String)> {
        self.on_node.get(node).into_iter().flatten()
    }

    /// Counts `p` in (`add`) or out.
    fn count(&mut self, p: &Pod, add: bool) {
        let c = &mut self.counts;
        c.total = if add {
            c.total + 1
        } else {
            c.total.saturating_sub(1)
        };
        let node = p.spec.node_name.as_str();
        if !node.is_empty() {
            tally!(c.by_node, node, add);
            let pod = (p.metadata.namespace.clone(), p.metadata.name.clone());
            if add {
                self.on_node
                    .entry(node.to_string())
                    .or_default()
                    .insert(pod);
            } else if let Some(pods) = self.on_node.get_mut(node) {
                pods.remove(&pod);
                if pods.is_empty() {
                    self.on_node.remove(node);
                }
            }
        }
        tally!(c.by_status, &*pod_status(p), add);
    }
}

impl Cluster {
    /// The pods' counts by node and by STATUS ([`PodCensus`]), folded forward from the last
    /// read ([`super::census`]).
    pub fn pod_census(&self) -> PodCensus {
        self.with_census(|census| census.counts().clone())
    }

    /// The pods bound to `node` (`spec.nodeName`), as the cluster view shows them.
    pub fn pods_on(&self, node: &str) -> Vec<PodView> {
        self.with_census(|census| {
            census
                .on_node(node)
                .filter_map(|(namespace, name)| self.api.peek(Kind::Pod, Some(namespace), name))
                .filter_map(|o| o.as_pod().map(pod_view))
                .collect()
        })
    }

    /// Runs `read` on the census brought up to the current revision.
    fn with_census<R>(&self, read: impl FnOnce(&Census) -> R) -> R {
        match self.census.try_borrow_mut() {
            Ok(mut census) => {
                census.catch_up(&self.api);
                read(&census)
            }
            // Not reachable (no read holds it while another runs), but never a panic: count
            // afresh.
            Err(_) => {
                let mut census = Census::default();
                census.catch_up(&self.api);
                read(&census)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::binding::Binding;
    use crate::api::meta::ObjectMeta;
    use crate::api::pod::{Container, PodSpec};
    use crate::api::Object;
    use crate::apiserver::{DeleteOptions, ServerConfig};
    use std::sync::Arc;

    fn pod(name: &str) -> Object {
        Object::Pod(Pod {
            metadata: ObjectMeta::named("default", name),
            spec: Arc::new(PodSpec {
                containers: vec![Container {
                    name: "c".into(),
                    image: "i".into(),
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            }),
            ..Default::default()
        })
    }

    /// The counts and each node's pods, sorted by node.
    type Seen = (PodCensus, Vec<(String, Vec<(String, String)>)>);

    /// What a count from a list says.
    fn recounted(api: &ApiServer) -> Seen {
        let mut fresh = Census::default();
        fresh.catch_up(api);
        let mut nodes: Vec<_> = fresh
            .on_node
            .iter()
            .map(|(n, pods)| (n.clone(), pods.iter().cloned().collect()))
            .collect();
        nodes.sort();
        (fresh.counts, nodes)
    }

    fn folded(c: &Census) -> Seen {
        let mut nodes: Vec<_> = c
            .on_node
            .keys()
            .map(|n| (n.clone(), c.on_node(n).cloned().collect()))
            .collect();
        nodes.sort();
        (c.counts.clone(), nodes)
    }

    #[test]
    fn the_fold_agrees_with_a_recount_through_creates_binds_and_deletes() {
        // Compacting before some reads: their changes are gone, and they count afresh.
        for compacting in [false, true] {
            let mut api = ApiServer::with_config(1, ServerConfig::default());
            let mut census = Census::default();
            let mut check = |api: &mut ApiServer| {
                if compacting {
                    api.compact_now().ok();
                }
                census.catch_up(api);
                assert_eq!(folded(&census), recounted(api), "compacting: {compacting}");
            };
            check(&mut api);
            for i in 0..6 {
                api.create("kubectl", pod(&format!("p{i}"))).ok();
                check(&mut api);
            }
            // A burst between two reads, and pods created and bound between two reads
            // (folded in the order they happened).
            for i in 6..12 {
                api.create("kubectl", pod(&format!("p{i}"))).ok();
            }
            check(&mut api);
            api.create("kubectl", pod("p12")).ok();
            api.bind("kube-scheduler", &Binding::new("default", "p12", "n3"))
                .ok();
            api.delete(
                "kubectl",
                Kind::Pod,
                Some("default"),
                "p12",
                &DeleteOptions::default(),
            )
            .ok();
            check(&mut api);
            for (i, node) in [(0, "n1"), (1, "n1"), (2, "n2")] {
                let b = Binding::new("default", &format!("p{i}"), node);
                api.bind("kube-scheduler", &b).ok();
                check(&mut api);
            }
            let opts = DeleteOptions::default();
            for name in ["p1", "p4"] {
                api.delete("kubectl", Kind::Pod, Some("default"), name, &opts)
                    .ok();
                check(&mut api);
            }
            // The unbound p4 is gone; the bound p1 is terminating on its node.
            let (counts, nodes) = folded(&census);
            assert_eq!(counts.total, 12);
            assert_eq!(counts.by_status.get("Pending"), Some(&10));
            assert_eq!(counts.by_status.get("Terminating"), Some(&2));
            let on = |pods: &[&str]| -> Vec<(String, String)> {
                pods.iter()
                    .map(|p| ("default".into(), p.to_string()))
                    .collect()
            };
            assert_eq!(
                nodes,
                [
                    ("n1".to_string(), on(&["p0", "p1"])),
                    ("n2".to_string(), on(&["p2"])),
                    ("n3".to_string(), on(&["p12"]))
                ]
            );
        }
    }
}
