//! `kubectl describe poddisruptionbudget`: kubectl's `PodDisruptionBudgetDescriber` — the
//! bound that is set, the selector, and the status counts the disruption controller keeps
//! (`Allowed disruptions`, `Current`, `Desired`, `Total`).

use serde_json::Value;
use std::fmt::Write;
use watchlab_apimachinery::labels::selector_string;
use watchlab_apimachinery::unstructured::{at, int, name, namespace};

/// The describer's text (the events section is added by the caller).
pub fn describe_pod_disruption_budget(pdb: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(pdb));
    let _ = writeln!(o, "Namespace:\t{}", namespace(pdb));
    let bound = |field: &str| match at(pdb, &["spec", field]) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    if let Some(min) = bound("minAvailable") {
        let _ = writeln!(o, "Min available:\t{min}");
    } else if let Some(max) = bound("maxUnavailable") {
        let _ = writeln!(o, "Max unavailable:\t{max}");
    }
    // `metav1.FormatLabelSelector`: `<none>` for a selector selecting everything.
    let selector = match at(pdb, &["spec", "selector"]) {
        None | Some(Value::Null) => "<unset>".to_string(),
        Some(sel) => match selector_string(Some(sel)) {
            s if s.is_empty() => "<none>".to_string(),
            s => s,
        },
    };
    let _ = writeln!(o, "Selector:\t{selector}");
    o.push_str("Status:\n");
    let count = |field: &str| int(pdb, &["status", field]);
    let _ = writeln!(
        o,
        "    Allowed disruptions:\t{}",
        count("disruptionsAllowed")
    );
    let _ = writeln!(o, "    Current:\t{}", count("currentHealthy"));
    let _ = writeln!(o, "    Desired:\t{}", count("desiredHealthy"));
    let _ = writeln!(o, "    Total:\t{}", count("expectedPods"));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_bound_the_selector_and_the_counts() {
        let pdb = json!({"metadata": {"name": "web", "namespace": "default"},
            "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2,
                "expectedPods": 3}});
        let text = describe_pod_disruption_budget(&pdb);
        assert!(
            text.contains("Min available:\t2\nSelector:\tapp=web\nStatus:\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "    Allowed disruptions:\t1\n    Current:\t3\n    Desired:\t2\n    Total:\t3\n"
            ),
            "{text}"
        );
        let pdb = json!({"metadata": {"name": "all"}, "spec": {"maxUnavailable": "10%",
            "selector": {}}});
        let text = describe_pod_disruption_budget(&pdb);
        assert!(
            text.contains("Max unavailable:\t10%\nSelector:\t<none>\n"),
            "{text}"
        );
    }
}
