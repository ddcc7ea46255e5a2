//! watchlab's browser app: a yew UI that drives the engine (`watchlab_engine`) from outside.
//! The engine holds every semantic; the app only turns clicks into engine actions and renders
//! what the engine reports.

pub mod components;

use std::cell::RefCell;
use std::rc::Rc;

use watchlab_engine::cluster::Cluster;
use yew::prelude::*;

use components::node_column::NodeColumn;

/// The seed every fresh playground starts from (a run is reproducible from it).
pub const DEFAULT_SEED: u64 = 7;

/// The root component.
#[component]
pub fn App() -> Html {
    // The cluster lives outside yew's state so that an action does not clone it; a counter
    // tells yew to render again after each action.
    let cluster = use_mut_ref(|| Cluster::new(DEFAULT_SEED));
    let version = use_state(|| 0u64);

    let on_create_pod = {
        let cluster = Rc::clone(&cluster);
        let version = version.clone();
        Callback::from(move |_: MouseEvent| {
            cluster.borrow_mut().create_pod("web-");
            version.set(*version + 1);
        })
    };

    let view = cluster_view(&cluster);
    html! {
        <>
            <header>
                <h1>{ "watchlab" }</h1>
                <button id="create-pod" onclick={on_create_pod}>{ "Create pod" }</button>
                <span id="pod-count" class="count">{ format!("{} pods", view.1) }</span>
            </header>
            <main>
                <section class="nodes" aria-label="nodes">{ view.0 }</section>
            </main>
        </>
    }
}

fn cluster_view(cluster: &Rc<RefCell<Cluster>>) -> (Html, usize) {
    let c = cluster.borrow();
    let columns = c
        .nodes()
        .iter()
        .map(|node| {
            let pods = c
                .pods()
                .iter()
                .filter(|p| p.node_name.as_deref() == Some(node.name.as_str()))
                .cloned()
                .collect::<Vec<_>>();
            html! { <NodeColumn key={node.name.clone()} node={node.clone()} pods={pods} /> }
        })
        .collect::<Html>();
    (columns, c.pods().len())
}

/// Mounts the app on the page's body.
pub fn run() {
    yew::Renderer::<App>::new().render();
}
