//! PodDisruptionBudgets from the console: `kubectl create poddisruptionbudget` as kubectl's
//! generator builds one (selector parsed as `metav1.ParseToLabelSelector`, a bound as
//! `intstr.Parse`), its refusals with kubectl's texts, and `get` / `describe` once the
//! disruption controller has counted.

use watchlab_engine::controllers::{Harness, Profile};
use watchlab_kubectl::Kubectl;

#[test]
fn create_pdb_builds_the_budget_and_get_and_describe_show_its_counts() {
    let mut h = Harness::new(6, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    let mut k = Kubectl::new();
    let out = k.exec(
        "kubectl create deployment web --image=nginx:1.27 --replicas=3",
        &mut h.api,
    );
    assert_eq!(out.stderr, "");
    let out = k.exec(
        "kubectl create pdb web --selector=app=web --min-available=2",
        &mut h.api,
    );
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        ("poddisruptionbudget.policy/web created\n", "")
    );
    let out = k.exec(
        "kubectl create poddisruptionbudget half --selector='app in (web),tier' --max-unavailable=50%",
        &mut h.api,
    );
    assert_eq!(out.stderr, "");
    let spec = k
        .exec("kubectl get pdb half -o jsonpath='{.spec}'", &mut h.api)
        .stdout;
    let spec: serde_json::Value = serde_json::from_str(&spec).unwrap_or_default();
    assert_eq!(
        spec,
        serde_json::json!({"maxUnavailable": "50%", "selector": {"matchExpressions": [
            {"key": "app", "operator": "In", "values": ["web"]},
            {"key": "tier", "operator": "Exists"}]}})
    );
    h.run_for(30_000);
    let table = k.exec("kubectl get pdb", &mut h.api).stdout;
    let lines: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        lines.first().map(|l| l.join(" ")),
        Some("NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE".to_string())
    );
    assert!(
        lines.iter().any(|l| l[..4] == ["web", "2", "N/A", "1"]),
        "{table}"
    );
    let described = k.exec("kubectl describe pdb web", &mut h.api).stdout;
    assert!(
        described.starts_with(
            "Name:           web\nNamespace:      default\nMin available:  2\nSelector:       app=web\nStatus:\n"
        ),
        "{described}"
    );
    assert!(
        described.contains("    Allowed disruptions:  1\n"),
        "{described}"
    );
}

#[test]
fn create_pdb_refuses_what_kubectl_refuses() {
    let mut h = Harness::new(6, &Profile::training(), &["node-a"]);
    let mut k = Kubectl::new();
    for (line, text) in [
        (
            "kubectl create pdb a --selector=app=x",
            "error: one of min-available or max-unavailable must be specified\n",
        ),
        (
            "kubectl create pdb a --selector=app=x --min-available=1 --max-unavailable=1",
            "error: min-available and max-unavailable cannot be both specified\n",
        ),
        (
            "kubectl create pdb a --selector=app=x --min-available=10Gb",
            "error: invalid format specified for min-available\n",
        ),
        (
            "kubectl create pdb a --selector=app!=x --min-available=1",
            "error: \"!=\" is not a valid label selector operator\n",
        ),
    ] {
        let out = k.exec(line, &mut h.api);
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str()),
            ("", text),
            "{line}"
        );
    }
    let out = k.exec("kubectl get pdb", &mut h.api);
    assert_eq!(out.stderr, "No resources found in default namespace.\n");
}
