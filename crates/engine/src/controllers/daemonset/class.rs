//! A node's pods against the DaemonSet's current shape: which of them are updated
//! (`util.IsPodUpdated`), and the node's place in a rolling update ([`Class`],
//! `findUpdatedPodsOnNode` and update.go's per-node decisions). Both the per-node facts
//! ([`super::state`]) and the rolling update ([`super::update`]) read it.

use super::history::CONTROLLER_REVISION_HASH_LABEL;
use super::predicates::Predicates;
use crate::api::pod::Pod;
use crate::clock::Timestamp;
use crate::controllers::podutil::is_pod_available;

/// `extensions.DaemonSetTemplateGenerationKey`.
pub const POD_TEMPLATE_GENERATION_LABEL: &str = "pod-template-generation";

/// What the per-node facts were computed for: any change recomputes them all.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub predicates: Predicates,
    pub hash: String,
    pub template_generation: Option<i64>,
    pub min_ready_seconds: i32,
    pub surge: bool,
}

impl Shape {
    /// `util.IsPodUpdated`: the pod carries the current hash, or the current template
    /// generation.
    pub fn is_updated(&self, pod: &Pod) -> bool {
        let labels = &pod.metadata.labels;
        let hash =
            !self.hash.is_empty() && labels.get(CONTROLLER_REVISION_HASH_LABEL) == Some(&self.hash);
        let generation = self
            .template_generation
            .is_some_and(|g| labels.get(POD_TEMPLATE_GENERATION_LABEL) == Some(&g.to_string()));
        hash || generation
    }
}

/// A node's place in a rolling update.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Nothing for the update to do here, and nothing missing.
    #[default]
    Fine,
    /// Without surge: no pod, a new pod not available yet, both an old and a new pod, or
    /// more than one of either — counted against `maxUnavailable`.
    Unavailable,
    /// Without surge: an old pod that is not available — replaced at once (and counted).
    ReplaceOld,
    /// Without surge: an available old pod — deleted while the budget allows.
    CandidateOld,
    /// With surge: a new pod not available yet beside an old one, or excess pods — counted
    /// against `maxSurge`.
    Surging,
    /// With surge: the new pod is available (or the node no longer fits and the old pod is
    /// unavailable) — the old pod is deleted.
    DeleteOld,
    /// With surge: an old pod that is not available on a node that fits — a new pod at once.
    AllowNew,
    /// With surge: an available old pod on a node that fits — a new pod while surge allows.
    CandidateNew,
    /// With surge: an available old pod on a node that no longer fits — deleted only while
    /// more pods are available than nodes want one.
    ShouldNotRun,
}

/// `findUpdatedPodsOnNode`: the node's new and old pod (not being deleted); `None` when there
/// is more than one of either (the core loop prunes them first).
pub fn find_updated<'a>(
    shape: &Shape,
    pods: &[&'a Pod],
) -> Option<(Option<&'a Pod>, Option<&'a Pod>)> {
    let (mut new, mut old) = (None, None);
    for p in pods
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
    {
        let slot = match shape.is_updated(p) {
            true => &mut new,
            false => &mut old,
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(*p);
    }
    Some((new, old))
}

/// The class of a node with `pods` (and whether it has an available pod, surge's count).
pub fn classify(shape: &Shape, pods: &[&Pod], should_run: bool, now: Timestamp) -> (Class, bool) {
    let available = |p: &Pod| is_pod_available(p, shape.min_ready_seconds, now);
    let Some((new, old)) = find_updated(shape, pods) else {
        let class = if shape.surge {
            Class::Surging
        } else {
            Class::Unavailable
        };
        return (class, false);
    };
    if !shape.surge {
        let class = match (new, old) {
            (None, None) | (Some(_), Some(_)) => Class::Unavailable,
            (Some(n), None) if !available(n) => Class::Unavailable,
            (Some(_), None) => Class::Fine,
            (None, Some(o)) if !available(o) => Class::ReplaceOld,
            (None, Some(_)) => Class::CandidateOld,
        };
        return (class, false);
    }
    let has_available = match (new, old) {
        (_, Some(o)) => available(o),
        (Some(n), None) => available(n),
        (None, None) => false,
    };
    let class = match (new, old) {
        (_, None) => Class::Fine,
        (None, Some(o)) if !available(o) && should_run => Class::AllowNew,
        (None, Some(o)) if !available(o) => Class::DeleteOld,
        (None, Some(_)) if should_run => Class::CandidateNew,
        (None, Some(_)) => Class::ShouldNotRun,
        (Some(n), Some(_)) if !available(n) => Class::Surging,
        (Some(_), Some(_)) => Class::DeleteOld,
    };
    (class, has_available)
}
