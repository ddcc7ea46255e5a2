//! The whole-cluster run exported to JavaScript, so headless Chromium runs the same code as the
//! native benchmark (`scripts/bench_wasm.mjs` loads it, times each call with `performance.now()`
//! and reads the linear memory's size afterwards). The converged cluster of the last run is kept
//! for [`steady_state`], the second call the page times; one per module instance (a page runs
//! one benchmark at a time), so this is the only state the crate holds.

use std::cell::RefCell;

use wasm_bindgen::prelude::wasm_bindgen;
use watchlab_engine::cluster::{Cluster, ProfileName};

thread_local! {
    static CONVERGED: RefCell<Option<Cluster>> = const { RefCell::new(None) };
}

/// Runs [`crate::converge`] with the `Training` profile and returns its fields as a JSON
/// object; keeps the cluster when it converged.
#[wasm_bindgen]
pub fn whole_cluster(nodes: u32, pods: u32) -> String {
    let nodes = usize::try_from(nodes).unwrap_or(usize::MAX);
    CONVERGED.with(|kept| kept.borrow_mut().take());
    let (cluster, run) = crate::converge(nodes, pods, ProfileName::Training);
    let json = format!("{{{}}}", run.json_fields());
    if run.converged {
        CONVERGED.with(|kept| *kept.borrow_mut() = Some(cluster));
    }
    json
}

/// [`crate::steady_state`] of the last converged cluster for `seconds` of virtual time: the
/// writes it made, or -1 when no cluster converged.
#[wasm_bindgen]
pub fn steady_state(seconds: u32) -> f64 {
    CONVERGED.with(|kept| {
        kept.borrow_mut().as_mut().map_or(-1.0, |cluster| {
            crate::steady_state(cluster, u64::from(seconds)) as f64
        })
    })
}
