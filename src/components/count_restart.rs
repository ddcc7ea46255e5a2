//! A count to restart the cluster with (1, 2 or 3) and its Restart button: how the Actions tool
//! asks for another number of API server instances or of controller replicas.

use super::{tr, use_ctx};
use crate::i18n::T;
use crate::state::Action;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The counts offered (an HA control plane has two or three control-plane nodes).
const OFFERED: [u32; 3] = [1, 2, 3];

/// What a [`CountRestart`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    Apiservers,
    ControllerReplicas,
}

impl Counted {
    fn restart(self, n: u32) -> Action {
        match self {
            Counted::Apiservers => Action::SetApiservers(n),
            Counted::ControllerReplicas => Action::SetControllerReplicas(n),
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The select's and the button's ids.
    pub select_id: &'static str,
    pub button_id: &'static str,
    /// The select's label.
    pub label: T,
    /// The cluster's count now (selected at first).
    pub current: u32,
    /// What the count is of.
    pub of: Counted,
}

#[component]
pub fn CountRestart(props: &Props) -> Html {
    let ctx = use_ctx();
    let count = use_node_ref();
    let restart = {
        let (ctx, count, of) = (ctx.clone(), count.clone(), props.of);
        Callback::from(move |_: MouseEvent| {
            let n = count
                .cast::<HtmlSelectElement>()
                .and_then(|s| s.value().parse().ok())
                .unwrap_or(1);
            ctx.dispatch(of.restart(n));
        })
    };
    html! {
        <div class="row">
            <label class="field">{ tr(&ctx, props.label) }
                <select id={props.select_id} ref={count}>
                    { for OFFERED.iter().map(|n| html! {
                        <option value={n.to_string()} selected={*n == props.current}>{ n }</option>
                    }) }
                </select></label>
            <button id={props.button_id} onclick={restart}>{ tr(&ctx, T::RestartWithReplicas) }</button>
        </div>
    }
}
