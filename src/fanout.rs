//! The fan-out of one revision: what each open watch stream made of it. Read from what the
//! engine records per stream — the events it queued, the revisions the index offered it and its
//! filter refused, when it opened — so the page shows the broadcast as it happened, not a
//! re-computation of it. The Broadcast view's counts and the fan-out diagram both come from here.

use std::collections::BTreeMap;

use watchlab_apimachinery::client::WatchId;
use watchlab_engine::apiserver::watch::StreamState;
use watchlab_engine::apiserver::{LedgerEntry, WatchStream};

/// Beyond this many open streams the diagram draws one lane per component and resource, with
/// counts, instead of one per stream.
pub const MAX_STREAM_LANES: usize = 40;

/// A stream's filter as a query string would state it (`pods -n production labelSelector=app=web`).
pub fn describe_filter(s: &WatchStream) -> String {
    let f = s.filter();
    let mut out = f.kind.resource().plural.to_string();
    if let Some(ns) = &f.namespace {
        out.push_str(&format!(" -n {ns}"));
    }
    let labels = f.labels.to_string();
    if !labels.is_empty() {
        out.push_str(&format!(" labelSelector={labels}"));
    }
    let fields = f.fields.to_string();
    if !fields.is_empty() {
        out.push_str(&format!(" fieldSelector={fields}"));
    }
    out
}

/// One stream's part in a revision's fan-out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The stream queued an event of this type for the revision.
    Received(&'static str),
    /// The index offered the change and the stream's filter (label or field selector, or the
    /// DELETED/ADDED rule) refused it: counted in the stream's `filtered_out`.
    Filtered,
    /// Same resource, but the index never offered it: the stream watches another namespace,
    /// another node's pods (`spec.nodeName`) or another name.
    Skipped,
    /// The stream watches another resource.
    OtherResource,
    /// The stream opened after the write.
    OpenedLater,
    /// The revision is older than what the stream's recent logs remember (or it had ended).
    Forgotten,
}

/// The plural resource a ledger line wrote (`pods` for `pods/status`).
fn written_resource(entry: &LedgerEntry) -> &str {
    entry.resource.split('/').next().unwrap_or_default()
}

/// How `stream` took part in `entry`'s broadcast.
pub fn reach(stream: &WatchStream, entry: &LedgerEntry) -> Reach {
    if let Some(e) = stream
        .recent()
        .find(|e| e.resource_version == entry.revision && e.object().is_some())
    {
        return Reach::Received(e.event_type.as_str());
    }
    if stream.recent_filtered().any(|r| r == entry.revision) {
        return Reach::Filtered;
    }
    if stream.opened_at() > entry.time {
        return Reach::OpenedLater;
    }
    if stream.filter().kind.resource().plural != written_resource(entry) {
        return Reach::OtherResource;
    }
    // Neither received nor refused: skipped by the index, if the logs reach back that far.
    let oldest = stream
        .recent()
        .map(|e| e.resource_version)
        .chain(stream.recent_filtered())
        .min();
    let whole_history_kept = stream.recent().count() as u64 >= stream.delivered()
        && stream.recent_filtered().count() as u64 >= stream.filtered_out();
    let open_then = stream.last_revision() >= entry.revision
        || stream.state() == watchlab_engine::apiserver::watch::StreamState::Open;
    match oldest {
        _ if !open_then => Reach::Forgotten,
        Some(o) if o <= entry.revision => Reach::Skipped,
        _ if whole_history_kept => Reach::Skipped,
        _ => Reach::Forgotten,
    }
}

/// How many streams took each part in one revision's broadcast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FanOutCounts {
    pub received: usize,
    pub filtered: usize,
    pub skipped: usize,
    pub other: usize,
    pub later: usize,
    pub forgotten: usize,
}

impl FanOutCounts {
    pub fn add(&mut self, r: Reach) {
        match r {
            Reach::Received(_) => self.received += 1,
            Reach::Filtered => self.filtered += 1,
            Reach::Skipped => self.skipped += 1,
            Reach::OtherResource => self.other += 1,
            Reach::OpenedLater => self.later += 1,
            Reach::Forgotten => self.forgotten += 1,
        }
    }

    pub fn total(&self) -> usize {
        self.received + self.filtered + self.skipped + self.other + self.later + self.forgotten
    }
}

/// Counts every stream's part in `entry`'s broadcast.
pub fn fan_out_counts<'a>(
    streams: impl Iterator<Item = &'a WatchStream>,
    entry: &LedgerEntry,
) -> FanOutCounts {
    let mut c = FanOutCounts::default();
    for s in streams {
        c.add(reach(s, entry));
    }
    c
}

/// One lane of the fan-out diagram: one stream, or (past [`MAX_STREAM_LANES`]) every stream of
/// one component on one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// The subscriber: a user agent (`kubelet/node-a`), or a component (`kubelet`) for a group.
    pub subscriber: String,
    /// What it watches: the stream's filter, or the resource for a group.
    pub watches: String,
    /// The stream, for a one-stream lane.
    pub stream: Option<WatchId>,
    /// Streams on the lane.
    pub streams: usize,
    pub counts: FanOutCounts,
    /// The event a one-stream lane received (`MODIFIED`).
    pub event_type: Option<&'static str>,
}

impl Lane {
    /// What most of the lane's streams made of the revision, for its colour (received first,
    /// then refused, then skipped).
    pub fn main_reach(&self) -> Reach {
        let c = &self.counts;
        if c.received > 0 {
            Reach::Received("")
        } else if c.filtered > 0 {
            Reach::Filtered
        } else if c.skipped > 0 {
            Reach::Skipped
        } else if c.other > 0 {
            Reach::OtherResource
        } else if c.later > 0 {
            Reach::OpenedLater
        } else {
            Reach::Forgotten
        }
    }
}

/// The component part of a user agent: `kubelet/node-a` → `kubelet`.
pub fn component_of(user: &str) -> &str {
    user.split('/').next().unwrap_or(user)
}

/// The diagram's lanes for `entry`: one per stream (oldest first), or grouped by component and
/// resource when there are more than `max_lanes` streams. Every stream is counted in exactly one
/// lane, so the lanes' counts add up to [`fan_out_counts`].
pub fn lanes<'a>(
    streams: impl Iterator<Item = &'a WatchStream>,
    entry: &LedgerEntry,
    max_lanes: usize,
) -> Vec<Lane> {
    let streams: Vec<&WatchStream> = streams.collect();
    if streams.len() <= max_lanes {
        return streams
            .iter()
            .map(|s| {
                let mut counts = FanOutCounts::default();
                let r = reach(s, entry);
                counts.add(r);
                Lane {
                    subscriber: s.user().to_string(),
                    watches: describe_filter(s),
                    stream: Some(s.id()),
                    streams: 1,
                    counts,
                    event_type: match r {
                        Reach::Received(t) => Some(t),
                        _ => None,
                    },
                }
            })
            .collect();
    }
    let mut groups: std::collections::BTreeMap<(String, &'static str), Lane> =
        std::collections::BTreeMap::new();
    for s in streams {
        let plural = s.filter().kind.resource().plural;
        let component = component_of(s.user()).to_string();
        let lane = groups
            .entry((component.clone(), plural))
            .or_insert_with(|| Lane {
                subscriber: component,
                watches: plural.to_string(),
                stream: None,
                streams: 0,
                counts: FanOutCounts::default(),
                event_type: None,
            });
        lane.streams += 1;
        lane.counts.add(reach(s, entry));
    }
    groups.into_values().collect()
}

/// Above this many streams the table groups them by component and resource.
pub const GROUP_STREAMS_ABOVE: usize = 100;

/// Which group of streams: every stream of one component on one resource, served by one API
/// server instance (0 with one instance).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupKey {
    pub instance: usize,
    pub component: String,
    pub resource: &'static str,
}

/// One row of the grouped table: every stream of one component on one resource, on one API
/// server instance.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamGroup {
    /// The API server instance serving its streams ([`WatchStream::instance`]).
    pub instance: usize,
    /// `kubelet` for `kubelet/node-a` ([`component_of`]).
    pub component: String,
    /// The resource watched (`pods`).
    pub resource: &'static str,
    pub streams: usize,
    pub open: usize,
    pub delivered: u64,
    pub filtered: u64,
    pub pending: usize,
    /// What the group's streams made of the fan-out revision.
    pub reach: FanOutCounts,
}

impl StreamGroup {
    pub fn holds(&self, s: &WatchStream) -> bool {
        s.instance() == self.instance
            && component_of(s.user()) == self.component
            && s.filter().kind.resource().plural == self.resource
    }

    pub fn key(&self) -> GroupKey {
        GroupKey {
            instance: self.instance,
            component: self.component.clone(),
            resource: self.resource,
        }
    }

    pub fn is(&self, key: &GroupKey) -> bool {
        self.instance == key.instance
            && self.component == key.component
            && self.resource == key.resource
    }
}

/// The streams grouped by API server instance, component and resource (in that order), each
/// stream in exactly one group, with their counters summed.
pub fn stream_groups<'a>(
    streams: impl Iterator<Item = &'a WatchStream>,
    entry: Option<&LedgerEntry>,
) -> Vec<StreamGroup> {
    let mut groups: BTreeMap<(usize, &str, &'static str), StreamGroup> = BTreeMap::new();
    for s in streams {
        let resource = s.filter().kind.resource().plural;
        let component = component_of(s.user());
        let g = groups
            .entry((s.instance(), component, resource))
            .or_insert_with(|| StreamGroup {
                instance: s.instance(),
                component: component.to_string(),
                resource,
                ..StreamGroup::default()
            });
        g.streams += 1;
        g.open += usize::from(s.state() == StreamState::Open);
        g.delivered += s.delivered();
        g.filtered += s.filtered_out();
        g.pending += s.pending();
        if let Some(en) = entry {
            g.reach.add(reach(s, en));
        }
    }
    groups.into_values().collect()
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
        let counts = fan_out_counts(server.streams(), &entry);
        assert_eq!((counts.received, counts.filtered), (1, 1));
    }

    #[test]
    fn the_index_skips_other_namespaces_and_other_resources_are_not_offered() {
        let mut server = ApiServer::new(7);
        let mut watch = |path: &str| {
            server
                .watch_path("test", path)
                .map_err(|r| r.body)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let elsewhere = watch("/api/v1/namespaces/kube-system/pods?watch=true");
        let nodes = watch("/api/v1/nodes?watch=true");
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"db"},"spec":{"containers":[{"name":"c","image":"pg"}]}}"#;
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
        assert_eq!(reach_of(elsewhere), Some(Reach::Skipped));
        assert_eq!(reach_of(nodes), Some(Reach::OtherResource));
        // The engine agrees: neither stream counted a refusal.
        let refused: u64 = server.streams().map(|s| s.filtered_out()).sum();
        assert_eq!(refused, 0);
    }

    #[test]
    fn many_streams_group_by_component_and_resource_and_still_add_up() {
        let mut server = ApiServer::new(7);
        for node in ["node-a", "node-b", "node-c"] {
            let path = format!("/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3D{node}");
            server
                .watch_path(&format!("kubelet/{node}"), &path)
                .map_err(|r| r.body)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        server
            .watch_path("kube-scheduler", "/api/v1/pods?watch=true")
            .map_err(|r| r.body)
            .unwrap_or_else(|e| panic!("{e}"));
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"db"},"spec":{"containers":[{"name":"c","image":"pg"}]}}"#;
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
        let one_each = lanes(server.streams(), &entry, 10);
        assert_eq!(one_each.len(), 4);
        let grouped = lanes(server.streams(), &entry, 2);
        let kubelets = grouped.iter().find(|l| l.subscriber == "kubelet");
        assert_eq!(
            kubelets.map(|l| (l.streams, l.counts.skipped)),
            Some((3, 3))
        );
        let sum = grouped.iter().fold(0, |n, l| n + l.counts.total());
        assert_eq!(sum, 4);
        let all = fan_out_counts(server.streams(), &entry);
        let received: usize = grouped.iter().map(|l| l.counts.received).sum();
        assert_eq!(received, all.received);
        assert_eq!(all.received, 1, "the scheduler, watching every pod");
    }

    #[test]
    fn streams_group_by_component_and_resource_and_the_counts_add_up() {
        let mut server = ApiServer::new(7);
        for i in 0..150 {
            let path = format!("/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dnode-{i}");
            let _ = server.watch_path(&format!("kubelet/node-{i}"), &path);
        }
        let _ = server.watch_path("kube-scheduler", "/api/v1/pods?watch=true");
        let _ = server.watch_path("kube-scheduler", "/api/v1/nodes?watch=true");
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"db"},"spec":{"nodeName":"node-3","containers":[{"name":"c","image":"pg"}]}}"#;
        let r = server.as_user("kubectl").request(
            "POST",
            "/api/v1/namespaces/default/pods",
            None,
            Some(body),
        );
        assert!(r.is_success(), "{}", r.body);
        let entry = server.ledger().iter().last().cloned();
        let groups = stream_groups(server.streams(), entry.as_ref());
        let summary: Vec<(&str, &str, usize)> = groups
            .iter()
            .map(|g| (g.component.as_str(), g.resource, g.streams))
            .collect();
        assert_eq!(
            summary,
            [
                ("kube-scheduler", "nodes", 1),
                ("kube-scheduler", "pods", 1),
                ("kubelet", "pods", 150)
            ]
        );
        let kubelets = &groups[2];
        assert_eq!(kubelets.open, 150);
        // node-3's kubelet and the scheduler received the pod; the other kubelets' filters
        // were never offered it or refused it.
        assert_eq!(kubelets.reach.received, 1);
        assert_eq!(kubelets.reach.total(), 150);
        assert_eq!(groups[1].reach.received, 1);
        let delivered: u64 = server.streams().map(|s| s.delivered()).sum();
        assert_eq!(groups.iter().map(|g| g.delivered).sum::<u64>(), delivered);
        assert!(server
            .streams()
            .all(|s| groups.iter().filter(|g| g.holds(s)).count() == 1));
    }
}
