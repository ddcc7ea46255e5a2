//! `POST pods/<name>/eviction`: a `policy/v1` Eviction asks for the pod to be deleted with the
//! eviction's `DeleteOptions`, as `kubectl drain` does for each pod of a node, unless the
//! PodDisruptionBudget selecting it allows no more disruptions
//! (`pkg/registry/core/pod/storage/eviction.go`, `EvictionREST.Create`, v1.32):
//!
//! - a pod that is Pending, Succeeded, Failed or already terminating is deleted at once, no
//!   budget consulted (`canIgnorePDB`), with the pod's resourceVersion as a precondition
//!   unless it is terminal or terminating;
//! - with no budget selecting it (same namespace, a selector that is set and not empty), it is
//!   deleted; with more than one, the eviction fails with 500;
//! - a pod that is not Ready is deleted without spending the budget when the budget says
//!   `unhealthyPodEvictionPolicy: AlwaysAllow`, or (default `IfHealthyBudget`) while the
//!   budget has its desired healthy pods (`currentHealthy >= desiredHealthy > 0`), with its
//!   resourceVersion as a precondition (a conflict answers 429: it may have turned Ready);
//! - otherwise the budget is checked and spent (`checkAndDecrement`): 429 `Cannot evict pod as
//!   it would violate the pod's disruption budget.` while its status is older than its spec or
//!   it allows no disruption; else `disruptionsAllowed` goes down by one and the pod is written
//!   into `status.disruptedPods` (a status update with the budget's resourceVersion, skipped
//!   in a dry run) before the pod is deleted.
//!
//! The real handler returns a 500 `Status` object as the create's result for two budgets and
//! retries conflicts with back-off; the page's requests are synchronous, so no conflict can
//! arise between its read and its write, and the 500 is answered as an error (what the client
//! sees either way).

use super::delete::{DeleteOptions, Preconditions};
use super::{ApiServer, RequestContext};
use crate::api::pod::{is_pod_ready, Pod};
use crate::api::policy::{PodDisruptionBudget, ALWAYS_ALLOW};
use crate::api::{Kind, Object};
use serde::Deserialize;
use watchlab_apimachinery::request::ListOptions;
use watchlab_apimachinery::status::{GroupResource, Status, StatusCause, StatusDetails};

/// The user agent of the API server's own client (its loopback), whose budget status updates
/// the ledger shows.
const LOOPBACK: &str = "kube-apiserver";

/// `policyv1.DisruptionBudgetCause`: the cause of a 429 a budget answered.
pub const DISRUPTION_BUDGET_CAUSE: &str = "DisruptionBudget";

/// The 429's message.
pub const BUDGET_VIOLATION: &str =
    "Cannot evict pod as it would violate the pod's disruption budget.";

/// `MaxDisruptedPodSize`: evictions approved but not yet seen by the disruption controller
/// beyond which a budget refuses more.
const MAX_DISRUPTED_POD_SIZE: usize = 2000;

/// `policy/v1` `Eviction` (the fields the server reads).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Eviction {
    #[serde(default)]
    pub metadata: EvictionMeta,
    /// How the pod is deleted (grace period, preconditions, dry run).
    #[serde(default)]
    pub delete_options: Option<DeleteOptions>,
}

/// The Eviction's `metadata`: the pod it names.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EvictionMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
}

impl Eviction {
    /// Decodes an Eviction body, refused as the real decoder refuses a malformed one.
    pub fn from_json(body: &str) -> Result<Eviction, Status> {
        serde_json::from_str(body).map_err(|e| {
            Status::bad_request(&format!(
                "Eviction in version \"v1\" cannot be handled as a Eviction: {e}"
            ))
        })
    }
}

/// A 429 of a budget, with its cause (`errors.NewTooManyRequests` plus a `DisruptionBudget`
/// cause).
fn too_many_requests(retry_after: u32, cause: String) -> Status {
    Status::too_many_requests(BUDGET_VIOLATION, retry_after).with_details(StatusDetails {
        causes: vec![StatusCause {
            reason: DISRUPTION_BUDGET_CAUSE.to_string(),
            message: cause,
            ..StatusCause::default()
        }],
        retry_after_seconds: retry_after,
        ..StatusDetails::default()
    })
}

/// `createTooManyRequestsError`: the budget's status is behind (or the pod changed under a
/// precondition); retry in 10 s.
fn still_processing(pdb: &str) -> Status {
    too_many_requests(
        10,
        format!("The disruption budget {pdb} is still being processed by the server."),
    )
}

/// `canIgnorePDB`: the pod is not running, or already on its way out.
fn can_ignore_pdb(pod: &Pod) -> bool {
    matches!(&*pod.status.phase, "Succeeded" | "Failed" | "Pending")
        || pod.metadata.deletion_timestamp.is_some()
}

/// `shouldEnforceResourceVersion`: not terminal and not terminating.
fn should_enforce_resource_version(pod: &Pod) -> bool {
    !matches!(&*pod.status.phase, "Succeeded" | "Failed")
        && pod.metadata.deletion_timestamp.is_none()
}

fn with_resource_version(opts: &DeleteOptions, rv: &str) -> DeleteOptions {
    let mut opts = opts.clone();
    opts.preconditions
        .get_or_insert_with(Preconditions::default)
        .resource_version = Some(rv.to_string());
    opts
}

fn resource_version_unset(opts: &DeleteOptions) -> bool {
    opts.preconditions
        .as_ref()
        .is_none_or(|p| p.resource_version.is_none())
}

impl ApiServer {
    /// Evicts `namespace/name` as the request `ctx` (a dry run when `dry_run`, the create's
    /// `?dryRun=All`, or the eviction's own options ask for one): `EvictionREST.Create`.
    pub fn evict_in(
        &mut self,
        ctx: &mut RequestContext<'_>,
        namespace: Option<&str>,
        name: &str,
        eviction: &Eviction,
        dry_run: bool,
    ) -> Result<Status, Status> {
        if eviction.metadata.name != name {
            return Err(Status::bad_request(
                "name in URL does not match name in Eviction object",
            ));
        }
        let mut opts = eviction.delete_options.clone().unwrap_or_default();
        // `propagateDryRun`: the create's dry run reaches the delete.
        if dry_run && opts.dry_run.is_empty() {
            opts.dry_run = vec!["All".to_string()];
        }
        let stored = self.get(Kind::Pod, namespace, name)?;
        let Some(pod) = stored.as_pod() else {
            return Err(Status::internal_error("not a pod"));
        };
        let delete_opts = if can_ignore_pdb(pod) {
            if should_enforce_resource_version(pod) && resource_version_unset(&opts) {
                with_resource_version(&opts, &pod.metadata.resource_version)
            } else {
                opts.clone()
            }
        } else {
            match self.spend_budget(pod, opts.is_dry_run())? {
                Spent::Unhealthy(pdb) => {
                    let guarded = with_resource_version(&opts, &pod.metadata.resource_version);
                    let deleted = self.delete_in(ctx, Kind::Pod, namespace, name, &guarded);
                    return match deleted {
                        Err(e) if e.code() == 409 && resource_version_unset(&opts) => {
                            Err(still_processing(&pdb))
                        }
                        Err(e) => Err(e),
                        Ok(_) => Ok(created()),
                    };
                }
                Spent::Nothing | Spent::One => opts.clone(),
            }
        };
        self.delete_in(ctx, Kind::Pod, namespace, name, &delete_opts)?;
        Ok(created())
    }

    /// The budgets selecting `pod`: of its namespace, with a selector that is set, not empty
    /// and matches its labels (`getPodDisruptionBudgets`: a quorum list through the server's
    /// own client).
    fn budgets_of(&self, pod: &Pod) -> Result<Vec<PodDisruptionBudget>, Status> {
        let list = self.list(
            Kind::PodDisruptionBudget,
            Some(&pod.metadata.namespace),
            &ListOptions::default(),
        )?;
        Ok(list
            .items
            .iter()
            .filter_map(|o| o.as_pod_disruption_budget())
            .filter(|pdb| {
                pdb.spec
                    .selector
                    .as_ref()
                    .and_then(|s| s.to_selector().ok())
                    .is_some_and(|s| !s.is_empty() && s.matches(&pod.metadata.labels))
            })
            .cloned()
            .collect())
    }

    /// The budget step of an eviction of a pod that cannot skip it.
    fn spend_budget(&mut self, pod: &Pod, dry_run: bool) -> Result<Spent, Status> {
        let mut budgets = self.budgets_of(pod)?;
        if budgets.len() > 1 {
            return Err(Status::unknown(
                500,
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            ));
        }
        let Some(pdb) = budgets.pop() else {
            return Ok(Spent::Nothing);
        };
        if !is_pod_ready(pod) {
            let s = &pdb.status;
            if pdb.spec.unhealthy_pod_eviction_policy.as_deref() == Some(ALWAYS_ALLOW)
                || (s.current_healthy >= s.desired_healthy && s.desired_healthy > 0)
            {
                return Ok(Spent::Unhealthy(pdb.metadata.name));
            }
        }
        self.check_and_decrement(&pod.metadata.name, pdb, dry_run)?;
        Ok(Spent::One)
    }

    /// `checkAndDecrement`: refuses while the budget allows nothing, else records the
    /// disruption in its status (not in a dry run).
    fn check_and_decrement(
        &mut self,
        pod: &str,
        mut pdb: PodDisruptionBudget,
        dry_run: bool,
    ) -> Result<(), Status> {
        let name = pdb.metadata.name.clone();
        if pdb.status.observed_generation < pdb.metadata.generation.unwrap_or(0) {
            return Err(still_processing(&name));
        }
        if pdb.status.disruptions_allowed < 0 {
            let msg = "pdb disruptions allowed is negative";
            return Err(Status::forbidden(&policy_resource(), &name, msg));
        }
        if pdb.status.disrupted_pods.len() > MAX_DISRUPTED_POD_SIZE {
            let msg =
                "DisruptedPods map too big - too many evictions not confirmed by PDB controller";
            return Err(Status::forbidden(&policy_resource(), &name, msg));
        }
        if pdb.status.disruptions_allowed == 0 {
            let s = &pdb.status;
            return Err(too_many_requests(
                0,
                format!(
                    "The disruption budget {name} needs {} healthy pods and has {} currently",
                    s.desired_healthy, s.current_healthy
                ),
            ));
        }
        pdb.status.disruptions_allowed -= 1;
        let now = self.now();
        if pdb.status.disruptions_allowed == 0 {
            pdb.update_disruption_allowed_condition(now);
        }
        if dry_run {
            return Ok(());
        }
        pdb.status.disrupted_pods.insert(pod.to_string(), now);
        self.update_status(LOOPBACK, Object::from(pdb)).map(|_| ())
    }
}

/// The resource a budget's 403s name (`policy.Resource("poddisruptionbudget")`: singular, as
/// the real handler writes it).
fn policy_resource() -> GroupResource {
    GroupResource::new("policy", "poddisruptionbudget")
}

/// The answer to an eviction carried out: `Status Success`, 201 as a create's.
fn created() -> Status {
    let mut ok = Status::success();
    ok.code = 201;
    ok
}

/// What the budget step decided.
enum Spent {
    /// No budget selects the pod.
    Nothing,
    /// One disruption of the budget spent.
    One,
    /// The pod is not Ready and the budget (named) lets it go without spending.
    Unhealthy(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_eviction_decodes_with_its_delete_options() {
        let e = Eviction::from_json(
            r#"{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p","namespace":"d"},
                "deleteOptions":{"gracePeriodSeconds":0,"dryRun":["All"]}}"#,
        )
        .unwrap();
        assert_eq!(e.metadata.name, "p");
        let opts = e.delete_options.unwrap();
        assert_eq!(opts.grace_period_seconds, Some(0));
        assert!(opts.is_dry_run());
        assert!(Eviction::from_json(r#"{"metadata": 5}"#).is_err());
    }
}
