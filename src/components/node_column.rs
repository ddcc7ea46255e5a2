//! A node drawn as a column holding the cards of the pods bound to it: status (Ready,
//! NotReady, killed), its resourceVersion, how many pods it holds, and each pod's STATUS, READY
//! and resourceVersion. The cards scroll in a window: only those in view are drawn, so a
//! column of thousands of pods costs what a screenful costs.

use std::rc::Rc;

use super::window::{VirtualList, Window};
use crate::i18n::{Lang, T};
use watchlab_engine::cluster::{NodeView, PodView};
use yew::prelude::*;

/// A pod card's height in CSS pixels, margin included (`.pod` in style.css).
pub const CARD_PX: u32 = 44;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// None for the column of pods not yet bound to a node.
    pub node: Option<NodeView>,
    pub pods: Rc<Vec<PodView>>,
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

/// "N pods" (one pod, in English, is "1 pod").
pub fn pods_text(lang: Lang, n: usize) -> String {
    if n == 1 {
        T::OnePod.tr(lang).to_string()
    } else {
        T::PodsCount.fill(lang, &[&n.to_string()])
    }
}

/// A pod name cut before its last `-`: the part that may be shortened with an ellipsis and the
/// distinguishing suffix always shown (`orders-api-6cffd967f6-` + `qpgx4`).
pub fn split_name(name: &str) -> (&str, &str) {
    match name.rfind('-') {
        Some(at) if at > 0 && name.len() - at <= 9 => name.split_at(at + 1),
        _ => (name, ""),
    }
}

/// The short tag of a pod's workload (`ds`, `sts`, `job`: kubectl's short names).
fn workload_tag(workload: &str) -> &'static str {
    match workload.split('/').next() {
        Some("DaemonSet") => "ds",
        Some("StatefulSet") => "sts",
        _ => "job",
    }
}

/// The card at `position` in its column: line one the name and its resourceVersion, line two
/// its STATUS (cut with an ellipsis before it could reach READY; the card's tooltip has it
/// whole) and READY at the right edge. Keyed by position, so a pod added or gone above moves
/// content, not cards (see [`super::window`]).
fn card(position: usize, p: &PodView, lang: Lang) -> Html {
    let (head, tail) = split_name(&p.name);
    let title = T::PodCardTitle.fill(
        lang,
        &[
            &format!("{}/{}", p.namespace, p.name),
            &p.status,
            &p.ready,
            &p.resource_version.to_string(),
        ],
    );
    html! {
        <div key={position} class={classes!("pod", status_class(&p.status))}
            data-pod={p.name.clone()} data-status={p.status.clone()} {title}>
            <div class="line">
                <span class="pod-name ends"><span class="head">{ head }</span><span class="tail">{ tail }</span></span>
                if let Some(w) = &p.workload {
                    <span class="workload" data-workload={w.clone()} title={w.clone()}>{ workload_tag(w) }</span>
                }
                <span class="rv">{ p.resource_version }</span>
            </div>
            <div class="line">
                <span class="pod-status">{ &p.status }</span>
                <span class="pod-ready">{ &p.ready }</span>
                if !p.claims.is_empty() {
                    <span class="pod-claims" data-claims={p.claims.join(",")}
                        title={T::PodClaims.fill(lang, &[&p.claims.join(", ")])}>{ "⛁" }</span>
                }
                if p.restarts > 0 {
                    <span class="pod-restarts" title={T::PodRestarts.fill(lang, &[&p.restarts.to_string()])}>{ format!("↻{}", p.restarts) }</span>
                }
            </div>
        </div>
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
                        <span class="rv" title="resourceVersion">{ T::RvShort.fill(lang, &[&n.resource_version.to_string()]) }</span>
                    </h2>
                },
            )
        }
        None => (
            String::new(),
            html! { <h2><span class="name">{ T::Unscheduled.tr(lang) }</span></h2> },
        ),
    };
    let count = props.pods.len();
    let render = {
        let pods = props.pods.clone();
        Callback::from(move |w: Window| {
            let shown = pods.get(w.first..w.end).unwrap_or_default();
            html! { <>{ for shown.iter().enumerate().map(|(i, p)| card(w.first + i, p, lang)) }</> }
        })
    };
    let label = match &props.node {
        Some(n) => T::PodsOn.fill(lang, &[&n.name]),
        None => T::Unscheduled.tr(lang).to_string(),
    };
    html! {
        // `.node` only for a real node, so counting `.node` counts nodes even while pods wait
        // in the Unscheduled column.
        <article class={classes!("column", if props.node.is_some() { "node" } else { "unscheduled" },
            props.node.as_ref().is_some_and(|n| n.killed).then_some("is-killed"))} data-node={name}>
            { header }
            <p class="count" data-count={count.to_string()}>{ pods_text(lang, count) }</p>
            <VirtualList class="pods" total={count} row_px={CARD_PX} {render} label={label} />
        </article>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn a_pod_name_keeps_its_suffix_visible() {
        assert_eq!(
            split_name("orders-api-6cffd967f6-qpgx4"),
            ("orders-api-6cffd967f6-", "qpgx4")
        );
        assert_eq!(split_name("debug-tools"), ("debug-", "tools"));
        assert_eq!(split_name("web"), ("web", ""));
        assert_eq!(
            split_name("a-very-long-final-segment"),
            ("a-very-long-final-", "segment")
        );
        assert_eq!(split_name("x-abcdefghijkl"), ("x-abcdefghijkl", ""));
        assert_eq!(split_name("-"), ("-", ""));
    }
}
