//! Opening a watch, served by the resource's watch cache ([`super::cacher`]): where the stream
//! starts. resourceVersion unset or "0" → synthetic ADDED for every object the cache holds
//! (their own revisions, key order), then live changes; N → every change after N from the
//! cache's window of events; an N older than the window → one ERROR 410 Expired and the end
//! (HTTP 200 then the error event, as the real server), even while etcd still has N; an N the
//! cache has not reached → accepted, its events once the cache passes N.
//! `sendInitialEvents=true` waits for a fresh cache and adds the initial-events-end BOOKMARK.

use super::errors;
use super::watch::{bookmark, Filter, StreamStart, WatchEvent, WatchEventType};
use super::ApiServer;
use crate::api::Kind;
use std::sync::Arc;
use watchlab_apimachinery::client::WatchId;
use watchlab_apimachinery::request::{ListOptions, ResourceVersionMatch};
use watchlab_apimachinery::status::Status;
use watchlab_apimachinery::validation::FieldError;

impl ApiServer {
    // Long on purpose: the watch request's checks in the order the real server answers them,
    // then where the stream starts (the cache's objects, or its window of events); read top
    // down beside `Cacher.Watch` (`storage/cacher/cacher.go`, v1.32).
    /// Opens a watch stream for `user` on `kind` (in `namespace`, or all), served by the
    /// kind's watch cache.
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
        let rv = opts.resource_version.as_deref().filter(|v| !v.is_empty());
        let requested = match rv {
            Some(v) => errors::parse_rv(v)?,
            None => 0,
        };
        // An unready cache refuses the watch outright (429, `ResilientWatchCacheInitialization`).
        let cacher = self.ready_cacher(kind)?;
        let cache_rv = cacher.revision();
        let mut initial: Vec<Arc<WatchEvent>> = Vec::new();
        let mut expired = false;
        let mut revision = cache_rv;
        let mut resume_after = 0;
        let send_initial = opts
            .send_initial_events
            .unwrap_or(matches!(rv, None | Some("0")));
        if opts.send_initial_events == Some(true) {
            // A watch-list waits until the cache is as fresh as asked: etcd's current revision
            // for no resourceVersion (a quorum read), the given one otherwise; after 3 s the
            // stream carries one ERROR 504 (`waitUntilWatchCacheFreshAndForceAllEvents`).
            let required = match rv {
                None => {
                    self.check_consistent_read()?;
                    self.store.revision()
                }
                Some(_) => requested,
            };
            let fresh = self.fresh_revision(cacher);
            if fresh < required {
                let e = errors::too_large_resource_version(required, fresh);
                initial.push(Arc::new(WatchEvent::error(e, fresh)));
                expired = true;
            } else {
                revision = fresh;
            }
        }
        if expired {
            // The ERROR above ends it.
        } else if send_initial {
            // Every current match as ADDED (`getIntervalFromStoreLocked`), at its own revision.
            for obj in cacher.matching(&filter) {
                let at = obj.meta().resource_version.parse().unwrap_or(revision);
                initial.push(Arc::new(WatchEvent::new(
                    WatchEventType::Added,
                    obj.clone(),
                    at,
                )));
            }
            if opts.send_initial_events == Some(true) {
                initial.push(Arc::new(bookmark(kind, revision, true)));
            }
        } else {
            // From a resourceVersion: the window's events after it, or 410 when the window no
            // longer reaches back that far (`getAllEventsSinceLocked`), however long etcd
            // keeps it. A resourceVersion the cache has not reached is accepted: events come
            // once the cache passes it (`cacheWatcher.process` sends only newer ones).
            match cacher.window().since(requested) {
                Ok(events) => {
                    for change in events {
                        if let Some(t) = filter.decide(change) {
                            if let Some(obj) = change.object_for_event(t) {
                                initial.push(Arc::new(WatchEvent::new(t, obj, change.revision)));
                            }
                        }
                    }
                    if requested > cache_rv {
                        resume_after = requested;
                    }
                    revision = requested.max(cache_rv);
                }
                Err(oldest) => {
                    let msg = format!("too old resource version: {requested} ({oldest})");
                    initial.push(Arc::new(WatchEvent::error(
                        Status::resource_expired(&msg),
                        requested,
                    )));
                    expired = true;
                    revision = requested;
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
            instance: self.route,
            filter,
            now: self.now,
            deadline: self.now.plus_secs(timeout_secs),
            bookmarks: opts.allow_watch_bookmarks,
            initial,
            revision,
            expired,
            resume_after,
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
