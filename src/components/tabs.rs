//! A keyboard-operable tab bar (WAI-ARIA tabs: the selected tab is the one tab stop; ←/→,
//! Home/End select and focus another).

use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// `(dom id, label)` per tab.
    pub tabs: Vec<(&'static str, &'static str)>,
    pub selected: &'static str,
    pub label: AttrValue,
    pub on_select: Callback<&'static str>,
}

#[component]
pub fn Tabs(props: &Props) -> Html {
    let ids: Vec<&'static str> = props.tabs.iter().map(|t| t.0).collect();
    html! {
        <div class="tabs" role="tablist" aria-label={props.label.clone()}>
            { for props.tabs.iter().map(|(id, label)| {
                let selected = *id == props.selected;
                let onclick = { let cb = props.on_select.clone(); let id = *id; Callback::from(move |_: MouseEvent| cb.emit(id)) };
                let onkeydown = {
                    let cb = props.on_select.clone();
                    let ids = ids.clone();
                    let id = *id;
                    Callback::from(move |e: KeyboardEvent| {
                        let at = ids.iter().position(|i| *i == id).unwrap_or(0);
                        let n = ids.len().max(1);
                        let next = match e.key().as_str() {
                            "ArrowRight" => (at + 1) % n,
                            "ArrowLeft" => (at + n - 1) % n,
                            "Home" => 0,
                            "End" => n - 1,
                            _ => return,
                        };
                        e.prevent_default();
                        if let Some(next) = ids.get(next) {
                            cb.emit(next);
                            // The focus follows the selection (WAI-ARIA tabs), so the next
                            // arrow moves on from the new tab.
                            if let Some(el) = web_sys::window()
                                .and_then(|w| w.document())
                                .and_then(|d| d.get_element_by_id(&format!("tab-{next}")))
                                .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
                            {
                                let _ = el.focus();
                            }
                        }
                    })
                };
                html! {
                    <button role="tab" id={format!("tab-{id}")} class={classes!("tab", selected.then_some("selected"))}
                        aria-selected={selected.to_string()} tabindex={if selected { "0" } else { "-1" }}
                        {onclick} {onkeydown}>{ *label }</button>
                }
            }) }
        </div>
    }
}
