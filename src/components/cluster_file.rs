//! Export, Import and the notice about the saved cluster: the header's file controls. The
//! engine makes and checks the text (`Cluster::export` / `Cluster::import`); this module only
//! moves it between the page and the learner's disk.

use super::{fill, use_ctx, Ctx};
use crate::i18n::T;
use crate::state::{Action, FileNotice, EXPORT_FILE, MAX_SAVE_BYTES};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlInputElement, Url};
use yew::prelude::*;

/// The text of a notice in the page's language.
pub fn notice_text(ctx: &Ctx, notice: &FileNotice) -> String {
    match notice {
        FileNotice::Imported { revision } => fill(ctx, T::Imported, &[&revision.to_string()]),
        FileNotice::ImportFailed(m) => fill(ctx, T::ImportFailed, &[m]),
        FileNotice::ExportFailed(m) => fill(ctx, T::ExportFailed, &[m]),
        FileNotice::RestoreFailed(m) => fill(ctx, T::RestoreFailed, &[m]),
        FileNotice::SaveFailed(m) => fill(ctx, T::SaveSkipped, &[m]),
        FileNotice::SaveTooLarge { bytes } => {
            let why = fill(
                ctx,
                T::SaveTooLarge,
                &[&bytes.to_string(), &MAX_SAVE_BYTES.to_string()],
            );
            fill(ctx, T::SaveSkipped, &[&why])
        }
    }
}

/// Offers `text` as a download named `name` (a Blob URL on a clicked anchor).
fn download(name: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type("application/json");
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let anchor: HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    Url::revoke_object_url(&url)
}

fn js_message(e: &JsValue) -> String {
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

#[component]
pub fn ClusterFile() -> Html {
    let ctx = use_ctx();
    let file_input = use_node_ref();
    // A button (focusable, Enter/Space) opens the hidden file picker.
    let on_pick = {
        let file_input = file_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = file_input.cast::<HtmlInputElement>() {
                input.click();
            }
        })
    };
    let on_export = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            let result = ctx.export_text().and_then(|text| {
                download(EXPORT_FILE, &text).map_err(|e| FileNotice::ExportFailed(js_message(&e)))
            });
            if let Err(n) = result {
                ctx.dispatch(Action::Notify(Some(n)));
            }
        })
    };
    let on_import = {
        let ctx = ctx.clone();
        Callback::from(move |e: Event| {
            let ctx = ctx.clone();
            super::read_picked_file(e, move |_, text| {
                ctx.dispatch(match text {
                    Ok(text) => Action::Import(text),
                    Err(why) => Action::Notify(Some(FileNotice::ImportFailed(why))),
                })
            });
        })
    };
    let notice = ctx.file_notice.as_ref().map(|n| {
        let class = match n {
            FileNotice::Imported { .. } => "ok",
            _ => "error",
        };
        (class, notice_text(&ctx, n))
    });
    let on_dismiss = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.dispatch(Action::Notify(None)))
    };
    html! {
        <div class="cluster-file">
            <button id="export" title={super::tr(&ctx, T::ExportHint)} onclick={on_export}>{ super::tr(&ctx, T::ExportCluster) }</button>
            <button id="import" title={super::tr(&ctx, T::ImportHint)} onclick={on_pick}>{ super::tr(&ctx, T::ImportCluster) }</button>
            <input id="import-file" ref={file_input} type="file" accept=".json,application/json" hidden=true
                tabindex="-1" aria-label={super::tr(&ctx, T::ImportHint)} onchange={on_import} />
            if let Some((class, text)) = notice {
                <p id="file-notice" class={classes!("file-notice", class)} role="status" onclick={on_dismiss.clone()}>
                    <span class="text">{ text }</span>
                    <button class="small" id="file-notice-close" onclick={on_dismiss}>{ super::tr(&ctx, T::Close) }</button>
                </p>
            }
        </div>
    }
}
