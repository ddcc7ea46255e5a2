//! The console's kubectl against a live engine for the tests: two nodes with their kubelets
//! and every controller (`Harness`), five seconds in, and the helpers that run one line.

#![allow(dead_code)]

use watchlab_engine::controllers::{Harness, Profile};
use watchlab_kubectl::Kubectl;

/// Two nodes, five seconds in.
pub fn cluster() -> (Harness, Kubectl) {
    let mut h = Harness::new(11, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(5_000);
    (h, Kubectl::new())
}

/// stdout and stderr of one line.
pub fn run(k: &mut Kubectl, h: &mut Harness, line: &str) -> (String, String) {
    let out = k.exec(line, &mut h.api);
    (out.stdout, out.stderr)
}

/// A line that must succeed: its stdout.
pub fn ok(k: &mut Kubectl, h: &mut Harness, line: &str) -> String {
    let (out, err) = run(k, h, line);
    assert_eq!(err, "", "{line}");
    out
}

/// `kubectl get WHAT -o jsonpath='PATH'`.
pub fn jsonpath(k: &mut Kubectl, h: &mut Harness, what: &str, path: &str) -> String {
    ok(k, h, &format!("kubectl get {what} -o jsonpath='{path}'"))
}
