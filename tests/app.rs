//! The app mounted in a real (headless) Chromium page by wasm-bindgen-test: the views render
//! what the engine reports, the console runs kubectl, tabs and language switch.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlInputElement, KeyboardEvent, KeyboardEventInit};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a document")
}

async fn settle() {
    gloo_timers::future::sleep(Duration::from_millis(60)).await;
}

fn storage() -> web_sys::Storage {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .expect("storage")
}

/// Mounts a fresh app (the cluster a previous test saved is forgotten first).
async fn mount() -> Element {
    storage().remove_item("watchlab.cluster").expect("remove");
    let root = document().create_element("div").expect("div");
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    yew::Renderer::<watchlab::App>::with_root(root.clone()).render();
    settle().await;
    root
}

fn find(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .expect("query")
        .unwrap_or_else(|| panic!("{selector} missing"))
}

fn text(root: &Element, selector: &str) -> String {
    find(root, selector).text_content().unwrap_or_default()
}

async fn click(root: &Element, selector: &str) {
    find(root, selector)
        .dyn_into::<HtmlElement>()
        .expect("html")
        .click();
    settle().await;
}

async fn type_line(root: &Element, line: &str) {
    let input: HtmlInputElement = find(root, "#console-input").dyn_into().expect("input");
    input.set_value(line);
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    let ev = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).expect("event");
    input.dispatch_event(&ev).expect("dispatch");
    settle().await;
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
    click(&root, ".ledger tbody tr:first-child button").await;
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
    let stored = storage
        .get_item("watchlab.lang")
        .ok()
        .flatten()
        .unwrap_or_default();
    assert_eq!(stored, if after == "Cluster" { "en" } else { "zh-CN" });
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
