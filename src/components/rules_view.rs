//! kube-proxy's rules, node by node: for each Service ClusterIP and port, the pod endpoints
//! the node's kube-proxy routes it to, when it applied them, and how long after the write it
//! was built from (the lag of that node's watch of Services and EndpointSlices). Each
//! kube-proxy is a watcher like any other: an EndpointSlice write reaches every node's proxy
//! through the broadcast, and the rules follow.

use super::{fill, tr, use_ctx};
use crate::i18n::T;
use crate::state::format_time;
use yew::prelude::*;

#[component]
pub fn RulesView() -> Html {
    let ctx = use_ctx();
    // What the frame read from the engine: nothing here reads the engine.
    let frame = ctx.frame.clone();
    let rows: usize = frame.proxy_rules.iter().map(|n| n.rules.len()).sum();
    let body = if rows == 0 {
        html! { <p class="muted" id="no-rules">{ tr(&ctx, T::NoRules) }</p> }
    } else {
        html! {
            <div class="scroll">
                <table class="rules" id="rules-table">
                    <thead><tr>
                        <th>{ tr(&ctx, T::ColNode) }</th><th>{ tr(&ctx, T::ColService) }</th>
                        <th>{ tr(&ctx, T::ColClusterIp) }</th><th>{ tr(&ctx, T::ColEndpoints) }</th>
                        <th>{ tr(&ctx, T::ColApplied) }</th><th>{ tr(&ctx, T::ColLag) }</th>
                    </tr></thead>
                    <tbody>
                        { for frame.proxy_rules.iter().flat_map(|n| n.rules.iter().map(move |r| (n.node.as_str(), r))).map(|(node, r)| {
                            let rule = &r.rule;
                            let target = format!("{}:{}/{}", rule.cluster_ip, rule.port, rule.protocol);
                            html! {
                                <tr class="rule" data-node={node.to_string()} data-service={rule.service.clone()}
                                    data-target={target.clone()} data-endpoints={rule.endpoints.join(",")}>
                                    <td class="rule-node">{ node }</td>
                                    <td class="service">{ &rule.service }
                                        if !rule.port_name.is_empty() { <span class="muted">{ format!(" ({})", rule.port_name) }</span> }</td>
                                    <td class="target">{ target }</td>
                                    <td class="endpoints">{ if rule.endpoints.is_empty() { tr(&ctx, T::NoEndpoints).to_string() } else { rule.endpoints.join(" · ") } }</td>
                                    <td class="num">{ format_time(rule.applied_at) }</td>
                                    <td class="num lag">{ r.lag_ms.map(|ms| fill(&ctx, T::LagMs, &[&ms.to_string()])).unwrap_or_default() }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        }
    };
    html! {
        <div class="rules-view">
            <h3>{ tr(&ctx, T::RulesTitle) }<span class="muted" id="rules-count" data-count={rows.to_string()}>{ fill(&ctx, T::RulesCount, &[&rows.to_string(), &frame.proxy_rules.len().to_string()]) }</span></h3>
            <p class="hint">{ tr(&ctx, T::RulesHint) }</p>
            { body }
        </div>
    }
}
