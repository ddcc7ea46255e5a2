//! A node drawn as a column holding the cards of the pods bound to it.

use watchlab_engine::cluster::{NodeView, PodView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub node: NodeView,
    pub pods: Vec<PodView>,
}

#[component]
pub fn NodeColumn(props: &Props) -> Html {
    let status = if props.node.ready { "Ready" } else { "NotReady" };
    html! {
        <article class="node" data-node={props.node.name.clone()}>
            <h2><span>{ &props.node.name }</span><span class="status">{ status }</span></h2>
            { for props.pods.iter().map(|p| html! {
                <div class="pod" data-pod={p.name.clone()}>{ &p.name }</div>
            }) }
        </article>
    }
}
