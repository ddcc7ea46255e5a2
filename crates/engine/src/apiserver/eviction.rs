//! `POST pods/<name>/eviction`: a `policy/v1` Eviction asks for the pod to be deleted with the
//! eviction's `DeleteOptions`, as `kubectl drain` does for each pod of a node
//! (`pkg/registry/core/pod/storage/eviction.go`, `EvictionREST.Create`).
//!
//! PodDisruptionBudgets are not served yet, so no budget ever forbids an eviction: every pod is
//! evicted as the real server evicts one that no budget selects (the delete carried out,
//! `Status Success` answered).

use super::delete::DeleteOptions;
use super::{ApiServer, RequestContext};
use crate::api::Kind;
use serde::Deserialize;
use watchlab_apimachinery::status::Status;

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
        // No PodDisruptionBudget can select the pod (none are served): delete it.
        self.delete_in(ctx, Kind::Pod, namespace, name, &opts)?;
        let mut ok = Status::success();
        ok.code = 201;
        Ok(ok)
    }
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
