//! A DaemonSet's history in ControllerRevisions (pkg/controller/daemon/update.go):
//! `constructHistory` finds the revision whose data equals the current template's patch
//! (`Match`, `getPatch`: `{"spec":{"template":{..., "$patch":"replace"}}}`, what `kubectl
//! rollout undo` applies back), creates it as `<ds>-<hash>` with the next revision number
//! (`snapshot`) or moves an older one to the next number (a template changed back reuses its
//! revision), and keeps one per template (`dedupCurHistories`); `cleanupHistory` deletes the
//! oldest revisions beyond `revisionHistoryLimit` that no pod still runs.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::api::apps::{ControllerRevision, DaemonSet, PodTemplateSpec};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::ApiServer;
use crate::controllers::replicaset::controller_ref;
use crate::controllers::Requeue;
use crate::hash::fnv1a32;
use watchlab_apimachinery::status::StatusReason;

use super::USER_AGENT;
use watchlab_apimachinery::sort;

/// `apps.DefaultDaemonSetUniqueLabelKey` (= `ControllerRevisionHashLabelKey`).
pub const CONTROLLER_REVISION_HASH_LABEL: &str = "controller-revision-hash";

/// `getPatch`: the template, to be put back whole by a strategic merge patch.
pub fn patch(ds: &DaemonSet) -> Value {
    let mut template = serde_json::to_value(&ds.spec.template).unwrap_or(Value::Null);
    if let Value::Object(t) = &mut template {
        // Go writes a template's zero creationTimestamp as null.
        if let Some(Value::Object(m)) = t.get_mut("metadata") {
            m.entry("creationTimestamp").or_insert(Value::Null);
        }
        t.insert("$patch".into(), json!("replace"));
    }
    json!({"spec": {"template": template}})
}

/// `rand.SafeEncodeString`'s alphabet (no vowels, no look-alikes).
const SAFE_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `controller.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)`: FNV-32a over the
/// template's JSON (upstream hashes the Go struct) and the collision count when set, its
/// decimal digits rendered by `SafeEncodeString`, as the Deployment controller's hash.
pub fn hash(template: &PodTemplateSpec, collision_count: Option<i32>) -> String {
    let mut text = serde_json::to_string(template).unwrap_or_default();
    if let Some(n) = collision_count {
        text.push_str(&n.to_string());
    }
    fnv1a32(text.as_bytes())
        .to_string()
        .bytes()
        .map(|c| SAFE_ALPHABET[usize::from(c) % SAFE_ALPHABET.len()] as char)
        .collect()
}

fn label_hash(rev: &ControllerRevision) -> Option<&str> {
    rev.metadata
        .labels
        .get(CONTROLLER_REVISION_HASH_LABEL)
        .map(String::as_str)
}

/// The current revision's hash label and the other (old) revisions.
pub struct Revisions {
    pub hash: String,
    pub old: Vec<ControllerRevision>,
}

/// `constructHistory` over the revisions the DaemonSet controls; `relabel` gives the pods a
/// duplicate revision's removal must move to the kept one (`dedupCurHistories`).
pub fn construct(
    api: &mut ApiServer,
    ds: &DaemonSet,
    controlled: Vec<ControllerRevision>,
    relabel: &dyn Fn() -> Vec<Arc<Object>>,
) -> Result<Revisions, Requeue> {
    let data = patch(ds);
    let (mut current, mut old) = (Vec::new(), Vec::new());
    for mut rev in controlled {
        if label_hash(&rev).is_none() {
            // Older controllers named the revision by its hash: label it so.
            let name = rev.metadata.name.clone();
            rev.metadata
                .labels
                .insert(CONTROLLER_REVISION_HASH_LABEL.into(), name);
            let o = api
                .update(USER_AGENT, Object::from(rev))
                .map_err(|_| Requeue)?;
            rev = o.as_controller_revision().cloned().ok_or(Requeue)?;
        }
        match rev.data.as_ref() == Some(&data) {
            true => current.push(rev),
            false => old.push(rev),
        }
    }
    let next = old.iter().map(|r| r.revision).max().unwrap_or(0) + 1;
    let cur = match current.is_empty() {
        true => snapshot(api, ds, data, next)?,
        false => dedup(api, ds, current, relabel)?,
    };
    if cur.revision < next {
        let mut moved = cur.clone();
        moved.revision = next;
        api.update(USER_AGENT, Object::from(moved))
            .map_err(|_| Requeue)?;
    }
    let hash = label_hash(&cur).unwrap_or_default().to_string();
    Ok(Revisions { hash, old })
}

/// `snapshot`: creates the revision `<ds>-<hash>`; a name taken by another template bumps the
/// DaemonSet's `collisionCount` (the next hash differs) and the sync is retried.
fn snapshot(
    api: &mut ApiServer,
    ds: &DaemonSet,
    data: Value,
    revision: i64,
) -> Result<ControllerRevision, Requeue> {
    let h = hash(&ds.spec.template, ds.status.collision_count);
    let ns = ds.metadata.namespace.as_str();
    let name = format!("{}-{h}", ds.metadata.name);
    let mut meta = ObjectMeta::named(ns, &name);
    meta.labels = ds.spec.template.metadata.labels.clone();
    meta.labels
        .insert(CONTROLLER_REVISION_HASH_LABEL.into(), h.clone());
    meta.annotations = ds.metadata.annotations.clone();
    meta.owner_references = vec![controller_ref("DaemonSet", &ds.metadata)].into();
    let rev = ControllerRevision {
        metadata: meta,
        data: Some(data.clone()),
        revision,
    };
    match api.create(USER_AGENT, Object::from(rev)) {
        Ok(o) => o.as_controller_revision().cloned().ok_or(Requeue),
        Err(s) if s.reason() == StatusReason::AlreadyExists => {
            let existing = api
                .get(Kind::ControllerRevision, Some(ns), &name)
                .map_err(|_| Requeue)?;
            let existing = existing.as_controller_revision().ok_or(Requeue)?;
            if existing.data.as_ref() == Some(&data) {
                return Ok(existing.clone());
            }
            bump_collision_count(api, ds);
            Err(Requeue)
        }
        Err(_) => Err(Requeue),
    }
}

/// A hash collision: `status.collisionCount` goes up by one (from the stored DaemonSet).
fn bump_collision_count(api: &mut ApiServer, ds: &DaemonSet) {
    let ns = Some(ds.metadata.namespace.as_str());
    let Ok(o) = api.get(Kind::DaemonSet, ns, &ds.metadata.name) else {
        return;
    };
    let Some(current) = o.as_daemon_set() else {
        return;
    };
    if current.status.collision_count != ds.status.collision_count {
        return;
    }
    let mut bumped = current.clone();
    bumped.status.collision_count = Some(ds.status.collision_count.unwrap_or(0) + 1);
    // A failure is retried with the sync.
    let _ = api.update_status(USER_AGENT, Object::from(bumped));
}

/// `dedupCurHistories`: of several revisions of the current template the newest is kept; the
/// pods of the others are relabelled to it and the others deleted.
fn dedup(
    api: &mut ApiServer,
    ds: &DaemonSet,
    mut current: Vec<ControllerRevision>,
    relabel: &dyn Fn() -> Vec<Arc<Object>>,
) -> Result<ControllerRevision, Requeue> {
    sort::sort_by_key(&mut current, |r| (r.revision, r.metadata.name.clone()));
    let keep = current.pop().ok_or(Requeue)?;
    if current.is_empty() {
        return Ok(keep);
    }
    let ns = Some(ds.metadata.namespace.as_str());
    let kept_hash = label_hash(&keep).unwrap_or_default().to_string();
    for pod in relabel() {
        if pod.meta().labels.get(CONTROLLER_REVISION_HASH_LABEL) == Some(&kept_hash) {
            continue;
        }
        let patch = json!({"metadata": {"labels": {CONTROLLER_REVISION_HASH_LABEL: kept_hash}}});
        api.merge_patch(USER_AGENT, Kind::Pod, ns, pod.name(), &patch, false)
            .map_err(|_| Requeue)?;
    }
    for dup in current {
        delete_revision(api, &dup)?;
    }
    Ok(keep)
}

fn delete_revision(api: &mut ApiServer, rev: &ControllerRevision) -> Result<(), Requeue> {
    let ns = Some(rev.metadata.namespace.as_str());
    match api.delete(
        USER_AGENT,
        Kind::ControllerRevision,
        ns,
        &rev.metadata.name,
        &Default::default(),
    ) {
        Ok(_) => Ok(()),
        Err(s) if s.reason() == StatusReason::NotFound => Ok(()),
        Err(_) => Err(Requeue),
    }
}

/// `cleanupHistory`: beyond `revisionHistoryLimit` old revisions, the oldest whose hash no pod
/// carries (`live`: pods per hash label) are deleted.
pub fn cleanup(
    api: &mut ApiServer,
    ds: &DaemonSet,
    mut old: Vec<ControllerRevision>,
    live: &BTreeMap<String, usize>,
) -> Result<(), Requeue> {
    let keep = ds.spec.revision_history_limit.unwrap_or(10).max(0) as usize;
    let Some(mut to_kill) = old.len().checked_sub(keep).filter(|n| *n > 0) else {
        return Ok(());
    };
    sort::sort_by_key(&mut old, |r| (r.revision, r.metadata.name.clone()));
    for rev in &old {
        if to_kill == 0 {
            break;
        }
        if label_hash(rev).is_some_and(|h| live.get(h).is_some_and(|n| *n > 0)) {
            continue;
        }
        delete_revision(api, rev)?;
        to_kill -= 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patch_replaces_the_whole_template() {
        let mut ds = DaemonSet::default();
        ds.spec
            .template
            .metadata
            .labels
            .insert("app".into(), "agent".into());
        let p = patch(&ds);
        assert_eq!(p["spec"]["template"]["$patch"], "replace");
        assert_eq!(p["spec"]["template"]["metadata"]["labels"]["app"], "agent");
        assert!(p["spec"]["template"]["metadata"]["creationTimestamp"].is_null());
        assert_eq!(
            p.as_object().map(|o| o.len()),
            Some(1),
            "only spec.template"
        );
        let h = hash(&ds.spec.template, None);
        assert_ne!(
            h,
            hash(&ds.spec.template, Some(1)),
            "a collision moves the hash"
        );
    }
}
