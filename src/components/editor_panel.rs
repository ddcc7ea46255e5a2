//! The inline editor for `kubectl apply -f <file>`: its content is registered with kubectl as
//! a file of that name, prefilled with the texts' orders-deploy.yaml.

use super::{tr, use_ctx, use_initial_value};
use crate::i18n::T;
use crate::seeds::ORDERS_DEPLOY_FILE;
use crate::state::Action;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

#[component]
pub fn EditorPanel() -> Html {
    let ctx = use_ctx();
    let name = use_node_ref();
    let text = use_node_ref();
    let saved = use_state(|| false);
    use_initial_value(name.clone(), ORDERS_DEPLOY_FILE.into());
    let initial = ctx
        .engine
        .borrow()
        .console
        .file(ORDERS_DEPLOY_FILE)
        .unwrap_or_default()
        .to_string();
    let read = {
        let (name, text) = (name.clone(), text.clone());
        move || {
            let n = name
                .cast::<HtmlInputElement>()
                .map(|i| i.value())
                .unwrap_or_default();
            let c = text
                .cast::<HtmlTextAreaElement>()
                .map(|t| t.value())
                .unwrap_or_default();
            (n.trim().to_string(), c)
        }
    };
    let on_save = {
        let (ctx, read, saved) = (ctx.clone(), read.clone(), saved.clone());
        Callback::from(move |_: MouseEvent| {
            let (name, content) = read();
            if !name.is_empty() {
                ctx.dispatch(Action::SetFile { name, content });
                saved.set(true);
            }
        })
    };
    let on_apply = {
        let (ctx, read) = (ctx.clone(), read.clone());
        Callback::from(move |_: MouseEvent| {
            let (name, content) = read();
            if !name.is_empty() {
                ctx.dispatch(Action::SetFile {
                    name: name.clone(),
                    content,
                });
                ctx.dispatch(Action::Command(format!("kubectl apply -f {name}")));
            }
        })
    };
    let on_input = {
        let saved = saved.clone();
        Callback::from(move |_: InputEvent| saved.set(false))
    };
    html! {
        <section class="editor" aria-label={tr(&ctx, T::EditorTitle)}>
            <h3>{ tr(&ctx, T::EditorTitle) }</h3>
            <label>{ tr(&ctx, T::FileName) }
                <input id="editor-name" ref={name.clone()} type="text" spellcheck="false" /></label>
            <textarea id="editor-text" ref={text} spellcheck="false" defaultvalue={initial} oninput={on_input} />
            <div class="row">
                <button id="editor-save" onclick={on_save}>{ tr(&ctx, T::Save) }</button>
                <button id="editor-apply" onclick={on_apply}>{ tr(&ctx, T::ApplyFile) }</button>
                if *saved { <span class="muted">{ tr(&ctx, T::Saved) }</span> }
            </div>
        </section>
    }
}
