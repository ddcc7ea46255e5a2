//! Services through the real kubectl: the `kubernetes` Service's endpoints are the API server's
//! (10.0.0.1:6443, `get ep`, `get endpointslices`); `kubectl expose` puts a ClusterIP from 10.96.0.0/12 in
//! front of a Deployment, the EndpointSlice and Endpoints controllers list its pods' IPs
//! (`get endpointslices`, `get ep`), scaling down takes the gone pods out, `describe svc` prints
//! what the console's kubectl prints, a Secret's stringData reads back as base64 data, and a
//! port out of range gets the API server's text. The virtual clock runs 10× the wall clock.

mod common;

use common::{wait_until, TestServer};
use std::net::Ipv4Addr;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

/// The IPs of the ready pods labelled `app=web` that are not being deleted, sorted.
fn ready_pod_ips(s: &TestServer) -> Vec<String> {
    let out = s.ok(&[
        "get",
        "pods",
        "-l",
        "app=web",
        "-o",
        r#"jsonpath={range .items[*]}{.metadata.deletionTimestamp}/{.status.podIP}/{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}"#,
    ]);
    let mut ips: Vec<String> = out
        .lines()
        .filter_map(|l| l.strip_prefix('/')?.strip_suffix("/True"))
        .filter(|ip| !ip.is_empty())
        .map(String::from)
        .collect();
    ips.sort();
    ips
}

/// The ready addresses of the Service's EndpointSlices, as `kubectl get endpointslices`
/// reads them, sorted.
fn slice_ips(s: &TestServer, service: &str) -> Vec<String> {
    let out = s.ok(&[
        "get",
        "endpointslices",
        "-l",
        &format!("kubernetes.io/service-name={service}"),
        "-o",
        r#"jsonpath={range .items[*].endpoints[?(@.conditions.ready==true)]}{.addresses[0]}{"\n"}{end}"#,
    ]);
    let mut ips: Vec<String> = out.lines().map(String::from).collect();
    ips.sort();
    ips
}

/// The ENDPOINTS cell of `kubectl get ep NAME`, split and sorted.
fn endpoints_cell(s: &TestServer, name: &str) -> Vec<String> {
    let row = s.ok(&["get", "ep", name, "--no-headers"]);
    let mut cells: Vec<String> = row
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split(',')
        .map(String::from)
        .collect();
    cells.sort();
    cells
}

/// Each line of a report with its runs of spaces made one (the columns' width aside).
fn lines_of(report: &str) -> Vec<String> {
    report
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

fn with_port(ips: &[String]) -> Vec<String> {
    ips.iter().map(|ip| format!("{ip}:80")).collect()
}

/// Waits until `n` pods are ready and the slices and Endpoints list exactly their IPs.
fn endpoints_follow(s: &TestServer, n: usize) -> Vec<String> {
    wait_until(
        &format!("{n} ready pods in the slices and ep"),
        WAIT,
        || {
            let pods = ready_pod_ips(s);
            (pods.len() == n
                && slice_ips(s, "web") == pods
                && endpoints_cell(s, "web") == with_port(&pods))
            .then_some(pods)
        },
    )
}

#[test]
fn expose_get_describe_scale_and_bad_ports() {
    if !common::kubectl_available("expose_get_describe_scale_and_bad_ports") {
        return;
    }
    let s = TestServer::at_speed(10.0);

    // Before anything is created: the `kubernetes` Service's endpoints are the API server's
    // address and secure port, as its endpoint reconciler writes them.
    let without_age = |out: &str| -> Vec<String> {
        out.lines()
            .map(|l| {
                let mut cells: Vec<&str> = l.split_whitespace().collect();
                cells.pop();
                cells.join(" ")
            })
            .collect()
    };
    let slices = s.ok(&["get", "endpointslices", "-n", "default"]);
    assert_eq!(
        without_age(&slices),
        [
            "NAME ADDRESSTYPE PORTS ENDPOINTS",
            "kubernetes IPv4 6443 10.0.0.1"
        ],
        "{slices}"
    );
    let ep = s.ok(&["get", "ep", "kubernetes"]);
    assert_eq!(
        without_age(&ep),
        ["NAME ENDPOINTS", "kubernetes 10.0.0.1:6443"],
        "{ep}"
    );
    assert_eq!(
        s.ok(&[
            "get",
            "endpointslice",
            "kubernetes",
            "-o",
            "jsonpath={.metadata.labels}",
        ]),
        r#"{"kubernetes.io/service-name":"kubernetes"}"#
    );
    assert_eq!(
        without_age(&s.console("kubectl get ep kubernetes")),
        without_age(&ep)
    );

    s.create_deployment("web", "nginx:1.27", 3, &["--port=80"]);
    assert_eq!(
        s.ok(&["expose", "deployment", "web", "--port=80"]),
        "service/web exposed\n"
    );

    // A ClusterIP from the service CIDR (10.96.0.0/12), shown in kubectl's columns.
    let ip = s.ok(&["get", "svc", "web", "-o", "jsonpath={.spec.clusterIP}"]);
    let parsed: Ipv4Addr = ip.parse().unwrap_or_else(|e| panic!("{ip:?}: {e}"));
    let [a, b, ..] = parsed.octets();
    assert!(
        a == 10 && (96..112).contains(&b),
        "{ip} not in 10.96.0.0/12"
    );
    let table = s.ok(&["get", "svc", "web"]);
    let mut lines = table.lines();
    assert_eq!(
        lines
            .next()
            .map(|h| h.split_whitespace().collect::<Vec<_>>()),
        Some(vec![
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ])
    );
    let row: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(
        row[..5],
        ["web", "ClusterIP", ip.as_str(), "<none>", "80/TCP"]
    );

    // The slices and the Endpoints list the pods' IPs.
    let ips = endpoints_follow(&s, 3);
    let slices = s.ok(&["get", "endpointslices", "--no-headers"]);
    let slice_row: Vec<&str> = slices
        .lines()
        .find(|l| l.starts_with("web-"))
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(slice_row[1..3], ["IPv4", "80"], "{slices}");
    let mut listed: Vec<&str> = slice_row[3].split(',').collect();
    listed.sort();
    assert_eq!(listed, ips, "{slices}");

    // describe: the real kubectl's report, line for line the console's.
    let described = s.ok(&["describe", "svc", "web"]);
    for line in [
        "Name: web".to_string(),
        "Namespace: default".to_string(),
        "Labels: app=web".to_string(),
        "Annotations: <none>".to_string(),
        "Selector: app=web".to_string(),
        "Type: ClusterIP".to_string(),
        "IP Family Policy: SingleStack".to_string(),
        "IP Families: IPv4".to_string(),
        format!("IP: {ip}"),
        format!("IPs: {ip}"),
        "Port: <unset> 80/TCP".to_string(),
        "TargetPort: 80/TCP".to_string(),
        "Session Affinity: None".to_string(),
        "Internal Traffic Policy: Cluster".to_string(),
        "Events: <none>".to_string(),
    ] {
        assert!(
            lines_of(&described).contains(&line),
            "{line:?} not in:\n{described}"
        );
    }
    let mut endpoints: Vec<String> = lines_of(&described)
        .iter()
        .find_map(|l| l.strip_prefix("Endpoints: "))
        .unwrap_or_default()
        .split(',')
        .map(String::from)
        .collect();
    endpoints.sort();
    assert_eq!(endpoints, with_port(&ips), "{described}");
    assert_eq!(s.console("kubectl describe svc web"), described);

    // One comma list of kinds: each kind's table, names prefixed with the resource, the same from
    // the real kubectl and the console (AGE left out: the clock runs between the two calls).
    let listed = s.ok(&["get", "svc,ep,endpointslices"]);
    for name in [
        "service/web ",
        "endpoints/web ",
        "endpointslice.discovery.k8s.io/web-",
    ] {
        assert!(listed.contains(name), "{name:?} not in:\n{listed}");
    }
    for row in [
        "service/kubernetes ClusterIP 10.96.0.1 <none> 443/TCP",
        "endpoints/kubernetes 10.0.0.1:6443",
        "endpointslice.discovery.k8s.io/kubernetes IPv4 6443 10.0.0.1",
    ] {
        assert!(
            without_age(&listed).iter().any(|l| l == row),
            "{row:?} not in:\n{listed}"
        );
    }
    assert_eq!(
        without_age(&s.console("kubectl get svc,ep,endpointslices")),
        without_age(&listed)
    );

    // Scaled down: the endpoints follow.
    s.ok(&["scale", "deployment", "web", "--replicas=1"]);
    let left = endpoints_follow(&s, 1);
    assert!(ips.contains(&left[0]), "{left:?} not among {ips:?}");

    // A NodePort Service: its port from 30000-32767, described alike.
    assert_eq!(
        s.ok(&[
            "expose",
            "deployment",
            "web",
            "--name=web-np",
            "--type=NodePort",
            "--port=8080",
            "--target-port=80",
        ]),
        "service/web-np exposed\n"
    );
    let node_port: u16 = s
        .ok(&[
            "get",
            "svc",
            "web-np",
            "-o",
            "jsonpath={.spec.ports[0].nodePort}",
        ])
        .parse()
        .unwrap_or(0);
    assert!((30000..=32767).contains(&node_port), "{node_port}");
    let described = wait_until("web-np's endpoint", WAIT, || {
        let d = s.ok(&["describe", "svc", "web-np"]);
        lines_of(&d)
            .contains(&format!("Endpoints: {}:80", left[0]))
            .then_some(d)
    });
    for line in [
        "Type: NodePort".to_string(),
        "Port: <unset> 8080/TCP".to_string(),
        "TargetPort: 80/TCP".to_string(),
        format!("NodePort: <unset> {node_port}/TCP"),
        "External Traffic Policy: Cluster".to_string(),
    ] {
        assert!(
            lines_of(&described).contains(&line),
            "{line:?} not in:\n{described}"
        );
    }
    assert_eq!(s.console("kubectl describe service web-np"), described);

    // A port out of range (and the target port, which defaults to it): the API server's 422
    // with both causes, as kubectl prints it (and the console).
    let bad = s.kubectl(&["expose", "deployment", "web", "--name=bad", "--port=70000"]);
    assert_eq!(bad.code, 1);
    assert_eq!(
        bad.stderr,
        "The Service \"bad\" is invalid: \n\
         * spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n\
         * spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n"
    );
    let (out, err) = s.console_run("kubectl expose deployment web --name=bad --port=70000");
    assert_eq!((out.as_str(), err.as_str()), ("", bad.stderr.as_str()));
    let missing = s.kubectl(&["get", "svc", "bad"]);
    assert_eq!(
        missing.stderr,
        "Error from server (NotFound): services \"bad\" not found\n"
    );
}

#[test]
fn a_secrets_string_data_reads_back_as_base64_data() {
    if !common::kubectl_available("a_secrets_string_data_reads_back_as_base64_data") {
        return;
    }
    let s = TestServer::start();
    let manifest = s.write(
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: s3cret\ndata:\n  user: YWRtaW4=\n",
    );
    assert_eq!(
        s.ok(&[
            "apply",
            "--validate=false",
            "-f",
            &manifest.to_string_lossy()
        ]),
        "secret/db created\n"
    );
    // "s3cret" in base64; stringData is merged into data and never stored.
    assert_eq!(
        s.ok(&[
            "get",
            "secret",
            "db",
            "-o",
            "jsonpath={.data.password} {.data.user} {.type}"
        ]),
        "czNjcmV0 YWRtaW4= Opaque"
    );
    assert_eq!(
        s.ok(&["get", "secret", "db", "-o", "jsonpath={.stringData}"]),
        ""
    );
    let row = s.ok(&["get", "secret", "db", "--no-headers"]);
    assert_eq!(
        row.split_whitespace().take(3).collect::<Vec<_>>(),
        ["db", "Opaque", "2"]
    );
}
