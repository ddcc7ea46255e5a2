//! The app mounted in a real (headless) Chromium page by wasm-bindgen-test.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}

async fn mount() -> web_sys::Element {
    let root = document().create_element("div").expect("div");
    document().body().expect("body").append_child(&root).expect("append");
    yew::Renderer::<watchlab::App>::with_root(root.clone()).render();
    gloo_timers::future::sleep(Duration::from_millis(50)).await;
    root
}

#[wasm_bindgen_test]
async fn renders_three_nodes_from_the_engine() {
    let root = mount().await;
    let nodes = root.query_selector_all(".node").expect("query");
    assert_eq!(nodes.length(), 3);
    let text = root.text_content().unwrap_or_default();
    for name in ["node-a", "node-b", "node-c"] {
        assert!(text.contains(name), "{name} missing from {text}");
    }
    assert!(text.contains("0 pods"), "{text}");
}

#[wasm_bindgen_test]
async fn create_pod_button_adds_a_pod_card() {
    let root = mount().await;
    let button: HtmlElement = root
        .query_selector("#create-pod")
        .expect("query")
        .expect("button")
        .dyn_into()
        .expect("an element");
    button.click();
    gloo_timers::future::sleep(Duration::from_millis(50)).await;
    let pods = root.query_selector_all(".pod").expect("query");
    assert_eq!(pods.length(), 1);
    let name = pods.get(0).and_then(|p| p.text_content()).unwrap_or_default();
    assert!(name.starts_with("web-"), "{name}");
    let count = root.query_selector("#pod-count").expect("q").expect("count");
    assert_eq!(count.text_content().unwrap_or_default(), "1 pods");
}
