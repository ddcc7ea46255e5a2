//! `kubectl describe daemonset`: kubectl's `DaemonSetDescriber` (`describeDaemonSet` in
//! kubectl v1.32's `describe.go`; it prints no namespace) — the selector and the template's
//! node selector, the five
//! node counts of the DaemonSet controller's status (written without a tab, so they stand
//! outside the aligned columns, as kubectl prints them), the phases of the pods it controls,
//! and the pod template. The caller adds the Events.

use super::job::selector;
use super::{annotations_block, map_block, pod_template, pods_status, Ctx};
use serde_json::Value;
use std::fmt::Write;
use watchlab_apimachinery::unstructured::{at, int, joined_map, name, string_map};

/// The describer's text, without Events.
pub fn describe_daemon_set(ctx: &mut Ctx, ds: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(ds));
    let sel = selector(at(ds, &["spec", "selector"]));
    let _ = writeln!(o, "Selector:\t{sel}");
    let node_selector = string_map(ds, &["spec", "template", "spec", "nodeSelector"]);
    let _ = writeln!(o, "Node-Selector:\t{}", joined_map(&node_selector));
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(ds, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(ds, &["metadata", "annotations"]));
    o.push_str(&node_counts(ds));
    let _ = writeln!(o, "Pods Status:\t{}", pods_status(ctx, ds, &sel));
    pod_template(&mut o, at(ds, &["spec", "template"]));
    o
}

/// The five `Number of Nodes ...` lines, from the status.
fn node_counts(ds: &Value) -> String {
    let count = |field: &str| int(ds, &["status", field]);
    format!(
        "Desired Number of Nodes Scheduled: {}\nCurrent Number of Nodes Scheduled: {}\nNumber of Nodes Scheduled with Up-to-date Pods: {}\nNumber of Nodes Scheduled with Available Pods: {}\nNumber of Nodes Misscheduled: {}\n",
        count("desiredNumberScheduled"),
        count("currentNumberScheduled"),
        count("updatedNumberScheduled"),
        count("numberAvailable"),
        count("numberMisscheduled"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_node_counts_are_lines_without_a_cell() {
        let ds = json!({"status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3,
            "updatedNumberScheduled": 2, "numberAvailable": 1, "numberMisscheduled": 0}});
        assert_eq!(
            node_counts(&ds),
            "Desired Number of Nodes Scheduled: 3\nCurrent Number of Nodes Scheduled: 3\nNumber of Nodes Scheduled with Up-to-date Pods: 2\nNumber of Nodes Scheduled with Available Pods: 1\nNumber of Nodes Misscheduled: 0\n"
        );
    }
}
