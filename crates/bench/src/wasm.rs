//! The whole-cluster run exported to JavaScript, so headless Chromium runs the same code as the
//! native benchmark (`scripts/bench_wasm.mjs` loads it, times the call with `performance.now()`
//! and reads the linear memory's size afterwards).

use wasm_bindgen::prelude::wasm_bindgen;

/// Runs [`crate::whole_cluster`] and returns its fields as a JSON object.
#[wasm_bindgen]
pub fn whole_cluster(nodes: u32, pods: u32) -> String {
    let nodes = usize::try_from(nodes).unwrap_or(usize::MAX);
    format!("{{{}}}", crate::whole_cluster(nodes, pods).json_fields())
}
