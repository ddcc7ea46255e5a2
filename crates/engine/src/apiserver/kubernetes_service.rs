//! The objects kube-apiserver keeps about itself, written when the server starts: the
//! `default/kubernetes` Service (its bootstrap controller, `controlplane/controller/
//! kubernetesservice`) and that Service's backends, the API server's own address, as an
//! Endpoints and an EndpointSlice (the endpoint reconciler, `pkg/controlplane/reconcilers`:
//! `lease.go` for the Endpoints, `endpointsadapter.go` for the slice). The Service has no
//! selector, so the EndpointSlice and Endpoints controllers leave both alone; kube-proxy maps
//! 10.96.0.1:443 to them like any other Service.

use super::service_allocation::KUBERNETES_SERVICE_IP;
use crate::api::apps::IntOrString;
use crate::api::endpoint_slice::{self, EndpointSlice, LABEL_SERVICE_NAME};
use crate::api::endpoints::{EndpointAddress, EndpointPort, EndpointSubset, Endpoints};
use crate::api::service::{Service, ServicePort};
use crate::api::shared::StringMap;
use crate::api::{Object, ObjectMeta};

/// The API server's `--advertise-address`: the control plane's address on the node network
/// (the kubelets' nodes are 10.0.0.2, 10.0.0.3, …).
pub const ADVERTISE_ADDRESS: &str = "10.0.0.1";
/// `--secure-port` (default 6443): the port the `kubernetes` Service's backends listen on.
pub const SECURE_PORT: i32 = 6443;
/// `endpointslice.kubernetes.io/skip-mirror` (`discoveryv1.LabelSkipMirror`): the reconciler
/// sets it on its Endpoints so the EndpointSliceMirroring controller leaves them alone.
pub const LABEL_SKIP_MIRROR: &str = "endpointslice.kubernetes.io/skip-mirror";

const NAMESPACE: &str = "default";
const NAME: &str = "kubernetes";
/// The port name the bootstrap controller gives the Service and its endpoints.
const PORT_NAME: &str = "https";

fn labels(pairs: &[(&str, &str)]) -> StringMap {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The `kubernetes` Service: address 10.96.0.1 (the first of the range), port `https` 443 to
/// the secure port, no selector.
pub fn service() -> Service {
    let mut svc = Service {
        metadata: ObjectMeta::named(NAMESPACE, NAME),
        ..Default::default()
    };
    svc.metadata.labels = labels(&[("component", "apiserver"), ("provider", "kubernetes")]);
    svc.spec.cluster_ip = KUBERNETES_SERVICE_IP.into();
    svc.spec.ports = vec![ServicePort {
        name: PORT_NAME.into(),
        protocol: "TCP".into(),
        port: 443,
        target_port: Some(IntOrString::Int(SECURE_PORT)),
        ..Default::default()
    }];
    svc
}

/// The lease reconciler's Endpoints: one subset, the API server's address, port `https` 6443,
/// labelled skip-mirror.
pub fn endpoints() -> Endpoints {
    let mut metadata = ObjectMeta::named(NAMESPACE, NAME);
    metadata.labels = labels(&[(LABEL_SKIP_MIRROR, "true")]);
    Endpoints {
        metadata,
        subsets: vec![EndpointSubset {
            addresses: vec![EndpointAddress {
                ip: ADVERTISE_ADDRESS.into(),
                ..Default::default()
            }],
            ports: vec![EndpointPort {
                name: PORT_NAME.into(),
                port: SECURE_PORT,
                protocol: "TCP".into(),
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

/// The endpoints adapter's EndpointSlice, named as the Service: only the service-name label
/// (no managed-by: it is not the EndpointSlice controller's), one ready endpoint per API server.
pub fn endpoint_slice() -> EndpointSlice {
    let mut metadata = ObjectMeta::named(NAMESPACE, NAME);
    metadata.labels = labels(&[(LABEL_SERVICE_NAME, NAME)]);
    EndpointSlice {
        metadata,
        address_type: "IPv4".into(),
        endpoints: vec![endpoint_slice::Endpoint {
            addresses: vec![ADVERTISE_ADDRESS.into()],
            conditions: endpoint_slice::EndpointConditions {
                ready: Some(true),
                ..Default::default()
            },
            ..Default::default()
        }],
        ports: vec![endpoint_slice::EndpointPort {
            name: Some(PORT_NAME.into()),
            protocol: Some("TCP".into()),
            port: Some(SECURE_PORT),
            app_protocol: None,
        }],
    }
}

/// What the server writes at start, in the real order: the Service, then its Endpoints, then
/// the slice (the adapter syncs Endpoints before EndpointSlices).
pub fn objects() -> [Object; 3] {
    [
        service().into(),
        endpoints().into(),
        endpoint_slice().into(),
    ]
}
