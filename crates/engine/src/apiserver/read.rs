//! Reads: `get`, and `list` with selectors, `limit`/`continue` paging and the resourceVersion /
//! resourceVersionMatch semantics of the real server (unset = latest; "0" = any, served whole
//! like the watch cache; N = not older than N; N + Exact, or N with a limit = that revision from
//! the store's history, 410 once compacted).

use super::continue_token;
use super::errors;
use super::watch::Filter;
use super::ApiServer;
use crate::api::{Kind, Object};
use crate::store::{Revision, StoreError};
use std::sync::Arc;
use watchlab_apimachinery::request::{ListOptions, ResourceVersionMatch};
use watchlab_apimachinery::status::Status;
use watchlab_apimachinery::validation::FieldError;

/// The real texts for lists that can no longer be served (`storage/etcd3`).
pub const LIST_EXPIRED: &str = "The resourceVersion for the provided list is too old.";
/// `inconsistentContinue`: the 410 for a compacted `continue` token, which carries a fresh token
/// (`metadata.continue`) that reads the remainder at the latest revision.
pub const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// A list answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectList {
    pub kind: Kind,
    /// `metadata.resourceVersion`: the revision the list shows.
    pub resource_version: Revision,
    /// `metadata.continue`, when more items remain.
    pub continue_token: Option<String>,
    /// `metadata.remainingItemCount` (only for unfiltered paged lists, as the real server).
    pub remaining_item_count: Option<u64>,
    pub items: Vec<Arc<Object>>,
}

impl ObjectList {
    /// `{"kind":"PodList","apiVersion":"v1","metadata":{...},"items":[...]}`.
    pub fn to_json(&self) -> String {
        let r = self.kind.resource();
        let mut meta = serde_json::Map::new();
        meta.insert(
            "resourceVersion".into(),
            self.resource_version.to_string().into(),
        );
        if let Some(c) = &self.continue_token {
            meta.insert("continue".into(), c.clone().into());
        }
        if let Some(n) = self.remaining_item_count {
            meta.insert("remainingItemCount".into(), n.into());
        }
        let meta = serde_json::Value::Object(meta).to_string();
        let mut out = format!(
            "{{\"kind\":\"{}\",\"apiVersion\":\"{}\",\"metadata\":{meta},\"items\":[",
            r.list_kind, r.api_version
        );
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&item.to_json());
        }
        out.push_str("]}");
        out
    }
}

/// Where a list reads and whether `limit` applies.
struct ReadPlan {
    at: Option<Revision>,
    paged: bool,
    start_after: Option<String>,
    from_continue: bool,
}

impl ApiServer {
    /// One object.
    pub fn get(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Arc<Object>, Status> {
        // A GET without a resourceVersion is a quorum read of etcd ([`super::etcd_client`]).
        self.check_consistent_read()?;
        self.get_cached(kind, namespace, name)
    }

    /// One object as a GET with a resourceVersion ("0", or not older than one) reads it: from
    /// the watch cache, without asking etcd, so it answers while etcd has no majority.
    pub fn get_cached(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Arc<Object>, Status> {
        let r = kind.resource();
        self.current(&r.key(namespace.unwrap_or(""), name))
            .map(|(o, _)| o)
            .ok_or_else(|| Status::not_found(&r.group_resource(), name))
    }

    /// A collection (all namespaces when `namespace` is None).
    pub fn list(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        opts: &ListOptions,
    ) -> Result<ObjectList, Status> {
        let r = kind.resource();
        r.check_field_selector(&opts.field_selector)?;
        let namespace = namespace.filter(|_| r.namespaced);
        let prefix = r.prefix(namespace);
        let plan = self.plan_list(opts, &prefix)?;
        if plan.paged {
            // Served by etcd (or by the cache after a quorum read of etcd's revision).
            self.check_consistent_read()?;
        }
        let filter = Filter {
            kind,
            namespace: namespace.map(str::to_string),
            labels: opts.label_selector.clone(),
            fields: opts.field_selector.clone(),
        };
        let limit = opts
            .limit
            .filter(|l| *l > 0 && plan.paged)
            .map(|l| l as usize);
        let read_err = |e: StoreError| match e {
            StoreError::Compacted { .. } if plan.from_continue => {
                let fresh = plan.start_after.as_deref().unwrap_or_default();
                Status::resource_expired(CONTINUE_EXPIRED)
                    .with_continue(continue_token::encode_latest(&prefix, fresh))
            }
            StoreError::Compacted { .. } => Status::resource_expired(LIST_EXPIRED),
            StoreError::FutureRevision { requested, current } => {
                errors::too_large_resource_version(requested, current)
            }
            other => errors::unknown(&other.to_string()),
        };
        let revision = plan.at.unwrap_or(self.store.revision());
        let at = Some(revision);
        let unfiltered = opts.label_selector.is_empty() && opts.field_selector.is_empty();
        let mut items = Vec::new();
        let mut start_after = plan.start_after.clone();
        let mut continue_token = None;
        let mut remaining = None;
        // Read in chunks of `limit` until enough items matched (the etcd3 store's loop).
        let mut chunk_size = limit.unwrap_or(0);
        loop {
            // Chunks grow when a selector filters most keys out, as the etcd3 store's loop does.
            let chunk = limit.map(|_| chunk_size.max(1));
            chunk_size = chunk_size.saturating_mul(2);
            let resp = self
                .store
                .range_prefix(&prefix, start_after.as_deref(), at, chunk)
                .map_err(read_err)?;
            let n = resp.kvs.len();
            let mut last_key = None;
            let mut full = false;
            for (i, kv) in resp.kvs.iter().enumerate() {
                last_key = Some(kv.key.clone());
                if filter.matches(&kv.value) {
                    items.push(kv.value.clone());
                }
                if limit.is_some_and(|l| items.len() >= l) {
                    full = i + 1 < n || resp.more;
                    if full && unfiltered {
                        remaining = Some(resp.count.saturating_sub(i + 1) as u64);
                    }
                    break;
                }
            }
            if full {
                if let Some(k) = last_key {
                    continue_token = Some(continue_token::encode(&prefix, &k, revision));
                }
                break;
            }
            if !resp.more || limit.is_none() {
                break;
            }
            start_after = last_key.map(|k| k.to_string());
        }
        Ok(ObjectList {
            kind,
            resource_version: revision,
            continue_token,
            remaining_item_count: remaining,
            items,
        })
    }

    fn plan_list(&self, opts: &ListOptions, prefix: &str) -> Result<ReadPlan, Status> {
        let rv = opts.resource_version.as_deref().filter(|v| !v.is_empty());
        let mut errs = Vec::new();
        if let Some(m) = opts.resource_version_match {
            if rv.is_none() {
                errs.push(FieldError::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            if opts.continue_token.is_some() {
                errs.push(FieldError::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
            if m == ResourceVersionMatch::Exact && rv == Some("0") {
                errs.push(FieldError::forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
        }
        if !errs.is_empty() {
            return Err(Status::invalid("ListOptions", "meta.k8s.io", "", &errs));
        }
        if let Some(token) = opts.continue_token.as_deref().filter(|t| !t.is_empty()) {
            if rv.is_some() {
                return Err(Status::bad_request(
                    "specifying resource version is not allowed when using continue",
                ));
            }
            let (at, key) =
                continue_token::decode(token, prefix).map_err(|e| Status::bad_request(&e))?;
            return Ok(ReadPlan {
                at,
                paged: true,
                start_after: Some(key),
                from_continue: true,
            });
        }
        let current = self.store.revision();
        let plan = |at, paged| ReadPlan {
            at,
            paged,
            start_after: None,
            from_continue: false,
        };
        Ok(match (rv, opts.resource_version_match) {
            (None, _) => plan(None, true),
            (Some("0"), _) => plan(None, false),
            (Some(v), Some(ResourceVersionMatch::Exact)) => plan(Some(errors::parse_rv(v)?), true),
            (Some(v), None) if opts.limit.is_some_and(|l| l > 0) => {
                plan(Some(errors::parse_rv(v)?), true)
            }
            (Some(v), _) => {
                let n = errors::parse_rv(v)?;
                if n > current {
                    return Err(errors::too_large_resource_version(n, current));
                }
                plan(None, opts.limit.is_some_and(|l| l > 0))
            }
        })
    }
}
