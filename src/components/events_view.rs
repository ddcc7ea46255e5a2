//! The Kubernetes Events table: the `meta.k8s.io` Table the API server prints for Events (the
//! Event registry module's columns: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE), laid out by the
//! console's own kubectl (`watchlab_kubectl::table_printer`, NAMESPACE first for all namespaces) and ordered by kubectl's own `--sort-by` sorter, so the view and
//! `kubectl get events -A --sort-by=.lastTimestamp` in the console show the same rows. The
//! learner picks the namespace and the sort; the equivalent command line is shown above.
//! Only the rows in view are printed and drawn. The events come from the frame (listed once per
//! frame, and the same list handed on while no Event changed), never from the engine.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use super::window::{VirtualTable, Window};
use super::{fill, tr, use_ctx};
use crate::i18n::T;
use serde_json::Value;
use watchlab_apimachinery::client::virtual_now_unix_ms;
use watchlab_apimachinery::jsonpath::JsonPath;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::table::{IncludeObject, TableRequest};
use watchlab_kubectl::output::relaxed;
use watchlab_kubectl::sort;
use watchlab_kubectl::table_printer::{table_cells, PrintOptions};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// An event row's height in CSS pixels: two lines, so OBJECT and MESSAGE wrap once
/// (`table.events tr` in style.css).
pub const ROW_PX: u32 = 40;

/// The `--sort-by` expressions offered (the first is the texts' and the default); "" is
/// kubectl's own order without `--sort-by` (the list's, by name).
pub const SORT_BY: [&str; 8] = [
    ".lastTimestamp",
    ".firstTimestamp",
    ".metadata.creationTimestamp",
    ".count",
    ".type",
    ".reason",
    ".involvedObject.name",
    "",
];

/// Which events, in which order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventsQuery {
    /// None: every namespace (`-A`).
    pub namespace: Option<String>,
    /// A `--sort-by` expression, or "" for none.
    pub sort_by: String,
}

impl Default for EventsQuery {
    fn default() -> Self {
        EventsQuery {
            namespace: None,
            sort_by: SORT_BY[0].to_string(),
        }
    }
}

impl EventsQuery {
    /// The console line that prints the same table.
    pub fn command(&self) -> String {
        let mut line = String::from("kubectl get events");
        match &self.namespace {
            None => line.push_str(" -A"),
            Some(ns) => {
                line.push_str(" -n ");
                line.push_str(ns);
            }
        }
        if !self.sort_by.is_empty() {
            line.push_str(" --sort-by=");
            line.push_str(&self.sort_by);
        }
        line
    }
}

/// Each event's `--sort-by` key, kept between renders: only new or changed events are
/// serialized again (a resourceVersion names a version).
#[derive(Debug, Default)]
pub struct SortKeys {
    expr: String,
    by_event: HashMap<String, (u64, Option<Value>)>,
}

/// The key kubectl's sorter takes from one object: the first value the path finds, if not null.
fn sort_key(path: &JsonPath, object: &Value) -> Option<Value> {
    path.find(object, true)
        .ok()?
        .into_iter()
        .next()?
        .into_iter()
        .next()
        .filter(|v| !v.is_null())
}

/// The events the query selects, in its order: listed as kubectl lists them and ordered by
/// kubectl's own sorter (`sort::sort_items`), given each event's key and list position. An
/// error is kubectl's (`error: couldn't find any field with path ...`).
pub fn sorted_events(
    events: &[Arc<Object>],
    q: &EventsQuery,
    keys: &mut SortKeys,
) -> Result<Vec<Arc<Object>>, String> {
    // The namespace's events, in the list's order (as the API lists one namespace).
    let items: Vec<Arc<Object>> = events
        .iter()
        .filter(|o| q.namespace.as_deref().is_none_or(|ns| o.namespace() == ns))
        .cloned()
        .collect();
    if q.sort_by.is_empty() {
        return Ok(items);
    }
    let kubectl_error = |e: watchlab_kubectl::errors::CmdError| e.stderr.trim_end().to_string();
    // A malformed expression: kubectl's own parse error.
    sort::sort_items(&mut [], &q.sort_by).map_err(kubectl_error)?;
    let path = relaxed(&q.sort_by)
        .ok()
        .and_then(|t| JsonPath::parse(&t).ok())
        .ok_or_else(|| format!("error: invalid --sort-by {}", q.sort_by))?;
    if keys.expr != q.sort_by {
        keys.by_event.clear();
        keys.expr = q.sort_by.clone();
    }
    let mut seen = HashSet::with_capacity(items.len());
    let mut any_key = false;
    let mut keyed: Vec<Value> = Vec::with_capacity(items.len());
    for (i, o) in items.iter().enumerate() {
        let id = format!("{}/{}", o.namespace(), o.name());
        let rv = o.resource_version();
        let key = match keys.by_event.get(&id) {
            Some((at, key)) if *at == rv => key.clone(),
            _ => {
                let key = sort_key(&path, &o.to_json_value());
                keys.by_event.insert(id.clone(), (rv, key.clone()));
                key
            }
        };
        any_key |= key.is_some();
        let mut m = serde_json::Map::new();
        if let Some(k) = key {
            m.insert("key".into(), k);
        }
        m.insert("position".into(), Value::from(i));
        keyed.push(Value::Object(m));
        seen.insert(id);
    }
    keys.by_event.retain(|id, _| seen.contains(id));
    if !any_key {
        // No event has the field: kubectl's error, from the sorter on a real event.
        if let Some(first) = items.first() {
            sort::sort_items(&mut [first.to_json_value()], &q.sort_by).map_err(kubectl_error)?;
        }
        return Ok(items);
    }
    sort::sort_items(&mut keyed, ".key").map_err(kubectl_error)?;
    Ok(keyed
        .iter()
        .filter_map(|v| v.get("position")?.as_u64())
        .filter_map(|i| items.get(i as usize).cloned())
        .collect())
}

/// kubectl's table for these events at virtual time `now_ms`: headers and rows of cells.
pub fn print(
    events: &[Arc<Object>],
    all_namespaces: bool,
    now_ms: u64,
) -> (Vec<String>, Vec<Vec<String>>) {
    let items: Vec<Value> = events.iter().map(|o| o.to_json_value()).collect();
    let printing = TableRequest {
        resource: Kind::Event.resource(),
        include: IncludeObject::Metadata,
        now_unix_ms: virtual_now_unix_ms(now_ms),
    };
    let table = printing.table(&items, Value::Null);
    let options = PrintOptions {
        with_namespace: all_namespaces,
        ..PrintOptions::default()
    };
    table_cells(&table, &options)
}

/// A `<select>`'s change, written into the query by `set`.
fn on_select(
    query: &UseStateHandle<EventsQuery>,
    set: fn(&mut EventsQuery, String),
) -> Callback<Event> {
    let query = query.clone();
    Callback::from(move |e: Event| {
        if let Some(s) = e.target_dyn_into::<HtmlSelectElement>() {
            let mut next = (*query).clone();
            set(&mut next, s.value());
            query.set(next);
        }
    })
}

/// One printed event at `position` in the sorted list: its cells under the table's headers, a
/// Warning marked as such. Keyed by position, so an event sorted in above rewrites the rows in
/// view in place instead of moving them down (see [`super::window`]).
fn event_row(position: usize, cells: Vec<String>, headers: &[String], ev: &Arc<Object>) -> Html {
    let warning = matches!(ev.as_ref(), Object::Event(e) if e.type_ == "Warning");
    let reason = match ev.as_ref() {
        Object::Event(e) => e.reason.to_string(),
        _ => String::new(),
    };
    html! {
        <tr key={position} class={classes!("event", warning.then_some("warning"))} data-reason={reason}>
            { for cells.into_iter().zip(headers).map(|(c, h)| html! {
                <td class={format!("c-{}", h.to_lowercase().replace(' ', "-"))} title={c.clone()}><div class="clamp">{ c }</div></td>
            }) }
        </tr>
    }
}

#[component]
pub fn EventsView() -> Html {
    let ctx = use_ctx();
    let query = use_state(EventsQuery::default);
    // What the frame read from the engine: nothing here reads the engine. The frame hands on
    // the same list while no Event changed, so it is sorted again only when the events or the
    // query changed, not on every clock tick.
    let events = ctx.frame.events.clone();
    let names = events.namespaces.clone();
    let keys = use_mut_ref(SortKeys::default);
    let sorted = use_memo(
        ((*query).clone(), Rc::as_ptr(&events) as usize),
        move |(q, _)| sorted_events(&events.items, q, &mut keys.borrow_mut()),
    );
    let on_namespace = on_select(&query, |q, v| q.namespace = (!v.is_empty()).then_some(v));
    let on_sort = on_select(&query, |q, v| q.sort_by = v);
    let all = query.namespace.is_none();
    let now_ms = ctx.frame.now.as_millis();
    let controls = html! {
        <div class="row events-controls">
            <label class="inline">{ tr(&ctx, T::Namespace) }
                <select id="events-namespace" onchange={on_namespace}>
                    <option value="" selected={all}>{ tr(&ctx, T::AllNamespaces) }</option>
                    { for names.iter().map(|n| html! {
                        <option value={n.clone()} selected={query.namespace.as_deref() == Some(n.as_str())}>{ n }</option>
                    }) }
                </select></label>
            <label class="inline">{ tr(&ctx, T::SortBy) }
                <select id="events-sort" onchange={on_sort}>
                    { for SORT_BY.iter().map(|s| html! {
                        <option value={*s} selected={query.sort_by == *s}>
                            { if s.is_empty() { tr(&ctx, T::NoSort).to_string() } else { format!("--sort-by={s}") } }
                        </option>
                    }) }
                </select></label>
            <code id="events-command" class="command">{ query.command() }</code>
        </div>
    };
    let body = match &*sorted {
        Err(message) => html! { <pre class="error" id="events-error">{ message }</pre> },
        Ok(events) if events.is_empty() => {
            html! { <p class="muted" id="no-events">{ tr(&ctx, T::NoEvents) }</p> }
        }
        Ok(events) => {
            let total = events.len();
            let (headers, _) = print(&[], all, now_ms);
            let head = html! { <tr>{ for headers.iter().map(|h| html! { <th class={format!("c-{}", h.to_lowercase().replace(' ', "-"))}>{ h }</th> }) }</tr> };
            let columns = headers.len();
            let render = {
                let sorted = sorted.clone();
                Callback::from(move |w: Window| {
                    let Ok(events) = &*sorted else {
                        return html! {};
                    };
                    let shown = events.get(w.first..w.end).unwrap_or_default();
                    let (headers, rows) = print(shown, all, now_ms);
                    let rows: Vec<Html> = rows
                        .into_iter()
                        .zip(shown)
                        .enumerate()
                        .map(|(i, (cells, ev))| event_row(w.first + i, cells, &headers, ev))
                        .collect();
                    html! { <>{ for rows }</> }
                })
            };
            html! {
                <VirtualTable id="events-table" class="events" {total} row_px={ROW_PX} {head} {columns} {render} label={tr(&ctx, T::TabEvents)} />
            }
        }
    };
    let count = sorted.as_ref().as_ref().map(|v| v.len()).unwrap_or(0);
    html! {
        <div class="events-view">
            <h3>{ tr(&ctx, T::EventsTitle) }<span class="muted" id="events-count" data-count={count.to_string()}>{ fill(&ctx, T::EventsCount, &[&count.to_string()]) }</span></h3>
            { controls }
            { body }
        </div>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::state::EventList;
    use watchlab_engine::cluster::{Action, Cluster};
    use watchlab_kubectl::tabwriter::TabWriter;
    use watchlab_kubectl::Kubectl;

    /// A cluster whose node-c failed: Warning and Normal events from several writers.
    fn storied() -> Cluster {
        let mut c = Cluster::with_seed(7);
        c.apply(Action::KillNode("node-c".into()))
            .unwrap_or_else(|e| panic!("{e:?}"));
        let until = c.now().plus_millis(150_000);
        c.advance_to(until);
        c
    }

    fn console(c: &mut Cluster, line: &str) -> String {
        let mut k = Kubectl::new();
        let mut s = c.session("kubectl");
        let out = k.exec(line, &mut s);
        assert_eq!(out.stderr, "", "{line}");
        out.stdout
    }

    fn view_text(c: &Cluster, q: &EventsQuery) -> String {
        let events = sorted_events(&EventList::of(c.api()).items, q, &mut SortKeys::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let (headers, rows) = print(&events, q.namespace.is_none(), c.now().as_millis());
        let mut all = vec![headers];
        all.extend(rows);
        TabWriter::new().render(&all)
    }

    #[test]
    fn the_view_prints_what_kubectl_get_events_prints_for_every_sort_and_scope() {
        let mut c = storied();
        for namespace in [
            None,
            Some("production".to_string()),
            Some("default".to_string()),
        ] {
            for sort_by in SORT_BY {
                let q = EventsQuery {
                    namespace: namespace.clone(),
                    sort_by: sort_by.to_string(),
                };
                let want = console(&mut c, &q.command());
                if want.is_empty() {
                    // kubectl says "No resources found" on stderr; the view shows NoEvents.
                    assert!(sorted_events(
                        &EventList::of(c.api()).items,
                        &q,
                        &mut SortKeys::default()
                    )
                    .is_ok_and(|e| e.is_empty()));
                    continue;
                }
                assert_eq!(view_text(&c, &q), want, "{}", q.command());
            }
        }
    }

    #[test]
    fn columns_are_kubectls_and_last_timestamp_order_is_oldest_first() {
        let c = storied();
        let q = EventsQuery::default();
        assert_eq!(
            q.command(),
            "kubectl get events -A --sort-by=.lastTimestamp"
        );
        let events = sorted_events(&EventList::of(c.api()).items, &q, &mut SortKeys::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(events.len() > 5, "{}", events.len());
        let (headers, rows) = print(&events, true, c.now().as_millis());
        assert_eq!(
            headers,
            [
                "NAMESPACE",
                "LAST SEEN",
                "TYPE",
                "REASON",
                "OBJECT",
                "MESSAGE"
            ]
        );
        let (headers, _) = print(&events, false, c.now().as_millis());
        assert_eq!(
            headers,
            ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        );
        let last: Vec<_> = events
            .iter()
            .filter_map(|o| match o.as_ref() {
                // The JSON carries whole seconds (RFC 3339): ties keep the list's order.
                Object::Event(e) => e.last_timestamp.map(|t| t.as_millis() / 1000),
                _ => None,
            })
            .collect();
        assert_eq!(last.len(), events.len());
        assert!(
            last.windows(2).all(|w| w[0] <= w[1]),
            "not sorted by lastTimestamp"
        );
        assert!(
            rows.iter()
                .any(|r| r[3] == "NodeNotReady" && r[4] == "node/node-c"),
            "{rows:?}"
        );
        assert!(
            rows.iter()
                .any(|r| r[2] == "Normal" && r[4].starts_with("pod/")),
            "{rows:?}"
        );
        let q = EventsQuery {
            namespace: Some("production".into()),
            sort_by: String::new(),
        };
        assert_eq!(q.command(), "kubectl get events -n production");
    }

    #[test]
    fn keys_kept_between_renders_give_the_order_a_fresh_sort_gives() {
        let mut c = Cluster::with_seed(7);
        let mut kept = SortKeys::default();
        for (step, sort_by) in SORT_BY.iter().chain(SORT_BY.iter()).enumerate() {
            let q = EventsQuery {
                namespace: None,
                sort_by: sort_by.to_string(),
            };
            let names =
                |v: Vec<Arc<Object>>| v.iter().map(|o| o.name().to_string()).collect::<Vec<_>>();
            let incremental =
                sorted_events(&EventList::of(c.api()).items, &q, &mut kept).map(names);
            let fresh = sorted_events(&EventList::of(c.api()).items, &q, &mut SortKeys::default())
                .map(names);
            assert_eq!(incremental, fresh, "{sort_by}");
            if step == 3 {
                c.apply(Action::KillNode("node-b".into()))
                    .unwrap_or_else(|e| panic!("{e:?}"));
            }
            let until = c.now().plus_millis(20_000);
            c.advance_to(until);
        }
    }

    #[test]
    fn a_sort_field_no_event_has_is_kubectls_error() {
        let c = storied();
        let q = EventsQuery {
            namespace: None,
            sort_by: ".spec.nothing".into(),
        };
        assert_eq!(
            sorted_events(&EventList::of(c.api()).items, &q, &mut SortKeys::default()).err().as_deref(),
            Some("error: couldn't find any field with path \"{.spec.nothing}\" in the list of objects")
        );
    }
}
