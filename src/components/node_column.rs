//! A node drawn as a column holding the cards of the pods bound to it: status (Ready,
//! NotReady, killed), its resourceVersion, and each pod's STATUS, READY and resourceVersion.

use crate::i18n::{Lang, T};
use watchlab_engine::cluster::{NodeView, PodView};
use yew::prelude::*;

/// Pod cards drawn per column; the rest are summarised (thousands of pods stay smooth).
pub const MAX_CARDS: usize = 24;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// None for the column of pods not yet bound to a node.
    pub node: Option<NodeView>,
    pub pods: Vec<PodView>,
    pub lang: Lang,
}

/// The CSS class of a pod's STATUS text.
pub fn status_class(status: &str) -> &'static str {
    match status {
        "Running" => "running",
        "Pending" | "ContainerCreating" => "pending",
        "Terminating" => "terminating",
        "Succeeded" | "Completed" => "done",
        _ => "failed",
    }
}

#[component]
pub fn NodeColumn(props: &Props) -> Html {
    let lang = props.lang;
    let (name, header) = match &props.node {
        Some(n) => {
            let status_class = if n.killed {
                "killed"
            } else if n.status == "Ready" {
                "ready"
            } else {
                "notready"
            };
            let mut status = n.status.clone();
            if !n.schedulable {
                status.push(',');
                status.push_str(T::Cordoned.tr(lang));
            }
            (
                n.name.clone(),
                html! {
                    <h2>
                        <span class="name">{ &n.name }</span>
                        <span class={classes!("status", status_class)}>{ status }</span>
                        if n.killed { <span class="badge killed">{ T::Killed.tr(lang) }</span> }
                        <span class="rv" title="resourceVersion">{ format!("rv {}", n.resource_version) }</span>
                    </h2>
                },
            )
        }
        None => (
            String::new(),
            html! { <h2><span class="name">{ T::Unscheduled.tr(lang) }</span></h2> },
        ),
    };
    let extra = props.pods.len().saturating_sub(MAX_CARDS);
    html! {
        <article class={classes!("node", props.node.as_ref().is_some_and(|n| n.killed).then_some("is-killed"))} data-node={name}>
            { header }
            <div class="pods">
            { for props.pods.iter().take(MAX_CARDS).map(|p| html! {
                <div class={classes!("pod", status_class(&p.status))} data-pod={p.name.clone()} data-status={p.status.clone()}>
                    <span class="pod-name">{ &p.name }</span>
                    <span class="pod-status">{ &p.status }</span>
                    <span class="pod-ready">{ &p.ready }</span>
                    <span class="rv">{ p.resource_version }</span>
                </div>
            }) }
            if extra > 0 { <div class="more">{ T::MorePods.fill(lang, &[&extra.to_string()]) }</div> }
            </div>
        </article>
    }
}
