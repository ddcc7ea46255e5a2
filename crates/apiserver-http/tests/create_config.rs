//! `kubectl create configmap|secret|service` through the HTTP server: kubectl v1.32 sends these
//! bodies as protobuf (`application/vnd.kubernetes.protobuf`); the server decodes them, so the
//! objects are created, read back (a Secret's `data` as base64), and listed with kubectl's
//! columns.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{kubectl_available, TestServer};

/// A `get --no-headers` line split into its cells.
fn cells(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn kubectl_create_configmap_from_literals() {
    if !kubectl_available("kubectl_create_configmap_from_literals") {
        return;
    }
    let s = TestServer::start();
    assert_eq!(
        s.ok(&[
            "create",
            "configmap",
            "settings",
            "--from-literal=color=blue",
            "--from-literal=size=3",
        ])
        .trim(),
        "configmap/settings created"
    );
    let data = s.ok(&["get", "configmap", "settings", "-o", "jsonpath={.data}"]);
    assert_eq!(data, r#"{"color":"blue","size":"3"}"#);
    let yaml = s.ok(&["get", "cm", "settings", "-o", "yaml"]);
    assert!(yaml.contains("  color: blue\n"), "{yaml}");
    let row = s.ok(&["get", "cm", "settings", "--no-headers"]);
    let row = cells(&row);
    assert_eq!(
        row.get(..2),
        Some(&["settings".to_string(), "2".into()][..])
    );
    let header = s.ok(&["get", "cm", "settings"]);
    assert!(header.starts_with("NAME       DATA   AGE\n"), "{header}");
    // The same name again is the engine's conflict, as kubectl prints it.
    let again = s.kubectl(&["create", "configmap", "settings", "--from-literal=a=b"]);
    assert_eq!(again.code, 1);
    assert!(
        again
            .stderr
            .contains(r#"configmaps "settings" already exists"#),
        "{}",
        again.stderr
    );
}

#[test]
fn kubectl_create_secret_generic_reads_back_as_base64() {
    if !kubectl_available("kubectl_create_secret_generic_reads_back_as_base64") {
        return;
    }
    let s = TestServer::start();
    assert_eq!(
        s.ok(&[
            "create",
            "secret",
            "generic",
            "db",
            "--from-literal=password=hunter2",
            "--from-literal=user=admin",
        ])
        .trim(),
        "secret/db created"
    );
    // base64("hunter2") and base64("admin"), as the real API server stores `[]byte`.
    let yaml = s.ok(&["get", "secret", "db", "-o", "yaml"]);
    assert!(yaml.contains("  password: aHVudGVyMg==\n"), "{yaml}");
    assert!(yaml.contains("  user: YWRtaW4=\n"), "{yaml}");
    assert!(yaml.contains("type: Opaque\n"), "{yaml}");
    let row = cells(&s.ok(&["get", "secret", "db", "--no-headers"]));
    assert_eq!(
        row.get(..3),
        Some(&["db".to_string(), "Opaque".into(), "2".into()][..])
    );
    let header = s.ok(&["get", "secrets"]);
    assert!(
        header.starts_with("NAME   TYPE     DATA   AGE\n"),
        "{header}"
    );
    // A key kubectl accepts but the server's validation refuses never creates anything.
    let tls = s.kubectl(&[
        "create",
        "secret",
        "generic",
        "half-tls",
        "--type=kubernetes.io/tls",
        "--from-literal=tls.crt=x",
    ]);
    assert_eq!(tls.code, 1, "{}", tls.stdout);
    assert!(
        tls.stderr.contains("data[tls.key]: Required value"),
        "{}",
        tls.stderr
    );
    let missing = s.kubectl(&["get", "secret", "half-tls"]);
    assert_eq!(missing.code, 1);
}

#[test]
fn kubectl_create_service_of_each_type() {
    if !kubectl_available("kubectl_create_service_of_each_type") {
        return;
    }
    let s = TestServer::start();
    for (args, created) in [
        (
            &["clusterip", "web", "--tcp=80:8080"][..],
            "service/web created",
        ),
        (
            &["clusterip", "headless", "--clusterip=None"],
            "service/headless created",
        ),
        (
            &["nodeport", "np", "--tcp=80:8080", "--node-port=30080"],
            "service/np created",
        ),
        (
            &["externalname", "ext", "--external-name=example.com"],
            "service/ext created",
        ),
    ] {
        let mut all = vec!["create", "service"];
        all.extend_from_slice(args);
        assert_eq!(s.ok(&all).trim(), created);
    }
    let web = s.ok(&[
        "get",
        "svc",
        "web",
        "-o",
        "jsonpath={.spec.type} {.spec.selector.app} {.spec.ports[0].name} {.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.ports[0].protocol}",
    ]);
    assert_eq!(web, "ClusterIP web 80-8080 80 8080 TCP");
    // TYPE, CLUSTER-IP, EXTERNAL-IP and PORT(S) as kubectl prints them.
    let rows: Vec<Vec<String>> = s
        .ok(&["get", "svc", "--no-headers"])
        .lines()
        .map(cells)
        .collect();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.first().is_some_and(|n| n == name))
            .unwrap_or_else(|| panic!("no row for {name}: {rows:?}"))
            .clone()
    };
    assert_eq!(row("web").get(1).map(String::as_str), Some("ClusterIP"));
    assert!(row("web")[2].starts_with("10."), "{:?}", row("web"));
    assert_eq!(row("web")[4], "80/TCP");
    assert_eq!(row("headless")[2..5], ["None", "<none>", "<none>"]);
    assert_eq!(row("np")[1], "NodePort");
    assert_eq!(row("np")[4], "80:30080/TCP");
    assert_eq!(
        row("ext")[1..5],
        ["ExternalName", "<none>", "example.com", "<none>"]
    );
    // The engine's port validation answers a taken node port, as kubectl prints it.
    let taken = s.kubectl(&[
        "create",
        "service",
        "nodeport",
        "np2",
        "--tcp=81:8080",
        "--node-port=30080",
    ]);
    assert_eq!(taken.code, 1);
    assert!(
        taken.stderr.contains("provided port is already allocated"),
        "{}",
        taken.stderr
    );
}
