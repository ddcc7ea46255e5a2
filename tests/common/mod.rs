//! DOM helpers the wasm-bindgen-test suites share (the playground's and live mode's): find an
//! element, read its text, click it, type a console line, let the page render.
#![allow(dead_code)] // each suite uses its own subset

use std::time::Duration;

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, KeyboardEvent, KeyboardEventInit};

pub fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a document")
}

/// Lets yew render and the page's timers run once.
pub async fn settle() {
    gloo_timers::future::sleep(Duration::from_millis(60)).await;
}

pub fn find(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .expect("query")
        .unwrap_or_else(|| panic!("{selector} missing"))
}

pub fn text(root: &Element, selector: &str) -> String {
    find(root, selector).text_content().unwrap_or_default()
}

pub async fn click(root: &Element, selector: &str) {
    find(root, selector)
        .dyn_into::<HtmlElement>()
        .expect("html")
        .click();
    settle().await;
}

/// Types `line` into the console and presses Enter.
pub async fn type_line(root: &Element, line: &str) {
    let input: HtmlInputElement = find(root, "#console-input").dyn_into().expect("input");
    input.set_value(line);
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    let ev = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).expect("event");
    input.dispatch_event(&ev).expect("dispatch");
    settle().await;
}
