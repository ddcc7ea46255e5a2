//! Reads: `get`, and `list` with selectors, `limit`/`continue` paging and the read paths of
//! kube-apiserver v1.32 (`storage/cacher/cacher.go` `GetList`, `shouldDelegateList`):
//!
//! - no resourceVersion: a consistent read from the watch cache (`ConsistentListFromCache`):
//!   a quorum read of etcd's current revision, then the cache once it has reached it; a cache
//!   that cannot (its etcd watch is stuck) would answer 504 after 3 s, and the list falls back
//!   to etcd;
//! - "0": the cache as it is, whole (no limit), answered while etcd has no majority;
//! - N (not older than): the cache once it has reached N, else `504 Too large resource version`;
//! - N + `Exact`, N with a limit, or a `continue` token: etcd at that revision, 410 once
//!   compacted.
//!
//! A cache that is reinitializing answers `429 storage is (re)initializing`, but for a list
//! without selectors and with a limit, which goes to etcd (`shouldDelegateListOnNotReadyCache`).

use super::cacher::Cacher;
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

/// Where a list read from etcd reads: at a revision (`None`: the latest), after a key.
struct ReadPlan {
    at: Option<Revision>,
    start_after: Option<String>,
    from_continue: bool,
}

/// An etcd read at `at` from the first key.
fn etcd_at(at: Option<Revision>) -> ReadPlan {
    ReadPlan {
        at,
        start_after: None,
        from_continue: false,
    }
}

/// An etcd read at its latest revision.
fn etcd_latest() -> ReadPlan {
    etcd_at(None)
}

/// Who answers a list.
enum Route {
    Etcd(ReadPlan),
    Cache(Freshness),
}

/// How fresh the cache must be to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freshness {
    /// resourceVersion "0": as it is.
    Any,
    /// resourceVersion N: at least N.
    NotOlderThan(Revision),
    /// No resourceVersion: at etcd's current revision.
    Consistent,
}

/// A list answered by the watch cache at `at`: the matches in key order, at most `limit` of
/// them, with a continue token (read from etcd) when more remain (`PrepareContinueToken`:
/// `remainingItemCount` only without selectors).
fn list_from_cache(
    cacher: &Cacher,
    prefix: &str,
    filter: &Filter,
    at: Revision,
    limit: Option<usize>,
) -> ObjectList {
    let matching = cacher.matching(filter);
    let total = matching.len();
    let take = limit.map_or(total, |l| l.min(total));
    let items: Vec<Arc<Object>> = matching[..take].iter().map(|o| (*o).clone()).collect();
    let mut continue_token = None;
    let mut remaining = None;
    if let (true, Some(last)) = (take < total, items.last()) {
        let key = filter.kind.key(last.namespace(), &last.meta().name);
        continue_token = Some(continue_token::encode(prefix, &key, at));
        if filter.labels.is_empty() && filter.fields.is_empty() {
            remaining = Some((total - take) as u64);
        }
    }
    ObjectList {
        kind: filter.kind,
        resource_version: at,
        continue_token,
        remaining_item_count: remaining,
        items,
    }
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
        self.get_stored(kind, namespace, name)
    }

    /// One object as a GET with resourceVersion "0" reads it: from the watch cache as it is,
    /// without asking etcd, so it answers while etcd has no majority.
    pub fn get_cached(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Arc<Object>, Status> {
        self.get_at(kind, namespace, name, 0)
    }

    /// One object as a GET with resourceVersion `rv` reads it (`Cacher.Get`): from the watch
    /// cache once it has reached `rv` (else `504 Too large resource version`); while the cache
    /// is reinitializing, from etcd.
    pub fn get_at(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        rv: Revision,
    ) -> Result<Arc<Object>, Status> {
        let Ok(cacher) = self.ready_cacher(kind) else {
            self.check_consistent_read()?;
            return self.get_stored(kind, namespace, name);
        };
        if rv > cacher.revision() {
            let fresh = self.fresh_revision(cacher);
            if fresh < rv {
                return Err(errors::too_large_resource_version(rv, fresh));
            }
        }
        let r = kind.resource();
        cacher
            .get(namespace.unwrap_or(""), name)
            .cloned()
            .ok_or_else(|| Status::not_found(&r.group_resource(), name))
    }

    /// One object as etcd holds it now, without a request (no quorum, no cache): for the
    /// façade's own checks and the views of the ledger.
    pub fn peek(&self, kind: Kind, namespace: Option<&str>, name: &str) -> Option<Arc<Object>> {
        self.get_stored(kind, namespace, name).ok()
    }

    /// Every object of `kind` as etcd holds it now, in key order, without a request (no quorum,
    /// no cache): the page's views of the ledger.
    pub fn peek_all(&self, kind: Kind) -> Vec<Arc<Object>> {
        self.store
            .range_prefix(&kind.resource().prefix(None), None, None, None)
            .map(|r| r.kvs.into_iter().map(|kv| kv.value).collect())
            .unwrap_or_default()
    }

    /// One object as etcd holds it now.
    fn get_stored(
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
        let filter = Filter {
            kind,
            namespace: namespace.map(str::to_string),
            labels: opts.label_selector.clone(),
            fields: opts.field_selector.clone(),
        };
        let plan = match self.plan_list(opts, &prefix)? {
            Route::Etcd(plan) => plan,
            Route::Cache(freshness) => {
                let limit = opts.limit.filter(|l| *l > 0);
                let Ok(cacher) = self.ready_cacher(kind) else {
                    if filter.labels.is_empty() && filter.fields.is_empty() && limit.is_some() {
                        // `shouldDelegateListOnNotReadyCache`: etcd serves it.
                        self.check_consistent_read()?;
                        return self.list_from_etcd(opts, &prefix, &filter, etcd_latest());
                    }
                    return Err(Status::too_many_requests(super::cacher::REINITIALIZING, 1));
                };
                let at = match freshness {
                    Freshness::Any => cacher.revision(),
                    Freshness::NotOlderThan(n) if cacher.revision() >= n => cacher.revision(),
                    Freshness::NotOlderThan(n) => {
                        let fresh = self.fresh_revision(cacher);
                        if fresh < n {
                            return Err(errors::too_large_resource_version(n, fresh));
                        }
                        fresh
                    }
                    Freshness::Consistent => {
                        // The quorum read of etcd's current revision.
                        self.check_consistent_read()?;
                        let current = self.store.revision();
                        let fresh = self.fresh_revision(cacher);
                        if fresh < current {
                            // 504 after 3 s; a consistent read then falls back to etcd.
                            return self.list_from_etcd(opts, &prefix, &filter, etcd_latest());
                        }
                        fresh
                    }
                };
                let limit = limit
                    .filter(|_| freshness != Freshness::Any)
                    .map(|l| l as usize);
                return Ok(list_from_cache(cacher, &prefix, &filter, at, limit));
            }
        };
        // Served by etcd at a revision, or at its latest (a quorum read).
        self.check_consistent_read()?;
        self.list_from_etcd(opts, &prefix, &filter, plan)
    }

    /// A list read from etcd (the store) as `plan` says.
    fn list_from_etcd(
        &self,
        opts: &ListOptions,
        prefix: &str,
        filter: &Filter,
        plan: ReadPlan,
    ) -> Result<ObjectList, Status> {
        let kind = filter.kind;
        let limit = opts.limit.filter(|l| *l > 0).map(|l| l as usize);
        let read_err = |e: StoreError| match e {
            StoreError::Compacted { .. } if plan.from_continue => {
                let fresh = plan.start_after.as_deref().unwrap_or_default();
                Status::resource_expired(CONTINUE_EXPIRED)
                    .with_continue(continue_token::encode_latest(prefix, fresh))
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
                .range_prefix(prefix, start_after.as_deref(), at, chunk)
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
                    continue_token = Some(continue_token::encode(prefix, &k, revision));
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

    fn plan_list(&self, opts: &ListOptions, prefix: &str) -> Result<Route, Status> {
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
            return Ok(Route::Etcd(ReadPlan {
                at,
                start_after: Some(key),
                from_continue: true,
            }));
        }
        let parse = |v: &str| errors::parse_rv(v);
        Ok(match (rv, opts.resource_version_match) {
            (None, _) => Route::Cache(Freshness::Consistent),
            (Some("0"), _) => Route::Cache(Freshness::Any),
            (Some(v), Some(ResourceVersionMatch::Exact)) => Route::Etcd(etcd_at(Some(parse(v)?))),
            // The legacy exact match: a resourceVersion with a limit (`isLegacyExactMatch`).
            (Some(v), None) if opts.limit.is_some_and(|l| l > 0) => {
                Route::Etcd(etcd_at(Some(parse(v)?)))
            }
            (Some(v), _) => Route::Cache(Freshness::NotOlderThan(parse(v)?)),
        })
    }
}
