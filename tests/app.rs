//! The app mounted in a real (headless) Chromium page by wasm-bindgen-test: the views render
//! what the engine reports, the console runs kubectl, tabs and language switch.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use watchlab::components::node_column::CARD_PX;
use watchlab::components::window::max_rows;
use web_sys::{
    Element, HtmlElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent, KeyboardEventInit,
};

mod common;

use common::{click, document, find, settle, text, type_line};

wasm_bindgen_test_configure!(run_in_browser);

fn storage() -> web_sys::Storage {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .expect("storage")
}

/// The page's stylesheet, so layout (scroll windows, fixed row heights) is the real one.
fn style_the_page() {
    if document().get_element_by_id("watchlab-style").is_some() {
        return;
    }
    let style = document().create_element("style").expect("style");
    style.set_id("watchlab-style");
    style.set_text_content(Some(include_str!("../static/style.css")));
    document()
        .head()
        .expect("head")
        .append_child(&style)
        .expect("append");
}

/// Mounts a fresh app (the cluster a previous test saved is forgotten first) in a box the size
/// of a 1280×720 page.
async fn mount() -> Element {
    storage().remove_item("watchlab.cluster").expect("remove");
    style_the_page();
    let root = document().create_element("div").expect("div");
    root.set_attribute(
        "style",
        "display:flex;flex-direction:column;width:1280px;height:720px;overflow:hidden",
    )
    .expect("style");
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    let app = yew::Renderer::<watchlab::App>::with_root(root.clone()).render();
    // The previous test's app stops (its clock would otherwise keep saving over this one's).
    if let Some((old, old_root)) = MOUNTED.with(|m| m.borrow_mut().replace((app, root.clone()))) {
        old.destroy();
        old_root.remove();
    }
    settle().await;
    root
}

thread_local! {
    static MOUNTED: std::cell::RefCell<Option<(yew::AppHandle<watchlab::App>, Element)>> =
        const { std::cell::RefCell::new(None) };
}

#[wasm_bindgen_test]
async fn renders_the_three_nodes_and_etcd_members_from_the_engine() {
    let root = mount().await;
    assert_eq!(root.query_selector_all(".node").expect("q").length(), 3);
    let nodes = text(&root, ".nodes");
    for name in ["node-a", "node-b", "node-c"] {
        assert!(nodes.contains(name), "{name} missing from {nodes}");
    }
    assert_eq!(root.query_selector_all(".member").expect("q").length(), 3);
    assert_eq!(
        root.query_selector_all(".member.leader")
            .expect("q")
            .length(),
        1
    );
    assert!(text(&root, "#revision").parse::<u64>().is_ok());
}

#[wasm_bindgen_test]
async fn the_console_runs_kubectl_and_the_revision_moves() {
    let root = mount().await;
    let before: u64 = text(&root, "#revision").parse().expect("rv");
    type_line(
        &root,
        "kubectl run debug-tools --image=debug-tools:1.0 -n production",
    )
    .await;
    let out = text(&root, "#console-output");
    assert!(out.contains("pod/debug-tools created"), "{out}");
    let after: u64 = text(&root, "#revision").parse().expect("rv");
    assert!(after > before, "{before} -> {after}");
    assert!(root
        .query_selector("[data-pod='debug-tools']")
        .expect("q")
        .is_some());
    type_line(&root, "kubectl get pods -n production -w").await;
    assert!(root.query_selector("#following").expect("q").is_some());
    click(&root, "#console-stop").await;
    assert!(root.query_selector("#following").expect("q").is_none());
    assert!(text(&root, "#console-output").ends_with("^C"));
}

#[wasm_bindgen_test]
async fn tabs_show_the_ledger_and_a_clicked_line_shows_the_object() {
    let root = mount().await;
    click(&root, "#tab-ledger").await;
    assert!(root.query_selector("#view-ledger").expect("q").is_some());
    click(&root, ".ledger tr.entry button").await;
    let title = text(&root, "#inspection h3");
    assert!(title.contains("orders-api"), "{title}");
    assert!(text(&root, "#inspection pre").contains("\"kind\": \"Deployment\""));
}

#[wasm_bindgen_test]
async fn the_language_switches_and_is_remembered() {
    let root = mount().await;
    let storage = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .expect("storage");
    let before = text(&root, "#tab-cluster");
    click(&root, "#lang").await;
    let after = text(&root, "#tab-cluster");
    assert_ne!(before, after);
    assert!(["Cluster", "集群"].contains(&after.as_str()), "{after}");
    // The page remembers the language in an effect that runs after the redraw; on a loaded
    // machine that can come after the text changed, so wait for it (a second at most).
    let expected = if after == "Cluster" { "en" } else { "zh-CN" };
    let mut stored = String::new();
    for _ in 0..20 {
        stored = storage
            .get_item("watchlab.lang")
            .ok()
            .flatten()
            .unwrap_or_default();
        if stored == expected {
            break;
        }
        gloo_timers::future::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(stored, expected);
}

#[wasm_bindgen_test]
async fn pause_and_step_drive_the_virtual_clock() {
    let root = mount().await;
    click(&root, "#pause").await;
    let t0 = text(&root, "#clock");
    gloo_timers::future::sleep(Duration::from_millis(250)).await;
    assert_eq!(text(&root, "#clock"), t0, "paused time must not move");
    let ms = |root: &Element| -> u64 {
        find(root, "#clock")
            .get_attribute("data-ms")
            .and_then(|v| v.parse().ok())
            .unwrap_or_default()
    };
    let before = ms(&root);
    click(&root, "#step").await;
    click(&root, "#tab-actions").await;
    // Either the clock jumped to the next timer, or the result line says nothing is scheduled.
    assert!(ms(&root) > before || !text(&root, "#result").is_empty());
}

#[wasm_bindgen_test]
async fn typed_form_values_survive_re_renders() {
    let root = mount().await;
    click(&root, "#tab-actions").await;
    let name: HtmlInputElement = find(&root, "#f-name").dyn_into().expect("input");
    assert_eq!(name.value(), "orders-api", "prefilled once");
    name.set_value("payments");
    // Running clock: the page re-renders on every tick.
    click(&root, "#speed-60").await;
    gloo_timers::future::sleep(Duration::from_millis(300)).await;
    assert_eq!(name.value(), "payments");
}

#[wasm_bindgen_test]
async fn every_view_renders() {
    let root = mount().await;
    type_line(&root, "kubectl get pods -n production -w").await;
    for (tab, marker) in [
        ("#tab-broadcast", "table.streams"),
        ("#tab-informers", ".informers-view"),
        ("#tab-events", ".events-view"),
        ("#tab-timeline", "svg#timeline circle"),
        ("#tab-scenarios", "#scenario-watch"),
        ("#tab-editor", "#editor-text"),
    ] {
        click(&root, tab).await;
        assert!(
            root.query_selector(marker).expect("q").is_some(),
            "{marker} after {tab}"
        );
    }
    click(&root, "#tab-broadcast").await;
    click(&root, "tr[data-user='kubectl'] .raw").await;
    assert!(
        text(&root, "#raw-stream").contains("raw")
            || root.query_selector("#raw-stream pre").expect("q").is_some()
    );
}

#[wasm_bindgen_test]
async fn every_action_saves_the_cluster_in_local_storage() {
    let root = mount().await;
    click(&root, "#pause").await;
    type_line(&root, "kubectl create namespace saved").await;
    let saved = storage()
        .get_item("watchlab.cluster")
        .ok()
        .flatten()
        .unwrap_or_default();
    let json: serde_json::Value = serde_json::from_str(&saved).expect("json");
    assert_eq!(json["format"], "watchlab-journal");
    let revision: u64 = text(&root, "#revision").parse().expect("rv");
    assert_eq!(json["revision"].as_u64(), Some(revision));
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).expect("query").length()
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).expect("query");
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .collect()
}

fn data_count(el: &Element) -> usize {
    el.get_attribute("data-count")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no data-count on {}", el.outer_html()))
}

fn attr_usize(el: &Element, name: &str) -> usize {
    el.get_attribute(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name}"))
}

/// Dispatches a key on an element (it bubbles, as a real key press does).
async fn key(el: &Element, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let ev = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).expect("event");
    el.dispatch_event(&ev).expect("dispatch");
    settle().await;
}

async fn select(root: &Element, selector: &str, value: &str) {
    let s: HtmlSelectElement = find(root, selector).dyn_into().expect("select");
    s.set_value(value);
    let ev = web_sys::Event::new_with_event_init_dict("change", &{
        let i = web_sys::EventInit::new();
        i.set_bubbles(true);
        i
    })
    .expect("event");
    s.dispatch_event(&ev).expect("dispatch");
    settle().await;
}

async fn scroll_to_end(el: &Element) {
    el.set_scroll_top(el.scroll_height());
    el.dispatch_event(&web_sys::Event::new("scroll").expect("event"))
        .expect("dispatch");
    settle().await;
}

/// Polls until `ok` or fails after `ms` real milliseconds.
async fn wait_until(ms: u32, what: &str, mut ok: impl FnMut() -> bool) {
    let mut waited = 0;
    while !ok() {
        assert!(waited < ms, "timed out waiting for {what}");
        gloo_timers::future::sleep(Duration::from_millis(50)).await;
        waited += 50;
    }
}

/// Pods made through the API like any user (kubectl scale), more than any window holds.
const MANY_PODS: usize = 400;

#[wasm_bindgen_test]
async fn many_pods_draw_only_the_cards_in_view_and_count_true_totals() {
    let root = mount().await;
    click(&root, "#pause").await;
    type_line(
        &root,
        &format!("kubectl scale deployment orders-api -n production --replicas={MANY_PODS}"),
    )
    .await;
    assert!(text(&root, "#console-output").contains("deployment.apps/orders-api scaled"));
    click(&root, "#speed-10").await;
    click(&root, "#pause").await;
    // Created, and the three nodes full (110 pods each): the rest stay Pending.
    wait_until(15_000, "the ReplicaSet to create the pods", || {
        data_count(&find(&root, "#pod-count")) == MANY_PODS
            && all(&root, ".node .count")
                .iter()
                .map(data_count)
                .sum::<usize>()
                == 330
    })
    .await;
    click(&root, "#pause").await;

    // The totals are the true ones: per column, per STATUS, overall.
    let columns: usize = all(&root, ".column .count").iter().map(data_count).sum();
    assert_eq!(columns, MANY_PODS);
    let by_status: usize = all(&root, ".summary .chip").iter().map(data_count).sum();
    assert_eq!(by_status, MANY_PODS);
    // 3 nodes × 110 pods fit; the rest wait in the Unscheduled column.
    assert!(text(&root, ".nodes").contains("Pending"));

    // Each column draws a window of cards, bounded by its height, not by its pods.
    let lists = all(&root, ".vlist.pods");
    assert_eq!(lists.len(), 4, "three nodes and the unscheduled column");
    for list in &lists {
        let drawn = list.query_selector_all(".pod").expect("q").length() as usize;
        let total = attr_usize(list, "data-total");
        let bound = max_rows(CARD_PX, list.client_height() as u32);
        assert!(drawn <= bound, "{drawn} cards drawn, window {bound}");
        assert!(
            drawn == total || drawn >= 5,
            "a window shows what fits: {drawn} of {total}"
        );
    }
    let drawn = count(&root, ".pod") as usize;
    assert!(drawn < MANY_PODS / 2, "{drawn} cards for {MANY_PODS} pods");

    // Scrolled to its end, a full column draws its last cards, still a window.
    let biggest = lists
        .iter()
        .max_by_key(|l| attr_usize(l, "data-total"))
        .expect("a column");
    scroll_to_end(biggest).await;
    let total = attr_usize(biggest, "data-total");
    assert_eq!(attr_usize(biggest, "data-end"), total);
    assert!(attr_usize(biggest, "data-first") > 0);
    let drawn = biggest.query_selector_all(".pod").expect("q").length() as usize;
    assert!(drawn <= max_rows(CARD_PX, biggest.client_height() as u32));

    // The page still responds: a click changes the view, and the other views are windows too.
    click(&root, "#tab-ledger").await;
    assert!(root.query_selector("#view-ledger").expect("q").is_some());
    let ledger_lines = data_count(&find(&root, "#ledger-count"));
    assert!(ledger_lines > MANY_PODS * 2, "{ledger_lines}");
    let rows = count(&root, ".ledger tr.entry") as usize;
    assert!(
        rows > 0 && rows < 100,
        "{rows} ledger rows drawn of {ledger_lines}"
    );
    click(&root, "#tab-events").await;
    let events = data_count(&find(&root, "#events-count"));
    assert!(
        events >= MANY_PODS,
        "one SuccessfulCreate per pod at least: {events}"
    );
    let rows = count(&root, "#events-table tr.event") as usize;
    assert!(
        rows > 0 && rows < 100,
        "{rows} event rows drawn of {events}"
    );
    click(&root, "#tab-cluster").await;
    assert_eq!(data_count(&find(&root, "#pod-count")), MANY_PODS);
}

#[wasm_bindgen_test]
async fn the_timeline_marks_are_one_tab_stop_moved_by_arrow_keys() {
    let root = mount().await;
    click(&root, "#pause").await;
    type_line(
        &root,
        "kubectl run debug-tools --image=debug-tools:1.0 -n production",
    )
    .await;
    click(&root, "#tab-timeline").await;
    let current = || {
        let tabbable = all(&root, "#timeline circle[tabindex='0']");
        assert_eq!(tabbable.len(), 1, "one tab stop");
        tabbable.into_iter().next().expect("mark")
    };
    let rev = |el: &Element| attr_usize(el, "data-rev");
    let newest = current();
    assert_eq!(newest.get_attribute("role").as_deref(), Some("button"));
    let label = newest.get_attribute("aria-label").unwrap_or_default();
    assert!(label.contains("debug-tools"), "{label}");
    let marks = count(&root, "#timeline circle");
    assert!(marks > 3);
    assert!(all(&root, "#timeline circle[tabindex='-1']").len() as u32 == marks - 1);

    key(&newest, "ArrowLeft").await;
    let earlier = current();
    assert!(rev(&earlier) < rev(&newest));
    let active = document().active_element().expect("focus");
    assert_eq!(
        active.get_attribute("data-rev"),
        earlier.get_attribute("data-rev")
    );
    assert!(text(&root, "#timeline-detail").contains(&rev(&earlier).to_string()));

    key(&earlier, "Home").await;
    let first = current();
    assert!(rev(&first) < rev(&earlier));
    key(&first, "End").await;
    assert_eq!(rev(&current()), rev(&newest));
    key(&current(), "ArrowUp").await;
    key(&current(), "ArrowDown").await;

    key(&current(), "Enter").await;
    let title = text(&root, "#inspection h3");
    assert!(title.contains(&rev(&newest).to_string()), "{title}");
    assert!(text(&root, "#inspection pre").contains("debug-tools"));
    key(&current(), "Escape").await;
    assert!(root.query_selector("#inspection").expect("q").is_none());
}

#[wasm_bindgen_test]
async fn the_events_view_prints_kubectls_columns_and_sorts_by_the_chosen_field() {
    let root = mount().await;
    // Let the controllers write their first events (the seed Deployment's rollout).
    click(&root, "#speed-10").await;
    wait_until(5_000, "the first events", || {
        find(&root, "#clock")
            .get_attribute("data-ms")
            .and_then(|v| v.parse::<u64>().ok())
            .is_some_and(|ms| ms > 5_000)
    })
    .await;
    click(&root, "#pause").await;
    click(&root, "#tab-events").await;
    let headers = |root: &Element| -> Vec<String> {
        all(root, "#events-table thead th")
            .iter()
            .map(|h| h.text_content().unwrap_or_default())
            .collect()
    };
    assert_eq!(
        headers(&root),
        [
            "NAMESPACE",
            "LAST SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "MESSAGE"
        ]
    );
    assert_eq!(
        text(&root, "#events-command"),
        "kubectl get events -A --sort-by=.lastTimestamp"
    );
    select(&root, "#events-namespace", "production").await;
    assert_eq!(
        headers(&root),
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    );
    select(&root, "#events-sort", ".reason").await;
    assert_eq!(
        text(&root, "#events-command"),
        "kubectl get events -n production --sort-by=.reason"
    );
    let reasons: Vec<String> = all(&root, "#events-table tr.event td.c-reason")
        .iter()
        .map(|c| c.text_content().unwrap_or_default())
        .collect();
    assert!(reasons.len() >= 3, "{reasons:?}");
    let mut sorted = reasons.clone();
    sorted.sort_by(|a, b| watchlab_kubectl::sort::natural_cmp(a, b));
    assert_eq!(reasons, sorted);
    // The console prints the same first row.
    let first_message = text(&root, "#events-table tr.event td.c-message");
    type_line(&root, "kubectl get events -n production --sort-by=.reason").await;
    let out = find(&root, "#console-output")
        .dyn_into::<HtmlElement>()
        .expect("html")
        .inner_text();
    let first_line = out
        .lines()
        .skip_while(|l| !l.starts_with("LAST SEEN"))
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(
        first_line.ends_with(&first_message),
        "{first_line} / {first_message}"
    );
}

#[wasm_bindgen_test]
async fn a_refused_size_is_explained_and_a_cluster_above_60_nodes_is_a_node_map() {
    let root = mount().await;
    click(&root, "#pause").await;
    let nodes: HtmlInputElement = find(&root, "#nodes").dyn_into().expect("input");
    let replicas: HtmlInputElement = find(&root, "#replicas").dyn_into().expect("input");
    assert_eq!((nodes.value(), replicas.value()), ("3".into(), "3".into()));
    let revision = text(&root, "#revision");
    nodes.set_value("6000");
    click(&root, "#restart").await;
    let said = text(&root, "#size-error");
    assert!(said.contains("6000") && said.contains("5000"), "{said}");
    assert_eq!(text(&root, "#revision"), revision, "nothing changed");
    assert_eq!(count(&root, ".node"), 3);
    nodes.set_value("61");
    replicas.set_value("61");
    click(&root, "#restart").await;
    wait_until(20_000, "the node map", || {
        root.query_selector("#node-map").ok().flatten().is_some()
    })
    .await;
    assert!(root.query_selector("#size-error").ok().flatten().is_none());
    assert_eq!(
        find(&root, "#node-map")
            .get_attribute("data-nodes")
            .as_deref(),
        Some("61")
    );
    assert_eq!(count(&root, ".node"), 0, "no column per node");
    assert_eq!(
        find(&root, "#nodes")
            .dyn_into::<HtmlInputElement>()
            .expect("input")
            .value(),
        "61"
    );
}

/// The actions panel's kubectl buttons type their command in the console, which shows it and
/// kubectl's answer (the effect each has on the cluster is tested natively in src/state).
#[wasm_bindgen_test]
async fn the_kubectl_buttons_run_their_command_in_the_console() {
    let root = mount().await;
    let press = |id: &'static str| {
        let root = root.clone();
        async move {
            click(&root, "#tab-actions").await;
            click(&root, id).await;
            text(&root, "#console-output")
        }
    };
    let out = press("#kubectl-expose").await;
    assert!(
        out.contains(
            "$ kubectl expose deployment orders-api -n production --port=80 --target-port=8080"
        ) && out.ends_with("service/orders-api exposed"),
        "{out}"
    );
    let out = press("#kubectl-rollout-undo").await;
    assert!(
        out.contains("$ kubectl rollout undo deployment/orders-api -n production"),
        "{out}"
    );
    click(&root, "#tab-actions").await;
    let cascade: HtmlSelectElement = find(&root, "#f-cascade").dyn_into().expect("select");
    cascade.set_value("orphan");
    let out = press("#kubectl-delete-deployment").await;
    assert!(
        out.contains("$ kubectl delete deployment orders-api -n production --cascade=orphan")
            && out.ends_with("deployment.apps \"orders-api\" deleted"),
        "{out}"
    );
    click(&root, "#tab-actions").await;
    let namespace: HtmlInputElement = find(&root, "#f-namespace").dyn_into().expect("input");
    namespace.set_value("default");
    let out = press("#kubectl-delete-namespace").await;
    assert!(
        out.contains("$ kubectl delete namespace default")
            && out.ends_with(
                "Error from server (Forbidden): namespaces \"default\" is forbidden: this namespace may not be deleted"
            ),
        "{out}"
    );
}
