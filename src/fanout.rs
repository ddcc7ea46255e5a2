//! The fan-out of one revision: which open watch streams received it and which did not. Read
//! from what the engine reports per stream (its recent events and when it opened), so the page
//! shows the broadcast as it happened, not a re-computation of it.

use watchlab_engine::apiserver::{LedgerEntry, WatchStream};

/// One stream's part in a revision's fan-out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The stream queued an event of this type for the revision.
    Received(&'static str),
    /// The stream was open and its recent log covers the revision, but nothing arrived: the
    /// filter (resource, namespace, selectors) kept it out.
    Filtered,
    /// The stream opened after the write.
    OpenedLater,
    /// The revision is older than what the stream's recent log remembers.
    Forgotten,
}

/// How `stream` took part in `entry`'s broadcast.
pub fn reach(stream: &WatchStream, entry: &LedgerEntry) -> Reach {
    if let Some(e) = stream
        .recent()
        .find(|e| e.resource_version == entry.revision && e.object().is_some())
    {
        return Reach::Received(e.event_type.as_str());
    }
    if stream.opened_at() > entry.time {
        return Reach::OpenedLater;
    }
    let oldest = stream.recent().map(|e| e.resource_version).min();
    let whole_history_kept = stream.recent().count() as u64 >= stream.delivered();
    match oldest {
        Some(o) if o <= entry.revision => Reach::Filtered,
        _ if whole_history_kept => Reach::Filtered,
        _ => Reach::Forgotten,
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use watchlab_apimachinery::client::ApiClient;
    use watchlab_engine::apiserver::ApiServer;

    #[test]
    fn a_write_reaches_matching_streams_only() {
        let mut server = ApiServer::new(7);
        let nginx = server
            .watch_path(
                "test",
                "/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx",
            )
            .map_err(|r| r.body)
            .unwrap_or_else(|e| panic!("{e}"));
        let all = server
            .watch_path("test", "/api/v1/pods?watch=true")
            .map_err(|r| r.body)
            .unwrap_or_else(|e| panic!("{e}"));
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"db","labels":{"app":"db"}},"spec":{"containers":[{"name":"c","image":"pg"}]}}"#;
        let r = server.as_user("kubectl").request(
            "POST",
            "/api/v1/namespaces/default/pods",
            None,
            Some(body),
        );
        assert!(r.is_success(), "{}", r.body);
        let entry = server
            .ledger()
            .iter()
            .last()
            .cloned()
            .unwrap_or_else(|| panic!());
        let reach_of = |id| server.stream(id).map(|s| reach(s, &entry));
        assert_eq!(reach_of(all), Some(Reach::Received("ADDED")));
        assert_eq!(reach_of(nginx), Some(Reach::Filtered));
    }
}
