//! Live mode mounted in a real (headless) Chromium by wasm-bindgen-test, without an API server:
//! the test runner's own server answers the page's HTTP requests with 404, so these tests check
//! that a missing or refused server is reported on the page (never a panic) and that the views
//! a real API cannot feed say so. The page against a real server is e2e/live.test.mjs.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;
use watchlab::i18n::Lang;
use watchlab::live::app::{LiveApp, Props};
use web_sys::Element;

mod common;

use common::{click, document, find, settle, text, type_line};

wasm_bindgen_test_configure!(run_in_browser);

thread_local! {
    static MOUNTED: std::cell::RefCell<Option<(yew::AppHandle<LiveApp>, Element)>> =
        const { std::cell::RefCell::new(None) };
}

async fn mount(request: Result<String, String>) -> Element {
    let root = document().create_element("div").expect("div");
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    let props = Props {
        request,
        lang: Lang::En,
    };
    let app = yew::Renderer::<LiveApp>::with_root_and_props(root.clone(), props).render();
    if let Some((old, old_root)) = MOUNTED.with(|m| m.borrow_mut().replace((app, root.clone()))) {
        old.destroy();
        old_root.remove();
    }
    settle().await;
    root
}

/// Waits (a bounded number of page ticks) until `done` holds.
async fn until(root: &Element, done: impl Fn(&Element) -> bool) {
    for _ in 0..100 {
        if done(root) {
            return;
        }
        settle().await;
    }
}

#[wasm_bindgen_test]
async fn a_missing_api_server_is_reported_and_the_console_prints_the_error() {
    let root = mount(Ok("/no-api-here".into())).await;
    until(&root, |r| {
        r.query_selector("#live-status.error")
            .ok()
            .flatten()
            .is_some()
    })
    .await;
    let status = text(&root, "#live-status");
    assert!(status.starts_with("API server: "), "{status}");
    assert_eq!(text(&root, "#live-badge"), "live");
    assert!(text(&root, "#live-no-clock").contains("in-tab engine"));

    type_line(&root, "kubectl get nodes").await;
    let out = text(&root, "#console-output");
    assert!(out.contains("$ kubectl get nodes"), "{out}");
    assert!(out.contains("Error from server (NotFound)"), "{out}");
}

#[wasm_bindgen_test]
async fn views_that_need_the_stores_internals_say_they_are_not_available() {
    let root = mount(Ok("/no-api-here".into())).await;
    assert!(find(&root, "[data-unavailable='etcd']")
        .text_content()
        .unwrap_or_default()
        .contains("Not available in live mode"));
    for (tab, id) in [
        ("#tab-ledger", "ledger"),
        ("#tab-informers", "informers"),
        ("#tab-timeline", "timeline"),
        ("#tab-actions", "actions"),
        ("#tab-scenarios", "scenarios"),
        ("#tab-editor", "editor"),
    ] {
        click(&root, tab).await;
        let notice = text(&root, &format!("[data-unavailable='{id}']"));
        assert!(
            notice.contains("Not available in live mode"),
            "{id}: {notice}"
        );
    }
    click(&root, "#tab-broadcast").await;
    assert_eq!(
        root.query_selector_all("table.streams tr[data-stream]")
            .expect("q")
            .length(),
        3
    );
    click(&root, "#lang").await;
    let notice = text(&root, "[data-unavailable='editor']");
    assert!(notice.contains("实时模式下不可用"), "{notice}");
}

#[wasm_bindgen_test]
async fn another_origin_is_refused() {
    let root = mount(Err("https://elsewhere.example".into())).await;
    settle().await;
    let status = text(&root, "#live-status");
    assert!(
        status.contains("?live=https://elsewhere.example is not a path on this origin"),
        "{status}"
    );
    assert!(root
        .query_selector("#live-status.error")
        .expect("q")
        .is_some());
}
