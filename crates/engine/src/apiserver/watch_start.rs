//! Opening a watch: where the stream starts. resourceVersion unset or "0" → synthetic ADDED for
//! every current match (their own revisions, key order), then live changes; N → every change
//! after N from the store's history; a compacted N → one ERROR 410 Expired and the end (HTTP
//! 200 then the error event, as the real server). `sendInitialEvents=true` adds the
//! initial-events-end BOOKMARK.

use super::errors;
use super::watch::{bookmark, Filter, StreamStart, WatchEvent, WatchEventType};
use super::{change_of, ApiServer};
use crate::api::Kind;
use crate::store::StoreError;
use std::sync::Arc;
use watchlab_apimachinery::client::WatchId;
use watchlab_apimachinery::request::{ListOptions, ResourceVersionMatch};
use watchlab_apimachinery::status::Status;
use watchlab_apimachinery::validation::FieldError;

impl ApiServer {
    // Long on purpose: the watch request's checks in the order the real server answers them,
    // then where the stream starts (now, a resourceVersion, or its history); read top down.
    /// Opens a watch stream for `user` on `kind` (in `namespace`, or all).
    pub fn watch(
        &mut self,
        user: &str,
        kind: Kind,
        namespace: Option<&str>,
        opts: &ListOptions,
    ) -> Result<WatchId, Status> {
        let r = kind.resource();
        r.check_field_selector(&opts.field_selector)?;
        validate_watch_options(opts)?;
        let namespace = namespace.filter(|_| r.namespaced);
        let filter = Filter {
            kind,
            namespace: namespace.map(str::to_string),
            labels: opts.label_selector.clone(),
            fields: opts.field_selector.clone(),
        };
        let prefix = r.prefix(namespace);
        let current = self.store.revision();
        let rv = opts.resource_version.as_deref().filter(|v| !v.is_empty());
        let mut initial: Vec<Arc<WatchEvent>> = Vec::new();
        let mut expired = false;
        let mut revision = current;
        let send_initial = opts
            .send_initial_events
            .unwrap_or(matches!(rv, None | Some("0")));
        match rv {
            Some(v) if v != "0" && !send_initial => {
                let n = errors::parse_rv(v)?;
                if n > current {
                    return Err(errors::too_large_resource_version(n, current));
                }
                match self.store.events_after(&prefix, n) {
                    Ok(events) => {
                        for e in events {
                            let change = change_of(&self.store, e);
                            if let Some(t) = filter.decide(&change) {
                                if let Some(obj) = change.object_for_event(t) {
                                    initial.push(Arc::new(WatchEvent::new(
                                        t,
                                        obj,
                                        change.revision,
                                    )));
                                }
                            }
                        }
                    }
                    Err(StoreError::Compacted {
                        compact_revision, ..
                    }) => {
                        let msg = format!("too old resource version: {n} ({compact_revision})");
                        initial.push(Arc::new(WatchEvent::error(
                            Status::resource_expired(&msg),
                            n,
                        )));
                        expired = true;
                        revision = n;
                    }
                    Err(e) => return Err(errors::unknown(&e.to_string())),
                }
            }
            _ => {
                if let Some(v) = rv.filter(|v| *v != "0") {
                    let n = errors::parse_rv(v)?;
                    if n > current {
                        return Err(errors::too_large_resource_version(n, current));
                    }
                }
                if send_initial {
                    let list = self
                        .store
                        .range_prefix(&prefix, None, None, None)
                        .map_err(|e| errors::unknown(&e.to_string()))?;
                    for kv in list.kvs.iter().filter(|kv| filter.matches(&kv.value)) {
                        initial.push(Arc::new(WatchEvent::new(
                            WatchEventType::Added,
                            kv.value.clone(),
                            kv.mod_revision,
                        )));
                    }
                    if opts.send_initial_events == Some(true) {
                        initial.push(Arc::new(bookmark(kind, current, true)));
                    }
                }
            }
        }
        let timeout_secs = match opts.timeout_seconds.filter(|t| *t > 0) {
            Some(t) => t,
            // The real server's `timeout = minRequestTimeout * (rand.Float64() + 1.0)`.
            None => {
                let min = self.config.min_request_timeout_secs;
                min + self.rng.below(min.max(1))
            }
        };
        let start = StreamStart {
            user: Arc::from(user),
            filter,
            now: self.now,
            deadline: self.now.plus_secs(timeout_secs),
            bookmarks: opts.allow_watch_bookmarks,
            initial,
            revision,
            expired,
        };
        Ok(self.watch.open(start))
    }
}

/// `ValidateListOptions` for watches (422 `ListOptions.meta.k8s.io "" is invalid: ...`).
fn validate_watch_options(opts: &ListOptions) -> Result<(), Status> {
    let mut errs = Vec::new();
    if opts.send_initial_events.is_some()
        && opts.resource_version_match != Some(ResourceVersionMatch::NotOlderThan)
    {
        errs.push(FieldError::forbidden(
            "resourceVersionMatch",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    if let Some(m) = opts.resource_version_match {
        if opts.send_initial_events.is_none() {
            errs.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ));
        }
        if m != ResourceVersionMatch::NotOlderThan {
            errs.push(FieldError::not_supported(
                "resourceVersionMatch",
                "Exact",
                &["NotOlderThan"],
            ));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(Status::invalid("ListOptions", "meta.k8s.io", "", &errs))
    }
}
