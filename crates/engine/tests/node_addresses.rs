//! Addresses at a size past a /24's worth of nodes: every node's InternalIP and podCIDR, and
//! every pod's IP, is a valid IPv4 address, distinct, and inside its node's CIDR — what kubectl
//! `get pods -o wide`, the EndpointSlices and kube-proxy's rules show at 260 nodes.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};

fn list(c: &mut Cluster, path: &str) -> Vec<serde_json::Value> {
    let r = c.session("kubectl").request("GET", path, None, None);
    assert!(r.is_success(), "{path}: {}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
    v["items"].as_array().cloned().unwrap_or_default()
}

fn ipv4(v: &serde_json::Value) -> Ipv4Addr {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an IPv4 address: {v}"))
}

#[test]
fn two_hundred_and_sixty_nodes_and_their_pods_have_valid_distinct_addresses() {
    let nodes: Vec<String> = (0..260).map(|i| format!("node-{i:03}")).collect();
    let mut c = Cluster::new(ClusterConfig {
        nodes,
        seed_objects: false,
        ..ClusterConfig::default()
    });
    c.apply(Action::CreateDeployment {
        namespace: "default".into(),
        name: "web".into(),
        image: "nginx:1.27".into(),
        replicas: 520,
        labels: vec![],
    })
    .expect("create");
    let t = c.now().plus_secs(60);
    c.advance_to(t);

    let mut cidr_of = std::collections::BTreeMap::new();
    let mut internal = BTreeSet::new();
    for n in list(&mut c, "/api/v1/nodes") {
        let ip = ipv4(&n["status"]["addresses"][0]["address"]);
        assert!(internal.insert(ip), "{ip} twice");
        let cidr = n["spec"]["podCIDR"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let net = ipv4(&serde_json::json!(cidr.trim_end_matches("/24")));
        assert!(cidr.ends_with("/24") && net.octets()[3] == 0, "{cidr}");
        let name = n["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        cidr_of.insert(name, net);
    }
    assert_eq!(internal.len(), 260);
    assert_eq!(cidr_of.values().collect::<BTreeSet<_>>().len(), 260);
    assert!(
        internal.contains(&Ipv4Addr::new(10, 0, 1, 5)),
        "the 260th node"
    );

    let pods = list(&mut c, "/api/v1/namespaces/default/pods");
    let mut ips = BTreeSet::new();
    for p in &pods {
        assert_eq!(p["status"]["phase"], "Running", "{}", p["metadata"]["name"]);
        let ip = ipv4(&p["status"]["podIP"]);
        let node = p["spec"]["nodeName"].as_str().unwrap_or_default();
        let net = cidr_of[node].octets();
        assert_eq!(ip.octets()[..3], net[..3], "{ip} outside {node}'s CIDR");
        assert!((2..=254).contains(&ip.octets()[3]), "{ip}");
        assert!(ips.insert(ip), "{ip} twice");
    }
    assert_eq!(ips.len(), 520);
}
