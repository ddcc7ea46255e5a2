//! The Service chain on virtual time: a Deployment's pods become EndpointSlice endpoints and
//! Endpoints addresses, and every node's kube-proxy maps the ClusterIP to the ready ones;
//! scaling, readiness, the 100-per-slice limit and deleting the Service follow.

use serde_json::json;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::endpoint_slice::{
    EndpointSlice, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, MANAGED_BY_CONTROLLER,
};
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::{ApiServer, DeleteOptions};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::controllers::{EndpointSliceController, Harness, Profile, SharedInformers};

const NODES: [&str; 3] = ["node-a", "node-b", "node-c"];

fn object(kind: Kind, v: serde_json::Value) -> Object {
    Object::from_value(kind, v).unwrap_or_else(|e| panic!("{}", e.message()))
}

fn deployment(replicas: i32) -> Object {
    object(
        Kind::Deployment,
        json!({"metadata": {"name": "web", "namespace": "default"}, "spec": {"replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"name": "http", "containerPort": 8080}]}]}}}}),
    )
}

fn service() -> Object {
    object(
        Kind::Service,
        json!({"metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]}}),
    )
}

/// The `web` Service's slices (`default` also holds the API server's `kubernetes` slice).
fn slices(api: &ApiServer) -> Vec<EndpointSlice> {
    let opts = ListOptions {
        label_selector: LabelSelector::parse(&format!("{LABEL_SERVICE_NAME}=web"))
            .unwrap_or_default(),
        ..ListOptions::default()
    };
    api.list(Kind::EndpointSlice, Some("default"), &opts)
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_endpoint_slice().cloned())
                .collect()
        })
        .unwrap_or_default()
}

fn pod_ips(api: &ApiServer, ready_only: bool) -> Vec<String> {
    let mut ips: Vec<String> = api
        .list(Kind::Pod, Some("default"), &ListOptions::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| !p.status.pod_ip.is_empty() && p.metadata.deletion_timestamp.is_none())
                .filter(|p| {
                    !ready_only
                        || p.status
                            .conditions
                            .iter()
                            .any(|c| c.type_ == "Ready" && c.status == "True")
                })
                .map(|p| p.status.pod_ip.clone())
                .collect()
        })
        .unwrap_or_default();
    ips.sort();
    ips
}

/// The ready addresses of every slice, sorted (each listed as often as it appears).
fn ready_addresses(api: &ApiServer) -> Vec<String> {
    let mut ips: Vec<String> = slices(api)
        .iter()
        .flat_map(|s| s.endpoints.iter())
        .filter(|e| e.conditions.ready == Some(true))
        .flat_map(|e| e.addresses.iter().cloned())
        .collect();
    ips.sort();
    ips
}

fn cluster() -> Harness {
    let mut h = Harness::new(3, &Profile::training(), &NODES);
    h.run_for(5_000);
    h
}

fn quiet(h: &mut Harness, deployment_replicas: usize) {
    let deadline = h.now().plus_secs(120);
    let done = h.run_until_true(deadline, |h| {
        pod_ips(&h.api, true).len() == deployment_replicas
            && ready_addresses(&h.api) == pod_ips(&h.api, true)
    });
    assert!(
        done,
        "not converged: {:?} vs {:?}",
        ready_addresses(&h.api),
        pod_ips(&h.api, true)
    );
    h.run_for(3_000);
}

#[test]
fn a_service_follows_its_pods_into_slices_endpoints_and_every_kube_proxy() {
    let mut h = cluster();
    h.api.create("kubectl", deployment(3)).expect("deployment");
    let svc = h.api.create("kubectl", service()).expect("service");
    let cluster_ip = svc
        .as_service()
        .map(|s| s.spec.cluster_ip.clone())
        .unwrap_or_default();
    quiet(&mut h, 3);

    let all = slices(&h.api);
    assert_eq!(all.len(), 1);
    let slice = &all[0];
    assert!(slice.metadata.name.starts_with("web-"));
    assert_eq!(
        slice
            .metadata
            .labels
            .get(LABEL_SERVICE_NAME)
            .map(String::as_str),
        Some("web")
    );
    assert_eq!(
        slice
            .metadata
            .labels
            .get(LABEL_MANAGED_BY)
            .map(String::as_str),
        Some(MANAGED_BY_CONTROLLER)
    );
    let owner = slice
        .metadata
        .owner_references
        .first()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str(), owner.controller),
        ("Service", "web", Some(true))
    );
    assert_eq!(slice.address_type, "IPv4");
    assert_eq!(
        slice.ports.iter().map(|p| p.port).collect::<Vec<_>>(),
        [Some(8080)]
    );
    for e in &slice.endpoints {
        assert_eq!(
            (
                e.conditions.ready,
                e.conditions.serving,
                e.conditions.terminating
            ),
            (Some(true), Some(true), Some(false))
        );
        assert!(e.node_name.is_some() && e.target_ref.as_ref().is_some_and(|r| r.kind == "Pod"));
    }

    let ep = h
        .api
        .get(Kind::Endpoints, Some("default"), "web")
        .expect("endpoints");
    let Object::Endpoints(ep) = &*ep else {
        panic!()
    };
    let mut ips: Vec<String> = ep
        .subsets
        .iter()
        .flat_map(|s| s.addresses.iter().map(|a| a.ip.clone()))
        .collect();
    ips.sort();
    assert_eq!(ips, pod_ips(&h.api, true));
    assert_eq!(ep.subsets[0].ports[0].port, 8080);

    let expected: Vec<String> = pod_ips(&h.api, true)
        .iter()
        .map(|ip| format!("{ip}:8080"))
        .collect();
    for node in NODES {
        let rules = h
            .plane
            .kube_proxy(node)
            .map(|p| p.rules())
            .unwrap_or_default();
        let rule = rules
            .iter()
            .find(|r| r.service == "default/web")
            .expect("rule");
        assert_eq!(
            (rule.cluster_ip.as_str(), rule.port),
            (cluster_ip.as_str(), 80)
        );
        assert_eq!(rule.endpoints, expected, "{node}");
        assert!(rule.applied_at > Timestamp::ZERO);
    }

    // Quiet means quiet: nothing changes, nothing is written.
    let rv: Vec<String> = slices(&h.api)
        .iter()
        .map(|s| s.metadata.resource_version.clone())
        .collect();
    let ep_rv = h
        .api
        .get(Kind::Endpoints, Some("default"), "web")
        .map(|o| o.meta().resource_version.clone());
    h.run_for(60_000);
    let rv_after: Vec<String> = slices(&h.api)
        .iter()
        .map(|s| s.metadata.resource_version.clone())
        .collect();
    assert_eq!(rv, rv_after);
    assert_eq!(
        ep_rv.ok(),
        h.api
            .get(Kind::Endpoints, Some("default"), "web")
            .map(|o| o.meta().resource_version.clone())
            .ok()
    );

    // Scale down: the endpoints follow, in the same slice.
    let mut current = h
        .api
        .get(Kind::Deployment, Some("default"), "web")
        .expect("get")
        .as_deployment()
        .cloned()
        .expect("deployment");
    current.spec.replicas = Some(1);
    h.api.update("kubectl", current.into()).expect("scale");
    quiet(&mut h, 1);
    let after = slices(&h.api);
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].metadata.name, slice.metadata.name);
    for node in NODES {
        let rules = h
            .plane
            .kube_proxy(node)
            .map(|p| p.rules())
            .unwrap_or_default();
        assert_eq!(
            rules
                .iter()
                .find(|r| r.service == "default/web")
                .map(|r| r.endpoints.len()),
            Some(1)
        );
    }

    // The Service deleted: its slices (garbage collector), Endpoints and rules go.
    h.api
        .delete(
            "kubectl",
            Kind::Service,
            Some("default"),
            "web",
            &DeleteOptions::default(),
        )
        .expect("delete");
    h.run_for(30_000);
    assert!(slices(&h.api).is_empty());
    assert!(h.api.get(Kind::Endpoints, Some("default"), "web").is_err());
    for node in NODES {
        let rules = h
            .plane
            .kube_proxy(node)
            .map(|p| p.rules())
            .unwrap_or_default();
        assert!(rules.iter().all(|r| r.service != "default/web"), "{node}");
    }
}

#[test]
fn slices_hold_at_most_max_endpoints_each_pod_exactly_once() {
    let mut h = cluster();
    let informers = SharedInformers::new(3, &Profile::training());
    *h.plane
        .reconciler_mut::<EndpointSliceController>()
        .expect("the EndpointSlice controller runs") =
        EndpointSliceController::new(&informers).with_max_endpoints(2);
    h.api.create("kubectl", deployment(5)).expect("deployment");
    h.api.create("kubectl", service()).expect("service");
    quiet(&mut h, 5);
    let all = slices(&h.api);
    assert_eq!(all.len(), 3);
    assert!(all.iter().all(|s| s.endpoints.len() <= 2));
    assert_eq!(ready_addresses(&h.api), pod_ips(&h.api, true));
}

#[test]
fn a_service_without_pods_keeps_one_empty_slice() {
    let mut h = cluster();
    h.api.create("kubectl", service()).expect("service");
    h.run_for(10_000);
    let all = slices(&h.api);
    assert_eq!(all.len(), 1);
    assert!(all[0].endpoints.is_empty() && all[0].ports.is_empty());
}

/// The real reconciler turns a create plus a delete into an update (`finalize`): the placeholder
/// a Service gets before it has pods is filled in place, so `kubectl get endpointslices` shows
/// one slice name throughout, and no watcher sees it deleted.
#[test]
fn a_service_created_before_its_pods_fills_its_placeholder_in_place() {
    let mut h = cluster();
    h.api.create("kubectl", service()).expect("service");
    h.run_for(5_000);
    let placeholder = slices(&h.api);
    assert_eq!(placeholder.len(), 1);
    assert!(placeholder[0].endpoints.is_empty());
    h.api.create("kubectl", deployment(3)).expect("deployment");
    quiet(&mut h, 3);
    let filled = slices(&h.api);
    assert_eq!(filled.len(), 1);
    assert_eq!(filled[0].metadata.name, placeholder[0].metadata.name);
    assert_eq!(filled[0].metadata.uid, placeholder[0].metadata.uid);
    assert_eq!(filled[0].endpoints.len(), 3);
}

/// The `kubernetes` Service's backends are the API server's own (its endpoint reconciler): an
/// Endpoints and a slice named `kubernetes` with 10.0.0.1:6443, written before any controller
/// runs, left alone by the EndpointSlice and Endpoints controllers (no selector), and mapped
/// from 10.96.0.1:443 by every kube-proxy.
#[test]
fn the_kubernetes_service_s_endpoints_are_the_api_server_s() {
    let mut h = cluster();
    let writers: Vec<(String, String)> = h
        .api
        .ledger()
        .iter()
        .take(7)
        .map(|l| (l.key().clone(), l.user.to_string()))
        .collect();
    let kube_apiserver = |key: &str| (key.to_string(), "kube-apiserver".to_string());
    assert_eq!(
        writers[4..],
        [
            kube_apiserver("/registry/services/specs/default/kubernetes"),
            kube_apiserver("/registry/services/endpoints/default/kubernetes"),
            kube_apiserver("/registry/endpointslices/default/kubernetes"),
        ]
    );

    let slice = h
        .api
        .get(Kind::EndpointSlice, Some("default"), "kubernetes")
        .expect("slice");
    let slice = slice.as_endpoint_slice().cloned().unwrap_or_default();
    let labels: Vec<(&str, &str)> = slice
        .metadata
        .labels
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(labels, [(LABEL_SERVICE_NAME, "kubernetes")]);
    assert!(slice.metadata.owner_references.is_empty());
    assert_eq!(slice.address_type, "IPv4");
    let endpoints: Vec<_> = slice
        .endpoints
        .iter()
        .map(|e| (e.addresses.clone(), e.conditions.ready))
        .collect();
    assert_eq!(endpoints, [(vec!["10.0.0.1".to_string()], Some(true))]);
    let ports: Vec<_> = slice
        .ports
        .iter()
        .map(|p| (p.name.as_deref(), p.protocol.as_deref(), p.port))
        .collect();
    assert_eq!(ports, [(Some("https"), Some("TCP"), Some(6443))]);

    let ep = h
        .api
        .get(Kind::Endpoints, Some("default"), "kubernetes")
        .expect("endpoints");
    let Object::Endpoints(ep) = &*ep else {
        panic!("{ep:?}")
    };
    assert_eq!(
        ep.metadata
            .labels
            .get("endpointslice.kubernetes.io/skip-mirror")
            .map(String::as_str),
        Some("true")
    );
    let subsets: Vec<_> = ep
        .subsets
        .iter()
        .map(|s| {
            let ips: Vec<&str> = s.addresses.iter().map(|a| a.ip.as_str()).collect();
            let ports: Vec<_> = s
                .ports
                .iter()
                .map(|p| (p.name.as_str(), p.port, p.protocol.as_str()))
                .collect();
            (ips, ports, s.not_ready_addresses.len())
        })
        .collect();
    assert_eq!(
        subsets,
        [(vec!["10.0.0.1"], vec![("https", 6443, "TCP")], 0)]
    );

    // The controllers run for a minute: neither object is rewritten, no other slice appears.
    let revisions = |h: &Harness| {
        [Kind::Endpoints, Kind::EndpointSlice].map(|k| {
            h.api
                .get(k, Some("default"), "kubernetes")
                .map(|o| o.meta().resource_version.clone())
                .ok()
        })
    };
    let before = revisions(&h);
    h.run_for(60_000);
    assert_eq!(revisions(&h), before);
    let all = h
        .api
        .list(Kind::EndpointSlice, None, &ListOptions::default())
        .map(|l| l.items.len())
        .unwrap_or_default();
    assert_eq!(all, 1);

    for node in NODES {
        let rules = h
            .plane
            .kube_proxy(node)
            .map(|p| p.rules())
            .unwrap_or_default();
        let rule = rules.iter().find(|r| r.service == "default/kubernetes");
        assert_eq!(
            rule.map(|r| (r.cluster_ip.as_str(), r.port, r.endpoints.clone())),
            Some(("10.96.0.1", 443, vec!["10.0.0.1:6443".to_string()])),
            "{node}"
        );
    }
}
