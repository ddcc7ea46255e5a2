//! A StatefulSet's history (stateful_set_control.go `getStatefulSetRevisions`,
//! `truncateHistory`; stateful_set_utils.go `getPatch`, `newRevision`, `ApplyRevision`): the
//! update revision is the one whose data is the set's template now — the newest revision
//! when the template did not change, an older one moved to the next number when it changed
//! back (a rollback), else a new revision `<set>-<hash>`; the current revision is the one
//! `status.currentRevision` names (the update revision on the first sync). Revisions no pod
//! runs, beyond `revisionHistoryLimit`, are deleted oldest first.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::api::apps::{ControllerRevision, PodTemplateSpec, StatefulSet};
use crate::api::pod::Pod;
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::controllers::history;
use crate::controllers::replicaset::controller_ref;
use crate::controllers::Requeue;

use super::identity::pod_revision;
use super::USER_AGENT;

/// `getPatch`: the template, to be put back whole by a strategic merge patch.
pub fn patch(template: &PodTemplateSpec) -> Value {
    let mut t = serde_json::to_value(template).unwrap_or(Value::Null);
    if let Value::Object(t) = &mut t {
        // Go writes a template's zero creationTimestamp as null.
        if let Some(Value::Object(m)) = t.get_mut("metadata") {
            m.entry("creationTimestamp").or_insert(Value::Null);
        }
        t.insert("$patch".into(), json!("replace"));
    }
    json!({"spec": {"template": t}})
}

/// `ApplyRevision`, for the one field a revision holds: the template in its data.
pub fn template_of(rev: &ControllerRevision) -> Option<PodTemplateSpec> {
    let mut t = rev.data.as_ref()?.get("spec")?.get("template")?.clone();
    if let Value::Object(m) = &mut t {
        m.remove("$patch");
        if let Some(Value::Object(meta)) = m.get_mut("metadata") {
            meta.retain(|_, v| !v.is_null());
        }
    }
    serde_json::from_value(t).ok()
}

/// `newRevision`: the set's template as revision number `revision`, with the set's
/// annotations.
fn new_revision(set: &StatefulSet, revision: i64, collision_count: i32) -> ControllerRevision {
    let mut rev = history::new_revision(
        &set.metadata.namespace,
        controller_ref("StatefulSet", &set.metadata),
        &set.spec.template.metadata.labels,
        patch(&set.spec.template),
        revision,
        Some(collision_count),
    );
    for (k, v) in set.metadata.annotations.iter() {
        rev.metadata.annotations.insert(k.clone(), v.clone());
    }
    rev
}

/// The current and update revisions and the collision count to record.
pub struct Revisions {
    pub current: Arc<Object>,
    pub update: Arc<Object>,
    pub collision_count: i32,
}

impl Revisions {
    pub fn current(&self) -> Option<&ControllerRevision> {
        self.current.as_controller_revision()
    }

    pub fn update(&self) -> Option<&ControllerRevision> {
        self.update.as_controller_revision()
    }
}

/// `getStatefulSetRevisions` over the set's revisions (`revisions`, sorted).
pub fn get_revisions(
    api: &mut ApiServer,
    set: &StatefulSet,
    revisions: &[&Arc<Object>],
) -> Result<Revisions, Requeue> {
    let revs: Vec<&ControllerRevision> = revisions
        .iter()
        .filter_map(|o| o.as_controller_revision())
        .collect();
    let mut collision_count = set.status.collision_count.unwrap_or(0);
    let next = revs.last().map_or(1, |r| r.revision + 1);
    let wanted = new_revision(set, next, collision_count);
    let equal = history::find_equal_revisions(&revs, &wanted);
    let newest = revisions.last();
    let update = match (equal.last(), newest) {
        (Some(e), Some(n))
            if n.as_controller_revision()
                .is_some_and(|n| history::equal_revision(n, e)) =>
        {
            Arc::clone(n)
        }
        (Some(e), _) => history::update_revision(api, USER_AGENT, e, next).map_err(|_| Requeue)?,
        (None, _) => {
            let name = &set.metadata.name;
            history::create_revision(api, USER_AGENT, name, &wanted, &mut collision_count)
                .map_err(|_| Requeue)?
        }
    };
    let current = revisions
        .iter()
        .find(|o| {
            !set.status.current_revision.is_empty() && o.name() == set.status.current_revision
        })
        .map_or_else(|| Arc::clone(&update), |o| Arc::clone(o));
    Ok(Revisions {
        current,
        update,
        collision_count,
    })
}

/// `truncateHistory`: beyond `revisionHistoryLimit` revisions that are neither current,
/// update, nor any pod's, the oldest are deleted.
pub fn truncate_history(
    api: &mut ApiServer,
    set: &StatefulSet,
    pods: &[&Pod],
    revisions: &[&Arc<Object>],
    live_names: [Option<&str>; 2],
) -> Result<(), Requeue> {
    let mut live: BTreeSet<&str> = live_names.into_iter().flatten().collect();
    live.extend(pods.iter().map(|p| pod_revision(p)));
    let history: Vec<&ControllerRevision> = revisions
        .iter()
        .filter_map(|o| o.as_controller_revision())
        .filter(|r| !live.contains(r.metadata.name.as_str()))
        .collect();
    let limit = set.spec.revision_history_limit.unwrap_or(10).max(0) as usize;
    let excess = history.len().saturating_sub(limit);
    for rev in history.iter().take(excess) {
        history::delete_revision(api, USER_AGENT, rev).map_err(|_| Requeue)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_gives_back_its_template() {
        let mut set = StatefulSet::default();
        set.metadata.name = "web".into();
        set.spec
            .template
            .metadata
            .labels
            .insert("app".into(), "nginx".into());
        set.spec.template.spec.service_account_name = "sa".into();
        let rev = new_revision(&set, 1, 0);
        assert!(rev.metadata.name.starts_with("web-"));
        assert_eq!(
            rev.data
                .as_ref()
                .map(|d| d["spec"]["template"]["$patch"].clone()),
            Some(json!("replace"))
        );
        assert_eq!(template_of(&rev).as_ref(), Some(&set.spec.template));
        assert_eq!(
            rev.metadata.labels.get("app").map(String::as_str),
            Some("nginx")
        );
    }
}
