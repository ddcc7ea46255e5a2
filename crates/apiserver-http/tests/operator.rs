//! The example Website operator with the real kubectl v1.32 against watchlab-apiserver: the
//! definition applied shows in `kubectl api-resources`, a Website applied becomes the operator's
//! Deployment and its pods, `kubectl get websites` prints the definition's printer columns with
//! the status the operator wrote, an edit is followed, and `kubectl delete website` lets the
//! garbage collector remove the Deployment. Skipped (with a note) without kubectl.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{kubectl_available, TestServer};
use std::time::{Duration, Instant};
use watchlab_engine::controllers::website::{CRD_YAML, WEBSITE_YAML};

fn wait_until<T>(what: &str, max: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + max;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `kubectl get websites` as rows of words.
fn websites(s: &TestServer) -> Vec<Vec<String>> {
    s.ok(&["get", "websites"])
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn kubectl_drives_the_website_operator() {
    if !kubectl_available("kubectl_drives_the_website_operator") {
        return;
    }
    // Ten virtual seconds per second: pods start in well under a second of wall time.
    let s = TestServer::at_speed(10.0);
    let before = s.ok(&["api-resources"]);
    assert!(!before.contains("websites"), "{before}");
    let crd = s.write("crd.yaml", CRD_YAML);
    assert_eq!(
        s.ok(&[
            "apply",
            "--validate=false",
            "-f",
            crd.to_str().unwrap_or_default()
        ])
        .trim(),
        "customresourcedefinition.apiextensions.k8s.io/websites.examples.watchlab.dev created"
    );
    let after = s.ok(&["api-resources", "--api-group=examples.watchlab.dev"]);
    assert!(
        after
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == [
                    "websites",
                    "ws",
                    "examples.watchlab.dev/v1",
                    "true",
                    "Website"
                ]),
        "{after}"
    );

    let site = s.write("website.yaml", WEBSITE_YAML);
    let site = site.to_str().unwrap_or_default();
    assert_eq!(
        s.ok(&["apply", "--validate=false", "-f", site]).trim(),
        "website.examples.watchlab.dev/blog created"
    );
    // The operator's Deployment, owned by the Website.
    let owner = wait_until("the Deployment blog", Duration::from_secs(20), || {
        let r = s.kubectl(&[
            "get",
            "deployment",
            "blog",
            "-o",
            "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}",
        ]);
        (r.code == 0).then_some(r.stdout)
    });
    assert_eq!(owner, "Website/blog");
    // Its pods run, and the Website's status says so in the printer columns.
    let rows = wait_until("2 available", Duration::from_secs(30), || {
        let rows = websites(&s);
        (rows.get(1).and_then(|r| r.get(3)).map(String::as_str) == Some("2")).then_some(rows)
    });
    assert_eq!(rows[0], ["NAME", "IMAGE", "DESIRED", "AVAILABLE", "AGE"]);
    assert_eq!(rows[1][..4], ["blog", "nginx:1.27", "2", "2"]);
    let pods = s.ok(&["get", "pods", "-l", "website=blog", "--no-headers"]);
    assert_eq!(
        pods.lines().filter(|l| l.contains("Running")).count(),
        2,
        "{pods}"
    );

    // An edit is followed by the Deployment.
    assert_eq!(
        s.ok(&[
            "patch",
            "website",
            "blog",
            "--type=merge",
            "-p",
            r#"{"spec":{"replicas":3}}"#
        ])
        .trim(),
        "website.examples.watchlab.dev/blog patched"
    );
    wait_until("3 available", Duration::from_secs(30), || {
        let rows = websites(&s);
        (rows.get(1).map(|r| r[..4.min(r.len())].to_vec())
            == Some(vec![
                "blog".into(),
                "nginx:1.27".into(),
                "3".into(),
                "3".into(),
            ]))
        .then_some(())
    });
    assert_eq!(
        s.ok(&[
            "get",
            "deployment",
            "blog",
            "-o",
            "jsonpath={.spec.replicas}"
        ]),
        "3"
    );

    // Deleting the Website: the garbage collector removes the Deployment and its pods.
    assert_eq!(
        s.ok(&["delete", "website", "blog"]).trim(),
        "website.examples.watchlab.dev \"blog\" deleted"
    );
    wait_until("the Deployment gone", Duration::from_secs(30), || {
        let r = s.kubectl(&["get", "deployment", "blog"]);
        r.stderr
            .contains("deployments.apps \"blog\" not found")
            .then_some(())
    });
    wait_until("the pods gone", Duration::from_secs(30), || {
        s.ok(&["get", "pods", "-l", "website=blog", "--no-headers"])
            .trim()
            .is_empty()
            .then_some(())
    });
}
