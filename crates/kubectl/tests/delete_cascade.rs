//! `kubectl delete --cascade`: each mode becomes the DeleteOptions propagationPolicy kubectl
//! sends; the old booleans still work with kubectl's deprecation warning; a bad value is refused
//! before anything is sent.

mod fake;

use fake::{pod, running, FakeApi};
use serde_json::Value;
use watchlab_kubectl::Kubectl;

const POD: &str = "/api/v1/namespaces/default/pods/web";

fn sent_policy(api: &FakeApi) -> Value {
    let body: Value =
        serde_json::from_str(api.last().body.as_deref().unwrap_or("null")).unwrap_or(Value::Null);
    body["propagationPolicy"].clone()
}

#[test]
fn each_cascade_mode_is_sent_as_the_propagation_policy() {
    let mut k = Kubectl::new();
    for (flag, policy, warning) in [
        ("", "Background", ""),
        (" --cascade", "Background", ""),
        (" --cascade=background", "Background", ""),
        (" --cascade=foreground", "Foreground", ""),
        (" --cascade=orphan", "Orphan", ""),
        (
            " --cascade=false",
            "Orphan",
            "warning: --cascade=false is deprecated (boolean value) and can be replaced with --cascade=orphan.\n",
        ),
        (
            " --cascade=T",
            "Background",
            "warning: --cascade=T is deprecated (boolean value) and can be replaced with --cascade=background.\n",
        ),
    ] {
        let mut api = FakeApi::new();
        api.on("DELETE", POD, 200, pod("web", "default", "Running", 0, running()));
        let out = k.exec(&format!("kubectl delete pod web{flag}"), &mut api);
        assert_eq!(out.stdout, "pod \"web\" deleted\n", "{flag}");
        assert_eq!(out.stderr, warning, "{flag}");
        assert_eq!(sent_policy(&api), policy, "{flag}");
    }
    let mut api = FakeApi::new();
    let out = k.exec("kubectl delete pod web --cascade=bogus", &mut api);
    assert_eq!(
        out.stderr,
        "error: invalid cascade value (bogus). Must be \"background\", \"foreground\", or \"orphan\"\n"
    );
    assert!(api.paths().is_empty());
}
