//! The namespace controller (user agent `namespace-controller`, kube-controller-manager's
//! `pkg/controller/namespace`): when a namespace is deleted (deletionTimestamp set, phase
//! Terminating, the `kubernetes` finalizer still in `spec.finalizers`) it deletes every
//! namespaced object of every kind the API server serves — custom resources included, read from
//! the registry at each pass as the real one reads discovery — one DELETE collection per kind
//! with background propagation, records the outcome in the namespace's `status.conditions`, and
//! once nothing is left removes its finalizer through `PUT namespaces/NAME/finalize`, which lets
//! the API server remove the namespace. While content remains it looks again after half the
//! estimated time plus one second (pods: their longest termination grace period; objects held
//! by finalizers: 5 s), as the real controller's `ResourcesRemainingError` does.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::runtime::{Action, Reconciled, Reconciler};
use super::shared_informer::{InformerRef, SharedInformer, SharedInformers};
use super::Requeue;
use crate::api::namespace::{
    Namespace, NamespaceCondition, FINALIZER_KUBERNETES, PHASE_TERMINATING,
};
use crate::api::{Kind, Object};
use crate::apiserver::{ApiServer, DeleteOptions};
use crate::client::{Notification, ObjectKey, WorkQueue};
use crate::clock::Timestamp;
use watchlab_apimachinery::request::ListOptions;

use super::garbage_collector::PROPAGATION_BACKGROUND;

pub const USER_AGENT: &str = "namespace-controller";

/// `finalizerEstimateSeconds`: the wait assumed for content held by finalizers.
const FINALIZER_ESTIMATE_SECS: i64 = 5;
/// A pod's `terminationGracePeriodSeconds` default.
const DEFAULT_POD_GRACE_SECS: i64 = 30;

/// The condition types, in the order `status_condition_utils.go` writes them.
pub const CONDITION_TYPES: [&str; 5] = [
    "NamespaceDeletionDiscoveryFailure",
    "NamespaceDeletionGroupVersionParsingFailure",
    "NamespaceDeletionContentFailure",
    "NamespaceContentRemaining",
    "NamespaceFinalizersRemaining",
];

/// The namespace controller.
pub struct NamespaceController {
    namespaces: SharedInformer,
}

/// What one pass over a namespace's content found.
#[derive(Debug, Default)]
struct ContentPass {
    /// Remaining objects per `resource.group` (`pods.`, `deployments.apps`).
    remaining: BTreeMap<String, usize>,
    /// Remaining objects per finalizer they carry.
    finalizers: BTreeMap<String, usize>,
    /// Deletions the server refused (`NamespaceDeletionContentFailure`).
    failures: Vec<String>,
    /// Seconds the remaining content is expected to take.
    estimate: i64,
}

impl NamespaceController {
    pub fn new(informers: &SharedInformers) -> Self {
        NamespaceController {
            namespaces: informers.reader(Kind::Namespace),
        }
    }

    /// A namespace being deleted is queued (`enqueueNamespace` ignores the others).
    fn on_namespace(note: &Notification<Arc<Object>>, queue: &mut WorkQueue<ObjectKey>) {
        let terminating = match note {
            Notification::Add(o) | Notification::Update { new: o, .. } => {
                o.meta().deletion_timestamp.is_some()
            }
            Notification::Delete(_) => false,
        };
        if terminating {
            queue.add(note.key());
        }
    }

    /// `syncNamespaceFromKey` (`pkg/controller/namespace/namespace_controller.go`): deletes what
    /// is left of the namespace's content; asks to look again after the content's estimate.
    fn sync(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        let (_, name) = key.split();
        let Ok(live) = api.get(Kind::Namespace, None, name) else {
            return Ok(Action::Done);
        };
        let Object::Namespace(ns) = &*live else {
            return Ok(Action::Done);
        };
        if !ns.is_terminating() || !ns.spec.finalizers.iter().any(|f| f == FINALIZER_KUBERNETES) {
            return Ok(Action::Done);
        }
        let pass = delete_all_content(api, name);
        let ns = self.write_conditions(now, api, ns, &pass)?;
        if !pass.failures.is_empty() {
            return Err(Requeue);
        }
        if !pass.remaining.is_empty() {
            let estimate = if pass.estimate > 0 {
                pass.estimate
            } else if !pass.finalizers.is_empty() {
                FINALIZER_ESTIMATE_SECS
            } else {
                // "unexpected items still remain in namespace": retried with back-off.
                return Err(Requeue);
            };
            let wait = estimate / 2 + 1;
            return Ok(Action::RequeueAfter(wait as u64 * 1000));
        }
        let mut finalized = ns;
        finalized
            .spec
            .finalizers
            .retain(|f| f != FINALIZER_KUBERNETES);
        match api.finalize_namespace(USER_AGENT, Object::Namespace(finalized)) {
            Ok(_) => Ok(Action::Done),
            Err(s) if s.code() == 404 => Ok(Action::Done),
            Err(_) => Err(Requeue),
        }
    }

    /// Writes the phase and the five deletion conditions when they changed; answers the
    /// namespace as stored afterwards.
    fn write_conditions(
        &self,
        now: Timestamp,
        api: &mut ApiServer,
        ns: &Namespace,
        pass: &ContentPass,
    ) -> Result<Namespace, Requeue> {
        let mut updated = ns.clone();
        updated.status.phase = PHASE_TERMINATING.into();
        updated.status.conditions = conditions(now, &ns.status.conditions, pass);
        if updated.status == ns.status {
            return Ok(updated);
        }
        match api.update_status(USER_AGENT, Object::Namespace(updated)) {
            Ok(written) => match &*written {
                Object::Namespace(n) => Ok(n.clone()),
                _ => Err(Requeue),
            },
            Err(_) => Err(Requeue),
        }
    }
}

/// One DELETE collection (background propagation) per namespaced kind that has objects in the
/// namespace, then a count of what remains.
fn delete_all_content(api: &mut ApiServer, namespace: &str) -> ContentPass {
    let mut pass = ContentPass::default();
    let kinds: Vec<Kind> = api
        .registry()
        .kinds()
        .iter()
        .copied()
        .filter(|k| k.resource().namespaced)
        .collect();
    let all = ListOptions::default();
    let opts = DeleteOptions {
        propagation_policy: Some(PROPAGATION_BACKGROUND.into()),
        ..Default::default()
    };
    for kind in kinds {
        let r = kind.resource();
        let Ok(before) = api.list(kind, Some(namespace), &all) else {
            continue;
        };
        if before.items.is_empty() {
            continue;
        }
        if kind == Kind::Pod {
            pass.estimate = pass.estimate.max(pod_grace_estimate(&before.items));
        }
        if let Err(s) = api.delete_collection(USER_AGENT, kind, Some(namespace), &all, &opts) {
            pass.failures
                .push(format!("{}.{}: {}", r.plural, r.group, s.message));
        }
        let Ok(after) = api.list(kind, Some(namespace), &all) else {
            continue;
        };
        if after.items.is_empty() {
            continue;
        }
        pass.remaining
            .insert(format!("{}.{}", r.plural, r.group), after.items.len());
        for obj in &after.items {
            for f in &obj.meta().finalizers {
                *pass.finalizers.entry(f.clone()).or_default() += 1;
            }
        }
    }
    pass
}

/// `estimateGracefulTerminationForPods`: the longest grace period of the pods not finished.
fn pod_grace_estimate(pods: &[Arc<Object>]) -> i64 {
    pods.iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| !matches!(&*p.status.phase, "Succeeded" | "Failed"))
        .map(|p| {
            p.spec
                .termination_grace_period_seconds
                .unwrap_or(DEFAULT_POD_GRACE_SECS)
        })
        .max()
        .unwrap_or(0)
}

/// The five conditions after a pass (`updateConditions`): each keeps its transition time while
/// its status, reason and message stay the same.
fn conditions(
    now: Timestamp,
    old: &[NamespaceCondition],
    pass: &ContentPass,
) -> Vec<NamespaceCondition> {
    let list = |m: &BTreeMap<String, usize>, sep: &str| {
        m.iter()
            .map(|(k, n)| format!("{k} {sep} {n} resource instances"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fresh: [(&str, &str, String); 5] = [
        (
            "False",
            "ResourcesDiscovered",
            "All resources successfully discovered".into(),
        ),
        (
            "False",
            "ParsedGroupVersions",
            "All legacy kube types successfully parsed".into(),
        ),
        if pass.failures.is_empty() {
            (
                "False",
                "ContentDeleted",
                "All content successfully deleted, may be waiting on finalization".into(),
            )
        } else {
            (
                "True",
                "ContentDeletionFailed",
                format!(
                    "Failed to delete all resource types, {} remaining: {}",
                    pass.failures.len(),
                    pass.failures.join(", ")
                ),
            )
        },
        if pass.remaining.is_empty() {
            (
                "False",
                "ContentRemoved",
                "All content successfully removed".into(),
            )
        } else {
            (
                "True",
                "SomeResourcesRemain",
                format!(
                    "Some resources are remaining: {}",
                    list(&pass.remaining, "has")
                ),
            )
        },
        if pass.finalizers.is_empty() {
            (
                "False",
                "ContentHasNoFinalizers",
                "All content-preserving finalizers finished".into(),
            )
        } else {
            (
                "True",
                "SomeFinalizersRemain",
                format!(
                    "Some content in the namespace has finalizers remaining: {}",
                    list(&pass.finalizers, "in")
                ),
            )
        },
    ];
    CONDITION_TYPES
        .iter()
        .zip(fresh)
        .map(|(t, (status, reason, message))| {
            let same = old.iter().find(|c| {
                c.type_ == *t && c.status == status && c.reason == reason && c.message == message
            });
            NamespaceCondition {
                type_: (*t).to_string(),
                status: status.into(),
                last_transition_time: same.and_then(|c| c.last_transition_time).or(Some(now)),
                reason: reason.into(),
                message,
            }
        })
        .collect()
}

impl Reconciler for NamespaceController {
    type Key = ObjectKey;

    fn name(&self) -> &str {
        USER_AGENT
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        vec![(&self.namespaces).into()]
    }

    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<ObjectKey>) {
        for note in self.namespaces.step(now, api) {
            Self::on_namespace(&note, queue);
        }
    }

    fn has_synced(&self) -> bool {
        self.namespaces.has_synced()
    }

    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &ObjectKey) -> Reconciled {
        self.sync(now, api, key)
    }

    fn next_wakeup(&self) -> Option<Timestamp> {
        self.namespaces.next_wakeup()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_say_what_remains_and_keep_their_transition_time() {
        let mut pass = ContentPass::default();
        pass.remaining.insert("pods.".into(), 3);
        pass.remaining.insert("deployments.apps".into(), 1);
        pass.finalizers.insert("foregroundDeletion".into(), 1);
        let first = conditions(Timestamp::from_secs(1), &[], &pass);
        let types: Vec<&str> = first.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, CONDITION_TYPES);
        assert_eq!(
            first[3].message,
            "Some resources are remaining: deployments.apps has 1 resource instances, pods. has 3 resource instances"
        );
        assert_eq!(
            first[4].message,
            "Some content in the namespace has finalizers remaining: foregroundDeletion in 1 resource instances"
        );
        let second = conditions(Timestamp::from_secs(9), &first, &ContentPass::default());
        assert_eq!(
            second[0].last_transition_time,
            Some(Timestamp::from_secs(1))
        );
        assert_eq!(second[3].reason, "ContentRemoved");
        assert_eq!(
            second[3].last_transition_time,
            Some(Timestamp::from_secs(9))
        );
    }
}
