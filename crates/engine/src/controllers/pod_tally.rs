//! Per-owner counts of pods, kept current from the pod informer's notifications, so that a
//! ReplicaSet sync costs what changed rather than a visit to every pod it owns. The real
//! controller visits them all (`getRSPods` + `calculateStatus`), but it syncs a ReplicaSet a few
//! times per second at most; here every instant with a pod delivery is a sync (informer
//! deliveries spread over 50–200 ms), so at 3,000 pods the visits made the convergence grow with
//! the square of the pods.
//!
//! A [`PodTally`] belongs to one owner uid and holds, per pod filed under that uid in the pod
//! cache's controller-uid index, the few facts a sync reads (matches the selector, active,
//! fully labelled, ready, ready since), computed against the owner's selector and template
//! labels (its [`Shape`]). The counts are exactly those a scan of the index would give: the
//! tally is built from the index on first use or when the owner's shape changes, then every
//! notification sets or removes the one pod it names.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::sync::Arc;

use super::podutil::{self, is_pod_ready};
use crate::api::apps::ReplicaSet;
use crate::api::pod::Pod;
use crate::api::shared::StringMap;
use crate::api::Object;
use crate::client::ObjectKey;
use crate::clock::Timestamp;
use crate::hash::FixedHashMap;
use watchlab_apimachinery::labels::LabelSelector;

/// What the counts depend on besides the pods: the owner's selector and template labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub selector: LabelSelector,
    pub template_labels: StringMap,
}

impl Shape {
    pub fn of(rs: &ReplicaSet, selector: LabelSelector) -> Shape {
        Shape {
            selector,
            template_labels: rs.spec.template.metadata.labels.clone(),
        }
    }

    /// The facts of one pod as a sync reads them.
    pub fn facts(&self, pod: &Pod) -> PodFacts {
        let ready = is_pod_ready(pod);
        PodFacts {
            matches: self.selector.matches(&pod.metadata.labels),
            active: podutil::is_active(pod),
            fully_labeled: self
                .template_labels
                .iter()
                .all(|(k, v)| pod.metadata.labels.get(k) == Some(v)),
            ready,
            ready_since: if ready {
                pod.condition("Ready")
                    .and_then(|c| c.last_transition_time)
                    .map(Timestamp::as_millis)
            } else {
                None
            },
        }
    }
}

/// One pod as the counts see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodFacts {
    /// Matches the owner's selector (otherwise the owner releases it).
    pub matches: bool,
    /// `controller.IsPodActive`.
    pub active: bool,
    /// Carries every label of the owner's template.
    pub fully_labeled: bool,
    /// `podutil.IsPodReady`.
    pub ready: bool,
    /// When its Ready condition last turned True (ready pods only).
    pub ready_since: Option<u64>,
}

/// The status counts of a ReplicaSet (`calculateStatus`) over its active, matching pods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub active: i32,
    pub fully_labeled: i32,
    pub ready: i32,
    pub available: i32,
    /// Some ready pod is not available yet (minReadySeconds): the sync looks again later.
    pub waiting: bool,
}

/// The pods filed under one owner uid, with running counts of their facts.
#[derive(Debug, Clone)]
pub struct PodTally {
    shape: Shape,
    pods: FixedHashMap<ObjectKey, PodFacts>,
    /// Pods under this owner that no longer match its selector.
    released: BTreeSet<ObjectKey>,
    active: i32,
    fully_labeled: i32,
    ready: i32,
    /// Active, matching, ready pods by the millisecond they became ready (for availability).
    ready_since: BTreeMap<u64, i32>,
    /// Active, matching, ready pods without a transition time (never available with a
    /// minReadySeconds, as `podutil.IsPodAvailable`).
    ready_untimed: i32,
}

impl PodTally {
    /// A tally of `pods` (the owner's index entry) under `shape`.
    pub fn build(shape: Shape, pods: &[Arc<Object>]) -> PodTally {
        let mut tally = PodTally {
            shape,
            pods: FixedHashMap::default(),
            released: BTreeSet::new(),
            active: 0,
            fully_labeled: 0,
            ready: 0,
            ready_since: BTreeMap::new(),
            ready_untimed: 0,
        };
        for o in pods {
            tally.set(o);
        }
        tally
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The pods filed under the owner that it must release, in key order.
    pub fn released(&self) -> impl Iterator<Item = &ObjectKey> {
        self.released.iter()
    }

    /// Records the pod's current state (anything else is ignored).
    pub fn set(&mut self, obj: &Arc<Object>) {
        let Some(pod) = obj.as_pod() else { return };
        let facts = self.shape.facts(pod);
        self.count(&facts, 1);
        // A pod already counted is found by its key's text: only a new one's key is allocated.
        let (namespace, name) = (obj.namespace(), obj.name());
        let old = ObjectKey::joined(Some(namespace), name, |k| {
            let old = self.pods.get_mut(k).map(|f| std::mem::replace(f, facts));
            if facts.matches {
                self.released.remove(k);
            }
            old
        });
        match old {
            Some(old) => self.count(&old, -1),
            None => {
                self.pods.insert(ObjectKey::of(obj), facts);
            }
        }
        if !facts.matches {
            self.released.insert(ObjectKey::of(obj));
        }
    }

    /// Forgets the pod under `key` (deleted, or filed under another owner now).
    pub fn remove(&mut self, key: &ObjectKey) {
        if let Some(old) = self.pods.remove(key) {
            self.count(&old, -1);
            self.released.remove(key);
        }
    }

    fn count(&mut self, f: &PodFacts, sign: i32) {
        if !(f.matches && f.active) {
            return;
        }
        self.active += sign;
        self.fully_labeled += sign * i32::from(f.fully_labeled);
        if f.ready {
            self.ready += sign;
            match f.ready_since {
                Some(t) => {
                    let n = self.ready_since.entry(t).or_insert(0);
                    *n += sign;
                    if *n == 0 {
                        self.ready_since.remove(&t);
                    }
                }
                None => self.ready_untimed += sign,
            }
        }
    }

    /// The counts at `now` for `min_ready_seconds`, with `extra` pods (just adopted, not yet
    /// in the cache under this owner) counted as well. Costs the pods that became ready within
    /// the last `min_ready_seconds`, not all of them.
    pub fn counts(&self, min_ready_seconds: i32, now: Timestamp, extra: &[PodFacts]) -> Counts {
        let min_ready_ms = u64::try_from(min_ready_seconds.max(0)).unwrap_or(0) * 1000;
        // Ready at `t`, available once `t + minReadySeconds <= now` (`podutil.IsPodAvailable`).
        let cut = now.as_millis().checked_sub(min_ready_ms);
        let not_yet_at = |since: Option<u64>| match (min_ready_ms, since, cut) {
            (0, _, _) => false,
            (_, None, _) | (_, Some(_), None) => true,
            (_, Some(t), Some(cut)) => t > cut,
        };
        let mut counts = Counts {
            active: self.active,
            fully_labeled: self.fully_labeled,
            ready: self.ready,
            available: 0,
            waiting: false,
        };
        let mut not_yet = if min_ready_ms == 0 {
            0
        } else {
            let lower = cut.map_or(Bound::Unbounded, Bound::Excluded);
            self.ready_since
                .range((lower, Bound::Unbounded))
                .map(|(_, n)| *n)
                .sum::<i32>()
                + self.ready_untimed
        };
        for f in extra.iter().filter(|f| f.matches && f.active) {
            counts.active += 1;
            counts.fully_labeled += i32::from(f.fully_labeled);
            if f.ready {
                counts.ready += 1;
                not_yet += i32::from(not_yet_at(f.ready_since));
            }
        }
        counts.available = counts.ready - not_yet;
        counts.waiting = not_yet > 0;
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pod::Pod;
    use crate::api::ObjectMeta;
    use proptest::prelude::*;

    fn selector() -> LabelSelector {
        LabelSelector::parse("app=web").unwrap()
    }

    fn shape() -> Shape {
        Shape {
            selector: selector(),
            template_labels: [("app", "web"), ("tier", "front")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// A pod `n` with or without the selector's and the template's labels, running or done,
    /// being deleted or not, and ready since a given second (or not ready).
    fn pod(
        n: u8,
        matches: bool,
        tier: bool,
        done: bool,
        deleting: bool,
        ready: Option<u8>,
    ) -> Arc<Object> {
        let mut meta = ObjectMeta::named("default", &format!("web-{n}"));
        meta.labels
            .insert("app".into(), if matches { "web" } else { "other" }.into());
        if tier {
            meta.labels.insert("tier".into(), "front".into());
        }
        if deleting {
            meta.deletion_timestamp = Some(Timestamp::from_secs(1));
        }
        let mut p = Pod {
            metadata: meta,
            ..Default::default()
        };
        p.status.phase = if done { "Succeeded" } else { "Running" }.into();
        if let Some(s) = ready {
            p.set_condition("Ready", "True", Timestamp::from_secs(u64::from(s)));
        }
        Arc::new(Object::Pod(p))
    }

    /// `calculateStatus` as a scan over every pod, the way the controller counted before.
    fn scanned(pods: &BTreeMap<u8, Arc<Object>>, min_ready: i32, now: Timestamp) -> Counts {
        let s = shape();
        let active: Vec<&Pod> = pods
            .values()
            .filter_map(|o| o.as_pod())
            .filter(|p| s.selector.matches(&p.metadata.labels) && podutil::is_active(p))
            .collect();
        let ready = active.iter().filter(|p| is_pod_ready(p)).count() as i32;
        let available = active
            .iter()
            .filter(|p| podutil::is_pod_available(p, min_ready, now))
            .count() as i32;
        Counts {
            active: active.len() as i32,
            fully_labeled: active.iter().filter(|p| s.facts(p).fully_labeled).count() as i32,
            ready,
            available,
            waiting: min_ready > 0 && ready > available,
        }
    }

    proptest! {
        /// After any sequence of sets and removes the tally counts what a scan counts, at any
        /// instant and minReadySeconds, and lists exactly the pods that stopped matching.
        #[test]
        fn the_tally_counts_what_a_scan_counts(
            ops in proptest::collection::vec(
                (0u8..12, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(),
                 proptest::option::of(0u8..30), any::<bool>()),
                1..60,
            ),
            min_ready in 0i32..20,
            now_s in 0u64..60,
        ) {
            let mut tally = PodTally::build(shape(), &[]);
            let mut model = BTreeMap::new();
            for (n, matches, tier, done, deleting, ready, remove) in ops {
                let p = pod(n, matches, tier, done, deleting, ready);
                if remove {
                    tally.remove(&ObjectKey::of(&p));
                    model.remove(&n);
                } else {
                    tally.set(&p);
                    model.insert(n, p);
                }
            }
            let now = Timestamp::from_secs(now_s);
            prop_assert_eq!(tally.counts(min_ready, now, &[]), scanned(&model, min_ready, now));
            let rebuilt: Vec<Arc<Object>> = model.values().cloned().collect();
            prop_assert_eq!(
                PodTally::build(shape(), &rebuilt).counts(min_ready, now, &[]),
                tally.counts(min_ready, now, &[])
            );
            let mut released: Vec<ObjectKey> = model
                .values()
                .filter(|o| !selector().matches(&o.meta().labels))
                .map(ObjectKey::of)
                .collect();
            released.sort();
            prop_assert_eq!(tally.released().cloned().collect::<Vec<_>>(), released);
            // Pods counted as extras (just adopted) add as if they were in the tally.
            let extra = pod(200, true, true, false, false, Some(5));
            let with_extra = tally.counts(min_ready, now, &[shape().facts(extra.as_pod().unwrap())]);
            let mut model = model;
            model.insert(200, extra);
            prop_assert_eq!(with_extra, scanned(&model, min_ready, now));
        }
    }
}
