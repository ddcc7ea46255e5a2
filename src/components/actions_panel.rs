//! The buttons: create / scale / label / delete objects, kill and restore nodes and etcd
//! members, drain a node (cordon, then evict its pods: the result lists those a budget
//! refused), compact the ledger, and the conflicting write with its retry shown step by step.
//! Each of these is one engine action; the result line shows the revision it reached or the
//! server's error text. The Service, namespace and rollout buttons (`kubectl expose`, `delete
//! deployment --cascade=…`, `rollout undo`, `delete namespace`) type their kubectl command in the
//! console instead, so the console shows what ran and kubectl's answer.

use super::{fill, tr, use_ctx, use_initial_value, Ctx};
use crate::i18n::T;
use crate::state::{Action, Notice, SEED_DEPLOYMENT, SEED_NAMESPACE};
use watchlab_engine::api::Kind;
use watchlab_engine::cluster::{Action as ClusterAction, DrainReport};
use watchlab_kubectl::shell::quote;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// `a=b,c=d` → pairs (a piece without `=` is a key with an empty value).
pub fn parse_labels(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => (p.to_string(), String::new()),
        })
        .collect()
}

/// The kinds the select offers: every kind the registry serves (the built-in ones, then the
/// custom kinds whose CRD is established), by its singular name as kubectl takes it — a
/// custom kind's qualified by its group — in discovery order.
pub fn kind_choices(kinds: &[Kind]) -> impl Iterator<Item = String> + '_ {
    kinds.iter().map(|k| {
        let r = k.resource();
        if k.is_custom() {
            format!("{}.{}", r.singular, r.group)
        } else {
            r.singular.to_string()
        }
    })
}

/// The kind select's value, resolved among the served `kinds` (anything unknown is a pod).
pub fn parse_kind(kinds: &[Kind], value: &str) -> Kind {
    kinds
        .iter()
        .copied()
        .find(|k| k.resource().is_named(value))
        .unwrap_or(Kind::Pod)
}

/// The cascade modes `kubectl delete --cascade` takes (background is its default).
pub const CASCADE_MODES: [&str; 3] = ["background", "foreground", "orphan"];

/// A button that types a kubectl command in the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KubectlButton {
    Expose,
    DeleteDeployment,
    RolloutUndo,
    DeleteNamespace,
    CreateJob,
    CreateCronJob,
}

impl KubectlButton {
    pub const ALL: [KubectlButton; 6] = [
        KubectlButton::Expose,
        KubectlButton::DeleteDeployment,
        KubectlButton::RolloutUndo,
        KubectlButton::DeleteNamespace,
        KubectlButton::CreateJob,
        KubectlButton::CreateCronJob,
    ];

    /// The DOM id (`kubectl-expose`).
    pub fn id(self) -> &'static str {
        match self {
            KubectlButton::Expose => "kubectl-expose",
            KubectlButton::DeleteDeployment => "kubectl-delete-deployment",
            KubectlButton::RolloutUndo => "kubectl-rollout-undo",
            KubectlButton::DeleteNamespace => "kubectl-delete-namespace",
            KubectlButton::CreateJob => "kubectl-create-job",
            KubectlButton::CreateCronJob => "kubectl-create-cronjob",
        }
    }

    fn label(self) -> T {
        match self {
            KubectlButton::Expose => T::Expose,
            KubectlButton::DeleteDeployment => T::DeleteDeployment,
            KubectlButton::RolloutUndo => T::RolloutUndo,
            KubectlButton::DeleteNamespace => T::DeleteNamespace,
            KubectlButton::CreateJob => T::CreateJob,
            KubectlButton::CreateCronJob => T::CreateCronJob,
        }
    }

    /// The console line it runs on `form` (each value quoted as the console's shell reads it,
    /// so whatever was typed reaches kubectl as one argument and kubectl answers it).
    pub fn line(self, form: &KubectlForm) -> String {
        let (ns, name) = (quote(&form.namespace), quote(&form.name));
        match self {
            KubectlButton::Expose => format!(
                "kubectl expose deployment {name} -n {ns} --port={} --target-port={}",
                quote(&form.port),
                quote(&form.target_port)
            ),
            KubectlButton::DeleteDeployment => format!(
                "kubectl delete deployment {name} -n {ns} --cascade={}",
                quote(&form.cascade)
            ),
            KubectlButton::RolloutUndo => format!("kubectl rollout undo deployment/{name} -n {ns}"),
            KubectlButton::DeleteNamespace => format!("kubectl delete namespace {ns}"),
            KubectlButton::CreateJob => format!(
                "kubectl create job {name} -n {ns} --image={}",
                quote(&form.image)
            ),
            KubectlButton::CreateCronJob => format!(
                "kubectl create cronjob {name} -n {ns} --image={} --schedule='*/1 * * * *'",
                quote(&form.image)
            ),
        }
    }
}

/// What the kubectl buttons read from the form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubectlForm {
    pub namespace: String,
    pub name: String,
    pub image: String,
    pub port: String,
    pub target_port: String,
    pub cascade: String,
}

/// The form's field refs.
#[derive(Clone, Default, PartialEq)]
struct Fields {
    kind: NodeRef,
    namespace: NodeRef,
    name: NodeRef,
    image: NodeRef,
    replicas: NodeRef,
    labels: NodeRef,
    key: NodeRef,
    value: NodeRef,
    overwrite: NodeRef,
    port: NodeRef,
    target_port: NodeRef,
    cascade: NodeRef,
}

impl Fields {
    fn text(r: &NodeRef) -> String {
        r.cast::<HtmlInputElement>()
            .map(|i| i.value().trim().to_string())
            .unwrap_or_default()
    }

    fn kubectl_form(&self) -> KubectlForm {
        KubectlForm {
            namespace: Self::text(&self.namespace),
            name: Self::text(&self.name),
            image: Self::text(&self.image),
            port: Self::text(&self.port),
            target_port: Self::text(&self.target_port),
            cascade: self
                .cascade
                .cast::<HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default(),
        }
    }

    /// The action a button stands for, from the form's current values (`kinds`: the served ones).
    fn action(&self, button: &str, kinds: &[Kind]) -> ClusterAction {
        let namespace = Self::text(&self.namespace);
        let name = Self::text(&self.name);
        let image = Self::text(&self.image);
        // kubectl create deployment defaults --replicas to 1.
        let replicas = Self::text(&self.replicas).parse().unwrap_or(1);
        let labels = parse_labels(&Self::text(&self.labels));
        let kind = parse_kind(
            kinds,
            &self
                .kind
                .cast::<HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default(),
        );
        match button {
            "create-pod" => ClusterAction::CreatePod {
                namespace,
                name,
                image,
                labels,
            },
            "create-deployment" => ClusterAction::CreateDeployment {
                namespace,
                name,
                image,
                replicas,
                labels,
            },
            "create-daemonset" => ClusterAction::CreateDaemonSet {
                namespace,
                name,
                image,
                labels,
            },
            "create-statefulset" => ClusterAction::CreateStatefulSet {
                namespace,
                name,
                image,
                replicas,
                labels,
            },
            "scale" => ClusterAction::Scale {
                namespace,
                name,
                replicas,
            },
            "label" => ClusterAction::Label {
                kind: kind.into(),
                namespace,
                name,
                key: Self::text(&self.key),
                value: Self::text(&self.value),
                overwrite: self
                    .overwrite
                    .cast::<HtmlInputElement>()
                    .is_some_and(|c| c.checked()),
            },
            _ => ClusterAction::Delete {
                kind: kind.into(),
                namespace,
                name,
            },
        }
    }
}

// Long on purpose: one button or field after another in the order the panel draws them,
// each a callback and a few lines of markup (a yew function component).
#[component]
pub fn ActionsPanel() -> Html {
    let ctx = use_ctx();
    let f = use_memo((), |_| Fields::default());
    let button = |id: &'static str, label: T| {
        let text = tr(&ctx, label);
        let (ctx, f) = (ctx.clone(), f.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            ctx.dispatch(Action::Cluster(f.action(id, &ctx.frame.kinds)))
        });
        html! { <button id={id} {onclick}>{ text }</button> }
    };
    let kubectl = |b: KubectlButton| {
        let text = tr(&ctx, b.label());
        let (ctx, f) = (ctx.clone(), f.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            ctx.dispatch(Action::Command(b.line(&f.kubectl_form())))
        });
        html! { <button id={b.id()} {onclick}>{ text }</button> }
    };
    let act = |a: ClusterAction| super::on_click_do(&ctx, a);
    // A node map's cluster names the node instead (its frame may still list every node for
    // the map itself).
    let nodes: &[_] = if ctx.frame.node_map() {
        &[]
    } else {
        &ctx.frame.nodes
    };
    use_initial_value(f.namespace.clone(), SEED_NAMESPACE.into());
    use_initial_value(f.name.clone(), SEED_DEPLOYMENT.into());
    use_initial_value(f.image.clone(), "nginx:1.27".into());
    use_initial_value(f.replicas.clone(), "3".into());
    use_initial_value(f.labels.clone(), "app=nginx".into());
    use_initial_value(f.key.clone(), "team".into());
    use_initial_value(f.value.clone(), "orders".into());
    use_initial_value(f.port.clone(), "80".into());
    use_initial_value(f.target_port.clone(), "8080".into());
    {
        let overwrite = f.overwrite.clone();
        use_effect_with((), move |_| {
            if let Some(c) = overwrite.cast::<HtmlInputElement>() {
                c.set_checked(true);
            }
        });
    }
    let field = |id: &'static str, label: T, r: &NodeRef| {
        html! {
            <label class="field">{ tr(&ctx, label) }<input id={id} ref={r.clone()} type="text" spellcheck="false" /></label>
        }
    };
    html! {
        <section class="actions" aria-label={tr(&ctx, T::TabActions)}>
            <Result />
            <fieldset>
                <div class="grid">
                    <label class="field">{ tr(&ctx, T::Kind) }
                        <select id="f-kind" ref={f.kind.clone()}>
                            { for kind_choices(&ctx.frame.kinds).map(|k| html! {
                                <option value={k.clone()} selected={k == "deployment"}>{ k }</option>
                            }) }
                        </select></label>
                    { field("f-namespace", T::Namespace, &f.namespace) }
                    { field("f-name", T::Name, &f.name) }
                    { field("f-image", T::Image, &f.image) }
                    { field("f-replicas", T::Replicas, &f.replicas) }
                    { field("f-labels", T::Labels, &f.labels) }
                    { field("f-key", T::Key, &f.key) }
                    { field("f-value", T::Value, &f.value) }
                    <label class="field check"><input id="f-overwrite" ref={f.overwrite.clone()} type="checkbox" />{ tr(&ctx, T::Overwrite) }</label>
                </div>
                <div class="row">
                    { button("create-pod", T::CreatePod) }
                    { button("create-deployment", T::CreateDeployment) }
                    { button("create-daemonset", T::CreateDaemonSet) }
                    { button("create-statefulset", T::CreateStatefulSet) }
                    { button("scale", T::Scale) }
                    { button("label", T::Label) }
                    { button("delete", T::Delete) }
                </div>
            </fieldset>
            <fieldset>
                <legend>{ tr(&ctx, T::KubectlActions) }</legend>
                <p class="hint">{ tr(&ctx, T::KubectlActionsHint) }</p>
                <div class="grid">
                    { field("f-port", T::Port, &f.port) }
                    { field("f-target-port", T::TargetPort, &f.target_port) }
                    <label class="field">{ tr(&ctx, T::Cascade) }
                        <select id="f-cascade" ref={f.cascade.clone()}>
                            { for CASCADE_MODES.iter().map(|m| html! { <option value={*m}>{ *m }</option> }) }
                        </select></label>
                </div>
                <div class="row">
                    { for KubectlButton::ALL.into_iter().map(kubectl) }
                </div>
            </fieldset>
            <fieldset>
                <legend>{ tr(&ctx, T::NodeFailures) }</legend>
                if ctx.frame.node_map() { <NodeByName /> }
                { for nodes.iter().map(|n| html! {
                    <div class="row" data-node-controls={n.name.clone()}>
                        <span class="name">{ &n.name }</span>
                        <button id={format!("kill-{}", n.name)} disabled={n.killed} onclick={act(ClusterAction::KillNode(n.name.clone()))}>{ tr(&ctx, T::Kill) }</button>
                        <button id={format!("restore-{}", n.name)} disabled={!n.killed} onclick={act(ClusterAction::RestoreNode(n.name.clone()))}>{ tr(&ctx, T::Restore) }</button>
                        <button id={format!("drain-{}", n.name)} data-drain={n.name.clone()} title={tr(&ctx, T::DrainHint)} onclick={act(ClusterAction::DrainNode(n.name.clone()))}>{ tr(&ctx, T::Drain) }</button>
                    </div>
                }) }
            </fieldset>
            <super::etcd_faults::EtcdFaults />
            <super::apiservers::ApiServers />
            <super::leader_election::LeaderElection />
            <fieldset>
                <legend>{ tr(&ctx, T::Ledger) }</legend>
                <button id="compact" title={tr(&ctx, T::CompactHint)} onclick={act(ClusterAction::CompactNow)}>{ tr(&ctx, T::CompactNow) }</button>
                <p class="hint">{ tr(&ctx, T::CompactHint) }</p>
            </fieldset>
            <fieldset>
                <legend>{ tr(&ctx, T::Conflict) }</legend>
                <p class="hint">{ tr(&ctx, T::ConflictHint) }</p>
                <button id="conflict" onclick={act(ClusterAction::ConflictingWrite { namespace: SEED_NAMESPACE.into(), name: SEED_DEPLOYMENT.into() })}>
                    { format!("{} ({SEED_NAMESPACE}/{SEED_DEPLOYMENT})", tr(&ctx, T::RunConflict)) }</button>
                <ConflictReportView />
            </fieldset>
        </section>
    }
}

/// Kill or restore a node named in a field: a cluster of thousands of nodes gets no row of
/// buttons per node (its node map opens a node with the same buttons).
#[component]
fn NodeByName() -> Html {
    let ctx = use_ctx();
    let field = use_node_ref();
    let act = |what: fn(String) -> ClusterAction| {
        let (ctx, field) = (ctx.clone(), field.clone());
        Callback::from(move |_: MouseEvent| {
            ctx.dispatch(Action::Cluster(what(Fields::text(&field))))
        })
    };
    html! {
        <div class="row">
            <label class="field">{ tr(&ctx, T::NodeName) }<input id="f-node" ref={field.clone()} type="text" spellcheck="false" /></label>
            <button id="kill-node" onclick={act(ClusterAction::KillNode)}>{ tr(&ctx, T::Kill) }</button>
            <button id="restore-node" onclick={act(ClusterAction::RestoreNode)}>{ tr(&ctx, T::Restore) }</button>
            <button id="drain-node" data-drain="" title={tr(&ctx, T::DrainHint)} onclick={act(ClusterAction::DrainNode)}>{ tr(&ctx, T::Drain) }</button>
        </div>
    }
}

/// The last action's result.
#[component]
fn Result() -> Html {
    let ctx = use_ctx();
    let (class, text) = match &ctx.notice {
        None => return html! { <p id="result" class="result"></p> },
        Some(Notice::Done { revision }) => {
            ("ok", fill(&ctx, T::ActionDone, &[&revision.to_string()]))
        }
        Some(Notice::Failed {
            reason, message, ..
        }) => ("err", server_error(reason, message)),
        Some(Notice::NothingScheduled) => ("muted", tr(&ctx, T::NoTimer).to_string()),
        Some(Notice::Drained(report)) => return drain_result(&ctx, report),
    };
    html! { <p id="result" class={classes!("result", class)} aria-live="polite">{ text }</p> }
}

/// The Drain button's result: the counts, then each pod in kubectl's words (`pod/x evicted`,
/// a refusal as kubectl's eviction error with the server's message).
fn drain_result(ctx: &Ctx, r: &DrainReport) -> Html {
    let class = if r.refused.is_empty() { "ok" } else { "err" };
    let counts = [
        r.node.clone(),
        r.evicted.len().to_string(),
        r.refused.len().to_string(),
        r.revision.to_string(),
    ];
    let counts: Vec<&str> = counts.iter().map(String::as_str).collect();
    let name = |who: &str| {
        who.split_once('/')
            .map_or((String::new(), who.to_string()), |(n, p)| {
                (n.to_string(), p.to_string())
            })
    };
    html! {
        <div id="result" class={classes!("result", class)} aria-live="polite" data-drained={r.node.clone()}>
            <p>{ fill(ctx, T::DrainDone, &counts) }</p>
            <ul id="drain-report">
                { for r.evicted.iter().map(|who| html! {
                    <li data-evicted={who.clone()}>{ format!("pod/{} evicted", name(who).1) }</li>
                }) }
                { for r.refused.iter().map(|(who, message)| {
                    let (ns, pod) = name(who);
                    html! { <li data-refused={who.clone()}>{ format!("error when evicting pods/\"{pod}\" -n \"{ns}\": {message}") }</li> }
                }) }
            </ul>
        </div>
    }
}

/// kubectl's rendering of a server error (`Error from server (NotFound): ...`).
pub fn server_error(reason: &str, message: &str) -> String {
    if reason.is_empty() {
        format!("Error from server: {message}")
    } else {
        format!("Error from server ({reason}): {message}")
    }
}

/// The conflict, step by step.
#[component]
fn ConflictReportView() -> Html {
    let ctx = use_ctx();
    let report = use_node_ref();
    {
        // Bring the story into view when a new conflict was run.
        let report = report.clone();
        let key = ctx.conflict.as_ref().map(|c| c.retry_revision);
        use_effect_with(key, move |_| {
            if let Some(el) = report.cast::<web_sys::Element>() {
                el.scroll_into_view();
            }
        });
    }
    let Some(c) = ctx.conflict.clone() else {
        return html! {};
    };
    html! {
        <ol id="conflict-report" class="steps" ref={report}>
            <li>{ fill(&ctx, T::ConflictStep1, &[&c.read_revision.to_string()]) }</li>
            <li>{ fill(&ctx, T::ConflictStep2, &[&c.winner_revision.to_string()]) }</li>
            <li>{ tr(&ctx, T::ConflictStep3) }<pre class="error" id="conflict-409">{ format!("Error from server (Conflict): {}", c.loser_message) }</pre></li>
            <li>{ fill(&ctx, T::ConflictStep4, &[&c.winner_revision.to_string(), &c.retry_revision.to_string()]) }</li>
        </ol>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn labels_parse_from_the_form_syntax() {
        assert_eq!(
            parse_labels(" app=nginx, tier = front ,,solo"),
            vec![
                ("app".to_string(), "nginx".to_string()),
                ("tier".to_string(), "front".to_string()),
                ("solo".to_string(), String::new())
            ]
        );
        assert!(parse_labels("").is_empty());
        let built_in = Kind::ALL;
        assert_eq!(parse_kind(&built_in, "node"), Kind::Node);
        assert_eq!(parse_kind(&built_in, "??"), Kind::Pod);
        // Every choice is a served kind, the one it names.
        let kinds: Vec<Kind> = kind_choices(&built_in)
            .map(|k| parse_kind(&built_in, &k))
            .collect();
        assert_eq!(kinds, Kind::ALL);
        assert!(
            kind_choices(&built_in).any(|k| k == "configmap")
                && kind_choices(&built_in).any(|k| k == "deployment")
        );
    }

    #[test]
    fn kubectl_buttons_type_their_command_with_the_form_quoted() {
        let form = KubectlForm {
            namespace: "production".into(),
            name: "orders-api".into(),
            image: "busybox:1.36".into(),
            port: "80".into(),
            target_port: "8080".into(),
            cascade: "orphan".into(),
        };
        let lines: Vec<String> = KubectlButton::ALL.iter().map(|b| b.line(&form)).collect();
        assert_eq!(
            lines,
            [
                "kubectl expose deployment orders-api -n production --port=80 --target-port=8080",
                "kubectl delete deployment orders-api -n production --cascade=orphan",
                "kubectl rollout undo deployment/orders-api -n production",
                "kubectl delete namespace production",
                "kubectl create job orders-api -n production --image=busybox:1.36",
                "kubectl create cronjob orders-api -n production --image=busybox:1.36 --schedule='*/1 * * * *'",
            ]
        );
        // Whatever is typed stays one argument: kubectl, not the shell, answers it.
        let odd = KubectlForm {
            namespace: "a b".into(),
            name: "it's".into(),
            ..form
        };
        assert_eq!(
            KubectlButton::RolloutUndo.line(&odd),
            "kubectl rollout undo deployment/'it'\\''s' -n 'a b'"
        );
        assert_eq!(
            KubectlButton::DeleteNamespace.line(&KubectlForm::default()),
            "kubectl delete namespace ''"
        );
        let ids: std::collections::HashSet<_> = KubectlButton::ALL.iter().map(|b| b.id()).collect();
        assert_eq!(ids.len(), KubectlButton::ALL.len());
    }
}
